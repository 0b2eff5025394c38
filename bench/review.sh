#!/usr/bin/env bash
# bench/review.sh - figures for the workbench's review view (prefix R) on a
# large agent branch (never assertions): FILES new files and a SIZE_MB file
# (default 10,000 and 50, as tests/integ/test-workbench-review-big.sh):
#   - ms from prefix R until the file list's first page is on screen;
#   - ms from Enter on the big file until its diff's first page is on screen;
#   - ms for G to read the whole big diff to its last line;
#   - ms until the header has the surface flags' count (the surface job);
#   - the workbench's RSS after the first page and after G.
# Times are measured by polling tmux (capture-pane every 50 ms), so they
# include up to that. Runs as the test user of tests/integ/lib.sh.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
source "$(dirname "$0")/../tests/integ/lib-wb.sh"
need_stack
need_default_image
FILES=${FILES:-10000}
SIZE_MB=${SIZE_MB:-50}

lz_domain bench-review
cp "$LZ_SRC/tests/integ/make-big-review.py" "$T/"
chmod 0755 "$T/make-big-review.py"
lines=$(as_user python3 "$T/make-big-review.py" "$repo" "$FILES" "$SIZE_MB")
now_ms() { date +%s%3N; }
until_pane() { until pane_has "$1"; do sleep 0.05; done; }

"${TM[@]}" new-session -d -s wb -x 160 -y 40 -c "$T" "$(wb_line -w "$repo")"
wait_for 120 pane_has "/workspace#" || fail "no workbench prompt"
wbpid=$(pgrep -u "$LZ_USER" -f "^lazaret-workbench -w $repo\$" | head -1)
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$wbpid/status"; }

t0=$(now_ms)
"${TM[@]}" send-keys -t wb C-a R
until_pane " A 0big.txt"
t_list=$(($(now_ms) - t0))
t0=$(now_ms)
"${TM[@]}" send-keys -t wb Enter
until_pane "+line 0000001 xxxx"
t_diff=$(($(now_ms) - t0))
rss_first=$(rss)
t0=$(now_ms)
"${TM[@]}" send-keys -t wb G
until_pane "$(printf '+line %07d xxxx' "$lines")"
t_end=$(($(now_ms) - t0))
rss_end=$(rss)
"${TM[@]}" send-keys -t wb q
t0=$(now_ms)
until pane_has "surface: " && pane_lacks "surface: checking"; do sleep 0.05; done
t_surface=$(($(now_ms) - t0))

echo "review view, agent branch of $FILES files + ${SIZE_MB} MB file ($lines lines):"
printf '  %-44s %6d ms\n' "prefix R to the file list's first page" "$t_list"
printf '  %-44s %6d ms\n' "Enter to the big diff's first page" "$t_diff"
printf '  %-44s %6d ms\n' "G to the big diff's last line" "$t_end"
printf '  %-44s %6d ms\n' "surface known (after the above)" "$t_surface"
printf '  %-44s %6d kB\n' "workbench RSS at the first page" "$rss_first"
printf '  %-44s %6d kB\n' "workbench RSS after G" "$rss_end"
"${TM[@]}" send-keys -t wb q C-a x y
