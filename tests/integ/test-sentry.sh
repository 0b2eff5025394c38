#!/usr/bin/env bash
# test-sentry.sh - the Git Sentry from inside the real gVisor sandbox: the
# agent's git is its own (its config, hooks and refs never reach the host),
# the host's .git is not in the sandbox at all, the host's objects are
# read-only at a neutral path, the agent's commits reach the host only by
# the verified import (here at teardown, `lazaret debug unmount`; the
# coordinator also imports on every ref change, test-sentry-git.sh), and the
# host's own HEAD, index, main and working tree stay byte-identical.
# (Design change, issue 8: the host's .git used to be mounted read-only at
# /run/lazaret/git with writable holes; those holes were the attacks.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin

repo=$(make_repo "my repo")		# a space in the path, on purpose
O=/run/lazaret/git-objects		# where the sandbox sees the host's objects
CTR=lz-sentry-$$
before=$(sx_host_state "$repo")
config_sha=$(sha256sum <"$repo/.git/config")

sx_mounts "$repo"
assert_contains "$SX_NOTICE" "created branch lazaret/agent-default from HEAD" "notice names the new branch"
assert_eq "$(as_user git -C "$repo" rev-parse lazaret/agent-default)" \
	"$(as_user git -C "$repo" rev-parse main)" "agent branch starts at host HEAD"
assert_not_contains "${SX_ARGS[*]}" "dst=/run/lazaret/git," "the host's .git is not mounted"
sx_start "$CTR"

# The agent's config is its own: it writes it, the host's stays untouched
# however often either side changes its own.
for v in one two three; do
	as_user git -C "$repo" config lazaret.round "$v"
	sx_exec "$CTR" git -C /workspace config core.pager "sh -c pwned-$v" ||
		fail "git config in the sandbox failed"
	assert_eq "$(sx_exec "$CTR" git -C /workspace config lazaret.round || echo unset)" unset \
		"sandbox does not read the host's config"
	assert_eq "$(as_user git -C "$repo" config core.pager || echo unset)" unset "host config has no agent value ($v)"
done
as_user git -C "$repo" config --unset lazaret.round
assert_eq "$(sha256sum <"$repo/.git/config")" "$config_sha" "host config back to what it was"

# The host's objects: read-only, at a path that names no host path.
assert_eq "$(sx_exec "$CTR" cat /workspace/.git/objects/info/alternates)" "$O" "alternates name the neutral path"
first=$(cd "$repo/.git/objects" && find . -path ./info -prune -o -path ./pack -prune -o -type f -print | head -n 1)
[ -n "$first" ] || fail "no loose object of the user's to try"
sx_expect_all "$CTR" EROFS "$O/${first#./}" unlink write truncate
out=$(sx_exec "$CTR" sh -c "rm -rf $O/pack $O/${first:2:2}" 2>&1) && fail "rm -rf of the user's objects succeeded"
as_user git -C "$repo" fsck --no-progress --connectivity-only || fail "user's objects damaged"
note "ok: the user's history cannot be deleted from the sandbox"
sx_exec "$CTR" sh -c 'env' | grep -q "$repo" && fail "a host path in the sandbox's environment"
note "ok: no host path in the environment"

# A hook written in the sandbox is the agent's: never on the host.
hook='#!/bin/sh
echo ran >> "$(git rev-parse --show-toplevel)/HOOK-RAN"
'
sx_exec "$CTR" sh -c "mkdir -p /workspace/.git/hooks && printf '%s' '$hook' > /workspace/.git/hooks/post-commit && chmod +x /workspace/.git/hooks/post-commit"
[ ! -e "$repo/.git/hooks/post-commit" ] || fail "sandbox hook appeared on the host"
note "ok: hook not on the host"

# The agent commits; update-ref of main moves only its own main.
sx_exec "$CTR" sh -c 'cd /workspace && echo agent > agent.txt && mkdir -p sub && echo deep > sub/f &&
	git add agent.txt sub/f && git -c user.name=agent -c user.email=agent@example.invalid commit -qm "agent commit" &&
	git update-ref refs/heads/main HEAD'
assert_eq "$(sx_exec "$CTR" git -C /workspace rev-parse --abbrev-ref HEAD)" "lazaret/agent-default" "sandbox is on its branch"
tip=$(sx_exec "$CTR" git -C /workspace rev-parse HEAD)
wt=$(find "$T/home/data" -maxdepth 4 -type d -name 'lazaret-*' | head -n 1)
[ -n "$wt" ] || fail "agent checkout not found"
assert_eq "$(stat -c %U "$wt/agent.txt")" "$LZ_USER" "file the agent created is owned by the host user"

# The host checkout: byte-identical, HEAD still main, main never moved.
after=$(sx_host_state "$repo")
assert_eq "$after" "$before" "host HEAD, index, main, config, status and files byte-identical"

# Teardown imports: the commit on the host's agent branch, main untouched.
victim=$T/victim; echo precious >"$victim"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$victim"
sx_exec "$CTR" ln -sf "$victim" /workspace/.git/COMMIT_EDITMSG
as_user podman rm -f -t0 "$CTR" >/dev/null
as_user lazaret debug unmount --workspace "$repo" || fail "debug unmount failed"
assert_eq "$(as_user git -C "$repo" rev-parse lazaret/agent-default)" "$tip" "agent commit on the host after teardown"
assert_eq "$(as_user git -C "$repo" diff --name-only main lazaret/agent-default | tr '\n' ' ')" "agent.txt sub/f " \
	"host sees exactly the agent's files on its branch"
assert_eq "$(sha256sum <"$repo/.git/refs/heads/main")" "$(echo "$before" | awk '$2 == ".git/refs/heads/main" {print $1 "  -"}')" "main not moved by the agent's update-ref"
[ ! -e "$repo/.git/objects/info/alternates" ] || fail "an alternates line on the host"
as_user git -C "$repo" fsck --no-progress || fail "repository not sound after teardown"
note "ok: imported at teardown, no alternates"
# A host commit with the sandbox's hook "installed": it does not run.
as_user sh -c "cd '$repo' && echo host >> README && git commit -qam 'host commit'"
[ ! -e "$repo/HOOK-RAN" ] || fail "sandbox hook ran on a host commit"
assert_eq "$(cat "$victim")" "precious" "symlink target untouched"
note "ok: host commit ran no sandbox hook"

# Submodules: their gitdirs are read-only in the sandbox, hooks masked.
sub=$(make_repo "sub src")
sup=$(make_repo "super")
as_user sh -c "cd '$sup' && git -c protocol.file.allow=always submodule add -q '$sub' lib/sub >/dev/null &&
	git commit -qm 'add sub'"
sx_mounts "$sup" --mode direct
sx_start lz-sentry-sub-$$
assert_eq "$(sx_probe lz-sentry-sub-$$ write /workspace/.git/modules/lib/sub/config)" EROFS "submodule config read-only"
assert_eq "$(sx_probe lz-sentry-sub-$$ write /workspace/.git/modules/lib/sub/hooks/post-checkout)" ok "submodule hooks dir is a tmpfs"
[ ! -e "$sup/.git/modules/lib/sub/hooks/post-checkout" ] || fail "submodule hook reached the host"
note "ok: submodule hook not on the host"

# A repository that borrows its objects (clone --shared): the agent reads
# them through a read-only neutral path, and commits.
as_user git clone -q --shared "$sub" "$T/shared clone"
sx_mounts "$T/shared clone"
sx_start lz-sentry-shared-$$
assert_eq "$(sx_exec lz-sentry-shared-$$ git -C /workspace log -1 --format=%s 2>&1)" "init" "borrowed history readable in the sandbox"
sx_exec lz-sentry-shared-$$ sh -c 'cd /workspace && echo s >> README && git -c user.name=a -c user.email=a@example.invalid commit -qam shared' ||
	fail "commit on a --shared clone failed in the sandbox"
assert_eq "$(sx_probe lz-sentry-shared-$$ write /run/lazaret/git-alternates/0/info/x)" EROFS "borrowed objects read-only"
