#!/usr/bin/env bash
# test-workbench-life.sh - "don't lose work" in the real workbench (tmux, real
# podman + runsc): a tab whose program exits stays with its last screen and
# status (remain-on-exit); prefix x on a running tab asks y/n first; a closed
# tab's idle domain is torn down while the workbench runs on; when the last
# tab goes without the user closing it the workbench says why and exits 1.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain life
cname="lazaret-default-$(printf '%s' "default:$canon" | sha256sum | cut -c1-12)"
gone() { [ "$(coord_count "$canon")" = 0 ] && [ -z "$(as_user podman ps -aq --filter "name=^$cname\$")" ]; }

"${TM[@]}" new-session -d -s wb -x 90 -y 24 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt"

# --- remain-on-exit: the shell exits 3, the tab keeps its screen and status
"${TM[@]}" send-keys -t wb 'echo L$((4*4))L; exit 3' Enter
wait_for 15 pane_has "[exited with status 3; prefix x closes this tab]" || show_fail "no exit status in the tab"
assert_contains "$(pane | head -1)" "0:default life exited 3" "the tab bar shows the exit status"
pane_has "L16L" || show_fail "the exited tab lost its last screen"
pane_lacks "wb-rc=" || show_fail "the workbench quit when its only tab's program exited"
wait_for 30 gone || fail "the domain of the exited tab was not torn down"
pane_has "L16L" || show_fail "the last screen went with the domain"
note "ok: the exited tab keeps its screen and status; its idle domain is torn down"

# --- x on a running tab asks; n keeps it; y closes it; the domain goes
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c did not open the new-tab dialog"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 pane_has "1:default life running" || show_fail "no second tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 1"
"${TM[@]}" send-keys -t wb C-a x
wait_for 5 pane_has "close tab 1 (default:life)? its program still runs" || show_fail "x did not ask"
"${TM[@]}" send-keys -t wb n
wait_for 5 pane_lacks "close tab 1" || show_fail "n did not take the question away"
"${TM[@]}" send-keys -t wb 'echo K$((5*5))K' Enter
wait_for 10 pane_has "K25K" || show_fail "n closed the tab or ate the shell"
note "ok: prefix x on a running tab asks; n keeps it running"
"${TM[@]}" send-keys -t wb C-a x
wait_for 5 pane_has "close tab 1" || show_fail "x did not ask again"
"${TM[@]}" send-keys -t wb y
wait_for 10 pane_lacks "1:default" || show_fail "y did not close the tab"
pane_lacks "wb-rc=" || show_fail "the workbench quit with a tab left"
wait_for 30 gone || fail "the closed tab's domain was not torn down while the workbench runs"
note "ok: y closes the tab; its idle domain is torn down at once, not at quit"

# --- an ended tab closes without a question; the last one ends the workbench
"${TM[@]}" send-keys -t wb C-a x
wait_for 10 pane_has "wb-rc=0" || show_fail "closing the last (exited) tab did not end the workbench with 0"
note "ok: an exited tab closes without a question"

# --- the last tab dies without the user: a reason and exit status 1
"${TM[@]}" kill-session -t wb
printf '7\tisolated\tdefault\t%s\n' "$canon" >"$T/wb.tabs"
[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/wb.tabs"
"${TM[@]}" new-session -d -s wb -x 90 -y 24 -c "$T" \
	"$(as_user_line lazaret-workbench attach) 2>$T/attach.err; echo wb-rc=\$?; sleep 600"
wait_for 60 pane_has "wb-rc=" || show_fail "attach to a gone session did not end"
assert_contains "$(pane)" "wb-rc=1" "the workbench exits 1 when its last tab died"
assert_contains "$(cat "$T/attach.err")" "no tab left: default:$canon: session 7 is gone" "it says why"
wait_for 30 gone || fail "domain left after the failed attach"
note "ok: the last tab gone without the user: the reason on stderr, exit 1"
