/* window: the pure helpers of an order window (see include/window.h),
 * moved out of turn.c and audit.c so that the audit, the deadline policy,
 * mail, reports and the simulator use them without the lifecycle. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "window.h"

/* An order file's hash as it enters the dice key (window.h). */
void
window_order_hash(const char *raw, unsigned char *out)
{
	crypto_generichash(out, 32, (const unsigned char *)raw, strlen(raw),
	    NULL, 0);
}

/* Append side's order header for window w (window.h). */
void
window_order_header(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	char num[24];
	char line[sizeof g->name + sizeof w->name + sizeof g->sides[0].name +
	    sizeof num + 64];
	const char *parts[9];
	int turn = w->turn, k = (int)sizeof num, i;
	unsigned u = turn < 0 ? 0u - (unsigned)turn : (unsigned)turn;
	size_t len = 0, n;

	/* As "campaign: %s\nturn: %d\nwindow: %s\nside: %s\n", without
	 * printf (every simulated window writes one per side): assembled
	 * here, every part a bounded array, and added at once. */
	num[--k] = '\0';
	do {
		num[--k] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (turn < 0)
		num[--k] = '-';
	parts[0] = "campaign: ";
	parts[1] = g->name;
	parts[2] = "\nturn: ";
	parts[3] = num + k;
	parts[4] = "\nwindow: ";
	parts[5] = w->name;
	parts[6] = "\nside: ";
	parts[7] = g->sides[side].name;
	parts[8] = "\n";
	for (i = 0; i < 9; i++) {
		n = strlen(parts[i]);
		if (len + n > sizeof line)
			n = sizeof line - len;
		memcpy(line + len, parts[i], n);
		len += n;
	}
	sbuf_add(b, line, len);
}

/* The order file side fills in for w; caller frees (window.h). */
char *
window_order_template(const struct game *g, const struct window_spec *w,
    int side)
{
	struct sbuf b;

	sbuf_init(&b);
	window_order_header(g, w, side, &b);
	sbuf_puts(&b, "nonce:\n\n");
	g->rules->order_template(g, w, side, &b);
	return sbuf_steal(&b);
}

/* The built-in opponent's order file; caller frees (window.h). */
char *
window_opponent_orders(const struct game *g, const struct window_spec *w,
    int side)
{
	struct sbuf b;

	sbuf_init(&b);
	window_order_header(g, w, side, &b);
	g->rules->opponent(g, w, side, &b);
	return sbuf_steal(&b);
}

/* Parse an order file already accepted for window w (standing orders if
 * its header says so). *parsed is the ruleset's form (free_orders), canon
 * (may be NULL) gets the normalised text. A failure here means stored or
 * generated orders no longer parse: a broken invariant, HP_EINTERNAL. */
int
window_parse_stored(const struct game *g, const struct window_spec *w, int side,
    const char *raw, void **parsed, struct sbuf *canon, struct hp_error *err)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	struct window_spec spec = *w;
	struct sbuf tmp;
	int rc = HP_OK;

	*parsed = NULL;
	orders_errors_init(&errs);
	sbuf_init(&tmp);
	tmp.discard = true;  /* the normalised text nobody asked for */
	if (orders_parse_file(raw, strlen(raw), &h, &body, &errs) == HP_OK) {
		if (strcasecmp(h.window, "standing") == 0)
			strlcpy_(spec.name, "standing", sizeof spec.name);
		if (g->rules->parse(g, &spec, side, &body, parsed,
		    canon ? canon : &tmp, &errs) != HP_OK && errs.n == 0)
			orders_error(&errs, 0, "rejected");
		orders_body_free(&body);
	}
	if (errs.n > 0) {
		char *t = orders_errors_text(&errs);

		hp_seterr(err, HP_EINTERNAL, "orders of %s for turn %d window "
		    "'%s' do not parse: %s", g->sides[side].name, w->turn,
		    w->name, t);
		free(t);
		if (*parsed != NULL)
			g->rules->free_orders(*parsed);
		*parsed = NULL;
		rc = HP_EINTERNAL;
	}
	orders_errors_free(&errs);
	sbuf_free(&tmp);
	return rc;
}

/* Parse every file of raw (may be NULL) for window w into out. */
static int
parse_all(const struct game *g, const struct window_spec *w,
    const char *const *raw, void *out[GAME_MAX_SIDES], struct hp_error *err)
{
	int i, rc;

	if (raw == NULL)
		return HP_OK;
	for (i = 0; i < g->nsides; i++)
		if (raw[i] != NULL && (rc = window_parse_stored(g, w, i, raw[i],
		    &out[i], NULL, err)) != HP_OK)
			return rc;
	return HP_OK;
}

int
window_resolve_resume(struct game *g, const struct window_spec *w,
    const char *const raw[GAME_MAX_SIDES],
    const char *const standing[GAME_MAX_SIDES], const struct window_resume *res,
    struct window_stop *stop, struct dice *d, struct events *ev,
    struct hp_error *err)
{
	void *orders[GAME_MAX_SIDES] = { 0 };
	int i, rc;

	if ((rc = parse_all(g, w, raw, orders, err)) != HP_OK) {
		for (i = 0; i < GAME_MAX_SIDES; i++)
			if (orders[i] != NULL)
				g->rules->free_orders(orders[i]);
		if (stop != NULL) {
			stop->step = -1;
			stop->ask = 0;
		}
		return rc;
	}
	return window_resolve_parsed(g, w, orders, standing, res, stop, d, ev,
	    err);
}

/* The last resolution's number (resolve_ctx.serial). */
static unsigned long resolve_serial;

int
window_resolve_parsed(struct game *g, const struct window_spec *w,
    void *orders[GAME_MAX_SIDES], const char *const standing[GAME_MAX_SIDES],
    const struct window_resume *res, struct window_stop *stop, struct dice *d,
    struct events *ev, struct hp_error *err)
{
	struct resolve_ctx ctx;
	struct window_spec sw;
	enum resolve_rc rrc;
	int i, rc = HP_OK;

	memset(&ctx, 0, sizeof ctx);
	for (i = 0; i < GAME_MAX_SIDES; i++) {
		ctx.orders[i] = orders[i];
		orders[i] = NULL;
	}
	ctx.serial = __atomic_add_fetch(&resolve_serial, 1, __ATOMIC_RELAXED);
	if (stop != NULL) {
		stop->step = -1;
		stop->ask = 0;
	}
	ctx.g = g;
	ctx.w = w;
	ctx.dice = d;
	ctx.ev = ev;
	ctx.err = err;
	memset(&sw, 0, sizeof sw);
	strlcpy_(sw.name, "standing", sizeof sw.name);
	sw.turn = w->turn;
	if ((rc = parse_all(g, &sw, standing, ctx.standing, err)) != HP_OK ||
	    (res != NULL && (rc = parse_all(g, &res->w, res->prior, ctx.prior,
	    err)) != HP_OK))
		goto out;
	ctx.step = 0;
	if (res != NULL) {
		ctx.resumed = true;
		ctx.step = res->step + 1;
	}
	for (;; ctx.step++) {
		ev->step = ctx.step;
		rrc = g->rules->resolve(&ctx);
		if (game_error(g) != NULL) {
			hp_seterr(err, HP_ESTATE, "%s", game_error(g));
			rc = HP_ESTATE;
			goto out;
		}
		if (rrc == RESOLVE_DONE)
			break;
		if (rrc == RESOLVE_ASK) {
			if (ctx.ask == 0 || ctx.ask >= (1u << g->nsides)) {
				hp_seterr(err, HP_EINTERNAL, "turn %d window "
				    "'%s' stopped to ask, but names no side to "
				    "ask", w->turn, w->name);
				rc = HP_EINTERNAL;
				goto out;
			}
			if (stop != NULL) {
				stop->step = ctx.step;
				stop->ask = ctx.ask;
			}
			goto out;  /* not over: no victory yet */
		}
		if (rrc == RESOLVE_ERROR) {
			rc = HP_EINTERNAL;
			goto out;
		}
		if (ctx.step > 1000) {
			hp_seterr(err, HP_EINTERNAL, "resolution did not end");
			rc = HP_EINTERNAL;
			goto out;
		}
	}
	g->rules->victory(g, ev);
out:
	for (i = 0; i < GAME_MAX_SIDES; i++) {
		if (ctx.orders[i] != NULL)
			g->rules->free_orders(ctx.orders[i]);
		if (ctx.standing[i] != NULL)
			g->rules->free_orders(ctx.standing[i]);
		if (ctx.prior[i] != NULL)
			g->rules->free_orders(ctx.prior[i]);
	}
	return rc;
}

int
window_resolve(struct game *g, const struct window_spec *w,
    const char *const raw[GAME_MAX_SIDES], struct dice *d, struct events *ev,
    struct hp_error *err)
{
	return window_resolve_resume(g, w, raw, NULL, NULL, NULL, d, ev,
	    err);
}

const struct window_resume *
window_chain_resume(const struct window_chain *c)
{
	return c->resuming ? &c->res : NULL;
}

void
window_chain_after(struct window_chain *c, const struct window_spec *w,
    char *raw[GAME_MAX_SIDES], int stopstep)
{
	int s;

	if (stopstep >= 0) {
		if (!c->resuming) {
			c->res.w = *w;
			for (s = 0; s < GAME_MAX_SIDES; s++) {
				c->prior[s] = raw[s];
				raw[s] = NULL;
				c->res.prior[s] = c->prior[s];
			}
		}
		c->res.step = stopstep;
		c->resuming = true;
	} else if (c->resuming)
		window_chain_free(c);
}

void
window_chain_free(struct window_chain *c)
{
	int s;

	c->resuming = false;
	for (s = 0; s < GAME_MAX_SIDES; s++) {
		free(c->prior[s]);
		c->prior[s] = NULL;
		c->res.prior[s] = NULL;
	}
}

int
window_advance(struct game *g, const struct window_stop *stop,
    struct window_spec *next, bool *more, struct hp_error *err)
{
	bool asked = stop != NULL && stop->step >= 0;

	*more = false;
	if (g->status != GAME_FINISHED && g->rules->next_window(g, next)) {
		if (asked && (next->kind != WINDOW_DECISION ||
		    next->sides != stop->ask)) {
			hp_seterr(err, HP_EINTERNAL, "the resolution stopped to "
			    "ask sides %#x, but the ruleset opens turn %d window "
			    "'%s' for sides %#x, not a decision window for "
			    "them", stop->ask, next->turn, next->name,
			    next->sides);
			return HP_EINTERNAL;
		}
		g->turn = next->turn;
		g->window = next->number;
		*more = true;
	} else if (asked) {
		hp_seterr(err, HP_EINTERNAL, "the resolution stopped to ask, "
		    "but the ruleset opens no decision window");
		return HP_EINTERNAL;
	} else if (g->status != GAME_FINISHED) {
		g->status = GAME_FINISHED;
		if (g->result[0] == '\0')
			strlcpy_(g->result, "the game ended", sizeof g->result);
	}
	return HP_OK;
}

/* The "hold" policy's order file, or NULL; caller frees (window.h). */
char *
window_hold_orders(const struct game *g, const struct window_spec *w, int side)
{
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		struct order_header h;
		struct order_body body = { NULL, 0 };
		struct order_errors errs;
		struct sbuf text, canon;
		void *parsed = NULL;
		bool ok = false;

		sbuf_init(&text);
		sbuf_init(&canon);
		orders_errors_init(&errs);
		window_order_header(g, w, side, &text);
		sbuf_puts(&text, attempt == 0 ? "" : "hold\n");
		if (orders_parse_file(text.buf, text.len, &h, &body, &errs) ==
		    HP_OK) {
			ok = g->rules->parse(g, w, side, &body, &parsed, &canon,
			    &errs) == HP_OK && errs.n == 0;
			if (parsed != NULL)
				g->rules->free_orders(parsed);
			orders_body_free(&body);
		}
		orders_errors_free(&errs);
		sbuf_free(&canon);
		if (ok)
			return sbuf_steal(&text);
		sbuf_free(&text);
	}
	return NULL;
}

/* The result of a moderator's "end ARG" into buf (window.h). */
void
window_end_result(const char *arg, char *buf, size_t len)
{
	snprintf(buf, len, "ended by the moderator%s%.80s", arg[0] ? ": " : "",
	    arg);
}
