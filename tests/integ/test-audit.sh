#!/usr/bin/env bash
# test-audit.sh - `lazaret audit` on a real domain: rows written by a real
# escalation, read through the running coordinator (it holds state.db
# exclusively) and directly once it is gone, JSON lines, and --verify catching
# an edited row and a cut tail in state.db.
source "$(dirname "$0")/lib.sh"
lz audit --help >/dev/null 2>&1 || skip "this lazaret has no audit command (app/cli/lazaret.c table)"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI missing"
need_stack
need_default_image

lz_domain ws
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nescalation:\n  auto_approve: ["true"]\n' \
	>"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
db=$T/home/data/lazaret/domains/$hash/state.db

set +e
out=$(lz audit -w "$repo" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "no domain yet: audit fails"
assert_contains "$out" "no audit trail for domain $hash" "and says so"

# A session that escalates, then stays until we are done reading.
# The second request carries an escape sequence and nobody answers it.
lz run -T -w "$repo" -- sh -c 'lazaret-escalate -- true && echo escalated
	lazaret-escalate --timeout 1 -- echo "x$(printf "\033")[2Jy"; echo asked; sleep 60' >"$T/run.out" 2>&1 &
runpid=$!
lz_on_exit "kill $runpid"
wait_for 60 grep -q asked "$T/run.out" || { cat "$T/run.out"; fail "escalation in the session failed"; }
grep -q escalated "$T/run.out" || { cat "$T/run.out"; fail "the auto-approved escalation failed"; }
text=$(lz audit -w "$repo")
json=$(lz audit -w "$repo" --json)
req=$(printf '%s\n' "$json" | grep -m1 '"esc.request"' | sed 's/.*"request_id":"\([0-9a-f]*\)".*/\1/')
[[ $req =~ ^[0-9a-f]{32}$ ]] || fail "no request ID in the JSON rows: $json"
# one line per event: SEQ TIME WHO EVENT VERDICT REQUEST WHAT
assert_eq "$(printf '%s\n' "$text" | head -1 | tr -s ' ')" " SEQ TIME WHO EVENT VERDICT REQUEST WHAT" "a header"
assert_eq "$(printf '%s\n' "$text" | grep -c .)" "$(( $(printf '%s\n' "$json" | grep -c .) + 1 ))" \
	"one line per event (through the running coordinator)"
ts='20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'
line() { printf '%s\n' "$text" | grep -E "^ +[0-9]+  $ts  $1" ||
	fail "no audit line like [$1] in: $text"; }
# (isolated mode: the host directory is the agent's worktree checkout)
line "session [0-9a-f]{8} +request +auto-approve +$req  true \(in $T/home/data/lazaret/domains/$hash/[^)]+\)\$" >/dev/null
line "policy +decision +auto-approve +$req  -\$" >/dev/null
line "coordinator +result +exit 0 +$req  [0-9.]+ m?s, [0-9]+ B of output\$" >/dev/null
note "ok: request, decision and result lines: time, who, verdict, the prompt's request ID, what"
# the agent's escape sequence is shown, never sent to the host's terminal
l=$(line 'session [0-9a-f]{8} +request +needs-prompt +[0-9a-f]{32}  echo ')
assert_contains "$l" 'x\x1b[2Jy' "an escape in the command is made visible"
case $text in *$'\033'*) fail "a raw ESC byte in lazaret audit's output" ;; esac
set +e; as_user sqlite3 "$db" 'SELECT count(*) FROM audit' >/dev/null 2>&1; rc=$?; set -e
[ "$rc" -ne 0 ] || fail "state.db readable by another process while the coordinator runs"
note "ok: state.db is the coordinator's alone while it runs"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact (" "verify through the coordinator"
kill "$runpid" 2>/dev/null || true
wait "$runpid" 2>/dev/null || true
lz stop -w "$repo" >/dev/null 2>&1 || true
wait_for 30 sh -c "[ \"\$(ps -u $LZ_USER -o args= | grep -c '[c]oordinator --profile default --workspace $canon')\" = 0 ]" ||
	fail "coordinator still running"

json=$(lz audit -w "$repo" --json)
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
assert rows and all(isinstance(r["detail"], dict) for r in rows), rows
assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
kinds = [r["kind"] for r in rows]
assert "esc.request" in kinds and "esc.decision" in kinds and "esc.result" in kinds, kinds
res = [r for r in rows if r["kind"] == "esc.result"][0]["detail"]
assert res["exit_status"] == 0 and "duration_ms" in res and "output_bytes" in res, res
' || fail "audit --json is not one JSON row per line with the escalation in it"
note "ok: --json rows parse, in order, with request, decision and result"
# the domain's and the session's lifecycle, in order around the escalations
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
kinds = [r["kind"] for r in rows]
assert kinds[0] == "domain.start" and kinds[1] == "session.start", kinds
# lazaret stop with the session running: the stop (and why), then the session it ended
assert kinds[-2:] == ["domain.stop", "session.end"], kinds
assert rows[-1]["detail"]["exit_status"] == 143 and rows[-1]["session_id"] == rows[1]["session_id"], rows[-1]
st = rows[1]
assert st["actor"].startswith("uid ") and len(st["session_id"]) == 32, st
assert st["detail"]["command"].startswith("sh -c") and st["detail"]["tty"] is False, st
req = [r for r in rows if r["kind"] == "esc.request"][0]
assert req["session_id"] == st["session_id"], (req, st)
assert rows[-2]["detail"]["reason"] == "stop requested" and rows[-2]["detail"]["sessions"] == 1, rows[-2]
' || fail "audit --json lacks the domain and session lifecycle: $json"
note "ok: domain.start, session.start (who, command), session.end, domain.stop (why) are audited"
text=$(lz audit -w "$repo")
line "coordinator +domain.start +- +- +lazaret-default-$hash \(isolated, localhost/lazaret-default:latest\)\$" >/dev/null
line "uid [0-9]+ pid [0-9]+ +session.start +- +- +sh -c .* \(session 1, pid [0-9]+, pipes\)\$" >/dev/null
line "coordinator +session.end +exit 143 +- +session 1\$" >/dev/null
line "coordinator +domain.stop +- +- +stop requested\$" >/dev/null
note "ok: and they read as one line each (read directly from state.db)"
rows=$(printf '%s\n' "$json" | grep -c .)
anchor=/var/lib/lazaret/anchor/$LZ_UID
[ -f "$anchor" ] || fail "no audit anchor $anchor: run scripts/setup-host"
assert_eq "$(lz audit -w "$repo" --verify)" "audit trail intact ($rows rows)
$rows of $rows rows anchored in $anchor (append-only)" "verify directly, no coordinator: every row anchored"
# --json rows carry the chain: prev_hash is the row before's hash (zeros for
# row 1), hash the row's own (docs/architecture.md, "Audit trail")
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, re, sys
prev = "0" * 64
for l in sys.stdin:
    r = json.loads(l)
    assert r["prev_hash"] == prev and re.fullmatch("[0-9a-f]{64}", r["hash"]), r
    prev = r["hash"]
' || fail "audit --json rows do not chain prev_hash to hash"
note "ok: --json rows carry prev_hash and hash, chained"

# Tamper: an edited row, then (on the untouched copy) a cut tail.
[ ! -e "$db-wal" ] || [ ! -s "$db-wal" ] || fail "state.db has a WAL left after teardown"
as_user cp "$db" "$T/orig.db"
seq=$(printf '%s\n' "$json" | grep '"esc.request"' | head -1 | sed 's/^{"seq":\([0-9]*\),.*/\1/')
as_user sqlite3 "$db" "UPDATE audit SET detail='{\"command\":\"true\"}' WHERE seq=$seq"
set +e; out=$(lz audit -w "$repo" --verify); rc=$?; set -e
assert_eq "$rc" 1 "an edited row: verify exits 1"
assert_contains "$out" "audit trail broken at row $seq:" "and names the row"
as_user cp "$T/orig.db" "$db"
assert_contains "$(lz audit -w "$repo" --verify)" "intact" "the untouched copy verifies again"
# Cut the last row: the head row still names it.
as_user sqlite3 "$db" "DELETE FROM audit WHERE seq=$rows"
set +e; out=$(lz audit -w "$repo" --verify); rc=$?; set -e
assert_eq "$rc" 1 "a cut tail: verify exits 1"
assert_contains "$out" "audit trail broken at row" "a cut tail is reported"
as_user cp "$T/orig.db" "$db"

# A rewrite of history with the user's own rights: row $seq edited, every
# later row and the head recomputed, so the chain inside state.db holds.
# The anchor file outside it still has each row's first hash.
cat >"$T/rewrite.py" <<'PY'
import hashlib, sqlite3, struct, sys
db, seq = sys.argv[1], int(sys.argv[2])
def u64(v): return struct.pack(">Q", v & (2**64 - 1))
def field(b): return b"\0" if b is None else b"\1" + u64(len(b)) + b
def s(x): return None if x is None else x.encode()
c = sqlite3.connect(db)
c.execute("UPDATE audit SET detail = ? WHERE seq = ?", ('{"command":"true"}', seq))
prev = c.execute("SELECT hash FROM audit WHERE seq = ?", (seq - 1,)).fetchone()
prev = prev[0] if prev else bytes(32)
for (n, ts, kind, actor, sid, rid, detail) in c.execute("SELECT seq, ts, kind, actor, "
        "session_id, request_id, detail FROM audit WHERE seq >= ? ORDER BY seq", (seq,)).fetchall():
    h = hashlib.sha256(field(b"lazaret.audit.v1") + u64(n) + u64(ts) + field(s(kind)) +
        field(s(actor)) + field(s(sid)) + field(s(rid)) + field(s(detail)) + field(prev)).digest()
    c.execute("UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, h, n))
    prev = h
c.execute("UPDATE audit_head SET hash = ? WHERE id = 1", (prev,))
c.commit()
PY
as_user python3 "$T/rewrite.py" "$db" "$seq"
LZ_ENV=(LAZARET_AUDIT_ANCHOR=$T/no-anchor)
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact ($rows rows)" "without the anchor the rewrite goes unseen (the chain alone cannot tell)"
LZ_ENV=()
set +e; out=$(lz audit -w "$repo" --verify); rc=$?; set -e
assert_eq "$rc" 1 "a rewritten history with its head: verify exits 1"
assert_eq "$out" "audit trail broken at row $seq: row $seq differs from the hash anchored for it in $anchor (history rewritten from this row on, its head with it)" "and names the first rewritten row"
# The attacker cannot take the anchors back, and what it appends does not count.
set +e; as_user sh -c ": > '$anchor'" 2>/dev/null; rc=$?; set -e
[ "$rc" -ne 0 ] || fail "the user truncated the anchor file"
note "ok: the anchor file cannot be truncated by the user"
set +e; as_user sh -c "rm -f '$anchor' || chattr -a '$anchor'" 2>/dev/null; rc=$?; set -e
[ -f "$anchor" ] && lsattr "$anchor" | cut -d' ' -f1 | grep -q a || fail "the user removed the anchor or its flag"
as_user sqlite3 "$db" "SELECT 'v1 ' || seq || ' ' || lower(hex(hash)) || ' $db' FROM audit" | as_user sh -c "cat >> '$anchor'"
set +e; out=$(lz audit -w "$repo" --verify); rc=$?; set -e
assert_eq "$rc" 1 "anchors appended after the rewrite do not hide it"
assert_contains "$out" "audit trail broken at row $seq: row $seq differs" "the first anchor of a row counts"
echo "test-audit: all passed"
