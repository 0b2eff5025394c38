#!/usr/bin/env bash
# test-limits-uids.sh - the pids limit holds per sandbox, not per uid (issue
# 24 item 9), in the real sandbox: RLIMIT_NPROC is counted per uid, so root
# in the sandbox forking under four uids once started 4x the limit; the
# sandbox-wide bound (the domain's host task cgroup, sized to pids guest
# processes) stops it now, says so in `lazaret status` and the audit trail,
# and the host never goes past it. Memory is ample here so that only the
# pids bound can stop it.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image
[ -d "/sys/fs/cgroup/pids/lazaret/$LZ_UID" ] || skip "no pids cgroup delegated to $LZ_USER: run scripts/setup-host"

lz_config <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    limits: {memory: 2g, pids: 64}
    volumes:
      - {host: $T/bin/lazaret-probe, container: /usr/local/bin/lazaret-probe, mode: ro}
YAML
lz_domain ws
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
cg=/sys/fs/cgroup/pids/lazaret/$LZ_UID/$hash
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }
status_has() { lz status -w "$repo" 2>/dev/null | grep -qF -- "$1"; }
coord_pid() { lz status -w "$repo" --json | sed -n 's/.*"coordinator_pid":\([0-9]*\).*/\1/p'; }

lz run -w "$repo" -- sleep 120 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "the domain did not start"
bound=$(cat "$cg/pids.max")
assert_eq "$bound" $((64 * 24 + 256)) "the sandbox-wide bound: what 64 guest processes cost on the host, with room"
lz_hold || fail "no holding client"
set +e
out=$(lz run -w "$repo" -- lazaret-probe fork-as 30 0 1001 1002 1003 </dev/null 2>&1)
set -e
note "fork-as: $(echo "$out" | tr '\n' ' ')"
wait_for 10 status_has "stopped:     pids limit 64 reached sandbox-wide" ||
	fail "status does not show the sandbox-wide pids bound: $(lz status -w "$repo" 2>&1)"
assert_contains "$(lz audit -w "$repo")" "limit.pids" "the audit trail records it"
[ -n "$(coord_pid)" ] || fail "the coordinator died with the sandbox"
set +e; out=$(lz run -w "$repo" -- true </dev/null 2>&1); set -e
assert_contains "$out" "was stopped: pids limit 64 reached sandbox-wide" "a new session is told why it cannot start"
# stopped while the hold keeps the coordinator up (it goes 0.5 s after its
# last client, on a loaded machine before a stop sent after the hold ends)
lz stop -w "$repo" >/dev/null
timeout 10 pkill -u "$LZ_USER" -f "hold.py $sock" || true
out=$(lz run -w "$repo" -- echo fresh </dev/null)
assert_eq "$out" "fresh" "the next run works"
echo "test-limits-uids: all passed"
