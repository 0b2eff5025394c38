/* framew.c - a libuv write queue of protocol frames (framew.h). */
#include <stdlib.h>

#include "framew.h"
#include "xmalloc.h"

ssize_t
framew_send(uv_stream_t *s, struct proto_buf *b, bool try, uv_write_cb cb, void *arg)
{
	struct framew_req *w;
	uv_buf_t buf;
	int n = 0;

	if (b->len == 0)
		return 0;
	if (try) {
		buf = uv_buf_init((char *)b->data, (unsigned)b->len);
		n = uv_try_write(s, &buf, 1);
		if (n == (int)b->len) {
			proto_buf_clear(b);
			return 0;
		}
	}
	w = xcalloc(1, sizeof *w);
	w->arg = arg;
	w->data = proto_buf_steal(b, &w->len);
	w->req.data = w;
	if (n > 0)
		w->len -= (size_t)n;
	buf = uv_buf_init((char *)w->data + (n > 0 ? n : 0), (unsigned)w->len);
	if (uv_write(&w->req, s, &buf, 1, cb) != 0) {
		framew_req_free(w);
		return -1;
	}
	return (ssize_t)w->len;
}

void
framew_req_free(struct framew_req *w)
{
	if (w == NULL)
		return;
	free(w->data);
	free(w);
}
