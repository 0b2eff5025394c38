/* test-wb-egroup.c - the Egress list's grouping (wb-egroup.c): 50 flows to
 * 3 destinations are 3 rows with their counts, a name's addresses are one
 * row, allowed and blocked apart, the blocked-only filter, last seen and
 * the entry that decided, lost events counted, the bound on rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "wb/views/wb-egroup.h"

static struct netctl_event
flow(const char *addr, unsigned port, const char *name, bool allowed, const char *rule, uint64_t ms)
{
	struct netctl_event e;

	memset(&e, 0, sizeof e);
	e.kind = NETCTL_EV_FLOW;
	e.allowed = allowed;
	e.time_ms = ms;
	e.proto = IPPROTO_TCP;
	e.port = port;
	snprintf(e.addr, sizeof e.addr, "%s", addr);
	snprintf(e.name, sizeof e.name, "%s", name);
	snprintf(e.rule, sizeof e.rule, "%s", rule);
	return e;
}

/* Row i's text without its time of day (the test's time zone is not ours). */
static char *
row(struct wb_egroup *g, size_t i, bool blocked_only, bool *blocked)
{
	char *r = wb_egroup_row(g, i, blocked_only, blocked), *t;

	assert_non_null(r);
	t = r + 11;	/* "allow NNNN HH:MM dest": HH:MM and its blank go */
	assert_int_equal(t[2], ':');
	memmove(t, t + 6, strlen(t + 6) + 1);
	return r;
}

static void
test_wb_egroup_fifty_flows_to_three_destinations_are_three_rows(void **state)
{
	struct wb_egroup *g = wb_egroup_new();
	bool blocked;
	char *r;

	(void)state;
	for (int i = 0; i < 50; i++) {
		struct netctl_event e = i % 5 == 0 ? flow("10.214.0.4", 9, "", false, "default", 1000 + i) :
		    i % 2 ? flow("10.214.0.2", 8080, "", true, "10.214.0.2:8080", 1000 + i) :
		    flow("10.214.0.3", 8081, "", true, "10.214.0.3", 1000 + i);

		wb_egroup_add(g, &e);
	}
	assert_int_equal(wb_egroup_count(g), 3);
	/* in the order of each group's last event: 45, 48, 49 */
	r = row(g, 0, false, &blocked);
	assert_string_equal(r, "block   10 10.214.0.4:9  via default");
	assert_true(blocked);
	free(r);
	r = row(g, 1, false, &blocked);
	assert_string_equal(r, "allow   20 10.214.0.3:8081  via 10.214.0.3");
	assert_false(blocked);
	free(r);
	r = row(g, 2, false, &blocked);
	assert_string_equal(r, "allow   20 10.214.0.2:8080  via 10.214.0.2:8080");
	free(r);
	assert_null(wb_egroup_row(g, 3, false, &blocked));
	/* a new event of the top group moves it to the bottom, where a live list looks */
	{
		struct netctl_event e = flow("10.214.0.4", 9, "", false, "default", 2000);

		assert_false(wb_egroup_add(g, &e));
	}
	r = row(g, 2, false, &blocked);
	assert_string_equal(r, "block   11 10.214.0.4:9  via default");
	free(r);
	r = row(g, 0, false, &blocked);
	assert_string_equal(r, "allow   20 10.214.0.3:8081  via 10.214.0.3");
	free(r);
	/* b: the blocked ones alone */
	assert_int_equal(wb_egroup_count_shown(g, true), 1);
	r = row(g, 0, true, &blocked);
	assert_string_equal(r, "block   11 10.214.0.4:9  via default");
	free(r);
	assert_null(wb_egroup_row(g, 1, true, &blocked));
	wb_egroup_clear(g);
	assert_int_equal(wb_egroup_count(g), 0);
	wb_egroup_free(g);
	wb_egroup_free(NULL);
}

static void
test_wb_egroup_names_group_addresses_and_verdicts_stay_apart(void **state)
{
	struct wb_egroup *g = wb_egroup_new();
	struct netctl_event a = flow("151.101.2.132", 443, "deb.debian.org", true, "*.debian.org", 5000);
	struct netctl_event b = flow("151.101.66.132", 443, "deb.debian.org", true, "*.debian.org", 9000);
	struct netctl_event c = flow("151.101.66.132", 443, "deb.debian.org", false, "guard: x", 7000);
	struct netctl_event d;
	bool blocked;
	char *r, hhmm[8];
	time_t t = 9;
	struct tm tm;

	(void)state;
	wb_egroup_add(g, &a);
	wb_egroup_add(g, &b);
	wb_egroup_add(g, &c);
	assert_int_equal(wb_egroup_count(g), 2);
	r = wb_egroup_row(g, 0, false, &blocked);
	/* the last seen is the newest event's */
	localtime_r(&t, &tm);
	strftime(hhmm, sizeof hhmm, "%H:%M", &tm);
	assert_non_null(strstr(r, hhmm));
	assert_non_null(strstr(r, "   2 "));
	assert_non_null(strstr(r, "deb.debian.org:443  via *.debian.org"));
	free(r);
	memset(&d, 0, sizeof d);
	d.kind = NETCTL_EV_DNS;
	d.allowed = 1;
	d.proto = 1;
	snprintf(d.name, sizeof d.name, "deb.debian.org");
	snprintf(d.rule, sizeof d.rule, "*.debian.org");
	wb_egroup_add(g, &d);
	wb_egroup_add(g, &d);
	d.kind = NETCTL_EV_LOST;
	d.count = 120;
	wb_egroup_add(g, &d);
	assert_int_equal(wb_egroup_count(g), 4);
	r = row(g, 2, false, &blocked);
	assert_string_equal(r, "allow    2 dns deb.debian.org  via *.debian.org");
	free(r);
	r = row(g, 3, false, &blocked);
	assert_non_null(strstr(r, "lost   120 events lost"));
	free(r);
	wb_egroup_free(g);
}

static void
test_wb_egroup_keeps_a_bounded_number_of_rows(void **state)
{
	struct wb_egroup *g = wb_egroup_new();
	char addr[32];
	bool blocked;
	char *r;

	(void)state;
	for (int i = 0; i < WB_EGROUP_MAX + 10; i++) {
		struct netctl_event e;

		snprintf(addr, sizeof addr, "10.1.%d.%d", i / 250, i % 250);
		e = flow(addr, 80, "", false, "default", 1);
		wb_egroup_add(g, &e);
	}
	assert_int_equal(wb_egroup_count(g), WB_EGROUP_MAX);
	r = row(g, 0, false, &blocked);
	assert_string_equal(r, "block    1 10.1.0.10:80  via default");	/* the oldest 10 went */
	free(r);
	wb_egroup_free(g);
}

/* A refused brokered request as a notice: the credential, method and path
 * and why; the agent's control bytes made harmless, a long path cut. */
static void
test_wb_egroup_refused_text_is_bounded_and_printable(void **state)
{
	struct netctl_event e = { .kind = NETCTL_EV_BROKER, .allowed = 0, .proto = 403 };
	char *t;

	(void)state;
	snprintf(e.name, sizeof e.name, "DELETE /v1/admin");
	snprintf(e.rule, sizeof e.rule, "credential testapi up 0 down 0: outside the allow list");
	t = wb_egroup_refused_text(&e);
	assert_string_equal(t, "broker refused testapi: DELETE /v1/admin (outside the allow list)");
	free(t);
	snprintf(e.name, sizeof e.name, "GET /a\033[2J\r\n\x7f\xc3\xa9%0200d", 7);
	snprintf(e.rule, sizeof e.rule, "credential testapi up 0 down 0");
	t = wb_egroup_refused_text(&e);
	assert_non_null(strstr(t, "GET /a?[2J?????000"));
	assert_null(strchr(t, '\033'));
	assert_int_equal(strlen(t), strlen("broker refused testapi: ") + 80 + 3);
	assert_string_equal(t + strlen(t) - 3, "...");
	free(t);
	e.allowed = 1;
	assert_null(wb_egroup_refused_text(&e));
	e.allowed = 0;
	e.kind = NETCTL_EV_FLOW;
	assert_null(wb_egroup_refused_text(&e));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_egroup_fifty_flows_to_three_destinations_are_three_rows),
		cmocka_unit_test(test_wb_egroup_names_group_addresses_and_verdicts_stay_apart),
		cmocka_unit_test(test_wb_egroup_keeps_a_bounded_number_of_rows),
		cmocka_unit_test(test_wb_egroup_refused_text_is_bounded_and_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
