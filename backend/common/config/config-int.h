/* config-int.h - what the config*.c files share, and no other code includes:
 * the YAML node tree (config-tree.c), the error/value-check helpers
 * (config-check.c) and the caps on what a config file may hold.
 */
#ifndef LZ_CONFIG_INT_H
#define LZ_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct cfg;
struct cfg_volume;

#define CFG_FILE_MAX	(1 << 20)	/* bytes in a config file */
#define CFG_STR_MAX	4096		/* bytes in one string */
#define CFG_LIST_MAX	256		/* entries in one list or mapping */
#define CFG_DEPTH_MAX	32		/* nesting of sequences and mappings */
#define CFG_NODES_MAX	100000		/* nodes in one document */
#define CFG_NAME_MAX	256		/* bytes in an env variable name */
#define CFG_HOSTENV_MAX	131072		/* bytes pulled from one host variable */

enum cfg_node_kind { NODE_SCALAR, NODE_SEQ, NODE_MAP };

/* A parsed YAML node. A mapping's kids alternate key, value. */
struct cfg_node {
	enum cfg_node_kind kind;
	int line;
	bool plain;		/* plain (unquoted) scalar: null and booleans */
	char *str;		/* scalar bytes, NUL-terminated */
	size_t len;		/* scalar length (an embedded NUL makes strlen shorter) */
	struct cfg_node **kids;
	size_t n_kids, cap;
};

/* Where errors go while one file is loaded or resolved. */
struct cfg_ctx {
	const char *file;
	lz_err_t *err;
	struct cfg *cfg;
};

/* ---- config-tree.c ---- */

/* The document's root node (NULL for an empty one); free with cfg_node_free. */
int cfg_tree_build(const struct cfg_ctx *c, const char *buf, size_t len,
    struct cfg_node **out);
void cfg_node_free(struct cfg_node *n);
bool cfg_node_is_null(const struct cfg_node *n);
/* "a string", "a mapping"... for messages. */
const char *cfg_node_what(const struct cfg_node *n);

#define STR_MULTILINE	1	/* newline and tab allowed (env values) */

/* Borrow a scalar's string, checked: not null, no NUL, capped, no control bytes. */
int cfg_get_str(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    int flags, const char **out);
int cfg_get_bool(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    bool *out);
/* A plain decimal integer in lo..hi ("120"; not "1e3", "0x10" nor quoted). */
int cfg_get_int(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    long lo, long hi, int *out);
int cfg_get_seq(const struct cfg_ctx *c, const struct cfg_node *n, const char *key);
/* A mapping with string keys, no duplicates and (when allowed != NULL) only
 * the allowed keys. */
int cfg_get_map(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    const char *const *allowed);
/* Value of key k in a mapping checked by cfg_get_map, or NULL. */
const struct cfg_node *cfg_map_get(const struct cfg_node *n, const char *k);

/* ---- config-check.c ---- */

/* s made safe for a message: control bytes as \xNN, cut at max bytes; caller frees. */
char *cfg_esc(const char *s, size_t max);
int cfg_ctx_fail(const struct cfg_ctx *c, int line, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prefix a lower layer's message with FILE:LINE: KEY. */
int cfg_ctx_wrap(const struct cfg_ctx *c, int line, const char *key);
void cfg_ctx_warn(const struct cfg_ctx *c, int line, const char *key, const char *msg);
/* "parent.k" with k made safe; caller frees. */
char *cfg_key_join(const char *parent, const char *k);
/* The closest of names to s when it is close enough to be a typo. */
const char *cfg_did_you_mean(const char *s, const char *const *names, size_t n_names);
bool cfg_name_is_env(const char *s);
/* Container path: absolute, normalized, outside what Lazaret mounts itself. */
int cfg_container_path(const struct cfg_ctx *c, int line, const char *key, const char *p,
    char **out);
/* Characters that would change the meaning of a podman -v/--mount spec. */
int cfg_mount_chars(const struct cfg_ctx *c, int line, const char *key, const char *p);
int cfg_check_key_name(const struct cfg_ctx *c, int line, const char *key, const char *s);
/* Checks of a volume path at load time; the real values come at resolve. */
int cfg_check_volume_path(const struct cfg_ctx *c, int line, const char *key,
    const char *s, bool host);
int cfg_check_mode(const struct cfg_ctx *c, int line, const char *key, const char *m);

/* ---- config-egress.c ---- */

#define CFG_PRESET_DIR	"presets"	/* under PREFIX/share/lazaret, the source tree */

/* An allow_egress list being filled: the entries, where each came from
 * ("" this file, "@npm", "grants/P.list"), their count. */
struct cfg_egress_list {
	char ***v;
	char ***from;
	size_t *n;
};

/* Where data files of kind sub ("presets", "kits") are, first match wins:
 * $XDG_CONFIG_HOME/lazaret/SUB, PREFIX/share/lazaret/SUB, the source tree
 * above a build (NULL-terminated; free with lz_strv_free). */
char **cfg_data_dirs(const char *sub);
void cfg_egress_push(struct cfg_egress_list *l, const char *entry, const char *from);
/* A YAML allow_egress sequence: entries checked and made canonical, "@name"
 * expanded from its preset file. */
int cfg_load_egress(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_egress_list *l);
/* Each profile's grants file (grants.h) appended to its allow_egress. */
int cfg_merge_grants(struct cfg *cfg, lz_err_t *err);

/* ---- config-protect.c ---- */

/* Refuse a volume whose canonical host path exposes Lazaret's own files
 * (configuration, grants, presets, data_root's state, sockets, the grants
 * key), in every mode or unless mode holds "ro". */
int cfg_protect_volume(const struct cfg_ctx *c, const struct cfg *cfg, int line,
    const char *key, const char *host, const char *mode);

/* ---- config-profile.c: one profile's mapping ---- */

struct cfg_profile;
/* A profile's mapping n (keys under `key` in messages); image may be left
 * out (a kit gives it). */
int cfg_profile_load(const struct cfg_ctx *c, const char *name, int line, const char *key,
    const struct cfg_node *n, struct cfg_profile *p);
void cfg_profile_clear(struct cfg_profile *p);
/* With persist_usr, /usr, /etc and /var first among the persistent dirs. */
void cfg_profile_persist_usr(struct cfg_profile *p);
/* Every profile has an image (else FILE:LINE: profiles.P.image: missing). */
int cfg_profiles_check_image(const struct cfg *cfg, lz_err_t *err);
void cfg_volumes_free(struct cfg_volume *v, size_t n);

/* ---- config-cred.c ---- */
struct cfg_cred;
int cfg_load_creds(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p);
void cfg_creds_free(struct cfg_cred *v, size_t n);
/* The agent's base-URL and sentinel variables into a resolved env. */
void cfg_creds_env(const struct cfg_profile *p, char ***env, size_t *n_env, char ***warnings);

/* ---- config-kit.c ---- */

/* Every kit found (user's shadowing shipped ones) into cfg->kits; each
 * profile named like a kit gets the kit's defaults under its own keys, and
 * each kit no profile names becomes an implicit profile. A profile left
 * without an image is an error. */
int cfg_kits_apply(struct cfg *cfg, lz_err_t *err);

#endif
