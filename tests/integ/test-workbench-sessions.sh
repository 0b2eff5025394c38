#!/usr/bin/env bash
# test-workbench-sessions.sh - workbench sessions like tmux's (tmux, real
# podman + runsc): one workbench a session (a second attach is refused,
# attach -d takes over and the first detaches), `ls`, -w opens its workspace
# without restoring the detached tabs (kept for attach), named sessions
# (-s NAME, attach -t NAME), --config FILE.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain sa
repo1=$repo
lz_domain sb
repo2=$repo
pane_of() { "${TM[@]}" capture-pane -p -J -t "$1"; }
has_of() { pane_of "$1" | grep -qF -- "$2"; }
wbls() { as_user lazaret-workbench ls; }

"${TM[@]}" new-session -d -s wb -x 90 -y 24 -c "$T" "$(wb_line -w "$repo1")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt"
"${TM[@]}" send-keys -t wb 'echo MARK$((3*3))' Enter
wait_for 10 pane_has "MARK9" || show_fail "no output"
assert_eq "$(wbls)" "main: 1 tab (attached)" "ls shows the attached session"

# --- a second attach is refused; attach -d takes over
"${TM[@]}" new-session -d -s two -x 90 -y 24 -c "$T" "$(wb_line attach) 2>&1"
wait_for 10 has_of two "wb-rc=" || { pane_of two; fail "a second attach did not end"; }
assert_contains "$(pane_of two)" "session main is attached to another workbench (pid" "a second attach is refused"
assert_contains "$(pane_of two)" "wb-rc=1" "refused with exit 1"
pane_lacks "wb-rc=" || show_fail "the refused attach disturbed the first workbench"
"${TM[@]}" kill-session -t two
"${TM[@]}" new-session -d -s two -x 90 -y 24 -c "$T" "$(wb_line attach -d)"
wait_for 10 pane_has "[detached: 1 session" || show_fail "attach -d did not detach the first workbench"
wait_for 10 has_of two "MARK9" || { pane_of two; fail "attach -d did not bring the tab with its screen"; }
note "ok: a second attach is refused; attach -d takes the session over, the first detaches"
"${TM[@]}" send-keys -t two C-a d
wait_for 10 has_of two "wb-rc=0" || { pane_of two; fail "detach failed"; }
assert_eq "$(wbls)" "main: 1 tab (detached)" "ls shows the detached session"

# --- -w opens its workspace only; the detached tab is kept for attach
"${TM[@]}" kill-session -t wb
"${TM[@]}" new-session -d -s wb -x 90 -y 24 -c "$T" "$(wb_line -w "$repo2")"
wait_for 60 pane_has "0:default sb running" || show_fail "-w did not open its workspace"
pane_lacks "sa running" || show_fail "-w restored the detached tab of another workspace"
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "detach after -w failed"
assert_eq "$(grep -c '^[0-9]' "$T/wb.tabs")" 2 "the kept tab and the new one are both saved"
"${TM[@]}" kill-session -t wb
"${TM[@]}" new-session -d -s wb -x 90 -y 24 -c "$T" "$(wb_line attach)"
# (a background tab at its prompt reads "?N:... input": issue 28's who needs me)
wait_for 30 pane_has "1:default sb " || show_fail "attach did not restore both tabs"
assert_contains "$(pane | head -1)" "0:default sa " "attach restores the kept tab too"
note "ok: -w opens its workspace without restoring the detached tabs; attach restores them all"

# --- a named session beside main; attach -t NAME refused while attached
"${TM[@]}" new-session -d -s other -x 90 -y 24 -c "$T" "$(wb_line -s dev -w "$repo1")"
wait_for 60 has_of other "0:default sa running" || { pane_of other; fail "-s dev did not start"; }
ls_out=$(wbls)
assert_contains "$ls_out" "main: 2 tabs (attached)" "ls lists main"
assert_contains "$ls_out" "dev: 1 tab (attached)" "ls lists the named session"
"${TM[@]}" kill-session -t two
"${TM[@]}" new-session -d -s two -x 90 -y 24 -c "$T" "$(wb_line attach -t dev) 2>&1"
wait_for 10 has_of two "wb-rc=1" || { pane_of two; fail "attach -t dev while attached was not refused"; }
assert_contains "$(pane_of two)" "attach -d -t dev' takes it over" "the refusal says how to take over"
note "ok: named sessions, ls, and attach -t NAME refused while attached"
"${TM[@]}" send-keys -t other C-a x y
wait_for 20 has_of other "wb-rc=0" || { pane_of other; fail "closing dev's tab did not end it"; }

# --- --config FILE
printf 'workbench: {prefix: C-b}\nprofiles:\n  default:\n    image: localhost/lazaret-default:latest\n' >"$T/alt.yaml"
chmod 644 "$T/alt.yaml"
"${TM[@]}" kill-session -t two
"${TM[@]}" new-session -d -s two -x 90 -y 24 -c "$T" "$(wb_line --config "$T/alt.yaml" -s cfg -w "$repo1")"
wait_for 60 has_of two "C-b: c new" || { pane_of two; fail "--config FILE's prefix not used"; }
note "ok: --config FILE is the configuration"
"${TM[@]}" send-keys -t two C-b x y
wait_for 20 has_of two "wb-rc=0" || { pane_of two; fail "the --config workbench did not end"; }
"${TM[@]}" send-keys -t wb C-a x y
"${TM[@]}" send-keys -t wb C-a x y
wait_for 20 pane_has "wb-rc=0" || show_fail "closing main's tabs did not end it"
