# tests/integ/lib.sh - shared harness for integration tests (sourced, bash).
#
# Integration tests run the real stack (podman + runsc, git, tmux) as a
# non-root user. Run as root (CI), they use the user that scripts/setup-host
# creates (LAZARET_TEST_USER, default "lazaret") and a copy of the build in a
# directory that user can read; run as a normal user, they run as you. Every
# test runs as $LZ_USER only (never a user named in the test) with its own
# config and data root under $T, so two suites on one machine can each have
# a user: `sudo scripts/setup-host lazaret2`, then LAZARET_TEST_USER=lazaret2
# (the default image is built for that user on first use).
# A test that cannot run here exits 77 (skip); LAZARET_MUST_WORK=1 makes
# tests/run count that as a failure.
set -eu

LZ_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LZ_BUILD=${LAZARET_BUILD:-build}
case $LZ_BUILD in /*) ;; *) LZ_BUILD=$LZ_SRC/$LZ_BUILD ;; esac
TO=${LZ_TIMEOUT:-120}		# per external command

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

if [ "$(id -u)" -eq 0 ]; then
	LZ_USER=${LAZARET_TEST_USER:-lazaret}
	id -u "$LZ_USER" >/dev/null 2>&1 || skip "test user '$LZ_USER' missing: run scripts/setup-host"
else
	LZ_USER=$(id -un)
fi
LZ_UID=$(id -u "$LZ_USER")
LZ_HOME=$(getent passwd "$LZ_USER" | cut -d: -f6)
LZ_RUNDIR=/run/user/$LZ_UID
[ -d "$LZ_RUNDIR" ] || LZ_RUNDIR=${XDG_RUNTIME_DIR:-/tmp/lazaret-run-$LZ_UID}

# A private directory per test, owned by the user; binaries copied into it.
T=$(mktemp -d /var/tmp/lz-integ.XXXXXX)
chmod 0755 "$T"
mkdir -p "$T/bin" "$T/home/config" "$T/home/data"
for b in "$LZ_BUILD"/lazaret "$LZ_BUILD"/lazaret-*; do
	[ -f "$b" ] && [ -x "$b" ] && cp "$b" "$T/bin/"
done
[ -x "$T/bin/lazaret" ] || fail "no $LZ_BUILD/lazaret: run make first"
# Data the programs find as installed, in PREFIX/share/lazaret ($T is PREFIX).
mkdir -p "$T/share/lazaret"
cp "$LZ_SRC/data/surface.tsv" "$T/share/lazaret/"
cp -r "$LZ_SRC/presets" "$T/share/lazaret/"
cp -r "$LZ_SRC/kits" "$T/share/lazaret/"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T"

LZ_CLEANUPS=()
lz_on_exit() { LZ_CLEANUPS+=("$1"); }
lz_cleanup() {
	local i rc=$?
	for ((i = ${#LZ_CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${LZ_CLEANUPS[$i]}" >/dev/null 2>&1 || true; done
	rm -rf "$T" 2>/dev/null || true
	return $rc
}
trap lz_cleanup EXIT

# Run a command as the test user with a clean environment; extra VAR=VALUE
# pairs may be passed through LZ_ENV (array).
LZ_ENV=()
as_user() {
	local envv=(HOME="$LZ_HOME" USER="$LZ_USER" LOGNAME="$LZ_USER" LC_ALL=C.UTF-8
		PATH="$T/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
		XDG_RUNTIME_DIR="$LZ_RUNDIR" XDG_CONFIG_HOME="$T/home/config"
		XDG_DATA_HOME="$T/home/data" TERM="${TERM:-xterm-256color}" "${LZ_ENV[@]}")
	if [ "$(id -u)" -eq 0 ]; then
		(cd "$T" && timeout -k 5 "$TO" runuser -u "$LZ_USER" -- env -i "${envv[@]}" "$@")
	else
		(cd "$T" && timeout -k 5 "$TO" env -i "${envv[@]}" "$@")
	fi
}
lz() { as_user lazaret "$@"; }

# Wait until a command succeeds, up to SECONDS (no bare sleeps in tests).
wait_for() { # seconds cmd...
	local deadline=$((SECONDS + $1)); shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

# A private tmux server (TM) whose pane runs `lazaret run ARGS...` as the
# test user (then run-rc=N); pane prints its screen, pane_has TEXT finds TEXT.
lz_tmux_run() {
	TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
	lz_on_exit "${TM[*]} kill-server"
	"${TM[@]}" new-session -d -x 120 -y 40 "$(as_user_line lazaret run "$@"); echo run-rc=\$?; sleep 600"
}
pane() { "${TM[@]}" capture-pane -p; }
pane_has() { pane | grep -qF -- "$1"; }

# Stop the test's tmux server (TM) and wait until it is gone: a new-session
# sent while it is still shutting down fails ("server exited unexpectedly").
tm_gone() { ! "${TM[@]}" list-sessions >/dev/null 2>&1; }
tm_kill() { "${TM[@]}" kill-server 2>/dev/null || true; wait_for 10 tm_gone || fail "tmux server did not exit"; }

# Assertions a reader can follow in the log.
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected [$2], got [$1]"; note "ok: ${3:-equal}"; }
assert_contains() { case $1 in *"$2"*) note "ok: ${3:-contains $2}" ;; *) fail "${3:-missing text}: [$2] not in [$1]" ;; esac; }
assert_not_contains() { case $1 in *"$2"*) fail "${3:-unexpected text}: [$2] in [$1]" ;; *) note "ok: ${3:-lacks $2}" ;; esac; }

# The stack must be there; CI (LAZARET_MUST_WORK=1) turns this skip into a failure.
need_stack() {
	command -v podman >/dev/null || skip "podman not installed: run scripts/setup-host"
	command -v runsc >/dev/null || skip "runsc not installed: run scripts/setup-host"
	as_user podman info >/dev/null 2>&1 || skip "rootless podman does not work for $LZ_USER: run scripts/setup-host"
}

# A git repo owned by the user with one commit, at $T/$1.
make_repo() {
	local r=$T/$1
	as_user sh -c "git init -q -b main '$r' && cd '$r' && git config user.email t@example.invalid &&
		git config user.name test && echo hello > README && git add README && git commit -qm init"
	echo "$r"
}

# The test user's config.yaml, from stdin.
lz_config() {
	mkdir -p "$T/home/config/lazaret"
	cat >"$T/home/config/lazaret/config.yaml"
	[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
}

# The as_user command line, shell-quoted, for places that take one string
# (a tmux pane's command).
as_user_line() {
	local envv=(HOME="$LZ_HOME" USER="$LZ_USER" LOGNAME="$LZ_USER" LC_ALL=C.UTF-8
		PATH="$T/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
		XDG_RUNTIME_DIR="$LZ_RUNDIR" XDG_CONFIG_HOME="$T/home/config"
		XDG_DATA_HOME="$T/home/data" TERM="${TERM:-xterm-256color}" "${LZ_ENV[@]}")
	if [ "$(id -u)" -eq 0 ]; then
		printf '%q ' runuser -u "$LZ_USER" -- env -i "${envv[@]}" "$@"
	else
		printf '%q ' env -i "${envv[@]}" "$@"
	fi
}

# The default sandbox image must exist for the user (built once, then reused).
need_default_image() {
	as_user podman image exists localhost/lazaret-default:latest && return 0
	note "building localhost/lazaret-default:latest"
	lz image build-default >/dev/null || fail "lazaret image build-default failed"
}

# A minimal Debian 12 image from the host's apt mirror (mmdebstrap, apt
# variant) with sudo and the kits' user `agent` (uid 1000, /home/agent,
# passwordless sudo): localhost/lazaret-test-debian:latest, built once into
# the user's podman store and reused (about 90 s cold here).
LZ_DEBIAN_IMG=localhost/lazaret-test-debian:latest
# A kit's image, built when missing (minutes: the suite's kit tests make it first).
need_kit_image() { # kit
	command -v mmdebstrap >/dev/null || fail "mmdebstrap missing: run scripts/setup-host"
	TO=900 lz image build --kit "$1" >/dev/null 2>"$T/kit-$1.err" || fail "$1 kit: $(tail -20 "$T/kit-$1.err")"
}

need_debian_image() {
	as_user podman image exists "$LZ_DEBIAN_IMG" && return 0
	command -v mmdebstrap >/dev/null || skip "mmdebstrap not installed: run scripts/setup-host"
	note "building $LZ_DEBIAN_IMG with mmdebstrap (once)"
	local tar=$T/debian.tar
	TO=900 as_user mmdebstrap --quiet --mode=unshare --variant=apt --include=sudo \
		--customize-hook='chroot "$1" useradd -m -u 1000 -U -s /bin/bash agent' \
		--customize-hook='echo "agent ALL=(ALL) NOPASSWD:ALL" >"$1/etc/sudoers.d/agent"; chmod 0440 "$1/etc/sudoers.d/agent"' \
		bookworm "$tar" >"$T/mmdebstrap.log" 2>&1 ||
		fail "mmdebstrap failed: $(tail -5 "$T/mmdebstrap.log")"
	TO=300 as_user podman import --quiet --change CMD=/bin/bash "$tar" "$LZ_DEBIAN_IMG" >/dev/null ||
		fail "podman import of $tar failed"
	rm -f "$tar"
}

# Debian's hello .deb (no dependency beyond libc) in $T/debs, fetched on the
# host (the sandbox has no network here), readable by the test user.
need_hello_deb() {
	mkdir -p "$T/debs"
	(cd "$T/debs" && timeout "$TO" apt-get download hello >/dev/null 2>&1) ||
		skip "apt-get download hello failed: no Debian mirror reachable from the host"
	chmod -R a+rX "$T/debs"
}

# Processes of `lazaret coordinator` serving workspace $1 (canonical path);
# a coordinator's own fork that has not exec'd podman yet is not counted.
coord_count() {
	timeout 10 ps -u "$LZ_USER" -o pid=,ppid=,args= |
		awk -v m="coordinator --profile ${2:-default} --workspace $1 --mode" '
		index($0, m) { pid[$1] = 1; ppid[$1] = $2 }
		END { n = 0; for (p in pid) if (!(ppid[p] in pid)) n++; print n }'
}

# A fresh git repo $1 as a Lazaret domain of profile ${2:-default}: sets repo,
# canon, hash, ctr and sock, and stops the domain (then removes its container)
# when the test exits.
lz_domain() {
	local p=${2:-default}
	repo=$(make_repo "$1")
	canon=$(realpath "$repo")
	hash=$(printf '%s' "$p:$canon" | sha256sum | cut -c1-12)
	ctr=lazaret-$p-$hash
	sock=$LZ_RUNDIR/lazaret/$hash.ctl
	lz_on_exit "as_user podman rm -f -t0 $ctr"
	lz_on_exit "lz stop -p $p -w '$repo'"
}

# A configuration with two profiles, web and ml-gpu (in that order), at $1,
# readable by the test user.
two_profiles_config() {
	printf 'profiles:\n  web:\n    image: localhost/lazaret-default:latest\n  ml-gpu:\n    image: localhost/lazaret-default:latest\n' >"$1"
	[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$1"
}

# A network namespace of the test's own, reached from the host through a veth
# pair: lz_test_netns A.B HOSTS... picks NET=A.B.N (a free /29), names it SRV,
# gives the host NET.1 and the namespace NET.H for each H (default route
# back), and removes it all on exit. Test traffic goes only there.
lz_test_netns() { # prefix host-numbers...
	local p=$1 a; shift
	N=$((RANDOM % 200 + 20)) NET=$p.$N SRV=lzn$$ VH=lzh$$
	ip -o addr show | grep -q " $NET\." && skip "$NET.0/29 is in use on this host"
	ip netns add "$SRV"
	lz_on_exit "ip netns del $SRV"
	ip link add "$VH" type veth peer name eth0 netns "$SRV"
	lz_on_exit "ip link del $VH"
	ip addr add "$NET.1/29" dev "$VH"; ip link set "$VH" up
	for a in "$@"; do ip -n "$SRV" addr add "$NET.$a/29" dev eth0; done
	ip -n "$SRV" link set eth0 up; ip -n "$SRV" link set lo up
	ip -n "$SRV" route add default via "$NET.1"
}

# A client that holds the domain's coordinator ($sock from lz_domain) with no
# session, so that its status can be read after its sandbox was stopped; it
# lets go after 60 s or when the test kills "hold.py $sock".
lz_hold() {
	[ -f "$T/hold.py" ] || {
		cat >"$T/hold.py" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(struct.pack("!IBBHI", 0x4c5a4354, 1, 0, 1, 12) + struct.pack("!III", 1, 0, 0))
s.recv(64); print("held", flush=True); time.sleep(float(sys.argv[2]))
PY
		[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/hold.py"
	}
	as_user python3 "$T/hold.py" "$sock" 60 >"$T/hold.out" 2>&1 &
	wait_for 10 grep -q held "$T/hold.out"
}

# The host pid of the router of sidecar container $1: the lazaret-sidecar
# process in that container's network namespace (other domains of the same
# user may run beside the test; their routers are not ours to kill).
lz_router_pid() {
	local netns p
	netns=$(readlink "/proc/$(as_user podman inspect -f '{{.State.Pid}}' "$1")/ns/net") || return 1
	for p in $(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk '$2 == "/lazaret-sidecar" { print $1 }'); do
		[ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$netns" ] && { echo "$p"; return 0; }
	done
	return 1
}

# The test's namespace (lz_test_netns PREFIX 2 3) with a web server on
# $NET.3:8080 that answers "hello-8080 LINE"; needs root.
lz_test_web() { # prefix
	lz_test_netns "$1" 2 3
	ip netns exec "$SRV" python3 "$LZ_SRC/tests/integ/net-helper.py" serve 0.0.0.0 8080 \
		>"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
	wait_for 10 grep -q serving "$T/srv.log" || fail "test server did not start"
}
# A CA of the test's own and a server certificate for address $2 it signed,
# in directory $1: ca.pem (readable by all), srv.pem, srv.key.
lz_test_ca() { # dir addr
	( cd "$1" &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=lazaret-test-ca &&
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=$2" &&
	printf 'subjectAltName=IP:%s\n' "$2" >srv.ext &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 \
		-extfile srv.ext && chmod a+r ca.pem ) >"$1/openssl.log" 2>&1 ||
		fail "test CA: $(tail -3 "$1/openssl.log")"
}
# The id of the first pending network request of the test's domain, or nothing.
lz_pending_id() { lz egress -w "$repo" --pending --json | python3 -c '
import json, sys
for l in sys.stdin:
    l = l.strip()
    if l.startswith("{") and json.loads(l).get("state") == "pending":
        print(json.loads(l)["id"]); break'; }

# Someone who can answer network requests of the test's domain ($repo):
# Lazaret asks only while a workbench is attached or this runs, and refuses
# at once otherwise (issue 24 item 11). Sets FOLLOW (its pid).
lz_follow_requests() {
	as_user lazaret egress -w "$repo" --pending --follow >"$T/follow.log" 2>&1 & FOLLOW=$!
	lz_on_exit "kill $FOLLOW 2>/dev/null"
	wait_for 20 test -s "$T/follow.log" || fail "egress --pending --follow printed nothing"
}
