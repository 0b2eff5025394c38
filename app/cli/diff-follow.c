/* diff-follow.c - inotify on the host's refs for lazaret diff --follow (see
 * diff-follow.h). The import writes refs/heads/lazaret/<...> with git's
 * lock-and-rename (or packed-refs in the common dir), so those two
 * directories see every new agent commit. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff-follow.h"
#include "xmalloc.h"

struct diff_follow {
	int fd;
};

int
diff_follow_open(const char *common, struct diff_follow **out, lz_err_t *err)
{
	_cleanup_free_ char *heads = xasprintf("%s/refs/heads/lazaret", common);
	const uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE;
	struct diff_follow *f;
	int fd;

	*out = NULL;
	if ((fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0)
		return lz_err_sys(err, errno, "inotify");
	(void)mkdir(heads, 0755);	/* the first import makes it anyway */
	if (inotify_add_watch(fd, common, mask) < 0 || inotify_add_watch(fd, heads, mask) < 0) {
		int e = errno;

		close(fd);
		return lz_err_sys(err, e, "cannot watch '%s'", heads);
	}
	f = xcalloc(1, sizeof *f);
	f->fd = fd;
	*out = f;
	return 0;
}

/* Read what is queued; 1 when anything was. */
static int
diff_follow_drain(struct diff_follow *f)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int any = 0;

	while (read(f->fd, buf, sizeof buf) > 0)
		any = 1;
	return any;
}

int
diff_follow_wait(struct diff_follow *f, int timeout_ms, lz_err_t *err)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	int n;

	if ((n = poll(&p, 1, timeout_ms)) < 0)
		return errno == EINTR ? 0 : lz_err_sys(err, errno, "poll");
	if (n == 0)
		return 0;
	(void)diff_follow_drain(f);
	/* The rest of the burst (lock, rename, reflog) as the same wake-up. */
	while (poll(&p, 1, 100) > 0)
		(void)diff_follow_drain(f);
	return 1;
}

void
diff_follow_free(struct diff_follow *f)
{
	if (f == NULL)
		return;
	close(f->fd);
	free(f);
}
