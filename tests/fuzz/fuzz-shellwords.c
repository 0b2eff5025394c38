/* fuzz-shellwords.c - libFuzzer harness: split never crashes, join() then
 * split() gives the same vector back, and the policy decision never crashes
 * and never auto-approves a request with a metacharacter. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	char **v = NULL, **w = NULL, *joined;

	(void)lz_shellwords_scan((const char *)data, size);
	free(lz_shellwords_visible((const char *)data, size));
	if (lz_shellwords_split((const char *)data, size, &v, &err) < 0) {
		LZ_ASSERT(v == NULL && err.msg != NULL);
		lz_err_clear(&err);
		return 0;
	}
	{
		static struct policy *pol;
		static const char *const entries[] = { "make test", "true", "python3 -m pytest" };
		char **pv = NULL, *why = NULL, *s0 = xstrndup((const char *)data, size);
		enum policy_verdict verdict;

		/* an empty PATH: decisions read nothing but what the input names */
		if (pol == NULL)
			LZ_ASSERT(policy_new((char *const *)entries, 3, "/nonexistent", &pol, NULL) == 0);
		policy_decide_in(pol, s0, "/nonexistent", &pv, &verdict, &why);
		if (verdict == POLICY_AUTO_APPROVE)
			LZ_ASSERT(lz_shellwords_scan((const char *)data, size) == 0 &&
			    strlen(s0) == size);
		lz_strv_free(pv);
		free(why);
		free(s0);
	}
	joined = lz_shellwords_join(v);
	if (strlen(joined) <= LZ_SHELLWORDS_MAX_LEN) {
		LZ_ASSERT(lz_shellwords_split(joined, strlen(joined), &w, &err) == 0);
		LZ_ASSERT(lz_strv_len(v) == lz_strv_len(w));
		for (size_t i = 0; v[i] != NULL; i++)
			LZ_ASSERT(strcmp(v[i], w[i]) == 0);
	}
	lz_err_clear(&err);
	lz_strv_free(v);
	lz_strv_free(w);
	free(joined);
	return 0;
}
