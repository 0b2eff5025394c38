/* pty.c - PTY pairs and window sizes. posix_openpt rather than openpty:
 * this module's own pty.h shadows glibc's <pty.h> on our include path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "coord/pty.h"

int
pty_open(uint16_t rows, uint16_t cols, int *master, int *slave, lz_err_t *err)
{
	char name[64];
	int m, s = -1;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (m < 0)
		return lz_err_sys(err, errno, "posix_openpt");
	if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof name) != 0) {
		lz_err_sys(err, errno, "cannot set up the pty");
		goto fail;
	}
	/* No stray fds in children: uv_spawn dup2()s the slave where it is wanted. */
	if ((s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		lz_err_sys(err, errno, "cannot open %s", name);
		goto fail;
	}
	if (rows != 0 && cols != 0 && pty_resize(m, rows, cols, err) < 0)
		goto fail;
	*master = m;
	*slave = s;
	return 0;
fail:
	close(m);
	if (s >= 0)
		close(s);
	return -1;
}

int
pty_resize(int master, uint16_t rows, uint16_t cols, lz_err_t *err)
{
	struct winsize ws;

	memset(&ws, 0, sizeof ws);
	ws.ws_row = rows;
	ws.ws_col = cols;
	if (ioctl(master, TIOCSWINSZ, &ws) < 0)
		return lz_err_sys(err, errno, "TIOCSWINSZ");
	return 0;
}
