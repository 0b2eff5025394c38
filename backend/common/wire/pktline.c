/* pktline.c - a receive-pack request's commands (pktline.h). Every length
 * comes from the wire and is checked against the buffer before use. */
#include <stdio.h>
#include <string.h>

#include "pktline.h"

static int
hex4(const uint8_t *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
		    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static bool
is_id(const uint8_t *p, size_t n)
{
	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return true;
}

static bool
all_zero(const char *id)
{
	return strspn(id, "0") == strlen(id);
}

static int
bad(const char **why, const char *w)
{
	*why = w;
	return -1;
}

int
pktline_commands(const uint8_t *buf, size_t len, struct pktline_cmd *out, size_t *n,
    size_t *used, bool *sideband, const char **why)
{
	size_t at = 0;

	*n = 0;
	*sideband = false;
	*why = NULL;
	for (;;) {
		int l;
		const uint8_t *p, *sp1, *sp2, *end;
		size_t pl, idl;
		struct pktline_cmd *c;

		if (at >= PKTLINE_HEAD_MAX)
			return bad(why, "push commands over 64 KiB");
		if (len - at < 4)
			return len >= PKTLINE_HEAD_MAX ? bad(why, "push commands over 64 KiB") : 0;
		if ((l = hex4(buf + at)) < 0)
			return bad(why, "malformed pkt-line length");
		if (l == 0) {
			if (*n == 0)
				return bad(why, "a push with no command");
			*used = at + 4;
			return 1;
		}
		if (l < 4 || l == 1 || l == 2 || l == 3)
			return bad(why, "malformed pkt-line length");
		if ((size_t)l > len - at)
			return 0;
		p = buf + at + 4;
		pl = (size_t)l - 4;
		at += (size_t)l;
		if ((pl >= 7 && memcmp(p, "shallow", 7) == 0) || (pl >= 9 && memcmp(p, "push-cert", 9) == 0))
			return bad(why, "shallow and certificate pushes are not brokered");
		if (*n == PKTLINE_MAX_CMDS)
			return bad(why, "more than 64 refs in one push");
		/* "OLD NEW REF[\0caps][\n]" */
		end = memchr(p, '\0', pl);
		if (end != NULL) {
			const uint8_t *cap = end + 1, *ce = p + pl;

			/* capabilities: a space-separated list; side-band-64k asks for sideband */
			while (cap < ce) {
				const uint8_t *e = memchr(cap, ' ', (size_t)(ce - cap));
				size_t cl = e ? (size_t)(e - cap) : (size_t)(ce - cap);

				if (cl > 0 && cap[cl - 1] == '\n')
					cl--;
				if ((cl == 13 && memcmp(cap, "side-band-64k", 13) == 0) ||
				    (cl == 9 && memcmp(cap, "side-band", 9) == 0))
					*sideband = true;
				cap += cl + 1;
			}
		} else {
			end = p + pl;
			if (end > p && end[-1] == '\n')
				end--;
		}
		sp1 = memchr(p, ' ', (size_t)(end - p));
		if (sp1 == NULL)
			return bad(why, "malformed push command");
		idl = (size_t)(sp1 - p);
		sp2 = memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1));
		if (sp2 == NULL || !is_id(p, idl) || (size_t)(sp2 - sp1 - 1) != idl ||
		    !is_id(sp1 + 1, idl))
			return bad(why, "malformed push command");
		if ((size_t)(end - sp2 - 1) == 0 || (size_t)(end - sp2 - 1) > PKTLINE_REF_MAX)
			return bad(why, "a ref name empty or over 255 bytes");
		c = &out[(*n)++];
		memcpy(c->old_id, p, idl);
		c->old_id[idl] = '\0';
		memcpy(c->new_id, sp1 + 1, idl);
		c->new_id[idl] = '\0';
		memcpy(c->ref, sp2 + 1, (size_t)(end - sp2 - 1));
		c->ref[end - sp2 - 1] = '\0';
		if (strlen(c->ref) != (size_t)(end - sp2 - 1))
			return bad(why, "a NUL in a ref name");
		c->is_delete = all_zero(c->new_id);
		c->is_create = all_zero(c->old_id);
	}
}

bool
pktline_ref_allowed(const char *ref, char *const *patterns, size_t n)
{
	return pktline_ref_match(ref, patterns, n) >= 0;
}

int
pktline_ref_match(const char *ref, char *const *patterns, size_t n)
{
	size_t rl = strlen(ref);

	if (rl == 0 || strncmp(ref, "refs/", 5) != 0 || strstr(ref, "..") != NULL ||
	    strstr(ref, "//") != NULL || strstr(ref, "@{") != NULL || ref[rl - 1] == '/' ||
	    ref[rl - 1] == '.')
		return -1;
	for (size_t i = 0; i < rl; i++)
		if ((unsigned char)ref[i] < 0x21 || ref[i] == 0x7f || strchr("~^:?*[\\", ref[i]))
			return -1;
	for (size_t i = 0; i < n; i++) {
		const char *pat = patterns[i] + (patterns[i][0] == '+');	/* the force mark */
		size_t pl = strlen(pat);

		if (pl >= 2 && pat[pl - 1] == '*' && pat[pl - 2] == '/') {
			if (rl > pl - 1 && strncmp(ref, pat, pl - 1) == 0)
				return (int)i;
		} else if (strcmp(ref, pat) == 0)
			return (int)i;
	}
	return -1;
}

/* One pkt-line "LLLLtext" at out+at; sideband: channel 1 around it. */
static bool
put_pkt(uint8_t *out, size_t cap, size_t *at, const char *text, bool sideband)
{
	size_t tl = strlen(text), inner = 4 + tl, total = sideband ? 4 + 1 + inner : inner;
	char h[17];

	if (total > 65520 || cap - *at < total)
		return false;
	if (sideband) {
		snprintf(h, sizeof h, "%04zx", total);
		memcpy(out + *at, h, 4);
		out[*at + 4] = 1;
		*at += 5;
	}
	snprintf(h, sizeof h, "%04zx", inner);
	memcpy(out + *at, h, 4);
	memcpy(out + *at + 4, text, tl);
	*at += inner;
	return true;
}

size_t
pktline_refusal(const struct pktline_cmd *cmds, size_t n, const char *const *why,
    bool sideband, uint8_t *out, size_t cap)
{
	size_t at = 0;
	char line[PKTLINE_REF_MAX + 200];

	if (!put_pkt(out, cap, &at, "unpack ok\n", sideband))
		return 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof line, "ng %s %s\n", cmds[i].ref, why[i] != NULL ? why[i] :
		    "not pushed: another ref of this push was refused");
		if (!put_pkt(out, cap, &at, line, sideband))
			return 0;
	}
	if (sideband) {		/* the report's own flush, inside channel 1 */
		if (cap - at < 9)
			return 0;
		memcpy(out + at, "0009\0010000", 9);
		at += 9;
	}
	if (cap - at < 4)
		return 0;
	memcpy(out + at, "0000", 4);
	return at + 4;
}
