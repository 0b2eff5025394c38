/* cli-suggest.h - "did you mean" for a mistyped command (git's help.c habit). */
#ifndef LZ_CLI_SUGGEST_H
#define LZ_CLI_SUGGEST_H

#include <stddef.h>

#include "suggest.h"

/* The names (of n) closest to word, in their order, NULL-terminated; NULL
 * when none is close enough (a prefix of a name, or within 2 edits and at
 * most half the word's length). Free the array only, not the strings. */
const char **cli_suggest(const char *word, const char *const *names, size_t n);

/* Print git's "The most similar command is\n\tNAME" (or "commands are") to
 * stderr when one is close; nothing otherwise. */
void cli_suggest_print(const char *word, const char *const *names, size_t n);

#endif
