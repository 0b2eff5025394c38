/* theme.c - YAML colour themes (see theme.h). Pure data: no ncurses here;
 * widgets turn a style into a pair with term_draw_pair(). */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "prefix.h"
#include "theme.h"
#include "xmalloc.h"

#define THEME_EMBEDDED_NAME "<embedded default>"

/* Keep in step with themes/default.yaml (test-theme checks they agree). */
const char theme_default_yaml[] =
    "# Lazaret workbench theme: default (for dark and light terminals alike:\n"
    "# the terminal's own colours for text, colour only where it means something)\n"
    "name: default\n"
    "tabbar:\n"
    "  active:   { fg: black, bg: cyan, attrs: [bold] }\n"
    "  inactive: { fg: white, bg: blue }\n"
    "  alert:    { fg: bright-white, bg: red, attrs: [bold] }\n"
    "panel:\n"
    "  title:    { fg: cyan, bg: default, attrs: [bold] }\n"
    "  item:     { fg: default, bg: default }\n"
    "  selected: { fg: black, bg: cyan }\n"
    "  focus:    { fg: yellow, bg: default, attrs: [bold] }\n"
    "  dim:      { fg: default, bg: default, attrs: [dim] }\n"
    "status:     { fg: black, bg: white }\n"
    "prompt:     { fg: yellow, bg: default, attrs: [bold] }\n"
    "border:     { fg: bright-blue, bg: default }\n"
    "diff:\n"
    "  add:      { fg: green, bg: default }\n"
    "  del:      { fg: bright-red, bg: default }\n"
    "  hunk:     { fg: cyan, bg: default }\n"
    "  meta:     { fg: default, bg: default, attrs: [bold] }\n"
    "gauge:\n"
    "  ok:       { fg: green, bg: black }\n"
    "  warn:     { fg: yellow, bg: black, attrs: [bold] }\n"
    "  full:     { fg: bright-white, bg: red, attrs: [bold] }\n"
    "verdict:\n"
    "  allow:    { fg: green, bg: default }\n"
    "backdrop:   { fg: default, bg: default }\n";

static const char *const elem_names[THEME_N_ELEMS] = {
	[THEME_TAB_ACTIVE] = "tabbar.active",
	[THEME_TAB_INACTIVE] = "tabbar.inactive",
	[THEME_TAB_ALERT] = "tabbar.alert",
	[THEME_PANEL_TITLE] = "panel.title",
	[THEME_PANEL_ITEM] = "panel.item",
	[THEME_PANEL_SELECTED] = "panel.selected",
	[THEME_STATUS] = "status",
	[THEME_PROMPT] = "prompt",
	[THEME_BORDER] = "border",
	[THEME_DIFF_ADD] = "diff.add",
	[THEME_DIFF_DEL] = "diff.del",
	[THEME_DIFF_HUNK] = "diff.hunk",
	[THEME_DIFF_META] = "diff.meta",
	[THEME_PANEL_FOCUS] = "panel.focus",
	[THEME_PANEL_DIM] = "panel.dim",
	[THEME_GAUGE_OK] = "gauge.ok",
	[THEME_GAUGE_WARN] = "gauge.warn",
	[THEME_GAUGE_FULL] = "gauge.full",
	[THEME_VERDICT_ALLOW] = "verdict.allow",
	[THEME_BACKDROP] = "backdrop",
};

static const char *const color_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
	{ "bold", THEME_ATTR_BOLD }, { "underline", THEME_ATTR_UNDERLINE },
	{ "reverse", THEME_ATTR_REVERSE }, { "italic", THEME_ATTR_ITALIC },
	{ "dim", THEME_ATTR_DIM }, { "blink", THEME_ATTR_BLINK },
};

struct theme_ctx {
	const char *file;
	yaml_document_t *doc;
	struct theme *th;
	lz_err_t *err;
};

const char *
theme_elem_name(enum theme_elem e)
{
	return e < THEME_N_ELEMS ? elem_names[e] : "?";
}

static int __attribute__((format(printf, 4, 5)))
theme_fail(const struct theme_ctx *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	lz_err_set(c->err, LZ_EINVAL, "%s:%zu: %s: %s", c->file, n->start_mark.line + 1, key, msg);
	free(msg);
	return -1;
}

int
theme_parse_color(const char *s)
{
	const char *p = s;
	char *end;
	long v;

	if (strcasecmp(s, "default") == 0)
		return THEME_COLOR_DEFAULT;
	if (s[0] == '#') {
		if (strlen(s) != 7)
			return -2;
		for (int i = 1; i < 7; i++)
			if (!isxdigit((unsigned char)s[i]))
				return -2;
		return THEME_COLOR_RGB | (int)strtol(s + 1, NULL, 16);
	}
	if (isdigit((unsigned char)s[0])) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno != 0 || *end != '\0' || v < 0 || v > 255 || strlen(s) > 3)
			return -2;
		return (int)v;
	}
	if (strncasecmp(p, "bright-", 7) == 0)
		p += 7;
	for (int i = 0; i < 8; i++)
		if (strcasecmp(p, color_names[i]) == 0)
			return p != s ? i + 8 : i;
	return -2;
}

static const char *
scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int
load_attrs(const struct theme_ctx *c, const yaml_node_t *n, const char *key, unsigned *out)
{
	const yaml_node_item_t *it;

	*out = 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return theme_fail(c, n, key, "expected a list like [bold, underline]");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		const yaml_node_t *v = yaml_document_get_node(c->doc, *it);
		const char *s = scalar(v);
		size_t i;

		if (s == NULL)
			return theme_fail(c, v != NULL ? v : n, key, "expected an attribute name");
		for (i = 0; i < sizeof(attr_names) / sizeof(attr_names[0]); i++)
			if (strcasecmp(s, attr_names[i].name) == 0)
				break;
		if (i == sizeof(attr_names) / sizeof(attr_names[0]))
			return theme_fail(c, v, key, "unknown attribute \"%s\" (use bold, underline, reverse, italic, dim, blink)", s);
		*out |= attr_names[i].bit;
	}
	return 0;
}

static int
load_style(const struct theme_ctx *c, const yaml_node_t *n, const char *key, struct theme_style *st)
{
	const yaml_node_pair_t *p;

	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(c, n, key, "expected a mapping like { fg: white, bg: blue }");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		const char *ks = scalar(k), *vs;
		_cleanup_free_ char *full = NULL;
		int col;

		if (ks == NULL || v == NULL)
			return theme_fail(c, n, key, "expected scalar keys");
		full = xasprintf("%s.%s", key, ks);
		if (strcmp(ks, "attrs") == 0) {
			if (load_attrs(c, v, full, &st->attrs) < 0)
				return -1;
			continue;
		}
		if (strcmp(ks, "fg") != 0 && strcmp(ks, "bg") != 0)
			return theme_fail(c, k, full, "unknown key (use fg, bg, attrs)");
		vs = scalar(v);
		col = vs != NULL ? theme_parse_color(vs) : -2;
		if (col == -2)
			return theme_fail(c, v, full, "bad colour \"%s\" (use default, black..white, bright-black..bright-white, 0-255 or #rrggbb)",
			    vs != NULL ? vs : "(not a scalar)");
		if (ks[0] == 'f')
			st->fg = col;
		else
			st->bg = col;
	}
	return 0;
}

/* A mapping whose keys are element names below prefix ("" at the top). */
static int
load_group(const struct theme_ctx *c, const yaml_node_t *n, const char *prefix)
{
	const yaml_node_pair_t *p;

	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(c, n, *prefix != '\0' ? prefix : "(top level)", "expected a mapping");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		const char *ks = scalar(k);
		_cleanup_free_ char *full = NULL;
		size_t flen;
		int e, group = 0;

		if (ks == NULL || v == NULL)
			return theme_fail(c, n, *prefix != '\0' ? prefix : "(top level)", "expected scalar keys");
		full = *prefix != '\0' ? xasprintf("%s.%s", prefix, ks) : xstrdup(ks);
		if (*prefix == '\0' && strcmp(ks, "name") == 0) {
			if (scalar(v) == NULL)
				return theme_fail(c, v, full, "expected a string");
			free(c->th->name);
			c->th->name = xstrdup(scalar(v));
			continue;
		}
		flen = strlen(full);
		for (e = 0; e < THEME_N_ELEMS; e++) {
			if (strcmp(elem_names[e], full) == 0)
				break;
			if (strncmp(elem_names[e], full, flen) == 0 && elem_names[e][flen] == '.')
				group = 1;
		}
		if (e < THEME_N_ELEMS) {
			if (load_style(c, v, full, &c->th->style[e]) < 0)
				return -1;
		} else if (group) {
			if (load_group(c, v, full) < 0)
				return -1;
		} else
			return theme_fail(c, k, full, "unknown key (elements: tabbar.{active,inactive,alert}, "
			    "panel.{title,item,selected,focus,dim}, status, prompt, border, "
			    "diff.{add,del,hunk,meta}, gauge.{ok,warn,full}, verdict.allow, backdrop)");
	}
	return 0;
}

static int
parse_into(const char *name, const char *buf, size_t len, struct theme *th, lz_err_t *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct theme_ctx c = { name, &doc, th, err };
	int rc = -1;

	if (!yaml_parser_initialize(&parser))
		return lz_err_set(err, ENOMEM, "%s: cannot initialise the YAML parser", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		lz_err_set(err, LZ_EINVAL, "%s:%zu: %s", name, parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "YAML syntax error");
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL)
		lz_err_set(err, LZ_EINVAL, "%s: empty theme", name);
	else
		rc = load_group(&c, root, "");
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static struct theme *
theme_alloc(const char *file)
{
	struct theme *th = xcalloc(1, sizeof(*th));

	th->file = xstrdup(file);
	th->name = xstrdup("default");
	for (int e = 0; e < THEME_N_ELEMS; e++)
		th->style[e].fg = th->style[e].bg = THEME_COLOR_DEFAULT;
	return th;
}

struct theme *
theme_default(void)
{
	struct theme *th = theme_alloc(THEME_EMBEDDED_NAME);
	lz_err_t err = LZ_ERR_INIT;

	if (parse_into(THEME_EMBEDDED_NAME, theme_default_yaml, sizeof(theme_default_yaml) - 1, th, &err) < 0)
		lz_assert_fail(err.msg, __func__, __FILE__, __LINE__);
	return th;
}

int
theme_load_buf(const char *name, const char *buf, size_t len, struct theme **out, lz_err_t *err)
{
	struct theme *th = theme_default();

	*out = NULL;
	free(th->file);
	th->file = xstrdup(name);
	if (parse_into(name, buf, len, th, err) < 0) {
		theme_free(th);
		return -1;
	}
	*out = th;
	return 0;
}

int
theme_load(const char *path, struct theme **out, lz_err_t *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lz_err_sys(err, errno, "theme %s", path);
	if (fstat(fd, &st) < 0)
		return lz_err_sys(err, errno, "theme %s", path);
	if (!S_ISREG(st.st_mode))
		return lz_err_set(err, LZ_EINVAL, "theme %s: not a regular file", path);
	if (st.st_size > THEME_FILE_MAX)
		return lz_err_set(err, LZ_EINVAL, "theme %s: larger than %d bytes", path, THEME_FILE_MAX);
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lz_err_sys(err, errno, "theme %s", path);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return theme_load_buf(path, buf, len, out, err);
}

struct theme *
theme_load_or_default(const char *path, lz_err_t *err)
{
	struct theme *th;

	if (theme_load(path, &th, err) == 0)
		return th;
	if (err != NULL) {
		_cleanup_free_ char *why = lz_steal_ptr(&err->msg);

		lz_err_set(err, err->code, "%s (using the default theme)", why);
	}
	return theme_default();
}

void
theme_free(struct theme *th)
{
	if (th == NULL)
		return;
	free(th->name);
	free(th->file);
	free(th);
}

/* DIR/NAME.yaml when readable; else NULL. */
static char *
theme_in_dir(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s.yaml", dir, name);

	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* Whether list ("a, b") holds the name (len bytes). */
static bool
theme_listed(const char *list, const char *name, size_t len)
{
	const char *p = list;

	while (p != NULL) {
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
		if ((p = strchr(p, ',')) != NULL)
			p += 2;
	}
	return false;
}

/* The theme names (NAME.yaml) in dir, appended to *list ("a, b"). */
static void
theme_list_dir(const char *dir, char **list)
{
	struct dirent **ents = NULL;
	int i, n = scandir(dir, &ents, NULL, alphasort);
	size_t len;
	char *s;

	for (i = 0; i < n; i++) {
		len = strlen(ents[i]->d_name);
		if (len > 5 && ents[i]->d_name[0] != '.' &&
		    strcmp(ents[i]->d_name + len - 5, ".yaml") == 0 &&
		    !theme_listed(*list, ents[i]->d_name, len - 5)) {
			s = xasprintf("%s%s%.*s", *list != NULL ? *list : "", *list != NULL ? ", " : "",
			    (int)(len - 5), ents[i]->d_name);
			free(*list);
			*list = s;
		}
		free(ents[i]);
	}
	free(ents);
}

int
theme_find(const char *name, const char *const *dirs, char **path, lz_err_t *err)
{
	/* Installed themes: PREFIX/share/lazaret/themes of this very program,
	 * whatever PREFIX (or DESTDIR) it was installed with. */
	_cleanup_free_ char *inst = lz_prefix_data("themes");
	_cleanup_free_ char *known = NULL;
	const char *const *d;

	*path = NULL;
	if (strchr(name, '/') != NULL) {
		*path = xstrdup(name);
		return 0;
	}
	if (name[0] == '\0' || name[0] == '.' || strlen(name) > 64)
		return lz_err_set(err, LZ_EINVAL, "bad theme name \"%s\"", name);
	for (d = dirs; d != NULL && *d != NULL; d++)
		if ((*path = theme_in_dir(*d, name)) != NULL)
			return 0;
	if (inst != NULL && (*path = theme_in_dir(inst, name)) != NULL)
		return 0;
	for (d = dirs; d != NULL && *d != NULL; d++)
		theme_list_dir(*d, &known);
	if (inst != NULL)
		theme_list_dir(inst, &known);
	if (known == NULL)
		return lz_err_set(err, ENOENT, "theme \"%s\" not found: no themes installed (in %s)",
		    name, inst != NULL ? inst : "PREFIX/share/lazaret/themes");
	return lz_err_set(err, ENOENT, "theme \"%s\" not found; known themes: %s", name, known);
}
