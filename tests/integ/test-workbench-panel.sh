#!/usr/bin/env bash
# test-workbench-panel.sh - the side panel in the real workbench (tmux, real
# podman + runsc): shown by default from 100 columns, hidden below so the tab
# keeps the whole width (never squeezed), shown again when wide; hidden with
# prefix s it stays hidden across detach and attach, and shown again likewise.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain panel
reattach() {
	"${TM[@]}" send-keys -t wb C-a d
	wait_for 10 pane_has "wb-rc=0" || show_fail "detach failed"
	"${TM[@]}" kill-session -t wb
	"${TM[@]}" new-session -d -s wb -x 120 -y 30 -c "$T" "$(wb_line attach)"
	wait_for 30 pane_has "0:default panel running" || show_fail "attach did not restore the tab"
}
size_is() { "${TM[@]}" send-keys -t wb 'clear; stty size' Enter; wait_for 10 pane_has "$1"; }

"${TM[@]}" new-session -d -s wb -x 120 -y 30 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt"
pane_has "Escalations (0)" || show_fail "the side panel is not shown by default at 120 columns"
size_is "28 80" || show_fail "the tab is not 80 wide beside a 40-column panel"
note "ok: at 120 columns the panel shows by default, beside an 80-column tab"

# --- narrow: the panel hides itself, the tab gets every column
"${TM[@]}" resize-window -t wb -x 60 -y 30
wait_for 5 pane_lacks "Escalations (0)" || show_fail "the panel squeezes the tab at 60 columns"
size_is "28 60" || show_fail "the tab is not the whole 60 columns"
# asked for, it comes over the tab (the tab keeps its size)
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_has "Escalations" || show_fail "prefix s did not show the panel over a narrow tab"
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_lacks "Escalations" || show_fail "prefix s did not hide the overlay"
"${TM[@]}" resize-window -t wb -x 120 -y 30
wait_for 5 pane_has "Escalations (0)" || show_fail "the panel did not come back at 120 columns"
size_is "28 80" || show_fail "the tab did not give the panel its columns back"
note "ok: below 100 columns the panel hides and the tab keeps its width; wide again, it is back"

# --- hidden, it stays hidden across detach and attach
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_lacks "Escalations (0)" || show_fail "prefix s did not hide the panel"
reattach
sleep 1
pane_lacks "Escalations (0)" || show_fail "the hidden panel came back after attach"
size_is "28 120" || show_fail "the tab is not the whole width with the panel hidden"
note "ok: a hidden panel stays hidden after detach and attach"
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_has "Escalations (0)" || show_fail "prefix s did not show the panel"
reattach
wait_for 5 pane_has "Escalations (0)" || show_fail "the shown panel did not come back after attach"
note "ok: a shown panel is shown after attach"
"${TM[@]}" send-keys -t wb C-a x y
wait_for 20 pane_has "wb-rc=0" || show_fail "closing the tab did not end the workbench"
