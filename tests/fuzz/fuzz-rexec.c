/* fuzz-rexec.c - libFuzzer harness for what a session's runsc exec is built
 * from (sandbox/podman/rexec-spec.c, rexec-conmon.c): config.json as podman wrote
 * it, conmon's command line, and JSON string arrays. Never a crash; a
 * parsed config always yields process JSON that parses again, with the
 * exec's args in it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* backend/review and backend/sandbox are not in the fuzz build's shared
 * sources: compile the pure files in. */
#include "sandbox/podman/rexec-spec.c"
#include "sandbox/podman/rexec-conmon.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const args[] = { "sh", "-c", "echo fuzz", NULL };
	static const char *const env[] = { "TERM=xterm", "LAZARET_SESSION_ID=x", NULL };
	struct rexec_spec s;
	struct rexec_conmon c;
	struct rexec_proc p = { args, env, "LAZARET_CRED=lzc1.x\n", "/workspace", true };
	lz_err_t err = LZ_ERR_INIT;
	char *json = NULL, *text, **v = NULL;

	if (rexec_spec_parse(data, size, &s, &err) == 0) {
		if (rexec_spec_process(&s, &p, &json, &err) == 0) {
			struct surface_json js;

			LZ_ASSERT(surface_json_parse((const uint8_t *)json, strlen(json), &js, NULL) == 0);
			surface_json_clear(&js);
			LZ_ASSERT(strstr(json, "\"args\":[\"sh\",\"-c\",\"echo fuzz\"]") != NULL);
			free(json);
		}
		rexec_spec_clear(&s);
	}
	lz_err_clear(&err);
	if (rexec_conmon_parse((const char *)data, size, "ctr", &c, &err) == 1)
		rexec_conmon_clear(&c);
	lz_err_clear(&err);
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	if (surface_json_strings(text, &v, &err) == 0)
		lz_strv_free(v);
	lz_err_clear(&err);
	free(text);
	return 0;
}
