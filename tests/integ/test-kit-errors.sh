#!/usr/bin/env bash
# test-kit-errors.sh - a kit that cannot be built says so: a broken recipe
# (file, line and key), a Debian package the mirror lacks, an unreachable
# mirror (an address in a network namespace this test creates, where nothing
# listens): each a clear error naming the kit and the step, a non-zero exit,
# and no image under the kit's name.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing: run scripts/setup-host"

kit() { # name, then the kit.yaml on stdin
	mkdir -p "$T/home/config/lazaret/kits/$1"
	cat >"$T/home/config/lazaret/kits/$1/kit.yaml"
	chown -R "$LZ_USER" "$T/home/config"
}
no_image() { # kit
	local l
	l=$(as_user podman image ls --noheading --filter "reference=localhost/lazaret-kit-$1")
	assert_eq "$l" "" "no image tagged for kit $1"
}

note "a broken recipe: file, line and key"
kit brokenkit <<'YAML'
command: [true]
image:
  debian: just-a-string
YAML
rc=0; out=$(lz image build --kit brokenkit 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "a broken recipe built: $out"
assert_contains "$out" "brokenkit/kit.yaml:3: image.debian: expected a sequence" "the error names file, line and key"
assert_contains "$out" "no kit 'brokenkit'" "and the kit is not usable"
out=$(lz config check 2>&1) || fail "a broken kit no profile names breaks the configuration: $out"
assert_contains "$out" "kit 'brokenkit' left out" "the rest of the configuration still loads, with a warning"
no_image brokenkit

note "a Debian package the mirror does not have"
kit nopkgkit <<'YAML'
command: [true]
image:
  debian: [lazaret-no-such-package-zz]
YAML
rc=0; out=$(TO=600 lz image build --kit nopkgkit 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "a missing package built: $out"
assert_contains "$out" "kit nopkgkit (" "the error names the kit"
assert_contains "$out" "step 'debian base and packages" "and the step"
assert_contains "$out" "lazaret-no-such-package-zz" "and the package"
no_image nopkgkit

note "an unreachable mirror"
lz_test_netns 10.215 2
kit nomirrorkit <<YAML
command: [true]
image:
  mirror: http://$NET.2:9/debian
  debian: [git]
YAML
rc=0; out=$(TO=600 lz image build --kit nomirrorkit 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "a build from an unreachable mirror succeeded: $out"
assert_contains "$out" "kit nomirrorkit (" "the error names the kit"
assert_contains "$out" "step 'debian base and packages (mmdebstrap" "and the step"
assert_contains "$out" "$NET.2" "and the mirror it could not reach"
no_image nomirrorkit
