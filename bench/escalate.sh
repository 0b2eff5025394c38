#!/usr/bin/env bash
# bench/escalate.sh - figures, never assertions: round trip of an
# auto-approved `lazaret-escalate -- true` from inside the sandbox (mTLS
# handshake, signature check, policy, audit rows, spawn on the host, RESULT
# back), interleaved run by run with its floors: a fork+exec of `true` inside
# the sandbox and an exec of the static client alone (--help, no TLS).
# RUNS runs each (default 200; N is the old name); p50/p90/p99/max in ms.
# Then where the time goes: the coordinator runs with LAZARET_TRACE=1 and
# logs each escalation's steps (backend/escalation/esc-trace.h); a second
# pass traces the client too. For each side, the median of every step and
# its mean in the slowest 5% of the runs: the step that grows is the tail;
# "outside" is a round trip less the coordinator's total (the client's exec
# and its TLS work in gVisor, the socket hops), and each pass says how many
# requests the review gate had to run git for (the rest reused its verdict).
# Real stack: runs through tests/integ/lib.sh (the test user, a scratch domain).
source "$(dirname "$0")/../tests/integ/lib.sh"
RUNS=${RUNS:-${N:-200}}
need_stack
need_default_image
[ -x "$T/bin/lazaret-escalate" ] || fail "lazaret-escalate not built"

# A static timer: runs its commands (each one string, split at spaces) one
# after the other, RUNS rounds, so that load hits all of them alike; prints
# each one's p50/p90/p99/max, and with -r first every run's time of the
# first command on stderr ("raw MS").
cat >"$T/timer.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double pct(const double *v, int n, int p) { int i = (n * p + 99) / 100 - 1; return v[i < 0 ? 0 : i >= n ? n - 1 : i]; }
int main(int argc, char **argv) {
	int raw = argc > 1 && strcmp(argv[1], "-r") == 0;
	argv += raw; argc -= raw;
	int n = atoi(argv[1]), m = argc - 2, i, j, st, *bad = calloc(m, sizeof *bad);
	double **v = calloc(m, sizeof *v), t;
	char ***cmd = calloc(m, sizeof *cmd);
	for (j = 0; j < m; j++) {
		char *s = strdup(argv[j + 2]), *w; int k = 0;
		cmd[j] = calloc(strlen(s) + 2, sizeof *cmd[j]);
		for (w = strtok(s, " "); w != NULL; w = strtok(NULL, " ")) cmd[j][k++] = w;
		v[j] = calloc(n, sizeof *v[j]);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++) {
			pid_t p; t = now();
			if ((p = fork()) == 0) { freopen("/dev/null", "w", stdout); execvp(cmd[j][0], cmd[j]); _exit(127); }
			waitpid(p, &st, 0); v[j][i] = now() - t;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad[j]++;
			if (raw && j == 0) fprintf(stderr, "raw %.2f\n", v[j][i]);
		}
	for (j = 0; j < m; j++) {
		qsort(v[j], n, sizeof *v[j], cmp);
		printf("  %-26s p50 %5.1f  p90 %5.1f  p99 %5.1f  max %5.1f  min %4.1f ms  (%d runs, %d failed)\n",
		    argv[j + 2], pct(v[j], n, 50), pct(v[j], n, 90), pct(v[j], n, 99), v[j][n - 1], v[j][0], n, bad[j]);
	}
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
log=$T/home/data/lazaret/domains/$hash/coordinator.log

# A session that keeps the domain up while we measure (lib.sh's per-command
# timeout would end it after $TO s: a loaded machine measures longer). It
# starts the coordinator, with LAZARET_TRACE=1: one log line per escalation.
LZ_ENV=(LAZARET_TRACE=1)
TO=1800 lz run -T -w "$repo" -- sleep 1800 >/dev/null 2>&1 &
lz_on_exit "kill $!"
LZ_ENV=()
wait_for 60 test -d "$wt" || fail "domain did not start"
# Not +x in the checkout (a new executable there suspends auto_approve: the
# review gate); the sandbox installs it in its /tmp.
install -m 0644 "$T/timer" "$wt/.timer"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$wt/.timer"
lz run -T -w "$repo" -- install -m 0755 /workspace/.timer /tmp/.timer
lz run -T -w "$repo" -- lazaret-escalate -- true >/dev/null	# the gate's first check

# The coordinator's trace lines since mark $1 (a line count of the log).
coord_lines() { as_user tail -n +"$(($1 + 1))" "$log" | grep 'lazaret: trace: esc ' || true; }
# How many esc.request rows since mark $1 ran the review gate's git check.
gate_checks() { as_user tail -n +"$(($1 + 1))" "$log" | grep -c '"surface_check":"checked"' || true; }
log_mark() { as_user wc -l <"$log"; }

echo "escalate: auto-approved 'true' from inside the sandbox, $RUNS rounds, interleaved ($(uptime | sed 's/.*load/load/'))"
m=$(log_mark)
TO=1800 lz run -T -w "$repo" -- /tmp/.timer -r "$RUNS" "lazaret-escalate -- true" true \
	"lazaret-escalate --help" 2>"$T/raw1"
coord_lines "$m" >"$T/coord1"
checks1=$(gate_checks "$m")

# A second pass with the client traced too (its phases on its stderr).
m=$(log_mark)
TO=1800 lz run -T -w "$repo" -- sh -c "i=0; while [ \$i -lt $RUNS ]; do LAZARET_TRACE=1 lazaret-escalate -- true; i=\$((i+1)); done" \
	>/dev/null 2>"$T/client2"
coord_lines "$m" >"$T/coord2"
checks2=$(gate_checks "$m")

python3 - "$T/raw1" "$T/coord1" "$T/client2" "$T/coord2" "$checks1" "$checks2" <<'PY'
import re, statistics, sys

def coord(path):
    runs = []
    for l in open(path):
        m = re.search(r"trace: esc \S+:(.*) ms$", l)
        if m:
            w = m.group(1).split()
            runs.append({w[i]: float(w[i + 1]) for i in range(0, len(w), 2)})
    return runs

def client(path):
    runs, cur = [], {}
    for l in open(path):
        m = re.match(r"lazaret: trace: escalate: (.*?) +([0-9.]+) ms  \(([0-9.]+) ms\)", l)
        if not m:
            continue
        cur[m.group(1)] = float(m.group(2))
        if m.group(1) == "request to result":
            cur["total"] = float(m.group(3))
            runs.append(cur)
            cur = {}
    return runs

def table(title, key_runs, sides):
    """key_runs: per-run totals that rank the runs; sides: [(name, runs)], same order."""
    n = len(key_runs)
    if n == 0:
        print("  %s: no runs" % title)
        return
    order = sorted(range(n), key=lambda i: key_runs[i])
    slow = order[-max(3, n // 20):]
    print("  %s (ms; p50 of all %d runs, mean of the slowest %d):" % (title, n, len(slow)))
    for name, runs in sides:
        if len(runs) != n:
            print("    %s: %d lines for %d runs, not joined" % (name, len(runs), n))
            continue
        steps = []
        for r in runs:
            for k in r:
                if k not in steps:
                    steps.append(k)
        for k in steps:
            allv = sorted(r.get(k, 0.0) for r in runs)
            sv = [runs[i].get(k, 0.0) for i in slow]
            print("    %-9s %-28s p50 %6.1f   slow %6.1f   max %6.1f" % (name, k, allv[n // 2],
                  statistics.mean(sv), allv[-1]))

raw = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("raw ")]
c1 = coord(sys.argv[2])
rest = [{"outside the coordinator": raw[i] - c1[i].get("total", 0.0)}
        for i in range(len(c1))] if len(c1) == len(raw) else []
table("pass 1, where the time goes (coordinator steps)", raw, [("coord", c1), ("round", rest)])
print("    review gate ran git for %s of %d requests" % (sys.argv[5], len(c1)))
c2 = client(sys.argv[3])
table("pass 2, client traced too (ranked by the client's total)", [r["total"] for r in c2],
      [("client", c2), ("coord", coord(sys.argv[4]))])
print("    review gate ran git for %s of %d requests" % (sys.argv[6], len(c2)))
PY

n=$((RUNS < 20 ? RUNS : 20))
echo "podman exec from the host, for scale:"
as_user "$T/timer" "$n" "podman exec $ctr true"
