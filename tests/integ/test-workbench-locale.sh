#!/usr/bin/env bash
# test-workbench-locale.sh - the workbench under a POSIX locale (LANG=C, as
# after `su - lazaret`): the side panel's line and the dialogs' boxes are
# drawn with the terminal's line drawing (ACS), not lost; non-ASCII output of
# the tab shows as '?' without shifting the row. Under UTF-8, wide and
# combining characters still land in the right columns. (tmux's capture
# shows ACS line drawing as the VT100 letters: x is a vertical line, l k the
# top corners, q a horizontal line; attached, the user sees the lines.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain loc
# a wide CJK character, e + combining acute, then a marker column
show_text='clear; printf "W\344\270\255|e\314\201|end\n"'

line_shown() { pane | grep -aq '^W.*|end'; }
panel_edge() { pane | sed -n '2,29p' | LC_ALL=C.UTF-8 sed -E 's/^(.{80})(.).*/\2/' | sort -u | tr -d '\n'; }
# the text in the tab, as drawn (first 80 columns, trailing blanks cut)
text_line() {
	"${TM[@]}" send-keys -t wb "$show_text" Enter
	wait_for 10 line_shown || show_fail "the text did not show"
	pane | grep -a -m1 '^W.*|end' | cut -c1-80 | sed 's/ *$//'
}
stop() {
	"${TM[@]}" send-keys -t wb C-a x y
	wait_for 20 pane_has "wb-rc=0" || show_fail "the workbench did not end"
	"${TM[@]}" kill-session -t wb
}
start() { # LC_ALL value
	local saved=("${LZ_ENV[@]}")
	LZ_ENV+=(LC_ALL="$1" LANG="$1")
	"${TM[@]}" new-session -d -s wb -x 120 -y 30 -c "$T" "$(wb_line -w "$repo")"
	LZ_ENV=("${saved[@]}")
	wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt under LC_ALL=$1"
}

# --- POSIX locale
start C
pane_has "Escalations (0)" || show_fail "no side panel"
# the panel's left edge: its frames' line drawing on every row between the
# bars (a box's corners and side, an empty list's rule), never a letter of text
edge=$(panel_edge)
case $edge in
	*[!lxmq]*) show_fail "the panel's edge under LANG=C is [$edge], not line drawing" ;;
	?*) note "ok: the panel's edge is ACS line drawing ($edge) on every row" ;;
	*) show_fail "no panel edge under LANG=C" ;;
esac
"${TM[@]}" send-keys -t wb C-a '?'
wait_for 5 pane_has "lazaret-workbench keys" || show_fail "no help under LANG=C"
top=$(pane | grep -m1 'lazaret-workbench keys')
case $top in
	*'┌'*'┐'* | *'l'*'k'*) note "ok: the help's box has its corners" ;;
	*) show_fail "the help box lost its corners under LANG=C: [$top]" ;;
esac
pane | grep -q '[─q][─q][─q][─q][─q][─q]' || show_fail "the help box has no horizontal line"
"${TM[@]}" send-keys -t wb q
wait_for 5 pane_lacks "lazaret-workbench keys" || show_fail "q did not close the help"
line=$(text_line)
# the wide char: ? and its second column blank; the mark dropped from its e
assert_eq "$line" "W? |e|end" "non-ASCII shows as ? without shifting the row"
stop

# --- UTF-8: box characters, a wide char over two columns, a combining mark on its base
start C.UTF-8
edge=$(panel_edge)
# sorted: the rule, the top corner, the side, the bottom corner
assert_eq "$edge" "$(printf '%s\n' ─ ┌ │ └ | LC_ALL=C.UTF-8 sort -u | tr -d '\n')" \
	"the panel's edge is box drawing under UTF-8 (rule, corners, side)"
line=$(text_line)
assert_eq "$line" "$(printf 'W\344\270\255|e\314\201|end')" "wide and combining characters drawn right under UTF-8"
stop
