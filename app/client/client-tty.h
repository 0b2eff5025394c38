/* client-tty.h - the user's terminal, for a question only a human at it may
 * answer (the escalation prompt of `lazaret run`, the code of `lazaret
 * escalations approve`).
 */
#ifndef LZ_CLIENT_TTY_H
#define LZ_CLIENT_TTY_H

/* A read-write, close-on-exec fd on the terminal: /dev/tty, or, for a
 * process without a controlling terminal (`su - USER -c 'lazaret run'`
 * starts its command in a new session: /dev/tty gives ENXIO, and the pty's
 * device node belongs to the user who opened it), a copy of the first of
 * stdin, stdout, stderr that is a terminal open for reading and writing.
 * -1 when there is none. The caller closes it. */
int client_tty_open(void);

#endif
