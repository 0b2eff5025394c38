/* prompt-run.c - draw the escalation prompt in `lazaret run` (see prompt-run.h). */
#include <curses.h>
#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "editform.h"
#include "esc-ctl.h"
#include "esc-payload.h"
#include "prompt-run.h"
#include "prompt.h"
#include "widget.h"
#include "xmalloc.h"

/* Run the prompt on scr until a decision; *edited set for EDIT. */
static enum esc_ctl_action
prompt_run_loop(const struct esc_ctl_prompt *q, char **edited)
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
	enum esc_ctl_action act = ESC_CTL_DENY;
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
		key = getch();
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

int
prompt_run_frame(struct client *c, const uint8_t *p, size_t len, lz_err_t *err)
{
	struct esc_ctl_prompt q;
	struct esc_ctl_decision d;
	struct proto_buf b = { NULL, 0, 0 };
	lz_err_t perr = LZ_ERR_INIT;
	char *edited = NULL;
	FILE *in = NULL, *out = NULL;
	SCREEN *scr;
	int ret = 0;

	if (esc_ctl_decode_prompt(p, len, &q, &perr) < 0) {
		lz_err_clear(&perr);
		return 0;	/* a newer coordinator's layout: let the host time out */
	}
	if ((in = fopen("/dev/tty", "re")) == NULL || (out = fopen("/dev/tty", "we")) == NULL)
		goto done;	/* no terminal: the request waits on the host */
	if ((scr = newterm(NULL, out, in)) == NULL)
		goto done;
	set_term(scr);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	memset(&d, 0, sizeof d);
	d.ticket = q.ticket;
	d.action = prompt_run_loop(&q, &edited);
	d.command = edited != NULL ? edited : (char *)"";
	/* endwin gives the terminal back in the modes newterm found (raw) and
	 * leaves the alternate screen, so the session's screen is back. */
	endwin();
	delscreen(scr);
	esc_ctl_encode_decision(&b, &d);
	ret = client_send(c, &b, err);
done:
	if (in != NULL)
		fclose(in);
	if (out != NULL)
		fclose(out);
	free(edited);
	esc_ctl_prompt_clear(&q);
	return ret;
}
