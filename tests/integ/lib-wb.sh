# tests/integ/lib-wb.sh - the workbench in a private tmux server (sourced after
# lib.sh): skips without the workbench or tmux, and the pane helpers.
[ -x "$T/bin/lazaret-workbench" ] || skip "no lazaret-workbench built"
command -v tmux >/dev/null || skip "tmux not installed"
LZ_ENV+=(LAZARET_WORKBENCH_STATE="$T/wb.tabs")

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane() { "${TM[@]}" capture-pane -p -t wb; }
pane_has() { pane | grep -qF -- "$1"; }
pane_lacks() { ! pane_has "$1"; }
show_fail() { pane; fail "$1"; }
# a tmux pane command: the workbench, then its exit status, kept on screen
wb_line() { echo "$(as_user_line lazaret-workbench "$@"); echo wb-rc=\$?; sleep 600"; }
