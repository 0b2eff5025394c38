#!/usr/bin/env bash
# bench/sentry.sh - figures, never assertions: the Git Sentry's prepare
# (first, reuse: `lazaret debug mounts`), the import of one commit by hand
# (`lazaret debug unmount` on a prepared domain: final import + quarantine
# walk), and the latency the user sees: from the agent's `git commit` inside
# a running sandbox to the commit on the host's lazaret/agent-default (the
# coordinator's poll + verified fetch). N commits (default 10); medians in ms.
# Real stack: runs through tests/integ/lib.sh (the test user, scratch domains).
source "$(dirname "$0")/../tests/integ/lib.sh"
source "$(dirname "$0")/../tests/integ/lib-sentry.sh"
N=${N:-10}
sx_begin

ms() { date +%s%3N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Prepare (no State Anchor overlays), first and reuse, and release, on a
# one-file repository and on one of 2000 files.
for files in 1 2000; do
	repo=$(make_repo "bench repo $files")
	[ "$files" = 1 ] || as_user sh -c "cd '$repo' && mkdir -p src &&
		for i in \$(seq $files); do echo \$i > src/f\$i; done && git add -A && git commit -qm files"
	t0=$(ms); as_user lazaret debug mounts --no-overlay --workspace "$repo" >/dev/null 2>&1; t1=$(ms)
	first=$((t1 - t0))
	for i in $(seq 5); do
		t0=$(ms); as_user lazaret debug mounts --no-overlay --workspace "$repo" >/dev/null 2>&1; t1=$(ms)
		echo $((t1 - t0))
	done >"$T/reuse"
	for i in $(seq 5); do
		t0=$(ms); as_user lazaret debug unmount --workspace "$repo" >/dev/null 2>&1; t1=$(ms)
		echo $((t1 - t0))
	done >"$T/release"
	echo "sentry prepare, $files-file repo: first ${first} ms, reuse $(median <"$T/reuse") ms;" \
		"release (final import + quarantine walk) $(median <"$T/release") ms (medians of 5)"
done

# Commit in the sandbox -> on the host, through the coordinator.
lz_domain "latency repo"
lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
has_ctr() { as_user podman container exists "$ctr"; }
wait_for 60 has_ctr || fail "the sandbox did not start"
for i in $(seq "$N"); do
	t0=$(ms)
	tip=$(as_user podman exec "$ctr" sh -c "cd /workspace && echo $i >> n && git add n &&
		git -c user.name=b -c user.email=b@example.invalid commit -qm c$i && git rev-parse HEAD")
	seen() { [ "$(as_user git -C "$repo" rev-parse -q --verify lazaret/agent-default)" = "$tip" ]; }
	t1=$(ms)
	wait_for 10 seen || fail "commit $i not imported in 10 s"
	t2=$(ms)
	echo "$((t2 - t0)) $((t1 - t0))"
done >"$T/lat"
echo "agent commit -> host lazaret/agent-default: $(cut -d' ' -f1 <"$T/lat" | median) ms median of $N" \
	"(of which podman exec + git commit: $(cut -d' ' -f2 <"$T/lat" | median) ms)"
