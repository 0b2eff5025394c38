/* test-sidelist-follow.c - the side panel's lists follow new lines like
 * tail -f while their selection is on the last one, and stay where the
 * user scrolled back to (the Egress list, issue 28 item 6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "sidelist.h"

static void
set_lines(struct sidelist *sl, size_t n)
{
	struct sidelist_item it[16];
	char text[16][32];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(text[i], sizeof text[i], "event %zu", i);
		it[i] = (struct sidelist_item){ NULL, text[i], false };
	}
	sidelist_set(sl, SIDELIST_EGRESS, it, n);
}

static void
test_sidelist_follows_new_lines_unless_scrolled_back(void **state)
{
	struct sidelist *sl = sidelist_new();

	(void)state;
	set_lines(sl, 3);
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), 2);
	set_lines(sl, 5);
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), 4);	/* followed */
	sidelist_select(sl, SIDELIST_EGRESS, 1);	/* the user scrolls back */
	set_lines(sl, 9);
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), 1);	/* stays */
	sidelist_select(sl, SIDELIST_EGRESS, 8);	/* back to the end */
	set_lines(sl, 12);
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), 11);
	set_lines(sl, 0);
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), -1);
	sidelist_free(sl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sidelist_follows_new_lines_unless_scrolled_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
