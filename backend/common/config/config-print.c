/* config-print.c - print a configuration (loaded or resolved) as YAML that
 * `lazaret config show` writes and a config file could hold again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-int.h"
#include "shellwords.h"
#include "xmalloc.h"

/* ---- print ---- */

/* A YAML double-quoted scalar: always valid, whatever the bytes. */
static void
print_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char b = (unsigned char)*s;

		if (b == '"' || b == '\\')
			fprintf(f, "\\%c", b);
		else if (b == '\n')
			fputs("\\n", f);
		else if (b == '\t')
			fputs("\\t", f);
		else if (b < 0x20 || b == 0x7f)
			fprintf(f, "\\x%02x", b);
		else
			fputc(b, f);
	}
	fputc('"', f);
}

/* from (may be NULL): a trailing "# from X" where an entry came from
 * elsewhere than the file (a preset, the grants file). */
static void
print_list_from(FILE *f, const char *indent, const char *key, char *const *v,
    char *const *from, size_t n)
{
	size_t i;

	fprintf(f, "%s%s:%s\n", indent, key, n == 0 ? " []" : "");
	for (i = 0; i < n; i++) {
		fprintf(f, "%s  - ", indent);
		print_str(f, v[i]);
		if (from != NULL && from[i] != NULL && from[i][0] != '\0')
			fprintf(f, "  # from %s", from[i]);
		fputc('\n', f);
	}
}

static void
print_list(FILE *f, const char *indent, const char *key, char *const *v, size_t n)
{
	print_list_from(f, indent, key, v, NULL, n);
}

/* Value of NAME in a resolved "NAME=value" list, or NULL. */
static const char *
env_lookup(char *const *env, size_t n, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < n; i++)
		if (strncmp(env[i], name, l) == 0 && env[i][l] == '=')
			return env[i] + l + 1;
	return NULL;
}

static void
print_limits(FILE *f, const struct cfg_limits *l)
{
	_cleanup_free_ char *mem = cfg_size_text(l->memory), *disk = cfg_size_text(l->disk);
	_cleanup_free_ char *cpus = cfg_cpus_text(l->cpus_milli);

	fprintf(f, "    limits:\n      memory: %s\n      pids: ", mem);
	if (l->pids > 0)
		fprintf(f, "%ld\n", l->pids);
	else
		fputs("none\n", f);
	fprintf(f, "      disk: %s\n      cpus: %s\n", disk, cpus);
	free(disk);
	disk = cfg_size_text(l->git_object);
	fprintf(f, "      git_object: %s\n", disk);
}

/* "  # from kit K" after a key the profile took from its kit, then the newline. */
static void
print_from(FILE *f, const struct cfg_profile *p, unsigned bit)
{
	if (p->kit != NULL && (p->kit_keys & bit))
		fprintf(f, "  # from kit %s", p->kit->name);
	fputc('\n', f);
}

/* credentials: where each secret comes from, never what it is */
static void
print_creds(FILE *f, const struct cfg_profile *p)
{
	if (p->n_creds == 0)
		return;
	fputs("    credentials:", f);
	print_from(f, p, CFG_PK_CREDENTIALS);
	for (size_t i = 0; i < p->n_creds; i++) {
		const struct cfg_cred *c = &p->creds[i];
		_cleanup_free_ char *up = xasprintf(strchr(c->host, ':') ? "https://[%s]:%d%s" :
		    "https://%s:%d%s", c->host, c->port, c->path ? c->path : "");
		_cleanup_free_ char *hdr = xasprintf("%s%s%.*s", c->header, c->prefix[0] ? ": " : "",
		    c->prefix[0] ? (int)strlen(c->prefix) - 1 : 0, c->prefix);
		_cleanup_free_ char *base = cfg_cred_base_url(c, i);

		fputs("      - name: ", f);
		print_str(f, c->name);
		if (c->git)
			fputs("\n        kind: git", f);
		fputs("\n        from: ", f);
		print_str(f, c->from);
		fprintf(f, "  # read on the host at start%s\n        upstream: ", c->required ? "" :
		    "; optional: left out when unset");
		print_str(f, up);
		fputs("  # reached only through the broker: no allow_egress entry needed\n"
		    "        header: ", f);
		print_str(f, hdr);
		fputc('\n', f);
		if (c->n_allow == 0)
			fputs("        allow: []  # any method and path\n", f);
		else
			print_list(f, "        ", "allow", c->allow, c->n_allow);
		if (c->git) {
			fputs("        # a push may update only these refs, and deletes none\n", f);
			print_list(f, "        ", "refs", c->refs, c->n_refs);
			fputs(c->force ? "        force: true  # a push may rewrite those refs' history\n" :
			    "        force: false  # fast-forwards only, shown by the pushed commits\n", f);
			fputs("        user: ", f);
			print_str(f, c->user);
			fputc('\n', f);
		}
		fputs("        ca_file: ", f);
		print_str(f, c->ca_file ? c->ca_file : "(the host's CA bundle)");
		fputs("\n        # the agent sees ", f);
		print_str(f, base);
		if (c->base_env != NULL)
			fprintf(f, " in %s", c->base_env);
		if (c->key_env != NULL)
			fprintf(f, ", and %s=lazaret-sentinel-%s, never the secret", c->key_env, c->name);
		fputc('\n', f);
	}
}

static void
print_profile(FILE *f, const struct cfg_profile *p, const struct cfg_resolved *r)
{
	const struct cfg_volume *vols = r ? r->volumes : p->volumes;
	size_t nv = r ? r->n_volumes : p->n_volumes, i;

	fprintf(f, "  %s:\n", p->name);
	if (p->kit != NULL) {
		fputs("    # kit: ", f);
		print_str(f, p->kit->file);
		fprintf(f, "\n    # keys marked 'from kit %s' are its defaults; the config file's win\n",
		    p->kit->name);
	}
	fputs("    image: ", f);
	print_str(f, p->image);
	print_from(f, p, CFG_PK_IMAGE);
	if (r != NULL) {
		fputs("    profile_dir: ", f);
		print_str(f, r->profile_dir);
		fputs("\n    domain_hash: ", f);
		print_str(f, r->domain_hash);
		fputs("\n    domain_dir: ", f);
		print_str(f, r->domain_dir);
		fputs("\n    workspace_dir: ", f);
		print_str(f, r->workspace_dir);
		fputc('\n', f);
	}
	if (p->kit != NULL && (p->kit_keys & CFG_PK_PERSISTENT))
		fprintf(f, "    # persistent_dirs: from kit %s\n", p->kit->name);
	print_list(f, "    ", "persistent_dirs", p->persistent_dirs, p->n_persistent_dirs);
	fprintf(f, "    persist_usr: %s", p->persist_usr ? "true" : "false");
	print_from(f, p, CFG_PK_PERSIST_USR);
	fprintf(f, "    trust_host_ca: %s", p->trust_host_ca ? "true" : "false");
	print_from(f, p, CFG_PK_TRUST_HOST_CA);
	if (p->user == CFG_USER_AUTO)
		fputs("    user: auto  # agent (uid 1000) when the image has uid 1000, else root", f);
	else if (p->user == CFG_USER_AGENT)
		fputs("    user: agent  # uid 1000", f);
	else if (p->user == 0)
		fputs("    user: root", f);
	else
		fprintf(f, "    user: %d", p->user);
	print_from(f, p, CFG_PK_USER);
	if (r != NULL)
		print_list_from(f, "    ", "allow_egress", r->allow_egress, r->allow_egress_from,
		    r->n_allow_egress);
	else
		print_list_from(f, "    ", "allow_egress", p->allow_egress, p->allow_egress_from,
		    p->n_allow_egress);
	if (r != NULL)
		fprintf(f, "    network: %s\n", r->sidecar ? "sidecar" : "none");
	else if (p->network != CFG_NET_AUTO)
		fprintf(f, "    network: %s\n", p->network == CFG_NET_SIDECAR ? "sidecar" : "none");
	fprintf(f, "    env:%s\n", p->n_env == 0 ? " {}" : "");
	for (i = 0; i < p->n_env; i++) {
		const struct cfg_env *e = &p->env[i];
		bool host = strncmp(e->value, "env:", 4) == 0;
		const char *v = r ? env_lookup(r->env, r->n_env, e->name) : NULL;
		_cleanup_free_ char *shown = NULL;

		/* Host values are usually secrets: say where they come from, not what. */
		if (r != NULL && host)
			shown = xasprintf("%s (%s)", e->value, v ? "set" : "unset: not passed");
		fprintf(f, "      %s: ", e->name);
		print_str(f, shown ? shown : (r && v) ? v : e->value);
		if (e->from_kit && p->kit != NULL)
			fprintf(f, "  # from kit %s", p->kit->name);
		fputc('\n', f);
	}
	print_creds(f, p);
	print_limits(f, &p->limits);
	fprintf(f, "    volumes:%s\n", nv == 0 ? " []" : "");
	for (i = 0; i < nv; i++) {
		fputs("      - host: ", f);
		print_str(f, vols[i].host);
		fputs("\n        container: ", f);
		print_str(f, vols[i].container);
		fputs("\n        mode: ", f);
		print_str(f, vols[i].mode);
		fputc('\n', f);
	}
}

void
cfg_print(FILE *f, const struct cfg *cfg, const struct cfg_resolved *r)
{
	size_t i;

	fputs("# lazaret configuration from ", f);
	print_str(f, cfg->file);
	fputs(r ? " (resolved)\ndata_root: " : "\ndata_root: ", f);
	print_str(f, cfg->data_root);
	fputc('\n', f);
	print_list_from(f, "", "allow_egress", cfg->allow_egress, cfg->allow_egress_from,
	    cfg->n_allow_egress);
	if (cfg->dns_upstream != NULL) {
		fputs("dns_upstream: ", f);
		print_str(f, cfg->dns_upstream);
		fputc('\n', f);
	}
	fprintf(f, "network:\n  ask_timeout: %d\n", cfg->ask_timeout);
	fprintf(f, "escalation:\n  enabled: %s\n  socket_dir: ", cfg->esc_enabled ? "true" :
	    "false");
	print_str(f, cfg->esc_socket_dir);
	fputc('\n', f);
	print_list(f, "  ", "auto_approve", cfg->esc_auto_approve, cfg->n_esc_auto_approve);
	fprintf(f, "  timeout: %d\n", cfg->esc_timeout);
	if (cfg->wb_theme != NULL || cfg->wb_prefix != NULL ||
	    cfg->wb_history != CFG_WB_HISTORY_DEFAULT || cfg->wb_mouse || cfg->wb_bell ||
	    cfg->wb_notify != NULL) {
		fputs("workbench:\n", f);
		if (cfg->wb_history != CFG_WB_HISTORY_DEFAULT)
			fprintf(f, "  history: %d\n", cfg->wb_history);
		if (cfg->wb_theme != NULL) {
			fputs("  theme: ", f);
			print_str(f, cfg->wb_theme);
			fputc('\n', f);
		}
		if (cfg->wb_prefix != NULL) {
			fputs("  prefix: ", f);
			print_str(f, cfg->wb_prefix);
			fputc('\n', f);
		}
		if (cfg->wb_mouse)
			fputs("  mouse: true\n", f);
		if (cfg->wb_bell)
			fputs("  bell: true\n", f);
		if (cfg->wb_notify != NULL) {
			char *line = lz_shellwords_join(cfg->wb_notify);

			fputs("  notify: ", f);
			print_str(f, line);
			fputc('\n', f);
			free(line);
		}
	}
	fputs("profiles:\n", f);
	/* a kit's implicit profile only when asked for by name (--profile) */
	for (i = 0; i < cfg->n_profiles; i++)
		if (r != NULL ? r->profile == &cfg->profiles[i] : !cfg->profiles[i].implicit)
			print_profile(f, &cfg->profiles[i], r);
}
