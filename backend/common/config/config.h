/* config.h - Lazaret's YAML configuration (spec 3.x, DESIGN "Config").
 *
 * Two steps. cfg_load*() parses and validates everything that does not depend
 * on a workspace: types, unknown keys, profile names, CIDRs, token syntax,
 * banned auto-approve entries. cfg_profile_resolve() then expands tilde and
 * the five tokens for one (profile, workspace) pair, rejects `..` and
 * canonicalizes host paths. Neither creates anything on disk.
 * Every error reads "FILE:LINE: KEY: what is wrong".
 */
#ifndef LZ_CONFIG_H
#define LZ_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

#define CFG_EMBEDDED_NAME "<embedded default>"
#define CFG_ESC_TIMEOUT_DEFAULT	120	/* escalation.timeout, seconds */
#define CFG_ESC_TIMEOUT_MAX	86400
#define CFG_ASK_TIMEOUT_DEFAULT	30	/* network.ask_timeout: seconds a destination is held; room
				 * to notice, open the view, read it, wait 0.7 s, type a code */
#define CFG_ASK_TIMEOUT_MAX	600
#define CFG_WB_HISTORY_DEFAULT	10000	/* workbench.history: scrollback lines a tab */
#define CFG_WB_HISTORY_MAX	100000	/* ~16 bytes a cell: 100k lines of 200 columns, 320 MB */
#define CFG_KEYNAME_MAX	32	/* workbench.prefix bytes with the NUL (WB_KEYS_NAME_MAX) */

struct cfg_volume {
	char *host;		/* as written (tokens unexpanded) */
	char *container;
	char *mode;		/* "", "z", "ro", "ro,z", ... */
	int line;
};

struct cfg_env {
	char *name;
	char *value;		/* as written; "env:VAR" pulls VAR from the host */
	int line;
	bool from_kit;		/* a default of the profile's kit, not the config file */
};

/* profiles.X.network: how the sandbox reaches the network. */
enum cfg_network {
	CFG_NET_AUTO = 0,	/* not set: the sidecar when allow_egress has entries, else none */
	CFG_NET_SIDECAR,	/* the Network Sidecar (default deny + allow_egress) */
	CFG_NET_NONE,		/* --network none: no network at all, no sidecar */
};

/* Resource limits of a profile's sandbox (profiles.P.limits); 0 = no limit. */
struct cfg_limits {
	uint64_t memory;	/* bytes: sandbox memory, /tmp (tmpfs) included */
	long pids;		/* processes and threads in the sandbox */
	uint64_t disk;		/* bytes: writable layer, State Anchor uppers, Domain Root */
	long cpus_milli;	/* CPUs x 1000 */
	int line;		/* where limits: is, 0 = defaults */
	uint64_t git_object;	/* bytes: the largest object of the agent's imported; 0 none */
};

#define CFG_LIMIT_MEMORY_DEFAULT	(4ULL << 30)	/* a -j2 C/C++/Rust build */
#define CFG_LIMIT_PIDS_DEFAULT		4096
#define CFG_LIMIT_DISK_DEFAULT		(20ULL << 30)
#define CFG_LIMIT_GIT_OBJECT_DEFAULT	(100ULL << 20)	/* no source file comes near */
#define CFG_LIMIT_GIT_OBJECT_MIN	(1ULL << 20)
#define CFG_LIMIT_CPUS_DEFAULT		2000
#define CFG_LIMIT_MEMORY_MIN		(256ULL << 20)	/* below it gVisor cannot boot */
#define CFG_LIMIT_PIDS_MIN		16
#define CFG_LIMIT_DISK_MIN		(64ULL << 20)

/* Keys a profile set (cfg_profile.keys, .kit_keys): a kit's defaults fill
 * in what the user's own profile leaves out. */
enum {
	CFG_PK_IMAGE = 1 << 0, CFG_PK_PERSISTENT = 1 << 1, CFG_PK_PERSIST_USR = 1 << 2,
	CFG_PK_EGRESS = 1 << 3, CFG_PK_NETWORK = 1 << 4, CFG_PK_ENV = 1 << 5,
	CFG_PK_VOLUMES = 1 << 6, CFG_PK_LIMITS = 1 << 7, CFG_PK_TRUST_HOST_CA = 1 << 8,
	CFG_PK_USER = 1 << 9, CFG_PK_CREDENTIALS = 1 << 10,
};

#define CFG_CREDS_MAX	4	/* credentials a profile (their CA bundles share one frame) */
#define CFG_CRED_PORT	4780	/* entry i listens on 127.0.0.1:4780+i in the namespace
				 * (netctl.h NETCTL_BROKER_PORT) */

/* A credential the Network Sidecar's broker holds (config-cred.c). */
struct cfg_cred {
	char *name;		/* [a-z0-9_-]{1,32} */
	char *from;		/* "env:VAR", "file:/abs/path" (tilde expanded), "command: ..." */
	char *host;		/* the upstream's host (name or address, no brackets) */
	int port;
	char *header;		/* lower case, e.g. "x-api-key", "authorization" */
	char *prefix;		/* before the secret in the value: "Bearer " or "" */
	char **allow;		/* "METHOD /prefix" ("*" any method); none: any request */
	size_t n_allow;
	char *ca_file;		/* NULL: the host's CA bundle */
	char *base_env, *key_env;	/* the agent's variables, or NULL */
	char *base_path;	/* after the base URL ("/v1"), or NULL */
	bool required;		/* a missing source stops the start (default) */
	bool git;		/* kind: git, a repository over smart HTTP */
	char *path;		/* git: the repository's path on the upstream ("/o/r.git") */
	char **refs;		/* git: ref patterns a push may update */
	size_t n_refs;
	bool force;		/* git: a push may move a ref to a commit not descending
				 * from it (default false: fast-forwards only) */
	char *user;		/* git: the Basic auth user name (x-access-token) */
	int line;
};

/* An agent kit (kits/NAME/kit.yaml, docs/kits.md): an image recipe, the
 * profile defaults its agent needs and the command that starts it. */
struct cfg_kit {
	char *name;		/* the directory's name, a valid profile name */
	char *file;		/* path of its kit.yaml */
	char *description;
	char *base;		/* NULL: a Debian base Lazaret makes from the host's mirror;
				 * else an OCI image reference */
	char *suite;		/* Debian suite; NULL: the host's */
	char *mirror;		/* Debian mirror URL; NULL: the host's apt sources */
	char **debian;		/* Debian packages (NULL-terminated or NULL) */
	char **npm;		/* npm packages, installed globally */
	char **run;		/* sh -c lines run as root after the packages */
	char **command;		/* argv started by `lazaret run KIT` */
	char **state;		/* the agent's state dirs (absolute, in /home/agent) */
	char *hash;		/* the recipe's hash, 12 hex chars */
	char *image;		/* localhost/lazaret-kit-NAME:HASH */
	struct cfg_profile *defaults;	/* its `profile:`, until merged (config-kit.c) */
};

struct cfg_profile {
	char *name;		/* ^[a-z0-9_-]{2,32}$ */
	unsigned keys;		/* CFG_PK_* the config file set */
	unsigned kit_keys;	/* CFG_PK_* taken from the kit's defaults */
	const struct cfg_kit *kit;	/* the kit named like the profile, or NULL */
	bool implicit;		/* a kit's profile the config file does not name */
	bool trust_host_ca;	/* the host's CA bundle in the sandbox, read-only */
	enum cfg_network network;
	char *image;
	char **persistent_dirs;	/* absolute container paths; /usr, /etc, /var
				 * first unless persist_usr is false */
	size_t n_persistent_dirs;
	bool persist_usr;	/* /usr, /etc, /var are State Anchors (default true) */
	char **allow_egress;	/* validated entries (egress.h), canonical text;
				 * "@preset"s expanded, the grants file merged */
	char **allow_egress_from;	/* same length: where each came from, "" (the
				 * config file), "@npm" or "grants/P.list" */
	size_t n_allow_egress;
	struct cfg_env *env;
	size_t n_env;
	struct cfg_cred *creds;
	size_t n_creds;
	struct cfg_volume *volumes;
	size_t n_volumes;
	struct cfg_limits limits;
	int user;		/* uid sessions run as: CFG_USER_AUTO (agent when the
				 * image has uid 1000, else root), 0, 1000, ... */
	int line;
	int map_line;		/* where its mapping starts (an error about a missing key) */
};

#define CFG_USER_AUTO	(-1)
#define CFG_USER_AGENT	1000		/* "agent": the image's uid 1000 */
#define CFG_USER_MAX	65535		/* podman's rootless mapping: 65536 uids */

struct cfg {
	char *file;		/* path it was read from, or CFG_EMBEDDED_NAME */
	char *data_root;	/* tilde-expanded, canonical (may not exist yet) */
	int data_root_line;
	char **allow_egress;	/* global entries (CIDRs, domain names), every profile */
	char **allow_egress_from;	/* as in cfg_profile */
	size_t n_allow_egress;
	char *dns_upstream;	/* "ADDR[:PORT]" the sidecar forwards allowed names to;
				 * NULL: slirp4netns' resolver (10.0.2.3) */
	int ask_timeout;	/* network.ask_timeout: seconds the router holds a new
				 * destination for a decision; 0: block without asking */
	bool esc_enabled;
	char *esc_socket_dir;	/* tilde-expanded, absolute, normalized; NOT
				 * symlink-resolved: the socket code lstat()s it */
	char **esc_auto_approve;	/* command strings as written */
	size_t n_esc_auto_approve;
	int esc_timeout;	/* seconds a decision may take, 1..CFG_ESC_TIMEOUT_MAX */
	char *wb_theme;		/* theme name or tilde-expanded path; NULL: not set */
	int wb_theme_line;
	char *wb_prefix;	/* key name, syntax checked (wb-keys parses it); NULL: not set */
	int wb_prefix_line;
	int wb_history;		/* scrollback lines a tab, 0..CFG_WB_HISTORY_MAX */
	bool wb_mouse;		/* the workbench takes the mouse (tmux's mouse on) */
	bool wb_bell;		/* ring the terminal's bell when a tab starts to need the user */
	char **wb_notify;	/* and run this argv (shell words, no shell); NULL: none */
	struct cfg_profile *profiles;
	size_t n_profiles;
	struct cfg_kit **kits;	/* every kit found, by name (config-kit.c) */
	size_t n_kits;
	char **warnings;	/* non-fatal notes (NULL-terminated), printed by the CLI */
	char **refused;		/* files refused for safety and left out (a grants file
				 * Lazaret did not write): also in warnings; the
				 * coordinator audits each, `config check` fails */
};

/* A profile resolved for one workspace: every path expanded and checked. */
struct cfg_resolved {
	const struct cfg_profile *profile;	/* borrowed from the cfg */
	char *profile_dir;	/* <data_root>/<profile> */
	char *domain_hash;	/* 12 hex chars */
	char *domain_dir;	/* <data_root>/domains/<H> */
	char *workspace_dir;	/* canonical */
	char **env;		/* "KEY=VALUE" (NULL-terminated), host values
				 * pulled in; an unset env:VAR is left out */
	size_t n_env;
	struct cfg_volume *volumes;	/* host canonicalized, container expanded */
	size_t n_volumes;
	char **allow_egress;	/* global + profile, de-duplicated */
	char **allow_egress_from;	/* as in cfg_profile */
	size_t n_allow_egress;
	bool sidecar;		/* network: the sidecar (else --network none) */
	int ask_timeout;	/* network.ask_timeout (cfg's), for the drift check */
	char **warnings;	/* e.g. env:VAR unset (NULL-terminated or NULL) */
};

/* config-cred.c: entry i's address in the namespace ("http://127.0.0.1:4780"),
 * its sentinel ("lazaret-sentinel-NAME"); whether its source may be used. */
char *cfg_cred_base_url(const struct cfg_cred *, size_t i);
char *cfg_cred_sentinel(const struct cfg_cred *);
bool cfg_cred_active(const struct cfg_cred *);

/* The embedded default configuration (one working profile "default"). */
extern const char cfg_default_yaml[];

/* Load FILE; with path NULL, $XDG_CONFIG_HOME/lazaret/config.yaml
 * (~/.config/...) when it exists, else the embedded default. Each profile's
 * grants file (grants.h: grants/P.list next to FILE) is merged into its
 * allow_egress; cfg_load_buf() reads no grants. */
int cfg_load(const char *path, struct cfg **out, lz_err_t *err);
/* Parse a buffer; name is used in error messages. */
int cfg_load_buf(const char *name, const char *buf, size_t len,
    struct cfg **out, lz_err_t *err);
void cfg_free(struct cfg *);

/* Profile by name; NULL name picks "default", or the only profile the
 * config file defines (a kit's implicit profile is never picked by default). */
const struct cfg_profile *cfg_profile_find(const struct cfg *, const char *name,
    lz_err_t *err);

/* Resolve profile for a canonical workspace and its domain hash. */
int cfg_profile_resolve(const struct cfg *, const struct cfg_profile *,
    const char *workspace_canon, const char *domain_hash,
    struct cfg_resolved **out, lz_err_t *err);
void cfg_resolved_free(struct cfg_resolved *);

/* Print the config (resolved when r != NULL) as YAML. */
void cfg_print(FILE *, const struct cfg *, const struct cfg_resolved *r);

/* A size: digits with an optional k, m or g (KiB, MiB, GiB; K, M, G too),
 * or "0"/"none" for no limit; *bytes gets it. */
int cfg_size_parse(const char *s, uint64_t *bytes, lz_err_t *err);
/* A CPU count: "2", "0.5", "1.25" (at most 3 decimals), or "0"/"none". */
int cfg_cpus_parse(const char *s, long *milli, lz_err_t *err);
/* "4g", "512m", "1536k" or "none": the shortest exact text for a size; caller frees. */
char *cfg_size_text(uint64_t bytes);
/* The limits a profile has when it sets none (docs/config.md#limits;
 * config-profile.c). */
struct cfg_limits cfg_limits_default(void);
/* "2", "0.500" or "none"; caller frees. */
char *cfg_cpus_text(long milli);

/* ^[a-z0-9_-]{2,32}$ */
bool cfg_profile_name_valid(const char *name);

/* ---- kits (config-kit.c) ---- */

/* Part of every recipe's hash: bump it when image-kit.c builds differently. */
#define CFG_KIT_RECIPE_VERSION	1
#define CFG_KIT_DIR	"kits"	/* under PREFIX/share/lazaret, $XDG_CONFIG_HOME/lazaret */
#define CFG_KIT_HOME	"/home/agent"	/* where a kit's "~/" points */
#define CFG_HOST_CA	"/etc/ssl/certs/ca-certificates.crt"	/* trust_host_ca's bundle */

/* Parse one kit file (name: the kit's name); *out freed with cfg_kit_free. */
int cfg_kit_load_buf(const char *file, const char *name, const char *buf, size_t len,
    struct cfg_kit **out, lz_err_t *err);
void cfg_kit_free(struct cfg_kit *);
/* The kit of that name among those loaded, or NULL. */
const struct cfg_kit *cfg_kit_find(const struct cfg *, const char *name);

/* Validate one allow_egress entry (egress.h: a CIDR or an address, or a domain
 * name or "*." pattern, each with optional ":ports"). *norm gets its
 * canonical text ("10.0.0.0/8:5432"); caller frees. */
int cfg_egress_parse(const char *s, char **norm, lz_err_t *err);
/* An IP address with an optional port: "10.0.2.3", "10.0.2.2:5353",
 * "[fd00::3]:53", "fd00::3". */
int cfg_hostport_check(const char *s, lz_err_t *err);

#endif
