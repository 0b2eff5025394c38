/* cmd-image.c - lazaret image: build and list the locally built images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-kit.h"
#include "cli-suggest.h"
#include "commands.h"
#include "config.h"
#include "sandbox/image/image.h"
#include "host/proc.h"
#include "xmalloc.h"

/* Until commands.h lists it (the lead's file). */
int cmd_image(int argc, char **argv);

#define IMAGE_USAGE "lazaret image build --kit KIT [--pull] | lazaret image build-default [--force] | " \
	"lazaret image ls [--json]"

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
image_cmd_kit(int argc, char **argv)
{
	static const char help[] =
	    "Build the image of an agent kit (docs/kits.md) from its recipe: a Debian\n"
	    "base from this host's apt mirror (mmdebstrap, no registry), the kit's\n"
	    "Debian and npm packages, the host's CA certificates; tagged\n"
	    "localhost/lazaret-kit-KIT:RECIPEHASH. Reused while the recipe is unchanged.\n\n"
	    "  -k, --kit KIT  the kit: claude, codex, shell, or yours in\n"
	    "                 $XDG_CONFIG_HOME/lazaret/kits/KIT/kit.yaml (docs/kits.md)\n"
	    "  --pull         build again even when the image exists (and pull an image\n"
	    "                 base: again)\n"
	    "  --config FILE  configuration file\n";
	const char *kit = NULL;
	bool pull = false;
	const struct cli_opt opts[] = { CLI_STR("kit", 'k', &kit), CLI_FLAG("pull", 0, &pull),
	    CLI_CONFIG, CLI_END };
	const struct cli_cmd cmd = { "image", "lazaret image build --kit KIT [--pull]", help, opts,
	    false };
	struct cfg *cfg = NULL;
	const struct cfg_kit *k;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (kit == NULL)
		return cli_usage_error("image", "lazaret image build --kit KIT [--pull]",
		    "missing --kit KIT");
	if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0)
		return cli_fail(&err);
	if ((k = cfg_kit_find(cfg, kit)) == NULL) {
		lz_err_set(&err, LZ_EUSAGE, "no kit '%s' (kits are directories KIT/kit.yaml in "
		    "$XDG_CONFIG_HOME/lazaret/kits or the installed share/lazaret/kits)", kit);
		cfg_free(cfg);
		return cli_fail(&err);
	}
	rc = cli_kit_build(cfg, k, pull, &err) < 0 ? cli_fail(&err) : 0;
	if (rc == 0)
		printf("%s\n", k->image);
	cfg_free(cfg);
	return rc;
}

/* podman's lines as a table; a kit image's name gives its kit and recipe. */
static void
image_ls_print(char *out)
{
	static const char kitp[] = "localhost/lazaret-kit-";
	char *save = NULL, *line, *f[5];
	size_t i;

	printf("%-44s %-13s %-10s %-16s %-8s %s\n", "IMAGE", "ID", "SIZE", "CREATED", "KIT",
	    "RECIPE");
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *name;
		bool kit;

		for (i = 0; i < 5; i++) {
			f[i] = p;
			p = i < 4 ? strchr(p, '\t') : NULL;
			if (i < 4 && p == NULL)
				break;
			if (p != NULL)
				*p++ = '\0';
		}
		if (i < 4)
			continue;
		kit = strncmp(f[0], kitp, sizeof kitp - 1) == 0;
		name = xasprintf("%s:%s", f[0], f[1]);
		printf("%-44s %-13.12s %-10s %-16s %-8s %s\n", name, f[2], f[3], f[4],
		    kit ? f[0] + sizeof kitp - 1 : "-", kit ? f[1] : "-");
		free(name);
	}
}

static int
image_cmd_ls(int argc, char **argv)
{
	char *pv[] = { (char *)"podman", (char *)"image", (char *)"ls", NULL, NULL };
	bool json = false;
	const struct cli_opt opts[] = { CLI_FLAG("json", 0, &json), CLI_END };
	const struct cli_cmd cmd = { "image", "lazaret image ls [--json]",
	    "List the images a sandbox can run (podman image ls of this user): kit\n"
	    "images with their kit and recipe hash, the default image, your own.\n\n"
	    "  --json  podman's JSON (an array of objects)\n", opts, false };
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	if (json) {
		pv[3] = (char *)"--format=json";
		if (proc_run(pv, NULL, NULL, PROC_INHERIT_STDOUT | PROC_INHERIT_STDERR, &r, &err) < 0)
			return cli_fail(&err);
	} else {
		pv[3] = (char *)"--format={{.Repository}}\t{{.Tag}}\t{{.ID}}\t{{.Size}}\t"
		    "{{.CreatedSince}}";
		if (proc_run(pv, NULL, NULL, PROC_INHERIT_STDERR, &r, &err) < 0)
			return cli_fail(&err);
		if (r.status == 0)
			image_ls_print(r.out);
	}
	rc = r.status == 0 ? 0 : 1;
	proc_result_clear(&r);
	return rc;
}

int
cmd_image(int argc, char **argv)
{
	static const char *const subs[] = { "build", "build-default", "ls" };
	int rc;

	if (argc < 2)
		return cli_usage_error("image", IMAGE_USAGE, "missing subcommand");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		printf("usage: %s\n\n"
		    "  build --kit K  build agent kit K's image (docs/kits.md)\n"
		    "  build-default  build %s from this host's binaries\n"
		    "  ls [--json]    list the images Lazaret built\n", IMAGE_USAGE, IMAGE_DEFAULT);
		return 0;
	}
	if (strcmp(argv[1], "build") == 0)
		return image_cmd_kit(argc - 1, argv + 1);
	if (strcmp(argv[1], "build-default") == 0)
		return image_cmd_build(argc - 1, argv + 1);
	if (strcmp(argv[1], "ls") == 0)
		return image_cmd_ls(argc - 1, argv + 1);
	rc = cli_usage_error("image", IMAGE_USAGE, "unknown subcommand '%s'", argv[1]);
	cli_suggest_print(argv[1], subs, sizeof subs / sizeof subs[0]);
	return rc;
}
