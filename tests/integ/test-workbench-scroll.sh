#!/usr/bin/env bash
# test-workbench-scroll.sh - scrollback in the real workbench (tmux, real
# podman + runsc): workbench.history from the config sets how many lines a
# tab keeps (more than the old 2,000, and no more than asked); / finds text
# in the history and brings it to the view's top row, n finds the next one;
# y copies the view's top line to the outer terminal's clipboard (OSC 52:
# tmux with set-clipboard on puts it in its buffer) while an agent's own
# OSC 52 never gets there; the help page (prefix ?) covers every mode on one screen.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain scroll
mkdir -p "$T/home/config/lazaret"
printf 'workbench: {history: 3000}\nprofiles:\n  default:\n    image: localhost/lazaret-default:latest\n' \
	>"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config/lazaret"
status_has() { pane | tail -1 | grep -qF -- "$1"; }
top_is() { [ "$(pane | sed -n 2p | sed 's/ *$//')" = "$1" ]; }
find_text() { # text: / text Enter in scrollback mode
	"${TM[@]}" send-keys -t wb /
	wait_for 5 status_has "/" || show_fail "/ did not ask for the text"
	"${TM[@]}" send-keys -t wb -l "$1"
	"${TM[@]}" send-keys -t wb Enter
}

"${TM[@]}" new-session -d -s wb -x 80 -y 24 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt"
"${TM[@]}" send-keys -t wb "seq -f 'X%gX' 1 4000; echo DONE\$((2*3))" Enter
wait_for 20 pane_has "DONE6" || show_fail "seq did not finish"
"${TM[@]}" send-keys -t wb C-a '['
wait_for 5 pane_has "SCROLL" || show_fail "prefix [ did not enter scrollback mode"
# 2,500 lines back: beyond the old 2,000-line history, within the configured 3,000
find_text X1500X
wait_for 5 top_is X1500X || show_fail "/X1500X did not bring the line to the top"
assert_contains "$(pane | tail -1)" "/X1500X: line" "the status line names the match"
note "ok: / finds a line 2,500 lines back (workbench.history: 3000)"
find_text X150
wait_for 5 top_is X1509X || show_fail "/X150 did not find the nearest older match X1509X"
"${TM[@]}" send-keys -t wb n
wait_for 5 top_is X1508X || show_fail "n did not find the next older match"
"${TM[@]}" send-keys -t wb N
wait_for 5 top_is X1509X || show_fail "N did not find the next newer match"
note "ok: n and N step through the matches"
# 3,990 lines back: beyond workbench.history, dropped (memory is bounded)
find_text X10X
wait_for 5 status_has "not found: X10X" || show_fail "a line older than workbench.history was kept"
note "ok: lines beyond workbench.history are gone"
"${TM[@]}" send-keys -t wb q
wait_for 5 pane_has "DONE6" || show_fail "q did not return to the live screen"

# --- clipboard: only the user's y, never the agent's OSC 52
"${TM[@]}" set-option -g set-clipboard on
buffer() { "${TM[@]}" show-buffer 2>/dev/null; }
buffer_is() { [ "$(buffer)" = "$1" ]; }
"${TM[@]}" send-keys -t wb "printf '\\033]52;c;QUdFTlRDTElQ\\a'; echo COPY-\$((6*7))" Enter
wait_for 20 pane_has "COPY-42" || show_fail "the agent's printf did not run"
sleep 1
case "$(buffer)" in *AGENTCLIP*) show_fail "the agent's OSC 52 reached the outer terminal's clipboard" ;; esac
note "ok: an agent printing OSC 52 does not set the tmux buffer"
"${TM[@]}" send-keys -t wb C-a '['
wait_for 5 pane_has "SCROLL" || show_fail "prefix [ did not enter scrollback mode"
# the match is near the bottom, so it is not the top row: y takes the match
find_text COPY-42
wait_for 5 status_has "/COPY-42: line" || show_fail "/COPY-42 was not found"
"${TM[@]}" send-keys -t wb y
wait_for 5 buffer_is COPY-42 || show_fail "y did not put the line in the tmux buffer: [$(buffer)]"
wait_for 5 status_has "copied line" || show_fail "the status line does not say what was copied"
note "ok: the status line says what was copied"
"${TM[@]}" send-keys -t wb g
wait_for 5 pane_lacks "DONE6" || show_fail "g did not go to the oldest lines"
top=$(pane | sed -n 2p | sed 's/ *$//')
"${TM[@]}" send-keys -t wb y
wait_for 5 buffer_is "$top" || show_fail "y after moving did not copy the top line [$top]: [$(buffer)]"
note "ok: y in scrollback copies the match's line, or the top line, to the terminal's clipboard"
"${TM[@]}" send-keys -t wb q

# --- the help page covers every mode
"${TM[@]}" resize-window -t wb -x 100 -y 50
"${TM[@]}" send-keys -t wb C-a '?'
wait_for 5 pane_has "lazaret-workbench keys" || show_fail "prefix ? did not open the help"
for t in "C-a 0-9" "Scrollback (prefix [):" "/ or ?  find text" "Side panel (prefix Tab" \
	"prefix d detaches"; do
	pane_has "$t" || show_fail "the help page lacks [$t]"
done
# the page is longer than 50 rows: a page down shows the rest, as a user would scroll
"${TM[@]}" send-keys -t wb NPage
wait_for 5 pane_has "Review view (prefix R)" || show_fail "PgDn did not show the end of the help page"
for t in "Request view:" "a, the 3-character code shown, Enter: approve" "Review view (prefix R)"; do
	pane_has "$t" || show_fail "the help page lacks [$t]"
done
note "ok: the help page has the prefix keys, scrollback, panel, request view and how to leave"
"${TM[@]}" send-keys -t wb q
"${TM[@]}" send-keys -t wb C-a x y
wait_for 20 pane_has "wb-rc=0" || show_fail "the workbench did not end"
