/* netreq-text.h - network requests as people and scripts read them: one text
 * line (`lazaret egress --pending`, the workbench) or one JSON object
 * (`--pending --json`). Pure. */
#ifndef LZ_NETREQ_TEXT_H
#define LZ_NETREQ_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "netreq.h"

/* The destination: "10.0.0.3:443/tcp", "[fd00::1]:53/udp", "dns A x.example.com". */
void netreq_text_dest(const struct netreq_item *, char *buf, size_t size);
/* One line without the newline, or one JSON object (keys: id, state, kind,
 * proto, addr, port, name, attempts, first_ms, last_ms, expires_ms, session,
 * scope, grant, who); caller frees. */
char *netreq_text_item(const struct netreq_item *, bool json);

#endif
