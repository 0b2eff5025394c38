/* cmd-image.c - lazaret image: build and list the locally built images. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli-suggest.h"
#include "commands.h"
#include "sandbox/image.h"
#include "coord/proc.h"

/* Until commands.h lists it (the lead's file). */
int cmd_image(int argc, char **argv);

#define IMAGE_USAGE "lazaret image build-default [--force] | lazaret image ls [--json]"

static int
image_cmd_build(int argc, char **argv)
{
	static const char help[] =
	    "Build " IMAGE_DEFAULT " locally (no registry): busybox, bash,\n"
	    "coreutils, git, less and vim copied from this host with their shared\n"
	    "libraries, imported with podman. Skipped when the image exists.\n\n"
	    "  -f, --force  rebuild even if the image exists\n";
	bool force = false;
	const struct cli_opt opts[] = { CLI_FLAG("force", 'f', &force), CLI_END };
	const struct cli_cmd cmd = { "image", "lazaret image build-default [--force]", help, opts,
	    false };
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	if (image_build_default(IMAGE_DEFAULT, force, stderr, &err) < 0)
		return cli_fail(&err);
	return 0;
}

static int
image_cmd_ls(int argc, char **argv)
{
	char *pv[] = { (char *)"podman", (char *)"image", (char *)"ls",
	    (char *)"--filter=label=" IMAGE_LABEL, NULL, NULL };
	bool json = false;
	const struct cli_opt opts[] = { CLI_FLAG("json", 0, &json), CLI_END };
	const struct cli_cmd cmd = { "image", "lazaret image ls [--json]",
	    "List the images Lazaret built (podman image ls, filtered on their label).\n\n"
	    "  --json  podman's JSON (an array of objects)\n", opts, false };
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	if (json)
		pv[4] = (char *)"--format=json";
	if (proc_run(pv, NULL, NULL, PROC_INHERIT_STDOUT | PROC_INHERIT_STDERR, &r, &err) < 0)
		return cli_fail(&err);
	rc = r.status == 0 ? 0 : 1;
	proc_result_clear(&r);
	return rc;
}

int
cmd_image(int argc, char **argv)
{
	static const char *const subs[] = { "build-default", "ls" };
	int rc;

	if (argc < 2)
		return cli_usage_error("image", IMAGE_USAGE, "missing subcommand");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		printf("usage: %s\n\n"
		    "  build-default  build %s from this host's binaries\n"
		    "  ls [--json]    list the images Lazaret built\n", IMAGE_USAGE, IMAGE_DEFAULT);
		return 0;
	}
	if (strcmp(argv[1], "build-default") == 0)
		return image_cmd_build(argc - 1, argv + 1);
	if (strcmp(argv[1], "ls") == 0)
		return image_cmd_ls(argc - 1, argv + 1);
	rc = cli_usage_error("image", IMAGE_USAGE, "unknown subcommand '%s'", argv[1]);
	cli_suggest_print(argv[1], subs, sizeof subs / sizeof subs[0]);
	return rc;
}
