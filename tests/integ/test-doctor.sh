#!/usr/bin/env bash
# test-doctor.sh - `lazaret doctor` on the prepared host says all ok (exit 0);
# a broken XDG_RUNTIME_DIR gives FAIL with the fix (exit 1); root is refused.
source "$(dirname "$0")/lib.sh"
need_stack

IMG=localhost/lazaret-default:latest
as_user podman image exists "$IMG" || lz image build-default >/dev/null 2>&1 ||
	fail "cannot build $IMG"

out=$(lz doctor 2>&1) || fail "doctor failed on the prepared host: $out"
echo "$out"
assert_not_contains "$out" "FAIL" "no check fails on the prepared host"
assert_contains "$out" "ok   runtime runsc: registered with podman as " "runsc registered"
assert_contains "$out" "ok   sessions: lazaret sandbox-exec (the control calls of $(runsc --version | head -1) are known)" \
	"doctor says which way sessions go in (this runsc's control calls are known)"
assert_contains "$out" "ok   XDG_RUNTIME_DIR: $LZ_RUNDIR (yours, 0700)" "runtime dir checked"
assert_contains "$out" "ok   image $IMG: present" "default image checked"
assert_contains "$out" "checks passed" "summary line"

out=$(lz doctor --deep 2>&1) || fail "doctor --deep failed: $out"
assert_contains "$out" "ok   sandbox (runsc): started, exec'd and removed" "deep: a real sandbox"
assert_contains "$out" "ok   statx shim (GNU ls, stat): GNU stat works in the sandbox" \
	"deep: GNU stat's statx(AT_NO_AUTOMOUNT) answered through the shim"
assert_contains "$out" "ok   sidecar runtime (crun, slirp4netns)" "deep: the sidecar runtime"
assert_eq "$(as_user podman ps -a --filter name=lazaret-doctor- --format '{{.Names}}')" "" \
	"deep check leaves no container"

# XDG_RUNTIME_DIR unset (empty, as env -i gives it)
LZ_ENV=(XDG_RUNTIME_DIR=)
rc=0; out=$(lz doctor 2>&1) || rc=$?
assert_eq "$rc" 1 "exit 1 when XDG_RUNTIME_DIR is unset"
assert_contains "$out" "FAIL XDG_RUNTIME_DIR: not set" "unset runtime dir reported"
assert_contains "$out" "Fix: export XDG_RUNTIME_DIR=/run/user/$LZ_UID" "with the fix"

# XDG_RUNTIME_DIR pointing to a 0755 directory
as_user mkdir -m 0755 "$T/rundir"
LZ_ENV=(XDG_RUNTIME_DIR="$T/rundir")
rc=0; out=$(lz doctor 2>&1) || rc=$?
assert_eq "$rc" 1 "exit 1 for a 0755 runtime dir"
assert_contains "$out" "FAIL XDG_RUNTIME_DIR: $T/rundir has mode 0755, not 0700" "0755 runtime dir reported"
assert_contains "$out" "Fix: chmod 0700 $T/rundir" "with the fix"
assert_contains "$out" "1 of " "only that check fails"

# the fix given is the fix
as_user chmod 0700 "$T/rundir"
out=$(lz doctor 2>&1) || fail "doctor still fails after the given fix: $out"
note "ok: after chmod 0700 doctor passes"

# a profile image that is not there
LZ_ENV=()
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<EOF
profiles:
  default:
    image: localhost/lazaret-nope:1
EOF
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
rc=0; out=$(lz doctor 2>&1) || rc=$?
assert_eq "$rc" 1 "exit 1 when the profile's image is missing"
assert_contains "$out" "FAIL image localhost/lazaret-nope:1: not found locally. Fix: lazaret image build-default" \
	"missing image reported with the fix"

if [ "$(id -u)" -eq 0 ]; then
	rc=0; out=$(timeout "$TO" "$T/bin/lazaret" doctor 2>&1) || rc=$?
	assert_eq "$rc" 1 "root gets exit 1"
	assert_contains "$out" "refusing to run as root: Lazaret is rootless" "root refused"
fi
echo "doctor: all checks passed"
