#!/usr/bin/env bash
# bench/idle.sh - figures, never assertions: what one idle domain costs the
# host, against a raw idle runsc container. A domain with the Network
# Sidecar (one allow_egress entry) runs a command, then its session sleeps;
# beside it `podman run -d --runtime runsc --network slirp4netns IMG sleep`.
# Over WINDOW seconds (default 60), both measured at once: memory (PSS),
# CPU time and wake-ups of each process (bench/proc-cost.py; the domain's:
# coordinator, guard, overlays, router, session, sandbox, sidecar).
# Runs as the test user of tests/integ/lib.sh.
source "$(dirname "$0")/../tests/integ/lib.sh"
source "$(dirname "$0")/cost.lib"
need_stack
need_default_image
WINDOW=${WINDOW:-60}
IMG=localhost/lazaret-default:latest
lz_domain idle
lz_config <<YAML
allow_egress: ["10.0.2.2:9"]
profiles:
  default:
    image: $IMG
YAML
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash"
raw=lzbench-idle-$$
lz_on_exit "as_user podman rm -f -t0 $raw"
TO=$((WINDOW + 600)) lz run -T -w "$repo" -- sh -c 'true; echo ready; exec sleep 3600' </dev/null >"$T/run.out" 2>&1 &
as_user podman run -d --name "$raw" --runtime runsc --network slirp4netns "$IMG" sleep 3600 >/dev/null ||
	fail "the raw container did not start"
wait_for 300 grep -q ready "$T/run.out" || fail "the domain did not start: $(cat "$T/run.out")"
# let both settle: the start's own work (threadpool jobs, first scans) is not idle
wait_for 30 sh -c 'sleep 5'
cost_domain_roots domain "$canon" "$hash" >"$T/roots.dom"
cost_raw_roots raw "$raw" >"$T/roots.raw"
python3 "$LZ_SRC/bench/proc-cost.py" --window "$WINDOW" --rows <"$T/roots.dom" >"$T/cost.dom" & pc=$!
python3 "$LZ_SRC/bench/proc-cost.py" --window "$WINDOW" --rows <"$T/roots.raw" >"$T/cost.raw"
wait $pc
echo "== one idle domain (sidecar on, a session sleeping), over $WINDOW s"
cat "$T/cost.dom"
echo "== one raw idle container (podman run -d --runtime runsc --network slirp4netns IMG sleep)"
cat "$T/cost.raw"
d=$(awk '$1 == "total" { print $2 }' "$T/cost.dom") r=$(awk '$1 == "total" { print $2 }' "$T/cost.raw")
echo "PSS domain / raw: $(python3 -c "print('%.2f' % ($d / $r))")x ($d / $r MiB)"
echo "(load: $(cut -d' ' -f1-3 /proc/loadavg))"
lz stop -w "$repo" >/dev/null 2>&1 || true
