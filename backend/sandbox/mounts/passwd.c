/* passwd.c - find a uid in /etc/passwd text (passwd.h). Pure: no I/O;
 * fuzzed by tests/fuzz/fuzz-sudo-req.c. */
#include <string.h>

#include "sandbox/mounts/passwd.h"

/* One field of a passwd line as a uid/gid: decimal digits only, <= 2^32-1. */
static bool
passwd_num(const char *s, size_t n, unsigned *out)
{
	unsigned long long v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 0xffffffffULL)
		return false;
	*out = (unsigned)v;
	return true;
}

bool
passwd_find(const char *buf, size_t len, unsigned uid, unsigned *gid)
{
	size_t pos = 0;

	while (pos < len) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - line) : len - pos, i, f = 0, start[4] = { 0 };
		unsigned u, g;

		pos += n + 1;
		/* name:passwd:uid:gid:...; fields 2 and 3 are the ids */
		for (i = 0; i < n && f < 3; i++)
			if (line[i] == ':')
				start[++f] = i + 1;
		if (f < 3 || line[0] == '#')
			continue;
		{
			const char *ue = memchr(line + start[2], ':', n - start[2]);
			const char *ge;

			if (ue == NULL)
				continue;
			ge = memchr(line + start[3], ':', n - start[3]);
			if (ge == NULL)
				ge = line + n;
			if (passwd_num(line + start[2], (size_t)(ue - line) - start[2], &u) && u == uid &&
			    passwd_num(line + start[3], (size_t)(ge - line) - start[3], &g)) {
				*gid = g;
				return true;
			}
		}
	}
	return false;
}
