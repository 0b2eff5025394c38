#!/usr/bin/env bash
# test-limits.sh - a sandbox cannot exhaust the host (issue 10, item 1), in the
# real sandbox (podman + runsc): the limits reach the kernel and gVisor; a fork
# loop hits the pids limit and the sandbox lives on; a memory hog is stopped at
# the memory limit, a disk writer at the disk bound, each with a clear message
# in the user's terminal, `lazaret status` and the audit trail; the coordinator
# survives all three and the next run works.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image
for c in memory pids cpu; do
	[ -d "/sys/fs/cgroup/$c/lazaret/$LZ_UID" ] ||
		skip "no cgroup delegated to $LZ_USER ($c): run scripts/setup-host"
done

lz_config <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
    limits: {memory: 300m, pids: 64, disk: 200m, cpus: 1}
YAML
lz_domain ws
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
log=$T/home/data/lazaret/domains/$hash/coordinator.log
cg() { echo "/sys/fs/cgroup/$1/lazaret/$LZ_UID/$hash"; }
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }
coord_pid() { lz status -w "$repo" --json | sed -n 's/.*"coordinator_pid":\([0-9]*\).*/\1/p'; }
status_has() { lz status -w "$repo" 2>/dev/null | grep -qF -- "$1"; }


# --- the limits reach the kernel and gVisor
lz run -w "$repo" -- sleep 300 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "session did not start"
assert_eq "$(cat "$(cg memory)/memory.limit_in_bytes")" $((300 << 20)) "memory.limit_in_bytes of the domain's cgroup"
assert_eq "$(cat "$(cg cpu)/cpu.cfs_quota_us")" 100000 "cpu quota: 1 CPU"
assert_eq "$(cat "$(cg pids)/pids.max")" $((64 * 24 + 256)) "host task backstop: what 64 guest processes cost on the host, with room"
grep -q runsc-sandbox <(xargs -r ps -o args= -p <"$(cg memory)/cgroup.procs") ||
	fail "runsc-sandbox is not in the domain's memory cgroup"
out=$(lz run -w "$repo" -- sh -c 'ulimit -u; df -k /tmp | tail -1' </dev/null)
assert_contains "$out" "64" "RLIMIT_NPROC in the sandbox"
assert_contains "$out" "153600" "/tmp is a tmpfs of memory/2 (150 MiB)"
out=$(lz status -w "$repo")
assert_contains "$out" "limits:      memory 300m, pids 64, disk 200m, cpus 1" "status shows the limits"

# --- a fork loop hits the pids limit; the sandbox and the coordinator live on
# (busybox ash: it does not retry a failed fork for seconds like bash does)
# (each sleep outlives the loop even on a loaded machine, so the count is the limit's)
out=$(lz run -w "$repo" -- ash -c 'n=0; while [ $n -lt 500 ]; do
	(sleep 20 >/dev/null 2>&1 &) 2>/dev/null || break; n=$((n+1)); done; echo forked=$n' </dev/null)
n=$(echo "$out" | sed -n 's/^forked=//p')
[ -n "$n" ] && [ "$n" -lt 64 ] && [ "$n" -gt 16 ] || fail "fork loop: $out (limit 64)"
note "ok: the fork loop stopped after $n forks (limit 64 processes)"
alive() { [ "$(lz run -w "$repo" -- echo alive </dev/null 2>/dev/null)" = alive ]; }
wait_for 40 alive || fail "the sandbox does not work after the fork loop"
note "ok: the sandbox works after the fork loop (once its sleeps are gone)"
# the same with bash, which retries a failed fork for seconds (issue 24 item 9:
# it once took the host tasks to the backstop, which stopped every process)
set +e
out=$(lz run -w "$repo" -- bash -c 'for i in $(seq 300); do sleep 20 & done; echo never' </dev/null 2>&1)
set -e
assert_not_contains "$out" "never" "bash gave up at the limit (a fork failure ends a bash script)"
assert_contains "$out" "Resource temporarily unavailable" "with EAGAIN, from gVisor's pids limit"
assert_not_contains "$out" "was stopped" "the sandbox was not stopped"
assert_eq "$(grep '^max' "$(cg pids)/pids.events")" "max 0" "the host task backstop was never hit"
wait_for 40 alive || fail "the sandbox does not work after bash's fork loop"
note "ok: bash's fork loop ends at the limit and the sandbox lives on (host tasks peaked at $(cat "$(cg pids)/pids.peak") of $(cat "$(cg pids)/pids.max"))"

# --- a memory hog is stopped at the memory limit
lz_hold || fail "no holding client"
set +e
out=$(lz run -w "$repo" -- sh -c 'head -c 600000000 /dev/zero | tail >/dev/null; echo survived' </dev/null 2>&1); rc=$?
set -e
assert_not_contains "$out" "survived" "the hog did not finish"
assert_contains "$out" "lazaret: memory limit 300m reached" "the user's terminal says why"
[ "$rc" -ne 0 ] || fail "the hog's run exited 0"
wait_for 10 status_has "stopped:     memory limit 300m reached" || fail "status does not show the memory limit"
lz status -w "$repo" | sed 's/^/# /'
assert_contains "$(lz audit -w "$repo")" "limit.memory" "the audit trail records it"
[ -n "$(coord_pid)" ] || fail "the coordinator died with its sandbox"
set +e; out=$(lz run -w "$repo" -- true </dev/null 2>&1); rc=$?; set -e
assert_contains "$out" "was stopped: memory limit 300m reached" "a new session is told why it cannot start"
grep -qF "memory limit 300m reached" "$log" || fail "not in the coordinator log"
# stopped while the hold keeps the coordinator up (it goes 0.5 s after its
# last client, on a loaded machine before a stop sent after the hold ends)
out=$(lz stop -w "$repo"); assert_contains "$out" "stopped domain" "stop after the limit"
timeout 10 pkill -u "$LZ_USER" -f "hold.py $sock" || true
out=$(lz run -w "$repo" -- echo fresh </dev/null)
assert_eq "$out" "fresh" "the next run works"

# --- a disk writer hits the disk bound (the container's writable layer)
# (a session keeps the domain up: the run above has ended, and its
# coordinator goes 0.5 s after its last client, often before a hold connects)
lz run -w "$repo" -- sleep 120 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "session did not start (disk)"
lz_hold || fail "no holding client (disk)"
set +e
out=$(lz run -w "$repo" -- sh -c 'dd if=/dev/zero of=/var/big bs=1M count=400 2>/dev/null; sleep 60; echo survived' </dev/null 2>&1); rc=$?
set -e
assert_not_contains "$out" "survived" "the disk writer was stopped"
assert_contains "$out" "lazaret: disk limit 200m reached" "the user's terminal says why"
wait_for 10 status_has "stopped:     disk limit 200m reached" || fail "status does not show the disk limit"
assert_contains "$(lz audit -w "$repo")" "limit.disk" "the audit trail records it"
[ -n "$(coord_pid)" ] || fail "the coordinator died with the disk writer"
# stopped while the hold keeps the coordinator up (it goes 0.5 s after its
# last client, on a loaded machine before a stop sent after the hold ends)
lz stop -w "$repo" >/dev/null
timeout 10 pkill -u "$LZ_USER" -f "hold.py $sock" || true

for c in memory pids cpu; do
	wait_for 10 test ! -e "$(cg $c)" || fail "the domain's $c cgroup is left after stop"
done
echo "test-limits: all passed"
