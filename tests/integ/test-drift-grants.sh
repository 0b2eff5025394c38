#!/usr/bin/env bash
# test-drift-grants.sh - no false alarms about the configuration (issue 24
# item 13), on podman + runsc, the real sidecar and the workbench in tmux.
# A grant approved for the profile (lazaret egress approve --scope profile)
# is applied to the running domain and saved in the grants file: a run that
# joins, and a workbench that attaches, hear nothing about another
# configuration. A workbench started before a config edit compares with
# the file as it is now: a domain started from the edit raises nothing; a
# real difference is named by its key and profile. Traffic goes only to a
# network namespace this test creates.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"

lz_test_web 10.219

config() { # pids
	lz_config <<YAML
dns_upstream: $NET.2
network: {ask_timeout: 60}
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
    limits: {pids: $1}
YAML
}
config 200
lz_domain drg
side=lazaret-net-$hash
lz_on_exit "as_user podman rm -f -t0 $side"
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }

# --- approve --scope profile: applied and saved; a run that joins hears nothing
(lz run -w "$repo" -- sleep 300 </dev/null >/dev/null 2>&1 || true) & first=$!
wait_for 60 sessions_are 1 || fail "the first session did not start"
lz_follow_requests	# someone who can answer, or the request is refused at once
(lz run -w "$repo" -- bash -c "exec 3<>/dev/tcp/$NET.3/8080 && echo ok" </dev/null >"$T/tcp.out" 2>&1 || true) &
id=""
for i in $(seq 40); do id=$(lz_pending_id); [ -n "$id" ] && break; sleep 0.5; done	# a 20 s deadline
[ -n "$id" ] || fail "no pending request for $NET.3:8080"
lz egress -w "$repo" approve "$id" --scope profile >"$T/approve.out" 2>&1 || { cat "$T/approve.out"; fail "approve --scope profile failed"; }
wait_for 20 grep -q ok "$T/tcp.out" || fail "the approved connection did not go through"
assert_contains "$(lz egress -w "$repo" grants)" "$NET.3/32:8080" "the grant is in the profile's grants file"
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_not_contains "$err" "another configuration" "after approve --scope profile, a run that joins hears of no drift"

# --- a workbench that attaches now hears nothing either
"${TM[@]}" new-session -d -s wb -x 200 -y 30 "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in the workbench"
pane | grep -qE "another configuration|not running your configuration" && show_fail "the workbench attached after the grant speaks of drift"
note "ok: the workbench attached after the grant hears of no drift"

# --- a workbench started before a config edit: the domain restarted from the edit
config 256
lz stop -w "$repo" >/dev/null 2>&1 || fail "lazaret stop failed"
wait $first || true
wait_for 30 pane_has "[exited" || show_fail "the tab did not end with its domain"
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "Profile" || show_fail "prefix c opened no new-tab dialog"
"${TM[@]}" send-keys -t wb Enter
wait_for 90 sh -c "$(printf '%q ' "${TM[@]}") capture-pane -p -t wb | grep -c '/workspace#' | grep -q ." ||
	show_fail "the new tab did not start"
wait_for 90 sessions_are 1 || show_fail "the new tab's session did not start"
pane | grep -qE "another configuration|not running your configuration" && show_fail "a workbench started before the edit speaks of drift"
note "ok: a workbench started before the edit raises no false alarm"

# --- a real difference is named: its key and profile, both values
config 300
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_contains "$err" "profiles.default.limits.pids: running 256, yours 300" "lazaret run names the key, the profile and both values"
assert_not_contains "$err" "allow_egress" "the saved grant is no difference"
"${TM[@]}" new-session -d -s wb2 -x 240 -y 30 "$(wb_line -s second -w "$repo")"
wait_for 30 sh -c "$(printf '%q ' "${TM[@]}") capture-pane -p -t wb2 | grep -qF 'not running your configuration'" ||
	{ "${TM[@]}" capture-pane -p -t wb2; fail "the workbench did not say the configuration differs"; }
line=$("${TM[@]}" capture-pane -p -t wb2 | grep -F 'not running your configuration')
assert_contains "$line" "profiles.default.limits.pids: running 256, yours 300" "the workbench names the key, the profile and both values"
lz stop -w "$repo" >/dev/null 2>&1 || true
echo "test-drift-grants: all passed"
