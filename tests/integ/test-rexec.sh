#!/usr/bin/env bash
# test-rexec.sh - sessions start with `runsc exec` straight into the sandbox
# (backend/sandbox/podman/rexec.c), not `podman exec`: the same probe run through
# lazaret and through a raw `podman exec` in the same container sees the
# same uid/gid/groups, capabilities, no-new-privileges, limits, umask, cwd and
# environment; the session credential is on no host command line, in no host
# process's environment and in no file (podman exec writes its exec spec,
# credential included, under the container's userdata); a terminal session
# gets its size, SIGWINCH, Ctrl-C, Ctrl-Z and exit status; `lazaret stop`
# ends it with 143; LAZARET_PODMAN_EXEC=1 keeps podman exec, same probe.
# By default a session is `lazaret sandbox-exec`, runsc exec's three control
# calls without runsc (runsc-ctl.h); REXEC_RUNSC=1 (test-rexec-runsc.sh)
# runs the same checks with LAZARET_RUNSC_EXEC=1, through runsc exec itself.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
need_stack
need_default_image

lz_domain ws
MODE_ENV=()
if [ "${REXEC_RUNSC:-0}" = 1 ]; then
	MODE_ENV=(LAZARET_RUNSC_EXEC=1)
	LZ_ENV=("${MODE_ENV[@]}")
fi
log=$T/home/data/lazaret/domains/$hash/coordinator.log
wt=$T/home/data/lazaret/domains/$hash/lazaret-$hash

# A session holding the domain (and a credential) while we look.
lz run -w "$repo" -- sh -c 'echo up >/workspace/.up; sleep 300' </dev/null >"$T/a.out" 2>&1 &
apid=$!
lz_on_exit "kill $apid"
wait_for 60 test -s "$wt/.up" || { cat "$T/a.out" "$log"; fail "the first session did not start"; }
id=$(as_user podman container inspect --format '{{.Id}}' "$ctr")
[ ${#id} = 64 ] || fail "no container id for $ctr: [$id]"

# --- the host's view of the live session
ps_all=$(timeout 10 ps -eo pid=,args=)
if [ "${REXEC_RUNSC:-0}" = 1 ]; then
	assert_contains "$(cat "$log")" "sessions start with runsc exec: LAZARET_RUNSC_EXEC is set" \
		"the coordinator found the direct way in, runsc exec as asked"
	mine=$(echo "$ps_all" | grep -F -- "exec --process /dev/fd/3 $id" | grep -v grep || true)
	[ -n "$mine" ] || fail "no runsc exec of container $id among the processes"
	assert_contains "$mine" "runsc --ignore-cgroups" "the session is runsc's own exec (through podman's runtime wrapper)"
else
	assert_contains "$(cat "$log")" "sessions start with lazaret sandbox-exec through runsc's control socket (runsc version " \
		"the coordinator knows this runsc's control calls"
	mine=$(echo "$ps_all" | grep -F -- "sandbox-exec --sandbox $id --container $id" | grep -v grep || true)
	[ -n "$mine" ] || fail "no lazaret sandbox-exec of container $id among the processes"
	assert_contains "$mine" "$T/bin/lazaret-exec sandbox-exec" "the session runs the small static lazaret-exec"
	assert_eq "$(echo "$ps_all" | grep -F -- "exec --process /dev/fd/3 $id" | grep -cv grep || true)" 0 \
		"no runsc exec for the session"
	cache=$(cat "$LZ_RUNDIR/lazaret/runsc-version")
	assert_contains "$cache" " $(runsc --version | head -1)" "runsc's version is asked once and kept, with the binary's identity"
fi
assert_eq "$(echo "$ps_all" | grep -F -- "podman exec" | grep -cF -- "$ctr" || true)" 0 \
	"no podman exec for this container"
assert_not_contains "$ps_all" "lzc1." "no credential on any host command line"
n=0
for f in /proc/[0-9]*/environ; do
	{ tr '\0' '\n' <"$f" | grep -q '^LAZARET_CRED=\|lzc1\.'; } 2>/dev/null && n=$((n + 1))
done
assert_eq "$n" 0 "no host process's environment holds a credential"
hits=$(timeout 60 grep -rla -D skip -e 'lzc1\.' -e 'LAZARET_CRED=' "$LZ_RUNDIR" 2>/dev/null || true)
assert_eq "$hits" "" "no file under the runtime dir $LZ_RUNDIR holds a credential"
ud=$(as_user podman container inspect --format '{{.StaticDir}}' "$ctr")
hits=$(timeout 60 grep -rla -D skip -e 'lzc1\.' "$ud" 2>/dev/null || true)
assert_eq "$hits" "" "none under the container's userdata either (where podman exec writes its exec spec)"
# the command still runs under the escalation holder, seen from inside;
# runsc exec cannot hand the credential over on an fd: no credential at all
out=$(lz run -w "$repo" -- sh -c 'for f in /proc/[0-9]*/cmdline; do tr "\0" " " <$f; echo; done' </dev/null)
if [ "${REXEC_RUNSC:-0}" = 1 ]; then
	assert_not_contains "$out" "lazaret-escalate --hold" "no holder: the session has no credential to hold"
	assert_contains "$(cat "$log")" "escalation: off for this sandbox's sessions: they start with runsc exec" \
		"the coordinator says why escalation is off"
	set +e
	out=$(lz run -w "$repo" -- lazaret-escalate -- true 2>&1 </dev/null); rc=$?
	set -e
	[ "$rc" -ne 0 ] || fail "lazaret-escalate worked in a session without a credential"
	assert_contains "$out" "this session has no credential: it started with runsc exec" \
		"lazaret-escalate says why, and what would fix it"
else
	assert_contains "$out" "lazaret-escalate --hold -- sh -c echo up" "the session's command runs under the holder"
fi

# --- same probe, lazaret's exec and a raw podman exec, same container
PROBE='echo uid=$(id -u) gid=$(id -g) groups=$(id -G); grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|Groups):" /proc/self/status
echo cwd=$(pwd) umask=$(umask); ulimit -a
tr "\0" "\n" </proc/$$/environ | grep -v "^LAZARET_" | LC_ALL=C sort'
ours=$(lz run -w "$repo" -- sh -c "$PROBE" </dev/null)
theirs=$(as_user podman exec -w /workspace "$ctr" sh -c "$PROBE" </dev/null)
assert_contains "$ours" "CapEff:" "the probe read the capabilities"
assert_contains "$ours" "open files" "and the limits"
assert_eq "$ours" "$theirs" "credentials, capabilities, limits, cwd and environment equal podman exec's"
sid=$(lz run -w "$repo" -- sh -c 'tr "\0" "\n" </proc/$$/environ | grep -c "^LAZARET_SESSION_ID="' </dev/null)
assert_eq "$sid" 1 "the session id is in the environment once"

# --- exit status
set +e
lz run -w "$repo" -- sh -c 'exit 3' </dev/null; rc=$?
lz run -w "$repo" -- sh -c 'kill -9 $$' </dev/null; rc2=$?
lz run -w "$repo" -- /no/such/program </dev/null 2>"$T/nsp"; rc3=$?
set -e
assert_eq "$rc" 3 "exit 3 is lazaret run's exit status"
assert_eq "$rc2" 137 "killed by SIGKILL: 128+9"
[ "$rc3" -ne 0 ] || fail "a missing program exited 0"
note "ok: a missing program exits $rc3 ($(head -c 200 "$T/nsp"))"
out=$(printf 'one\ntwo\n' | lz run -w "$repo" -- wc -l)
assert_eq "$(echo $out)" 2 "stdin and its EOF reach the command"

# --- a `lazaret run` that goes away ends its command inside, which hears it
# (SIGTERM passed on: sandbox-exec forwards it; runsc exec did not without a
# terminal, and the command lived on in the sandbox)
if [ "${REXEC_RUNSC:-0}" != 1 ]; then
	rm -f "$wt/.term" "$wt/.up2"
	lz run -w "$repo" -- sh -c 'trap "echo term >/workspace/.term; exit 7" TERM
		echo up >/workspace/.up2; while :; do sleep 0.2; done' </dev/null >/dev/null 2>&1 &
	bpid=$!
	wait_for 30 test -s "$wt/.up2" || fail "the long command did not start"
	pkill -TERM -P "$bpid" -f "lazaret run" 2>/dev/null || kill -TERM "$bpid"
	wait_for 20 test -s "$wt/.term" || fail "the command never got SIGTERM when its lazaret run went away"
	wait "$bpid" 2>/dev/null || true
	left=$(lz run -w "$repo" -- sh -c 'for f in /proc/[0-9]*/cmdline; do tr "\0" " " <$f; echo; done' </dev/null)
	assert_not_contains "$left" "while :" "nothing of it is left in the sandbox"
	note "ok: a lazaret run that goes away ends its command, which gets SIGTERM first"
fi

# --- a terminal: size, SIGWINCH, TERM once, Ctrl-C, Ctrl-Z, exit status
TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane_has() { "${TM[@]}" capture-pane -p -S -100 | grep -qF -- "$1"; }
show() { "${TM[@]}" capture-pane -p -S -100; }
inner="$(as_user_line lazaret run -w "$repo" -- bash --norc --noprofile -i); echo rc=\$?; sleep 600"
"${TM[@]}" new-session -d -x 100 -y 30 "$inner"
wait_for 30 pane_has "bash" || { show; fail "no shell in the pane"; }
"${TM[@]}" send-keys "trap 'echo WINCH-\$(stty size | tr \" \" x)' WINCH; echo SZ-\$(stty size | tr ' ' x)" Enter
wait_for 10 pane_has "SZ-30x100" || { show; fail "window size not 30x100"; }
"${TM[@]}" send-keys "echo TERMS-\$(tr '\\0' '\\n' </proc/\$\$/environ | grep -c '^TERM=')-\$TERM" Enter
wait_for 10 pane_has "TERMS-1-" || { show; fail "TERM not set exactly once"; }
"${TM[@]}" resize-window -x 120 -y 40
wait_for 10 pane_has "WINCH-40x120" || { show; fail "no SIGWINCH with the new size inside"; }
note "ok: the resize reaches the program as SIGWINCH with the new size"
"${TM[@]}" send-keys "sleep 100" Enter
sleep 0.5	# let bash start the job; a Ctrl-C before it would hit the prompt
"${TM[@]}" send-keys C-c
"${TM[@]}" send-keys 'echo INT-$?' Enter
wait_for 10 pane_has "INT-130" || { show; fail "Ctrl-C did not interrupt the foreground job"; }
note "ok: Ctrl-C ends the foreground job (130), the shell stays"
"${TM[@]}" send-keys "sleep 100" Enter
sleep 0.5
"${TM[@]}" send-keys C-z
wait_for 10 pane_has "Stopped" || { show; fail "Ctrl-Z did not stop the foreground job"; }
# fg brings it back, Ctrl-C ends it: no job is left for exit to refuse over
# (a SIGKILLed stopped job is not always reported to bash under gVisor)
"${TM[@]}" send-keys 'fg' Enter
wait_for 10 pane_has "# fg" || { show; fail "fg was not typed"; }
sleep 0.5
"${TM[@]}" send-keys C-c
"${TM[@]}" send-keys 'echo FG-$?' Enter
wait_for 10 pane_has "FG-130" || { show; fail "the shell is not back after Ctrl-Z and fg"; }
note "ok: Ctrl-Z stops the foreground job"
"${TM[@]}" send-keys 'exit 5' Enter
wait_for 20 pane_has "rc=5" || { show; fail "the shell's exit status 5 is not lazaret's"; }

# --- lazaret stop ends a terminal session (an interactive shell ignores SIGTERM)
tm_kill
"${TM[@]}" new-session -d -x 100 -y 30 "$inner"
wait_for 30 pane_has "bash" || { show; fail "no shell in the pane"; }
lz stop -w "$repo" >/dev/null
wait_for 20 pane_has "rc=143" || { show; fail "lazaret stop did not end the terminal session with 143"; }
note "ok: lazaret stop ends an interactive shell's session: 143"
wait $apid 2>/dev/null || true
wait_for 30 sh -c "[ -z \"\$($(as_user_line podman ps -aq --filter "name=^$ctr\$"))\" ]" ||
	fail "the container outlived lazaret stop"
tm_kill

# --- LAZARET_PODMAN_EXEC=1: podman exec, the same probe
LZ_ENV=("${MODE_ENV[@]}" LAZARET_PODMAN_EXEC=1)
ours2=$(lz run -w "$repo" -- sh -c "$PROBE" </dev/null)
assert_contains "$(cat "$log")" "sessions start with podman exec: LAZARET_PODMAN_EXEC is set" \
	"the fallback is logged with its reason"
assert_eq "$ours2" "$ours" "podman exec gives the session the same credentials and environment"

# --- a runsc whose control calls lazaret does not know: runsc exec, told why
# (the version cache says another version for this very binary: what a newer
# runsc, installed over this one, would answer)
if [ "${REXEC_RUNSC:-0}" != 1 ]; then
	wait_for 30 sh -c "! $(as_user_line test -S "$LZ_RUNDIR/lazaret/$hash.ctl")" ||
		fail "the domain did not go down"
	cache=$LZ_RUNDIR/lazaret/runsc-version
	real=$(cat "$cache")
	as_user sh -c "printf '%s\n' \"\$1\" >\"\$2\"" sh "$(echo "$real" | sed 's/ runsc version .*/ runsc version 9.9.9/')" "$cache"
	LZ_ENV=()
	ours3=$(lz run -w "$repo" -- sh -c "$PROBE" </dev/null)
	assert_contains "$(cat "$log")" "sessions start with runsc exec (no podman exec): 'runsc version 9.9.9' is not a runsc whose control calls lazaret knows" \
		"another runsc version keeps runsc exec, and the log says why"
	assert_eq "$ours3" "$ours" "runsc exec gives the session the same credentials and environment"
	as_user sh -c "printf '%s\n' \"\$1\" >\"\$2\"" sh "$real" "$cache"
fi
