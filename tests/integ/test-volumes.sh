#!/usr/bin/env bash
# test-volumes.sh - volumes as documented (issue 10, item 4), on podman +
# runsc: a host directory under {profile_dir}/{domain_dir} is created 0700 at
# start (the README's own example), ro/z/Z reach podman (its recorded create
# command), /workspace is mounted with :z, ro holds inside the sandbox.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

mkdir -p "$T/data"; echo hello >"$T/data/f"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/data"
lz_config <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    volumes:
      - host: "{profile_dir}/npm-cache"
        container: /root/.npm
        mode: z
      - host: "{domain_dir}/scratch"
        container: /scratch
      - host: $T/data
        container: /data
        mode: ro,Z
YAML
lz_domain ws
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
pdir=$T/home/data/lazaret/default/npm-cache
ddir=$T/home/data/lazaret/domains/$hash/scratch

lz run -w "$repo" -- sleep 120 </dev/null >/dev/null 2>&1 &
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }
wait_for 40 sessions_are 1 || fail "the session with volumes did not start"
for d in "$pdir" "$ddir"; do
	[ -d "$d" ] || fail "token-derived host dir $d was not created"
	assert_eq "$(stat -c %a "$d")" 700 "$d created 0700"
done
out=$(lz run -w "$repo" -- sh -c 'echo x >/root/.npm/k && echo cache-ok; cat /data/f;
	echo y >/data/g 2>&1 || echo ro-ok' </dev/null 2>&1)
assert_contains "$out" "cache-ok" "the created volume is writable"
assert_contains "$out" "hello" "the ro volume is readable"
assert_contains "$out" "ro-ok" "the ro volume is read-only inside"
[ -f "$pdir/k" ] || fail "a write to /root/.npm did not reach $pdir"
cmd=$(as_user podman inspect -f '{{range .Config.CreateCommand}}{{.}} {{end}}' "$ctr")
assert_contains "$cmd" "dst=/workspace,z " "/workspace gets :z"
assert_contains "$cmd" "src=$pdir,dst=/root/.npm,z " "mode z reaches podman"
assert_contains "$cmd" "dst=/data,ro=true,Z " "mode ro,Z reaches podman"
assert_contains "$cmd" "dst=/scratch " "no mode: podman's default"
echo "test-volumes: all passed"
