#!/usr/bin/env bash
# test-workbench-kit.sh - a workbench tab on a kit's profile starts the kit's
# agent (here Claude Code, its image cached from test-kit-claude), not a
# shell; the new-tab dialog lists the kits beside the file's profiles.
# No model is reached: the profile has no network (network: none), so its
# first screen is Claude Code's own availability notice: drawn by the agent.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
need_kit_image claude

lz_domain ws claude
lz_on_exit "lz stop -p default -w '$repo'"
lz_config <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
  claude:
    network: none
YAML
"${TM[@]}" new-session -d -s wb -x 100 -y 30 -c "$T" "$(wb_line -p claude -w "$repo")"
lz_on_exit "tm_kill"
wait_for 120 pane_has "0:claude ws" || show_fail "no tab for the claude profile"
wait_for 120 pane_has "Claude Code" || show_fail "the kit's tab did not start Claude Code"
pane_lacks "/workspace#" || show_fail "the kit's tab started a shell"
note "ok: a kit's tab starts its agent"
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c did not open the new-tab dialog"
for k in default claude codex shell; do
	pane_has " $k" || show_fail "the new-tab dialog does not list $k"
done
note "ok: the new-tab dialog lists the kits beside the file's profiles"
