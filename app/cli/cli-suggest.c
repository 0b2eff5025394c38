/* cli-suggest.c - "did you mean" for a mistyped command (see cli-suggest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-suggest.h"
#include "suggest.h"
#include "xmalloc.h"

const char **
cli_suggest(const char *word, const char *const *names, size_t n)
{
	size_t i, k = 0, best = (size_t)-1, *score, wl = strlen(word);
	const char **out;

	if (wl == 0 || n == 0)
		return NULL;
	score = xcalloc(n, sizeof *score);
	for (i = 0; i < n; i++) {
		/* "stat" means status (or stop): a prefix is as close as it gets */
		score[i] = strncmp(names[i], word, wl) == 0 ? 0 : lz_suggest_distance(word, names[i]);
		if (score[i] < best)
			best = score[i];
	}
	if (best > 2 || 2 * best > wl) {
		free(score);
		return NULL;
	}
	out = xcalloc(n + 1, sizeof *out);
	for (i = 0; i < n; i++)
		if (score[i] == best)
			out[k++] = names[i];
	free(score);
	return out;
}

void
cli_suggest_print(const char *word, const char *const *names, size_t n)
{
	const char **s = cli_suggest(word, names, n);
	size_t i;

	if (s == NULL)
		return;
	fprintf(stderr, "\nThe most similar command%s\n", s[1] != NULL ? "s are" : " is");
	for (i = 0; s[i] != NULL; i++)
		fprintf(stderr, "\t%s\n", s[i]);
	free(s);
}
