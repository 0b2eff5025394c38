#!/usr/bin/env bash
# test-esc-valgrind.sh - the escalation server's unit tests (every error path
# of esc_exec and the server: failed starts, refusals, timeouts, the audit
# failing, the cwd race) under valgrind, which sees what ASan cannot: writes
# from inside the uninstrumented libuv into memory we freed (issue 9: a
# process handle freed without uv_close after a failed start).
set -eu
cd "$(dirname "$0")/../.."
BUILD=${LAZARET_BUILD:-build}
command -v valgrind >/dev/null || { echo "SKIP: valgrind missing: run scripts/setup-host"; exit 77; }
# The server's tests are three files (test-esc-server*.c around esctest.c).
bins="$BUILD/tests/test-esc-server $BUILD/tests/test-esc-server-exec $BUILD/tests/test-esc-server-conn"
for bin in $bins; do
	[ -x "$bin" ] || { echo "FAIL: $bin not built: make unit" >&2; exit 1; }
done
log=$(mktemp /tmp/lz-valgrind.XXXXXX)
trap 'rm -f "$log"' EXIT
# openat2 and pidfd_open are unknown to valgrind 3.19: esc-cwd.c falls back to
# a walk of O_NOFOLLOW opens, which is what runs here.
for bin in $bins; do
	set +e
	LAZARET_BUILD=$BUILD timeout -k 10 800 valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --track-fds=no "$bin" >"$log" 2>&1
	rc=$?
	set -e
	# The first errors whole, then the summary lines.
	grep -v '^--[0-9]*-- \|^\[ RUN\|OK \]\|possibly lost' "$log" | grep -B1 -A25 -m3 \
		'Invalid\|uninitialised\|definitely lost\|FAILED\|ERROR' || true
	grep '^\[  \|ran .* times' "$log" || true
	[ $rc -eq 0 ] || { echo "FAIL: $bin under valgrind: exit $rc" >&2; exit 1; }
	echo "ok: $(basename "$bin") clean under valgrind"
done
