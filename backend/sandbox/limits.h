/* limits.h - a sandbox's resource limits on this host (issue 10, item 1).
 *
 * Measured here (rootless podman, runsc with --ignore-cgroups, cgroup
 * hybrid): podman's --memory/--pids-limit/--cpus are ignored ("not supported
 * on cgroups V1 rootless systems") and gVisor reports the host's memory; what
 * works is
 *   - pids: RLIMIT_NPROC given to the container (--ulimit nproc=N:N): gVisor
 *     enforces it for every process of the sandbox (fork gets EAGAIN, the
 *     sandbox lives), root included since the sandbox has no CAP_SYS_RESOURCE;
 *   - /tmp: a tmpfs of memory/2 (gVisor enforces the size: ENOSPC);
 *   - memory, cpus and a host-side task backstop: cgroup v1 directories that
 *     scripts/setup-host delegates to the user (/sys/fs/cgroup/<controller>/
 *     lazaret/<uid>, chowned); the coordinator makes one per domain and starts
 *     `podman run` inside it (`lazaret cgroup-exec`), so conmon, the gofer and
 *     runsc-sandbox (which holds all guest memory, tmpfs included) are in it.
 *     Past memory, the kernel's OOM killer stops the whole sandbox; the
 *     coordinator hears of it (an eventfd on memory.oom_control) and says so;
 *   - disk: no quota without root, so a watchdog: the coordinator adds up the
 *     Domain Root (State Anchor uppers, object store, worktree) and the
 *     container's writable layer (every 5 s while it grows, backing off to a
 *     minute while it does not, at once when the memory cgroup's use climbs:
 *     written files are page cache charged to it), in podman's user
 *     namespace so that no mode hides a byte (disk-usage.h), and stops the
 *     sandbox past the bound. That audit writes never starve on a full data_root is the
 *     store's reserve (state.db.reserve, backend/store/), not a stop here.
 */
#ifndef LZ_LIMITS_H
#define LZ_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "anchor.h"
#include "config.h"
#include "err.h"

enum limits_ctl { LIMITS_MEMORY, LIMITS_PIDS, LIMITS_CPU, LIMITS_N_CTL };

/* What this host lets the user enforce. */
struct limits_host {
	char *dir[LIMITS_N_CTL];	/* delegated cgroup dir of the user, or NULL */
};

/* The delegated directories (writable by us), if any. */
void limits_host_probe(struct limits_host *h);
void limits_host_clear(struct limits_host *h);
/* One sentence naming the limits of l this host does not enforce and the fix,
 * or NULL when every one is. Caller frees. */
char *limits_unenforced(const struct limits_host *h, const struct cfg_limits *l);

/* A domain's cgroups. */
struct limits_domain {
	char *dir[LIMITS_N_CTL];	/* created per-domain dirs, or NULL */
	long oom_kills;			/* memory.oom_control's count at start */
	long pids_max_hits;		/* pids.events' "max" at start */
};

/* Make the domain's cgroups under h and write l into them. */
int limits_domain_setup(const struct limits_host *h, const char *hash,
    const struct cfg_limits *l, struct limits_domain *d, lz_err_t *err);
/* The dirs to run `podman run` in (NULL-terminated, caller frees with
 * lz_strv_free; NULL when none). */
char **limits_domain_cgroups(const struct limits_domain *d);
/* Remove the domain's cgroups (empty once the container is gone). */
void limits_domain_release(struct limits_domain *d);
/* The same for a domain of which only the hash is known (reap). */
void limits_domain_remove(const struct limits_host *h, const char *hash);

/* A number from one of the domain's cgroup files (key NULL: the first,
 * else the value after "key "): what `lazaret status` shows as use
 * (memory.usage_in_bytes, pids.current). -1 when not there. */
long limits_domain_read(const struct limits_domain *d, enum limits_ctl ctl, const char *file,
    const char *key);

/* An eventfd (nonblocking, close-on-exec; caller closes) the kernel signals
 * when the domain's memory cgroup runs out of memory and whenever its use
 * crosses a multiple of step bytes below limit (at most
 * LIMITS_RUNGS_MAX of them, crossed either way): cgroup v1's
 * cgroup.event_control on memory.oom_control and memory.usage_in_bytes.
 * Files the sandbox writes are page cache charged to this cgroup, so a
 * writer crosses rungs; an idle sandbox crosses none. -1 with err when
 * there is no memory cgroup or the kernel refuses. */
#define LIMITS_RUNGS_MAX	256
int limits_domain_eventfd(const struct limits_domain *d, uint64_t limit, uint64_t step,
    lz_err_t *err);

/* Since setup: did the kernel kill for memory, did tasks hit the backstop? */
bool limits_domain_oom(struct limits_domain *d);
bool limits_domain_pids_hit(struct limits_domain *d);

/* The host task backstop for a pids limit (RLIMIT_NPROC is pids itself):
 * what pids guest processes cost on the host, with room, so that gVisor's
 * per-uid limit bites first; processes spread over several uids (each uid
 * has its own RLIMIT_NPROC) meet this sandbox-wide bound instead, which
 * stops the sandbox. */
#define LIMITS_HOST_TASKS_PER_PROC	24
#define LIMITS_HOST_TASKS_BASE		256
long limits_host_tasks(long pids);

#endif
