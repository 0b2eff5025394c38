/* storetest.h - the fixture the state store's unit tests share
 * (test-store.c, test-store-pool.c): a private directory with a state.db
 * path per test. storetest.c is linked into every unit test, like
 * testutil.c. */
#ifndef LZ_STORETEST_H
#define LZ_STORETEST_H

#include <stdint.h>
#include <sqlite3.h>

/* The cmocka state of a store test. */
struct fx {
	char *dir;
	char *path;	/* dir/state.db, not made */
};

/* cmocka setup and teardown: a fresh struct fx in *state, then removed. */
int fx_setup(void **state);
int fx_teardown(void **state);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t fx_mono_ms(void);
/* The one integer sql selects; fails the test on an error. */
int64_t fx_raw_int(sqlite3 *db, const char *sql);

#endif
