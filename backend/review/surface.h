/* surface.h - the executable surface: which changed paths your host may
 * later execute, or that change how tools behave, each with a one-line
 * reason. The rules come from one data table (data/surface.tsv, installed
 * as share/lazaret/surface.tsv); the classifier is pure (the blobs it needs
 * come through a callback), so unit tests and the fuzzer drive it without
 * git.
 *
 * Table: one rule a line, four tab-separated columns, '#' comments:
 *   kind  pattern  key  reason
 *   path  a path pattern; any change to a matching path (deletions too)
 *   attr  a path pattern; flagged when the new version selects a filter,
 *         diff or merge driver (a configured command git runs)
 *   json  a path pattern; key is a top-level member ("scripts"): flagged
 *         with the changed member names, parsed from both versions
 *   mode  pattern is one of exec (mode becomes +x), shebang (a new file
 *         starting "#!"), binary, symlink, symlink-out (pointing out of the
 *         tree), gitlink (a submodule commit)
 * key is "-" where unused. Path patterns: without '/', the file name at any
 * depth (fnmatch); ending in '/', everything under a directory of that name
 * at any depth; otherwise a path (fnmatch, FNM_PATHNAME) at any depth.
 * Matching ignores case (a case-insensitive checkout makes MAKEFILE a
 * Makefile).
 */
#ifndef LZ_SURFACE_H
#define LZ_SURFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define SURFACE_TABLE_ENV	"LAZARET_SURFACE_TABLE"	/* another table (tests, extension) */
#define SURFACE_TABLE_NAME	"surface.tsv"
#define SURFACE_TABLE_MAX	(256u * 1024)
#define SURFACE_OID_MAX		64			/* hex, SHA-256 repositories */
#define SURFACE_ATTR_MAX	(1024u * 1024)		/* bytes of .gitattributes read */

enum surface_kind {
	SURFACE_PATH,
	SURFACE_ATTR,
	SURFACE_JSON,
	SURFACE_MODE,
};

struct surface_rule {
	enum surface_kind kind;
	char *pattern;
	char *key;		/* json only, else NULL */
	char *reason;
	unsigned line;
};

struct surface_table {
	struct surface_rule *rules;
	size_t n;
	char *source;		/* the file it came from */
};

/* Parse a table (source names it in errors: "surface.tsv:12: ..."). */
int surface_table_parse(const char *buf, size_t len, const char *source,
    struct surface_table *out, lz_err_t *err);
/* Load the table: $LAZARET_SURFACE_TABLE, else share/lazaret/surface.tsv
 * next to the program's bin/ (installed), else data/surface.tsv beside the
 * build directory (the source tree). A missing table is an error: the
 * review fails closed. */
int surface_table_load(struct surface_table *out, lz_err_t *err);
void surface_table_clear(struct surface_table *);

/* Does path (repository-relative, '/'-separated) match pattern? */
bool surface_path_match(const char *pattern, const char *path);

/* One changed path, from `git diff --raw --no-renames` (and --numstat for
 * binary). Modes are octal (100644, 100755, 120000, 160000; 0 when absent);
 * oids are hex, all zeros when absent. */
struct surface_change {
	char status;		/* A, M, D, T */
	unsigned old_mode, new_mode;
	char old_oid[SURFACE_OID_MAX + 1];
	char new_oid[SURFACE_OID_MAX + 1];
	char *path;
	bool binary;
};

/* Parse `git diff --raw -z --no-renames` output into changes. */
int surface_raw_parse(const char *buf, size_t len, struct surface_change **out, size_t *n,
    lz_err_t *err);
/* Mark binary files from `git diff --numstat -z --no-renames` output. */
int surface_numstat_apply(const char *buf, size_t len, struct surface_change *ch, size_t n,
    lz_err_t *err);
void surface_changes_free(struct surface_change *ch, size_t n);

/* The first max bytes of blob oid into *buf (owned), its length into *len
 * and its whole size into *size. */
typedef int (*surface_blob_fn)(void *arg, const char *oid, size_t max, uint8_t **buf,
    size_t *len, size_t *size, lz_err_t *err);

struct surface_flag {
	char *path;
	const char *kind;	/* "path", "attr", "json", "mode" */
	const char *rule;	/* the rule's pattern ("Makefile", "exec") */
	char *reason;
	char *detail;		/* "scripts.postinstall", "-> /etc/passwd", or NULL */
};

struct surface_result {
	struct surface_flag *flags;
	size_t n;
};

/* Classify changes against table t. Returns 0 with out filled (in change
 * order), -1 when a blob could not be read. */
int surface_classify(const struct surface_table *t, const struct surface_change *ch, size_t n,
    surface_blob_fn blob, void *arg, struct surface_result *out, lz_err_t *err);
void surface_result_clear(struct surface_result *);

/* "kind" names for JSON and text. */
const char *surface_kind_name(enum surface_kind);

#endif
