/* config-tree.c - the YAML document as a small tree, and typed access to it.
 *
 * libyaml's event parser feeds a tree of scalars, sequences and mappings (with
 * line numbers), built under hard caps (file size, depth, node count) and
 * refusing anchors, aliases, tags and a second document. The cfg_get_*()
 * readers check one node's type and fail with "FILE:LINE: KEY: what is wrong".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config.h"
#include "config-int.h"
#include "xmalloc.h"

/* ---- tree from libyaml events ---- */

void
cfg_node_free(struct cfg_node *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->n_kids; i++)
		cfg_node_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

static void
node_add(struct cfg_node *parent, struct cfg_node *kid)
{
	if (parent->n_kids == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 8;
		parent->kids = xreallocarray(parent->kids, parent->cap, sizeof *parent->kids);
	}
	parent->kids[parent->n_kids++] = kid;
}

static int
syntax_error(const struct cfg_ctx *c, const yaml_parser_t *p)
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
check_props(const struct cfg_ctx *c, int line, const yaml_char_t *anchor,
    const yaml_char_t *tag)
{
	if (anchor != NULL) {
		_cleanup_free_ char *a = cfg_esc((const char *)anchor, 64);

		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: YAML anchors (&%s) and aliases are "
		    "not supported: write the value out", c->file, line, a);
	}
	if (tag != NULL) {
		_cleanup_free_ char *t = cfg_esc((const char *)tag, 64);

		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: YAML tags (%s) are not supported: "
		    "quote the value instead", c->file, line, t);
	}
	return 0;
}

int
cfg_tree_build(const struct cfg_ctx *c, const char *buf, size_t len, struct cfg_node **out)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct cfg_node *stack[CFG_DEPTH_MAX], *root = NULL, *nd;
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
	cfg_node_free(root);
	yaml_parser_delete(&p);
	return ret;
}

/* ---- typed access with FILE:LINE: KEY errors ---- */

bool
cfg_node_is_null(const struct cfg_node *n)
{
	return n->kind == NODE_SCALAR && n->plain && (n->len == 0 || strcmp(n->str, "~") == 0 ||
	    strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	    strcmp(n->str, "NULL") == 0);
}

const char *
cfg_node_what(const struct cfg_node *n)
{
	switch (n->kind) {
	case NODE_SCALAR:
		return cfg_node_is_null(n) ? "null" : "a string";
	case NODE_SEQ:
		return "a sequence";
	case NODE_MAP:
		return "a mapping";
	}
	return "?";
}


/* Borrow a scalar's string, checked: not null, no NUL, capped, no control bytes. */
int
cfg_get_str(const struct cfg_ctx *c, const struct cfg_node *n, const char *key, int flags,
    const char **out)
{
	size_t i;

	if (n->kind != NODE_SCALAR || cfg_node_is_null(n))
		return cfg_ctx_fail(c, n->line, key, "expected a string, got %s%s", cfg_node_what(n),
		    cfg_node_is_null(n) ? " (quote it if you mean the text)" : "");
	if (n->len > CFG_STR_MAX)
		return cfg_ctx_fail(c, n->line, key, "longer than %d bytes", CFG_STR_MAX);
	if (strlen(n->str) != n->len)
		return cfg_ctx_fail(c, n->line, key, "contains a NUL byte");
	for (i = 0; i < n->len; i++) {
		unsigned char b = (unsigned char)n->str[i];

		if ((b < 0x20 || b == 0x7f) &&
		    !((flags & STR_MULTILINE) && (b == '\n' || b == '\t')))
			return cfg_ctx_fail(c, n->line, key, "control character 0x%02x not allowed", b);
	}
	*out = n->str;
	return 0;
}

int
cfg_get_bool(const struct cfg_ctx *c, const struct cfg_node *n, const char *key, bool *out)
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
	if (n->kind == NODE_SCALAR && !cfg_node_is_null(n)) {
		_cleanup_free_ char *q = cfg_esc(n->str, 64);

		return cfg_ctx_fail(c, n->line, key, "expected true or false, got '%s'", q);
	}
	return cfg_ctx_fail(c, n->line, key, "expected true or false, got %s", cfg_node_what(n));
}

/* A plain decimal integer in lo..hi ("120"; not "1e3", "0x10" nor quoted). */
int
cfg_get_int(const struct cfg_ctx *c, const struct cfg_node *n, const char *key, long lo,
    long hi, int *out)
{
	_cleanup_free_ char *q = NULL;
	const char *d;
	char *end;
	long v;

	if (n->kind != NODE_SCALAR || cfg_node_is_null(n))
		return cfg_ctx_fail(c, n->line, key, "expected an integer, got %s", cfg_node_what(n));
	q = cfg_esc(n->str, 64);
	d = n->str + (n->str[0] == '-' || n->str[0] == '+');
	if (!n->plain || *d == '\0' || strspn(d, "0123456789") != strlen(d) ||
	    strlen(n->str) != n->len)
		return cfg_ctx_fail(c, n->line, key, "expected an integer, got '%s'", q);
	errno = 0;
	v = strtol(n->str, &end, 10);
	if (errno != 0 || v < lo || v > hi)
		return cfg_ctx_fail(c, n->line, key, "%s is out of range: expected %ld..%ld", q, lo,
		    hi);
	*out = (int)v;
	return 0;
}

int
cfg_get_seq(const struct cfg_ctx *c, const struct cfg_node *n, const char *key)
{
	if (n->kind != NODE_SEQ)
		return cfg_ctx_fail(c, n->line, key, "expected a sequence, got %s%s", cfg_node_what(n),
		    cfg_node_is_null(n) ? " (write [] for an empty list)" : "");
	if (n->n_kids > CFG_LIST_MAX)
		return cfg_ctx_fail(c, n->kids[CFG_LIST_MAX]->line, key, "more than %d entries",
		    CFG_LIST_MAX);
	return 0;
}

/* A mapping with string keys, no duplicates and (when allowed != NULL) only
 * the allowed keys. */
int
cfg_get_map(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    const char *const *allowed)
{
	size_t i, j, n_allowed = 0;
	const char *k;

	if (n->kind != NODE_MAP)
		return cfg_ctx_fail(c, n->line, key, "expected a mapping, got %s", cfg_node_what(n));
	if (n->n_kids / 2 > CFG_LIST_MAX)
		return cfg_ctx_fail(c, n->kids[2 * CFG_LIST_MAX]->line, key, "more than %d entries",
		    CFG_LIST_MAX);
	while (allowed != NULL && allowed[n_allowed] != NULL)
		n_allowed++;
	for (i = 0; i < n->n_kids; i += 2) {
		const struct cfg_node *kn = n->kids[i];
		_cleanup_free_ char *sub = NULL;

		if (kn->kind != NODE_SCALAR || cfg_node_is_null(kn))
			return cfg_ctx_fail(c, kn->line, key, "keys must be strings, got %s",
			    cfg_node_what(kn));
		if (cfg_get_str(c, kn, key, 0, &k) < 0)
			return -1;
		sub = cfg_key_join(key, k);
		for (j = 0; j < i; j += 2)
			if (strcmp(n->kids[j]->str, k) == 0)
				return cfg_ctx_fail(c, kn->line, sub, "duplicate key (first on line %d)",
				    n->kids[j]->line);
		if (allowed == NULL)
			continue;
		for (j = 0; j < n_allowed && strcmp(allowed[j], k) != 0; j++)
			;
		if (j == n_allowed) {
			const char *m = cfg_did_you_mean(k, allowed, n_allowed);

			if (m != NULL)
				return cfg_ctx_fail(c, kn->line, sub, "unknown key; did you mean '%s'?", m);
			return cfg_ctx_fail(c, kn->line, sub, "unknown key");
		}
	}
	return 0;
}

const struct cfg_node *
cfg_map_get(const struct cfg_node *n, const char *k)
{
	size_t i;

	for (i = 0; i < n->n_kids; i += 2)
		if (strcmp(n->kids[i]->str, k) == 0)
			return n->kids[i + 1];
	return NULL;
}
