#!/usr/bin/env bash
# test-sentry-git.sh - ordinary git works for the agent (issue 8, item 5):
# twenty everyday commands run inside the real gVisor sandbox through
# `lazaret run`, all succeed, and while the session runs the host sees the
# agent's main line on lazaret/agent-<profile>, its other branches under
# lazaret/<profile>/ and its tags under refs/tags/lazaret/<profile>/ (the
# coordinator's continuous import), main never moving.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"

lz_domain "git repo"
git_u() { as_user git -C "$repo" "$@"; }
main=$(git_u rev-parse main)
# A second file with history, for blame and bisect.
as_user sh -c "cd '$repo' && for i in 1 2 3; do echo line \$i >> lines && git add lines &&
	git commit -qm \"lines \$i\"; done"
main=$(git_u rev-parse main)

# A session that keeps the coordinator (and its import) alive.
lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
has_ctr() { as_user podman container exists "$ctr"; }
wait_for 60 has_ctr || fail "the sandbox did not start"

in_box() { # a shell script run in /workspace, with an identity
	lz run -w "$repo" -- sh -c "export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=a@example.invalid \
		GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=a@example.invalid; set -e; $1" </dev/null
}
step() { # name script: one everyday command, which must succeed
	local out
	out=$(in_box "$2" 2>&1) || fail "$1 failed in the sandbox: $out"
	note "ok: $1"
}

step "1 git checkout -b"        'git checkout -q -b feature'
step "2 commit on a topic branch" 'echo f > f.txt && git add f.txt && git commit -qm "feature work"'
step "3 git config (local)"     'git config user.name "Agent Smith" && test "$(git config user.name)" = "Agent Smith"'
step "4 commit --amend"         'echo f2 >> f.txt && git commit -qa --amend -m "feature work, amended"'
step "5 git checkout back"      'git checkout -q lazaret/agent-default'
step "6 git merge"              'git merge -q --no-ff -m "merge feature" feature'
step "7 git stash / pop"        'echo wip >> README && git stash -q && test "$(cat README)" = hello && git stash pop -q && grep -q wip README && git checkout -q -- README'
step "8 git tag"                'git tag v1 && git tag -a v1-annotated -m "annotated"'
step "9 git rebase -i"          'git checkout -q -b rb feature && echo r1 > r1 && git add r1 && git commit -qm r1 && echo r2 > r2 && git add r2 && git commit -qm r2 &&
	GIT_SEQUENCE_EDITOR="sed -i 2s/^pick/squash/" GIT_EDITOR=true git rebase -q -i HEAD~2 && test "$(git rev-list --count feature..rb)" = 1'
step "10 git reset"             'git reset -q --hard HEAD~1 && test "$(git rev-parse HEAD)" = "$(git rev-parse feature)"'
step "11 git cherry-pick"       'git checkout -q lazaret/agent-default && git checkout -q -b pick && echo c > c.txt && git add c.txt && git commit -qm pickme &&
	git checkout -q lazaret/agent-default && git cherry-pick pick >/dev/null'
step "12 git worktree add"      'git worktree add -q /tmp/wt2 -b wtbranch && echo w > /tmp/wt2/w && git -C /tmp/wt2 add w && git -C /tmp/wt2 commit -qm "from a worktree"'
step "13 git gc"                'git gc -q'
step "14 git log"               'git log --oneline | grep -q "merge feature"'
step "15 git blame"             'git blame lines | grep -q "line 2"'
step "16 git bisect"            'git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" >/dev/null && git bisect run sh -c "! grep -q \"line 3\" lines" >/dev/null && git bisect reset >/dev/null 2>&1'
step "17 git notes"             'git notes add -m "a note" HEAD && git notes show HEAD | grep -q "a note"'
step "18 git branch -D"         'git branch -q -D rb'
step "19 git diff host/main"    'git diff --stat host/main >/dev/null && test "$(git rev-parse host/main)" = '"$main"
step "20 git status"            'git status --porcelain >/dev/null'

# From a subdirectory, lazaret finds the same domain: the repository's top
# level, in the mode it really runs in.
as_user mkdir -p "$repo/sub/dir"
st=$(lz status -w "$repo/sub/dir" --json)
assert_contains "$st" "\"workspace\":\"$canon\"" "status from a subdirectory names the top level"
assert_contains "$st" "\"mode\":\"isolated\"" "status reports the real mode"

# The host sees it all where the README says, while the session runs.
agent=$(in_box 'git rev-parse lazaret/agent-default')
feature=$(in_box 'git rev-parse feature')
imported() { [ "$(git_u rev-parse -q --verify lazaret/agent-default)" = "$agent" ]; }
wait_for 10 imported || fail "host lazaret/agent-default is not the agent's $agent"
note "ok: host sees the agent's main line"
has_ref() { [ "$(git_u rev-parse -q --verify "$1")" = "$2" ]; }
wait_for 10 has_ref refs/heads/lazaret/default/feature "$feature" || fail "feature not imported"
wait_for 10 has_ref refs/heads/lazaret/default/wtbranch "$(in_box 'git rev-parse wtbranch')" || fail "wtbranch not imported"
wait_for 10 has_ref refs/tags/lazaret/default/v1 "$(in_box 'git rev-parse v1')" || fail "tag v1 not imported"
assert_eq "$(git_u cat-file -t refs/tags/lazaret/default/v1-annotated)" tag "annotated tag imported as a tag object"
gone() { ! git_u rev-parse -q --verify refs/heads/lazaret/default/rb >/dev/null; }
wait_for 10 gone || fail "deleted branch rb still on the host"
note "ok: a branch the agent deleted left the host namespace"
assert_eq "$(git_u rev-parse -q --verify refs/tags/v1 || echo none)" none "no tag outside the namespace"
assert_eq "$(git_u rev-parse main)" "$main" "host main never moved"
assert_eq "$(git_u log -1 --format=%s lazaret/agent-default)" "pickme" "cherry-pick is the agent's tip on the host"
git_u fsck --no-progress --no-dangling >/dev/null || fail "host repository not sound"
# A new commit shows up on the host within the deadline.
in_box 'echo more >> f.txt && git add f.txt && git commit -qm "one more"' >/dev/null
agent=$(in_box 'git rev-parse HEAD')
wait_for 5 imported || fail "the agent's next commit did not reach the host"
note "ok: next commit on the host while the session runs"
# The host's own .git is nowhere in the sandbox; its objects are read-only
# at a neutral path.
out=$(in_box 'cat /workspace/.git/objects/info/alternates')
assert_eq "$out" "/run/lazaret/git-objects" "alternates name the neutral path"
assert_not_contains "$(in_box 'env; cat /proc/self/mountinfo' 2>&1)" "$repo" "no host path of the repository in the sandbox"
# A repository the agent creates in its checkout is quarantined at
# teardown, reported in the audit trail.
in_box 'git init -q planted/deep && git -C planted/deep config core.fsmonitor "touch /tmp/x #"' >/dev/null
lz stop -w "$repo" >/dev/null || fail "lazaret stop failed"
stopped() { [ "$(coord_count "$canon")" = 0 ]; }
wait_for 30 stopped || fail "the coordinator did not stop"
out=$(lz audit -w "$repo")
assert_contains "$out" "sentry.release" "teardown's Sentry report is audited"
assert_contains "$out" "quarantined 1 .git" "the planted repository is reported"
wt=$(find "$T/home/data" -maxdepth 4 -type d -name "lazaret-$hash")
[ -d "$wt" ] && [ ! -e "$wt/planted/deep/.git" ] || fail "planted .git left in the agent's checkout"
[ -n "$(find "$T/home/data" -path '*quarantine*' -name .git -print)" ] || fail "nothing in the quarantine"
note "ok: planted .git moved to the quarantine"
