/* side-ctl.c - the control socket: policy changes from the coordinator, and
 * the event stream to subscribers (bounded per client; overflow is counted
 * and reported as one LOST event, never an unbounded queue). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sodium.h>

#include "side.h"
#include "strv.h"
#include "xmalloc.h"

int
side_ctl_open(struct side *s, lz_err_t *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	int fd;

	if (strlen(s->ctl_path) >= sizeof sun.sun_path)
		return lz_err_set(err, ENAMETOOLONG, "control socket path too long: %s", s->ctl_path);
	memcpy(sun.sun_path, s->ctl_path, strlen(s->ctl_path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return lz_err_sys(err, errno, "control socket");
	(void)unlink(s->ctl_path);
	old = umask(0077);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0) {
		int e = errno;

		umask(old);
		close(fd);
		return lz_err_sys(err, e, "binding %s", s->ctl_path);
	}
	umask(old);
	if (listen(fd, SIDE_MAX_CLIENTS) < 0) {
		int e = errno;

		close(fd);
		return lz_err_sys(err, e, "listening on %s", s->ctl_path);
	}
	s->ctl_fd = fd;
	for (size_t i = 0; i < SIDE_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	return 0;
}

static void
ctl_drop(struct side_client *c)
{
	close(c->fd);
	proto_buf_clear(&c->in);
	proto_buf_clear(&c->out);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

void
side_ctl_accept(struct side *s)
{
	int fd = accept4(s->ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < SIDE_MAX_CLIENTS && s->clients[i].fd >= 0; i++)
		;
	if (i == SIDE_MAX_CLIENTS) {
		close(fd);
		return;
	}
	memset(&s->clients[i], 0, sizeof s->clients[i]);
	s->clients[i].fd = fd;
}

/* Apply a new policy; on failure the old one stays in force (kernel and here). */
static int
ctl_set_policy(struct side *s, struct side_policy *np, lz_err_t *err)
{
	struct side_policy old = s->pol;

	s->pol = *np;
	if (side_nft_apply(s, err) < 0) {
		s->pol = old;
		side_policy_clear(np);
		return -1;
	}
	side_policy_clear(&old);
	return 0;
}

static int
ctl_edit(struct side *s, const char *entry, bool add, lz_err_t *err)
{
	struct egress_entry e;
	struct side_policy np;
	char **v = NULL;
	bool found = false;
	int ret;

	if (egress_entry_parse(entry, &e, err) < 0)
		return -1;
	for (size_t i = 0; i < s->pol.n; i++) {
		if (egress_entry_equal(&s->pol.e[i], &e)) {
			found = true;
			if (!add)
				continue;
		}
		lz_strv_push(&v, s->pol.text[i]);
	}
	if (add && found) {
		lz_strv_free(v);
		return 0;
	}
	if (!add && !found) {
		lz_strv_free(v);
		return lz_err_set(err, ENOENT, "'%s' is not in the policy", entry);
	}
	if (add)
		lz_strv_push(&v, entry);
	ret = side_policy_parse(v, lz_strv_len(v), &np, err);
	lz_strv_free(v);
	if (ret < 0)
		return -1;
	return ctl_set_policy(s, &np, err);
}

int
side_ctl_add_entry(struct side *s, const char *entry, lz_err_t *err)
{
	return ctl_edit(s, entry, true, err);
}

static void
ctl_frame(struct side *s, struct side_client *c, const struct proto_header *h, const uint8_t *p)
{
	lz_err_t err = LZ_ERR_INIT;
	char **v = NULL, *str = NULL;
	size_t n;
	struct side_policy np;
	int ret = 0;

	switch (h->type) {
	case NETCTL_POLICY_SET:
		if ((ret = netctl_decode_list(p, h->length, &v, &n, &err)) == 0 &&
		    (ret = side_policy_parse(v, n, &np, &err)) == 0)
			ret = ctl_set_policy(s, &np, &err);
		break;
	case NETCTL_POLICY_ADD:
	case NETCTL_POLICY_DEL:
		if ((ret = netctl_decode_str(p, h->length, &str, &err)) == 0)
			ret = ctl_edit(s, str, h->type == NETCTL_POLICY_ADD, &err);
		break;
	case NETCTL_HOST_ADDRS: {
		struct side_host *nh, *oh = s->hosts;
		size_t nn, on = s->nhosts;

		if ((ret = netctl_decode_list(p, h->length, &v, &n, &err)) == 0 &&
		    (ret = side_hosts_parse(v, n, &nh, &nn, &err)) == 0) {
			s->hosts = nh;
			s->nhosts = nn;
			if ((ret = side_nft_apply(s, &err)) < 0) {
				s->hosts = oh;
				s->nhosts = on;
				free(nh);
			} else
				free(oh);
		}
		break;
	}
	case NETCTL_CRED_SET:
		if (netctl_decode_list(p, h->length, &v, &n, &err) < 0 ||
		    side_broker_set(s, v, n, &err) < 0) {
			proto_encode_error(&c->out, PROTO_E_BAD_PAYLOAD, err.msg ? err.msg : "failed");
			fprintf(stderr, "lazaret-sidecar: credentials refused: %s\n", err.msg);
			lz_err_clear(&err);
		} else
			proto_encode_ok(&c->out, (uint32_t)(n / NETCTL_CRED_FIELDS));
		lz_strv_free(v);
		/* the frame held secrets: wipe what this socket's buffer kept */
		sodium_memzero((void *)p, h->length);
		return;
	case NETCTL_POLICY_GET:
		netctl_encode_list(&c->out, NETCTL_POLICY, s->pol.text, s->pol.n);
		return;
	case NETCTL_SUBSCRIBE:
		proto_encode_ok(&c->out, 0);
		c->subscribed = true;
		side_event_replay(s, c);
		s->ask->replay(s, c);
		return;
	case NETCTL_VERDICT: {
		uint32_t rid, verdict;
		int held;

		if (netreq_decode_verdict(p, h->length, &rid, &verdict, &str, &err) < 0 ||
		    (held = s->ask->verdict(s, rid, verdict, str, &err)) < 0) {
			proto_encode_error(&c->out, PROTO_E_BAD_PAYLOAD, err.msg ? err.msg : "failed");
			fprintf(stderr, "lazaret-sidecar: verdict refused: %s\n", err.msg);
			lz_err_clear(&err);
		} else
			proto_encode_ok(&c->out, (uint32_t)held);
		free(str);
		return;
	}
	default:
		proto_encode_error(&c->out, PROTO_E_UNKNOWN_TYPE, "unknown message type");
		return;
	}
	lz_strv_free(v);
	free(str);
	if (ret < 0) {
		proto_encode_error(&c->out, PROTO_E_BAD_PAYLOAD, err.msg ? err.msg : "failed");
		fprintf(stderr, "lazaret-sidecar: policy change refused: %s\n", err.msg);
		lz_err_clear(&err);
	} else
		proto_encode_ok(&c->out, (uint32_t)s->pol.n);
}

void
side_ctl_read(struct side *s, struct side_client *c)
{
	uint8_t buf[16384];
	ssize_t n = read(c->fd, buf, sizeof buf);
	size_t off = 0;

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			ctl_drop(c);
		return;
	}
	proto_put(&c->in, buf, (size_t)n);
	/* Room for the whole frame at once: a credentials frame must not be
	 * copied around by realloc while its secrets arrive (freed copies). */
	if (c->in.len >= PROTO_HEADER_LEN) {
		uint32_t fl = (uint32_t)c->in.data[8] << 24 | (uint32_t)c->in.data[9] << 16 |
		    (uint32_t)c->in.data[10] << 8 | c->in.data[11];

		if (fl <= PROTO_MAX_PAYLOAD && c->in.len < PROTO_HEADER_LEN + (size_t)fl)
			(void)proto_buf_space(&c->in, PROTO_HEADER_LEN + fl - c->in.len, NULL);
	}
	for (;;) {
		struct proto_header h;
		const uint8_t *p;
		lz_err_t err = LZ_ERR_INIT;
		int r = proto_frame_parse(c->in.data + off, c->in.len - off, &h, &p, &err);

		if (r == PROTO_NEED_MORE)
			break;
		if (r < 0) {
			/* A bad frame ends the connection: say why, then close. */
			proto_encode_error(&c->out, (uint32_t)err.code, err.msg);
			lz_err_clear(&err);
			side_ctl_write(s, c);
			ctl_drop(c);
			return;
		}
		ctl_frame(s, c, &h, p);
		off += PROTO_HEADER_LEN + h.length;
	}
	proto_buf_consume(&c->in, off);
	sodium_memzero(buf, sizeof buf);	/* it may have carried a secret */
	side_ctl_write(s, c);
}

void
side_ctl_write(struct side *s, struct side_client *c)
{
	(void)s;
	while (c->fd >= 0 && c->out.len > 0) {
		ssize_t n = write(c->fd, c->out.data, c->out.len);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				ctl_drop(c);
			return;
		}
		proto_buf_consume(&c->out, (size_t)n);
	}
}
