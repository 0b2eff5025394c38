/* fuzz-effcfg.c - libFuzzer harness: the running sandbox's configuration text
 * (from the coordinator, over the control socket) never crashes effcfg_diff,
 * against itself or a fixed text of ours. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "effcfg.h"
#include "strv.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char ours[] = "image\timg:1\nimage_id\t-\nmode\tisolated\n"
	    "limits\tmemory 4g, pids 4096, disk 20g, cpus 2\nenv\tFOO\t0123456789abcdef\n"
	    "volume\t/h\t/c\tz\npersist\t/usr\negress\t10.0.0.0/8\n";
	lz_err_t err = LZ_ERR_INIT;
	char **lines = NULL;

	if (effcfg_diff((const char *)data, size, ours, "p", &lines, &err) < 0) {
		LZ_ASSERT(lines == NULL && err.msg != NULL);
		lz_err_clear(&err);
		return 0;
	}
	lz_strv_free(lines);
	return 0;
}
