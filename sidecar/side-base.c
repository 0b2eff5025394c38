/* side-base.c - what every file of the router calls: the clocks and
 * O_NONBLOCK. It calls none of them. */
#include <errno.h>
#include <fcntl.h>
#include <time.h>

#include "side.h"

uint64_t
side_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
side_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
side_nonblock(int fd, lz_err_t *err)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return lz_err_sys(err, errno, "fcntl O_NONBLOCK");
	return 0;
}
