#!/usr/bin/env bash
# bench/workbench.sh - figures for lazaret-workbench (never assertions):
#   - time to `cat` a 50 MB text file in a workbench tab, against the same in
#     a plain tmux pane of the terminal area's size (80x22) on the host, and
#     in `lazaret run` in such a pane (the same sandbox path without the
#     workbench's terminal emulation), and in a raw `podman exec -it CTR bash`
#     in such a pane (the floor: the gVisor PTY, no Lazaret in the path; the
#     issue's ratios are taken against it); each until the shell prompt is back
#     (a marker echoed after cat shows in capture-pane);
#   - RSS of the workbench with 1 and with 8 tabs.
# Runs as the test user of tests/integ/lib.sh. RUNS=N (default 3); SIZE_MB.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
[ -x "$T/bin/lazaret-workbench" ] || skip "no lazaret-workbench built"
need_stack
need_default_image
RUNS=${RUNS:-3}
SIZE_MB=${SIZE_MB:-50}
lz_domain bench
LZ_ENV+=(LAZARET_WORKBENCH_STATE="$T/wb.tabs")

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane_has() { "${TM[@]}" capture-pane -p -t "$1" | grep -qF -- "$2"; }
now_ms() { date +%s%3N; }
# ms until "cat FILE; echo marker" shows its marker in window $1
time_cat() { # window file run
	local t0 t1 want=$((1000 + $3))
	"${TM[@]}" send-keys -t "$1" "clear" Enter
	t0=$(now_ms)
	"${TM[@]}" send-keys -t "$1" "cat $2; echo DONE-\$((1000+$3))" Enter
	until pane_has "$1" "DONE-$want"; do sleep 0.05; done
	t1=$(now_ms)
	echo $((t1 - t0))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
TEXT="Lazaret bench line: the quick brown fox jumps over the lazy dog 0123456789"

# --- plain tmux pane on the host
printf '%s\n' "$TEXT" | as_user sh -c "yes \"\$(cat)\" | head -c ${SIZE_MB}M >'$T/f.txt'"
"${TM[@]}" new-session -d -s host -x 80 -y 22 -c "$T" "$(as_user_line bash --norc --noprofile)"
wait_for 10 pane_has host '$' || fail "no host shell"
host=$(for i in $(seq 1 "$RUNS"); do time_cat host "$T/f.txt" "$i"; done | median)

# --- workbench tab (80x24: a terminal area of 80x22)
"${TM[@]}" new-session -d -s wb -x 80 -y 24 -c "$T" "$(as_user_line lazaret-workbench -w "$repo"); sleep 600"
wait_for 60 pane_has wb "/workspace#" || fail "no workbench prompt"
"${TM[@]}" send-keys -t wb "yes '$TEXT' | head -c ${SIZE_MB}M >/tmp/f.txt; echo MADE-\$((6*7))" Enter
wait_for 120 pane_has wb "MADE-42" || fail "cannot make the file in the sandbox"
wb=$(for i in $(seq 1 "$RUNS"); do time_cat wb /tmp/f.txt "$i"; done | median)
wbpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk '$2 ~ /lazaret-workbench$/ && $3 == "-w" { print $1 }' | head -1)
rss1=$(awk '/VmRSS/ { print $2 }' "/proc/$wbpid/status")
cpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= |
	awk -v m="coordinator --profile default --workspace $canon --mode" 'index($0, m) { print $1; exit }')
crss=$(awk '/VmRSS/ { print $2 }' "/proc/$cpid/status")

# --- raw podman exec -it in a tmux pane of 80x22 (the same container, no Lazaret)
"${TM[@]}" new-session -d -s raw -x 80 -y 22 -c "$T" \
	"$(as_user_line podman exec -it -w /workspace "$ctr" bash --norc --noprofile); sleep 600"
"${TM[@]}" send-keys -t raw "echo RAW-\$((5*5))" Enter
wait_for 60 pane_has raw "RAW-25" || fail "no shell from podman exec -it"
raw=$(for i in $(seq 1 "$RUNS"); do time_cat raw /tmp/f.txt "$i"; done | median)
"${TM[@]}" send-keys -t raw "exit" Enter

# --- lazaret run in a tmux pane of 80x22 (same sandbox, raw PTY bytes)
"${TM[@]}" new-session -d -s run -x 80 -y 22 -c "$T" "$(as_user_line lazaret run -w "$repo"); sleep 600"
wait_for 60 pane_has run "/workspace#" || fail "no lazaret run prompt"
run=$(for i in $(seq 1 "$RUNS"); do time_cat run /tmp/f.txt "$i"; done | median)
"${TM[@]}" send-keys -t run "exit" Enter

# --- 8 tabs
for i in 1 2 3 4 5 6 7; do
	"${TM[@]}" send-keys -t wb C-a c
	wait_for 10 pane_has wb "New sandbox tab" || fail "no new-tab dialog"
	"${TM[@]}" send-keys -t wb Enter
	wait_for 60 pane_has wb "$i:default bench running" || fail "tab $i did not start"
done
rss8=$(awk '/VmRSS/ { print $2 }' "/proc/$wbpid/status")
"${TM[@]}" send-keys -t wb C-a 7 "yes '$TEXT' | head -c 2M; echo X\$((2*3))X" Enter
wait_for 60 pane_has wb "X6X" || fail "no output in tab 7"
rss8b=$(awk '/VmRSS/ { print $2 }' "/proc/$wbpid/status")
for i in 1 2 3 4 5 6 7 8; do "${TM[@]}" send-keys -t wb C-a x; done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "cat ${SIZE_MB} MB, 80x22 terminal, median of $RUNS:"
echo "  tmux pane, host shell:          $host ms"
echo "  podman exec -it CTR bash:       $raw ms   ($(ratio "$raw" "$host")x the host pane; the raw stack)"
echo "  lazaret run in a tmux pane:     $run ms   ($(ratio "$run" "$raw")x podman exec -it)"
echo "  lazaret-workbench tab:          $wb ms   ($(ratio "$wb" "$raw")x podman exec -it, $(ratio "$wb" "$run")x lazaret run)"
echo "RSS of lazaret-workbench: 1 tab $((rss1 / 1024)) MiB; 8 tabs $((rss8 / 1024)) MiB," \
	"$((rss8b / 1024)) MiB after 2 MB of output in one ($(ratio "$rss8" "$rss1")x)"
echo "RSS of the coordinator (screen of one session, after the cats): $((crss / 1024)) MiB"
