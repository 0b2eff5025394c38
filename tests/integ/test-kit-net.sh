#!/usr/bin/env bash
# test-kit-net.sh - a kit's build reaches only what its recipe needs: the
# fetching steps run in a Network Sidecar of the build's own whose router
# lets through the apt mirror's hosts (and the npm registry when the kit
# lists npm packages), nothing else. The kit's run: lines try, from inside
# the build: a web server on this host's loopback (127.0.0.1 and slirp's
# 10.0.2.2 for it), a web server in a network namespace this test made (its
# address is not in the recipe), and a name outside the policy; each fails,
# while the Debian packages still come from the mirror. Before the build
# had a network of its own, the first one reached the host's server.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create the test's network namespace"
need_stack
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing: run scripts/setup-host"

# the host's own web server, on loopback
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$T" >>"$T/host-web.log" 2>&1 &
lz_on_exit "kill $!"
wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$port/" || fail "the host's test server did not start"
: >"$T/host-web.log"	# appended to: its own check above is gone
lz_test_web 10.216

mkdir -p "$T/home/config/lazaret/kits/nettest"
cat >"$T/home/config/lazaret/kits/nettest/kit.yaml" <<YAML
command: [true]
image:
  debian: [curl]
  run:
    - "t() { if curl -s -m 5 -o /dev/null \"\$2\"; then echo \$1=reached; else echo \$1=blocked; fi; }; t host-loopback http://127.0.0.1:$port/ >>/etc/nettest; t slirp-host http://10.0.2.2:$port/ >>/etc/nettest; t other-host http://$NET.2:8080/ >>/etc/nettest"
    - "if getent hosts lazaret-outside-policy.test >/dev/null; then echo other-name=resolved; else echo other-name=refused; fi >>/etc/nettest; cat /etc/resolv.conf >>/etc/nettest"
YAML
chown -R "$LZ_USER" "$T/home/config"

rc=0; TO=900 lz image build --kit nettest >"$T/b.out" 2>"$T/b.err" || rc=$?
[ $rc -eq 0 ] || fail "the kit did not build: $(tail -30 "$T/b.err")"
err=$(cat "$T/b.err")
assert_contains "$err" "step: the build's network" "the build says it runs in a network of its own"
assert_contains "$err" "allow deb.debian.org:80" "which lets the apt mirror through"
assert_not_contains "$err" "allow registry.npmjs.org" "and not the npm registry (no npm packages)"
img=$(tail -1 "$T/b.out")
res=$(as_user podman run --rm --network none "$img" cat /etc/nettest)
note "inside the build: $(echo $res)"
assert_contains "$res" "host-loopback=blocked" "the host's loopback server was not reached"
assert_contains "$res" "slirp-host=blocked" "nor through slirp's address for the host"
assert_contains "$res" "other-host=blocked" "nor a host the recipe does not name"
assert_contains "$res" "other-name=refused" "a name outside the policy does not resolve"
assert_contains "$res" "nameserver 127.0.0.1" "the router is the build's only resolver"
! grep -q "GET" "$T/host-web.log" || fail "the host's server saw a request: $(cat "$T/host-web.log")"
! grep -q "GET" "$T/srv.log" || fail "the namespace's server saw a request: $(cat "$T/srv.log")"
side=$(sed -n 's/.*network sidecar \(lazaret-net-[0-9a-f]*\) up.*/\1/p' "$T/b.err")
[ -n "$side" ] || fail "the build did not name its sidecar"
! as_user podman container exists "$side" || fail "the build's sidecar $side was left behind"
as_user podman rmi "$img" >/dev/null 2>&1 || true
note "ok: the build fetched from the mirror and reached nothing else"
