#!/usr/bin/env bash
# test-workbench-help.sh - help and discoverability (issue 28 item 7) in the
# real workbench (tmux, real podman + runsc):
#   - the first start shows a one-screen tour over everything; dismissed, it
#     leaves a mark in the user's state directory ($XDG_STATE_HOME/lazaret)
#     and never shows again, not after detach and attach, not in a new
#     workbench;
#   - prefix ? starts with what works where the keys go (the tab), and /
#     searches the page;
#   - ? in the focused panel shows that list's keys (the Audit list's Enter);
#   - / in a list moves the selection to the item holding the text (Enter
#     then opens that audit row).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain help
keys() { "${TM[@]}" send-keys -t wb "$@"; }
mark=$T/home/state/lazaret/tour-seen
rm -f "$mark"	# a first start

# --- the tour, once
"${TM[@]}" new-session -d -s wb -x 160 -y 45 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "Welcome to lazaret-workbench" || show_fail "no tour at the first start"
for s in "Side panel (right)  Escalations" "Egress       where the sandbox connects" \
	"after it:" "it will not show again"; do
	assert_contains "$(pane)" "$s" "the tour says [$s]"
done
assert_not_contains "$(pane)" "Escalations (0)" "the tour stands alone (the panel is not seen beside it)"
keys -l "echo typed-at-tour"
sleep 0.5
[ -e "$mark" ] && fail "the mark was written before the tour was dismissed"
keys q
wait_for 10 pane_lacks "Welcome to lazaret-workbench" || show_fail "q did not close the tour"
wait_for 30 pane_has "/workspace#" || show_fail "no shell prompt after the tour"
assert_not_contains "$(pane)" "typed-at-tour" "keys typed at the tour did not reach the tab"
wait_for 5 test -e "$mark" || fail "dismissing the tour left no mark in \$XDG_STATE_HOME/lazaret"
note "ok: the first start shows the tour; q dismisses it and leaves its mark"
keys C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "detach failed"
"${TM[@]}" kill-session -t wb
"${TM[@]}" new-session -d -s wb -x 160 -y 45 -c "$T" "$(wb_line attach)"
wait_for 30 pane_has "0:default help running" || show_fail "attach did not restore the tab"
sleep 1
assert_not_contains "$(pane)" "Welcome to lazaret-workbench" "the tour does not come back"
note "ok: the tour never comes back once dismissed"

# --- prefix ?: the tab's keys first, / searches the page
keys C-a '?'
wait_for 5 pane_has "lazaret-workbench keys: the tab" || show_fail "prefix ? opened no help for the tab"
assert_contains "$(pane)" "Here, in the tab:" "the help starts with where the keys go"
keys /
keys -l "copy-url"
wait_for 5 pane_has "/copy-url" || show_fail "/ in the help did not take a query"
keys Enter
wait_for 5 pane_has "n N next" || show_fail "the help's search was not kept"
assert_contains "$(pane)" "C-a u        copy-url" "the search shows the line holding it"
keys q
wait_for 5 pane_lacks "lazaret-workbench keys" || show_fail "q did not close the help"
note "ok: prefix ? starts with the tab's keys; / finds a key in the page"

# --- ? in the focused panel: that list's keys
keys C-a Tab
wait_for 5 pane_has "PANEL" || show_fail "prefix Tab did not focus the panel"
keys Tab	# Escalations -> Audit
wait_for 5 pane_has "┏ Audit (" || show_fail "Tab did not move to the Audit list"
keys '?'
wait_for 5 pane_has "lazaret-workbench keys: the Audit list" || show_fail "? in the Audit list opened no help for it"
assert_contains "$(pane)" "Enter  the row whole" "the Audit list's help names its Enter"
keys q
wait_for 5 pane_has "┏ Audit (" || show_fail "closing the help lost the panel's focus"
note "ok: ? in the focused panel shows what works in that list"

# --- / in a list: the selection to the item holding the text
keys /
keys -l "started the sandbox"
wait_for 5 pane_has "/started the sandbox_" || show_fail "/ in the list shows no query"
keys Enter
keys Enter
wait_for 5 pane_has "Audit row" || show_fail "Enter after the search opened no row"
assert_contains "$(pane)" "kind      domain.start (sandbox)" "the search selected the sandbox's start"
keys q
keys Escape
note "ok: / in a list moves the selection to the item holding the text"
sleep 0.5
keys C-a x y
wait_for 20 pane_has "wb-rc=0" || show_fail "closing the tab did not end the workbench"
