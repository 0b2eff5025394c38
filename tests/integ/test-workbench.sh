#!/usr/bin/env bash
# test-workbench.sh - lazaret-workbench as a user meets it, in a private tmux
# server on real podman + runsc: two tabs on two domains (two coordinators),
# typed input and output in the right tab, vim in a tab, detach with the
# shells still running and attach with their screens restored at once,
# resize reaching the sandbox, Tab completing the new tab's workspace, closing the tabs tearing the domains down.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain ws1
repo1=$repo canon1=$canon
lz_domain ws2
repo2=$repo canon2=$canon
status_has() { pane | tail -1 | grep -qF -- "$1"; }
gone() { [ "$(coord_count "$1")" = 0 ] && [ -z "$(as_user podman ps -aq --filter "name=^$2\$")" ]; }

# --- first tab: the workspace given, the default profile
"${TM[@]}" new-session -d -s wb -x 80 -y 24 -c "$T" "$(wb_line -w "$repo1")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt in the first tab"
assert_contains "$(pane | head -1)" "0:default ws1 running" "tab bar names profile, workspace, state"
assert_contains "$(pane | tail -1)" "C-a" "status line shows the prefix key hints"
"${TM[@]}" send-keys -t wb 'echo A$((6*7))A; stty size' Enter
wait_for 10 pane_has "A42A" || show_fail "typed command gave no output in tab 0"
wait_for 5 pane_has "22 80" || show_fail "PTY not the terminal area (22x80)"
note "ok: tab 0 runs a shell of 22x80 (80x24 minus tab bar and status line)"

# --- second tab on another domain through the new-tab dialog
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c did not open the new-tab dialog"
assert_contains "$(pane)" "$canon1" "workspace field starts at the current tab's workspace"
"${TM[@]}" send-keys -t wb Tab C-u
# Tab completes directories like bash: ws1 and ws2 share "ws", then "2" is unique
"${TM[@]}" send-keys -t wb -l "$T/w"
"${TM[@]}" send-keys -t wb Tab
wait_for 5 pane_has "$T/ws " || show_fail "Tab did not complete $T/w to the common prefix $T/ws"
"${TM[@]}" send-keys -t wb 2 Tab
wait_for 5 pane_has "$T/ws2/" || show_fail "Tab did not complete $T/ws2 to $T/ws2/"
note "ok: Tab in the workspace field completes like bash (common prefix, then the unique directory)"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 pane_has "1:default ws2 running" || show_fail "no second tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 1"
"${TM[@]}" send-keys -t wb 'echo B$((7*8))B; cat README' Enter
wait_for 10 pane_has "B56B" || show_fail "typed command gave no output in tab 1"
pane_lacks "A42A" || show_fail "tab 1 shows tab 0's output"
assert_eq "$(coord_count "$canon1")" 1 "one coordinator for ws1"
assert_eq "$(coord_count "$canon2")" 1 "one coordinator for ws2"
"${TM[@]}" send-keys -t wb C-a 0
wait_for 5 pane_has "A42A" || show_fail "prefix 0 did not show tab 0"
pane_lacks "B56B" || show_fail "tab 0 shows tab 1's output"
note "ok: each tab's output lands in its own tab"

# --- vim in a tab: alternate screen, keys, and back to the shell
"${TM[@]}" send-keys -t wb 'clear; vim /tmp/v.txt' Enter
wait_for 20 pane_has '"/tmp/v.txt"' || show_fail "vim did not start"
"${TM[@]}" send-keys -t wb i 'typed in vim' Escape
wait_for 5 pane_has "typed in vim" || show_fail "text typed in vim not shown"
"${TM[@]}" send-keys -t wb Up Down Left Right
"${TM[@]}" send-keys -t wb ':wq' Enter
# vim's buffer leaves the screen only when its alternate screen goes (the file
# name on the last line is gone as soon as -- INSERT -- shows); typing on
# before that hands the next line to vim, which drops it on exit
wait_for 10 pane_lacks "typed in vim" || show_fail "vim did not quit"
"${TM[@]}" send-keys -t wb 'cat /tmp/v.txt | tr a-z A-Z' Enter
wait_for 10 pane_has "TYPED IN VIM" || show_fail "vim did not write the file"
note "ok: vim runs in a tab, writes and quits"

# --- scrollback: prefix [ then PgUp shows what scrolled off; q returns
"${TM[@]}" send-keys -t wb 'clear; seq 1000 1300; echo S$((5*5))S' Enter
wait_for 10 pane_has "S25S" || show_fail "seq gave no output"
"${TM[@]}" send-keys -t wb C-a '['
wait_for 5 pane_has "SCROLL" || show_fail "prefix [ did not enter scrollback mode"
"${TM[@]}" send-keys -t wb PPage
wait_for 5 pane_has "1270" || show_fail "PgUp did not scroll back"
pane_lacks "1295" || show_fail "PgUp left the newest lines in view"
"${TM[@]}" send-keys -t wb q
wait_for 5 pane_has "1295" || show_fail "q did not return to the live screen"
pane_lacks "SCROLL" || show_fail "still in scrollback mode after q"
note "ok: scrollback mode pages back through the tab's history"

# --- side panel
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_has "Escalations (0)" || show_fail "prefix s did not show the side panel"
assert_contains "$(pane)" "no events yet (or network: none)" "egress log says why it is empty"
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_lacks "Escalations (0)" || show_fail "prefix s did not hide the side panel"

# --- escalations: the tab and the queue light up; approve and deny from the panel
mark=$T/marks; mkdir -p "$mark"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$mark"
"${TM[@]}" send-keys -t wb "clear; lazaret-escalate --justify wb-approve -- touch $mark/approved; echo esc-rc1=\$?" Enter
wait_for 20 pane_has "!0:default ws1" || show_fail "a waiting escalation did not mark its tab"
wait_for 5 pane_has "Escalations (1)" || show_fail "the queue did not show the request"
assert_contains "$(pane)" "tab 0 default: touch" "queue names the tab and the command"
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb a
wait_for 5 pane_has "Command, 2 words:" || show_fail "a in the focused panel did not open the request"
assert_not_contains "$(pane)" "esc-rc1=" "a in the panel opened the request, approved nothing"
wb_approve
wait_for 20 pane_has "esc-rc1=0" || show_fail "approved request did not finish"
[ -e "$mark/approved" ] || fail "the approved command did not run on the host"
wait_for 5 pane_has "Escalations (0)" || show_fail "the queue still holds the approved request"
wait_for 5 pane_has 'decision approved touch' || show_fail "panel history lacks the decision, in words"
note "ok: a, the code and Enter in the request view approved; the command ran; the history shows it"
# after a decision the keys go to the tab again
"${TM[@]}" send-keys -t wb "clear; lazaret-escalate --justify wb-deny -- touch $mark/denied; echo esc-rc2=\$?" Enter
wait_for 20 pane_has "Escalations (1)" || show_fail "second request not queued"
"${TM[@]}" send-keys -t wb C-a Tab
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "Enter: approve & run" || show_fail "Enter did not open the request"
assert_contains "$(pane)" "wb-deny" "prompt shows the justification"
"${TM[@]}" send-keys -t wb d
wait_for 20 pane_has "esc-rc2=126" || show_fail "denied request did not exit 126"
[ ! -e "$mark/denied" ] || fail "the denied command ran"
"${TM[@]}" send-keys -t wb C-a s
wait_for 5 pane_lacks "Escalations (0)" || show_fail "panel not hidden"
aud=$(lz audit -w "$repo1" --json)
assert_contains "$aud" '"detail":{"action":"approve"}' "coordinator audited the approval"
assert_contains "$aud" '"detail":{"action":"deny"}' "coordinator audited the denial"
note "ok: the prompt's [D]eny refused; both decisions are in the audit trail"

# --- detach: the shells keep running; attach: screens back before any new output
"${TM[@]}" send-keys -t wb 'clear; sleep 2; echo M$((8*9))M' Enter
wait_for 10 pane_has "M72M" || show_fail "marker not printed"
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "[detached: 2 sessions" || show_fail "prefix d did not detach"
wait_for 5 pane_has "wb-rc=0" || show_fail "detach did not exit 0"
assert_eq "$(grep -c '^[0-9]' "$T/wb.tabs")" 2 "state file lists both tabs"
assert_eq "$(coord_count "$canon1")" 1 "ws1's coordinator still runs after detach"
st=$(lz status -w "$repo1")
assert_contains "$st" "sessions:    1" "ws1's shell still runs after detach"
"${TM[@]}" kill-session -t wb
"${TM[@]}" new-session -d -s wb -x 80 -y 24 -c "$T" "$(wb_line attach)"
wait_for 10 pane_has "M72M" || show_fail "attach did not restore tab 0's screen"
assert_contains "$(pane | head -1)" "1:default ws2" "attach restored both tabs"
"${TM[@]}" send-keys -t wb 'echo C$((9*9))C' Enter
wait_for 10 pane_has "C81C" || show_fail "the re-attached shell does not answer"
"${TM[@]}" send-keys -t wb C-a 1
wait_for 5 pane_has "B56B" || show_fail "attach did not restore tab 1's screen"
note "ok: detach keeps the shells, attach restores tabs and screens"

# --- resize: every tab's PTY follows (at 120 columns the side panel takes 40)
"${TM[@]}" resize-window -t wb -x 120 -y 40
wait_for 5 pane_has "Escalations (0)" || show_fail "the side panel not shown at 120 columns"
# The resize travels workbench -> coordinator -> PTY asynchronously: ask again until it lands.
size_is() { "${TM[@]}" send-keys -t wb 'clear; stty size' Enter; sleep 0.5; pane_has "$1"; }
wait_for 10 size_is "38 80" || show_fail "resize did not reach tab 1's PTY"
"${TM[@]}" send-keys -t wb C-a 0
wait_for 10 size_is "38 80" || show_fail "resize did not reach tab 0's PTY"
note "ok: resize reaches every tab's sandbox shell"

# --- a bad theme asked for by --theme or $LAZARET_THEME: an error before the
# screen starts, exit 1 (like a bad --prefix); a bad workbench.theme in the
# config: the default theme, and the config's file and line on the status
# line until a key; the config's workbench.prefix is the prefix
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "second detach failed"
echo 'tabbar: { active: { fg: nocolour } }' >"$T/bad.yaml"
chmod 644 "$T/bad.yaml"
for how in "--theme $T/bad.yaml" "LAZARET_THEME=$T/bad.yaml"; do
	"${TM[@]}" kill-session -t wb
	case $how in
	--theme*) line=$(as_user_line lazaret-workbench attach --theme "$T/bad.yaml") ;;
	*) line=$(LZ_ENV+=("$how"); as_user_line lazaret-workbench attach) ;;
	esac
	"${TM[@]}" new-session -d -s wb -x 100 -y 30 -c "$T" "$line 2>$T/theme.err; echo wb-rc=\$?; sleep 600"
	wait_for 10 pane_has "wb-rc=" || show_fail "the workbench did not stop at a bad theme ($how)"
	assert_contains "$(pane)" "wb-rc=1" "a bad theme from ${how%%[ =]*} exits 1"
	pane_lacks "0:default ws1" || show_fail "the screen started with a bad theme ($how)"
	assert_contains "$(cat "$T/theme.err")" "lazaret-workbench: ${how%%[ =]*}: " "the error names where the theme came from"
	assert_contains "$(cat "$T/theme.err")" "bad.yaml:1" "the error names the theme file and line"
done
assert_contains "$(cat "$T/theme.err")" "LAZARET_THEME:" "\$LAZARET_THEME named"
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nworkbench:\n  prefix: C-b\n  theme: %s\n' \
	"$T/bad.yaml" >"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config/lazaret"
"${TM[@]}" kill-session -t wb
"${TM[@]}" new-session -d -s wb -x 200 -y 30 -c "$T" "$(wb_line attach)"
wait_for 10 pane_has "0:default ws1" || show_fail "no workbench with a bad workbench.theme"
assert_contains "$(pane | tail -1)" "config.yaml:6: workbench.theme: " "the status line names the config's file and line"
sleep 11
assert_contains "$(pane | tail -1)" "config.yaml:6: workbench.theme: " "the warning stays until a key"
"${TM[@]}" send-keys -t wb -l ' '
wait_for 5 status_has "C-b: c new" ||
	show_fail "status line does not show the config's prefix C-b after a key"
assert_not_contains "$(pane | tail -1)" "C-a" "the config's prefix replaces C-a"
note "ok: a bad --theme/\$LAZARET_THEME stops before the screen; a bad workbench.theme stays on the status line until a key"

# --- closing every tab ends the sessions and tears both domains down
"${TM[@]}" send-keys -t wb C-b x
wait_for 5 pane_has "? its program still runs" || show_fail "prefix x did not ask first"
"${TM[@]}" send-keys -t wb y
wait_for 10 pane_lacks "1:default" || show_fail "prefix x, y did not close a tab"
rm "$T/home/config/lazaret/config.yaml"
"${TM[@]}" send-keys -t wb C-b x y
wait_for 30 gone "$canon1" "lazaret-default-$(printf '%s' "default:$canon1" | sha256sum | cut -c1-12)" ||
	fail "ws1 not torn down after its tab closed"
wait_for 30 gone "$canon2" "lazaret-default-$(printf '%s' "default:$canon2" | sha256sum | cut -c1-12)" ||
	fail "ws2 not torn down after its tab closed"
[ ! -e "$T/wb.tabs" ] || fail "state file left after the last tab closed"
note "ok: closing the tabs ends their sessions; no session, no client: torn down"

# --- tabs recorded for sessions that are gone (a reboot, `lazaret stop`):
# `attach` says so and fails; a plain start opens a fresh tab instead
"${TM[@]}" kill-session -t wb 2>/dev/null || true
printf '7\tisolated\tdefault\t%s\n' "$canon1" >"$T/wb.tabs"
[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/wb.tabs"
"${TM[@]}" new-session -d -s wb -x 80 -y 24 -c "$T" "$(wb_line -w "$repo1")"
wait_for 40 pane_has "0:default ws1 running" || show_fail "no fresh tab when the saved session was gone"
"${TM[@]}" send-keys -t wb 'echo fresh-$((6*7))' Enter
wait_for 10 pane_has "fresh-42" || show_fail "the fresh tab's shell does not answer"
note "ok: saved tabs whose sessions are gone give way to a fresh tab"
"${TM[@]}" send-keys -t wb C-a x y
wait_for 30 gone "$canon1" "lazaret-default-$(printf '%s' "default:$canon1" | sha256sum | cut -c1-12)" ||
	fail "ws1 not torn down after the fresh tab closed"
