/* cli-table.c - listings in aligned columns (see cli-table.h). */
#include <stdlib.h>
#include <string.h>

#include "cli-table.h"
#include "xmalloc.h"

struct cli_table {
	size_t ncols, nrows;
	char ***rows;		/* rows[0] is the header */
	size_t *width;
};

static void
cli_table_push(struct cli_table *t, char **cells)
{
	size_t i, w;

	t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof *t->rows);
	t->rows[t->nrows++] = cells;
	for (i = 0; i < t->ncols; i++)
		if ((w = strlen(cells[i])) > t->width[i])
			t->width[i] = w;
}

struct cli_table *
cli_table_new(const char *const *header)
{
	struct cli_table *t = xcalloc(1, sizeof *t);
	char **cells;
	size_t i;

	while (header[t->ncols] != NULL)
		t->ncols++;
	t->width = xcalloc(t->ncols, sizeof *t->width);
	cells = xcalloc(t->ncols, sizeof *cells);
	for (i = 0; i < t->ncols; i++)
		cells[i] = xstrdup(header[i]);
	cli_table_push(t, cells);
	return t;
}

void
cli_table_free(struct cli_table *t)
{
	size_t r, i;

	if (t == NULL)
		return;
	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->ncols; i++)
			free(t->rows[r][i]);
		free(t->rows[r]);
	}
	free(t->rows);
	free(t->width);
	free(t);
}

void
cli_table_add_tsv(struct cli_table *t, const char *line)
{
	char **cells = xcalloc(t->ncols, sizeof *cells);
	const char *p = line, *tab;
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (p == NULL) {
			cells[i] = xstrdup("-");
			continue;
		}
		tab = i + 1 < t->ncols ? strchr(p, '\t') : NULL;
		cells[i] = tab != NULL ? xstrndup(p, (size_t)(tab - p)) : xstrdup(p);
		p = tab != NULL ? tab + 1 : NULL;
	}
	cli_table_push(t, cells);
}

void
cli_table_print(const struct cli_table *t, FILE *f, uint32_t right_align)
{
	size_t r, i;
	int w;

	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->ncols; i++) {
			w = (int)t->width[i];
			if (i + 1 == t->ncols)
				fprintf(f, "%s\n", t->rows[r][i]);
			else if (i < 32 && (right_align & (1u << i)))
				fprintf(f, "%*s  ", w, t->rows[r][i]);
			else
				fprintf(f, "%-*s  ", w, t->rows[r][i]);
		}
	}
}

const char *
cli_table_duration(int64_t s, char *buf, size_t len)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
	else
		snprintf(buf, len, "%lldd%02lldh", (long long)(s / 86400), (long long)(s % 86400 / 3600));
	return buf;
}
