/* export: a side's view as JSON (see include/export.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "export.h"
#include "mapout.h"
#include "view.h"

static json_object *
jstr(const char *s)
{
	return json_object_new_string(s != NULL ? s : "");
}

static void
jset(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *
hex_json(const struct game *g, struct hex h)
{
	char a[16];

	return jstr(hex_label(&g->layout, h, a, sizeof a));
}

/* The map, units, markers and arrows of side's picture model. */
static void
model_json(json_object *root, const struct game *g, const struct pic_model *m)
{
	json_object *map = json_object_new_object(), *hexes =
	    json_object_new_array(), *units = json_object_new_array(),
	    *markers = json_object_new_array(), *arrows =
	    json_object_new_array();
	int i, d;

	jset(map, "orient", jstr(m->layout.orient == HEX_FLAT ? "flat" :
	    "pointy"));
	jset(map, "parity", jstr(m->layout.parity == HEX_ODD ? "odd" :
	    "even"));
	jset(map, "cols", json_object_new_int(m->layout.cols));
	jset(map, "rows", json_object_new_int(m->layout.rows));
	jset(map, "row_base", json_object_new_int(m->layout.row_base));
	for (i = 0; i < m->nhex; i++) {
		const struct pic_hex *h = &m->hexes[i];
		json_object *o = json_object_new_object(), *e =
		    json_object_new_array();

		jset(o, "hex", hex_json(g, h->h));
		jset(o, "terrain", jstr(h->terrain));
		jset(o, "elevation", json_object_new_int(h->elevation));
		if (h->note[0] != '\0')
			jset(o, "note", jstr(h->note));
		for (d = 0; d < 6; d++)
			json_object_array_add(e, h->edge[d] > 0 ?
			    jstr(m->edge_name[h->edge[d]]) : NULL);
		jset(o, "edges", e);
		json_object_array_add(hexes, o);
	}
	jset(map, "hexes", hexes);
	jset(root, "map", map);
	for (i = 0; i < m->nunits; i++) {
		const struct pic_unit *u = &m->units[i];
		json_object *o = json_object_new_object();

		jset(o, "id", jstr(u->label));
		jset(o, "kind", jstr(u->kind));
		jset(o, "side", u->side >= 0 && u->side < g->nsides ?
		    jstr(g->sides[u->side].name) : NULL);
		jset(o, "hex", hex_json(g, u->pos));
		if (!u->marker) {
			jset(o, "strength", u->strength >= 0 ?
			    json_object_new_int(u->strength) : NULL);
			jset(o, "facing", u->facing >= 0 ?
			    json_object_new_int(u->facing) : NULL);
			jset(o, "spent", json_object_new_boolean(
			    (u->state & PIC_SPENT) != 0));
			jset(o, "suppressed", json_object_new_boolean(
			    (u->state & PIC_SUPPRESSED) != 0));
			jset(o, "hit", json_object_new_boolean(
			    (u->state & PIC_HIT) != 0));
		}
		json_object_array_add(u->marker ? markers : units, o);
	}
	jset(root, "units", units);
	jset(root, "markers", markers);
	for (i = 0; i < m->narrows; i++) {
		json_object *o = json_object_new_object();

		jset(o, "kind", jstr(m->arrows[i].kind == PIC_MOVE ? "move" :
		    "fire"));
		jset(o, "from", hex_json(g, m->arrows[i].from));
		jset(o, "to", hex_json(g, m->arrows[i].to));
		json_object_array_add(arrows, o);
	}
	jset(root, "arrows", arrows);
}

static json_object *
roll_json(const struct dice_roll *r, const char *label)
{
	json_object *o = json_object_new_object();

	jset(o, "seq", jstr(label));
	jset(o, "purpose", jstr(r->purpose));
	jset(o, "sides", json_object_new_int(r->sides));
	jset(o, "target", r->target > 0 ? json_object_new_int(r->target) :
	    NULL);
	jset(o, "result", json_object_new_int(r->result));
	jset(o, "sealed", json_object_new_boolean(r->sealed));
	return o;
}

/* The last resolved window: its events and rolls side may see. */
static int
last_json(json_object *root, struct store *st, int64_t cid,
    const struct game *g, int side, const struct events *ev,
    const struct store_window *w, struct hp_error *err)
{
	json_object *o = json_object_new_object(), *evs =
	    json_object_new_array(), *rolls = json_object_new_array();
	struct dice d, sd;
	char label[96];
	size_t i;
	int rc;

	(void)cid;
	memset(&d, 0, sizeof d);
	memset(&sd, 0, sizeof sd);
	jset(root, "last_window", o);
	jset(o, "turn", json_object_new_int(w->spec.turn));
	jset(o, "number", json_object_new_int(w->spec.number));
	jset(o, "name", jstr(w->spec.name));
	for (i = 0; i < ev->n; i++) {
		const struct event *e = &ev->v[i];
		json_object *x;

		if (!view_event(e, side))
			continue;
		x = json_object_new_object();
		jset(x, "phase", jstr(e->phase));
		jset(x, "text", jstr(e->text));
		json_object_array_add(evs, x);
	}
	jset(o, "events", evs);
	jset(o, "rolls", rolls);
	if ((rc = store_dice_load(st, w->id, &d, err)) != HP_OK ||
	    (rc = store_sealed_dice_load(st, w->id, &sd, err)) != HP_OK)
		goto out;
	for (i = 0; i < d.nlog; i++)
		if (view_roll(ev, &d.log[i], side)) {
			snprintf(label, sizeof label, "%d", d.log[i].seq);
			json_object_array_add(rolls, roll_json(&d.log[i],
			    label));
		}
	for (i = 0; i < sd.nslog; i++)
		if (view_roll(ev, &sd.slog[i], side)) {
			view_sealed_label(g, &sd.slog[i], label, sizeof label);
			json_object_array_add(rolls, roll_json(&sd.slog[i],
			    label));
		}
out:
	dice_free(&d);
	dice_free(&sd);
	return rc;
}

/* The open window, and side's order template for it when side must send. */
static void
open_json(json_object *root, struct store *st, int64_t cid,
    const struct game *g, int side)
{
	struct store_window w;
	json_object *o, *sides;
	int s;

	if (store_window_current(st, cid, &w, NULL) != HP_OK) {
		jset(root, "open_window", NULL);
		return;
	}
	o = json_object_new_object();
	sides = json_object_new_array();
	jset(o, "turn", json_object_new_int(w.spec.turn));
	jset(o, "number", json_object_new_int(w.spec.number));
	jset(o, "name", jstr(w.spec.name));
	jset(o, "kind", jstr(w.spec.kind == WINDOW_DECISION ? "decision" :
	    "orders"));
	for (s = 0; s < g->nsides; s++)
		if (w.spec.sides & (1u << s))
			json_object_array_add(sides, jstr(g->sides[s].name));
	jset(o, "sides", sides);
	if (side >= 0 && (w.spec.sides & (1u << side)) && !g->sides[side].ai) {
		char *t = view_order_template(g, &w.spec, side);

		jset(o, "template", jstr(t));
		free(t);
	} else
		jset(o, "template", NULL);
	jset(root, "open_window", o);
}

int
export_json(struct store *st, int64_t cid, const struct game *g, int side,
    struct sbuf *out, struct hp_error *err)
{
	json_object *root = json_object_new_object(), *sides =
	    json_object_new_array(), *viewer = json_object_new_object();
	struct store_window w;
	struct pic_model m;
	struct events ev;
	struct sbuf t;
	bool have_last;
	int rc = HP_OK, s;

	events_init(&ev);
	picture_init(&m);
	have_last = store_window_last_resolved(st, cid, &w, NULL) == HP_OK;
	if (have_last && (rc = mapout_events(st, w.id, &ev, err)) != HP_OK)
		goto out;
	jset(root, "format", jstr("hexpost-export"));
	jset(root, "version", json_object_new_int(EXPORT_FORMAT_VERSION));
	jset(root, "campaign", jstr(g->name));
	jset(root, "ruleset", jstr(g->rules->name));
	jset(root, "ruleset_title", jstr(g->rules->title));
	jset(root, "status", jstr(game_strstatus(g->status)));
	jset(root, "result", g->status == GAME_FINISHED ? jstr(g->result) :
	    NULL);
	jset(root, "turn", json_object_new_int(g->turn));
	jset(viewer, "side", side >= 0 ? jstr(g->sides[side].name) : NULL);
	jset(viewer, "label", jstr(side >= 0 ? g->sides[side].label :
	    "the moderator"));
	jset(root, "viewer", viewer);
	for (s = 0; s < g->nsides; s++) {
		json_object *o = json_object_new_object();

		jset(o, "name", jstr(g->sides[s].name));
		jset(o, "label", jstr(g->sides[s].label));
		jset(o, "ai", json_object_new_boolean(g->sides[s].ai));
		json_object_array_add(sides, o);
	}
	jset(root, "sides", sides);
	view_picture(g, side, &ev, &m);
	model_json(root, g, &m);
	sbuf_init(&t);
	view_map(g, side, &t);
	jset(root, "map_text", jstr(t.buf));
	sbuf_free(&t);
	view_status(g, side, &t);
	jset(root, "status_text", jstr(t.buf));
	sbuf_free(&t);
	if (have_last) {
		if ((rc = last_json(root, st, cid, g, side, &ev, &w, err)) !=
		    HP_OK)
			goto out;
	} else
		jset(root, "last_window", NULL);
	open_json(root, st, cid, g, side);
	sbuf_puts(out, json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	sbuf_puts(out, "\n");
out:
	json_object_put(root);
	picture_free(&m);
	events_free(&ev);
	return rc;
}
