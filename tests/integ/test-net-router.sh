#!/usr/bin/env bash
# test-net-router.sh - lazaret-sidecar for real: nftables in a network
# namespace this test creates, linked by a veth pair to a second namespace
# holding the test servers and a test DNS server. No packet leaves these two
# namespaces. Needs root (ip netns); skips otherwise.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${LAZARET_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for ip netns"; exit 77; }
[ -x "$BUILD/lazaret-sidecar" ] || fail "no $BUILD/lazaret-sidecar: run make"
command -v nft >/dev/null || { echo "SKIP: nft missing: run scripts/setup-host"; exit 77; }

NS=lzr$$ SRV=lzs$$
T=$(mktemp -d /tmp/lz-net.XXXXXX)
H="python3 $PWD/tests/integ/net-helper.py"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$SRV" 2>/dev/null || true
	rm -rf "/etc/netns/$NS" "$T"
}
trap cleanup EXIT
in_ns() { timeout -k 2 20 ip netns exec "$NS" "$@"; }
in_srv() { timeout -k 2 20 ip netns exec "$SRV" "$@"; }
# wait_for DESC CMD...: poll a condition for up to 10 s.
wait_for() {
	local desc=$1 i; shift
	for i in $(seq 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	fail "timed out waiting for $desc"
}
# expect WANT HOST PORT [udp]: connect from the router's namespace.
expect() {
	local want=$1 out; shift
	out=$(in_ns $H connect "$@" || true)
	case $out in "$want"*) note "connect $* -> $out" ;; *) fail "connect $*: expected $want, got '$out'" ;; esac
}

# Two namespaces and a veth between them; the server side also plays slirp's
# gateway (10.0.2.2), a metadata address and a second host.
ip netns add "$NS"; ip netns add "$SRV"
ip link add "vr$$" netns "$NS" type veth peer name "vs$$" netns "$SRV"
ip -n "$NS" link set lo up; ip -n "$SRV" link set lo up
ip -n "$NS" addr add 10.199.0.1/24 dev "vr$$"
ip -n "$NS" addr add 10.0.2.100/24 dev "vr$$"
ip -n "$NS" addr add 169.254.1.1/16 dev "vr$$"
ip -n "$NS" addr add fd99::1/64 dev "vr$$" nodad
for a in 10.199.0.2 10.199.0.3 10.199.0.4 10.199.0.5 10.199.0.6 10.199.0.7; do
	ip -n "$SRV" addr add $a/24 dev "vs$$"
done
ip -n "$SRV" addr add 10.0.2.2/24 dev "vs$$"
ip -n "$SRV" addr add 169.254.169.254/16 dev "vs$$"
ip -n "$SRV" addr add fd99::2/64 dev "vs$$" nodad
ip -n "$SRV" addr add fd99::3/64 dev "vs$$" nodad
ip -n "$NS" link set "vr$$" up; ip -n "$SRV" link set "vs$$" up
mkdir -p "/etc/netns/$NS"
echo "nameserver 127.0.0.1" >"/etc/netns/$NS/resolv.conf"

ip netns exec "$SRV" $H serve 0.0.0.0 8080 8081 9000 9001 >"$T/serve.log" 2>&1 & PIDS+=($!)
ip netns exec "$SRV" $H serve :: 8080 8081 >"$T/serve6.log" 2>&1 & PIDS+=($!)
: >"$T/dns.log"
ip netns exec "$SRV" $H dns 10.199.0.2 "$T/dns.log" \
	a.svc.test=10.199.0.3 exact.test=10.199.0.4 svc.test=10.199.0.3 \
	blocked.test=10.199.0.6 cname.svc.test=cname:edge.cdn.test edge.cdn.test=10.199.0.5 \
	short.svc.test=10.199.0.7/1 rebind.svc.test=10.0.2.2 v6.svc.test=fd99::3 \
	seq.cdn.test=10.199.0.5 seqno.cdn.test=10.199.0.5 \
	>"$T/dnsd.log" 2>&1 & PIDS+=($!)
wait_for "test servers" grep -q serving "$T/serve.log"
wait_for "IPv6 test servers" grep -q serving "$T/serve6.log"
wait_for "test DNS server" grep -q "dns ready" "$T/dnsd.log"

CTL=$T/ctl.sock
start_router() {
	ip netns exec "$NS" "$BUILD/lazaret-sidecar" --ctl "$CTL" --upstream 10.199.0.2 \
		--ttl-floor 2 --allow 10.199.0.2:8080,9000 --allow '*.svc.test:8080' \
		--allow exact.test:8080 --allow '[fd99::2]:8080' \
		>>"$T/router.log" 2>&1 &
	ROUTER=$!; PIDS+=($ROUTER)
	wait_for "the router's control socket" test -S "$CTL"
}
start_router
in_ns nft list table inet lazaret >"$T/rules" || fail "no table inet lazaret"
grep -q "policy drop" "$T/rules" || fail "the output chain does not drop by default"

note "CIDR:port entries, TCP and UDP, IPv4 and IPv6"
expect ok:hello-8080 10.199.0.2 8080
expect refused 10.199.0.2 8081
expect refused 10.199.0.3 8080
expect ok:hello-9000 10.199.0.2 9000 udp
expect blocked 10.199.0.2 9001 udp
expect ok:hello-8080 fd99::2 8080
expect refused fd99::2 8081

note "domain names: learned before the answer, first connect works"
expect refused 10.199.0.4 8080
expect ok:hello-8080 exact.test 8080
expect refused exact.test 8081
expect ok:hello-8080 a.svc.test 8080
expect ok:hello-8080 cname.svc.test 8080
out=$(in_ns $H resolve v6.svc.test) || fail "v6.svc.test did not resolve: $out"
expect ok:hello-8080 fd99::3 8080

note "names outside the policy: refused locally, never forwarded"
out=$(in_ns $H resolve blocked.test || true)
case $out in error:*) ;; *) fail "blocked.test resolved: $out" ;; esac
out=$(in_ns $H resolve svc.test || true)
case $out in error:*) ;; *) fail "svc.test (the wildcard's apex) resolved: $out" ;; esac
expect refused 10.199.0.6 8080
grep -qx blocked.test "$T/dns.log" && fail "the test DNS server saw blocked.test (DNS leak)"
grep -qx svc.test "$T/dns.log" && fail "the test DNS server saw svc.test (DNS leak)"
grep -qx a.svc.test "$T/dns.log" || fail "a.svc.test never reached the test DNS server"
note "only the question leaves: records and bytes after it stay in the namespace (issue 24)"
out=$(in_ns $H dnsextra exact.test lzsecret) || fail "a query with extra records: $out"
[ "$out" = "answer rcode=0 an=1" ] || fail "a query with extra records was answered: $out"
out=$($H dnsonly "$T/dns.log.raw" exact.test) || fail "the upstream saw more than the question: $out"
grep -q "$(printf lzsecret | od -An -tx1 | tr -d ' \n')" "$T/dns.log.raw" && fail "the secret reached the upstream resolver"
note "the resolver itself is not reachable from the namespace"
out=$(in_ns $H rawdns 10.199.0.2 blocked.test || true)
[ "$out" = blocked ] || fail "a direct query to the upstream got: $out"
grep -qx blocked.test "$T/dns.log" && fail "a direct query reached the upstream"

note "guards: a name cannot open the host gateway (DNS rebinding)"
in_ns $H resolve rebind.svc.test >/dev/null || true
expect refused 10.0.2.2 8080

note "a learned address stays allowed while a flow to it is live (issue 24)"
rm -f "$T/go7"
in_ns $H connect short.svc.test 8080 --hold "$T/go7" >"$T/held7" 2>&1 & H7=$!
wait_for "the held connection to short.svc.test" grep -q connected "$T/held7"
t0=$(date +%s)
wait_for "twice its TTL and floor to pass" sh -c "[ \$(date +%s) -ge $((t0 + 5)) ]"
in_ns nft list set inet lazaret d4p | grep -q 10.199.0.7 || fail "10.199.0.7 expired while a flow to it was live"
expect ok:hello-8080 10.199.0.7 8080
touch "$T/go7"; wait $H7 || true
# ok: (the test server stops waiting for the ping after 5 s; the flow was not cut)
grep -q "^ok:" "$T/held7" || fail "the held flow: $(cat "$T/held7")"
note "TTL expiry removes the address once no flow is live (TTL 1 s, floor 2 s)"
expect ok:hello-8080 short.svc.test 8080
in_ns nft list set inet lazaret d4p | grep -q 10.199.0.7 || fail "10.199.0.7 not in set d4p"
t0=$SECONDS
wait_for "10.199.0.7 to expire" sh -c "! ip netns exec $NS nft list set inet lazaret d4p | grep -q 10.199.0.7"
note "expired after $((SECONDS - t0)) s"
expect refused 10.199.0.7 8080

note "run-time changes on the control socket; established flows survive"
rm -f "$T/go"
in_ns $H connect 10.199.0.2 8080 --hold "$T/go" >"$T/held" 2>&1 & HELD=$!
wait_for "the held connection" grep -q connected "$T/held"
out=$(in_ns $H ctl "$CTL" add 10.199.0.3:8081) || fail "add: $out"
expect ok:hello-8081 10.199.0.3 8081
out=$(in_ns $H ctl "$CTL" del 10.199.0.2:8080,9000) || fail "del: $out"
expect refused 10.199.0.2 8080
touch "$T/go"; wait $HELD || true
grep -q "ok:hello-8080" "$T/held" || fail "the established flow was cut by a policy change: $(cat "$T/held")"
out=$(in_ns $H ctl "$CTL" del 10.199.0.9 || true)
case $out in "error: '10.199.0.9' is not in the policy"*) ;; *) fail "del of a missing entry: $out" ;; esac
out=$(in_ns $H ctl "$CTL" add 'bad..name' || true)
case $out in error:*) ;; *) fail "a malformed entry was accepted: $out" ;; esac
out=$(in_ns $H ctl "$CTL" raw 4c5a4354010000c8ffffffff || true)
case $out in error:*) ;; *) fail "an oversize frame was not answered with an error: $out" ;; esac
in_ns $H ctl "$CTL" get >"$T/policy"
grep -qx "10.199.0.3/32:8081" "$T/policy" || fail "policy lacks the added entry: $(cat "$T/policy")"
grep -q "10.199.0.2/32" "$T/policy" && fail "policy still has the removed entry"
note "names learned before a change stay allowed when still in policy"
expect ok:hello-8080 10.199.0.3 8080

note "a policy too large for one batch is refused whole; the old one stays"
big=$(python3 -c 'print(" ".join("10.%d.%d.0/24:%s" % (i // 250, i % 250, ",".join(str(p) for p in range(1000, 1016))) for i in range(1024)))')
out=$(in_ns $H ctl "$CTL" set $big || true)
case $out in "error: the policy needs 32768 rules (at most 512)"*) ;; *) fail "a huge policy: $out" ;; esac
kill -0 "$ROUTER" || fail "the router died on a huge policy"
expect ok:hello-8081 10.199.0.3 8081
note "a broad CIDR does not open guarded addresses; listing one exactly does"
in_ns $H ctl "$CTL" set 0.0.0.0/0:8080 >/dev/null || fail "set"
expect ok:hello-8080 10.199.0.6 8080
expect refused 10.0.2.2 8080
expect refused 169.254.169.254 8080
in_ns $H ctl "$CTL" add 10.0.2.2:8080 >/dev/null || fail "add guard"
expect ok:hello-8080 10.0.2.2 8080
expect refused 169.254.169.254 8080

note "flow and DNS events"
in_ns $H ctl "$CTL" events 0 1 >"$T/events" || true
grep -q "^router allow.*rule=start" "$T/events" || fail "no router start event"
grep -q "^flow allow proto=6 addr=10.199.0.2 port=8080 .*rule=10.199.0.2/32:8080,9000" "$T/events" || fail "no allowed-flow event: $(head -50 "$T/events")"
grep -q "^flow deny proto=6 addr=10.199.0.2 port=8081 .*rule=default" "$T/events" || fail "no blocked-flow event"
grep -q "^flow allow proto=6 addr=10.199.0.3 port=8080 name=a.svc.test .*rule=dns" "$T/events" || fail "no learned-flow event with its name"
grep -q "^dns deny proto=1 .*name=blocked.test .*rule=not in policy" "$T/events" || fail "no refused-DNS event"
grep -q "^flow deny proto=6 addr=10.0.2.2 port=8080 .*rule=guard: the host's loopback" "$T/events" || fail "no guard event"

note "hostile DNS answers: no crash, no hang, SERVFAIL, the next query works"
in_ns $H ctl "$CTL" set '*.svc.test:8080' >/dev/null
for n in loop past claims; do
	out=$(in_ns $H resolve $n.svc.test || true)
	case $out in error:*) ;; *) fail "$n.svc.test resolved: $out" ;; esac
done
out=$(in_ns $H resolve many.svc.test) || fail "many.svc.test (4000 records): $out"
kill -0 "$ROUTER" || fail "the router died on a hostile answer"
note "a malformed query from the namespace: dropped, logged, the router serves on"
in_ns python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c\x00\x01\x00\x01", ("127.0.0.1", 53))'
wait_for "the malformed-query event" sh -c "ip netns exec $NS $H ctl $CTL events 0 0.5 | grep -q 'rule=malformed query: question: dns: compression pointer at offset 12 does not point back'"
expect ok:hello-8080 a.svc.test 8080
grep -q "upstream answer rejected" "$T/router.log" || fail "the rejected answers were not reported"

note "router killed: the rules stay (fail closed); a restart restores the policy"
kill -9 "$ROUTER"; wait "$ROUTER" 2>/dev/null || true
in_ns nft list table inet lazaret >/dev/null || fail "the table went away with the router"
expect refused 10.199.0.6 8081
out=$(in_ns $H resolve exact.test || true)
case $out in error:*) ;; *) fail "a name resolved with the router dead: $out" ;; esac
start_router
expect ok:hello-8080 exact.test 8080
expect refused 10.199.0.2 8081
note "asking (issue 13): a new destination is held, and let through or refused by a verdict"
kill "$ROUTER"; wait "$ROUTER" 2>/dev/null || true
ip netns exec "$NS" "$BUILD/lazaret-sidecar" --ctl "$CTL" --upstream 10.199.0.2 \
	--allow 10.199.0.2:8080 --ask-timeout 1500 --ttl-floor 2 >>"$T/router.log" 2>&1 &
ROUTER=$!; PIDS+=($ROUTER)
wait_for "the asking router's control socket" in_ns $H ctl "$CTL" get
in_ns nft list table inet lazaret 2>/dev/null | grep -q "queue num 4242" || fail "no queue rule"
ip netns exec "$NS" $H ctl "$CTL" asks 180 >"$T/asks" 2>&1 & ASKS=$!; PIDS+=($ASKS)
wait_for "the request watcher" grep -q "^summary" "$T/asks"
# ask_id N PATTERN: the id of the N-th request line matching PATTERN
ask_id() { grep "$2" "$T/asks" | sed -n "$1s/^ask id=\([0-9]*\) .*/\1/p"; }
in_ns $H connect 10.199.0.3 9000 >"$T/c1" 2>&1 & C1=$!
wait_for "a request for 10.199.0.3:9000" grep -q "state=pending kind=flow proto=6 addr=10.199.0.3 port=9000" "$T/asks"
id=$(ask_id 1 "addr=10.199.0.3 port=9000")
out=$(in_ns $H ctl "$CTL" verdict "$id" 1) || fail "verdict: $out"
[ "$out" = "ok 1" ] || fail "accept once: $out (expected the held attempt)"
wait "$C1" || true
grep -q "ok:hello-9000" "$T/c1" || fail "the flow approved once did not go through: $(cat "$T/c1")"
note "accept once: the held connection went through"
in_ns $H connect 10.199.0.3 9000 >"$T/c2" 2>&1 & C2=$!
wait_for "a second request for the same destination" sh -c "[ \$(grep -c 'state=pending kind=flow proto=6 addr=10.199.0.3 port=9000' $T/asks) -ge 2 ]"
wait "$C2" || true
grep -qx refused "$T/c2" || fail "an unanswered request was not refused: $(cat "$T/c2")"
grep -q "state=expired .*addr=10.199.0.3 port=9000" "$T/asks" || fail "no expiry reported"
note "once means once: the next connection asked again, and unanswered it was refused"
in_ns $H connect 10.199.0.3 9001 >"$T/c3" 2>&1 & C3=$!
wait_for "a request for 10.199.0.3:9001" grep -q "state=pending .*port=9001" "$T/asks"
id=$(ask_id 1 "port=9001")
out=$(in_ns $H ctl "$CTL" verdict "$id" 3) || fail "deny: $out"
wait "$C3" || true
grep -qx refused "$T/c3" || fail "a denied flow was not refused: $(cat "$T/c3")"
expect refused 10.199.0.3 9001
wait_for "the denied attempt counted" grep -q "denied=1" "$T/asks"
[ "$(grep -c 'port=9001' "$T/asks")" -eq 1 ] || fail "a denied destination was asked about again"
note "deny: refused, and later attempts refused without asking (counted)"
in_ns $H resolve blocked.test >"$T/r1" 2>&1 & R1=$!
wait_for "a request for the name blocked.test" grep -q "state=pending kind=dns .*name=blocked.test" "$T/asks"
grep -qx blocked.test "$T/dns.log" && fail "a held query reached the upstream before a decision"
id=$(ask_id 1 "name=blocked.test")
out=$(in_ns $H ctl "$CTL" verdict "$id" 1 blocked.test:8080) || fail "accept with entry: $out"
wait "$R1" || fail "the approved name did not resolve: $(cat "$T/r1")"
grep -qx 10.199.0.6 "$T/r1" || fail "blocked.test resolved to $(cat "$T/r1")"
expect ok:hello-8080 blocked.test 8080
in_ns $H ctl "$CTL" get | grep -qx blocked.test:8080 || fail "the approved entry is not in the policy"
note "a held query: resolved after the approval added its name to the policy"
out=$(in_ns $H ctl "$CTL" verdict 99999 1 || true)
[ "$out" = "ok 0" ] || fail "a verdict for an unknown request: $out"
out=$(in_ns $H ctl "$CTL" verdict 1 2 10.0.0.1 || true)
case $out in "error: "*"accept only"*) ;; *) fail "refuse with an entry was taken: $out" ;; esac
note "a query approved once: answered; the connection that follows asks under the name"
in_ns $H resolve edge.cdn.test >"$T/r2" 2>&1 & R2=$!
wait_for "a request for edge.cdn.test" grep -q "kind=dns .*name=edge.cdn.test" "$T/asks"
out=$(in_ns $H ctl "$CTL" verdict "$(ask_id 1 "name=edge.cdn.test")" 1) || fail "once: $out"
wait "$R2" || fail "a query approved once did not resolve: $(cat "$T/r2")"
in_ns $H ctl "$CTL" get | grep -q edge.cdn.test && fail "a query approved once changed the policy"
in_ns $H connect 10.199.0.5 8080 >"$T/c5" 2>&1 & C5=$!
wait_for "a request for 10.199.0.5:8080 named edge.cdn.test" grep -q "addr=10.199.0.5 port=8080 name=edge.cdn.test" "$T/asks"
out=$(in_ns $H ctl "$CTL" verdict "$(ask_id 1 "addr=10.199.0.5 port=8080")" 1 edge.cdn.test:8080) || fail "run: $out"
wait "$C5" || true
grep -q "ok:hello-8080" "$T/c5" || fail "the approved flow did not go through: $(cat "$T/c5")"
expect ok:hello-8080 10.199.0.5 8080
note "ok: granting the name let its address (resolved once) through without a new query"
note "the host's own addresses: refused, never asked about, open only when listed exactly (issue 24)"
out=$(in_ns $H ctl "$CTL" hosts 10.199.0.3 fd99::3) || fail "hosts: $out"
in_ns nft list set inet lazaret h4 | grep -q 10.199.0.3 || fail "10.199.0.3 not in set h4"
in_ns $H ctl "$CTL" add '*.svc.test:8080' >/dev/null || fail "add"
expect refused a.svc.test 8080
expect refused 10.199.0.3 8081
in_ns $H ctl "$CTL" events 0 1 >"$T/events2" || true
grep -q "^flow deny proto=6 addr=10.199.0.3 port=8080 .*rule=guard: an address of this host" "$T/events2" ||
	fail "no host-guard event: $(grep 10.199.0.3 "$T/events2")"
grep -q "addr=10.199.0.3 port=808[01] " "$T/asks" && fail "a host address was asked about: $(grep 'addr=10.199.0.3' "$T/asks")"
in_ns $H ctl "$CTL" add 10.199.0.3:8080 >/dev/null || fail "add exact"
expect ok:hello-8080 10.199.0.3 8080
in_ns $H ctl "$CTL" del 10.199.0.3:8080 >/dev/null || fail "del exact"
out=$(in_ns $H ctl "$CTL" hosts 10.199.0.300 || true)
case $out in "error: host address '10.199.0.300' is not"*) ;; *) fail "a bad host address: $out" ;; esac
in_ns nft list set inet lazaret h4 | grep -q 10.199.0.3 || fail "a bad list replaced the guarded addresses"
out=$(in_ns $H ctl "$CTL" hosts) || fail "hosts (none): $out"
expect ok:hello-8080 a.svc.test 8080
note "one lookup (AAAA, A, AAAA): one request, and its verdict covers every type (issue 24)"
# ids N PATTERN: how many distinct requests match
ids() { grep "$1" "$T/asks" | sed 's/^ask id=\([0-9]*\) .*/\1/' | sort -u | wc -l; }
in_ns $H lookup-seq seq.cdn.test >"$T/seq1" 2>&1 & S1=$!
wait_for "a request for seq.cdn.test" grep -q "kind=dns .*name=seq.cdn.test" "$T/asks"
out=$(in_ns $H ctl "$CTL" verdict "$(ask_id 1 "name=seq.cdn.test")" 1) || fail "once: $out"
wait $S1 || true
[ "$(cat "$T/seq1")" = "AAAA rcode=0 A rcode=0 AAAA rcode=0" ] || fail "a lookup approved once: $(cat "$T/seq1")"
[ "$(ids "name=seq.cdn.test ")" -eq 1 ] || fail "$(ids "name=seq.cdn.test ") requests for one lookup: $(grep seq.cdn "$T/asks")"
in_ns $H lookup-seq seqno.cdn.test >"$T/seq2" 2>&1 & S2=$!
wait_for "a request for seqno.cdn.test" grep -q "kind=dns .*name=seqno.cdn.test" "$T/asks"
out=$(in_ns $H ctl "$CTL" verdict "$(ask_id 1 "name=seqno.cdn.test")" 2) || fail "refuse: $out"
wait $S2 || true
[ "$(cat "$T/seq2")" = "AAAA rcode=5 A rcode=5 AAAA rcode=5" ] || fail "a lookup refused: $(cat "$T/seq2")"
[ "$(ids "name=seqno.cdn.test ")" -eq 1 ] || fail "$(ids "name=seqno.cdn.test ") requests for one refused lookup"
note "ok: one request per lookup, approved or refused for all its record types"
note "an address learned from a name and expired: its request names the host (issue 24)"
out=$(in_ns $H resolve short.svc.test) || fail "short.svc.test: $out"
wait_for "10.199.0.7 to expire" sh -c "! ip netns exec $NS nft list set inet lazaret d4p | grep -q 10.199.0.7"
in_ns $H connect 10.199.0.7 8080 >"$T/c7" 2>&1 & C7=$!
wait_for "a request for 10.199.0.7:8080" grep -q "addr=10.199.0.7 port=8080" "$T/asks"
grep -q "addr=10.199.0.7 port=8080 name=short.svc.test " "$T/asks" || fail "the request does not name the host: $(grep 'addr=10.199.0.7' "$T/asks")"
wait $C7 || true
note "a flood of 3000 distinct destinations: at most 256 pending, the rest refused and counted"
in_ns $H connect-many 10.199.0.4 20000 3000 >"$T/flood" || fail "flood: $(cat "$T/flood")"
wait_for "the overflow counted" grep -q "overflow=[1-9]" "$T/asks"
pend=$(grep -c "state=pending kind=flow proto=6 addr=10.199.0.4" "$T/asks" || true)
[ "$pend" -le 256 ] || fail "$pend requests for the flood (at most 256)"
kill -0 "$ROUTER" || fail "the router died in the flood"
expect ok:hello-8080 10.199.0.2 8080
note "flood: $pend requests raised, the rest refused at once; the router serves on"
note "no queue to be had (another router holds it, as a kernel without NFQUEUE would): refused unasked, said"
ip netns exec "$NS" "$BUILD/lazaret-sidecar" --ctl "$T/ctl2.sock" --table lz2 --dns 127.0.0.1:5353 --nflog-group 4243 \
	--upstream 10.199.0.2 --ask-timeout 1000 >"$T/router2.log" 2>&1 & R2P=$!; PIDS+=($R2P)
wait_for "the second router" test -S "$T/ctl2.sock"
grep -q "cannot hold packets here" "$T/router2.log" || fail "no word of the missing queue: $(cat "$T/router2.log")"
grep -q "not asking" "$T/router2.log" || fail "the second router says it asks: $(cat "$T/router2.log")"
in_ns nft list table inet lz2 2>/dev/null | grep -q "queue" && fail "the fallback table still queues"
in_ns nft list table inet lz2 2>/dev/null | grep -q "policy drop" || fail "the fallback table is not default-deny"
kill "$R2P"
note "all router checks passed"
