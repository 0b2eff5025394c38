#!/usr/bin/env bash
# test-pkg-persist.sh - package state persists whole (issue 25 item 8): a
# package installed with sudo apt-get in one run is, in the next (a new
# container), both there (/usr) and known to dpkg (/var/lib/dpkg, /etc), and
# apt-get remove then removes it for good. Each `lazaret run` below starts
# and tears down its own container.
source "$(dirname "$0")/lib.sh"
need_stack
need_debian_image

# A small package, handed in read-only.
need_hello_deb
lz_config <<EOF2
profiles:
  default:
    image: $LZ_DEBIAN_IMG
    volumes: [{host: $T/debs, container: /debs, mode: ro}]
EOF2
lz_domain ws
run() { lz run -T -w "$repo" -- sh -c "$1" </dev/null 2>&1; }
gone() { [ -z "$(as_user podman ps -aq --filter "name=^$ctr\$")" ] && [ "$(coord_count "$canon")" = 0 ]; }

out=$(run 'sudo apt-get install -y /debs/hello_*.deb') || fail "apt-get install failed: $out"
assert_contains "$out" "Setting up hello" "hello installed with sudo apt-get"
wait_for 30 gone || fail "container $ctr left after the run"
note "ok: the container is gone; the next run is a new one"

out=$(run 'dpkg -s hello | grep ^Status; hello') || fail "after a restart: $out"
assert_eq "$out" $'Status: install ok installed\nHello, world!' \
	"a new container: dpkg knows hello and the binary runs"
out=$(run 'sudo apt-get remove -y hello') || fail "apt-get remove failed: $out"
assert_contains "$out" "Removing hello" "apt-get remove works on the persisted state"
set +e
out=$(run 'dpkg -s hello 2>&1 | head -1; command -v hello'); rc=$?
set -e
assert_contains "$out" "is not installed" "removed for good in the next container"
assert_not_contains "$out" "/usr/bin/hello" "the binary is gone too"
