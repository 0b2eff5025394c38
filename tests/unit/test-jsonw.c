/* test-jsonw.c - the JSON writer always produces valid, escaped JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "jsonw.h"

static void
test_jsonw_nested_objects_and_arrays_have_commas_in_the_right_places(void **state)
{
	struct lz_jsonw w;
	char *s;

	(void)state;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "a"); lz_jsonw_int(&w, -5);
	lz_jsonw_key(&w, "b"); lz_jsonw_arr_open(&w);
	lz_jsonw_str(&w, "x"); lz_jsonw_bool(&w, true); lz_jsonw_null(&w);
	lz_jsonw_obj_open(&w); lz_jsonw_obj_close(&w);
	lz_jsonw_arr_close(&w);
	lz_jsonw_key(&w, "c"); lz_jsonw_str(&w, NULL);
	lz_jsonw_obj_close(&w);
	s = lz_jsonw_steal(&w);
	assert_string_equal(s, "{\"a\":-5,\"b\":[\"x\",true,null,{}],\"c\":null}");
	free(s);
}

static void
test_jsonw_escapes_quotes_controls_and_invalid_utf8(void **state)
{
	struct lz_jsonw w;
	char *s;

	(void)state;
	lz_jsonw_init(&w);
	lz_jsonw_str(&w, "q\"b\\n\n\x01\x7f \xc3\xa9 \xff \xe6\xbc\xa2");
	s = lz_jsonw_steal(&w);
	assert_string_equal(s, "\"q\\\"b\\\\n\\n\\u0001\\u007f \xc3\xa9 \\u00ff \xe6\xbc\xa2\"");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsonw_nested_objects_and_arrays_have_commas_in_the_right_places),
		cmocka_unit_test(test_jsonw_escapes_quotes_controls_and_invalid_utf8),
	};

	return cmocka_run_group_tests_name("jsonw", tests, NULL, NULL);
}
