#!/usr/bin/env bash
# test-kit-claude.sh - the claude kit end to end: its image built from this
# host's Debian mirror and the npm registry (then a cache hit), `lazaret run
# claude -- claude --version`, and a real turn of the real Claude Code
# against a FAKE model server (tests/integ/fake-model.py) in a network
# namespace this test creates: the fake model's tool call makes the agent
# write a file, seen on branch lazaret/agent-claude through `lazaret diff`;
# the request reached the fake server through the sidecar (egress log).
# No test talks to a real model API. The image stays in the test user's
# podman store for later runs (cached by its recipe hash).
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
need_default_image
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing: run scripts/setup-host"
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"

note "the kit's image: built when missing (minutes), then a cache hit"
TO=900 lz image build --kit claude >"$T/build1.out" 2>"$T/build1.err" ||
	fail "image build --kit claude: $(tail -20 "$T/build1.err")"
img=$(tail -1 "$T/build1.out")
case $img in localhost/lazaret-kit-claude:????????????) note "ok: image $img" ;;
	*) fail "unexpected image name [$img]" ;; esac
id1=$(as_user podman image inspect --format '{{.Id}}' "$img")
lz image build --kit claude >"$T/build2.out" 2>"$T/build2.err" || fail "second build: $(cat "$T/build2.err")"
assert_eq "$(tail -1 "$T/build2.out")" "$img" "the second build names the same image"
assert_not_contains "$(cat "$T/build2.err")" "step:" "the second build runs no step (cache hit)"
assert_eq "$(as_user podman image inspect --format '{{.Id}}' "$img")" "$id1" "the image is the same one"
ls=$(lz image ls)
assert_contains "$ls" "lazaret-kit-claude:${img##*:}" "image ls lists the kit image"
assert_contains "$ls" "claude   ${img##*:}" "image ls shows its kit and recipe hash"

# --- the fake model in a namespace of our own: NET.2:8080
lz_test_netns 10.214 2
ip netns exec "$SRV" python3 "$LZ_SRC/tests/integ/fake-model.py" "$NET.2" 8080 "$T/model.log" \
	/workspace/hello-from-agent.txt >"$T/model.out" 2>&1 & lz_on_exit "kill $!"
: >"$T/model.log"
wait_for 60 grep -q serving "$T/model.out" || fail "fake model server did not start: $(cat "$T/model.out")"

lz_domain ws claude
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  default:
    image: localhost/lazaret-default:latest
  claude:
    allow_egress: ["$NET.2:8080"]
    env:
      ANTHROPIC_BASE_URL: http://$NET.2:8080
YAML
LZ_ENV=(ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests)

note "config check: the kit's defaults under the user's profile"
chk=$(lz config check --profile claude -w "$repo")
assert_contains "$chk" "image: \"$img\"  # from kit claude" "the image comes from the kit"
assert_contains "$chk" "DISABLE_AUTOUPDATER: \"1\"  # from kit claude" "the kit's env is merged"
assert_contains "$chk" "ANTHROPIC_BASE_URL: \"http://$NET.2:8080\"" "the user's env is there"
assert_contains "$chk" "- \"$NET.2/32:8080\"" "the user's allow_egress"
assert_not_contains "$chk" "- \"api.anthropic.com" "the user's allow_egress replaces the kit's"
assert_contains "$chk" "credentials:  # from kit claude" "the kit brokers the API key"
assert_not_contains "$chk" "sk-ant-fake-key-for-tests" "config check never shows the key"
assert_contains "$chk" "trust_host_ca: true  # from kit claude" "trust_host_ca on for the kit"

note "lazaret run claude -- claude --version"
out=$(TO=300 as_user lazaret run -T -w "$repo" claude -- claude --version 2>"$T/run1.err") ||
	fail "run claude --version: $out $(cat "$T/run1.err")"
assert_contains "$out" "(Claude Code)" "claude prints its version"
out=$(as_user lazaret run -T -w "$repo" claude -- sh -c 'echo "$NODE_EXTRA_CA_CERTS $DISABLE_AUTOUPDATER key=$ANTHROPIC_API_KEY"; head -1 /etc/ssl/certs/ca-certificates.crt' 2>&1)
assert_contains "$out" "key=lazaret-sentinel-anthropic" "the sandbox holds a sentinel, not the key (the broker has it)"
assert_not_contains "$out" "sk-ant-fake-key-for-tests" "the host's key is not in the sandbox"
assert_contains "$out" "/etc/ssl/certs/ca-certificates.crt 1" "CA variables and the kit's switches are set"
assert_contains "$out" "BEGIN CERTIFICATE" "the host's CA bundle is in the sandbox"

note "after --, a kit's name is the command again (today's grammar)"
out=$(as_user lazaret run -T -w "$repo" -p claude -- sh -c 'echo profile-claude-$DISABLE_AUTOUPDATER' 2>&1) ||
	fail "run -p claude -- sh: $out"
assert_contains "$out" "profile-claude-1" "-p claude is the kit's profile too"
rc=0; out=$(as_user lazaret run -T -w "$repo" -- claude --version 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "lazaret run -- claude ran in the default profile's image: $out"
note "ok: lazaret run -- claude runs the program claude in the default profile (not there: exit $rc)"
lz stop -w "$repo" >/dev/null 2>&1 || true
as_user podman rm -f -t0 "lazaret-default-$(printf '%s' "default:$canon" | sha256sum | cut -c1-12)" >/dev/null 2>&1 || true

# a session kept live meanwhile: the egress log is then read from the running
# coordinator (not from its store while the domain tears down)
lz run -T -w "$repo" claude -- sleep 3600 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $!"
wait_for 120 sh -c "$(as_user_line lazaret status -p claude -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start"
note "a real turn: claude -p against the fake model, unattended as the agent user"
# --dangerously-skip-permissions, Claude Code's usual mode in a sandbox: it
# refuses to start as root, so this also shows the agent is not root
out=$(TO=300 as_user lazaret run -T -w "$repo" claude -- claude -p "Write hello-from-agent.txt" \
	--dangerously-skip-permissions 2>"$T/turn.err") ||
	fail "claude -p failed: $out $(cat "$T/turn.err") model log: $(cat "$T/model.log")"
note "claude said: $out"
log=$(cat "$T/model.log")
assert_contains "$log" "\"path\": \"/v1/messages\"" "the agent called the fake Messages API"
assert_contains "$log" "\"tool_result\": true" "the agent sent the tool's result back"
assert_contains "$out" "Done: the file is written." "the agent printed the model's last answer"
diff=$(lz diff -p claude -w "$repo" 2>&1) || fail "lazaret diff: $diff"
assert_contains "$diff" "hello-from-agent.txt" "lazaret diff shows the agent's file"
assert_contains "$diff" "+written by the agent through the fake model" "with the content the tool call wrote"
ev=$(lz egress --json -n 0 -p claude -w "$repo")
assert_contains "$ev" "\"verdict\":\"allow\",\"proto\":\"tcp\",\"addr\":\"$NET.2\",\"port\":8080" \
	"the request went out through the sidecar (egress log)"
lz stop -p claude -w "$repo" >/dev/null 2>&1 || true
assert_contains "$log" "\"peer\": \"$NET.1\"" "the fake server saw it from the host's side (slirp4netns)"

note "the agent's state (~/.claude) survives lazaret stop"
out=$(as_user lazaret run -T -w "$repo" claude -- sh -c 'echo kept > /home/agent/.claude/lazaret-marker;
	test -f /home/agent/.claude/.claude.json && echo "config in CLAUDE_CONFIG_DIR"' 2>&1) || fail "marker: $out"
assert_contains "$out" "config in CLAUDE_CONFIG_DIR" "Claude Code wrote .claude.json into ~/.claude (the kit's state dir)"
lz stop -p claude -w "$repo" >/dev/null 2>&1 || true
out=$(as_user lazaret run -T -w "$repo" claude -- cat /home/agent/.claude/lazaret-marker 2>&1) || fail "after stop: $out"
assert_contains "$out" "kept" "~/.claude is kept across lazaret stop"

note "the same turn through the credential broker: Claude Code holds a sentinel, the model gets the key"
lz_test_ca "$T" "$NET.2"
: >"$T/model2.log"
FAKE_MODEL_TLS="$T/srv.pem:$T/srv.key" FAKE_MODEL_KEY=sk-ant-fake-key-for-tests ip netns exec "$SRV" \
	python3 "$LZ_SRC/tests/integ/fake-model.py" "$NET.2" 8443 "$T/model2.log" \
	/workspace/hello-via-broker.txt >"$T/model2.out" 2>&1 & lz_on_exit "kill $!"
wait_for 60 grep -q serving "$T/model2.out" || fail "TLS fake model did not start: $(cat "$T/model2.out")"
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  default:
    image: localhost/lazaret-default:latest
  claude:
    credentials:
      - {name: anthropic, from: "env:ANTHROPIC_API_KEY", upstream: "https://$NET.2:8443", header: x-api-key,
         ca_file: "$T/ca.pem", allow: ["POST /v1/messages"], base_env: ANTHROPIC_BASE_URL,
         key_env: ANTHROPIC_API_KEY}
YAML
# a session kept live meanwhile: the egress log below is read from the running
# coordinator, not from its store while the domain tears down (which a CLI
# cannot open then: "state store ... is in use by another process")
lz stop -p claude -w "$repo" >/dev/null 2>&1 || true
lz run -T -w "$repo" claude -- sleep 3600 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $!"
wait_for 120 sh -c "$(as_user_line lazaret status -p claude -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start with the credential"
out=$(TO=300 as_user lazaret run -T -w "$repo" claude -- claude -p "Write hello-via-broker.txt" \
	--dangerously-skip-permissions 2>"$T/turn2.err") ||
	fail "claude -p through the broker failed: $out $(cat "$T/turn2.err") model log: $(cat "$T/model2.log")"
log=$(cat "$T/model2.log")
assert_contains "$log" "\"path\": \"/v1/messages\"" "Claude Code called the Messages API through the broker"
assert_contains "$log" "\"key\": \"real\"" "the model got the host's key, added by the broker"
assert_not_contains "$log" "\"key\": \"sentinel\"" "never the sentinel"
assert_contains "$log" "\"tool_result\": true" "the turn completed its tool round trip"
assert_contains "$out" "Done: the file is written." "the agent printed the model's answer"
ev=$(lz egress --json -n 0 -p claude -w "$repo")
assert_contains "$ev" "\"kind\":\"broker\",\"verdict\":\"allow\"" "the requests are brokered rows in the egress log"
lz stop -p claude -w "$repo" >/dev/null 2>&1 || true
