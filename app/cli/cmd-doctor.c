/* cmd-doctor.c - lazaret doctor: check that this host can run Lazaret. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "doctor/doctor.h"
#include "sandbox/image/image.h"
#include "xmalloc.h"

/* Until commands.h lists it (the lead's file). */
int cmd_doctor(int argc, char **argv);

#define DOCTOR_USAGE "lazaret doctor [--deep]"

static const char doctor_help[] =
    "Check that this host can run rootless Podman sandboxes under gVisor:\n"
    "podman, runsc (registered with podman), crun, fuse-overlayfs, bindfs, your\n"
    "subuid/subgid ranges, /dev/fuse and /dev/net/tun, XDG_RUNTIME_DIR,\n"
    "mount propagation, the cgroup layout and the default profile's image.\n"
    "Each failure comes with the command that fixes it; exit status 1 when\n"
    "anything failed.\n\n"
    "  --deep   also start a sandbox (runsc; GNU stat through the statx shim) and a\n"
    "           sidecar-style container (crun)\n";

int
cmd_doctor(int argc, char **argv)
{
	struct doctor_opts o = { .image = IMAGE_DEFAULT };
	const struct cli_opt opts[] = { CLI_FLAG("deep", 0, &o.deep), CLI_END };
	const struct cli_cmd cmd = { "doctor", DOCTOR_USAGE, doctor_help, opts, false };
	const struct cfg_profile *p;
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	_cleanup_free_ char *image = NULL;
	int r, failed = 0;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	/* the image the default profile runs; the built-in default if config is broken */
	if (cli_load_config(&cfg, &err) < 0 || (p = cfg_profile_find(cfg, NULL, &err)) == NULL) {
		printf("FAIL config: %s. Fix: correct it (see lazaret config)\n", err.msg);
		lz_err_clear(&err);
		failed++;
	} else {
		if (p->image != NULL && p->image[0] != '\0') {
			image = xstrdup(p->image);
			o.image = image;
		}
		o.limits = &p->limits;
	}
	failed += doctor_run(&o, stdout);
	cfg_free(cfg);
	return failed == 0 ? 0 : 1;
}
