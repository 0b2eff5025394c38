/* gitpack.c - a push's pack, read for its commits (gitpack.h).
 *
 * Theory of operation: one pass over the entries (each zlib stream inflated
 * to find where the next begins, bounded by GITPACK_MAX_INFLATE over the
 * whole pack) keeps the commits and the deltas, any of which may be a
 * commit. Then passes resolve them: a commit is inflated, a delta applied to
 * its base (an offset delta's base is an earlier entry, a ref delta's a
 * commit already resolved), the result hashed as git does ("commit LEN\0"
 * and the bytes) and its tree and parent lines read exactly as git's
 * parse_commit_buffer does. A delta whose base is a tree, a blob or outside
 * the pack is simply not a commit we know: the walk treats it as outside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "gitpack.h"
#include "xmalloc.h"

enum { T_COMMIT = 1, T_TREE = 2, T_BLOB = 3, T_TAG = 4, T_OFS = 6, T_REF = 7 };

struct gp_ent {
	uint64_t off, data, size;	/* entry start, zlib start, inflated size */
	int64_t base;			/* T_OFS: index of the base entry, -1: not kept */
	uint8_t base_id[32];		/* T_REF */
	uint8_t type;
	uint8_t state;			/* 0 pending, 1 a commit, 2 not one */
};

struct gp_commit {
	uint8_t id[32];
	uint32_t ent, par, npar;	/* parents: p->parents[par .. par+npar) */
};

struct gitpack {
	const uint8_t *buf;
	size_t len, idlen;
	uint64_t inflated;
	uint32_t streams;	/* zlib streams begun: bounds the work of many small entries */
	struct gp_ent *ent;
	size_t nent, capent;
	struct gp_commit *com;
	size_t ncom, capcom, nsorted;
	uint8_t (*parents)[32];
	size_t npar, cappar;
};

static int
fail(const char **why, const char *w)
{
	*why = w;
	return -1;
}

/* Inflate the zlib stream at buf[at..) that must give exactly size bytes,
 * into out (size bytes) or nowhere; *zlen: its compressed length. */
static int
gp_inflate(struct gitpack *p, uint64_t at, uint64_t size, uint8_t *out, uint64_t *zlen,
    const char **why)
{
	z_stream z = { 0 };
	uint8_t scratch[16384];
	uint64_t got = 0;
	int rc;

	if (size > GITPACK_MAX_INFLATE - p->inflated)
		return fail(why, "the pack inflates to over 1 GiB: not checked");
	if (++p->streams > GITPACK_MAX_STREAMS)
		return fail(why, "the pack takes over 4194304 inflations to check: not checked");
	if (at >= p->len || inflateInit(&z) != Z_OK)
		return fail(why, "a pack entry cut short");
	z.next_in = (uint8_t *)(uintptr_t)(p->buf + at);
	z.avail_in = (uInt)(p->len - at > UINT32_MAX ? UINT32_MAX : p->len - at);
	do {
		uint64_t room = out != NULL ? size - got : sizeof scratch;

		/* one byte past the declared size shows a stream that is longer */
		if (out == NULL && room > size - got + 1)
			room = size - got + 1;
		if (out != NULL && room == 0) {
			z.next_out = scratch;
			z.avail_out = 1;
		} else {
			z.next_out = out != NULL ? out + got : scratch;
			z.avail_out = (uInt)(room > 65536 ? 65536 : room);
		}
		{
			uInt before = z.avail_out;

			rc = inflate(&z, Z_NO_FLUSH);
			got += before - z.avail_out;
		}
		if (got > size || (rc != Z_OK && rc != Z_STREAM_END) ||
		    (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0)) {
			inflateEnd(&z);
			return fail(why, got > size ? "a pack entry larger than its header says" :
			    "a pack entry's data is not zlib");
		}
	} while (rc != Z_STREAM_END);
	*zlen = z.total_in;
	inflateEnd(&z);
	if (got != size)
		return fail(why, "a pack entry smaller than its header says");
	p->inflated += size;
	return 0;
}

static bool
gp_varint(const uint8_t *d, size_t n, size_t *at, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	for (;;) {
		if (*at >= n || shift > 56)
			return false;
		*v |= (uint64_t)(d[*at] & 0x7f) << shift;
		shift += 7;
		if (!(d[(*at)++] & 0x80))
			return true;
	}
}

/* git's delta: source and result sizes, then copy and insert ops. */
static uint8_t *
gp_delta(const uint8_t *base, size_t blen, const uint8_t *d, size_t dl, size_t *olen)
{
	size_t at = 0, o = 0;
	uint64_t src, dst;
	uint8_t *out;

	if (!gp_varint(d, dl, &at, &src) || !gp_varint(d, dl, &at, &dst) || src != blen ||
	    dst > GITPACK_COMMIT_MAX)
		return NULL;
	out = xmalloc(dst + 1);
	while (at < dl) {
		uint8_t op = d[at++];

		if (op & 0x80) {
			uint64_t off = 0, sz = 0;

			for (int i = 0; i < 4; i++)
				if (op & (1u << i)) {
					if (at >= dl)
						goto bad;
					off |= (uint64_t)d[at++] << (8 * i);
				}
			for (int i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (at >= dl)
						goto bad;
					sz |= (uint64_t)d[at++] << (8 * i);
				}
			if (sz == 0)
				sz = 0x10000;
			if (off > blen || sz > blen - off || sz > dst - o)
				goto bad;
			memcpy(out + o, base + off, sz);
			o += sz;
		} else if (op != 0) {
			if (op > dl - at || op > dst - o)
				goto bad;
			memcpy(out + o, d + at, op);
			o += op;
			at += op;
		} else
			goto bad;
	}
	if (o != dst)
		goto bad;
	*olen = o;
	return out;
bad:
	free(out);
	return NULL;
}

static int
gp_cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, 32);	/* struct gp_commit starts with its id */
}

static const struct gp_commit *
gp_find(const struct gitpack *p, const uint8_t *id)
{
	uint8_t key[32] = { 0 };

	if (p->nsorted == 0)
		return NULL;
	memcpy(key, id, p->idlen);
	return bsearch(key, p->com, p->nsorted, sizeof *p->com, gp_cmp_id);
}

/* Entry i's bytes when it is a commit: 1 (*out, *olen; free it), 0 not a
 * commit we can know, 2 its base is not known yet, -1 malformed or over
 * the bounds. */
static int
gp_resolve(struct gitpack *p, size_t i, unsigned depth, uint8_t **out, size_t *olen,
    const char **why)
{
	struct gp_ent *e = &p->ent[i];
	uint8_t *base = NULL, *d;
	size_t blen = 0;
	uint64_t zl;
	int rc;

	if (depth > GITPACK_DEPTH_MAX || e->size > 2ull * GITPACK_COMMIT_MAX + 64)
		return 0;
	if (e->type == T_COMMIT) {
		d = xmalloc(e->size + 1);
		if (gp_inflate(p, e->data, e->size, d, &zl, why) < 0) {
			free(d);
			return -1;
		}
		*out = d;
		*olen = e->size;
		return 1;
	}
	if (e->type == T_OFS) {
		if (e->base < 0)
			return 0;
		rc = gp_resolve(p, (size_t)e->base, depth + 1, &base, &blen, why);
	} else {
		const struct gp_commit *c = gp_find(p, e->base_id);

		if (c == NULL)
			return 2;
		rc = gp_resolve(p, c->ent, depth + 1, &base, &blen, why);
	}
	if (rc != 1)
		return rc;
	d = xmalloc(e->size + 1);
	if (gp_inflate(p, e->data, e->size, d, &zl, why) < 0) {
		free(d);
		free(base);
		return -1;
	}
	*out = gp_delta(base, blen, d, e->size, olen);
	free(d);
	free(base);
	return *out != NULL ? 1 : 0;
}

static int
gp_unhex(const char *h, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int v = 0;

		for (int k = 0; k < 2; k++) {
			char c = h[2 * i + k];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

			if (d < 0)
				return -1;
			v = v * 16 + d;
		}
		out[i] = (uint8_t)v;
	}
	return 0;
}

/* Whether entry i's delta chain ends in a commit (1), in no commit we
 * keep (0), or in a ref delta's base not resolved yet (2): looked up
 * before anything is inflated, so tree and blob deltas cost nothing. */
static int
gp_chain(const struct gitpack *p, size_t i)
{
	for (unsigned d = 0; d <= GITPACK_DEPTH_MAX; d++) {
		const struct gp_ent *e = &p->ent[i];

		if (e->type == T_COMMIT)
			return 1;
		if (e->state == 2)
			return 0;
		if (e->type != T_OFS)
			return gp_find(p, e->base_id) != NULL ? 1 : 2;
		if (e->base < 0)
			return 0;
		i = (size_t)e->base;
	}
	return 0;
}

/* Hash the commit and read its tree and parent lines as git does. */
static void
gp_add_commit(struct gitpack *p, size_t ent, const uint8_t *b, size_t bl)
{
	size_t hx = p->idlen * 2, at;
	struct gp_commit c = { .ent = (uint32_t)ent, .par = (uint32_t)p->npar };
	char hdr[32];
	int hl = snprintf(hdr, sizeof hdr, "commit %zu", bl);
	unsigned int mdl = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (md == NULL || EVP_DigestInit_ex(md, p->idlen == 20 ? EVP_sha1() : EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(md, hdr, (size_t)hl + 1) != 1 || EVP_DigestUpdate(md, b, bl) != 1 ||
	    EVP_DigestFinal_ex(md, c.id, &mdl) != 1 || mdl != p->idlen) {
		EVP_MD_CTX_free(md);
		return;
	}
	EVP_MD_CTX_free(md);
	if (bl < 5 + hx + 1 || memcmp(b, "tree ", 5) != 0 || b[5 + hx] != '\n')
		return;		/* not a commit git would parse: unknown to the walk */
	at = 5 + hx + 1;
	while (bl - at >= 7 + hx + 1 && memcmp(b + at, "parent ", 7) == 0 && b[at + 7 + hx] == '\n') {
		uint8_t id[32] = { 0 };

		if (gp_unhex((const char *)b + at + 7, p->idlen, id) < 0)
			return;
		if (p->npar == p->cappar) {
			p->cappar = p->cappar ? p->cappar * 2 : 64;
			p->parents = xreallocarray(p->parents, p->cappar, sizeof *p->parents);
		}
		memcpy(p->parents[p->npar++], id, 32);
		c.npar++;
		at += 7 + hx + 1;
	}
	if (p->ncom == p->capcom) {
		p->capcom = p->capcom ? p->capcom * 2 : 64;
		p->com = xreallocarray(p->com, p->capcom, sizeof *p->com);
	}
	p->com[p->ncom++] = c;
}

/* After the commands: a pkt-line section ending in a flush (push options),
 * then the pack; or nothing. */
static int
gp_locate(const uint8_t *buf, size_t len, size_t *at, const char **why)
{
	*at = 0;
	if (len == 0 || (len >= 4 && memcmp(buf, "PACK", 4) == 0))
		return 0;
	for (;;) {
		unsigned l = 0;

		if (len - *at < 4)
			return fail(why, "push options cut short");
		for (int i = 0; i < 4; i++) {
			char c = (char)buf[*at + i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

			if (d < 0)
				return fail(why, "no pack after the push's commands");
			l = l * 16 + (unsigned)d;
		}
		if (l == 0) {
			*at += 4;
			break;
		}
		if (l < 4 || l > len - *at)
			return fail(why, "a malformed push option");
		*at += l;
	}
	if (*at == len)
		return 0;
	if (len - *at < 4 || memcmp(buf + *at, "PACK", 4) != 0)
		return fail(why, "no pack after the push's commands");
	return 0;
}

static int
gp_index(struct gitpack *p, size_t at, const char **why)
{
	uint32_t ver, count;
	const uint8_t *b = p->buf;

	if (p->len - at < 12 + p->idlen)
		return fail(why, "a pack cut short");
	ver = (uint32_t)b[at + 4] << 24 | (uint32_t)b[at + 5] << 16 | (uint32_t)b[at + 6] << 8 | b[at + 7];
	count = (uint32_t)b[at + 8] << 24 | (uint32_t)b[at + 9] << 16 | (uint32_t)b[at + 10] << 8 |
	    b[at + 11];
	if (ver != 2 && ver != 3)
		return fail(why, "a pack of an unknown version");
	at += 12;
	for (uint32_t k = 0; k < count; k++) {
		struct gp_ent e = { .off = at, .base = -1 };
		uint8_t c;
		unsigned shift = 4;
		uint64_t zl;

		if (at >= p->len)
			return fail(why, "a pack cut short");
		c = b[at++];
		e.type = (c >> 4) & 7;
		e.size = c & 15;
		while (c & 0x80) {
			if (at >= p->len || shift > 57)
				return fail(why, "a malformed pack entry header");
			c = b[at++];
			e.size |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
		}
		if (e.type == 0 || e.type == 5)
			return fail(why, "a pack entry of an unknown type");
		if (e.type == T_OFS) {
			uint64_t ofs;

			if (at >= p->len)
				return fail(why, "a pack cut short");
			c = b[at++];
			ofs = c & 0x7f;
			while (c & 0x80) {
				if (at >= p->len || ofs >= (UINT64_MAX >> 8))
					return fail(why, "a malformed delta offset");
				c = b[at++];
				ofs = ((ofs + 1) << 7) | (c & 0x7f);
			}
			if (ofs == 0 || ofs > e.off)
				return fail(why, "a delta whose base is not before it");
			for (size_t lo = 0, hi = p->nent; lo < hi;) {	/* kept entries are in order */
				size_t mid = lo + (hi - lo) / 2;

				if (p->ent[mid].off == e.off - ofs) {
					e.base = (int64_t)mid;
					break;
				}
				if (p->ent[mid].off < e.off - ofs)
					lo = mid + 1;
				else
					hi = mid;
			}
		} else if (e.type == T_REF) {
			if (p->len - at < p->idlen)
				return fail(why, "a pack cut short");
			memcpy(e.base_id, b + at, p->idlen);
			at += p->idlen;
		}
		e.data = at;
		if (gp_inflate(p, at, e.size, NULL, &zl, why) < 0)
			return -1;
		at += zl;
		if (e.type == T_COMMIT || e.type == T_OFS || e.type == T_REF) {
			if (p->nent == GITPACK_MAX_COMMITS)
				return fail(why, "a pack of over 262144 commits and deltas: not checked");
			if (p->nent == p->capent) {
				p->capent = p->capent ? p->capent * 2 : 64;
				p->ent = xreallocarray(p->ent, p->capent, sizeof *p->ent);
			}
			p->ent[p->nent++] = e;
		}
	}
	if (p->len - at < p->idlen)
		return fail(why, "a pack without its checksum");
	return 0;
}

int
gitpack_read(const uint8_t *buf, size_t len, size_t idlen, struct gitpack **out,
    const char **why)
{
	struct gitpack *p = xcalloc(1, sizeof *p);
	size_t at;
	bool progress = true;

	*out = NULL;
	*why = NULL;
	p->buf = buf;
	p->len = len;
	p->idlen = idlen;
	if (idlen != 20 && idlen != 32) {
		fail(why, "an object id neither SHA-1 nor SHA-256");
		goto bad;
	}
	if (gp_locate(buf, len, &at, why) < 0 || (at < len && gp_index(p, at, why) < 0))
		goto bad;
	/* resolve: commits and offset deltas first, ref deltas as their bases
	 * appear; a chain longer than GITPACK_DEPTH_MAX passes stays unknown */
	for (unsigned pass = 0; progress && pass <= GITPACK_DEPTH_MAX; pass++) {
		size_t before = p->ncom;

		for (size_t i = 0; i < p->nent; i++) {
			uint8_t *d = NULL;
			size_t dl = 0;
			int rc;

			if (p->ent[i].state != 0)
				continue;
			if ((rc = gp_chain(p, i)) != 1) {
				p->ent[i].state = rc == 0 ? 2 : 0;
				continue;
			}
			if ((rc = gp_resolve(p, i, 0, &d, &dl, why)) < 0)
				goto bad;
			if (rc == 1)
				gp_add_commit(p, i, d, dl);
			if (rc != 2)
				p->ent[i].state = rc == 1 ? 1 : 2;
			free(d);
		}
		progress = p->ncom > before;
		if (p->ncom > 0)
			qsort(p->com, p->ncom, sizeof *p->com, gp_cmp_id);
		p->nsorted = p->ncom;
	}
	*out = p;
	return 0;
bad:
	gitpack_free(p);
	return -1;
}

enum gitpack_verdict
gitpack_descends(const struct gitpack *p, const char *new_hex, const char *old_hex)
{
	uint8_t nid[32] = { 0 }, oid[32] = { 0 };
	const struct gp_commit *c;
	size_t *queue, qh = 0, qt = 0;
	uint8_t *seen;
	bool left = false;
	enum gitpack_verdict v = GITPACK_UNPROVEN;

	if (strlen(new_hex) != p->idlen * 2 || strlen(old_hex) != p->idlen * 2 ||
	    gp_unhex(new_hex, p->idlen, nid) < 0 || gp_unhex(old_hex, p->idlen, oid) < 0)
		return GITPACK_UNPROVEN;
	if (memcmp(nid, oid, 32) == 0)
		return GITPACK_DESCENDS;
	if ((c = gp_find(p, nid)) == NULL)
		return GITPACK_UNPROVEN;
	queue = xcalloc(p->ncom + 1, sizeof *queue);
	seen = xcalloc(p->ncom + 1, 1);
	queue[qt++] = (size_t)(c - p->com);
	seen[c - p->com] = 1;
	while (qh < qt) {
		const struct gp_commit *k = &p->com[queue[qh++]];

		for (uint32_t j = 0; j < k->npar; j++) {
			const struct gp_commit *par;

			if (memcmp(p->parents[k->par + j], oid, 32) == 0) {
				v = GITPACK_DESCENDS;
				goto out;
			}
			if ((par = gp_find(p, p->parents[k->par + j])) == NULL)
				left = true;
			else if (!seen[par - p->com]) {
				seen[par - p->com] = 1;
				queue[qt++] = (size_t)(par - p->com);
			}
		}
	}
	v = left ? GITPACK_UNPROVEN : GITPACK_NOT_FF;
out:
	free(queue);
	free(seen);
	return v;
}

size_t
gitpack_commits(const struct gitpack *p)
{
	return p->ncom;
}

void
gitpack_commit_hex(const struct gitpack *p, size_t i, char *hex)
{
	hex[0] = '\0';
	for (size_t k = 0; i < p->ncom && k < p->idlen; k++)
		snprintf(hex + 2 * k, 3, "%02x", p->com[i].id[k]);
}

void
gitpack_free(struct gitpack *p)
{
	if (p == NULL)
		return;
	free(p->ent);
	free(p->com);
	free(p->parents);
	free(p);
}
