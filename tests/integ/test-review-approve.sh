#!/usr/bin/env bash
# test-review-approve.sh - auto-approval that reads agent files, from the
# real sandbox: with auto_approve ["make test"], `lazaret-escalate -- make
# test` runs by itself while the agent's Makefile is the user's; once the
# agent edits the recipe (uncommitted, then committed), the same request
# becomes a prompt naming the Makefile (nobody answers: it times out,
# denied), and the edited recipe never runs on the host.
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
as_user sh -c "cd '$repo' && printf 'test:\n\t@echo user-recipe\n' > Makefile && git add Makefile && git commit -qm make"

out=$(lz run -T -w "$repo" -- sh -c 'cd /workspace && lazaret-escalate -- make test; echo "rc=$?"' 2>&1)
assert_contains "$out" "user-recipe" "the user's recipe runs, auto-approved"
assert_contains "$out" "rc=0" "exit 0"

# The agent edits the recipe, without committing.
out=$(lz run -T -w "$repo" -- sh -c "cd /workspace && printf 'test:\n\t@touch $pwned; echo agent-recipe\n' > Makefile &&
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
lz stop -w "$repo" >/dev/null 2>&1 || true
json=$(lz audit -w "$repo" --json)
printf '%s\n' "$json" | timeout 10 python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
req = [r["detail"] for r in rows if r["kind"] == "esc.request"]
assert [r["verdict"] for r in req] == ["auto-approve", "needs-prompt", "needs-prompt"], req
for r in req[1:]:
    assert r["why"].startswith("auto_approve suspended: the agent changed the executable surface: Makefile"), r
' || fail "the requests after the edit are not prompts naming the Makefile: $json"
note "ok: after the agent's edit, make test is a prompt naming the Makefile (audited)"
