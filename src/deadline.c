/* deadline: the clock of order windows (see include/deadline.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deadline.h"
#include "mail.h"
#include "tmpl.h"
#include "turn.h"
#include "view.h"

#define DEADLINE_MAX_PLAYERS 64
#define DEADLINE_TIME_MAX 253402300799L   /* 9999-12-31T23:59:59Z */

static const char *policy_names[] = { "ai", "hold", "wait" };

const char *
deadline_strpolicy(enum deadline_policy p)
{
	return (unsigned)p < 3 ? policy_names[p] : "unknown";
}

int
deadline_parse_policy(const char *s, enum deadline_policy *p)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(s, policy_names[i]) == 0) {
			*p = (enum deadline_policy)i;
			return HP_OK;
		}
	return HP_EINVAL;
}

const char *
deadline_strstate(enum deadline_state s)
{
	static const char *names[] = { "none", "running", "remind", "due",
		"held", "paused" };

	return (unsigned)s < 6 ? names[s] : "unknown";
}

const char *
deadline_straction(enum deadline_action a)
{
	static const char *names[] = { "nothing", "reminded", "filled",
		"held" };

	return (unsigned)a < 4 ? names[a] : "unknown";
}

int
deadline_parse_time(const char *s, long *out)
{
	struct tm tm;
	char *end;
	long v;
	time_t t;

	if (*s >= '0' && *s <= '9' && strchr(s, '-') == NULL) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (*end != '\0' || errno == ERANGE || v < 0 ||
		    v > DEADLINE_TIME_MAX)
			return HP_EINVAL;
		*out = v;
		return HP_OK;
	}
	memset(&tm, 0, sizeof tm);
	if ((end = strptime(s, "%Y-%m-%dT%H:%M", &tm)) == NULL)
		return HP_EINVAL;
	if (*end == ':' && (end = strptime(end, ":%S", &tm)) == NULL)
		return HP_EINVAL;
	if (strcmp(end, "Z") != 0)
		return HP_EINVAL;
	if ((t = timegm(&tm)) == (time_t)-1 || t < 0 || t > DEADLINE_TIME_MAX)
		return HP_EINVAL;
	*out = (long)t;
	return HP_OK;
}

long
deadline_now(void)
{
	const char *e = getenv("HEXPOST_NOW");
	long t;

	if (e != NULL && *e != '\0' && deadline_parse_time(e, &t) == HP_OK)
		return t;
	return (long)time(NULL);
}

void
deadline_format(long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm) == 0)
		snprintf(buf, len, "%ld s", t);
}

int
deadline_settings_get(struct store *st, const struct config *cfg, int64_t cid,
    struct deadline_settings *ds, struct hp_error *err)
{
	struct store_settings s;
	int rc;

	memset(ds, 0, sizeof *ds);
	if (cfg != NULL) {
		ds->deadline_hours = cfg->deadline_hours;
		ds->remind_hours = cfg->remind_hours;
		deadline_parse_policy(cfg->missing, &ds->missing);
	}
	if ((rc = store_settings_get(st, cid, &s, err)) != HP_OK)
		return rc;
	if (s.deadline_hours >= 0)
		ds->deadline_hours = s.deadline_hours;
	if (s.remind_hours >= 0)
		ds->remind_hours = s.remind_hours;
	if (s.missing[0] != '\0')
		deadline_parse_policy(s.missing, &ds->missing);
	ds->paused = s.paused;
	ds->paused_at = s.paused_at;
	return HP_OK;
}

int
deadline_window_opened(struct store *st, int64_t wid, struct hp_error *err)
{
	struct store_clock c;

	memset(&c, 0, sizeof c);
	c.have = true;
	c.opened = deadline_now();
	return store_clock_put(st, wid, &c, err);
}

long
deadline_of(const struct deadline_settings *ds, const struct store_clock *c)
{
	long dl;

	if (c->fixed > 0)
		dl = c->fixed;
	else if (ds->deadline_hours > 0) {
		if (__builtin_mul_overflow(3600L, (long)ds->deadline_hours,
		    &dl) || __builtin_add_overflow(dl, c->opened, &dl))
			return LONG_MAX;
	} else
		return 0;
	/* Far enough is never: an overflow must not wrap into the past. */
	if (__builtin_add_overflow(dl, c->extended, &dl))
		return c->extended > 0 ? LONG_MAX : 1;
	return dl > 0 ? dl : 1;
}

enum deadline_state
deadline_state_at(const struct deadline_settings *ds,
    const struct store_clock *c, long now)
{
	long dl = deadline_of(ds, c);

	if (ds->paused)
		return DL_PAUSED;
	if (c->held)
		return DL_HELD;
	if (dl == 0)
		return DL_NONE;
	if (now >= dl)
		return DL_DUE;
	if (ds->remind_hours > 0 && now >= dl - 3600L * ds->remind_hours)
		return DL_REMIND;
	return DL_RUNNING;
}

/* A side's name list from a bit mask, ", "-separated. */
static void
side_list(const struct game *g, unsigned mask, struct sbuf *b)
{
	int i;
	size_t start = b->len;

	for (i = 0; i < g->nsides; i++)
		if (mask & (1u << i))
			sbuf_printf(b, "%s%s", b->len > start ? ", " : "",
			    g->sides[i].name);
	if (b->len == start)
		sbuf_puts(b, "nobody");
}

int
deadline_notice(struct store *st, const struct config *cfg, int64_t cid,
    const struct game *g, bool all, const char *id_seed, const char *subject,
    const char *text, struct hp_error *err)
{
	struct store_player p[DEADLINE_MAX_PLAYERS];
	struct tmpl_ctx *c;
	struct sbuf status;
	char seed[256], subj[300], *body;
	int n, i, rc = HP_OK, told = 0;

	if ((n = store_players_of(st, cid, p, DEADLINE_MAX_PLAYERS, err)) < 0)
		return n;
	if (n > DEADLINE_MAX_PLAYERS)
		n = DEADLINE_MAX_PLAYERS;
	sbuf_init(&status);
	sbuf_add(&status, "", 0);
	if ((rc = deadline_status(st, cfg, cid, g, deadline_now(), &status,
	    err)) != HP_OK)
		goto out;
	c = tmpl_ctx_new();
	tmpl_set(c, "campaign", g->name);
	tmpl_set(c, "text", text);
	tmpl_set(c, "status", status.buf);
	body = mail_render("notice.txt", c, err);
	tmpl_ctx_free(c);
	if (body == NULL) {
		rc = HP_EINTERNAL;
		goto out;
	}
	snprintf(subj, sizeof subj, "[hexpost] %s: %s", g->name, subject);
	for (i = 0; i < n && rc == HP_OK; i++) {
		if (!all && !p[i].moderator)
			continue;
		snprintf(seed, sizeof seed, "%s.%s.%s", g->name, id_seed,
		    p[i].name);
		rc = mail_queue_message(st, cfg, cid, "notice", p[i].email, seed,
		    subj, body, err);
		told++;
	}
	free(body);
	if (rc == HP_OK && told == 0)
		log_warn("%s: %s (and there is no moderator to tell)", g->name,
		    text);
out:
	sbuf_free(&status);
	return rc;
}

int
deadline_status(struct store *st, const struct config *cfg, int64_t cid,
    const struct game *g, long now, struct sbuf *b, struct hp_error *err)
{
	struct deadline_settings ds;
	struct store_window w;
	struct store_clock c;
	char when[64];
	unsigned missing;
	long dl;
	int rc;

	if ((rc = deadline_settings_get(st, cfg, cid, &ds, err)) != HP_OK)
		return rc;
	sbuf_printf(b, "Campaign %s (%s): %s%s%s.\n", g->name, g->rules->title,
	    g->status == GAME_FINISHED ? "finished" : ds.paused ? "paused by "
	    "the moderator" : "active", g->result[0] ? " -- " : "", g->result);
	if (g->status == GAME_FINISHED)
		return HP_OK;
	if ((rc = turn_pending(st, g->name, &w, &missing, err)) != HP_OK)
		return rc;
	if ((rc = store_clock_get(st, w.id, &c, err)) != HP_OK)
		return rc;
	sbuf_printf(b, "Open window: turn %d, '%s'. Orders due from: ",
	    w.spec.turn, w.spec.name);
	side_list(g, w.spec.sides, b);
	sbuf_puts(b, ".\nStill waiting for: ");
	side_list(g, missing, b);
	sbuf_puts(b, ".\n");
	if ((dl = deadline_of(&ds, &c)) > 0) {
		deadline_format(dl, when, sizeof when);
		sbuf_printf(b, "Deadline: %s%s.\n", when, now >= dl ?
		    " (passed)" : "");
	} else
		sbuf_puts(b, "Deadline: none.\n");
	sbuf_printf(b, "A side that sends nothing by the deadline: %s.\n",
	    ds.missing == DEADLINE_AI ? "the built-in opponent plays it" :
	    ds.missing == DEADLINE_HOLD ? "it holds" : "the moderator decides");
	if (c.held)
		sbuf_puts(b, "The window is waiting for the moderator.\n");
	return HP_OK;
}

/* Fill side's orders by policy: the fixed hold file (source
 * deadline-hold), or the built-in opponent's (deadline-ai), which is also
 * what "hold" does where the ruleset takes no hold file (a deployment).
 * The audit checks or regenerates both (docs/AUDIT.md, "Dice log"). */
static int
fill_side(struct store *st, const struct game *g, const struct store_window *w,
    int side, enum deadline_policy policy, struct sbuf *what,
    struct hp_error *err)
{
	struct turn_submit res;
	const char *source = "deadline-hold";
	char *text = NULL;
	int rc;

	if (policy != DEADLINE_AI)
		text = window_hold_orders(g, &w->spec, side);
	if (text == NULL) {
		text = window_opponent_orders(g, &w->spec, side);
		source = "deadline-ai";
	}
	turn_submit_init(&res);
	rc = turn_submit_tx(st, g->name, text, strlen(text), side, 0, source,
	    &res, err);
	turn_submit_free(&res);
	free(text);
	if (rc == HP_OK && what != NULL)
		sbuf_printf(what, "%s sent no orders: %s.\n", g->sides[side].name,
		    source[9] == 'a' ? "the built-in opponent played it" :
		    "it holds");
	else if (rc == HP_EINVAL) {
		hp_seterr(err, HP_EINTERNAL, "no order file for %s is accepted "
		    "in turn %d window '%s'", g->sides[side].name, w->spec.turn,
		    w->spec.name);
		rc = HP_EINTERNAL;
	}
	return rc;
}

int
deadline_fill(struct store *st, const struct game *g,
    const struct store_window *w, unsigned missing, enum deadline_policy p,
    struct sbuf *what, struct hp_error *err)
{
	int i, rc;

	for (i = 0; i < g->nsides; i++)
		if ((missing & (1u << i)) &&
		    (rc = fill_side(st, g, w, i, p, what, err)) != HP_OK)
			return rc;
	return HP_OK;
}

/* Queue one reminder to each player of a side in missing. */
static int
remind(struct store *st, const struct config *cfg, int64_t cid,
    const struct game *g, const struct store_window *w, unsigned missing,
    const struct deadline_settings *ds, long dl, long now,
    struct hp_error *err)
{
	struct store_player p[DEADLINE_MAX_PLAYERS];
	char when[64], seed[300], subj[300], *body, *t;
	struct tmpl_ctx *c;
	int n, i, rc = HP_OK;

	if ((n = store_players_of(st, cid, p, DEADLINE_MAX_PLAYERS, err)) < 0)
		return n;
	if (n > DEADLINE_MAX_PLAYERS)
		n = DEADLINE_MAX_PLAYERS;
	deadline_format(dl, when, sizeof when);
	for (i = 0; i < n && rc == HP_OK; i++) {
		if (!(missing & (1u << p[i].side)))
			continue;
		c = tmpl_ctx_new();
		tmpl_set(c, "campaign", g->name);
		tmpl_set_int(c, "turn", w->spec.turn);
		tmpl_set(c, "window", w->spec.name);
		tmpl_set(c, "side", g->sides[p[i].side].name);
		tmpl_set(c, "deadline", when);
		tmpl_set_int(c, "hours", (int)((dl - now + 3599) / 3600));
		tmpl_set(c, "policy", ds->missing == DEADLINE_AI ? "the "
		    "built-in opponent plays your side" : ds->missing ==
		    DEADLINE_HOLD ? "your side holds (does nothing)" :
		    "the moderator decides");
		t = view_order_template(g, &w->spec, p[i].side);
		tmpl_set(c, "template", t);
		free(t);
		body = mail_render("reminder.txt", c, err);
		tmpl_ctx_free(c);
		if (body == NULL)
			return HP_EINTERNAL;
		snprintf(seed, sizeof seed, "%s.t%d.w%d.%s.%ld", g->name,
		    w->spec.turn, w->spec.number, p[i].name, dl);
		snprintf(subj, sizeof subj, "[hexpost] %s: orders for turn %d '%s' due %s",
		    g->name, w->spec.turn, w->spec.name, when);
		rc = mail_queue_message(st, cfg, cid, "reminder", p[i].email,
		    seed, subj, body, err);
		free(body);
	}
	return rc;
}

/* Number of bits set in v. */
static int
popcount(unsigned v)
{
	int n = 0;

	for (; v != 0; v &= v - 1)
		n++;
	return n;
}

bool
deadline_most_missed(unsigned human, unsigned missing)
{
	int h = popcount(human);

	return h >= 2 && 2 * popcount(missing & human) > h;
}

/* The deadline step inside the transaction deadline_check holds. */
static int
check_tx(struct store *st, const struct config *cfg, const char *campaign,
    long now, enum deadline_action *what, struct hp_error *err)
{
	struct deadline_settings ds;
	struct store_window w;
	struct store_clock c;
	struct game g;
	struct sbuf text;
	char seed[128];
	unsigned missing, human = 0;
	int64_t cid;
	long dl;
	int rc, i;

	game_init(&g);
	sbuf_init(&text);
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK ||
	    g.status == GAME_FINISHED)
		goto out;
	if ((rc = deadline_settings_get(st, cfg, cid, &ds, err)) != HP_OK ||
	    ds.paused)
		goto out;
	if ((rc = turn_pending(st, campaign, &w, &missing, err)) != HP_OK)
		goto out;
	if ((rc = store_clock_get(st, w.id, &c, err)) != HP_OK)
		goto out;
	if (!c.have) {
		/* Opened before deadlines existed: its clock starts now. */
		c.have = true;
		c.opened = now;
		if ((rc = store_clock_put(st, w.id, &c, err)) != HP_OK)
			goto out;
	}
	if (missing == 0)
		goto out;
	switch (deadline_state_at(&ds, &c, now)) {
	case DL_REMIND:
		if (c.reminded)
			break;
		dl = deadline_of(&ds, &c);
		if ((rc = remind(st, cfg, cid, &g, &w, missing, &ds, dl, now,
		    err)) != HP_OK)
			goto out;
		c.reminded = true;
		rc = store_clock_put(st, w.id, &c, err);
		*what = DA_REMINDED;
		break;
	case DL_DUE:
		if (ds.remind_hours > 0 && !c.reminded) {
			/* The deadline passed before its reminder went out:
			 * hexpost's clock jumped past it (set right after
			 * running days behind) or hexpost was not running.
			 * Players were promised a reminder remind_hours
			 * ahead, so they get it now and the deadline moves
			 * to remind_hours from now (no more than the
			 * window's own deadline_hours; issue 21, item 7). */
			int grace = ds.deadline_hours > 0 && ds.deadline_hours <
			    ds.remind_hours ? ds.deadline_hours :
			    ds.remind_hours;
			long want = now + 3600L * grace;

			dl = deadline_of(&ds, &c);
			if (dl < want && !__builtin_add_overflow(c.extended,
			    want - dl, &c.extended))
				dl = deadline_of(&ds, &c);
			if ((rc = remind(st, cfg, cid, &g, &w, missing, &ds, dl,
			    now, err)) != HP_OK)
				goto out;
			c.reminded = true;
			rc = store_clock_put(st, w.id, &c, err);
			*what = DA_REMINDED;
			log_warn("%s: the deadline of turn %d window '%s' passed "
			    "before its reminder went out (the clock jumped, or "
			    "hexpost was not running): reminded now, deadline "
			    "moved to %d hours from now", g.name, w.spec.turn,
			    w.spec.name, grace);
			break;
		}
		for (i = 0; i < g.nsides; i++)
			if ((w.spec.sides & (1u << i)) && !g.sides[i].ai)
				human |= 1u << i;
		snprintf(seed, sizeof seed, "t%d.w%d.%ld", w.spec.turn,
		    w.spec.number, deadline_of(&ds, &c));
		if (deadline_most_missed(human, missing) ||
		    ds.missing == DEADLINE_WAIT) {
			c.held = true;
			if ((rc = store_clock_put(st, w.id, &c, err)) != HP_OK)
				goto out;
			sbuf_printf(&text, "The deadline of turn %d window '%s' "
			    "has passed and orders are missing from ",
			    w.spec.turn, w.spec.name);
			side_list(&g, missing, &text);
			sbuf_puts(&text, ds.missing == DEADLINE_WAIT ? ".\nThe "
			    "campaign's policy is to wait for you." : ".\nMost "
			    "players missed it: perhaps their mail did not reach "
			    "hexpost. The turn is not resolved.");
			sbuf_puts(&text, "\nSend 'extend HOURS' to give more "
			    "time, or 'proceed ai' / 'proceed hold' to go on "
			    "without them.");
			rc = deadline_notice(st, cfg, cid, &g, false, seed,
			    "a window waits for you", text.buf, err);
			*what = DA_HELD;
			log_warn("%s: turn %d window '%s' waits for the "
			    "moderator", g.name, w.spec.turn, w.spec.name);
			break;
		}
		rc = deadline_fill(st, &g, &w, missing, ds.missing, &text, err);
		*what = DA_FILLED;
		if (rc == HP_OK)
			log_info("%s: deadline of turn %d window '%s': %s",
			    g.name, w.spec.turn, w.spec.name, text.buf);
		break;
	default:
		break;
	}
out:
	sbuf_free(&text);
	game_free(&g);
	return rc;
}

int
deadline_check(struct store *st, const struct config *cfg,
    const char *campaign, long now, enum deadline_action *what,
    struct hp_error *err)
{
	int rc;

	*what = DA_NOTHING;
	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	if ((rc = check_tx(st, cfg, campaign, now, what, err)) != HP_OK) {
		store_rollback(st);
		*what = DA_NOTHING;
		return rc;
	}
	return store_commit(st, err);
}

int
deadline_wake_next(struct store *st, const struct config *cfg,
    const char *campaign, int64_t cid, long now, long long *wake,
    struct hp_error *err)
{
	struct store_order cur[GAME_MAX_SIDES];
	struct deadline_settings ds;
	struct store_quarantine q;
	struct store_window w;
	struct store_clock c;
	struct game g;
	long dl;
	int rc, i;
	bool missing = false;

	(void)now;
	*wake = DEADLINE_WAKE_NEVER;
	game_init(&g);
	if ((rc = store_game_load(st, campaign, &g, NULL, err)) != HP_OK ||
	    g.status != GAME_ACTIVE)
		goto out;
	if ((rc = deadline_settings_get(st, cfg, cid, &ds, err)) != HP_OK ||
	    ds.paused)
		goto out;
	if ((rc = store_quarantine_get(st, campaign, &q, err)) != HP_OK ||
	    q.on)
		goto out;
	if ((rc = store_window_current(st, cid, &w, err)) != HP_OK)
		goto out;
	if ((rc = store_orders_current(st, w.id, cur, err)) != HP_OK)
		goto out;
	for (i = 0; i < g.nsides; i++)
		if ((w.spec.sides & (1u << i)) && !g.sides[i].ai &&
		    cur[i].raw == NULL)
			missing = true;
	store_orders_free(cur);
	if (!missing) {
		*wake = 0;      /* ready to resolve */
		goto out;
	}
	if ((rc = store_clock_get(st, w.id, &c, err)) != HP_OK)
		goto out;
	if (!c.have) {
		*wake = 0;      /* its clock starts at the next look */
		goto out;
	}
	if (c.held || (dl = deadline_of(&ds, &c)) == 0)
		goto out;       /* only a change wakes it */
	if (ds.remind_hours > 0 && !c.reminded)
		dl = dl - 3600L * ds.remind_hours < dl ? dl - 3600L *
		    ds.remind_hours : dl;
	*wake = dl < 0 ? 0 : (long long)dl;
out:
	game_free(&g);
	return rc;
}

int
deadline_wake_update(struct store *st, const struct config *cfg,
    const char *campaign, int64_t cid, long now, long long *wake,
    struct hp_error *err)
{
	int rc;

	if ((rc = deadline_wake_next(st, cfg, campaign, cid, now, wake,
	    err)) != HP_OK)
		return rc;
	return store_wake_set(st, cid, *wake, err);
}

int
deadline_wake_config(struct store *st, const struct config *cfg, bool *reset,
    struct hp_error *err)
{
	char fp[128];

	snprintf(fp, sizeof fp, "deadline_hours=%d remind_hours=%d missing=%s",
	    cfg->deadline_hours, cfg->remind_hours, cfg->missing);
	return store_wake_config(st, fp, reset, err);
}
