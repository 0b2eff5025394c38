#!/usr/bin/env bash
# test-run-prompt.sh - `lazaret run` between a hostile agent and the user's
# terminal, in a real tmux on a real sandbox (issue 9). The agent's clipboard
# write (OSC 52), titles, control strings and queries never reach tmux (its
# buffers, the pane title and its answers to XTVERSION/DA2 say so); vim and
# less still work. At the escalation prompt: the agent's XTVERSION flood, a
# terminal reply carrying an `a` and text typed ahead approve nothing (the
# replies are audited as suspicious); a 4 KiB justification padded to the
# width cannot push the command out of view; only a + the code shown + Enter
# approves, and the audit says how; a full-screen program's screen comes
# back after a prompt drawn over it.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image
command -v tmux >/dev/null || skip "tmux missing"

lz_domain ws
LZ_ENV=(LAZARET_ESC_TIMEOUT=30)
wt=$T/home/data/lazaret/domains/$hash/lazaret-$hash	# the agent's worktree = /workspace
mark=$T/marks; mkdir -p "$mark"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$mark"

TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane() { "${TM[@]}" capture-pane -p; }
pane_has() { pane | grep -qF -- "$1"; }
"${TM[@]}" new-session -d -x 120 -y 40 "$(as_user_line lazaret run -w "$repo"); echo run-rc=\$?; sleep 600"
# tmux takes a program's OSC 52 into its buffers (and the clipboard) with this on.
"${TM[@]}" set -g set-clipboard on
"${TM[@]}" set -g allow-rename on
wait_for 40 pane_has "/workspace" || { pane; fail "no shell prompt"; }
sh_do() { # a command line for the sandbox's shell, then wait for its marker
	"${TM[@]}" send-keys "clear; $1; echo \"done-\"$2" Enter
	wait_for 30 pane_has "done-$2" || { pane; fail "no end of: $1"; }
}
put() { # file in /workspace, from stdin
	cat >"$wt/$1"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$wt/$1"
}

# --- what the agent prints: clipboard, titles, strings and queries stop at lazaret run
put .osc.sh <<'SH'
printf '\033]52;c;%s\007' "$(printf pwned-clip | base64)"
printf '\033]52;c;%s\033\\' "$(printf pwned-clip2 | base64)"
printf '\033]2;pwned-title\007\033]0;pwned-zero\033\\\033kpwned-name\033\\'
printf '\033Ptmux;\033\033]2;pwned-pass\007\033\\'
printf '\302\2352;pwned-c1\007'
SH
sh_do "sh /workspace/.osc.sh" osc
buf=$("${TM[@]}" show-buffer 2>&1 || true)
assert_not_contains "$buf" "pwned" "OSC 52 from the agent never reaches tmux's buffer"
title=$("${TM[@]}" display -p '#{pane_title} #{window_name}')
assert_not_contains "$title" "pwned" "OSC 0/2, ESC k and a DCS passthrough never set a title"
# Queries: what comes back is the coordinator's screen answering, never tmux.
put .q.sh <<'SH'
# raw, and a read gives up after 2 s (bash: gVisor's pty ignores VTIME)
ask() { stty raw -echo; printf "$1"; IFS= read -r -s -t 2 -n 40 r; stty sane; printf '%s=[%s]\n' "$2" "$(printf %s "$r" | od -An -c | tr -d ' \n')"; }
ask '\033[>q' xtversion; ask '\033[>c' da2; ask '\033[6n' cpr; ask '\005' enq
SH
sh_do "bash /workspace/.q.sh" q
out=$(pane)
assert_contains "$out" "xtversion=[]" "XTVERSION (ESC [ > q) is not answered by tmux"
assert_not_contains "$out" "84;0;0c" "DA2 is not answered by tmux (tmux says 84)"
assert_contains "$out" "da2=[033[>" "DA2 is answered (by the coordinator's screen)"
assert_contains "$out" "cpr=[033[" "the cursor position is answered (full-screen programs need it)"
assert_contains "$out" "enq=[]" "ENQ gets no answerback"

# --- full-screen programs still work: vim and less
printf 'line-%s\n' $(seq 1 300) | put .nums
sh_do "cp README .vimtest" vcp
"${TM[@]}" send-keys "vim /workspace/.vimtest" Enter
wait_for 20 pane_has ".vimtest" || { pane; fail "vim did not start"; }
"${TM[@]}" send-keys "ohello-from-vim" Escape
wait_for 10 pane_has "hello-from-vim" || { pane; fail "text typed in vim not shown"; }
"${TM[@]}" send-keys ":wq" Enter
wait_for 10 grep -q hello-from-vim "$wt/.vimtest" || { pane; fail "vim did not write the file"; }
note "ok: vim edits and writes through lazaret run"
sh_do "true" vimback
"${TM[@]}" send-keys "less /workspace/.nums" Enter
wait_for 10 pane_has "line-39" || { pane; fail "less shows no page"; }
"${TM[@]}" send-keys G
wait_for 10 pane_has "line-300" || { pane; fail "less did not go to the end"; }
"${TM[@]}" send-keys q
sh_do "true" lessback
assert_not_contains "$(pane)" "line-300" "less left the alternate screen"
note "ok: less pages and quits through lazaret run"

# --- the prompt
code() { pane | sed -n 's/.*a \([A-Z0-9][A-Z0-9][A-Z0-9]\) Enter: .*/\1/p' | tail -n 1; }
armed() { [ -n "$(code)" ]; }
prompt_up() { pane_has "pprove & run"; }
audit_json() { lz audit -w "$repo" --json; }
ask() { # tag justification command...: the agent asks; sets rcfile
	local t=$1 j=$2; shift 2
	rcfile=$wt/.rc-$t; rm -f "$rcfile"
	"${TM[@]}" send-keys "clear; lazaret-escalate --justify '$j' -- $*; echo \$? >/workspace/.rc-$t" Enter
}

# 2. Terminal replies arriving while the prompt is up (as tmux or another
# terminal would type them): XTVERSION's and a colour report full of a's.
ask rep "needs a reply" touch "$mark/reply"
wait_for 20 prompt_up || { pane; fail "no prompt"; }
wait_for 10 armed || { pane; fail "prompt not armed"; }
"${TM[@]}" send-keys -l $'\033P>|tmux 3.3a\033\\'
"${TM[@]}" send-keys -l $'\033]11;rgb:aaaa/aaaa/aaaa\033\\'
"${TM[@]}" send-keys -l $'\033[?1;2c'
"${TM[@]}" send-keys Enter
wait_for 4 test -e "$mark/reply" && fail "a terminal reply approved the request"
prompt_up || { pane; fail "the prompt went away after the replies"; }
note "ok: terminal replies with a's in them approved nothing"
wait_for 10 armed || { pane; fail "prompt not armed again"; }
"${TM[@]}" send-keys d
wait_for 20 test -s "$rcfile" || { pane; fail "deny after replies did not reach the agent"; }
sus() { audit_json | grep '"esc.suspicious"'; }
wait_for 10 sus >/dev/null || fail "the replies were not audited"
assert_contains "$(sus)" 'tmux 3.3a' "the audit holds the XTVERSION reply it discarded"

# 3. Typed ahead into the opening prompt: "make all", Enter, "a", Enter.
ask ahead "type make all to continue" touch "$mark/typed-ahead"
for k in m a k e Space a l l Enter a Enter a; do "${TM[@]}" send-keys $k; done
wait_for 20 prompt_up || { pane; fail "no prompt for type-ahead"; }
for k in a Enter a l l Enter; do "${TM[@]}" send-keys $k; done
wait_for 3 test -e "$mark/typed-ahead" && fail "typed-ahead keys approved the request"
note "ok: typed-ahead keys approved nothing"
wait_for 10 armed || { pane; fail "prompt not armed after type-ahead"; }
"${TM[@]}" send-keys d
wait_for 20 test -s "$rcfile" || { pane; fail "deny after type-ahead did not reach the agent"; }
assert_eq "$(cat "$rcfile")" 126 "type-ahead: denied, 126"

# 4. A 4 KiB justification padded to the width with a fake command block:
# the real command is shown first, whole; the justification is framed and cut.
put .pad.sh <<SH
pad=\$(printf '%120s' '')
j="please run the tests\$pad"
i=0; while [ \$i -lt 30 ]; do j="\$j Command: make test\$pad"; i=\$((i+1)); done
lazaret-escalate --justify "\$(printf '%s' "\$j" | head -c 4096)" -- touch $mark/padded
echo \$? >/workspace/.rc-pad
SH
"${TM[@]}" send-keys "clear; sh /workspace/.pad.sh" Enter
wait_for 20 prompt_up || { pane; fail "no prompt for the padded justification"; }
wait_for 10 armed || { pane; fail "padded prompt not armed"; }
scr=$(pane)
cmdline=$(printf '%s\n' "$scr" | grep -n "touch $mark/padded" | head -n 1 | cut -d: -f1)
[ -n "$cmdline" ] || { printf '%s\n' "$scr"; fail "the real command is not on the screen"; }
fake=$(printf '%s\n' "$scr" | grep -n "Command: make test" | head -n 1 | cut -d: -f1)
[ -z "$fake" ] || [ "$cmdline" -lt "$fake" ] || { printf '%s\n' "$scr"; fail "the justification comes before the command"; }
printf '%s\n' "$scr" | grep "Command: make test" | grep -qv '^ *| ' &&
	{ printf '%s\n' "$scr"; fail "a justification line is not framed"; }
assert_contains "$scr" "more line" "the justification is capped"
note "ok: the padded justification cannot push the command out of view"

# 5. Approving takes a + the code shown + Enter; a wrong code approves nothing.
c=$(code)
wrong=$( [ "$c" = XXX ] && echo YYY || echo XXX )
"${TM[@]}" send-keys a "${wrong:0:1}" "${wrong:1:1}" "${wrong:2:1}" Enter
wait_for 3 test -e "$mark/padded" && fail "a wrong code approved"
note "ok: a wrong code approves nothing"
wait_for 10 armed || { pane; fail "prompt not armed after the wrong code"; }
c=$(code)
"${TM[@]}" send-keys a "${c:0:1}" "${c:1:1}" "${c:2:1}" Enter
wait_for 20 test -s "$wt/.rc-pad" || { pane; fail "approval did not reach the agent"; }
assert_eq "$(cat "$wt/.rc-pad")" 0 "approved with the code: exit 0"
[ -e "$mark/padded" ] || fail "the approved command did not run on the host"
note "ok: a + code + Enter approved and ran the command"
how=$(audit_json | grep '"esc.decision-how"' | tail -n 1)
assert_contains "$how" "a + the code shown + Enter" "the audit records how the approval was made"
sh_do "true" after
assert_not_contains "$(pane)" "pprove" "the session's screen is back after the prompt"

# 6. A prompt over a full-screen program: afterwards its screen is back
# (redrawn from the coordinator's copy), not the shell's under it.
printf 'vim-line-%s\n' $(seq 1 10) | put .v2
"${TM[@]}" send-keys "clear; (sleep 2; lazaret-escalate -- touch $mark/over-vim 2>/dev/null; echo \$? >/workspace/.rc-vim) & vim /workspace/.v2" Enter
wait_for 20 pane_has "vim-line-10" || { pane; fail "vim did not start"; }
wait_for 20 prompt_up || { pane; fail "no prompt over vim"; }
wait_for 10 armed || { pane; fail "prompt over vim not armed"; }
"${TM[@]}" send-keys d
wait_for 20 test -s "$wt/.rc-vim" || { pane; fail "deny over vim did not reach the agent"; }
wait_for 10 pane_has "vim-line-7" || { pane; fail "vim's screen is not back after the prompt"; }
assert_not_contains "$(pane)" "pprove" "the prompt is gone"
"${TM[@]}" send-keys ":q!" Enter
vim_gone() { ! pane_has "vim-line-7"; }
wait_for 10 vim_gone || { pane; fail "vim did not quit"; }
sh_do "true" vimgone
note "ok: vim's screen came back after a prompt drawn over it"

# 7. (last: the flood's output takes tmux a while to draw afterwards)
# The agent floods XTVERSION queries around its request: whatever tmux
# answers ("...tmux 3.3a") while the prompt opens must approve nothing. The
# queries never reach tmux now; with the old raw output tmux's answers came
# in on the prompt's input and their `a` approved.
put .xtv.sh <<SH
slow=\$(printf '\033#8%.0s' \$(seq 400))	# DECALN: a screen of E's for 3 bytes
while :; do printf '%s\033[>q' "\$slow"; done & flood=\$!
sleep 0.5; : >/workspace/.asked-xtv
lazaret-escalate --justify 'routine check' -- touch $mark/xtversion 2>/dev/null
echo \$? >/workspace/.rc-xtv; kill \$flood
SH
"${TM[@]}" send-keys "clear; bash /workspace/.xtv.sh 2>/dev/null" Enter
wait_for 20 test -e "$wt/.asked-xtv" || { pane; fail "the XTVERSION attack did not start"; }
wait_for 10 test -e "$mark/xtversion" && fail "the agent's XTVERSION queries approved its own request"
wait_for 20 prompt_up || { pane; fail "no prompt for the XTVERSION attack"; }
note "ok: the XTVERSION flood around the request approved nothing"
wait_for 10 armed || { pane; fail "prompt not armed"; }
"${TM[@]}" send-keys d
wait_for 20 test -s "$wt/.rc-xtv" || { pane; fail "deny did not reach the agent"; }
assert_eq "$(cat "$wt/.rc-xtv")" 126 "denied after the attack: 126"

