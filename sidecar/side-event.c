/* side-event.c - flow events and requests to the control socket's
 * subscribers: rate-limited, kept in a ring replayed to a new subscriber,
 * queued per client within SIDE_CLIENT_OUT_MAX (what does not fit is counted
 * and reported as one LOST event, never an unbounded queue). Every part of
 * the router reports here; it calls none of them. */
#include <stdio.h>

#include "side.h"

static void
event_queue(struct side_client *c, const struct netctl_event *ev)
{
	if (c->lost > 0 && c->out.len < SIDE_CLIENT_OUT_MAX / 2) {
		struct netctl_event lost = { .kind = NETCTL_EV_LOST, .time_ms = ev->time_ms,
			.count = c->lost };

		netctl_encode_event(&c->out, &lost);
		c->lost = 0;
	}
	if (c->out.len >= SIDE_CLIENT_OUT_MAX) {
		c->lost++;
		return;
	}
	netctl_encode_event(&c->out, ev);
}

void
side_event(struct side *s, struct netctl_event *ev)
{
	uint64_t now = side_now_ms();

	/* Token bucket: SIDE_EV_RATE per second, burst twice that. */
	s->ev_tokens += (double)(now - s->ev_last_ms) * SIDE_EV_RATE / 1000.0;
	if (s->ev_tokens > 2 * SIDE_EV_RATE)
		s->ev_tokens = 2 * SIDE_EV_RATE;
	s->ev_last_ms = now;
	if (s->ev_tokens < 1) {
		s->ev_lost++;
		return;
	}
	s->ev_tokens -= 1;
	ev->time_ms = side_wall_ms();
	if (s->ev_lost > 0) {
		struct netctl_event lost = { .kind = NETCTL_EV_LOST, .time_ms = ev->time_ms,
			.count = s->ev_lost };

		s->ev_lost = 0;
		side_event(s, &lost);
	}
	if (s->verbose)
		fprintf(stderr, "lazaret-sidecar: %s %s %s port %u %s (%s)\n",
		    netctl_ev_kind_name(ev->kind), ev->allowed ? "allow" : "deny", ev->addr, ev->port,
		    ev->name, ev->rule);
	s->ring[(s->ring_head + s->ring_len) % SIDE_EV_RING] = *ev;
	if (s->ring_len < SIDE_EV_RING)
		s->ring_len++;
	else
		s->ring_head = (s->ring_head + 1) % SIDE_EV_RING;
	for (size_t i = 0; i < SIDE_MAX_CLIENTS; i++)
		if (s->clients[i].fd >= 0 && s->clients[i].subscribed)
			event_queue(&s->clients[i], ev);
}

void
side_event_broadcast(struct side *s, const struct proto_buf *frame)
{
	for (size_t i = 0; i < SIDE_MAX_CLIENTS; i++) {
		struct side_client *c = &s->clients[i];

		if (c->fd < 0 || !c->subscribed)
			continue;
		if (c->out.len >= SIDE_CLIENT_OUT_MAX)
			c->lost++;
		else
			proto_put(&c->out, frame->data, frame->len);
	}
}

void
side_event_replay(struct side *s, struct side_client *c)
{
	for (size_t i = 0; i < s->ring_len; i++)
		event_queue(c, &s->ring[(s->ring_head + i) % SIDE_EV_RING]);
}
