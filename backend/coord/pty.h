/* pty.h - pseudo-terminals the coordinator owns (DESIGN "Sessions and PTYs").
 * The only file that calls openpty/TIOCSWINSZ. */
#ifndef LZ_PTY_H
#define LZ_PTY_H

#include <stdint.h>

#include "err.h"

/* Open a PTY pair sized rows x cols (0 = leave the kernel's default). Both
 * ends are close-on-exec; the master is non-blocking. */
int pty_open(uint16_t rows, uint16_t cols, int *master, int *slave, lz_err_t *err);
/* Set the window size on the master (TIOCSWINSZ). */
int pty_resize(int master, uint16_t rows, uint16_t cols, lz_err_t *err);

#endif
