#!/usr/bin/env bash
# test-kit-codex.sh - the codex kit end to end: its image (built once, then
# cached in the test user's podman store), `lazaret run codex -- codex
# --version`, and a real turn of the real Codex CLI (`codex exec`) against a
# FAKE OpenAI Responses API (tests/integ/fake-model.py, streamed) in a
# network namespace this test creates: the fake model's exec_command call
# makes the agent write a file, seen through `lazaret diff`; the request
# went out through the sidecar (egress log). Then the same turn through the
# credential broker: Codex holds OPENAI_BASE_URL and a sentinel, the fake
# model (HTTPS, the test's own CA) gets the host's key, and no process's
# environment or argv nor any file in the sandbox holds it. No test talks to
# a real API.
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

note "the same turn through the credential broker: Codex holds a sentinel, the model gets the key"
KEY="sk-test-$(openssl rand -hex 24)"
needle=${KEY:8:24}
lz_test_ca "$T" "$NET.2"
: >"$T/model2.log"
FAKE_MODEL_TLS="$T/srv.pem:$T/srv.key" FAKE_MODEL_KEY=$KEY ip netns exec "$SRV" \
	python3 "$LZ_SRC/tests/integ/fake-model.py" "$NET.2" 8443 "$T/model2.log" \
	/workspace/hello-via-broker.txt >"$T/model2.out" 2>&1 & lz_on_exit "kill $!"
wait_for 60 grep -q serving "$T/model2.out" || fail "TLS fake model did not start: $(cat "$T/model2.out")"
# no allow_egress for the model: only the broker reaches it
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  codex:
    credentials:
      - {name: openai, from: "env:OPENAI_API_KEY", upstream: "https://$NET.2:8443",
         header: "authorization: Bearer", ca_file: "$T/ca.pem",
         allow: ["POST /v1/responses", "GET /v1/models"], base_env: OPENAI_BASE_URL, base_path: /v1,
         key_env: OPENAI_API_KEY}
YAML
LZ_ENV=(OPENAI_API_KEY="$KEY")
# the domain again, with the credential (a session kept live: egress below)
lz stop -p codex -w "$repo" >/dev/null 2>&1 || true
lz run -T -w "$repo" codex -- sleep 3600 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $!"
wait_for 120 sh -c "$(as_user_line lazaret status -p codex -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start with the credential"
# the turn, while every process's environment and argv are read from inside
out=$(TO=300 as_user lazaret run -T -w "$repo" codex -- sh -c '
	echo "base=$OPENAI_BASE_URL key=$OPENAI_API_KEY"
	codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -m gpt-fake \
		"Write hello-via-broker.txt" >/tmp/turn.out 2>/tmp/turn.err & c=$!
	i=0; while kill -0 $c 2>/dev/null && [ $i -lt 1200 ]; do
		for p in /proc/[0-9]*; do tr "\0" "\n" <$p/environ; tr "\0" " " <$p/cmdline; echo; done >>/tmp/procs 2>/dev/null
		i=$((i+1)); sleep 0.1; done
	wait $c; echo "codex-rc=$?"; cat /tmp/turn.out; tail -5 /tmp/turn.err
	echo "codex-seen=$(grep -c "codex exec" /tmp/procs)"; cat /tmp/procs
	grep -rlF "$1" / --exclude=procs --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null |
		sed "s/^/key-in-""file: /"; echo "grep-done"' \
	sh "$needle" </dev/null 2>"$T/turn2.err") ||
	fail "codex through the broker: $out $(cat "$T/turn2.err") model log: $(cat "$T/model2.log")"
assert_contains "$out" "base=http://127.0.0.1:4780/v1 key=lazaret-sentinel-openai" \
	"the sandbox has OPENAI_BASE_URL (the broker) and a sentinel key"
assert_contains "$out" "codex-rc=0" "codex exec completed"
log=$(cat "$T/model2.log")
assert_contains "$log" "\"path\": \"/v1/responses\"" "Codex called the Responses API through the broker"
assert_contains "$log" "\"key\": \"real\"" "the model got the host's key, added by the broker"
assert_not_contains "$log" "\"key\": \"sentinel\"" "never the sentinel"
assert_not_contains "$log" "\"key\": \"other\"" "nor anything else"
assert_contains "$log" "\"tool_result\": true" "the turn completed its tool round trip"
assert_contains "$out" "Done: the file is written." "the agent printed the model's answer"
[ "$(printf '%s\n' "$out" | sed -n 's/^codex-seen=//p')" -gt 0 ] ||
	fail "the process scan never saw codex running: $out"
assert_not_contains "$out" "$KEY" "no process's environment or argv in the sandbox held the key while Codex ran"
assert_contains "$out" "grep-done" "every readable file was searched"
assert_not_contains "$out" "key-in-file: " "no file in the sandbox holds the key"
diff=$(lz diff -p codex -w "$repo" 2>&1) || fail "lazaret diff: $diff"
assert_contains "$diff" "hello-via-broker.txt" "lazaret diff shows the file written in the brokered turn"
ev=$(lz egress --json -n 0 -p codex -w "$repo")
assert_contains "$ev" "\"kind\":\"broker\",\"verdict\":\"allow\"" "the requests are brokered rows in the egress log"
assert_contains "$ev" "\"credential\":\"openai\",\"status\":200" "named by the credential, with the model's status"
assert_not_contains "$ev" "$KEY" "the egress log holds no key"
lz stop -p codex -w "$repo" >/dev/null 2>&1 || true
