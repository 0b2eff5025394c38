# tests/integ/lib-sentry.sh - helpers for test-sentry, test-branch and
# test-overlay (sourced after lib.sh): the real layout from `lazaret debug
# mounts`, a gVisor container started with it, lazaret-probe inside.

SX_IMG=${SX_IMG:-localhost/lazaret-default:latest}
SX_ARGS=()
SX_NOTICE=

# lazaret debug is hidden; until app/cli/lazaret.c lists it the layout cannot be asked for.
need_debug() {
	lz debug --help >/dev/null 2>&1 || skip "lazaret debug is not in the command table"
	[ -x "$T/bin/lazaret-probe" ] || fail "no lazaret-probe in $LZ_BUILD: run make"
}

# The usual start: the stack, lazaret debug, the default image, a config.
sx_begin() { need_stack; need_debug; need_default_image; sx_config "$@"; }

# A config with the one profile "default" on $SX_IMG; extra profile lines
# (4-space indented YAML) as arguments.
sx_config() {
	mkdir -p "$T/home/config/lazaret"
	{ printf 'profiles:\n  default:\n    image: %s\n' "$SX_IMG"; printf '%s\n' "$@"; } \
		>"$T/home/config/lazaret/config.yaml"
	[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
}

# lazaret debug mounts --workspace WS [ARGS...]: podman arguments into SX_ARGS,
# stderr (the notice) into SX_NOTICE.
sx_mounts() {
	local out ov=(--no-overlay)
	# /usr is a State Anchor by default: only test-overlay.sh (SX_OVERLAY=1) wants them
	[ -z "${SX_OVERLAY:-}" ] || ov=()
	out=$(as_user lazaret debug mounts "${ov[@]}" --workspace "$@" 2>"$T/sx-notice") ||
		fail "lazaret debug mounts $*: $(cat "$T/sx-notice")"
	SX_NOTICE=$(cat "$T/sx-notice")
	mapfile -t SX_ARGS <<<"$out"
}

# Start container NAME under runsc with SX_ARGS and the probe mounted read-only.
sx_start() {
	lz_on_exit "as_user podman rm -f -t0 $1"
	as_user podman run -d --name "$1" --runtime runsc --network none "${SX_ARGS[@]}" \
		--mount "type=bind,src=$T/bin/lazaret-probe,dst=/usr/local/bin/lazaret-probe,ro=true" \
		"$SX_IMG" sleep 100000 >/dev/null || fail "podman run $1 failed"
}

# Run a command in container $1.
sx_exec() { local c=$1; shift; as_user podman exec "$c" "$@"; }

# The probe's verdict for one operation: ok, EROFS, EBUSY, ...
sx_probe() { # container op path
	local out
	out=$(sx_exec "$1" lazaret-probe "$2" "$3") || fail "lazaret-probe $2 $3 did not run"
	echo "${out##*: }"
}

# Assert each of the operations OPS... on PATH in container C fails with ERRNO.
sx_expect_all() { # container errno path ops...
	local c=$1 want=$2 path=$3 op; shift 3
	for op in "$@"; do
		assert_eq "$(sx_probe "$c" "$op" "$path")" "$want" "$op $path"
	done
}

# Everything of the host checkout $1 that must stay byte-identical: HEAD,
# index, main, status and every file of the working tree.
sx_host_state() {
	local r=$1
	(cd "$r" && sha256sum .git/HEAD .git/index .git/refs/heads/main .git/config &&
		find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
	as_user git -C "$r" --no-optional-locks status --porcelain --untracked-files=all
}

# A shell script run by `lazaret run -T` in the domain's workspace ($repo,
# from lz_domain) with an agent's git identity; stops at the first failure.
sx_run_agent() {
	lz run -T -w "$repo" -- sh -c "export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=a@example.invalid \
		GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=a@example.invalid; set -e; $1" </dev/null
}
