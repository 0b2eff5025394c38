/* driver.h - the container driver interface (DESIGN "Scale beyond one machine").
 *
 * The coordinator talks to the container engine only through struct drv_ops,
 * so that another driver (Kubernetes: Pods with runtimeClassName gvisor) can
 * sit beside the Podman one (podman.c). Every call is synchronous and is made
 * from the coordinator's start-up/teardown path or from a uv work thread.
 */
#ifndef LZ_DRIVER_H
#define LZ_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

enum drv_mount_type {
	DRV_MOUNT_BIND,		/* src on the host -> dst in the container */
	DRV_MOUNT_TMPFS,	/* empty memory-backed dir at dst (src unused) */
};

struct drv_mount {
	enum drv_mount_type type;
	char *src;		/* canonical host path (bind only) */
	char *dst;		/* absolute path in the container */
	bool ro;
	char *opts;		/* extra options for the runtime ("z"), or NULL */
	uint64_t tmpfs_size;	/* tmpfs only: bytes, 0 = the runtime's default */
	unsigned tmpfs_mode;	/* tmpfs only: permission bits (01777), 0 = default */
};

struct drv_spec {
	char *name;		/* container name: lazaret-<profile>-<H> */
	char *image;
	char *network;		/* "none" or "container:lazaret-net-<H>" */
	char *workdir;		/* usually /workspace */
	char **env;		/* "KEY=VALUE", n_env of them */
	size_t n_env;
	struct drv_mount *mounts;
	size_t n_mounts;
	char **runtime_flags;	/* extra runsc flags ("host-uds=open") */
	size_t n_runtime_flags;
	char **labels;		/* "key=value" */
	size_t n_labels;
	/* Added for the sidecar; zero values keep the sandbox defaults. */
	char *runtime;		/* NULL = runsc (gVisor); "crun" for the sidecar */
	char **cap_add;		/* extra capabilities ("NET_ADMIN") */
	size_t n_cap_add;
	char **cmd;		/* NULL-terminated command run under the init;
				 * NULL = the init alone pauses (sandbox) */
	char **ulimits;		/* "nproc=64:64" (NULL-terminated or NULL) */
	char **cgroups;		/* host cgroup dirs the container's processes
				 * start in (NULL-terminated or NULL) */
};

enum drv_state {
	DRV_STATE_ABSENT,	/* no such container */
	DRV_STATE_RUNNING,
	DRV_STATE_STOPPED,	/* exists, not running */
};

struct drv_exec {
	const char *name;	/* container */
	char **argv;		/* command in the container; NULL = the image's shell */
	char **env;		/* "KEY=VALUE" added to the exec only */
	size_t n_env;
	const char *workdir;
	bool tty;		/* allocate a terminal (podman exec -t) */
	bool env_fd3;		/* more KEY=VALUE lines on the exec's fd 3 (never argv) */
	const char *hold;	/* in-sandbox path of lazaret-escalate: the command
				 * runs under its --hold (escalate/hold.c); NULL: not */
	unsigned uid, gid;	/* with hold: the holder runs the command as
				 * uid:gid (--user), 0: as root */
};

/* A faster way into one running container than exec_argv (the Podman
 * driver: runsc exec without podman and conmon, rexec.c); opaque. */
struct drv_direct;
struct drv_job;

struct drv_ops {
	const char *name;
	/* Create and start the container detached, with a long-running init;
	 * err->code EEXIST when a container of that name exists (left as it is). */
	int (*create)(const struct drv_spec *, lz_err_t *);
	/* create in two halves: start it (returns at once), do other work, then
	 * wait for it (create's result; frees job). A started job must be
	 * finished, also on a failure elsewhere, before the name is reused. */
	int (*create_start)(const struct drv_spec *, struct drv_job **job, lz_err_t *);
	int (*create_finish)(struct drv_job *job, lz_err_t *);
	/* Optional: whether a started job has ended (it is still to be finished). */
	bool (*create_done)(struct drv_job *job);
	/* Argv (NULL-terminated, caller frees with lz_strv_free) that runs an
	 * exec when spawned; the caller owns the process and its PTY. */
	int (*exec_argv)(const struct drv_exec *, char ***argv, lz_err_t *);
	/* Stop and remove; absent is not an error. */
	int (*remove)(const char *name, lz_err_t *);
	int (*inspect)(const char *name, enum drv_state *, lz_err_t *);
	/* Does the image exist locally? */
	int (*image_exists)(const char *image, bool *exists, lz_err_t *);
	/* Names of every container, running or not, carrying label "key=value"
	 * (*names NULL-terminated or NULL; free with lz_strv_free). */
	int (*list)(const char *label, char ***names, lz_err_t *);
	/* The host directory holding the container's writable layer (the disk
	 * watchdog measures it); caller frees. */
	int (*writable_dir)(const char *name, char **dir, lz_err_t *);
	/* The local image's id (what a rebuilt image changes); caller frees. */
	int (*image_id)(const char *image, char **id, lz_err_t *);
	/* Optional (NULL: none). Prepared once after create from what the engine
	 * wrote for the running container; NULL with *why (caller frees) when
	 * something it needs is missing, and exec_argv stays the way in. On
	 * success *why may say how sessions start (caller frees). */
	struct drv_direct *(*direct_open)(const char *name, char **why);
	/* Like exec_argv through it (ex->env_fd3 ignored): *argv to spawn and
	 * *spec, the text the process must read on its fd 3 (a pipe): the exec's
	 * whole description, secret_env's KEY=VALUE lines merged in (caller
	 * wipes and frees). The spawned process is the runtime's exec itself:
	 * signals sent to it are forwarded to the command; with ex->tty it takes
	 * the terminal on its stdin as its controlling terminal. */
	int (*direct_exec)(const struct drv_direct *, const struct drv_exec *,
	    const char *secret_env, char ***argv, char **spec, lz_err_t *);
	void (*direct_free)(struct drv_direct *);
	/* Optional: what a direct session runs ("runsc exec"), for the trace. */
	const char *(*direct_label)(const struct drv_direct *);
	/* Optional: true when direct_exec hands secret_env to the command on an
	 * inherited fd, never in its environment (a session credential is only
	 * given to sessions started that way: issue 24 item 1). */
	bool (*direct_secret_fd)(const struct drv_direct *);
};

/* The Podman driver (podman.c). */
extern const struct drv_ops podman_ops;

/* The command an exec runs in the container: ex->argv (or the image's
 * login shell), under the escalation client's --hold when ex->hold is set.
 * Caller frees with lz_strv_free. */
char **drv_exec_command(const struct drv_exec *ex);

/* Append a copy of m to sp's mounts (driver.c). */
void drv_spec_add_mount(struct drv_spec *sp, const struct drv_mount *m);
/* Append a bind mount src -> dst to sp (copies both). */
void drv_spec_add_bind(struct drv_spec *sp, const char *src, const char *dst, bool ro);
/* Free every member and the spec itself (allocated with xcalloc); NULL is a no-op. */
void drv_spec_free(struct drv_spec *);
/* Free a mount's strings and zero it (the mount itself is not freed). */
void drv_mount_clear(struct drv_mount *);

#endif
