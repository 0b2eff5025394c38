/* cli-kit.c - a kit's image built in a network of its own: the image code's
 * image_net_ops served by net/net-build.c (a Network Sidecar per build). */
#include "cli-kit.h"
#include "config.h"
#include "net/net-build.h"
#include "sandbox/image/image.h"

/* struct image_net is the image code's name for a struct net_build. */
static int
cli_kit_net_up(const char *dir, char *const *policy, size_t n, void *arg, struct image_net **net,
	       lz_err_t *err)
{
	const struct cfg *cfg = arg;

	return net_build_up(dir, policy, n, cfg->data_root, cfg->esc_socket_dir,
			    (struct net_build **)net, err);
}

static char *const *
cli_kit_net_wrap(const struct image_net *net)
{
	return net_build_wrap((const struct net_build *)net);
}

static const char *
cli_kit_net_netns(const struct image_net *net)
{
	return net_build_netns((const struct net_build *)net);
}

static const char *
cli_kit_net_name(const struct image_net *net)
{
	return net_build_name((const struct net_build *)net);
}

static void
cli_kit_net_down(struct image_net *net)
{
	net_build_down((struct net_build *)net);
}

int
cli_kit_build(const struct cfg *cfg, const struct cfg_kit *k, bool force, lz_err_t *err)
{
	const struct image_net_ops ops = {
		.up = cli_kit_net_up, .wrap = cli_kit_net_wrap, .netns = cli_kit_net_netns,
		.name = cli_kit_net_name,
		.down = cli_kit_net_down, .arg = (void *)cfg,
	};

	return image_kit_build(k, force, stderr, &ops, err);
}
