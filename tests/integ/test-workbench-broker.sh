#!/usr/bin/env bash
# test-workbench-broker.sh - a request the credential broker refuses is news
# at once (issue 26 item 4), on real podman + runsc and the Network Sidecar,
# the workbench in a private tmux: real curl in the sandbox asks the broker
# for a path outside the credential's allow list; the workbench's status
# line says so with the credential, method and path; a loop of 20 refusals
# is one notice, not 20; `lazaret egress --follow` shows each refusal. The
# broker refuses before it connects, so the upstream (loopback's discard
# port) is never reached: no packet leaves the machine.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack

note "the kit image with curl (the claude kit's, built once and reused)"
img=$(TO=900 lz image build --kit claude 2>"$T/build.err" | tail -1) || fail "kit image: $(cat "$T/build.err")"

lz_domain wb-broker broker
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  broker:
    image: $img
    network: sidecar
    credentials:
      - name: testapi
        from: env:LZ_TEST_API_KEY
        upstream: https://127.0.0.1:9
        header: x-api-key
        allow: ["POST /v1/messages"]
        base_env: TEST_API_BASE_URL
        key_env: TEST_API_KEY
YAML
LZ_ENV+=(LZ_TEST_API_KEY="sk-test-$(openssl rand -hex 12)")
notice() { pane | tail -1 | grep -o 'broker refused testapi: [^ ]* [^ ]*'; }

"${TM[@]}" new-session -d -s wb -x 160 -y 40 -c "$T" "$(wb_line -p broker -w "$repo")"
wait_for 120 pane_has "@lazaret:/workspace" || show_fail "no shell prompt in the broker tab"

# --- one refused request: the status line names the credential, method and path
type_line 'clear; curl -s -o /dev/null -w "code=%{http_code}\n" -X DELETE "$TEST_API_BASE_URL/v1/admin/users"'
wait_for 20 pane_has "code=403" || show_fail "the broker did not refuse DELETE /v1/admin/users"
wait_for 5 eval '[ "$(notice)" = "broker refused testapi: DELETE /v1/admin/users" ]' ||
	show_fail "no notice of the refused request on the status line"
assert_contains "$(pane | tail -1)" "tab 0 broker: broker refused testapi: DELETE /v1/admin/users (" "the notice names the tab and why"
note "ok: the refused request is on the status line at once"

# --- a loop of refusals (after 6 s without one: a new burst) is one notice
lz egress --follow -p broker -w "$repo" >"$T/follow.out" 2>&1 & FOLLOW=$!
lz_on_exit "kill $FOLLOW"
type_line 'clear; sleep 6; for i in $(seq 20); do curl -s -o /dev/null -X DELETE "$TEST_API_BASE_URL/v1/loop/$i"; done; echo LOOP-$((6*7))'
: >"$T/seen"
deadline=$((SECONDS + 60))
while ! pane_has "LOOP-42"; do
	[ "$SECONDS" -lt "$deadline" ] || show_fail "the loop of refused requests did not end"
	notice >>"$T/seen" || true
done
notice >>"$T/seen" || true
seen=$(grep -o 'v1/loop/[0-9]*' "$T/seen" | sort -u | tr '\n' ' ')
assert_eq "$seen" "v1/loop/1 " "20 refusals in a row are one notice, for the first"
note "ok: a loop of 20 refused requests raised one notice"

wait_for 10 eval '[ "$(grep -c "deny.*broker.*DELETE /v1/loop/" "$T/follow.out")" -ge 20 ]' ||
	fail "lazaret egress --follow lacks the refusals: $(tail -5 "$T/follow.out")"
note "ok: lazaret egress --follow shows every refusal"
echo "test-workbench-broker: all passed"
