/* wb-review-int.h - what the files of the review view share: its state
 * (wb-review.c loads it, wb-review-ui.c draws it and takes its keys). */
#ifndef LZ_WB_REVIEW_INT_H
#define LZ_WB_REVIEW_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "anchor.h"
#include "diffview.h"
#include "review/review.h"
#include "textview.h"
#include "wb-gitstream.h"

struct wb;

#define WB_REVIEW_COMMITS	"200"		/* commits listed (the count is exact) */
#define WB_REVIEW_FILES_MAX	200000		/* files listed */
#define WB_REVIEW_PATH_MAX	4096		/* bytes of a listed path */

struct wb_review_file {
	char status;			/* A M D T */
	char *path;
	const struct surface_flag *flag;	/* the first flag of path, or NULL */
	unsigned n_flags;
};

enum wb_review_ask {
	WB_REVIEW_ASK_NONE,
	WB_REVIEW_ASK_MERGE,		/* y merges */
	WB_REVIEW_ASK_SURFACE,		/* a accepts the flagged surface and merges */
	WB_REVIEW_ASK_DISCARD,		/* y discards */
};

struct wb_review {
	struct wb *wb;
	int refs;			/* the view and each job in flight */
	bool closed;
	char *profile, *workspace;
	WINDOW *win;
	PANEL *panel;
	/* the load job */
	bool loaded;
	char *error;
	struct anchor *a;
	struct review *r;
	char **commits;
	/* the surface job */
	bool surface_done;
	char *surface_error;
	struct surface_result s;
	const struct surface_flag **by_path;	/* s's flags sorted by path */
	/* the file list, streamed */
	struct wb_gitstream *files_gs;
	bool files_done;
	char *files_error;
	struct wb_review_file *files;
	size_t n_files, cap_files;
	char tok[WB_REVIEW_PATH_MAX];
	size_t tlen;
	char status;			/* of the path being read; 0: a status comes */
	size_t sel, top;
	/* the diff of files[diff_i] */
	bool in_diff;
	size_t diff_i;
	struct diffview *dv;
	struct wb_gitstream *diff_gs;
	/* confirmations and results */
	enum wb_review_ask ask;
	bool busy;
	char *note;
	bool note_alert;
	bool typing;
	char search[DIFFVIEW_SEARCH_MAX];
	struct textview *flags_tv;
};

/* Drop a reference; the last frees the view. */
void wb_review_unref(struct wb_review *v);
/* The line under the lists (alert: a refusal or failure). */
void wb_review_note(struct wb_review *v, bool alert, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Forget what was loaded (streams stopped) and load it again. */
void wb_review_load(struct wb_review *v);
/* Merge (accept: the surface too) or discard, on the threadpool. */
void wb_review_act(struct wb_review *v, bool merge, bool accept);
/* S: lazaret sync (running: host/<branch> refreshed and the agent's
 * sessions told; stopped: the agent branch recreated at your tip). */
void wb_review_sync(struct wb_review *v);
/* Show files[i]'s diff; close it again. */
void wb_review_diff_open(struct wb_review *v, size_t i);
void wb_review_diff_close(struct wb_review *v);
/* After a move: read on, or again from the start when the view went
 * above what is kept. */
void wb_review_diff_pump(struct wb_review *v);

#endif
