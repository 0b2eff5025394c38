#!/usr/bin/env bash
# test-agent-user.sh - the agent runs as an ordinary user (issue 25 item 4):
# on an image with uid 1000 sessions run as it (HOME /home/agent), what it
# creates in /workspace is the test user's on the host and the test user's
# files are writable to it (bindfs maps, uidmap.c); Lazaret's sudo gives
# root (runsc's no_new_privs defeats a setuid sudo) and apt-get install
# through it persists; lazaret-escalate and the Git Sentry work for it;
# user: root gives uid 0 back.
source "$(dirname "$0")/lib.sh"
need_stack
need_debian_image

need_hello_deb
config() { # $1: extra profile lines
	lz_config <<EOF2
escalation:
  auto_approve: ["true"]
profiles:
  plain:
    image: localhost/lazaret-default:latest
    user: 1000
  default:
    image: $LZ_DEBIAN_IMG
    volumes: [{host: $T/debs, container: /debs, mode: ro}]
$1
EOF2
}
config ""
lz_domain ws
run() { lz run -T -w "$repo" -- sh -c "$1" </dev/null 2>&1; }
out=$(lz config check 2>&1) || fail "config check: $out"
assert_contains "$out" "user: auto" "config check shows the default user"

# a session that keeps the domain up while the others come and go
lz run -w "$repo" -- sleep 1000 </dev/null >/dev/null 2>&1 &
lz_on_exit "kill $! 2>/dev/null"
has_ctr() { as_user podman container exists "$ctr"; }
wait_for 90 has_ctr || fail "the sandbox did not start"

out=$(run 'id -u; id -g; echo $HOME; pwd') || fail "id failed: $out"
assert_eq "$out" $'1000\n1000\n/home/agent\n/workspace' "sessions run as uid 1000 in /workspace"
out=$(run 'echo made > made.txt && mkdir d && echo x > d/y && stat -c %u made.txt') ||
	fail "writing in /workspace failed: $out"
assert_eq "$out" "1000" "the agent owns what it creates (inside)"
# where the agent's files land on the host: the isolated checkout
host_file=$(find "$T/home" -path "*/domains/$hash/*" -name made.txt 2>/dev/null | head -1)
[ -n "$host_file" ] || fail "made.txt not found under the Domain Root"
assert_eq "$(stat -c %U "$host_file")" "$LZ_USER" "on the host, made.txt is the test user's"
assert_eq "$(stat -c %U "$(dirname "$host_file")/d/y")" "$LZ_USER" "and so is d/y"
out=$(run 'echo more >> README && stat -c %u README && tail -1 README') ||
	fail "the host's README is not writable to the agent: $out"
assert_eq "$out" $'1000\nmore' "a file the host user owns is the agent's to write"
out=$(run 'sudo id -u; sudo sh -c "echo \$HOME"') || fail "sudo failed: $out"
assert_eq "$out" $'0\n/root' "sudo gives root"
set +e
out=$(run 'sudo sh -c "exit 7"'); rc=$?
set -e
assert_eq "$rc" 7 "sudo returns the command's exit status"
out=$(run 'echo hi | sudo cat; sudo -n true && echo n-ok; sudo -i pwd; sudo -u nobody true 2>&1 || true') ||
	fail "sudo stdio: $out"
assert_eq "$out" $'hi\nn-ok\n/root\nsudo: only root is supported here, not \'nobody\'' \
	"sudo passes stdin and stdout through, -n, -i in /root, -u only root"
out=$(run 'for p in /proc/[0-9]*; do tr "\0" "\n" <$p/environ 2>/dev/null; done | grep -c LAZARET_CRED= || true')
assert_eq "$out" "0" "no credential in any environ readable by the agent"
# sudo on the session's terminal: the root command joins sudo's foreground
# job, so it reads the terminal (no SIGTTIN stop) and Ctrl-C reaches it
if command -v tmux >/dev/null; then
	lz_tmux_run -w "$repo"
	wait_for 40 pane_has "agent@lazaret:/workspace" || { pane; fail "no shell prompt as agent"; }
	"${TM[@]}" send-keys "sudo sh -c 'echo ask-\$(id -u); read x; echo got-\$x'" Enter
	wait_for 30 pane_has "ask-0" || { pane; fail "sudo sh did not start on the terminal"; }
	"${TM[@]}" send-keys "hello" Enter
	wait_for 30 pane_has "got-hello" || { pane; fail "sudo's command could not read the terminal"; }
	note "ok: sudo's root command reads the session's terminal"
	# (markers the typed line does not hold itself)
	"${TM[@]}" send-keys "sudo sh -c 'echo sleeping-\$((6*7)); exec sleep 100'; echo sudo-rc=\$?" Enter
	wait_for 30 pane_has "sleeping-42" || { pane; fail "sudo sleep did not start"; }
	"${TM[@]}" send-keys C-c
	wait_for 30 pane_has "sudo-rc=130" || { pane; fail "Ctrl-C did not end sudo's command"; }
	note "ok: Ctrl-C ends sudo's command (exit 130)"
	"${TM[@]}" kill-server
else
	note "tmux missing: the terminal checks of sudo are not run"
fi

# the root holders (this session's too) are out of the agent user's reach
out=$(run 'n=0; for p in /proc/[0-9]*; do case "$(tr "\0" " " <$p/cmdline 2>/dev/null)" in
	*"lazaret-escalate --hold"*) n=$((n+1))
	(exec 7<$p/mem) 2>/dev/null && echo "$p/mem opens" ;; esac; done; echo holders=$n')
assert_contains "$out" "holders=" "the holders are in view"
assert_not_contains "$out" "holders=0" "at least this session's"
# (their environ opens under gVisor, unlike Linux: it holds no credential,
# checked below)
assert_not_contains "$out" "opens" "no holder's memory opens as uid 1000"
out=$(run 'lazaret-escalate -- true && echo escalated') || fail "lazaret-escalate as uid 1000: $out"
assert_contains "$out" "escalated" "lazaret-escalate works for uid 1000 (auto_approve true)"
out=$(run 'sudo apt-get install -y /debs/hello_*.deb') || fail "sudo apt-get install failed: $out"
assert_contains "$out" "Setting up hello" "sudo apt-get install works for the agent"

lz stop -w "$repo" >/dev/null 2>&1 || true
gone() { [ -z "$(as_user podman ps -aq --filter "name=^$ctr\$")" ]; }
wait_for 60 gone || fail "container $ctr left after lazaret stop"
pause=$(cat "$LZ_RUNDIR/libpod/tmp/pause.pid")
maps() { grep -c "domains/$hash/overlay/-uidmap-" "/proc/$pause/mountinfo" || true; }
unmapped() { [ "$(maps)" = 0 ] && [ "$(coord_count "$canon")" = 0 ]; }
wait_for 30 unmapped || fail "lazaret stop left $(maps) bindfs maps mounted"
note "ok: lazaret stop took the bindfs maps down"
out=$(run 'dpkg -s hello | grep ^Status; hello; id -u') || fail "after a restart: $out"
assert_eq "$out" $'Status: install ok installed\nHello, world!\n1000' \
	"after lazaret stop, hello is still installed (and the agent is uid 1000 again)"

config "    user: root"
lz stop -w "$repo" >/dev/null 2>&1 || true	# a profile change applies from a fresh start
wait_for 60 gone || fail "container $ctr left after lazaret stop"
out=$(run 'id -u; stat -c %u README') || fail "user: root: $out"
assert_eq "$out" $'0\n0' "user: root gives uid 0 (the host user's files are root's)"

# The Git Sentry for the agent user: the default image (it has git, and no
# uid 1000: user: 1000 chosen explicitly), on a domain of its own.
lz_domain ws2 plain
run() { lz run -T -p plain -w "$repo" -- sh -c "$1" </dev/null 2>&1; }
out=$(run 'id -u; echo made > made.txt') || fail "user: 1000 on the default image: $out"
assert_eq "$out" "1000" "user: 1000 runs an image without that user"
out=$(run 'git add made.txt && git -c user.name=a -c user.email=a@example.invalid commit -qm "agent commit" && git log -1 --format=%s && stat -c %u .git/HEAD') ||
	fail "git commit inside failed: $out"
assert_eq "$out" $'agent commit\n1000' "git commit works as uid 1000"
imported() { [ "$(as_user git -C "$repo" log -1 --format=%s lazaret/agent-plain 2>/dev/null)" = "agent commit" ]; }
wait_for 30 imported || fail "the agent's commit was not imported on lazaret/agent-plain"
note "ok: imported on lazaret/agent-plain"

# --mode direct: the host checkout itself is mapped
lz stop -p plain -w "$repo" >/dev/null 2>&1 || true
lz_domain ws3 plain
out=$(lz run -T -p plain --mode direct -w "$repo" -- sh -c 'id -u; echo agent line >> README; echo n > new.txt
	git add new.txt && git -c user.name=a -c user.email=a@example.invalid commit -qm "direct commit" && echo committed' </dev/null 2>"$T/direct.err") ||
	fail "direct mode as uid 1000: $out $(cat "$T/direct.err")"
assert_eq "$out" $'1000\ncommitted' "direct mode: uid 1000 edits and commits"
assert_eq "$(tail -n 1 "$repo/README")" "agent line" "direct: the host's README edited in place"
assert_eq "$(stat -c %U "$repo/new.txt")" "$LZ_USER" "direct: new.txt is the test user's on the host"
direct_imported() { [ "$(as_user git -C "$repo" log -1 --format=%s lazaret/agent-plain 2>/dev/null)" = "direct commit" ]; }
wait_for 30 direct_imported || fail "direct: the commit was not imported on lazaret/agent-plain"
note "ok: direct: imported on lazaret/agent-plain"
