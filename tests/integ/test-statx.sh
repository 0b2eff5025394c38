#!/usr/bin/env bash
# test-statx.sh - GNU coreutils work in a Debian image under runsc (issue 25
# item 6): runsc 0.0~20221219 rejects statx/fstatat with AT_NO_AUTOMOUNT
# (EINVAL), which GNU ls/stat/find/du pass; Lazaret preloads its shim
# (lazaret-statx.so) through a read-only /etc/ld.so.preload of its own, and
# the image itself stays unchanged.
source "$(dirname "$0")/lib.sh"
need_stack
need_debian_image

lz_config <<EOF2
profiles:
  default:
    image: $LZ_DEBIAN_IMG
EOF2
lz_domain ws

out=$(lz run -w "$repo" -- sh -c 'ls -ld / >/dev/null && stat -c %F / && find /etc -maxdepth 0 && du -s /etc >/dev/null && ls README' 2>&1) ||
	fail "GNU coreutils fail in the sandbox: $out"
assert_eq "$out" $'directory\n/etc\nREADME' "ls, stat, find, du work on a Debian image"
# errno still reaches the program when the file is missing
set +e
out=$(lz run -w "$repo" -- ls /no-such-file 2>&1); rc=$?
set -e
assert_eq "$rc" 2 "ls of a missing file exits 2"
assert_contains "$out" "No such file or directory" "and says why (errno set by the shim)"
out=$(lz run -w "$repo" -- sudo -n stat -c %U /root 2>&1) || fail "sudo stat failed: $out"
assert_eq "$out" "root" "a setuid program (sudo) gets the shim too"
# the image on disk is untouched: without Lazaret, no preload and ls fails
out=$(as_user podman run --rm --runtime runsc --network=none "$LZ_DEBIAN_IMG" \
	sh -c 'cat /etc/ld.so.preload 2>/dev/null; ls / >/dev/null 2>&1 && echo ls-ok || echo ls-fails')
assert_eq "$out" "ls-fails" "the image has no preload of its own (nothing written into it)"
