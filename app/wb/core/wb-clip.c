/* wb-clip.c - OSC 52 to the outer terminal (terminals and tmux with
 * set-clipboard on put it in their clipboard / paste buffer). */
#include <errno.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>

#include "wb-clip.h"
#include "xmalloc.h"

int
wb_clip_copy(int fd, const char *text, size_t len, lz_err_t *err)
{
	static const char head[] = "\033]52;c;";
	size_t b64 = sodium_base64_ENCODED_LEN(WB_CLIP_MAX, sodium_base64_VARIANT_ORIGINAL);
	_cleanup_free_ char *seq = NULL;
	size_t n, off = 0;
	ssize_t w;

	if (len > WB_CLIP_MAX)
		return lz_err_set(err, LZ_EINVAL, "copy: %zu bytes, at most %d go to the clipboard", len,
				  WB_CLIP_MAX);
	seq = xmalloc(sizeof(head) + b64 + 1);
	memcpy(seq, head, sizeof(head) - 1);
	sodium_bin2base64(seq + sizeof(head) - 1, b64, (const unsigned char *)text, len,
			  sodium_base64_VARIANT_ORIGINAL);
	n = strlen(seq);
	seq[n++] = '\a';
	/* ncurses has flushed its output after the last doupdate: nothing interleaves. */
	while (off < n) {
		w = write(fd, seq + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return lz_err_sys(err, errno, "copy: write to the terminal");
		off += (size_t)w;
	}
	return 0;
}
