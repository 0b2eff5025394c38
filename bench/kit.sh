#!/usr/bin/env bash
# bench/kit.sh - the claude kit (figures, never assertions): its image build
# cached (and cold with KIT_COLD=1: a --pull rebuild, minutes), its size, and
# time to agent-ready for `lazaret run claude`: from the command line until
# Claude Code's own first screen ("Claude Code" under a terminal) is drawn,
# cold domain (fresh workspace) and warm (a session live), against `podman
# run --rm -it --runtime runsc` of the same image to the same screen and
# (warm) `podman exec -it` into a live runsc container of it. No
# model is reached: the profile has no network. Medians of RUNS (default 3).
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
need_stack
RUNS=${RUNS:-3}
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { as_user python3 -c 'import time; print("%.0f" % (time.monotonic() * 1e3))'; }

if [ "${KIT_COLD:-0}" = 1 ]; then
	t0=$(ms); TO=1200 lz image build --kit claude --pull >/dev/null 2>&1; t1=$(ms)
	cold_build=$((t1 - t0))
fi
TO=1200 lz image build --kit claude >"$T/img" 2>/dev/null || fail "lazaret image build --kit claude failed"
IMG=$(tail -1 "$T/img")
cached=$(for i in $(seq 1 "$RUNS"); do
	t0=$(ms); lz image build --kit claude >/dev/null 2>&1; t1=$(ms); echo $((t1 - t0))
done | med)
size=$(as_user podman image inspect --format '{{.Size}}' "$IMG")

# ms from the start of the command line until "Claude Code" is on its terminal
# (with no network its first screen is its availability notice: drawn by the
# agent after its start-up, which is what is measured)
cat >"$T/ready.py" <<'PY'
import os, pty, re, select, signal, sys, time
t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
buf = b""
seen = lambda b: re.search(rb"Claude\s*(\x1b\[[0-9;?]*[A-Za-z]\s*)*Code", b)
while not seen(buf):
    r, _, _ = select.select([fd], [], [], 120)
    if not r:
        sys.exit("no first screen: " + buf[-300:].decode(errors="replace"))
    try:
        c = os.read(fd, 65536)
    except OSError:
        sys.exit("ended before its first screen: " + buf[-300:].decode(errors="replace"))
    buf += c
print("%.0f" % ((time.monotonic() - t0) * 1e3))
os.kill(pid, signal.SIGHUP)
os.waitpid(pid, 0)
PY
mkdir -p "$T/home/config/lazaret"
printf 'profiles:\n  claude:\n    network: none\n' >"$T/home/config/lazaret/config.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
ready() { as_user python3 "$T/ready.py" "$@"; }
cold=$(for i in $(seq 1 "$RUNS"); do
	r=$(make_repo "fresh$i")
	lz_on_exit "lz stop -p claude -w '$r'"
	ready lazaret run -w "$r" claude
	lz stop -p claude -w "$r" >/dev/null 2>&1 || true
done | med)
raw=$(for i in $(seq 1 "$RUNS"); do
	ready podman run --rm -it --runtime runsc --network none -e HOME=/home/agent "$IMG" claude
done | med)
lz_domain warm claude
lz run -T -w "$repo" claude -- sleep 3600 </dev/null >/dev/null 2>&1 &
wait_for 60 sh -c "$(as_user_line lazaret status -p claude -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start"
warm=$(for i in $(seq 1 "$RUNS"); do ready lazaret run -w "$repo" claude; done | med)
lz stop -p claude -w "$repo" >/dev/null
wait || true
# the raw warm path: a live runsc container of the same image, podman exec -it
ctr=lz-bench-kit-$$
as_user podman run -d --rm --name "$ctr" --runtime runsc --network none "$IMG" sleep 3600 >/dev/null
lz_on_exit "as_user podman rm -f -t0 $ctr >/dev/null 2>&1"
rawexec=$(for i in $(seq 1 "$RUNS"); do
	ready podman exec -it -u agent -e HOME=/home/agent -w /home/agent "$ctr" claude
done | med)
as_user podman rm -f -t0 "$ctr" >/dev/null 2>&1 || true

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "the claude kit:"
[ -z "${cold_build:-}" ] || echo "  image build, cold (--pull)               $cold_build ms"
echo "  image build, cached (median of $RUNS)     $cached ms"
echo "  image size                               $((size / 1000000)) MB ($IMG)"
echo "  agent-ready (Claude Code's first screen), median of $RUNS:"
echo "  lazaret run claude, cold domain          $cold ms   ($(ratio "$cold" "$raw")x podman run --rm -it: $raw ms)"
echo "  lazaret run claude, warm domain          $warm ms   ($(ratio "$warm" "$rawexec")x podman exec -it: $rawexec ms)"
echo "  (load: $(cut -d' ' -f1-3 /proc/loadavg))"
