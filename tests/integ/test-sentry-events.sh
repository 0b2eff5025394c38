#!/usr/bin/env bash
# test-sentry-events.sh - the coordinator imports the agent's commits while
# one session keeps running (no session ends, so no end-of-session flush
# helps): the Git Sentry's watch is driven by inotify events on the agent's
# git dir and refs/ (an idle domain wakes nobody), and with more ref
# directories than it watches (the agent makes them at will) it polls
# instead and still imports. Both within a deadline, from one long session.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"

lz_domain "events repo"
git_u() { as_user git -C "$repo" "$@"; }
main=$(git_u rev-parse main)
id='export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=a@example.invalid GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=a@example.invalid'
wait_line() { grep -q "^$1" "$T/long.out"; }

# One long session: it commits, makes 300 ref directories, commits on a
# branch among them, then sleeps on; the test reads its lines.
TO=600 lz run -T -w "$repo" -- sh -c "$id; set -e
	echo one > one.txt && git add one.txt && git commit -qm one && echo \"first \$(git rev-parse HEAD)\"
	i=0; while [ \$i -lt 300 ]; do mkdir -p .git/refs/heads/many/d\$i; i=\$((i+1)); done
	git checkout -q -b many/d7/deep && echo two > two.txt && git add two.txt && git commit -qm two
	echo \"second \$(git rev-parse HEAD)\"
	exec sleep 600" </dev/null >"$T/long.out" 2>&1 &
lz_on_exit "kill $! 2>/dev/null"

wait_for 120 wait_line first || fail "the first commit was not made: $(cat "$T/long.out")"
first=$(awk '/^first/ { print $2 }' "$T/long.out")
imported() { [ "$(git_u rev-parse -q --verify "$1")" = "$2" ]; }
wait_for 10 imported lazaret/agent-default "$first" ||
	fail "the commit of a running session did not reach the host (lazaret/agent-default: $(git_u rev-parse -q --verify lazaret/agent-default))"
note "ok: a commit reaches the host while its session runs on"

wait_for 120 wait_line second || fail "the second commit was not made: $(cat "$T/long.out")"
second=$(awk '/^second/ { print $2 }' "$T/long.out")
wait_for 10 imported refs/heads/lazaret/default/many/d7/deep "$second" ||
	fail "with 300 ref directories the commit did not reach the host"
note "ok: past the watched directories' bound, commits still reach the host"
assert_eq "$(git_u rev-parse main)" "$main" "host main never moved"
lz stop -w "$repo" >/dev/null 2>&1 || true
echo "test-sentry-events: all passed"
