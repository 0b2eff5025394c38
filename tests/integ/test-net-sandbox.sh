#!/usr/bin/env bash
# test-net-sandbox.sh - the Network Sidecar end to end: `lazaret run` on real
# rootless podman, the router in its crun sidecar on slirp4netns, the agent in
# gVisor (runsc network=host) joined to that namespace; every check is made
# from INSIDE the sandbox with lazaret-probe. Traffic goes only to this host's
# loopback (slirp's 10.0.2.2) and to a network namespace this test creates
# (linked to the host by a veth pair), which holds the test servers and the
# test DNS server. Needs root for that namespace.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"
[ -x "$T/bin/lazaret-probe" ] || fail "no lazaret-probe in $LZ_BUILD: run make"
H="python3 $LZ_SRC/tests/integ/net-helper.py"

# --- a namespace of our own, 10.213.N.0/29: .1 the host's end, .2 the DNS
# server and web servers, .3 and .4 two more "hosts" of test names
lz_test_netns 10.213 2 3 4
PL=$((RANDOM % 10000 + 30000))		# host loopback: PL allowed, PL+1 not
PH=$((PL + 20))				# a host service on every host address
ip netns exec "$SRV" $H serve 0.0.0.0 8080 8081 >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
$H serve 127.0.0.1 $PL $((PL + 1)) >"$T/lo.log" 2>&1 & lz_on_exit "kill $!"
$H serve 0.0.0.0 $PH >"$T/host.log" 2>&1 & lz_on_exit "kill $!"
: >"$T/dns.log"
ip netns exec "$SRV" $H dns "$NET.2" "$T/dns.log" \
	allowed.lztest.internal=$NET.3 x.wild.lztest.internal=$NET.4 \
	blocked.lztest.internal=$NET.3 wild.lztest.internal=$NET.4 \
	later.lztest.internal=$NET.4 hostside.lztest.internal=$NET.1 \
	hostlate.lztest.internal=$NET.5 >"$T/dnsd.log" 2>&1 & lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" || fail "test servers did not start"
wait_for 10 grep -q serving "$T/lo.log" || fail "loopback servers did not start"
wait_for 10 grep -q serving "$T/host.log" || fail "the host's test server did not start"
wait_for 10 grep -q "dns ready" "$T/dnsd.log" || fail "test DNS server did not start"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
# network.ask_timeout 0: blocked at once, as before requests existed (the
# asking path is test-net-ask.sh's).
cat >"$T/home/config/lazaret/config.yaml" <<YAML
dns_upstream: $NET.2
network:
  ask_timeout: 0
allow_egress:
  - 10.0.2.2:$PL
  - allowed.lztest.internal:8080
  - "*.wild.lztest.internal:8080"
  - hostside.lztest.internal:$PH
  - hostlate.lztest.internal:$PH
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - host: $T/bin/lazaret-probe
        container: /usr/local/bin/lazaret-probe
        mode: ro
  off:
    image: localhost/lazaret-default:latest
    network: none
    volumes:
      - host: $T/bin/lazaret-probe
        container: /usr/local/bin/lazaret-probe
        mode: ro
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
side=lazaret-net-$hash
lz_on_exit "as_user podman rm -f -t0 $side"
probe() { lz run -T -w "$repo" -- lazaret-probe "$@" </dev/null 2>&1; }
expect() { # what probe-args...
	local want=$1 out; shift
	out=$(probe "$@")
	assert_contains "$out" "$want" "probe $* -> $want"
}

# Hold the domain while the checks run.
lz run -T -w "$repo" -- sleep 600 </dev/null >"$T/hold.log" 2>&1 & HOLD=$!
lz_on_exit "kill $HOLD"
wait_for 90 test -S "$sock" || { cat "$T/hold.log"; fail "the domain did not start"; }
st=$(lz status -w "$repo")
assert_contains "$st" "network:     sidecar $side, router up" "status shows the sidecar up"
assert_contains "$st" "*.wild.lztest.internal:8080" "status shows the policy"
out=$(as_user podman inspect -f '{{.HostConfig.NetworkMode}}' "$ctr")
assert_contains "$out" "container:" "the sandbox joins the sidecar's namespace"
out=$(as_user podman inspect -f '{{.OCIRuntime}}' "$side")
assert_eq "$out" "crun" "the sidecar runs under crun, not gVisor"
out=$(probe owner /etc/resolv.conf; lz run -T -w "$repo" -- cat /etc/resolv.conf </dev/null)
assert_contains "$out" "nameserver 127.0.0.1" "the sandbox's only resolver is the router"

note "host loopback through slirp: listed port only"
expect "connect 10.0.2.2:$PL: ok hello-$PL" connect 10.0.2.2 $PL
expect "connect 10.0.2.2:$((PL + 1)): ECONNREFUSED" connect 10.0.2.2 $((PL + 1))
expect "connect 10.0.2.2:$PL: ok hello-$PL" connect 10.0.2.2 $PL udp
expect "connect 10.0.2.2:$((PL + 1)): EPERM" connect 10.0.2.2 $((PL + 1)) udp
expect "connect 10.0.2.3:53: ECONNREFUSED" connect 10.0.2.3 53
expect "connect $NET.2:53: ECONNREFUSED" connect $NET.2 53

note "domain names: the first connect works; others never leave the namespace"
expect "connect $NET.3:8080: ECONNREFUSED" connect $NET.3 8080
expect "connect allowed.lztest.internal:8080: ok hello-8080" connect allowed.lztest.internal 8080
expect "connect $NET.3:8081: ECONNREFUSED" connect $NET.3 8081
expect "connect x.wild.lztest.internal:8080: ok hello-8080" connect x.wild.lztest.internal 8080
expect "resolve blocked.lztest.internal: REFUSED" resolve blocked.lztest.internal
expect "resolve wild.lztest.internal: REFUSED" resolve wild.lztest.internal
grep -qx blocked.lztest.internal "$T/dns.log" && fail "blocked.lztest.internal reached the DNS server (leak)"
grep -qx wild.lztest.internal "$T/dns.log" && fail "the wildcard's apex reached the DNS server (leak)"
grep -qx allowed.lztest.internal "$T/dns.log" || fail "allowed.lztest.internal never reached the DNS server"
note "ok: the test DNS server saw only allowed names"

note "a name must not open the host: an allowed name answering an address of the host (issue 24)"
expect "connect hostside.lztest.internal:$PH: ECONNREFUSED" connect hostside.lztest.internal $PH
out=$(lz egress -w "$repo" allow "$NET.1:$PH" 2>&1) || fail "egress allow: $out"
expect "connect $NET.1:$PH: ok hello-$PH" connect $NET.1 $PH
out=$(lz egress -w "$repo" deny "$NET.1:$PH" 2>&1) || fail "egress deny: $out"
expect "connect $NET.1:$PH: ECONNREFUSED" connect $NET.1 $PH
note "ok: refused, and open only while an entry lists the address exactly"
spid=$(as_user podman inspect -f '{{.State.Pid}}' "$side")
ip addr add "$NET.5/29" dev "$VH"
wait_for 20 sh -c "timeout 10 nsenter -t $spid -n nft list set inet lazaret h4 | grep -q '$NET.5'" ||
	fail "an address added to the host was not guarded: $(timeout 10 nsenter -t $spid -n nft list set inet lazaret h4 2>&1)"
expect "connect hostlate.lztest.internal:$PH: ECONNREFUSED" connect hostlate.lztest.internal $PH
note "ok: an address the host gains while the domain runs is guarded too"

note "run-time changes: lazaret egress allow / deny"
expect "resolve later.lztest.internal: REFUSED" resolve later.lztest.internal
out=$(lz egress -w "$repo" allow later.lztest.internal:8081 2>&1) || fail "egress allow: $out"
expect "connect later.lztest.internal:8081: ok hello-8081" connect later.lztest.internal 8081
out=$(lz egress -w "$repo" deny 10.0.2.2:$PL 2>&1) || fail "egress deny: $out"
expect "connect 10.0.2.2:$PL: ECONNREFUSED" connect 10.0.2.2 $PL
set +e
out=$(lz egress -w "$repo" allow 'bad..name' 2>&1); rc=$?
set -e
[ $rc -ne 0 ] || fail "a malformed entry was accepted"
assert_contains "$out" "1 to 63 characters" "a malformed entry is refused with the reason"
st=$(lz status -w "$repo")
assert_contains "$st" "later.lztest.internal:8081" "status shows the added entry"
assert_not_contains "$st" "10.0.2.2/32:$PL" "status no longer shows the removed entry"

note "the sandbox cannot change the rules, even with NET_ADMIN"
expect "nft-delete lazaret: EPROTONOSUPPORT" nft-delete lazaret
out=$(as_user podman run --rm --runtime runsc --network "container:$side" --cap-add NET_ADMIN \
	--mount "type=bind,src=$T/bin/lazaret-probe,dst=/p,ro=true" localhost/lazaret-default:latest \
	/p nft-delete lazaret 2>&1)
assert_contains "$out" "nft-delete lazaret: E" "nft-delete with CAP_NET_ADMIN in gVisor fails"
assert_not_contains "$out" ": ok" "the table survived"
expect "connect $NET.3:8081: ECONNREFUSED" connect $NET.3 8081

note "router killed: the rules stay (default deny), then the same policy again"
spid=$(as_user podman inspect -f '{{.State.Pid}}' "$side")
rh=$(lz_router_pid "$side") || fail "no router process of $side on the host"
kill -9 "$rh"
rules=$(timeout 10 nsenter -t "$spid" -n nft list table inet lazaret) || fail "no table after the router died"
assert_contains "$rules" "policy drop" "the namespace stays default-deny without its router"
expect "connect $NET.3:8081: ECONNREFUSED" connect $NET.3 8081
wait_for 30 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'router up (1 restarts)'" ||
	fail "the router was not restarted: $(lz status -w "$repo")"
expect "connect later.lztest.internal:8081: ok hello-8081" connect later.lztest.internal 8081
expect "connect 10.0.2.2:$PL: ECONNREFUSED" connect 10.0.2.2 $PL
aud=$(lz audit -w "$repo")
assert_contains "$aud" "net.router-exit" "the router's death is audited"
assert_contains "$aud" "net.restart" "its restart is audited"
assert_contains "$aud" "net.policy" "policy changes are audited"

note "the egress log"
ev=$(lz egress --json -n 0 -w "$repo")
echo "$ev" | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin if l.strip()]' ||
	fail "egress --json is not one JSON object per line"
assert_contains "$ev" "\"verdict\":\"allow\",\"proto\":\"tcp\",\"addr\":\"10.0.2.2\",\"port\":$PL" "allowed flow"
assert_contains "$ev" "\"verdict\":\"deny\",\"proto\":\"tcp\",\"addr\":\"10.0.2.2\",\"port\":$((PL + 1))" "blocked flow"
assert_contains "$ev" "\"kind\":\"dns\",\"verdict\":\"deny\",\"proto\":\"A\",\"addr\":\"\",\"port\":0,\"name\":\"blocked.lztest.internal\"" "refused query"
assert_contains "$ev" "\"addr\":\"$NET.3\",\"port\":8080,\"name\":\"allowed.lztest.internal\"" "a flow names the domain it was learned from"
txt=$(lz egress -w "$repo")
assert_contains "$txt" "deny   dns     A      blocked.lztest.internal  (not in policy" "text log"
as_user lazaret egress -w "$repo" --follow --json -n 1 >"$T/follow.log" 2>&1 & FOL=$!
lz_on_exit "kill $FOL"
wait_for 20 test -s "$T/follow.log" || fail "egress --follow printed nothing"
probe connect 10.0.2.2 $((PL + 7)) >/dev/null
wait_for 20 grep -q "\"port\":$((PL + 7))" "$T/follow.log" || fail "egress --follow missed a new event: $(cat "$T/follow.log")"
kill $FOL 2>/dev/null || true
note "ok: egress --follow prints a new blocked flow as it happens"

note "the workbench's Egress panel shows events live"
[ -x "$T/bin/lazaret-workbench" ] || fail "no lazaret-workbench in the build"
command -v tmux >/dev/null || fail "tmux is not installed (scripts/packages lists it)"
{
	source "$LZ_SRC/tests/integ/lib-wb.sh"
	"${TM[@]}" new-session -d -s wb -x 200 -y 50 -c "$T" "$(wb_line -w "$repo")"
	wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in the workbench"
	# the side panel is shown by default at 100 columns and more
	wait_for 10 pane_has "Egress" || show_fail "no Egress list in the side panel"
	# the newest logged event: the list keeps the newest, older ones (the refused query) may have scrolled off
	wait_for 10 pane_has "10.0.2.2:$((PL + 7))" || show_fail "the panel lacks the newest logged flow"
	"${TM[@]}" send-keys -t wb "lazaret-probe connect 10.0.2.2 $((PL + 1))" Enter
	wait_for 10 pane_has "ECONNREFUSED" || show_fail "the probe did not run in the workbench"
	wait_for 10 sh -c "$(printf '%q ' "${TM[@]}") capture-pane -p -t wb | grep -c '10.0.2.2:$((PL + 1))' | grep -qv '^[01]$'" ||
		show_fail "the new blocked flow did not appear in the panel live"
	note "ok: the Egress panel shows the log and a new blocked flow as it happens"
	"${TM[@]}" kill-server
}

note "coordinator SIGKILLed: the next lazaret run replaces the sidecar and its sandbox"
cpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= |
	awk -v m="coordinator --profile default --workspace $canon --mode" 'index($0, m) { print $1; exit }')
[ -n "$cpid" ] || fail "no coordinator process"
old=$(as_user podman inspect -f '{{.Id}}' "$side")
kill -9 "$cpid"
wait_for 20 sh -c "! kill -0 $cpid 2>/dev/null" || fail "the coordinator survived SIGKILL"
expect "connect allowed.lztest.internal:8080: ok hello-8080" connect allowed.lztest.internal 8080
expect "connect later.lztest.internal:8081: resolve REFUSED" connect later.lztest.internal 8081
new=$(as_user podman inspect -f '{{.Id}}' "$side")
[ "$old" != "$new" ] || fail "the sidecar left by the dead coordinator was kept"
note "ok: a fresh sidecar with the configured policy (the run-time change died with its run)"

# (the last run's coordinator may have lingered its 0.5 s and gone already)
lz stop -w "$repo" >/dev/null 2>&1 || true
wait_for 60 sh -c "! $(as_user_line podman container exists "$side")" || fail "the sidecar outlived its domain"
test ! -e "$LZ_RUNDIR/lazaret/$hash.net" || fail "the sidecar's socket directory outlived its domain"

note "network: none: no sidecar, no network at all"
hoff=$(printf '%s' "off:$canon" | sha256sum | cut -c1-12)
lz_on_exit "as_user podman rm -f -t0 lazaret-off-$hoff"
out=$(lz run -T -p off -w "$repo" -- lazaret-probe connect 10.0.2.2 $PL </dev/null 2>&1)
assert_contains "$out" "connect 10.0.2.2:$PL: ENETUNREACH" "network: none reaches nothing"
as_user podman container exists "lazaret-net-$hoff" && fail "a sidecar was started for network: none"
note "ok: no sidecar container for network: none"
note "all sandbox network checks passed"
