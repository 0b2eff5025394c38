/* prompt-run.c - draw the escalation prompt in `lazaret run` (see prompt-run.h). */
#include <curses.h>
#include <panel.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "editform.h"
#include "esc-ctl.h"
#include "esc-payload.h"
#include "prompt-run.h"
#include "prompt.h"
#include "widget.h"
#include "xmalloc.h"

#define PROMPT_RUN_BUFFER_MAX	(8u << 20)	/* session output held while the prompt is up */

/* Is ticket withdrawn by a frame buffered after the current one (the
 * prompt's own, at the start of c->in)? Frames are not handed out here. */
static bool
prompt_run_withdrawn(const struct client *c, uint32_t ticket)
{
	struct proto_header h;
	const uint8_t *pl;
	lz_err_t err = LZ_ERR_INIT;
	size_t off = c->consumed;
	uint32_t t;

	while (proto_frame_parse(c->in.data + off, c->in.len - off, &h, &pl, &err) == PROTO_FRAME) {
		if (h.type == ESC_CTL_WITHDRAWN && h.length == 4) {
			memcpy(&t, pl, 4);
			if (ntohl(t) == ticket)
				return true;
		}
		off += PROTO_HEADER_LEN + h.length;
	}
	lz_err_clear(&err);
	return false;
}

/* Wait for a key on the terminal (ERR when it went away), meanwhile reading
 * the control socket: -2 when the request was withdrawn or the coordinator
 * is gone. */
static int
prompt_run_key(struct client *c, int tty_fd, uint32_t ticket)
{
	struct pollfd pfd[2];
	lz_err_t err = LZ_ERR_INIT;
	int key;

	for (;;) {
		if ((key = getch()) != ERR)
			return key;
		pfd[0].fd = tty_fd;
		pfd[0].events = POLLIN;
		/* Stop reading the socket when too much output piles up meanwhile. */
		pfd[1].fd = c->in.len < PROMPT_RUN_BUFFER_MAX ? c->fd : -1;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) < 0)
			continue;	/* EINTR: a signal (SIGWINCH) */
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return ERR;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (client_fill(c, &err) <= 0) {
				lz_err_clear(&err);
				return -2;
			}
			if (prompt_run_withdrawn(c, ticket))
				return -2;
		}
	}
}

/* Run the prompt until a decision; *edited set for EDIT; -1: withdrawn. */
static int
prompt_run_loop(struct client *c, int tty_fd, const struct esc_ctl_prompt *q, char **edited)
{
	struct prompt_request req = {
		.request_id = q->request_id, .profile = q->profile,
		.justification = q->justification, .cwd = q->cwd, .note = q->reason,
		.argv = NULL, .command = q->command,
	};
	struct widget_palette pal;
	struct prompt *pr;
	struct editform *ef = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int act = ESC_CTL_DENY;
	char *cmd;
	int key;

	widget_palette_mono(&pal);
	pr = prompt_new(&req, LINES, COLS);
	for (;;) {
		if (ef != NULL)
			editform_draw(ef, &pal);
		else
			prompt_draw(pr, &pal);
		update_panels();
		if (ef != NULL)
			editform_cursor(ef);
		doupdate();
		key = prompt_run_key(c, tty_fd, q->ticket);
		if (key == -2) {
			act = -1;	/* decided elsewhere, timed out, or no coordinator */
			goto out;
		}
		if (key == ERR)
			break;	/* the terminal went away: deny */
		if (key == KEY_RESIZE) {
			prompt_resize(pr, LINES, COLS);
			if (ef != NULL)
				editform_resize(ef, LINES, COLS);
			continue;
		}
		if (ef != NULL) {
			switch (editform_handle_key(ef, key)) {
			case EDITFORM_ACCEPT:
				*edited = editform_text(ef);
				act = ESC_CTL_EDIT;
				goto out;
			case EDITFORM_CANCEL:
				editform_free(ef);
				ef = NULL;
				break;
			case EDITFORM_NONE:
				break;
			}
			continue;
		}
		switch (prompt_handle_key(pr, key)) {
		case PROMPT_APPROVE:
			act = ESC_CTL_APPROVE;
			goto out;
		case PROMPT_DENY:
			act = ESC_CTL_DENY;
			goto out;
		case PROMPT_QUIT:
			act = ESC_CTL_QUIT;
			goto out;
		case PROMPT_EDIT:
			cmd = prompt_command(pr);
			/* A command the form cannot show faithfully is not edited. */
			if (editform_new("Edit the command (Enter runs it, Esc goes back)", cmd,
			    ESC_COMMAND_MAX, LINES, COLS, &ef, &err) < 0) {
				lz_err_clear(&err);
				ef = NULL;
				beep();
			}
			free(cmd);
			break;
		case PROMPT_NONE:
			break;
		}
	}
out:
	editform_free(ef);
	prompt_free(pr);
	return act;
}

/* Was ticket prompted already? Remember it if not. */
static bool
prompt_run_seen(struct prompt_run *pr, uint32_t ticket)
{
	size_t i, n = pr->n_seen < PROMPT_RUN_SEEN ? pr->n_seen : PROMPT_RUN_SEEN;

	for (i = 0; i < n; i++)
		if (pr->seen[i] == ticket)
			return true;
	pr->seen[pr->n_seen++ % PROMPT_RUN_SEEN] = ticket;
	return false;
}

int
prompt_run_frame(struct prompt_run *prs, struct client *c, const uint8_t *p, size_t len,
    lz_err_t *err)
{
	struct esc_ctl_prompt q;
	struct esc_ctl_decision d;
	struct proto_buf b = { NULL, 0, 0 };
	lz_err_t perr = LZ_ERR_INIT;
	char *edited = NULL;
	FILE *in = NULL, *out = NULL;
	SCREEN *scr;
	int ret = 0, act;

	if (esc_ctl_decode_prompt(p, len, &q, &perr) < 0) {
		lz_err_clear(&perr);
		return 0;	/* a newer coordinator's layout: let the host time out */
	}
	if (prompt_run_seen(prs, q.ticket))
		goto done;
	if ((in = fopen("/dev/tty", "re")) == NULL || (out = fopen("/dev/tty", "we")) == NULL)
		goto done;	/* no terminal: the request waits on the host */
	if ((scr = newterm(NULL, out, in)) == NULL)
		goto done;
	set_term(scr);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(100);	/* Esc leaves the edit form at once */
	curs_set(0);
	memset(&d, 0, sizeof d);
	d.ticket = q.ticket;
	nodelay(stdscr, TRUE);
	act = prompt_run_loop(c, fileno(in), &q, &edited);
	d.command = edited != NULL ? edited : (char *)"";
	/* endwin gives the terminal back in the modes newterm found (raw) and
	 * leaves the alternate screen, so the session's screen is back. */
	endwin();
	delscreen(scr);
	ret = 1;
	if (act < 0) {
		free(prs->notice);
		prs->notice = xasprintf("\r\nlazaret: escalation %.8s: no longer waiting for a "
		    "decision (timed out or decided elsewhere)\r\n", q.request_id);
		goto done;
	}
	d.action = (enum esc_ctl_action)act;
	esc_ctl_encode_decision(&b, &d);
	if ((ret = client_send(c, &b, err)) == 0)
		ret = 1;
done:
	if (in != NULL)
		fclose(in);
	if (out != NULL)
		fclose(out);
	free(edited);
	esc_ctl_prompt_clear(&q);
	return ret;
}
