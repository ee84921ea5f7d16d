/* mapout: pictures of a campaign's map from the store (see
 * include/mapout.h). */
#include <string.h>

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
	view_picture(g, side, &ev, &m);
	if (f == MAPOUT_TEXT)
		picture_text(&m, out);
	else
		rc = picture_draw(&m, f == MAPOUT_SVG, out, err);
	picture_free(&m);
	events_free(&ev);
	return rc;
}
