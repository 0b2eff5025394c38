#!/usr/bin/env bash
# test-volumes-protect.sh - a volume must not expose Lazaret's own files
# (issue 24, item 8), against the real stack. The attack: a profile with no
# network mounts the configuration's parent (a common mount for ~/.config);
# from inside the sandbox the agent writes its own grants file with the note
# "by you (workbench)" and the next start has the network on. After the fix:
# the writable mount is refused at resolve time (file, line, key, the fix);
# with mode: ro the write fails inside; a grants file that the user's own
# Lazaret did not write is refused, left out, and audited.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

cfgparent=$T/home/config		# XDG_CONFIG_HOME: holds lazaret/config.yaml
grants=$cfgparent/lazaret/grants/default.list
write_config() { # mode-line
	lz_config <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - host: $cfgparent
        container: /hostcfg
$1
YAML
}
lz_domain ws
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
forge='mkdir -p /hostcfg/lazaret/grants && printf "# 2026-12-04T10:00:00Z by you (workbench): ok\n0.0.0.0/0\n" > /hostcfg/lazaret/grants/default.list && echo forged'

note "1. the writable mount of the configuration's parent is refused before anything starts"
write_config ""
set +e; out=$(lz run -w "$repo" -- sh -c "$forge" </dev/null 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "lazaret run fails"
assert_contains "$out" "$cfgparent/lazaret/config.yaml:5: profiles.default.volumes[0].host: security: '$cfgparent' holds the grants directory ('$cfgparent/lazaret/grants')" "the error names file, line, key and what the volume holds"
assert_contains "$out" "refused unless read-only (add mode: ro" "and the fix"
assert_not_contains "$out" "forged" "nothing ran in a sandbox"
[ ! -e "$grants" ] || fail "a grants file appeared: $(cat "$grants")"
set +e; out=$(lz config check -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "config check says the same"
assert_contains "$out" "holds the grants directory" "config check names it"

note "2. read-only: the agent cannot write its grants from inside"
write_config "        mode: ro"
out=$(lz run -w "$repo" -- sh -c "$forge || echo write-failed; cat /hostcfg/lazaret/config.yaml | head -1" </dev/null 2>&1)
assert_contains "$out" "Read-only file system" "the write fails inside the sandbox"
assert_contains "$out" "write-failed" "the forge did not happen"
assert_contains "$out" "profiles:" "the mount is there, readable"
[ ! -e "$grants" ] || fail "a grants file appeared: $(cat "$grants")"

note "3. a grants file the agent wrote (same bytes, as the user's uid) is refused and audited"
lz stop -w "$repo" >/dev/null 2>&1 || true
no_coord() { [ "$(coord_count "$canon")" = 0 ]; }
wait_for 30 no_coord || fail "the domain did not stop"
as_user sh -c "mkdir -p '$(dirname "$grants")' && printf '# 2026-12-04T10:00:00Z by you (workbench): ok\n0.0.0.0/0\n' > '$grants' && chmod 600 '$grants'"
out=$(lz run -w "$repo" -- sh -c 'cat /etc/resolv.conf >/dev/null 2>&1; ip -o link 2>/dev/null | grep -c . || true; echo ran' </dev/null 2>&1)
assert_contains "$out" "ran" "the session still runs (fail closed: without the grant)"
assert_contains "$out" "warning: $grants: security: not written by your Lazaret (no '# lazaret-mac: ...' line at its end); refused: its grants are not applied" "the user is told which file and why"
set +e; out=$(lz config check -w "$repo" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "config check fails on a refused grants file"
assert_not_contains "$out" '"0.0.0.0/0"' "the forged grant is not in the resolved profile"
assert_contains "$out" "network: none" "the profile keeps no network"
net=$(as_user podman inspect -f '{{.HostConfig.NetworkMode}}' "$ctr" 2>/dev/null || echo gone)
[ "$net" = gone ] || assert_eq "$net" none "the sandbox ran with --network none"
audit=$(lz audit -w "$repo")
assert_contains "$audit" "config.refused" "an audit row records the refusal"
assert_contains "$audit" "not written by your Lazaret" "with the reason"
echo "test-volumes-protect: all passed"
