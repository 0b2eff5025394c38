#!/usr/bin/env bash
# test-workbench-review-big.sh - the review view on a large agent branch
# (10,000 new files and one 50 MB file) in the real workbench (tmux, real
# podman + runsc, real git): the file list and the big file's diff show
# their first page while git still has output to give, a key is answered
# then, and the workbench's RSS stays far below the diff's size (git waits
# on the full pipe; only a window of lines is kept), even after G has read
# the whole diff. No timing here: bench/review.sh measures it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain wbbig
cp "$LZ_SRC/tests/integ/make-big-review.py" "$T/"
chmod 0755 "$T/make-big-review.py"
lines=$(as_user python3 "$T/make-big-review.py" "$repo" 10000 50)
note "agent branch: 10,000 files and 0big.txt of $lines lines (50 MB)"

"${TM[@]}" new-session -d -s wb -x 160 -y 40 -c "$T" "$(wb_line -w "$repo")"
wait_for 90 pane_has "/workspace#" || show_fail "no shell prompt"
wbpid=$(pgrep -u "$LZ_USER" -f "^lazaret-workbench -w $repo\$" | head -1)
[ -n "$wbpid" ] || fail "no workbench process"
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$wbpid/status"; }
# The workbench's own git diff of the big file (its child), alive?
diff_git() { pgrep -P "$wbpid" -f -- "-- 0big.txt\$" >/dev/null; }

"${TM[@]}" send-keys -t wb C-a R
wait_for 60 pane_has " A 0big.txt" || show_fail "the file list did not show its first page"
pane_has "Commits (1)" || show_fail "no commit list"
"${TM[@]}" send-keys -t wb j
wait_for 10 sh -c "${TM[*]} capture-pane -p -t wb | grep -q ' A many/f00000.txt'" ||
	show_fail "the list did not answer j"
"${TM[@]}" send-keys -t wb k Enter
wait_for 30 pane_has "+line 0000001 xxxx" || show_fail "the big file's diff did not show"
pane_has "lines 1-" || show_fail "no position line"
diff_git || fail "git diff of 0big.txt is not running: was it read whole?"
"${TM[@]}" send-keys -t wb PageDown
wait_for 10 pane_has "+line 0000050 xxxx" || show_fail "PgDn was not answered"
pane_lacks "+line 0000001 xxxx" || show_fail "PgDn did not move the view"
diff_git || fail "git diff ended: the view read more than it needed"
rss=$(rss_kb)
[ "$rss" -lt 40960 ] || fail "the workbench holds $rss kB while showing the big diff"
note "ok: first page shown and keys answered while git still had output; RSS $rss kB"

# / finds text further on, reading on as needed
"${TM[@]}" send-keys -t wb / "line 0020000" Enter
wait_for 30 pane_has "+line 0020000 xxxx" || show_fail "/ did not find a later line"
# G reads everything, keeping a window: the memory stays small
"${TM[@]}" send-keys -t wb G
last=$(printf '+line %07d xxxx' "$lines")
wait_for 90 pane_has "$last" || show_fail "G did not reach the end"
wait_for 10 pane_has "of $((lines + 6))" || show_fail "the position does not say the whole length"
rss=$(rss_kb)
[ "$rss" -lt 40960 ] || fail "after reading the whole 50 MB diff the workbench holds $rss kB"
note "ok: G read all $lines lines; RSS $rss kB"
"${TM[@]}" send-keys -t wb g
wait_for 30 pane_has "+line 0000001 xxxx" || show_fail "g did not come back to the start"
"${TM[@]}" send-keys -t wb q q
wait_for 10 pane_lacks "Commits (1)" || show_fail "q q did not close the view"
"${TM[@]}" send-keys -t wb C-a x y
wait_for 30 pane_has "wb-rc=0" || show_fail "closing the tab did not end the workbench"
