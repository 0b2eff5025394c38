/* theme.h - workbench colour themes in YAML (libyaml).
 *
 *   name: default
 *   tabbar:
 *     active:   { fg: black, bg: cyan, attrs: [bold] }
 *     inactive: { fg: white, bg: blue }
 *     alert:    { fg: white, bg: red, attrs: [bold] }
 *   panel:
 *     title:    { fg: cyan, attrs: [bold] }
 *     item:     { fg: default, bg: default }
 *     selected: { fg: black, bg: cyan }
 *   status:     { fg: black, bg: white }
 *   prompt:     { fg: yellow, attrs: [bold] }
 *   border:     { fg: blue }
 *   diff:
 *     add:      { fg: green }
 *     del:      { fg: red }
 *     hunk:     { fg: cyan }
 *     meta:     { attrs: [bold] }
 *   panel.focus, panel.dim, gauge.{ok,warn,full}, verdict.allow, backdrop
 *
 * A colour is `default` (the terminal's own), a name (black red green yellow
 * blue magenta cyan white, `bright-` before any of them), 0..255, or
 * #rrggbb. attrs: bold underline reverse italic dim blink. What a theme
 * leaves out comes from the default theme. Errors read
 * "FILE:LINE: KEY: what is wrong"; theme_load_or_default() falls back.
 */
#ifndef LZ_THEME_H
#define LZ_THEME_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum theme_elem {
	THEME_TAB_ACTIVE,
	THEME_TAB_INACTIVE,
	THEME_TAB_ALERT,
	THEME_PANEL_TITLE,
	THEME_PANEL_ITEM,
	THEME_PANEL_SELECTED,
	THEME_STATUS,
	THEME_PROMPT,
	THEME_BORDER,
	THEME_DIFF_ADD,		/* the review view's diff: added lines */
	THEME_DIFF_DEL,		/* removed lines */
	THEME_DIFF_HUNK,	/* @@ hunk headers */
	THEME_DIFF_META,	/* diff/---/+++ headers */
	THEME_PANEL_FOCUS,	/* the focused section's frame and title */
	THEME_PANEL_DIM,	/* secondary text: times, counts, "(none)" */
	THEME_GAUGE_OK,		/* status line gauges: below 70 % */
	THEME_GAUGE_WARN,	/* 70 % to 90 % */
	THEME_GAUGE_FULL,	/* 90 % and more */
	THEME_VERDICT_ALLOW,	/* an allowed flow, an approved request */
	THEME_BACKDROP,		/* what is behind a dialog */
	THEME_N_ELEMS
};

#define THEME_COLOR_DEFAULT	(-1)
#define THEME_COLOR_RGB		0x1000000	/* flag: low 24 bits are 0xrrggbb */
#define THEME_IS_RGB(c)		((c) >= 0 && ((c) & THEME_COLOR_RGB))

#define THEME_ATTR_BOLD		0x01u
#define THEME_ATTR_UNDERLINE	0x02u
#define THEME_ATTR_REVERSE	0x04u
#define THEME_ATTR_ITALIC	0x08u
#define THEME_ATTR_DIM		0x10u
#define THEME_ATTR_BLINK	0x20u

#define THEME_FILE_MAX		(64 * 1024)

struct theme_style {
	int fg, bg;		/* THEME_COLOR_DEFAULT, 0..255 or THEME_COLOR_RGB|rgb */
	unsigned attrs;		/* THEME_ATTR_* */
};

struct theme {
	char *name;
	char *file;		/* where it came from, or "<embedded default>" */
	struct theme_style style[THEME_N_ELEMS];
};

/* The embedded default theme (same as themes/default.yaml). */
extern const char theme_default_yaml[];

/* Dotted key of an element ("tabbar.active"). */
const char *theme_elem_name(enum theme_elem);

/* Load a theme file (at most THEME_FILE_MAX bytes). */
int theme_load(const char *path, struct theme **out, lz_err_t *err);
/* Parse a buffer; name is used in error messages. */
int theme_load_buf(const char *name, const char *buf, size_t len, struct theme **out, lz_err_t *err);
/* The embedded default; never fails. */
struct theme *theme_default(void);
/* theme_load, or on error the default theme with *err saying why. */
struct theme *theme_load_or_default(const char *path, lz_err_t *err);
void theme_free(struct theme *);

/* Parse one colour value as written in a theme; -2 if invalid. */
int theme_parse_color(const char *s);

/* Path of theme NAME: NAME itself when it contains a '/', else the first
 * DIR/NAME.yaml that exists among dirs (NULL-terminated). */
int theme_find(const char *name, const char *const *dirs, char **path, lz_err_t *err);

#endif
