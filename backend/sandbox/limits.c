/* limits.c - cgroup v1 delegation, the disk watchdog's measurements (see
 * limits.h for what was measured and why this mechanism). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/limits.h"
#include "strv.h"
#include "xmalloc.h"

static const char *const limits_ctl_name[LIMITS_N_CTL] = { "memory", "pids", "cpu" };

void
limits_host_probe(struct limits_host *h)
{
	int i;

	memset(h, 0, sizeof *h);
	for (i = 0; i < LIMITS_N_CTL; i++) {
		char *d = xasprintf("/sys/fs/cgroup/%s/lazaret/%u", limits_ctl_name[i],
		    (unsigned)getuid());
		struct stat st;

		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
		    access(d, W_OK) == 0)
			h->dir[i] = d;
		else
			free(d);
	}
}

void
limits_host_clear(struct limits_host *h)
{
	int i;

	for (i = 0; i < LIMITS_N_CTL; i++) {
		free(h->dir[i]);
		h->dir[i] = NULL;
	}
}

char *
limits_unenforced(const struct limits_host *h, const struct cfg_limits *l)
{
	char *s = NULL, *t;
	const char *what[3] = { NULL, NULL, NULL };
	int n = 0, i;

	if (l->memory > 0 && h->dir[LIMITS_MEMORY] == NULL)
		what[n++] = "memory (only /tmp is bounded)";
	if (l->cpus_milli > 0 && h->dir[LIMITS_CPU] == NULL)
		what[n++] = "cpus";
	if (l->pids > 0 && h->dir[LIMITS_PIDS] == NULL)
		what[n++] = "the host-side task backstop of pids (gVisor's own limit holds)";
	if (n == 0)
		return NULL;
	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s%s", s ? s : "", i == 0 ? "" : i + 1 == n ? " and " : ", ",
		    what[i]);
		free(s);
		s = t;
	}
	t = xasprintf("limits not enforced on this host: %s: no cgroup delegated to uid %u "
	    "(/sys/fs/cgroup/<controller>/lazaret/%u); run: sudo scripts/setup-host", s,
	    (unsigned)getuid(), (unsigned)getuid());
	free(s);
	return t;
}

long
limits_host_tasks(long pids)
{
	/* Measured (runsc 20221219, ptrace platform): an idle sandbox holds ~95
	 * host tasks, 10/30/60 sleeping guest processes 208/429/815; a fork loop
	 * at pids 64 peaked at 680-1350 (ash, bash retrying EAGAIN), and at 1280
	 * bash's loop stopped the sandbox. gVisor's own limit (EAGAIN, the
	 * sandbox lives) must bite well below this. */
	long n = pids * LIMITS_HOST_TASKS_PER_PROC + LIMITS_HOST_TASKS_BASE;

	if (n < 1024)
		n = 1024;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long pid_max = 32768;

	if (f != NULL) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	/* never more than a quarter of the host's PIDs */
	return n > pid_max / 4 ? pid_max / 4 : n;
}

static int
limits_write(const char *dir, const char *file, const char *val, lz_err_t *err)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, file);
	_cleanup_close_ int fd = open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t n = strlen(val);

	if (fd < 0 || write(fd, val, n) != (ssize_t)n)
		return lz_err_sys(err, errno, "cannot write %s to %s", val, p);
	return 0;
}

/* A number from a cgroup file: the value after key (key NULL: the first). */
static long
limits_read(const char *dir, const char *file, const char *key)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, file);
	char buf[4096], *s;
	_cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;
	size_t kl;

	if (fd < 0 || (n = read(fd, buf, sizeof buf - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	if (key == NULL)
		return strtol(buf, NULL, 10);
	kl = strlen(key);
	for (s = buf; s != NULL && *s != '\0'; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (strncmp(s, key, kl) == 0 && s[kl] == ' ')
			return strtol(s + kl + 1, NULL, 10);
	return -1;
}

long
limits_domain_read(const struct limits_domain *d, enum limits_ctl ctl, const char *file,
    const char *key)
{
	return d->dir[ctl] != NULL ? limits_read(d->dir[ctl], file, key) : -1;
}

int
limits_domain_setup(const struct limits_host *h, const char *hash,
    const struct cfg_limits *l, struct limits_domain *d, lz_err_t *err)
{
	char v[64];
	int i;

	memset(d, 0, sizeof *d);
	for (i = 0; i < LIMITS_N_CTL; i++) {
		bool want = (i == LIMITS_MEMORY && l->memory > 0) ||
		    (i == LIMITS_PIDS && l->pids > 0) || (i == LIMITS_CPU && l->cpus_milli > 0);

		if (h->dir[i] == NULL || !want)
			continue;
		d->dir[i] = xasprintf("%s/%s", h->dir[i], hash);
		/* Left by a sandbox that is gone (its tasks died with it): reuse. */
		if (mkdir(d->dir[i], 0755) < 0 && errno != EEXIST) {
			lz_err_sys(err, errno, "cannot create cgroup %s", d->dir[i]);
			goto fail;
		}
		switch ((enum limits_ctl)i) {
		case LIMITS_MEMORY:
			snprintf(v, sizeof v, "%llu", (unsigned long long)l->memory);
			if (limits_write(d->dir[i], "memory.limit_in_bytes", v, err) < 0)
				goto fail;
			/* Not past the limit through swap either (when swap is accounted). */
			{
				_cleanup_free_ char *sw = xasprintf("%s/memory.memsw.limit_in_bytes",
				    d->dir[i]);

				if (access(sw, W_OK) == 0 &&
				    limits_write(d->dir[i], "memory.memsw.limit_in_bytes", v, err) < 0)
					goto fail;
			}
			d->oom_kills = limits_read(d->dir[i], "memory.oom_control", "oom_kill");
			break;
		case LIMITS_PIDS:
			snprintf(v, sizeof v, "%ld", limits_host_tasks(l->pids));
			if (limits_write(d->dir[i], "pids.max", v, err) < 0)
				goto fail;
			d->pids_max_hits = limits_read(d->dir[i], "pids.events", "max");
			break;
		case LIMITS_CPU:
			if (limits_write(d->dir[i], "cpu.cfs_period_us", "100000", err) < 0)
				goto fail;
			snprintf(v, sizeof v, "%ld", l->cpus_milli * 100);
			if (limits_write(d->dir[i], "cpu.cfs_quota_us", v, err) < 0)
				goto fail;
			break;
		case LIMITS_N_CTL:
			break;
		}
	}
	return 0;
fail:
	limits_domain_release(d);
	return -1;
}

char **
limits_domain_cgroups(const struct limits_domain *d)
{
	char **v = NULL;
	int i;

	for (i = 0; i < LIMITS_N_CTL; i++)
		if (d->dir[i] != NULL)
			lz_strv_push(&v, d->dir[i]);
	return v;
}

void
limits_domain_release(struct limits_domain *d)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i, tries;

	for (i = 0; i < LIMITS_N_CTL; i++) {
		/* Exited tasks stay listed until reaped (conmon, orphaned ptrace stubs
		 * under a slow init): wait a little, never long. */
		for (tries = 0; d->dir[i] != NULL && rmdir(d->dir[i]) < 0 && errno == EBUSY &&
		    tries < 40; tries++)
			nanosleep(&ts, NULL);
		free(d->dir[i]);
		d->dir[i] = NULL;
	}
}

void
limits_domain_remove(const struct limits_host *h, const char *hash)
{
	struct limits_domain d;
	int i;

	memset(&d, 0, sizeof d);
	for (i = 0; i < LIMITS_N_CTL; i++)
		if (h->dir[i] != NULL)
			d.dir[i] = xasprintf("%s/%s", h->dir[i], hash);
	limits_domain_release(&d);
}

/* Register efd with the memory cgroup's cgroup.event_control for file
 * (args: what follows the two fds, "" or a threshold). */
static int
limits_event_register(const char *dir, int efd, const char *file, const char *args,
    lz_err_t *err)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, file);
	_cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char line[96];

	if (fd < 0)
		return lz_err_sys(err, errno, "cannot open %s", p);
	snprintf(line, sizeof line, "%d %d%s%s", efd, fd, args[0] != '\0' ? " " : "", args);
	/* The kernel holds the eventfd, not fd: closing fd after this is fine. */
	return limits_write(dir, "cgroup.event_control", line, err);
}

int
limits_domain_eventfd(const struct limits_domain *d, uint64_t limit, uint64_t step,
    lz_err_t *err)
{
	const char *dir = d->dir[LIMITS_MEMORY];
	int efd, n = 0;
	uint64_t at;
	char v[32];

	if (dir == NULL)
		return lz_err_set(err, LZ_EINVAL, "no memory cgroup");
	if ((efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		return lz_err_sys(err, errno, "eventfd");
	if (limits_event_register(dir, efd, "memory.oom_control", "", err) < 0)
		goto fail;
	for (at = step; step > 0 && at < limit && n < LIMITS_RUNGS_MAX; at += step, n++) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)at);
		if (limits_event_register(dir, efd, "memory.usage_in_bytes", v, err) < 0)
			goto fail;
	}
	return efd;
fail:
	close(efd);
	return -1;
}

bool
limits_domain_oom(struct limits_domain *d)
{
	long n;

	if (d->dir[LIMITS_MEMORY] == NULL)
		return false;
	n = limits_read(d->dir[LIMITS_MEMORY], "memory.oom_control", "oom_kill");
	if (n <= d->oom_kills)
		return false;
	d->oom_kills = n;
	return true;
}

bool
limits_domain_pids_hit(struct limits_domain *d)
{
	long n;

	if (d->dir[LIMITS_PIDS] == NULL)
		return false;
	n = limits_read(d->dir[LIMITS_PIDS], "pids.events", "max");
	if (n <= d->pids_max_hits)
		return false;
	d->pids_max_hits = n;
	return true;
}
