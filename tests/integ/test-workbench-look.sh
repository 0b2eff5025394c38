#!/usr/bin/env bash
# test-workbench-look.sh - what each agent did, readable (issue 28 items 1
# and 3), in the real workbench (tmux, real podman + runsc, the real
# sidecar; traffic only to a network namespace this test makes):
#   - the side panel's sections are framed boxes; an empty Escalations
#     section takes one line;
#   - the Audit list says in words what happened: the sandbox and session
#     started, a request auto-approved and run, a request denied at the
#     panel, a destination connected to, one blocked;
#   - Enter on an audit row opens it whole: summary, hash, the trail's
#     verification, the detail as JSON;
#   - 50 flows to 3 destinations are 3 rows in the Egress list with their
#     counts; b shows the blocked one alone;
#   - prefix t: the tab's timeline, in order;
#   - at 80x24 the panel drawn over the tab holds only its own text (the
#     tab's long lines do not show through), and a dialog has nothing of the
#     panel or the tab beside it.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"
H="python3 $LZ_SRC/tests/integ/net-helper.py"

# --- a namespace of our own, 10.216.N.0/29: .2 and .3 answer on 8080, .4 is
# not allowed (blocked at once: ask_timeout 0)
lz_test_netns 10.216 2 3 4
ip netns exec "$SRV" $H serve 0.0.0.0 8080 >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" || fail "test server did not start"

lz_domain look
lz_config <<YAML
network: {ask_timeout: 0}
escalation:
  auto_approve: ["true"]
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
    allow_egress: ["$NET.2:8080", "$NET.3:8080"]
YAML
side=lazaret-net-$hash
lz_on_exit "as_user podman rm -f -t0 $side"
row_of() { pane | grep -nF -- "$1" | head -1 | cut -d: -f1; }
# an Egress row: verdict, count, last seen, destination
egress_row() { pane | grep -qE "$1 +$2 [0-9][0-9]:[0-9][0-9] ${3//./\\.} "; }
keys() { "${TM[@]}" send-keys -t wb "$@"; }

"${TM[@]}" new-session -d -s wb -x 200 -y 50 -c "$T" "$(wb_line -w "$repo")"
wait_for 90 pane_has "/workspace#" || show_fail "no shell prompt"

# --- frames: an empty list is one line, the next box starts right below it
wait_for 10 pane_has "Escalations (0)" || show_fail "no Escalations section"
r=$(row_of "Escalations (0)")
assert_contains "$(pane | sed -n "${r}p")" "─ Escalations (0) ──" "the empty section is a titled rule"
assert_contains "$(pane | sed -n "$((r + 1))p")" "┌ Audit (" "the Audit box starts on the next line"
note "ok: an empty Escalations section takes one line; the next section is a framed box"

# --- the status line: domain, network mode, limit gauges, time (the
# coordinator's JSON status carries the use the gauges draw)
wait_for 10 eval 'pane | tail -1 | grep -qE "^\[default:look\].* net:sidecar mem .* pid .* dsk .* [0-9][0-9]:[0-9][0-9]\$"' ||
	show_fail "the status line lacks the domain, net:sidecar, the gauges or the time"
lz status -w "$repo" --json | timeout 10 python3 -c '
import json, sys
u = json.load(sys.stdin)["usage"]
assert u["memory"] > 0 and u["memory_max"] > 0, u
assert u["pids_max"] >= 0 and u["disk_max"] > 0, u
' || fail "lazaret status --json has no usage for the gauges"
note "ok: the status line shows the domain, net:sidecar, gauges of memory/pids/disk and the time"

# --- the agent asks: one request auto-approved, one the user denies
keys "clear; lazaret-escalate -- true; echo auto-rc=\$?" Enter
wait_for 20 pane_has "auto-rc=0" || show_fail "the auto-approved request did not run"
keys "clear; lazaret-escalate --justify look -- touch /tmp/x; echo deny-rc=\$?" Enter
wait_for 20 pane_has "Escalations (1)" || show_fail "the request did not reach the queue"
keys C-a Tab
wait_for 5 pane_has "PANEL" || show_fail "prefix Tab did not focus the panel"
keys d
wait_for 20 pane_has "deny-rc=126" || show_fail "d in the panel did not deny the request"

# --- 50 flows to 3 destinations: 20 to .2, 20 to .3 (allowed), 10 to .4 (blocked)
keys "clear; for i in \$(seq 20); do for h in $NET.2 $NET.3; do timeout 5 bash -c \"exec 3<>/dev/tcp/\$h/8080\"; done; done; for i in \$(seq 10); do timeout 1 bash -c 'exec 3<>/dev/tcp/$NET.4/9'; done 2>/dev/null; echo flows-done" Enter
wait_for 120 pane_has "flows-done" || show_fail "the flows did not finish"
wait_for 20 egress_row allow 20 "$NET.2:8080" || show_fail "no row of 20 flows to $NET.2:8080"
wait_for 5 egress_row allow 20 "$NET.3:8080" || show_fail "no row of 20 flows to $NET.3:8080"
wait_for 5 egress_row block 10 "$NET.4:9" || show_fail "no row of 10 blocked flows to $NET.4:9"
assert_eq "$(pane | grep -cE "(allow|block) +[0-9]+ [0-9:]+ $NET\.")" 3 "the Egress list holds 3 destination rows"
note "ok: 50 flows to 3 destinations are 3 rows with their counts (20, 20, 10)"

# --- b: the blocked destinations alone, b again: all
keys C-a Tab
wait_for 5 pane_has "PANEL" || show_fail "prefix Tab did not focus the panel"
keys Tab Tab	# Escalations -> Audit -> Egress
keys b
wait_for 5 eval '! egress_row allow 20 "$NET.2:8080"' || show_fail "b did not hide the allowed destinations"
egress_row block 10 "$NET.4:9" || show_fail "b hid the blocked destination"
keys b
wait_for 5 egress_row allow 20 "$NET.2:8080" || show_fail "b again did not show every destination"
note "ok: b in the Egress list shows the blocked destination alone, and all again"

# --- the Audit list, in words
# (the panel is 60 columns at 200: each row's first 56 characters show)
for s in "sandbox  lazaret started the sandbox" "session  " "request  agent   asked to run true (auto-approved)" \
	"decision policy  auto-approved true" "result   lazaret ran true (auto-approved): exit 0" \
	"request  agent   asked to run touch /tmp/x" \
	"decision you     denied touch /tmp/x" "egress   lazaret connected to $NET.2:8080" \
	"egress   lazaret blocked $NET.4:9"; do
	wait_for 10 pane_has "$s" || show_fail "the Audit list lacks [$s]"
done
assert_not_contains "$(pane)" '{"' "no raw JSON in the panel"
note "ok: the Audit list says in words what happened (sandbox, session, requests, decisions, result, egress)"
w=$(lz audit -w "$repo" --words)
for s in "decision  you      denied touch /tmp/x" "result    lazaret  ran true (auto-approved): exit 0" \
	"egress    lazaret  blocked $NET.4:9"; do
	assert_contains "$w" "$s" "lazaret audit --words says [$s]"
done
note "ok: lazaret audit --words prints the same words"

# --- Enter on the denial opens the row whole
keys BTab	# Egress -> Audit
wait_for 5 pane_has "┏ Audit (" || show_fail "BTab did not focus the Audit list"
# the selection is on the newest row: walk up to the denial
deny_row=$(row_of "decision you     denied touch")
last_row=$(pane | grep -n "┃ [0-9][0-9]:[0-9][0-9] " | tail -1 | cut -d: -f1)
for _ in $(seq $((last_row - deny_row))); do keys Up; done
keys Enter
wait_for 5 pane_has "Audit row" || show_fail "Enter on an audit row opened no detail view"
for s in "denied touch /tmp/x" "kind      esc.decision (decision)" "hash      " "previous  " \
	"verify    audit trail intact" '"action": "deny"'; do
	wait_for 10 pane_has "$s" || show_fail "the detail view lacks [$s]"
done
assert_not_contains "$(pane)" "Escalations (" "the panel is not seen beside the detail view"
note "ok: Enter opens the row: summary, kind, chain hashes, the trail verified, the detail as JSON"
keys q
wait_for 5 pane_lacks "Audit row" || show_fail "q did not close the detail view"
keys Escape

# --- the timeline
sleep 0.5
keys C-a t
wait_for 5 pane_has "Timeline of default:" || show_fail "prefix t opened no timeline"
tl=$(pane)
a=$(echo "$tl" | grep -nF "asked to run true" | head -1 | cut -d: -f1)
b=$(echo "$tl" | grep -nF "denied touch /tmp/x" | head -1 | cut -d: -f1)
c=$(echo "$tl" | grep -nF "blocked $NET.4:9" | head -1 | cut -d: -f1)
[ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && [ "$a" -lt "$b" ] && [ "$b" -lt "$c" ] ||
	show_fail "the timeline does not show request, denial and block in order"
keys q
note "ok: prefix t shows the tab's requests, decisions and network events in order"

# --- 80x24: the panel over the tab holds only its own text; a dialog is alone
"${TM[@]}" resize-window -t wb -x 80 -y 24
keys "clear; printf 'LONGMARK%.0s' \$(seq 9); echo" Enter
wait_for 5 pane_has "LONGMARKLONGMARK" || show_fail "the marker line did not print"
keys C-a s
wait_for 5 pane_has "Escalations (0)" || show_fail "prefix s did not show the panel at 80 columns"
pane | sed -n '2,23p' | cut -c41-80 >"$T/side.txt"
grep -q LONGMARK "$T/side.txt" && { cat "$T/side.txt"; show_fail "the tab's text shows through the panel"; }
# every panel row starts at column 41 with a frame or a title rule
bad=$(grep -cvE '^(─|┌|│|└|━|┏|┃|┗)' "$T/side.txt" || true)
[ "$bad" = 0 ] || { cat "$T/side.txt"; show_fail "$bad panel rows do not start with the panel's frame"; }
assert_contains "$(pane | sed -n 2p | cut -c1-40)" "LONGMARK" "the tab keeps its columns left of the panel"
assert_contains "$(pane | sed -n 1p)" "0:default look" "the tab bar is the first row"
assert_contains "$(pane | sed -n 24p)" "[default:look]" "the status line is the last row"
note "ok: at 80x24 the panel's rows are its own: frames, no tab text under them"
keys C-a '?'
wait_for 5 pane_has "lazaret-workbench keys" || show_fail "no key help"
assert_not_contains "$(pane)" "LONGMARK" "the tab's text is not seen beside the dialog"
assert_not_contains "$(pane)" "Escalations (" "the panel's text is not seen beside the dialog"
keys q
wait_for 5 pane_has "LONGMARK" || show_fail "the tab did not come back after the dialog"
note "ok: a dialog stands alone: nothing of the tab or the panel beside it"
keys C-a x y
wait_for 20 pane_has "wb-rc=0" || show_fail "closing the tab did not end the workbench"
