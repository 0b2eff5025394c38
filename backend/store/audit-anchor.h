/* audit-anchor.h - the audit chain's hashes kept outside state.db, where the
 * user's own processes can add but never rewrite.
 *
 * Threat: anyone with the user's rights (an agent that got out, a process
 * of the user's) can rewrite state.db's rows and its head together: the
 * chain then verifies. So after each append commits, one line per new row
 *	v1 SEQ HASH-HEX PATH-OF-STATE.DB
 * is appended to the user's anchor file, AUDIT_ANCHOR_DIR/<uid>, which
 * scripts/setup-host (root) creates owned by the user, 0600, in a root-owned
 * directory, with `chattr +a`: the user may open it only O_APPEND (no
 * truncate, no rewrite, no rename or unlink; lifting the flag takes
 * CAP_LINUX_IMMUTABLE in the host's namespace, which a user namespace does
 * not give). Measured on this host's ext4 (2026-12-04).
 *
 * What it protects: a row rewritten after its line was anchored (with its
 * head and every later row) no longer matches the first line anchored for
 * its seq, and a cut tail leaves anchored rows missing; verify names the
 * first such row. Lines the attacker appends later do not help: the first
 * line for a seq is the one that counts. What it does not: rows never
 * anchored (no file: setup-host not run; the file not append-only, which
 * verify says), and a writer who stops the anchoring before an event is
 * written (it can suppress, not rewrite, what is already there).
 *
 * Why not the system journal: these hosts run no journald
 * (/run/systemd/journal is missing), and libsystemd would be a new
 * dependency; a file with the append-only flag works wherever setup-host
 * ran, on a desktop as well. LAZARET_AUDIT_ANCHOR=FILE names another file
 * (tests; an unprotected file protects nothing, and verify says so).
 */
#ifndef LZ_AUDIT_ANCHOR_H
#define LZ_AUDIT_ANCHOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define AUDIT_ANCHOR_HASH_LEN	32	/* SHA-256: AUDIT_HASH_LEN (store/audit.h) */
#define AUDIT_ANCHOR_DIR	"/var/lib/lazaret/anchor"
#define AUDIT_ANCHOR_ENV	"LAZARET_AUDIT_ANCHOR"
#define AUDIT_ANCHOR_MAX	(256 << 20)	/* bytes of an anchor file read by verify */

/* The user's anchor file (the env's, or AUDIT_ANCHOR_DIR/<uid>); caller frees. */
char *audit_anchor_path(void);

/* Append one line for each of n rows (seq first .. first + n - 1, their
 * hashes) of the store at db_path, in one write. A missing anchor file is
 * not an error (returns 0, nothing anchored); 1 when written. */
int audit_anchor_append(const char *db_path, int64_t first, size_t n,
    const uint8_t (*hashes)[AUDIT_ANCHOR_HASH_LEN], lz_err_t *err);

struct audit_anchor {
	int64_t seq;
	size_t line;		/* its order in the file */
	uint8_t hash[AUDIT_ANCHOR_HASH_LEN];
};

/* The anchors of db_path: for each seq, the first hash anchored for it,
 * sorted by seq. */
struct audit_anchors {
	char *file;		/* the anchor file read */
	bool present;		/* it exists */
	bool append_only;	/* it has the append-only flag */
	struct audit_anchor *v;
	size_t n;		/* distinct seqs */
	size_t n_lines;		/* lines for db_path (repeats too) */
};

/* Parse an anchor file's bytes (pure: fuzz-audit-anchor.c): out gets the
 * lines for db_path; other stores' lines and malformed ones are skipped. */
void audit_anchor_parse(const char *buf, size_t len, const char *db_path,
    struct audit_anchors *out);
/* Read the anchors of db_path. A missing file gives present false, no error. */
int audit_anchor_load(const char *db_path, struct audit_anchors *out, lz_err_t *err);
void audit_anchors_clear(struct audit_anchors *);

/* The anchor of seq, or NULL. */
const struct audit_anchor *audit_anchor_find(const struct audit_anchors *, int64_t seq);

#endif
