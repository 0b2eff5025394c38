/* paths.h - host path rules of spec 3.2: home lookup, tilde at position 0,
 * the five expansion tokens, `..` interception and canonicalization of paths
 * that may not exist yet. Nothing here creates anything on disk.
 */
#ifndef LZ_PATHS_H
#define LZ_PATHS_H

#include <stdbool.h>

#include <sys/stat.h>

#include "err.h"

/* Longest path accepted anywhere (host or container). */
#define LZ_PATH_MAX 4096

/* Values of the five tokens for one (profile, workspace) pair. A NULL field
 * makes its token an error (e.g. while only checking syntax). */
struct lz_path_tokens {
	const char *profile_name;	/* {profile_name} */
	const char *profile_dir;	/* {profile_dir}   = <data_root>/<profile> */
	const char *domain_hash;	/* {domain_hash}   12 hex chars */
	const char *domain_dir;		/* {domain_dir}    = <data_root>/domains/<hash> */
	const char *workspace_dir;	/* {workspace_dir} canonical workspace */
};

/* The user's home: $HOME when set and non-empty, else the passwd entry of
 * getuid(). Must be absolute. *out is allocated; caller frees. */
int lz_path_home(char **out, lz_err_t *err);

/* Expand `~` only when it is the very first character and followed by '/'
 * or nothing; `~user` is an error; a `~` anywhere else is literal. */
int lz_path_expand_tilde(const char *in, char **out, lz_err_t *err);

/* $VAR when it holds an absolute path (XDG rule: relative values are
 * ignored), else <home>/<home_rel>. Caller frees *out. */
int lz_path_xdg(const char *var, const char *home_rel, char **out, lz_err_t *err);

/* True when some '/'-separated segment of p is exactly "..". */
bool lz_path_has_dotdot(const char *p);

/* Check token syntax: every '{' opens one of the five tokens (exact
 * spelling, no spaces) and is closed by '}'; "{{" is a literal '{'.
 * The message quotes the offending token. */
int lz_path_tokens_check(const char *s, lz_err_t *err);

/* Expand the tokens of s (syntax as in lz_path_tokens_check). Values are
 * inserted verbatim, never re-expanded. Caller frees *out. */
int lz_path_expand_tokens(const char *s, const struct lz_path_tokens *t,
    char **out, lz_err_t *err);

/* Absolute path with "//" and "." segments collapsed and no trailing '/';
 * ".." or a relative path is an error. For container paths (never touches
 * the filesystem). Caller frees *out. */
int lz_path_normalize(const char *p, char **out, lz_err_t *err);

/* Canonicalize a host path that may not exist yet: the longest existing
 * prefix goes through realpath() (symlinks resolved), the missing rest is
 * appended as written. Rejects relative paths, "..", dangling symlinks and a
 * non-directory in the middle. Creates nothing. Caller frees *out. */
int lz_path_canon(const char *p, char **out, lz_err_t *err);

/* Is path dir itself or below it (both canonical; "/" holds everything)? */
bool lz_path_within(const char *dir, const char *path);

/* Read a regular file of at most max bytes into *buf (NUL-terminated; caller
 * frees), its length in *len and, when st is not NULL, its fstat there.
 * Errors name the path; ENOENT is left in err->code. */
int lz_path_read(const char *path, size_t max, char **buf, size_t *len, struct stat *st,
    lz_err_t *err);

#endif
