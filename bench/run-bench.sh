#!/usr/bin/env bash
# bench/run-bench.sh - figures for `lazaret run -- true` (never assertions):
# cold (no coordinator: lock, spawn, worktree, container, socket, exec,
# teardown not counted) and warm (a session is live in another terminal),
# against raw `podman run --rm --runtime runsc --network none IMG true` and
# raw `podman exec CTR true`, as medians and ratios. Runs as the test user
# of tests/integ/lib.sh. RUNS=N (default 10); hyperfine when installed.
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

# median in ms of RUNS runs of $2 (a shell command line), $3 runs before each
median() { # name cmd [prepare]
	local name=$1 cmd=$2 prep=${3:-true} f i t0 t1
	if command -v hyperfine >/dev/null; then
		f=$T/$name.json
		timeout 900 hyperfine -N --style none --runs "$RUNS" --warmup 1 --prepare "$prep" \
			--export-json "$f" "$cmd" >/dev/null 2>&1 ||
		timeout 900 hyperfine --style none --runs "$RUNS" --warmup 1 --prepare "$prep" \
			--export-json "$f" "$cmd" >/dev/null
		python3 -c 'import json,sys; print("%.0f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$f"
		return
	fi
	: >"$T/$name.times"
	for i in $(seq 1 "$RUNS"); do
		$prep
		t0=$(date +%s%N); bash -c "$cmd" >/dev/null; t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$T/$name.times"
	done
	sort -n "$T/$name.times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

note "cold: lazaret run -- true with no coordinator ($RUNS runs)"
cold=$(median cold "$RUN_TRUE" "$WAIT_DOWN")
note "raw: podman run --rm --runtime runsc --network none IMG true"
raw_run=$(median rawrun "$RAW_RUN")

# warm: a session lives in another "terminal" for the whole measurement
lz run -w "$repo" -- sleep 3600 </dev/null >/dev/null 2>&1 &
wait_for 60 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start"
note "warm: lazaret run -- true next to a live session"
warm=$(median warm "$RUN_TRUE")
note "raw: podman exec CTR true"
raw_exec=$(median rawexec "$RAW_EXEC")
lz stop -w "$repo" >/dev/null
wait || true

ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
printf '%-48s %8s\n' "median wall time ($RUNS runs)" "ms"
printf '%-48s %8s\n' "lazaret run -- true, cold" "$cold"
printf '%-48s %8s\n' "podman run --rm --runtime runsc --network none" "$raw_run"
printf '%-48s %8s\n' "lazaret run -- true, warm" "$warm"
printf '%-48s %8s\n' "podman exec CTR true" "$raw_exec"
echo "cold / podman run:  $(ratio "$cold" "$raw_run")x"
echo "warm / podman exec: $(ratio "$warm" "$raw_exec")x"
