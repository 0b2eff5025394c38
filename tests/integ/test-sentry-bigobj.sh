#!/usr/bin/env bash
# test-sentry-bigobj.sh - the agent's objects cost the host bounded work
# (issue 24, item 7): the agent commits a large zero-filled file (it
# deflates to almost nothing) over limits.git_object, on a branch and on its
# main line. The import leaves those refs out with an audit row naming the
# object and the cap, the rest is imported, and the end of the run, the
# teardown and lazaret diff each finish within a bound far below what
# inflating the blob costs (lazaret diff under a 10 s timeout: 16-28 s
# before; the coordinator's log times the import of the first run).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
BIG=${BIG:-400M}
CAP=${CAP-20m}	# CAP= (empty): the default cap, for measuring
sx_begin ${CAP:+"    limits: {git_object: $CAP}"}
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"

lz_domain "git repo"
git_u() { as_user git -C "$repo" "$@"; }
host_tip() { git_u log -1 --format=%s lazaret/agent-default 2>/dev/null || echo none; }
has_ref() { git_u rev-parse -q --verify "$1" >/dev/null; }
stopped() { [ "$(coord_count "$canon")" = 0 ]; }

# Ordinary work on the main line and a topic branch, then the big blob on
# a branch of its own; the run ends once the import is done (item 14).
t0=$SECONDS
TO=${RUN_TO:-120} sx_run_agent "echo small > s.txt && git add s.txt && git commit -qm 'small work' &&
	git checkout -q -b big && head -c $BIG /dev/zero > big.bin && git add big.bin &&
	git commit -qm 'big blob' && git checkout -q lazaret/agent-default" ||
	fail "the agent's commands failed in the sandbox"
note "run with the big blob: $((SECONDS - t0)) s"
wait_for 60 stopped || fail "the coordinator did not stop"
note "run and teardown: $((SECONDS - t0)) s"
# From the session's exit to the import's report: the host's import cost.
find "$T/home/data" -name '*.log' -exec grep -h -e 'exited with status' -e 'import left out' {} + |
	cut -c1-160 | sed 's/^/# log: /'
assert_eq "$(host_tip)" "small work" "the main line's work is imported"
blob=$(head -c $BIG /dev/zero | git hash-object --stdin)
git_u cat-file -e "$blob" 2>/dev/null && fail "the big blob reached the host repository"
note "ok: the big blob is not in the host repository"
out=$(lz audit -w "$repo")
assert_contains "$out" "refs/heads/big" "the ref left out is audited"
assert_contains "$out" "$blob" "the audit row names the object"
assert_contains "$out" "limits.git_object" "and the cap"

# The big blob on the main line, uncommitted in the checkout too: the run,
# its teardown and the review stay bounded.
t0=$SECONDS
TO=${RUN_TO:-120} sx_run_agent "git merge -q big && head -c $BIG /dev/zero > big2.bin" ||
	fail "second run failed"
wait_for 60 stopped || fail "the coordinator did not stop"
note "second run and teardown: $((SECONDS - t0)) s"
assert_eq "$(host_tip)" "small work" "a main line over the cap stays where it was on the host"
git_u cat-file -e "$blob" 2>/dev/null && fail "the big blob reached the host repository"
t0=$SECONDS
out=$(TO=${REVIEW_TO:-10} lz diff -w "$repo" --surface 2>&1) || fail "lazaret diff --surface failed: $out"
note "lazaret diff --surface: $((SECONDS - t0)) s"
t0=$SECONDS
out=$(TO=${REVIEW_TO:-10} lz diff -w "$repo" --stat 2>&1) || fail "lazaret diff --stat failed: $out"
note "lazaret diff --stat: $((SECONDS - t0)) s"
assert_contains "$out" "big2.bin" "the review lists the big file"
git_u fsck --no-progress --no-dangling >/dev/null || fail "host repository not sound"
