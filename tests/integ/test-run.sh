#!/usr/bin/env bash
# test-run.sh - `lazaret run` as a user meets it, on real podman + runsc: exit
# status, stdout/stderr/stdin through pipes, an interactive shell in a tmux
# pane (raw mode restored), awkward workspace paths, and clear errors that
# leave nothing running.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command (app/cli/lazaret.c table)"
need_stack
need_default_image

lz_domain ws

gone() { # hash container workspace: nothing of the domain is left
	[ ! -e "$LZ_RUNDIR/lazaret/$1.ctl" ] &&
	[ -z "$(as_user podman ps -aq --filter "name=^$2\$")" ] &&
	[ "$(coord_count "$3")" = 0 ]
}

# --- a command: its output and exit status become lazaret's
set +e
out=$(lz run -w "$repo" -- sh -c 'echo hi; exit 3'); rc=$?
set -e
assert_eq "$out" "hi" "command output"
assert_eq "$rc" 3 "command exit status is lazaret's"
wait_for 20 gone "$hash" "$ctr" "$canon" || fail "domain not torn down after the command"
note "ok: container, socket and coordinator gone after the last session"

# --- pipes: stdout and stderr stay apart, stdin and its EOF are passed on
out=$(lz run -w "$repo" -- sh -c 'echo to-out; echo to-err >&2' 2>"$T/err")
assert_eq "$out" "to-out" "stdout through a pipe"
assert_eq "$(cat "$T/err")" "to-err" "stderr kept apart"
out=$(printf 'a\nb\nc\n' | lz run -w "$repo" -- wc -l)
assert_eq "$(echo $out)" "3" "stdin forwarded, EOF ends it"
out=$(lz run -w "$repo" -- cat README </dev/null)
assert_eq "$out" "hello" "the workspace is at /workspace"
set +e
lz run -w "$repo" -- sh -c 'kill -9 $$' >/dev/null 2>&1; rc=$?
set -e
assert_eq "$rc" 137 "a command killed by a signal gives 128+signal"

# --- interactive, in a terminal: raw mode, window size, exit, restored mode
TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane_has() { "${TM[@]}" capture-pane -p | grep -qF -- "$1"; }
inner="$(as_user_line lazaret run -w "$repo"); echo rc=\$?; stty -a >$T/stty.txt; sleep 600"
"${TM[@]}" new-session -d -x 100 -y 30 "$inner"
wait_for 30 pane_has "/workspace" || { "${TM[@]}" capture-pane -p; fail "no shell prompt"; }
"${TM[@]}" send-keys 'echo $((6*7))x; stty size' Enter
wait_for 10 pane_has "42x" || { "${TM[@]}" capture-pane -p; fail "typed command gave no output"; }
wait_for 5 pane_has "30 100" || { "${TM[@]}" capture-pane -p; fail "window size not 30x100"; }
note "ok: interactive command output and window size"
"${TM[@]}" resize-window -x 120 -y 40
"${TM[@]}" send-keys 'clear; stty size' Enter
wait_for 10 pane_has "40 120" || { "${TM[@]}" capture-pane -p; fail "resize not passed on"; }
note "ok: window resize reaches the sandbox"
"${TM[@]}" send-keys 'exit' Enter
wait_for 20 pane_has "rc=0" || { "${TM[@]}" capture-pane -p; fail "lazaret did not exit with the shell"; }
wait_for 5 test -s "$T/stty.txt" || fail "no stty output"
st=$(cat "$T/stty.txt")
assert_contains "$st" " icanon" "terminal back in canonical mode"
assert_contains "$st" " echo " "terminal echo restored"
assert_not_contains "$st" "-icanon" "no raw mode left"
wait_for 20 gone "$hash" "$ctr" "$canon" || fail "domain not torn down after exit"

# --- a signal to lazaret itself: the terminal is restored on that path too
tm_kill
rm -f "$T/stty.txt"
"${TM[@]}" new-session -d -x 100 -y 30 "$inner"
wait_for 30 pane_has "/workspace" || { "${TM[@]}" capture-pane -p; fail "no shell prompt"; }
lp=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk -v m="lazaret run -w $repo" 'index($0, m) && !/runuser/ { print $1; exit }')
[ -n "$lp" ] || fail "no lazaret run process in the pane"
kill -TERM "$lp"
wait_for 20 pane_has "rc=143" || { "${TM[@]}" capture-pane -p; fail "lazaret did not exit 128+SIGTERM"; }
wait_for 5 test -s "$T/stty.txt" || fail "no stty output"
assert_contains "$(cat "$T/stty.txt")" " icanon" "terminal restored after SIGTERM"
assert_not_contains "$(cat "$T/stty.txt")" "-echo " "echo restored after SIGTERM"
"${TM[@]}" kill-server
wait_for 20 gone "$hash" "$ctr" "$canon" || fail "domain not torn down after SIGTERM to lazaret"

# --- awkward workspaces: spaces; symlinks and .. name the same domain
sp=$(make_repo "my ws")
out=$(lz run -w "$sp" -- cat README </dev/null)
assert_eq "$out" "hello" "workspace path with a space"
ln -s "$repo" "$T/link"
as_user mkdir -p "$repo/sub"
lz run -w "$repo" -- sleep 60 </dev/null >/dev/null 2>&1 &
wait_for 30 test -S "$sock" || fail "no control socket while a session runs"
wait_for 30 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'sessions:    1'" ||
	fail "status does not show the session"
s1=$(lz status -w "$T/link" --json)
s2=$(cd "$T" && lz status -w "ws/sub/.." --json)
assert_contains "$s1" "\"domain_hash\":\"$hash\"" "symlinked workspace, same domain"
assert_contains "$s2" "\"domain_hash\":\"$hash\"" "'..' workspace, same domain"
assert_contains "$s1" "\"state\":\"running\"" "status shows the container running"
assert_contains "$s1" "\"command\":\"sleep 60\"" "status shows the session's command"
echo "$s1" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["sessions"]) == 1' ||
	fail "status --json is not valid JSON with one session"
set +e
out=$(lz run --mode direct -w "$repo" -- true 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a second mode on a running domain was accepted"
assert_contains "$out" "running in isolated mode" "mode mismatch explained"
out=$(lz stop -w "$T/link")
assert_contains "$out" "stopped domain $hash" "stop through the symlink"
wait
wait_for 20 gone "$hash" "$ctr" "$canon" || fail "domain not torn down by stop"
set +e
out=$(lz status -w "$repo"); rc=$?
set -e
assert_eq "$rc" 1 "status exits 1 when no coordinator runs"
assert_contains "$out" "not running" "status says so"

# --- bad input: clear errors, nothing left running
set +e
out=$(lz run -p 'x;touch /tmp/pwned' -w "$repo" -- true 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "bad profile name accepted"
assert_contains "$out" "x;touch /tmp/pwned" "the bad profile name is quoted back"
[ ! -e /tmp/pwned ] || fail "a profile name reached a shell"
[ -z "$(timeout 10 ps -u "$LZ_USER" -o args= | grep -F -- "coordinator --profile x")" ] ||
	fail "a coordinator runs after a refused profile"
assert_eq "$(coord_count "$canon")" 0 "no coordinator for the workspace after a refused profile"

cat >"$T/noimg.yaml" <<YAML
profiles:
  noimg:
    image: localhost/lazaret-no-such-image:1
YAML
[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/noimg.yaml"
nh=$(printf '%s' "noimg:$canon" | sha256sum | cut -c1-12)
set +e
out=$(lz --config "$T/noimg.yaml" run -p noimg -w "$repo" -- true 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a missing image was not an error"
assert_contains "$out" "localhost/lazaret-no-such-image:1" "the error names the image"
assert_contains "$out" "lazaret image build-default" "the error names the fix"
gone "$nh" "lazaret-noimg-$nh" "$canon" || fail "something left running after a missing image"
note "ok: no coordinator, socket or container after a missing image"

# a socket directory so deep that the socket path cannot be bound
long=$T/$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))
cat >"$T/long.yaml" <<YAML
escalation:
  socket_dir: $long
profiles:
  default:
    image: localhost/lazaret-default:latest
YAML
[ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$T/long.yaml"
set +e
out=$(lz --config "$T/long.yaml" run -w "$repo" -- true 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a socket path longer than sun_path was accepted"
assert_contains "$out" "longer than" "an over-long socket path is refused clearly"
assert_eq "$(coord_count "$canon")" 0 "no coordinator after an over-long socket path"

if [ "$(id -u)" -eq 0 ]; then
	# another user pre-creates the lock file: refused, never followed or used
	touch "/tmp/lazaret_coord_$hash.lock"
	lz_on_exit "rm -f /tmp/lazaret_coord_$hash.lock"
	chown root "/tmp/lazaret_coord_$hash.lock"
	chmod 0600 "/tmp/lazaret_coord_$hash.lock"
	set +e
	out=$(lz run -w "$repo" -- true 2>&1); rc=$?
	set -e
	[ "$rc" -ne 0 ] || fail "a lock file owned by another user was used"
	assert_contains "$out" "not to you" "a foreign lock file is refused"
	rm -f "/tmp/lazaret_coord_$hash.lock"
	out=$(lz run -w "$repo" -- echo fine </dev/null)
	assert_eq "$out" "fine" "works again once the foreign lock file is gone"

	set +e
	out=$(timeout 10 "$T/bin/lazaret" run -- true 2>&1); rc=$?
	set -e
	[ "$rc" -ne 0 ] || fail "lazaret run as root was accepted"
	assert_contains "$out" "rootless" "root is refused with the reason"
fi
# --- a missing image: the start fails with the image's name and how to get it,
# whether the overlays (persistent dirs) or podman run meet it first
lz_config <<'EOF2'
profiles:
  nope:
    image: localhost/lazaret-nope:1
  nope-flat:
    image: localhost/lazaret-nope:1
    persistent_dirs: []
EOF2
for p in nope nope-flat; do
	set +e
	out=$(lz run -p $p -w "$repo" -- true 2>&1 </dev/null); rc=$?
	set -e
	[ "$rc" -ne 0 ] || fail "profile $p: a missing image started"
	assert_contains "$out" "image localhost/lazaret-nope:1 not found locally (no registry is used)" \
		"profile $p: the missing image is named with the fix"
done
rm -f "$T/home/config/lazaret/config.yaml"
echo "test-run: all passed"
