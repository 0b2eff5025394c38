/* grants.h - a profile's persisted egress grants: the allow_egress entries a
 * human approved "for the profile" (lazaret egress approve --scope profile,
 * the workbench), kept in a file lazaret writes so the user's commented YAML
 * is never rewritten behind their back. The config loader merges it into the
 * profile's allow_egress (cfg_load; `lazaret config check` marks each merged
 * entry "# from grants/P.list").
 *
 * Where: next to the configuration file that was loaded,
 *	dirname(CONFIG)/grants/<profile>.list
 * so ~/.config/lazaret/config.yaml (the usual one) gives
 * ~/.config/lazaret/grants/<profile>.list, and a --config FILE elsewhere gets
 * its own grants (two configs with a profile of the same name do not share
 * them). The embedded default uses $XDG_CONFIG_HOME/lazaret/grants/. Not
 * under data_root: {profile_dir} and {domain_dir} may be mounted into the
 * sandbox, and an agent that could write its grants could open the network.
 * For the same reason a grants file writable by group or others, or owned by
 * another user, is refused.
 *
 * Format: UTF-8 text, one allow_egress entry (egress.h; no "@preset") a line;
 * '#' lines are comments, and the comment line right above an entry is its
 * note (when, who, why: "2026-12-03T10:20:00Z by alice (workbench): ...").
 * Blank lines are ignored. A bad line is an error "FILE:LINE: what is wrong".
 * Writes hold an flock on FILE.lock, write FILE.tmp.PID (0600), fsync it,
 * rename it over FILE and fsync the directory: a crash leaves the old or the
 * new file, never half of one.
 */
#ifndef LZ_GRANTS_H
#define LZ_GRANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "err.h"

#define GRANTS_FILE_MAX	(1 << 20)	/* bytes in a grants file */
#define GRANTS_MAX	1024		/* entries in one */
#define GRANTS_NOTE_MAX	240		/* bytes of a note kept */
#define GRANTS_DIR	"grants"	/* next to the config file */
#define GRANTS_EXT	".list"

struct grants_entry {
	char *entry;	/* canonical allow_egress text (egress_entry_format) */
	char *note;	/* the comment above it without "# ", or "" */
	int line;	/* the entry's line in the file */
};

struct grants {
	struct grants_entry *v;
	size_t n;
};

/* The grants file of profile for the configuration loaded from config_file
 * (CFG_EMBEDDED_NAME: $XDG_CONFIG_HOME/lazaret). Caller frees *out. */
int grants_path(const char *config_file, const char *profile, char **out, lz_err_t *err);

/* Parse a grants file's bytes (pure; name is used in errors). */
int grants_parse(const char *name, const char *buf, size_t len, struct grants *out,
    lz_err_t *err);
/* Read and parse path; a missing file is no grants (0, out empty). */
int grants_load(const char *path, struct grants *out, lz_err_t *err);
void grants_clear(struct grants *);

/* "2026-12-03T10:20:00Z by WHO: WHY" (control bytes made '?', capped at
 * GRANTS_NOTE_MAX); caller frees. */
char *grants_note(time_t when, const char *who, const char *why);

/* Add entry (validated, stored canonical) with its note; the directory is
 * made (0700) when missing. An entry already there (same kind, pattern or
 * CIDR, ports) is not added again: *added (may be NULL) says which. */
int grants_add(const char *path, const char *entry, const char *note, bool *added,
    lz_err_t *err);
/* Remove one grant: what is an entry (compared canonically) or its 1-based
 * index as `lazaret egress grants` lists them. *removed (may be NULL) gets the
 * entry's text; caller frees. ENOENT when there is no such grant. */
int grants_remove(const char *path, const char *what, char **removed, lz_err_t *err);

#endif
