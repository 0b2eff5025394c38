/* test-gitpack.c - the broker's force-push check: packs built here (zlib,
 * git's entry headers and delta format) with commits whose ids are hashed
 * as git hashes them; what a fast-forward, a rewrite, a thin pack, deltas
 * and lies look like to gitpack_descends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "gitpack.h"

#define TREE "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

struct pk {
	uint8_t b[65536];
	size_t len;
	uint32_t count;
};

static void
hex_id(const char *body, char *hex, uint8_t *raw)
{
	char hdr[32];
	int hl = snprintf(hdr, sizeof hdr, "commit %zu", strlen(body));
	uint8_t md[20];
	unsigned int ml;
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	EVP_DigestInit_ex(c, EVP_sha1(), NULL);
	EVP_DigestUpdate(c, hdr, (size_t)hl + 1);
	EVP_DigestUpdate(c, body, strlen(body));
	EVP_DigestFinal_ex(c, md, &ml);
	EVP_MD_CTX_free(c);
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	if (raw != NULL)
		memcpy(raw, md, 20);
}

/* A commit's text with its parents; its id in hex. */
static char *
commit(const char *msg, const char *p1, const char *p2, char *hex)
{
	static char bodies[16][512];
	static int next;
	char *b = bodies[next++ % 16];

	snprintf(b, 512, "tree " TREE "\n%s%s%s%s%s%sauthor a <a@x> 1 +0000\ncommitter a <a@x> 1 "
	    "+0000\n\n%s\n", p1 ? "parent " : "", p1 ? p1 : "", p1 ? "\n" : "", p2 ? "parent " : "",
	    p2 ? p2 : "", p2 ? "\n" : "", msg);
	hex_id(b, hex, NULL);
	return b;
}

static void
pk_start(struct pk *p)
{
	memcpy(p->b, "PACK\0\0\0\2\0\0\0\0", 12);
	p->len = 12;
	p->count = 0;
}

/* One entry: header (type, size), then extra bytes (delta base), then data deflated. */
static size_t
pk_entry(struct pk *p, int type, const void *extra, size_t el, const void *data, size_t dl)
{
	size_t at = p->len, sz = dl;
	uLongf zl = sizeof p->b - p->len - 64;
	uint8_t c = (uint8_t)(type << 4 | (sz & 15));

	sz >>= 4;
	while (sz) {
		p->b[p->len++] = c | 0x80;
		c = sz & 0x7f;
		sz >>= 7;
	}
	p->b[p->len++] = c;
	if (el > 0)
		memcpy(p->b + p->len, extra, el);
	p->len += el;
	assert_int_equal(compress(p->b + p->len, &zl, data, dl), Z_OK);
	p->len += zl;
	p->count++;
	return at;
}

static void
pk_end(struct pk *p)
{
	p->b[8] = (uint8_t)(p->count >> 24);
	p->b[9] = (uint8_t)(p->count >> 16);
	p->b[10] = (uint8_t)(p->count >> 8);
	p->b[11] = (uint8_t)p->count;
	memset(p->b + p->len, 0xaa, 20);	/* the checksum is not read */
	p->len += 20;
}

/* A delta that copies the whole base and appends tail: base -> base+tail. */
static size_t
delta_append(uint8_t *d, size_t blen, const char *tail)
{
	size_t n = 0, tl = strlen(tail), dst = blen + tl;

	for (size_t v = blen; ; ) {
		d[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if ((v >>= 7) == 0)
			break;
	}
	for (size_t v = dst; ; ) {
		d[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if ((v >>= 7) == 0)
			break;
	}
	d[n++] = 0x80 | 0x10 | 0x20;	/* copy offset 0, size in two bytes */
	d[n++] = (uint8_t)(blen & 0xff);
	d[n++] = (uint8_t)(blen >> 8);
	d[n++] = (uint8_t)tl;
	memcpy(d + n, tail, tl);
	return n + tl;
}

static enum gitpack_verdict
verdict(const struct pk *p, const char *new_hex, const char *old_hex)
{
	struct gitpack *g;
	const char *why = NULL;
	enum gitpack_verdict v;

	assert_int_equal(gitpack_read(p->b, p->len, 20, &g, &why), 0);
	v = gitpack_descends(g, new_hex, old_hex);
	gitpack_free(g);
	return v;
}

static void
test_gitpack_fast_forward_through_the_pack(void **state)
{
	struct pk p;
	char c1[41], c2[41], c3[41], other[41];
	const char *b1 = commit("one", NULL, NULL, c1), *b2 = commit("two", c1, NULL, c2),
	    *b3 = commit("three", c2, NULL, c3);

	(void)state;
	commit("elsewhere", NULL, NULL, other);
	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, b3, strlen(b3));
	pk_entry(&p, 1, NULL, 0, b2, strlen(b2));
	pk_entry(&p, 1, NULL, 0, b1, strlen(b1));
	pk_entry(&p, 3, NULL, 0, "a blob", 6);
	pk_end(&p);
	assert_int_equal(verdict(&p, c3, c1), GITPACK_DESCENDS);
	assert_int_equal(verdict(&p, c3, c2), GITPACK_DESCENDS);
	assert_int_equal(verdict(&p, c3, c3), GITPACK_DESCENDS);
	/* backwards, or to a commit not in new's (complete) history */
	assert_int_equal(verdict(&p, c1, c3), GITPACK_NOT_FF);
	assert_int_equal(verdict(&p, c3, other), GITPACK_NOT_FF);
}

static void
test_gitpack_thin_pack_rewrite_is_unproven(void **state)
{
	struct pk p;
	char c1[41], c2[41], c2b[41];

	(void)state;
	commit("one", NULL, NULL, c1);
	commit("two", c1, NULL, c2);
	/* the agent rewrote c2 as c2b on c1; only c2b travels (c1 is upstream) */
	const char *bb = commit("two, rewritten", c1, NULL, c2b);

	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, bb, strlen(bb));
	pk_end(&p);
	assert_int_equal(verdict(&p, c2b, c2), GITPACK_UNPROVEN);
	assert_int_equal(verdict(&p, c2b, c1), GITPACK_DESCENDS);
	/* a reset back to c1: nothing in the pack, nothing shown */
	assert_int_equal(verdict(&p, c1, c2), GITPACK_UNPROVEN);
}

static void
test_gitpack_merge_reaches_old_by_either_parent(void **state)
{
	struct pk p;
	char c1[41], m1[41], mm[41];

	(void)state;
	commit("one", NULL, NULL, c1);
	commit("main's", NULL, NULL, m1);
	const char *bm = commit("merge", m1, c1, mm);

	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, bm, strlen(bm));
	pk_end(&p);
	assert_int_equal(verdict(&p, mm, c1), GITPACK_DESCENDS);
	assert_int_equal(verdict(&p, mm, m1), GITPACK_DESCENDS);
}

static void
test_gitpack_deltas_are_resolved(void **state)
{
	struct pk p;
	char c1[41], c2[41], c3[41], full2[600], full3[700];
	uint8_t d[700], raw1[20];
	const char *b1 = commit("one", NULL, NULL, c1);
	size_t dl, o1;

	(void)state;
	hex_id(b1, c1, raw1);
	/* c2 = c1's text + more; as an offset delta against c1 (a commit
	 * carrying two parent lines is not what this builds: the text is the
	 * base's plus a tail, parent lines stay the base's) */
	snprintf(full2, sizeof full2, "tree " TREE "\nparent %s\nauthor a <a@x> 1 +0000\n"
	    "committer a <a@x> 1 +0000\n\ntwo\n", c1);
	hex_id(full2, c2, NULL);
	snprintf(full3, sizeof full3, "%sthree\n", full2);
	hex_id(full3, c3, NULL);
	pk_start(&p);
	o1 = pk_entry(&p, 1, NULL, 0, full2, strlen(full2));
	dl = delta_append(d, strlen(full2), "three\n");
	{
		size_t here = p.len, ofs = here - o1;
		uint8_t enc[10];
		size_t n = 0;

		/* git's offset encoding, most significant group first */
		enc[9] = ofs & 0x7f;
		n = 1;
		while (ofs >>= 7) {
			ofs--;
			enc[9 - n] = 0x80 | (ofs & 0x7f);
			n++;
		}
		pk_entry(&p, 6, enc + 10 - n, n, d, dl);
	}
	pk_end(&p);
	assert_int_equal(verdict(&p, c3, c1), GITPACK_DESCENDS);	/* c3 -> (c2's parent) c1 */
	assert_int_equal(verdict(&p, c2, c1), GITPACK_DESCENDS);

	/* the same as a ref delta naming its base by id */
	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, full2, strlen(full2));
	{
		uint8_t raw2[20];

		hex_id(full2, c2, raw2);
		pk_entry(&p, 7, raw2, 20, d, dl);
	}
	pk_end(&p);
	assert_int_equal(verdict(&p, c3, c1), GITPACK_DESCENDS);
	(void)b1;
}

static void
test_gitpack_ids_are_hashed_not_claimed(void **state)
{
	struct pk p;
	char c1[41], liar[41];
	/* a commit whose text says parent c1: its id is its hash, so a new id the
	 * commands claim that no object in the pack hashes to proves nothing */
	const char *b = commit("claims", NULL, NULL, c1);

	(void)state;
	(void)b;
	const char *bl = commit("lie", c1, NULL, liar);

	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, bl, strlen(bl));
	pk_end(&p);
	assert_int_equal(verdict(&p, "2222222222222222222222222222222222222222", c1), GITPACK_UNPROVEN);
	assert_int_equal(verdict(&p, liar, c1), GITPACK_DESCENDS);
	assert_int_equal(verdict(&p, "LIAR", c1), GITPACK_UNPROVEN);
}

static void
test_gitpack_push_options_and_empty(void **state)
{
	struct pk p;
	uint8_t buf[70000];
	struct gitpack *g;
	const char *why;
	char c1[41], c2[41];
	const char *b2;

	(void)state;
	commit("one", NULL, NULL, c1);
	b2 = commit("two", c1, NULL, c2);
	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, b2, strlen(b2));
	pk_end(&p);
	memcpy(buf, "000bci.skip0000", 15);
	memcpy(buf + 15, p.b, p.len);
	assert_int_equal(gitpack_read(buf, 15 + p.len, 20, &g, &why), 0);
	assert_int_equal(gitpack_descends(g, c2, c1), GITPACK_DESCENDS);
	gitpack_free(g);
	assert_int_equal(gitpack_read(buf, 0, 20, &g, &why), 0);
	assert_int_equal(gitpack_commits(g), 0);
	assert_int_equal(gitpack_descends(g, c2, c1), GITPACK_UNPROVEN);
	gitpack_free(g);
}

static void
test_gitpack_refuses_malformed_packs(void **state)
{
	struct pk p;
	struct gitpack *g = NULL;
	const char *why;
	char c1[41];
	const char *b1 = commit("one", NULL, NULL, c1);

	(void)state;
	pk_start(&p);
	pk_entry(&p, 1, NULL, 0, b1, strlen(b1));
	pk_end(&p);
	/* cut short anywhere */
	for (size_t l = 1; l < p.len - 20; l++) {
		assert_int_equal(gitpack_read(p.b, l, 20, &g, &why), -1);
		assert_non_null(why);
		assert_null(g);
	}
	/* a header that lies about the size */
	p.b[12] ^= 1;
	assert_int_equal(gitpack_read(p.b, p.len, 20, &g, &why), -1);
	assert_non_null(strstr(why, "than its header says"));
	pk_start(&p);
	p.b[7] = 9;
	pk_end(&p);
	assert_int_equal(gitpack_read(p.b, p.len, 20, &g, &why), -1);
	assert_string_equal(why, "a pack of an unknown version");
	assert_int_equal(gitpack_read((const uint8_t *)"zzzz", 4, 20, &g, &why), -1);
	assert_string_equal(why, "no pack after the push's commands");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gitpack_fast_forward_through_the_pack),
		cmocka_unit_test(test_gitpack_thin_pack_rewrite_is_unproven),
		cmocka_unit_test(test_gitpack_merge_reaches_old_by_either_parent),
		cmocka_unit_test(test_gitpack_deltas_are_resolved),
		cmocka_unit_test(test_gitpack_ids_are_hashed_not_claimed),
		cmocka_unit_test(test_gitpack_push_options_and_empty),
		cmocka_unit_test(test_gitpack_refuses_malformed_packs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
