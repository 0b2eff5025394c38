/* client.c - connect to (or start) the coordinator, frame I/O on its
 * control socket, and the Session Anchor of a new session. The session loop
 * of `lazaret run` is client-run.c.
 *
 * Start-up follows spec 4.3 Step 1 with tmux's retry: try to connect; if that
 * fails take /tmp/lazaret_coord_<H>.lock without blocking. The leader
 * connects once more (someone may have finished in between), then checks the
 * coordinator's lifetime lock: free means no coordinator lives and any socket
 * file is stale (removed); held means one is starting or tearing down, so the
 * leader waits for it to exit. It then spawns `lazaret coordinator`
 * (setsid, double fork, stdio on /dev/null, a close-on-exec error pipe on fd
 * 3 that carries the coordinator's start-up error or EOF when it listens) and
 * keeps the lock until the socket accepts. A follower waits for the lock,
 * drops it and tries again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "coord/coord.h"
#include "host/ctl-server.h"
#include "esc-ctl.h"
#include "coord/lock.h"
#include "effcfg.h"
#include "sign.h"
#include "trace.h"
#include "xmalloc.h"

#define CLIENT_LIVE_WAIT_MS	30000	/* an old coordinator tearing down */
#define CLIENT_LOCK_WAIT_MS	60000	/* a leader starting one */

static int64_t
client_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *
client_socket_dir(const struct anchor *a)
{
	const char *s = strrchr(a->ctl_socket, '/');

	return xstrndup(a->ctl_socket, (size_t)(s - a->ctl_socket));
}

/* connect(2) to path: fd, or -1 with errno. */
static int
client_try_connect(const char *path)
{
	struct sockaddr_un sun;
	int fd, e;

	memset(&sun, 0, sizeof sun);
	if (strlen(path) >= sizeof sun.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
client_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	struct pollfd pfd;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				pfd.fd = fd;
				pfd.events = POLLOUT;
				(void)poll(&pfd, 1, -1);
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
client_send(struct client *c, struct proto_buf *b, lz_err_t *err)
{
	int r = client_write_all(c->fd, b->data, b->len);

	proto_buf_clear(b);
	if (r < 0)
		return lz_err_sys(err, errno, "cannot write to the coordinator");
	return 0;
}

int
client_next(struct client *c, struct proto_header *h, const uint8_t **payload, lz_err_t *err)
{
	int r;

	if (c->consumed > 0) {
		proto_buf_consume(&c->in, c->consumed);
		c->consumed = 0;
	}
	r = proto_frame_parse(c->in.data, c->in.len, h, payload, err);
	if (r < 0)
		return lz_err_wrap(err, "bad frame from the coordinator");
	if (r == PROTO_NEED_MORE)
		return 0;
	c->consumed = PROTO_HEADER_LEN + h->length;
	return 1;
}

/* One read(2) into the buffer: bytes read, 0 on EOF, -1 on error. */
ssize_t
client_fill(struct client *c, lz_err_t *err)
{
	ssize_t n;

	if (c->in.cap - c->in.len < 65536) {
		c->in.cap = c->in.len + 65536;
		c->in.data = xrealloc(c->in.data, c->in.cap);
	}
	do
		n = read(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 1;	/* nothing after all: not EOF */
	if (n < 0)
		return lz_err_sys(err, errno, "cannot read from the coordinator");
	c->in.len += (size_t)n;
	return n;
}

int
client_recv(struct client *c, int timeout_ms, struct proto_header *h, const uint8_t **payload,
    lz_err_t *err)
{
	struct pollfd pfd = { c->fd, POLLIN, 0 };
	int64_t deadline = timeout_ms >= 0 ? client_now_ms() + timeout_ms : -1;
	ssize_t n;
	int r, wait;

	for (;;) {
		if ((r = client_next(c, h, payload, err)) != 0)
			return r;
		wait = -1;
		if (deadline >= 0) {
			int64_t left = deadline - client_now_ms();

			if (left <= 0)
				return lz_err_set(err, ETIMEDOUT, "the coordinator did not answer");
			wait = (int)left;
		}
		r = poll(&pfd, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return lz_err_sys(err, errno, "poll");
		if (r == 0)
			continue;
		if ((n = client_fill(c, err)) <= 0)
			return (int)n;
	}
}

int
client_stream(struct client *c, struct proto_buf *b, bool follow, client_frame_cb cb, void *arg,
    lz_err_t *err)
{
	struct proto_header h;
	const uint8_t *p;
	int r;

	if (client_send(c, b, err) < 0)
		return -1;
	for (;;) {
		if ((r = client_recv(c, follow ? -1 : 30000, &h, &p, err)) <= 0)
			return r < 0 ? -1 : 0;
		if (h.type == PROTO_ERROR)
			return client_error_frame(p, h.length, err);
		if (h.type == PROTO_OK) {
			fflush(stdout);
			if (!follow)
				return 0;
			continue;
		}
		cb(&h, p, arg);
		if (follow)
			fflush(stdout);
	}
}

int
client_error_frame(const uint8_t *payload, size_t len, lz_err_t *err)
{
	struct proto_error e;
	lz_err_t derr = LZ_ERR_INIT;

	if (proto_decode_error(payload, len, &e, &derr) < 0) {
		lz_err_set(err, LZ_EINVAL, "coordinator: %s", derr.msg);
		lz_err_clear(&derr);
		return -1;
	}
	lz_err_set(err, e.code == PROTO_E_SHUTDOWN ? EAGAIN : LZ_EINVAL, "%s", e.text);
	proto_error_clear(&e);
	return -1;
}

int
client_request(struct client *c, struct proto_buf *b, uint16_t want, int timeout_ms,
    struct proto_header *h, const uint8_t **payload, lz_err_t *err)
{
	int r;

	if (client_send(c, b, err) < 0)
		return -1;
	if ((r = client_recv(c, timeout_ms, h, payload, err)) < 0)
		return -1;
	/* Closed before answering: it was going away (the caller may retry). */
	if (r == 0)
		return lz_err_set(err, EAGAIN, "the coordinator closed the connection");
	if (h->type == PROTO_ERROR)
		return client_error_frame(*payload, h->length, err);
	if (h->type != want)
		return lz_err_set(err, LZ_EINVAL, "unexpected %s from the coordinator (wanted %s)",
		    proto_type_name(h->type), proto_type_name(want));
	return 0;
}

static int
client_hello(struct client *c, lz_err_t *err)
{
	struct proto_hello h = { PROTO_VERSION, (uint32_t)getpid(), (uint32_t)geteuid() };
	struct proto_buf b = { 0 };
	struct proto_header hdr;
	const uint8_t *p;

	proto_encode_hello(&b, &h);
	if (client_request(c, &b, PROTO_HELLO, 10000, &hdr, &p, err) < 0)
		return -1;
	if (proto_decode_hello(p, hdr.length, &h, err) < 0)
		return lz_err_wrap(err, "the coordinator's HELLO");
	c->coord_pid = (pid_t)h.pid;
	return 0;
}

static struct client *
client_new(int fd)
{
	struct client *c = xcalloc(1, sizeof *c);

	c->fd = fd;
	return c;
}

void
client_free(struct client *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	proto_buf_clear(&c->in);
	free(c);
}

static char *
client_live_path(const char *ctl_path)
{
	size_t n = strlen(ctl_path);

	if (n > 4 && strcmp(ctl_path + n - 4, ".ctl") == 0)
		n -= 4;
	return xasprintf("%.*s.lock", (int)n, ctl_path);
}

bool
client_socket_alive(const char *ctl_path)
{
	char *path = client_live_path(ctl_path);
	int fd, r;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return false;
	r = lock_try(fd, NULL);
	close(fd);
	return r == 0;
}

bool
client_coordinator_alive(const struct anchor *a)
{
	return client_socket_alive(a->ctl_socket);
}

int
client_wait_exit_path(const char *ctl_path, int timeout_ms, lz_err_t *err)
{
	char *path = client_live_path(ctl_path);
	const char *base = strrchr(ctl_path, '/');
	int fd, r;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return 0;
	r = lock_wait(fd, timeout_ms, err);
	close(fd);
	if (r < 0)
		return -1;
	if (r == 0)
		return lz_err_set(err, ETIMEDOUT, "the coordinator of domain %.12s did not exit "
		    "within %d s", base != NULL ? base + 1 : ctl_path, timeout_ms / 1000);
	return 0;
}

int
client_wait_coordinator_exit(const struct anchor *a, int timeout_ms, lz_err_t *err)
{
	return client_wait_exit_path(a->ctl_socket, timeout_ms, err);
}

void
client_unlink_stale(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
		unlink(path);
}

static void
client_child_fail(int fd, const char *what, int e)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "cannot start the coordinator: %s: %s", what,
	    strerror(e));

	if (n > 0)
		(void)!write(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
	_exit(127);
}

/* Spawn `lazaret coordinator ...` detached; wait for its ready pipe. */
static int
client_spawn(const struct anchor *a, const struct client_start *st, lz_err_t *err)
{
	char exe[PATH_MAX], buf[1024], *msg = NULL;
	char *argv[] = { exe, (char *)"coordinator", (char *)"--profile", a->profile,
	    (char *)"--workspace", a->workspace, (char *)"--mode", (char *)st->mode,
	    (char *)"--ready-fd", (char *)"3",
	    st->allow_unsafe ? (char *)"--allow-unsafe-workspace" : NULL, NULL };
	struct pollfd pfd;
	int64_t deadline;
	size_t len = 0;
	ssize_t n, en;
	int p[2], status, devnull, r;
	pid_t pid;

	if ((en = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return lz_err_sys(err, errno, "cannot find my own executable");
	exe[en] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return lz_err_sys(err, errno, "pipe");
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return lz_err_sys(err, errno, "fork");
	}
	if (pid == 0) {
		sigset_t all;

		/* Own session, then a second fork: never a terminal again. */
		if (setsid() < 0)
			client_child_fail(p[1], "setsid", errno);
		if ((pid = fork()) < 0)
			client_child_fail(p[1], "fork", errno);
		if (pid > 0)
			_exit(0);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGWINCH, SIG_DFL);
		if (chdir("/") < 0)
			client_child_fail(p[1], "chdir /", errno);
		if ((devnull = open("/dev/null", O_RDWR)) < 0)
			client_child_fail(p[1], "/dev/null", errno);
		if (p[1] != 3) {
			if (dup2(p[1], 3) < 0)
				client_child_fail(p[1], "dup2", errno);
		} else if (fcntl(3, F_SETFD, 0) < 0)
			client_child_fail(p[1], "fcntl", errno);
		if (dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
			client_child_fail(3, "dup2", errno);
		closefrom(4);
		execv(exe, argv);
		client_child_fail(3, exe, errno);
	}
	close(p[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	deadline = client_now_ms() + CLIENT_START_TIMEOUT_MS;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		int64_t left = deadline - client_now_ms();

		if (left <= 0) {
			close(p[0]);
			free(msg);
			return lz_err_set(err, ETIMEDOUT, "the coordinator did not start within "
			    "%d s: see %s/coordinator.log", CLIENT_START_TIMEOUT_MS / 1000,
			    a->domain_root);
		}
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno != EINTR) {
			close(p[0]);
			free(msg);
			return lz_err_sys(err, errno, "poll");
		}
		if (r <= 0)
			continue;
		n = read(p[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < 8192) {
			msg = xrealloc(msg, len + (size_t)n + 1);
			memcpy(msg + len, buf, (size_t)n);
			len += (size_t)n;
			msg[len] = '\0';
		}
	}
	close(p[0]);
	if (len > 0) {
		lz_err_set(err, LZ_EINVAL, "%s", msg);
		free(msg);
		return -1;
	}
	free(msg);
	return 0;
}

/* Leader: the main lock is ours. */
static int
client_lead(const struct anchor *a, const struct client_start *st, int *fdp, lz_err_t *err)
{
	char *live = lock_live_path(a);
	int64_t deadline;
	int fd, lfd = -1, r, ret = -1;

	if ((fd = client_try_connect(a->ctl_socket)) >= 0) {
		*fdp = fd;
		ret = 0;
		goto out;
	}
	if (lock_open(live, &lfd, err) < 0)
		goto out;
	if ((r = lock_try(lfd, err)) < 0)
		goto out;
	if (r == 0) {
		/* Alive but not accepting: tearing down (or a start that timed out). */
		if ((r = lock_wait(lfd, CLIENT_LIVE_WAIT_MS, err)) <= 0) {
			if (r == 0)
				lz_err_set(err, ETIMEDOUT, "the coordinator of domain %s holds "
				    "%s but does not answer on %s: kill it (see 'lazaret ls')",
				    a->hash, live, a->ctl_socket);
			goto out;
		}
	}
	client_unlink_stale(a->ctl_socket);
	lock_release(lfd);
	if (client_spawn(a, st, err) < 0)
		goto out;
	deadline = client_now_ms() + 10000;
	while ((fd = client_try_connect(a->ctl_socket)) < 0) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		if (client_now_ms() > deadline) {
			lz_err_set(err, ETIMEDOUT, "the coordinator does not accept on %s: see "
			    "%s/coordinator.log", a->ctl_socket, a->domain_root);
			goto out;
		}
		nanosleep(&ts, NULL);
	}
	*fdp = fd;
	ret = 0;
out:
	if (lfd >= 0)
		close(lfd);
	free(live);
	return ret;
}

int
client_connect_path(const char *path, struct client **out, lz_err_t *err)
{
	struct client *c;
	int fd;

	*out = NULL;
	if ((fd = client_try_connect(path)) < 0)
		return lz_err_sys(err, errno, "cannot connect to %s", path);
	c = client_new(fd);
	if (client_hello(c, err) < 0) {
		client_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int
client_connect(const struct anchor *a, const struct client_start *st, struct client **out,
    lz_err_t *err)
{
	char *dir = client_socket_dir(a);
	struct client *c = NULL;
	int fd = -1, lfd = -1, r, attempt, ret = -1;

	*out = NULL;
	if (ctl_server_dir_check(dir, st != NULL, err) < 0) {
		if (st == NULL && err->code == ENOENT)
			lz_err_set(err, ENOENT, "no coordinator is running for domain %s", a->hash);
		goto out;
	}
	for (attempt = 0; attempt < 8 && fd < 0; attempt++) {
		if ((fd = client_try_connect(a->ctl_socket)) >= 0)
			break;
		if (errno == ENAMETOOLONG) {
			lz_err_set(err, ENAMETOOLONG, "control socket path %s is longer than a "
			    "UNIX socket allows: set escalation.socket_dir to a shorter "
			    "directory", a->ctl_socket);
			goto out;
		}
		if (st == NULL) {
			if (!client_coordinator_alive(a))
				client_unlink_stale(a->ctl_socket);
			lz_err_set(err, ENOENT, "no coordinator is running for domain %s", a->hash);
			goto out;
		}
		if (lfd < 0 && lock_open(a->lockfile, &lfd, err) < 0)
			goto out;
		if ((r = lock_try(lfd, err)) < 0)
			goto out;
		if (r == 1) {
			r = client_lead(a, st, &fd, err);
			lock_release(lfd);
			if (r < 0)
				goto out;
			break;
		}
		/* Follower: wait for the leader, let go, connect. */
		if ((r = lock_wait(lfd, CLIENT_LOCK_WAIT_MS, err)) <= 0) {
			if (r == 0)
				lz_err_set(err, ETIMEDOUT, "timed out waiting for %s", a->lockfile);
			goto out;
		}
		lock_release(lfd);
	}
	if (fd < 0) {
		lz_err_set(err, ECONNREFUSED, "cannot reach the coordinator on %s", a->ctl_socket);
		goto out;
	}
	c = client_new(fd);
	if (client_hello(c, err) < 0)
		goto out;
	*out = lz_steal_ptr(&c);
	ret = 0;
out:
	client_free(c);
	if (lfd >= 0)
		close(lfd);
	free(dir);
	return ret;
}

#define CLIENT_CRED_LIFETIME_S	(24 * 3600)	/* the delegated credential */

/* The Session Anchor (DESIGN): this client's ed25519 key signs a delegated
 * credential for the sandbox; the key itself is wiped once that is done, so
 * nothing else can ever sign for this session. */
int
client_anchor_new_session(struct proto_buf *b, const struct proto_new_session *ns,
    lz_err_t *err)
{
	struct lz_sign_key k, d;
	struct lz_sign_cred cred;
	struct esc_ctl_anchor anc;

	if (lz_sign_init(err) < 0)
		return -1;
	memset(&anc, 0, sizeof anc);
	lz_sign_keypair(&k);
	lz_sign_random_id(anc.session_id);
	memcpy(anc.pk, k.pk, sizeof anc.pk);
	lz_sign_delegate(&k, anc.session_id, time(NULL) + CLIENT_CRED_LIFETIME_S, &cred, &d);
	anc.cred_env = lz_sign_cred_env(&cred, &d);
	lz_sign_key_wipe(&k);
	lz_sign_key_wipe(&d);
	esc_ctl_encode_new_session(b, &anc, ns);
	esc_ctl_anchor_clear(&anc);
	return 0;
}

int
client_config_diff(struct client *cl, const char *ours, const char *profile, char ***lines,
    char **running, lz_err_t *err)
{
	_cleanup_free_ char *text = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;

	*lines = NULL;
	if (running != NULL)
		*running = NULL;
	proto_encode_status_req(&b, PROTO_STATUS_CONFIG);
	if (client_request(cl, &b, PROTO_STATUS, 30000, &h, &p, err) < 0 ||
	    proto_decode_text(p, h.length, &text, err) < 0 ||
	    effcfg_diff(text, strlen(text), ours, profile, lines, err) < 0)
		return -1;
	if (running != NULL)
		*running = lz_steal_ptr(&text);
	return 0;
}
