/* podman-ns.h - rootless podman's user and mount namespaces, joined through
 * `lazaret ns-exec` (app/cmd-ns-exec.c) instead of a `podman unshare`
 * start-up: the overlays' mounts (overlay.c) and the sessions' runsc exec
 * (rexec.c) run there.
 */
#ifndef LZ_PODMAN_NS_H
#define LZ_PODMAN_NS_H

/* Append `lazaret ns-exec --pid PAUSE` to *argv (the caller adds its own
 * flags, then "--" and the command): a command run so joins rootless
 * podman's user and mount namespaces (those of its pause process, what
 * `podman unshare` joins) in a few ms, and ns-exec itself falls back to
 * podman unshare. -1 (argv untouched): no pause process known. */
int podman_ns_prefix(char ***argv);

#endif
