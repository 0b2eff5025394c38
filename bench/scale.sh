#!/usr/bin/env bash
# bench/scale.sh - scale figures (never assertions; `make bench-scale`, not
# part of `make bench`: it starts 40 sandboxes):
#   - NS domains (default 20) on NS workspaces, the Network Sidecar on (one
#     allow_egress entry), started at once, each runs a command then idles
#     (its session sleeps): all up? time until the last is ready, against NS
#     raw `podman run -d --runtime runsc --network slirp4netns IMG sleep`
#     started the same way (ratio); then, all idle together for WINDOW s
#     (default 60): host memory (PSS), CPU and wake-ups per idle domain and
#     per raw container, process by process (bench/proc-cost.py);
#   - NC CLIs (default 50) attached to one domain at once, each a
#     `lazaret run -- sh -c 'echo ok-N; sleep'`: how many saw their line,
#     wall time, that coordinator's RSS with all of them attached;
#   - NW writers (default 8) appending audit rows through the coordinator at
#     once: each a loop of auto-approved `lazaret-escalate -- true` in the
#     sandbox (3 rows each: request, decision, result); rows/s.
# Runs as the test user of tests/integ/lib.sh.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
source "$(dirname "$0")/cost.lib"
need_stack
need_default_image
NS=${NS:-20} NC=${NC:-50} NW=${NW:-8} NE=${NE:-25} WINDOW=${WINDOW:-60}
IMG=localhost/lazaret-default:latest
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
printf 'allow_egress: ["10.0.2.2:9"]\nprofiles:\n  default:\n    image: %s\nescalation:\n  auto_approve: ["true"]\n' \
	"$IMG" >"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# --- NS raw containers at once (the reference), left idle
raws=()
for i in $(seq 1 "$NS"); do raws+=("lzbench-raw-$$-$i"); lz_on_exit "as_user podman rm -f -t0 lzbench-raw-$$-$i"; done
l0=$(load); t0=$(now_ms)
for n in "${raws[@]}"; do
	as_user podman run -d --name "$n" --runtime runsc --network slirp4netns "$IMG" sleep 3600 >/dev/null 2>"$T/raw.$n" &
done
wait
t1=$(now_ms)
rawup=0
for n in "${raws[@]}"; do [ "$(as_user podman inspect -f '{{.State.Running}}' "$n" 2>/dev/null)" = true ] && rawup=$((rawup + 1)); done
raw_ms=$((t1 - t0))

# --- NS domains at once, each runs a command then idles
repos=() hashes=() canons=()
for i in $(seq 1 "$NS"); do
	lz_domain "ws$i"
	lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash"
	repos+=("$repo") hashes+=("$hash") canons+=("$canon")
done
l1=$(load); t0=$(now_ms)
for k in "${!repos[@]}"; do
	TO=3600 lz run -T -w "${repos[$k]}" -- sh -c 'true; echo ready; exec sleep 3600' </dev/null >"$T/out.$k" 2>&1 &
done
up=0
deadline=$((SECONDS + 600))
while [ "$up" -lt "$NS" ] && [ $SECONDS -lt $deadline ]; do
	up=$(cat "$T"/out.* 2>/dev/null | grep -c '^ready' || true)
	[ "$up" -lt "$NS" ] && sleep 0.1
done
t1=$(now_ms)
ours_ms=$((t1 - t0))
echo "scale: $NS domains (Network Sidecar on) on $NS workspaces started at once, each runs a command then idles"
echo "  ready: $up of $NS, the last after $ours_ms ms (load before: $l1)"
echo "  raw podman run -d --runtime runsc --network slirp4netns, $NS at once: $rawup of $NS running, the last after $raw_ms ms (load before: $l0)"
echo "  ratio: $(python3 -c "print('%.2f' % ($ours_ms / $raw_ms))")x"
sum=0 max=0
for r in "${repos[@]}"; do
	k=$(coord_rss "$r"); sum=$((sum + k)); [ "$k" -gt "$max" ] && max=$k
done
echo "  coordinators' RSS: $((sum / 1024)) MiB in all, largest $((max / 1024)) MiB"
# idle, all of them together: what each costs (PSS shares what they share)
wait_for 30 sh -c 'sleep 5'
: >"$T/roots.dom"; : >"$T/roots.raw"
for k in "${!repos[@]}"; do cost_domain_roots "d$k" "${canons[$k]}" "${hashes[$k]}" >>"$T/roots.dom"; done
for n in "${raws[@]}"; do cost_raw_roots "$n" "$n" >>"$T/roots.raw"; done
python3 "$LZ_SRC/bench/proc-cost.py" --window "$WINDOW" <"$T/roots.dom" >"$T/cost.dom" & pc=$!
python3 "$LZ_SRC/bench/proc-cost.py" --window "$WINDOW" <"$T/roots.raw" >"$T/cost.raw"
wait $pc
echo "  per idle domain (all $NS idle at once, $WINDOW s):"
sed 's/^/    /' "$T/cost.dom"
echo "  per idle raw container (beside them):"
sed 's/^/    /' "$T/cost.raw"
d=$(awk '$1 == "total" { print $2 }' "$T/cost.dom") r=$(awk '$1 == "total" { print $2 }' "$T/cost.raw")
echo "  PSS per domain / per raw container: $(python3 -c "print('%.2f' % ($d / $r))")x ($d / $r MiB; load $(load))"
for r in "${repos[@]}"; do lz stop -w "$r" >/dev/null 2>&1 & done
for n in "${raws[@]}"; do as_user podman rm -f -t0 "$n" >/dev/null 2>&1 & done
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
