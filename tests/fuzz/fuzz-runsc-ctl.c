/* fuzz-runsc-ctl.c - libFuzzer harness for sandbox-exec's side of runsc's
 * control socket (sandbox/runsc/runsc-ctl.c): the process JSON it is handed, the
 * sandbox's replies and runsc's state file. Never a crash; a built call is
 * one whole JSON object that parses again; a reply's end is within it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* backend/review and backend/sandbox are not in the fuzz build's shared
 * sources: compile the pure files in. */
#include "sandbox/runsc/runsc-ctl.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runsc_ctl_take take = { "LAZARET_CRED", "LAZARET_HOLD_FD=3", NULL };
	struct surface_json js;
	lz_err_t err = LZ_ERR_INIT;
	char *msg = NULL, *res = NULL, *sid = NULL, *text;
	size_t end;
	int64_t pid;
	bool tty;

	if (runsc_ctl_exec_msg(data, size, "c0ffee", &take, &msg, &tty, &err) == 0) {
		LZ_ASSERT(runsc_ctl_reply_end(msg, strlen(msg)) == strlen(msg));
		LZ_ASSERT(surface_json_parse((const uint8_t *)msg, strlen(msg), &js, NULL) == 0);
		surface_json_clear(&js);
		free(msg);
	}
	runsc_ctl_take_clear(&take);
	lz_err_clear(&err);
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	end = runsc_ctl_reply_end(text, size);
	LZ_ASSERT(end <= size);
	if (runsc_ctl_reply(text, end > 0 ? end : size, &res, &err) == 0) {
		LZ_ASSERT(res != NULL);
		(void)surface_json_int(res, 0, UINT32_MAX, &pid, NULL);
		free(res);
	}
	lz_err_clear(&err);
	if (runsc_ctl_state(data, size, &sid, &pid, &err) == 0) {
		LZ_ASSERT(sid != NULL && sid[0] != '\0' && strlen(sid) <= 64 && pid >= 1);
		free(sid);
	}
	lz_err_clear(&err);
	free(text);
	return 0;
}
