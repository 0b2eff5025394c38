/* note.h - NOTE frames (proto.h): what a client knows that the audit trail
 * must hold. One kind is taken, from a client attached to the session:
 *	esc.decision-how	how the human decided (keys, code, timing).
 * It becomes one audit row (actor: the client's uid and pid). Input
 * discarded at a prompt is SUSPECT's (coord-dispatch.c), not a NOTE.
 */
#ifndef LZ_NOTE_H
#define LZ_NOTE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "host/ctl-server.h"
#include "coord/session.h"
#include "store/store.h"

/* The session number id if cl is attached to it, else NULL. */
typedef struct session *(*note_session_fn)(void *arg, struct ctl_server_client *cl,
    uint32_t id);

/* Handle one NOTE payload from cl: an ERROR frame for a bad payload, an
 * unknown kind or a session cl is not attached to; else an audit row. */
void note_serve(uv_loop_t *loop, struct store *, struct ctl_server_client *cl,
    const uint8_t *p, size_t len, note_session_fn find, void *arg);

#endif
