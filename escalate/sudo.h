/* sudo.h - Lazaret's `sudo` for the agent user (docs/images.md): runsc sets
 * no_new_privs on every process, so no setuid program can become root. The
 * session's holder (hold.c) stays root; this client hands it the command,
 * its environment, cwd and stdio, and the holder runs it as root. */
#ifndef LZ_ESC_SUDO_H
#define LZ_ESC_SUDO_H

#define ESC_SUDO_FD_ENV	"LAZARET_SUDO_FD"

/* lazaret-escalate run as `sudo` (mounted at /usr/local/bin/sudo). */
int esc_sudo_main(int argc, char **argv);
/* In the holder: one request arrived on fd (the socket LAZARET_SUDO_FD names
 * in COMMAND): fork a root runner for it, which first wipes wipe (the
 * credential; may be NULL). Returns the runner's pid, 0 when the message
 * was not a request (dropped), -1 when nobody can send any more. */
int esc_sudo_accept(int fd, char *wipe);

#endif
