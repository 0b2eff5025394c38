#!/usr/bin/env bash
# test-overlay-cache.sh - the overlays' warm start: a sandbox's image stays
# mounted in podman's namespace after it stops, and the next start finds it
# from podman's own images.json without a podman call. What a user checks:
# after rebuilding the image (podman build, same tag) or moving the tag to
# another image (podman tag), the next start runs the new image; after the
# image was unmounted behind Lazaret's back (podman image unmount), the next
# start still works.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

IMG=localhost/lazaret-test-cache:$$
build() { # marker tag: an image FROM the default one with /usr/share/lazaret-cache-marker
	local ctx=$T/ctx-$1
	mkdir -p "$ctx"
	echo "$1" >"$ctx/marker"
	printf 'FROM localhost/lazaret-default:latest\nCOPY marker /usr/share/lazaret-cache-marker\n' \
		>"$ctx/Containerfile"
	[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$ctx"
	local id
	id=$(as_user podman build -q --pull=never -t "$2" "$ctx") || fail "podman build $2"
	lz_on_exit "as_user podman rmi -f $id"
}
mkdir -p "$T/home/config/lazaret"
cat >"$T/home/config/lazaret/config.yaml" <<YAML
profiles:
  default:
    image: $IMG
    network: none
YAML
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
lz_domain cache
lz_on_exit "lz debug unmount -w '$repo'"
LZ_ENV=(LAZARET_TRACE=1)
log=$T/home/data/lazaret/domains/$hash/coordinator.log

marker() { lz run -T -w "$repo" -- cat /usr/share/lazaret-cache-marker </dev/null 2>>"$T/run.err"; }
down() { # until the domain's coordinator (its teardown too) and container are gone
	wait_for 60 sh -c "! test -S '$sock'" || fail "domain did not stop"
	wait_for 60 sh -c "! pgrep -u '$LZ_USER' -f -- '--workspace $canon' >/dev/null" ||
		fail "the domain's coordinator did not end"
	wait_for 60 sh -c "[ -z \"\$($(as_user_line podman ps -aq --filter "name=^$ctr\$"))\" ]" ||
		fail "container $ctr not removed"
}
image_step() { grep 'trace: coordinator: overlays: image id' "$log" | tail -1; }

build v1 "$IMG"
assert_eq "$(marker)" "v1" "first start runs the image"
down
assert_eq "$(marker)" "v1" "second start runs the same image"
assert_contains "$(image_step)" "image id, images.json" "second start knows its image without podman"
down

# --- rebuilt under the same tag: the next start runs the new image
build v2 "$IMG"
assert_eq "$(marker)" "v2" "start after podman build (same tag) runs the rebuilt image"
down
assert_eq "$(marker)" "v2" "and keeps running it"
assert_contains "$(image_step)" "image id, images.json" "the rebuilt image is found without podman too"
down

# --- the tag moved to another image
build v3 "$IMG-other"
as_user podman tag "$IMG-other" "$IMG" || fail "podman tag"
assert_eq "$(marker)" "v3" "start after podman tag runs the newly tagged image"
down

# --- unmounted behind our back: the next start mounts it again
mounted() { as_user podman unshare podman image mount | grep -cF -- "$IMG" || true; }
[ "$(mounted)" -ge 1 ] || fail "the image is not kept mounted after the sandbox stopped"
as_user podman unshare podman image unmount --force "$IMG" >/dev/null || fail "podman image unmount"
assert_eq "$(mounted)" 0 "the image is unmounted"
assert_eq "$(marker)" "v3" "start after podman image unmount still works"
assert_contains "$(grep 'trace: coordinator: overlays: image m' "$log" | tail -1)" \
	"image mount, podman" "the image was mounted again"
down

# --- lazaret debug unmount lets the image go
lz debug unmount -w "$repo" >/dev/null 2>"$T/unmount.err" || fail "debug unmount: $(cat "$T/unmount.err")"
assert_eq "$(mounted)" 0 "debug unmount releases the image mount"
note "ok: overlay image cache"
