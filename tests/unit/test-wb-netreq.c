/* test-wb-netreq.c - network requests as the workbench shows them: the
 * panel line (pending with its countdown, decided with scope), and the
 * detail view with each grant's reach; a wildcard's reach is said, a broad
 * one is marked and asks twice. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "strv.h"
#include "wb/views/wb-netreq-text.h"
#include "xmalloc.h"

static struct netreq_item
item(const char *addr, const char *name, uint32_t port)
{
	struct netreq_item it;

	memset(&it, 0, sizeof it);
	it.id = 7;
	it.state = NETREQ_PENDING;
	it.kind = NETREQ_KIND_FLOW;
	it.proto = 6;
	it.port = port;
	it.attempts = 3;
	it.expires_ms = 10000;
	snprintf(it.addr, sizeof it.addr, "%s", addr);
	snprintf(it.name, sizeof it.name, "%s", name);
	return it;
}

static char *
joined(char **l)
{
	char *out = xstrdup("");

	for (size_t i = 0; l[i] != NULL; i++) {
		char *t = xasprintf("%s%s\n", out, l[i]);

		free(out);
		out = t;
	}
	return out;
}

static void
test_wb_netreq_line_pending_and_decided(void **state)
{
	struct netreq_item it = item("10.0.0.3", "api.example.com", 443);
	char *l;

	(void)state;
	l = wb_netreq_line(&it, 2500);
	assert_string_equal(l, "? api.example.com 10.0.0.3:443/tcp x3 8s");
	free(l);
	it.state = NETREQ_APPROVED;
	it.scope = NETREQ_SCOPE_RUN;
	l = wb_netreq_line(&it, 2500);
	assert_string_equal(l, "approved run api.example.com 10.0.0.3:443/tcp x3");
	free(l);
	it = item("10.0.0.3", "", 80);
	it.state = NETREQ_DENIED;
	it.scope = NETREQ_SCOPE_DENY;
	l = wb_netreq_line(&it, 0);
	assert_string_equal(l, "denied 10.0.0.3:80/tcp x3");
	free(l);
}

static void
test_wb_netreq_detail_shows_every_grant_and_its_reach(void **state)
{
	struct netreq_item it = item("10.0.0.3", "api.example.com", 443);
	struct grant_candidate c[WB_NETREQ_CANDIDATES];
	size_t n = wb_netreq_candidates(&it, c);
	char **l, *t;

	(void)state;
	assert_true(n >= 3);
	assert_int_equal(c[0].how, GRANT_EXACT);
	/* once: the flow, no grant */
	l = wb_netreq_detail(&it, c, n, 0, NETREQ_SCOPE_ONCE, 2500);
	t = joined(l);
	assert_non_null(strstr(t, "Destination:  10.0.0.3:443/tcp\n"));
	assert_non_null(strstr(t, "Name:         api.example.com\n"));
	assert_non_null(strstr(t, "Attempts:     3 (pending)\n"));
	assert_non_null(strstr(t, "Blocked in:   8s"));
	assert_non_null(strstr(t, "this flow only: 10.0.0.3:443/tcp"));
	assert_null(strstr(t, "Grant"));
	free(t);
	lz_strv_free(l);
	/* run: the grants, the chosen one marked, each with what it allows */
	assert_int_equal(c[1].how, GRANT_SUBDOMAINS);
	for (size_t i = 0; i < n; i++)
		if (c[i].how == GRANT_SUBDOMAINS) {
			l = wb_netreq_detail(&it, c, n, i, NETREQ_SCOPE_RUN, 2500);
			t = joined(l);
			assert_non_null(strstr(t, "> subdomains *.example.com"));
			assert_non_null(strstr(t, "this allows every subdomain of example.com"));
			assert_non_null(strstr(t, "  exact      api.example.com"));
			free(t);
			lz_strv_free(l);
		}
}

static void
test_wb_netreq_detail_marks_a_broad_grant(void **state)
{
	/* a name right under a TLD: *.com is never offered; any port on the name is not broad,
	 * the /24 is not broad, but nothing offered here may be a TLD wildcard */
	struct netreq_item it = item("10.0.0.3", "example.com", 443);
	struct grant_candidate c[WB_NETREQ_CANDIDATES];
	size_t n = wb_netreq_candidates(&it, c);

	(void)state;
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(c[i].entry, "*.com"));
	/* a broad candidate, built by hand as a coordinator's widen could be */
	c[0].how = GRANT_SUBDOMAINS;
	snprintf(c[0].entry, sizeof c[0].entry, "*.com");
	{
		lz_err_t err = LZ_ERR_INIT;
		char **l, *t;

		assert_int_equal(grant_preview("*.com", NULL, &c[0].reach, &err), 0);
		assert_true(c[0].reach.broad);
		l = wb_netreq_detail(&it, c, n, 0, NETREQ_SCOPE_PROFILE, 0);
		t = joined(l);
		assert_non_null(strstr(t, "BROAD grant ("));
		assert_non_null(strstr(t, "approving asks a second time"));
		assert_non_null(strstr(t, "for the profile"));
		free(t);
		lz_strv_free(l);
	}
}

static void
test_wb_netreq_dns_request(void **state)
{
	struct netreq_item it = item("", "files.example.org", 0);
	struct grant_dest d;
	char *l;

	(void)state;
	it.kind = NETREQ_KIND_DNS;
	it.proto = 1;	/* A */
	wb_netreq_dest(&it, &d);
	assert_int_equal(d.family, 0);
	assert_string_equal(d.name, "files.example.org");
	l = wb_netreq_line(&it, 0);
	assert_non_null(strstr(l, "dns"));
	assert_non_null(strstr(l, "files.example.org"));
	free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_netreq_line_pending_and_decided),
		cmocka_unit_test(test_wb_netreq_detail_shows_every_grant_and_its_reach),
		cmocka_unit_test(test_wb_netreq_detail_marks_a_broad_grant),
		cmocka_unit_test(test_wb_netreq_dns_request),
	};

	return cmocka_run_group_tests_name("wb-netreq", tests, NULL, NULL);
}
