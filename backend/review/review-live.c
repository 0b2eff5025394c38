/* review-live.c - the SENTRY_CTL_SYNC frame (see review-live.h). */
#include <stdlib.h>
#include <string.h>

#include "review/review-live.h"

void
review_live_encode(struct proto_buf *b, const char *target, const char *notice)
{
	proto_encode_pair(b, SENTRY_CTL_SYNC, target, notice);
}

int
review_live_decode(const uint8_t *p, size_t len, char **target, char **notice,
    lz_err_t *err)
{
	char *t = NULL, *n = NULL;
	size_t i;

	*target = *notice = NULL;
	if (proto_decode_pair(p, len, &t, &n) < 0)
		goto bad;
	if (strlen(t) > REVIEW_LIVE_BRANCH_MAX || strlen(n) > REVIEW_LIVE_TEXT_MAX)
		goto bad;
	/* A branch name git could hold; the notice goes to terminals: no controls. */
	if (t[0] == '/' || strstr(t, "..") != NULL)
		goto bad;
	for (i = 0; t[i] != '\0'; i++)
		if ((unsigned char)t[i] <= ' ' || t[i] == 0x7f || strchr("~^:?*[\\", t[i]) != NULL)
			goto bad;
	for (i = 0; n[i] != '\0'; i++)
		if ((unsigned char)n[i] < ' ' || n[i] == 0x7f)
			goto bad;
	*target = t;
	*notice = n;
	return 0;
bad:
	free(t);
	free(n);
	return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "SENTRY_SYNC: bad payload");
}
