#!/usr/bin/env bash
# test-sentry-attacks.sh - issue 8's attacks, each made from inside the real
# gVisor sandbox as a hostile agent would, then the effect checked on the
# host as the user would meet it. Written to run against the Sentry before
# issue 8 too (it then reports each attack that got through): the agent
# finds its git dirs with `git rev-parse`, whatever the layout.
#
#  1 forged pack index: an existing host object id answers with the agent's
#    bytes (host objects loose, then after the host's `git gc`)
#  2 forged loose object (content that does not hash to its name), and the
#    store files git obeys that the agent adds (multi-pack-index, .keep)
#  3 symbolic ref and 18-deep symlinks in the agent's ref and log dirs
#  4 the agent's HEAD set to a missing object, then host `git gc`
#  5 a .git planted at an uninitialised submodule path (direct, isolated)
#  6 a nested repository 10 levels down (direct)
#  7 workspaces: a repo subdirectory, a plain directory (isolated), $HOME
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
sx_begin

fails=0
check() { # description command...: the host-side condition that must hold
	local what=$1; shift
	if "$@"; then note "ok: $what"; else echo "ATTACK SUCCEEDED: $what" >&2; fails=$((fails + 1)); fi
}
git_u() { as_user git -C "$@"; }
A='GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=a@example.invalid GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=a@example.invalid'
agent() { sx_exec "$1" sh -c "cd /workspace && export $A && $2"; }
# git as a hostile agent runs it: no GIT_* the Sentry set in its way.
G='env -u GIT_DIR -u GIT_WORK_TREE -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git'

teardown() { # container workspace
	as_user podman rm -f -t0 "$1" >/dev/null
	as_user lazaret debug unmount --workspace "$2" >"$T/unmount.out" 2>&1 || true
}

# --- 1: a forged pack index, and the store files git obeys
repo=$(make_repo "store")
sx_mounts "$repo"
sx_start lz-att1-$$
X=$(git_u "$repo" rev-parse main:README)
# A one-object pack of the agent's bytes whose index claims id X, a junk
# multi-pack-index and a .keep; then an ordinary commit.
agent lz-att1-$$ "od=\$(git rev-parse --git-path objects) &&
	b=\$(echo 'echo pwned' | git hash-object -w --stdin) &&
	pk=\$(echo \$b | git pack-objects \$od/pack/pack) &&
	lazaret-probe forge-idx \$od/pack/pack-\$pk.idx $X >/dev/null &&
	echo junk > \$od/pack/multi-pack-index && touch \$od/pack/pack-\$pk.keep &&
	echo good > f && git add f && git commit -qm 'good f' 2>/dev/null" ||
	fail "the agent could not write its store (test premise)"
tip=$(agent lz-att1-$$ 'git rev-parse HEAD' 2>/dev/null)
readme_ok() { [ "$(git_u "$repo" cat-file -p "$X")" = hello ]; }
check "forged index: host reads its own README during the session" readme_ok
teardown lz-att1-$$ "$repo"
check "forged index: host reads its own README after teardown" readme_ok
agent_tip() { [ "$(git_u "$repo" rev-parse lazaret/agent-default)" = "$tip" ]; }
check "the agent's ordinary commit still reaches the host" agent_tip
git_u "$repo" gc -q
check "forged index: host reads its own README after host git gc" readme_ok
no_store_files() { [ -z "$(find "$repo/.git/objects" \( -name multi-pack-index -o -name '*.keep' \) -print)" ]; }
check "multi-pack-index and .keep of the agent's not in the host store" no_store_files
no_alternates() { [ ! -s "$repo/.git/objects/info/alternates" ]; }
check "no alternates line into a store the agent wrote" no_alternates

# --- 2: a loose object whose bytes do not hash to its name
sx_mounts "$repo"
sx_start lz-att1b-$$
agent lz-att1b-$$ "echo good2 > f2 && git add f2 && git commit -qm 'good f2' &&
	od=\$(git rev-parse --git-path objects) && b=\$(git rev-parse HEAD:f2) &&
	e=\$(echo evil | git hash-object -w --stdin) &&
	chmod u+w \$od/\${b:0:2}/\${b:2} && cp \$od/\${e:0:2}/\${e:2} \$od/\${b:0:2}/\${b:2}" ||
	fail "the agent could not forge a loose object (test premise)"
B=$(agent lz-att1b-$$ 'git rev-parse HEAD:f2')
teardown lz-att1b-$$ "$repo"
no_bad_blob() { ! git_u "$repo" cat-file -e "$B" 2>/dev/null || [ "$(git_u "$repo" cat-file -p "$B")" = good2 ]; }
check "forged loose object: never in the host repository with other bytes" no_bad_blob
fsck_ok() { git_u "$repo" fsck --no-progress --no-dangling >/dev/null 2>&1; }
check "host repository passes git fsck" fsck_ok
reported() { grep -q "import left out 1 ref(s): refs/heads/lazaret/agent-default" "$T/unmount.out"; }
check "the refused import is reported, naming the ref" reported

# --- 3 and 4: refs, logs, HEAD
repo=$(make_repo "refs")
as_user sh -c "cd '$repo' && git checkout -qb other && echo o > o && git add o && git commit -qm other && git checkout -q main"
main=$(git_u "$repo" rev-parse main)
sx_mounts "$repo"
sx_start lz-att2-$$
agent lz-att2-$$ 'cd=$(git rev-parse --git-common-dir) && gd=$(git rev-parse --git-dir) &&
	git symbolic-ref refs/heads/lazaret/x refs/heads/main &&
	d=$cd/refs/heads/lazaret && l=$cd/logs/refs/heads/lazaret &&
	for i in $(seq 18); do d=$d/d; l=$l/d; done && mkdir -p $d $l &&
	ln -s /etc/passwd $d/deep && ln -s /etc/passwd $l/deep &&
	echo 0123456789012345678901234567890123456789 > $gd/HEAD' ||
	fail "the agent could not plant its refs (test premise)"
teardown lz-att2-$$ "$repo"
git_u "$repo" update-ref refs/heads/lazaret/x other 2>/dev/null || true
main_kept() { [ "$(git_u "$repo" rev-parse main)" = "$main" ]; }
check "symbolic ref: host update-ref of lazaret/x leaves main alone" main_kept
no_links() { [ -z "$(find "$repo/.git" -type l -print)" ]; }
check "no symlink of the agent's in the host .git, however deep" no_links
gc_ok() { git_u "$repo" gc -q >/dev/null 2>&1 && git_u "$repo" prune >/dev/null 2>&1; }
check "host git gc and prune work after the agent broke its HEAD" gc_ok

# --- 5: a .git planted at an uninitialised submodule path
sub=$(make_repo "sub src")
sup=$(make_repo "super")
as_user sh -c "cd '$sup' && git -c protocol.file.allow=always submodule add -q '$sub' lib/sub >/dev/null &&
	git commit -qm 'add sub' && git clone -q '$sup' '$T/supc'"
for mode in direct isolated; do
	sx_mounts "$T/supc" --mode $mode
	sx_start lz-att3-$mode-$$
	agent lz-att3-$mode-$$ "$G init -q lib/sub && $G -C lib/sub config core.fsmonitor 'touch $T/PWNED-sub-$mode #'" \
		>/dev/null 2>&1 || true
	teardown lz-att3-$mode-$$ "$T/supc"
	# The user's next git status, in the checkout and in the agent's.
	git_u "$T/supc" status >/dev/null 2>&1 || true
	wt=$(find "$T/home/data" -maxdepth 4 -type d -name 'lazaret-*' -path "*$(printf '%s' "default:$(realpath "$T/supc")" | sha256sum | cut -c1-12)*" | head -n 1)
	[ -z "$wt" ] || git_u "$wt" status >/dev/null 2>&1 || true
	no_marker() { [ ! -e "$T/PWNED-sub-$1" ]; }
	check "planted submodule .git ($mode): host git status runs nothing" no_marker $mode
	no_planted() { [ ! -e "$T/supc/lib/sub/.git" ] && { [ -z "$1" ] || [ ! -e "$1/lib/sub/.git" ]; }; }
	check "planted submodule .git ($mode): none left in a checkout" no_planted "$wt"
done

# --- 6: a nested repository 10 levels down, direct mode
repo=$(make_repo "deep")
deep=$repo; for i in $(seq 10); do deep=$deep/l$i; done
as_user sh -c "git init -q '$deep' && git -C '$deep' commit -q --allow-empty -m x -c user.name=u -c user.email=u@e 2>/dev/null ||
	git -C '$deep' -c user.name=u -c user.email=u@e commit -q --allow-empty -m x"
sx_mounts "$repo" --mode direct
sx_start lz-att4-$$
rel=${deep#"$repo"/}
agent lz-att4-$$ "$G -C $rel config core.fsmonitor 'touch $T/PWNED-deep #'" >/dev/null 2>&1 || true
teardown lz-att4-$$ "$repo"
git_u "$deep" status >/dev/null 2>&1 || true
no_deep() { [ ! -e "$T/PWNED-deep" ]; }
check "nested repository 10 levels down: its config stays the user's" no_deep

# --- 7: workspaces
if lz run --help >/dev/null 2>&1; then
	lz_domain "ws repo"
	as_user mkdir -p "$repo/sub/dir"
	lz run -w "$repo/sub/dir" -- sh -c 'echo x > /workspace/made-here' </dev/null >/dev/null 2>&1 || true
	not_direct() { [ ! -e "$repo/sub/dir/made-here" ] && [ ! -e "$repo/made-here" ]; }
	check "subdirectory workspace (isolated): the host checkout is not written" not_direct
	out=$(lz run -w "$repo/sub/dir" -- sh -c 'test -f /workspace/README && echo top' </dev/null 2>&1 || true)
	is_top() { [ "$out" = top ]; }
	check "subdirectory workspace: /workspace is the repository's top level" is_top
	plain=$T/plainws; as_user mkdir -p "$plain"
	lz_on_exit "lz stop -w '$plain'"
	lz run -w "$plain" -- sh -c 'echo x > /workspace/made-here' </dev/null >/dev/null 2>&1 || true
	plain_ok() { [ ! -e "$plain/made-here" ]; }
	check "plain directory in isolated mode: not written behind an 'isolated' status" plain_ok
	out=$(lz run -w "$plain" -- true </dev/null 2>&1 || true)
	names_fix() { case $out in *"--mode direct"*) ;; *) false ;; esac; }
	check "plain directory in isolated mode: the refusal names --mode direct" names_fix
	lz_on_exit "lz stop -w '$LZ_HOME'"
	lz run -w "$LZ_HOME" -- sh -c 'echo x > /workspace/.lazaret-test-home' </dev/null >/dev/null 2>&1 || true
	home_ok() { [ ! -e "$LZ_HOME/.lazaret-test-home" ]; }
	check "\$HOME as a workspace is refused" home_ok
	rm -f "$LZ_HOME/.lazaret-test-home"
	out=$(lz run -w "$LZ_HOME" -- true </dev/null 2>&1 || true)
	names_override() { case $out in *"--allow-unsafe-workspace"*) ;; *) false ;; esac; }
	check "the \$HOME refusal names the override" names_override
fi

[ "$fails" -eq 0 ] || fail "$fails attack(s) got through"
