#!/usr/bin/env bash
# test-escalate-scan.sh - issue 24 item 1 on the real stack, as the attack it
# was: a scanner session loops over every process's /proc/<pid>/environ and
# cmdline while 25 other sessions start, and must never see a session
# credential (the holder once had it in its environment from its exec until
# its main() ran). Each session's own credential still works.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
[ -x "$T/bin/lazaret-probe" ] || fail "no lazaret-probe in $LZ_BUILD: run make"
need_stack
need_default_image

lz_domain ws
lz_config <<EOF
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - host: $T/bin/lazaret-probe
        container: /usr/local/bin/lazaret-probe
        mode: ro
escalation:
  auto_approve: ["true"]
EOF
LZ_ENV=(LAZARET_ESC_TIMEOUT=8)
wt=$T/home/data/lazaret/domains/$hash/lazaret-$hash
log=$T/home/data/lazaret/domains/$hash/coordinator.log

# The scanner: its own session, looking for the credential's prefix and the
# variable's name in every process for up to 60 s (in hex, so that its own
# command line does not match).
PATS="$(printf lzc1. | od -An -tx1 | tr -d ' \n') $(printf LAZARET_CRED= | od -An -tx1 | tr -d ' \n')"
lz run -T -w "$repo" -- sh -c "lazaret-probe scan 60 $PATS >/workspace/.scan" \
	</dev/null >"$T/scan.out" 2>&1 &
spid=$!
lz_on_exit "kill $spid"
wait_for 60 grep -q scanning "$wt/.scan" || { cat "$T/scan.out" "$log"; fail "the scanner did not start"; }

# 25 sessions, five at a time, each asking for an escalation with its own
# credential (auto-approved: exit 0 proves the credential reached it).
ok=0
for round in 1 2 3 4 5; do
	pids=()
	for i in 1 2 3 4 5; do
		lz run -T -w "$repo" -- lazaret-escalate -- true </dev/null >"$T/s$round.$i" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		if wait "$p"; then ok=$((ok + 1)); fi
	done
done
assert_eq "$ok" 25 "25 sessions started, each signed its own request and had it approved"

# Stop the scanner's session (its sandbox-side process dies with it) and read its tally.
kill "$spid" 2>/dev/null || true
wait "$spid" 2>/dev/null || true
wait_for 20 grep -q '^scans=' "$wt/.scan" || {
	# killed before its tally: run a last short scan to prove it still sees nothing
	lz run -T -w "$repo" -- sh -c "lazaret-probe scan 1 $PATS >>/workspace/.scan" </dev/null
}
out=$(cat "$wt/.scan")
note "scanner: $(grep '^scans=' "$wt/.scan" | tail -n 1)"
scans=$(grep -o '^scans=[0-9]*' "$wt/.scan" | head -n 1 | cut -d= -f2)
[ -n "$scans" ] && [ "$scans" -gt 0 ] || fail "the scanner never completed a pass: [$out]"
assert_not_contains "$out" "hit " "no credential or LAZARET_CRED= in any process's environ or cmdline, ever"
