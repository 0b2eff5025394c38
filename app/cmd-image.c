/* cmd-image.c - lazaret image: build and list the locally built images. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "sandbox/image.h"
#include "coord/proc.h"

/* Until commands.h lists it (the lead's file). */
int cmd_image(int argc, char **argv);

#define IMAGE_USAGE "lazaret image build-default [--force] | lazaret image ls"

static int
image_cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lz_err_t err = LZ_ERR_INIT;
	bool force = false;
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': force = true; break;
		case 'h':
			printf("usage: lazaret image build-default [--force]\n\n"
			    "Build %s locally (no registry): busybox, bash,\n"
			    "coreutils, git, less and vim copied from this host with their shared\n"
			    "libraries, imported with podman. Skipped when the image exists.\n\n"
			    "  -f, --force  rebuild even if the image exists\n", IMAGE_DEFAULT);
			return 0;
		default:
			return cli_usage_error("image", IMAGE_USAGE, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("image", IMAGE_USAGE, "unexpected argument '%s'", argv[optind]);
	if (image_build_default(IMAGE_DEFAULT, force, stderr, &err) < 0)
		return cli_fail(&err);
	return 0;
}

static int
image_cmd_ls(int argc, char **argv)
{
	char *pv[] = { (char *)"podman", (char *)"image", (char *)"ls",
	    (char *)"--filter=label=" IMAGE_LABEL, NULL };
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if (argc > 1)
		return cli_usage_error("image", IMAGE_USAGE, "unexpected argument '%s'", argv[1]);
	if (proc_run(pv, NULL, NULL, PROC_INHERIT_STDOUT | PROC_INHERIT_STDERR, &r, &err) < 0)
		return cli_fail(&err);
	rc = r.status == 0 ? 0 : 1;
	proc_result_clear(&r);
	return rc;
}

int
cmd_image(int argc, char **argv)
{
	lz_err_t err = LZ_ERR_INIT;

	if (argc < 2)
		return cli_usage_error("image", IMAGE_USAGE, "missing subcommand");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		printf("usage: %s\n\n"
		    "  build-default  build %s from this host's binaries\n"
		    "  ls             list the images Lazaret built\n", IMAGE_USAGE, IMAGE_DEFAULT);
		return 0;
	}
	if (cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	if (strcmp(argv[1], "build-default") == 0)
		return image_cmd_build(argc - 1, argv + 1);
	if (strcmp(argv[1], "ls") == 0)
		return image_cmd_ls(argc - 1, argv + 1);
	return cli_usage_error("image", IMAGE_USAGE, "unknown subcommand '%s'", argv[1]);
}
