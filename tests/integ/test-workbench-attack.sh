#!/usr/bin/env bash
# test-workbench-attack.sh - issue 9 against the real workbench, in a private
# tmux server on real podman + runsc: requests come from inside the sandbox,
# and nothing but a human's a, code and Enter at a request view showing the
# whole command approves one. Attacks: the panel keeps the focus after a
# decision ("decide, then type cat"), C-a a, q without asking, a padded argv
# cut in the queue, keys typed ahead into an opening view, tmux's real
# XTVERSION reply (it carries an a) and a reply followed by the right code;
# libvterm answering the agent's terminal queries into the session.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image

lz_domain wsa
mark=$T/marks; mkdir -p "$mark"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$mark"
audit_json() { lz audit -w "$repo" --json; }
approvals() { audit_json | grep '"esc.decision"' | grep -c '"action":"approve"' || true; }
line_is() { pane | awk -v s="$1" 'index($0, s) == 1 { f = 1 } END { exit !f }'; }	# a row starts with $1
ctr_up() { [ -n "$(as_user podman ps -q --filter "name=^$ctr\$")" ]; }

"${TM[@]}" new-session -d -s wb -x 120 -y 30 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in the tab"

# --- the agent's terminal queries are answered once, by the coordinator's
# screen (the one place that answers), never also by the tab's libvterm
"${TM[@]}" send-keys -t wb "clear; printf '\\033[c\\033[6n'; read -rs -t 2 -n 60 r; echo \"finals=[\$(printf %s \"\$r\" | tr -cd cR)]\"" Enter
reply_done() { pane | grep -q 'finals=\[[cR]*\]'; }
wait_for 10 reply_done || show_fail "the query test did not finish"
assert_contains "$(pane)" "finals=[cR]" "DA and DSR are answered once each (the coordinator's screen), not by the tab too"

# --- two requests from the sandbox: first, then second
"${TM[@]}" send-keys -t wb "clear; (lazaret-escalate --justify first -- touch $mark/first; echo rc-first=\$?) &" Enter
wait_for 20 pane_has "Escalations (1)" || show_fail "the first request did not reach the queue"
"${TM[@]}" send-keys -t wb "(lazaret-escalate --justify second -- touch $mark/second; echo rc-second=\$?) &" Enter
wait_for 20 pane_has "Escalations (2)" || show_fail "the second request did not reach the queue"

# --- decide in the panel, then type "cat": the a must not approve
"${TM[@]}" send-keys -t wb C-a Tab
wait_for 5 pane_has " PANEL" || show_fail "the status line does not say the panel has the keys"
pane | grep -q "┃" || show_fail "the focused panel's border is not drawn heavy"
"${TM[@]}" send-keys -t wb d
"${TM[@]}" send-keys -t wb -l cat
"${TM[@]}" send-keys -t wb -l " /dev/null; echo shell-got-\$((6*7))"
"${TM[@]}" send-keys -t wb Enter
wait_for 20 pane_has "rc-first=126" || show_fail "d in the panel did not deny the first request"
wait_for 5 pane_has "shell-got-42" || show_fail "\"cat\" typed after the decision did not reach the shell"
assert_contains "$(pane)" "Escalations (1)" "the second request still waits"
assert_not_contains "$(pane | tail -1)" " PANEL" "the keys went back to the tab after the decision"
[ ! -e "$mark/second" ] || fail "typing cat after a decision approved the second request"

# --- C-a a sends C-a (screen's habit), as does the prefix twice; neither approves
"${TM[@]}" send-keys -t wb "clear; stty -echo; echo cat-ready; cat -v" Enter
wait_for 10 line_is "cat-ready" || show_fail "cat did not start"
"${TM[@]}" send-keys -t wb C-a a C-a C-a Enter
wait_for 5 line_is "^A^A" || show_fail "C-a a and C-a C-a did not each send C-a to the tab"
assert_contains "$(pane)" "Escalations (1)" "C-a a approved nothing"
[ ! -e "$mark/second" ] || fail "C-a a approved the second request"
"${TM[@]}" send-keys -t wb C-c
"${TM[@]}" send-keys -t wb "stty sane; clear" Enter
note "ok: C-a a and C-a C-a send the prefix to the tab"

# --- q in the panel asks before it stops the domain; n keeps it
"${TM[@]}" send-keys -t wb C-a Tab
wait_for 5 pane_has " PANEL" || show_fail "C-a Tab did not focus the panel"
"${TM[@]}" send-keys -t wb q
wait_for 5 pane_has "stop the default sandbox? y: yes, any other key: no" ||
	show_fail "q did not ask before stopping the domain"
ctr_up || fail "q stopped the domain without asking"
"${TM[@]}" send-keys -t wb n
wait_for 5 pane_has "not stopped" || show_fail "n did not keep the domain"
ctr_up || fail "the domain stopped after n"
assert_contains "$(pane)" "Escalations (1)" "after n the request still waits"

# --- a padded argv: the queue shows the padding, the view shows it whole
"${TM[@]}" send-keys -t wb "clear; (lazaret-escalate --justify pad -- ls -la \"pad\$(printf '%150s' '')end\"; echo rc-pad=\$?) &" Enter
wait_for 20 pane_has "Escalations (2)" || show_fail "the padded request did not reach the queue"
assert_contains "$(pane)" "ls -la \$'pad\\x20{1" "the queue shows the padding, not blanks"
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb j Enter
wait_for 5 pane_has "Command, 3 words:" || show_fail "Enter did not open the padded request"
assert_contains "$(pane)" "  ls -la \$'pad\\x20{150}end'" "the request view shows the padded argv whole"
wait_for 5 pane_has "Enter: approve & run" || show_fail "the padded request's view did not arm"
"${TM[@]}" send-keys -t wb d
wait_for 20 pane_has "rc-pad=126" || show_fail "the padded request was not denied"

# --- keys typed ahead into an opening request view approve nothing
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb Enter a c f h Enter a Enter
wait_for 5 pane_has "Enter: approve & run" || show_fail "the request view did not open and arm"
# (the view hides the panel behind it: the tab's mark says the request still waits)
assert_contains "$(pane | head -1)" "!0:default wsa" "keys typed ahead approved nothing: the tab still waits"
[ ! -e "$mark/second" ] || fail "keys typed ahead into the opening view approved the request"

# --- tmux's own reply to XTVERSION (ESC P >|tmux 3.3a ESC \, with an a in it)
printf '\033[>q' >"$("${TM[@]}" display -p -t wb '#{pane_tty}')"
wait_for 10 pane_has "looks like a terminal reply was discarded" || show_fail "tmux's XTVERSION reply was not caught"
assert_contains "$(pane | head -1)" "!0:default wsa" "the XTVERSION reply approved nothing: the tab still waits"
[ ! -e "$mark/second" ] || fail "tmux's XTVERSION reply approved the request"
suspicious() { audit_json | grep -c '"esc.suspicious"' || true; }
wait_for 10 test "$(suspicious)" -ge 1 || fail "the discarded reply is not in the audit"
assert_contains "$(audit_json | grep '"esc.suspicious"')" "tmux 3.3a" "the audit keeps what the reply said"

# --- a reply, then the right code at once: the reply disarmed the view
wait_for 5 pane_has "Enter: approve & run" || show_fail "the view did not arm again after the reply"
code=$(wb_code)
"${TM[@]}" send-keys -t wb -l $'\eP>|xterm(388)\e\\'"a$code"
"${TM[@]}" send-keys -t wb Enter
wait_for 10 test "$(suspicious)" -ge 2 || fail "the second reply is not in the audit"
wait_for 5 pane_has "Enter: approve & run" || show_fail "the view did not arm again"
assert_eq "$(approvals)" 0 "a reply followed at once by the code approved nothing"
[ ! -e "$mark/second" ] || fail "a reply followed by the code approved the request"

# --- the edit form drops a reply too: no "tmux 3.3a" typed into a command
"${TM[@]}" send-keys -t wb e
wait_for 5 pane_has "edit the command, Enter shows it" || show_fail "e opened no edit form"
printf '\033[>q' >"$("${TM[@]}" display -p -t wb '#{pane_tty}')"
wait_for 10 test "$(suspicious)" -ge 3 || fail "the reply at the edit form is not in the audit"
pane | grep -F "edit the command" -A 3 | grep -qF "tmux" && show_fail "the reply was typed into the edit form"
note "ok: tmux's reply did not reach the edit form"
"${TM[@]}" send-keys -t wb Escape
wait_for 5 pane_lacks "edit the command, Enter shows it" || show_fail "Esc did not close the edit form"
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb Enter

# --- and a human's a, code, Enter approves
wb_approve
wait_for 20 pane_has "rc-second=0" || show_fail "the approved request did not run"
[ -e "$mark/second" ] || fail "the approved command did not run on the host"
[ ! -e "$mark/first" ] || fail "the denied command ran"
assert_eq "$(approvals)" 1 "exactly one approval in the audit"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact" "the audit verifies"
