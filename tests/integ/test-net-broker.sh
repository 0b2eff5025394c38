#!/usr/bin/env bash
# test-net-broker.sh - the credential broker end to end (issue 26): a secret
# held by the Network Sidecar, never inside the sandbox. The upstream is an
# HTTPS server with a certificate from a CA this test makes (openssl), in a
# network namespace this test creates; the agent is real curl inside the real
# gVisor sandbox (the claude kit's image, which has curl). Traffic goes only
# to that namespace.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"
command -v openssl >/dev/null || skip "openssl not installed"

note "the kit image with curl (the claude kit's, built once and reused)"
img=$(TO=900 lz image build --kit claude 2>"$T/build.err" | tail -1) || fail "kit image: $(cat "$T/build.err")"

# --- the test CA, the upstream's certificate for its address, a second CA
lz_test_netns 10.215 2 3
KEY="sk-test-$(openssl rand -hex 24)"
lz_test_ca "$T" "$NET.2"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/other.key" -out "$T/other-ca.pem" -days 2 \
	-subj /CN=other-ca >/dev/null 2>&1 || fail "second CA"
chmod a+r "$T/other-ca.pem"
# the git host's repository, with one commit on main
git init -q --bare -b main "$T/srv/repo.git"
git -C "$T/srv/repo.git" config http.receivepack true
git init -q -b main "$T/seed" && git -C "$T/seed" -c user.name=t -c user.email=t@example.invalid \
	commit -q --allow-empty -m seed && git -C "$T/seed" push -q "$T/srv/repo.git" main
printf '%s\n' "$KEY" >"$T/token"; chmod 600 "$T/token"; chown "$LZ_USER" "$T/token"
: >"$T/up.log"
GIT_ROOT=$T/srv ip netns exec "$SRV" python3 "$LZ_SRC/tests/integ/broker-upstream.py" "$NET.2" 8443 "$T/srv.pem" \
	"$T/srv.key" "$T/up.log" "$KEY" >"$T/up.out" 2>&1 & lz_on_exit "kill $!"
wait_for 30 grep -q serving "$T/up.out" || fail "test upstream did not start: $(cat "$T/up.out"; ps -ef | grep [b]roker-upstream)"

lz_domain ws broker
lz_config <<YAML
network:
  ask_timeout: 0
profiles:
  broker:
    image: $img
    network: sidecar
    credentials:
      - name: testapi
        from: env:LZ_TEST_API_KEY
        upstream: https://$NET.2:8443
        header: x-api-key
        ca_file: $T/ca.pem
        allow: ["POST /v1/messages", "GET /v1/stream", "GET /v1/ack", "GET /v1/redirect"]
        base_env: TEST_API_BASE_URL
        key_env: TEST_API_KEY
      - name: wrongca
        from: env:LZ_TEST_API_KEY
        upstream: https://$NET.2:8443
        header: "authorization: Bearer"
        ca_file: $T/other-ca.pem
        base_env: WRONG_BASE_URL
      - name: gitrepo
        kind: git
        from: file:$T/token
        upstream: https://$NET.2:8443/git/repo.git
        ca_file: $T/ca.pem
        base_env: GIT_URL
      - name: gitforce
        kind: git
        from: file:$T/token
        upstream: https://$NET.2:8443/git/repo.git
        ca_file: $T/ca.pem
        force: true
        base_env: GIT_FORCE_URL
  missing:
    image: $img
    credentials:
      - name: gone
        from: env:LZ_TEST_NO_SUCH_VARIABLE
        upstream: https://$NET.2:8443
YAML
LZ_ENV=(LZ_TEST_API_KEY="$KEY")

note "config check: where the secret comes from, never the secret"
chk=$(lz config check --profile broker -w "$repo")
assert_contains "$chk" "from: \"env:LZ_TEST_API_KEY\"  # read on the host at start" "config check names the source"
assert_contains "$chk" "no allow_egress entry needed" "config check says the upstream needs no allow_egress"
assert_not_contains "$chk" "$KEY" "config check never prints the secret"
assert_contains "$chk" "force: false  # fast-forwards only" "config check says a git entry refuses force pushes"
assert_contains "$chk" "force: true  # a push may rewrite" "and which entry allows them"

note "a missing source is a start error naming the entry"
rc=0; out=$(lz run -T -w "$repo" -p missing -- true 2>&1 </dev/null) || rc=$?
[ $rc -ne 0 ] || fail "a profile whose secret is missing started: $out"
assert_contains "$out" "credential gone" "the error names the credential"
assert_contains "$out" "LZ_TEST_NO_SUCH_VARIABLE is unset" "and says what is missing"

run() { lz run -T -w "$repo" -p broker -- sh -c "$1" </dev/null 2>&1; }
lz run -T -w "$repo" -p broker -- sleep 600 </dev/null >"$T/hold.log" 2>&1 & HOLD=$!
lz_on_exit "kill $HOLD"
wait_for 120 sh -c "$(as_user_line lazaret status -p broker -w "$repo") | grep -q 'router up'" ||
	fail "the domain did not start: $(cat "$T/hold.log")"

st=$(lz status -p broker -w "$repo")
assert_contains "$st" "credentials: http://127.0.0.1:4780 -> https://$NET.2:8443 (testapi)" \
	"lazaret status lists the brokered credentials"
assert_not_contains "$st" "$KEY" "and never the secret"

note "the agent's side: a base URL and a sentinel"
out=$(run 'echo "base=$TEST_API_BASE_URL key=$TEST_API_KEY"')
assert_contains "$out" "base=http://127.0.0.1:4780 key=lazaret-sentinel-testapi" "the sandbox sees the broker and a sentinel"

note "a request with the sentinel reaches the upstream with the real key"
out=$(run 'curl -sS -X POST -H "x-api-key: $TEST_API_KEY" -H "content-type: application/json" \
	--data "{\"hello\":1}" "$TEST_API_BASE_URL/v1/messages"')
assert_contains "$out" "key-ok body=11" "the upstream got the real key and the body"
assert_contains "$(cat "$T/up.log")" "\"path\": \"/v1/messages\", \"key_ok\": true, \"sentinel\": false" \
	"the upstream saw the key, not the sentinel"
out=$(run 'printf "{\"chunked\":true}" | curl -sS -X POST -H "Transfer-Encoding: chunked" \
	--data-binary @- "$TEST_API_BASE_URL/v1/messages"')
assert_contains "$out" "key-ok body=16" "a chunked body is forwarded to its end"

note "no byte of the key inside the sandbox: env, /proc/*/environ, every readable file"
out=$(run 'env; cat /proc/*/environ 2>/dev/null | tr "\0" "\n"; echo env-done')
assert_contains "$out" "env-done" "the environment was read"
assert_not_contains "$out" "$KEY" "the key is not in any process's environment"
needle=${KEY:8:24}
out=$(run "grep -rlF '$needle' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null; echo grep-done:\$?")
assert_contains "$out" "grep-done" "every readable file was searched"
assert_not_contains "$out" "/" "no file in the sandbox holds the key"
out=$(run "curl -sS -m 5 http://127.0.0.1:4780/v1/nothing -H 'Host: 127.0.0.1:4780' -o /dev/null -w '%{http_code}'; \
	for p in 53 4780 4781; do printf 'GET / HTTP/1.1\r\n\r\n' | timeout 5 curl -s -m 3 telnet://127.0.0.1:\$p 2>/dev/null; done")
assert_not_contains "$out" "$needle" "the sidecar's ports answer nothing of the key"

note "a streamed response arrives in pieces"
out=$(run 'curl -sS -N "$TEST_API_BASE_URL/v1/stream" >/tmp/stream & c=$!
	i=0; while ! grep -q event-1 /tmp/stream && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
	grep -q event-2 /tmp/stream && echo "both-at-once"
	grep -q event-1 /tmp/stream && echo "first-piece-alone"
	curl -sS "$TEST_API_BASE_URL/v1/ack"; wait $c; cat /tmp/stream')
assert_contains "$out" "first-piece-alone" "event-1 arrived before the stream ended"
assert_not_contains "$out" "both-at-once" "event-2 was not there yet"
assert_contains "$out" "event-2 acked" "the rest came after"

note "outside allow: refused and audited"
out=$(run 'curl -sS -w " status=%{http_code}" "$TEST_API_BASE_URL/v1/admin"')
assert_contains "$out" "status=403" "a path outside allow is refused"
assert_contains "$out" "outside credential testapi's allow list" "with a reason"

note "red team: the key must not go to another host"
out=$(run "curl -sS -w ' status=%{http_code}' -H 'Host: $NET.3:8443' \"\$TEST_API_BASE_URL/v1/messages\" -X POST -d x")
assert_contains "$out" "status=421" "another Host is refused"
out=$(run "curl -sS -w ' status=%{http_code}' --request-target 'http://$NET.3:8443/v1/messages' \"\$TEST_API_BASE_URL/\" -X POST -d x")
assert_contains "$out" "status=400" "an absolute URL is refused"
assert_contains "$out" "absolute URLs" "with the reason"
out=$(run "curl -sS -m 10 -p -x \"\$TEST_API_BASE_URL\" https://$NET.3:8443/ 2>&1; echo rc=\$?")
assert_not_contains "$out" "rc=0" "CONNECT through the broker fails"
out=$(run 'curl -sS -w " status=%{http_code} location=%{redirect_url}" "$TEST_API_BASE_URL/v1/redirect"')
assert_contains "$out" "status=302" "a redirect comes back to the agent, not followed"
assert_eq "$(grep -c '"path": "/v1/redirect"' "$T/up.log")" 1 "the upstream saw the redirecting request once"
out=$(run 'curl -sS -w " status=%{http_code}" -H "Upgrade: websocket" -H "Connection: upgrade" "$TEST_API_BASE_URL/v1/stream"')
assert_contains "$out" "status=426" "Upgrade is refused (426: a WebSocket client falls back to plain HTTP)"
assert_not_contains "$(cat "$T/up.log")" "$NET.3" "the upstream never saw another host's name"

out=$(run "printf 'POST /v1/messages?first HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET /v1/ack?pipelined HTTP/1.1\r\n\r\n' |
	timeout 20 curl -s -m 10 telnet://127.0.0.1:4780; echo done")
assert_contains "$out" "key-ok body=0" "the first of two pipelined requests is answered"
assert_contains "$(cat "$T/up.log")" "/v1/messages?first" "and reached the upstream"
assert_not_contains "$(cat "$T/up.log")" "pipelined" "the request pipelined after it never left the broker"

note "TLS failure: 502 with one line"
out=$(run 'curl -sS -w " status=%{http_code}" "$WRONG_BASE_URL/x"')
assert_contains "$out" "status=502" "an unverifiable upstream is a 502"
assert_contains "$out" "certificate" "naming the certificate problem"

note "the router's side: the key in locked memory, not on its command line, environment or container"
side=lazaret-net-$hash
rh=$(lz_router_pid "$side") || fail "no router in $side's namespace"
lck=$(awk '/^VmLck:/ { print $2 }' "/proc/$rh/status")
[ "${lck:-0}" -gt 0 ] || fail "the router holds no locked memory (VmLck $lck kB)"
note "ok: the router has $lck kB locked (sodium_malloc)"
assert_not_contains "$(tr '\0' ' ' <"/proc/$rh/cmdline"; tr '\0' ' ' <"/proc/$rh/environ")" "$KEY" \
	"the router's argv and environment hold no key"
assert_not_contains "$(as_user podman inspect "$side" "$ctr" 2>/dev/null)" "$KEY" \
	"podman's view of the containers holds no key"

note "the router restarted mid-run still brokers"
kill -9 "$rh"
wait_for 60 sh -c "$(as_user_line lazaret status -p broker -w "$repo") | grep -q 'router up (1 restarts)'" ||
	fail "the router was not restarted: $(lz status -p broker -w "$repo")"
out=$(run 'curl -sS -X POST -H "x-api-key: $TEST_API_KEY" --data x "$TEST_API_BASE_URL/v1/messages"')
assert_contains "$out" "key-ok body=1" "the restarted router got the credentials again"

note "git through the broker: fetch, a push to lazaret/*, and refusals git can read"
out=$(run 'cd /tmp && git clone -q "$GIT_URL" r && cd r && git log --format=%s && \
	git -c user.name=a -c user.email=a@example.invalid commit -q --allow-empty -m agent-work && \
	git push -q origin HEAD:refs/heads/lazaret/agent-broker 2>&1 && echo push-ok
	git push origin HEAD:main 2>&1; echo main-rc=$?
	git push origin :refs/heads/lazaret/agent-broker 2>&1; echo delete-rc=$?')
assert_contains "$out" "seed" "the agent cloned through the broker (the token added on the way)"
assert_contains "$out" "push-ok" "a push to refs/heads/lazaret/agent-broker went through"
assert_eq "$(git -C "$T/srv/repo.git" log -1 --format=%s lazaret/agent-broker)" "agent-work" \
	"the git host has the agent's branch"
assert_contains "$out" "[remote rejected] HEAD -> main (lazaret: credential gitrepo pushes only refs/heads/lazaret/*" \
	"a push to main is refused, git prints why"
assert_contains "$out" "main-rc=1" "and git fails"
assert_eq "$(git -C "$T/srv/repo.git" log -1 --format=%s main)" "seed" "main is untouched on the git host"
assert_contains "$out" "delete-rc=1" "a delete is refused"
git -C "$T/srv/repo.git" rev-parse -q --verify lazaret/agent-broker >/dev/null || fail "the branch was deleted"
assert_not_contains "$out" "$KEY" "git's output holds no token"

note "force pushes: a fast-forward passes; a rewrite, a rewind and an unrelated history are refused; force: true lets one through"
out=$(run 'cd /tmp && git clone -q "$GIT_URL" f && cd f && git checkout -q -b w origin/lazaret/agent-broker &&
	ci() { git -c user.name=a -c user.email=a@example.invalid commit -q --allow-empty "$@"; } &&
	ci -m ff-work && git push -q origin HEAD:refs/heads/lazaret/agent-broker 2>&1 && echo ff-ok
	head -c 3000000 /dev/urandom >big && git add big && ci -m big &&
	git push origin HEAD:refs/heads/lazaret/agent-broker 2>&1 && echo "big-ok $(git rev-parse HEAD)"
	ci --amend -m rewritten && git push -f origin HEAD:refs/heads/lazaret/agent-broker 2>&1; echo amend-rc=$?
	git reset -q --hard HEAD~1 && git push -f origin HEAD:refs/heads/lazaret/agent-broker 2>&1; echo rewind-rc=$?
	git checkout -q --orphan o && ci -m unrelated && git push -f origin HEAD:refs/heads/lazaret/agent-broker 2>&1
	echo orphan-rc=$?
	git checkout -q w && git push -f "$GIT_FORCE_URL" HEAD:refs/heads/lazaret/agent-broker 2>&1 && echo forced-ok')
note "git said: $(printf '%s\n' "$out" | grep 'remote rejected' | tr -s ' ')"
assert_contains "$out" "ff-ok" "a fast-forward push to the agent's branch goes through"
assert_contains "$out" "big-ok" "a 3 MB push (chunked by git) is read whole and passes as a fast-forward"
big=$(printf '%s\n' "$out" | sed -n 's/^big-ok //p')
assert_eq "$(git -C "$T/srv/repo.git" cat-file -s "$big:big" 2>&1)" 3000000 "the git host has the big file whole"
assert_contains "$out" "[remote rejected] HEAD -> lazaret/agent-broker (lazaret: credential gitrepo: force push: the pushed commits do not descend from" \
	"an amended commit force-pushed is refused, git prints why"
assert_contains "$out" "(force: false)" "naming the entry's setting"
assert_contains "$out" "amend-rc=1" "and git fails"
assert_contains "$out" "rewind-rc=1" "a rewind to an older commit is refused"
assert_contains "$out" "force push: not a fast-forward of" "an unrelated history is refused as not a fast-forward"
assert_contains "$out" "orphan-rc=1" "and git fails"
assert_contains "$out" "forced-ok" "an entry with force: true lets the rewind through"
assert_eq "$(git -C "$T/srv/repo.git" log -1 --format=%s lazaret/agent-broker)" "ff-work" \
	"the git host's branch was rewound (from big to ff-work) only by the force: true entry"
assert_not_contains "$(git -C "$T/srv/repo.git" log --all --format=%s)" "rewritten" \
	"no object of a refused push reached the git host"

note "audit and egress log"
kill -0 "$HOLD" 2>/dev/null || fail "the session holding the domain ended: $(cat "$T/hold.log")"
ev=$(lz egress --json -n 0 -p broker -w "$repo")
assert_contains "$ev" "\"kind\":\"broker\",\"verdict\":\"allow\"" "brokered requests are in the egress log"
assert_contains "$ev" "\"credential\":\"testapi\",\"status\":200" "with the credential and status"
assert_contains "$ev" "\"name\":\"GET /v1/admin\"" "the refused path is logged"
assert_contains "$ev" "\"name\":\"POST /v1/messages?first\"" \
	"a forwarded request's row names its path (not bytes of the response, which reuse its buffer)"
assert_not_contains "$ev" "$KEY" "the egress log holds no key"
au=$(lz audit -p broker -w "$repo" 2>&1)
assert_contains "$au" "net.broker-refused" "a refused request is an audit row"
assert_contains "$au" "PUSH refs/heads/main" "a refused push names its ref in the audit"
assert_contains "$au" "PUSH refs/heads/lazaret/agent-broker" "a force push is an audit row naming its ref and ids"
assert_contains "$au" "force push: not shown to descend from old" "refused, with why"
assert_contains "$au" "force push: not a fast-forward" "and an unrelated history's own reason"
assert_not_contains "$au" "$KEY" "the audit holds no key"
lz stop -p broker -w "$repo" >/dev/null 2>&1 || true
note "test-net-broker: ok"
