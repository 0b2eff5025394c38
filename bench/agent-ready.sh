#!/usr/bin/env bash
# bench/agent-ready.sh - time to agent-ready (figures, never assertions): from
# `lazaret run` until a stand-in agent's first prompt is on its stdout. The
# agent is `sh -c 'printf "agent> "; read -r line'` (a real agent prints its
# prompt after its own start-up, which is its business, not ours).
#   cold: a fresh workspace each run (new git repo, no coordinator, no
#         container: lock, spawn, Git Sentry, Trust Anchor, container, session);
#   warm: the same domain with a session live elsewhere;
# against a raw `podman run --rm -i --runtime runsc --network none IMG` of the
# same agent; and the same two with the network sidecar (a profile with
# `network: sidecar`) against a raw `podman run ... --network slirp4netns`.
# Medians of RUNS (default 5). Runs as the test user of lib.sh.
set -eu
source "$(dirname "$0")/../tests/integ/lib.sh"
need_stack
need_default_image
RUNS=${RUNS:-5}
IMG=localhost/lazaret-default:latest
AGENT=(sh -c 'printf "agent> "; read -r line')

# ms from the start of the command line until "agent> " is on its stdout
cat >"$T/ready.py" <<'PY'
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
buf = b""
while b"agent> " not in buf:
    c = p.stdout.read1(4096)
    if not c:
        sys.exit("no prompt: " + buf.decode(errors="replace"))
    buf += c
t = (time.monotonic() - t0) * 1e3
p.stdin.close(); p.wait(timeout=60)
print("%.0f" % t)
PY
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ready() { as_user python3 "$T/ready.py" "$@"; }
down() { # workspace [profile]: until its coordinator and container are gone
	local c h p=${2:-default}
	h=$(printf '%s' "$p:$(realpath "$1")" | sha256sum | cut -c1-12)
	wait_for 60 sh -c "[ -z \"\$($(as_user_line podman ps -aq --filter "name=^lazaret-$p-$h\$"))\" ] &&
		! $(as_user_line test -S "$LZ_RUNDIR/lazaret/$h.ctl")" || fail "domain $h not torn down"
}

cold=$(for i in $(seq 1 "$RUNS"); do
	r=$(make_repo "fresh$i")
	lz_on_exit "lz stop -w '$r'"
	ready lazaret run -T -w "$r" -- "${AGENT[@]}"
	down "$r"
done | med)
raw=$(for i in $(seq 1 "$RUNS"); do
	ready podman run --rm -i --runtime runsc --network none "$IMG" "${AGENT[@]}"
done | med)

lz_domain warm
lz run -T -w "$repo" -- sleep 3600 </dev/null >/dev/null 2>&1 &
wait_for 60 sh -c "$(as_user_line lazaret status -w "$repo") | grep -q 'sessions:    1'" ||
	fail "the background session did not start"
warm=$(for i in $(seq 1 "$RUNS"); do ready lazaret run -T -w "$repo" -- "${AGENT[@]}"; done | med)
rawexec=$(for i in $(seq 1 "$RUNS"); do ready podman exec -i "$ctr" "${AGENT[@]}"; done | med)
lz stop -w "$repo" >/dev/null
wait || true

# --- the same with the network sidecar
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<YAML
profiles:
  default:
    image: $IMG
  egress:
    image: $IMG
    network: sidecar
    allow_egress: ["10.0.2.2:9"]
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
ncold=$(for i in $(seq 1 "$RUNS"); do
	r=$(make_repo "net$i")
	h=$(printf '%s' "egress:$(realpath "$r")" | sha256sum | cut -c1-12)
	lz_on_exit "lz stop -p egress -w '$r'"
	lz_on_exit "as_user podman rm -f -t0 lazaret-net-$h lazaret-egress-$h"
	ready lazaret run -T -p egress -w "$r" -- "${AGENT[@]}"
	down "$r" egress
done | med)
nraw=$(for i in $(seq 1 "$RUNS"); do
	ready podman run --rm -i --runtime runsc --network slirp4netns "$IMG" "${AGENT[@]}"
done | med)
r=$(make_repo netwarm)
h=$(printf '%s' "egress:$(realpath "$r")" | sha256sum | cut -c1-12)
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$h lazaret-egress-$h"
lz run -T -p egress -w "$r" -- sleep 3600 </dev/null >/dev/null 2>&1 &
wait_for 60 sh -c "$(as_user_line lazaret status -p egress -w "$r") | grep -q 'sessions:    1'" ||
	fail "the background session (sidecar) did not start"
nwarm=$(for i in $(seq 1 "$RUNS"); do ready lazaret run -T -p egress -w "$r" -- "${AGENT[@]}"; done | med)
lz stop -p egress -w "$r" >/dev/null
wait || true

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "time to agent-ready (stand-in agent's first prompt), median of $RUNS:"
echo "  lazaret run, cold (fresh workspace)      $cold ms   ($(ratio "$cold" "$raw")x podman run --rm -i: $raw ms)"
echo "  lazaret run, warm (a session is live)    $warm ms   ($(ratio "$warm" "$rawexec")x podman exec -i: $rawexec ms)"
echo "  with the network sidecar:"
echo "  lazaret run, cold (fresh workspace)      $ncold ms   ($(ratio "$ncold" "$nraw")x podman run --rm -i --network slirp4netns: $nraw ms)"
echo "  lazaret run, warm (a session is live)    $nwarm ms   ($(ratio "$nwarm" "$rawexec")x podman exec -i, as above)"
echo "  (load: $(cut -d' ' -f1-3 /proc/loadavg))"
