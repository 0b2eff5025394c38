/* coord-user.c - the agent user: who sessions run as, and what the sandbox
 * needs for it (docs/images.md "The agent user").
 *
 * Sessions start as the sandbox's root under lazaret-escalate --hold, which
 * drops to the user for the command and keeps a root end for `sudo`
 * (escalate/hold.c, escalate/sudo.c): runsc sets no_new_privs on every
 * process, so a setuid sudo cannot work. The files the user writes in are
 * host directories mapped with bindfs (sandbox/mounts/uidmap.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "coord/coord-int.h"
#include "coord/coord.h"
#include "config.h"
#include "prefix.h"
#include "sandbox/mounts/overlay.h"
#include "sandbox/mounts/passwd.h"
#include "sandbox/mounts/uidmap.h"
#include "xmalloc.h"

#define COORD_USER_SUDO_DST	"/usr/local/bin/sudo"

void
coord_user_decide(struct coord *c)
{
	int want = c->o->resolved->profile->user;
	_cleanup_free_ char *img = NULL, *pw = NULL;
	unsigned gid = 0;

	c->uid = c->gid = 0;
	if (want == 0)
		return;
	img = overlay_image_mount(c->a);
	pw = uidmap_image_passwd(c->a, img);
	if (want == CFG_USER_AUTO) {
		if (pw == NULL || !passwd_find(pw, strlen(pw), CFG_USER_AGENT, &gid)) {
			coord_log("sessions run as root: %s", pw == NULL ? "the image's /etc/passwd "
			    "was not readable (no persistent dirs?); set user: agent to choose" :
			    "the image has no uid 1000 (user: agent needs one)");
			return;
		}
		c->uid = CFG_USER_AGENT;
	} else {
		c->uid = (unsigned)want;
		if (pw == NULL || !passwd_find(pw, strlen(pw), c->uid, &gid))
			gid = c->uid;	/* no entry: a group of the same number */
	}
	c->gid = gid;
	coord_log("sessions run as uid %u, gid %u (sudo through lazaret-escalate)", c->uid,
	    c->gid);
}

static bool
coord_user_maps(const struct coord *c, const struct drv_mount *m)
{
	const struct cfg_resolved *r = c->o->resolved;
	size_t n = strlen(SENTRY_WORKSPACE_DST), i;
	struct stat st;

	if (m->type != DRV_MOUNT_BIND || m->src == NULL)
		return false;
	if (strcmp(m->dst, ESC_COORD_TLS_DST) == 0)
		return true;
	if (m->ro || stat(m->src, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	/* the workspace, the agent's repository, and the user's own volumes */
	if ((strncmp(m->dst, SENTRY_WORKSPACE_DST, n) == 0 && (m->dst[n] == '\0' ||
	    m->dst[n] == '/')) || strcmp(m->dst, SENTRY_GITDIR_DST) == 0)
		return true;
	for (i = 0; i < r->n_volumes; i++)
		if (strcmp(m->dst, r->volumes[i].container) == 0)
			return true;
	return false;
}

int
coord_user_spec(struct coord *c, struct drv_spec *sp, lz_err_t *err)
{
	_cleanup_free_ char *bin = NULL;
	bool have_bin = false;
	size_t i, n = sp->n_mounts;
	char *mnt, name[24];

	if (c->uid == 0)
		return 0;
	for (i = 0; i < n; i++) {
		struct drv_mount *m = &sp->mounts[i];

		if (strcmp(m->dst, ESC_COORD_BIN_DST) == 0)
			have_bin = true;
		if (!coord_user_maps(c, m))
			continue;
		snprintf(name, sizeof name, "%zu", i);
		if (uidmap_mount(c->a, name, m->src, c->uid, c->gid, &mnt, err) < 0)
			return lz_err_wrap(err, "%s", m->dst);
		free(m->src);
		m->src = mnt;
	}
	if (lz_prefix_helper("lazaret-escalate", &bin, err) < 0)
		return lz_err_wrap(err, "the agent user's sudo");
	if (!have_bin)
		drv_spec_add_bind(sp, bin, ESC_COORD_BIN_DST, true);
	drv_spec_add_bind(sp, bin, COORD_USER_SUDO_DST, true);
	/* The socket's directory is ours alone (0700) on the host; inside, the
	 * user must connect to it (escalation is signed per session anyway). */
	if (c->esc != NULL && chmod(c->a->esc_socket, 0666) < 0)
		return lz_err_sys(err, errno, "cannot open %s to the agent user", c->a->esc_socket);
	return 0;
}
