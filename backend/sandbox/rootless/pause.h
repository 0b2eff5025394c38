/* pause.h - rootless podman's pause process: the holder of the user and
 * mount namespaces where podman's storage mounts live (what `podman unshare`
 * joins). Knowing it lets lazaret enter those namespaces (`lazaret ns-exec`)
 * or read their mount table without a podman start-up (~50-100 ms each).
 */
#ifndef LZ_PAUSE_H
#define LZ_PAUSE_H

#include <stdbool.h>

#define PAUSE_PID_MAX	16	/* bytes of a pid in decimal, with the NUL */

/* The pid in $XDG_RUNTIME_DIR/libpod/tmp/pause.pid, as decimal text in pid.
 * Returns 0, or -1 when there is none (no runtime dir, no file, junk). The
 * file may be stale: pause_is_ours says whether it still names podman's. */
int pause_pid(char pid[PAUSE_PID_MAX]);

/* Is pid's user namespace another one than ours, made by us, with our uid as
 * its root (rootless podman's: "0 UID 1" on the first uid_map line)? */
bool pause_is_ours(const char *pid);

/* The mount table (/proc/PID/mountinfo text) of podman's namespace, read
 * directly; NULL when the pause process is unknown or not ours (the caller
 * then asks through ns-exec). Caller frees. */
char *pause_mountinfo(void);

/* Push `SELF ns-exec --pid PAUSE --` onto *argv: what follows runs in the
 * pause process's namespaces (as under `podman unshare`, a few ms instead of
 * a podman start-up; ns-exec falls back to podman unshare itself). -1: no
 * pause process known, *argv untouched. */
int pause_exec_prefix(char ***argv);

#endif
