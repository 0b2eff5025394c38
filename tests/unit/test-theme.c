/* test-theme.c - YAML themes: the shipped ones load, bad ones say where. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "theme.h"
#include "xmalloc.h"

/* The source tree's root, from this file's path as the Makefile compiled it. */
static char *
src_path(const char *rel)
{
	const char *f = __FILE__, *p = strstr(f, "tests/unit/");

	return xasprintf("%.*s%s", p != NULL ? (int)(p - f) : 0, f, rel);
}

static struct theme *
load_src(const char *rel)
{
	char *p = src_path(rel);
	struct theme *th = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (theme_load(p, &th, &err) < 0)
		fail_msg("%s", err.msg);
	free(p);
	return th;
}

static void
assert_load_fails(const char *yaml, const char *want)
{
	struct theme *th = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(theme_load_buf("bad.yaml", yaml, strlen(yaml), &th, &err), -1);
	assert_null(th);
	if (strstr(err.msg, want) == NULL)
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, want);
	lz_err_clear(&err);
}

static void
test_theme_default_is_built_in(void **state)
{
	struct theme *th = theme_default();

	(void)state;
	assert_string_equal(th->name, "default");
	assert_int_equal(th->style[THEME_TAB_ACTIVE].fg, 0);
	assert_int_equal(th->style[THEME_TAB_ACTIVE].bg, 6);
	assert_int_equal(th->style[THEME_TAB_ACTIVE].attrs, THEME_ATTR_BOLD);
	assert_int_equal(th->style[THEME_TAB_ALERT].fg, 15);
	assert_int_equal(th->style[THEME_PANEL_ITEM].fg, THEME_COLOR_DEFAULT);
	assert_int_equal(th->style[THEME_PANEL_ITEM].bg, THEME_COLOR_DEFAULT);
	assert_string_equal(theme_elem_name(THEME_PANEL_SELECTED), "panel.selected");
	theme_free(th);
	theme_free(NULL);
}

static void
test_theme_shipped_default_file_matches_built_in(void **state)
{
	struct theme *f = load_src("themes/default.yaml"), *d = theme_default();

	(void)state;
	assert_string_equal(f->name, d->name);
	assert_memory_equal(f->style, d->style, sizeof(f->style));
	theme_free(f);
	theme_free(d);
}

static void
test_theme_shipped_light_and_high_contrast_load(void **state)
{
	struct theme *l = load_src("themes/light.yaml"), *h = load_src("themes/high-contrast.yaml");

	(void)state;
	assert_string_equal(l->name, "light");
	assert_true(THEME_IS_RGB(l->style[THEME_TAB_ACTIVE].fg));
	assert_int_equal(l->style[THEME_TAB_ACTIVE].fg, THEME_COLOR_RGB | 0xffffff);
	assert_int_equal(l->style[THEME_BORDER].fg, 244);
	assert_int_equal(l->style[THEME_PANEL_TITLE].attrs, THEME_ATTR_BOLD | THEME_ATTR_UNDERLINE);
	assert_string_equal(h->name, "high-contrast");
	assert_int_equal(h->style[THEME_TAB_ALERT].bg, 11);
	assert_int_equal(h->style[THEME_PANEL_SELECTED].attrs, THEME_ATTR_REVERSE | THEME_ATTR_BOLD);
	/* Every element differs from "all default" in both. */
	for (int e = 0; e < THEME_N_ELEMS; e++)
		assert_true(h->style[e].fg != THEME_COLOR_DEFAULT || h->style[e].bg != THEME_COLOR_DEFAULT);
	theme_free(l);
	theme_free(h);
}

/* sRGB of a theme colour (xterm's palette for 0..255); dflt for "default". */
static unsigned
rgb_of(int c, unsigned dflt)
{
	static const unsigned base[16] = { 0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee,
	    0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff,
	    0xff00ff, 0x00ffff, 0xffffff };
	static const unsigned lv[6] = { 0, 95, 135, 175, 215, 255 };

	if (c == THEME_COLOR_DEFAULT)
		return dflt;
	if (THEME_IS_RGB(c))
		return (unsigned)c & 0xffffff;
	if (c < 16)
		return base[c];
	if (c < 232)
		return lv[(c - 16) / 36] << 16 | lv[(c - 16) / 6 % 6] << 8 | lv[(c - 16) % 6];
	return (unsigned)(8 + 10 * (c - 232)) * 0x010101;
}

/* WCAG 2 relative luminance. */
static double
luminance(unsigned rgb)
{
	double ch[3], l;

	for (int i = 0; i < 3; i++) {
		double v = (double)((rgb >> (16 - 8 * i)) & 0xff) / 255;
		ch[i] = v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	l = 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
	return l;
}

static double
contrast(unsigned a, unsigned b)
{
	double la = luminance(a), lb = luminance(b);

	return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

/* Every element of a theme against its terminal (fg, bg for "default"):
 * text 4.5:1 at least (WCAG AA), lines and gauge bars 3:1 (WCAG 1.4.11);
 * an element that leaves both colours to the terminal is the terminal's. */
static void
assert_theme_contrast(const char *file, unsigned term_fg, unsigned term_bg)
{
	struct theme *th = load_src(file);

	for (int e = 0; e < THEME_N_ELEMS; e++) {
		const struct theme_style *s = &th->style[e];
		unsigned fg = rgb_of(s->fg, term_fg), bg = rgb_of(s->bg, term_bg);
		bool ui = e == THEME_BORDER || e == THEME_GAUGE_OK || e == THEME_GAUGE_WARN ||
		    e == THEME_GAUGE_FULL;
		double need = ui ? 3.0 : 4.5, got = contrast(fg, bg);

		if (s->fg == THEME_COLOR_DEFAULT && s->bg == THEME_COLOR_DEFAULT)
			continue;
		if (got < need)
			fail_msg("%s: %s: %06x on %06x is %.2f:1, below %.1f:1", file,
			    theme_elem_name((enum theme_elem)e), fg, bg, got, need);
	}
	theme_free(th);
}

static void
test_theme_shipped_themes_have_readable_contrast(void **state)
{
	(void)state;
	/* default and high-contrast on a dark terminal, light on a white one */
	assert_theme_contrast("themes/default.yaml", 0xe5e5e5, 0x000000);
	assert_theme_contrast("themes/high-contrast.yaml", 0xffffff, 0x000000);
	assert_theme_contrast("themes/light.yaml", 0x000000, 0xffffff);
}

static void
test_theme_colour_values_parse(void **state)
{
	(void)state;
	assert_int_equal(theme_parse_color("default"), THEME_COLOR_DEFAULT);
	assert_int_equal(theme_parse_color("red"), 1);
	assert_int_equal(theme_parse_color("White"), 7);
	assert_int_equal(theme_parse_color("bright-red"), 9);
	assert_int_equal(theme_parse_color("BRIGHT-white"), 15);
	assert_int_equal(theme_parse_color("0"), 0);
	assert_int_equal(theme_parse_color("255"), 255);
	assert_int_equal(theme_parse_color("#00ff7f"), THEME_COLOR_RGB | 0x00ff7f);
	assert_int_equal(theme_parse_color("256"), -2);
	assert_int_equal(theme_parse_color("-1"), -2);
	assert_int_equal(theme_parse_color("0x10"), -2);
	assert_int_equal(theme_parse_color("0255"), -2);
	assert_int_equal(theme_parse_color("#12345"), -2);
	assert_int_equal(theme_parse_color("#gg0000"), -2);
	assert_int_equal(theme_parse_color("purple"), -2);
	assert_int_equal(theme_parse_color("bright-"), -2);
	assert_int_equal(theme_parse_color(""), -2);
}

static void
test_theme_bad_values_name_file_line_and_key(void **state)
{
	(void)state;
	assert_load_fails("name: x\ntabbar:\n  active: { fg: purplish }\n",
	    "bad.yaml:3: tabbar.active.fg: bad colour \"purplish\"");
	assert_load_fails("tabbar:\n  actve: { fg: red }\n", "bad.yaml:2: tabbar.actve: unknown key");
	assert_load_fails("colour: red\n", "bad.yaml:1: colour: unknown key");
	assert_load_fails("status:\n  fg: red\n  attrs: [bold, sparkly]\n",
	    "bad.yaml:3: status.attrs: unknown attribute \"sparkly\"");
	assert_load_fails("status: { fg: red, size: 3 }\n", "bad.yaml:1: status.size: unknown key");
	assert_load_fails("status: red\n", "bad.yaml:1: status: expected a mapping");
	assert_load_fails("border: { bg: 300 }\n", "border.bg: bad colour \"300\"");
	assert_load_fails("status: { attrs: bold }\n", "status.attrs: expected a list");
	assert_load_fails("tabbar: [\n", "bad.yaml:2:");
	assert_load_fails("- just\n- a list\n", "bad.yaml:1: (top level): expected a mapping");
	assert_load_fails("", "empty theme");
}

static void
test_theme_partial_theme_inherits_the_default(void **state)
{
	const char *y = "name: mine\nstatus: { fg: red }\n";
	struct theme *th = NULL, *d = theme_default();
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(theme_load_buf("mine.yaml", y, strlen(y), &th, &err), 0);
	assert_string_equal(th->name, "mine");
	assert_int_equal(th->style[THEME_STATUS].fg, 1);
	assert_int_equal(th->style[THEME_STATUS].bg, d->style[THEME_STATUS].bg);
	assert_memory_equal(&th->style[THEME_TAB_ACTIVE], &d->style[THEME_TAB_ACTIVE], sizeof(struct theme_style));
	theme_free(th);
	theme_free(d);
}

static void
test_theme_bad_file_falls_back_to_default_with_reason(void **state)
{
	char dir[] = "/tmp/lz-theme.XXXXXX";
	char *p;
	FILE *f;
	struct theme *th;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/broken.yaml", dir);
	f = fopen(p, "w");
	fputs("name: broken\npanel:\n  title: { fg: red }\n  item: { bg: \"#12\" }\n", f);
	fclose(f);
	th = theme_load_or_default(p, &err);
	assert_string_equal(th->name, "default");
	assert_non_null(err.msg);
	assert_non_null(strstr(err.msg, "broken.yaml:4: panel.item.bg: bad colour \"#12\""));
	assert_non_null(strstr(err.msg, "using the default theme"));
	lz_err_clear(&err);
	theme_free(th);
	unlink(p);
	th = theme_load_or_default(p, &err);
	assert_non_null(strstr(err.msg, "No such file"));
	assert_string_equal(th->name, "default");
	lz_err_clear(&err);
	theme_free(th);
	assert_int_equal(rmdir(dir), 0);
	free(p);
}

static void
test_theme_oversized_file_is_refused(void **state)
{
	char path[] = "/tmp/lz-theme-big.XXXXXX";
	int fd = mkstemp(path);
	struct theme *th = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *big = xmalloc(THEME_FILE_MAX + 2);

	(void)state;
	memset(big, '#', THEME_FILE_MAX + 1);
	assert_int_equal(write(fd, big, THEME_FILE_MAX + 1), THEME_FILE_MAX + 1);
	close(fd);
	assert_int_equal(theme_load(path, &th, &err), -1);
	assert_non_null(strstr(err.msg, "larger than"));
	lz_err_clear(&err);
	unlink(path);
	free(big);
}

static void
test_theme_find_looks_in_dirs_in_order(void **state)
{
	char *themes = src_path("themes");
	const char *dirs[] = { "/nonexistent", themes, NULL };
	char *path = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(theme_find("light", dirs, &path, &err), 0);
	assert_non_null(strstr(path, "themes/light.yaml"));
	free(path);
	assert_int_equal(theme_find("./my.yaml", dirs, &path, &err), 0);
	assert_string_equal(path, "./my.yaml");
	free(path);
	assert_int_equal(theme_find("nope", dirs, &path, &err), -1);
	assert_non_null(strstr(err.msg, "theme \"nope\" not found"));
	lz_err_clear(&err);
	/* a typo names the themes that do exist, each once */
	{
		const char *twice[] = { themes, themes, NULL };

		assert_int_equal(theme_find("ligth", twice, &path, &err), -1);
		assert_string_equal(err.msg, "theme \"ligth\" not found; known themes: default, "
		    "high-contrast, light");
		lz_err_clear(&err);
	}
	assert_int_equal(theme_find("..", dirs, &path, &err), -1);
	lz_err_clear(&err);
	free(themes);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_theme_default_is_built_in),
		cmocka_unit_test(test_theme_shipped_default_file_matches_built_in),
		cmocka_unit_test(test_theme_shipped_light_and_high_contrast_load),
		cmocka_unit_test(test_theme_colour_values_parse),
		cmocka_unit_test(test_theme_bad_values_name_file_line_and_key),
		cmocka_unit_test(test_theme_partial_theme_inherits_the_default),
		cmocka_unit_test(test_theme_bad_file_falls_back_to_default_with_reason),
		cmocka_unit_test(test_theme_oversized_file_is_refused),
		cmocka_unit_test(test_theme_find_looks_in_dirs_in_order),
		cmocka_unit_test(test_theme_shipped_themes_have_readable_contrast),
	};

	return cmocka_run_group_tests_name("theme", tests, NULL, NULL);
}
