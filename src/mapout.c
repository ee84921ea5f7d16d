/* mapout: pictures of a campaign's map from the store (see
 * include/mapout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mapout.h"
#include "view.h"

int
mapout_events(struct store *st, int64_t wid, struct events *ev,
    struct hp_error *err)
{
	int rc;

	if ((rc = store_events_load(st, wid, ev, err)) != HP_OK)
		return rc;
	return store_events_load_rolls(st, wid, ev, err);
}

int
mapout_picture(struct store *st, int64_t cid, const struct game *g,
    int64_t wid, int side, enum mapout_format f, struct sbuf *out,
    struct hp_error *err)
{
	struct store_window w;
	struct pic_model m;
	struct events ev;
	int rc = HP_OK;

	events_init(&ev);
	if (wid == 0 && store_window_last_resolved(st, cid, &w, NULL) == HP_OK)
		wid = w.id;
	if (wid > 0 && (rc = mapout_events(st, wid, &ev, err)) != HP_OK) {
		events_free(&ev);
		return rc;
	}
	picture_init(&m);
	mapout_model(g, side, &ev, &m);
	if (f == MAPOUT_TEXT)
		picture_text(&m, out);
	else
		rc = picture_draw(&m, f == MAPOUT_SVG, out, err);
	picture_free(&m);
	events_free(&ev);
	return rc;
}

void
mapout_model(const struct game *g, int side, const struct events *ev,
    struct pic_model *m)
{
	struct pic_model o;
	char title[sizeof m->title];
	int s;

	if (side != MAPOUT_PUBLIC || g->nsides == 0) {
		view_picture(g, side < -1 ? -1 : side, ev, m);
		return;
	}
	view_picture(g, 0, ev, m);
	for (s = 1; s < g->nsides; s++) {
		picture_init(&o);
		view_picture(g, s, ev, &o);
		picture_intersect(m, &o);
		picture_free(&o);
	}
	snprintf(title, sizeof title, "%s, turn %d: public view", g->name,
	    g->turn);
	strlcpy_(m->title, title, sizeof m->title);
}

int
mapout_window_resolved(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct events *ev,
    const struct dice *d, struct hp_error *err)
{
	struct pic_model m;
	struct sbuf t;
	int side, rc = HP_OK;

	(void)cid;
	(void)d;
	for (side = MAPOUT_PUBLIC; side < g->nsides && rc == HP_OK; side++) {
		if (side == -1)
			continue;
		picture_init(&m);
		sbuf_init(&t);
		mapout_model(g, side, ev, &m);
		picture_text(&m, &t);
		rc = store_exec(st, "window_pictures put", "INSERT OR REPLACE "
		    "INTO window_pictures (window_id, side, model) VALUES "
		    "(?1, ?2, ?3)", STORE_ARGS(STORE_INT(w->id),
		    STORE_INT(side), STORE_TEXT(t.buf ? t.buf : "")), NULL,
		    err);
		sbuf_free(&t);
		picture_free(&m);
	}
	return rc;
}

int
mapout_stored(struct store *st, int64_t wid, int side, struct pic_model *m,
    struct hp_error *err)
{
	struct store_query q;
	char *text = NULL;
	int rc;

	if ((rc = store_query_open(&q, st, "window_pictures get", "SELECT "
	    "model FROM window_pictures WHERE window_id = ?1 AND side = ?2",
	    STORE_ARGS(STORE_INT(wid), STORE_INT(side)), err)) != HP_OK)
		return rc;
	if (store_query_next(&q, err))
		text = xstrdup((const char *)sqlite3_column_text(q.s, 0));
	if ((rc = store_query_close(&q, err)) != HP_OK) {
		free(text);
		return rc;
	}
	if (text == NULL) {
		hp_seterr(err, HP_ENOENT, "no picture stored for window %lld",
		    (long long)wid);
		return HP_ENOENT;
	}
	rc = picture_parse(text, m, err);
	free(text);
	return rc;
}
