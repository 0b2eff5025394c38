/* probe-scan.c - lazaret-probe scan SECONDS HEX...: the attack of issue 24
 * item 1 from inside the sandbox. Loops as fast as it can over every
 * process's /proc/<pid>/environ and /proc/<pid>/cmdline for SECONDS and
 * prints each (file, pattern) it sees, then "scans=N files=N hits=N". The
 * patterns come in hex so that the scanner's own command line holds none.
 * A C loop, not a shell one: a session's start is a few milliseconds. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe-scan.h"

#define PROBE_SCAN_BUF	(256u << 10)

static int
probe_scan_file(const char *path, char *buf, char **pats, int npats, long *hits)
{
	ssize_t n, len = 0;
	int fd, i;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (len < (ssize_t)PROBE_SCAN_BUF - 1 &&
	    (n = read(fd, buf + len, PROBE_SCAN_BUF - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	for (n = 0; n < len; n++)
		if (buf[n] == '\0')
			buf[n] = '\n';	/* one string to search */
	buf[len] = '\0';
	for (i = 0; i < npats; i++)
		if (strstr(buf, pats[i]) != NULL) {
			(*hits)++;
			printf("hit %s: %s\n", path, pats[i]);
			fflush(stdout);
		}
	return 1;
}

/* Decode each HEX argument into a copy (argv itself is what cmdline
 * shows); -1 on one that is not hex. */
static int
probe_scan_unhex(char **pats, int n)
{
	unsigned int v;
	size_t i, len;
	int k;

	for (k = 0; k < n; k++) {
		if ((pats[k] = strdup(pats[k])) == NULL)
			return -1;
		len = strlen(pats[k]);
		if (len == 0 || len % 2 != 0)
			return -1;
		for (i = 0; i < len / 2; i++) {
			if (sscanf(pats[k] + 2 * i, "%2x", &v) != 1 || v == 0)
				return -1;
			pats[k][i] = (char)v;
		}
		pats[k][len / 2] = '\0';
	}
	return 0;
}

int
probe_scan(int argc, char **argv)
{
	struct timespec t0, now;
	char path[64], *buf;
	struct dirent *de;
	long scans = 0, files = 0, hits = 0;
	double secs;
	DIR *d;

	if (argc < 4 || (secs = atof(argv[2])) <= 0 || probe_scan_unhex(argv + 3, argc - 3) < 0) {
		fprintf(stderr, "usage: lazaret-probe scan SECONDS HEX...\n");
		return 2;
	}
	if ((buf = malloc(PROBE_SCAN_BUF)) == NULL)
		return 1;
	printf("scanning\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if ((d = opendir("/proc")) == NULL)
			break;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			snprintf(path, sizeof path, "/proc/%.20s/environ", de->d_name);
			files += probe_scan_file(path, buf, argv + 3, argc - 3, &hits);
			snprintf(path, sizeof path, "/proc/%.20s/cmdline", de->d_name);
			files += probe_scan_file(path, buf, argv + 3, argc - 3, &hits);
		}
		closedir(d);
		scans++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	free(buf);
	printf("scans=%ld files=%ld hits=%ld\n", scans, files, hits);
	return 0;
}
