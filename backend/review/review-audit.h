/* review-audit.h - the audit rows of lazaret merge, discard and sync.
 *
 * state.db has one writer: the coordinator while it runs (it holds the
 * file's exclusive lock). So a client sends the row in a REVIEW_CTL_AUDIT
 * frame and the coordinator appends it (actor "user"); with no coordinator
 * the command opens state.db itself, as `lazaret audit` reads it.
 */
#ifndef LZ_REVIEW_AUDIT_H
#define LZ_REVIEW_AUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "anchor.h"
#include "err.h"
#include "proto.h"

struct ctl_server_client;
struct store;

/* REVIEW_CTL_AUDIT: string kind, string detail (JSON text). */
void review_audit_encode(struct proto_buf *b, const char *kind, const char *detail);
/* Decode and check: kind "review." then [a-z-]+, detail at most
 * AUDIT_DETAIL_MAX bytes. *kind and *detail are owned. */
int review_audit_decode(const uint8_t *p, size_t len, char **kind, char **detail,
    lz_err_t *err);

/* The coordinator's side: append the row, reply OK with its seq (or ERROR). */
void review_audit_serve(uv_loop_t *loop, struct store *st, struct ctl_server_client *cl,
    const uint8_t *p, size_t len);

/* No coordinator: append to anchor a's state.db directly (creating the
 * Domain Root when missing); *seq (may be NULL) gets the row number. One
 * try: -1 with err->code EBUSY when a coordinator holds the store (starting
 * or tearing down), for the caller to ask it or try again. */
int review_audit_direct(const struct anchor *a, const char *kind, const char *detail,
    int64_t *seq, lz_err_t *err);

#endif
