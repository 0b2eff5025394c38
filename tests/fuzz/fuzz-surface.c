/* fuzz-surface.c - libFuzzer harness for the parsers of agent-controlled
 * bytes in the review gate: the JSON reader (package.json), the symlink,
 * shebang and .gitattributes checks of the classifier (the blob is the
 * input), and the table and git-output parsers. Never a crash; a parsed
 * document diffs as empty against itself. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* backend/review is not in the fuzz build's shared sources: compile the
 * two pure files in. */
#include "review/surface.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *fz_data;
static size_t fz_size;

static int
fz_blob(void *arg, const char *oid, size_t max, uint8_t **buf, size_t *len, size_t *sz,
    lz_err_t *err)
{
	(void)arg; (void)oid; (void)err;
	*sz = fz_size;
	*len = fz_size < max ? fz_size : max;
	*buf = xmalloc(*len + 1);
	memcpy(*buf, fz_data, *len);
	return 0;
}

static void
fz_never_cb(const char *name, void *arg)
{
	(void)name; (void)arg;
	LZ_ASSERT(0);
}

static const char fz_table[] =
    "attr\t.gitattributes\t-\ta\njson\tpackage.json\tscripts\tb\njson\tpackage.json\tbin\tc\n"
    "path\tMakefile\t-\td\nmode\texec\t-\te\nmode\tshebang\t-\tf\nmode\tsymlink\t-\tg\n"
    "mode\tsymlink-out\t-\th\nmode\tbinary\t-\ti\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct surface_table t;
	struct surface_json js;
	struct surface_result res;
	struct surface_change *ch = NULL;
	size_t n = 0;
	lz_err_t err = LZ_ERR_INIT;
	struct surface_change c[3] = {
		{ 'A', 0, 0100644, "0", "1", (char *)"package.json", false },
		{ 'A', 0, 0120000, "0", "2", (char *)"a/b/link", false },
		{ 'M', 0100644, 0100755, "3", "4", (char *)".gitattributes", false },
	};

	if (t.n == 0)
		LZ_ASSERT(surface_table_parse(fz_table, sizeof fz_table - 1, "fuzz", &t, NULL) == 0);
	if (surface_json_parse(data, size, &js, &err) == 0) {
		LZ_ASSERT(surface_json_diff(&js, &js, "scripts", fz_never_cb, NULL) == 0);
		surface_json_clear(&js);
	}
	lz_err_clear(&err);
	fz_data = data;
	fz_size = size;
	if (surface_classify(&t, c, 3, fz_blob, NULL, &res, &err) == 0)
		surface_result_clear(&res);
	lz_err_clear(&err);
	{
		struct surface_table t2;

		if (surface_table_parse((const char *)data, size, "fuzz", &t2, &err) == 0)
			surface_table_clear(&t2);
		lz_err_clear(&err);
	}
	if (surface_raw_parse((const char *)data, size, &ch, &n, &err) == 0) {
		(void)surface_numstat_apply((const char *)data, size, ch, n, &err);
		surface_changes_free(ch, n);
	}
	lz_err_clear(&err);
	return 0;
}
