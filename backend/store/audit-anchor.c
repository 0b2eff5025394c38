/* audit-anchor.c - the audit chain's hashes in the user's append-only anchor
 * file (see audit-anchor.h for the threat model). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "paths.h"
#include "audit-anchor.h"
#include "xmalloc.h"

#define AUDIT_ANCHOR_SEQ_MAX	(1LL << 40)	/* refuse absurd seqs in a line */

char *
audit_anchor_path(void)
{
	const char *e = getenv(AUDIT_ANCHOR_ENV);

	if (e != NULL && e[0] == '/')
		return xstrdup(e);
	return xasprintf(AUDIT_ANCHOR_DIR "/%u", (unsigned)getuid());
}

int
audit_anchor_append(const char *db_path, int64_t first, size_t n,
    const uint8_t (*hashes)[AUDIT_ANCHOR_HASH_LEN], lz_err_t *err)
{
	_cleanup_free_ char *path = audit_anchor_path(), *buf = NULL;
	_cleanup_close_ int fd = -1;
	char hex[2 * AUDIT_ANCHOR_HASH_LEN + 1];
	size_t len = 0, cap, i;
	ssize_t w;

	/* A path with a newline cannot be one line: not anchored. */
	if (strchr(db_path, '\n') != NULL)
		return 0;
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
		return errno == ENOENT ? 0 : lz_err_sys(err, errno, "audit anchor %s", path);
	cap = n * (48 + 2 * AUDIT_ANCHOR_HASH_LEN + strlen(db_path));
	buf = xmalloc(cap);
	for (i = 0; i < n; i++) {
		sodium_bin2hex(hex, sizeof hex, hashes[i], AUDIT_ANCHOR_HASH_LEN);
		len += (size_t)snprintf(buf + len, cap - len, "v1 %lld %s %s\n",
		    (long long)(first + (int64_t)i), hex, db_path);
	}
	/* One write: O_APPEND puts it whole at the end, whoever else appends. */
	if ((w = write(fd, buf, len)) != (ssize_t)len)
		return lz_err_sys(err, w < 0 ? errno : EIO, "audit anchor %s", path);
	return 1;
}

/* Does fd's file carry the append-only flag? */
static bool
audit_anchor_is_append_only(int fd)
{
	int flags = 0;

	return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_APPEND_FL) != 0;
}

/* One line "v1 SEQ HEX PATH"; 0 and *seq, hash when it is db_path's. */
static int
audit_anchor_line(const char *s, size_t l, const char *db_path, int64_t *seq,
    uint8_t hash[AUDIT_ANCHOR_HASH_LEN])
{
	size_t pl = strlen(db_path), hl = 2 * AUDIT_ANCHOR_HASH_LEN, bin = 0, i = 3;
	const char *end;
	int64_t v = 0;

	/* Digits by hand: strtoll would skip a newline into the next line. */
	if (l < 5 || memcmp(s, "v1 ", 3) != 0)
		return -1;
	for (; i < l && s[i] >= '0' && s[i] <= '9' && v <= AUDIT_ANCHOR_SEQ_MAX; i++)
		v = v * 10 + (s[i] - '0');
	if (i == 3 || i == l || s[i] != ' ' || v < 1 || v > AUDIT_ANCHOR_SEQ_MAX)
		return -1;
	end = s + i + 1;
	if ((size_t)(s + l - end) != hl + 1 + pl || end[hl] != ' ' ||
	    memcmp(end + hl + 1, db_path, pl) != 0)
		return -1;
	if (sodium_hex2bin(hash, AUDIT_ANCHOR_HASH_LEN, end, hl, NULL, &bin, NULL) != 0 ||
	    bin != AUDIT_ANCHOR_HASH_LEN)
		return -1;
	*seq = v;
	return 0;
}

static void
audit_anchor_push(struct audit_anchors *a, int64_t seq, const uint8_t h[AUDIT_ANCHOR_HASH_LEN],
    size_t *cap)
{
	if (a->n == *cap) {
		*cap = *cap != 0 ? 2 * *cap : 256;
		a->v = xrealloc(a->v, *cap * sizeof *a->v);
	}
	a->v[a->n].seq = seq;
	a->v[a->n].line = a->n;
	memcpy(a->v[a->n].hash, h, AUDIT_ANCHOR_HASH_LEN);
	a->n++;
}

static int
audit_anchor_cmp_cb(const void *x, const void *y)
{
	const struct audit_anchor *a = x, *b = y;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Sorted by seq, the first line for each kept: later ones may be an
 * attacker's, appended after a rewrite. */
static void
audit_anchor_sort(struct audit_anchors *a)
{
	size_t i, k = 0;

	if (a->n == 0)
		return;
	qsort(a->v, a->n, sizeof *a->v, audit_anchor_cmp_cb);
	for (i = 1; i < a->n; i++)
		if (a->v[i].seq != a->v[k].seq)
			a->v[++k] = a->v[i];
	a->n = k + 1;
}

void
audit_anchor_parse(const char *buf, size_t len, const char *db_path,
    struct audit_anchors *out)
{
	uint8_t h[AUDIT_ANCHOR_HASH_LEN];
	size_t off = 0, cap = 0;
	int64_t seq;

	while (off < len) {
		const char *s = buf + off, *nl = memchr(s, '\n', len - off);
		size_t l = nl != NULL ? (size_t)(nl - s) : len - off;

		off += l + (nl != NULL);
		/* A line cut short by a crash, or another store's: skipped. */
		if (nl != NULL && audit_anchor_line(s, l, db_path, &seq, h) == 0) {
			audit_anchor_push(out, seq, h, &cap);
			out->n_lines++;
		}
	}
	audit_anchor_sort(out);
}

int
audit_anchor_load(const char *db_path, struct audit_anchors *out, lz_err_t *err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0, max;
	struct stat st;

	memset(out, 0, sizeof *out);
	out->file = audit_anchor_path();
	if ((fd = open(out->file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
		return errno == ENOENT ? 0 : lz_err_sys(err, errno, "audit anchor %s", out->file);
	out->present = true;
	out->append_only = audit_anchor_is_append_only(fd);
	if (fstat(fd, &st) < 0)
		return lz_err_sys(err, errno, "audit anchor %s", out->file);
	close(lz_steal_fd(&fd));
	if ((uint64_t)st.st_size > AUDIT_ANCHOR_MAX)
		return lz_err_set(err, EFBIG, "audit anchor %s: larger than %d MiB (ask root to "
		    "rotate it)", out->file, AUDIT_ANCHOR_MAX >> 20);
	/* What it holds now, with room for lines appended meanwhile. */
	max = (size_t)st.st_size + (1 << 20);
	if (lz_path_read(out->file, max < AUDIT_ANCHOR_MAX ? max : AUDIT_ANCHOR_MAX, &buf, &len,
	    NULL, err) < 0)
		return -1;
	audit_anchor_parse(buf, len, db_path, out);
	return 0;
}

void
audit_anchors_clear(struct audit_anchors *a)
{
	free(a->file);
	free(a->v);
	memset(a, 0, sizeof *a);
}

const struct audit_anchor *
audit_anchor_find(const struct audit_anchors *a, int64_t seq)
{
	size_t lo = 0, hi = a->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->v[mid].seq == seq)
			return &a->v[mid];
		if (a->v[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
