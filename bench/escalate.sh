#!/usr/bin/env bash
# bench/escalate.sh - figures, never assertions: round trip of an
# auto-approved `lazaret-escalate -- true` from inside the sandbox (mTLS
# handshake, signature check, policy, spawn on the host, RESULT back) against
# plain `podman exec CTR true` from the host and a fork+exec of true inside
# the sandbox. N runs each (default 50); p50/p99 in milliseconds. Floors:
# exec of the static client alone (--help, no TLS), and the medians of the
# client's LAZARET_TRACE phases (the TLS 1.3 handshake over the UNIX socket
# alone, the request-to-result leg on the host).
# Real stack: runs through tests/integ/lib.sh (the test user, a scratch domain).
source "$(dirname "$0")/../tests/integ/lib.sh"
N=${N:-50}
need_stack
need_default_image
[ -x "$T/bin/lazaret-escalate" ] || fail "lazaret-escalate not built"

# A static timer: runs argv N times, prints p50 and p99 of the wall time.
cat >"$T/timer.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
	int n = atoi(argv[1]), i, st, bad = 0; double *v = calloc(n, sizeof *v), t;
	for (i = 0; i < n; i++) {
		pid_t p; t = now();
		if ((p = fork()) == 0) { freopen("/dev/null", "w", stdout); execvp(argv[2], argv + 2); _exit(127); }
		waitpid(p, &st, 0); v[i] = now() - t;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad++;
	}
	qsort(v, n, sizeof *v, cmp);
	printf("p50 %.1f ms  p99 %.1f ms  min %.1f ms  (%d runs, %d failed)\n", v[n / 2],
	    v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1], v[0], n, bad);
	return 0;
}
C
timeout 60 gcc -O2 -static -o "$T/timer" "$T/timer.c" 2>/dev/null || fail "cannot build the timer"
chmod 0755 "$T/timer"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  default:\n    image: localhost/lazaret-default:latest\nescalation:\n  auto_approve: ["true"]\n' \
	>"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
wt=$T/home/data/lazaret/domains/$hash/lazaret-$hash

# A session that keeps the domain up while we measure (lib.sh's per-command
# timeout would end it after $TO s: a loaded machine measures longer).
TO=1800 lz run -T -w "$repo" -- sleep 1800 >/dev/null 2>&1 &
lz_on_exit "kill $!"
wait_for 60 test -d "$wt" || fail "domain did not start"
# Not +x in the checkout (a new executable there suspends auto_approve: the
# review gate); the sandbox installs it in its /tmp.
install -m 0644 "$T/timer" "$wt/.timer"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$wt/.timer"
lz run -T -w "$repo" -- install -m 0755 /workspace/.timer /tmp/.timer

echo "escalate: auto-approved 'true' from inside the sandbox (N=$N)"
echo "  lazaret-escalate -- true   $(TO=900 lz run -T -w "$repo" -- /tmp/.timer "$N" lazaret-escalate -- true)"
echo "  fork+exec true in gVisor   $(TO=900 lz run -T -w "$repo" -- /tmp/.timer "$N" true)"
echo "  exec lazaret-escalate --help (static client, no TLS)"
echo "                             $(TO=900 lz run -T -w "$repo" -- /tmp/.timer "$N" lazaret-escalate --help)"
echo "  client phases (LAZARET_TRACE=1), median of $N:"
TO=900 lz run -T -w "$repo" -- sh -c "i=0; while [ \$i -lt $N ]; do LAZARET_TRACE=1 lazaret-escalate -- true; i=\$((i+1)); done" 2>&1 |
	python3 -c '
import re, sys
ph = {}
for l in sys.stdin:
    m = re.match(r"lazaret: trace: escalate: (.*?) +([0-9.]+) ms  \(", l)
    if m: ph.setdefault(m.group(1), []).append(float(m.group(2)))
for k, v in ph.items():
    v.sort(); print("    %-30s p50 %5.1f ms" % (k, v[len(v) // 2]))'
echo "  podman exec CTR true       $(as_user "$T/timer" "$N" podman exec "$ctr" true)"
