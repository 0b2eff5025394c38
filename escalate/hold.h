/* hold.h - `lazaret-escalate --hold -- COMMAND`: a session's first process,
 * which keeps the session credential out of every environment (cred-fd.h). */
#ifndef LZ_ESC_HOLD_H
#define LZ_ESC_HOLD_H

/* argv: what follows --hold ("--" optional, then COMMAND ARGS). Returns the
 * exit status (COMMAND's, 128 + signal, or 127 if it could not start). */
int esc_hold_main(int argc, char **argv);

#endif
