#!/usr/bin/env bash
# test-net-ask.sh - network requests end to end (issue 13): the agent in the
# real gVisor sandbox tries destinations outside the policy, the real router
# holds them (nfqueue) and the coordinator raises requests; a second terminal
# answers with `lazaret egress approve/deny`. Once, run, profile (across a
# restart), deny, timeout, a broad grant's confirmation, a flood of 10,000
# destinations, and the audit trail (--verify, and an edited grant row).
# Traffic goes only to a network namespace this test creates (linked to the
# host by a veth pair; the router holds or refuses every flood packet before
# it leaves) and never elsewhere. Needs root for that namespace.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
need_default_image
command -v sqlite3 >/dev/null || skip "sqlite3 CLI missing"
[ -x "$T/bin/lazaret-probe" ] || fail "no lazaret-probe in $LZ_BUILD: run make"
H="python3 $LZ_SRC/tests/integ/net-helper.py"
t_start=$SECONDS

lz_test_netns 10.213 2 3 4
ip netns exec "$SRV" $H serve 0.0.0.0 8080 8081 8082 8083 >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
: >"$T/dns.log"
ip netns exec "$SRV" $H dns "$NET.2" "$T/dns.log" allowed.lztest.internal=$NET.3 \
	later.lztest.internal=$NET.4 >"$T/dnsd.log" 2>&1 & lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" || fail "test servers did not start"
wait_for 10 grep -q "dns ready" "$T/dnsd.log" || fail "test DNS server did not start"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<YAML
dns_upstream: $NET.2
network:
  ask_timeout: 4
allow_egress:
  - allowed.lztest.internal:8080
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - host: $T/bin/lazaret-probe
        container: /usr/local/bin/lazaret-probe
        mode: ro
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
db=$T/home/data/lazaret/domains/$hash/state.db
probe() { lz run -T -w "$repo" -- lazaret-probe "$@" </dev/null 2>&1; }
pending() { lz egress -w "$repo" --pending --json; }
# req_id PATTERN: the id of the pending request whose JSON line matches
req_id() { pending | grep '"state":"pending"' | grep -- "$1" | head -1 | sed 's/^{"id":\([0-9]*\),.*/\1/'; }
wait_req() { # PATTERN: wait for a pending request, print its id
	local id=
	wait_for 20 sh -c "$(as_user_line lazaret egress -w "$repo" --pending --json) | grep '\"state\":\"pending\"' | grep -q -- '$1'" ||
		fail "no pending request matching $1: $(pending)"
	id=$(req_id "$1")
	[ -n "$id" ] || fail "no id for $1"
	echo "$id"
}
hold() {
	lz run -T -w "$repo" -- sleep 600 </dev/null >"$T/hold.log" 2>&1 & HOLD=$!
	lz_on_exit "kill $HOLD 2>/dev/null"
	wait_for 90 test -S "$sock" || { cat "$T/hold.log"; fail "the domain did not start"; }
}
hold
# Someone who can answer: Lazaret asks only while a workbench is attached or
# this runs (issue 24: otherwise it refuses at once, checked below).
lz_follow_requests

note "a new destination is held and shows as a pending request"
probe connect $NET.3 8081 >"$T/p1" & P1=$!
id=$(wait_req "\"addr\":\"$NET.3\",\"port\":8081")
out=$(pending)
assert_contains "$out" "\"kind\":\"flow\",\"proto\":\"tcp\",\"addr\":\"$NET.3\",\"port\":8081" "the request names the destination"
assert_contains "$out" "\"grant\":\"$NET.3/32:8081\"" "and the exact grant an approval would add"
txt=$(lz egress -w "$repo" --pending)
assert_contains "$txt" "$NET.3:8081/tcp" "the text list shows it"
assert_contains "$(lz status -w "$repo")" "requests:    1 pending (lazaret egress --pending), held up to 4 s" "status counts it"

note "approve once: that flow goes through, the next connection asks again"
out=$(lz egress -w "$repo" approve "$id" 2>&1) || fail "approve once: $out"
assert_contains "$out" "approved request $id once" "the CLI says what it did"
wait $P1 || true
assert_contains "$(cat "$T/p1")" "connect $NET.3:8081: ok hello-8081" "the held connection went through"
probe connect $NET.3 8081 >"$T/p2" & P2=$!
id2=$(wait_req "\"addr\":\"$NET.3\",\"port\":8081")
[ "$id2" != "$id" ] || fail "the second connection did not raise a new request"
note "ok: request $id2 for the next connection; left unanswered (ask_timeout 4 s)"
wait $P2 || true
assert_contains "$(cat "$T/p2")" "connect $NET.3:8081: ECONNREFUSED" "unanswered: blocked, as without asking"
assert_contains "$(pending)" "{\"id\":$id2,\"state\":\"expired\"" "the request shows as expired"

note "approve for the run: later connections go through without asking"
probe connect $NET.4 8081 >"$T/p3" & P3=$!
id=$(wait_req "\"addr\":\"$NET.4\",\"port\":8081")
out=$(lz egress -w "$repo" approve "$id" --scope run 2>&1) || fail "approve run: $out"
assert_contains "$out" "for the run: $NET.4/32:8081" "the grant is named"
wait $P3 || true
assert_contains "$(cat "$T/p3")" "ok hello-8081" "the held connection went through"
assert_contains "$(probe connect $NET.4 8081)" "ok hello-8081" "a later connection goes through"
assert_contains "$(lz status -w "$repo")" "$NET.4/32:8081" "the grant is in the policy for this run"

note "deny: refused, and later attempts refused without asking"
probe connect $NET.4 8082 >"$T/p4" & P4=$!
id=$(wait_req "\"port\":8082")
out=$(lz egress -w "$repo" deny "$id" 2>&1) || fail "deny: $out"
wait $P4 || true
assert_contains "$(cat "$T/p4")" "ECONNREFUSED" "the denied attempt is refused"
assert_contains "$(probe connect $NET.4 8082)" "ECONNREFUSED" "so is the next one"
[ "$(pending | grep -c '"port":8082')" -eq 1 ] || fail "a denied destination was asked about again: $(pending)"
assert_contains "$(lz egress -w "$repo" --pending)" "attempts to denied destinations" "the summary counts them"
set +e; out=$(lz egress -w "$repo" approve "$id" 2>&1); rc=$?; set -e
[ $rc -ne 0 ] || fail "a decided request was approved again"
assert_contains "$out" "request $id is no longer pending: denied deny by cli" "a second answer is refused by name"

note "a denial outlives the router: killed and restarted, it still refuses unasked"
side=lazaret-net-$hash
rh=$(lz_router_pid "$side") || fail "no router in $side's namespace"
kill -9 "$rh"
wait_for 30 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'router up (1 restarts)'" ||
	fail "the router was not restarted: $(lz status -w "$repo")"
assert_contains "$(probe connect $NET.4 8082)" "ECONNREFUSED" "the denied destination is refused after the restart"
[ "$(pending | grep -c '"port":8082')" -eq 1 ] || fail "the restarted router asked about a denied destination: $(pending)"
note "ok: no new request for it"

note "a broad grant needs a second confirmation"
probe connect $NET.3 8083 >"$T/p5" & P5=$!
id=$(wait_req "\"port\":8083")
set +e; out=$(lz egress -w "$repo" approve "$id" --scope run --widen 10.212.0.0/15:8083 2>&1); rc=$?; set -e
[ $rc -ne 0 ] || fail "a broad grant was applied without confirmation"
assert_contains "$out" "is a broad grant" "the CLI says it is broad"
assert_contains "$out" "--yes-broad" "and how to confirm"
assert_contains "$(pending)" "{\"id\":$id,\"state\":\"pending\"" "nothing was decided"
set +e; out=$(lz egress -w "$repo" approve "$id" --scope run --widen 10.9.0.0/24:8083 2>&1); rc=$?; set -e
[ $rc -ne 0 ] || fail "a widening that does not cover the destination was taken"
assert_contains "$out" "does not let $NET.3:8083/tcp through" "a widening must cover the destination"
out=$(lz egress -w "$repo" approve "$id" --scope run --widen 10.212.0.0/15:8083 --yes-broad 2>&1) ||
	fail "confirmed broad grant: $out"
assert_contains "$out" "10.212.0.0/15:8083" "the confirmed broad grant is applied"
wait $P5 || true
assert_contains "$(cat "$T/p5")" "ok hello-8083" "and the held connection went through"

note "a query for a name outside the policy is a request too; approve for the profile"
probe resolve later.lztest.internal >"$T/p6" & P6=$!
id=$(wait_req '"kind":"dns".*"name":"later.lztest.internal"')
grep -qx later.lztest.internal "$T/dns.log" && fail "a held query reached the DNS server before the decision"
out=$(lz egress -w "$repo" approve "$id" --scope profile 2>&1) || fail "approve profile: $out"
assert_contains "$out" "for the profile (saved; lazaret egress grants): later.lztest.internal" "saved for the profile"
wait $P6 || true
assert_contains "$(cat "$T/p6")" "resolve later.lztest.internal: $NET.4" "the approved name resolves"
assert_contains "$(lz egress -w "$repo" grants)" "later.lztest.internal" "egress grants lists it"

note "no one attached to answer: refused at once, kept for review (issue 24)"
kill_tree() { local p; for p in $(pgrep -P "$1"); do kill_tree "$p"; done; kill "$1" 2>/dev/null || true; }
kill_tree $FOLLOW; wait $FOLLOW 2>/dev/null || true
assert_contains "$(probe connect $NET.2 8082)" "ECONNREFUSED" "a new destination is refused"
assert_contains "$(pending)" "\"state\":\"unasked\",\"kind\":\"flow\",\"proto\":\"tcp\",\"addr\":\"$NET.2\",\"port\":8082" "and listed for review, unasked (not held until expiry)"
assert_contains "$(probe resolve nobody.lztest.internal)" "resolve nobody.lztest.internal: REFUSED" "a query outside the policy is refused"
assert_contains "$(pending)" "\"state\":\"unasked\",\"kind\":\"dns\",\"proto\":\"A\",\"addr\":\"\",\"port\":0,\"name\":\"nobody.lztest.internal\"" "and listed for review"
assert_contains "$(lz egress -w "$repo" --pending)" "unasked" "the text list says so"
assert_contains "$(lz audit -w "$repo")" "no one attached to answer" "the audit keeps it"
assert_contains "$(lz status -w "$repo")" "no one attached to answer (workbench, egress --pending --follow): refused at once" "status says why nothing is asked"
grep -qx nobody.lztest.internal "$T/dns.log" && fail "an unasked query reached the DNS server"
lz_follow_requests
note "ok: asked again once someone follows"

note "the flood: 10,000 distinct destinations from the agent"
out=$(probe connect-many $NET.3 20000 10000)
assert_contains "$out" "10000 started" "the agent opened 10,000 connections"
st=$(lz status -w "$repo") || fail "status did not answer during the flood"
assert_contains "$st" "router up" "the coordinator answers; the router is up"
assert_contains "$st" "blocked unasked" "status counts what was blocked unasked"
npend=$(pending | grep -c '"state":"pending"' || true)
[ "$npend" -le 256 ] || fail "$npend pending requests (at most 256)"
cpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= |
	awk -v m="coordinator --profile default --workspace $canon --mode" 'index($0, m) { print $1; exit }')
rss=$(ps -o rss= -p "$cpid" | tr -d ' ')
[ "$rss" -lt 204800 ] || fail "the coordinator's RSS is $rss KiB after the flood"
note "ok: flood: $npend pending (cap 256), coordinator RSS ${rss} KiB, status answers"
over=$(lz egress -w "$repo" --pending | sed -n 's/^# [0-9]* pending; \([0-9]*\) attempts blocked unasked.*/\1/p')
[ "${over:-0}" -gt 0 ] || fail "the overflow was not counted: $(lz egress -w "$repo" --pending | grep '^#')"
note "ok: $over attempts blocked unasked (the pending list was full)"

note "every decision is in the audit trail"
aud=$(lz audit -w "$repo")
for k in "net.request" "net.decision +once" "net.decision +run" "net.decision +deny" \
	"net.decision +profile" "net.grant.add +grant" "net.first-allow" "net.first-block"; do
	printf '%s\n' "$aud" | grep -Eq "$k" || fail "no '$k' row in lazaret audit"
done
note "ok: requests, decisions (once, run, deny, profile), the grant, first allow/block"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact" "--verify covers them"

note "a run grant ends with the run; a profile grant survives the restart"
lz stop -w "$repo" >/dev/null
kill $HOLD 2>/dev/null || true
wait_for 60 sh -c "! test -S $sock" || fail "the domain did not stop"
hold
assert_contains "$(probe resolve later.lztest.internal)" "resolve later.lztest.internal: $NET.4" "the profile grant holds after a restart"
assert_not_contains "$(lz status -w "$repo")" "$NET.4/32:8081" "the run grant is gone"
assert_contains "$(lz egress -w "$repo" grants --json)" "\"entry\":\"later.lztest.internal\"" "grants --json lists it"
note "revoke: the grant leaves the file and the running policy"
out=$(lz egress -w "$repo" revoke later.lztest.internal 2>&1) || fail "revoke: $out"
assert_contains "$out" "revoked later.lztest.internal" "revoke names what it removed"
assert_contains "$(lz egress -w "$repo" grants)" "no grants saved" "the grant is gone from the file"
assert_not_contains "$(lz status -w "$repo")" "later.lztest.internal" "and from the running policy"
assert_contains "$(lz audit -w "$repo")" "net.grant.revoke" "the revocation is audited"

note "an edited grant row fails --verify"
lz stop -w "$repo" >/dev/null
kill $HOLD 2>/dev/null || true
wait_for 60 sh -c "! test -S $sock" || fail "the domain did not stop"
seq=$(as_user sqlite3 "$db" "SELECT seq FROM audit WHERE kind='net.grant.add' LIMIT 1")
[ -n "$seq" ] || fail "no net.grant.add row in state.db"
as_user sqlite3 "$db" "UPDATE audit SET detail=replace(detail, 'later.lztest', 'other.lztest') WHERE seq=$seq"
set +e; out=$(lz audit -w "$repo" --verify); rc=$?; set -e
assert_eq "$rc" 1 "an edited grant row: verify exits 1"
assert_contains "$out" "audit trail broken at row $seq" "and names the row"
note "all network request checks passed in $((SECONDS - t_start)) s"
