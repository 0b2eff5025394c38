#!/usr/bin/env bash
# test-workbench-esc.sh - the workbench's [E]dit and [Q]uit on real podman +
# runsc, in a private tmux server: a request from the sandbox is edited from
# the side panel (Esc leaves it waiting) and from the request view, the edited
# command runs on the host and its output reaches the sandbox; [Q]uit in the
# request view denies the request and shuts that tab's domain down while the
# workbench keeps its other tab and opens new ones; the audit records both.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image

lz_domain ws1
repo1=$repo canon1=$canon
lz_domain ws2
repo2=$repo canon2=$canon ctr2=$ctr hash2=$hash
mark=$T/marks; mkdir -p "$mark"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$mark"

decisions() { lz audit -w "$1" --json | grep '"esc.decision"' || true; }
ctr_gone() { [ -z "$(as_user podman ps -aq --filter "name=^$1\$")" ]; }

# --- two tabs, ws1 and ws2 (a [Q]uit on one must leave the other)
"${TM[@]}" new-session -d -s wb -x 120 -y 30 -c "$T" "$(wb_line -w "$repo1")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in tab 0"
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c did not open the new-tab dialog"
"${TM[@]}" send-keys -t wb Tab C-u
"${TM[@]}" send-keys -t wb -l "$repo2"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 pane_has "1:default ws2 running" || show_fail "no second tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 1"
"${TM[@]}" send-keys -t wb C-a 0	# keys are handled in order: what follows goes to tab 0

# --- [E]dit: the panel's e opens the form with the command; Esc leaves it waiting
"${TM[@]}" send-keys -t wb "clear; out=\$(lazaret-escalate --justify wb-edit -- echo one); echo \"esc-rc1=\$? got=[\$out]\"" Enter
wait_for 20 pane_has "!0:default ws1" || show_fail "the waiting request did not mark tab 0"
wait_for 5 pane_has "Escalations (1)" || show_fail "the queue did not show the request"
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb e
wait_for 5 pane_has "edit the command, Enter shows it" || show_fail "the panel's e opened no edit form"
pane | grep -F "edit the command" -A 3 | grep -qF "echo one" || show_fail "the edit form lacks the command"
note "ok: the panel's e opens the edit form on the request's command"
"${TM[@]}" send-keys -t wb Escape
wait_for 5 pane_lacks "edit the command, Enter shows it" || show_fail "Esc did not close the edit form"
assert_contains "$(pane)" "Escalations (1)" "after Esc the request still waits in the queue"
assert_contains "$(pane | head -1)" "!0:default ws1" "after Esc tab 0 is still marked"
assert_not_contains "$(pane)" "esc-rc1=" "after Esc lazaret-escalate still waits"
assert_eq "$(decisions "$repo1")" "" "after Esc no decision is audited"

# --- [E]dit from the request view: Enter opens it, e edits, Enter shows the
# edit, and running it takes the code like an approval
"${TM[@]}" send-keys -t wb C-a Tab	# the form's Esc gave the keys back to the tab
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "Enter: approve & run" || show_fail "Enter in the panel did not open the request"
assert_contains "$(pane)" "wb-edit" "the request view shows the justification"
assert_contains "$(pane)" "q: quit" "the request view offers [Q]uit"
"${TM[@]}" send-keys -t wb e
wait_for 5 pane_has "edit the command, Enter shows it" || show_fail "the request view's e opened no edit form"
"${TM[@]}" send-keys -t wb C-u
"${TM[@]}" send-keys -t wb -l "echo edited-42"
wait_for 5 pane_has "echo edited-42" || show_fail "typed text not in the edit form"
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "your edit" || show_fail "the edit was not shown again to confirm"
assert_contains "$(pane)" "  echo edited-42" "the request view shows the edited command"
wait_for 5 pane_has " Enter: run the edited command" || show_fail "the edit's view did not arm"
"${TM[@]}" send-keys -t wb a Enter
wait_for 5 pane_has "not the code: a new code is shown" || show_fail "a then Enter was not refused"
assert_not_contains "$(pane)" "esc-rc1=" "a then Enter, without the code, did not run the edit"
wb_approve "run the edited command"
wait_for 20 pane_has "esc-rc1=" || show_fail "the edited request did not finish"
assert_contains "$(pane)" "esc-rc1=0 got=[edited-42]" "the edited command's output and exit 0 reach the sandbox"
wait_for 5 pane_has "Escalations (0)" || show_fail "the queue still holds the edited request"
assert_not_contains "$(pane | head -1)" "!0:" "tab 0 is no longer marked"
d=$(decisions "$repo1")
assert_eq "$(printf '%s\n' "$d" | grep -c .)" 1 "one decision audited for the request"
assert_contains "$d" '"action":"edit"' "the audit records the decision as edit"
assert_contains "$d" '"original":"echo one"' "the audit records the original command"
assert_contains "$d" '"edited":"echo edited-42"' "the audit records the edited command"
assert_contains "$d" "\"actor\":\"uid $LZ_UID pid " "the decision names the workbench's uid and pid"
r=$(lz audit -w "$repo1" --json | grep '"esc.result"' || true)
assert_contains "$r" '"exit_status":0' "the audit records the edited command's result"
note "ok: [E]dit ran the edited command on the host; the audit has both commands"

# --- [Q]uit in tab 1's request view: denied, ws2 shut down, the workbench stays
"${TM[@]}" send-keys -t wb C-a 1	# (the decision gave the keys back to the tab)
"${TM[@]}" send-keys -t wb "clear; lazaret-escalate --justify wb-quit -- touch $mark/quit; echo \$? >/workspace/.qrc" Enter
wait_for 20 pane_has "!1:default ws2" || show_fail "the waiting request did not mark tab 1"
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "wb-quit" || show_fail "Enter in the panel did not open tab 1's request"
wait_for 5 pane_has "q: quit" || show_fail "the request view did not arm"
"${TM[@]}" send-keys -t wb q
wait_for 5 pane_has "stop this domain's sandbox? y: yes" || show_fail "q did not ask to confirm"
"${TM[@]}" send-keys -t wb y
wait_for 30 ctr_gone "$ctr2" || show_fail "ws2's container left after [Q]uit"
wait_for 30 eval '[ "$(coord_count "$canon2")" = 0 ]' || fail "ws2's coordinator still runs after [Q]uit"
note "ok: [Q]uit shut ws2's domain down (no container, no coordinator)"
wait_for 10 pane_lacks "1:default ws2" || show_fail "ws2's tab did not close after its domain ended"
assert_contains "$(pane | head -1)" "0:default ws1" "tab 0 stays"
wait_for 10 pane_has 'decision edited ' || show_fail "the panel's history is not tab 0's domain's again"
assert_not_contains "$(pane)" 'stopped the domain at' "the panel shows no ws2 history under tab 0"
assert_contains "$(pane)" "Escalations (0)" "the quit request left the queue"
assert_not_contains "$(pane)" "wb-rc=" "the workbench keeps running"
[ ! -e "$mark/quit" ] || fail "the command ran after [Q]uit"
qrc=$T/home/data/lazaret/domains/$hash2/lazaret-$hash2/.qrc
# the shell is killed with the domain, so it may not get to write the status
if [ -s "$qrc" ]; then assert_eq "$(cat "$qrc")" 126 "lazaret-escalate exited 126 (denied)"; fi
d=$(decisions "$repo2")
assert_eq "$(printf '%s\n' "$d" | grep -c .)" 1 "one decision audited in ws2"
assert_contains "$d" '"action":"quit"' "the audit records the quit"
assert_contains "$(lz audit -w "$repo2" --verify)" "audit trail intact" "ws2's audit verifies after the quit"
assert_eq "$(coord_count "$canon1")" 1 "ws1's coordinator still runs"

# --- the workbench still opens tabs
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c after [Q]uit opened no dialog"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 pane_has "1:default ws1 running" || show_fail "no new tab after [Q]uit"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in the new tab"
"${TM[@]}" send-keys -t wb 'echo N$((6*9))N' Enter
wait_for 10 pane_has "N54N" || show_fail "the new tab's shell does not answer"
note "ok: after [Q]uit the workbench opens a new tab that works"
