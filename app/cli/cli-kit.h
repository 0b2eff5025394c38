/* cli-kit.h - build a kit's image as the CLI does: progress on stderr, the
 * fetching steps in a network that reaches only what the recipe needs. */
#ifndef LZ_CLI_KIT_H
#define LZ_CLI_KIT_H

#include <stdbool.h>

#include "err.h"

struct cfg;
struct cfg_kit;

int cli_kit_build(const struct cfg *cfg, const struct cfg_kit *k, bool force, lz_err_t *err);

#endif
