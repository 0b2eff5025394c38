/* wb-gitstream.h - a git command's output read on the workbench's loop as
 * the reader wants it: uv_spawn with a pipe for stdout (stdin and stderr
 * from /dev/null), reading paused while the reader has enough (git then
 * blocks on the full pipe: nothing is buffered beyond the pipe), the
 * child killed and reaped when the reader stops early. The review view
 * reads file lists and diffs through it, never on the loop's thread
 * blocking.
 */
#ifndef LZ_WB_GITSTREAM_H
#define LZ_WB_GITSTREAM_H

#include <stddef.h>
#include <uv.h>

#include "err.h"

struct wb_gitstream;

/* Bytes read (valid during the call). */
typedef void (*wb_gitstream_data_fn)(void *arg, const char *buf, size_t len);
/* The output ended and git exited with status (128+signal); after this
 * call the stream is gone. */
typedef void (*wb_gitstream_end_fn)(void *arg, int status);

/* Start argv (argv[0] searched in PATH) with env; reading starts at once. */
struct wb_gitstream *wb_gitstream_start(uv_loop_t *loop, char **argv, char **env,
    wb_gitstream_data_fn data, wb_gitstream_end_fn end, void *arg, lz_err_t *err);
void wb_gitstream_pause(struct wb_gitstream *);
void wb_gitstream_resume(struct wb_gitstream *);
/* No more callbacks: the child is killed, then reaped and freed by the loop. */
void wb_gitstream_stop(struct wb_gitstream *);

#endif
