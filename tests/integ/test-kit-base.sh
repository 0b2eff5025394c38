#!/usr/bin/env bash
# test-kit-base.sh - a kit with `image: base: IMAGE` is built with podman
# build FROM that image (here the claude kit's own, local: no registry is
# reachable), its Debian packages from the host's mirror, labelled with its
# kit and recipe; `lazaret run KIT` runs its command there. The image is
# removed at the end (its recipe holds the test's directory name).
source "$(dirname "$0")/lib.sh"
need_stack
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing: run scripts/setup-host"

TO=900 lz image build --kit claude >"$T/base.out" 2>"$T/base.err" || fail "claude kit: $(tail -20 "$T/base.err")"
base=$(tail -1 "$T/base.out")
mkdir -p "$T/home/config/lazaret/kits/basetest"
cat >"$T/home/config/lazaret/kits/basetest/kit.yaml" <<YAML
command: [jq, --version]
image:
  base: $base
  debian: [jq]
  run: ["echo $T > /etc/lazaret-test"]
YAML
chown -R "$LZ_USER" "$T/home/config"
TO=600 lz image build --kit basetest >"$T/b.out" 2>"$T/b.err" || fail "basetest: $(tail -20 "$T/b.err")"
img=$(tail -1 "$T/b.out")
lz_on_exit "as_user podman rmi -f $img"
assert_contains "$(cat "$T/b.err")" "step: podman build FROM $base" "built FROM the named base"
assert_contains "$(cat "$T/b.err")" "allow deb.debian.org:80" "its RUN step in the build's network (the host's mirror)"
lbl=$(as_user podman image inspect --format '{{index .Labels "org.lazaret.kit"}} {{index .Labels "org.lazaret.recipe"}}' "$img")
assert_eq "$lbl" "basetest ${img##*:}" "labelled with its kit and recipe hash"
note "--pull builds again and drops the image it replaced"
old=$(as_user podman image inspect --format '{{.Id}}' "$img")
TO=600 lz image build --kit basetest --pull >"$T/p.out" 2>"$T/p.err" || fail "--pull: $(tail -20 "$T/p.err")"
assert_contains "$(cat "$T/p.err")" "step: podman build FROM" "--pull runs the build again"
new=$(as_user podman image inspect --format '{{.Id}}' "$img")
[ "$new" != "$old" ] || fail "--pull left the same image $old"
as_user podman image exists "$old" && fail "the replaced image $old is still there"
note "ok: the replaced image is gone"
lz_domain ws basetest
out=$(TO=300 as_user lazaret run -T -w "$repo" basetest 2>&1) || fail "run basetest: $out"
assert_contains "$out" "jq-1." "lazaret run KIT runs the kit's command in its image"
