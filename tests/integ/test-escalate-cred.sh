#!/usr/bin/env bash
# test-escalate-cred.sh - issue 9 on the real stack, as attacks: the session
# credential is on no host command line (`ps` and /proc/*/cmdline as another
# host user; it reaches sandbox-exec inside its process description on fd 3), in no sandbox process's environment, and one session cannot
# sign as another from inside the sandbox (no credential in reach, another
# session's holder unreachable through /proc, its id with our credential
# refused); an approved command that cannot start (a missing interpreter) 50
# times over leaves the coordinator healthy.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image
id -u nobody >/dev/null 2>&1 || skip "no user nobody to look from"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nescalation:\n  auto_approve: ["true", "./noint.sh"]\n' \
	>"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
LZ_ENV=(LAZARET_ESC_TIMEOUT=8)
wt=$T/home/data/lazaret/domains/$hash/lazaret-$hash
inbox() { as_user setsid -w lazaret run -T -w "$repo" -- "$@"; }

# Session A stays while we look.
lz run -T -w "$repo" -- sh -c 'echo $LAZARET_SESSION_ID >/workspace/.sidA; sleep 120' >"$T/a.out" 2>&1 &
apid=$!
lz_on_exit "kill $apid"
wait_for 60 test -s "$wt/.sidA" || { cat "$T/a.out"; fail "session A did not start"; }
sidA=$(cat "$wt/.sidA")

# --- the host: another user's ps and /proc/*/cmdline
look() { timeout 10 runuser -u nobody -- sh -c 'ps -eo args; for f in /proc/[0-9]*/cmdline; do tr "\0" " " <"$f" 2>/dev/null; echo; done'; }
# Only this test's processes (the machine may run other Lazarets): those
# naming this domain's container, by id as sandbox-exec does (by name: podman exec).
id=$(as_user podman container inspect --format '{{.Id}}' "$ctr")
out=$(look | grep -F -e "$id" -e "$ctr" || true)
assert_contains "$out" "sandbox-exec --sandbox $id --container $id" "session A's sandbox-exec is in view"
assert_not_contains "$out" "lzc1." "no credential on any command line, seen as user nobody"
assert_not_contains "$out" "LAZARET_CRED" "not even the variable's name"
assert_not_contains "$(look)" "lzc1." "nor on any other"

# --- inside session B: nothing to steal, A's holder out of reach
out=$(inbox sh -c 'n=0; for p in /proc/[0-9]*; do tr "\0" "\n" <$p/environ 2>/dev/null | grep -q "lzc1\." && n=$((n+1)); done; echo environ=$n
	env | grep -c "^LAZARET_CRED=" | sed "s/^/own=/"; echo fd=$LAZARET_ESC_FD
	o=0; for f in /proc/[0-9]*/fd/*; do case $(readlink $f 2>/dev/null) in socket:*)
		case $f in /proc/$$/*) continue ;; esac
		(exec 7<>$f) 2>/dev/null && o=$((o+1)) ;; esac; done; echo opened=$o' 2>&1)
assert_contains "$out" "environ=0" "no process's environ in the sandbox holds a credential"
assert_contains "$out" "own=0" "not even the session's own shell"
assert_contains "$out" "opened=0" "no other process's socket (a holder) opens through /proc/<pid>/fd"
out=$(inbox sh -c 'for f in /proc/[0-9]*/cmdline; do tr "\0" " " <$f; echo; done')
assert_contains "$out" "lazaret-escalate --hold -- sh -c echo" "session A runs under the holder"
set +e
out=$(inbox sh -c "LAZARET_SESSION_ID=$sidA lazaret-escalate -- true" 2>&1); rc=$?
set -e
assert_eq "$rc" 125 "session B asking as session A: exit 125"
assert_contains "$out" "belongs to another session" "B's credential does not name A (the host refuses such a request too: test-escalate.sh, esc-hostile send)"
set +e; inbox lazaret-escalate -- true; rc=$?; set -e
assert_eq "$rc" 0 "session B's own request works (its holder answers)"

# --- an approved command that cannot start, 50 times
# Also on the user's branch: a new executable only the agent's checkout has
# is executable surface, which suspends auto_approve (the review gate).
as_user sh -c "cd '$repo' && printf '#!/nonexistent/interpreter\\necho never\\n' >noint.sh &&
	chmod 0755 noint.sh && git add noint.sh && git commit -qm noint"
printf '#!/nonexistent/interpreter\necho never\n' >"$wt/noint.sh"
chmod 0755 "$wt/noint.sh"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$wt/noint.sh"
out=$(inbox sh -c 'n=0; for i in $(seq 50); do lazaret-escalate -- ./noint.sh 2>/dev/null; [ $? = 127 ] && n=$((n+1)); done; echo n=$n')
assert_eq "$out" "n=50" "50 failed starts, each exit 127"
set +e; inbox lazaret-escalate -- true; rc=$?; set -e
assert_eq "$rc" 0 "the coordinator still runs the next command"
assert_eq "$(coord_count "$canon")" 1 "one coordinator, still up"
n=$(lz audit -w "$repo" --json | grep -c '"outcome":"failed"' || true)
[ "$n" -ge 50 ] || fail "expected 50 audited failed starts, got $n"
note "ok: $n failed starts audited"
kill "$apid" 2>/dev/null || true
