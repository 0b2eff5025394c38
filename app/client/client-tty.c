/* client-tty.c - find the user's terminal (see client-tty.h). */
#include <fcntl.h>
#include <unistd.h>

#include "client-tty.h"

int
client_tty_open(void)
{
	int fd, i, fl;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) >= 0)
		return fd;
	/* No controlling terminal: the one our standard streams are on. Only a
	 * descriptor open both ways: the prompt reads keys and draws on it. */
	for (i = 0; i < 3; i++) {
		if (!isatty(i) || (fl = fcntl(i, F_GETFL)) < 0 || (fl & O_ACCMODE) != O_RDWR)
			continue;
		return fcntl(i, F_DUPFD_CLOEXEC, 3);
	}
	return -1;
}
