#!/usr/bin/env bash
# test-escalations.sh - every escalation reaches a human who can answer it
# (issue 28 item 5), on real podman + runsc: a request of a headless
# `lazaret run -T` is shown first in a workbench that attaches to the same
# domain later, and approved there; another is listed by `lazaret
# escalations` and approved with the code typed at a terminal, a third denied
# from a script (which cannot approve); `lazaret run` without a controlling
# terminal (as under `su - USER -c`) still shows its prompt. Every answer is
# audited with how it was made.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image

lz_domain esc-ws
LZ_ENV+=(LAZARET_ESC_TIMEOUT=90)
mark=$T/marks; mkdir -p "$mark"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$mark"
chmod 0777 "$mark"

# A headless run whose agent asks for a host command: no terminal anywhere
# (setsid, stdin /dev/null), output to $T/$1.out.
headless() { # name command-in-sandbox
	as_user setsid lazaret run -T -w "$repo" -- sh -c "$2" </dev/null >"$T/$1.out" 2>&1 &
	lz_on_exit "kill $! 2>/dev/null"
}
pending_json() { lz escalations --pending --json; }
pending_id() { pending_json | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if sys.argv[1] in o["justification"]: print(o["id"]); break' "$1"; }
how_rows() { lz audit -w "$repo" --json | grep '"esc.decision-how"' || true; }

# --- 1. a headless request, shown first in a workbench attached later
headless one "lazaret-escalate --justify hl-one -- touch $mark/one; echo one-rc=\$?"
wait_for 90 eval '[ -n "$(pending_id hl-one)" ]' || fail "the headless request is not listed: $(cat "$T/one.out")"
id1=$(pending_id hl-one)
note "ok: lazaret escalations lists the headless run's request $id1"
out=$(lz escalations)
assert_contains "$out" "$id1" "the default listing has the request's whole ID"
assert_contains "$out" "touch $mark/one" "and its command"
"${TM[@]}" new-session -d -s wb -x 140 -y 40 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "hl-one" || show_fail "the workbench did not show the headless request first"
assert_contains "$(pane)" "Host escalation request" "the request view is open at attach"
wb_approve
wait_for 30 grep -q "one-rc=0" "$T/one.out" || fail "approved in the workbench, the command did not run: $(cat "$T/one.out")"
[ -e "$mark/one" ] || fail "the approved command left no mark"
note "ok: a headless request approved from the workbench ran on the host"

# --- 2. approved from the CLI with the code typed at a terminal
headless two "lazaret-escalate --justify hl-two -- touch $mark/two; echo two-rc=\$?"
wait_for 30 pane_has "Escalations (1)" || show_fail "the workbench did not show the second headless request"
id2=$(pending_id hl-two)
[ -n "$id2" ] || fail "the second request is not listed"
"${TM[@]}" new-session -d -s cli -x 140 -y 40 -c "$T" "$(as_user_line lazaret escalations approve "${id2:0:6}"); echo esc-rc=\$?; sleep 600"
cpane() { "${TM[@]}" capture-pane -p -t cli; }
wait_for 20 eval 'cpane | grep -q "and Enter to approve"' || { cpane; fail "escalations approve asked no code"; }
assert_contains "$(cpane)" "agent says:    hl-two" "the CLI shows the justification"
assert_contains "$(cpane)" "[1] $mark/two" "the CLI shows each word of the command"
code=$(cpane | grep -o 'Type [A-Z0-9]* and Enter' | cut -d' ' -f2)
"${TM[@]}" send-keys -t cli -l "$code"
"${TM[@]}" send-keys -t cli Enter
wait_for 20 eval 'cpane | grep -q esc-rc=0' || { cpane; fail "escalations approve did not succeed"; }
wait_for 30 grep -q "two-rc=0" "$T/two.out" || fail "approved from the CLI, the command did not run: $(cat "$T/two.out")"
wait_for 10 pane_has "Escalations (0)" || show_fail "the workbench still shows the request answered from the CLI"
assert_contains "$(how_rows)" "lazaret escalations approve: the code shown was typed at /dev/pts/" "the audit says how the CLI approved"
note "ok: approved from the CLI with the code; the workbench withdrew it"

# --- 3. a script can deny, never approve
headless three "lazaret-escalate --justify hl-three -- touch $mark/three; echo three-rc=\$?"
wait_for 30 eval '[ -n "$(pending_id hl-three)" ]' || fail "the third request is not listed"
id3=$(pending_id hl-three)
if err=$(as_user setsid lazaret escalations approve "$id3" </dev/null 2>&1); then fail "approve without a terminal succeeded"; fi
assert_contains "$err" "approving needs a human at a terminal" "approve without a terminal is refused"
lz escalations deny "$id3" >/dev/null 2>&1 </dev/null || fail "deny from a script failed"
wait_for 30 grep -q "three-rc=126" "$T/three.out" || fail "the denied request did not exit 126: $(cat "$T/three.out")"
[ ! -e "$mark/three" ] || fail "the denied command ran"
d=$(lz audit -w "$repo" --json | grep '"esc.decision"' | grep "$id3" || true)
assert_contains "$d" '"action":"deny"' "the CLI's denial is audited"
assert_contains "$(how_rows)" "lazaret escalations deny" "with how it was made"
if lz escalations deny "$id3" >/dev/null 2>"$T/late.err"; then fail "a second deny succeeded"; fi
assert_contains "$(cat "$T/late.err")" "no request" "a late answer says nothing waits"

# --- 4. `lazaret run` without a controlling terminal still prompts
"${TM[@]}" kill-session -t wb
"${TM[@]}" new-session -d -s nt -x 120 -y 40 -c "$T" "setsid -w $(as_user_line lazaret run -w "$repo" -- sh -c "lazaret-escalate --justify no-ctty -- touch $mark/four; echo four-rc=\$?; sleep 30"); echo run-rc=\$?; sleep 600"
npane() { "${TM[@]}" capture-pane -p -t nt; }
wait_for 60 eval 'npane | grep -q no-ctty' || { npane; fail "lazaret run without a controlling terminal showed no prompt"; }
wait_for 5 eval 'npane | grep -q " Enter: approve & run"' || { npane; fail "the prompt did not arm"; }
code=$(npane | grep -o 'a [A-Z0-9][A-Z0-9][A-Z0-9] Enter: ' | head -1 | cut -c3-5)
"${TM[@]}" send-keys -t nt a
"${TM[@]}" send-keys -t nt -l "$code"
"${TM[@]}" send-keys -t nt Enter
wait_for 30 eval 'npane | grep -q four-rc=0' || { npane; fail "the prompt without a controlling terminal did not approve"; }
[ -e "$mark/four" ] || fail "the command approved at the prompt left no mark"
note "ok: the prompt works without a controlling terminal"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact" "the audit trail verifies"
