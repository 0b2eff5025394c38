/* fuzz-overlay-images.c - libFuzzer harness for the images.json reader of
 * the overlays' warm start (containers/storage's file: the user's, but read
 * without podman, so never trusted to be well formed). Never a crash; an
 * answer is always two ids of 64 hex digits. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* backend/review and backend/sandbox are not in the fuzz build's shared
 * sources: compile the two pure files in. */
#include "sandbox/rootless/overlay-images.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const refs[] = { "localhost/lazaret-default:latest", "localhost/a:1" };
	char id[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		if (overlay_images_find(data, size, refs[i], id, layer, &err) == 1)
			LZ_ASSERT(strlen(id) == OVERLAY_IMAGES_ID_LEN &&
			    strlen(layer) == OVERLAY_IMAGES_ID_LEN);
		lz_err_clear(&err);
	}
	return 0;
}
