/* audit-text.h - `lazaret audit` output: the audit trail as text or JSON
 * lines, or the verification verdict. Shared by the coordinator (which owns
 * the store while it runs: ESC_AUDIT_REQ on the control socket) and the CLI
 * (which opens state.db itself when no coordinator runs).
 */
#ifndef LZ_AUDIT_TEXT_H
#define LZ_AUDIT_TEXT_H

#include <stdint.h>
#include <uv.h>

#include "host/ctl-server.h"
#include "err.h"
#include "store/store.h"

/* flags ESC_CTL_AUDIT_JSON / _VERIFY. *text (caller frees) is what to print;
 * *code the exit status (1: the trail is broken). -1 when the store fails. */
int audit_text_render(struct store *, uint8_t flags, char **text, int *code, lz_err_t *err);
/* Answer an ESC_AUDIT_REQ from cl with ESC_AUDIT, rendered on the threadpool. */
void audit_text_serve(uv_loop_t *loop, struct store *, struct ctl_server_client *cl,
    const uint8_t *p, size_t len);

#endif
