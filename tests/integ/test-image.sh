#!/usr/bin/env bash
# test-image.sh - `lazaret image build-default` from nothing, in a private
# podman store (CONTAINERS_STORAGE_CONF), then the image under gVisor.
source "$(dirname "$0")/lib.sh"
need_stack

IMG=localhost/lazaret-default:latest
# a store of our own: a fresh build every run, and the user's images untouched
cat >"$T/storage.conf" <<EOF
[storage]
driver = "overlay"
runroot = "$T/store/run"
graphroot = "$T/store/graph"
EOF
chmod 0644 "$T/storage.conf"
as_user mkdir -p "$T/store"
LZ_ENV=(CONTAINERS_STORAGE_CONF="$T/storage.conf")
lz_on_exit "as_user podman unshare rm -rf '$T/store'"
as_user podman image exists "$IMG" && fail "private store already holds $IMG"

t0=$SECONDS
out=$(lz image build-default 2>&1) || fail "build-default failed: $out"
note "built in $((SECONDS - t0)) s"
assert_contains "$out" "[1/4] assembling rootfs (busybox, bash, coreutils, git, less, vim)..." "progress step 1"
assert_contains "$out" "[4/4] importing $IMG" "progress step 4"
assert_contains "$out" "built $IMG" "build reported"
as_user podman image exists "$IMG" || fail "$IMG missing after the build"
id1=$(as_user podman image inspect --format '{{.Id}}' "$IMG")
assert_eq "$(as_user podman image inspect --format '{{.Config.Cmd}} {{.Config.WorkingDir}}' "$IMG")" \
	"[/bin/bash -l] /workspace" "image runs a login bash in /workspace"

out=$(lz image build-default 2>&1) || fail "second build-default failed: $out"
assert_contains "$out" "exists (use --force to rebuild it)" "existing image is not rebuilt"
assert_eq "$(as_user podman image inspect --format '{{.Id}}' "$IMG")" "$id1" "image unchanged"

RUN=(podman run --rm --runtime runsc --network none "$IMG")
out=$(as_user "${RUN[@]}" bash -c 'git --version && ls --help >/dev/null 2>&1 && vim --version | head -1 && cat /proc/version' 2>&1) ||
	fail "tools under runsc failed: $out"
assert_contains "$out" "git version" "git runs under gVisor"
assert_contains "$out" "VIM - Vi IMproved" "vim runs under gVisor"
assert_contains "$out" "Linux version 4.4.0" "it is gVisor"

# what an agent does first; GNU ls -l fails under this runsc (statx), busybox's works
out=$(as_user "${RUN[@]}" bash -lc 'cd /workspace && ls -la / >/dev/null && stat -c %a /tmp &&
	git init -q r && cd r && echo hi > f && git add f &&
	git -c user.name=a -c user.email=a@example.invalid commit -qm first && git log --oneline &&
	ls /usr/share/git-core/templates && head -1 /etc/passwd && echo "PS1=$PS1" && less --version | head -1' 2>&1) ||
	fail "shell session under runsc failed: $out"
assert_contains "$out" "1777" "/tmp is 1777"
assert_contains "$out" "first" "git commit works inside"
assert_contains "$out" "hooks" "git templates present"
assert_contains "$out" "root:x:0:0:root:/root:/bin/bash" "/etc/passwd has root"
assert_contains "$out" 'PS1=' "profile sets a prompt"
assert_contains "$out" "less " "less runs"

# terminfo for the TERMs the workbench and tmux use: less (ncurses) warns
# "terminal is not fully functional" on a real terminal when one is missing
for term in xterm-256color tmux-256color screen; do
	out=$(as_user script -qec "podman run --rm -it --runtime runsc --network none -e TERM=$term $IMG sh -c 'echo hi | less -X -F'" /dev/null 2>&1) ||
		fail "less on a terminal ($term) failed: $out"
	assert_contains "$out" "hi" "less shows text on $term"
	assert_not_contains "$out" "not fully functional" "terminfo for $term"
done

out=$(lz image build-default --force 2>&1) || fail "build-default --force failed: $out"
id2=$(as_user podman image inspect --format '{{.Id}}' "$IMG")
[ "$id2" != "$id1" ] || fail "--force did not rebuild"
as_user podman image exists "$id1" && fail "old image left behind after --force"
note "ok: --force rebuilt and dropped the old image"

assert_contains "$(lz image ls 2>&1)" "localhost/lazaret-default" "image ls lists it"
out=$(lz image frobnicate 2>&1) && fail "unknown subcommand accepted"
assert_contains "$out" "unknown subcommand 'frobnicate'" "unknown subcommand refused"

if [ "$(id -u)" -eq 0 ]; then
	out=$(timeout "$TO" "$T/bin/lazaret" image build-default 2>&1) && fail "root was allowed to build"
	assert_contains "$out" "refusing to run as root" "root refused"
fi
echo "image: all checks passed"
