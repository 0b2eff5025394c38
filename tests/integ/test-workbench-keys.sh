#!/usr/bin/env bash
# test-workbench-keys.sh - keys with modifiers reach the tab's program as xterm
# sends them (Ctrl-Left for readline's word moves, Alt-arrows, Ctrl-Home,
# Ctrl-PgUp, Ctrl-Delete, modified F-keys), for a user running the workbench
# in tmux (TERM=tmux-256color, whose terminfo names them kLFT5, kRIT3...).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
# ncurses-base ships tmux-256color with the modified keys; older ones lack them
infocmp -x tmux-256color 2>/dev/null | grep -q 'kLFT5=' ||
	skip "tmux-256color terminfo without kLFT5 (ncurses-base/ncurses-term)"
need_stack
need_default_image

lz_domain wsk
pane_line() { pane | grep -qxF -- "$1"; }

# what tmux gives a user's programs: its own TERM, in the pane and in the env
wb=$(TERM=tmux-256color as_user_line lazaret-workbench -w "$repo")
"${TM[@]}" start-server \; set -g default-terminal tmux-256color \; \
	new-session -d -s wb -x 80 -y 24 -c "$T" "$wb; echo wb-rc=\$?; sleep 600"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in the tab"

# cat -v shows each key's bytes (^[ for Esc), one key to a line after its label
"${TM[@]}" send-keys -t wb 'clear; stty -echo -icanon; echo cat-ready; cat -v; stty sane' Enter
wait_for 20 pane_line "cat-ready" || show_fail "cat did not start in the tab"
check_key() { # tmux-key-name expected-cat-v-line
	"${TM[@]}" send-keys -t wb -l "$1="
	"${TM[@]}" send-keys -t wb "$1" Enter
	wait_for 10 pane_line "$1=$2" || show_fail "$1 reached the tab's program as something else than $2"
}
n=0
while read -r key want; do
	check_key "$key" "$want"
	n=$((n + 1))
done <<'EOF'
C-Left ^[[1;5D
C-Right ^[[1;5C
M-Left ^[[1;3D
M-Right ^[[1;3C
S-Up ^[[1;2A
S-Down ^[[1;2B
M-Up ^[[1;3A
C-S-Left ^[[1;6D
C-M-Right ^[[1;7C
C-Home ^[[1;5H
C-End ^[[1;5F
S-Home ^[[1;2H
S-End ^[[1;2F
C-PPage ^[[5;5~
C-NPage ^[[6;5~
C-DC ^[[3;5~
S-IC ^[[2;2~
C-F1 ^[[1;5P
S-F5 ^[[15;2~
M-F12 ^[[24;3~
C-F10 ^[[21;5~
Left ^[[D
F5 ^[[15~
M-x ^[x
EOF
note "ok: $n keys with and without modifiers reach the tab's program as xterm sends them"

# Ctrl-C still interrupts; readline's word moves then edit a real command line
# (bound as Debian's /etc/inputrc does; the default image has no inputrc)
"${TM[@]}" send-keys -t wb C-c
wait_for 10 pane_has "/workspace#" || show_fail "C-c did not stop cat"
"${TM[@]}" send-keys -t wb -l "clear; bind '\"\\e[1;5D\": backward-word'; bind '\"\\e[1;5C\": forward-word'; bind '\"\\e[1;3D\": backward-word'"
"${TM[@]}" send-keys -t wb Enter
"${TM[@]}" send-keys -t wb -l 'echo one three'
"${TM[@]}" send-keys -t wb C-Left
"${TM[@]}" send-keys -t wb -l 'two '
"${TM[@]}" send-keys -t wb M-Left M-Left C-Right
"${TM[@]}" send-keys -t wb -l 'X'
"${TM[@]}" send-keys -t wb Enter
wait_for 10 pane_line "oneX two three" || show_fail "Ctrl/Alt-arrow word moves did not edit the bash command line"
note "ok: C-Left, M-Left and C-Right move by words in the tab's bash"
