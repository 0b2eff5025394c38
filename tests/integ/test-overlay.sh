#!/usr/bin/env bash
# test-overlay.sh - State Anchor overlays (spec 4.1) in the real sandbox:
# what the agent writes to a persistent dir survives container restarts and
# new containers, a crashed fuse-overlayfs is replaced, a rebuilt image
# becomes the new lower layer under the kept changes, podman's /etc files
# stay out of the overlay, and unmount leaves nothing mounted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-sentry.sh"
SX_OVERLAY=1
need_stack
need_debug

# A tiny image of our own, so rebuilding it (the update case) touches nothing else.
SX_IMG=localhost/lazaret-test-overlay:$$
build_image() { # marker
	local r=$T/img
	rm -rf "$r"; mkdir -p "$r"/{bin,etc,tmp,proc,sys,dev,run,workspace,usr/share,var/lib}
	cp "$bb" "$r/bin/busybox"
	for a in sh cat echo sleep chown ls stat grep; do ln -sf busybox "$r/bin/$a"; done
	echo "$1" >"$r/usr/share/marker"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$r/etc/passwd"
	echo "image-$1" >"$r/etc/motd"
	tar -C "$r" --numeric-owner --owner=0 --group=0 -cf "$T/img.tar" .
	chmod 0644 "$T/img.tar"
	id=$(as_user podman import --quiet --change CMD=/bin/sh "$T/img.tar" "$SX_IMG") || fail "podman import"
	lz_on_exit "as_user podman rmi -f $id"	# each build: a rebuild leaves the old one untagged
}
bb=$(command -v busybox) || skip "busybox-static not installed"
ldd "$bb" >/dev/null 2>&1 && skip "$bb is dynamically linked: install busybox-static"
build_image v1
sx_config "    persistent_dirs: [/usr, /etc]"
ws=$T/ws; mkdir -p "$ws"; [ "$(id -u)" -ne 0 ] || chown "$LZ_USER" "$ws"
lz_on_exit "as_user lazaret debug unmount --workspace $ws"
hash=$(printf '%s' "default:$(realpath "$ws")" | sha256sum | cut -c1-12)
ovl=$T/home/data/lazaret/domains/$hash/overlay
mounted() { as_user podman unshare cat /proc/self/mountinfo | grep -cF " $ovl/" || true; }
daemon() { pgrep -u "$LZ_USER" -f -- "upperdir=$ovl/$1/upper" || true; }

# --- first container: writes to /usr and /etc
sx_mounts "$ws" --mode direct
assert_contains "${SX_ARGS[*]}" "--mount=type=bind,src=$ovl/usr/merged,dst=/usr" "/usr is the merged overlay"
assert_contains "${SX_ARGS[*]}" "--mount=type=bind,src=$ovl/etc/merged,dst=/etc" "/etc is the merged overlay"
assert_contains "${SX_ARGS[*]}" "--mount=type=bind,src=$ovl/var/merged,dst=/var" "/var too, by default (dpkg's state)"
assert_eq "$(mounted)" 3 "three overlays mounted in podman's namespace"
sx_start lz-ov1-$$
assert_eq "$(sx_exec lz-ov1-$$ cat /usr/share/marker)" "v1" "lower layer is the image's /usr"
sx_exec lz-ov1-$$ sh -c 'echo run1 >> /usr/share/persist.txt && echo agent-conf > /etc/agent.conf'
# podman's own /etc files sit on top of the overlay: written, they change
# podman's copy, never the State Anchor.
assert_contains "$(sx_exec lz-ov1-$$ cat /etc/hosts)" "localhost" "podman's /etc/hosts is there"
sx_exec lz-ov1-$$ sh -c 'echo "10.9.9.9 agent-host" >> /etc/hosts; echo agent-name > /etc/hostname'
as_user podman restart -t0 lz-ov1-$$ >/dev/null
assert_eq "$(sx_exec lz-ov1-$$ cat /usr/share/persist.txt)" "run1" "write survives podman restart"
as_user podman rm -f -t0 lz-ov1-$$ >/dev/null
if grep -rqs "agent-host\|agent-name" "$ovl/etc/upper"; then fail "podman's /etc files leaked into the overlay"; fi
note "ok: /etc/hosts and /etc/hostname stay out of the overlay"
assert_eq "$(cat "$ovl/usr/upper/share/persist.txt")" "run1" "the change lives in the Domain Root"

# --- second container, same overlay (reused, same daemon)
pid=$(daemon usr)
[ -n "$pid" ] || fail "no fuse-overlayfs for /usr"
sx_mounts "$ws" --mode direct
assert_eq "$(daemon usr)" "$pid" "healthy overlay reused"
sx_start lz-ov2-$$
sx_exec lz-ov2-$$ sh -c 'echo run2 >> /usr/share/persist.txt; chown 1000:1000 /usr/share/persist.txt'
assert_eq "$(sx_exec lz-ov2-$$ cat /usr/share/persist.txt | tr '\n' ' ')" "run1 run2 " "new container sees the earlier write"
assert_eq "$(sx_exec lz-ov2-$$ cat /etc/agent.conf)" "agent-conf" "/etc change persists"
sub=$(awk -F: -v u="$LZ_USER" '$1 == u { print $2 }' /etc/subuid)
assert_eq "$(stat -c %u "$ovl/usr/upper/share/persist.txt")" "$((sub + 999))" "chown 1000 maps to the user's subuid"
as_user podman rm -f -t0 lz-ov2-$$ >/dev/null

# --- the daemon dies (a crash): the stale mount is replaced, data kept
kill -9 "$pid"
wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "fuse-overlayfs $pid did not die"
sx_mounts "$ws" --mode direct
new=$(daemon usr)
[ -n "$new" ] && [ "$new" != "$pid" ] || fail "stale overlay not remounted (pid $pid -> '$new')"
note "ok: stale overlay remounted"
sx_start lz-ov3-$$
assert_eq "$(sx_exec lz-ov3-$$ cat /usr/share/persist.txt | tr '\n' ' ')" "run1 run2 " "data kept over a crash"
as_user podman rm -f -t0 lz-ov3-$$ >/dev/null

# --- the image is rebuilt: new lower layer, the agent's changes on top
build_image v2
sx_mounts "$ws" --mode direct
sx_start lz-ov4-$$
assert_eq "$(sx_exec lz-ov4-$$ cat /usr/share/marker)" "v2" "rebuilt image is the new lower layer"
assert_eq "$(sx_exec lz-ov4-$$ cat /etc/motd)" "image-v2" "rebuilt image's /etc too"
assert_eq "$(sx_exec lz-ov4-$$ cat /usr/share/persist.txt | tr '\n' ' ')" "run1 run2 " "changes kept over an image update"
as_user podman rm -f -t0 lz-ov4-$$ >/dev/null

# --- rebuilt while a container runs on it (a coordinator restarted): the
# running container keeps a working /usr; the new image comes next time.
sx_mounts "$ws" --mode direct
sx_start lz-ov5-$$
build_image v3
sx_mounts "$ws" --mode direct
assert_eq "$(sx_exec lz-ov5-$$ cat /usr/share/marker)" "v2" "running container keeps its /usr over a rebuild"
as_user podman rm -f -t0 lz-ov5-$$ >/dev/null
sx_mounts "$ws" --mode direct
sx_start lz-ov6-$$
assert_eq "$(sx_exec lz-ov6-$$ cat /usr/share/marker)" "v3" "next start takes the rebuilt image"
as_user podman rm -f -t0 lz-ov6-$$ >/dev/null

# --- unmount: nothing of ours stays mounted; twice is fine
as_user lazaret debug unmount --workspace "$ws" || fail "unmount failed"
assert_eq "$(mounted)" 0 "no overlay left mounted"
assert_not_contains "$(as_user podman unshare podman image mount)" "$SX_IMG" "image mount released"
as_user lazaret debug unmount --workspace "$ws" || fail "second unmount failed"
note "ok: unmount is idempotent"
assert_eq "$(cat "$ovl/usr/upper/share/persist.txt" | tr '\n' ' ')" "run1 run2 " "upper layer kept after unmount"

# --- ns-exec: the overlays' way into podman's namespaces without podman's
# start-up; the same view as podman unshare, and podman unshare when the pid is
# not our rootless namespace's
pause=$(as_user cat "$LZ_RUNDIR/libpod/tmp/pause.pid")
assert_eq "$(as_user lazaret ns-exec --pid "$pause" -- cat /proc/self/uid_map | awk 'NR==1{print $1, $2, $3}')" \
	"0 $LZ_UID 1" "ns-exec joins the user namespace where we are root"
assert_eq "$(as_user lazaret ns-exec --pid "$pause" -- id -u)" "0" "ns-exec runs as root of podman's namespace"
assert_eq "$(as_user lazaret ns-exec --pid "$pause" -- readlink /proc/self/ns/mnt)" \
	"$(as_user podman unshare readlink /proc/self/ns/mnt)" "ns-exec joins podman unshare's mount namespace"
assert_eq "$(as_user lazaret ns-exec --pid 1 -- readlink /proc/self/ns/mnt)" \
	"$(as_user podman unshare readlink /proc/self/ns/mnt)" "a pid that is not ours falls back to podman unshare"
out=$(as_user lazaret ns-exec --pid 1x -- true 2>&1) && fail "ns-exec took a bad pid"
assert_contains "$out" "bad pid '1x'" "a bad pid is refused by name"
