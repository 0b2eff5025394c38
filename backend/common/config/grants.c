/* grants.c - a profile's persisted egress grants: parse, load, add, remove,
 * and the MAC line that says this user's Lazaret wrote them. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "config.h"
#include "egress.h"
#include "grants.h"
#include "paths.h"
#include "xmalloc.h"

static const char grants_header[] =
    "# Lazaret egress grants: allow_egress entries approved for this profile.\n"
    "# Written by lazaret (lazaret egress grants lists them, lazaret egress revoke\n"
    "# removes one); one entry a line, the comment above it says when, who, why.\n";

int
grants_path(const char *config_file, const char *profile, char **out, lz_err_t *err)
{
	_cleanup_free_ char *base = NULL, *copy = NULL;

	*out = NULL;
	if (!cfg_profile_name_valid(profile))
		return lz_err_set(err, LZ_EINVAL, "'%s' is not a profile name", profile);
	if (config_file == NULL || strcmp(config_file, CFG_EMBEDDED_NAME) == 0) {
		if (lz_path_xdg("XDG_CONFIG_HOME", ".config", &base, err) < 0)
			return lz_err_wrap(err, "cannot find the grants directory");
		*out = xasprintf("%s/lazaret/" GRANTS_DIR "/%s" GRANTS_EXT, base, profile);
		return 0;
	}
	copy = xstrdup(config_file);
	*out = xasprintf("%s/" GRANTS_DIR "/%s" GRANTS_EXT, dirname(copy), profile);
	return 0;
}

static void
grants_push(struct grants *g, char *entry, const char *note, int line)
{
	g->v = xrealloc(g->v, (g->n + 1) * sizeof *g->v);
	g->v[g->n++] = (struct grants_entry){ entry, xstrdup(note), line };
}

/* note with control bytes made '?' and cut at GRANTS_NOTE_MAX. */
static char *
grants_clean(const char *s, size_t len)
{
	char *o;
	size_t i;

	if (len > GRANTS_NOTE_MAX)
		len = GRANTS_NOTE_MAX;
	o = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		o[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	o[len] = '\0';
	return o;
}

int
grants_parse(const char *name, const char *buf, size_t len, struct grants *out,
    lz_err_t *err)
{
	_cleanup_free_ char *note = NULL;
	size_t off = 0, l, a, b;
	int line = 0;

	*out = (struct grants){ NULL, 0 };
	if (len > GRANTS_FILE_MAX)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %d bytes", name, GRANTS_FILE_MAX);
	while (off < len) {
		const char *s = buf + off, *nl = memchr(s, '\n', len - off);
		char text[EGRESS_ENTRY_MAX + 1];
		struct egress_entry e;

		l = nl ? (size_t)(nl - s) : len - off;
		off += l + (nl != NULL);
		line++;
		for (a = 0; a < l && (s[a] == ' ' || s[a] == '\t'); a++)
			;
		for (b = l; b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'); b--)
			;
		if (a == b) {
			free(note);
			note = NULL;
			continue;
		}
		if (s[a] == '#') {
			for (a++; a < b && s[a] == ' '; a++)
				;
			free(note);
			note = grants_clean(s + a, b - a);
			continue;
		}
		if (memchr(s + a, '\0', b - a) != NULL || b - a > EGRESS_ENTRY_MAX) {
			lz_err_set(err, LZ_EINVAL, "%s:%d: not an allow_egress entry (a NUL byte, or "
			    "longer than %d bytes)", name, line, EGRESS_ENTRY_MAX);
			goto fail;
		}
		memcpy(text, s + a, b - a);
		text[b - a] = '\0';
		if (text[0] == '@') {
			lz_err_set(err, LZ_EINVAL, "%s:%d: '%s': a preset is not allowed in a grants "
			    "file; list it in the profile's allow_egress", name, line, text);
			goto fail;
		}
		if (egress_entry_parse(text, &e, err) < 0) {
			lz_err_wrap(err, "%s:%d", name, line);
			goto fail;
		}
		if (out->n == GRANTS_MAX) {
			lz_err_set(err, LZ_EINVAL, "%s:%d: more than %d grants", name, line, GRANTS_MAX);
			goto fail;
		}
		grants_push(out, egress_entry_format(&e), note ? note : "", line);
		free(note);
		note = NULL;
	}
	return 0;
fail:
	grants_clear(out);
	return -1;
}

int
grants_load(const char *path, struct grants *out, lz_err_t *err)
{
	_cleanup_free_ char *buf = NULL;
	lz_err_t e = LZ_ERR_INIT;
	struct stat st;
	size_t n;

	*out = (struct grants){ NULL, 0 };
	if (lz_path_read(path, GRANTS_FILE_MAX, &buf, &n, &st, &e) < 0) {
		if (e.code == ENOENT) {
			lz_err_clear(&e);
			return 0;
		}
		lz_err_set(err, e.code, "%s", e.msg);
		lz_err_clear(&e);
		return -1;
	}
	/* A grant opens the network: only the user's own Lazaret may have
	 * written it (the MAC: an agent's files are the user's too). */
	if (st.st_uid != getuid() || (st.st_mode & 022) != 0)
		return lz_err_set(err, EPERM, "%s: security: %s; refused: its grants are not "
		    "applied (chown it to you and chmod 600 it)", path, st.st_uid != getuid() ?
		    "owned by another user" : "writable by group or others");
	if (grants_mac_check(path, buf, n, &n, err) < 0)
		return -1;
	return grants_parse(path, buf, n, out, err);
}

void
grants_clear(struct grants *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].entry);
		free(g->v[i].note);
	}
	free(g->v);
	*g = (struct grants){ NULL, 0 };
}

char *
grants_note(time_t when, const char *who, const char *why)
{
	_cleanup_free_ char *raw = NULL;
	char ts[32] = "?";
	struct tm tm;

	if (gmtime_r(&when, &tm) != NULL)
		strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	raw = xasprintf("%s by %s%s%s", ts, who != NULL && who[0] != '\0' ? who : "?",
	    why != NULL && why[0] != '\0' ? ": " : "", why != NULL ? why : "");
	return grants_clean(raw, strlen(raw));
}

int
grants_mkdir(const char *path, lz_err_t *err)
{
	_cleanup_free_ char *d = xstrdup(path);
	char *dir = dirname(d), *s, c;

	for (s = dir + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return lz_err_sys(err, errno, "cannot create %s", dir);
		*s = c;
		if (c == '\0')
			break;
	}
	return 0;
}

/* Serialize writers of one file (two coordinators of the same profile). */
static int
grants_lock(const char *path, lz_err_t *err)
{
	_cleanup_free_ char *lp = xasprintf("%s.lock", path);
	int fd;

	if (grants_mkdir(path, err) < 0)
		return -1;
	if ((fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return lz_err_sys(err, errno, "%s", lp);
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			lz_err_sys(err, errno, "flock %s", lp);
			close(fd);
			return -1;
		}
	return fd;
}

static int
grants_write_all(int fd, const char *s, size_t len)
{
	ssize_t r;

	while (len > 0) {
		if ((r = write(fd, s, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += r;
		len -= (size_t)r;
	}
	return 0;
}

/* Write g to path, its MAC line last: temp file, fsync, rename, fsync the
 * directory. */
static int
grants_store(const char *path, const struct grants *g, lz_err_t *err)
{
	_cleanup_free_ char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	_cleanup_free_ char *d = xstrdup(path), *text = xstrdup(grants_header);
	_cleanup_close_ int fd = -1, dfd = -1;
	uint8_t key[GRANTS_MAC_KEY_LEN];
	char mac[GRANTS_MAC_HEX_LEN + 1];
	size_t i;
	int e;

	for (i = 0; i < g->n; i++) {
		char *t = g->v[i].note[0] != '\0' ?
		    xasprintf("%s\n# %s\n%s\n", text, g->v[i].note, g->v[i].entry) :
		    xasprintf("%s\n%s\n", text, g->v[i].entry);

		free(text);
		text = t;
	}
	if (grants_mac_key(true, key, err) < 0)
		return -1;
	grants_mac_hex(key, path, text, strlen(text), mac);
	sodium_memzero(key, sizeof key);
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return lz_err_sys(err, errno, "%s", tmp);
	if (grants_write_all(fd, text, strlen(text)) < 0 ||
	    grants_write_all(fd, GRANTS_MAC_LINE, sizeof GRANTS_MAC_LINE - 1) < 0 ||
	    grants_write_all(fd, mac, GRANTS_MAC_HEX_LEN) < 0 || grants_write_all(fd, "\n", 1) < 0)
		goto fail;
	if (fsync(fd) < 0 || close(lz_steal_fd(&fd)) < 0)
		goto fail;
	if (rename(tmp, path) < 0)
		goto fail;
	if ((dfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		(void)fsync(dfd);
	return 0;
fail:
	e = errno;
	unlink(tmp);
	return lz_err_sys(err, e, "cannot write %s", path);
}

int
grants_add(const char *path, const char *entry, const char *note, bool *added,
    lz_err_t *err)
{
	struct grants g = { NULL, 0 };
	struct egress_entry e, o;
	_cleanup_close_ int lock = -1;
	size_t i;
	int ret = -1;

	if (added != NULL)
		*added = false;
	if (entry[0] == '@')
		return lz_err_set(err, LZ_EINVAL, "'%s': a preset cannot be granted; list it in the "
		    "profile's allow_egress", entry);
	if (egress_entry_parse(entry, &e, err) < 0)
		return -1;
	if ((lock = grants_lock(path, err)) < 0 || grants_load(path, &g, err) < 0)
		goto out;
	for (i = 0; i < g.n; i++)
		if (egress_entry_parse(g.v[i].entry, &o, NULL) == 0 && egress_entry_equal(&e, &o))
			break;
	if (i < g.n) {
		ret = 0;
		goto out;
	}
	if (g.n == GRANTS_MAX) {
		lz_err_set(err, LZ_EINVAL, "%s: already %d grants; revoke some first", path,
		    GRANTS_MAX);
		goto out;
	}
	{
		_cleanup_free_ char *clean = grants_clean(note ? note : "", note ? strlen(note) : 0);

		grants_push(&g, egress_entry_format(&e), clean, 0);
	}
	if (grants_store(path, &g, err) < 0)
		goto out;
	if (added != NULL)
		*added = true;
	ret = 0;
out:
	grants_clear(&g);
	return ret;
}

int
grants_remove(const char *path, const char *what, char **removed, lz_err_t *err)
{
	struct grants g = { NULL, 0 };
	struct egress_entry e, o;
	_cleanup_close_ int lock = -1;
	size_t i = 0, k;
	bool index = what[0] != '\0' && strspn(what, "0123456789") == strlen(what);
	int ret = -1;

	if (removed != NULL)
		*removed = NULL;
	if (!index && egress_entry_parse(what, &e, err) < 0)
		return -1;
	if ((lock = grants_lock(path, err)) < 0 || grants_load(path, &g, err) < 0)
		goto out;
	if (index) {
		i = strlen(what) > 6 ? 0 : (size_t)strtoul(what, NULL, 10);
		if (i == 0 || i > g.n) {
			lz_err_set(err, ENOENT, "no grant number %s in %s (it has %zu; lazaret egress "
			    "grants lists them)", what, path, g.n);
			goto out;
		}
		i--;
	} else {
		for (i = 0; i < g.n; i++)
			if (egress_entry_parse(g.v[i].entry, &o, NULL) == 0 && egress_entry_equal(&e, &o))
				break;
		if (i == g.n) {
			lz_err_set(err, ENOENT, "no grant '%s' in %s (lazaret egress grants lists them)",
			    what, path);
			goto out;
		}
	}
	if (removed != NULL)
		*removed = xstrdup(g.v[i].entry);
	free(g.v[i].entry);
	free(g.v[i].note);
	for (k = i; k + 1 < g.n; k++)
		g.v[k] = g.v[k + 1];
	g.n--;
	if (grants_store(path, &g, err) < 0) {
		if (removed != NULL) {
			free(*removed);
			*removed = NULL;
		}
		goto out;
	}
	ret = 0;
out:
	grants_clear(&g);
	return ret;
}

/* ---- the MAC line and its key ---- */

#define GRANTS_MAC_DOMAIN "lazaret-grants-v1"

int
grants_mac_key_path(char **out, lz_err_t *err)
{
	_cleanup_free_ char *base = NULL;

	*out = NULL;
	if (lz_path_xdg("XDG_DATA_HOME", ".local/share", &base, err) < 0)
		return lz_err_wrap(err, "cannot find the grants key");
	*out = xasprintf("%s/" GRANTS_MAC_KEY_FILE, base);
	return 0;
}

/* Make the key: its directory 0700, the bytes in a temp file, then link()
 * (atomic, fails on an existing key: two writers racing both read the
 * winner's, never a half-written one). */
static int
grants_mac_key_make(const char *path, lz_err_t *err)
{
	_cleanup_free_ char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	_cleanup_close_ int fd = -1;
	uint8_t key[GRANTS_MAC_KEY_LEN];
	ssize_t w;
	int e = 0;

	if (grants_mkdir(path, err) < 0)
		return -1;
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return lz_err_sys(err, errno, "cannot create %s", tmp);
	randombytes_buf(key, sizeof key);
	w = write(fd, key, sizeof key);
	sodium_memzero(key, sizeof key);
	if (w != (ssize_t)sizeof key || fsync(fd) < 0)
		e = w < 0 ? errno : EIO;
	else if (link(tmp, path) < 0 && errno != EEXIST)
		e = errno;
	unlink(tmp);
	return e != 0 ? lz_err_sys(err, e, "cannot write %s", path) : 0;
}

int
grants_mac_key(bool create, uint8_t key[GRANTS_MAC_KEY_LEN], lz_err_t *err)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t r;

	if (sodium_init() < 0)
		return lz_err_set(err, EIO, "libsodium does not initialise");
	if (grants_mac_key_path(&path, err) < 0)
		return -1;
	if (create && access(path, F_OK) < 0 && grants_mac_key_make(path, err) < 0)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return lz_err_sys(err, errno, "grants key %s", path);
	if (fstat(fd, &st) < 0)
		return lz_err_sys(err, errno, "grants key %s", path);
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0 ||
	    st.st_size != GRANTS_MAC_KEY_LEN)
		return lz_err_set(err, EPERM, "grants key %s: security: not a %d-byte file of "
		    "yours with mode 600; refused (remove it: every grants file must then be "
		    "approved again)", path, GRANTS_MAC_KEY_LEN);
	if ((r = read(fd, key, GRANTS_MAC_KEY_LEN)) != GRANTS_MAC_KEY_LEN)
		return lz_err_sys(err, r < 0 ? errno : EIO, "grants key %s", path);
	return 0;
}

void
grants_mac_hex(const uint8_t key[GRANTS_MAC_KEY_LEN], const char *name, const char *body,
    size_t len, char hex[GRANTS_MAC_HEX_LEN + 1])
{
	crypto_generichash_state st;
	uint8_t mac[GRANTS_MAC_HEX_LEN / 2];
	const char *base = strrchr(name, '/');

	base = base != NULL ? base + 1 : name;
	crypto_generichash_init(&st, key, GRANTS_MAC_KEY_LEN, sizeof mac);
	crypto_generichash_update(&st, (const uint8_t *)GRANTS_MAC_DOMAIN,
	    sizeof GRANTS_MAC_DOMAIN);
	crypto_generichash_update(&st, (const uint8_t *)base, strlen(base) + 1);
	crypto_generichash_update(&st, (const uint8_t *)body, len);
	crypto_generichash_final(&st, mac, sizeof mac);
	sodium_bin2hex(hex, GRANTS_MAC_HEX_LEN + 1, mac, sizeof mac);
}

/* Where the MAC line starts (it must be the file's last line), or len. */
static size_t
grants_mac_find(const char *buf, size_t len)
{
	size_t ll = sizeof GRANTS_MAC_LINE - 1 + GRANTS_MAC_HEX_LEN + 1, at;

	if (len < ll)
		return len;
	at = len - ll;
	if ((at > 0 && buf[at - 1] != '\n') || buf[len - 1] != '\n' ||
	    memcmp(buf + at, GRANTS_MAC_LINE, sizeof GRANTS_MAC_LINE - 1) != 0)
		return len;
	return at;
}

int
grants_mac_check(const char *path, const char *buf, size_t len, size_t *body_len,
    lz_err_t *err)
{
	static const char fix[] = "refused: its grants are not applied (remove it; approve "
	    "again, or write an entry you want in the profile's allow_egress)";
	uint8_t key[GRANTS_MAC_KEY_LEN];
	char want[GRANTS_MAC_HEX_LEN + 1];
	size_t at = grants_mac_find(buf, len);
	lz_err_t e = LZ_ERR_INIT;
	int ok;

	*body_len = len;
	if (at == len)
		return lz_err_set(err, EPERM, "%s: security: not written by your Lazaret (no "
		    "'%s' line at its end); %s", path, GRANTS_MAC_LINE "...", fix);
	if (grants_mac_key(false, key, &e) < 0) {
		lz_err_set(err, EPERM, "%s: security: cannot check that your Lazaret wrote it "
		    "(%s); %s", path, e.msg, fix);
		lz_err_clear(&e);
		return -1;
	}
	grants_mac_hex(key, path, buf, at, want);
	sodium_memzero(key, sizeof key);
	ok = sodium_memcmp(want, buf + at + sizeof GRANTS_MAC_LINE - 1, GRANTS_MAC_HEX_LEN) == 0;
	if (!ok)
		return lz_err_set(err, EPERM, "%s: security: not written by your Lazaret (its "
		    "MAC does not match: edited or forged outside Lazaret); %s", path, fix);
	*body_len = at;
	return 0;
}
