/* cmd-driver.c - lazaret driver: the container driver by hand (hidden; for
 * debugging and for tests/integ/test-driver.sh). Each subcommand is one
 * drv_ops call on podman_ops, so what it does is what the coordinator does. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sandbox/driver.h"
#include "sandbox/podman/podman.h"
#include "strv.h"
#include "xmalloc.h"

/* Until commands.h lists it (the lead's file). */
int cmd_driver(int argc, char **argv);

#define DRIVER_USAGE \
	"lazaret driver create [--dry-run] [-n NET] [-w DIR] [-e K=V] [-l K=V] [-r FLAG]\n" \
	"                      [--bind SRC:DST[:ro]] [--tmpfs DST] [--runtime R] [--cap-add C]\n" \
	"                      NAME IMAGE [CMD...]\n" \
	"       lazaret driver exec [-t] [-e K=V] [-w DIR] NAME [CMD...]\n" \
	"       lazaret driver inspect NAME | rm NAME | image-exists IMAGE | image-id IMAGE\n" \
	"       lazaret driver writable-dir NAME"

static void
driver_push(char ***v, size_t *n, const char *s)
{
	lz_strv_push(v, s);
	(*n)++;
}

/* "SRC:DST" or "SRC:DST:ro"; DST is the last ':'-field that is not "ro". */
static int
driver_parse_bind(const char *arg, struct drv_mount *m, lz_err_t *err)
{
	_cleanup_free_ char *s = xstrdup(arg);
	char *c;

	c = strrchr(s, ':');
	if (c != NULL && strcmp(c, ":ro") == 0) {
		m->ro = true;
		*c = '\0';
		c = strrchr(s, ':');
	}
	if (c == NULL || c == s || c[1] == '\0')
		return lz_err_set(err, LZ_EUSAGE, "--bind '%s': expected SRC:DST[:ro]", arg);
	*c = '\0';
	m->type = DRV_MOUNT_BIND;
	m->src = xstrdup(s);
	m->dst = xstrdup(c + 1);
	return 0;
}

static int
driver_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'D' },
		{ "network", required_argument, NULL, 'n' },
		{ "workdir", required_argument, NULL, 'w' },
		{ "env", required_argument, NULL, 'e' },
		{ "label", required_argument, NULL, 'l' },
		{ "runtime-flag", required_argument, NULL, 'r' },
		{ "bind", required_argument, NULL, 'b' },
		{ "tmpfs", required_argument, NULL, 'T' },
		{ "runtime", required_argument, NULL, 'R' },
		{ "cap-add", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	struct drv_spec *s = xcalloc(1, sizeof *s);
	lz_err_t err = LZ_ERR_INIT;
	char **v = NULL;
	bool dry = false;
	int c, rc = 1;
	size_t i;

	optind = 0;
	opterr = 0;
	s->workdir = xstrdup("/workspace");
	s->network = xstrdup("none");
	while ((c = getopt_long(argc, argv, "+n:w:e:l:r:", opts, NULL)) != -1) {
		switch (c) {
		case 'D': dry = true; break;
		case 'n': free(s->network); s->network = xstrdup(optarg); break;
		case 'w': free(s->workdir); s->workdir = xstrdup(optarg); break;
		case 'e': driver_push(&s->env, &s->n_env, optarg); break;
		case 'l': driver_push(&s->labels, &s->n_labels, optarg); break;
		case 'r': driver_push(&s->runtime_flags, &s->n_runtime_flags, optarg); break;
		case 'R': free(s->runtime); s->runtime = xstrdup(optarg); break;
		case 'C': driver_push(&s->cap_add, &s->n_cap_add, optarg); break;
		case 'b':
		case 'T':
			s->mounts = xreallocarray(s->mounts, s->n_mounts + 1, sizeof *s->mounts);
			memset(&s->mounts[s->n_mounts], 0, sizeof *s->mounts);
			if (c == 'T') {
				s->mounts[s->n_mounts].type = DRV_MOUNT_TMPFS;
				s->mounts[s->n_mounts].dst = xstrdup(optarg);
			} else if (driver_parse_bind(optarg, &s->mounts[s->n_mounts], &err) < 0) {
				rc = cli_usage_error("driver", DRIVER_USAGE, "%s", err.msg);
				lz_err_clear(&err);
				goto out;
			}
			s->n_mounts++;
			break;
		default:
			rc = cli_usage_error("driver", DRIVER_USAGE, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (argc - optind < 2) {
		rc = cli_usage_error("driver", DRIVER_USAGE, "create needs NAME and IMAGE");
		goto out;
	}
	s->name = xstrdup(argv[optind]);
	s->image = xstrdup(argv[optind + 1]);
	for (i = (size_t)optind + 2; i < (size_t)argc; i++)
		lz_strv_push(&s->cmd, argv[i]);
	if (dry) {
		if (podman_run_argv(s, podman_init_path(), &v, &err) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		for (i = 0; v[i] != NULL; i++)
			printf("%s\n", v[i]);
		rc = 0;
		goto out;
	}
	if (podman_ops.create(s, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = 0;
out:
	lz_strv_free(v);
	drv_spec_free(s);
	return rc;
}

/* Replace this process by the exec argv (stdio, and the terminal, are ours). */
static int
driver_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tty", no_argument, NULL, 't' },
		{ "env", required_argument, NULL, 'e' },
		{ "workdir", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct drv_exec ex;
	lz_err_t err = LZ_ERR_INIT;
	char **env = NULL, **cmd = NULL, **v = NULL;
	size_t n_env = 0;
	int c, i;

	memset(&ex, 0, sizeof ex);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+te:w:", opts, NULL)) != -1) {
		switch (c) {
		case 't': ex.tty = true; break;
		case 'e': driver_push(&env, &n_env, optarg); break;
		case 'w': ex.workdir = optarg; break;
		default:
			lz_strv_free(env);
			return cli_usage_error("driver", DRIVER_USAGE, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		lz_strv_free(env);
		return cli_usage_error("driver", DRIVER_USAGE, "exec needs NAME");
	}
	ex.name = argv[optind];
	for (i = optind + 1; i < argc; i++)
		lz_strv_push(&cmd, argv[i]);
	ex.argv = cmd;
	ex.env = env;
	ex.n_env = n_env;
	if (podman_ops.exec_argv(&ex, &v, &err) == 0) {
		execvp(v[0], v);
		lz_err_sys(&err, errno, "cannot run %s", v[0]);
	}
	lz_strv_free(v);
	lz_strv_free(cmd);
	lz_strv_free(env);
	return cli_fail(&err);
}

int
cmd_driver(int argc, char **argv)
{
	static const char *const states[] = {
		[DRV_STATE_ABSENT] = "absent", [DRV_STATE_RUNNING] = "running",
		[DRV_STATE_STOPPED] = "stopped",
	};
	lz_err_t err = LZ_ERR_INIT;
	enum drv_state st;
	bool exists;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		printf("usage: %s\n", DRIVER_USAGE);
		return argc < 2 ? 129 : 0;
	}
	if (cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	if (strcmp(argv[1], "create") == 0)
		return driver_create(argc - 1, argv + 1);
	if (strcmp(argv[1], "exec") == 0)
		return driver_exec(argc - 1, argv + 1);
	if (argc != 3)
		return cli_usage_error("driver", DRIVER_USAGE, "'%s' takes one argument", argv[1]);
	if (strcmp(argv[1], "inspect") == 0) {
		if (podman_ops.inspect(argv[2], &st, &err) < 0)
			return cli_fail(&err);
		printf("%s\n", states[st]);
		return 0;
	}
	if (strcmp(argv[1], "rm") == 0)
		return podman_ops.remove(argv[2], &err) < 0 ? cli_fail(&err) : 0;
	if (strcmp(argv[1], "image-exists") == 0) {
		if (podman_ops.image_exists(argv[2], &exists, &err) < 0)
			return cli_fail(&err);
		printf("%s\n", exists ? "yes" : "no");
		return exists ? 0 : 1;
	}
	if (strcmp(argv[1], "image-id") == 0 || strcmp(argv[1], "writable-dir") == 0) {
		_cleanup_free_ char *out = NULL;

		if ((argv[1][0] == 'i' ? podman_ops.image_id(argv[2], &out, &err) :
		    podman_ops.writable_dir(argv[2], &out, &err)) < 0)
			return cli_fail(&err);
		printf("%s\n", out);
		return 0;
	}
	return cli_usage_error("driver", DRIVER_USAGE, "unknown subcommand '%s'", argv[1]);
}
