#!/usr/bin/env bash
# bench/broker.sh - figures, never assertions: the credential broker's cost.
#   - requests per second and p50/p99 latency of N requests (a new connection
#     each, as the broker makes upstream) through the broker from inside the
#     real gVisor sandbox, against the same curl talking TLS straight to the
#     test upstream from the host; the ratio, same run;
#   - time to first byte of a streamed response, both ways;
#   - the router's RSS idle and with 10 concurrent streams held open.
# The upstream: tests/integ/broker-upstream.py with the test's own CA, in a
# network namespace this script creates (root).
source "$(dirname "$0")/../tests/integ/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "bench/broker.sh needs root for its network namespace"
need_stack
REQS=${REQS:-200}
img=$(TO=900 lz image build --kit claude 2>/dev/null | tail -1) || fail "kit image (curl) did not build"
lz_test_netns 10.216 2
KEY="sk-bench-$(openssl rand -hex 16)"
lz_test_ca "$T" "$NET.2"
: >"$T/up.log"
GIT_ROOT=$T ip netns exec "$SRV" python3 "$LZ_SRC/tests/integ/broker-upstream.py" "$NET.2" 8443 \
	"$T/srv.pem" "$T/srv.key" "$T/up.log" "$KEY" >"$T/up.out" 2>&1 & lz_on_exit "kill $!"
wait_for 30 grep -q serving "$T/up.out" || fail "upstream did not start"
lz_domain ws bench
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  bench:
    image: $img
    network: sidecar
    credentials:
      - {name: bench, from: "env:LZ_BENCH_KEY", upstream: "https://$NET.2:8443", header: x-api-key,
         ca_file: $T/ca.pem, base_env: BASE}
YAML
LZ_ENV=(LZ_BENCH_KEY="$KEY")
lz run -T -w "$repo" -p bench -- sleep 900 </dev/null >"$T/hold.log" 2>&1 & lz_on_exit "kill $!"
wait_for 120 sh -c "$(as_user_line lazaret status -p bench -w "$repo") | grep -q 'router up'" ||
	fail "the domain did not start"

# one curl process, N URLs, a new connection each: seconds per request
urls() { local i; for ((i = 0; i < REQS; i++)); do printf -- '-o /dev/null %s ' "$1/v1/messages"; done; }
stats() { sort -n | awk -v tot="$1" '{ a[NR] = $1 } END {
	p50 = a[int(NR * 0.5) + 1]; p99 = a[int(NR * 0.99) + 1 > NR ? NR : int(NR * 0.99) + 1]
	printf "%d requests: %.0f req/s, p50 %.1f ms, p99 %.1f ms\n", NR, NR / tot, p50 * 1000, p99 * 1000 }'; }
t0=$(date +%s.%N)
as_user lazaret run -T -w "$repo" -p bench -- sh -c "curl -s -X POST -d x -H 'Connection: close' \
	-w '%{time_total}\n' $(urls 'http://127.0.0.1:4780')" </dev/null >"$T/via.txt" 2>&1
t1=$(date +%s.%N)
curl -s -X POST -d x -H "x-api-key: $KEY" -H 'Connection: close' --cacert "$T/ca.pem" \
	-w '%{time_total}\n' $(urls "https://$NET.2:8443") >"$T/direct.txt"
ok_via=$(grep -c '"key_ok": true, "sentinel": false' "$T/up.log")
t2=$(date +%s.%N)
via=$(grep -E '^[0-9.]+$' "$T/via.txt" | stats "$(echo "$t1 - $t0" | bc)")
direct=$(grep -E '^[0-9.]+$' "$T/direct.txt" | stats "$(echo "$t2 - $t1" | bc)")
echo "through the broker (curl in gVisor, one lazaret run): $via"
echo "straight to the upstream (curl on the host, TLS):     $direct"
echo "the upstream saw the real key on $ok_via of the $((2 * REQS)) requests (both ways)"
p50v=$(grep -E '^[0-9.]+$' "$T/via.txt" | sort -n | awk '{ a[NR] = $1 } END { print a[int(NR / 2) + 1] }')
p50d=$(grep -E '^[0-9.]+$' "$T/direct.txt" | sort -n | awk '{ a[NR] = $1 } END { print a[int(NR / 2) + 1] }')
echo "p50 ratio broker/direct: $(echo "scale=2; $p50v / $p50d" | bc)x, added p50 $(echo "($p50v - $p50d) * 1000" | bc) ms"

# time to first byte of a stream (the upstream sends its first event at once)
ttfb_via=$(as_user lazaret run -T -w "$repo" -p bench -- sh -c "curl -s -N -m 3 -o /dev/null \
	-w '%{time_starttransfer}' http://127.0.0.1:4780/v1/stream" </dev/null 2>/dev/null | grep -oE '^[0-9.]+' || true)
ttfb_dir=$(curl -s -N -m 3 -o /dev/null --cacert "$T/ca.pem" -w '%{time_starttransfer}' \
	"https://$NET.2:8443/v1/stream" 2>/dev/null || true)
echo "time to first byte of a stream: broker $(echo "$ttfb_via * 1000" | bc) ms, direct $(echo "$ttfb_dir * 1000" | bc) ms"

# the router's memory idle and with 10 streams open
rh=$(lz_router_pid "lazaret-net-$hash") || fail "no router"
echo "router RSS idle: $(awk '/^VmRSS/ { print $2 }' "/proc/$rh/status") kB"
as_user lazaret run -T -w "$repo" -p bench -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do
	curl -s -N -m 60 -o /dev/null http://127.0.0.1:4780/v1/stream & done; wait' </dev/null >/dev/null 2>&1 &
S=$!
wait_for 60 sh -c "[ \$(grep -c '/v1/stream' '$T/up.log') -ge 12 ]" || note "not all 10 streams opened"
echo "router RSS with 10 streams open: $(awk '/^VmRSS/ { print $2 }' "/proc/$rh/status") kB, $(ls /proc/$rh/task | wc -l) threads"
curl -s --cacert "$T/ca.pem" "https://$NET.2:8443/v1/ack" >/dev/null
wait $S || true
lz stop -p bench -w "$repo" >/dev/null 2>&1 || true
