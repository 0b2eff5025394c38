/* sentry-cfgz.c - the records of `git config -z --show-origin
 * --get-regexp` as the Sentry reads them (pure; tests/fuzz/fuzz-cfgz.c).
 *
 * Each record is "<origin>\0<key>\n<value>\0", or "<origin>\0<key>\0" for
 * a key with no value. Output cut short (a cap, a git that died) ends
 * without its NUL: only *end, the capture's own, stops the strings there.
 */
#include <stdbool.h>
#include <string.h>

#include "sandbox/sentry/sentry-int.h"

bool
sentry_cfgz_next(const char **pos, const char *end, struct sentry_cfgz *rec)
{
	const char *o = *pos, *kv;

	if (o >= end)
		return false;
	kv = o + strlen(o) + 1;
	if (kv >= end)
		return false;	/* cut short: an origin with no key */
	rec->origin = o;
	rec->key = kv;
	rec->klen = strcspn(kv, "\n");
	rec->value = kv[rec->klen] == '\n' ? kv + rec->klen + 1 : NULL;
	*pos = kv + strlen(kv) + 1;
	return true;
}
