#!/usr/bin/env bash
# test-net-start.sh - the network sidecar's container is created while the
# coordinator prepares the Git Sentry and the overlays; what a user checks:
# the sidecar exists before the sandbox, the router's rules are in place
# before the control socket opens and so before the first session (the
# trace's order; the router starts while the sandbox is created), and a
# start that fails meanwhile (a persistent dir the image does not have) says
# why and leaves no sidecar, sandbox or coordinator behind.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"

mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
    allow_egress: ["10.0.2.2:9"]
  broken:
    image: localhost/lazaret-default:latest
    network: sidecar
    allow_egress: ["10.0.2.2:9"]
    persistent_dirs: [/no-such-dir-in-the-image]
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
lz_domain ns
bhash=$(printf '%s' "broken:$canon" | sha256sum | cut -c1-12)
lz_on_exit "as_user podman rm -f -t0 lazaret-net-$hash lazaret-net-$bhash lazaret-broken-$bhash"
log=$T/home/data/lazaret/domains/$hash/coordinator.log

LZ_ENV=(LAZARET_TRACE=1)
out=$(lz run -T -w "$repo" -- echo up </dev/null 2>/dev/null) || fail "start with the sidecar failed"
LZ_ENV=()
assert_eq "$out" "up" "a sandbox with the sidecar runs"
order=$(grep -o 'trace: coordinator: \(sidecar: [a-z, ]*\|container (podman run -d)\|listening\|session 1 spawned\)' "$log" |
	sed 's/trace: coordinator: //; s/ *$//' | tr '\n' '|')
assert_eq "$order" "sidecar: container|sidecar: router spawned|container (podman run -d)|sidecar: router, rules in place|listening|session 1 spawned|" \
	"the sidecar exists before the sandbox, its rules are in place before the control socket opens and the first session"

err=$(lz run -T -p broken -w "$repo" -- echo never </dev/null 2>&1) && fail "a start with a bad persistent dir succeeded"
assert_contains "$err" "persistent dir /no-such-dir-in-the-image" "the failed start names the persistent dir"
wait_for 30 sh -c "[ -z \"\$($(as_user_line podman ps -aq --filter "label=lazaret.domain=$bhash"))\" ]" ||
	fail "containers left after the failed start: $(as_user podman ps -a --filter "label=lazaret.domain=$bhash" --format '{{.Names}}')"
note "ok: no sidecar or sandbox container left after the failed start"
[ "$(coord_count "$canon" broken)" = 0 ] || fail "a coordinator of the failed start is still running"
note "ok: no coordinator left"

# --- a router that never gets its rules in place (it exits at once): the
# sandbox, created meanwhile, runs nothing; the start fails with the reason,
# and no sidecar, sandbox or coordinator is left
cat >"$T/fake-side.c" <<'C'
#include <unistd.h>
int main(int argc, char **argv) { (void)argv; if (argc == 1) for (;;) pause(); return 3; }
C
gcc -O -o "$T/fake-side" "$T/fake-side.c" || fail "cannot build the fake router"
fake_img=localhost/lazaret-sidecar:$(b2sum -l 256 "$T/fake-side" | cut -c1-12)
lz_on_exit "as_user podman rmi -f $fake_img"
cp "$T/bin/lazaret-sidecar" "$T/real-side"
install -m 0755 "$T/fake-side" "$T/bin/lazaret-sidecar"
lz stop -w "$repo" >/dev/null 2>&1 || true
set +e
out=$(lz run -T -w "$repo" -- sh -c 'echo never-ran' </dev/null 2>"$T/fake.err"); rc=$?
set -e
install -m 0755 "$T/real-side" "$T/bin/lazaret-sidecar"
[ "$rc" -ne 0 ] || fail "a start whose router never set its rules succeeded"
assert_not_contains "$out" "never-ran" "no session ran without the rules"
assert_contains "$(cat "$T/fake.err")" "the network sidecar lazaret-net-$hash did not start" \
	"the failed start says the sidecar did not start"
wait_for 30 sh -c "[ -z \"\$($(as_user_line podman ps -aq --filter "label=lazaret.domain=$hash"))\" ]" ||
	fail "containers left after the router failed: $(as_user podman ps -a --filter "label=lazaret.domain=$hash" --format '{{.Names}}')"
note "ok: no sidecar or sandbox container left after the router failed"
[ "$(coord_count "$canon" default)" = 0 ] || fail "a coordinator of the failed start is still running"
note "ok: no coordinator left"
out=$(lz run -T -w "$repo" -- echo up-again </dev/null 2>/dev/null) || fail "the next start with the real router failed"
assert_eq "$out" "up-again" "the next start with the real router works"
lz stop -w "$repo" >/dev/null 2>&1 || true

# --- a sandbox whose creation outlasts the router's start deadline (15 s)
# and the coordinator's wait for its first client (30 s, its loop not yet run;
# twenty domains starting at once on two cores): the router, ready long
# before, is asked once more and the start succeeds
cat >"$T/bin/podman" <<'SH'
#!/bin/sh
case " $* " in *" run "*"--runtime=runsc"*) sleep 31 ;; esac
exec /usr/bin/podman "$@"
SH
chmod 0755 "$T/bin/podman"
out=$(TO=180 lz run -T -w "$repo" -- echo slow-but-up </dev/null 2>"$T/slow.err") ||
	fail "a start with a slow sandbox creation failed: $(cat "$T/slow.err")"
rm -f "$T/bin/podman"
assert_eq "$out" "slow-but-up" "a sandbox created after the router's deadline still starts"
lz stop -w "$repo" >/dev/null 2>&1 || true
echo "test-net-start: all passed"
