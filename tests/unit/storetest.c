/* storetest.c - the fixture of the state store's unit tests (storetest.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/audit.h"
#include "store/store.h"
#include "store/store-migrate.h"
#include "storetest.h"
#include "testutil.h"
#include "xmalloc.h"

int
fx_setup(void **state)
{
	struct fx *fx = xcalloc(1, sizeof *fx);

	fx->dir = tu_mkdtemp("store");
	fx->path = xasprintf("%s/state.db", fx->dir);
	*state = fx;
	return 0;
}

int
fx_teardown(void **state)
{
	struct fx *fx = *state;

	tu_rmrf(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx);
	return 0;
}

int64_t
fx_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
fx_raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}
