#!/usr/bin/env bash
# test-workbench-need.sh - who needs me (issue 28 item 2), on real podman +
# runsc in a private tmux: a background tab whose shell prints its prompt
# and waits reads "?N:... input" within 2 s of the prompt (and "running"
# while its command runs); a pending escalation marks it "!N:... approval";
# prefix N visits the tabs that need the user in order, after the active
# one; both states clear; workbench.notify runs once per change, never
# again while a tab stays waiting.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image

lz_domain need-ws
LZ_ENV+=(LAZARET_ESC_TIMEOUT=120)
printf '#!/bin/sh\necho "$LAZARET_TAB $LAZARET_TAB_STATE $LAZARET_TAB_PROFILE" >>%s/notify.log\n' "$T" >"$T/notify.sh"
chmod 0755 "$T/notify.sh"; : >"$T/notify.log"; chmod 0666 "$T/notify.log"
lz_config <<YAML
workbench:
  notify: $T/notify.sh
profiles:
  default:
    image: localhost/lazaret-default:latest
YAML
bar() { pane | head -1; }
bar_has() { bar | grep -qF -- "$1"; }
notified() { cat "$T/notify.log"; }

"${TM[@]}" new-session -d -s wb -x 160 -y 40 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in tab 0"
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c opened no dialog"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 bar_has "1:default need-ws running" || show_fail "no second tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 1"
# tab 0, in the background with its idle prompt: it waited already while in
# sight, so no notice (no change)
wait_for 5 bar_has "?0:default need-ws input" || show_fail "the idle background tab is not marked input"
assert_contains "$(bar)" " 1:default need-ws running" "the active tab, in sight, reads running"

# --- a command in tab 0: running while it runs, input within 2 s of its prompt
"${TM[@]}" send-keys -t wb C-a 0
"${TM[@]}" send-keys -t wb "clear; sleep 5" Enter
"${TM[@]}" send-keys -t wb C-a 1
t0=$SECONDS
wait_for 4 bar_has " 0:default need-ws running" || show_fail "tab 0 does not read running while sleep runs"
note "ok: a background tab running a command reads running"
wait_for 10 bar_has "?0:default need-ws input" || show_fail "tab 0 did not become input after its prompt"
el=$((SECONDS - t0))
[ "$el" -le 8 ] || fail "tab 0 became input ${el}s after the 5 s command (more than 2 s after its prompt)"
note "ok: input ${el}s after a 5 s command: within 2 s of the prompt"
wait_for 5 eval '[ "$(notified)" = "0 input default" ]' || fail "notify did not run once for tab 0: [$(notified)]"

# --- a pending escalation: approval, marked !, notified once
"${TM[@]}" send-keys -t wb C-a 0
"${TM[@]}" send-keys -t wb "clear; sleep 2; lazaret-escalate --justify need-me -- true; echo esc-rc=\$?" Enter
"${TM[@]}" send-keys -t wb C-a 1
wait_for 30 bar_has "!0:default need-ws approval" || show_fail "the pending escalation did not mark tab 0 approval"
wait_for 5 eval '[ "$(notified | wc -l)" = 2 ]' || fail "notify did not run for the approval: [$(notified)]"
assert_eq "$(notified | tail -1)" "0 approval default" "notify names the tab and its new state"

# --- a third tab waiting for input; tab 1 busy
"${TM[@]}" send-keys -t wb "clear; sleep 300" Enter
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c opened no dialog"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 bar_has "2:default need-ws running" || show_fail "no third tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 2"
"${TM[@]}" send-keys -t wb C-a 1
wait_for 5 bar_has "?2:default need-ws input" || show_fail "tab 2 is not marked input in the background"
assert_contains "$(bar)" " 1:default need-ws running" "tab 1 runs sleep"

# --- prefix N: the next tab that needs me after the active one, in order
"${TM[@]}" send-keys -t wb C-a N
wait_for 5 bar_has " 2:default need-ws running" || show_fail "prefix N from tab 1 did not go to tab 2"
"${TM[@]}" send-keys -t wb C-a N
wait_for 5 bar_has "?2:default need-ws input" || show_fail "prefix N from tab 2 did not leave it"
assert_contains "$(bar)" "!0:default need-ws" "prefix N from tab 2 went to tab 0 (approval)"
note "ok: prefix N visits tab 2 then tab 0"

# --- what the agent prints cannot name or mark a tab: an OSC title, a fake
# mark, hiding the cursor at a prompt-looking line
"${TM[@]}" send-keys -t wb C-a 2
"${TM[@]}" send-keys -t wb "clear; printf '\\033]2;!9:pwned approval\\007\\033]0;pwned\\033\\\\?1:x input\\n'; sleep 300" Enter
"${TM[@]}" send-keys -t wb C-a 0
wait_for 5 bar_has " 2:default need-ws running" || show_fail "tab 2 does not read running while sleep runs"
assert_not_contains "$(bar)" "pwned" "an OSC title from the agent never reaches the tab bar"
assert_not_contains "$(bar)" "!9:" "nor a fake mark"
"${TM[@]}" send-keys -t wb C-a 2
"${TM[@]}" send-keys -t wb C-c
"${TM[@]}" send-keys -t wb C-a 0
wait_for 5 bar_has "?2:default need-ws input" || show_fail "tab 2 did not wait for input again after C-c"

# --- both clear: the request denied, tab 2 given a command
id=$(lz escalations --pending --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
lz escalations deny "$id" >/dev/null 2>&1 </dev/null || fail "deny failed"
wait_for 10 pane_has "esc-rc=126" || show_fail "the denied request did not end"
wait_for 5 eval '! bar_has "!0:"' || show_fail "tab 0 kept its approval mark"
"${TM[@]}" send-keys -t wb C-a 2
"${TM[@]}" send-keys -t wb "clear; sleep 300" Enter
"${TM[@]}" send-keys -t wb C-a 0
wait_for 5 bar_has " 2:default need-ws running" || show_fail "tab 2 kept its input mark while sleep runs"
note "ok: approval and input clear"
assert_eq "$(notified | wc -l | tr -d ' ')" 2 "notify ran once per change, never while a tab stayed waiting"
