/* config-check.c - checks of single values: names, CIDRs, container and volume
 * paths, mount modes, key names; and the error helpers every config file uses.
 *
 * Everything here runs at load time (no workspace needed), so `lazaret config
 * check` catches it; config-expand.c re-checks what token expansion can change.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-int.h"
#include "egress.h"
#include "paths.h"
#include "strv.h"
#include "suggest.h"
#include "xmalloc.h"

/* Where a config path may point inside the container: never over what Lazaret
 * mounts itself, nor the kernel's filesystems. */
static const char *const reserved_container[] = {
	"/workspace", "/run/lazaret", "/usr/local/bin/lazaret-escalate", "/proc", "/sys",
	"/dev", NULL,
};


/* ---- small helpers ---- */

/* s made safe for a message: control bytes as \xNN, cut at max bytes. */
char *
cfg_esc(const char *s, size_t max)
{
	size_t n = strlen(s), i, o = 0;
	char *r = xmalloc((n < max ? n : max) * 4 + 4);

	for (i = 0; i < n && i < max; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b < 0x20 || b == 0x7f)
			o += (size_t)sprintf(r + o, "\\x%02x", b);
		else
			r[o++] = (char)b;
	}
	if (i < n) {
		memcpy(r + o, "...", 3);
		o += 3;
	}
	r[o] = '\0';
	return r;
}

int
cfg_ctx_fail(const struct cfg_ctx *c, int line, const char *key, const char *fmt, ...)
{
	va_list ap;
	_cleanup_free_ char *m = NULL;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	return lz_err_set(c->err, LZ_EINVAL, "%s:%d: %s: %s", c->file, line,
	    *key ? key : "(top level)", m);
}

/* Prefix a lower layer's message with FILE:LINE: KEY. */
int
cfg_ctx_wrap(const struct cfg_ctx *c, int line, const char *key)
{
	return lz_err_wrap(c->err, "%s:%d: %s", c->file, line, key);
}

void
cfg_ctx_warn(const struct cfg_ctx *c, int line, const char *key, const char *msg)
{
	lz_strv_pushf(&c->cfg->warnings, "%s:%d: %s: %s", c->file, line, key, msg);
}

char *
cfg_key_join(const char *parent, const char *k)
{
	_cleanup_free_ char *e = cfg_esc(k, 64);

	return *parent == '\0' ? xstrdup(e) : xasprintf("%s.%s", parent, e);
}

/* The closest of names to s when it is close enough to be a typo. */
const char *
cfg_did_you_mean(const char *s, const char *const *names, size_t n_names)
{
	const char *best = NULL;
	size_t bd = SIZE_MAX, i, d;

	for (i = 0; i < n_names; i++) {
		d = lz_suggest_distance(s, names[i]);
		if (d < bd) {
			bd = d;
			best = names[i];
		}
	}
	if (best == NULL || bd > (strlen(best) >= 5 ? 2u : 1u))
		return NULL;
	return best;
}

bool
cfg_name_is_env(const char *s)
{
	size_t i;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; s[i] != '\0'; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return i <= CFG_NAME_MAX;
}

bool
cfg_profile_name_valid(const char *name)
{
	size_t i;

	if (name == NULL)
		return false;
	for (i = 0; name[i] != '\0'; i++) {
		char ch = name[i];

		if (i >= 32 || !((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    ch == '_' || ch == '-'))
			return false;
	}
	return i >= 2;
}

/* ---- allow_egress entries ---- */

int
cfg_egress_parse(const char *s, char **norm, lz_err_t *err)
{
	struct egress_entry e;

	*norm = NULL;
	if (egress_entry_parse(s, &e, err) < 0)
		return -1;
	*norm = egress_entry_format(&e);
	return 0;
}

int
cfg_hostport_check(const char *s, lz_err_t *err)
{
	char host[64];
	const char *port = NULL, *c;
	unsigned char a[16];
	_cleanup_free_ char *q = cfg_esc(s, 64);

	if (s[0] == '[') {
		if ((c = strchr(s, ']')) == NULL || (c[1] != '\0' && c[1] != ':') ||
		    (size_t)(c - s - 1) >= sizeof host)
			goto bad;
		memcpy(host, s + 1, (size_t)(c - s - 1));
		host[c - s - 1] = '\0';
		port = c[1] == ':' ? c + 2 : NULL;
		if (inet_pton(AF_INET6, host, a) != 1)
			goto bad;
	} else if ((c = strchr(s, ':')) != NULL && strchr(c + 1, ':') == NULL) {
		if ((size_t)(c - s) >= sizeof host)
			goto bad;
		memcpy(host, s, (size_t)(c - s));
		host[c - s] = '\0';
		port = c + 1;
		if (inet_pton(AF_INET, host, a) != 1)
			goto bad;
	} else if (inet_pton(AF_INET, s, a) != 1 && inet_pton(AF_INET6, s, a) != 1)
		goto bad;
	if (port != NULL) {
		char *end;
		unsigned long p = strtoul(port, &end, 10);

		if (*port == '\0' || *end != '\0' || p == 0 || p > 65535)
			goto bad;
	}
	return 0;
bad:
	return lz_err_set(err, LZ_EINVAL, "'%s' is not an IP address with an optional port "
	    "(10.0.2.3, 10.0.2.2:5353, [fd00::3]:53)", q);
}

/* ---- field checks ---- */

static bool
under_reserved(const char *p)
{
	size_t i, l;

	if (strcmp(p, "/") == 0)
		return true;
	for (i = 0; reserved_container[i] != NULL; i++) {
		l = strlen(reserved_container[i]);
		if (strncmp(p, reserved_container[i], l) == 0 && (p[l] == '\0' || p[l] == '/'))
			return true;
	}
	return false;
}

/* Container path: absolute, normalized, outside what Lazaret mounts itself. */
int
cfg_container_path(const struct cfg_ctx *c, int line, const char *key, const char *p,
    char **out)
{
	*out = NULL;
	if (lz_path_normalize(p, out, c->err) < 0)
		return cfg_ctx_wrap(c, line, key);
	if (under_reserved(*out)) {
		_cleanup_free_ char *q = cfg_esc(*out, 200);

		free(*out);
		*out = NULL;
		return cfg_ctx_fail(c, line, key, "'%s' is reserved (/, /workspace, /run/lazaret, "
		    "/usr/local/bin/lazaret-escalate, /proc, /sys and /dev belong to Lazaret "
		    "and the kernel)", q);
	}
	return 0;
}

/* Characters that would change the meaning of a podman -v/--mount spec. */
int
cfg_mount_chars(const struct cfg_ctx *c, int line, const char *key, const char *p)
{
	if (strpbrk(p, ":,") != NULL) {
		_cleanup_free_ char *q = cfg_esc(p, 200);

		return cfg_ctx_fail(c, line, key, "'%s': ':' and ',' are not allowed in mount paths",
		    q);
	}
	return 0;
}

/* A key name's shape: C-, M- or ^ modifiers, then one character or a word
 * (Tab, F5). The workbench's key parser (app/wb-keys.c, ncurses key codes)
 * has the last word and reports a name it does not know. */
int
cfg_check_key_name(const struct cfg_ctx *c, int line, const char *key, const char *s)
{
	_cleanup_free_ char *q = cfg_esc(s, 64);
	const char *b = s;
	size_t len;
	int caret = 0;

	for (;;) {
		if (strlen(b) > 2 && b[1] == '-' && (b[0] == 'C' || b[0] == 'M'))
			b += 2;
		else if (b[0] == '^' && b[1] != '\0' && !caret)
			b += caret = 1;
		else
			break;
	}
	len = strlen(b);
	if (strlen(s) >= CFG_KEYNAME_MAX)
		return cfg_ctx_fail(c, line, key, "'%s' is longer than %d bytes", q,
		    CFG_KEYNAME_MAX - 1);
	/* One character: ASCII, or a UTF-8 lead byte and up to 3 continuation bytes. */
	if (len == 1 && (unsigned char)b[0] < 0x80)
		return 0;
	if (len >= 2 && len <= 4 && (unsigned char)b[0] >= 0xc0) {
		size_t i;

		for (i = 1; i < len && ((unsigned char)b[i] & 0xc0) == 0x80; i++)
			;
		if (i == len)
			return 0;
	}
	if (len >= 2 && strspn(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789") == len)
		return 0;
	return cfg_ctx_fail(c, line, key, "'%s' is not a key name: use a character, C-x, M-x or "
	    "a key name like Tab or F1", q);
}

/* Placeholder values: load-time checks of a templated path's shape. */
static const struct lz_path_tokens placeholder_tokens = {
	"p0", "/p", "000000000000", "/d", "/w",
};

/* Checks of a volume path at load time; the real values come at resolve. */
int
cfg_check_volume_path(const struct cfg_ctx *c, int line, const char *key, const char *s,
    bool host)
{
	_cleanup_free_ char *tilde = NULL, *exp = NULL, *q = cfg_esc(s, 200);

	if (*s == '\0')
		return cfg_ctx_fail(c, line, key, "empty path");
	if (cfg_mount_chars(c, line, key, s) < 0)
		return -1;
	if (lz_path_tokens_check(s, c->err) < 0)
		return cfg_ctx_wrap(c, line, key);
	if (lz_path_has_dotdot(s))
		return cfg_ctx_fail(c, line, key, "'%s': '..' path segment refused (path traversal)", q);
	if (host && lz_path_expand_tilde(s, &tilde, c->err) < 0)
		return cfg_ctx_wrap(c, line, key);
	if (lz_path_expand_tokens(tilde ? tilde : s, &placeholder_tokens, &exp, c->err) < 0)
		return cfg_ctx_wrap(c, line, key);
	if (exp[0] != '/')
		return cfg_ctx_fail(c, line, key, "'%s' is not an absolute path (start it with '/'%s, "
		    "{profile_dir}, {domain_dir} or {workspace_dir})", q, host ? ", '~/'" : "");
	return 0;
}

int
cfg_check_mode(const struct cfg_ctx *c, int line, const char *key, const char *m)
{
	static const char *const opts[] = { "ro", "rw", "z", "Z" };
	unsigned seen = 0, bit;
	const char *s = m;
	size_t i, l;
	_cleanup_free_ char *q = cfg_esc(m, 64);

	if (*m == '\0')
		return 0;
	for (;;) {
		l = strcspn(s, ",");
		for (i = 0; i < 4 && !(strlen(opts[i]) == l && strncmp(s, opts[i], l) == 0); i++)
			;
		if (i == 4)
			return cfg_ctx_fail(c, line, key, "'%s': options are ro, rw, z and Z, separated "
			    "by commas", q);
		bit = 1u << i;
		if (seen & bit)
			return cfg_ctx_fail(c, line, key, "'%s': '%s' given twice", q, opts[i]);
		seen |= bit;
		if (s[l] == '\0')
			break;
		s += l + 1;
	}
	if ((seen & 3) == 3)
		return cfg_ctx_fail(c, line, key, "'%s': ro and rw together", q);
	if ((seen & 12) == 12)
		return cfg_ctx_fail(c, line, key, "'%s': z and Z together", q);
	return 0;
}

/* ---- limits ---- */

int
cfg_size_parse(const char *s, uint64_t *bytes, lz_err_t *err)
{
	_cleanup_free_ char *q = cfg_esc(s, 64);
	uint64_t v = 0, mul = 1;
	size_t i, n = strlen(s);

	*bytes = 0;
	if (strcmp(s, "none") == 0)
		return 0;
	if (n > 0 && strchr("kKmMgG", s[n - 1]) != NULL) {
		mul = strchr("kK", s[n - 1]) ? 1ULL << 10 : strchr("mM", s[n - 1]) ? 1ULL << 20 :
		    1ULL << 30;
		n--;
	}
	if (n == 0 || n > 15)
		goto bad;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > (UINT64_MAX >> 1) / mul)
		return lz_err_set(err, LZ_EINVAL, "'%s' is too large", q);
	*bytes = v * mul;
	return 0;
bad:
	return lz_err_set(err, LZ_EINVAL, "'%s' is not a size: write a number with k, m or g "
	    "(4g, 512m) or none", q);
}

int
cfg_cpus_parse(const char *s, long *milli, lz_err_t *err)
{
	_cleanup_free_ char *q = cfg_esc(s, 64);
	const char *dot = strchr(s, '.');
	size_t i, n = dot ? (size_t)(dot - s) : strlen(s), f = dot ? strlen(dot + 1) : 0;
	long v = 0, frac = 0;

	*milli = 0;
	if (strcmp(s, "none") == 0)
		return 0;
	if (n == 0 || n > 4 || (dot && (f == 0 || f > 3)))
		goto bad;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		v = v * 10 + (s[i] - '0');
	}
	for (i = 0; i < 3; i++) {
		if (i < f && (dot[1 + i] < '0' || dot[1 + i] > '9'))
			goto bad;
		frac = frac * 10 + (i < f ? dot[1 + i] - '0' : 0);
	}
	*milli = v * 1000 + frac;
	return 0;
bad:
	return lz_err_set(err, LZ_EINVAL, "'%s' is not a CPU count: write 2, 0.5 or none", q);
}

char *
cfg_size_text(uint64_t b)
{
	if (b == 0)
		return xstrdup("none");
	if (b % (1ULL << 30) == 0)
		return xasprintf("%llug", (unsigned long long)(b >> 30));
	if (b % (1ULL << 20) == 0)
		return xasprintf("%llum", (unsigned long long)(b >> 20));
	if (b % (1ULL << 10) == 0)
		return xasprintf("%lluk", (unsigned long long)(b >> 10));
	return xasprintf("%llu", (unsigned long long)b);
}

char *
cfg_cpus_text(long milli)
{
	if (milli <= 0)
		return xstrdup("none");
	if (milli % 1000 == 0)
		return xasprintf("%ld", milli / 1000);
	return xasprintf("%ld.%03ld", milli / 1000, milli % 1000);
}
