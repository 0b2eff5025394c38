#!/usr/bin/env bash
# test-sentry-live.sh - live sync both ways (issue 30, item 1): while a
# domain runs, a commit the user makes on the host shows inside the agent's
# repository as host/main (the agent rebases onto it with plain git), the
# agent cannot move or delete refs/remotes/host/* (nor the host's branch
# through them), and a host `git config user.name` is seen inside.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"

lz_domain "live repo"
git_u() { as_user git -C "$repo" "$@"; }

# A session that keeps the coordinator alive, then the agent's first commit.
lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
has_ctr() { as_user podman container exists "$ctr"; }
wait_for 60 has_ctr || fail "the sandbox did not start"
sx_run_agent 'echo agent > agent.txt && git add agent.txt && git commit -qm "agent work"' ||
	fail "the agent's commit failed"

# 1. The user commits on the host while the agent runs: host/main inside
# follows within seconds (measured inside, from the host's commit).
as_user sh -c "cd '$repo' && echo fix > fix.txt && git add fix.txt && git commit -qm 'user fix'"
new=$(git_u rev-parse main)
t0=$(date +%s%N)
seen() { [ "$(sx_run_agent 'git rev-parse host/main' 2>/dev/null)" = "$new" ]; }
wait_for 30 seen || fail "host/main inside never became $new: $(sx_run_agent 'git rev-parse host/main' 2>&1)"
note "host/main seen inside after $(( ($(date +%s%N) - t0) / 1000000 )) ms (each look is a lazaret run)"
# The same, measured by a loop inside the sandbox, started before the commit.
lz run -w "$repo" -- sh -c 'old=$(git rev-parse host/main); echo ready > /tmp/live-ready
	while [ "$(git rev-parse host/main)" = "$old" ]; do sleep 0.02; done; date +%s%N > /tmp/live-seen' \
	</dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
ready() { lz run -w "$repo" -- test -f /tmp/live-ready </dev/null >/dev/null 2>&1; }
wait_for 60 ready || fail "the watcher inside did not start"
as_user sh -c "cd '$repo' && echo fix3 > fix.txt && git commit -qam 'user fix 3'"
t1=$(date +%s%N)
got() { lz run -w "$repo" -- cat /tmp/live-seen </dev/null 2>/dev/null; }
wait_for 30 got || fail "the watcher inside never saw host/main move"
lat=$(( ($(got) - t1) / 1000000 ))
note "host commit -> host/main inside: $lat ms (issue 30 asks for < 2000)"
[ "$lat" -lt 2000 ] || note "WARNING: slower than 2 s on this machine (load $(cut -d' ' -f1 /proc/loadavg))"
new=$(git_u rev-parse main)

# The agent rebases its work onto the user's with plain git.
sx_run_agent 'git rebase -q host/main' || fail "git rebase host/main failed inside"
assert_eq "$(sx_run_agent 'git merge-base HEAD host/main')" "$new" "the agent's branch sits on the user's new main"
sx_run_agent 'test -f fix.txt && test -f agent.txt' || fail "after the rebase the checkout lacks a file"

# 2. The agent cannot write refs/remotes/host/*, and the host's branch stays.
out=$(sx_run_agent 'git update-ref refs/remotes/host/main HEAD~1' 2>&1) &&
	fail "the agent moved refs/remotes/host/main: $out"
note "update-ref refused: $out"
out=$(sx_run_agent 'git update-ref -d refs/remotes/host/main' 2>&1) &&
	fail "the agent deleted refs/remotes/host/main: $out"
out=$(sx_run_agent 'echo 0000000000000000000000000000000000000000 > .git/refs/remotes/host/main' 2>&1) &&
	fail "the agent wrote .git/refs/remotes/host/main: $out"
out=$(sx_run_agent 'git branch -f lazaret-evil HEAD~2 && git push -q . lazaret-evil:refs/remotes/host/main' 2>&1) ||
	note "push into host/main: $out"
assert_eq "$(sx_run_agent 'git rev-parse host/main')" "$new" "host/main inside unchanged"
# git gc packs refs; the read-only ones stay where they are.
sx_run_agent 'git gc -q' || fail "git gc failed inside with read-only host refs"
assert_eq "$(sx_run_agent 'git rev-parse host/main')" "$new" "host/main inside unchanged after git gc"
lz run -w "$repo" -- true </dev/null >/dev/null 2>&1 || true
assert_eq "$(git_u rev-parse main)" "$new" "the host's main unchanged"
assert_eq "$(git_u for-each-ref --format='%(refname)' refs/heads/main refs/remotes/)" "refs/heads/main" \
	"no host ref other than main moved in"

# 3. The host's git configuration reaches the agent while it runs.
git_u config user.name "Live User"
cfg() { [ "$(sx_run_agent 'git config user.name' 2>/dev/null)" = "Live User" ]; }
wait_for 30 cfg || fail "user.name inside is [$(sx_run_agent 'git config user.name' 2>&1)], not Live User"
git_u config alias.lg "log --oneline"
al() { sx_run_agent 'git lg -1' >/dev/null 2>&1; }
wait_for 30 al || fail "the host's alias lg did not reach the agent"
# What could run a program or carry a secret does not.
git_u config core.pager "touch /tmp/pwned-by-host-config; cat"
git_u config http.extraHeader "Authorization: Bearer s3cret"
git_u config user.name "Live User 2"
cfg2() { [ "$(sx_run_agent 'git config user.name' 2>/dev/null)" = "Live User 2" ]; }
wait_for 30 cfg2 || fail "user.name did not follow a second change"
assert_eq "$(sx_run_agent 'git config core.pager || echo none')" "none" "core.pager stays on the host"
assert_eq "$(sx_run_agent 'git config http.extraHeader || echo none')" "none" "http.extraHeader stays on the host"

# 4. lazaret diff --follow shows the agent's next commit once imported.
as_user sh -c "exec lazaret diff --follow --stat -w '$repo' > '$T/follow.out' 2>&1" &
lz_on_exit "kill $! 2>/dev/null"
first() { grep -qs "executable surface" "$T/follow.out"; }
wait_for 30 first || fail "lazaret diff --follow printed nothing: $(cat "$T/follow.out")"
sx_run_agent 'echo later > later.txt && git add later.txt && git commit -qm "agent later"' ||
	fail "the agent's later commit failed"
tip=$(sx_run_agent 'git rev-parse HEAD')
followed() { grep -q "now at ${tip:0:12}" "$T/follow.out" && grep -q "later.txt" "$T/follow.out"; }
wait_for 30 followed || fail "lazaret diff --follow did not show the new commit: $(cat "$T/follow.out")"
note "ok: lazaret diff --follow showed ${tip:0:12} with later.txt"

# 5. Direct mode (the agent's repository over the user's own checkout): the same.
lz_domain "live direct"
lz run --mode direct -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
wait_for 60 has_ctr || fail "the direct sandbox did not start"
in_direct() { lz run -T --mode direct -w "$repo" -- sh -c "$1" </dev/null; }
in_direct 'git rev-parse host/main' >/dev/null || fail "no host/main in direct mode"
as_user sh -c "cd '$repo' && git commit -q --allow-empty -m 'user, direct'"
new=$(git_u rev-parse main)
seen_direct() { [ "$(in_direct 'git rev-parse host/main' 2>/dev/null)" = "$new" ]; }
wait_for 30 seen_direct || fail "host/main did not follow in direct mode"
out=$(in_direct 'git update-ref refs/remotes/host/main HEAD~1' 2>&1) &&
	fail "the agent moved refs/remotes/host/main in direct mode: $out"
assert_eq "$(git_u rev-parse main)" "$new" "direct mode: the host's main unchanged"
note "PASS"
