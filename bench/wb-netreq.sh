#!/usr/bin/env bash
# bench/wb-netreq.sh - a figure, never an assertion (issue 13's benchmark):
# milliseconds from the agent's connect() in the gVisor sandbox (bash's
# /dev/tcp; the sandbox prints the wall clock just before it) to the pending
# request's line in the workbench's Egress list (tmux capture-pane polled
# every 20 ms on the host: the figure includes that and the redraw). Each run
# is a new destination (another port of a namespace this script creates),
# denied from the panel afterwards. RUNS=N (default 7). Needs root.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "bench/wb-netreq.sh needs root for its network namespace"
source "$(dirname "$0")/../tests/integ/lib-wb.sh"
need_stack
need_default_image
RUNS=${RUNS:-7}
lz_test_netns 10.216 3
lz_domain wbnr
lz_config <<YAML
network: {ask_timeout: 30}
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
YAML
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash"
now_ms() { date +%s%3N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

"${TM[@]}" new-session -d -s wb -x 200 -y 50 -c "$T" "$(wb_line -w "$repo")"
wait_for 90 pane_has "/workspace#" || show_fail "no shell prompt"
: >"$T/ms"
for i in $(seq 1 "$RUNS"); do
	port=$((9000 + i))
	"${TM[@]}" send-keys -t wb -l "clear; echo T0=\$(date +%s%3N); timeout 20 bash -c 'exec 3<>/dev/tcp/$NET.3/$port'; echo END-$port"
	"${TM[@]}" send-keys -t wb Enter
	until pane_has "? $NET.3:$port/tcp"; do sleep 0.02; done
	t1=$(now_ms)
	t0=$(pane | grep -o 'T0=[0-9]*' | head -1 | cut -d= -f2)
	echo $((t1 - t0)) >>"$T/ms"
	"${TM[@]}" send-keys -t wb C-a Tab
	wait_for 5 pane_has "PANEL" || show_fail "the panel did not take the focus"
	"${TM[@]}" send-keys -t wb d
	wait_for 25 pane_has "END-$port" || show_fail "the denied connect did not end"
done
echo "workbench: agent connect -> pending request shown in the Egress list: median $(median <"$T/ms") ms over $RUNS (all: $(tr '\n' ' ' <"$T/ms"))"
