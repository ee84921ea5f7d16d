/* report: turn reports rendered from templates/report.txt, one per side and
 * one for the moderator, stored with the window they report on. */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>

#include "dice.h"
#include "dicelog.h"
#include "events.h"
#include "game.h"
#include "store.h"

/* Render and store the reports of resolved window w (g is the state after
 * it; the next window, if any, is already open). */
int report_render(struct store *, int64_t cid, const struct game *,
    const struct store_window *w, const struct events *, const struct dice *,
    struct hp_error *);

/* The report of window w for side (-1: the moderator) exactly as
 * report_render stores it, without storing it (for audits' replays); next
 * is the window opened after w, NULL if none. Caller frees; NULL and err
 * on failure. */
char *report_render_text(const struct game *, const struct store_window *w,
    const struct store_window *next, const struct events *,
    const struct dice *, int side, struct hp_error *);

/* Append to out what side (-1: the moderator) may see of the order files
 * window l used (its dice log): each file's hash and how it came, a side
 * its own only (templates/report-files.txt). stmt: the moderator statement
 * that said "proceed" in this window, 0 if none. Every report ends so. */
int report_files(const struct game *, const struct dicelog *l, int side,
    int stmt, struct sbuf *out, struct hp_error *);
/* The text of template name (e.g. "report.txt"): from $HEXPOST_TEMPLATES
 * if set, else the copy built into the binary. Caller frees. */
char *report_template(const char *name, struct hp_error *);

#endif
