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

#include "config-int.h"
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

/* ---- CIDRs ---- */

int
cfg_cidr_parse(const char *s, char **norm, lz_err_t *err)
{
	unsigned char addr[16], net[16];
	char abuf[64], out[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/'), *pl;
	bool v6 = strchr(s, ':') != NULL;
	int af = v6 ? AF_INET6 : AF_INET, bits = v6 ? 128 : 32, prefix = 0;
	size_t alen, i;
	_cleanup_free_ char *q = cfg_esc(s, 64);

	*norm = NULL;
	if (slash == NULL)
		return lz_err_set(err, LZ_EINVAL, "'%s': missing prefix length; did you mean "
		    "'%s/%d'?", q, q, bits);
	alen = (size_t)(slash - s);
	if (alen == 0 || alen >= sizeof abuf)
		return lz_err_set(err, LZ_EINVAL, "'%s' is not an IPv%d address with a prefix "
		    "length", q, v6 ? 6 : 4);
	memcpy(abuf, s, alen);
	abuf[alen] = '\0';
	if (inet_pton(af, abuf, addr) != 1)
		return lz_err_set(err, LZ_EINVAL, "'%s': '%s' is not an IPv%d address", q,
		    abuf, v6 ? 6 : 4);
	pl = slash + 1;
	if (pl[0] == '\0' || strlen(pl) > 3 || (pl[0] == '0' && pl[1] != '\0'))
		goto bad_prefix;
	for (i = 0; pl[i] != '\0'; i++) {
		if (pl[i] < '0' || pl[i] > '9')
			goto bad_prefix;
		prefix = prefix * 10 + (pl[i] - '0');
	}
	if (prefix > bits)
		goto bad_prefix;
	memcpy(net, addr, sizeof net);
	for (i = 0; i < (size_t)bits / 8; i++) {
		int keep = prefix - (int)i * 8;

		if (keep <= 0)
			net[i] = 0;
		else if (keep < 8)
			net[i] &= (unsigned char)(0xff << (8 - keep));
	}
	inet_ntop(af, net, out, sizeof out);
	if (memcmp(net, addr, (size_t)bits / 8) != 0)
		return lz_err_set(err, LZ_EINVAL, "'%s': host bits set; did you mean '%s/%d'?", q,
		    out, prefix);
	*norm = xasprintf("%s/%d", out, prefix);
	return 0;
bad_prefix:
	return lz_err_set(err, LZ_EINVAL, "'%s': prefix length must be a number from 0 to %d",
	    q, bits);
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
