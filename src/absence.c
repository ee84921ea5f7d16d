/* absence: players away, missed windows, players' extensions (see
 * include/absence.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "absence.h"
#include "deadline.h"
#include "mail.h"
#include "turn.h"

#define DAY 86400L

/* The configuration the observers address notices with (absence_configure;
 * NULL: notices are only logged). */
static const struct config *club_cfg;

/* Set the configuration the observers mail with (absence.h). */
void
absence_configure(const struct config *cfg)
{
	club_cfg = cfg;
}

/* One integer column of the first row of sql into *out; *found says if
 * there was a row. */
static int
q_int(struct store *st, const char *what, const char *sql,
    const struct store_arg *args, long *out, bool *found,
    struct hp_error *err)
{
	struct store_query q;

	*found = false;
	if (store_query_open(&q, st, what, sql, args, err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		*found = true;
		*out = (long)sqlite3_column_int64(q.s, 0);
	}
	return store_query_close(&q, err);
}

/* Read the campaign's club settings (absence.h). */
int
absence_settings_get(struct store *st, int64_t cid, struct absence_settings *s,
    struct hp_error *err)
{
	struct store_query q;

	s->max_days = ABSENCE_MAX_DAYS;
	s->missed_limit = ABSENCE_MISSED_LIMIT;
	s->missed_ai = false;
	s->extensions = ABSENCE_EXTENSIONS;
	s->extension_hours = ABSENCE_EXTENSION_HOURS;
	if (store_query_open(&q, st, "club settings", "SELECT "
	    "absence_max_days, missed_limit, missed_policy, extensions, "
	    "extension_hours FROM club_settings WHERE campaign_id = ?1",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		if (sqlite3_column_type(q.s, 0) != SQLITE_NULL)
			s->max_days = sqlite3_column_int(q.s, 0);
		if (sqlite3_column_type(q.s, 1) != SQLITE_NULL)
			s->missed_limit = sqlite3_column_int(q.s, 1);
		if (sqlite3_column_type(q.s, 2) != SQLITE_NULL)
			s->missed_ai = strcmp((const char *)
			    sqlite3_column_text(q.s, 2), "ai") == 0;
		if (sqlite3_column_type(q.s, 3) != SQLITE_NULL)
			s->extensions = sqlite3_column_int(q.s, 3);
		if (sqlite3_column_type(q.s, 4) != SQLITE_NULL)
			s->extension_hours = sqlite3_column_int(q.s, 4);
	}
	return store_query_close(&q, err);
}

/* Parse a whole number in [lo, hi]. */
static bool
num(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s == '\0' || !isdigit((unsigned char)*s))
		return false;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Write one club setting (absence.h). */
int
absence_setting_set(struct store *st, int64_t cid, const char *key,
    const char *val, struct hp_error *err)
{
	/* Literal statements: the store caches them by address. */
	static const struct {
		const char *key;
		long lo, hi;
		const char *sql;
	} keys[] = {
		{ "absence_max_days", 1, 3650, "UPDATE club_settings SET "
		    "absence_max_days = ?2 WHERE campaign_id = ?1" },
		{ "missed_limit", 0, 1000, "UPDATE club_settings SET "
		    "missed_limit = ?2 WHERE campaign_id = ?1" },
		{ "missed_policy", 0, 0, "UPDATE club_settings SET "
		    "missed_policy = ?2 WHERE campaign_id = ?1" },
		{ "extensions", 0, 1000, "UPDATE club_settings SET "
		    "extensions = ?2 WHERE campaign_id = ?1" },
		{ "extension_hours", 1, 10000, "UPDATE club_settings SET "
		    "extension_hours = ?2 WHERE campaign_id = ?1" },
	};
	size_t i;
	long v = 0;
	bool text = false;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(key, keys[i].key) == 0)
			break;
	if (i == sizeof keys / sizeof keys[0])
		return HP_ENOENT;
	if (strcmp(key, "missed_policy") == 0) {
		if (strcmp(val, "tell") != 0 && strcmp(val, "ai") != 0) {
			hp_seterr(err, HP_EINVAL, "missed_policy is 'tell' (the "
			    "moderator is told) or 'ai' (and the built-in "
			    "opponent takes the seat)");
			return HP_EINVAL;
		}
		text = true;
	} else if (!num(val, keys[i].lo, keys[i].hi, &v)) {
		hp_seterr(err, HP_EINVAL, "%s takes a number from %ld to %ld",
		    key, keys[i].lo, keys[i].hi);
		return HP_EINVAL;
	}
	if (store_exec(st, "club settings", "INSERT OR IGNORE INTO "
	    "club_settings (campaign_id) VALUES (?1)",
	    STORE_ARGS(STORE_INT(cid)), NULL, err) != HP_OK)
		return HP_EDB;
	return store_exec(st, "club settings", keys[i].sql, text ?
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(val)) :
	    STORE_ARGS(STORE_INT(cid), STORE_INT(v)), NULL, err);
}

/* Parse a vacation's end (absence.h). */
int
absence_parse_until(const char *s, long *out)
{
	char buf[40], back[40];
	time_t t;
	struct tm tm;

	if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
		snprintf(buf, sizeof buf, "%sT23:59:59Z", s);
		if (deadline_parse_time(buf, out) != HP_OK)
			return HP_EINVAL;
		/* No 30 February: the date must be the one it names. */
		t = (time_t)*out;
		if (gmtime_r(&t, &tm) == NULL || strftime(back, sizeof back,
		    "%Y-%m-%d", &tm) == 0 || strcmp(back, s) != 0)
			return HP_EINVAL;
		(*out)++;    /* through that day: until its end */
		return HP_OK;
	}
	return deadline_parse_time(s, out);
}

/* The active player of side (the first added): *pid (0 if none) and name. */
static int
side_player(struct store *st, int64_t cid, int side, int64_t *pid,
    char *name, size_t len, struct hp_error *err)
{
	struct store_query q;

	*pid = 0;
	if (name != NULL)
		name[0] = '\0';
	if (store_query_open(&q, st, "side's player", "SELECT id, name FROM "
	    "players WHERE campaign_id = ?1 AND side_idx = ?2 AND active = 1 "
	    "ORDER BY id LIMIT 1", STORE_ARGS(STORE_INT(cid), STORE_INT(side)),
	    err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		*pid = sqlite3_column_int64(q.s, 0);
		if (name != NULL)
			strlcpy_(name, (const char *)sqlite3_column_text(q.s, 1),
			    len);
	}
	return store_query_close(&q, err);
}

/* An absence in force. */
struct absence {
	int64_t id;
	char kind[16];
	char policy[16];
	long until;       /* 0: open-ended */
};

/* The absence of player pid in force at now: *found. */
static int
absence_in_force(struct store *st, int64_t pid, long now, struct absence *a,
    bool *found, struct hp_error *err)
{
	struct store_query q;

	*found = false;
	memset(a, 0, sizeof *a);
	if (store_query_open(&q, st, "absence", "SELECT id, kind, policy, "
	    "until FROM absences WHERE player_id = ?1 AND ended IS NULL AND "
	    "since <= ?2 AND (until IS NULL OR until > ?2) ORDER BY kind = "
	    "'missed', id DESC LIMIT 1", STORE_ARGS(STORE_INT(pid),
	    STORE_INT(now)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		*found = true;
		a->id = sqlite3_column_int64(q.s, 0);
		strlcpy_(a->kind, (const char *)sqlite3_column_text(q.s, 1),
		    sizeof a->kind);
		strlcpy_(a->policy, (const char *)sqlite3_column_text(q.s, 2),
		    sizeof a->policy);
		a->until = sqlite3_column_type(q.s, 3) == SQLITE_NULL ? 0 :
		    (long)sqlite3_column_int64(q.s, 3);
	}
	return store_query_close(&q, err);
}

/* Did side's file in the campaign's last resolved window come from its
 * player (mail or the command line)? */
static int
wrote_last(struct store *st, int64_t cid, int side, bool *wrote,
    struct hp_error *err)
{
	struct store_query q;

	*wrote = false;
	if (store_query_open(&q, st, "last source", "SELECT o.source FROM "
	    "orders o JOIN windows w ON w.id = o.window_id WHERE "
	    "w.campaign_id = ?1 AND o.side_idx = ?2 AND o.current = 1 AND "
	    "w.state = 'resolved' ORDER BY w.id DESC LIMIT 1",
	    STORE_ARGS(STORE_INT(cid), STORE_INT(side)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		const char *s = (const char *)sqlite3_column_text(q.s, 0);

		*wrote = strcmp(s, "mail") == 0 || strcmp(s, "cli") == 0;
	}
	return store_query_close(&q, err);
}

/* End player pid's seat with the built-in opponent and start the missed
 * count again; *ended says if there was one. */
static int
end_handover(struct store *st, int64_t pid, long now, bool *ended,
    struct hp_error *err)
{
	if (store_exec(st, "end hand-over", "UPDATE absences SET ended = ?2 "
	    "WHERE player_id = ?1 AND kind = 'missed' AND ended IS NULL",
	    STORE_ARGS(STORE_INT(pid), STORE_INT(now)), NULL, err) != HP_OK)
		return HP_EDB;
	*ended = store_changes(st) > 0;
	return store_exec(st, "missed reset", "UPDATE missed_windows SET "
	    "in_row = 0, told = 0 WHERE player_id = ?1",
	    STORE_ARGS(STORE_INT(pid)), NULL, err);
}

/* Fill, in campaign name's open window, the sides still owing orders whose
 * players are away, by each absence's policy; unless every player of the
 * campaign is away (nobody would be left to play: filled windows would
 * resolve one after the other to the end of the game, so the window is
 * left to its deadline). In the caller's transaction. */
static int
fill_open(struct store *st, const char *name, long now, struct hp_error *err)
{
	struct store_window w;
	struct absence a[GAME_MAX_SIDES];
	struct game g;
	unsigned missing, human = 0, away = 0;
	int64_t cid, pid;
	bool found, wrote;
	int i, rc;

	game_init(&g);
	if ((rc = store_game_load(st, name, &g, &cid, err)) != HP_OK ||
	    g.status == GAME_FINISHED)
		goto out;
	if ((rc = turn_pending(st, name, &w, &missing, err)) != HP_OK)
		goto out;
	for (i = 0; i < g.nsides; i++) {
		if (g.sides[i].ai)
			continue;
		if ((rc = side_player(st, cid, i, &pid, NULL, 0, err)) != HP_OK)
			goto out;
		if (pid == 0)
			continue;
		human |= 1u << i;
		if ((rc = absence_in_force(st, pid, now, &a[i], &found, err)) !=
		    HP_OK)
			goto out;
		if (found && strcmp(a[i].kind, "missed") == 0) {
			/* The player wrote in the window just resolved: the
			 * seat is theirs again. */
			if ((rc = wrote_last(st, cid, i, &wrote, err)) != HP_OK)
				goto out;
			if (wrote) {
				if ((rc = end_handover(st, pid, now, &wrote,
				    err)) != HP_OK)
					goto out;
				found = false;
			}
		}
		if (found)
			away |= 1u << i;
	}
	if ((human & ~away) == 0)
		goto out;
	for (i = 0; i < g.nsides; i++) {
		if (!(away & missing & (1u << i)))
			continue;
		rc = deadline_fill(st, &g, &w, 1u << i, strcmp(a[i].policy,
		    "ai") == 0 ? DEADLINE_AI : DEADLINE_HOLD, NULL, err);
		if (rc != HP_OK && rc != HP_EDB) {
			/* No file the rules accept (nothing was written): the
			 * window waits for its deadline rather than failing
			 * the resolution that opened it. */
			log_warn("%s: turn %d window '%s': %s is away but its "
			    "orders cannot be filled: %s", g.name, w.spec.turn,
			    w.spec.name, g.sides[i].name, err->msg);
			rc = HP_OK;
			err->code = 0;
			err->msg[0] = '\0';
			continue;
		}
		if (rc != HP_OK)
			goto out;
		if ((rc = store_exec(st, "absence fill", "INSERT OR REPLACE "
		    "INTO absence_fills (window_id, side_idx, absence_id) "
		    "VALUES (?1, ?2, ?3)", STORE_ARGS(STORE_INT(w.id),
		    STORE_INT(i), STORE_INT(a[i].id)), NULL, err)) != HP_OK)
			goto out;
		log_info("%s: turn %d window '%s': %s is away, its orders are "
		    "filled (%s)", g.name, w.spec.turn, w.spec.name,
		    g.sides[i].name, a[i].policy);
	}
out:
	game_free(&g);
	return rc;
}

/* Observer: a window opened (absence.h). */
int
absence_window_opened(struct store *st, int64_t wid, struct hp_error *err)
{
	struct store_query q;
	char name[GAME_NAME_MAX] = "";

	if (store_query_open(&q, st, "window's campaign", "SELECT c.name FROM "
	    "windows w JOIN campaigns c ON c.id = w.campaign_id WHERE "
	    "w.id = ?1", STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err))
		strlcpy_(name, (const char *)sqlite3_column_text(q.s, 0),
		    sizeof name);
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (name[0] == '\0')
		return HP_OK;
	return fill_open(st, name, deadline_now(), err);
}

/* Queue a notice (to every player if all, else the moderators); only
 * logged without a configuration. */
static int
notice(struct store *st, const struct config *cfg, int64_t cid,
    const struct game *g, bool all, const char *seed, const char *subject,
    const char *text, struct hp_error *err)
{
	if (cfg == NULL) {
		log_warn("%s: %s", g->name, text);
		return HP_OK;
	}
	return deadline_notice(st, cfg, cid, g, all, seed, subject, text, err);
}

/* Tell player pid (alone) that the built-in opponent took their seat and
 * how to take it back; only logged without a configuration. */
static int
tell_handed_over(struct store *st, int64_t cid, const struct game *g,
    int side, int64_t pid, long in_row, const char *seed,
    struct hp_error *err)
{
	struct store_query q;
	struct sbuf text;
	char email[256] = "", subj[300], s2[GAME_NAME_MAX + 160];
	int rc;

	if (store_query_open(&q, st, "player's address", "SELECT email FROM "
	    "players WHERE id = ?1", STORE_ARGS(STORE_INT(pid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err))
		strlcpy_(email, (const char *)sqlite3_column_text(q.s, 0),
		    sizeof email);
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (club_cfg == NULL || email[0] == '\0')
		return HP_OK;
	sbuf_init(&text);
	sbuf_printf(&text, "Campaign %s: %s has sent nothing for %ld windows in "
	    "a row, so the built-in opponent plays %s from now on.\n\nTo take "
	    "your seat back, write again: your orders for the open window, or "
	    "any signed command (e.g. 'status'). If you are going away, "
	    "'vacation until DATE' tells the others and keeps the game going "
	    "without counting missed turns.\n", g->name, g->sides[side].name,
	    in_row, g->sides[side].name);
	snprintf(subj, sizeof subj, "[hexpost] %s: the built-in opponent plays "
	    "%s", g->name, g->sides[side].name);
	snprintf(s2, sizeof s2, "%s.%s.handover", g->name, seed);
	rc = mail_queue_message(st, club_cfg, cid, "notice", email, s2, subj,
	    text.buf, err);
	sbuf_free(&text);
	return rc;
}

/* Count side i's window w: missed or not (absence_window_resolved). */
static int
count_side(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, int i, const char *source,
    const struct absence_settings *cs, long now, struct hp_error *err)
{
	struct absence a;
	struct sbuf text;
	char pname[GAME_NAME_MAX], seed[128];
	int64_t pid;
	long in_row = 0, told = 0, fills = 0;
	bool found, ended;
	int rc;

	if ((rc = side_player(st, cid, i, &pid, pname, sizeof pname, err)) !=
	    HP_OK || pid == 0)
		return rc;
	if (strcmp(source, "mail") == 0 || strcmp(source, "cli") == 0)
		return end_handover(st, pid, now, &ended, err);
	if (strncmp(source, "deadline-", 9) != 0)
		return HP_OK;
	if ((rc = q_int(st, "absence fill", "SELECT count(*) FROM "
	    "absence_fills WHERE window_id = ?1 AND side_idx = ?2",
	    STORE_ARGS(STORE_INT(w->id), STORE_INT(i)), &fills, &found,
	    err)) != HP_OK)
		return rc;
	if (fills > 0)
		return HP_OK;       /* away: filled by the absence */
	if ((rc = absence_in_force(st, pid, now, &a, &found, err)) != HP_OK)
		return rc;
	if (found)
		return HP_OK;       /* away (or already handed over) */
	if ((rc = store_exec(st, "missed", "INSERT INTO missed_windows "
	    "(player_id, campaign_id, in_row, total) VALUES (?1, ?2, 1, 1) ON "
	    "CONFLICT (player_id) DO UPDATE SET in_row = in_row + 1, total = "
	    "total + 1", STORE_ARGS(STORE_INT(pid), STORE_INT(cid)), NULL,
	    err)) != HP_OK)
		return rc;
	if ((rc = q_int(st, "missed", "SELECT in_row FROM missed_windows "
	    "WHERE player_id = ?1", STORE_ARGS(STORE_INT(pid)), &in_row,
	    &found, err)) != HP_OK || (rc = q_int(st, "missed", "SELECT told "
	    "FROM missed_windows WHERE player_id = ?1",
	    STORE_ARGS(STORE_INT(pid)), &told, &found, err)) != HP_OK)
		return rc;
	if (cs->missed_limit == 0 || in_row < cs->missed_limit || told)
		return HP_OK;
	if ((rc = store_exec(st, "missed told", "UPDATE missed_windows SET "
	    "told = 1 WHERE player_id = ?1", STORE_ARGS(STORE_INT(pid)), NULL,
	    err)) != HP_OK)
		return rc;
	sbuf_init(&text);
	sbuf_printf(&text, "%s (%s) has missed %ld windows in a row (the last: "
	    "turn %d window '%s').\n", pname, g->sides[i].name, in_row,
	    w->spec.turn, w->spec.name);
	if (cs->missed_ai) {
		if ((rc = store_exec(st, "hand-over", "INSERT INTO absences "
		    "(campaign_id, player_id, side_idx, kind, policy, since) "
		    "VALUES (?1, ?2, ?3, 'missed', 'ai', ?4)",
		    STORE_ARGS(STORE_INT(cid), STORE_INT(pid), STORE_INT(i),
		    STORE_INT(now)), NULL, err)) != HP_OK)
			goto out;
		sbuf_printf(&text, "The built-in opponent plays %s until %s "
		    "writes again or you replace them ('replace %s').\n",
		    g->sides[i].name, pname, g->sides[i].name);
	} else
		sbuf_printf(&text, "You may replace them ('replace %s'), or "
		    "set 'missed_policy ai' to let the built-in opponent play "
		    "the seat.\n", g->sides[i].name);
	snprintf(seed, sizeof seed, "missed.t%d.w%d.%lld", w->spec.turn,
	    w->spec.number, (long long)pid);
	rc = notice(st, club_cfg, cid, g, false, seed, "a player stopped "
	    "answering", text.buf, err);
	log_warn("%s: %s has missed %ld windows in a row", g->name, pname,
	    in_row);
	if (rc == HP_OK && cs->missed_ai)
		rc = tell_handed_over(st, cid, g, i, pid, in_row, seed, err);
	if (rc == HP_OK && cs->missed_ai)
		rc = fill_open(st, g->name, now, err);
out:
	sbuf_free(&text);
	return rc;
}

/* Observer: a window was resolved (absence.h). */
int
absence_window_resolved(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct events *ev,
    const struct dice *d, struct hp_error *err)
{
	struct store_order cur[GAME_MAX_SIDES];
	struct absence_settings cs;
	long now = deadline_now();
	int i, rc;

	(void)ev;
	(void)d;
	if (w->spec.sides == 0)
		return HP_OK;
	if ((rc = absence_settings_get(st, cid, &cs, err)) != HP_OK)
		return rc;
	if ((rc = store_orders_current(st, w->id, cur, err)) != HP_OK)
		return rc;
	for (i = 0; i < g->nsides && rc == HP_OK; i++)
		if ((w->spec.sides & (1u << i)) && !g->sides[i].ai &&
		    cur[i].raw != NULL)
			rc = count_side(st, cid, g, w, i, cur[i].source, &cs, now,
			    err);
	store_orders_free(cur);
	return rc;
}

/* What a policy does, for the absent player's own answer. */
static const char *
policy_text(const char *p)
{
	if (strcmp(p, "hold") == 0)
		return "holding (your side does nothing)";
	if (strcmp(p, "orders") == 0)
		return "holding, with the standing orders you left in force";
	return "the built-in opponent";
}

/* Split s into at most max words (in buf); returns how many, or max + 1
 * if there are more. */
static int
words(const char *s, char *buf, size_t len, char **w, int max)
{
	char *p, *save = NULL;
	int n = 0;

	strlcpy_(buf, s, len);
	for (p = strtok_r(buf, " \t", &save); p != NULL;
	    p = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = p;
	}
	return n;
}

/* vacation (absence.h). */
int
absence_vacation(struct store *st, const struct config *cfg,
    const struct game *g, int64_t cid, const struct store_player *who,
    const char *arg, long now, struct sbuf *reply, struct hp_error *err)
{
	static const char usage[] = "vacation takes 'until DATE [ai|hold|"
	    "orders]' or 'off' (the moderator names the side first: 'vacation "
	    "SIDE until DATE'); DATE is YYYY-MM-DD or YYYY-MM-DDTHH:MMZ (UTC)";
	struct absence_settings cs;
	struct absence a;
	struct sbuf text;
	char buf[256], *w[5], pname[GAME_NAME_MAX], when[64], seed[64];
	const char *policy = "ai";
	int n, k = 0, side, rc;
	int64_t pid;
	long until;
	bool found;

	if ((n = words(arg, buf, sizeof buf, w, 4)) < 1 || n > 4)
		goto usage;
	if (strcmp(w[0], "until") != 0 && strcmp(w[0], "off") != 0) {
		if ((side = game_side_index(g, w[0])) < 0) {
			hp_seterr(err, HP_EINVAL, "no side '%s' in %s; %s", w[0],
			    g->name, usage);
			return HP_EINVAL;
		}
		if (who != NULL && !who->moderator && side != who->side) {
			hp_seterr(err, HP_EINVAL, "only the moderator may "
			    "announce the absence of another side's player");
			return HP_EINVAL;
		}
		k = 1;
	} else if (who == NULL) {
		hp_seterr(err, HP_EINVAL, "name the side: 'vacation SIDE until "
		    "DATE [ai|hold|orders]' or 'vacation SIDE off'");
		return HP_EINVAL;
	} else
		side = who->side;
	if (k >= n)
		goto usage;
	if (g->status == GAME_FINISHED) {
		hp_seterr(err, HP_ESTATE, "campaign %s has ended", g->name);
		return HP_ESTATE;
	}
	if (g->sides[side].ai) {
		hp_seterr(err, HP_ESTATE, "%s is played by the built-in "
		    "opponent, which is never away", g->sides[side].name);
		return HP_ESTATE;
	}
	if ((rc = side_player(st, cid, side, &pid, pname, sizeof pname, err)) !=
	    HP_OK)
		return rc;
	if (pid == 0) {
		hp_seterr(err, HP_ESTATE, "nobody plays %s", g->sides[side].name);
		return HP_ESTATE;
	}
	if (who != NULL && !who->moderator && who->id != pid) {
		hp_seterr(err, HP_EINVAL, "you no longer play %s",
		    g->sides[side].name);
		return HP_EINVAL;
	}
	if (strcmp(w[k], "off") == 0) {
		if (n != k + 1)
			goto usage;
		if ((rc = absence_in_force(st, pid, now, &a, &found, err)) !=
		    HP_OK)
			return rc;
		if (!found || strcmp(a.kind, "vacation") != 0) {
			hp_seterr(err, HP_ESTATE, "%s (%s) is not away", pname,
			    g->sides[side].name);
			return HP_ESTATE;
		}
		if ((rc = store_exec(st, "vacation off", "UPDATE absences SET "
		    "ended = ?2 WHERE id = ?1", STORE_ARGS(STORE_INT(a.id),
		    STORE_INT(now)), NULL, err)) != HP_OK)
			return rc;
		sbuf_printf(reply, "%s (%s) is back: orders are due from %s "
		    "again from the next window.\n", pname, g->sides[side].name,
		    g->sides[side].name);
		snprintf(seed, sizeof seed, "back%lld", (long long)a.id);
		return notice(st, cfg, cid, g, true, seed, "a player is back",
		    reply->buf, err);
	}
	if (strcmp(w[k], "until") != 0 || n < k + 2 || n > k + 3)
		goto usage;
	if (absence_parse_until(w[k + 1], &until) != HP_OK) {
		hp_seterr(err, HP_EINVAL, "'%s' is not a date: %s", w[k + 1],
		    usage);
		return HP_EINVAL;
	}
	if (n == k + 3) {
		policy = w[k + 2];
		if (strcmp(policy, "ai") != 0 && strcmp(policy, "hold") != 0 &&
		    strcmp(policy, "orders") != 0) {
			hp_seterr(err, HP_EINVAL, "the policy while away is 'ai' "
			    "(the built-in opponent plays), 'hold' or 'orders' "
			    "(hold, with your standing orders in force), not "
			    "'%s'", policy);
			return HP_EINVAL;
		}
	}
	if ((rc = absence_settings_get(st, cid, &cs, err)) != HP_OK)
		return rc;
	deadline_format(now, when, sizeof when);
	if (until <= now) {
		hp_seterr(err, HP_EINVAL, "vacation until %s: that is in the "
		    "past (it is now %s); nothing changed", w[k + 1], when);
		return HP_EINVAL;
	}
	if (until - now > cs.max_days * DAY) {
		hp_seterr(err, HP_EINVAL, "vacation until %s: a vacation in %s "
		    "ends at most %d days ahead; nothing changed (the moderator "
		    "may set absence_max_days)", w[k + 1], g->name, cs.max_days);
		return HP_EINVAL;
	}
	if (strcmp(policy, "orders") == 0 && g->sides[side].standing == NULL) {
		hp_seterr(err, HP_EINVAL, "'orders' keeps the standing orders "
		    "left for %s in force, and %s has none: send an order file "
		    "with 'window: standing' first, or choose 'ai' or 'hold'",
		    g->sides[side].name, g->sides[side].name);
		return HP_EINVAL;
	}
	if ((rc = store_exec(st, "vacation", "UPDATE absences SET ended = ?2 "
	    "WHERE player_id = ?1 AND kind = 'vacation' AND ended IS NULL",
	    STORE_ARGS(STORE_INT(pid), STORE_INT(now)), NULL, err)) != HP_OK)
		return rc;
	if (store_changes(st) > 0)
		sbuf_puts(reply, "(This replaces the absence announced "
		    "before.)\n");
	if ((rc = store_exec(st, "vacation", "INSERT INTO absences "
	    "(campaign_id, player_id, side_idx, kind, policy, since, until) "
	    "VALUES (?1, ?2, ?3, 'vacation', ?4, ?5, ?6)",
	    STORE_ARGS(STORE_INT(cid), STORE_INT(pid), STORE_INT(side),
	    STORE_TEXT(policy), STORE_INT(now), STORE_INT(until)), NULL,
	    err)) != HP_OK)
		return rc;
	deadline_format(until, when, sizeof when);
	sbuf_printf(reply, "%s (%s) is away until %s. The windows that open "
	    "meanwhile are played for %s by %s, and are not counted as "
	    "missed. Send 'vacation off' when back.\n", pname,
	    g->sides[side].name, when, g->sides[side].name, policy_text(policy));
	/* The others learn that the player is away, not the policy. */
	sbuf_init(&text);
	sbuf_printf(&text, "%s (%s) is away until %s. Until then the orders of "
	    "%s are filled in for them, so the game does not wait.\n", pname,
	    g->sides[side].name, when, g->sides[side].name);
	snprintf(seed, sizeof seed, "away%lld", (long long)store_last_id(st));
	rc = notice(st, cfg, cid, g, true, seed, "a player is away", text.buf,
	    err);
	sbuf_free(&text);
	if (rc == HP_OK)
		rc = fill_open(st, g->name, now, err);
	return rc;
usage:
	hp_seterr(err, HP_EINVAL, "%s", usage);
	return HP_EINVAL;
}

/* extension (absence.h). */
int
absence_extension(struct store *st, const struct config *cfg,
    const struct game *g, int64_t cid, const struct store_player *who,
    const char *arg, long now, struct sbuf *reply, struct hp_error *err)
{
	struct absence_settings cs;
	struct deadline_settings ds;
	struct store_window w;
	struct store_clock c;
	struct sbuf text;
	char when[64], seed[64];
	unsigned missing;
	long hours, used = 0;
	bool found;
	int rc;

	if (who == NULL) {
		hp_seterr(err, HP_EINVAL, "an extension is a player's request; "
		    "the moderator uses 'extend HOURS' (not counted)");
		return HP_EINVAL;
	}
	if ((rc = absence_settings_get(st, cid, &cs, err)) != HP_OK)
		return rc;
	if (!num(arg, 1, 10000, &hours)) {
		hp_seterr(err, HP_EINVAL, "extension takes a number of hours (1 "
		    "to %d)", cs.extension_hours);
		return HP_EINVAL;
	}
	if (hours > cs.extension_hours) {
		hp_seterr(err, HP_EINVAL, "an extension in %s is at most %d "
		    "hours; nothing changed", g->name, cs.extension_hours);
		return HP_EINVAL;
	}
	if ((rc = q_int(st, "extensions", "SELECT count(*) FROM extensions "
	    "WHERE campaign_id = ?1 AND player_id = ?2",
	    STORE_ARGS(STORE_INT(cid), STORE_INT(who->id)), &used, &found,
	    err)) != HP_OK)
		return rc;
	if (used >= cs.extensions) {
		hp_seterr(err, HP_ESTATE, "you have used the %d extension%s a "
		    "player may ask for in %s; nothing changed (only the "
		    "moderator can extend a deadline now)", cs.extensions,
		    cs.extensions == 1 ? "" : "s", g->name);
		return HP_ESTATE;
	}
	if (g->status == GAME_FINISHED) {
		hp_seterr(err, HP_ESTATE, "campaign %s has ended", g->name);
		return HP_ESTATE;
	}
	if ((rc = turn_pending(st, g->name, &w, &missing, err)) != HP_OK)
		return rc;
	if (who->side < 0 || who->side >= g->nsides ||
	    !(w.spec.sides & (1u << who->side))) {
		hp_seterr(err, HP_ESTATE, "turn %d window '%s' waits for no "
		    "orders from your side", w.spec.turn, w.spec.name);
		return HP_ESTATE;
	}
	if (!(missing & (1u << who->side))) {
		hp_seterr(err, HP_ESTATE, "your orders for turn %d window '%s' "
		    "are in: there is nothing to wait for", w.spec.turn,
		    w.spec.name);
		return HP_ESTATE;
	}
	if ((rc = deadline_settings_get(st, cfg, cid, &ds, err)) != HP_OK ||
	    (rc = store_clock_get(st, w.id, &c, err)) != HP_OK)
		return rc;
	if (!c.have) {
		c.have = true;
		c.opened = now;
	}
	if (ds.paused || c.held || deadline_of(&ds, &c) == 0) {
		hp_seterr(err, HP_ESTATE, "turn %d window '%s' has %s: there is "
		    "no deadline to extend", w.spec.turn, w.spec.name,
		    ds.paused ? "its clock stopped (the campaign is paused)" :
		    c.held ? "passed its deadline and waits for the moderator" :
		    "no deadline");
		return HP_ESTATE;
	}
	c.extended += 3600L * hours;
	c.reminded = false;
	if ((rc = store_clock_put(st, w.id, &c, err)) != HP_OK)
		return rc;
	if ((rc = store_exec(st, "extension", "INSERT INTO extensions "
	    "(campaign_id, player_id, window_id, hours, at) VALUES (?1, ?2, "
	    "?3, ?4, ?5)", STORE_ARGS(STORE_INT(cid), STORE_INT(who->id),
	    STORE_INT(w.id), STORE_INT(hours), STORE_INT(now)), NULL, err)) !=
	    HP_OK)
		return rc;
	deadline_format(deadline_of(&ds, &c), when, sizeof when);
	sbuf_printf(reply, "The deadline of turn %d window '%s' is now %s "
	    "(your extension of %ld hours; %ld of %d used).\n", w.spec.turn,
	    w.spec.name, when, hours, used + 1, cs.extensions);
	sbuf_init(&text);
	sbuf_printf(&text, "%s (%s) asked for an extension of %ld hours: the "
	    "deadline of turn %d window '%s' is now %s.\n", who->name,
	    g->sides[who->side].name, hours, w.spec.turn, w.spec.name, when);
	snprintf(seed, sizeof seed, "ext%lld", (long long)store_last_id(st));
	rc = notice(st, cfg, cid, g, true, seed, "an extension", text.buf, err);
	sbuf_free(&text);
	return rc;
}

/* The player wrote (absence.h). */
int
absence_player_wrote(struct store *st, int64_t player, long now,
    struct sbuf *reply, struct hp_error *err)
{
	bool ended;
	int rc;

	if ((rc = end_handover(st, player, now, &ended, err)) != HP_OK)
		return rc;
	if (ended && reply != NULL)
		sbuf_puts(reply, "Welcome back: the built-in opponent no longer "
		    "plays your side; orders are due from you again.\n");
	return HP_OK;
}

/* The side's player is replaced (absence.h). */
int
absence_side_replaced(struct store *st, const struct game *g, int64_t cid,
    int side, long now, struct sbuf *reply, struct hp_error *err)
{
	struct store_query q;
	char when[64];

	if (store_query_open(&q, st, "absences of side", "SELECT p.name, "
	    "a.kind, a.until FROM absences a JOIN players p ON p.id = "
	    "a.player_id WHERE a.campaign_id = ?1 AND a.side_idx = ?2 AND "
	    "a.ended IS NULL AND p.active = 1 AND (a.until IS NULL OR "
	    "a.until > ?3) ORDER BY a.id", STORE_ARGS(STORE_INT(cid),
	    STORE_INT(side), STORE_INT(now)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		const char *kind = (const char *)sqlite3_column_text(q.s, 1);

		deadline_format((long)sqlite3_column_int64(q.s, 2), when,
		    sizeof when);
		sbuf_printf(reply, "%s was %s%s: that ends with the replacement; "
		    "the new player owes orders for %s (a file already filled "
		    "for the open window may be replaced by theirs).\n",
		    (const char *)sqlite3_column_text(q.s, 0),
		    strcmp(kind, "missed") == 0 ? "handing the seat to the "
		    "built-in opponent" : "away until ", strcmp(kind,
		    "missed") == 0 ? "" : when, g->sides[side].name);
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	return store_exec(st, "end absences", "UPDATE absences SET ended = ?3 "
	    "WHERE campaign_id = ?1 AND side_idx = ?2 AND ended IS NULL",
	    STORE_ARGS(STORE_INT(cid), STORE_INT(side), STORE_INT(now)), NULL,
	    err);
}

/* Status lines (absence.h). */
int
absence_status(struct store *st, const struct game *g, int64_t cid, long now,
    bool moderator, struct sbuf *b, struct hp_error *err)
{
	struct store_query q;
	char when[64];

	if (store_query_open(&q, st, "absences", "SELECT p.name, a.side_idx, "
	    "a.kind, a.until FROM absences a JOIN players p ON p.id = "
	    "a.player_id WHERE a.campaign_id = ?1 AND a.ended IS NULL AND "
	    "p.active = 1 AND a.since <= ?2 AND (a.until IS NULL OR a.until > "
	    "?2) ORDER BY a.side_idx, a.id", STORE_ARGS(STORE_INT(cid),
	    STORE_INT(now)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		int side = sqlite3_column_int(q.s, 1);
		const char *name = (const char *)sqlite3_column_text(q.s, 0);

		if (side < 0 || side >= g->nsides)
			continue;
		if (strcmp((const char *)sqlite3_column_text(q.s, 2), "missed") ==
		    0)
			sbuf_printf(b, "%s (%s) stopped answering: the built-in "
			    "opponent plays %s until they write again.\n", name,
			    g->sides[side].name, g->sides[side].name);
		else {
			deadline_format((long)sqlite3_column_int64(q.s, 3), when,
			    sizeof when);
			sbuf_printf(b, "%s (%s) is away until %s.\n", name,
			    g->sides[side].name, when);
		}
	}
	if (store_query_close(&q, err) != HP_OK || !moderator)
		return q.rc;
	if (store_query_open(&q, st, "club counts", "SELECT p.name, "
	    "p.side_idx, coalesce(m.in_row, 0), coalesce(m.total, 0), (SELECT "
	    "count(*) FROM extensions e WHERE e.player_id = p.id) FROM players "
	    "p LEFT JOIN missed_windows m ON m.player_id = p.id WHERE "
	    "p.campaign_id = ?1 AND p.active = 1 ORDER BY p.side_idx, p.id",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		int side = sqlite3_column_int(q.s, 1);

		if (side < 0 || side >= g->nsides)
			continue;
		sbuf_printf(b, "%s (%s): %d missed in a row (%d in all), %d "
		    "extension%s asked.\n",
		    (const char *)sqlite3_column_text(q.s, 0),
		    g->sides[side].name, sqlite3_column_int(q.s, 2),
		    sqlite3_column_int(q.s, 3), sqlite3_column_int(q.s, 4),
		    sqlite3_column_int(q.s, 4) == 1 ? "" : "s");
	}
	return store_query_close(&q, err);
}
