/* test-widgets-forms.c - the forms: the command editor (editform.c) and
 * the new-tab dialog (newtab.c, with pathcomp.c's ~ and completion); on a
 * real ncurses screen. The fixture is widgettest.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "editform.h"
#include "newtab.h"
#include "pathcomp.h"
#include "strv.h"
#include "widget.h"
#include "widgettest.h"

static void
feed(struct editform *ef, const char *keys)
{
	for (const char *k = keys; *k != '\0'; k++)
		editform_handle_key(ef, (unsigned char)*k);
}

static void
test_editform_edits_the_command_in_place(void **state)
{
	struct wt_fixture *f = *state;
	struct editform *ef = NULL;
	lz_err_t err = LZ_ERR_INIT;
	WINDOW *w;
	char *s;

	assert_int_equal(editform_new("Edit command", "make test", 4096, LINES, COLS, &ef, &err), 0);
	editform_draw(ef, &f->pal);
	wt_show();
	w = editform_window(ef);
	assert_non_null(strstr(wt_row(curscr, getbegy(w)), "Edit command"));
	assert_non_null(strstr(wt_row(curscr, getbegy(w) + 2), "make test"));
	assert_non_null(strstr(wt_row(curscr, getbegy(w) + 4), "Enter: accept  Esc: cancel"));
	/* Typed at the end, Backspace, Home then typed at the start. */
	feed(ef, " -j4");
	editform_handle_key(ef, 127);
	feed(ef, "2");
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_HOME));
	feed(ef, "nice ");
	editform_handle_key(ef, 0xe9);
	s = editform_text(ef);
	assert_string_equal(s, "nice \xc3\xa9make test -j2");
	free(s);
	/* Control characters are not typed in. */
	editform_handle_key(ef, 0x1b | 0);
	editform_handle_key(ef, 7);
	editform_handle_key(ef, 0x9b);
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_BACKSPACE));	/* deletes the é */
	wt_show();
	assert_non_null(strstr(wt_row(curscr, getbegy(w) + 2), "nice make test -j2"));
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_END));
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_LEFT));
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_LEFT));
	editform_handle_key(ef, 11);	/* C-k */
	assert_int_equal(editform_handle_key(ef, '\r'), EDITFORM_ACCEPT);
	s = editform_text(ef);
	assert_string_equal(s, "nice make test -");
	free(s);
	editform_handle_key(ef, 21);	/* C-u */
	s = editform_text(ef);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(editform_handle_key(ef, WIDGET_KEY_ESC), EDITFORM_CANCEL);
	editform_free(ef);
}

static void
test_editform_long_text_scrolls_and_survives_resize(void **state)
{
	struct wt_fixture *f = *state;
	struct editform *ef = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char text[301], *s;
	WINDOW *w;

	memset(text, 'a', 300);
	text[300] = '\0';
	text[0] = 'S';
	assert_int_equal(editform_new("Edit", text, 4096, LINES, COLS, &ef, &err), 0);
	editform_draw(ef, &f->pal);
	wt_show();
	w = editform_window(ef);
	/* The cursor is at the end: the field shows the text's tail. */
	assert_null(strchr(wt_row(curscr, getbegy(w) + 2), 'S'));
	feed(ef, "Z");
	editform_resize(ef, 12, 50);
	editform_draw(ef, &f->pal);
	s = editform_text(ef);
	assert_int_equal(strlen(s), 301);
	assert_int_equal(s[0], 'S');
	assert_int_equal(s[300], 'Z');
	free(s);
	assert_int_equal(getmaxx(editform_window(ef)), 46);
	editform_free(ef);
	/* What cannot be edited faithfully is refused with the reason. */
	assert_int_equal(editform_new("Edit", "rm \x1b[2J", 4096, LINES, COLS, &ef, &err), -1);
	assert_null(ef);
	assert_non_null(strstr(err.msg, "control character"));
	lz_err_clear(&err);
	assert_int_equal(editform_new("Edit", "a\xff", 4096, LINES, COLS, &ef, &err), -1);
	assert_non_null(strstr(err.msg, "not UTF-8"));
	lz_err_clear(&err);
	assert_int_equal(editform_new("Edit", text, 10, LINES, COLS, &ef, &err), -1);
	assert_non_null(strstr(err.msg, "too long"));
	lz_err_clear(&err);
	/* The field stops at max characters. */
	assert_int_equal(editform_new("Edit", "make test", 12, LINES, COLS, &ef, &err), 0);
	feed(ef, " -j8 x");
	s = editform_text(ef);
	assert_string_equal(s, "make test -j");
	free(s);
	editform_free(ef);
}

static void
test_newtab_picks_a_profile_and_a_workspace(void **state)
{
	struct wt_fixture *f = *state;
	char **profiles = wt_strv("default", "web", "ml", NULL);
	struct newtab *nt = NULL;
	lz_err_t err = LZ_ERR_INIT;
	WINDOW *w;
	char *ws;
	int y;

	assert_int_equal(newtab_new(profiles, "web", "/home/u/proj", LINES, COLS, &nt, &err), 0);
	newtab_draw(nt, &f->pal);
	wt_show();
	w = newtab_window(nt);
	y = getbegy(w);
	assert_non_null(strstr(wt_row(curscr, y), "New sandbox tab"));
	assert_non_null(strstr(wt_row(curscr, y + 1), "Profile"));
	assert_non_null(strstr(wt_row(curscr, y + 2), "  default"));
	assert_non_null(strstr(wt_row(curscr, y + 3), "> web"));
	assert_non_null(strstr(wt_row(curscr, y + 4), "  ml"));
	assert_non_null(strstr(wt_row(curscr, y + 6), "Workspace"));
	assert_non_null(strstr(wt_row(curscr, y + 7), "/home/u/proj"));
	assert_string_equal(newtab_profile(nt), "web");
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_FN(KEY_DOWN)), NEWTAB_NONE);
	assert_string_equal(newtab_profile(nt), "ml");
	newtab_handle_key(nt, WIDGET_KEY_FN(KEY_DOWN));
	assert_string_equal(newtab_profile(nt), "ml");
	newtab_handle_key(nt, 'k');
	newtab_handle_key(nt, 'k');
	assert_string_equal(newtab_profile(nt), "default");
	newtab_draw(nt, &f->pal);
	wt_show();
	assert_non_null(strstr(wt_row(curscr, y + 2), "> default"));
	/* Tab to the path; typing there does not move the menu. */
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_WORKSPACE);
	newtab_handle_key(nt, 21);	/* C-u */
	for (const char *k = "/srv/k"; *k != '\0'; k++)
		newtab_handle_key(nt, *k);
	assert_string_equal(newtab_profile(nt), "default");
	newtab_resize(nt, 20, 60);
	ws = newtab_workspace(nt);
	assert_string_equal(ws, "/srv/k");
	free(ws);
	assert_string_equal(newtab_profile(nt), "default");
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_ACCEPT);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_ESC), NEWTAB_CANCEL);
	newtab_free(nt);
	lz_strv_free(profiles);
}

static char *
field_after(struct newtab *nt, const char *typed)
{
	newtab_handle_key(nt, 21);	/* C-u */
	for (const char *k = typed; *k != '\0'; k++)
		newtab_handle_key(nt, (unsigned char)*k);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	return newtab_workspace(nt);
}

static void
test_newtab_expands_tilde_and_completes_directories(void **state)
{
	char tmpl[] = "/tmp/lz-pathcomp-XXXXXX", p[256], *ws, *old_home = NULL;
	char **profiles = wt_strv("default", NULL);
	const char *dirs[] = { "alpha", "project-one", "project-two", ".hidden", "alpha/inner" };
	struct newtab *nt = NULL;
	lz_err_t err = LZ_ERR_INIT;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpl, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	/* A file is not a workspace: never offered. */
	snprintf(p, sizeof(p), "%s/alphabet.txt", tmpl);
	assert_non_null(fp = fopen(p, "w"));
	fclose(fp);
	if (getenv("HOME") != NULL)
		old_home = strdup(getenv("HOME"));
	setenv("HOME", tmpl, 1);

	assert_int_equal(newtab_new(profiles, NULL, "", LINES, COLS, &nt, &err), 0);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_WORKSPACE);
	/* ~ alone and ~/ expand; ~user is left as typed. */
	newtab_handle_key(nt, '~');
	ws = newtab_workspace(nt);
	assert_string_equal(ws, tmpl);
	free(ws);
	/* Unique: fills in with '/' (the file alphabet.txt does not count). */
	ws = field_after(nt, "~/al");
	snprintf(p, sizeof(p), "%s/alpha/", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	/* And again one level down: the field now holds the expanded path. */
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	ws = newtab_workspace(nt);
	snprintf(p, sizeof(p), "%s/alpha/inner/", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	/* Several: the longest common prefix, no '/'. */
	snprintf(p, sizeof(p), "%s/pr", tmpl);
	ws = field_after(nt, p);
	snprintf(p, sizeof(p), "%s/project-", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	/* Hidden only when asked for; no match leaves the text. */
	snprintf(p, sizeof(p), "%s/.h", tmpl);
	ws = field_after(nt, p);
	snprintf(p, sizeof(p), "%s/.hidden/", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	snprintf(p, sizeof(p), "%s/zz", tmpl);
	ws = field_after(nt, p);
	assert_string_equal(ws, p);
	free(ws);
	ws = pathcomp_expand("~nosuchuser/x");
	assert_string_equal(ws, "~nosuchuser/x");
	free(ws);
	ws = pathcomp_expand("a/~");
	assert_string_equal(ws, "a/~");
	free(ws);
	/* Shift-Tab goes back to the menu. */
	newtab_handle_key(nt, WIDGET_KEY_FN(KEY_BTAB));
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_PROFILE);
	newtab_free(nt);
	lz_strv_free(profiles);

	if (old_home != NULL)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", tmpl, dirs[i]);
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/alphabet.txt", tmpl);
	unlink(p);
	assert_int_equal(rmdir(tmpl), 0);
}

static void
test_newtab_needs_profiles_and_a_path(void **state)
{
	struct wt_fixture *f = *state;
	char *none[] = { NULL }, **one = wt_strv("solo", NULL);
	struct newtab *nt = (struct newtab *)1;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(newtab_new(none, NULL, NULL, LINES, COLS, &nt, &err), -1);
	assert_null(nt);
	assert_non_null(strstr(err.msg, "profiles:"));
	lz_err_clear(&err);
	assert_int_equal(newtab_new(one, "absent", NULL, LINES, COLS, &nt, &err), 0);
	assert_string_equal(newtab_profile(nt), "solo");
	/* Enter with no path goes to the path field instead of opening. */
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_NONE);
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_WORKSPACE);
	newtab_handle_key(nt, '.');
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_ACCEPT);
	/* Too small to hold menu and field: says so, still cancels. */
	newtab_resize(nt, 5, 30);
	newtab_draw(nt, &f->pal);
	assert_non_null(strstr(wt_row(newtab_window(nt), 1), "screen too small"));
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_NONE);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_ESC), NEWTAB_CANCEL);
	newtab_resize(nt, 24, 80);
	assert_string_equal(newtab_profile(nt), "solo");
	newtab_free(nt);
	lz_strv_free(one);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_editform_edits_the_command_in_place),
		cmocka_unit_test(test_editform_long_text_scrolls_and_survives_resize),
		cmocka_unit_test(test_newtab_picks_a_profile_and_a_workspace),
		cmocka_unit_test(test_newtab_needs_profiles_and_a_path),
		cmocka_unit_test(test_newtab_expands_tilde_and_completes_directories),
	};

	return cmocka_run_group_tests_name("widgets-forms", tests, wt_setup, wt_teardown);
}
