/* test-egress-log.c - the egress log in a real SQLite state store. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netctl-text.h"
#include "store/egress-log.h"
#include "xmalloc.h"

struct seen {
	unsigned n;
	struct netctl_event first, last;
};

static int
seen_cb(const struct netctl_event *e, void *arg)
{
	struct seen *s = arg;

	if (s->n++ == 0)
		s->first = *e;
	s->last = *e;
	return 0;
}

static struct store *
open_tmp(char **dir)
{
	char tmpl[] = "/tmp/lz-egress-log.XXXXXX", *path;
	struct store *st = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_non_null(mkdtemp(tmpl));
	*dir = xstrdup(tmpl);
	path = xasprintf("%s/state.db", tmpl);
	assert_int_equal(store_open(path, &st, &err), 0);
	free(path);
	return st;
}

static void
close_tmp(struct store *st, char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	store_close(st);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir);
}

static void
test_egress_log_keeps_rows_and_counts(void **state)
{
	char *dir;
	struct store *st = open_tmp(&dir);
	struct netctl_event e = { .kind = NETCTL_EV_FLOW, .allowed = 1, .time_ms = 1000,
		.proto = 6, .port = 443 };
	struct egress_log_counts c;
	struct seen s = { 0 };
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	strcpy(e.addr, "10.0.2.2");
	strcpy(e.name, "api.example.com");
	strcpy(e.rule, "dns");
	assert_int_equal(egress_log_add(st, &e, &err), 0);
	e.allowed = 0;
	e.port = 8081;
	strcpy(e.rule, "default");
	assert_int_equal(egress_log_add(st, &e, &err), 0);
	e.kind = NETCTL_EV_DNS;
	strcpy(e.name, "blocked.test");
	assert_int_equal(egress_log_add(st, &e, &err), 0);
	e.kind = NETCTL_EV_LOST;
	e.count = 7;
	assert_int_equal(egress_log_add(st, &e, &err), 0);
	assert_int_equal(egress_log_list(st, 0, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.first.name, "api.example.com");
	assert_int_equal(s.first.port, 443);
	assert_int_equal(s.first.time_ms, 1000);
	assert_int_equal(egress_log_counts(st, &c, &err), 0);
	assert_int_equal(c.flows_allowed, 1);
	assert_int_equal(c.flows_blocked, 1);
	assert_int_equal(c.dns_refused, 1);
	assert_int_equal(c.lost, 7);
	memset(&s, 0, sizeof s);
	assert_int_equal(egress_log_list(st, 2, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.first.name, "blocked.test");
	close_tmp(st, dir);
}

static void
test_egress_log_drops_the_oldest_beyond_the_bound(void **state)
{
	char *dir;
	struct store *st = open_tmp(&dir);
	struct netctl_event e = { .kind = NETCTL_EV_FLOW, .proto = 17 };
	struct egress_log_counts c;
	struct seen s = { 0 };
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(store_tx_begin(st, &err), 0);	/* one fsync for the lot */
	for (unsigned i = 0; i < EGRESS_LOG_MAX + 50; i++) {
		e.port = i;
		assert_int_equal(egress_log_add(st, &e, &err), 0);
	}
	assert_int_equal(store_tx_commit(st, &err), 0);
	assert_int_equal(egress_log_list(st, 0, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, EGRESS_LOG_MAX);
	assert_int_equal(s.first.port, 50);
	assert_int_equal(s.last.port, EGRESS_LOG_MAX + 49);
	assert_int_equal(egress_log_counts(st, &c, &err), 0);
	assert_int_equal(c.flows_blocked, EGRESS_LOG_MAX + 50);	/* counts are kept */
	close_tmp(st, dir);
}

static void
test_egress_event_text_and_json(void **state)
{
	struct netctl_event e = { .kind = NETCTL_EV_FLOW, .allowed = 0, .time_ms = 1764748800000ull,
		.proto = 6, .port = 8081 };
	char *t;

	(void)state;
	strcpy(e.addr, "10.0.2.2");
	strcpy(e.rule, "guard: the host's loopback");
	t = netctl_text_event(&e, false);
	assert_string_equal(t, "2025-12-03 08:00:00  deny   tcp     10.0.2.2:8081            "
	    "(guard: the host's loopback)");
	free(t);
	t = netctl_text_event(&e, true);
	assert_string_equal(t, "{\"ts_ms\":1764748800000,\"kind\":\"flow\",\"verdict\":\"deny\","
	    "\"proto\":\"tcp\",\"addr\":\"10.0.2.2\",\"port\":8081,\"name\":\"\","
	    "\"rule\":\"guard: the host's loopback\",\"count\":0}");
	free(t);
	e.kind = NETCTL_EV_DNS;
	e.proto = 28;
	strcpy(e.name, "exfil.example.org");
	strcpy(e.rule, "not in policy");
	t = netctl_text_event(&e, false);
	assert_non_null(strstr(t, "deny   dns     AAAA   exfil.example.org  (not in policy; 0 addresses)"));
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_egress_log_keeps_rows_and_counts),
		cmocka_unit_test(test_egress_log_drops_the_oldest_beyond_the_bound),
		cmocka_unit_test(test_egress_event_text_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
