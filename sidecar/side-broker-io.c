/* side-broker-io.c - what the broker's connection threads write: its own
 * answers to the agent (side_broker_answer), whole buffers to a socket, and
 * one NETCTL_EV_BROKER event a request to the poll loop through a pipe
 * (side_broker_report; the loop reads it with side_broker_read). Both the
 * brokered requests (side-broker.c) and the git kind (side-broker-git.c)
 * call it; it calls neither. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "side.h"
#include "side-broker.h"

static int broker_pipe[2] = { -1, -1 };

/* The events' pipe, made once (non-blocking both ends: a full pipe loses an
 * event rather than stall a stream). -1 with errno when pipe2 fails. */
int
side_broker_events_open(lz_err_t *err)
{
	if (broker_pipe[0] < 0 && pipe2(broker_pipe, O_CLOEXEC) < 0)
		return -1;
	(void)side_nonblock(broker_pipe[0], err);
	(void)side_nonblock(broker_pipe[1], err);
	return 0;
}

int
side_broker_fd(void)
{
	return broker_pipe[0];
}

/* The poll loop's side: events from the connection threads. */
void
side_broker_read(struct side *s)
{
	struct netctl_event ev;

	while (read(broker_pipe[0], &ev, sizeof ev) == (ssize_t)sizeof ev)
		side_event(s, &ev);
}

void
side_broker_report(const struct side_broker_cred *c, bool allowed, int status, const char *method,
    const char *path, size_t path_len, uint64_t up, uint64_t down, uint64_t ms,
    const char *why)
{
	struct netctl_event ev = { .kind = NETCTL_EV_BROKER, .allowed = allowed,
		.time_ms = side_wall_ms(), .proto = (uint32_t)status, .port = c->port,
		.count = (uint32_t)(ms > UINT32_MAX ? UINT32_MAX : ms) };

	snprintf(ev.addr, sizeof ev.addr, "%s", c->host);
	snprintf(ev.name, sizeof ev.name, "%s %.*s", method[0] ? method : "-",
	    (int)(path_len > 200 ? 200 : path_len), path);
	/* the rule field: "credential NAME up N down N[: why]" (netctl-text.c reads it) */
	snprintf(ev.rule, sizeof ev.rule, "credential %s up %llu down %llu%s%s", c->name,
	    (unsigned long long)up, (unsigned long long)down, why ? ": " : "", why ? why : "");
	/* a full pipe loses the event rather than stall a stream */
	(void)!write(broker_pipe[1], &ev, sizeof ev);
}

int
side_broker_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* An answer of the broker's own: status and one line. */
void
side_broker_answer(int fd, int status, const char *reason)
{
	char buf[640];
	const char *text = status == 403 ? "Forbidden" : status == 502 ? "Bad Gateway" :
	    status == 503 ? "Service Unavailable" : status == 421 ? "Misdirected Request" :
	    status == 426 ? "Upgrade Required" : "Refused";
	int n = snprintf(buf, sizeof buf, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	    "Connection: close\r\nContent-Length: %zu\r\n\r\nlazaret broker: %s\n", status, text,
	    strlen(reason) + 17, reason);

	if (n > 0 && (size_t)n < sizeof buf)
		(void)side_broker_write_all(fd, buf, (size_t)n);
}
