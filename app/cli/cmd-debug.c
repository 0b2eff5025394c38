/* cmd-debug.c - lazaret debug (hidden): the sandbox's mounts for tests and
 * for a human who wants to run podman by hand with the real layout.
 *
 *   lazaret debug mounts [--profile P] [--workspace DIR] [--mode M] [--no-overlay]
 *       prepare the Git Sentry layout (and the State Anchor overlays of the
 *       profile's persistent_dirs) and print one podman argument per line:
 *       --mount=... then --env=K=V; notices go to stderr.
 *   lazaret debug unmount [--profile P] [--workspace DIR]
 *       unmount the overlays (idempotent).
 *   lazaret debug grant PROFILE ENTRY
 *       add ENTRY to PROFILE's grants file as `egress approve --scope profile`
 *       would (with its MAC), for tests that need a grant without a domain.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "grants.h"
#include "commands.h"
#include "sandbox/mounts/overlay.h"
#include "sandbox/podman/podman.h"
#include "sandbox/sentry/sentry.h"
#include "xmalloc.h"

#define DEBUG_USAGE "lazaret debug mounts|unmount [--profile P] [--workspace DIR] " \
	"[--mode isolated|direct] [--no-overlay]"

static int
debug_print_mounts(const struct drv_mount *m, size_t n, lz_err_t *err)
{
	char *arg;
	size_t i;

	for (i = 0; i < n; i++) {
		if (podman_mount_arg(&m[i], &arg, err) < 0)
			return -1;
		printf("--mount=%s\n", arg);
		free(arg);
	}
	return 0;
}

static int
debug_mounts(const struct anchor *a, const struct cfg_resolved *r, enum sentry_mode mode,
    bool overlay, lz_err_t *err)
{
	struct sentry_layout l;
	struct drv_mount *om = NULL;
	size_t i, n_om = 0;
	int ret = -1;

	if (sentry_prepare(a, mode, &l, err) < 0)
		return -1;
	if (l.notice != NULL)
		fprintf(stderr, "lazaret: %s\n", l.notice);
	if (l.report != NULL)
		fprintf(stderr, "lazaret: %s\n", l.report);
	if (overlay && overlay_mount(a, r->profile->image, r->profile->persistent_dirs,
	    r->profile->n_persistent_dirs, &om, &n_om, err) < 0) {
		/* Leave nothing half-mounted behind (the first dirs may be up). */
		(void)overlay_unmount(a, true, NULL);
		goto out;
	}
	/* Overlays first: system dirs never nest in /workspace, but the
	 * Sentry's mounts must come after anything that could cover /run. */
	if (debug_print_mounts(om, n_om, err) < 0 ||
	    debug_print_mounts(l.mounts, l.n_mounts, err) < 0)
		goto out;
	for (i = 0; l.env != NULL && l.env[i] != NULL; i++)
		printf("--env=%s\n", l.env[i]);
	ret = 0;
out:
	for (i = 0; i < n_om; i++)
		drv_mount_clear(&om[i]);
	free(om);
	sentry_layout_clear(&l);
	return ret;
}

/* lazaret debug grant PROFILE ENTRY */
static int
debug_grant(int argc, char **argv)
{
	_cleanup_free_ char *path = NULL, *note = NULL;
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc = 1;

	if (argc != 3)
		return cli_usage_error("debug", "lazaret debug grant PROFILE ENTRY",
		    "expected a profile and an entry");
	note = grants_note(time(NULL), "lazaret debug grant", NULL);
	if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0 ||
	    grants_path(cfg->file, argv[1], &path, &err) < 0 ||
	    grants_add(path, argv[2], note, NULL, &err) < 0)
		rc = cli_fail(&err);
	else
		rc = 0;
	cfg_free(cfg);
	return rc;
}

int
cmd_debug(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "no-overlay", no_argument, NULL, 'O' },
		{ "allow-unsafe-workspace", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *workspace = NULL, *what;
	enum sentry_mode mode = SENTRY_ISOLATED;
	struct cfg *cfg = NULL;
	struct cfg_resolved *r = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	bool overlay = true, allow_unsafe = false;
	int c, rc = 1;

	if (argc > 1 && strcmp(argv[1], "grant") == 0)
		return debug_grant(argc - 1, argv + 1);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:w:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'm':
			if (sentry_mode_parse(optarg, &mode, &err) < 0) {
				rc = cli_usage_error("debug", DEBUG_USAGE, "%s", err.msg);
				lz_err_clear(&err);
				return rc;
			}
			break;
		case 'O': overlay = false; break;
		case 'U': allow_unsafe = true; break;
		case 'h':
			printf("usage: %s\n\n"
			    "Debugging aid (hidden). 'mounts' prepares the workspace layout (Git\n"
			    "Sentry, agent branch, State Anchor overlays) and prints one podman\n"
			    "argument per line (--mount=..., --env=...); 'unmount' undoes the\n"
			    "overlays.\n", DEBUG_USAGE);
			return 0;
		default:
			return cli_usage_error("debug", DEBUG_USAGE, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("debug", DEBUG_USAGE, "missing 'mounts' or 'unmount'");
	what = argv[optind++];
	if (optind < argc)
		return cli_usage_error("debug", DEBUG_USAGE, "unexpected argument '%s'",
		    argv[optind]);
	if (strcmp(what, "mounts") != 0 && strcmp(what, "unmount") != 0)
		return cli_usage_error("debug", DEBUG_USAGE, "unknown action '%s'", what);
	if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0 ||
	    cli_domain(cfg, profile, workspace, &a, &r, &err) < 0)
		goto fail;
	if (strcmp(what, "mounts") == 0) {
		if (sentry_workspace_check(a->workspace, cfg->data_root, cfg->esc_socket_dir,
		    allow_unsafe, &err) < 0 || debug_mounts(a, r, mode, overlay, &err) < 0)
			goto fail;
	} else {
		char *note = NULL;

		if (overlay_unmount(a, true, &err) < 0 || sentry_release(a, &note, &err) < 0) {
			free(note);
			goto fail;
		}
		if (note != NULL)
			fprintf(stderr, "lazaret: %s\n", note);
		free(note);
	}
	rc = 0;
	goto out;
fail:
	rc = cli_fail(&err);
out:
	cfg_resolved_free(r);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
