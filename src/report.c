/* report: turn reports from templates (see include/report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "report.h"
#include "tmpl.h"
#include "window.h"

char *
report_template(const char *name, struct hp_error *err)
{
	const struct embedded_file *f;
	const char *dir = getenv("HEXPOST_TEMPLATES");
	char path[4096];

	if (dir != NULL && *dir != '\0') {
		snprintf(path, sizeof path, "%s/%s", dir, name);
		return util_read_file(path, NULL, err);
	}
	snprintf(path, sizeof path, "templates/%s", name);
	if ((f = embedded_find(path)) == NULL) {
		hp_seterr(err, HP_ENOENT, "no template %s", name);
		return NULL;
	}
	return xstrdup(f->data);
}

static void
hex_str(const unsigned char *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Is roll seq shown to side? Yes if an event it can see reports it, or if
 * no event reports it at all. */
static bool
roll_visible(const struct events *ev, int seq, int side)
{
	bool referenced = false;
	size_t i;

	for (i = 0; i < ev->n; i++) {
		if (ev->v[i].roll != seq)
			continue;
		referenced = true;
		if (side < 0 || (ev->v[i].visible & (1u << side)))
			return true;
	}
	return !referenced;
}

/* Render one side's report (side -1: the moderator). Caller frees. */
static char *
render_side(const char *tpl, const struct game *g,
    const struct store_window *w, const struct store_window *next,
    const struct events *ev, const struct dice *d, int side,
    struct hp_error *err)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *ph = NULL, *it;
	struct sbuf out, tmp;
	char hex[2 * 64 + 1], last[EVENT_PHASE_MAX] = "";
	size_t i;
	int s;

	sbuf_init(&out);
	tmpl_set(c, "campaign", g->name);
	tmpl_set(c, "ruleset", g->rules->title);
	tmpl_set_int(c, "turn", w->spec.turn);
	tmpl_set(c, "window", w->spec.name);
	tmpl_set(c, "viewer", side < 0 ? "the moderator" :
	    g->sides[side].label);
	tmpl_set(c, "rule", "======================================="
	    "=================================");
	for (i = 0; i < ev->n; i++) {
		const struct event *e = &ev->v[i];

		if (side >= 0 && !(e->visible & (1u << side)))
			continue;
		if (ph == NULL || strcmp(last, e->phase) != 0) {
			ph = tmpl_list_add(c, "phases");
			tmpl_set(ph, "name", e->phase);
			strlcpy_(last, e->phase, sizeof last);
		}
		it = tmpl_list_add(ph, "events");
		tmpl_set(it, "text", e->text);
	}
	for (i = 0; i < d->nlog; i++) {
		const struct dice_roll *r = &d->log[i];

		if (!roll_visible(ev, r->seq, side))
			continue;
		it = tmpl_list_add(c, "rolls");
		tmpl_set_int(it, "seq", r->seq);
		tmpl_set_int(it, "sides", r->sides);
		tmpl_set(it, "purpose", r->purpose);
		if (r->target > 0) {
			tmpl_set_int(it, "target", r->target);
			tmpl_set(it, "outcome", r->result >= r->target ?
			    "success" : "failure");
		}
		tmpl_set_int(it, "result", r->result);
	}
	sbuf_init(&tmp);
	g->rules->status(g, side, &tmp);
	tmpl_set(c, "status", tmp.buf ? tmp.buf : "");
	sbuf_free(&tmp);
	g->rules->render_map(g, side, &tmp);
	tmpl_set(c, "map", tmp.buf ? tmp.buf : "");
	sbuf_free(&tmp);
	if (g->status == GAME_FINISHED)
		tmpl_set(c, "result", g->result);
	if (next != NULL) {
		tmpl_set(c, "next", "yes");
		tmpl_set_int(c, "next_turn", next->spec.turn);
		tmpl_set(c, "next_window", next->spec.name);
		for (s = 0; s < g->nsides; s++)
			if (next->spec.sides & (1u << s))
				sbuf_printf(&tmp, "%s%s%s", tmp.len ? ", " : "",
				    g->sides[s].name, g->sides[s].ai ?
				    " (built-in opponent)" : "");
		tmpl_set(c, "next_sides", tmp.buf ? tmp.buf : "");
		sbuf_free(&tmp);
		if (side >= 0 && (next->spec.sides & (1u << side)) &&
		    !g->sides[side].ai) {
			char *t = turn_order_template(g, &next->spec, side);

			tmpl_set(c, "template", t);
			free(t);
		}
		hex_str(next->commitment, 32, hex);
		tmpl_set(c, "next_commitment", hex);
	}
	hex_str(w->seed, DICE_SEEDLEN, hex);
	tmpl_set(c, "seed", hex);
	hex_str(w->commitment, 32, hex);
	tmpl_set(c, "commitment", hex);
	if (tmpl_render(tpl, c, &out, err) != HP_OK) {
		sbuf_free(&out);
		tmpl_ctx_free(c);
		return NULL;
	}
	tmpl_ctx_free(c);
	return sbuf_steal(&out);
}

int
report_render(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct events *ev,
    const struct dice *d, struct hp_error *err)
{
	struct store_window next;
	bool have_next = false;
	char *tpl, *body;
	int rc, side;

	if (g->status != GAME_FINISHED) {
		if ((rc = store_window_current(st, cid, &next, err)) != HP_OK)
			return rc;
		have_next = true;
	}
	if ((tpl = report_template("report.txt", err)) == NULL)
		return err->code ? err->code : HP_EIO;
	for (side = -1; side < g->nsides; side++) {
		if ((body = render_side(tpl, g, w, have_next ? &next : NULL, ev,
		    d, side, err)) == NULL) {
			/* A broken template is the server's fault, not input. */
			err->code = HP_EINTERNAL;
			free(tpl);
			return HP_EINTERNAL;
		}
		rc = store_report_put(st, w->id, side, body, err);
		free(body);
		if (rc != HP_OK) {
			free(tpl);
			return rc;
		}
	}
	free(tpl);
	return HP_OK;
}

char *
report_render_text(const struct game *g, const struct store_window *w,
    const struct store_window *next, const struct events *ev,
    const struct dice *d, int side, struct hp_error *err)
{
	char *tpl, *body;

	if ((tpl = report_template("report.txt", err)) == NULL)
		return NULL;
	body = render_side(tpl, g, w, next, ev, d, side, err);
	free(tpl);
	return body;
}
