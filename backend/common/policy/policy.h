/* policy.h - the auto-approve decision for Host Escalation (spec 5.x).
 *
 * A request is auto-approved only when ALL hold: it splits (shellwords.h);
 * its raw text has no metacharacter or control character
 * (lz_shellwords_scan() == 0); no word of it names a banned executable; and
 * its argv is EXACTLY one auto_approve entry's argv. The spec's "strict
 * prefix" is read with issue 4: the entry is compared word by word from
 * argv[0], and any argument appended after it forces a prompt (argument
 * injection), so "make test" approves `make test` and prompts for
 * `make test -j4`. Everything else is NEEDS_PROMPT with a one-line reason;
 * nothing is ever denied here, the human decides.
 *
 * Banned: executables that run code taken from their own argv or another
 * program named in it (git, shells, env/sudo/xargs-style wrappers,
 * interpreters given -c/-e, find -exec, make VAR=..., ...). argv[0] is
 * resolved through PATH (or relative to the request's cwd), every symlink
 * hop and the realpath() target are checked by basename, and the target's
 * inode is compared with the banned programs found in PATH (hard links).
 * docs/escalation.md lists the table and why.
 */
#ifndef LZ_POLICY_H
#define LZ_POLICY_H

#include <stddef.h>

#include "err.h"

enum policy_verdict {
	POLICY_AUTO_APPROVE,	/* run without asking */
	POLICY_NEEDS_PROMPT,	/* ask the human; *why says why */
	POLICY_INVALID,		/* cannot be parsed: deny, nothing to show as argv */
};

struct policy;

/* Check one auto_approve entry from the config: it must split, be non-empty,
 * carry no metacharacter and name no banned executable (resolved with $PATH). */
int policy_entry_validate(const char *entry, lz_err_t *err);

/* Build a policy from n entries (each validated; the error names the bad
 * one). path is the host PATH used to resolve argv[0] (NULL: $PATH, else
 * /usr/local/bin:/usr/bin:/bin). Free with policy_free. */
int policy_new(char *const *entries, size_t n, const char *path,
    struct policy **out, lz_err_t *err);
void policy_free(struct policy *);

/* Decide on a raw request. *argv_out gets the split vector (caller frees with
 * lz_strv_free; NULL when INVALID); *why an allocated reason (NULL when
 * AUTO_APPROVE). A relative argv[0] with a '/' resolves against cwd (NULL:
 * the process cwd). */
void policy_decide_in(const struct policy *, const char *raw_command, const char *cwd,
    char ***argv_out, enum policy_verdict *verdict, char **why);
/* policy_decide_in with cwd NULL. */
void policy_decide(const struct policy *, const char *raw_command,
    char ***argv_out, enum policy_verdict *verdict, char **why);

/* Why argv may never be auto-approved (allocated), or NULL when it may. */
char *policy_ban_reason(char *const *argv, const char *path, const char *cwd);

/* The file argv0 names for this policy: looked up in its PATH (no '/'),
 * else taken relative to cwd; realpath()ed. The runner should execve()
 * exactly this path (with argv[0] unchanged), so what was checked is what
 * runs. NULL when nothing executable is found. Caller frees. */
char *policy_which(const struct policy *, const char *argv0, const char *cwd);

/* Map the request's sandbox cwd to the host: it must be sandbox_root
 * ("/workspace") or below it; the same relative path under host_root must
 * exist as a directory whose realpath() is still host_root or below (a
 * symlink the agent planted cannot lead out). *out is that realpath (caller
 * frees). The runner should chdir() to it and check getcwd() once more. */
int policy_map_cwd(const char *sandbox_cwd, const char *sandbox_root, const char *host_root,
    char **out, lz_err_t *err);

/* "auto-approve", "needs-prompt", "invalid". */
const char *policy_verdict_name(enum policy_verdict);

#endif
