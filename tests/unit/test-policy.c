/* test-policy.c - auto-approve decisions, banned executables, entry validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

struct fx {
	char *dir;		/* temp dir: a private PATH dir with symlinks */
	char *path;		/* "<dir>/bin:/usr/bin:/bin" */
	struct policy *pol;
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);
	lz_err_t err = LZ_ERR_INIT;
	char *bin, *p;
	const char *entries[] = { "make test", "cargo build --release", "runtests-ok",
		"python3 -m pytest", NULL };

	f->dir = tu_mkdtemp("policy");
	bin = xasprintf("%s/bin", f->dir);
	assert_int_equal(mkdir(bin, 0700), 0);
	p = xasprintf("%s/runtests", bin);	/* an innocent name for bash */
	assert_int_equal(symlink("/usr/bin/bash", p), 0);
	free(p);
	p = xasprintf("%s/hop", bin);		/* two hops: hop -> runtests -> bash */
	assert_int_equal(symlink("runtests", p), 0);
	free(p);
	p = xasprintf("%s/runtests-ok", bin);	/* an innocent program */
	assert_int_equal(symlink("/usr/bin/true", p), 0);
	free(p);
	f->path = xasprintf("%s:/usr/bin:/bin", bin);
	free(bin);
	if (policy_new((char *const *)entries, 4, f->path, &f->pol, &err) < 0)
		fail_msg("policy_new: %s", err.msg);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->dir);
	free(f->dir);
	policy_free(f->pol);
	free(f->path);
	free(f);
	return 0;
}

/* Decide raw; check the verdict and that the reason mentions want_why. */
static void
expect(struct fx *f, const char *raw, enum policy_verdict want, const char *want_why)
{
	char **argv = NULL, *why = NULL;
	enum policy_verdict v;

	policy_decide_in(f->pol, raw, f->dir, &argv, &v, &why);
	if (v != want)
		fail_msg("'%s': %s (%s), want %s", raw, policy_verdict_name(v),
		    why != NULL ? why : "-", policy_verdict_name(want));
	if (want_why != NULL && (why == NULL || strstr(why, want_why) == NULL))
		fail_msg("'%s': reason '%s' lacks '%s'", raw, why != NULL ? why : "-", want_why);
	if (want == POLICY_AUTO_APPROVE)
		assert_null(why);
	if (want == POLICY_INVALID)
		assert_null(argv);
	else
		assert_non_null(argv);
	lz_strv_free(argv);
	free(why);
}

static void
test_policy_approves_exact_listed_vector(void **state)
{
	struct fx *f = *state;

	expect(f, "make test", POLICY_AUTO_APPROVE, NULL);
	expect(f, "  make   test ", POLICY_AUTO_APPROVE, NULL);
	expect(f, "cargo build --release", POLICY_AUTO_APPROVE, NULL);
	expect(f, "python3 -m pytest", POLICY_AUTO_APPROVE, NULL);
}

static void
test_policy_resolves_quotes_before_matching(void **state)
{
	struct fx *f = *state;

	expect(f, "make 'test'", POLICY_AUTO_APPROVE, NULL);
	expect(f, "\"make\" te''st", POLICY_AUTO_APPROVE, NULL);
	expect(f, "'make test'", POLICY_NEEDS_PROMPT, "not in escalation.auto_approve");
}

static void
test_policy_appended_arguments_force_prompt(void **state)
{
	struct fx *f = *state;

	expect(f, "make test -j4", POLICY_NEEDS_PROMPT, "appended to auto-approved 'make test'");
	expect(f, "make test ''", POLICY_NEEDS_PROMPT, "appended");
	expect(f, "cargo build --release --config x", POLICY_NEEDS_PROMPT, "appended");
	expect(f, "make", POLICY_NEEDS_PROMPT, "not in escalation.auto_approve");
	expect(f, "cargo build", POLICY_NEEDS_PROMPT, "not in escalation.auto_approve");
	expect(f, "make tests", POLICY_NEEDS_PROMPT, "not in");
}

static void
test_policy_each_metacharacter_forces_prompt(void **state)
{
	static const struct { const char *raw, *why; } cases[] = {
		{ "make test;id", "';'" }, { "make test | sh", "'|'" },
		{ "make test &", "'&'" }, { "make test $(id)", "'$('" },
		{ "make `id`", "'`'" }, { "make test > /etc/x", "'>'" },
		{ "make test < /etc/x", "'<'" }, { "make test\n", "a newline" },
		{ "make test\r", "a carriage return" }, { "make te\\st", "a backslash" },
		{ "make\ttest", "a control character" }, { "make test\x1b", "a control character" },
		{ "make test\x7f", "a control character" }, { "make te\xc2\x85st", "C1" },
		{ "make test\xff", "invalid UTF-8" },
		{ "make te\xe2\x80\x8bst", "an invisible or bidi format character" },
		{ "make 'test;'", "';'" },	/* even quoted: the raw text decides */
	};
	struct fx *f = *state;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect(f, cases[i].raw, POLICY_NEEDS_PROMPT, cases[i].why);
}

static void
test_policy_invalid_requests(void **state)
{
	struct fx *f = *state;

	expect(f, "make 'test", POLICY_INVALID, "unterminated single quote");
	expect(f, "make \"test", POLICY_INVALID, "unterminated double quote");
	expect(f, "   ", POLICY_INVALID, "empty command");
	expect(f, "", POLICY_INVALID, "empty command");
}

static void
test_policy_bans_git_by_name_path_and_relative(void **state)
{
	struct fx *f = *state;
	char *p = xasprintf("%s/git", f->dir);
	FILE *fp = fopen(p, "w");

	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(chmod(p, 0755), 0);
	expect(f, "git status", POLICY_NEEDS_PROMPT, "banned: 'git'");
	expect(f, "/usr/bin/git status", POLICY_NEEDS_PROMPT, "banned: 'git'");
	expect(f, "./git status", POLICY_NEEDS_PROMPT, "banned: 'git'");
	expect(f, "git-upload-pack .", POLICY_NEEDS_PROMPT, "banned: 'git-upload-pack'");
	free(p);
}

/* The inode check finds a banned name as PATH would: the first executable
 * regular file, so past a non-executable one and past a directory already
 * seen under another name (an alias looked in once, not skipped after). */
static void
test_policy_inode_check_follows_path_order_past_aliases(void **state)
{
	struct fx *f = *state;
	const char *entries[] = { "tool", NULL };
	struct policy *saved = f->pol;
	lz_err_t err = LZ_ERR_INIT;
	char *bin = xasprintf("%s/b", f->dir), *later = xasprintf("%s/later", f->dir);
	char *alias = xasprintf("%s/alias", f->dir), *path, *p, *q;

	assert_int_equal(mkdir(bin, 0700), 0);
	assert_int_equal(mkdir(later, 0700), 0);
	assert_int_equal(symlink(bin, alias), 0);
	tu_write_file(bin, "env", "not a program\n");	/* 0644: PATH passes it by */
	tu_write_file(later, "env", "#!/bin/true\n");
	p = xasprintf("%s/env", later);
	assert_int_equal(chmod(p, 0755), 0);
	q = xasprintf("%s/tool", bin);			/* the agent's name for it */
	assert_int_equal(link(p, q), 0);
	path = xasprintf("%s:%s:%s:/usr/bin", alias, bin, later);
	if (policy_new((char *const *)entries, 1, path, &f->pol, &err) < 0)
		fail_msg("policy_new: %s", err.msg);
	expect(f, "tool", POLICY_NEEDS_PROMPT, "'tool' is 'env'");
	policy_free(f->pol);
	f->pol = saved;
	free(bin);
	free(later);
	free(alias);
	free(path);
	free(p);
	free(q);
}

static void
test_policy_bans_symlinks_to_shells(void **state)
{
	struct fx *f = *state;

	expect(f, "runtests", POLICY_NEEDS_PROMPT, "'runtests' is 'bash', which is a shell");
	expect(f, "hop", POLICY_NEEDS_PROMPT, "is a shell");
	expect(f, "sh -c id", POLICY_NEEDS_PROMPT, "'sh' is a shell");
	expect(f, "runtests-ok", POLICY_AUTO_APPROVE, NULL);
}

static void
test_policy_bans_hard_links_to_banned_programs(void **state)
{
	struct fx *f = *state;
	char *p = xasprintf("%s/bin/innocent", f->dir);

	if (link("/usr/bin/bash", p) < 0) {
		free(p);
		if (errno == EXDEV || errno == EPERM)
			skip();
		fail_msg("link: %s", strerror(errno));
	}
	expect(f, "innocent", POLICY_NEEDS_PROMPT, "'innocent' is 'bash'");
	free(p);
}

static void
test_policy_ban_reason_for_interpreters_and_wrappers(void **state)
{
	static const char *banned[][5] = {
		{ "python3", "-c", "print(1)", NULL }, { "python3.11", "-Sc", "x", NULL },
		{ "perl", "-e", "x", NULL }, { "perl", "-Mstrict", "x", NULL },
		{ "node", "--eval=x", NULL }, { "ruby", "-e", "x", NULL },
		{ "php", "-r", "x", NULL }, { "env", "make", NULL }, { "sudo", "make", NULL },
		{ "xargs", "rm", NULL }, { "timeout", "5", "make", NULL },
		{ "find", ".", "-exec", "rm", NULL }, { "make", "CC=rm -rf ~", NULL },
		{ "make", "-f", "/tmp/evil.mk", NULL }, { "make", "--eval=all:;id", NULL },
		{ "tar", "--to-command=sh", NULL }, { "awk", "BEGIN{}", NULL },
		{ "busybox", "ls", NULL }, { "ssh", "host", NULL }, { "npx", "x", NULL },
	};
	static const char *ok[][5] = {
		{ "python3", "-m", "pytest", NULL }, { "python3", "script.py", NULL },
		{ "make", "test", NULL }, { "find", ".", "-name", "*.c", NULL },
		{ "cargo", "test", NULL }, { "node", "test.js", NULL }, { "shasum", NULL },
		{ "true", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++) {
		char *why = policy_ban_reason((char *const *)banned[i], "/usr/bin:/bin", "/");

		if (why == NULL)
			fail_msg("%s %s not banned", banned[i][0], banned[i][1]);
		free(why);
	}
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char *why = policy_ban_reason((char *const *)ok[i], "/usr/bin:/bin", "/");

		if (why != NULL)
			fail_msg("%s banned: %s", ok[i][0], why);
	}
}

static void
test_policy_entry_validate_rejects_banned_entries(void **state)
{
	static const char *bad[] = {
		"git status", "/usr/bin/git log", "git", "bash -c 'make test'", "sh",
		"env FOO=1 make", "sudo make install", "python3 -c 'import os'",
		"make test; id", "make 'x", "", "find . -exec rm {} +", "nice make",
	};
	static const char *good[] = { "make test", "cargo test", "python3 -m pytest", "npm test" };
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (policy_entry_validate(bad[i], &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
		lz_err_clear(&err);
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		if (policy_entry_validate(good[i], &err) < 0)
			fail_msg("'%s' rejected: %s", good[i], err.msg);
	assert_int_equal(policy_entry_validate("git status", &err), -1);
	assert_string_equal(err.msg,
	    "'git status' can never be auto-approved: 'git' runs hooks, aliases and "
	    "programs named in repository config; remove it");
	lz_err_clear(&err);
}

static void
test_policy_new_names_the_bad_entry(void **state)
{
	const char *entries[] = { "make test", "git pull" };
	struct policy *p = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(policy_new((char *const *)entries, 2, "/usr/bin:/bin", &p, &err), -1);
	assert_null(p);
	assert_non_null(strstr(err.msg, "escalation.auto_approve[1]: 'git pull'"));
	lz_err_clear(&err);
}

static void
test_policy_which_names_the_file_that_was_checked(void **state)
{
	struct fx *f = *state;
	char *w = policy_which(f->pol, "runtests-ok", NULL), *real = realpath("/usr/bin/true", NULL);

	assert_non_null(w);
	assert_string_equal(w, real);	/* through the policy's PATH and the symlink */
	free(w);
	w = policy_which(f->pol, "bin/runtests-ok", f->dir);
	assert_string_equal(w, real);
	free(w);
	free(real);
	assert_null(policy_which(f->pol, "no-such-program-here", NULL));
	assert_null(policy_which(f->pol, "/etc/passwd", NULL));	/* not executable */
	assert_null(policy_which(f->pol, "/tmp", NULL));
}

static void
test_policy_map_cwd_stays_inside_the_workspace(void **state)
{
	struct fx *f = *state;
	char *ws = xasprintf("%s/ws", f->dir), *p, *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(mkdir(ws, 0700), 0);
	p = xasprintf("%s/sub", ws);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/out", ws);	/* planted by the agent */
	assert_int_equal(symlink("/etc", p), 0);
	free(p);
	assert_int_equal(policy_map_cwd("/workspace", "/workspace", ws, &out, &err), 0);
	assert_string_equal(out, ws);
	free(out);
	assert_int_equal(policy_map_cwd("/workspace/sub", "/workspace", ws, &out, &err), 0);
	p = xasprintf("%s/sub", ws);
	assert_string_equal(out, p);
	free(p);
	free(out);
	assert_int_equal(policy_map_cwd("/workspace/out", "/workspace", ws, &out, &err), -1);
	assert_non_null(strstr(err.msg, "leads to /etc, outside the workspace"));
	lz_err_clear(&err);
	assert_int_equal(policy_map_cwd("/workspacex", "/workspace", ws, &out, &err), -1);
	assert_non_null(strstr(err.msg, "is not inside /workspace"));
	lz_err_clear(&err);
	assert_int_equal(policy_map_cwd("/workspace/../etc", "/workspace", ws, &out, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(policy_map_cwd("/tmp", "/workspace", ws, &out, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(policy_map_cwd("/workspace/missing", "/workspace", ws, &out, &err), -1);
	assert_non_null(strstr(err.msg, "No such file or directory"));
	lz_err_clear(&err);
	assert_null(out);
	free(ws);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_policy_approves_exact_listed_vector, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_resolves_quotes_before_matching, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_appended_arguments_force_prompt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_each_metacharacter_forces_prompt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_invalid_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_bans_git_by_name_path_and_relative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_bans_symlinks_to_shells, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_bans_hard_links_to_banned_programs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_inode_check_follows_path_order_past_aliases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_which_names_the_file_that_was_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_map_cwd_stays_inside_the_workspace, setup, teardown),
		cmocka_unit_test(test_policy_ban_reason_for_interpreters_and_wrappers),
		cmocka_unit_test(test_policy_entry_validate_rejects_banned_entries),
		cmocka_unit_test(test_policy_new_names_the_bad_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
