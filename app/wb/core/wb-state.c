/* wb-state.c - the workbench's tab list on disk (see wb-state.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/file.h>
#include <time.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wb-state.h"
#include "xmalloc.h"

int
wb_state_path(char **path, lz_err_t *err)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char *dir;

	*path = NULL;
	if (rt == NULL || rt[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "XDG_RUNTIME_DIR is not set: the workbench keeps "
		    "its tabs there");
	dir = xasprintf("%s/lazaret", rt);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		lz_err_sys(err, errno, "cannot create %s", dir);
		free(dir);
		return -1;
	}
	*path = xasprintf("%s/workbench.tabs", dir);
	free(dir);
	return 0;
}

void
wb_state_tabs_free(struct wb_state_tab *tabs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(tabs[i].mode);
		free(tabs[i].profile);
		free(tabs[i].workspace);
		free(tabs[i].title);
	}
	free(tabs);
}

/* A name as the rename left it (wb-cmd.c): no control character, not empty,
 * bounded; anything else in the file is not ours and is dropped. */
static bool
wb_state_title_ok(const char *s)
{
	const unsigned char *p;

	if (s[0] == '\0' || strlen(s) > WB_STATE_TITLE_MAX)
		return false;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* One line "id\tmode\tprofile\tworkspace[\tname]"; false when malformed
 * (a bad name alone drops the name, not the tab). */
static bool
wb_state_parse_line(char *line, struct wb_state_tab *t)
{
	char *f[4], *end, *s = line, *title;
	unsigned long id;
	int i;

	for (i = 0; i < 4; i++) {
		f[i] = s;
		if (i < 3) {
			if ((s = strchr(s, '\t')) == NULL)
				return false;
			*s++ = '\0';
		}
	}
	if ((title = strchr(f[3], '\t')) != NULL)
		*title++ = '\0';	/* tabs are control characters: none in a name */
	if (f[3][0] != '/' || f[2][0] == '\0')
		return false;
	if (strcmp(f[1], "isolated") != 0 && strcmp(f[1], "direct") != 0)
		return false;
	errno = 0;
	id = strtoul(f[0], &end, 10);
	if (errno != 0 || *end != '\0' || id == 0 || id > UINT32_MAX)
		return false;
	t->id = (uint32_t)id;
	t->mode = xstrdup(f[1]);
	t->profile = xstrdup(f[2]);
	t->workspace = xstrdup(f[3]);
	t->title = title != NULL && wb_state_title_ok(title) ? xstrdup(title) : NULL;
	return true;
}

int
wb_state_read(const char *path, struct wb_state_tab **tabs, size_t *n, int *panel,
    lz_err_t *err)
{
	struct wb_state_tab t;
	struct stat st;
	char *buf = NULL, *line, *next;
	ssize_t r;
	size_t len = 0;
	int fd, ret = -1;

	*tabs = NULL;
	*n = 0;
	*panel = -1;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		return lz_err_sys(err, errno, "cannot open %s", path);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		lz_err_set(err, LZ_EINVAL, "%s: not a regular file of ours", path);
		goto out;
	}
	if ((size_t)st.st_size > WB_STATE_MAX) {
		lz_err_set(err, LZ_EINVAL, "%s: larger than %u bytes", path, WB_STATE_MAX);
		goto out;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		r = read(fd, buf + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			lz_err_sys(err, errno, "cannot read %s", path);
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strcmp(line, "panel\tshown") == 0 || strcmp(line, "panel\thidden") == 0) {
			*panel = strcmp(line + 6, "shown") == 0;
			continue;
		}
		if (!wb_state_parse_line(line, &t))
			continue;
		*tabs = xreallocarray(*tabs, *n + 1, sizeof **tabs);
		(*tabs)[(*n)++] = t;
	}
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int
wb_state_write(const char *path, const struct wb_state_tab *tabs, size_t n, bool panel,
    lz_err_t *err)
{
	char *tmp;
	FILE *f;
	size_t i;
	int fd, ret = -1;

	if (n == 0) {
		if (unlink(path) < 0 && errno != ENOENT)
			return lz_err_sys(err, errno, "cannot remove %s", path);
		return 0;
	}
	tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		lz_err_sys(err, errno, "cannot create %s", tmp);
		free(tmp);
		return -1;
	}
	if ((f = fdopen(fd, "w")) == NULL) {
		lz_err_sys(err, errno, "fdopen");
		close(fd);
		goto out;
	}
	fprintf(f, "panel\t%s\n", panel ? "shown" : "hidden");
	for (i = 0; i < n; i++) {
		/* A path with a tab or a newline would read back as another path
		 * (or a name): such a tab is not kept. */
		if (strpbrk(tabs[i].workspace, "\t\n") != NULL)
			continue;
		fprintf(f, "%u\t%s\t%s\t%s%s%s\n", tabs[i].id, tabs[i].mode, tabs[i].profile,
		    tabs[i].workspace, tabs[i].title != NULL ? "\t" : "",
		    tabs[i].title != NULL ? tabs[i].title : "");
	}
	if (fflush(f) != 0 || fsync(fd) < 0) {
		lz_err_sys(err, errno, "cannot write %s", tmp);
		fclose(f);
		goto out;
	}
	fclose(f);
	if (rename(tmp, path) < 0) {
		lz_err_sys(err, errno, "cannot rename %s", tmp);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* The plain session's file: $LAZARET_WORKBENCH_STATE or the default. */
static int
wb_state_base(char **path, lz_err_t *err)
{
	const char *st = getenv("LAZARET_WORKBENCH_STATE");

	if (st != NULL && st[0] != '\0') {
		*path = xstrdup(st);
		return 0;
	}
	return wb_state_path(path, err);
}

static bool
wb_state_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n >= 1 && n <= WB_STATE_NAME_MAX && strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

int
wb_state_session_path(const char *name, char **path, lz_err_t *err)
{
	char *base;

	*path = NULL;
	if (!wb_state_name_ok(name))
		return lz_err_set(err, LZ_EINVAL, "session name '%s': use 1 to %d letters, digits, "
		    "'_' or '-'", name, WB_STATE_NAME_MAX);
	if (wb_state_base(&base, err) < 0)
		return -1;
	if (strcmp(name, WB_STATE_MAIN) == 0) {
		*path = base;
		return 0;
	}
	*path = xasprintf("%s.%s", base, name);
	free(base);
	return 0;
}

static pid_t
wb_state_lock_pid(int fd)
{
	char buf[24] = "";
	ssize_t r = pread(fd, buf, sizeof buf - 1, 0);

	return r > 0 ? (pid_t)strtol(buf, NULL, 10) : 0;
}

int
wb_state_lock(const char *path, const char *name, bool take_over, lz_err_t *err)
{
	char *lock = xasprintf("%s.lock", path), pid[24];
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int fd, i;
	pid_t other;

	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		lz_err_sys(err, errno, "cannot open %s", lock);
		free(lock);
		return -1;
	}
	free(lock);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		other = wb_state_lock_pid(fd);
		if (!take_over) {
			close(fd);
			return lz_err_set(err, LZ_EINVAL, "session %s is attached to another workbench "
			    "(pid %ld): 'lazaret-workbench attach -d%s%s' takes it over, '-s NAME' "
			    "starts another session", name, (long)other,
			    strcmp(name, WB_STATE_MAIN) != 0 ? " -t " : "",
			    strcmp(name, WB_STATE_MAIN) != 0 ? name : "");
		}
		/* Like tmux attach -d: the other one detaches (SIGUSR1 takes the
		 * path a lost terminal takes, saving its tabs; SIGHUP reloads the
		 * configuration of a workbench whose terminal is there). */
		if (other > 1)
			kill(other, WB_STATE_DETACH_SIG);
		for (i = 0; i < 100 && flock(fd, LOCK_EX | LOCK_NB) < 0; i++)
			nanosleep(&ts, NULL);
		if (i == 100) {
			close(fd);
			return lz_err_set(err, LZ_EINVAL, "session %s: the workbench of pid %ld did not "
			    "let go within 5 s", name, (long)other);
		}
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, strlen(pid), 0) < 0) {
		lz_err_sys(err, errno, "cannot write the lock of session %s", name);
		close(fd);
		return -1;
	}
	return fd;
}

int
wb_state_list(FILE *out, lz_err_t *err)
{
	char *base, *dir, *path, *lock;
	const char *b;
	struct wb_state_tab *tabs;
	struct dirent *de;
	size_t n, blen, shown = 0;
	int panel, fd;
	DIR *d;

	if (wb_state_base(&base, err) < 0)
		return -1;
	b = strrchr(base, '/') != NULL ? strrchr(base, '/') + 1 : base;
	dir = b == base ? xstrdup(".") : b - 1 == base ? xstrdup("/") :
	    xasprintf("%.*s", (int)(b - 1 - base), base);
	blen = strlen(b);
	d = opendir(dir);
	/* A session has a lock file from its first start; the tabs while detached. */
	while (d != NULL && (de = readdir(d)) != NULL) {
		const char *e = de->d_name, *name;
		char nm[WB_STATE_NAME_MAX + 1];
		size_t elen = strlen(e);
		bool attached;

		if (strncmp(e, b, blen) != 0 || elen < blen + 5 || strcmp(e + elen - 5, ".lock") != 0)
			continue;
		e += blen;
		elen -= blen + 5;	/* "" or ".NAME" */
		if (elen == 0)
			name = WB_STATE_MAIN;
		else if (e[0] == '.' && elen - 1 <= WB_STATE_NAME_MAX) {
			snprintf(nm, sizeof nm, "%.*s", (int)(elen - 1), e + 1);
			name = nm;
		} else
			continue;
		if (wb_state_session_path(name, &path, err) < 0) {
			lz_err_clear(err);
			continue;
		}
		lock = xasprintf("%s.lock", path);
		fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		free(lock);
		attached = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0;
		if (fd >= 0)
			close(fd);
		n = 0;
		if (wb_state_read(path, &tabs, &n, &panel, err) == 0)
			wb_state_tabs_free(tabs, n);
		lz_err_clear(err);
		free(path);
		if (!attached && n == 0)
			continue;
		fprintf(out, "%s: %zu tab%s (%s)\n", name, n, n == 1 ? "" : "s",
		    attached ? "attached" : "detached");
		shown++;
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	free(base);
	if (shown == 0)
		fprintf(out, "no workbench sessions\n");
	return 0;
}
