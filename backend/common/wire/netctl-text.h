/* netctl-text.h - egress events as people and scripts read them: one text
 * line (`lazaret egress`, the workbench's Egress panel) or one JSON object
 * (`lazaret egress --json`). Pure. */
#ifndef LZ_NETCTL_TEXT_H
#define LZ_NETCTL_TEXT_H

#include <stdbool.h>

#include "netctl.h"

/* "tcp", "udp", "icmp", a number; DNS events: the query type ("A", "AAAA"). */
const char *netctl_text_proto(const struct netctl_event *, char buf[16]);
/* One line without the newline, or one JSON object; caller frees. */
char *netctl_text_event(const struct netctl_event *, bool json);

#endif
