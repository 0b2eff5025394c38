#!/usr/bin/env bash
# bench/scale.sh - scale figures (never assertions; `make bench-scale`, not
# part of `make bench`: it starts 20 sandboxes):
#   - NS sandboxes (default 20) on NS workspaces started at once, each a
#     `lazaret run -- sleep`: all up? wall time until the last one runs a
#     session; RSS of the coordinators (one per domain), sum and largest;
#   - NC CLIs (default 50) attached to one domain at once, each a
#     `lazaret run -- sh -c 'echo ok-N; sleep'`: how many saw their line,
#     wall time, that coordinator's RSS with all of them attached;
#   - NW writers (default 8) appending audit rows through the coordinator at
#     once: each a loop of auto-approved `lazaret-escalate -- true` in the
#     sandbox (3 rows each: request, decision, result); rows/s.
# Runs as the test user of tests/integ/lib.sh.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
need_stack
need_default_image
NS=${NS:-20} NC=${NC:-50} NW=${NW:-8} NE=${NE:-25}
[ -x "$T/bin/lazaret-escalate" ] || fail "lazaret-escalate not built"
now_ms() { date +%s%3N; }
# RSS (kB) of the coordinator of workspace $1
coord_rss() {
	local pid
	pid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= |
		awk -v m="coordinator --profile default --workspace $(realpath "$1") --mode" 'index($0, m) { print $1; exit }')
	[ -n "$pid" ] && awk '/VmRSS/ { print $2 }' "/proc/$pid/status" || echo 0
}
sessions() { lz status -w "$1" 2>/dev/null | awk '/^sessions:/ { print $2 }'; }
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nescalation:\n  auto_approve: ["true"]\n' \
	>"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"

# --- NS sandboxes at once
repos=()
for i in $(seq 1 "$NS"); do
	lz_domain "ws$i"
	repos+=("$repo")
done
t0=$(now_ms)
for r in "${repos[@]}"; do
	TO=600 lz run -T -w "$r" -- sleep 600 </dev/null >/dev/null 2>"$T/err.$(basename "$r")" &
done
up=0
deadline=$((SECONDS + 300))
while [ "$up" -lt "$NS" ] && [ $SECONDS -lt $deadline ]; do
	up=0
	for r in "${repos[@]}"; do [ "$(sessions "$r")" = 1 ] && up=$((up + 1)); done
	[ "$up" -lt "$NS" ] && sleep 0.2
done
t1=$(now_ms)
sum=0 max=0
for r in "${repos[@]}"; do
	k=$(coord_rss "$r"); sum=$((sum + k)); [ "$k" -gt "$max" ] && max=$k
done
echo "scale: $NS sandboxes on $NS workspaces started at once"
echo "  running a session: $up of $NS, the last after $(((t1 - t0))) ms"
echo "  coordinators' RSS: $((sum / 1024)) MiB in all, largest $((max / 1024)) MiB"
for r in "${repos[@]}"; do lz stop -w "$r" >/dev/null 2>&1 & done
wait || true

# --- NC CLIs attached to one domain
lz_domain cli
TO=600 lz run -T -w "$repo" -- sleep 600 </dev/null >/dev/null 2>&1 &
wait_for 120 sh -c "[ \"\$($(as_user_line lazaret status -w "$repo") 2>/dev/null | awk '/^sessions:/ { print \$2 }')\" = 1 ]" ||
	fail "the first session did not start"
t0=$(now_ms)
for i in $(seq 1 "$NC"); do
	TO=600 lz run -T -w "$repo" -- sh -c "echo ok-$i; sleep 20" </dev/null >"$T/cli.$i" 2>&1 &
done
n=0
deadline=$((SECONDS + 300))
while [ "$n" -lt "$NC" ] && [ $SECONDS -lt $deadline ]; do
	n=$(cat "$T"/cli.* 2>/dev/null | grep -c '^ok-' || true)
	[ "$n" -lt "$NC" ] && sleep 0.2
done
t1=$(now_ms)
echo "scale: $NC CLIs attached to one domain at once"
echo "  printed their line: $n of $NC, the last after $((t1 - t0)) ms; sessions live: $(sessions "$repo")"
echo "  coordinator RSS with them attached: $(($(coord_rss "$repo") / 1024)) MiB"
wait_for 120 sh -c "[ \"\$($(as_user_line lazaret status -w "$repo") 2>/dev/null | awk '/^sessions:/ { print \$2 }')\" = 1 ]" || true

# --- NW audit writers through the coordinator
rows() { lz audit -w "$repo" --json 2>/dev/null | wc -l; }
r0=$(rows)
# timed inside the sandbox: the writers only, not the session's start
TO=900 lz run -T -w "$repo" -- sh -c "t0=\$(date +%s%N); j=0; while [ \$j -lt $NW ]; do
	(i=0; while [ \$i -lt $NE ]; do lazaret-escalate -- true >/dev/null || echo FAILED; i=\$((i+1)); done) &
	j=\$((j+1)); done; wait; echo ELAPSED \$(((\$(date +%s%N) - t0) / 1000000))" >"$T/esc.out" 2>&1
t0=0 t1=$(awk '/^ELAPSED/ { print $2 }' "$T/esc.out")
[ -n "$t1" ] && [ "$t1" -gt 0 ] || fail "the writers did not run: $(cat "$T/esc.out")"
r1=$(rows)
echo "scale: $NW writers at once, $NE auto-approved escalations each (3 audit rows each)"
echo "  rows appended (writers and the session): $((r1 - r0)) in $((t1 - t0)) ms: $(((r1 - r0) * 1000 / (t1 - t0))) rows/s;" \
	"failed escalations: $(grep -c FAILED "$T/esc.out" || true)"
lz stop -w "$repo" >/dev/null 2>&1 || true
wait || true
