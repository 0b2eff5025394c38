/* driver.c - what every driver and its callers share around struct drv_spec
 * (driver.h): building and freeing a spec, its mounts, and the command a
 * session runs. Nothing here knows a driver's syntax: podman.c alone writes
 * podman's options. */
#include <stdlib.h>
#include <string.h>

#include "sandbox/driver.h"
#include "strv.h"
#include "xmalloc.h"

char **
drv_exec_command(const struct drv_exec *ex)
{
	char **v = NULL;
	size_t i;

	if (ex->hold != NULL) {
		lz_strv_push(&v, ex->hold);
		lz_strv_push(&v, "--hold");
		if (ex->uid != 0)
			lz_strv_pushf(&v, "--user=%u:%u", ex->uid, ex->gid);
		lz_strv_push(&v, "--");
	}
	if (ex->argv == NULL || ex->argv[0] == NULL) {
		/* the image's login shell: bash when it has one (runs inside the sandbox) */
		lz_strv_push(&v, "/bin/sh");
		lz_strv_push(&v, "-c");
		lz_strv_push(&v, "if [ -x /bin/bash ]; then exec /bin/bash -l; fi; exec /bin/sh -l");
	} else {
		for (i = 0; ex->argv[i] != NULL; i++)
			lz_strv_push(&v, ex->argv[i]);
	}
	return v;
}

void
drv_spec_add_bind(struct drv_spec *sp, const char *src, const char *dst, bool ro)
{
	struct drv_mount m = { .type = DRV_MOUNT_BIND, .src = (char *)src, .dst = (char *)dst,
	    .ro = ro };

	drv_spec_add_mount(sp, &m);
}

void
drv_mount_clear(struct drv_mount *m)
{
	if (m == NULL)
		return;
	free(m->src);
	free(m->dst);
	free(m->opts);
	memset(m, 0, sizeof *m);
}

static void
drv_strs_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
drv_spec_free(struct drv_spec *s)
{
	size_t i;

	if (s == NULL)
		return;
	free(s->name);
	free(s->image);
	free(s->network);
	free(s->workdir);
	drv_strs_free(s->env, s->n_env);
	for (i = 0; i < s->n_mounts; i++)
		drv_mount_clear(&s->mounts[i]);
	free(s->mounts);
	drv_strs_free(s->runtime_flags, s->n_runtime_flags);
	drv_strs_free(s->labels, s->n_labels);
	free(s->runtime);
	drv_strs_free(s->cap_add, s->n_cap_add);
	lz_strv_free(s->cmd);
	lz_strv_free(s->ulimits);
	lz_strv_free(s->cgroups);
	free(s);
}

/* Append a copy of m to sp's mounts. */
void
drv_spec_add_mount(struct drv_spec *sp, const struct drv_mount *m)
{
	struct drv_mount *d;

	sp->mounts = xreallocarray(sp->mounts, sp->n_mounts + 1, sizeof *sp->mounts);
	d = &sp->mounts[sp->n_mounts++];
	*d = *m;
	d->src = m->src != NULL ? xstrdup(m->src) : NULL;
	d->dst = xstrdup(m->dst);
	d->opts = m->opts != NULL ? xstrdup(m->opts) : NULL;
}
