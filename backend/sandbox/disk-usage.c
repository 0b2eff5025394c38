/* disk-usage.c - the disk bound's walk and its one-line report (disk-usage.h). */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sandbox/disk-usage.h"
#include "xmalloc.h"

#define DISK_USAGE_LINE_MAX	64

/* nftw has no user argument: the sums live in thread-locals. */
static _Thread_local uint64_t disk_usage_sum, disk_usage_dnr;

static int
disk_usage_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_DNR)
		disk_usage_dnr++;
	if (flag == FTW_F || flag == FTW_D || flag == FTW_DP || flag == FTW_SL ||
	    flag == FTW_DNR)
		disk_usage_sum += (uint64_t)st->st_blocks * 512;
	return 0;
}

int
disk_usage_walk(char *const *paths, struct disk_usage *du, lz_err_t *err)
{
	size_t i;

	memset(du, 0, sizeof *du);
	for (i = 0; paths != NULL && paths[i] != NULL; i++) {
		disk_usage_sum = disk_usage_dnr = 0;
		if (nftw(paths[i], disk_usage_cb, 32, FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
			return lz_err_sys(err, errno, "cannot measure %s", paths[i]);
		du->bytes += disk_usage_sum;
		du->unreadable += disk_usage_dnr;
	}
	return 0;
}

char *
disk_usage_format(const struct disk_usage *du)
{
	return xasprintf("bytes=%" PRIu64 " unreadable=%" PRIu64 "\n", du->bytes, du->unreadable);
}

/* One "NAME=DIGITS" at *p (no sign, no overflow); *p moves past it. */
static int
disk_usage_field(const char **p, const char *end, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	int digits = 0;

	if ((size_t)(end - *p) <= n || memcmp(*p, name, n) != 0 || (*p)[n] != '=')
		return -1;
	*p += n + 1;
	*v = 0;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++, digits++) {
		if (*v > (UINT64_MAX - (uint64_t)(**p - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(**p - '0');
	}
	return digits > 0 ? 0 : -1;
}

int
disk_usage_parse(const char *buf, size_t len, struct disk_usage *du, lz_err_t *err)
{
	const char *p = buf, *end;

	memset(du, 0, sizeof *du);
	if (buf == NULL || len == 0 || len > DISK_USAGE_LINE_MAX ||
	    (end = memchr(buf, '\n', len)) == NULL || end != buf + len - 1)
		return lz_err_set(err, LZ_EINVAL, "the disk usage step printed %zu bytes, not one "
		    "line of at most %d", buf == NULL ? 0 : len, DISK_USAGE_LINE_MAX);
	if (disk_usage_field(&p, end, "bytes", &du->bytes) < 0 || p >= end || *p++ != ' ' ||
	    disk_usage_field(&p, end, "unreadable", &du->unreadable) < 0 || p != end)
		return lz_err_set(err, LZ_EINVAL, "the disk usage step printed '%.*s', not "
		    "'bytes=N unreadable=M'", (int)(end - buf), buf);
	return 0;
}
