#!/usr/bin/env bash
# test-lockfile.sh - the coordinator lock keeps the spec's path in /tmp; a
# file there made first by another user (to block the domain) is reported at
# once with its owner and the fix, never waited on (issue 10, item 6).
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to make a file owned by another user"
need_stack
lz_domain ws
lock=/tmp/lazaret_coord_$hash.lock
install -m 0600 -o nobody -g nogroup /dev/null "$lock"
lz_on_exit "rm -f '$lock'"
t0=$SECONDS
set +e; out=$(lz run -w "$repo" -- true </dev/null 2>&1); rc=$?; set -e
[ $((SECONDS - t0)) -lt 30 ] || fail "lazaret run waited on the foreign lock file"
[ "$rc" -ne 0 ] || fail "lazaret run used another user's lock file"
assert_contains "$out" "lock file $lock belongs to nobody (uid $(id -u nobody))" "names the owner"
assert_contains "$out" "sudo rm -f $lock" "and the fix"
assert_contains "$out" "ask nobody or root to remove it" "and who can"
# root's own file: one name, not "ask root or root"
rm -f "$lock"; install -m 0600 -o root -g root /dev/null "$lock"
set +e; out=$(lz run -w "$repo" -- true </dev/null 2>&1); rc=$?; set -e
[ "$rc" -ne 0 ] || fail "lazaret run used root's lock file"
assert_contains "$out" "lock file $lock belongs to root (uid 0)" "names root"
assert_contains "$out" "ask root to remove it: sudo rm -f $lock" "asks root once"
assert_not_contains "$out" "root or root" "never 'root or root'"
rm -f "$lock"
out=$(lz run -w "$repo" -- echo works </dev/null)
assert_eq "$out" "works" "the domain works once the file is gone"
echo "test-lockfile: all passed"
