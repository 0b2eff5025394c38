/* test-client-dash.c - the dashboard's rows: a coordinator's status row
 * parsed (and anything else refused), and shown in `lazaret ls`'s columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "client-dash.h"

#define ROW "0123456789ab\tweb\tapproval\t2\t3725\t1610612736\t125\t40\t3\t1\t/home/u/p\t" \
	"lazaret-web-0123456789ab\trunning\tisolated\t1"

static void
test_client_dash_parses_a_row_and_shows_its_columns(void **state)
{
	struct client_dash_row r;
	lz_err_t err = LZ_ERR_INIT;
	char *t;

	(void)state;
	assert_int_equal(client_dash_parse(ROW, &r, &err), 0);
	assert_string_equal(r.state, "approval");
	assert_int_equal(r.sessions, 2);
	assert_int_equal(r.pending, 1);
	assert_int_equal(r.unreviewed, -1);
	assert_string_equal(r.workspace, "/home/u/p");
	r.unreviewed = 4;
	t = client_dash_tsv(&r);
	assert_string_equal(t, "0123456789ab\tweb\tapproval\t2\t1h02m\t1.5G\t12.5%\t40\t3\t1\t4\t"
	    "/home/u/p");
	free(t);
	client_dash_clear(&r);
	/* unknown memory and CPU (no cgroup): "-" */
	assert_int_equal(client_dash_parse("h\tp\tidle\t0\t5\t-1\t-1\t0\t0\t0\t/w\tc\trunning\t"
	    "direct\t0", &r, &err), 0);
	t = client_dash_tsv(&r);
	assert_string_equal(t, "h\tp\tidle\t0\t5s\t-\t-\t0\t0\t0\t-\t/w");
	free(t);
	client_dash_clear(&r);
}

static void
test_client_dash_refuses_what_is_not_a_row(void **state)
{
	static const char *const bad[] = {
		"",
		"h\tp\trunning",	/* an older coordinator's shorter row */
		"h\tp\trunning\tx\t5\t-1\t-1\t0\t0\t0\t/w\tc\trunning\tdirect\t0",
		"h\tp\trunning\t1\t5\t-1\t-1\t0\t0\t0\t/w\tc\trunning\tdirect\t0\textra",
		"h\tp\trunning\t1\t5\t-2\t-1\t0\t0\t0\t/w\tc\trunning\tdirect\t0",
		"h\tp\trunning\t1\t5\t99999999999999999999\t-1\t0\t0\t0\t/w\tc\trunning\tdirect\t0",
		"h\tp\trunning\t1\t5\t-1\t-1\t0\t0\t0\t/w\tc\trunning\tdirect\t",
	};
	struct client_dash_row r;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(client_dash_parse(bad[i], &r, &err), -1);
		assert_non_null(err.msg);
		lz_err_clear(&err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_dash_parses_a_row_and_shows_its_columns),
		cmocka_unit_test(test_client_dash_refuses_what_is_not_a_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
