/* test-surface.c - the executable-surface table, path patterns, the JSON
 * reader (package.json keys, escapes, repeated keys, hostile input) and the
 * classifier over fake blobs; the shipped data/surface.tsv parses and flags
 * what the issue lists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "surface-json.h"
#include "review/surface.h"
#include "xmalloc.h"

static void
test_surface_path_patterns_match_names_dirs_and_paths_at_any_depth(void **state)
{
	(void)state;
	assert_true(surface_path_match("Makefile", "Makefile"));
	assert_true(surface_path_match("Makefile", "sub/dir/Makefile"));
	assert_true(surface_path_match("Makefile", "MAKEFILE"));
	assert_false(surface_path_match("Makefile", "Makefile.txt"));
	assert_true(surface_path_match("*.mk", "rules/x.mk"));
	assert_true(surface_path_match(".github/workflows/", ".github/workflows/x.yml"));
	assert_true(surface_path_match(".github/workflows/", "pkg/.github/workflows/x.yml"));
	assert_false(surface_path_match(".github/workflows/", ".github/workflows"));
	assert_false(surface_path_match(".github/workflows/", "a.github/workflows/x"));
	assert_true(surface_path_match(".vscode/tasks.json", "app/.vscode/tasks.json"));
	assert_false(surface_path_match(".vscode/tasks.json", ".vscode/tasks.json.bak"));
	assert_true(surface_path_match(".env.*", ".env.local"));
	assert_false(surface_path_match(".env", "x.env"));
}

static void
test_surface_table_errors_name_file_and_line(void **state)
{
	struct surface_table t;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(surface_table_parse("# c\npath\tMakefile\t-\n", 21, "s.tsv", &t, &err), -1);
	assert_string_equal(err.msg, "s.tsv:2: expected 4 tab-separated columns: kind pattern key reason");
	lz_err_clear(&err);
	assert_int_equal(surface_table_parse("json\tpackage.json\t-\tr\n", 22, "s.tsv", &t, &err), -1);
	assert_string_equal(err.msg, "s.tsv:1: a json rule needs a key");
	lz_err_clear(&err);
	assert_int_equal(surface_table_parse("mode\tsetuid\t-\tr\n", 16, "s.tsv", &t, &err), -1);
	assert_non_null(strstr(err.msg, "s.tsv:1: mode pattern must be"));
	lz_err_clear(&err);
	assert_int_equal(surface_table_parse("# only\n", 7, "s.tsv", &t, &err), -1);
	assert_string_equal(err.msg, "s.tsv:1: no rules");
	lz_err_clear(&err);
}

struct names {
	char buf[512];
};

static void
names_cb(const char *name, void *arg)
{
	struct names *n = arg;

	strncat(n->buf, name, sizeof n->buf - strlen(n->buf) - 2);
	strcat(n->buf, " ");
}

static size_t
json_diff_str(const char *a, const char *b, const char *top, char out[512])
{
	struct surface_json ja, jb;
	struct names n = { "" };
	size_t r;

	assert_int_equal(surface_json_parse((const uint8_t *)a, strlen(a), &ja, NULL), 0);
	assert_int_equal(surface_json_parse((const uint8_t *)b, strlen(b), &jb, NULL), 0);
	r = surface_json_diff(&ja, &jb, top, names_cb, &n);
	strcpy(out, n.buf);
	surface_json_clear(&ja);
	surface_json_clear(&jb);
	return r;
}

static void
test_surface_json_flags_changed_script_keys_not_other_keys(void **state)
{
	char out[512];

	(void)state;
	/* Only the description changed: nothing under scripts. */
	assert_int_equal(json_diff_str("{\"description\":\"a\",\"scripts\":{\"t\":\"jest\"}}",
	    "{ \"description\" : \"b\",\n  \"scripts\": { \"t\": \"jest\" } }", "scripts", out), 0);
	assert_int_equal(json_diff_str("{\"scripts\":{\"t\":\"jest\",\"x\":1}}",
	    "{\"scripts\":{\"t\":\"jest --bail\",\"postinstall\":\"curl x|sh\"}}", "scripts", out), 3);
	assert_string_equal(out, "scripts.t scripts.x scripts.postinstall ");
	/* A key spelled with escapes is the key JSON.parse sees. */
	assert_int_equal(json_diff_str("{}", "{\"scr\\u0069pts\":{\"prepare\":\"x\"}}", "scripts", out), 1);
	assert_string_equal(out, "scripts.prepare ");
	/* A repeated key: the last one counts, as in JSON.parse. */
	assert_int_equal(json_diff_str("{\"scripts\":{\"a\":\"1\"}}",
	    "{\"scripts\":{\"a\":\"1\"},\"scripts\":{\"b\":\"2\"}}", "scripts", out), 2);
	/* bin as a string, then an object. */
	assert_int_equal(json_diff_str("{\"bin\":\"x.js\"}", "{\"bin\":{\"x\":\"x.js\"}}", "bin", out), 1);
	assert_string_equal(out, "bin ");
}

static void
test_surface_json_refuses_hostile_input_with_the_byte(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{", "{\"a\"}", "{\"a\":1,}", "{\"a\":\"\\u0000\"}", "{\"a\":tru}",
		"{\"a\":1} x", "{\"a\":\"\x01\"}", "{\"a\":\"\\x\"}",
	};
	struct surface_json js;
	lz_err_t err = LZ_ERR_INIT;
	char deep[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(surface_json_parse((const uint8_t *)bad[i], strlen(bad[i]), &js, &err), -1);
		assert_non_null(strstr(err.msg, "invalid JSON at byte"));
		lz_err_clear(&err);
	}
	memset(deep, '[', sizeof deep);
	memcpy(deep, "{\"a\":", 5);
	assert_int_equal(surface_json_parse((const uint8_t *)deep, sizeof deep, &js, &err), -1);
	assert_non_null(strstr(err.msg, "nested too deeply"));
	lz_err_clear(&err);
}

/* Fake blobs: oid "1" .. "9" index into this table. */
static const char *const blobs[] = {
	"", "{\"description\":\"a\",\"scripts\":{\"test\":\"jest\"}}",
	"{\"description\":\"b\",\"scripts\":{\"test\":\"jest\"}}",
	"{\"description\":\"a\",\"scripts\":{\"test\":\"jest\",\"postinstall\":\"x\"}}",
	"*.c filter=evil\n", "*.txt text eol=lf\n", "#!/bin/sh\x1b[2J\necho\n", "../../../etc/passwd",
	"../sibling", "plain\n",
};

static int
blob_cb(void *arg, const char *oid, size_t max, uint8_t **buf, size_t *len, size_t *size,
    lz_err_t *err)
{
	const char *b = blobs[oid[0] - '0'];

	(void)arg; (void)err;
	*size = strlen(b);
	*len = *size < max ? *size : max;
	*buf = xmalloc(*len + 1);
	memcpy(*buf, b, *len);
	return 0;
}

static void
test_surface_classify_with_the_shipped_table(void **state)
{
	struct surface_table t;
	struct surface_result r;
	lz_err_t err = LZ_ERR_INIT;
	struct surface_change c[] = {
		{ 'M', 0100644, 0100644, "1", "2", (char *)"package.json", false },	/* description only */
		{ 'M', 0100644, 0100644, "1", "3", (char *)"web/package.json", false },
		{ 'A', 0, 0100644, "0", "4", (char *)".gitattributes", false },
		{ 'A', 0, 0100644, "0", "5", (char *)"docs/.gitattributes", false },	/* no driver */
		{ 'A', 0, 0100755, "0", "6", (char *)"tool", false },
		{ 'A', 0, 0120000, "0", "7", (char *)"a/b/pw", false },
		{ 'A', 0, 0120000, "0", "8", (char *)"a/b/ok", false },
		{ 'M', 0100644, 0100644, "9", "9", (char *)"src/main.c", false },
		{ 'D', 0100644, 0, "9", "0", (char *)"Makefile", false },
		{ 'A', 0, 0100644, "0", "9", (char *)"img.png", true },
	};
	char line[512];
	size_t i;

	(void)state;
	setenv(SURFACE_TABLE_ENV, "data/surface.tsv", 1);
	if (surface_table_load(&t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(surface_classify(&t, c, sizeof c / sizeof c[0], blob_cb, NULL, &r, &err), 0);
	{
		static const char *const want[] = {
			"web/package.json|json|scripts.postinstall",
			".gitattributes|attr|filter=evil",
			"tool|mode|(null)",
			"tool|mode|#!/bin/sh?[2J",
			"a/b/pw|mode|-> ../../../etc/passwd",
			"a/b/ok|mode|-> ../sibling",
			"Makefile|path|deleted",
			"img.png|mode|(null)",
		};

		for (i = 0; i < r.n; i++)
			printf("# flag %s %s %s\n", r.flags[i].path, r.flags[i].rule,
			    r.flags[i].detail ? r.flags[i].detail : "-");
		assert_int_equal(r.n, sizeof want / sizeof want[0]);
		for (i = 0; i < r.n; i++) {
			snprintf(line, sizeof line, "%s|%s|%s", r.flags[i].path, r.flags[i].kind,
			    r.flags[i].detail ? r.flags[i].detail : "(null)");
			assert_string_equal(line, want[i]);
		}
		assert_string_equal(r.flags[4].rule, "symlink-out");
		assert_string_equal(r.flags[5].rule, "symlink");
	}
	surface_result_clear(&r);
	surface_table_clear(&t);
	unsetenv(SURFACE_TABLE_ENV);
}

static void
test_surface_raw_parse_reads_git_output_and_refuses_garbage(void **state)
{
	static const char raw[] = ":100644 100755 aaaa bbbb M\0a b\0:000000 120000 0000 cccc A\0l\0";
	static const char num[] = "-\t-\ta b\0" "1\t0\tl\0";
	struct surface_change *ch;
	size_t n;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(surface_raw_parse(raw, sizeof raw - 1, &ch, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ch[0].path, "a b");
	assert_int_equal(ch[0].new_mode, 0100755);
	assert_int_equal(ch[1].status, 'A');
	assert_int_equal(surface_numstat_apply(num, sizeof num - 1, ch, n, &err), 0);
	assert_true(ch[0].binary);
	assert_false(ch[1].binary);
	surface_changes_free(ch, n);
	assert_int_equal(surface_raw_parse(":1006 x\0", 8, &ch, &n, &err), -1);
	assert_non_null(strstr(err.msg, "git diff --raw"));
	lz_err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_surface_path_patterns_match_names_dirs_and_paths_at_any_depth),
		cmocka_unit_test(test_surface_table_errors_name_file_and_line),
		cmocka_unit_test(test_surface_json_flags_changed_script_keys_not_other_keys),
		cmocka_unit_test(test_surface_json_refuses_hostile_input_with_the_byte),
		cmocka_unit_test(test_surface_classify_with_the_shipped_table),
		cmocka_unit_test(test_surface_raw_parse_reads_git_output_and_refuses_garbage),
	};

	return cmocka_run_group_tests_name("surface", tests, NULL, NULL);
}
