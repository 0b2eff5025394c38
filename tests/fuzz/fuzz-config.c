/* fuzz-config.c - libFuzzer harness for the config loader (make fuzz).
 * Every input goes through cfg_load_buf(); a config that loads is printed,
 * looked up and resolved for every profile, so the whole path from bytes to
 * expanded mounts runs. Short inputs are also tried as a CIDR. Nothing is
 * created on disk by any of it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg *cfg = NULL;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *out = NULL, *norm = NULL, *s;
	size_t len = 0, i;
	FILE *f;

	if (size < 64) {
		s = xstrndup((const char *)data, size);
		/* An accepted entry's canonical form is accepted and canonical. */
		if (cfg_egress_parse(s, &norm, &err) == 0) {
			char *again = NULL;

			if (cfg_egress_parse(norm, &again, &err) < 0 || strcmp(again, norm) != 0)
				abort();
			free(again);
		}
		free(norm);
		free(s);
		lz_err_clear(&err);
	}
	if (cfg_load_buf("fuzz.yaml", (const char *)data, size, &cfg, &err) < 0) {
		/* Every failure carries a message naming the input. */
		if (err.msg == NULL || strncmp(err.msg, "fuzz.yaml", 9) != 0)
			abort();
		lz_err_clear(&err);
		return 0;
	}
	if (cfg->n_profiles == 0 || cfg->data_root == NULL || cfg->data_root[0] != '/')
		abort();
	f = open_memstream(&out, &len);
	if (f == NULL)
		abort();
	cfg_print(f, cfg, NULL);
	(void)cfg_profile_find(cfg, NULL, &err);
	lz_err_clear(&err);
	for (i = 0; i < cfg->n_profiles; i++) {
		if (cfg_profile_find(cfg, cfg->profiles[i].name, &err) != &cfg->profiles[i])
			abort();
		if (cfg_profile_resolve(cfg, &cfg->profiles[i], "/tmp/lz-fuzz-ws",
		    "0123456789ab", &r, &err) == 0) {
			cfg_print(f, cfg, r);
			cfg_resolved_free(r);
			r = NULL;
		}
		lz_err_clear(&err);
	}
	fclose(f);
	free(out);
	cfg_free(cfg);
	return 0;
}
