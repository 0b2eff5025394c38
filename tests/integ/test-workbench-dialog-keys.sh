#!/usr/bin/env bash
# test-workbench-dialog-keys.sh - keys meant for a dialog never reach an
# agent (issue 24 item 11): tmux, real podman + runsc, the real sidecar
# holding a new destination. A user opens a network request's view and
# types its approval code while the request's network.ask_timeout passes;
# and a request decided elsewhere (`lazaret egress deny`) while its view is
# open and the user types. In neither case does a key reach the tab's
# shell (its screen and its history show none of them); a notice takes
# the keys until Esc, and only then does the tab get keys again. Traffic
# goes only to a network namespace this test creates.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"

lz_test_web 10.217

ASK=3	# short, so that it passes while the user types
lz_domain dkeys
lz_config <<YAML
dns_upstream: $NET.2
network: {ask_timeout: $ASK}
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar      # no allow_egress: every destination asks
YAML
side=lazaret-net-$hash
lz_on_exit "as_user podman rm -f -t0 $side"

tcp() { # tag host port
	"${TM[@]}" send-keys -t wb -l "clear; timeout 50 bash -c 'exec 3<>/dev/tcp/$2/$3 || exit 9; echo hi >&3; IFS= read -r -t 20 -u 3 l; echo \"got[\$l]\"; [ -n \"\$l\" ]'; echo \"$1-rc=\$?\""
	"${TM[@]}" send-keys -t wb Enter
}
open_view() { # the pending request's view, armed; prints its code
	wait_for 10 pane_has "? $NET.3:8080/tcp" || show_fail "no pending request"
	"${TM[@]}" send-keys -t wb C-a Tab
	wait_for 5 pane_has "PANEL" || show_fail "prefix Tab did not focus the panel"
	"${TM[@]}" send-keys -t wb Enter
	wait_for 5 pane_has " Enter: allow once" || show_fail "the view did not open and arm"
}
# The shell's history and screen: none of the keys typed for a dialog.
shell_clean() { # code marker
	type_line "clear; history | tail -n 8 | sed 's/^/hist: /'; echo hist-end"
	wait_for 10 pane_has "hist-end" || show_fail "the tab took no keys after the notice"
	pane | grep -qE "^hist: +[0-9]+ +a?$1\$" && show_fail "the code $1 is in the shell's history"
	note "ok: the code is not in the shell's history"
	assert_not_contains "$(pane | grep '^hist: ')" "$2" "the keys typed after it are not in the shell's history"
}

"${TM[@]}" new-session -d -s wb -x 200 -y 50 -c "$T" "$(wb_line -w "$repo")"
wait_for 90 pane_has "/workspace#" || show_fail "no shell prompt"

# --- the ask_timeout passes while the user types the code
tcp slow1 $NET.3 8080
open_view
code=$(wb_code)
[ -n "$code" ] || show_fail "no code in the view"
"${TM[@]}" send-keys -t wb a
# the original timeout passes (a wait for time itself, not an assertion on it)
sleep $((ASK + 2))
"${TM[@]}" send-keys -t wb -l "$code"
"${TM[@]}" send-keys -t wb Enter
wait_for 20 sh -c "$(printf '%q ' "${TM[@]}") capture-pane -p -t wb | grep -qE 'slow1-rc=|Network request closed'" ||
	show_fail "neither the connection ended nor a notice came"
assert_not_contains "$(pane)" "$code: command not found" "the code did not reach the shell"
pane_has "Network request closed" && show_fail "the request expired while its view was open"
assert_contains "$(pane)" "slow1-rc=0" "the request held while its view was open is approved past ask_timeout"
shell_clean "$code" "LEAK1-marker"
note "ok: typing a code while ask_timeout passes sends nothing to the shell"

# --- a held request expires once its view is put away
tcp late1 $NET.3 8080
open_view
"${TM[@]}" send-keys -t wb Escape
wait_for $((ASK + 10)) pane_has "late1-rc=" || show_fail "the request did not expire after its view was closed"
assert_not_contains "$(pane)" "late1-rc=0" "unanswered after the view closed: refused"
note "ok: closing the view gives the request its timeout back"

# --- decided elsewhere while the user types: a notice, keys swallowed until Esc
tcp deny1 $NET.3 8080
open_view
code=$(wb_code)
id=$(lz_pending_id)
[ -n "$id" ] || show_fail "no pending request id from lazaret egress --pending"
"${TM[@]}" send-keys -t wb a
"${TM[@]}" send-keys -t wb -l "${code:0:1}"
lz egress -w "$repo" deny "$id" >/dev/null || fail "lazaret egress deny $id failed"
wait_for 10 pane_has "Network request closed" || show_fail "no notice when the request was decided elsewhere"
assert_contains "$(pane)" "was denied" "the notice says what happened to the request"
assert_contains "$(pane)" "NOTICE" "the status line says keys go to the notice"
"${TM[@]}" send-keys -t wb -l "${code:1}"
"${TM[@]}" send-keys -t wb Enter
"${TM[@]}" send-keys -t wb -l "echo LEAK2-marker"
"${TM[@]}" send-keys -t wb Enter
# Esc typed straight away is still part of the typing: swallowed, the notice stays
"${TM[@]}" send-keys -t wb Escape
wait_for 5 pane_has "Esc: back to the tab" || show_fail "the notice did not arm"
assert_contains "$(pane)" "Network request closed" "an Esc typed with the code did not put the notice away"
assert_not_contains "$(pane)" "LEAK2-marker" "keys typed at the notice are not on the shell's screen"
"${TM[@]}" send-keys -t wb Escape
wait_for 5 pane_lacks "Network request closed" || show_fail "Esc did not put the notice away"
shell_clean "$code" "LEAK2-marker"
wait_for 20 pane_has "deny1-rc=" || true
note "ok: a request decided elsewhere leaves a notice; its keys never reach the shell"

"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "the workbench did not detach"
note "all ok"
