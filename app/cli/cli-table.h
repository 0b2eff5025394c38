/* cli-table.h - listings in aligned columns (podman ps, git branch -v): rows
 * of cells collected first, printed once the widths are known. */
#ifndef LZ_CLI_TABLE_H
#define LZ_CLI_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cli_table;

/* A table with the given header cells (NULL-terminated); free it. */
struct cli_table *cli_table_new(const char *const *header);
void cli_table_free(struct cli_table *);

/* Append a row from a tab-separated line; missing cells print as "-" and
 * cells beyond the header's are joined into the last column. */
void cli_table_add_tsv(struct cli_table *, const char *line);

/* Print every row: columns two spaces apart, the last one not padded;
 * columns flagged in right_align (bit i: column i) are right-aligned. */
void cli_table_print(const struct cli_table *, FILE *f, uint32_t right_align);

/* A duration in seconds as a person reads it: "45s", "12m03s", "3h05m",
 * "2d04h"; buf of at least 16 bytes. */
const char *cli_table_duration(int64_t secs, char *buf, size_t len);

#endif
