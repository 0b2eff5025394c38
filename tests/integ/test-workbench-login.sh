#!/usr/bin/env bash
# test-workbench-login.sh - a login link is usable from a workbench tab: the
# real Claude Code (the kit's image, cached by test-kit-claude) runs /login
# in a tab and prints its OAuth URL, ~400 bytes wrapped over seven rows;
# prefix u puts the whole URL, one line, in the outer terminal's clipboard
# (OSC 52: tmux with set-clipboard on keeps it in its buffer), and so does u
# in the scrollback. No model or login host is reached: network: none; the
# URL is made by Claude Code itself (PKCE), and nothing opens a browser.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
need_kit_image claude

lz_domain ws login
lz_on_exit "lz stop -p claude -w '$repo'"
lz_config <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
  claude:
    network: none
YAML
# Past the first-run screens (theme, the start-up connectivity check), as a
# returning user: the kit keeps ~/.claude across runs, so this is the state a
# second start finds.
lz run -T -w "$repo" claude -- sh -c \
	'printf "{\"hasCompletedOnboarding\":true,\"theme\":\"dark\"}" >"$CLAUDE_CONFIG_DIR/.claude.json"' ||
	fail "could not seed ~/.claude/.claude.json"

"${TM[@]}" new-session -d -s wb -x 100 -y 30 -c "$T" "$(wb_line -p claude -w "$repo")"
lz_on_exit "tm_kill"
"${TM[@]}" set-option -g set-clipboard on
buffer() { "${TM[@]}" show-buffer 2>/dev/null; }
buffer_url() { buffer | grep -q '^https://'; }
status_has() { pane | tail -1 | grep -qF -- "$1"; }
wait_for 120 pane_has "trust this folder" || show_fail "Claude Code did not ask to trust /workspace"
"${TM[@]}" send-keys -t wb Enter
wait_for 60 pane_has "Run /login" || show_fail "Claude Code did not say it is not logged in"
"${TM[@]}" send-keys -t wb -l /login
wait_for 10 pane_has "/login" || show_fail "the tab did not take /login"
"${TM[@]}" send-keys -t wb Enter
wait_for 30 pane_has "Select login method" || show_fail "/login did not offer the login methods"
"${TM[@]}" send-keys -t wb Enter
wait_for 30 pane_has "Paste code here" || show_fail "Claude Code did not print its login URL"
rows=$(pane | grep -c 'oauth\|%3A\|&' || true)
note "the login URL shows over $rows rows of the tab"

url_re='^https://[a-z.]*claude\.[a-z]+/[a-z/]*oauth/authorize\?code=true&client_id=[0-9a-f-]{36}&response_type=code&redirect_uri=[^ ]+&scope=[^ ]+&code_challenge=[A-Za-z0-9_-]+&code_challenge_method=S256&state=[A-Za-z0-9_-]+$'
"${TM[@]}" send-keys -t wb C-a u
wait_for 5 buffer_url ||
	show_fail "prefix u put no URL in the tmux buffer: [$(buffer)]"
url=$(buffer)
[[ $url =~ $url_re ]] || show_fail "the copied URL is not Claude Code's whole login URL: [$url]"
[ "${#url}" -gt 300 ] || show_fail "the copied URL is short (${#url} bytes): [$url]"
# Its tail is the last row of the URL on screen: nothing was cut.
state=${url##*state=}
pane | tr -d '│ ' | grep -qF "${state: -10}" || show_fail "the URL's end [${state: -10}] is not on the screen"
wait_for 5 status_has "copied URL (${#url} bytes)" ||
	show_fail "the status line does not say what was copied"
note "ok: prefix u copied the whole login URL (${#url} bytes, one line) from the tab"

"${TM[@]}" set-buffer -- "-"
"${TM[@]}" send-keys -t wb C-a '['
wait_for 5 pane_has "SCROLL" || show_fail "prefix [ did not enter scrollback mode"
"${TM[@]}" send-keys -t wb u
wait_for 5 buffer_url ||
	show_fail "u in scrollback put no URL in the tmux buffer: [$(buffer)]"
assert_eq "$(buffer)" "$url" "u in the scrollback copies the same URL"
"${TM[@]}" send-keys -t wb q
"${TM[@]}" send-keys -t wb Escape
"${TM[@]}" send-keys -t wb C-a x y
