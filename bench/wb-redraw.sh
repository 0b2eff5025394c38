#!/usr/bin/env bash
# bench/wb-redraw.sh - what drawing the cockpit costs (issue 28), figures,
# never assertions:
#   - CPU of the workbench with 8 tabs while the active tab prints a steady
#     stream and the sandbox makes new egress flows as fast as it can (the
#     Egress list live, grouped), against the CPU of a tmux server showing
#     the same stream in a pane of the same size on the host (the ratio);
#     with the number of egress events the workbench was sent per second;
#   - keystroke-to-screen latency: a key sent to the pane until
#     capture-pane shows it, p50 and p99, in the workbench's tab and in the
#     plain tmux pane (both include tmux's own capture, the same in both).
# Traffic only to a network namespace this script makes: root. DURATION
# (seconds of load, default 10), KEYS (latency samples, default 40).
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
[ -x "$T/bin/lazaret-workbench" ] || skip "no lazaret-workbench built"
[ "$(id -u)" -eq 0 ] || skip "needs root for the network namespace"
need_stack
need_default_image
DURATION=${DURATION:-10}
KEYS=${KEYS:-40}

lz_test_netns 10.218 2
lz_domain redraw
lz_config <<YAML
network: {ask_timeout: 0}
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
    allow_egress: ["$NET.2"]
YAML
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash"
LZ_ENV+=(LAZARET_WORKBENCH_STATE="$T/wb.tabs" XDG_STATE_HOME="$T/home/state")
mkdir -p "$T/home/state/lazaret" && : >"$T/home/state/lazaret/tour-seen"
chown -R "$LZ_USER" "$T/home/state"

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
TB=(timeout 10 tmux -L "lzb$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
lz_on_exit "${TB[*]} kill-server"
pane() { "${TM[@]}" capture-pane -p -t wb; }
pane_has() { pane | grep -qF -- "$1"; }
keys() { "${TM[@]}" send-keys -t wb "$@"; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }	# utime + stime
hz=$(getconf CLK_TCK)
# the stream: numbered lines, 2,000 a second, for DURATION seconds
stream="i=0; end=\$((\$(date +%s) + $DURATION)); while [ \$(date +%s) -lt \$end ]; do i=\$((i+1)); printf 'line %08d the quick brown fox jumps over the lazy dog\\n' \$i; [ \$((i % 200)) -ne 0 ] || sleep 0.1; done; echo stream-done"

"${TM[@]}" new-session -d -s wb -x 160 -y 45 -c "$T" "$(as_user_line lazaret-workbench -w "$repo")"
wait_for 90 pane_has "/workspace#" || fail "no shell prompt"
for i in 1 2 3 4 5 6 7; do
	keys C-a c
	wait_for 5 pane_has "New sandbox tab" || fail "no new-tab dialog"
	keys Tab C-u; keys -l "$repo"; keys Enter
	wait_for 60 pane_has "$i:default redraw running" || fail "no tab $i"
done
keys C-a 0
sleep 2
wbpid=$(pgrep -u "$LZ_USER" -f "lazaret-workbench -w $repo" | head -1)
[ -n "$wbpid" ] || fail "no workbench process"

# --- egress flows from tab 1 (in the background of its shell), the stream in tab 0
keys C-a 1
sleep 0.5
keys "clear; end=\$((\$(date +%s) + $DURATION + 2)); while [ \$(date +%s) -lt \$end ]; do for p in \$(seq 1000 1100); do echo x >/dev/udp/$NET.2/\$p; done; done 2>/dev/null &" Enter
keys C-a 0
sleep 1
t0=$(ticks "$wbpid")
keys "clear; $stream" Enter
wait_for $((DURATION + 30)) pane_has "stream-done" || fail "the stream did not end"
t1=$(ticks "$wbpid")
wb_cpu=$(( (t1 - t0) * 1000 / hz ))
ev=$(lz egress -w "$repo" --json 2>/dev/null | wc -l || echo 0)

# --- the same stream in a plain tmux pane of the tab's size (the panel's 53 columns off)
"${TB[@]}" new-session -d -s base -x 107 -y 43 "bash --norc"
sleep 1
tpid=$("${TB[@]}" display -p -t base '#{pid}')
b0=$(ticks "$tpid")
"${TB[@]}" send-keys -t base "clear; $stream" Enter
wait_for $((DURATION + 30)) sh -c "$(printf '%q ' "${TB[@]}") capture-pane -p -t base | grep -q stream-done" ||
	fail "the plain stream did not end"
b1=$(ticks "$tpid")
tm_cpu=$(( (b1 - b0) * 1000 / hz ))

# --- keystroke to screen
lat() { # tmux-cmd-array-name target
	local -n T=$1
	local i t0 t1 out=()
	for i in $(seq "$KEYS"); do
		"${T[@]}" send-keys -t "$2" -l "k$i#"
		t0=$(date +%s%N)
		until "${T[@]}" capture-pane -p -t "$2" | grep -qF "k$i#"; do :; done
		t1=$(date +%s%N)
		out+=($(( (t1 - t0) / 1000 )))
		"${T[@]}" send-keys -t "$2" C-u
	done
	printf '%s\n' "${out[@]}" | sort -n | awk '{ v[NR] = $1 }
		END { m = int(NR * 0.5) + 1; p = int(NR * 0.99); if (p < 1) p = 1
			printf "p50 %.1f ms, p99 %.1f ms", v[m] / 1000, v[p] / 1000 }'
}
wl=$(lat TM wb)
bl=$(lat TB base)
echo "wb-redraw: ${DURATION}s of ~2,000 lines/s in the active tab of 8, egress flows meanwhile ($ev events in the domain's log)"
echo "wb-redraw: workbench CPU ${wb_cpu} ms, tmux server CPU for the same stream ${tm_cpu} ms, ratio $(awk -v a="$wb_cpu" -v b="$tm_cpu" 'BEGIN { printf (b > 0 ? "%.1f" : "n/a"), (b > 0 ? a / b : 0) }')"
echo "wb-redraw: keystroke to screen: workbench tab $wl; plain tmux pane $bl"
keys C-a d
