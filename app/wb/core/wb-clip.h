/* wb-clip.h - copy to the outer terminal's clipboard (OSC 52), only from
 * the workbench itself and only when the user asks (scrollback `y`). */
#ifndef LZ_WB_CLIP_H
#define LZ_WB_CLIP_H

#include <stddef.h>

#include "err.h"

/* Text bytes one copy carries at most (the base64 is 4/3 of it). */
#define WB_CLIP_MAX	8192

/* Write ESC ] 52 ; c ; base64(text) BEL to fd (the outer terminal). */
int wb_clip_copy(int fd, const char *text, size_t len, lz_err_t *err);

#endif
