#!/usr/bin/env bash
# test-sentry-runend.sh - when `lazaret run` returns, the agent's work is on
# the host (issue 24, item 14): a commit made in `lazaret run -T -- sh -c
# '... git commit ...'` is on lazaret/agent-default the moment the command
# returns, run after run, both with the coordinator kept up by another
# session (the continuous import) and when the run is the domain's last
# session (teardown); `lazaret diff` then shows it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"

lz_domain "git repo"
git_u() { as_user git -C "$repo" "$@"; }
commit_in_box() { # subject: one commit on the agent's main line, then return
	sx_run_agent "echo '$1' >> work.txt && git add work.txt && git commit -qm '$1'"
}
host_tip() { git_u log -1 --format=%s lazaret/agent-default 2>/dev/null || echo none; }

# Cold: each run is the domain's only session, its end the teardown.
for i in 1 2; do
	commit_in_box "cold $i" || fail "run $i failed"
	assert_eq "$(host_tip)" "cold $i" "cold run $i: the commit is on the host when run returns"
done

# Warm: a session keeps the coordinator up; each run ends while it imports.
lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
has_ctr() { as_user podman container exists "$ctr"; }
wait_for 60 has_ctr || fail "the sandbox did not start"
for i in 1 2 3 4 5 6; do
	commit_in_box "warm $i" || fail "run $i failed"
	assert_eq "$(host_tip)" "warm $i" "warm run $i: the commit is on the host when run returns"
done
out=$(lz diff -w "$repo" --stat 2>&1) || fail "lazaret diff failed: $out"
assert_contains "$out" "work.txt" "lazaret diff right after the run shows the work"

# A review never reads a branch an import is writing: while the import lock
# is held (as an import holds it), lazaret diff waits, then reads.
lockf=$(find "$T/home/data" -path "*/domains/$hash/sentry" -type d)/import.lock
[ -d "$(dirname "$lockf")" ] || fail "no Sentry directory for the domain"
as_user sh -c "exec 9>>'$lockf'; flock -x 9; touch '$T/held'; while [ ! -e '$T/release' ]; do sleep 0.1; done" &
holder=$!
lz_on_exit "touch '$T/release'"
held() { [ -e "$T/held" ]; }
wait_for 10 held || fail "could not take the import lock"
rc=0; TO=3 lz diff -w "$repo" --stat >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 124 "lazaret diff waits while an import holds the lock"
touch "$T/release"; wait "$holder"
out=$(lz diff -w "$repo" --stat 2>&1) || fail "lazaret diff after the import failed: $out"
assert_contains "$out" "work.txt" "lazaret diff reads once the import is done"
