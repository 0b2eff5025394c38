/* cli-usage.c - the usage error of a command (cli.h), by itself: the static
 * lazaret-exec links it without the rest of the CLI. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int
cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lazaret %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\nSee 'lazaret %s --help'.\n", usage, cmd);
	return 129;
}
