# tests/integ/lib-wb.sh - the workbench in a private tmux server (sourced after
# lib.sh): skips without the workbench or tmux, and the pane helpers.
[ -x "$T/bin/lazaret-workbench" ] || skip "no lazaret-workbench built"
command -v tmux >/dev/null || skip "tmux not installed"
LZ_ENV+=(LAZARET_WORKBENCH_STATE="$T/wb.tabs")
# A returning user: the first start's tour was dismissed (test-workbench-tour
# starts without this mark).
LZ_ENV+=(XDG_STATE_HOME="$T/home/state")
mkdir -p "$T/home/state/lazaret" && : >"$T/home/state/lazaret/tour-seen"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/state"

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane() { "${TM[@]}" capture-pane -p -t wb; }
pane_has() { pane | grep -qF -- "$1"; }
pane_lacks() { ! pane_has "$1"; }
show_fail() { pane; fail "$1"; }
# a line typed into the pane as it is, then Enter
type_line() { "${TM[@]}" send-keys -t wb -l "$1"; "${TM[@]}" send-keys -t wb Enter; }
# a tmux pane command: the workbench, then its exit status, kept on screen
wb_line() { echo "$(as_user_line lazaret-workbench "$@"); echo wb-rc=\$?; sleep 600"; }
# Detach the workbench in session wb (prefix key $1), then attach it again
# in a new session wb of $2 columns and $3 rows.
wb_reattach() {
	"${TM[@]}" send-keys -t wb "$1" d
	wait_for 10 pane_has "wb-rc=0" || show_fail "prefix d did not detach"
	"${TM[@]}" kill-session -t wb
	"${TM[@]}" new-session -d -s wb -x "$2" -y "$3" -c "$T" "$(wb_line attach)"
}
# The request view's code ("a K7M Enter: approve & run"), once it is armed.
wb_code() { pane | grep -o 'a [A-Z0-9][A-Z0-9][A-Z0-9] Enter: ' | head -1 | cut -c3-5; }
# In the open request view: wait until it takes keys, then a, its code, Enter
# (as a human does: three separate key presses). $1: what approving does.
wb_approve() {
	local verb=${1:-approve & run} code
	wait_for 5 pane_has " Enter: $verb" || show_fail "the request view did not arm for [$verb]"
	code=$(wb_code)
	[ -n "$code" ] || show_fail "no code in the request view"
	"${TM[@]}" send-keys -t wb a
	"${TM[@]}" send-keys -t wb -l "$code"
	"${TM[@]}" send-keys -t wb Enter
}
