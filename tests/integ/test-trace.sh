#!/usr/bin/env bash
# test-trace.sh - LAZARET_TRACE=1: `lazaret run` prints each start-up phase
# with its duration on stderr, the coordinator writes its phases to its log;
# without it, neither has a trace line and stdout is the command's alone.
# Real podman + runsc. Durations are printed, never checked (bench/ does that).
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

lz_domain tr
log=$T/home/data/lazaret/domains/$hash/coordinator.log

LZ_ENV=(LAZARET_TRACE=1)
out=$(lz run -T -w "$repo" -- echo hi 2>"$T/err")
LZ_ENV=()
assert_eq "$out" "hi" "stdout is the command's alone"
err=$(cat "$T/err")
for phase in "configuration and domain" "coordinator connected" "session 1 started" "session ended (exit 0)"; do
	assert_contains "$err" "lazaret: trace: run: $phase" "run traces '$phase'"
done
grep -Eq '^lazaret: trace: run: coordinator connected +[0-9]+\.[0-9] ms  \([0-9]+\.[0-9] ms\)$' "$T/err" ||
	fail "a trace line has no duration: $(cat "$T/err")"
note "ok: each line has the phase's duration and the time since start"
wait_for 30 sh -c "! $(as_user_line test -S "$LZ_RUNDIR/lazaret/$hash.ctl")" || fail "domain not torn down"
clog=$(as_user cat "$log")
for phase in "log, locks, state store" "git sentry" "overlays: image id, " "overlays: fuse-overlayfs" \
	"resource limits" "container (podman run -d)" "exec path (conmon, config.json)" "listening" \
	"session 1 spawned (sandbox-exec)" "session 1 ran (sandbox-exec)"; do
	assert_contains "$clog" "lazaret: trace: coordinator: $phase" "coordinator logs '$phase'"
done

# off by default and with LAZARET_TRACE=0: no trace line anywhere
as_user truncate -s 0 "$log"
LZ_ENV=(LAZARET_TRACE=0)
out=$(lz run -T -w "$repo" -- echo hi 2>"$T/err")
LZ_ENV=()
assert_eq "$out" "hi" "command output without trace"
assert_not_contains "$(cat "$T/err")" "trace:" "LAZARET_TRACE=0 prints nothing"
out=$(lz run -T -w "$repo" -- echo hi 2>"$T/err")
assert_not_contains "$(cat "$T/err")" "trace:" "no LAZARET_TRACE prints nothing"
wait_for 30 sh -c "! $(as_user_line test -S "$LZ_RUNDIR/lazaret/$hash.ctl")" || fail "domain not torn down"
assert_not_contains "$(as_user cat "$log")" "trace:" "the coordinator logs no trace by default"

# lazaret-escalate in the sandbox: its phases on its stderr, the command still runs
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nescalation:\n  auto_approve: ["true"]\n' >"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
set +e
LZ_ENV=(LAZARET_TRACE=1)
out=$(lz run -T -w "$repo" -- sh -c 'LAZARET_TRACE=1 lazaret-escalate -- true; echo "rc=$?"' 2>&1)
LZ_ENV=()
set -e
assert_contains "$out" "rc=0" "the traced escalation ran"
for phase in "request, credential asked" "TLS context" "credential, signed request" "connected" "TLS handshake" "request to result"; do
	assert_contains "$out" "lazaret: trace: escalate: $phase" "escalate traces '$phase'"
done
# ... and the coordinator logs the request's steps in one line
wait_for 30 sh -c "! $(as_user_line test -S "$LZ_RUNDIR/lazaret/$hash.ctl")" || fail "domain not torn down"
as_user grep -E '^lazaret: trace: esc [0-9a-f]{8}: handshake [0-9.]+ request [0-9.]+ policy [0-9.]+ gate [0-9.]+ audit [0-9.]+ spawn [0-9.]+ run [0-9.]+ result [0-9.]+ total [0-9.]+ ms$' "$log" ||
	fail "no step line for the escalation in the coordinator log: $(as_user grep 'trace: esc' "$log")"
note "ok: the coordinator logs each step of the escalation"
note "PASS"
