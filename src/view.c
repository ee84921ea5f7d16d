/* view: what each side may see (see include/view.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picmodel.h"
#include "window.h"
#include "view.h"

bool
view_unit(const struct game *g, int side, int unit)
{
	if (side < 0 || g->rules == NULL || g->rules->visible == NULL)
		return true;
	return g->rules->visible(g, side, unit);
}

bool
view_hex(const struct game *g, int side, struct hex h)
{
	if (side < 0 || g->rules == NULL || g->rules->hex_visible == NULL)
		return true;
	return g->rules->hex_visible(g, side, h);
}

bool
view_event(const struct event *e, int side)
{
	if (side < 0)
		return true;
	if (!(e->visible & (1u << side)))
		return false;
	return e->roll_set == 0 || (e->roll_set & (1u << side)) != 0;
}

bool
view_roll(const struct events *ev, const struct dice_roll *r, int side)
{
	bool cited = false;
	size_t i;

	if (side < 0)
		return true;
	if (r->sealed)
		return (r->visible & (1u << side)) != 0;
	for (i = 0; i < ev->n; i++) {
		if (!events_cites(&ev->v[i], 0, r->seq))
			continue;
		cited = true;
		if (view_event(&ev->v[i], side))
			return true;
	}
	return !cited;
}

void
view_game(const struct game *g, int side, struct game *out)
{
	int *map = NULL, i, n = 0;

	game_copy(out, g);
	if (side < 0)
		return;
	if (g->rules != NULL && g->rules->visible != NULL && g->nunits > 0) {
		map = xcalloc((size_t)g->nunits, sizeof *map);
		for (i = 0; i < g->nunits; i++) {
			if (!g->rules->visible(g, side, i)) {
				map[i] = -1;
				continue;
			}
			map[i] = n;
			out->units[n++] = g->units[i];
		}
		out->nunits = n;
		for (i = 0; i < n; i++)
			if (out->units[i].attached >= 0 &&
			    out->units[i].attached < g->nunits)
				out->units[i].attached =
				    map[out->units[i].attached];
		free(map);
	}
	if (g->rules != NULL && g->rules->redact != NULL)
		g->rules->redact(out, side);
}

void
view_map(const struct game *g, int side, struct sbuf *out)
{
	struct game v;

	view_game(g, side, &v);
	g->rules->render_map(&v, side, out);
	game_free(&v);
}

void
view_status(const struct game *g, int side, struct sbuf *out)
{
	struct game v;

	view_game(g, side, &v);
	g->rules->status(&v, side, out);
	game_free(&v);
}

char *
view_order_template(const struct game *g, const struct window_spec *w,
    int side)
{
	struct game v;
	char *t;

	view_game(g, side, &v);
	t = window_order_template(&v, w, side);
	game_free(&v);
	return t;
}

void
view_sealed_label(const struct game *g, const struct dice_roll *r, char *buf,
    size_t len)
{
	struct sbuf sides;
	int s;

	sbuf_init(&sides);
	for (s = 0; s < g->nsides; s++)
		if (r->visible & (1u << s))
			sbuf_printf(&sides, "%s%s", sides.len ? "+" : "",
			    g->sides[s].name);
	snprintf(buf, len, "S:%s:%d", sides.buf ? sides.buf : "", r->seq);
	sbuf_free(&sides);
}

void
view_picture(const struct game *g, int side, const struct events *ev,
    struct pic_model *m)
{
	struct events seen;
	struct game v;
	size_t i;

	events_init(&seen);
	for (i = 0; ev != NULL && i < ev->n; i++)
		if (view_event(&ev->v[i], side))
			*events_append(&seen) = ev->v[i];
	view_game(g, side, &v);
	if (g->rules != NULL && g->rules->picture != NULL)
		g->rules->picture(&v, side, &seen, m);
	else {
		picmodel_default(&v, side, m);
		picmodel_arrows(&v, &seen, m);
	}
	game_free(&v);
	events_free(&seen);
}
