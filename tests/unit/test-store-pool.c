/* test-store-pool.c - the state store's threadpool API (store_submit): jobs
 * in order off the loop, a done callback that submits more and closes the
 * store. The fixture is storetest.c. */
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

/* store_submit: 200 appends from the pool while a 10 ms timer runs. */
#define POOL_JOBS 200
#define POOL_WAIT_EVERY 50	/* these jobs wait for a tick of the loop */

struct pool {
	struct store *st;
	uv_timer_t timer;
	atomic_int ticks;
	int done, next, failures, ticks_at_last;
	pthread_t loop_thread;
	bool wrong_thread;
	char why[256];
};

struct pool_job {
	struct pool *p;
	int i;
};

static void
pool_tick_cb(uv_timer_t *t)
{
	struct pool *p = t->data;

	atomic_fetch_add(&p->ticks, 1);
}

static int
pool_work_cb(struct store *st, void *arg, lz_err_t *err)
{
	struct pool_job *j = arg;
	char detail[64];
	struct audit_rec rec = { .kind = "esc.request", .actor = "pool", .detail = detail };
	struct timespec ms1 = { 0, 1000000 };
	int64_t deadline;
	int t0;

	snprintf(detail, sizeof detail, "{\"i\":%d}", j->i);
	if (audit_append(st, &rec, NULL, err) < 0)
		return -1;
	if (j->i % POOL_WAIT_EVERY != POOL_WAIT_EVERY / 2)
		return 0;
	/* Only a loop that is not blocked by us can tick now. */
	t0 = atomic_load(&j->p->ticks);
	deadline = fx_mono_ms() + 5000;
	while (atomic_load(&j->p->ticks) == t0)
		if (fx_mono_ms() > deadline)
			return lz_err_set(err, ETIMEDOUT, "job %d: the loop did not tick while it ran", j->i);
		else
			nanosleep(&ms1, NULL);
	return 0;
}

static void
pool_done_cb(void *arg, int status, lz_err_t *err)
{
	struct pool_job *j = arg;
	struct pool *p = j->p;

	if (!pthread_equal(pthread_self(), p->loop_thread))
		p->wrong_thread = true;
	if (status != 0) {
		p->failures++;
		snprintf(p->why, sizeof p->why, "%s", err->msg != NULL ? err->msg : "?");
	}
	if (j->i != p->next)
		p->failures++;
	p->next++;
	if (++p->done == POOL_JOBS) {
		p->ticks_at_last = atomic_load(&p->ticks);
		uv_timer_stop(&p->timer);
		uv_close((uv_handle_t *)&p->timer, NULL);
	}
}

static int
pool_order_cb(const struct audit_row *row, void *arg)
{
	int *n = arg;
	char want[32];

	snprintf(want, sizeof want, "{\"i\":%d}", *n);
	if (row->seq != *n + 1 || strcmp(row->rec.detail, want) != 0)
		return 1;
	(*n)++;
	return 0;
}

static void
test_store_submit_runs_jobs_in_order_without_blocking_the_loop(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct audit_verify_result vr;
	struct pool_job *jobs = xcalloc(POOL_JOBS, sizeof *jobs);
	struct pool p = { 0 };
	uv_loop_t loop;
	int i, listed = 0;

	assert_int_equal(store_open(fx->path, &p.st, &err), 0);
	assert_int_equal(uv_loop_init(&loop), 0);
	p.loop_thread = pthread_self();
	assert_int_equal(uv_timer_init(&loop, &p.timer), 0);
	p.timer.data = &p;
	assert_int_equal(uv_timer_start(&p.timer, pool_tick_cb, 10, 10), 0);
	for (i = 0; i < POOL_JOBS; i++) {
		jobs[i] = (struct pool_job){ &p, i };
		store_submit(&loop, p.st, pool_work_cb, pool_done_cb, &jobs[i]);
	}
	assert_int_equal(store_pending(p.st), POOL_JOBS);
	assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	if (p.failures != 0)
		fail_msg("%d failures: %s", p.failures, p.why);
	assert_false(p.wrong_thread);
	assert_int_equal(p.done, POOL_JOBS);
	assert_int_equal(store_pending(p.st), 0);
	assert_true(p.ticks_at_last >= POOL_JOBS / POOL_WAIT_EVERY);
	assert_int_equal(audit_list(p.st, 0, 0, pool_order_cb, &listed, &err), 0);
	assert_int_equal(listed, POOL_JOBS);
	assert_int_equal(audit_verify(p.st, &vr, &err), 0);
	assert_true(vr.ok);
	assert_int_equal(vr.rows, POOL_JOBS);
	audit_verify_result_clear(&vr);
	store_close(p.st);
	free(jobs);
}

/* done callbacks chaining: the first submits a second, whose done closes. */
struct chain {
	uv_loop_t *loop;
	struct store *st;
	int order[2], n;
};

static int
chain_work_cb(struct store *st, void *arg, lz_err_t *err)
{
	struct chain *c = arg;

	return store_session_begin(st, c->n == 0 ? "first" : "second", "web", "/w", 1, 0, err);
}

static void
chain_second_done_cb(void *arg, int status, lz_err_t *err)
{
	struct chain *c = arg;

	(void)err;
	c->order[c->n++] = status == 0 ? 2 : -2;
	if (store_pending(c->st) == 0) {
		store_close(c->st);
		c->st = NULL;
	}
}

static void
chain_first_done_cb(void *arg, int status, lz_err_t *err)
{
	struct chain *c = arg;

	(void)err;
	c->order[c->n++] = status == 0 ? 1 : -1;
	store_submit(c->loop, c->st, chain_work_cb, chain_second_done_cb, c);
}

static void
test_store_done_callback_may_submit_more_and_close_the_store(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct chain c = { 0 };
	struct store *st = NULL;
	uv_loop_t loop;

	assert_int_equal(uv_loop_init(&loop), 0);
	c.loop = &loop;
	assert_int_equal(store_open(fx->path, &c.st, &err), 0);
	store_submit(&loop, c.st, chain_work_cb, chain_first_done_cb, &c);
	assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.order[0], 1);
	assert_int_equal(c.order[1], 2);
	assert_null(c.st);
	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT count(*) FROM sessions"), 2);
	store_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
		T(test_store_submit_runs_jobs_in_order_without_blocking_the_loop),
		T(test_store_done_callback_may_submit_more_and_close_the_store),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
