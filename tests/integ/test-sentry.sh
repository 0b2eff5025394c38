#!/usr/bin/env bash
# test-sentry.sh - the Git Sentry from inside the real gVisor sandbox: the
# host's .git is read-only however often the host rewrites its config, hooks
# written in the sandbox never reach the host, the agent's commits land at
# once on lazaret/agent-default and nowhere else, and the host's own HEAD,
# index, main and working tree stay byte-identical.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin

repo=$(make_repo "my repo")		# a space in the path, on purpose
G=/run/lazaret/git			# where the sandbox sees the host's .git
CTR=lz-sentry-$$
before=$(sx_host_state "$repo")
config_sha=$(sha256sum <"$repo/.git/config")

sx_mounts "$repo"
assert_contains "$SX_NOTICE" "created branch lazaret/agent-default from HEAD" "notice names the new branch"
assert_eq "$(as_user git -C "$repo" rev-parse lazaret/agent-default)" \
	"$(as_user git -C "$repo" rev-parse main)" "agent branch starts at host HEAD"
sx_start "$CTR"

# The config, from inside: every way of changing it fails. runsc answers
# EROFS to all seven, unlink and rename too: the whole .git is a read-only
# mount (the spec's EBUSY came from a single-file bind, which we do not make:
# it stops holding once the host renames the file, notes/sandbox-probe.md §3).
ops=(write append truncate chmod unlink rename-over rename-away)
sx_expect_all "$CTR" EROFS "$G/config" "${ops[@]}"
# The checkout's .git file is a read-only bind: written EROFS, moved EBUSY.
assert_eq "$(sx_probe "$CTR" write /workspace/.git)" EROFS "write /workspace/.git"
sx_expect_all "$CTR" EBUSY /workspace/.git unlink rename-over rename-away

# The host runs `git config` (lock file + rename) three times during the
# session: the sandbox sees each value at once and still cannot write.
for v in one two three; do
	as_user git -C "$repo" config lazaret.round "$v"
	sha=$(sha256sum <"$repo/.git/config")
	assert_eq "$(sx_exec "$CTR" git -C /workspace config lazaret.round)" "$v" "sandbox sees host config '$v' at once"
	sx_expect_all "$CTR" EROFS "$G/config" "${ops[@]}"
	out=$(sx_exec "$CTR" git -C /workspace config core.pager 'sh -c pwned' 2>&1) &&
		fail "git config in the sandbox succeeded"
	assert_contains "$out" "Read-only file system" "git config in the sandbox refused"
	assert_eq "$(sha256sum <"$repo/.git/config")" "$sha" "host config unchanged after round '$v'"
done
as_user git -C "$repo" config --unset lazaret.round
assert_eq "$(sha256sum <"$repo/.git/config")" "$config_sha" "host config back to what it was"

# What else host git obeys stays read-only; the private gitdir's own
# pointers too (commondir/gitdir/config.worktree would redirect host git).
for f in HEAD index packed-refs info/exclude refs/heads/main description; do
	assert_eq "$(sx_probe "$CTR" write "$G/$f")" EROFS "write $f"
done
assert_eq "$(sx_probe "$CTR" mkdir "$G/info/attributes.d")" EROFS "mkdir in info/"
hash=$(printf '%s' "default:$(realpath "$repo")" | sha256sum | cut -c1-12)
wtid=$(basename "$(sx_exec "$CTR" sed -n 's/^gitdir: //p' /workspace/.git)")
assert_eq "$wtid" "lazaret-$hash" "private gitdir named after the domain"
for f in commondir gitdir config.worktree; do
	assert_eq "$(sx_probe "$CTR" write "$G/worktrees/$wtid/$f")" EROFS "write private $f"
	assert_eq "$(sx_probe "$CTR" unlink "$G/worktrees/$wtid/$f")" EBUSY "unlink private $f"
done

# The agent cannot move the user's branch, nor check it out.
out=$(sx_exec "$CTR" git -C /workspace update-ref refs/heads/main HEAD 2>&1) && fail "update-ref main succeeded"
assert_contains "$out" "Read-only file system" "update-ref main refused"
out=$(sx_exec "$CTR" git -C /workspace branch -f main HEAD 2>&1) && fail "branch -f main succeeded"
assert_eq "$(sx_probe "$CTR" unlink "$G/refs/heads/main")" EROFS "unlink refs/heads/main"

# A hook written in the sandbox lands in a tmpfs: never on the host, never
# run by a host commit. (It does run for the sandbox's own commits: harmless.)
hook='#!/bin/sh
echo ran >> "$(git rev-parse --show-toplevel)/HOOK-RAN"
'
sx_exec "$CTR" sh -c "printf '%s' '$hook' > $G/hooks/post-commit && chmod +x $G/hooks/post-commit"
assert_contains "$(sx_exec "$CTR" ls $G/hooks)" "post-commit" "sandbox wrote its hook"
[ ! -e "$repo/.git/hooks/post-commit" ] || fail "sandbox hook appeared on the host"
note "ok: hook not on the host"

# The agent commits: on the host at once, on its branch only.
sx_exec "$CTR" sh -c 'cd /workspace && echo agent > agent.txt && mkdir -p sub && echo deep > sub/f &&
	git add agent.txt sub/f && git -c user.name=agent -c user.email=agent@example.invalid commit -qm "agent commit"'
assert_eq "$(as_user git -C "$repo" log -1 --format=%s lazaret/agent-default)" "agent commit" "agent commit on the host at once"
assert_eq "$(as_user git -C "$repo" diff --name-only main lazaret/agent-default | tr '\n' ' ')" "agent.txt sub/f " \
	"host sees exactly the agent's files on its branch"
assert_eq "$(sx_exec "$CTR" git -C /workspace rev-parse --abbrev-ref HEAD)" "lazaret/agent-default" "sandbox is on its branch"
wt=$(as_user git -C "$repo" worktree list --porcelain | sed -n "s/^worktree \(.*lazaret-.*\)/\1/p")
[ -n "$wt" ] || fail "agent worktree not registered on the host"
assert_eq "$(stat -c %U "$wt/agent.txt")" "$LZ_USER" "file the agent created is owned by the host user"
# Its objects went to its private store (the user's are read-only to it),
# which the host reads through one alternates line.
tip=$(as_user git -C "$repo" rev-parse lazaret/agent-default)
pobj=$(sed -n 's/^GIT_OBJECT_DIRECTORY=//p' < <(printf '%s\n' "${SX_ARGS[@]#--env=}"))
[ -n "$pobj" ] && [ -f "$pobj/${tip:0:2}/${tip:2}" ] || fail "agent commit not in its object store '$pobj'"
assert_eq "$(stat -c %U "$pobj/${tip:0:2}/${tip:2}")" "$LZ_USER" "objects the agent wrote are owned by the host user"
assert_eq "$(cat "$repo/.git/objects/info/alternates")" "$pobj" "host borrows the agent's objects"
first=$(cd "$repo/.git/objects" && find . -path ./info -prune -o -path ./pack -prune -o -type f -print | head -n 1)
[ -n "$first" ] || fail "no loose object of the user's to try"
sx_expect_all "$CTR" EROFS "$G/objects/${first#./}" unlink write truncate
assert_eq "$(sx_probe "$CTR" write "$G/objects/info/alternates")" EROFS "alternates read-only"
out=$(sx_exec "$CTR" sh -c "rm -rf $G/objects/pack $G/objects/${first:2:2}" 2>&1) && fail "rm -rf of the user's objects succeeded"
as_user git -C "$repo" fsck --no-progress --connectivity-only || fail "user's objects damaged"
note "ok: the user's history cannot be deleted from the sandbox"

# The host checkout: byte-identical, HEAD still main, main never moved.
after=$(sx_host_state "$repo")
assert_eq "$after" "$before" "host HEAD, index, main, config, status and files byte-identical"
assert_eq "$(as_user git -C "$repo" symbolic-ref HEAD)" "refs/heads/main" "host still on main"

# A host commit with the sandbox's hook "installed": it does not run.
as_user sh -c "cd '$repo' && echo host >> README && git commit -qam 'host commit'"
[ ! -e "$repo/HOOK-RAN" ] || fail "sandbox hook ran on a host commit"
note "ok: host commit ran no sandbox hook"

# Symlinks planted where host git writes (COMMIT_EDITMSG, logs/HEAD) would
# make the user's next git command in the agent's checkout overwrite or
# append to their target; teardown removes them, the target stays intact.
victim=$T/victim; echo precious >"$victim"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$victim"
sx_exec "$CTR" ln -sf "$victim" "$G/worktrees/$wtid/COMMIT_EDITMSG"
sx_exec "$CTR" ln -sf "$victim" "$G/worktrees/$wtid/logs/HEAD"
[ -L "$repo/.git/worktrees/$wtid/COMMIT_EDITMSG" ] || fail "the sandbox could not plant a symlink (test premise)"
as_user podman rm -f -t0 "$CTR" >/dev/null
as_user lazaret debug unmount --workspace "$repo" || fail "debug unmount failed"
[ ! -L "$repo/.git/worktrees/$wtid/COMMIT_EDITMSG" ] && [ ! -L "$repo/.git/worktrees/$wtid/logs/HEAD" ] ||
	fail "planted symlinks survived teardown"
note "ok: planted symlinks removed at teardown"
# Teardown made the agent's objects the repository's own: no alternates left.
[ ! -e "$repo/.git/objects/info/alternates" ] || fail "alternates line left after teardown"
[ -f "$repo/.git/objects/${tip:0:2}/${tip:2}" ] || fail "agent commit not moved into the repository"
as_user git -C "$repo" fsck --no-progress || fail "repository not sound after teardown"
note "ok: agent objects moved into the repository at teardown"
as_user sh -c "cd '$wt' && echo more >> agent.txt && git commit -qam 'user commit in the agent checkout'"
assert_eq "$(cat "$victim")" "precious" "a host commit in the agent checkout left the target alone"

# Submodules: their gitdirs sit under the read-only .git/modules, with
# their own hooks masked too.
sub=$(make_repo "sub src")
sup=$(make_repo "super")
as_user sh -c "cd '$sup' && git -c protocol.file.allow=always submodule add -q '$sub' lib/sub >/dev/null &&
	git commit -qm 'add sub'"
sx_mounts "$sup"
sx_start lz-sentry-sub-$$
assert_eq "$(sx_probe lz-sentry-sub-$$ write "$G/modules/lib/sub/config")" EROFS "submodule config read-only"
assert_eq "$(sx_probe lz-sentry-sub-$$ write "$G/modules/lib/sub/hooks/post-checkout")" ok "submodule hooks dir is a tmpfs"
[ ! -e "$sup/.git/modules/lib/sub/hooks/post-checkout" ] || fail "submodule hook reached the host"
note "ok: submodule hook not on the host"
