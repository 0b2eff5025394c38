#!/usr/bin/env bash
# test-coord.sh - the Session Coordinator's lifecycle on real podman + runsc:
# one coordinator and one container per domain however many clients start at
# once, refcounted teardown when the last client dies (even by SIGKILL),
# recovery after the coordinator itself is SIGKILLed, clean teardown on
# SIGTERM and on `lazaret stop`, and `lazaret ls`.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

# A State Anchor overlay (fuse-overlayfs) too, so that teardown has a mount to release.
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
    persistent_dirs: [/usr/local]
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"

repo=$(make_repo ws)
canon=$(realpath "$repo")
hash=$(printf '%s' "default:$canon" | sha256sum | cut -c1-12)
ctr=lazaret-default-$hash
sock=$LZ_RUNDIR/lazaret/$hash.ctl
lz_on_exit "as_user podman rm -f -t0 $ctr"
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon --mode'"
lz_on_exit "lz stop -w '$repo'"	# runs first: a clean teardown releases the mounts

ctr_count() { as_user podman ps -aq --filter "name=^$ctr\$" | wc -l; }
fuse_mounted() { as_user podman unshare cat /proc/self/mountinfo | grep -qF "domains/$hash/"; }
gone() {
	[ ! -e "$sock" ] && [ "$(ctr_count)" = 0 ] && [ "$(coord_count "$canon")" = 0 ] && ! fuse_mounted
}
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }
coord_pid() { lz status -w "$repo" --json | sed -n 's/.*"coordinator_pid":\([0-9]*\).*/\1/p'; }
run_pid() { # the `lazaret run` process whose command ends in $1
	timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk -v m="$1" 'index($0, "lazaret run") && index($0, m) { print $1; exit }'
}

# --- two clients at once share one coordinator and one container
lz run -w "$repo" -- sleep 101 </dev/null >/dev/null 2>&1 &
lz run -w "$repo" -- sleep 102 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 2 || fail "two sessions did not start"
assert_eq "$(coord_count "$canon")" 1 "two clients, one coordinator"
assert_eq "$(ctr_count)" 1 "two clients, one container"
fuse_mounted || fail "no fuse-overlayfs mount for the domain while it runs"
assert_eq "$(as_user podman exec "$ctr" sh -c 'ps -eo args | grep -c "^sleep 10[12]"')" 2 \
	"both commands run in the one container"
out=$(lz ls)
assert_contains "$out" "$hash	default	$ctr	running	isolated	2	2	" "ls lists the domain with 2 sessions"

# --- kill -9 of one client ends its session only; of the last, everything
p1=$(run_pid "sleep 101"); [ -n "$p1" ] || fail "no lazaret run process"
kill -KILL "$p1"
wait_for 20 sessions_are 1 || fail "the killed client's session did not end"
assert_eq "$(ctr_count)" 1 "the other session keeps the container"
p2=$(run_pid "sleep 102"); [ -n "$p2" ] || fail "no second lazaret run process"
kill -KILL "$p2"
wait_for 20 gone || fail "no full teardown after the last client was killed"
note "ok: SIGKILL of the last client: no container, socket, fuse mount or coordinator"
wait

# --- 20 concurrent starts: exactly one coordinator, every one gets a session
repo2=$(make_repo ws2)
canon2=$(realpath "$repo2")
hash2=$(printf '%s' "default:$canon2" | sha256sum | cut -c1-12)
lz_on_exit "as_user podman rm -f -t0 lazaret-default-$hash2"
lz_on_exit "lz stop -w '$repo2'"
for i in $(seq 1 20); do
	(rc=0; lz run -w "$repo2" -- sh -c "echo started-$i; sleep 4" </dev/null >"$T/c$i.out" 2>&1 ||
	 rc=$?; echo $rc >"$T/c$i.rc") &
done
max=0
for _ in $(seq 1 40); do
	n=$(coord_count "$canon2")
	[ "$n" -le "$max" ] || max=$n
	sleep 0.1
done
wait
assert_eq "$max" 1 "20 concurrent starts, at most one coordinator at any time"
for i in $(seq 1 20); do
	assert_eq "$(cat "$T/c$i.rc")" 0 "start $i exit status" >/dev/null
	grep -qx "started-$i" "$T/c$i.out" || fail "start $i got no session: $(cat "$T/c$i.out")"
done
note "ok: all 20 concurrent starts got a session"
n=$(grep -c "creating container" "$T/home/data/lazaret/domains/$hash2/coordinator.log")
assert_eq "$n" 1 "one container created for the 20 starts"

# --- kill -9 of the coordinator: the next run recovers the stale socket and lock
lz run -w "$repo" -- sleep 103 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "session for the coordinator kill did not start"
cp=$(coord_pid); [ -n "$cp" ] || fail "no coordinator pid in status"
kill -KILL "$cp"
wait_for 10 sh -c "! kill -0 $cp 2>/dev/null" || fail "coordinator survived SIGKILL"
wait || true
[ -S "$sock" ] || fail "expected the dead coordinator's socket to be left behind"
out=$(lz ls)
assert_contains "$out" "stale" "ls reports the dead coordinator's socket as stale"
[ ! -e "$sock" ] || fail "ls did not remove the stale socket"
out=$(lz run -w "$repo" -- echo again </dev/null)
assert_eq "$out" "again" "run works after the coordinator was SIGKILLed"
wait_for 20 gone || fail "no teardown after recovering from a SIGKILLed coordinator"
note "ok: the recovered coordinator adopted and removed the old container"

# --- SIGTERM to the coordinator: clean teardown, the client sees its session end
(rc=0; lz run -w "$repo" -- sleep 104 </dev/null >/dev/null 2>&1 || rc=$?; echo $rc >"$T/term.rc") &
wait_for 40 sessions_are 1 || fail "session for SIGTERM did not start"
cp=$(coord_pid)
kill -TERM "$cp"
wait_for 20 gone || fail "no clean teardown on SIGTERM"
wait
assert_eq "$(cat "$T/term.rc")" 143 "the client of a terminated coordinator exits 128+SIGTERM"
grep -q "tearing down: SIGTERM" "$T/home/data/lazaret/domains/$hash/coordinator.log" ||
	fail "coordinator log does not show the SIGTERM teardown"
note "ok: SIGTERM: container, socket, mounts and coordinator gone; client ended"

# --- lazaret stop
(rc=0; lz run -w "$repo" -- sleep 105 </dev/null >/dev/null 2>&1 || rc=$?; echo $rc >"$T/stop.rc") &
wait_for 40 sessions_are 1 || fail "session for stop did not start"
out=$(lz stop -w "$repo")
assert_contains "$out" "stopped domain $hash" "stop reports the domain"
gone || fail "stop returned before the teardown was done"
wait
assert_eq "$(cat "$T/stop.rc")" 143 "the stopped session's client exits 128+SIGTERM"
set +e
out=$(lz stop -w "$repo" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "stop with nothing running exits 1"
assert_contains "$out" "no coordinator is running" "and says why"
echo "test-coord: all passed"
