#!/usr/bin/env bash
# bench/net.sh - figures, never assertions: the Network Sidecar's cost, from
# inside the real gVisor sandbox (lazaret-probe):
#   - TCP throughput and new-connection rate to a host-loopback server (slirp's
#     10.0.2.2) through the sidecar's policy, against the same image under runsc
#     on plain slirp4netns without any policy (ratio);
#   - first connect to an allowed domain (the router's DNS learn + connect)
#     against a connect to a plain IP;
#   - cold `lazaret run -- true` with the sidecar against network: none and
#     against a raw `podman run --rm --runtime runsc --network slirp4netns IMG
#     true` (issue 15's goal: <= 1.3x), runs interleaved;
#   - the sidecar binary's size and the router's RSS.
# Servers: host loopback, and a network namespace this script creates (root).
source "$(dirname "$0")/../tests/integ/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "bench/net.sh needs root for its network namespace"
need_stack
need_default_image
MB=${MB:-200} CONNS=${CONNS:-300} RUNS=${RUNS:-5}	# COLD_ONLY=1: the cold starts only
H="python3 $LZ_SRC/tests/integ/net-helper.py"
lz_test_netns 10.214 2 3
P=$((RANDOM % 10000 + 30000))
socat -u TCP-LISTEN:$P,bind=127.0.0.1,reuseaddr,fork OPEN:/dev/null & lz_on_exit "kill $!"
$H serve 127.0.0.1 $((P + 1)) >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
ip netns exec "$SRV" $H serve "$NET.3" 8080 >"$T/srv2.log" 2>&1 & lz_on_exit "kill $!"
: >"$T/dns.log"
ip netns exec "$SRV" $H dns "$NET.2" "$T/dns.log" "*.bench.lztest.internal=$NET.3" >"$T/dnsd.log" 2>&1 &
lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" && wait_for 10 grep -q serving "$T/srv2.log" &&
	wait_for 10 grep -q "dns ready" "$T/dnsd.log" || fail "servers did not start"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<YAML
dns_upstream: $NET.2
allow_egress: ["10.0.2.2:$P,$((P + 1))", "*.bench.lztest.internal:8080", "$NET.3:8080"]
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - {host: $T/bin/lazaret-probe, container: /usr/local/bin/lazaret-probe, mode: ro}
  off:
    image: localhost/lazaret-default:latest
    network: none
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash"
probe() { lz run -T -w "$repo" -- lazaret-probe "$@" </dev/null 2>&1; }
plain() { as_user podman run --rm --runtime runsc --network slirp4netns:allow_host_loopback=true \
	--mount "type=bind,src=$T/bin/lazaret-probe,dst=/p,ro=true" localhost/lazaret-default:latest /p "$@" 2>&1; }
num() { sed -n "s|.*: \([0-9.]*\)${1}.*|\1|p" | tail -1; }
ratio() { python3 -c "print('%.2f' % ($1 / $2))" 2>/dev/null || echo "?"; }

# COLD_ONLY=1: only the cold start figures below.
if [ "${COLD_ONLY:-0}" != 1 ]; then
lz run -T -w "$repo" -- sleep 900 </dev/null >/dev/null 2>&1 & lz_on_exit "kill $!"
wait_for 90 test -S "$sock" || fail "the domain did not start"

echo "-- TCP throughput to host loopback ($MB MB, one connection)"
a=$(probe bench-tcp 10.0.2.2 $P $MB); echo "   sidecar: $a"
b=$(plain bench-tcp 10.0.2.2 $P $MB); echo "   plain slirp4netns: $b"
echo "   ratio sidecar/plain: $(ratio "$(echo "$a" | num " MB/s")" "$(echo "$b" | num " MB/s")")"

echo "-- new connections to host loopback ($CONNS in a row)"
a=$(probe bench-conn 10.0.2.2 $((P + 1)) $CONNS); echo "   sidecar: $a"
b=$(plain bench-conn 10.0.2.2 $((P + 1)) $CONNS); echo "   plain slirp4netns: $b"
echo "   ratio sidecar/plain: $(ratio "$(echo "$a" | num /s)" "$(echo "$b" | num /s)")"

echo "-- first connect: allowed domain (DNS learn + connect) vs plain IP ($RUNS each)"
for i in $(seq "$RUNS"); do
	probe bench-first "r$i-$RANDOM.bench.lztest.internal" 8080 | num " ms"
done | sort -n | awk '{ v[NR] = $1 } END { printf "   domain: median %.2f ms (min %.2f, max %.2f)\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
for i in $(seq "$RUNS"); do
	probe bench-first "$NET.3" 8080 | num " ms"
done | sort -n | awk '{ v[NR] = $1 } END { printf "   plain IP: median %.2f ms (min %.2f, max %.2f)\n", v[int((NR + 1) / 2)], v[1], v[NR] }'

echo "-- router: binary and memory"
rh=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk '$2 == "/lazaret-sidecar" { print $1; exit }')
echo "   lazaret-sidecar: $(stat -c %s "$T/bin/lazaret-sidecar") bytes as built; image $(as_user podman image ls --format '{{.Size}}' localhost/lazaret-sidecar | head -1)"
[ -n "$rh" ] && echo "   router RSS: $(awk '/VmRSS/ { print $2, $3 }' /proc/$rh/status)"
lz stop -w "$repo" >/dev/null 2>&1 || true
wait_for 60 sh -c "! test -S $sock" || true
fi


echo "-- cold lazaret run -- true: sidecar vs network: none vs raw podman run with slirp4netns ($RUNS each, interleaved)"
ms() { # command...: its wall time in ms
	local t0 t1
	t0=$(date +%s%N); "$@" </dev/null >/dev/null 2>&1; t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
cold1() { # profile: one cold start, the domain down before and after
	local h
	h=$(printf '%s' "$1:$canon" | sha256sum | cut -c1-12)
	lz stop -p "$1" -w "$repo" >/dev/null 2>&1 || true
	wait_for 60 sh -c "! test -S $LZ_RUNDIR/lazaret/$h.ctl" || true
	ms lz run -T -p "$1" -w "$repo" -- true
}
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
lz_on_exit "as_user podman rm -f -t0 lazaret-off-$(printf '%s' "off:$canon" | sha256sum | cut -c1-12)"
lz_on_exit "lz stop -p off -w '$repo'"
: >"$T/cold.s"; : >"$T/cold.o"; : >"$T/cold.r"
for i in $(seq "$RUNS"); do
	cold1 default >>"$T/cold.s"
	cold1 off >>"$T/cold.o"
	ms as_user podman run --rm --runtime runsc --network slirp4netns localhost/lazaret-default:latest true >>"$T/cold.r"
done
s=$(med <"$T/cold.s"); o=$(med <"$T/cold.o"); r=$(med <"$T/cold.r")
echo "   with sidecar: median $s ms; network none: median $o ms; ratio $(ratio "$s" "$o")"
echo "   raw podman run --rm --runtime runsc --network slirp4netns IMG true: median $r ms"
echo "   cold with sidecar / raw slirp4netns podman run: $(ratio "$s" "$r")x (goal <= 1.0x)"
echo "   (load: $(cut -d' ' -f1-3 /proc/loadavg))"
