#!/usr/bin/env bash
# test-review-approve.sh - auto-approval that reads agent files, from the
# real sandbox: with auto_approve ["make test"], `lazaret-escalate -- make
# test` runs by itself while the agent's Makefile is the user's; once the
# agent edits the recipe (uncommitted, then committed), the same request
# becomes a prompt naming the Makefile (nobody answers: it times out,
# denied), and the edited recipe never runs on the host. The gate keeps its
# verdict while nothing changed (audited as "unchanged since the last
# check"): an agent that swaps the recipe for one of the same size and
# puts the old mtime back still gets a prompt, never the kept approval.
source "$(dirname "$0")/lib.sh"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
command -v make >/dev/null || skip "make missing on the host"
need_stack
need_default_image

lz_domain ap
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nescalation:\n  auto_approve: ["make test"]\n' \
	>"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
LZ_ENV=(LAZARET_ESC_TIMEOUT=3)
pwned=$T/pwned
# The user's recipe padded to the size of the agent's (printf formats).
evil_fmt="test:\n\t@touch $pwned; echo agent-recipe\n"
user_fmt="test:\n\t@echo user-recipe\n#"
pad=$(($(printf "$evil_fmt" | wc -c) - $(printf "$user_fmt" | wc -c) - 1))
user_fmt="$user_fmt$(printf '%*s' "$pad" '' | tr ' ' x)\n"
as_user sh -c "cd '$repo' && printf '$user_fmt' > Makefile && git add Makefile && git commit -qm make"

out=$(lz run -T -w "$repo" -- sh -c 'cd /workspace && lazaret-escalate -- make test; echo "rc=$?"' 2>&1)
assert_contains "$out" "user-recipe" "the user's recipe runs, auto-approved"
assert_contains "$out" "rc=0" "exit 0"

# The agent edits the recipe, without committing.
out=$(lz run -T -w "$repo" -- sh -c "cd /workspace && printf '$evil_fmt' > Makefile &&
	lazaret-escalate -- make test; echo \"rc=\$?\"" 2>&1)
assert_not_contains "$out" "agent-recipe" "the edited recipe did not run"
assert_not_contains "$out" "rc=0" "the request was not approved"
[ ! -e "$pwned" ] || fail "the agent's recipe ran on the host"
note "ok: no marker from the agent's recipe"
# Committed, the same.
out=$(lz run -T -w "$repo" -- sh -c 'cd /workspace && git add Makefile &&
	git -c user.name=a -c user.email=a@example.invalid commit -qm recipe &&
	lazaret-escalate -- make test; echo "rc=$?"' 2>&1)
assert_not_contains "$out" "agent-recipe" "committed: the edited recipe did not run either"
[ ! -e "$pwned" ] || fail "the agent's committed recipe ran on the host"

# esc.request rows with verdict $1 and surface_check $2
requests() {
	lz audit -w "$repo" --json | timeout 10 python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
print(sum(1 for r in rows if r["kind"] == "esc.request" and r["detail"]["verdict"] == sys.argv[1]
    and r["detail"].get("surface_check") == sys.argv[2]))' "$1" "$2"
}
# One more request; true once a kept verdict $1 answered one.
kept() {
	lz run -T -w "$repo" -- sh -c 'cd /workspace && lazaret-escalate -- make test' >/dev/null 2>&1 || true
	[ "$(requests "$1" "unchanged since the last check")" -gt 0 ]
}
# The user's recipe back, byte for byte: runs again; once the files are
# older than the gate's margin (1 s), the approval is kept, not re-checked.
# The gate's memory is its coordinator's: a session holds the domain, or on a
# loaded machine each run below can outlast the 0.5 s linger and start afresh.
lz run -T -w "$repo" -- sleep 300 </dev/null >/dev/null 2>&1 &
hpid=$!
lz_on_exit "kill $hpid"
wait_for 60 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'sessions:    1\$'" ||
	fail "the holding session did not start"
lz run -T -w "$repo" -- sh -c "cd /workspace && printf '$user_fmt' > Makefile"
wait_for 60 kept auto-approve || fail "the gate never kept its approval of an unchanged checkout"
note "ok: an unchanged checkout reuses the kept approval"
approved=$(($(requests auto-approve checked) + $(requests auto-approve "unchanged since the last check")))
# Same size, old mtime: the kept approval must not answer.
out=$(lz run -T -w "$repo" -- sh -c "cd /workspace && cp -p Makefile /tmp/m && printf '$evil_fmt' > Makefile &&
	touch -r /tmp/m Makefile && lazaret-escalate -- make test; echo \"rc=\$?\"" 2>&1)
assert_not_contains "$out" "rc=0" "a same-size edit with the old mtime is not approved"
wait_for 60 kept needs-prompt || fail "the gate never kept its prompt for the swapped recipe"
[ ! -e "$pwned" ] || fail "the swapped recipe ran on the host"
assert_eq "$(($(requests auto-approve checked) + $(requests auto-approve "unchanged since the last check")))" \
	"$approved" "no approval after the swap, kept or checked"
kill "$hpid" 2>/dev/null || true
lz stop -w "$repo" >/dev/null 2>&1 || true
json=$(lz audit -w "$repo" --json)
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
req = [r["detail"] for r in rows if r["kind"] == "esc.request"]
assert [r["verdict"] for r in req[:3]] == ["auto-approve", "needs-prompt", "needs-prompt"], req
assert all(r["surface_check"] in ("checked", "unchanged since the last check") for r in req), req
for r in req[1:3]:
    assert r["why"].startswith("auto_approve suspended: the agent changed the executable surface: Makefile"), r
' || fail "the requests after the edit are not prompts naming the Makefile: $json"
note "ok: after the agent's edit, make test is a prompt naming the Makefile (audited)"

# Inside the gate's 1 s margin, where its stamp is taken against the
# checkout filesystem's own clock: the user's recipe back and approved at
# once, then the same-size swap with the old mtime in the same breath.
out=$(lz run -T -w "$repo" -- sh -c "cd /workspace && printf '$user_fmt' > Makefile &&
	lazaret-escalate -- make test && cp -p Makefile /tmp/m && printf '$evil_fmt' > Makefile &&
	touch -r /tmp/m Makefile && lazaret-escalate -- make test; echo \"rc=\$?\"" 2>&1)
assert_contains "$out" "user-recipe" "the user's recipe, just written, is approved"
assert_not_contains "$out" "agent-recipe" "the swap right after it did not run"
assert_not_contains "$out" "rc=0" "the swap right after it was not approved"
[ ! -e "$pwned" ] || fail "the swapped recipe ran on the host within the margin"
lz stop -w "$repo" >/dev/null 2>&1 || true
