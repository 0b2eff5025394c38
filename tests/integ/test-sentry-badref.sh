#!/usr/bin/env bash
# test-sentry-badref.sh - one bad branch does not stop every import (issue
# 24, item 6): the agent makes, inside the real sandbox, a branch whose tree
# git's fsck refuses (an entry named '..', then one named '.git') and
# commits ordinary work on its main line. The work is imported, the bad ref
# is audited as left out with git's reason, teardown ends clean (the domain
# is not left dead), and after the coordinator is killed, the guard or
# `lazaret stop` clears the domain.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"

lz_domain "git repo"
git_u() { as_user git -C "$repo" "$@"; }
bad_branch() { # branch name-in-tree: a commit whose tree holds a bad entry
	echo "blob=\$(echo x | git hash-object -w --stdin)
		tree=\$(printf '100644 blob %s\t$2\n' \"\$blob\" | git mktree)
		git update-ref refs/heads/$1 \$(git commit-tree \"\$tree\" -m 'bad $1')"
}
work() { echo "echo '$1' >> work.txt && git add work.txt && git commit -qm '$1'"; }
host_tip() { git_u log -1 --format=%s lazaret/agent-default 2>/dev/null || echo none; }
has_ref() { git_u rev-parse -q --verify "$1" >/dev/null; }
dead() { lz ls 2>/dev/null | grep "^$hash" | grep -q dead; }
stopped() { [ "$(coord_count "$canon")" = 0 ]; }

# One run: the bad branch first, then ordinary work; the run is the
# domain's only session, so its end is the teardown too.
sx_run_agent "$(bad_branch bad1 ..); git checkout -q -b topic; $(work topic); git checkout -q lazaret/agent-default; $(work 'work 1')" ||
	fail "the agent's commands failed in the sandbox"
assert_eq "$(host_tip)" "work 1" "the main line's work is imported beside a bad branch"
has_ref refs/heads/lazaret/default/topic || fail "the good branch topic was not imported"
! has_ref refs/heads/lazaret/default/bad1 || fail "the bad branch reached the host"
wait_for 30 stopped || fail "the coordinator did not stop"
out=$(lz audit -w "$repo")
assert_contains "$out" "refs/heads/bad1" "the bad ref is audited as left out"
assert_contains "$out" "hasDotdot" "with git's reason"
assert_not_contains "$out" "not imported" "no import failed"
dead && fail "the domain is left dead after its teardown"
note "ok: teardown ended clean"
git_u fsck --no-progress --no-dangling >/dev/null || fail "host repository not sound"

# The coordinator killed with a bad branch pending: the clean-up (the guard,
# else lazaret stop) imports the work and clears the domain.
lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
has_ctr() { as_user podman container exists "$ctr"; }
wait_for 60 has_ctr || fail "the sandbox did not start"
pid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk -v m="coordinator --profile default --workspace $canon --mode" 'index($0, m) { print $1; exit }')
[ -n "$pid" ] || fail "no coordinator found"
# Kill it mid-import: the session's refs change after the kill.
sx_run_agent "$(bad_branch bad2 .git); $(work 'work 2')" >/dev/null || fail "second run failed"
kill -KILL "$pid"
gone() { ! as_user podman container exists "$ctr"; }
wait_for 60 gone || lz stop -w "$repo" >/dev/null 2>&1 || true
wait_for 30 gone || fail "the sandbox was not removed"
reaped() { ! dead; }
wait_for 30 reaped || { lz stop -w "$repo" || fail "lazaret stop cannot clear the dead domain"; }
dead && fail "the domain is still dead after lazaret stop"
note "ok: a killed coordinator's domain is cleared"
assert_eq "$(host_tip)" "work 2" "the work before the kill is on the host"
! has_ref refs/heads/lazaret/default/bad2 || fail "the bad .git branch reached the host"
assert_contains "$(lz audit -w "$repo")" "hasDotgit" "the .git entry is audited with its reason"
