/* report: turn reports from templates (see include/report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "embedded.h"
#include "modstmt.h"
#include "report.h"
#include "tmpl.h"
#include "window.h"
#include "sealed.h"
#include "view.h"

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

/* The fields of roll r in a template list item. */
static void
report_roll(struct tmpl_ctx *it, const struct dice_roll *r)
{
	tmpl_set_int(it, "sides", r->sides);
	tmpl_set(it, "purpose", r->purpose);
	if (r->target > 0) {
		tmpl_set_int(it, "target", r->target);
		tmpl_set(it, "outcome", r->result >= r->target ?
		    "success" : "failure");
	}
	tmpl_set_int(it, "result", r->result);
}

/* The sealed-dice lines of a report (docs/AUDIT.md, "Sealed dice"): for
 * each visibility set side belongs to (the moderator: every set) its seed
 * and this window's key, so that side checks each sealed roll it is shown
 * at once. Nothing when the campaign has no sealed stream. */
static void
report_sealed(struct tmpl_ctx *c, const struct game *g, const struct dice *d,
    int side)
{
	unsigned char skey[DICE_KEYLEN];
	char hex[2 * 32 + 1];
	struct tmpl_ctx *it;
	struct sbuf b;
	unsigned m;

	for (m = 1; m < DICE_SEALED_SETS; m++) {
		if (!(d->sealed_on & (1u << m)) ||
		    (side >= 0 && !(m & (1u << side))))
			continue;
		it = tmpl_list_add(c, "sealed_sets");
		sbuf_init(&b);
		sealed_set_sides(g, m, &b);
		tmpl_set(it, "set", b.buf ? b.buf : "");
		sbuf_free(&b);
		hex_str(d->sealed_seed[m], 32, hex);
		tmpl_set(it, "set_seed", hex);
		dice_sealed_key(d->sealed_seed[m], d->key, skey);
		hex_str(skey, DICE_KEYLEN, hex);
		tmpl_set(it, "set_key", hex);
	}
	sodium_memzero(skey, sizeof skey);
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

		if (!view_event(e, side))
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

		if (!view_roll(ev, r, side))
			continue;
		it = tmpl_list_add(c, "rolls");
		tmpl_set_int(it, "seq", r->seq);
		report_roll(it, r);
	}
	for (i = 0; i < d->nslog; i++) {
		const struct dice_roll *r = &d->slog[i];
		char label[96];

		if (!view_roll(ev, r, side))
			continue;
		it = tmpl_list_add(c, "rolls");
		view_sealed_label(g, r, label, sizeof label);
		tmpl_set(it, "seq", label);
		report_roll(it, r);
	}
	report_sealed(c, g, d, side);
	sbuf_init(&tmp);
	view_status(g, side, &tmp);
	tmpl_set(c, "status", tmp.buf ? tmp.buf : "");
	sbuf_free(&tmp);
	view_map(g, side, &tmp);
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
			char *t = view_order_template(g, &next->spec, side);

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
report_files(const struct game *g, const struct dicelog *l, int side,
    int stmt, struct sbuf *out, struct hp_error *err)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;
	char hex[65], how[200], *tpl;
	bool first = true;
	int i, rc;

	for (i = 0; i < l->norders; i++) {
		const struct dicelog_order *o = &l->orders[i];
		const char *src = o->source;

		if (side >= 0 && strcmp(o->side, g->sides[side].name) != 0)
			continue;
		it = tmpl_list_add(c, "files");
		if (first)
			tmpl_set(it, "first", "yes");
		first = false;
		tmpl_set(it, "side", o->side);
		hex_str(o->hash, 32, hex);
		tmpl_set(it, "hash", hex);
		if (strncmp(src, "deadline-", 9) == 0 && stmt > 0)
			snprintf(how, sizeof how, "filled by the moderator's signed "
			    "statement %d ('proceed'): %s", stmt, strcmp(src,
			    "deadline-ai") == 0 ? "the built-in opponent's "
			    "orders" : "the hold file");
		else if (strncmp(src, "deadline-", 9) == 0)
			snprintf(how, sizeof how, "no file came in time: filled at "
			    "the deadline or by the moderator's 'proceed' with %s",
			    strcmp(src, "deadline-ai") == 0 ? "the built-in "
			    "opponent's orders" : "the hold file");
		else
			snprintf(how, sizeof how, "%s", strcmp(src, "mail") == 0 ?
			    "the signed file sent by mail" : strcmp(src, "cli") ==
			    0 ? "entered on the command line" : strcmp(src,
			    "opponent") == 0 ? "written by the built-in opponent" :
			    "standing orders");
		tmpl_set(it, "how", how);
	}
	/* Then the standing orders in force when the window opened of the
	 * sides it names (the log's standing lines): the player sees which
	 * of their standing files counted (docs/AUDIT.md, "Standing orders'
	 * sequence"). */
	for (i = 0; i < l->nstanding; i++) {
		const struct dicelog_order *o = &l->standing[i];

		if (side >= 0 && strcmp(o->side, g->sides[side].name) != 0)
			continue;
		it = tmpl_list_add(c, "files");
		if (first)
			tmpl_set(it, "first", "yes");
		first = false;
		tmpl_set(it, "side", o->side);
		hex_str(o->hash, 32, hex);
		tmpl_set(it, "hash", hex);
		tmpl_set(it, "how", "standing orders, in force when the window "
		    "opened");
	}
	/* A $HEXPOST_TEMPLATES directory without this file (made before
	 * it existed) gets the built-in one. */
	if ((tpl = report_template("report-files.txt", err)) == NULL) {
		const struct embedded_file *f =
		    embedded_find("templates/report-files.txt");

		if (f == NULL) {
			tmpl_ctx_free(c);
			return HP_EINTERNAL;
		}
		tpl = xstrdup(f->data);
	}
	rc = tmpl_render(tpl, c, out, err);
	free(tpl);
	tmpl_ctx_free(c);
	return rc;
}

/* Append the order files window w used (its stored dice log) to *body,
 * as side sees them (report_files). */
static int
files_of(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, int side, char **body, struct hp_error *err)
{
	struct store_modstmt *ms = NULL;
	struct dicelog l;
	struct sbuf b;
	char *text = NULL, *sig = NULL, *pub = NULL;
	int rc, i, n = 0, stmt = 0;

	dicelog_init(&l);
	sbuf_init(&b);
	rc = store_dicelog_get(st, w->id, &text, &sig, &pub, err);
	if (rc == HP_ENOENT) {	/* no log (tests without one): no files */
		rc = HP_OK;
		goto out;
	}
	if (rc != HP_OK || (rc = dicelog_parse(text, &l, err)) != HP_OK ||
	    (rc = store_modstmt_all(st, cid, &ms, &n, err)) != HP_OK)
		goto out;
	for (i = 0; i < n && stmt == 0; i++)
		stmt = modstmt_proceed_in(ms[i].statement, w->spec.turn,
		    w->spec.number);
	sbuf_puts(&b, *body);
	if ((rc = report_files(g, &l, side, stmt, &b, err)) != HP_OK)
		goto out;
	free(*body);
	*body = sbuf_steal(&b);
out:
	store_modstmt_free(ms, n);
	sbuf_free(&b);
	dicelog_free(&l);
	free(text);
	free(sig);
	free(pub);
	return rc;
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
		if ((rc = files_of(st, cid, g, w, side, &body, err)) == HP_OK)
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
