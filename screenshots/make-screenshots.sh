#!/usr/bin/env bash
# make-screenshots.sh - run the real lazaret-workbench in tmux against real
# sandboxes (podman + runsc), capture its screens with colours
# (tmux capture-pane -pe) and render them as PNGs into screenshots/.
#
# Rendering: render-ansi.py draws the captured cells with Pillow and DejaVu
# Sans Mono (Debian: python3-pil, fonts-dejavu-core); no browser needed.
# Run as root (it uses the test user of scripts/setup-host) or as yourself,
# after `make`. Usage: screenshots/make-screenshots.sh [OUTDIR]
source "$(dirname "$0")/../tests/integ/lib.sh"
OUT=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 0 ] || OUT=$1
PY=/usr/bin/python3
$PY -c 'import PIL' 2>/dev/null || fail "Pillow missing: apt-get install python3-pil"
[ -x "$T/bin/lazaret-workbench" ] || fail "no lazaret-workbench: run make"
command -v tmux >/dev/null || fail "tmux missing"
need_stack
need_default_image

lz_domain agent-web
web=$repo
lz_domain agent-api
api=$repo
as_user sh -c "cd '$web' && mkdir -p src && printf 'export const answer = 42;\n' >src/main.ts &&
	printf '# web\nA demo workspace.\n' >README && git add -A && git commit -qm 'add main.ts'"
LZ_ENV+=(LAZARET_WORKBENCH_STATE="$T/wb.tabs")
# The themes as a user installs them: $XDG_CONFIG_HOME/lazaret/themes.
mkdir -p "$T/home/config/lazaret/themes"
cp "$LZ_SRC"/themes/*.yaml "$T/home/config/lazaret/themes/"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane_has() { "${TM[@]}" capture-pane -p -t wb | grep -qF -- "$1"; }
pane_lacks() { ! pane_has "$1"; }
keys() { "${TM[@]}" send-keys -t wb "$@"; }
shot() { # name cols rows [light: a terminal with a light background]
	local f=$T/$1.txt
	"${TM[@]}" capture-pane -peN -t wb >"$f"
	$PY "$OUT/render-ansi.py" "$f" "$OUT/$1.png" "$2" "$3" ${4:-}
	note "wrote $OUT/$1.png"
}
start() { # cols rows args...
	local c=$1 r=$2; shift 2
	"${TM[@]}" kill-session -t wb 2>/dev/null || true
	"${TM[@]}" new-session -d -s wb -x "$c" -y "$r" -c "$T" \
		"$(as_user_line lazaret-workbench "$@"); sleep 600"
}

# 1. Two tabs at 80x24, a shell in the web workspace.
start 80 24 -w "$web"
wait_for 60 pane_has "/workspace#" || fail "no prompt"
keys C-a c
wait_for 5 pane_has "New sandbox tab" || fail "no new-tab dialog"
keys Tab C-u; keys -l "$api"; keys Enter
wait_for 60 pane_has "1:default agent-api running" || fail "no second tab"
wait_for 30 pane_has "/workspace#" || fail "no prompt in tab 1"
keys 'git log --oneline --decorate; ls -la' Enter
keys C-a 0
keys 'clear; git log --oneline --graph --decorate; ls --color=always src; cat src/main.ts' Enter
wait_for 10 pane_has "answer = 42" || fail "no output"
shot workbench-tabs-80x24 80 24

# 2. The new-tab dialog.
keys C-a c
wait_for 5 pane_has "New sandbox tab" || fail "no new-tab dialog"
shot workbench-new-tab 80 24
keys Escape	# then wait: Esc and a key in one read is Alt+key
wait_for 5 pane_lacks "New sandbox tab" || fail "dialog did not close"

# 3. vim in a tab (alternate screen, colours).
keys 'vim -c "syntax on" src/main.ts' Enter
wait_for 20 pane_has '"src/main.ts"' || fail "vim did not start"
wait_for 10 pane_has "export const answer" || fail "vim shows no text"
shot workbench-vim 80 24
keys ':q!' Enter	# vim has read its terminal replies by now
wait_for 10 pane_has "/workspace#" || fail "vim did not quit"

# 4. An escalation waiting: the tab marked, the queue, the prompt (120x32:
#    the side panel beside the terminal).
"${TM[@]}" resize-window -t wb -x 120 -y 32
keys 'clear; lazaret-escalate --justify "run the host test suite" -- make -C /tmp test' Enter
wait_for 20 pane_has "Escalations (1)" || fail "no escalation queued"
shot workbench-escalation-queue 120 32
keys C-a Tab Enter
wait_for 5 pane_has "Enter: approve & run" || fail "no armed request view"
shot workbench-escalation-prompt 120 32
keys d
wait_for 10 pane_has "Escalations (0)" || fail "deny did not clear the queue"
keys 'clear' Enter	# the decision gave the keys back to the tab
wait_for 10 pane_has 'decision {"action":"deny"}' || true
shot workbench-panel-history 120 32

# 5. The key help, then the light and high-contrast themes on the same tabs.
keys C-a '?'
wait_for 5 pane_has "new-tab" || fail "no help"
shot workbench-help 120 32
keys q C-a d
wait_for 10 pane_has "detached" || fail "no detach"
for th in light high-contrast; do
	start 100 30 attach --theme "$th"
	wait_for 10 pane_has "1:default agent-api" || fail "attach with theme $th"
	keys C-a s
	wait_for 5 pane_has "Escalations (0)" || fail "no panel"
	shot "workbench-theme-$th" 100 30 "$([ "$th" = light ] && echo light)"
	keys C-a d
	wait_for 10 pane_has "detached" || fail "no detach"
done
start 100 30 attach
wait_for 10 pane_has "1:default agent-api" || fail "final attach"
keys C-a x
wait_for 10 pane_has "agent-api" || true
keys C-a x
