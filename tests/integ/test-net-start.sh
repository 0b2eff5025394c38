#!/usr/bin/env bash
# test-net-start.sh - the network sidecar's container is created while the
# coordinator prepares the Git Sentry and the overlays; what a user checks:
# the router's rules are in place before the sandbox is created (the trace's
# order), and a start that fails meanwhile (a persistent dir the image does
# not have) says why and leaves no sidecar, sandbox or coordinator behind.
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
order=$(grep -o 'trace: coordinator: \(sidecar: router, rules in place\|container (podman run -d)\)' "$log" |
	sed 's/trace: coordinator: //' | tr '\n' '|')
assert_eq "$order" "sidecar: router, rules in place|container (podman run -d)|" \
	"the router's rules are in place before the sandbox is created"

err=$(lz run -T -p broken -w "$repo" -- echo never </dev/null 2>&1) && fail "a start with a bad persistent dir succeeded"
assert_contains "$err" "persistent dir /no-such-dir-in-the-image" "the failed start names the persistent dir"
wait_for 30 sh -c "[ -z \"\$($(as_user_line podman ps -aq --filter "label=lazaret.domain=$bhash"))\" ]" ||
	fail "containers left after the failed start: $(as_user podman ps -a --filter "label=lazaret.domain=$bhash" --format '{{.Names}}')"
note "ok: no sidecar or sandbox container left after the failed start"
[ "$(coord_count "$canon" broken)" = 0 ] || fail "a coordinator of the failed start is still running"
note "ok: no coordinator left"
