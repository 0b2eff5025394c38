#!/usr/bin/env bash
# bench/term-cpu.sh - instructions (callgrind) the coordinator and the
# `lazaret run` client spend per MB of a `cat` in an 80x22 tmux pane: both run
# under callgrind with instrumentation off, switched on for the cat only
# (callgrind_control), so the figure holds on a loaded machine where times do
# not. The coordinator is started by hand (lazaret coordinator), the client
# finds it listening. Figures, never assertions. SIZE_MB (default 5).
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
need_stack
need_default_image
command -v callgrind_control >/dev/null || skip "valgrind not installed"
command -v tmux >/dev/null || skip "tmux not installed"
SIZE_MB=${SIZE_MB:-5}
lz_domain cpu
TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane_has() { "${TM[@]}" capture-pane -p -t run | grep -qF -- "$1"; }
VG=(valgrind --tool=callgrind --instr-atstart=no)
"${TM[@]}" new-session -d -s coord -x 80 -y 22 -c "$T" "$(as_user_line "${VG[@]}" \
	--callgrind-out-file="$T/cg.coord" lazaret coordinator --profile default --workspace "$canon" \
	--mode isolated) 2>$T/coord.err; sleep 600"
wait_for 120 test -S "$sock" || { cat "$T/coord.err"; fail "no coordinator socket"; }
"${TM[@]}" new-session -d -s run -x 80 -y 22 -c "$T" "$(as_user_line "${VG[@]}" \
	--callgrind-out-file="$T/cg.client" lazaret run -w "$repo") 2>$T/client.err; sleep 600"
wait_for 120 pane_has "/workspace#" || fail "no lazaret run prompt"
"${TM[@]}" send-keys -t run "yes 'Lazaret bench line: the quick brown fox jumps over the lazy dog 0123456789' | head -c ${SIZE_MB}M >/tmp/f.txt; clear; echo MADE-\$((6*7))" Enter
wait_for 120 pane_has "MADE-42" || fail "cannot make the file"
cpid=$(pgrep -u "$LZ_USER" -f 'callgrind.*lazaret coordinator' | head -1)
clpid=$(pgrep -u "$LZ_USER" -f 'callgrind.*lazaret run' | head -1)
[ -n "$cpid" ] && [ -n "$clpid" ] || fail "no coordinator ($cpid) or client ($clpid) under callgrind"
cgc() { as_user callgrind_control "$@" >/dev/null 2>&1; }
cgc -i on "$cpid"; cgc -i on "$clpid"
"${TM[@]}" send-keys -t run "cat /tmp/f.txt; echo DONE-\$((6*7))" Enter
wait_for 600 pane_has "DONE-42" || fail "the cat did not end"
cgc -i off "$cpid"; cgc -i off "$clpid"
cgc -d "$cpid"; cgc -d "$clpid"
wait_for 30 sh -c "ls $T/cg.coord.* $T/cg.client.* >/dev/null 2>&1" || fail "no callgrind dumps"
per_mb() { # dump: instructions per MB
	callgrind_annotate "$1" 2>/dev/null | awk -v mb="$SIZE_MB" '/PROGRAM TOTALS/ {
		gsub(",", "", $1); printf "%.1fM", $1 / mb / 1e6; exit }'
}
echo "cat of $SIZE_MB MB in lazaret run, 80x22 tmux pane, instructions per MB (callgrind):"
echo "  coordinator: $(per_mb "$(ls "$T"/cg.coord.* | head -1)")"
echo "  client:      $(per_mb "$(ls "$T"/cg.client.* | head -1)")"
"${TM[@]}" send-keys -t run "exit" Enter
