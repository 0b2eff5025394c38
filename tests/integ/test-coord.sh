#!/usr/bin/env bash
# test-coord.sh - the Session Coordinator's lifecycle on real podman + runsc:
# one coordinator and one container per domain however many clients start at
# once, refcounted teardown when the last client dies (even by SIGKILL),
# recovery after the coordinator itself is SIGKILLed (its guard cleans up), clean teardown on
# SIGTERM and on `lazaret stop`, and `lazaret ls`.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command (app/cli/lazaret.c table)"
need_stack
need_default_image

# A State Anchor overlay (fuse-overlayfs) too, so that teardown has a mount to release.
lz_config <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
    persistent_dirs: [/usr/local]
YAML

lz_domain ws
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
assert_eq "$(printf '%s\n' "$out" | awk -v h="$hash" '$1 == h { print $2, $3, $4, $10, $12 }')" \
	"default running 2 0 $canon" "ls lists the domain with 2 sessions"
assert_contains "$(printf '%s\n' "$out" | head -n 1)" "SESSIONS  UPTIME  MEM  CPU" "ls: aligned header"
up=$(printf '%s\n' "$out" | awk -v h="$hash" '$1 == h { print $5 }')
[[ $up =~ ^[0-9]+(s|m[0-9][0-9]s)$ ]] || fail "ls: UPTIME with its unit, got [$up]"
lz ls --json | timeout 10 python3 -c '
import json, sys
doms = {d["domain_hash"]: d for d in json.load(sys.stdin)}
d = doms[sys.argv[1]]
assert d["running"] and d["container"]["name"] == sys.argv[2], d
assert len(d["sessions"]) == 2 and d["workspace"] == sys.argv[3], d
' "$hash" "$ctr" "$canon" || fail "ls --json lacks the domain with its 2 sessions"
note "ok: ls --json has the domain, its container and 2 sessions"

# --- the control socket: malformed input gets an ERROR frame, never a crash
cat >"$T/proto.py" <<'PY'
import socket, struct, sys
MAGIC = 0x4c5a4354
def frame(t, payload=b"", ver=1):
    return struct.pack("!IBBHI", MAGIC, ver, 0, t, len(payload)) + payload
def recv(s):
    h = b""
    while len(h) < 12:
        c = s.recv(12 - len(h))
        if not c:
            return None
        h += c
    magic, ver, fl, t, n = struct.unpack("!IBBHI", h)
    p = b""
    while len(p) < n:
        p += s.recv(n - len(p))
    return t, p
def conn():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    return s
def error_code(r, want, what):
    assert r is not None and r[0] == 2, "%s: expected ERROR, got %r" % (what, r)
    code = struct.unpack("!I", r[1][:4])[0]
    assert code == want, "%s: ERROR code %d, expected %d (%r)" % (what, code, want, r[1])
    print("ok:", what, "->", r[1][8:].decode())
hello = frame(1, struct.pack("!III", 1, 0, 0))
s = conn(); s.sendall(hello); assert recv(s)[0] == 1
s.sendall(frame(4242, b"xx")); error_code(recv(s), 3, "unknown type")
s.sendall(frame(120)); error_code(recv(s), 3, "reserved escalation type")
s.sendall(frame(20, b"\x00\x01")); error_code(recv(s), 4, "truncated NEW_SESSION")
s.sendall(frame(20, struct.pack("!IHHII", 0, 0, 0, 0, 0xFFFFFFF0))); error_code(recv(s), 4, "huge argc")
s.sendall(frame(23, struct.pack("!IB", 999, 0) + b"x")); error_code(recv(s), 5, "DATA for no session")
s.sendall(frame(60, b"\x00")); r = recv(s); assert r[0] == 61, "STATUS after errors: %r" % (r,)
print("ok: the connection survives bad payloads")
s.close()
s = conn(); s.sendall(frame(1, struct.pack("!III", 1, 0, 0), ver=9))
error_code(recv(s), 2, "frame version 9"); assert recv(s) is None
s = conn(); s.sendall(frame(1, struct.pack("!III", 7, 0, 0)))
error_code(recv(s), 2, "HELLO version 7"); assert recv(s) is None
s = conn(); s.sendall(b"GET / HTTP/1.0\r\n\r\n")
error_code(recv(s), 1, "bad magic"); assert recv(s) is None
s = conn(); s.sendall(struct.pack("!IBBHI", MAGIC, 1, 0, 23, 0xFFFFFFFF))
error_code(recv(s), 1, "4 GiB length"); assert recv(s) is None
s = conn(); s.sendall(frame(60, b"\x00"))
error_code(recv(s), 9, "request before HELLO"); assert recv(s) is None
s = conn(); s.sendall(hello[:7]); s.close()
print("proto-ok")
PY
[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/proto.py"
out=$(as_user python3 "$T/proto.py" "$sock") || fail "protocol check failed: $out"
echo "$out" | sed 's/^/# /'
assert_contains "$out" "proto-ok" "every malformed frame answered"
sessions_are 2 || fail "the coordinator lost its sessions to malformed input"
assert_eq "$(coord_count "$canon")" 1 "the coordinator survived malformed input"

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

# --- kill -9 of the coordinator: its guard cleans up, the next run starts clean
# (test-guard.sh checks the guard in detail)
lz run -w "$repo" -- sleep 103 </dev/null >/dev/null 2>&1 &
wait_for 40 sessions_are 1 || fail "session for the coordinator kill did not start"
cp=$(coord_pid); [ -n "$cp" ] || fail "no coordinator pid in status"
kill -KILL "$cp"
wait_for 10 sh -c "! kill -0 $cp 2>/dev/null" || fail "coordinator survived SIGKILL"
wait || true
wait_for 10 gone || fail "the guard did not clean up after the SIGKILLed coordinator"
out=$(lz run -w "$repo" -- echo again </dev/null)
assert_eq "$out" "again" "run works after the coordinator was SIGKILLed"
wait_for 20 gone || fail "no teardown after recovering from a SIGKILLed coordinator"
note "ok: SIGKILL of the coordinator: its guard cleaned up, the next run worked"

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
wait_for 40 sessions_are 1 || { tail -n 20 "$T/home/data/lazaret/domains/$hash/coordinator.log"
	fail "session for stop did not start"; }
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
