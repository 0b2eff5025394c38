/* sentry-int.h - what the Git Sentry's files share (sentry.c, sentry-util.c,
 * sentry-repo.c, sentry-import.c, sentry-fetch.c, sentry-refs.c, sentry-guard.c,
 * sentry-cfgz.c, sentry-workspace.c). Not for use outside backend/sandbox/sentry/. */
#ifndef LZ_SENTRY_INT_H
#define LZ_SENTRY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "sandbox/driver.h"
#include "err.h"

/* From sentry.h and anchor.h: each sentry-*.c includes both headers (a
 * header of its own would make the two include each other). */
struct anchor;
struct sentry_layout;

#define SENTRY_FILE_MAX 4096		/* gitfile / ref / HEAD size cap */
#define SENTRY_MODULES_DEPTH 8		/* nesting of .git/modules we follow */
#define SENTRY_REFS_MAX 10000		/* refs one import takes */
#define SENTRY_PACKED_MAX (16 << 20)	/* packed-refs size cap */
#define SENTRY_WALK_ENTRIES 200000	/* workspace walk: entries, then refuse */
#define SENTRY_WALK_MS 5000		/* workspace walk: time, then refuse */

/* What sentry_prepare learns about the host repository. */
struct sentry_repo {
	char *top;		/* work tree top level (canonical) */
	char *gitdir;		/* the workspace's own gitdir */
	char *common;		/* common git dir G (canonical) */
	bool dotgit_is_dir;	/* workspace/.git is G itself */
	unsigned hexlen;	/* 40 (sha1) or 64 (sha256) */
};
void sentry_repo_clear(struct sentry_repo *);

/* The Domain Root's Sentry paths (all canonical, owned). */
struct sentry_paths {
	char *dr;		/* <domain_root> */
	char *priv;		/* <dr>/git: the agent's private gitdir */
	char *checkout;		/* <dr>/lazaret-<H>: the isolated checkout */
	char *sdir;		/* <dr>/sentry: Lazaret's own files, never mounted */
	char *shadow;		/* <sdir>/import: the gitdir imports fetch from */
	char *quarantine;	/* <dr>/quarantine */
	char *view;		/* <dr>/host-view: the host's branches and settings,
				 * mounted read-only (sentry-hostview.c) */
};
int sentry_paths_init(const struct anchor *a, bool create, struct sentry_paths *p, lz_err_t *err);
void sentry_paths_clear(struct sentry_paths *);

/* sentry-util.c */
int sentry_git(const char *dir, char **out, int *status, lz_err_t *err, ...)
    __attribute__((sentinel));
/* sentry_git started, not waited for: the caller works meanwhile, then
 * sentry_git_finish collects it as sentry_git would have (out, status,
 * err; a start that failed is its error), *len (may be NULL) the length
 * of *out (-z output: NUL-separated). Every job is finished, on error
 * paths too (out, status and err NULL: just waited for); NULL is none. */
struct sentry_job *sentry_git_start(const char *dir, ...) __attribute__((sentinel));
int sentry_git_finish(struct sentry_job *j, char **out, size_t *len, int *status,
    lz_err_t *err);
char **sentry_git_env(void);
int sentry_read_raw(const char *path, char **out, size_t *len, lz_err_t *err);
int sentry_read_small(const char *path, char **out, lz_err_t *err);
int sentry_write_file(const char *path, const char *content, mode_t mode, lz_err_t *err);
int sentry_write_at(int dirfd, const char *name, const char *content, size_t len, mode_t mode,
    lz_err_t *err);
int sentry_open_dir_at(int base, const char *rel, bool create, lz_err_t *err);
bool sentry_is_dir(const char *path);
bool sentry_dir_missing_or_empty(const char *path);
void sentry_push_mount(struct sentry_layout *l, enum drv_mount_type type, const char *src,
    const char *dst, bool ro, const char *opts);
void sentry_bind(struct sentry_layout *l, const char *src, const char *dst, bool ro);
void sentry_notice_add(char **notice, char *note);
char *sentry_resolve(const char *dir, const char *v);
const char *sentry_below(const char *base, const char *path);
int64_t sentry_now_ms(void);
#define SENTRY_WALK_INTO 1
typedef int (*sentry_walk_fn)(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg, lz_err_t *err);
int sentry_walk(const char *root, size_t max, int64_t deadline_ms, sentry_walk_fn fn, void *arg,
    bool *cut, lz_err_t *err);

/* sentry-refs.c (pure) and sentry-import.c: the agent's refs, read as data. */
struct sentry_ref {
	char *name;		/* refs/heads/x, refs/tags/y */
	char hex[65];
};
struct sentry_refs {
	struct sentry_ref *v;
	size_t n;
	size_t skipped;		/* symbolic, malformed, badly named, over the cap */
	char *first_skipped;	/* its name (for the report), or NULL */
};
bool sentry_refname_ok(const char *name, size_t len);
bool sentry_hex_ok(const char *s, size_t len, unsigned hexlen);
int sentry_packed_refs_parse(const char *buf, size_t len, unsigned hexlen, struct sentry_refs *r);
void sentry_refs_set(struct sentry_refs *r, const char *name, const char *hex);
void sentry_refs_skip(struct sentry_refs *r, const char *name, size_t len);
void sentry_refs_clear(struct sentry_refs *r);
int sentry_refs_read(const char *priv, unsigned hexlen, struct sentry_refs *r, lz_err_t *err);
size_t sentry_scrub_tree(const char *root, char **first);

/* sentry-cfgz.c (pure): the record of `git config -z --show-origin
 * --get-regexp` output at *pos (NUL-separated; end points at the NUL
 * after the last byte), *pos moved past it; false at the end or on a
 * record cut short. key is klen bytes (no '\n'); value is NULL for a key
 * with no value. */
struct sentry_cfgz {
	const char *origin;	/* "file:<path>", "command line:", ... */
	const char *key;
	size_t klen;
	const char *value;
};
bool sentry_cfgz_next(const char **pos, const char *end, struct sentry_cfgz *rec);

/* sentry-hostview.c: heads is "<id> refs/heads/<name>" a line; *summary
 * (may be NULL) says what changed, or NULL when nothing did. cfgz is
 * `git config -z --show-origin --get-regexp SENTRY_CONFIG_RE` output. */
int sentry_hostview_refs(const char *view, const char *heads, unsigned hexlen, char **summary,
    lz_err_t *err);
bool sentry_hostview_key_ok(const char *key, size_t len);
int sentry_hostview_config(const char *view, const char *cfgz, size_t len, lz_err_t *err);
/* Make the agent's config (in directory pfd) include the host's settings. */
int sentry_hostview_include(int pfd, lz_err_t *err);
/* The config keys one git read at prepare (sentry-guard.c) and each live
 * refresh ask for: the guards' and the ones the agent sees. */
#define SENTRY_CONFIG_RE "^(core\\.hookspath|include(if\\..*)?\\.path|user\\.(email|name)|" \
	"alias\\..*|core\\.(autocrlf|eol)|pull\\.(rebase|ff)|merge\\.conflictstyle|" \
	"rebase\\.(autosquash|autostash|updaterefs)|diff\\.(algorithm|colormoved)|color\\.ui|" \
	"init\\.defaultbranch|log\\.date|commit\\.verbose|rerere\\.enabled)$"

/* sentry-repo.c */
struct sentry_job *sentry_probe_start(const char *ws);
int sentry_probe(const char *ws, struct sentry_job *job, struct sentry_repo *r, char **notice,
    lz_err_t *err);
/* 1 when a domain of the earlier layout was converted (import it), 0, -1. */
int sentry_private_ensure(const struct anchor *a, const struct sentry_repo *r,
    const struct sentry_paths *p, bool direct, char **notice, char **report, lz_err_t *err);
int sentry_host_alternates(const struct sentry_repo *r, char ***out, lz_err_t *err);
void sentry_import_note(const struct anchor *a, const struct sentry_paths *p,
    const struct sentry_repo *r, char **report);
int sentry_host_common(const struct sentry_paths *p, struct sentry_repo *r, lz_err_t *err);

/* sentry-import.c */
uint64_t sentry_refs_fingerprint(const char *priv);
int sentry_import_run(const struct anchor *a, const struct sentry_paths *p,
    const struct sentry_repo *r, char **report, lz_err_t *err);
/* The cap the coordinator recorded for the domain (sentry_object_cap_set). */
uint64_t sentry_object_cap(const struct sentry_paths *p);

/* sentry-fetch.c: fetch refs (shadow names) from the shadow, open as sfd,
 * into g; refs that reach a blob over cap bytes (0: no cap) and refs git
 * refuses are left out, *report (may be NULL) says which and why. */
int sentry_fetch_refs(const char *g, const char *shadow, int sfd, const struct anchor *a,
    uint64_t cap, struct sentry_refs *refs, char **report, lz_err_t *err);

/* sentry-guard.c */
/* The config read sentry_tree_guards needs, started early (it takes and
 * finishes the job). */
struct sentry_job *sentry_guard_config_start(const struct sentry_repo *r);
int sentry_tree_guards(struct sentry_layout *l, const struct sentry_repo *r,
    const char *checkout, const char *empty, const char *view, struct sentry_job *config,
    lz_err_t *err);
int sentry_guard_gits(struct sentry_layout *l, const struct sentry_paths *p, const char *tree,
    const struct sentry_repo *r, const char *branch, lz_err_t *err);
void sentry_hooks(struct sentry_layout *l, const char *src, const char *dst, int depth);
void sentry_modules_walk(struct sentry_layout *l, const char *src, const char *dst, int depth);
int sentry_quarantine(const struct sentry_paths *p, const char *tree, char **report,
    lz_err_t *err);

#endif
