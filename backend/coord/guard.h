/* guard.h - the coordinator's guard: a small process that outlives a
 * coordinator that dies (SIGKILL, a crash, the OOM killer) and then stops
 * the domain's containers, unmounts its overlays and removes its sockets and
 * TLS key (reap.h), so that no agent ever runs unobserved.
 *
 * Mechanism: a socketpair. The coordinator holds one end (close-on-exec, so
 * none of its children keeps it open), the guard the other. The kernel
 * closes the coordinator's end however it dies; the guard sees EOF without
 * the "clean" byte GUARD_DONE and reaps. PR_SET_PDEATHSIG does not fit (the
 * guard would have to be the coordinator's child, killed with it, and the
 * signal is tied to the parent thread); a conmon-style parent would change
 * the coordinator's pid and process tree for every client. The guard is a
 * fresh exec (`lazaret guard`) in its own session: it shares no memory and
 * no process group with the coordinator, and runs nothing of its code.
 * The other way round, the coordinator sees EOF when the guard dies and shuts
 * down: a sandbox without a guard is not left running either.
 */
#ifndef LZ_GUARD_H
#define LZ_GUARD_H

#include "anchor.h"
#include "err.h"

#define GUARD_READY	'R'	/* guard -> coordinator: watching */
#define GUARD_DONE	'D'	/* coordinator -> guard: clean teardown, nothing to do */

/* Start the guard of a (data_root and socket_dir rebuild its anchor there);
 * guard_ready then waits for it to watch. *fd is the coordinator's end: poll
 * it for EOF (the guard died), hand it to guard_done at exit. Between the two
 * the coordinator may do what needs no cleaning up. */
int guard_start(const struct anchor *a, const char *data_root, const char *socket_dir,
    int *fd, lz_err_t *err);
int guard_ready(int fd, lz_err_t *err);
/* The teardown was clean: tell the guard, close fd. */
void guard_done(int fd);
/* The guard itself (`lazaret guard`): wait on fd; on EOF without GUARD_DONE,
 * take the domain's lifetime lock and reap it. Returns the exit status. */
int guard_main(int fd, const struct anchor *a);

#endif
