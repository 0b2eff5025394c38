/* fuzz-kit.c - libFuzzer harness for the agent kit reader (make fuzz).
 * Every input goes through cfg_kit_load_buf() (the file of a kit named
 * "fuzz"); a kit that loads must name its image after its recipe hash and
 * keep every state dir in the agent's home. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg_kit *k = NULL;
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	if (cfg_kit_load_buf("fuzz/kit.yaml", "fuzz", (const char *)data, size, &k, &err) < 0) {
		if (err.msg == NULL)
			abort();	/* a failure always says why */
		lz_err_clear(&err);
		return 0;
	}
	if (k->command == NULL || k->command[0] == NULL || strlen(k->hash) != 12 ||
	    strncmp(k->image, "localhost/lazaret-kit-fuzz:", 27) != 0)
		abort();
	for (i = 0; k->state != NULL && k->state[i] != NULL; i++)
		if (strncmp(k->state[i], CFG_KIT_HOME "/", sizeof CFG_KIT_HOME) != 0 ||
		    strstr(k->state[i], "/../") != NULL)
			abort();
	cfg_kit_free(k);
	return 0;
}
