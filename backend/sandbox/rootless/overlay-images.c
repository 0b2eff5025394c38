/* overlay-images.c - the image a name stands for, from images.json (see
 * overlay-images.h). The file is a JSON array of objects with "id",
 * "names" (strings) and "layer" (the image's top layer, whose mount is
 * <graphroot>/overlay/<layer>/merged). Names are unique in a store, so the
 * first element listing ref is the answer. containers.json (overlay-containers/)
 * has the same shape: "id", "names", "layer" (the container's own layer). */
#include <stdbool.h>
#include <string.h>

#include "surface-json.h"
#include "sandbox/rootless/overlay-images.h"

#define OVERLAY_IMAGES_NAME_CHARS \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:"

struct overlay_images_q {
	const char *ref;
	char *id, *layer;
	int found;
};

bool
overlay_images_ref_ok(const char *ref)
{
	size_t n = strlen(ref);

	/* A registry part, a tag, and nothing that needs escaping in JSON. */
	return n > 0 && n < 512 && strchr(ref, '/') != NULL &&
	    strchr(strrchr(ref, '/'), ':') != NULL && strchr(ref, '@') == NULL &&
	    ref[strspn(ref, OVERLAY_IMAGES_NAME_CHARS)] == '\0';
}

/* A member's canonical value "<64 hex>" into out. */
static bool
overlay_images_hex(const struct surface_json *el, const char *key, char *out)
{
	size_t i;

	for (i = 0; i < el->n; i++) {
		const char *v = el->kv[i].val;

		if (el->kv[i].sub != NULL || strcmp(el->kv[i].top, key) != 0)
			continue;
		if (strlen(v) != OVERLAY_IMAGES_ID_LEN + 2 || v[0] != '"' ||
		    v[OVERLAY_IMAGES_ID_LEN + 1] != '"' ||
		    strspn(v + 1, "0123456789abcdef") != OVERLAY_IMAGES_ID_LEN)
			return false;
		memcpy(out, v + 1, OVERLAY_IMAGES_ID_LEN);
		out[OVERLAY_IMAGES_ID_LEN] = '\0';
		return true;
	}
	return false;
}

/* Does the canonical array text names hold the string ref as an element?
 * ref has no character JSON escapes, so its element is "ref" verbatim,
 * after '[' or ',' and before ',' or ']' (an escaped quote inside another
 * element is \" and never matches there). */
static bool
overlay_images_named(const char *names, const char *ref)
{
	size_t n = strlen(ref);
	const char *p;

	if (names[0] != '[')
		return false;
	for (p = names; (p = strstr(p, ref)) != NULL; p++)
		if (p - names >= 2 && p[-1] == '"' && (p[-2] == '[' || p[-2] == ',') &&
		    p[n] == '"' && (p[n + 1] == ',' || p[n + 1] == ']'))
			return true;
	return false;
}

static int
overlay_images_el_cb(const struct surface_json *el, void *arg)
{
	struct overlay_images_q *q = arg;
	size_t i;

	for (i = 0; i < el->n; i++)
		if (el->kv[i].sub == NULL && strcmp(el->kv[i].top, "names") == 0 &&
		    overlay_images_named(el->kv[i].val, q->ref))
			break;
	if (i == el->n)
		return 0;
	/* The named image: its id and layer, or no answer at all. */
	q->found = overlay_images_hex(el, "id", q->id) && overlay_images_hex(el, "layer", q->layer)
	    ? 1 : -1;
	return 1;
}

int
overlay_images_find(const uint8_t *buf, size_t len, const char *ref,
    char id[OVERLAY_IMAGES_ID_LEN + 1], char layer[OVERLAY_IMAGES_ID_LEN + 1], lz_err_t *err)
{
	struct overlay_images_q q = { ref, id, layer, 0 };

	id[0] = layer[0] = '\0';
	/* Only names JSON writes verbatim (overlay_images_named relies on it). */
	if (ref[0] == '\0' || strlen(ref) >= 512 || ref[strspn(ref, OVERLAY_IMAGES_NAME_CHARS)] != '\0')
		return 0;
	if (surface_json_each(buf, len, overlay_images_el_cb, &q, err) < 0)
		return -1;
	if (q.found < 0) {
		id[0] = layer[0] = '\0';
		return lz_err_set(err, LZ_EINVAL, "images.json: image '%s' has no valid id or layer",
		    ref);
	}
	return q.found;
}
