#!/usr/bin/env bash
# test-workbench-mouse.sh - the workbench's mouse (issue 16 item 10) in tmux
# with real podman + runsc. tmux's send-keys -M needs a real mouse, so the
# SGR reports a terminal sends (ESC [ < b ; x ; y M/m) are typed into the
# pane with send-keys -l. Off (--no-mouse over workbench.mouse: true): the
# outer terminal's mouse mode stays off even when the agent prints the
# sequences that turn it on, and reports do nothing (no tab switch, no
# approval). On: tmux sees the outer terminal asked for ?1000 + ?1006; a
# click on a tab's title selects it; the wheel enters the scrollback and
# leaves it at the bottom; a program in the tab that asked for the mouse gets
# the click in its own encoding, at its own coordinates; a click on a
# waiting escalation opens the request view and never approves, however many
# clicks follow; the agent's ?1003 does not reach the outer terminal.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image

lz_domain mouse
printf 'workbench: {mouse: true}\nprofiles:\n  default:\n    image: localhost/lazaret-default:latest\n' | lz_config

flag() { "${TM[@]}" display -p -t wb "#{$1}"; }
flag_is() { [ "$(flag "$1")" = "$2" ]; }
# The 1-based column of text $1 in row $2 of the pane (0: not there).
col_of() { pane | sed -n "${2}p" | awk -v s="$1" '{ print index($0, s) }'; }
row_of() { pane | grep -nF -- "$1" | head -1 | cut -d: -f1; }
click() { # x y (1-based pane cells): press and release of the left button
	"${TM[@]}" send-keys -t wb -l $'\e'"[<0;$1;$2M"
	"${TM[@]}" send-keys -t wb -l $'\e'"[<0;$1;$2m"
}
wheel() { "${TM[@]}" send-keys -t wb -l $'\e'"[<$((64 + $1));$2;$3M"; }	# 0 up, 1 down
decisions() { lz audit -w "$repo" --json | grep '"esc.decision"' || true; }

# --- off: --no-mouse wins over the config
"${TM[@]}" new-session -d -s wb -x 120 -y 30 -c "$T" "$(wb_line --no-mouse -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt"
assert_eq "$(flag mouse_any_flag)" 0 "--no-mouse: the outer terminal's mouse mode is off"
"${TM[@]}" send-keys -t wb C-a c
wait_for 5 pane_has "New sandbox tab" || show_fail "prefix c did not open the new-tab dialog"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 pane_has "1:default mouse" || show_fail "no second tab"
wait_for 30 pane_has "/workspace#" || show_fail "no prompt in tab 1"
type_line "clear; echo TAB-ONE-\$((40+1))"
wait_for 10 pane_has "TAB-ONE-41" || show_fail "tab 1 did not run the echo"
# the agent turns on every mouse mode it can: the outer terminal must not follow
type_line "printf '\\033[?1000h\\033[?1003h\\033[?1006h'; echo AGENT-ON"
wait_for 10 pane_has "AGENT-ON" || show_fail "the agent's printf did not run"
sleep 0.5
assert_eq "$(flag mouse_any_flag)$(flag mouse_all_flag)$(flag mouse_sgr_flag)" 000 \
	"an agent printing ?1000h ?1003h ?1006h does not turn on the outer terminal's mouse"
x0=$(col_of "0:default" 1)
[ "$x0" -gt 0 ] || show_fail "no tab 0 title in the bar"
click "$x0" 1
type_line "echo STILL-\$((6*7))"
wait_for 10 pane_has "STILL-42" || show_fail "keys after a report went nowhere"
assert_contains "$(pane)" "TAB-ONE-41" "mouse off: a click on tab 0's title does not switch tabs"
assert_not_contains "$(pane)" "[<0;" "mouse off: the report is not typed into the tab"
note "ok: mouse off: reports are dropped, the agent cannot switch the mouse on"
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "detach did not exit 0"

# --- on: attach with the config's workbench.mouse: true
"${TM[@]}" respawn-pane -k -t wb "$(wb_line attach)"
wait_for 30 pane_has "1:default mouse" || show_fail "attach did not bring the tabs back"
wait_for 10 flag_is mouse_any_flag 1 || show_fail "workbench.mouse: true did not ask the terminal for the mouse"
assert_eq "$(flag mouse_sgr_flag)$(flag mouse_all_flag)" 10 "mouse on: ?1006 (SGR) like tmux, no ?1003"
wait_for 10 pane_lacks "TAB-ONE-41" || show_fail "tab 0 is not the active tab after attach"
click "$(col_of "1:default" 1)" 1
wait_for 5 pane_has "TAB-ONE-41" || show_fail "a click on tab 1's title did not select it"
click "$(col_of "0:default" 1)" 1
wait_for 5 pane_lacks "TAB-ONE-41" || show_fail "a click on tab 0's title did not select it"
click "$(col_of "1:default" 1)" 1
wait_for 5 pane_has "TAB-ONE-41" || show_fail "a click on tab 1's title did not select it again"
note "ok: a click on a tab's title selects the tab"
# the agent's ?1003 (every motion) never reaches the outer terminal
type_line "printf '\\033[?1003h'; echo ALL-ON"
wait_for 10 pane_has "ALL-ON" || show_fail "the agent's printf did not run"
sleep 0.5
assert_eq "$(flag mouse_all_flag)" 0 "an agent's ?1003h does not reach the outer terminal"
type_line "printf '\\033[?1003l\\033[?1000l\\033[?1006l'; clear"

# --- the wheel: scrollback like tmux's copy-mode -e
type_line "clear; seq -f 'W%gW' 1 200"
wait_for 10 pane_has "W200W" || show_fail "seq did not run"
wheel 0 10 10
wait_for 5 pane_has "SCROLL" || show_fail "wheel up did not enter the scrollback"
wait_for 5 pane_lacks "W200W" || show_fail "wheel up did not scroll back"
wheel 0 10 10
wheel 1 10 10
wheel 1 10 10
wait_for 5 pane_has "W200W" || show_fail "wheel down did not come back to the bottom"
wait_for 5 pane_lacks "SCROLL" || show_fail "wheel down to the bottom did not leave the scrollback"
note "ok: the wheel enters the scrollback, scrolls, and leaves it at the bottom"

# --- a program that asked for the mouse gets it, in SGR, at its own coordinates
type_line "clear; printf '\\033[?1000h\\033[?1006h'; echo MOUSE-\$((2*21)); IFS= read -rsd m r; printf '\\033[?1006l\\033[?1000l'; printf 'GOT[%q]\\n' \"\$r\""
# the program's mode reaches the workbench before its line does
wait_for 10 pane_has "MOUSE-42" || show_fail "the program did not start"
# the tab starts at pane row 2 (the bar is row 1): cell (7, 5) is the tab's (7, 4)
click 7 5
wait_for 10 pane_has "GOT[" || show_fail "the program that asked for the mouse got no report"
assert_contains "$(pane)" "GOT[\$'\\E[<0;7;4M\\E[<0;7;4']" "the click reaches the program as SGR at the tab's coordinates"
wheel 0 10 10
wait_for 5 pane_has "SCROLL" || show_fail "after the program let the mouse go the wheel did not scroll back"
wheel 1 10 10
wait_for 5 pane_lacks "SCROLL" || show_fail "wheel down did not leave the scrollback"

# --- a click on a waiting escalation opens it and never approves
type_line "clear; out=\$(lazaret-escalate --justify mouse-click -- echo clicked); echo \"esc-rc=\$? got=[\$out]\""
wait_for 20 pane_has "Escalations (1)" || show_fail "the queue did not show the request"
y=$(row_of "default: echo clicked")
[ -n "$y" ] || show_fail "the request's line is not in the panel"
x=$(col_of "default: echo clicked" "$y")
click "$x" "$y"
wait_for 5 pane_has "mouse-click" || show_fail "a click on the request did not open the request view"
wait_for 5 pane_has " Enter: approve & run" || show_fail "the request view did not arm"
# clicks everywhere, the wheel, a double click: the view stays, nothing decided
for i in 1 2 3; do click "$x" "$y"; click 60 15; click 3 30; wheel 0 60 15; done
sleep 1
assert_contains "$(pane)" " Enter: approve & run" "clicks in the request view leave it open"
assert_eq "$(decisions)" "" "no decision after clicks"
assert_not_contains "$(pane)" "esc-rc=" "lazaret-escalate still waits after clicks"
note "ok: a click opens the request; clicks never approve it"
wb_approve
wait_for 20 pane_has "esc-rc=0 got=[clicked]" || show_fail "the approval by code did not run the command"
note "ok: approving stays the typed code"

# --- TERM=screen-256color: ncurses does not decode SGR there; the workbench does
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "detach did not exit 0"
"${TM[@]}" respawn-pane -k -t wb "$(TERM=screen-256color wb_line attach)"
wait_for 30 pane_has "1:default mouse" || show_fail "attach under screen-256color failed"
wait_for 10 flag_is mouse_sgr_flag 1 || show_fail "under screen-256color the workbench did not ask for SGR reports"
type_line "clear; echo SCREEN-\$((3*3))"
wait_for 10 pane_has "SCREEN-9" || show_fail "no echo under screen-256color"
click "$(col_of "1:default" 1)" 1	# attach comes back on tab 0
wait_for 5 pane_lacks "SCREEN-9" || show_fail "under screen-256color a click on tab 1 did not select it"
note "ok: under screen-256color the workbench reads the SGR reports itself"
"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "detach did not exit 0"
assert_eq "$(flag mouse_any_flag)" 0 "the outer terminal's mouse mode is off after the workbench exits"
