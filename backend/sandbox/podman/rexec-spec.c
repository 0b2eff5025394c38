/* rexec-spec.c - config.json's process -> the process JSON of one exec
 * (rexec-spec.h). Follows what podman 4.3's prepareProcessExec and
 * setProcessCapabilitiesExec do to the container's process for `podman
 * exec` without --user or --privileged, so both ways in give a session the
 * same credentials. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "surface-json.h"
#include "sandbox/podman/rexec-spec.h"
#include "strv.h"
#include "xmalloc.h"

/* process members an exec sets itself rather than copying. */
static const char *const rexec_own[] = {
	"args", "env", "cwd", "terminal", "consoleSize", "commandLine", "capabilities",
};

static bool
rexec_is_own(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof rexec_own / sizeof rexec_own[0]; i++)
		if (strcmp(key, rexec_own[i]) == 0)
			return true;
	return false;
}

/* "KEY=VALUE" with a non-empty key. */
static bool
rexec_env_ok(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq != NULL && eq != e;
}

/* process.user.uid: a whole number, at most 2^32-1. */
static int
rexec_uid(const char *user, uint32_t *uid, lz_err_t *err)
{
	struct surface_json js = { 0 };
	int64_t n;
	int ret = -1;

	if (user == NULL || user[0] != '{')
		return lz_err_set(err, LZ_EINVAL, "process.user is missing");
	if (surface_json_parse((const uint8_t *)user, strlen(user), &js, err) < 0)
		return lz_err_wrap(err, "process.user");
	if (surface_json_int(surface_json_get(&js, "uid", NULL), 0, UINT32_MAX, &n, err) < 0) {
		lz_err_wrap(err, "process.user.uid");
		goto out;
	}
	*uid = (uint32_t)n;
	ret = 0;
out:
	surface_json_clear(&js);
	return ret;
}

/* One capability set: an array of strings, kept as its canonical text. */
static int
rexec_cap_set(const struct surface_json *js, const char *name, char **out, lz_err_t *err)
{
	const char *v = surface_json_get(js, name, NULL);
	char **names = NULL;

	*out = NULL;
	if (v == NULL)
		return 0;
	if (surface_json_strings(v, &names, err) < 0)
		return lz_err_wrap(err, "process.capabilities.%s", name);
	lz_strv_free(names);
	*out = xstrdup(v);
	return 0;
}

static int
rexec_caps(const char *caps, struct rexec_spec *o, lz_err_t *err)
{
	struct surface_json js = { 0 };
	int ret = -1;

	if (caps == NULL || caps[0] != '{')
		return lz_err_set(err, LZ_EINVAL, "process.capabilities is missing");
	if (surface_json_parse((const uint8_t *)caps, strlen(caps), &js, err) < 0)
		return lz_err_wrap(err, "process.capabilities");
	if (rexec_cap_set(&js, "bounding", &o->cap_bounding, err) < 0 ||
	    rexec_cap_set(&js, "effective", &o->cap_effective, err) < 0 ||
	    rexec_cap_set(&js, "ambient", &o->cap_ambient, err) < 0)
		goto out;
	if (o->cap_bounding == NULL) {
		lz_err_set(err, LZ_EINVAL, "process.capabilities.bounding is missing");
		goto out;
	}
	ret = 0;
out:
	surface_json_clear(&js);
	return ret;
}

int
rexec_spec_parse(const uint8_t *buf, size_t len, struct rexec_spec *o, lz_err_t *err)
{
	struct surface_json js = { 0 };
	const char *v;
	size_t i;
	int ret = -1;

	memset(o, 0, sizeof *o);
	if (len > REXEC_CONFIG_MAX)
		return lz_err_set(err, LZ_EINVAL, "config.json of %zu bytes is over the limit of %u",
		    len, REXEC_CONFIG_MAX);
	if (surface_json_parse(buf, len, &js, err) < 0)
		return lz_err_wrap(err, "config.json");
	v = surface_json_get(&js, "process", NULL);
	if (v == NULL || v[0] != '{') {
		lz_err_set(err, LZ_EINVAL, "config.json: no process object");
		goto out;
	}
	v = surface_json_get(&js, "process", "env");
	if (v == NULL || surface_json_strings(v, &o->env, err) < 0) {
		if (v == NULL)
			lz_err_set(err, LZ_EINVAL, "process.env is missing");
		lz_err_wrap(err, "config.json");
		goto out;
	}
	for (i = 0; o->env[i] != NULL; i++)
		if (!rexec_env_ok(o->env[i])) {
			lz_err_set(err, LZ_EINVAL, "config.json: process.env entry '%s' is not KEY=VALUE",
			    o->env[i]);
			goto out;
		}
	if (rexec_uid(surface_json_get(&js, "process", "user"), &o->uid, err) < 0 ||
	    rexec_caps(surface_json_get(&js, "process", "capabilities"), o, err) < 0) {
		lz_err_wrap(err, "config.json");
		goto out;
	}
	for (i = 0; i < js.n; i++) {
		const struct surface_jkv *e = &js.kv[i];

		if (strcmp(e->top, "process") != 0 || e->sub == NULL ||
		    (rexec_is_own(e->sub) && strcmp(e->sub, "cwd") != 0))
			continue;
		lz_strv_push(&o->keys, e->sub);
		lz_strv_push(&o->vals, e->val);
		o->n++;
	}
	ret = 0;
out:
	surface_json_clear(&js);
	if (ret < 0)
		rexec_spec_clear(o);
	return ret;
}

void
rexec_spec_clear(struct rexec_spec *o)
{
	lz_strv_free(o->keys);
	lz_strv_free(o->vals);
	lz_strv_free(o->env);
	free(o->cap_bounding);
	free(o->cap_effective);
	free(o->cap_ambient);
	memset(o, 0, sizeof *o);
}

/* Set e (KEY=VALUE) in *env: replace the entry of the same name, or append. */
static void
rexec_env_set(char ***env, const char *e)
{
	size_t klen = (size_t)(strchr(e, '=') - e) + 1, i;

	for (i = 0; (*env)[i] != NULL; i++)
		if (strncmp((*env)[i], e, klen) == 0) {
			explicit_bzero((*env)[i], strlen((*env)[i]));
			free((*env)[i]);
			(*env)[i] = xstrdup(e);
			return;
		}
	lz_strv_push(env, e);
}

/* The exec's environment; secret-bearing copies are wiped by the caller. */
static int
rexec_env(const struct rexec_spec *s, const struct rexec_proc *p, char ***out, lz_err_t *err)
{
	char **env = lz_strv_dup(s->env), *lines = NULL, *line, *save = NULL;
	size_t i;

	for (i = 0; p->env != NULL && p->env[i] != NULL; i++) {
		if (!rexec_env_ok(p->env[i])) {
			lz_err_set(err, LZ_EINVAL, "environment entry '%s' is not KEY=VALUE", p->env[i]);
			goto fail;
		}
		rexec_env_set(&env, p->env[i]);
	}
	if (p->env_lines != NULL) {
		/* podman's --env-file rules: blank lines and # comments are skipped */
		lines = xstrdup(p->env_lines);
		for (line = strtok_r(lines, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
			if (line[0] == '#' || line[0] == '\0')
				continue;
			if (!rexec_env_ok(line)) {
				lz_err_set(err, LZ_EINVAL, "a session environment line is not KEY=VALUE");
				goto fail;
			}
			rexec_env_set(&env, line);
		}
		explicit_bzero(lines, strlen(p->env_lines));
		free(lines);
	}
	*out = env;
	return 0;
fail:
	if (lines != NULL) {
		explicit_bzero(lines, strlen(p->env_lines));
		free(lines);
	}
	for (i = 0; env[i] != NULL; i++)
		explicit_bzero(env[i], strlen(env[i]));
	lz_strv_free(env);
	return -1;
}

static void
rexec_strs(struct lz_jsonw *w, const char *key, const char *const *v)
{
	size_t i;

	lz_jsonw_key(w, key);
	lz_jsonw_arr_open(w);
	for (i = 0; v != NULL && v[i] != NULL; i++)
		lz_jsonw_str(w, v[i]);
	lz_jsonw_arr_close(w);
}

static void
rexec_cap(struct lz_jsonw *w, const char *key, const char *set)
{
	if (set == NULL)
		return;
	lz_jsonw_key(w, key);
	lz_jsonw_raw(w, set);
}

int
rexec_spec_process(const struct rexec_spec *s, const struct rexec_proc *p, char **json,
    lz_err_t *err)
{
	struct lz_jsonw w;
	char **env = NULL;
	size_t i;

	*json = NULL;
	if (p->args == NULL || p->args[0] == NULL)
		return lz_err_set(err, LZ_EINVAL, "no command to run");
	if (p->cwd != NULL && p->cwd[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "working directory '%s' is not absolute", p->cwd);
	if (rexec_env(s, p, &env, err) < 0)
		return -1;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	for (i = 0; i < s->n; i++) {
		if (p->cwd != NULL && strcmp(s->keys[i], "cwd") == 0)
			continue;
		lz_jsonw_key(&w, s->keys[i]);
		lz_jsonw_raw(&w, s->vals[i]);
	}
	rexec_strs(&w, "args", p->args);
	rexec_strs(&w, "env", (const char *const *)env);
	if (p->cwd != NULL) {
		lz_jsonw_key(&w, "cwd");
		lz_jsonw_str(&w, p->cwd);
	}
	lz_jsonw_key(&w, "terminal");
	lz_jsonw_bool(&w, p->terminal);
	lz_jsonw_key(&w, "capabilities");
	lz_jsonw_obj_open(&w);
	rexec_cap(&w, "bounding", s->cap_bounding);
	/* inheritable is always emptied, as the kernel does for root */
	if (s->uid == 0) {
		rexec_cap(&w, "effective", s->cap_bounding);
		rexec_cap(&w, "permitted", s->cap_bounding);
		rexec_cap(&w, "inheritable", "[]");
		rexec_cap(&w, "ambient", s->cap_ambient);
	} else {
		const char *eff = s->cap_effective != NULL ? s->cap_effective : "[]";

		rexec_cap(&w, "effective", eff);
		rexec_cap(&w, "permitted", eff);
		rexec_cap(&w, "inheritable", eff);
		rexec_cap(&w, "ambient", eff);
	}
	lz_jsonw_obj_close(&w);
	lz_jsonw_obj_close(&w);
	for (i = 0; env[i] != NULL; i++)
		explicit_bzero(env[i], strlen(env[i]));
	lz_strv_free(env);
	if (w.len > REXEC_SPEC_MAX) {
		size_t n = w.len;

		explicit_bzero(w.buf, w.len);
		lz_jsonw_free(&w);
		return lz_err_set(err, E2BIG, "the exec's process description of %zu bytes is over "
		    "the limit of %u", n, REXEC_SPEC_MAX);
	}
	*json = lz_jsonw_steal(&w);
	return 0;
}
