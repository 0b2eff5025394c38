#!/usr/bin/env bash
# bench/ask.sh - figures, never assertions: network requests (issue 13), from
# inside the real gVisor sandbox (lazaret-probe) through the real router:
#   - from the agent's connect() to the pending request printed by
#     `lazaret egress --pending --follow --json` in another terminal (and from
#     the router's first sight of the packet, its first_ms, to that line);
#   - connect latency of a destination approved once (approved by this script
#     as soon as it shows: the held path plus one `lazaret egress approve`)
#     against one the policy allows already.
# Servers: a network namespace this script creates (root); nothing else.
source "$(dirname "$0")/../tests/integ/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "bench/ask.sh needs root for its network namespace"
need_stack
need_default_image
RUNS=${RUNS:-7}
H="python3 $LZ_SRC/tests/integ/net-helper.py"
lz_test_netns 10.215 3
ip netns exec "$SRV" $H serve "$NET.3" 8080 8081 >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" || fail "servers did not start"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<YAML
network:
  ask_timeout: 30
allow_egress: ["$NET.3:8080"]
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - {host: $T/bin/lazaret-probe, container: /usr/local/bin/lazaret-probe, mode: ro}
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash"
probe() { lz run -T -w "$repo" -- lazaret-probe "$@" </dev/null 2>&1; }
stats() { # label unit: median, min, max of the numbers on stdin
	sort -n | awk -v l="$1" -v u="$2" '{ v[NR] = $1 } END { if (NR) printf "   %s: median %.1f %s (min %.1f, max %.1f, %d runs)\n", l, v[int((NR + 1) / 2)], u, v[1], v[NR], NR }'
}

lz run -T -w "$repo" -- sleep 900 </dev/null >/dev/null 2>&1 & lz_on_exit "kill $!"
wait_for 90 test -S "$sock" || fail "the domain did not start"
# The second terminal: every request line stamped with the host's clock on arrival.
as_user lazaret egress -w "$repo" --pending --follow --json 2>/dev/null |
	python3 -u -c 'import sys, time
for l in sys.stdin: print(int(time.time() * 1000), l, end="", flush=True)' >"$T/follow" &
lz_on_exit "kill $! 2>/dev/null"
wait_for 20 test -e "$T/follow" || fail "no follower"

echo "-- from the agent's connect() to the request in lazaret egress --pending --follow ($RUNS runs)"
: >"$T/vis"; : >"$T/router"; : >"$T/once"; : >"$T/cli"
for i in $(seq "$RUNS"); do
	seen=$(grep -c '"state":"pending"' "$T/follow" || true)
	probe bench-held "$NET.3" 8081 >"$T/held" & P=$!
	for k in $(seq 2000); do	# 10 ms polls: the approver reacts like a quick human-less client
		[ "$(grep -c '"state":"pending"' "$T/follow")" -gt "$seen" ] && break
		sleep 0.01
	done
	[ "$(grep -c '"state":"pending"' "$T/follow")" -gt "$seen" ] || fail "no request shown"
	line=$(grep '"state":"pending"' "$T/follow" | tail -1)
	id=$(printf '%s\n' "$line" | sed 's/^[0-9]* {"id":\([0-9]*\),.*/\1/')
	t0=$(date +%s%N)
	lz egress -w "$repo" approve "$id" >/dev/null 2>&1 || fail "approve $id"
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >>"$T/cli"
	wait $P || true
	start=$(sed -n 's/.*: start \([0-9]*\)$/\1/p' "$T/held")
	arrived=${line%% *}
	first=$(printf '%s\n' "$line" | sed 's/.*"first_ms":\([0-9]*\),.*/\1/')
	[ -n "$start" ] && echo $((arrived - start)) >>"$T/vis"
	echo $((arrived - first)) >>"$T/router"
	sed -n 's/.*connected after \([0-9.]*\) ms$/\1/p' "$T/held" >>"$T/once"
done
stats "connect() to the line printed" ms <"$T/vis"
stats "router's first sight to the line printed" ms <"$T/router"
stats "lazaret egress approve (process start to exit)" ms <"$T/cli"

echo "-- connect latency: approved once (as soon as shown) vs allowed by the policy"
stats "approved once" ms <"$T/once"
for i in $(seq "$RUNS"); do
	probe bench-first "$NET.3" 8080 | sed -n 's/.*: \([0-9.]*\) ms$/\1/p'
done | stats "pre-allowed" ms
