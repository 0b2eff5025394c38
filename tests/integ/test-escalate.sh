#!/usr/bin/env bash
# test-escalate.sh - Host Escalation end to end on real podman + runsc: the
# sandbox asks with lazaret-escalate, the human answers in the terminal of
# `lazaret run` (tmux send-keys: approve with a + the code shown + Enter,
# deny, edit, quit then y), the command runs
# on the host and its output and exit status come back; auto-approval only for
# an exact listed argv; hostile requests from inside the sandbox (forged
# signature, replay, another session's id, tampered credential, another CA,
# no TLS, 100 MB header, truncated and malformed JSON) are each refused,
# audited, and the coordinator keeps serving.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
lz audit --help >/dev/null 2>&1 || skip "this lazaret has no audit command (app/cli/lazaret.c table)"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
need_stack
need_default_image
command -v tmux >/dev/null || skip "tmux missing"

# The hostile client, static like lazaret-escalate (the probe rule links no OpenSSL).
HOSTILE=$T/esc-hostile
( cd "$LZ_SRC" && timeout 120 gcc -std=c17 -D_GNU_SOURCE -O2 \
	-Ibackend/common/base -Ibackend/common/wire -Ibackend/common/trust -Ibackend -static \
	-o "$HOSTILE" tests/integ/esc-hostile.c backend/common/base/{err,xmalloc,strv,shellwords,jsonw,paths}.c \
	backend/common/wire/{proto,proto-msg,esc-payload}.c backend/common/trust/{sign,trust,cred-fd}.c \
	-lssl -lcrypto -lsodium -lpthread -ldl 2>/dev/null ) || fail "cannot build esc-hostile"
chmod 0755 "$HOSTILE"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
escalation:
  auto_approve:
    - "uname -r"
    - "false"
    - "true"
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
# long enough for the edit path (prompt, form, a 3 s check, the code) on a loaded machine;
# short enough that the 4 unanswered requests below time out soon
LZ_ENV=(LAZARET_ESC_TIMEOUT=15)
wt=$T/home/data/lazaret/domains/$hash/lazaret-$hash	# the agent's worktree = /workspace
mark=$T/marks; mkdir -p "$mark"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$mark"
# A command in its own session without a terminal (setsid: no /dev/tty for a prompt).
inbox() { as_user setsid -w lazaret run -T -w "$repo" -- "$@"; }

# --- a lazaret run in a terminal: session 1 holds the domain and answers prompts
lz_tmux_run -w "$repo"
wait_for 40 pane_has "/workspace" || { pane; fail "no shell prompt"; }
"${TM[@]}" send-keys 'echo $LAZARET_SESSION_ID >/workspace/.sid1; echo sid-saved' Enter
wait_for 10 test -s "$wt/.sid1" || { pane; fail "session 1 wrote no id"; }
sid1=$(cat "$wt/.sid1")
note "session 1 is $sid1"

# --- the sandbox side: static client mounted read-only, TLS files read-only
out=$(inbox sh -c 'file=/usr/local/bin/lazaret-escalate; test -x $file && echo exe;
	touch $file 2>&1; touch /run/lazaret/tls/x 2>&1; ls /run/lazaret/tls' 2>&1 || true)
assert_contains "$out" "exe" "lazaret-escalate at /usr/local/bin"
assert_contains "$out" "Read-only file system" "client and TLS dir are read-only"
assert_contains "$out" "key.pem" "client key in /run/lazaret/tls"

# --- auto-approve: exactly a listed argv runs on the host, no prompt
host_kernel=$(uname -r)
set +e
out=$(inbox lazaret-escalate -- uname -r 2>"$T/err"); rc=$?
set -e
assert_eq "$rc" 0 "auto-approved command exits 0"
assert_eq "$out" "$host_kernel" "its output is the host's (gVisor reports another kernel)"
assert_not_contains "$(inbox uname -r)" "$host_kernel" "the sandbox's own uname differs"
set +e; inbox lazaret-escalate -- false; rc=$?; set -e
assert_eq "$rc" 1 "the host command's exit status comes back"

# --- appended arguments and each metacharacter force a prompt (nobody can
# answer this terminal-less session's prompt, so it times out: 124)
cat >"$T/meta.sh" <<'SH'
t() { lazaret-escalate -- "$@" >/dev/null 2>&1; rc=$?; w=$(printf '%s' "$*" | tr '\n\r' 'NR'); echo "$rc $w"; }
t uname -r -a & t true ';' & t true 'a|b' & t true 'a&b' & t true '$(id)' & t true '`id`' &
t true '>x' & t true '<x' & t true "$(printf 'a\nb')" & t true "$(printf 'a\rb')" & t true 'a\b' &
wait
SH
out=$(inbox sh -s <"$T/meta.sh")
# One session may have 4 requests waiting (prompt fatigue): the other 7 are refused at once.
n=$(printf '%s\n' "$out" | grep -c '^124 ' || true)
assert_eq "$n" 4 "of 11 requests (appended argument, 10 metacharacters) 4 wait for a prompt"
n=$(printf '%s\n' "$out" | grep -c '^125 ' || true)
assert_eq "$n" 7 "and 7 are refused: too many waiting for this session"
json=$(lz audit -w "$repo" --json)
assert_contains "$json" "requests waiting for a decision already (at most 4)" "the refusals are audited"
for why in "arguments appended" "contains ';'" "contains '|'" "contains '&'" "contains '\$('" \
	"contains '\`'" "contains '>'" "contains '<'"; do
	assert_contains "$json" "$why" "audit: needs-prompt because $why"
done

# --- the prompt in lazaret run: approve (a + the code shown + Enter), deny, edit
code() { pane | sed -n 's/.*a \([A-Z0-9][A-Z0-9][A-Z0-9]\) Enter: .*/\1/p' | tail -n 1; }
armed() { [ -n "$(code)" ]; }
approve() { # once armed: a, the code on the screen, Enter
	local c
	wait_for 10 armed || { pane; fail "the prompt is not armed"; }
	c=$(code)
	"${TM[@]}" send-keys a "${c:0:1}" "${c:1:1}" "${c:2:1}" Enter
}
ask() { # key command: run it through the prompt, answer with key; sets tag
	tag=$((${tag:-0} + 1))
	"${TM[@]}" send-keys "lazaret-escalate --justify 'integration test' -- $2; echo esc-rc$tag=\$?" Enter
	wait_for 20 pane_has "pprove & run" || { pane; fail "no prompt for: $2"; }
	assert_contains "$(pane)" "integration test" "prompt shows the justification"
	if [ "$1" = a ]; then approve; return; fi
	wait_for 10 armed || { pane; fail "the prompt is not armed"; }
	"${TM[@]}" send-keys $1
}
ask a "touch $mark/approved"
wait_for 20 pane_has "esc-rc$tag=0" || { pane; fail "approved command did not finish"; }
assert_contains "$(pane)" "sid-saved" "the session's screen is back after the prompt"
[ -e "$mark/approved" ] || fail "approved touch did not run on the host"
note "ok: [A]pprove ran the command on the host"
ask d "touch $mark/denied"
wait_for 20 pane_has "esc-rc$tag=126" || { pane; fail "deny did not give 126"; }
[ ! -e "$mark/denied" ] || fail "denied command ran"
note "ok: [D]eny: exit 126, nothing ran"
ask e "touch $mark/wrong"
wait_for 10 pane_has "Edit the command" || { pane; fail "no edit form"; }
"${TM[@]}" send-keys C-u "touch $mark/edited" Enter
wait_for 10 pane_has "touch $mark/edited" || { pane; fail "the edited command is not shown"; }
wait_for 3 test -e "$mark/edited" && fail "the edited command ran without the code"
approve		# running the edit takes the same chord
wait_for 20 pane_has "esc-rc$tag=0" || { pane; fail "edited command did not finish"; }
[ -e "$mark/edited" ] && [ ! -e "$mark/wrong" ] || fail "the edited command is not what ran"
note "ok: [E]dit ran the edited command instead"
"${TM[@]}" send-keys "clear; lazaret-escalate -- ls /nonexistent-$$; echo esc-rc=\$?" Enter
wait_for 20 pane_has "pprove & run" || { pane; fail "no prompt for ls"; }
approve
wait_for 20 pane_has "esc-rc=2" || { pane; fail "exit status of ls did not come back"; }
assert_contains "$(pane)" "nonexistent-$$" "host stderr reaches the sandbox"

# --- a prompt nobody answers: the host times it out, the prompt goes away
"${TM[@]}" send-keys "clear; lazaret-escalate -- touch $mark/late; echo esc-rc=\$?" Enter
wait_for 20 pane_has "pprove & run" || { pane; fail "no prompt for the late one"; }
wait_for 30 pane_has "esc-rc=124" || { pane; fail "unanswered prompt did not time out (124)"; }
assert_contains "$(pane)" "no longer waiting for a decision" "the withdrawn prompt is closed with a note"
assert_contains "$(pane)" "no decision within 15 s" "the sandbox is told why"
[ ! -e "$mark/late" ] || fail "the timed-out command ran"

# --- hostile requests from inside the sandbox; each refused, then a good one works
# Not +x in the checkout: a new executable there is executable surface, which
# suspends auto_approve (review gate); the sandbox installs it in its /tmp.
install -m 0644 "$HOSTILE" "$wt/.esc-hostile"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$wt/.esc-hostile"
inbox install -m 0755 /workspace/.esc-hostile /tmp/.esc-hostile
H=/tmp/.esc-hostile
r=$(inbox $H forged "uname -r"); assert_contains "$r" "outcome=3" "forged signature refused"
assert_contains "$r" "bad request signature" "forged: reason given"
r=$(inbox $H replay true); assert_contains "$r" "outcome=0" "first of a replayed pair runs"
assert_contains "$r" "replayed request id" "the replay is refused"
r=$(inbox sh -c "LAZARET_SESSION_ID=$sid1 $H send true")
assert_contains "$r" "credential not signed by the session's key" "another session's id refused"
r=$(inbox sh -c "LAZARET_SESSION_ID=0123456789abcdef0123456789abcdef $H send true")
assert_contains "$r" "unknown session" "an unknown session id refused"
set +e
r=$(inbox sh -c 'c=$(/tmp/.esc-hostile cred); h=${c:0:150}; t=${c:151}; [ "${c:150:1}" = a ] && m=b || m=a
	LAZARET_CRED=$h$m$t lazaret-escalate -- true' 2>&1); rc=$?
set -e
assert_eq "$rc" 125 "tampered credential: exit 125"
assert_contains "$r" "credential not signed by the session's key" "tampered credential refused by the host"
# another CA: a client certificate with the right SAN from a CA of our own
o=$T/otherca; mkdir -p "$o"
timeout 30 openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=evil-ca \
	-keyout "$o/ca.key" -out "$o/ca.crt" -days 1 2>/dev/null
timeout 30 openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=evil \
	-keyout "$o/key.pem" -out "$o/c.csr" 2>/dev/null
printf 'subjectAltName=URI:lazaret://default/%s\nextendedKeyUsage=clientAuth\n' "$hash" >"$o/ext"
timeout 30 openssl x509 -req -in "$o/c.csr" -CA "$o/ca.crt" -CAkey "$o/ca.key" -CAcreateserial \
	-extfile "$o/ext" -days 1 -out "$o/cert.pem" 2>/dev/null
mkdir -p "$wt/.otherca"; cp "$o/cert.pem" "$o/key.pem" "$wt/.otherca/"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$wt/.otherca"
set +e
r=$(inbox sh -c 'cp /run/lazaret/tls/ca.pem /workspace/.otherca/ca.pem &&
	LAZARET_TLS_DIR=/workspace/.otherca lazaret-escalate -- true' 2>&1); rc=$?
set -e
assert_eq "$rc" 125 "certificate of another CA: exit 125"
r=$(inbox $H plain); assert_contains "$r" "closed" "a client without TLS is dropped"
r=$(inbox $H big); assert_contains "$r" "outcome=3" "a 100 MB header is refused at once"
r=$(inbox $H truncated); assert_contains "$r" "truncated frame" "half a frame, then close: refused"
r=$(inbox $H malformed); assert_contains "$r" "malformed request" "malformed JSON refused"
r=$(inbox $H truncjson); assert_contains "$r" "malformed request" "truncated JSON refused"
out=$(inbox lazaret-escalate -- uname -r)
assert_eq "$out" "$host_kernel" "after all that, a good request still runs"
json=$(lz audit -w "$repo" --json)
for why in "bad request signature" "replayed request id" "credential not signed by the session's key" \
	"unknown session" "certificate verify failed" "bad frame" "truncated frame" "malformed request"; do
	assert_contains "$(printf '%s\n' "$json" | grep '"esc.refused"')" "$why" "audited refusal: $why"
done
n=$(printf '%s\n' "$json" | grep -c '"esc.refused"' || true)
[ "$n" -ge 10 ] || fail "expected at least 10 audited refusals, got $n"
assert_contains "$(printf '%s\n' "$json" | grep '"esc.decision"')" "\"edited\":\"touch $mark/edited\"" \
	"the edit is audited with the edited command"
assert_contains "$json" "\"actor\":\"uid $LZ_UID pid " "decisions name the client's uid and pid"
assert_contains "$json" '"output_bytes":' "results carry the output size"

# --- [Q]uit ends the domain
"${TM[@]}" send-keys "clear; lazaret-escalate -- touch $mark/quit; echo esc-rc=\$?" Enter
wait_for 20 pane_has "pprove & run" || { pane; fail "no prompt for quit"; }
wait_for 10 armed || { pane; fail "the prompt is not armed"; }
"${TM[@]}" send-keys q
wait_for 10 pane_has "y: yes" || { pane; fail "q does not ask for confirmation"; }
"${TM[@]}" send-keys y
wait_for 30 pane_has "run-rc=" || { pane; fail "lazaret run did not end after [Q]uit"; }
[ ! -e "$mark/quit" ] || fail "the command ran after [Q]uit"
ctr_gone() { [ -z "$(as_user podman ps -aq --filter "name=^$ctr\$")" ]; }
wait_for 30 ctr_gone || fail "container left after [Q]uit"
note "ok: [Q]uit shut the domain down"
r=$(lz audit -w "$repo" --verify)
assert_contains "$r" "audit trail intact" "audit trail verifies after the run (read directly)"
