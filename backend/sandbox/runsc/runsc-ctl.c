/* runsc-ctl.c - runsc's control calls as JSON text (runsc-ctl.h). The shape
 * is what runsc 0.0~20221219.0 (Debian 12) sends, read off its socket:
 *   {"method":"containerManager.ExecuteAsync","arg":{"filename":"",
 *    "argv":[...],"envv":[...],"MountNamespace":null,"wd":"/workspace",
 *    "KUID":0,"KGID":0,"ExtraKGIDs":[],"Capabilities":{"PermittedCaps":N,
 *    "InheritableCaps":N,"EffectiveCaps":N,"BoundingCaps":N,"AmbientCaps":N},
 *    "StdioIsPty":false,"ContainerID":"ID","PIDNamespace":null,"Limits":null}}
 * and the reply {"success":true,"err":"","result":PID}. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "jsonw.h"
#include "surface-json.h"
#include "sandbox/runsc/runsc-ctl.h"
#include "strv.h"
#include "xmalloc.h"

#define RUNSC_CTL_PROC_MAX	(64u << 10)	/* bytes of process JSON (rexec-spec.h) */
#define RUNSC_CTL_GIDS_MAX	65536u

/* Versions whose calls were read off the socket and pass tests/integ/test-rexec.sh. */
static const char *const runsc_ctl_versions[] = {
	"0.0~20221219.0",
};

/* Linux capability numbers (linux/capability.h), as gVisor names them. */
static const char *const runsc_ctl_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
	"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
	"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
	"CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};
#define RUNSC_CTL_NET_RAW	13

bool
runsc_ctl_known(const char *line)
{
	static const char prefix[] = "runsc version ";
	size_t i;

	if (line == NULL || strncmp(line, prefix, sizeof prefix - 1) != 0)
		return false;
	line += sizeof prefix - 1;
	for (i = 0; i < sizeof runsc_ctl_versions / sizeof runsc_ctl_versions[0]; i++)
		if (strcmp(line, runsc_ctl_versions[i]) == 0)
			return true;
	return false;
}

/* A capability set (array of names) as bits, CAP_NET_RAW left out as runsc
 * does without --net-raw; an absent set is empty. */
static int
runsc_ctl_capset(const struct surface_json *js, const char *name, uint64_t *bits, lz_err_t *err)
{
	const char *v = surface_json_get(js, "capabilities", name);
	char **names = NULL;
	size_t i, c;
	int ret = -1;

	*bits = 0;
	if (v == NULL)
		return 0;
	if (surface_json_strings(v, &names, err) < 0)
		return lz_err_wrap(err, "capabilities.%s", name);
	for (i = 0; names[i] != NULL; i++) {
		for (c = 0; c < sizeof runsc_ctl_caps / sizeof runsc_ctl_caps[0]; c++)
			if (strcmp(names[i], runsc_ctl_caps[c]) == 0)
				break;
		if (c == sizeof runsc_ctl_caps / sizeof runsc_ctl_caps[0]) {
			lz_err_set(err, LZ_EINVAL, "capabilities.%s: unknown capability '%.64s'",
			    name, names[i]);
			goto out;
		}
		if (c != RUNSC_CTL_NET_RAW)
			*bits |= UINT64_C(1) << c;
	}
	ret = 0;
out:
	lz_strv_free(names);
	return ret;
}

/* user.additionalGids: an array of gids, canonical ("[1,2]"). */
static int
runsc_ctl_gids(const char *v, struct lz_jsonw *w, lz_err_t *err)
{
	_cleanup_free_ char *copy = NULL;
	char *tok, *save = NULL;
	size_t n = 0, len;
	int64_t g;

	lz_jsonw_arr_open(w);
	if (v != NULL) {
		len = strlen(v);
		if (len < 2 || v[0] != '[' || v[len - 1] != ']')
			return lz_err_set(err, LZ_EINVAL, "user.additionalGids is not an array");
		copy = xstrndup(v + 1, len - 2);
		for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
			if (surface_json_int(tok, 0, UINT32_MAX, &g, err) < 0)
				return lz_err_wrap(err, "user.additionalGids");
			if (++n > RUNSC_CTL_GIDS_MAX)
				return lz_err_set(err, LZ_EINVAL, "user.additionalGids: over %u",
				    RUNSC_CTL_GIDS_MAX);
			lz_jsonw_int(w, g);
		}
	}
	lz_jsonw_arr_close(w);
	return 0;
}

static int
runsc_ctl_strs(const struct surface_json *js, const char *key, bool need,
    struct runsc_ctl_take *take, struct lz_jsonw *w, lz_err_t *err)
{
	const char *v = surface_json_get(js, key, NULL);
	size_t i, nl = take != NULL ? strlen(take->name) : 0;
	char **s = NULL;

	if (v == NULL)
		return lz_err_set(err, LZ_EINVAL, "process.%s is missing", key);
	if (surface_json_strings(v, &s, err) < 0)
		return lz_err_wrap(err, "process.%s", key);
	if (need && s[0] == NULL) {
		lz_strv_free(s);
		return lz_err_set(err, LZ_EINVAL, "process.%s is empty", key);
	}
	lz_jsonw_arr_open(w);
	for (i = 0; s[i] != NULL; i++) {
		if (take != NULL && strncmp(s[i], take->name, nl) == 0 && s[i][nl] == '=') {
			/* moved out: the last one wins, as in an environment */
			if (take->value != NULL)
				explicit_bzero(take->value, strlen(take->value));
			free(take->value);
			take->value = xstrdup(s[i] + nl + 1);
		} else {
			lz_jsonw_str(w, s[i]);
		}
		explicit_bzero(s[i], strlen(s[i]));
	}
	if (take != NULL && take->value != NULL && take->put != NULL)
		lz_jsonw_str(w, take->put);
	lz_jsonw_arr_close(w);
	lz_strv_free(s);
	return 0;
}

/* {"method":METHOD,"arg":{ ... }}: the arg's members go between. */
static void
runsc_ctl_begin(struct lz_jsonw *w, const char *method)
{
	lz_jsonw_init(w);
	lz_jsonw_obj_open(w);
	lz_jsonw_key(w, "method");
	lz_jsonw_str(w, method);
	lz_jsonw_key(w, "arg");
	lz_jsonw_obj_open(w);
}

static char *
runsc_ctl_end(struct lz_jsonw *w)
{
	lz_jsonw_obj_close(w);
	lz_jsonw_obj_close(w);
	return lz_jsonw_steal(w);
}

int
runsc_ctl_exec_msg(const uint8_t *proc, size_t len, const char *cid, struct runsc_ctl_take *take,
    char **msg, bool *tty, lz_err_t *err)
{
	static const char *const sets[] = { "permitted", "inheritable", "effective", "bounding",
		"ambient" };
	static const char *const keys[] = { "PermittedCaps", "InheritableCaps", "EffectiveCaps",
		"BoundingCaps", "AmbientCaps" };
	struct surface_json js = { 0 };
	_cleanup_free_ char *cwd = NULL;
	struct lz_jsonw w;
	const char *v;
	uint64_t caps[5];
	int64_t uid, gid;
	size_t i;
	int ret = -1;

	*msg = NULL;
	*tty = false;
	if (take != NULL)
		take->value = NULL;
	lz_jsonw_init(&w);
	if (len > RUNSC_CTL_PROC_MAX) {
		lz_err_set(err, LZ_EINVAL, "process JSON of %zu bytes is over the limit of %u", len,
		    RUNSC_CTL_PROC_MAX);
		goto out;
	}
	if (surface_json_parse(proc, len, &js, err) < 0) {
		lz_err_wrap(err, "process JSON");
		goto out;
	}
	/* runsc exec's own checks (validateProcessSpec) */
	if (surface_json_string(surface_json_get(&js, "cwd", NULL), "process.cwd", &cwd, err) < 0)
		goto out;
	if (cwd[0] != '/') {
		lz_err_set(err, LZ_EINVAL, "process.cwd '%.200s' is not absolute", cwd);
		goto out;
	}
	v = surface_json_get(&js, "terminal", NULL);
	if (v != NULL && strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
		lz_err_set(err, LZ_EINVAL, "process.terminal is not true or false");
		goto out;
	}
	*tty = v != NULL && strcmp(v, "true") == 0;
	if (surface_json_int(surface_json_get(&js, "user", "uid"), 0, UINT32_MAX, &uid, err) < 0 ||
	    surface_json_int(surface_json_get(&js, "user", "gid"), 0, UINT32_MAX, &gid, err) < 0) {
		lz_err_wrap(err, "process.user");
		goto out;
	}
	for (i = 0; i < 5; i++)
		if (runsc_ctl_capset(&js, sets[i], &caps[i], err) < 0) {
			lz_err_wrap(err, "process");
			goto out;
		}
	lz_jsonw_free(&w);
	runsc_ctl_begin(&w, "containerManager.ExecuteAsync");
	lz_jsonw_key(&w, "filename");
	lz_jsonw_str(&w, "");
	lz_jsonw_key(&w, "argv");
	if (runsc_ctl_strs(&js, "args", true, NULL, &w, err) < 0)
		goto out;
	lz_jsonw_key(&w, "envv");
	if (runsc_ctl_strs(&js, "env", false, take, &w, err) < 0)
		goto out;
	lz_jsonw_key(&w, "MountNamespace");
	lz_jsonw_null(&w);
	lz_jsonw_key(&w, "wd");
	lz_jsonw_str(&w, cwd);
	lz_jsonw_key(&w, "KUID");
	lz_jsonw_int(&w, uid);
	lz_jsonw_key(&w, "KGID");
	lz_jsonw_int(&w, gid);
	lz_jsonw_key(&w, "ExtraKGIDs");
	if (runsc_ctl_gids(surface_json_get(&js, "user", "additionalGids"), &w, err) < 0)
		goto out;
	lz_jsonw_key(&w, "Capabilities");
	lz_jsonw_obj_open(&w);
	for (i = 0; i < 5; i++) {
		lz_jsonw_key(&w, keys[i]);
		lz_jsonw_int(&w, (int64_t)caps[i]);
	}
	lz_jsonw_obj_close(&w);
	lz_jsonw_key(&w, "StdioIsPty");
	lz_jsonw_bool(&w, *tty);
	lz_jsonw_key(&w, "ContainerID");
	lz_jsonw_str(&w, cid);
	lz_jsonw_key(&w, "PIDNamespace");
	lz_jsonw_null(&w);
	lz_jsonw_key(&w, "Limits");
	lz_jsonw_null(&w);
	*msg = runsc_ctl_end(&w);
	ret = 0;
out:
	if (ret < 0)
		runsc_ctl_take_clear(take);
	if (w.buf != NULL)
		explicit_bzero(w.buf, w.len);
	lz_jsonw_free(&w);
	/* the environment may hold the session secret */
	for (i = 0; i < js.n; i++)
		explicit_bzero(js.kv[i].val, strlen(js.kv[i].val));
	surface_json_clear(&js);
	return ret;
}

void
runsc_ctl_take_clear(struct runsc_ctl_take *take)
{
	if (take == NULL || take->value == NULL)
		return;
	explicit_bzero(take->value, strlen(take->value));
	free(take->value);
	take->value = NULL;
}

char *
runsc_ctl_wait_msg(const char *cid, int32_t pid)
{
	struct lz_jsonw w;

	runsc_ctl_begin(&w, "containerManager.WaitPID");
	lz_jsonw_key(&w, "PID");
	lz_jsonw_int(&w, pid);
	lz_jsonw_key(&w, "CID");
	lz_jsonw_str(&w, cid);
	return runsc_ctl_end(&w);
}

char *
runsc_ctl_signal_msg(const char *cid, int32_t pid, int signo, bool fg)
{
	struct lz_jsonw w;

	runsc_ctl_begin(&w, "containerManager.Signal");
	lz_jsonw_key(&w, "CID");
	lz_jsonw_str(&w, cid);
	lz_jsonw_key(&w, "Signo");
	lz_jsonw_int(&w, signo);
	lz_jsonw_key(&w, "PID");
	lz_jsonw_int(&w, pid);
	/* gVisor's SignalDeliveryMode: 0 the process, 2 its terminal's foreground group */
	lz_jsonw_key(&w, "Mode");
	lz_jsonw_int(&w, fg ? 2 : 0);
	return runsc_ctl_end(&w);
}

size_t
runsc_ctl_reply_end(const char *buf, size_t len)
{
	size_t i = 0, depth = 0;
	bool str = false, esc = false;

	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	if (i == len || buf[i] != '{')
		return 0;
	for (; i < len; i++) {
		char c = buf[i];

		if (str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
			continue;
		}
		if (c == '"')
			str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth > 0 && --depth == 0)
			return i + 1;
	}
	return 0;
}

int
runsc_ctl_reply(const char *buf, size_t len, char **result, lz_err_t *err)
{
	struct surface_json js = { 0 };
	_cleanup_free_ char *why = NULL;
	const char *ok, *res;
	int ret = -1;

	*result = NULL;
	if (len > RUNSC_CTL_REPLY_MAX)
		return lz_err_set(err, LZ_EINVAL, "a reply of %zu bytes is over the limit of %u",
		    len, RUNSC_CTL_REPLY_MAX);
	if (surface_json_parse((const uint8_t *)buf, len, &js, err) < 0)
		return lz_err_wrap(err, "malformed reply from the sandbox");
	ok = surface_json_get(&js, "success", NULL);
	res = surface_json_get(&js, "result", NULL);
	if (ok == NULL || (strcmp(ok, "true") != 0 && strcmp(ok, "false") != 0)) {
		lz_err_set(err, LZ_EINVAL, "a reply from the sandbox without \"success\"");
		goto out;
	}
	if (strcmp(ok, "false") == 0) {
		if (surface_json_string(surface_json_get(&js, "err", NULL), "err", &why, NULL) < 0 ||
		    why[0] == '\0')
			lz_err_set(err, LZ_EINVAL, "the sandbox refused without saying why");
		else
			lz_err_set(err, EPERM, "%.1000s", why);
		goto out;
	}
	if (res == NULL) {
		lz_err_set(err, LZ_EINVAL, "a reply from the sandbox without \"result\"");
		goto out;
	}
	*result = xstrdup(res);
	ret = 0;
out:
	surface_json_clear(&js);
	return ret;
}

int
runsc_ctl_state(const uint8_t *buf, size_t len, char **sandbox_id, int64_t *pid, lz_err_t *err)
{
	struct surface_json js = { 0 };
	int ret = -1;

	*sandbox_id = NULL;
	if (len > RUNSC_CTL_STATE_MAX)
		return lz_err_set(err, LZ_EINVAL, "state of %zu bytes is over the limit of %u", len,
		    RUNSC_CTL_STATE_MAX);
	if (surface_json_parse(buf, len, &js, err) < 0)
		return -1;
	if (surface_json_string(surface_json_get(&js, "sandbox", "id"), "sandbox.id", sandbox_id,
	    err) < 0 ||
	    surface_json_int(surface_json_get(&js, "sandbox", "pid"), 1, INT32_MAX, pid, err) < 0)
		goto out;
	/* it names an abstract socket: 1-64 of [0-9A-Za-z_.-] */
	if ((*sandbox_id)[0] == '\0' || strlen(*sandbox_id) > 64 ||
	    (*sandbox_id)[strspn(*sandbox_id, "0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "ghijklmnopqrstuvwxyz_.-")] != '\0') {
		lz_err_set(err, LZ_EINVAL, "sandbox.id '%.80s' is not a container id", *sandbox_id);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0) {
		free(*sandbox_id);
		*sandbox_id = NULL;
	}
	surface_json_clear(&js);
	return ret;
}

int
runsc_ctl_exit_code(uint32_t status)
{
	int st = (int)status;

	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 128;
}

int
runsc_ctl_refused_code(const char *why)
{
	if (why != NULL && (strstr(why, "no such file or directory") != NULL ||
	    strstr(why, "not found") != NULL))
		return 127;
	return 126;
}
