/* fuzz-esc-ctl.c - libFuzzer harness: every escalation control-message
 * decoder (esc-ctl.h) on every input, as the coordinator and the client see
 * them; decoded values are encoded again and must decode the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "esc-ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	struct esc_ctl_anchor a;
	struct esc_ctl_prompt q, q2;
	struct esc_ctl_decision d;
	struct proto_buf b = { NULL, 0, 0 };
	struct proto_header h;
	const uint8_t *ns, *pl;
	size_t ns_len;
	uint8_t flags;
	uint32_t code;
	char *text;

	if (esc_ctl_decode_new_session(data, size, &a, &ns, &ns_len, &err) == 0) {
		if (ns < data || ns + ns_len != data + size)
			abort();
		esc_ctl_anchor_clear(&a);
	}
	lz_err_clear(&err);
	if (esc_ctl_decode_prompt(data, size, &q, &err) == 0) {
		esc_ctl_encode_prompt(&b, &q);
		if (proto_frame_parse(b.data, b.len, &h, &pl, &err) != PROTO_FRAME ||
		    esc_ctl_decode_prompt(pl, h.length, &q2, &err) < 0 ||
		    strcmp(q.command, q2.command) != 0 || q.ticket != q2.ticket)
			abort();
		esc_ctl_prompt_clear(&q2);
		esc_ctl_prompt_clear(&q);
		proto_buf_clear(&b);
	}
	lz_err_clear(&err);
	if (esc_ctl_decode_decision(data, size, &d, &err) == 0) {
		if (d.action > ESC_CTL_QUIT)
			abort();
		esc_ctl_decision_clear(&d);
	}
	lz_err_clear(&err);
	if (esc_ctl_decode_audit_req(data, size, &flags, &err) < 0)
		lz_err_clear(&err);
	if (esc_ctl_decode_audit(data, size, &code, &text, &err) == 0)
		free(text);
	lz_err_clear(&err);
	return 0;
}
