#!/usr/bin/env bash
# test-driver.sh - the Podman driver against real podman + runsc, as the test
# user, through the hidden `lazaret driver` command (one drv_ops call each).
source "$(dirname "$0")/lib.sh"
need_stack

IMG=localhost/lazaret-default:latest
as_user podman image exists "$IMG" || lz image build-default >/dev/null 2>&1 ||
	fail "cannot build $IMG"

N=lztest-drv-$$
N2=lztest-drv2-$$
lz_on_exit "as_user podman rm -f -t 0 $N"
lz_on_exit "as_user podman rm -f -t 0 $N2"
lz_on_exit "as_user podman rm -f -t 0 $N-stop"

# a workspace whose path podman's CSV --mount syntax would split, with a hook
W="$T/work space,1"
R="$T/read only"
as_user mkdir -p "$W/.git/hooks" "$R"
as_user sh -c "echo host-hook > '$W/.git/hooks/pre-commit' && echo mine > '$W/existing' && echo ro > '$R/f'"

lz driver create --bind "$W:/workspace" --bind "$R:/ro:ro" --tmpfs /workspace/.git/hooks \
	-e "GREETING=hello world" -l lazaret.domain=testdomain -r host-uds=open "$N" "$IMG" ||
	fail "driver create failed"
assert_eq "$(lz driver inspect "$N")" running "created container is running"
assert_eq "$(as_user podman container inspect --format '{{index .Config.Labels "lazaret.domain"}}' "$N")" \
	testdomain "label lazaret.domain set"

out=$(lz driver exec "$N" sh -c 'echo "env=$GREETING"; echo "uid=$(id -u)"; echo "host=$(hostname)"
	cat /proc/version; echo "pid1=$(tr "\0" " " </proc/1/cmdline)"; echo "pwd=$(pwd)"
	echo "hooks=$(ls -A /workspace/.git/hooks | wc -l)"
	grep -E "^CapEff" /proc/self/status
	echo x > /ro/f 2>&1 || true
	echo agent > /workspace/created; echo more >> /workspace/existing' 2>&1) || fail "exec failed: $out"
assert_contains "$out" "env=hello world" "env value with a space reaches the sandbox"
assert_contains "$out" "uid=0" "agent is root inside (mapped to the host user)"
assert_contains "$out" "host=lazaret" "hostname is lazaret"
assert_contains "$out" "Linux version 4.4.0" "runs under gVisor"
assert_not_contains "$out" "$(uname -r)" "host kernel not visible"
assert_contains "$out" "pid1=/run/lazaret/init -P" "catatonit pause init is PID 1"
assert_contains "$out" "pwd=/workspace" "working directory /workspace"
assert_contains "$out" "hooks=0" "tmpfs over .git/hooks starts empty (host hook hidden)"
# CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID = bits 0,1,3-7
assert_contains "$out" "CapEff:	00000000000000fb" "only the kept capabilities are effective"
assert_contains "$out" "Read-only file system" "ro bind mount refuses writes"

assert_eq "$(stat -c %U "$W/created")" "$LZ_USER" "file created in /workspace belongs to the host user"
assert_eq "$(stat -c %U "$W/existing")" "$LZ_USER" "existing file stays the host user's"
assert_eq "$(cat "$W/existing")" "mine
more" "existing file writable from the sandbox"
assert_eq "$(cat "$W/.git/hooks/pre-commit")" host-hook "host hook untouched"
assert_eq "$(cat "$R/f")" ro "ro source unchanged"

# exec -t on a terminal (what the coordinator does under its PTY): a real tty
# inside gVisor with the caller's size; needs the wrapper that drops conmon's --tty
out=$(as_user script -qec "stty rows 33 cols 111; lazaret driver exec -t $N sh -c 'test -t 0 && echo IS-A-TTY; stty size'" /dev/null </dev/null 2>&1) ||
	fail "exec -t failed: $out"
assert_contains "$out" "IS-A-TTY" "exec -t gives the shell a terminal"
assert_contains "$out" "33 111" "terminal size reaches the sandbox"

# the image id and the writable layer, read from podman's storage files while
# a container of ours keeps them mounted: podman's own answers, with no podman
# on PATH at all (a short name or an unknown image still asks podman)
assert_eq "$(lz driver image-id "$IMG")" "$(as_user podman image inspect --format '{{.Id}}' "$IMG")" \
	"image id is podman's"
assert_eq "$(lz driver writable-dir "$N")" \
	"$(as_user podman container inspect --format '{{.GraphDriver.Data.UpperDir}}' "$N")" \
	"writable layer is podman's"
nopodman() { as_user env PATH=/nonexistent "$T/bin/lazaret" driver "$@"; }
assert_eq "$(nopodman image-id "$IMG")" "$(lz driver image-id "$IMG")" "image id without a podman start-up"
assert_eq "$(nopodman writable-dir "$N")" "$(lz driver writable-dir "$N")" "writable layer without podman"
as_user podman tag "$IMG" "localhost/lztest-tag-$$:1"
lz_on_exit "as_user podman rmi localhost/lztest-tag-$$:1"
assert_eq "$(nopodman image-id "localhost/lztest-tag-$$:1")" "$(lz driver image-id "$IMG")" \
	"a new tag is known at once"
as_user podman rmi "localhost/lztest-tag-$$:1" >/dev/null
out=$(lz driver image-id "localhost/lztest-tag-$$:1" 2>&1) && fail "a removed tag still has an id: $out"
note "ok: a removed tag has no id"
out=$(nopodman image-id lazaret-default 2>&1) && fail "a short name was resolved without podman: $out"
note "ok: a short name is podman's to resolve"

# orphans of an exec are reaped by PID 1 (no zombies pile up)
lz driver exec "$N" sh -c '(sleep 0.2 &); exit 0' || fail "orphan exec failed"
no_zombie() { ! lz driver exec "$N" ps -o stat | grep -q '^Z'; }
wait_for 10 no_zombie || fail "zombie left in the sandbox"
note "ok: orphans reaped"

# the same name twice: podman's own message, naming the container
out=$(lz driver create "$N" "$IMG" 2>&1) && fail "second create with the same name succeeded"
assert_contains "$out" "cannot create container $N" "error names the container"
assert_contains "$out" "already in use" "podman's reason is carried"

# a missing image: a message with the fix, and no container left behind
out=$(lz driver create "$N2" localhost/lazaret-missing:1 2>&1) && fail "create with a missing image succeeded"
assert_contains "$out" "image localhost/lazaret-missing:1 not found locally: build it with \`lazaret image build-default\`, or pull it" \
	"missing image error with the fix"
assert_eq "$(lz driver inspect "$N2")" absent "no container after a failed create"

# a start that fails in the runtime: runsc's message, and the name is free again
out=$(lz driver create -r bogus-flag=1 "$N2" "$IMG" 2>&1) && fail "create with a bogus runsc flag succeeded"
assert_contains "$out" "flag provided but not defined: -bogus-flag" "runtime's error is carried"
assert_eq "$(lz driver inspect "$N2")" absent "no half-created container left"

# a newline in a mount path is refused before podman sees it
out=$(lz driver create --bind "$T/a
b:/w" "$N2" "$IMG" 2>&1) && fail "newline in a mount path accepted"
assert_contains "$out" "control character" "newline in a path refused"

# a command that exits leaves a stopped container
lz driver create "$N-stop" "$IMG" true || fail "create with a command failed"
stopped() { [ "$(lz driver inspect "$N-stop")" = stopped ]; }
wait_for 20 stopped || fail "container with an exiting command not reported stopped"
note "ok: exited container is stopped"

# the sidecar topology: crun owns the netns (slirp4netns), the sandbox joins it
lz_on_exit "as_user podman rm -f -t 0 $N-sbx"
lz_on_exit "as_user podman rm -f -t 0 $N-side"
lz driver create --runtime crun --cap-add NET_ADMIN -n slirp4netns "$N-side" "$IMG" ||
	fail "crun sidecar create failed"
lz driver create -n "container:$N-side" "$N-sbx" "$IMG" || fail "sandbox in the sidecar's netns failed"
out=$(lz driver exec "$N-sbx" sh -c 'cat /proc/version; ip addr; hostname' 2>&1) || fail "exec in joined sandbox failed: $out"
assert_contains "$out" "Linux version 4.4.0" "joined sandbox runs under gVisor"
assert_contains "$out" "10.0.2.100/24" "joined sandbox sees the sidecar's slirp4netns address"
assert_contains "$out" "lazaret" "joined sandbox keeps hostname lazaret"
assert_contains "$(lz driver exec "$N-side" grep CapEff /proc/self/status)" "00000000000010fb" \
	"sidecar gets NET_ADMIN on top of the kept capabilities"
lz driver rm "$N-sbx" && lz driver rm "$N-side" || fail "rm of the sidecar pair failed"

lz driver rm "$N" || fail "rm failed"
assert_eq "$(lz driver inspect "$N")" absent "removed container is absent"
lz driver rm "$N" || fail "rm of an absent container is an error"
note "ok: rm of an absent container succeeds"
lz driver rm "$N-stop" || fail "rm of a stopped container failed"
assert_eq "$(lz driver inspect "$N-stop")" absent "stopped container removed"
echo "driver: all checks passed"
