/* mountinfo.c - read /proc/PID/mountinfo text (see mountinfo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/rootless/mountinfo.h"
#include "xmalloc.h"

/* Decode mountinfo's octal escapes (\040 space, \011, \012, \134). */
static char *
mountinfo_unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			*o++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else
			*o++ = s[i];
	}
	*o = '\0';
	return out;
}

char *
mountinfo_next(const char **line)
{
	const char *l = *line, *end, *f;
	int field;

	if (*l == '\0')
		return NULL;
	end = strchrnul(l, '\n');
	*line = end + (*end == '\n');
	/* id parent maj:min root MOUNTPOINT ... */
	for (f = l, field = 0; field < 4 && f < end; field++) {
		f = memchr(f, ' ', (size_t)(end - f));
		if (f == NULL)
			break;
		f++;
	}
	if (f != NULL && field == 4 && f < end) {
		const char *sp = memchr(f, ' ', (size_t)(end - f));

		return mountinfo_unescape(f, (size_t)((sp != NULL ? sp : end) - f));
	}
	return xstrdup("");
}

bool
mountinfo_has(const char *mountinfo, const char *path)
{
	const char *line = mountinfo;
	bool found = false;
	char *mp;

	while (!found && (mp = mountinfo_next(&line)) != NULL) {
		found = strcmp(mp, path) == 0;
		free(mp);
	}
	return found;
}
