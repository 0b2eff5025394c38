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
 * For the same reason a grants file writable by group or others, owned by
 * another user, or without a MAC line from this user's Lazaret (below)
 * is refused; and no writable volume may hold the configuration directory
 * (config-protect.c).
 *
 * Format: UTF-8 text, one allow_egress entry (egress.h; no "@preset") a line;
 * '#' lines are comments, and the comment line right above an entry is its
 * note (when, who, why: "2026-12-03T10:20:00Z by alice (workbench): ...").
 * Blank lines are ignored. A bad line is an error "FILE:LINE: what is wrong".
 * The last line is "# lazaret-mac: HEX" (below).
 * Writes hold an flock on FILE.lock, write FILE.tmp.PID (0600), fsync it,
 * rename it over FILE and fsync the directory: a crash leaves the old or the
 * new file, never half of one.
 */
#ifndef LZ_GRANTS_H
#define LZ_GRANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
/* Read and parse path; a missing file is no grants (0, out empty). A file
 * Lazaret did not write (owner, mode, MAC) is EPERM, its message the why. */
int grants_load(const char *path, struct grants *out, lz_err_t *err);
void grants_clear(struct grants *);

/* "2026-12-03T10:20:00Z by WHO: WHY" (control bytes made '?', capped at
 * GRANTS_NOTE_MAX); caller frees. */
char *grants_note(time_t when, const char *who, const char *why);

/* The directory of path and any missing parent (~/.config/lazaret), 0700. */
int grants_mkdir(const char *path, lz_err_t *err);

/* Add entry (validated, stored canonical) with its note; the directory is
 * made (0700) when missing. An entry already there (same kind, pattern or
 * CIDR, ports) is not added again: *added (may be NULL) says which. */
int grants_add(const char *path, const char *entry, const char *note, bool *added,
    lz_err_t *err);
/* Remove one grant: what is an entry (compared canonically) or its 1-based
 * index as `lazaret egress grants` lists them. *removed (may be NULL) gets the
 * entry's text; caller frees. ENOENT when there is no such grant. */
int grants_remove(const char *path, const char *what, char **removed, lz_err_t *err);

/* ---- the MAC line: proof that a grants file was written by this
 * user's own Lazaret, and not by an agent that reached the file through a
 * volume: owner and mode say only "this uid", and the agent's files are the
 * user's (the sandbox maps its uid to the user's). So each file Lazaret
 * writes ends with a line
 *	# lazaret-mac: <64 hex>
 * a keyed BLAKE2b-256 (libsodium crypto_generichash) over "lazaret-grants-v1",
 * the file's name (grants/web.list cannot be copied to default.list) and
 * every byte above that line. The key is 32 random bytes in
 * $XDG_DATA_HOME/lazaret/grants.key (0600, made with the first grant written),
 * a path no volume may expose in any mode (config-protect.c): a key that a
 * read-only volume could show would let the agent sign its own grants.
 * Without the key nobody else's Lazaret (nor an older one) can sign a file
 * this one accepts; a user who wants an entry by hand writes it in the
 * profile's allow_egress in config.yaml. */

#define GRANTS_MAC_LINE	"# lazaret-mac: "
#define GRANTS_MAC_KEY_LEN	32
#define GRANTS_MAC_HEX_LEN	64
#define GRANTS_MAC_KEY_FILE	"lazaret/grants.key"	/* under $XDG_DATA_HOME */

/* $XDG_DATA_HOME/lazaret/grants.key; caller frees. */
int grants_mac_key_path(char **out, lz_err_t *err);

/* Read the key (0600, owned by us, 32 bytes); create makes it (and its
 * directory, 0700) when missing. Without create a missing key is ENOENT. */
int grants_mac_key(bool create, uint8_t key[GRANTS_MAC_KEY_LEN], lz_err_t *err);

/* The MAC line's hex for the body of the file named name (its basename is
 * what counts). hex gets GRANTS_MAC_HEX_LEN chars and a NUL. */
void grants_mac_hex(const uint8_t key[GRANTS_MAC_KEY_LEN], const char *name,
    const char *body, size_t len, char hex[GRANTS_MAC_HEX_LEN + 1]);

/* Check the file path's bytes: its last line must be a MAC line that the
 * key confirms. *body_len gets the length above that line. Refusals are
 * EPERM with a message that names the file, says why and the fix. */
int grants_mac_check(const char *path, const char *buf, size_t len, size_t *body_len,
    lz_err_t *err);

#endif
