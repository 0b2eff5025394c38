#!/usr/bin/env bash
# bench/host-branches.sh - figures, never assertions (issue 30): what the
# host's branches, shown live inside as refs/remotes/host/* (a read-only
# mount of one ref file each), cost the agent. For a repository with 1 and
# with BRANCHES (default 1000) host branches: the agent's `git status`
# (R runs in one session, timed inside the sandbox, median in ms; the ratio
# to 1 branch is the figure issue 30 asks about: at most 1.2x), `git
# for-each-ref refs/remotes/host` inside, and the latency from a host commit
# to host/main inside (a loop inside watching for it).
# Real stack: runs through tests/integ/lib.sh (the test user, scratch domains).
source "$(dirname "$0")/../tests/integ/lib.sh"
source "$(dirname "$0")/../tests/integ/lib-sentry.sh"
BRANCHES=${BRANCHES:-1000}
R=${R:-40}
sx_begin

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# In the sandbox: R timed runs of "$1", one ms figure a line.
inside_times() {
	lz run -T -w "$repo" -- sh -c 'for i in $(seq '"$R"'); do t0=$(date +%s%N); '"$1"' >/dev/null;
		t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )); done' </dev/null
}

declare -A status_us
for n in 1 "$BRANCHES"; do
	lz_domain "branches $n"
	as_user sh -c "cd '$repo' && mkdir -p src && for i in \$(seq 300); do echo \$i > src/f\$i; done &&
		git add -A && git commit -qm files"
	[ "$n" = 1 ] || as_user sh -c "cd '$repo' && for i in \$(seq $n); do
		git branch topic/b\$i; done"
	lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
	keep=$!
	has_ctr() { as_user podman container exists "$ctr"; }
	wait_for 60 has_ctr || fail "the sandbox did not start"
	seen_n=$(lz run -T -w "$repo" -- sh -c 'git for-each-ref refs/remotes/host | wc -l' </dev/null)
	st=$(inside_times "git status" | median)
	fe=$(inside_times "git for-each-ref refs/remotes/host" | median)
	status_us[$n]=$st
	# Host commit -> host/main inside, 5 times.
	for k in 1 2 3 4 5; do
		rm -f "$T/seen"
		lz run -w "$repo" -- sh -c 'old=$(git rev-parse host/main); echo ready > /tmp/ready'$k'
			while [ "$(git rev-parse host/main)" = "$old" ]; do sleep 0.01; done; date +%s%N' \
			</dev/null >"$T/seen" 2>/dev/null &
		w=$!
		ready() { lz run -T -w "$repo" -- test -f /tmp/ready$k </dev/null >/dev/null 2>&1; }
		wait_for 60 ready || fail "the watcher inside did not start"
		as_user sh -c "cd '$repo' && echo $k >> n && git add n && git commit -qm c$k"
		t1=$(date +%s%N)
		wait "$w"
		echo $(( ($(cat "$T/seen") - t1) / 1000000 ))
	done >"$T/lat"
	echo "$n host branches ($seen_n seen inside): git status ${st} us, for-each-ref refs/remotes/host ${fe} us" \
		"(medians of $R inside one session); host commit -> host/main inside $(median <"$T/lat") ms (median of 5)"
	kill "$keep" 2>/dev/null || true
	lz stop -w "$repo" >/dev/null 2>&1 || true
done
awk -v a="${status_us[1]}" -v b="${status_us[$BRANCHES]}" -v n="$BRANCHES" \
	'BEGIN { printf "git status with %d host branches / with 1: %.2fx (issue 30: at most 1.2x)\n", n, b / a }'
