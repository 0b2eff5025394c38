#!/usr/bin/env bash
# test-workbench-netreq.sh - network requests in the real workbench (issue 13
# item 3): tmux, real podman + runsc, the real sidecar holding new
# destinations (nfqueue) and the coordinator asking. The agent's tool is
# bash's /dev/tcp in the gVisor sandbox. Traffic goes only to a network
# namespace this test creates (the test DNS server and a web server); the
# host's own side of slirp is a guarded range, refused without asking.
# Checked as a user would (the mouse on): the pending request shows in the Egress list and marks its tab; approve once
# from the panel's view (a, the code, Enter) lets that connection through and
# the next one asks again; deny from the panel refuses it and no prompt comes
# after; typing in the tab (even the panel's keys and a code) decides
# nothing; a terminal reply at the view is discarded and audited; a click
# on a pending request opens its view and decides nothing; the view
# shows each grant's reach (a wildcard's "every subdomain of"), and a broad
# grant takes the code chord twice; a flood of 2,000 new destinations
# leaves the workbench usable and its list bounded; every decision is in
# the audit trail.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"
H="python3 $LZ_SRC/tests/integ/net-helper.py"

# --- a namespace of our own, 10.214.N.0/29: .1 the host's end, .2 the DNS
# server and a web server, .3 a "host" of the test names
lz_test_netns 10.214 2 3
ip netns exec "$SRV" $H serve 0.0.0.0 8080 >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
: >"$T/dns.log"
ip netns exec "$SRV" $H dns "$NET.2" "$T/dns.log" svc.app.lztest.internal=$NET.3 >"$T/dnsd.log" 2>&1 &
lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" || fail "test server did not start"
wait_for 10 grep -q "dns ready" "$T/dnsd.log" || fail "test DNS server did not start"

lz_domain nrq
lz_config <<YAML
dns_upstream: $NET.2
network: {ask_timeout: 60}
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar      # no allow_egress: default deny, every destination asks
YAML
side=lazaret-net-$hash
lz_on_exit "as_user podman rm -f -t0 $side"

row_of() { pane | grep -nF -- "$1" | head -1 | cut -d: -f1; }
top() { pane | head -1; }
audit_json() { lz audit -w "$repo" --json; }
# The agent's tool: bash's /dev/tcp (DNS through the router, the kernel's
# connect timeout), one line out with its exit status.
tcp() { # tag host port
	"${TM[@]}" send-keys -t wb -l "clear; timeout 50 bash -c 'exec 3<>/dev/tcp/$2/$3 || exit 9; echo hi >&3; IFS= read -r -t 20 -u 3 l; echo \"got[\$l]\"; [ -n \"\$l\" ]'; echo \"$1-rc=\$?\""
	"${TM[@]}" send-keys -t wb Enter
}
panel_egress() { # focus the panel: no escalation waits, so its Egress list, the pending request
	"${TM[@]}" send-keys -t wb C-a Tab
	wait_for 5 pane_has "PANEL" || show_fail "prefix Tab did not focus the panel"
}

"${TM[@]}" new-session -d -s wb -x 200 -y 50 -c "$T" "$(wb_line --mouse -w "$repo")"
wait_for 90 pane_has "/workspace#" || show_fail "no shell prompt"

# --- a pending request: in the Egress list, marks the tab
t0=$(date +%s%N)
tcp once1 $NET.3 8080
wait_for 10 pane_has "? $NET.3:8080/tcp" || show_fail "no pending request in the Egress list"
note "pending request shown $(( ($(date +%s%N) - t0) / 1000000 )) ms after the command was typed (bench/ measures it properly)"
wait_for 5 sh -c "$(printf '%q ' "${TM[@]}") capture-pane -p -t wb | head -1 | grep -qF '!0:default nrq'" ||
	show_fail "the pending request did not mark its tab"
note "ok: a pending request heads the Egress list and marks its tab"

# --- typing into the tab decides nothing: the panel's keys and a code go to the shell
"${TM[@]}" send-keys -t wb -l "# o r p d a XYZ"
"${TM[@]}" send-keys -t wb Enter
sleep 1
assert_contains "$(pane)" "? $NET.3:8080/tcp" "keys typed in the tab leave the request pending"
assert_not_contains "$(audit_json)" '"net.decision"' "no decision from keys typed in the tab"

# --- approve once from the panel: the view, armed, a + code + Enter
panel_egress
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "Network request" || show_fail "Enter on the pending request opened no view"
assert_contains "$(pane)" "Destination:  $NET.3:8080/tcp" "the view names the destination"
assert_contains "$(pane)" "this flow only: $NET.3:8080/tcp" "once: only this flow"
# a terminal's reply at the view: discarded, audited, nothing decided
wait_for 5 pane_has " Enter: allow once" || show_fail "the view did not arm"
"${TM[@]}" send-keys -t wb -l $'\e[>0;10;1c'
wait_for 5 pane_has "terminal reply was discarded" || show_fail "a terminal reply at the view was not reported"
wb_approve "allow once"
wait_for 20 pane_has "once1-rc=" || show_fail "the connection did not finish after approve once"
assert_contains "$(pane)" "got[hello-8080 hi]" "approve once: the agent's connection goes through"
assert_contains "$(pane)" "once1-rc=0" "approve once: the agent's tool succeeds"
wait_for 5 sh -c "! $(printf '%q ' "${TM[@]}") capture-pane -p -t wb | head -1 | grep -qF '!0:'" ||
	show_fail "the tab is still marked after the decision"
note "ok: approve once from the panel lets the flow through"

# --- once is once: the next connection asks again; deny from the panel
tcp deny1 $NET.3 8080
wait_for 10 pane_has "? $NET.3:8080/tcp" || show_fail "the next connection did not ask again"
note "ok: after approve once the next connection asks again"
panel_egress
"${TM[@]}" send-keys -t wb d
wait_for 20 pane_has "deny1-rc=" || show_fail "the denied connection did not end"
assert_not_contains "$(pane)" "deny1-rc=0" "deny: the agent's connection is refused"
tcp deny2 $NET.3 8080
wait_for 20 pane_has "deny2-rc=" || show_fail "the connection after deny did not end"
assert_not_contains "$(pane)" "deny2-rc=0" "after deny: refused again"
assert_not_contains "$(pane)" "? $NET.3:8080/tcp" "after deny: no new prompt"
note "ok: deny refuses and stops the prompts"

# --- a name: the view's grants and what each reaches; a broad one takes two codes
tcp name1 svc.app.lztest.internal 8080
wait_for 10 pane_has "? dns A svc.app.lztest.internal" || show_fail "no request for svc.app.lztest.internal"
# a click on the pending line opens its view (once); r there: for this run
y=$(row_of "? dns A svc.app.lztest.internal")
[ -n "$y" ] || show_fail "the pending name is not in the Egress list"
x=$(pane | sed -n "${y}p" | awk '{ print index($0, "svc.app") }')
"${TM[@]}" send-keys -t wb -l $'\e'"[<0;$x;${y}M"
"${TM[@]}" send-keys -t wb -l $'\e'"[<0;$x;${y}m"
wait_for 5 pane_has "Network request" || show_fail "a click on the pending request opened no view"
assert_contains "$(pane)" "Allow once" "a click opens the view for once, deciding nothing"
wait_for 5 pane_has " Enter: allow once" || show_fail "the view did not arm"
"${TM[@]}" send-keys -t wb r
# the redraw comes with the next frame: wait for it, do not read the pane at once
wait_for 5 pane_has "Allow for this run" || show_fail "r: the view is not for this run"
note "ok: r: the view is for this run"
assert_contains "$(pane)" "*.app.lztest.internal" "the wildcard grant is offered"
assert_contains "$(pane)" "this allows every subdomain of app.lztest.internal" "the wildcard's reach is shown"
note "ok: the view shows the wildcard grant's reach"
# Down until a BROAD grant is chosen (the wildcard on any port: a query has none)
for i in 1 2 3 4; do
	pane_has "approving asks a second time" && break
	wait_for 5 pane_has " Enter: allow for this run" || show_fail "the view did not arm"
	"${TM[@]}" send-keys -t wb Down
	sleep 0.3
done
pane_has "approving asks a second time" || show_fail "no BROAD grant was offered for a name without a port"
wb_approve "allow for this run"
wait_for 5 pane_has "Approve a second time" || show_fail "a broad grant did not ask a second time"
assert_not_contains "$(audit_json)" '"scope":"run"' "nothing granted after the first chord on a broad grant"
wb_approve "CONFIRM the broad grant"
wait_for 30 pane_has "name1-rc=" || show_fail "the connection did not finish after the broad grant"
assert_contains "$(pane)" "got[hello-8080 hi]" "the broad grant, confirmed twice, lets the name through"
assert_contains "$(pane)" "name1-rc=0" "the agent's tool succeeds"
note "ok: a broad grant takes the code chord twice"

# --- for the profile, the exact destination: saved in the grants file
tcp prof1 $NET.2 8080
wait_for 10 pane_has "? $NET.2:8080/tcp" || show_fail "no request for $NET.2:8080"
panel_egress
"${TM[@]}" send-keys -t wb p
wait_for 5 pane_has "Allow for the profile" || show_fail "p opened no view for the profile"
wb_approve "allow for the profile"
wait_for 20 pane_has "prof1-rc=" || show_fail "the connection did not finish after the profile grant"
assert_contains "$(pane)" "prof1-rc=0" "approve for the profile: the agent's tool succeeds"
assert_contains "$(lz egress -w "$repo" grants)" "$NET.2/32:8080" "the profile grant is in egress grants"
note "ok: approve for the profile from the workbench saves the grant"

d=$(audit_json | grep '"net.decision"' || true)
assert_eq "$(printf '%s\n' "$d" | grep -c .)" 4 "four decisions audited (once, deny, run, profile)"
assert_contains "$d" '"scope":"profile"' "the audit has the profile grant"
assert_contains "$d" '"scope":"once"' "the audit has approve once"
assert_contains "$d" '"scope":"deny"' "the audit has the deny"
assert_contains "$d" '"scope":"run"' "the audit has the run grant"
assert_contains "$(audit_json)" "terminal-reply" "the terminal reply at the view is audited"
assert_contains "$(audit_json | grep terminal-reply)" ">0;10;1c" "the audit row holds the discarded reply"
out=$(lz audit -w "$repo" --verify 2>&1) || fail "audit --verify failed: $out"
note "ok: every decision is in the audit trail and it verifies"

# --- a flood of 2,000 new destinations (UDP, one datagram each): the router
# holds 256 and refuses the rest; the workbench keeps a bounded list, its
# tab and panel stay usable
"${TM[@]}" send-keys -t wb -l "clear; for p in \$(seq 20000 21999); do echo x >/dev/udp/$NET.2/\$p; done 2>/dev/null; echo FLOOD-\$((1+1))"
"${TM[@]}" send-keys -t wb Enter
wait_for 120 pane_has "FLOOD-2" || show_fail "the flood did not finish"
type_line "echo ALIVE-\$((6*7))"
wait_for 10 pane_has "ALIVE-42" || show_fail "the tab does not answer after the flood"
n=$(pane | grep -o 'Egress ([0-9]*)' | head -1 | tr -dc 0-9)
[ -n "$n" ] && [ "$n" -le 500 ] || show_fail "the Egress list is not bounded after the flood: [$n]"
rss=$(ps -u "$LZ_USER" -o rss=,comm= | awk '$2 == "lazaret-workben" { print $1 }' | sort -n | tail -1)
note "after the flood: Egress list $n lines, workbench RSS ${rss:-?} KB"
[ -z "$rss" ] || [ "$rss" -lt 200000 ] || show_fail "the workbench grew to $rss KB in the flood"
panel_egress
"${TM[@]}" send-keys -t wb d
wait_for 5 pane_lacks "PANEL" || show_fail "d on a flooded list did not deny and give the keys back"
note "ok: a flood of new destinations leaves the workbench usable and its list bounded"

# --- detach with requests kept: a clean exit (run under ASan it checks for leaks)
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=" || show_fail "detach did not exit"
assert_contains "$(pane)" "wb-rc=0" "the workbench exits 0 after detach"
