#!/usr/bin/env bash
# test-kit-codex.sh - the codex kit end to end: its image (built once, then
# cached in the test user's podman store), `lazaret run codex -- codex
# --version`, and a real turn of the real Codex CLI (`codex exec`) against a
# FAKE OpenAI Responses API (tests/integ/fake-model.py, streamed) in a
# network namespace this test creates: the fake model's exec_command call
# makes the agent write a file, seen through `lazaret diff`; the request
# went out through the sidecar (egress log). No test talks to a real API.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing: run scripts/setup-host"

note "the kit's image: built when missing (minutes), then a cache hit"
TO=900 lz image build --kit codex >"$T/build.out" 2>"$T/build.err" ||
	fail "image build --kit codex: $(tail -20 "$T/build.err")"
img=$(tail -1 "$T/build.out")
lz image build --kit codex >"$T/build2.out" 2>"$T/build2.err" || fail "second build: $(cat "$T/build2.err")"
assert_not_contains "$(cat "$T/build2.err")" "step:" "the second build runs no step (cache hit)"

lz_test_netns 10.217 2
ip netns exec "$SRV" python3 "$LZ_SRC/tests/integ/fake-model.py" "$NET.2" 8080 "$T/model.log" \
	/workspace/hello-from-agent.txt >"$T/model.out" 2>&1 & lz_on_exit "kill $!"
: >"$T/model.log"
wait_for 60 grep -q serving "$T/model.out" || fail "fake model server did not start: $(cat "$T/model.out")"

lz_domain ws codex
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  codex:
    allow_egress: ["$NET.2:8080"]
YAML
LZ_ENV=(OPENAI_API_KEY=sk-fake-key-for-tests)
chk=$(lz config check --profile codex -w "$repo")
assert_contains "$chk" "image: \"$img\"  # from kit codex" "the image comes from the kit"
assert_contains "$chk" "CODEX_HOME: \"/home/agent/.codex\"  # from kit codex" "the kit's env is merged"

out=$(TO=300 as_user lazaret run -T -w "$repo" codex -- codex --version 2>"$T/v.err") ||
	fail "codex --version: $out $(cat "$T/v.err")"
assert_contains "$out" "codex-cli" "codex prints its version"

# a session kept live meanwhile: the egress log is then read from the running
# coordinator (not from its store while the domain tears down)
lz run -T -w "$repo" codex -- sleep 3600 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $!"
wait_for 120 sh -c "$(as_user_line lazaret status -p codex -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start"
note "a real turn: codex exec against the fake Responses API"
prov="model_providers.fake={name=\"fake\",base_url=\"http://$NET.2:8080/v1\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\"}"
out=$(TO=300 as_user lazaret run -T -w "$repo" codex -- codex exec --skip-git-repo-check \
	--dangerously-bypass-approvals-and-sandbox -c "$prov" -c model_provider=fake -m gpt-fake \
	"Write hello-from-agent.txt" </dev/null 2>"$T/turn.err") ||
	fail "codex exec failed: $out $(cat "$T/turn.err") model log: $(cat "$T/model.log")"
log=$(cat "$T/model.log")
assert_contains "$log" "\"path\": \"/v1/responses\"" "the agent called the fake Responses API"
assert_contains "$log" "\"tool_result\": true" "the agent sent the tool's output back"
assert_contains "$out" "Done: the file is written." "the agent printed the model's last answer"
diff=$(lz diff -p codex -w "$repo" 2>&1) || fail "lazaret diff: $diff"
assert_contains "$diff" "+written by the agent through the fake model" "lazaret diff shows the file the agent wrote"
ev=$(lz egress --json -n 0 -p codex -w "$repo")
assert_contains "$ev" "\"verdict\":\"allow\",\"proto\":\"tcp\",\"addr\":\"$NET.2\",\"port\":8080" \
	"the request went out through the sidecar (egress log)"
lz stop -p codex -w "$repo" >/dev/null 2>&1 || true
