#!/usr/bin/env bash
# test-sentry-sync.sh - `lazaret sync` on a running domain (issue 30, item
# 2): the default refreshes host/<branch> inside and prints a one-line
# notice in a running session's terminal; --reset starts the agent branch
# afresh from the user's, its old tip and uncommitted work kept on named
# refs (message and audit row). The user's checkout, index and branches
# are never touched.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
command -v tmux >/dev/null || skip "tmux not installed"

lz_domain "sync repo"
git_u() { as_user git -C "$repo" "$@"; }

# An interactive shell in a terminal: the running session to be told.
lz_tmux_run -w "$repo"
wait_for 60 pane_has "/workspace" || { pane; fail "no shell prompt in the sandbox"; }
sx_run_agent 'echo one > a.txt && git add a.txt && git commit -qm "agent one"' ||
	fail "the agent's commit failed"
agent_tip=$(sx_run_agent 'git rev-parse HEAD')
as_user sh -c "cd '$repo' && echo user > u.txt && git add u.txt && git commit -qm 'user work'"
main=$(git_u rev-parse main)
before=$(sx_host_state "$repo")

# 1. The default: host/main refreshed, the session told, nothing rewritten.
out=$(lz sync -w "$repo" 2>&1) || fail "lazaret sync on a live domain failed: $out"
assert_contains "$out" "host/main is at ${main:0:12}" "sync names what the agent sees"
assert_contains "$out" "told 1 running session" "sync told the running session"
wait_for 20 pane_has "[lazaret] your latest work: host/main is at ${main:0:12}" ||
	{ pane; fail "no notice in the running session"; }
assert_eq "$(sx_run_agent 'git rev-parse host/main')" "$main" "host/main inside is the user's main"
assert_eq "$(sx_run_agent 'git rev-parse HEAD')" "$agent_tip" "the agent's branch was not rewritten"
assert_eq "$(sx_host_state "$repo")" "$before" "the user's checkout, index and main untouched"
lz audit -w "$repo" | grep -q "review.sync" || fail "no review.sync audit row"

# 2. --reset: committed and uncommitted work kept, the branch afresh at main.
sx_run_agent 'echo wip > wip.txt && echo more >> a.txt' || fail "the agent's edit failed"
out=$(lz sync --reset -w "$repo" 2>&1) || fail "lazaret sync --reset failed: $out"
note "$out"
kept=$(printf '%s\n' "$out" | sed -n 's/.*old tip kept as \(refs\/lazaret\/saved\/default\/[0-9TZ]*\).*/\1/p')
[ -n "$kept" ] || fail "the message names no kept ref: $out"
assert_eq "$(git_u rev-parse "$kept")" "$agent_tip" "the old agent tip is kept on the host"
wip=$(printf '%s\n' "$out" | sed -n 's/.*its uncommitted work as \(refs\/[^ ]*\).*/\1/p')
[ -n "$wip" ] || fail "the message names no ref for the uncommitted work: $out"
assert_eq "$(git_u show "$wip:wip.txt")" "wip" "the untracked file is kept"
assert_eq "$(git_u show "$wip:a.txt" | tail -1)" "more" "the uncommitted change is kept"
assert_eq "$(git_u rev-parse "$wip^")" "$agent_tip" "the kept work sits on the old tip"
assert_eq "$(sx_run_agent 'git rev-parse HEAD')" "$main" "the agent's branch starts at main"
assert_eq "$(sx_run_agent 'git status --porcelain')" "" "the agent's checkout is clean"
sx_run_agent 'git branch --list "lazaret-saved/*"' | grep -q lazaret-saved/ ||
	fail "no lazaret-saved branch inside"
wait_for 20 pane_has "starts afresh at host/main" || { pane; fail "no --reset notice in the session"; }
audit=$(lz audit -w "$repo" --json)
assert_contains "$audit" "$kept" "the audit row names the kept tip"
assert_eq "$(sx_host_state "$repo")" "$before" "the user's checkout, index and main still untouched"
# The host takes the reset branch by the usual import.
wait_agent() { [ "$(git_u rev-parse lazaret/agent-default)" = "$main" ]; }
wait_for 20 wait_agent || fail "the host's lazaret/agent-default did not follow the reset"
note "PASS"
