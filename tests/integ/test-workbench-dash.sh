#!/usr/bin/env bash
# test-workbench-dash.sh - the dashboard and tmux's habits (issue 28 items
# 4 and 6), on real podman + runsc in a private tmux: `lazaret ls` and the
# workbench's prefix w list two domains with their states (one waiting for
# approval, one running a command), s sorts, Enter goes to the domain's
# tab; prefix , names a tab; SIGHUP reads the configuration again (a new
# prefix key works at once) and prefix : source-file does too; the tabs'
# names come back after detach and attach (tmux keeps them); a tab whose
# sandbox the memory limit stopped reads "limit" in the tab bar, as its
# domain does in `lazaret ls` and the dashboard.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image

lz_domain dash-a
repo_a=$repo hash_a=$hash
lz_domain dash-b
repo_b=$repo hash_b=$hash
LZ_ENV+=(LAZARET_ESC_TIMEOUT=120)
lz_config <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    limits: {memory: 300m}
YAML
bar() { pane | head -1; }
bar_has() { bar | grep -qF -- "$1"; }
ls_state() { lz ls 2>/dev/null | awk -v h="$1" '$1 == h { print $3, $10 }'; }

"${TM[@]}" new-session -d -s wb -x 160 -y 40 -c "$T" "$(wb_line -w "$repo_a")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in tab 0"
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c opened no dialog"
"${TM[@]}" send-keys -t wb Tab C-u
"${TM[@]}" send-keys -t wb -l "$repo_b"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 bar_has "1:default dash-b running" || show_fail "no second tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 1"
"${TM[@]}" send-keys -t wb "clear; sleep 600" Enter
"${TM[@]}" send-keys -t wb C-a 0
"${TM[@]}" send-keys -t wb "clear; lazaret-escalate --justify dash -- true" Enter
wait_for 30 bar_has "!0:default dash-a" || show_fail "the escalation did not mark tab 0"

# --- lazaret ls: the dashboard's columns, each domain's state
wait_for 10 eval '[ "$(ls_state "$hash_a")" = "approval 1" ]' || fail "ls: dash-a is not [approval 1]: $(lz ls)"
wait_for 10 eval '[ "$(ls_state "$hash_b")" = "running 0" ]' || fail "ls: dash-b is not [running 0]: $(lz ls)"
out=$(lz ls)
assert_contains "$(printf '%s\n' "$out" | head -1 | tr -s ' ')" "DOMAIN PROFILE STATE SESSIONS UPTIME MEM CPU FLOWS BLOCKED PENDING UNREVIEWED WORKSPACE" "ls has the dashboard's columns"
assert_contains "$(lz ls --json)" '"state":"approval"' "ls --json has the state"
st=$(lz status -w "$repo_a")
assert_contains "$(printf '%s\n' "$st" | tr -s ' ')" "STATE COMMAND" "lazaret status: the session list has a STATE column"
assert_contains "$(printf '%s\n' "$st" | grep '(shell)' | tr -s ' ')" " approval " "dash-a's session is waiting for approval"
assert_contains "$(lz status -w "$repo_b" | grep '(shell)' | tr -s ' ')" " running " "dash-b's session runs"
note "ok: lazaret ls and the session list show both domains with their states"

# --- prefix w: the same rows in the workbench
"${TM[@]}" send-keys -t wb C-a w
# (every live domain of the user: another test's may be listed beside ours)
wait_for 10 pane_has "Domains (" || show_fail "prefix w did not open the dashboard"
wait_for 10 eval 'pane | grep -F "$hash_a" | grep -q approval' || show_fail "the dashboard lacks dash-a's approval"
pane | grep -F "$hash_b" | grep -q running || show_fail "the dashboard lacks dash-b running"
assert_contains "$(pane | grep -F "$hash_a")" "$repo_a" "the row names its workspace"
# sorted by STATE: who needs you first
first=$(pane | grep -nF -e "$hash_a" -e "$hash_b" | head -1)
assert_contains "$first" "$hash_a" "the domain waiting for approval heads the list"
"${TM[@]}" send-keys -t wb s
wait_for 5 pane_has "sorted by DOMAIN" || show_fail "s did not sort by DOMAIN"
# The selection stays on dash-a's row; j (or k) row by row to dash-b's, over
# any other domain between them. Enter goes to that domain's tab (the status
# line names the tab's domain).
row() { pane | grep -nF "$1" | head -1 | cut -d: -f1; }
rows=$(( $(row "$hash_b") - $(row "$hash_a") ))
key=j; [ "$rows" -gt 0 ] || { key=k; rows=$((-rows)); }
for _ in $(seq "$rows"); do "${TM[@]}" send-keys -t wb "$key"; done
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_lacks "Domains (" || show_fail "Enter did not leave the dashboard"
wait_for 5 pane_has "[default:dash-b]" || show_fail "Enter did not go to the selected domain's tab (dash-b)"
note "ok: prefix w lists both domains, sorts, and Enter goes to a tab"

# --- prefix , names the tab
"${TM[@]}" send-keys -t wb C-a 1
"${TM[@]}" send-keys -t wb C-a ,
wait_for 5 pane_has "(rename-tab)" || show_fail "prefix , asked for no name"
"${TM[@]}" send-keys -t wb -l "build-agent"
"${TM[@]}" send-keys -t wb Enter
wait_for 5 bar_has "1:build-agent" || show_fail "the tab was not renamed"
note "ok: prefix , renamed tab 1"

# --- SIGHUP reloads the configuration: the new prefix works at once
lz_config <<YAML
workbench:
  prefix: C-b
profiles:
  default:
    image: localhost/lazaret-default:latest
    limits: {memory: 300m}
YAML
wbpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk -v w="$repo_a" '$2 ~ /lazaret-workbench$/ && index($0, w) { print $1 }' | head -1)
[ -n "$wbpid" ] || fail "no workbench process found"
kill -HUP "$wbpid"
wait_for 5 pane_has "configuration reloaded" || show_fail "SIGHUP did not reload the configuration"
# (after the 5 s message that says so)
wait_for 10 pane_has "C-b: c new" || show_fail "the status line's hints do not name the new prefix"
"${TM[@]}" send-keys -t wb C-b c
wait_for 5 pane_has "New sandbox tab" || show_fail "the reloaded prefix C-b does not work"
"${TM[@]}" send-keys -t wb Escape
# a key right after Escape would read as Meta-key, as in any terminal program
wait_for 5 pane_lacks "New sandbox tab" || show_fail "Escape did not close the new-tab dialog"
assert_contains "$(timeout 10 ps -o pid= -p "$wbpid")" "$wbpid" "the workbench still runs after SIGHUP"
note "ok: SIGHUP reloaded the configuration (prefix C-b)"

# --- prefix : source-file
lz_config <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    limits: {memory: 300m}
YAML
"${TM[@]}" send-keys -t wb C-b :
wait_for 5 pane_has ": _" || show_fail "prefix : opened no command line"
"${TM[@]}" send-keys -t wb -l "source-file"
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "configuration reloaded" || show_fail "source-file did not reload"
note "ok: prefix : source-file reloads"

# --- the tabs' names are kept across detach and attach, as tmux keeps them
# (the prefix is still C-b: like tmux's, a file without it leaves it as it is)
"${TM[@]}" send-keys -t wb C-b 0
"${TM[@]}" send-keys -t wb C-b :
wait_for 5 pane_has ": _" || show_fail "prefix : opened no command line"
"${TM[@]}" send-keys -t wb -l "rename-tab lead agent"
"${TM[@]}" send-keys -t wb Enter
wait_for 5 bar_has "0:lead agent" || show_fail ": rename-tab did not name tab 0"
wb_reattach C-b 160 40
wait_for 30 bar_has "1:build-agent" || show_fail "attach lost the name of tab 1 (prefix ,)"
assert_contains "$(bar)" "0:lead agent" "attach keeps the name of tab 0 (: rename-tab)"
note "ok: both tabs' names are back after detach and attach"

# --- the memory limit stops dash-b's sandbox: its tab reads "limit"
# (tab 0's request, shown first after attach, denied from the CLI)
id=$(lz escalations --pending --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
lz escalations deny "$id" >/dev/null 2>&1 </dev/null || fail "deny failed"
wait_for 10 pane_has "Esc: back to the tab" || show_fail "no armed notice for the request decided elsewhere"
"${TM[@]}" send-keys -t wb Escape
wait_for 5 pane_lacks "Request closed" || show_fail "Esc did not put the notice away"
lz_hold || fail "no holding client for dash-b"	# its status stays readable after the stop
"${TM[@]}" send-keys -t wb C-a 1
"${TM[@]}" send-keys -t wb C-c
"${TM[@]}" send-keys -t wb "clear; head -c 600000000 /dev/zero | tail >/dev/null; echo survived" Enter
"${TM[@]}" send-keys -t wb C-a 0
wait_for 60 bar_has " 1:build-agent limit" || show_fail "the tab stopped at the memory limit does not read limit"
assert_not_contains "$(bar)" "exited" "no tab reads exited"
wait_for 10 eval '[ "$(ls_state "$hash_b" | cut -d" " -f1)" = limit ]' || fail "ls: dash-b is not limit: $(lz ls)"
"${TM[@]}" send-keys -t wb C-a w
wait_for 10 eval 'pane | grep -F "$hash_b" | grep -q limit' || show_fail "the dashboard does not show dash-b's limit"
"${TM[@]}" send-keys -t wb q
note "ok: the tab, lazaret ls and the dashboard say limit"
timeout 10 pkill -u "$LZ_USER" -f "hold.py $sock" || true
