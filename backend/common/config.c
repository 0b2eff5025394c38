/* config.c - load, validate, resolve and print the YAML configuration.
 *
 * Theory of operation: libyaml's event parser feeds a small tree of scalars,
 * sequences and mappings (with line numbers), built under hard caps (file
 * size, depth, node count) and refusing anchors, aliases, tags and a second
 * document. A schema walk over that tree then fills struct cfg, failing on the
 * first problem with "FILE:LINE: KEY: what is wrong". Everything that does not
 * depend on a workspace is checked at load time, so `lazaret config check`
 * catches it; cfg_profile_resolve() only expands and canonicalizes.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "suggest.h"
#include "paths.h"
#include "policy.h"
#include "strv.h"
#include "xmalloc.h"

#define CFG_FILE_MAX	(1 << 20)	/* bytes in a config file */
#define CFG_STR_MAX	4096		/* bytes in one string */
#define CFG_LIST_MAX	256		/* entries in one list or mapping */
#define CFG_DEPTH_MAX	32		/* nesting of sequences and mappings */
#define CFG_NODES_MAX	100000		/* nodes in one document */
#define CFG_NAME_MAX	256		/* bytes in an env variable name */
#define CFG_HOSTENV_MAX	131072		/* bytes pulled from one host variable */

const char cfg_default_yaml[] =
    "# Lazaret embedded default configuration, used when no config file exists.\n"
    "# Copy it to ~/.config/lazaret/config.yaml to change it (docs/config.md).\n"
    "escalation:\n"
    "  enabled: true\n"
    "profiles:\n"
    "  default:\n"
    "    image: localhost/lazaret-default:latest\n";

enum node_kind { NODE_SCALAR, NODE_SEQ, NODE_MAP };

/* A parsed YAML node. A mapping's kids alternate key, value. */
struct node {
	enum node_kind kind;
	int line;
	bool plain;		/* plain (unquoted) scalar: null and booleans */
	char *str;		/* scalar bytes, NUL-terminated */
	size_t len;		/* scalar length (an embedded NUL makes strlen shorter) */
	struct node **kids;
	size_t n_kids, cap;
};

struct ctx {
	const char *file;
	lz_err_t *err;
	struct cfg *cfg;
};

/* Where a config path may point inside the container: never over what Lazaret
 * mounts itself, nor the kernel's filesystems. */
static const char *const reserved_container[] = {
	"/workspace", "/run/lazaret", "/usr/local/bin/lazaret-escalate", "/proc", "/sys",
	"/dev", NULL,
};

/* ---- small helpers ---- */

/* s made safe for a message: control bytes as \xNN, cut at max bytes. */
static char *
esc(const char *s, size_t max)
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

static int __attribute__((format(printf, 4, 5)))
ctx_fail(const struct ctx *c, int line, const char *key, const char *fmt, ...)
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
static int
ctx_wrap(const struct ctx *c, int line, const char *key)
{
	return lz_err_wrap(c->err, "%s:%d: %s", c->file, line, key);
}

static void
ctx_warn(const struct ctx *c, int line, const char *key, const char *msg)
{
	lz_strv_pushf(&c->cfg->warnings, "%s:%d: %s: %s", c->file, line, key, msg);
}

static char *
key_join(const char *parent, const char *k)
{
	_cleanup_free_ char *e = esc(k, 64);

	return *parent == '\0' ? xstrdup(e) : xasprintf("%s.%s", parent, e);
}

/* The closest of names to s when it is close enough to be a typo. */
static const char *
did_you_mean(const char *s, const char *const *names, size_t n_names)
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

static bool
name_is_env(const char *s)
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
	_cleanup_free_ char *q = esc(s, 64);

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

/* ---- tree from libyaml events ---- */

static void
node_free(struct node *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->n_kids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

static void
node_add(struct node *parent, struct node *kid)
{
	if (parent->n_kids == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 8;
		parent->kids = xreallocarray(parent->kids, parent->cap, sizeof *parent->kids);
	}
	parent->kids[parent->n_kids++] = kid;
}

static int
syntax_error(const struct ctx *c, const yaml_parser_t *p)
{
	const char *prob = p->problem ? p->problem : "unknown error";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return lz_err_set(c->err, ENOMEM, "%s: out of memory parsing YAML", c->file);
	case YAML_READER_ERROR:
		return lz_err_set(c->err, LZ_EINVAL, "%s: invalid input at byte %zu: %s",
		    c->file, p->problem_offset, prob);
	case YAML_NO_ERROR:
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
	case YAML_COMPOSER_ERROR:
	case YAML_WRITER_ERROR:
	case YAML_EMITTER_ERROR:
		break;
	}
	if (p->context != NULL)
		return lz_err_set(c->err, LZ_EINVAL, "%s:%zu:%zu: YAML syntax error: %s (%s on "
		    "line %zu)", c->file, p->problem_mark.line + 1, p->problem_mark.column + 1,
		    prob, p->context, p->context_mark.line + 1);
	return lz_err_set(c->err, LZ_EINVAL, "%s:%zu:%zu: YAML syntax error: %s", c->file,
	    p->problem_mark.line + 1, p->problem_mark.column + 1, prob);
}

/* The refusals that apply to every node: anchors (billion laughs) and tags. */
static int
check_props(const struct ctx *c, int line, const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor != NULL) {
		_cleanup_free_ char *a = esc((const char *)anchor, 64);

		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: YAML anchors (&%s) and aliases are "
		    "not supported: write the value out", c->file, line, a);
	}
	if (tag != NULL) {
		_cleanup_free_ char *t = esc((const char *)tag, 64);

		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: YAML tags (%s) are not supported: "
		    "quote the value instead", c->file, line, t);
	}
	return 0;
}

static int
tree_build(const struct ctx *c, const char *buf, size_t len, struct node **out)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct node *stack[CFG_DEPTH_MAX], *root = NULL, *nd;
	size_t depth = 0, nodes = 0;
	int ndocs = 0, ret = -1, line, bad;
	bool done = false;

	*out = NULL;
	if (!yaml_parser_initialize(&p))
		return lz_err_set(c->err, ENOMEM, "%s: cannot initialize the YAML parser", c->file);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(c, &p);
			goto out;
		}
		line = (int)ev.start_mark.line + 1;
		nd = NULL;
		bad = 0;
		switch (ev.type) {
		case YAML_NO_EVENT:
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1)
				bad = lz_err_set(c->err, LZ_EINVAL, "%s:%d: a second YAML document "
				    "('---'): the configuration is one document", c->file, line);
			break;
		case YAML_ALIAS_EVENT:
			bad = check_props(c, line, ev.data.alias.anchor, NULL);
			break;
		case YAML_SCALAR_EVENT:
			if ((bad = check_props(c, line, ev.data.scalar.anchor, ev.data.scalar.tag)))
				break;
			nd = xcalloc(1, sizeof *nd);
			nd->kind = NODE_SCALAR;
			nd->len = ev.data.scalar.length;
			nd->str = xmalloc(nd->len + 1);
			memcpy(nd->str, ev.data.scalar.value, nd->len);
			nd->str[nd->len] = '\0';
			nd->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if ((bad = check_props(c, line, ev.data.sequence_start.anchor,
			    ev.data.sequence_start.tag)))
				break;
			nd = xcalloc(1, sizeof *nd);
			nd->kind = NODE_SEQ;
			break;
		case YAML_MAPPING_START_EVENT:
			if ((bad = check_props(c, line, ev.data.mapping_start.anchor,
			    ev.data.mapping_start.tag)))
				break;
			nd = xcalloc(1, sizeof *nd);
			nd->kind = NODE_MAP;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			LZ_ASSERT(depth > 0);
			depth--;
			break;
		}
		yaml_event_delete(&ev);
		if (bad)
			goto out;
		if (nd == NULL)
			continue;
		nd->line = line;
		if (depth == 0) {
			LZ_ASSERT(root == NULL);
			root = nd;
		} else
			node_add(stack[depth - 1], nd);
		if (++nodes > CFG_NODES_MAX) {
			lz_err_set(c->err, LZ_EINVAL, "%s:%d: more than %d YAML nodes", c->file, line,
			    CFG_NODES_MAX);
			goto out;
		}
		if (nd->kind != NODE_SCALAR) {
			if (depth == CFG_DEPTH_MAX) {
				lz_err_set(c->err, LZ_EINVAL, "%s:%d: nested deeper than %d levels",
				    c->file, line, CFG_DEPTH_MAX);
				goto out;
			}
			stack[depth++] = nd;
		}
	}
	*out = lz_steal_ptr(&root);
	ret = 0;
out:
	node_free(root);
	yaml_parser_delete(&p);
	return ret;
}

/* ---- typed access with FILE:LINE: KEY errors ---- */

static bool
node_is_null(const struct node *n)
{
	return n->kind == NODE_SCALAR && n->plain && (n->len == 0 || strcmp(n->str, "~") == 0 ||
	    strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	    strcmp(n->str, "NULL") == 0);
}

static const char *
node_what(const struct node *n)
{
	switch (n->kind) {
	case NODE_SCALAR:
		return node_is_null(n) ? "null" : "a string";
	case NODE_SEQ:
		return "a sequence";
	case NODE_MAP:
		return "a mapping";
	}
	return "?";
}

#define STR_MULTILINE	1	/* newline and tab allowed (env values) */

/* Borrow a scalar's string, checked: not null, no NUL, capped, no control bytes. */
static int
get_str(const struct ctx *c, const struct node *n, const char *key, int flags,
    const char **out)
{
	size_t i;

	if (n->kind != NODE_SCALAR || node_is_null(n))
		return ctx_fail(c, n->line, key, "expected a string, got %s%s", node_what(n),
		    node_is_null(n) ? " (quote it if you mean the text)" : "");
	if (n->len > CFG_STR_MAX)
		return ctx_fail(c, n->line, key, "longer than %d bytes", CFG_STR_MAX);
	if (strlen(n->str) != n->len)
		return ctx_fail(c, n->line, key, "contains a NUL byte");
	for (i = 0; i < n->len; i++) {
		unsigned char b = (unsigned char)n->str[i];

		if ((b < 0x20 || b == 0x7f) &&
		    !((flags & STR_MULTILINE) && (b == '\n' || b == '\t')))
			return ctx_fail(c, n->line, key, "control character 0x%02x not allowed", b);
	}
	*out = n->str;
	return 0;
}

static int
get_bool(const struct ctx *c, const struct node *n, const char *key, bool *out)
{
	static const char *const t[] = { "true", "True", "TRUE" }, *const f[] = { "false",
	    "False", "FALSE" };
	size_t i;

	for (i = 0; n->kind == NODE_SCALAR && n->plain && i < 3; i++) {
		if (strcmp(n->str, t[i]) == 0 || strcmp(n->str, f[i]) == 0) {
			*out = n->str[0] == 't' || n->str[0] == 'T';
			return 0;
		}
	}
	if (n->kind == NODE_SCALAR && !node_is_null(n)) {
		_cleanup_free_ char *q = esc(n->str, 64);

		return ctx_fail(c, n->line, key, "expected true or false, got '%s'", q);
	}
	return ctx_fail(c, n->line, key, "expected true or false, got %s", node_what(n));
}

/* A plain decimal integer in lo..hi ("120"; not "1e3", "0x10" nor quoted). */
static int
get_int(const struct ctx *c, const struct node *n, const char *key, long lo, long hi,
    int *out)
{
	_cleanup_free_ char *q = NULL;
	const char *d;
	char *end;
	long v;

	if (n->kind != NODE_SCALAR || node_is_null(n))
		return ctx_fail(c, n->line, key, "expected an integer, got %s", node_what(n));
	q = esc(n->str, 64);
	d = n->str + (n->str[0] == '-' || n->str[0] == '+');
	if (!n->plain || *d == '\0' || strspn(d, "0123456789") != strlen(d) ||
	    strlen(n->str) != n->len)
		return ctx_fail(c, n->line, key, "expected an integer, got '%s'", q);
	errno = 0;
	v = strtol(n->str, &end, 10);
	if (errno != 0 || v < lo || v > hi)
		return ctx_fail(c, n->line, key, "%s is out of range: expected %ld..%ld", q, lo,
		    hi);
	*out = (int)v;
	return 0;
}

static int
get_seq(const struct ctx *c, const struct node *n, const char *key)
{
	if (n->kind != NODE_SEQ)
		return ctx_fail(c, n->line, key, "expected a sequence, got %s%s", node_what(n),
		    node_is_null(n) ? " (write [] for an empty list)" : "");
	if (n->n_kids > CFG_LIST_MAX)
		return ctx_fail(c, n->kids[CFG_LIST_MAX]->line, key, "more than %d entries",
		    CFG_LIST_MAX);
	return 0;
}

/* A mapping with string keys, no duplicates and (when allowed != NULL) only
 * the allowed keys. */
static int
get_map(const struct ctx *c, const struct node *n, const char *key,
    const char *const *allowed)
{
	size_t i, j, n_allowed = 0;
	const char *k;

	if (n->kind != NODE_MAP)
		return ctx_fail(c, n->line, key, "expected a mapping, got %s", node_what(n));
	if (n->n_kids / 2 > CFG_LIST_MAX)
		return ctx_fail(c, n->kids[2 * CFG_LIST_MAX]->line, key, "more than %d entries",
		    CFG_LIST_MAX);
	while (allowed != NULL && allowed[n_allowed] != NULL)
		n_allowed++;
	for (i = 0; i < n->n_kids; i += 2) {
		const struct node *kn = n->kids[i];
		_cleanup_free_ char *sub = NULL;

		if (kn->kind != NODE_SCALAR || node_is_null(kn))
			return ctx_fail(c, kn->line, key, "keys must be strings, got %s",
			    node_what(kn));
		if (get_str(c, kn, key, 0, &k) < 0)
			return -1;
		sub = key_join(key, k);
		for (j = 0; j < i; j += 2)
			if (strcmp(n->kids[j]->str, k) == 0)
				return ctx_fail(c, kn->line, sub, "duplicate key (first on line %d)",
				    n->kids[j]->line);
		if (allowed == NULL)
			continue;
		for (j = 0; j < n_allowed && strcmp(allowed[j], k) != 0; j++)
			;
		if (j == n_allowed) {
			const char *m = did_you_mean(k, allowed, n_allowed);

			if (m != NULL)
				return ctx_fail(c, kn->line, sub, "unknown key; did you mean '%s'?", m);
			return ctx_fail(c, kn->line, sub, "unknown key");
		}
	}
	return 0;
}

static const struct node *
map_get(const struct node *n, const char *k)
{
	size_t i;

	for (i = 0; i < n->n_kids; i += 2)
		if (strcmp(n->kids[i]->str, k) == 0)
			return n->kids[i + 1];
	return NULL;
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
static int
container_path(const struct ctx *c, int line, const char *key, const char *p, char **out)
{
	*out = NULL;
	if (lz_path_normalize(p, out, c->err) < 0)
		return ctx_wrap(c, line, key);
	if (under_reserved(*out)) {
		_cleanup_free_ char *q = esc(*out, 200);

		free(*out);
		*out = NULL;
		return ctx_fail(c, line, key, "'%s' is reserved (/, /workspace, /run/lazaret, "
		    "/usr/local/bin/lazaret-escalate, /proc, /sys and /dev belong to Lazaret "
		    "and the kernel)", q);
	}
	return 0;
}

/* Characters that would change the meaning of a podman -v/--mount spec. */
static int
mount_chars(const struct ctx *c, int line, const char *key, const char *p)
{
	if (strpbrk(p, ":,") != NULL) {
		_cleanup_free_ char *q = esc(p, 200);

		return ctx_fail(c, line, key, "'%s': ':' and ',' are not allowed in mount paths",
		    q);
	}
	return 0;
}

static int
load_cidrs(const struct ctx *c, const struct node *n, const char *key, char ***out,
    size_t *n_out)
{
	size_t i;
	const char *s;

	if (get_seq(c, n, key) < 0)
		return -1;
	for (i = 0; i < n->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i), *norm = NULL;

		if (get_str(c, n->kids[i], sub, 0, &s) < 0)
			return -1;
		if (cfg_cidr_parse(s, &norm, c->err) < 0)
			return ctx_wrap(c, n->kids[i]->line, sub);
		if (strcmp(norm, "0.0.0.0/0") == 0 || strcmp(norm, "::/0") == 0)
			ctx_warn(c, n->kids[i]->line, sub, "allows egress to every address");
		lz_strv_push(out, norm);
		(*n_out)++;
	}
	return 0;
}

static int
load_data_root(const struct ctx *c, const struct node *n)
{
	_cleanup_free_ char *dflt = NULL, *tilde = NULL;
	const char *s;
	int line = n ? n->line : 1;

	if (n == NULL) {
		if (lz_path_xdg("XDG_DATA_HOME", ".local/share", &tilde, c->err) < 0)
			return ctx_wrap(c, line, "data_root (default)");
		dflt = xasprintf("%s/lazaret", tilde);
		s = dflt;
	} else {
		if (get_str(c, n, "data_root", 0, &s) < 0)
			return -1;
		if (strchr(s, '{') != NULL)
			return ctx_fail(c, line, "data_root", "tokens are not allowed here: data_root "
			    "is what {profile_dir} and {domain_dir} are built from");
	}
	free(tilde);
	tilde = NULL;
	if (lz_path_expand_tilde(s, &tilde, c->err) < 0 ||
	    lz_path_canon(tilde, &c->cfg->data_root, c->err) < 0)
		return ctx_wrap(c, line, n ? "data_root" : "data_root (default)");
	c->cfg->data_root_line = line;
	return 0;
}

static int
load_socket_dir(const struct ctx *c, const struct node *n)
{
	_cleanup_free_ char *dflt = NULL, *tilde = NULL;
	const char *s, *rt = getenv("XDG_RUNTIME_DIR");
	int line = n ? n->line : 1;

	if (n == NULL) {
		if (rt != NULL && rt[0] == '/' && strlen(rt) < LZ_PATH_MAX)
			dflt = xasprintf("%s/lazaret", rt);
		else
			dflt = xasprintf("/tmp/lazaret-%u", (unsigned)getuid());
		s = dflt;
	} else {
		if (get_str(c, n, "escalation.socket_dir", 0, &s) < 0)
			return -1;
		if (strchr(s, '{') != NULL)
			return ctx_fail(c, line, "escalation.socket_dir", "tokens are not allowed "
			    "here (one socket directory serves every profile)");
	}
	/* Not symlink-resolved: the socket code lstat()s it and refuses a symlink. */
	if (lz_path_expand_tilde(s, &tilde, c->err) < 0 ||
	    lz_path_normalize(tilde, &c->cfg->esc_socket_dir, c->err) < 0)
		return ctx_wrap(c, line, n ? "escalation.socket_dir" : "escalation.socket_dir "
		    "(default)");
	return 0;
}

static int
load_escalation(const struct ctx *c, const struct node *n)
{
	static const char *const keys[] = { "enabled", "socket_dir", "auto_approve", "timeout",
	    NULL };
	const struct node *v;
	const char *s;
	size_t i;

	c->cfg->esc_enabled = true;
	c->cfg->esc_timeout = CFG_ESC_TIMEOUT_DEFAULT;
	if (n != NULL && get_map(c, n, "escalation", keys) < 0)
		return -1;
	if (n != NULL && (v = map_get(n, "enabled")) != NULL &&
	    get_bool(c, v, "escalation.enabled", &c->cfg->esc_enabled) < 0)
		return -1;
	if (n != NULL && (v = map_get(n, "timeout")) != NULL &&
	    get_int(c, v, "escalation.timeout", 1, CFG_ESC_TIMEOUT_MAX, &c->cfg->esc_timeout) < 0)
		return -1;
	if (load_socket_dir(c, n ? map_get(n, "socket_dir") : NULL) < 0)
		return -1;
	if (n == NULL || (v = map_get(n, "auto_approve")) == NULL)
		return 0;
	if (get_seq(c, v, "escalation.auto_approve") < 0)
		return -1;
	for (i = 0; i < v->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("escalation.auto_approve[%zu]", i);

		if (get_str(c, v->kids[i], sub, 0, &s) < 0)
			return -1;
		if (s[strspn(s, " \t")] == '\0')
			return ctx_fail(c, v->kids[i]->line, sub, "empty command");
		/* policy check: see policy.h (banned executables, metacharacters) */
		if (policy_entry_validate(s, c->err) < 0)
			return ctx_wrap(c, v->kids[i]->line, sub);
		lz_strv_push(&c->cfg->esc_auto_approve, s);
		c->cfg->n_esc_auto_approve++;
	}
	return 0;
}

/* A key name's shape: C-, M- or ^ modifiers, then one character or a word
 * (Tab, F5). The workbench's key parser (app/wb-keys.c, ncurses key codes)
 * has the last word and reports a name it does not know. */
static int
check_key_name(const struct ctx *c, int line, const char *key, const char *s)
{
	_cleanup_free_ char *q = esc(s, 64);
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
		return ctx_fail(c, line, key, "'%s' is longer than %d bytes", q,
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
	return ctx_fail(c, line, key, "'%s' is not a key name: use a character, C-x, M-x or "
	    "a key name like Tab or F1", q);
}

static int
load_workbench(const struct ctx *c, const struct node *n)
{
	static const char *const keys[] = { "theme", "prefix", NULL };
	const struct node *v;
	const char *s;

	if (n == NULL)
		return 0;
	if (get_map(c, n, "workbench", keys) < 0)
		return -1;
	if ((v = map_get(n, "theme")) != NULL) {
		if (get_str(c, v, "workbench.theme", 0, &s) < 0)
			return -1;
		if (*s == '\0')
			return ctx_fail(c, v->line, "workbench.theme", "empty: write a theme name "
			    "(default, light, high-contrast) or a file");
		if (strchr(s, '{') != NULL)
			return ctx_fail(c, v->line, "workbench.theme", "tokens are not allowed here "
			    "(the theme is not tied to a profile)");
		if (lz_path_expand_tilde(s, &c->cfg->wb_theme, c->err) < 0)
			return ctx_wrap(c, v->line, "workbench.theme");
		c->cfg->wb_theme_line = v->line;
	}
	if ((v = map_get(n, "prefix")) != NULL) {
		if (get_str(c, v, "workbench.prefix", 0, &s) < 0 ||
		    check_key_name(c, v->line, "workbench.prefix", s) < 0)
			return -1;
		c->cfg->wb_prefix = xstrdup(s);
		c->cfg->wb_prefix_line = v->line;
	}
	return 0;
}

static int
load_image(const struct ctx *c, const struct node *n, const char *key, char **out)
{
	const char *s;
	size_t i;

	if (get_str(c, n, key, 0, &s) < 0)
		return -1;
	if (*s == '\0')
		return ctx_fail(c, n->line, key, "empty image name");
	/* Never an option to podman: the image is one argv entry after "--". */
	if (!isalnum((unsigned char)s[0]))
		return ctx_fail(c, n->line, key, "an image reference starts with a letter or digit");
	for (i = 0; s[i] != '\0'; i++) {
		if (!isalnum((unsigned char)s[i]) && strchr("._-/:@", s[i]) == NULL) {
			_cleanup_free_ char *q = esc(s, 200);

			return ctx_fail(c, n->line, key, "'%s': character '%c' is not allowed in an "
			    "image reference", q, s[i]);
		}
	}
	*out = xstrdup(s);
	return 0;
}

static int
load_persistent(const struct ctx *c, const struct node *n, const char *key,
    struct cfg_profile *p)
{
	size_t i, j;
	const char *s;
	char *norm;

	if (get_seq(c, n, key) < 0)
		return -1;
	for (i = 0; i < n->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i);
		int line = n->kids[i]->line;

		if (get_str(c, n->kids[i], sub, 0, &s) < 0)
			return -1;
		if (strchr(s, '{') != NULL)
			return ctx_fail(c, line, sub, "tokens are not allowed in persistent_dirs");
		if (mount_chars(c, line, sub, s) < 0 || container_path(c, line, sub, s, &norm) < 0)
			return -1;
		for (j = 0; j < p->n_persistent_dirs; j++) {
			if (strcmp(p->persistent_dirs[j], norm) == 0) {
				free(norm);
				return ctx_fail(c, line, sub, "'%s' is listed twice",
				    p->persistent_dirs[j]);
			}
		}
		lz_strv_push(&p->persistent_dirs, norm);
		free(norm);
		p->n_persistent_dirs++;
	}
	return 0;
}

static int
load_env(const struct ctx *c, const struct node *n, const char *key, struct cfg_profile *p)
{
	size_t i;
	const char *k, *v;

	if (get_map(c, n, key, NULL) < 0)
		return -1;
	p->env = xcalloc(n->n_kids / 2 + 1, sizeof *p->env);
	for (i = 0; i < n->n_kids; i += 2) {
		const struct node *kn = n->kids[i], *vn = n->kids[i + 1];
		_cleanup_free_ char *sub = NULL, *q = NULL;

		k = kn->str;
		if (!name_is_env(k)) {
			q = esc(k, 64);
			return ctx_fail(c, kn->line, key, "invalid variable name '%s': must match "
			    "^[A-Za-z_][A-Za-z0-9_]*$", q);
		}
		sub = key_join(key, k);
		if (strncmp(k, "LAZARET_", 8) == 0)
			return ctx_fail(c, kn->line, sub, "names starting with LAZARET_ are reserved "
			    "for Lazaret itself");
		if (get_str(c, vn, sub, STR_MULTILINE, &v) < 0)
			return -1;
		if (strncmp(v, "env:", 4) == 0) {
			if (!name_is_env(v + 4)) {
				q = esc(v, 64);
				return ctx_fail(c, vn->line, sub, "'%s': after 'env:' comes a host "
				    "variable name matching ^[A-Za-z_][A-Za-z0-9_]*$", q);
			}
		} else if (lz_path_tokens_check(v, c->err) < 0)
			return ctx_wrap(c, vn->line, sub);
		p->env[p->n_env].name = xstrdup(k);
		p->env[p->n_env].value = xstrdup(v);
		p->env[p->n_env].line = kn->line;
		p->n_env++;
	}
	return 0;
}

/* Placeholder values: load-time checks of a templated path's shape. */
static const struct lz_path_tokens placeholder_tokens = {
	"p0", "/p", "000000000000", "/d", "/w",
};

/* Checks of a volume path at load time; the real values come at resolve. */
static int
check_volume_path(const struct ctx *c, int line, const char *key, const char *s, bool host)
{
	_cleanup_free_ char *tilde = NULL, *exp = NULL, *q = esc(s, 200);

	if (*s == '\0')
		return ctx_fail(c, line, key, "empty path");
	if (mount_chars(c, line, key, s) < 0)
		return -1;
	if (lz_path_tokens_check(s, c->err) < 0)
		return ctx_wrap(c, line, key);
	if (lz_path_has_dotdot(s))
		return ctx_fail(c, line, key, "'%s': '..' path segment refused (path traversal)", q);
	if (host && lz_path_expand_tilde(s, &tilde, c->err) < 0)
		return ctx_wrap(c, line, key);
	if (lz_path_expand_tokens(tilde ? tilde : s, &placeholder_tokens, &exp, c->err) < 0)
		return ctx_wrap(c, line, key);
	if (exp[0] != '/')
		return ctx_fail(c, line, key, "'%s' is not an absolute path (start it with '/'%s, "
		    "{profile_dir}, {domain_dir} or {workspace_dir})", q, host ? ", '~/'" : "");
	return 0;
}

static int
check_mode(const struct ctx *c, int line, const char *key, const char *m)
{
	static const char *const opts[] = { "ro", "rw", "z", "Z" };
	unsigned seen = 0, bit;
	const char *s = m;
	size_t i, l;
	_cleanup_free_ char *q = esc(m, 64);

	if (*m == '\0')
		return 0;
	for (;;) {
		l = strcspn(s, ",");
		for (i = 0; i < 4 && !(strlen(opts[i]) == l && strncmp(s, opts[i], l) == 0); i++)
			;
		if (i == 4)
			return ctx_fail(c, line, key, "'%s': options are ro, rw, z and Z, separated "
			    "by commas", q);
		bit = 1u << i;
		if (seen & bit)
			return ctx_fail(c, line, key, "'%s': '%s' given twice", q, opts[i]);
		seen |= bit;
		if (s[l] == '\0')
			break;
		s += l + 1;
	}
	if ((seen & 3) == 3)
		return ctx_fail(c, line, key, "'%s': ro and rw together", q);
	if ((seen & 12) == 12)
		return ctx_fail(c, line, key, "'%s': z and Z together", q);
	return 0;
}

static int
load_volumes(const struct ctx *c, const struct node *n, const char *key,
    struct cfg_profile *p)
{
	static const char *const keys[] = { "host", "container", "mode", NULL };
	size_t i;

	if (get_seq(c, n, key) < 0)
		return -1;
	p->volumes = xcalloc(n->n_kids + 1, sizeof *p->volumes);
	for (i = 0; i < n->n_kids; i++) {
		const struct node *vn = n->kids[i], *h, *ct, *m;
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i), *hk = NULL, *ck = NULL,
		    *mk = NULL;
		const char *hs, *cs, *ms = "";
		struct cfg_volume *vol = &p->volumes[p->n_volumes];

		if (get_map(c, vn, sub, keys) < 0)
			return -1;
		hk = xasprintf("%s.host", sub);
		ck = xasprintf("%s.container", sub);
		mk = xasprintf("%s.mode", sub);
		if ((h = map_get(vn, "host")) == NULL)
			return ctx_fail(c, vn->line, hk, "missing (a volume needs host and container)");
		if ((ct = map_get(vn, "container")) == NULL)
			return ctx_fail(c, vn->line, ck, "missing (a volume needs host and container)");
		if (get_str(c, h, hk, 0, &hs) < 0 || check_volume_path(c, h->line, hk, hs, true) < 0)
			return -1;
		if (get_str(c, ct, ck, 0, &cs) < 0 ||
		    check_volume_path(c, ct->line, ck, cs, false) < 0)
			return -1;
		if ((m = map_get(vn, "mode")) != NULL &&
		    (get_str(c, m, mk, 0, &ms) < 0 || check_mode(c, m->line, mk, ms) < 0))
			return -1;
		/* A literal container path can be checked fully now. */
		if (strchr(cs, '{') == NULL) {
			_cleanup_free_ char *norm = NULL;

			if (container_path(c, ct->line, ck, cs, &norm) < 0)
				return -1;
		}
		vol->host = xstrdup(hs);
		vol->container = xstrdup(cs);
		vol->mode = xstrdup(ms);
		vol->line = vn->line;
		p->n_volumes++;
	}
	return 0;
}

static int
load_profile(const struct ctx *c, const struct node *kn, const struct node *n,
    struct cfg_profile *p)
{
	static const char *const keys[] = { "image", "persistent_dirs", "allow_egress", "env",
	    "volumes", NULL };
	_cleanup_free_ char *key = NULL, *k = NULL;
	const struct node *v;

	if (!cfg_profile_name_valid(kn->str)) {
		_cleanup_free_ char *q = esc(kn->str, 64);

		return ctx_fail(c, kn->line, "profiles", "invalid profile name '%s': must match "
		    "^[a-z0-9_-]{2,32}$ (lowercase letters, digits, '_' and '-')", q);
	}
	p->name = xstrdup(kn->str);
	p->line = kn->line;
	key = xasprintf("profiles.%s", p->name);
	if (get_map(c, n, key, keys) < 0)
		return -1;
	k = xasprintf("%s.image", key);
	if ((v = map_get(n, "image")) == NULL)
		return ctx_fail(c, n->line, k, "missing (every profile names its image)");
	if (load_image(c, v, k, &p->image) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.persistent_dirs", key);
	if ((v = map_get(n, "persistent_dirs")) != NULL && load_persistent(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.allow_egress", key);
	if ((v = map_get(n, "allow_egress")) != NULL &&
	    load_cidrs(c, v, k, &p->allow_egress, &p->n_allow_egress) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.env", key);
	if ((v = map_get(n, "env")) != NULL && load_env(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.volumes", key);
	if ((v = map_get(n, "volumes")) != NULL && load_volumes(c, v, k, p) < 0)
		return -1;
	return 0;
}

static int
load_profiles(const struct ctx *c, const struct node *root, const struct node *n)
{
	size_t i;

	if (n == NULL)
		return ctx_fail(c, root->line, "profiles", "missing: define at least one profile "
		    "(see docs/config.md)");
	if (get_map(c, n, "profiles", NULL) < 0)
		return -1;
	if (n->n_kids == 0)
		return ctx_fail(c, n->line, "profiles", "empty: define at least one profile");
	c->cfg->profiles = xcalloc(n->n_kids / 2, sizeof *c->cfg->profiles);
	for (i = 0; i < n->n_kids; i += 2) {
		/* Counted first so that cfg_free() sees a half-filled profile. */
		c->cfg->n_profiles++;
		if (load_profile(c, n->kids[i], n->kids[i + 1],
		    &c->cfg->profiles[c->cfg->n_profiles - 1]) < 0)
			return -1;
	}
	return 0;
}

static int
load_tree(const struct ctx *c, const struct node *root)
{
	static const char *const keys[] = { "data_root", "allow_egress", "escalation",
	    "workbench", "profiles", NULL };
	const struct node *v;

	if (root == NULL || node_is_null(root))
		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: empty configuration: expected a "
		    "mapping with at least 'profiles'", c->file, root ? root->line : 1);
	if (root->kind != NODE_MAP)
		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: expected a mapping at the top level, "
		    "got %s", c->file, root->line, node_what(root));
	if (get_map(c, root, "", keys) < 0)
		return -1;
	if (load_data_root(c, map_get(root, "data_root")) < 0)
		return -1;
	if ((v = map_get(root, "allow_egress")) != NULL &&
	    load_cidrs(c, v, "allow_egress", &c->cfg->allow_egress, &c->cfg->n_allow_egress) < 0)
		return -1;
	if (load_escalation(c, map_get(root, "escalation")) < 0 ||
	    load_workbench(c, map_get(root, "workbench")) < 0)
		return -1;
	return load_profiles(c, root, map_get(root, "profiles"));
}

/* ---- public: load and free ---- */

int
cfg_load_buf(const char *name, const char *buf, size_t len, struct cfg **out, lz_err_t *err)
{
	struct ctx c = { name, err, NULL };
	struct node *root = NULL;
	int ret = -1;

	*out = NULL;
	if (len > CFG_FILE_MAX)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %d bytes", name, CFG_FILE_MAX);
	c.cfg = xcalloc(1, sizeof *c.cfg);
	c.cfg->file = xstrdup(name);
	if (tree_build(&c, buf, len, &root) < 0 || load_tree(&c, root) < 0)
		goto out;
	*out = lz_steal_ptr(&c.cfg);
	ret = 0;
out:
	node_free(root);
	cfg_free(c.cfg);
	return ret;
}

/* Read a regular file of at most CFG_FILE_MAX bytes. ENOENT is left in err->code. */
static int
read_file(const char *path, char **buf, size_t *len, lz_err_t *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *b = NULL;
	struct stat st;
	size_t n = 0;
	ssize_t r;

	*buf = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if (fstat(fd, &st) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return lz_err_set(err, LZ_EINVAL, "%s: not a regular file", path);
	if (st.st_size > CFG_FILE_MAX)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %d bytes", path, CFG_FILE_MAX);
	b = xmalloc(CFG_FILE_MAX + 1);
	while (n <= CFG_FILE_MAX) {
		r = read(fd, b + n, CFG_FILE_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return lz_err_sys(err, errno, "%s", path);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > CFG_FILE_MAX)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %d bytes", path, CFG_FILE_MAX);
	*buf = lz_steal_ptr(&b);
	*len = n;
	return 0;
}

int
cfg_load(const char *path, struct cfg **out, lz_err_t *err)
{
	_cleanup_free_ char *dflt = NULL, *base = NULL, *buf = NULL;
	size_t len = 0;

	*out = NULL;
	if (path == NULL) {
		if (lz_path_xdg("XDG_CONFIG_HOME", ".config", &base, err) < 0)
			return lz_err_wrap(err, "cannot find the configuration file");
		dflt = xasprintf("%s/lazaret/config.yaml", base);
		if (read_file(dflt, &buf, &len, err) < 0) {
			if (err == NULL || err->code != ENOENT)
				return -1;
			lz_err_clear(err);
			return cfg_load_buf(CFG_EMBEDDED_NAME, cfg_default_yaml,
			    sizeof cfg_default_yaml - 1, out, err);
		}
		return cfg_load_buf(dflt, buf, len, out, err);
	}
	if (read_file(path, &buf, &len, err) < 0)
		return -1;
	return cfg_load_buf(path, buf, len, out, err);
}

static void
volumes_free(struct cfg_volume *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].host);
		free(v[i].container);
		free(v[i].mode);
	}
	free(v);
}

static void
profile_clear(struct cfg_profile *p)
{
	size_t i;

	free(p->name);
	free(p->image);
	lz_strv_free(p->persistent_dirs);
	lz_strv_free(p->allow_egress);
	for (i = 0; i < p->n_env; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	free(p->env);
	volumes_free(p->volumes, p->n_volumes);
}

void
cfg_free(struct cfg *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	free(cfg->file);
	free(cfg->data_root);
	lz_strv_free(cfg->allow_egress);
	free(cfg->esc_socket_dir);
	lz_strv_free(cfg->esc_auto_approve);
	free(cfg->wb_theme);
	free(cfg->wb_prefix);
	for (i = 0; i < cfg->n_profiles; i++)
		profile_clear(&cfg->profiles[i]);
	free(cfg->profiles);
	lz_strv_free(cfg->warnings);
	free(cfg);
}

/* ---- profiles ---- */

static char *
profile_names(const struct cfg *cfg)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < cfg->n_profiles; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", cfg->profiles[i].name);
		free(s);
		s = t;
	}
	return s;
}

const struct cfg_profile *
cfg_profile_find(const struct cfg *cfg, const char *name, lz_err_t *err)
{
	_cleanup_free_ char *have = profile_names(cfg), *q = NULL;
	const char *names[CFG_LIST_MAX];
	const char *m;
	size_t i;

	if (name == NULL && cfg->n_profiles == 1)
		return &cfg->profiles[0];
	for (i = 0; i < cfg->n_profiles; i++) {
		names[i] = cfg->profiles[i].name;
		if (strcmp(cfg->profiles[i].name, name ? name : "default") == 0)
			return &cfg->profiles[i];
	}
	if (name == NULL) {
		lz_err_set(err, LZ_EUSAGE, "%s defines several profiles and none is named "
		    "'default': choose one with --profile NAME (have: %s)", cfg->file, have);
		return NULL;
	}
	q = esc(name, 64);
	if (!cfg_profile_name_valid(name)) {
		lz_err_set(err, LZ_EUSAGE, "invalid profile name '%s': must match "
		    "^[a-z0-9_-]{2,32}$", q);
		return NULL;
	}
	if ((m = did_you_mean(name, names, cfg->n_profiles)) != NULL)
		lz_err_set(err, LZ_EUSAGE, "no profile '%s' in %s; did you mean '%s'?", q,
		    cfg->file, m);
	else
		lz_err_set(err, LZ_EUSAGE, "no profile '%s' in %s (have: %s)", q, cfg->file, have);
	return NULL;
}

/* ---- resolve ---- */

static bool
hash_valid(const char *h)
{
	size_t i;

	for (i = 0; h[i] != '\0'; i++)
		if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
			return false;
	return i == 12;
}

/* Tilde (host only), tokens, then the `..` interception on the result. */
static int
expand_path(const struct ctx *c, int line, const char *key, const char *s,
    const struct lz_path_tokens *t, bool host, char **out)
{
	_cleanup_free_ char *tilde = NULL, *q = NULL;

	*out = NULL;
	if (host && lz_path_expand_tilde(s, &tilde, c->err) < 0)
		return ctx_wrap(c, line, key);
	if (lz_path_expand_tokens(tilde ? tilde : s, t, out, c->err) < 0)
		return ctx_wrap(c, line, key);
	if (lz_path_has_dotdot(*out) || strpbrk(*out, ":,") != NULL) {
		q = esc(*out, 200);
		free(*out);
		*out = NULL;
		if (strpbrk(q, ":,") != NULL && !lz_path_has_dotdot(q))
			return ctx_fail(c, line, key, "'%s' after expansion: ':' and ',' are not "
			    "allowed in mount paths", q);
		return ctx_fail(c, line, key, "security: '%s' after expansion has a '..' path "
		    "segment; refused (path traversal)", q);
	}
	return 0;
}

/* A host path written under {workspace_dir}, {profile_dir} or {domain_dir}
 * must stay there once symlinks are resolved: the agent can write symlinks
 * into those trees, and one pointing out (say to ~/.ssh) would otherwise be
 * mounted at the next start. */
static int
check_contained(const struct ctx *c, int line, const char *key, const char *raw,
    const struct lz_path_tokens *t, const char *canon)
{
	static const char *const names[] = { "{workspace_dir}", "{profile_dir}", "{domain_dir}" };
	const char *base[3] = { t->workspace_dir, t->profile_dir, t->domain_dir };
	_cleanup_free_ char *q = NULL;
	size_t i, l;

	for (i = 0; i < 3 && strncmp(raw, names[i], strlen(names[i])) != 0; i++)
		;
	if (i == 3)
		return 0;
	l = strlen(base[i]);
	if (strcmp(base[i], "/") == 0 ||
	    (strncmp(canon, base[i], l) == 0 && (canon[l] == '\0' || canon[l] == '/')))
		return 0;
	q = esc(canon, 200);
	return ctx_fail(c, line, key, "security: resolves to '%s', outside %s ('%s'): a "
	    "symlink on the way points out; refused", q, names[i], base[i]);
}

static int
resolve_volumes(const struct ctx *c, const struct cfg_profile *p,
    const struct lz_path_tokens *t, struct cfg_resolved *r)
{
	size_t i;

	r->volumes = xcalloc(p->n_volumes + 1, sizeof *r->volumes);
	for (i = 0; i < p->n_volumes; i++) {
		const struct cfg_volume *v = &p->volumes[i];
		struct cfg_volume *o = &r->volumes[r->n_volumes];
		_cleanup_free_ char *hk = xasprintf("profiles.%s.volumes[%zu].host", p->name, i);
		_cleanup_free_ char *ck = xasprintf("profiles.%s.volumes[%zu].container", p->name, i);
		_cleanup_free_ char *h = NULL, *ct = NULL;

		if (expand_path(c, v->line, hk, v->host, t, true, &h) < 0)
			return -1;
		if (lz_path_canon(h, &o->host, c->err) < 0)
			return ctx_wrap(c, v->line, hk);
		r->n_volumes++;
		if (check_contained(c, v->line, hk, v->host, t, o->host) < 0)
			return -1;
		if (expand_path(c, v->line, ck, v->container, t, false, &ct) < 0 ||
		    container_path(c, v->line, ck, ct, &o->container) < 0)
			return -1;
		o->mode = xstrdup(v->mode);
		o->line = v->line;
	}
	return 0;
}

static int
resolve_env(const struct ctx *c, const struct cfg_profile *p, const struct lz_path_tokens *t,
    struct cfg_resolved *r)
{
	size_t i;

	for (i = 0; i < p->n_env; i++) {
		const struct cfg_env *e = &p->env[i];
		_cleanup_free_ char *key = xasprintf("profiles.%s.env.%s", p->name, e->name);
		_cleanup_free_ char *val = NULL;
		const char *hv;

		if (strncmp(e->value, "env:", 4) == 0) {
			/* Host values go in verbatim: never token-expanded. */
			if ((hv = getenv(e->value + 4)) == NULL) {
				lz_strv_pushf(&r->warnings, "%s:%d: %s: host variable %s is unset; "
				    "%s is not passed", c->file, e->line, key, e->value + 4, e->name);
				continue;
			}
			if (strlen(hv) > CFG_HOSTENV_MAX)
				return ctx_fail(c, e->line, key, "host variable %s is longer than %d "
				    "bytes", e->value + 4, CFG_HOSTENV_MAX);
			lz_strv_pushf(&r->env, "%s=%s", e->name, hv);
		} else {
			if (lz_path_expand_tokens(e->value, t, &val, c->err) < 0)
				return ctx_wrap(c, e->line, key);
			lz_strv_pushf(&r->env, "%s=%s", e->name, val);
		}
		r->n_env++;
	}
	return 0;
}

static void
egress_merge(char ***out, size_t *n, char *const *add, size_t n_add)
{
	size_t i, j;

	for (i = 0; i < n_add; i++) {
		for (j = 0; j < *n && strcmp((*out)[j], add[i]) != 0; j++)
			;
		if (j == *n) {
			lz_strv_push(out, add[i]);
			(*n)++;
		}
	}
}

int
cfg_profile_resolve(const struct cfg *cfg, const struct cfg_profile *p,
    const char *workspace_canon, const char *domain_hash, struct cfg_resolved **out,
    lz_err_t *err)
{
	struct ctx c = { cfg->file, err, NULL };
	struct cfg_resolved *r = xcalloc(1, sizeof *r);
	struct lz_path_tokens t;
	_cleanup_free_ char *pd = NULL, *dd = NULL;
	int ret = -1;

	*out = NULL;
	r->profile = p;
	if (workspace_canon == NULL || workspace_canon[0] != '/' ||
	    lz_path_has_dotdot(workspace_canon)) {
		lz_err_set(err, LZ_EINVAL, "security: workspace '%s' is not a canonical absolute "
		    "path", workspace_canon ? workspace_canon : "(null)");
		goto out;
	}
	if (domain_hash == NULL || !hash_valid(domain_hash)) {
		lz_err_set(err, LZ_EINVAL, "domain hash '%s' is not 12 lowercase hex characters",
		    domain_hash ? domain_hash : "(null)");
		goto out;
	}
	if (lz_path_canon(workspace_canon, &r->workspace_dir, err) < 0) {
		lz_err_wrap(err, "workspace");
		goto out;
	}
	if (strcmp(r->workspace_dir, workspace_canon) != 0) {
		lz_err_set(err, LZ_EINVAL, "security: workspace '%s' is not canonical (it "
		    "resolves to '%s')", workspace_canon, r->workspace_dir);
		goto out;
	}
	r->domain_hash = xstrdup(domain_hash);
	pd = xasprintf("%s/%s", cfg->data_root, p->name);
	dd = xasprintf("%s/domains/%s", cfg->data_root, domain_hash);
	if (lz_path_canon(pd, &r->profile_dir, err) < 0 ||
	    lz_path_canon(dd, &r->domain_dir, err) < 0) {
		ctx_wrap(&c, p->line, "data_root");
		goto out;
	}
	t = (struct lz_path_tokens){ p->name, r->profile_dir, r->domain_hash, r->domain_dir,
	    r->workspace_dir };
	if (resolve_volumes(&c, p, &t, r) < 0 || resolve_env(&c, p, &t, r) < 0)
		goto out;
	egress_merge(&r->allow_egress, &r->n_allow_egress, cfg->allow_egress,
	    cfg->n_allow_egress);
	egress_merge(&r->allow_egress, &r->n_allow_egress, p->allow_egress, p->n_allow_egress);
	*out = lz_steal_ptr(&r);
	ret = 0;
out:
	cfg_resolved_free(r);
	return ret;
}

void
cfg_resolved_free(struct cfg_resolved *r)
{
	if (r == NULL)
		return;
	free(r->profile_dir);
	free(r->domain_hash);
	free(r->domain_dir);
	free(r->workspace_dir);
	lz_strv_free(r->env);
	volumes_free(r->volumes, r->n_volumes);
	lz_strv_free(r->allow_egress);
	lz_strv_free(r->warnings);
	free(r);
}

/* ---- print ---- */

/* A YAML double-quoted scalar: always valid, whatever the bytes. */
static void
print_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char b = (unsigned char)*s;

		if (b == '"' || b == '\\')
			fprintf(f, "\\%c", b);
		else if (b == '\n')
			fputs("\\n", f);
		else if (b == '\t')
			fputs("\\t", f);
		else if (b < 0x20 || b == 0x7f)
			fprintf(f, "\\x%02x", b);
		else
			fputc(b, f);
	}
	fputc('"', f);
}

static void
print_list(FILE *f, const char *indent, const char *key, char *const *v, size_t n)
{
	size_t i;

	fprintf(f, "%s%s:%s\n", indent, key, n == 0 ? " []" : "");
	for (i = 0; i < n; i++) {
		fprintf(f, "%s  - ", indent);
		print_str(f, v[i]);
		fputc('\n', f);
	}
}

/* Value of NAME in a resolved "NAME=value" list, or NULL. */
static const char *
env_lookup(char *const *env, size_t n, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < n; i++)
		if (strncmp(env[i], name, l) == 0 && env[i][l] == '=')
			return env[i] + l + 1;
	return NULL;
}

static void
print_profile(FILE *f, const struct cfg_profile *p, const struct cfg_resolved *r)
{
	const struct cfg_volume *vols = r ? r->volumes : p->volumes;
	size_t nv = r ? r->n_volumes : p->n_volumes, i;

	fprintf(f, "  %s:\n    image: ", p->name);
	print_str(f, p->image);
	fputc('\n', f);
	if (r != NULL) {
		fputs("    profile_dir: ", f);
		print_str(f, r->profile_dir);
		fputs("\n    domain_hash: ", f);
		print_str(f, r->domain_hash);
		fputs("\n    domain_dir: ", f);
		print_str(f, r->domain_dir);
		fputs("\n    workspace_dir: ", f);
		print_str(f, r->workspace_dir);
		fputc('\n', f);
	}
	print_list(f, "    ", "persistent_dirs", p->persistent_dirs, p->n_persistent_dirs);
	if (r != NULL)
		print_list(f, "    ", "allow_egress", r->allow_egress, r->n_allow_egress);
	else
		print_list(f, "    ", "allow_egress", p->allow_egress, p->n_allow_egress);
	fprintf(f, "    env:%s\n", p->n_env == 0 ? " {}" : "");
	for (i = 0; i < p->n_env; i++) {
		const struct cfg_env *e = &p->env[i];
		bool host = strncmp(e->value, "env:", 4) == 0;
		const char *v = r ? env_lookup(r->env, r->n_env, e->name) : NULL;
		_cleanup_free_ char *shown = NULL;

		/* Host values are usually secrets: say where they come from, not what. */
		if (r != NULL && host)
			shown = xasprintf("%s (%s)", e->value, v ? "set" : "unset: not passed");
		fprintf(f, "      %s: ", e->name);
		print_str(f, shown ? shown : (r && v) ? v : e->value);
		fputc('\n', f);
	}
	fprintf(f, "    volumes:%s\n", nv == 0 ? " []" : "");
	for (i = 0; i < nv; i++) {
		fputs("      - host: ", f);
		print_str(f, vols[i].host);
		fputs("\n        container: ", f);
		print_str(f, vols[i].container);
		fputs("\n        mode: ", f);
		print_str(f, vols[i].mode);
		fputc('\n', f);
	}
}

void
cfg_print(FILE *f, const struct cfg *cfg, const struct cfg_resolved *r)
{
	size_t i;

	fputs("# lazaret configuration from ", f);
	print_str(f, cfg->file);
	fputs(r ? " (resolved)\ndata_root: " : "\ndata_root: ", f);
	print_str(f, cfg->data_root);
	fputc('\n', f);
	print_list(f, "", "allow_egress", cfg->allow_egress, cfg->n_allow_egress);
	fprintf(f, "escalation:\n  enabled: %s\n  socket_dir: ", cfg->esc_enabled ? "true" :
	    "false");
	print_str(f, cfg->esc_socket_dir);
	fputc('\n', f);
	print_list(f, "  ", "auto_approve", cfg->esc_auto_approve, cfg->n_esc_auto_approve);
	fprintf(f, "  timeout: %d\n", cfg->esc_timeout);
	if (cfg->wb_theme != NULL || cfg->wb_prefix != NULL) {
		fputs("workbench:\n", f);
		if (cfg->wb_theme != NULL) {
			fputs("  theme: ", f);
			print_str(f, cfg->wb_theme);
			fputc('\n', f);
		}
		if (cfg->wb_prefix != NULL) {
			fputs("  prefix: ", f);
			print_str(f, cfg->wb_prefix);
			fputc('\n', f);
		}
	}
	fputs("profiles:\n", f);
	for (i = 0; i < cfg->n_profiles; i++)
		if (r == NULL || r->profile == &cfg->profiles[i])
			print_profile(f, &cfg->profiles[i], r);
}
