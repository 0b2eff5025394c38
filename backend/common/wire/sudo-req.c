/* sudo-req.c - encode and parse the in-sandbox sudo's request (sudo-req.h).
 * Pure: no I/O; fuzzed by tests/fuzz/fuzz-sudo-req.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "sudo-req.h"
#include "xmalloc.h"

static void
sudo_req_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t
sudo_req_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int
sudo_req_encode(const char *cwd, char *const *argv, char *const *env, uint8_t **out,
    size_t *len, lz_err_t *err)
{
	size_t argc = lz_strv_len((char **)argv), envc = lz_strv_len((char **)env), n = 12, i;
	uint8_t *b, *p;

	*out = NULL;
	if (argc == 0)
		return lz_err_set(err, LZ_EINVAL, "no command");
	n += strlen(cwd) + 1;
	for (i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	for (i = 0; i < envc; i++)
		n += strlen(env[i]) + 1;
	if (n - 4 > SUDO_REQ_MAX || argc + envc > SUDO_REQ_ARGS)
		return lz_err_set(err, E2BIG, "the command and its environment are too long");
	b = xmalloc(n);
	sudo_req_u32(b, (uint32_t)(n - 4));
	sudo_req_u32(b + 4, (uint32_t)argc);
	sudo_req_u32(b + 8, (uint32_t)envc);
	p = b + 12;
	p = (uint8_t *)stpcpy((char *)p, cwd) + 1;
	for (i = 0; i < argc; i++)
		p = (uint8_t *)stpcpy((char *)p, argv[i]) + 1;
	for (i = 0; i < envc; i++)
		p = (uint8_t *)stpcpy((char *)p, env[i]) + 1;
	*out = b;
	*len = n;
	return 0;
}

int
sudo_req_parse(const uint8_t *buf, size_t len, struct sudo_req *r, lz_err_t *err)
{
	uint32_t argc, envc, i;
	size_t pos = 8;

	memset(r, 0, sizeof *r);
	if (len < 8 || len > SUDO_REQ_MAX)
		return lz_err_set(err, LZ_EINVAL, "sudo request of %zu bytes", len);
	argc = sudo_req_get32(buf);
	envc = sudo_req_get32(buf + 4);
	if (argc == 0 || argc > SUDO_REQ_ARGS || envc > SUDO_REQ_ARGS - argc)
		return lz_err_set(err, LZ_EINVAL, "sudo request: %u arguments, %u variables",
		    argc, envc);
	r->argv = xcalloc((size_t)argc + 1, sizeof *r->argv);
	r->env = xcalloc((size_t)envc + 1, sizeof *r->env);
	for (i = 0; i < 1 + argc + envc; i++) {
		const uint8_t *nul = pos < len ? memchr(buf + pos, '\0', len - pos) : NULL;
		char *s;

		if (nul == NULL) {
			sudo_req_clear(r);
			return lz_err_set(err, LZ_EINVAL, "sudo request: string %u of %u is cut short",
			    i + 1, 1 + argc + envc);
		}
		s = xstrndup((const char *)buf + pos, (size_t)(nul - (buf + pos)));
		pos = (size_t)(nul - buf) + 1;
		if (i == 0)
			r->cwd = s;
		else if (i <= argc)
			r->argv[i - 1] = s;
		else
			r->env[i - 1 - argc] = s;
	}
	if (pos != len || r->cwd[0] != '/' || r->argv[0][0] == '\0') {
		sudo_req_clear(r);
		return lz_err_set(err, LZ_EINVAL, "sudo request: %s", pos != len ?
		    "bytes after the last string" : "bad directory or empty command");
	}
	return 0;
}

void
sudo_req_clear(struct sudo_req *r)
{
	free(r->cwd);
	lz_strv_free(r->argv);
	lz_strv_free(r->env);
	memset(r, 0, sizeof *r);
}
