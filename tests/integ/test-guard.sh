#!/usr/bin/env bash
# test-guard.sh - no agent runs unobserved (issue 10 item 2), on real podman +
# runsc: kill -9 of the coordinator mid-session and mid-escalation leaves, within
# 10 s, no container, no runsc process, no fuse-overlayfs mount, no escalation
# socket and no TLS key; the clean-up is audited; the next run starts clean. A
# guard killed first makes the coordinator stop; a domain whose guard died too
# is listed dead by `lazaret ls` and cleaned by `lazaret stop` / `stop --all`.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

lz_config <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
    persistent_dirs: [/usr/local]
YAML

lz_domain ws
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
sdir=$LZ_RUNDIR/lazaret
key=$sdir/$hash.tls/key.pem
log=$T/home/data/lazaret/domains/$hash/coordinator.log

ctr_count() { as_user podman ps -aq --filter "name=^$ctr\$" | wc -l; }
fuse_mounted() { as_user podman unshare cat /proc/self/mountinfo | grep -qF "domains/$hash/"; }
# runsc's host processes name the container's id; none may outlive it.
sandbox_procs() { timeout 10 ps -u "$LZ_USER" -o args= | grep -c "^runsc-sandbox.*$1" || true; }
nothing_left() {
	[ "$(ctr_count)" = 0 ] && [ ! -e "$key" ] && [ ! -e "$sdir/$hash.tls" ] &&
	[ ! -e "$sdir/$hash.esc" ] && [ ! -e "$sock" ] && [ "$(sandbox_procs "$1")" = 0 ] &&
	! fuse_mounted
}
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }
coord_pid() { lz status -w "$repo" --json | sed -n 's/.*"coordinator_pid":\([0-9]*\).*/\1/p'; }
guard_pid() { timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk -v m="guard --fd 3 --profile default --workspace $canon " 'index($0, m) { print $1; exit }'; }
ctr_id() { as_user podman inspect -f '{{.Id}}' "$ctr"; }

# --- kill -9 mid-session: the guard removes everything within 10 s
lz run -w "$repo" -- sleep 301 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "session did not start"
id=$(ctr_id); [ -n "$id" ] || fail "no container id"
[ "$(sandbox_procs "$id")" -ge 1 ] || fail "no runsc-sandbox process while the session runs"
[ -e "$key" ] || fail "no TLS key while the domain runs (at $key)"
fuse_mounted || fail "no fuse-overlayfs mount while the domain runs"
gp=$(guard_pid); [ -n "$gp" ] || fail "no guard process for the domain"
cp=$(coord_pid)
assert_eq "$(ps -o sid= -p "$gp" | tr -d ' ')" "$gp" "the guard has a session of its own"
kill -KILL "$cp"
wait_for 10 nothing_left "$id" || fail "10 s after kill -9: container $(ctr_count), key $(ls "$key" 2>&1), mounts $(fuse_mounted && echo yes)"
note "ok: kill -9 mid-session: no container, sandbox process, mount, socket or key within 10 s"
wait || true
grep -q "guard\[$gp\]: domain $hash cleaned up" "$log" || fail "the guard did not log the clean-up"
out=$(lz audit -w "$repo")
assert_contains "$out" "domain.reap" "the clean-up is in the audit trail"
assert_contains "$out" "the coordinator died" "with its reason"
wait_for 10 sh -c "! kill -0 $gp 2>/dev/null" || fail "the guard did not exit after its clean-up"
out=$(lz run -w "$repo" -- echo again </dev/null)
assert_eq "$out" "again" "the next run works"
if grep -q "left by a previous coordinator" "$log"; then fail "the next run found a container left behind"; fi
note "ok: the next run started clean"

# --- kill -9 mid-escalation (a request waiting for a human)
(lz run -T -w "$repo" -- sh -c 'lazaret-escalate -- touch /tmp/x; sleep 100' </dev/null >/dev/null 2>&1 || true) &
esc_pending() { lz audit --json -w "$repo" 2>/dev/null | grep -q "\"esc.request\""; }
wait_for 40 esc_pending ||
	fail "the escalation request did not reach the coordinator"
id=$(ctr_id); gp=$(guard_pid); cp=$(coord_pid)
[ -e "$key" ] || fail "no TLS key mid-escalation"
kill -KILL "$cp"
wait_for 10 nothing_left "$id" || fail "10 s after kill -9 mid-escalation: something is left"
note "ok: kill -9 mid-escalation: nothing left within 10 s"
wait || true

# --- the guard dies: the coordinator stops rather than run unguarded
lz run -w "$repo" -- sleep 302 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "session did not start (guard kill)"
id=$(ctr_id); gp=$(guard_pid); cp=$(coord_pid)
kill -KILL "$gp"
wait_for 20 sh -c "! kill -0 $cp 2>/dev/null" || fail "the coordinator kept running without its guard"
wait_for 10 nothing_left "$id" || fail "the coordinator left something when its guard died"
grep -q "tearing down: the guard process died" "$log" || fail "no teardown reason in the log"
note "ok: kill -9 of the guard: the coordinator tore the domain down"
wait || true

# --- both die (guard stopped first): ls lists the domain dead, stop cleans it
dead_domain() {
	lz run -w "$repo" -- sleep 303 </dev/null >/dev/null 2>&1 &
	wait_for 40 sessions_are 1 || fail "session did not start (dead domain)"
	id=$(ctr_id); gp=$(guard_pid); cp=$(coord_pid)
	kill -STOP "$gp"; kill -KILL "$cp"; kill -KILL "$gp"
	wait_for 10 sh -c "! kill -0 $cp 2>/dev/null && ! kill -0 $gp 2>/dev/null" || fail "kill failed"
	wait || true
	[ "$(ctr_count)" = 1 ] && [ -e "$key" ] || fail "expected the dead domain's container and key to be left"
}
dead_domain
out=$(lz ls 2>&1)
assert_eq "$(printf '%s\n' "$out" | awk -v h="$hash" '$1 == h { print $2, $3, $12 }')" \
	"default dead $canon" "ls lists the dead domain"
assert_contains "$(lz ls --json 2>/dev/null)" '"state":"dead"' "ls --json too"
assert_contains "$out" "lazaret stop --all" "and says how to clean it up"
assert_not_contains "$out" "stale" "no separate stale-socket line for it"
out=$(lz stop -w "$repo")
assert_contains "$out" "cleaned up domain $hash" "stop on a dead domain cleans it up (exit 0)"
nothing_left "$id" || fail "stop left something of the dead domain"
out=$(lz ls 2>&1)
assert_not_contains "$out" "$hash" "ls no longer lists it"
set +e; out=$(lz stop -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "stop with nothing left exits 1"
assert_contains "$out" "no coordinator is running" "and says why"

dead_domain
out=$(lz stop --all)
assert_contains "$out" "cleaned up domain $hash" "stop --all cleans the dead domain"
nothing_left "$id" || fail "stop --all left something of the dead domain"
out=$(lz run -w "$repo" -- echo fresh </dev/null)
assert_eq "$out" "fresh" "a run after stop --all works"
echo "test-guard: all passed"
