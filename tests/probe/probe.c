/* probe.c - lazaret-probe: a static multi-tool run INSIDE the sandbox that
 * tries one filesystem operation per path and prints what the kernel said
 * (crun's tests/init.c). Integration tests copy it in read-only and assert
 * the errno.
 *
 *   lazaret-probe write|append|truncate|chmod|unlink|rename-over|rename-away|
 *                 mkdir|owner PATH [PATH...]
 *   lazaret-probe forge-idx IDX HEX   (an attack, issue 8: rewrite the one
 *                 object name of a one-object pack index IDX to HEX, so
 *                 the pack's bytes answer for object HEX)
 *   lazaret-probe resolve|connect|nft-delete ...   (network, probe-net.c)
 *   lazaret-probe fork-as SECONDS UID...   (processes under several uids, probe-fork.c)
 *   lazaret-probe scan SECONDS HEX...   (secrets in /proc, probe-scan.c)
 *
 * One line per path: "CMD PATH: ok", "CMD PATH: EROFS", or for owner
 * "owner PATH: UID:GID". Exit 0 whatever the outcome; 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe-fork.h"
#include "probe-net.h"
#include "probe-scan.h"

#define PROBE_DATA "lazaret-probe was here\n"

struct probe_errname {
	int code;
	const char *name;
};

static const struct probe_errname probe_errnames[] = {
	{ EROFS, "EROFS" }, { EBUSY, "EBUSY" }, { EACCES, "EACCES" }, { EPERM, "EPERM" },
	{ ENOENT, "ENOENT" }, { EEXIST, "EEXIST" }, { EXDEV, "EXDEV" },
	{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { EINVAL, "EINVAL" },
	{ ENOTEMPTY, "ENOTEMPTY" }, { ENOSPC, "ENOSPC" }, { ENOTCONN, "ENOTCONN" },
	{ EIO, "EIO" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { ELOOP, "ELOOP" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { ETXTBSY, "ETXTBSY" }, { EFAULT, "EFAULT" },
	{ ENOSYS, "ENOSYS" }, { EBADF, "EBADF" }, { EMLINK, "EMLINK" },
	{ ECONNREFUSED, "ECONNREFUSED" }, { ETIMEDOUT, "ETIMEDOUT" },
	{ EPROTONOSUPPORT, "EPROTONOSUPPORT" }, { ENETUNREACH, "ENETUNREACH" },
	{ EHOSTUNREACH, "EHOSTUNREACH" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
	{ ECONNRESET, "ECONNRESET" },
};

const char *
probe_errname(int e)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < sizeof probe_errnames / sizeof probe_errnames[0]; i++)
		if (probe_errnames[i].code == e)
			return probe_errnames[i].name;
	snprintf(buf, sizeof buf, "E%d", e);
	return buf;
}

static int
probe_write_fd(int fd)
{
	size_t len = strlen(PROBE_DATA), off = 0;
	ssize_t n;

	while (off < len) {
		if ((n = write(fd, PROBE_DATA + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/* open(flags) and write; 0 or -1 with errno. */
static int
probe_open_write(const char *path, int flags)
{
	int fd, e;

	if ((fd = open(path, flags | O_CLOEXEC, 0755)) < 0)
		return -1;
	if (probe_write_fd(fd) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* Put a new file at path by rename from a sibling, as `git config` and
 * editors do; the sibling is removed again when the rename fails. */
static int
probe_rename_over(const char *path)
{
	char tmp[4096];
	int e;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.lzprobe", path) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (probe_open_write(tmp, O_WRONLY | O_CREAT | O_TRUNC) < 0)
		return -1;
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* Move path away; put it back when that worked (the test fails anyway). */
static int
probe_rename_away(const char *path)
{
	char tmp[4096];

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.lzprobe-away", path) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (rename(path, tmp) < 0)
		return -1;
	(void)rename(tmp, path);
	return 0;
}

static int
probe_one(const char *cmd, const char *path)
{
	struct stat st;
	int r;

	if (strcmp(cmd, "write") == 0)
		r = probe_open_write(path, O_WRONLY | O_CREAT | O_TRUNC);
	else if (strcmp(cmd, "append") == 0)
		r = probe_open_write(path, O_WRONLY | O_APPEND);
	else if (strcmp(cmd, "truncate") == 0)
		r = truncate(path, 0);
	else if (strcmp(cmd, "chmod") == 0)
		r = chmod(path, 0777);
	else if (strcmp(cmd, "unlink") == 0)
		r = unlink(path);
	else if (strcmp(cmd, "rename-over") == 0)
		r = probe_rename_over(path);
	else if (strcmp(cmd, "rename-away") == 0)
		r = probe_rename_away(path);
	else if (strcmp(cmd, "mkdir") == 0)
		r = mkdir(path, 0755);
	else if (strcmp(cmd, "owner") == 0) {
		if ((r = lstat(path, &st)) == 0) {
			printf("owner %s: %u:%u\n", path, (unsigned)st.st_uid, (unsigned)st.st_gid);
			return 0;
		}
	} else
		return -1;
	if (r < 0)
		printf("%s %s: %s\n", cmd, path, probe_errname(errno));
	else
		printf("%s %s: ok\n", cmd, path);
	return 0;
}

/* The pack .idx v2 of a one-object pack names that object HEX instead:
 * header (8), fanout (256 x 4, big-endian counts), then the 20-byte name.
 * Git checks neither the idx checksum nor the name against the pack when
 * it loads an index, which is the attack. */
static int
probe_forge_idx(const char *path, const char *hex)
{
	unsigned char buf[8 + 1024 + 20];
	unsigned char name[20];
	unsigned int v;
	int fd, i;

	if (strlen(hex) != 40)
		return -1;
	for (i = 0; i < 20; i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		name[i] = (unsigned char)v;
	}
	if ((fd = open(path, O_RDWR)) < 0)
		return -1;
	if (pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf ||
	    memcmp(buf, "\377tOc\0\0\0\2", 8) != 0 || buf[8 + 1023] != 1) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < 256; i++)
		buf[8 + 4 * i + 3] = i >= name[0] ? 1 : 0;
	memcpy(buf + 8 + 1024, name, 20);
	if (pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int
main(int argc, char **argv)
{
	int i, r;

	if (argc == 4 && strcmp(argv[1], "forge-idx") == 0) {
		if (probe_forge_idx(argv[2], argv[3]) < 0) {
			printf("forge-idx %s: %s\n", argv[2], probe_errname(errno));
			return 1;
		}
		printf("forge-idx %s: ok\n", argv[2]);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "fork-as") == 0)
		return probe_fork_as(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "scan") == 0)
		return probe_scan(argc, argv);
	if (argc >= 3 && (r = probe_net(argc, argv)) >= 0)
		return r;
	if (argc < 3) {
		fprintf(stderr, "usage: lazaret-probe write|append|truncate|chmod|unlink|"
		    "rename-over|rename-away|mkdir|owner PATH [PATH...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (probe_one(argv[1], argv[i]) < 0) {
			fprintf(stderr, "lazaret-probe: unknown operation '%s'\n", argv[1]);
			return 2;
		}
		fflush(stdout);
	}
	return 0;
}
