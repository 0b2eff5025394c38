#!/usr/bin/env bash
# bench/run-bench.sh - figures for `lazaret run -- true` (never assertions):
# cold (no coordinator: lock, spawn, worktree, container, socket, exec,
# teardown not counted) and warm (a session is live in another terminal),
# against raw `podman run --rm --runtime runsc --network none IMG true` and
# raw `podman exec CTR true`, as medians and ratios. Runs as the test user
# of tests/integ/lib.sh. RUNS=N pairs (default 10), each ours then raw.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
need_stack
need_default_image
RUNS=${RUNS:-10}
IMG=localhost/lazaret-default:latest

lz_domain bench

RUN_TRUE=$(as_user_line lazaret run -w "$repo" -- true)
RAW_RUN=$(as_user_line podman run --rm --runtime runsc --network none "$IMG" true)
RAW_EXEC=$(as_user_line podman exec "$ctr" true)
# Cold means cold: before each run, the previous coordinator and container are gone.
{
	printf 'until ! ps -u %s -o args= | grep -qF -- %q &&\n' "$LZ_USER" "coordinator --profile default --workspace $canon --mode"
	printf '\t[ -z "$(%s)" ]; do sleep 0.05; done\n' "$(as_user_line podman ps -aq --filter "name=^$ctr\$")"
} >"$T/wait-down.sh"
WAIT_DOWN="bash $T/wait-down.sh"

# One pair at a time, ours then the raw stack's, so that a change of load
# falls on both sides of the ratio (RUNS pairs; hyperfine is not used here).
pairs() { # name ours raw [prepare]
	local name=$1 ours=$2 raw=$3 prep=${4:-true} i t0 t1
	: >"$T/$name.ours"
	: >"$T/$name.raw"
	for i in $(seq 1 "$RUNS"); do
		bash -c "$prep"
		t0=$(date +%s%N); bash -c "$ours" </dev/null >/dev/null 2>&1; t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$T/$name.ours"
		t0=$(date +%s%N); bash -c "$raw" </dev/null >/dev/null 2>&1; t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$T/$name.raw"
	done
}
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

note "cold: lazaret run -- true with no coordinator, and raw podman run --rm --runtime runsc --network none IMG true, interleaved ($RUNS pairs)"
pairs cold "$RUN_TRUE" "$RAW_RUN" "$WAIT_DOWN"
cold=$(med "$T/cold.ours")
raw_run=$(med "$T/cold.raw")

lz run -w "$repo" -- sleep 3600 </dev/null >/dev/null 2>&1 &
wait_for 60 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start"
note "warm: lazaret run -- true next to a live session, and raw podman exec CTR true, interleaved"
pairs warm "$RUN_TRUE" "$RAW_EXEC"
warm=$(med "$T/warm.ours")
raw_exec=$(med "$T/warm.raw")
lz stop -w "$repo" >/dev/null
wait || true

ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
printf '%-48s %8s\n' "median wall time ($RUNS interleaved pairs)" "ms"
printf '%-48s %8s\n' "lazaret run -- true, cold" "$cold"
printf '%-48s %8s\n' "podman run --rm --runtime runsc --network none" "$raw_run"
printf '%-48s %8s\n' "lazaret run -- true, warm" "$warm"
printf '%-48s %8s\n' "podman exec CTR true" "$raw_exec"
echo "cold / podman run:  $(ratio "$cold" "$raw_run")x"
echo "warm / podman exec: $(ratio "$warm" "$raw_exec")x"
echo "($(uptime | sed 's/.*load/load/'))"
