/* gitpack.h - the commits of a git pack (the body of a push after its
 * commands), read by the credential broker to tell a fast-forward from a
 * force push: pure, over a byte buffer, fuzzable.
 *
 * Why the pack and not the agent's word or the host's git: a push's
 * commands name the ref's old and new ids, and the upstream applies an
 * update only if the ref still holds the old id (receive-pack's
 * compare-and-swap), so the old id cannot be a lie; whether the new commit
 * descends from it is what the broker must see for itself. Every commit id
 * here is computed by hashing the inflated object (SHA-1 or SHA-256), never
 * taken from the wire, and every parent link comes from a hashed commit, so
 * a chain new -> ... -> old found here is a true ancestry. The walk stays
 * inside the pack: a chain that leaves it (through a commit the upstream
 * already has) proves nothing, and the push is refused as "not shown to be
 * a fast-forward", failing closed. */
#ifndef LZ_GITPACK_H
#define LZ_GITPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GITPACK_MAX_COMMITS	(1u << 18)	/* commits and deltas kept for the walk */
#define GITPACK_MAX_INFLATE	(1ull << 30)	/* bytes inflated over the whole pack */
#define GITPACK_MAX_STREAMS	(1u << 22)	/* zlib streams inflated, resolving included */
#define GITPACK_COMMIT_MAX	(1u << 20)	/* one commit object, inflated */
#define GITPACK_DEPTH_MAX	100		/* a delta chain */

struct gitpack;

enum gitpack_verdict {
	GITPACK_DESCENDS,	/* new reaches old through the pack's commits */
	GITPACK_NOT_FF,		/* new's whole history is in the pack, old is not in it */
	GITPACK_UNPROVEN,	/* the walk left the pack (or new is not in it) */
};

/* Index the commits of the pack in buf[0..len) (the bytes after the push's
 * commands: an optional pkt-line section ending in a flush, then "PACK";
 * no bytes at all is an empty pack). idlen: 20 (SHA-1) or 32 (SHA-256).
 * Returns 0 with *out (free with gitpack_free), -1 on anything malformed or
 * over the bounds (why: one line, static). */
int gitpack_read(const uint8_t *buf, size_t len, size_t idlen, struct gitpack **out,
    const char **why);
/* Whether the commit new_hex descends from old_hex (hex ids, idlen*2). */
enum gitpack_verdict gitpack_descends(const struct gitpack *p, const char *new_hex,
    const char *old_hex);
/* Commits indexed, and the id of the i-th (sorted by id) in hex (hex: 65
 * bytes), for tests and the fuzz harness. */
size_t gitpack_commits(const struct gitpack *p);
void gitpack_commit_hex(const struct gitpack *p, size_t i, char *hex);
void gitpack_free(struct gitpack *p);

#endif
