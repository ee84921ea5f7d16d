/* moderator: commands to a campaign (see include/moderator.h). */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "absence.h"
#include "deadline.h"
#include "mail.h"
#include "minisign.h"
#include "moderator.h"
#include "modstmt.h"
#include "turn.h"
#include "mailpref.h"
#include "window.h"

#define MOD_MAX_PLAYERS 64

/* The verbs, who may use them and what they take. */
static const struct {
	const char *verb;
	bool moderator;     /* moderator only */
	int args;           /* 0 none, 1 optional, 2 required */
} verbs[] = {
	{ "status", false, 0 }, { "report", false, 1 }, { "pause", true, 0 },
	{ "resume", true, 0 }, { "extend", true, 2 }, { "deadline", true, 2 },
	{ "set", true, 2 }, { "proceed", true, 1 }, { "replace", true, 2 },
	{ "resend", true, 1 }, { "end", true, 1 },
	{ "moderator-key", true, 0 },
	{ "vacation", false, 2 }, { "extension", false, 2 },
	{ "mail", false, 2 },
};
#define NVERBS (sizeof verbs / sizeof verbs[0])

/* Find the value after "key:" on a line; NULL if the line is not one. */
static const char *
header_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, key, n) != 0 || line[n] != ':')
		return NULL;
	line += n + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

bool
moderator_is_command(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		char line[64];
		size_t e = i, n;

		while (e < len && text[e] != '\n')
			e++;
		n = e - i < sizeof line - 1 ? e - i : sizeof line - 1;
		memcpy(line, text + i, n);
		line[n] = '\0';
		if (header_value(line, "command") != NULL)
			return true;
		i = e + 1;
	}
	return false;
}

/* Copy v into dst (size len), or say which line is too long. */
static int
set_field(char *dst, size_t len, const char *v, const char *key, int lineno,
    struct hp_error *err)
{
	if (strlen(v) >= len) {
		hp_seterr(err, HP_EINVAL, "line %d: %s: too long", lineno, key);
		return HP_EINVAL;
	}
	if (dst[0] != '\0') {
		hp_seterr(err, HP_EINVAL, "line %d: %s: given twice", lineno,
		    key);
		return HP_EINVAL;
	}
	strlcpy_(dst, v, len);
	return HP_OK;
}

int
moderator_parse(const char *text, size_t len, struct mod_command *cmd,
    struct hp_error *err)
{
	char line[512], command[300];
	size_t i = 0, k;
	int lineno = 0, rc = HP_OK;

	memset(cmd, 0, sizeof *cmd);
	command[0] = '\0';
	if (len > MODERATOR_FILE_MAX) {
		hp_seterr(err, HP_EINVAL, "a command file is at most %d bytes",
		    MODERATOR_FILE_MAX);
		return HP_EINVAL;
	}
	while (i < len && rc == HP_OK) {
		size_t e = i, n;
		const char *v;
		char *end;

		lineno++;
		while (e < len && text[e] != '\n')
			e++;
		n = e - i;
		if (n > 0 && text[i + n - 1] == '\r')
			n--;
		if (n >= sizeof line) {
			hp_seterr(err, HP_EINVAL, "line %d: too long", lineno);
			return HP_EINVAL;
		}
		memcpy(line, text + i, n);
		line[n] = '\0';
		i = e + 1;
		for (k = 0; k < n; k++)
			if ((unsigned char)line[k] < 0x20 && line[k] != '\t') {
				hp_seterr(err, HP_EINVAL, "line %d: control "
				    "character", lineno);
				return HP_EINVAL;
			}
		if ((end = strchr(line, '#')) != NULL)
			*end = '\0';
		for (end = line + strlen(line); end > line &&
		    isspace((unsigned char)end[-1]); end--)
			*(end - 1) = '\0';
		for (v = line; *v == ' ' || *v == '\t'; v++)
			;
		if (*v == '\0')
			continue;
		if ((v = header_value(line, "campaign")) != NULL)
			rc = set_field(cmd->campaign, sizeof cmd->campaign, v,
			    "campaign", lineno, err);
		else if ((v = header_value(line, "command")) != NULL)
			rc = set_field(command, sizeof command, v, "command",
			    lineno, err);
		else if ((v = header_value(line, "nonce")) != NULL)
			rc = set_field(cmd->nonce, sizeof cmd->nonce, v, "nonce",
			    lineno, err);
		else if ((v = header_value(line, "email")) != NULL)
			rc = set_field(cmd->email, sizeof cmd->email, v, "email",
			    lineno, err);
		else if ((v = header_value(line, "name")) != NULL)
			rc = set_field(cmd->name, sizeof cmd->name, v, "name",
			    lineno, err);
		else if ((v = header_value(line, "key")) != NULL)
			rc = set_field(cmd->key, sizeof cmd->key, v, "key",
			    lineno, err);
		else {
			hp_seterr(err, HP_EINVAL, "line %d: expected campaign:, "
			    "command:, nonce:, email:, name: or key:", lineno);
			rc = HP_EINVAL;
		}
	}
	if (rc != HP_OK)
		return rc;
	if (cmd->campaign[0] == '\0' || command[0] == '\0') {
		hp_seterr(err, HP_EINVAL, "a command file needs a 'campaign:' "
		    "and a 'command:' line");
		return HP_EINVAL;
	}
	k = strcspn(command, " \t");
	if (k >= sizeof cmd->verb) {
		hp_seterr(err, HP_EINVAL, "unknown command '%.*s'", (int)k,
		    command);
		return HP_EINVAL;
	}
	memcpy(cmd->verb, command, k);
	cmd->verb[k] = '\0';
	for (i = 0; i < k; i++)
		cmd->verb[i] = (char)tolower((unsigned char)cmd->verb[i]);
	for (i = k; command[i] == ' ' || command[i] == '\t'; i++)
		;
	if (strlen(command + i) >= sizeof cmd->arg) {
		hp_seterr(err, HP_EINVAL, "command: too long");
		return HP_EINVAL;
	}
	strlcpy_(cmd->arg, command + i, sizeof cmd->arg);
	return HP_OK;
}

/* Parse a whole number in [lo, hi]. */
static bool
parse_num(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s == '\0')
		return false;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* What moderator_exec works on. */
struct exec {
	struct store *st;
	const struct config *cfg;
	const struct mod_command *cmd;
	const struct store_player *who;
	long now;
	struct game g;
	int64_t cid;
	int64_t cmdid;
	struct deadline_settings ds;
	struct sbuf *reply;
	struct hp_error *err;
	char *stmt;             /* the signed statement and its signature, as
	                         * mailed (NULL: none) */
	bool announced;         /* stmt went out in a notice */
};

/* Queue a notice about the command to every player. */
static int
notify_all(struct exec *x, const char *subject, const char *text)
{
	char seed[64];
	struct sbuf b;
	int rc;

	if (x->cfg == NULL)
		return HP_OK;
	snprintf(seed, sizeof seed, "cmd%lld", (long long)x->cmdid);
	if (x->stmt == NULL)
		return deadline_notice(x->st, x->cfg, x->cid, &x->g, true, seed,
		    subject, text, x->err);
	/* A signed statement goes to every player with the notice. */
	sbuf_init(&b);
	sbuf_printf(&b, "%s\n%s", text, x->stmt);
	rc = deadline_notice(x->st, x->cfg, x->cid, &x->g, true, seed,
	    subject, b.buf, x->err);
	sbuf_free(&b);
	x->announced = true;
	return rc;
}

/* The open window, its clock and the sides that owe orders. */
static int
open_window(struct exec *x, struct store_window *w, struct store_clock *c,
    unsigned *missing)
{
	int rc;

	if (x->g.status == GAME_FINISHED) {
		hp_seterr(x->err, HP_ESTATE, "campaign %s has ended: %s",
		    x->g.name, x->g.result);
		return HP_ESTATE;
	}
	if ((rc = turn_pending(x->st, x->g.name, w, missing, x->err)) != HP_OK)
		return rc;
	if ((rc = store_clock_get(x->st, w->id, c, x->err)) != HP_OK)
		return rc;
	if (!c->have) {
		c->have = true;
		c->opened = x->now;
	}
	return HP_OK;
}

/* Write the campaign settings s. */
static int
save_settings(struct exec *x, const struct store_settings *s)
{
	return store_settings_put(x->st, x->cid, s, x->err);
}

/* pause, or resume (the open window's deadline moved by the pause). */
static int
do_pause(struct exec *x, bool pause)
{
	struct store_settings s;
	struct store_window w;
	struct store_clock c;
	unsigned missing;
	int rc;

	if ((rc = store_settings_get(x->st, x->cid, &s, x->err)) != HP_OK)
		return rc;
	if (!pause) {
		/* resume also lifts a quarantine (a resolution that failed):
		 * the next pass tries the window again. */
		bool was;

		if ((rc = store_quarantine_clear(x->st, x->cid, &was,
		    x->err)) != HP_OK)
			return rc;
		if (was && !s.paused) {
			sbuf_printf(x->reply, "Campaign %s is out of "
			    "quarantine: its window is resolved again at the "
			    "next pass.\n", x->g.name);
			return notify_all(x, "out of quarantine", x->reply->buf);
		}
	}
	if (s.paused == pause) {
		hp_seterr(x->err, HP_ESTATE, "campaign %s is %s paused",
		    x->g.name, pause ? "already" : "not");
		return HP_ESTATE;
	}
	if (!pause && x->g.status != GAME_FINISHED) {
		/* The clock stood still: the deadline moves by the pause. */
		if ((rc = open_window(x, &w, &c, &missing)) != HP_OK)
			return rc;
		if (deadline_of(&x->ds, &c) > 0 && x->now > s.paused_at) {
			c.extended += x->now - s.paused_at;
			c.reminded = false;
		}
		if ((rc = store_clock_put(x->st, w.id, &c, x->err)) != HP_OK)
			return rc;
	}
	s.paused = pause;
	s.paused_at = pause ? x->now : 0;
	if ((rc = save_settings(x, &s)) != HP_OK)
		return rc;
	x->ds.paused = pause;
	sbuf_printf(x->reply, "Campaign %s is %s.\n", x->g.name, pause ?
	    "paused: no window is resolved and no deadline runs until it is "
	    "resumed" : "resumed");
	return notify_all(x, pause ? "paused" : "resumed", x->reply->buf);
}

/* extend HOURS, or deadline TIME. */
static int
do_deadline(struct exec *x, bool extend)
{
	struct store_window w;
	struct store_clock c;
	unsigned missing;
	char when[64];
	long v, dl;
	int rc;

	if (extend ? !parse_num(x->cmd->arg, 1, 10000, &v) :
	    deadline_parse_time(x->cmd->arg, &v) != HP_OK) {
		hp_seterr(x->err, HP_EINVAL, extend ? "extend takes a number of "
		    "hours (1 to 10000)" : "deadline takes a time: "
		    "YYYY-MM-DDTHH:MMZ (UTC)");
		return HP_EINVAL;
	}
	if ((rc = open_window(x, &w, &c, &missing)) != HP_OK)
		return rc;
	if (!extend) {
		c.fixed = v;
		c.extended = 0;
	} else if ((dl = deadline_of(&x->ds, &c)) == 0)
		c.fixed = (x->now > c.opened ? x->now : c.opened) + 3600 * v;
	else
		c.extended += 3600 * v;
	c.held = false;
	c.reminded = false;
	if ((rc = store_clock_put(x->st, w.id, &c, x->err)) != HP_OK)
		return rc;
	deadline_format(deadline_of(&x->ds, &c), when, sizeof when);
	sbuf_printf(x->reply, "The deadline of turn %d window '%s' is now %s.\n",
	    w.spec.turn, w.spec.name, when);
	return notify_all(x, "new deadline", x->reply->buf);
}

/* set KEY VALUE: a campaign setting. */
static int
do_set(struct exec *x)
{
	struct store_settings s;
	enum deadline_policy p;
	char key[32], val[64];
	long v;
	int rc;

	if (sscanf(x->cmd->arg, "%31s %63s", key, val) != 2)
		goto bad;
	if ((rc = store_settings_get(x->st, x->cid, &s, x->err)) != HP_OK)
		return rc;
	if (strcmp(key, "deadline_hours") == 0 && parse_num(val, 0, 10000, &v))
		s.deadline_hours = (int)v;
	else if (strcmp(key, "remind_hours") == 0 &&
	    parse_num(val, 0, 10000, &v))
		s.remind_hours = (int)v;
	else if (strcmp(key, "missing") == 0 &&
	    deadline_parse_policy(val, &p) == HP_OK)
		strlcpy_(s.missing, val, sizeof s.missing);
	else if ((rc = absence_setting_set(x->st, x->cid, key, val,
	    x->err)) != HP_ENOENT) {
		if (rc == HP_OK)
			sbuf_printf(x->reply, "Campaign %s: %s = %s.\n",
			    x->g.name, key, val);
		return rc;
	} else
		goto bad;
	if ((rc = save_settings(x, &s)) != HP_OK)
		return rc;
	sbuf_printf(x->reply, "Campaign %s: %s = %s.\n", x->g.name, key, val);
	return HP_OK;
bad:
	hp_seterr(x->err, HP_EINVAL, "set takes 'deadline_hours N', "
	    "'remind_hours N', 'missing ai|hold|wait', 'absence_max_days N', "
	    "'missed_limit N', 'missed_policy tell|ai', 'extensions N' or "
	    "'extension_hours N'");
	return HP_EINVAL;
}

/* proceed ai|hold: fill the missing sides of a held window. */
static int
do_proceed(struct exec *x)
{
	struct store_window w;
	struct store_clock c;
	enum deadline_policy p = DEADLINE_AI;
	unsigned missing;
	int rc;

	if (x->cmd->arg[0] != '\0' && (deadline_parse_policy(x->cmd->arg,
	    &p) != HP_OK || p == DEADLINE_WAIT)) {
		hp_seterr(x->err, HP_EINVAL, "proceed takes 'ai' or 'hold'");
		return HP_EINVAL;
	}
	if ((rc = open_window(x, &w, &c, &missing)) != HP_OK)
		return rc;
	if (missing == 0) {
		hp_seterr(x->err, HP_ESTATE, "turn %d window '%s' has every "
		    "order it needs", w.spec.turn, w.spec.name);
		return HP_ESTATE;
	}
	if ((rc = deadline_fill(x->st, &x->g, &w, missing, p, x->reply,
	    x->err)) != HP_OK)
		return rc;
	c.held = false;
	if ((rc = store_clock_put(x->st, w.id, &c, x->err)) != HP_OK)
		return rc;
	sbuf_printf(x->reply, "Turn %d window '%s' is resolved on the next "
	    "run.\n", w.spec.turn, w.spec.name);
	return HP_OK;
}

/* replace: a new player (and key) for a side; the old one retired. */
static int
do_replace(struct exec *x)
{
	struct store_player p[MOD_MAX_PLAYERS];
	struct minisign_pubkey pk;
	struct hp_error kerr = { 0, "" };
	char keyhex[17] = "", pubtext[300], name[GAME_NAME_MAX];
	bool mod = false;
	int side, n, i, rc;

	if ((side = game_side_index(&x->g, x->cmd->arg)) < 0) {
		hp_seterr(x->err, HP_EINVAL, "no side '%s' in %s", x->cmd->arg,
		    x->g.name);
		return HP_EINVAL;
	}
	if (strchr(x->cmd->email, '@') == NULL ||
	    strpbrk(x->cmd->email, " \t<>,;\"") != NULL) {
		hp_seterr(x->err, HP_EINVAL, "replace needs the new player's "
		    "address ('email:' line, or --email)");
		return HP_EINVAL;
	}
	if (x->cmd->key[0] != '\0') {
		snprintf(pubtext, sizeof pubtext, "untrusted comment: minisign "
		    "public key\n%s\n", x->cmd->key);
		if (minisign_pubkey_parse(pubtext, strlen(pubtext), &pk,
		    &kerr) != HP_OK) {
			hp_seterr(x->err, HP_EINVAL, "key: %s", kerr.msg);
			return HP_EINVAL;
		}
		minisign_keyid_hex(pk.keyid, keyhex);
		snprintf(pubtext, sizeof pubtext, "untrusted comment: minisign "
		    "public key %s\n%s\n", keyhex, x->cmd->key);
	}
	strlcpy_(name, x->cmd->name[0] ? x->cmd->name : x->cmd->email,
	    sizeof name);
	if ((n = store_players_of(x->st, x->cid, p, MOD_MAX_PLAYERS,
	    x->err)) < 0)
		return n;
	if ((rc = absence_side_replaced(x->st, &x->g, x->cid, side, x->now,
	    x->reply, x->err)) != HP_OK)
		return rc;
	for (i = 0; i < n && i < MOD_MAX_PLAYERS; i++) {
		if (p[i].side != side)
			continue;
		mod = mod || p[i].moderator;
		if ((rc = store_player_retire(x->st, p[i].id, x->err)) != HP_OK)
			return rc;
		sbuf_printf(x->reply, "%s (%s) no longer plays %s.\n",
		    p[i].name, p[i].email, x->g.sides[side].name);
	}
	rc = store_player_add(x->st, x->cid, side, name, x->cmd->email,
	    keyhex[0] ? pubtext : NULL, keyhex[0] ? keyhex : NULL, mod, x->err);
	if (rc != HP_OK)
		return rc;
	x->g.sides[side].ai = false;
	if (x->cfg != NULL && (rc = mail_queue_welcome(x->st, x->cfg, x->cid,
	    &x->g, side, name, x->cmd->email, keyhex[0] ? keyhex : NULL,
	    x->err)) != HP_OK)
		return rc;
	sbuf_printf(x->reply, "%s (%s%s%s) now plays %s.\n", name,
	    x->cmd->email, keyhex[0] ? ", key " : "", keyhex,
	    x->g.sides[side].name);
	return HP_OK;
}

/* The report of the last resolved window for view (-1: moderator's);
 * caller frees. */
static char *
last_report(struct exec *x, int view, struct store_window *w)
{
	if (store_window_last_resolved(x->st, x->cid, w, x->err) != HP_OK) {
		hp_seterr(x->err, HP_ENOENT, "%s has no resolved turn yet",
		    x->g.name);
		return NULL;
	}
	return store_report_get(x->st, w->id, view, x->err);
}

/* resend: queue a side's last report again. */
static int
do_resend(struct exec *x)
{
	struct store_player p[MOD_MAX_PLAYERS];
	struct store_window w;
	char seed[200], subj[300], *body;
	int side = -1, n, i, rc = HP_OK, sent = 0;

	if (x->cmd->arg[0] != '\0' &&
	    (side = game_side_index(&x->g, x->cmd->arg)) < 0) {
		hp_seterr(x->err, HP_EINVAL, "no side '%s' in %s", x->cmd->arg,
		    x->g.name);
		return HP_EINVAL;
	}
	if ((body = last_report(x, -1, &w)) == NULL)
		return x->err->code;
	free(body);
	if ((n = store_players_of(x->st, x->cid, p, MOD_MAX_PLAYERS,
	    x->err)) < 0)
		return n;
	for (i = 0; i < n && i < MOD_MAX_PLAYERS && rc == HP_OK; i++) {
		if (side >= 0 && p[i].side != side)
			continue;
		snprintf(seed, sizeof seed, "%s.t%d.w%d.%s.again%lld",
		    x->g.name, w.spec.turn, w.spec.number, p[i].name,
		    (long long)x->cmdid);
		snprintf(subj, sizeof subj, "[hexpost] %s: turn %d '%s' report "
		    "(sent again)", x->g.name, w.spec.turn, w.spec.name);
		/* With the picture (and JSON) the report mail carried. */
		if (x->cfg != NULL)
			rc = mail_queue_report_again(x->st, x->cfg, x->cid,
			    &x->g, &w, p[i].name, p[i].email, p[i].moderator ?
			    -1 : p[i].side, seed, subj, x->err);
		else if ((body = store_report_get(x->st, w.id,
		    p[i].moderator ? -1 : p[i].side, x->err)) == NULL)
			return x->err->code;
		else
			free(body);
		sbuf_printf(x->reply, "The report of turn %d window '%s' goes "
		    "again to %s (%s).\n", w.spec.turn, w.spec.name, p[i].name,
		    p[i].email);
		sent++;
	}
	if (rc == HP_OK && sent == 0) {
		hp_seterr(x->err, HP_ENOENT, "nobody plays %s", x->cmd->arg);
		return HP_ENOENT;
	}
	return rc;
}

/* end: finish the campaign with a result. */
static int
do_end(struct exec *x)
{
	int rc;

	if (x->g.status == GAME_FINISHED) {
		hp_seterr(x->err, HP_ESTATE, "campaign %s has already ended: %s",
		    x->g.name, x->g.result);
		return HP_ESTATE;
	}
	if (strlen(x->cmd->arg) > 80) {
		hp_seterr(x->err, HP_EINVAL, "end: the result is at most 80 "
		    "characters");
		return HP_EINVAL;
	}
	/* The audit applies this end, as recorded in the commands table,
	 * after replaying the resolved windows (docs/AUDIT.md). */
	x->g.status = GAME_FINISHED;
	window_end_result(x->cmd->arg, x->g.result, sizeof x->g.result);
	if ((rc = store_game_save(x->st, x->cid, &x->g, x->err)) != HP_OK)
		return rc;
	sbuf_printf(x->reply, "Campaign %s has ended: %s.\n", x->g.name,
	    x->g.result);
	return notify_all(x, "game over", x->reply->buf);
}

/* status and report: for any player. */
static int
do_request(struct exec *x, bool report)
{
	struct store_window w;
	char *body;
	int view = -1;

	if (!report) {
		int rc = deadline_status(x->st, x->cfg, x->cid, &x->g, x->now,
		    x->reply, x->err);

		if (rc != HP_OK)
			return rc;
		return absence_status(x->st, &x->g, x->cid, x->now,
		    x->who == NULL || x->who->moderator, x->reply, x->err);
	}
	if (x->who != NULL)
		view = x->who->moderator ? -1 : x->who->side;
	else if (x->cmd->arg[0] != '\0' &&
	    (view = game_side_index(&x->g, x->cmd->arg)) < 0) {
		hp_seterr(x->err, HP_EINVAL, "no side '%s' in %s", x->cmd->arg,
		    x->g.name);
		return HP_EINVAL;
	}
	if ((body = last_report(x, view, &w)) == NULL)
		return x->err->code;
	sbuf_puts(x->reply, body);
	free(body);
	return HP_OK;
}

/* moderator-key: register the campaign's moderator key (--key), once. */
static int
do_modkey(struct exec *x)
{
	char *have = NULL, pub[300], id[17];
	int rc;

	if (x->who != NULL) {
		hp_seterr(x->err, HP_EINVAL, "the moderator key is registered "
		    "on the command line only");
		return HP_EINVAL;
	}
	if ((rc = store_modkey_get(x->st, x->cid, &have, x->err)) != HP_OK)
		return rc;
	if (have != NULL) {
		free(have);
		hp_seterr(x->err, HP_ESTATE, "campaign %s has a moderator key "
		    "already; it is registered once (a key changed later could "
		    "be anybody's)", x->g.name);
		return HP_ESTATE;
	}
	snprintf(pub, sizeof pub, "untrusted comment: minisign public key\n"
	    "%s\n", x->cmd->key);
	if (x->cmd->key[0] == '\0' || !modstmt_keyid(pub, id)) {
		hp_seterr(x->err, HP_EINVAL, "moderator-key needs the "
		    "moderator's minisign public key (--key FILE)");
		return HP_EINVAL;
	}
	snprintf(pub, sizeof pub, "untrusted comment: minisign public key %s\n"
	    "%s\n", id, x->cmd->key);
	if ((rc = store_modkey_put(x->st, x->cid, pub, x->err)) != HP_OK)
		return rc;
	sbuf_printf(x->reply, "Campaign %s: the moderator's key is %s. From "
	    "now on replace, proceed, end, extend and deadline are statements "
	    "signed by that key, each mailed to every player; an audit given "
	    "--moderator-key checks them.\n\n%s", x->g.name, id, pub);
	return notify_all(x, "moderator key", x->reply->buf);
}

/* The canonical argument of statement verb v into m->arg. */
static int
statement_arg(struct exec *x, struct modstmt *m)
{
	const char *a = x->cmd->arg;
	struct minisign_pubkey pk;
	char pub[300], id[17] = "-";
	long v;
	int side;
	size_t i;

	for (i = 0; a[i] != '\0'; i++)
		if ((unsigned char)a[i] < 0x20 || a[i] == 0x7f) {
			hp_seterr(x->err, HP_EINVAL, "%s: a control character in "
			    "the argument", m->verb);
			return HP_EINVAL;
		}
	if (strcmp(m->verb, "replace") == 0) {
		if ((side = game_side_index(&x->g, a)) < 0) {
			hp_seterr(x->err, HP_EINVAL, "no side '%s' in %s", a,
			    x->g.name);
			return HP_EINVAL;
		}
		snprintf(pub, sizeof pub, "untrusted comment: k\n%s\n",
		    x->cmd->key);
		if (x->cmd->key[0] != '\0' && minisign_pubkey_parse(pub,
		    strlen(pub), &pk, NULL) == HP_OK)
			minisign_keyid_hex(pk.keyid, id);
		snprintf(m->arg, sizeof m->arg, "%s %s", x->g.sides[side].name,
		    id);
	} else if (strcmp(m->verb, "proceed") == 0)
		strlcpy_(m->arg, a[0] ? a : "ai", sizeof m->arg);
	else if (strcmp(m->verb, "extend") == 0 && parse_num(a, 1, 10000, &v))
		snprintf(m->arg, sizeof m->arg, "%ld", v);
	else if (strlen(a) >= sizeof m->arg) {
		hp_seterr(x->err, HP_EINVAL, "%s: argument too long", m->verb);
		return HP_EINVAL;
	} else
		strlcpy_(m->arg, a, sizeof m->arg);
	return HP_OK;
}

/* For a statement verb: the statement this command makes (into reply
 * with --print-statement: *done set), checked against its signature by
 * the campaign's moderator key and recorded. A campaign without a
 * moderator key takes the command unsigned, recorded as a statement with
 * no signature. */
static int
statement(struct exec *x, bool *done)
{
	struct store_window *ws = NULL, w;
	struct store_modstmt *all = NULL;
	struct hp_error verr = { 0, "" };
	struct modstmt m;
	struct store_clock c;
	unsigned missing;
	char *pub = NULL, *text = NULL;
	int rc, n = 0, i, nstmt = 0;

	*done = false;
	if (!modstmt_signed_verb(x->cmd->verb))
		return HP_OK;
	if ((rc = store_modkey_get(x->st, x->cid, &pub, x->err)) != HP_OK)
		return rc;
	memset(&m, 0, sizeof m);
	strlcpy_(m.verb, x->cmd->verb, sizeof m.verb);
	if ((rc = open_window(x, &w, &c, &missing)) != HP_OK ||
	    (rc = statement_arg(x, &m)) != HP_OK ||
	    (rc = store_windows_all(x->st, x->cid, &ws, &n, x->err)) != HP_OK ||
	    (rc = store_modstmt_all(x->st, x->cid, &all, &nstmt, x->err)) !=
	    HP_OK)
		goto out;
	for (i = 0; i < n && ws[i].id != w.id; i++)
		;
	strlcpy_(m.campaign, x->g.name, sizeof m.campaign);
	m.seq = nstmt + 1;
	m.window = i + 1;
	m.turn = w.spec.turn;
	m.number = w.spec.number;
	strlcpy_(m.name, w.spec.name, sizeof m.name);
	text = modstmt_format(&m);
	if (x->cmd->print_statement) {
		sbuf_puts(x->reply, text);
		*done = true;
		goto out;
	}
	if (pub == NULL && x->cmd->sig != NULL) {
		hp_seterr(x->err, HP_EINVAL, "campaign %s has no moderator key, "
		    "so no signature can be checked; register it first "
		    "('hexpost moderate %s moderator-key --key FILE')",
		    x->g.name, x->g.name);
		rc = HP_EINVAL;
		goto out;
	}
	if (pub == NULL) {
		/* No moderator key: the action is recorded as an unsigned
		 * statement (an empty signature) and announced; every audit
		 * fails on it unless the auditor accepts unsigned moderation
		 * (docs/AUDIT.md, "Unsigned moderator actions"). */
		struct sbuf b;

		if ((rc = store_modstmt_add(x->st, x->cid, m.seq, text, "",
		    x->now, x->err)) != HP_OK)
			goto out;
		sbuf_init(&b);
		sbuf_printf(&b, "The moderator's statement %d, NOT signed: "
		    "campaign %s has no moderator key, so this action is on the "
		    "word of whoever runs the server, and every audit of the "
		    "campaign fails on it unless the auditor passes "
		    "--accept-unsigned-moderation:\n---8<--- statement.txt\n"
		    "%s---8<---\n", m.seq, x->g.name, text);
		x->stmt = sbuf_steal(&b);
		goto out;
	}
	if (x->cmd->sig == NULL && x->who != NULL) {
		/* A mailed command file: say what to mail instead. */
		hp_seterr(x->err, HP_EINVAL, "campaign %s has a moderator key: "
		    "'%s %s' is statement %d, signed by it. Mail the statement "
		    "as statement.txt with its signature statement.txt.minisig "
		    "(minisign -S -s moderator.key -m statement.txt); it reads:"
		    "\n%s", x->g.name, m.verb, m.arg, m.seq, text);
		rc = HP_EINVAL;
		goto out;
	}
	if (x->cmd->stmt_text != NULL && strcmp(x->cmd->stmt_text, text) !=
	    0) {
		/* A mailed statement that is not the next one (a replay, an
		 * old window): say which line differs. */
		const char *a = x->cmd->stmt_text, *b = text;
		int line = 1;

		for (; *a != '\0' && *a == *b; a++, b++)
			if (*a == '\n')
				line++;
		hp_seterr(x->err, HP_EINVAL, "line %d of the statement differs "
		    "from statement %d, the one hexpost makes for '%s %s' now "
		    "(a statement is carried out once, in the window open when "
		    "it is signed); it reads:\n%s", line, m.seq, m.verb, m.arg,
		    text);
		rc = HP_EINVAL;
		goto out;
	}
	if (x->cmd->sig == NULL) {
		hp_seterr(x->err, HP_EINVAL, "campaign %s has a moderator key: "
		    "'%s %s' is a statement signed by it. Write it with "
		    "'hexpost moderate %s %s%s%s --print-statement > s.txt', "
		    "sign it where the moderator's secret key is ('minisign -S "
		    "-s moderator.key -m s.txt') and give --sig s.txt.minisig",
		    x->g.name, m.verb, m.arg, x->g.name, x->cmd->verb,
		    x->cmd->arg[0] ? " " : "", x->cmd->arg);
		rc = HP_EINVAL;
		goto out;
	}
	if (modstmt_verify(pub, text, x->cmd->sig, &verr) != HP_OK) {
		hp_seterr(x->err, HP_EINVAL, "the signature given is not the "
		    "campaign's moderator key's over statement %d ('%s %s'): "
		    "%s", m.seq, m.verb, m.arg, verr.msg);
		rc = HP_EINVAL;
		goto out;
	}
	if ((rc = store_modstmt_add(x->st, x->cid, m.seq, text, x->cmd->sig,
	    x->now, x->err)) != HP_OK)
		goto out;
	{
		struct sbuf b;

		sbuf_init(&b);
		sbuf_printf(&b, "The moderator's statement %d, signed by the "
		    "moderator's key (check it with minisign -V -p "
		    "moderator.pub -m statement.txt):\n---8<--- statement.txt\n"
		    "%s---8<--- statement.txt.minisig\n%s%s---8<---\n", m.seq,
		    text, x->cmd->sig, x->cmd->sig[0] != '\0' &&
		    x->cmd->sig[strlen(x->cmd->sig) - 1] != '\n' ? "\n" : "");
		x->stmt = sbuf_steal(&b);
	}
out:
	store_modstmt_free(all, nstmt);
	free(ws);
	free(text);
	free(pub);
	return rc;
}

/* mail ITEM on|off (issue 18): what report mail carries besides its text,
 * for the player who sent it, or from the command line for the campaign. */
static int
do_mail(struct exec *x)
{
	enum mailpref_item it;
	char item[32], val[8];
	int rc;

	if (sscanf(x->cmd->arg, "%31s %7s", item, val) != 2 ||
	    !mailpref_parse(item, &it) || (strcmp(val, "on") != 0 &&
	    strcmp(val, "off") != 0)) {
		hp_seterr(x->err, HP_EINVAL, "'mail' takes picture-mail or "
		    "json-mail, then on or off");
		return HP_EINVAL;
	}
	if ((rc = mailpref_set(x->st, x->cid, x->who != NULL ? x->who->name :
	    NULL, it, strcmp(val, "on") == 0, x->err)) != HP_OK)
		return rc;
	sbuf_printf(x->reply, "%s %s: %s\n", item, val, it == MAILPREF_PICTURE ?
	    "the picture of the map attached to each report" : "your view as "
	    "JSON attached to each report (docs/export.schema.json)");
	if (x->who == NULL)
		sbuf_puts(x->reply, "(for the whole campaign; a player's own "
		    "choice wins)\n");
	return HP_OK;
}

/* Run the parsed command x->cmd. */
static int
dispatch(struct exec *x)
{
	const char *v = x->cmd->verb;

	if (strcmp(v, "status") == 0 || strcmp(v, "report") == 0)
		return do_request(x, v[0] == 'r');
	if (strcmp(v, "pause") == 0 || strcmp(v, "resume") == 0)
		return do_pause(x, v[0] == 'p');
	if (strcmp(v, "extend") == 0 || strcmp(v, "deadline") == 0)
		return do_deadline(x, v[0] == 'e');
	if (strcmp(v, "set") == 0)
		return do_set(x);
	if (strcmp(v, "proceed") == 0)
		return do_proceed(x);
	if (strcmp(v, "replace") == 0)
		return do_replace(x);
	if (strcmp(v, "resend") == 0)
		return do_resend(x);
	if (strcmp(v, "moderator-key") == 0)
		return do_modkey(x);
	if (strcmp(v, "vacation") == 0)
		return absence_vacation(x->st, x->cfg, &x->g, x->cid, x->who,
		    x->cmd->arg, x->now, x->reply, x->err);
	if (strcmp(v, "extension") == 0)
		return absence_extension(x->st, x->cfg, &x->g, x->cid, x->who,
		    x->cmd->arg, x->now, x->reply, x->err);
	if (strcmp(v, "mail") == 0)
		return do_mail(x);
	return do_end(x);
}

int
moderator_exec(struct store *st, const struct config *cfg,
    const struct mod_command *cmd, const struct store_player *who, long now,
    struct sbuf *reply, struct hp_error *err)
{
	struct exec x;
	char line[300];
	size_t i;
	bool printed = false;
	int rc;

	for (i = 0; i < NVERBS && strcmp(verbs[i].verb, cmd->verb) != 0; i++)
		;
	if (i == NVERBS) {
		hp_seterr(err, HP_EINVAL, "unknown command '%s' (status, report, "
		    "pause, resume, extend, deadline, set, proceed, replace, "
		    "resend, end, moderator-key, vacation, extension, mail)",
		    cmd->verb);
		return HP_EINVAL;
	}
	if ((verbs[i].args == 0 && cmd->arg[0] != '\0') ||
	    (verbs[i].args == 2 && cmd->arg[0] == '\0')) {
		hp_seterr(err, HP_EINVAL, "'%s' %s", cmd->verb,
		    verbs[i].args ? "needs an argument" : "takes no argument");
		return HP_EINVAL;
	}
	if (who != NULL && strcmp(who->campaign, cmd->campaign) != 0) {
		hp_seterr(err, HP_EINVAL, "your key plays in %s, not in %s",
		    who->campaign, cmd->campaign);
		return HP_EINVAL;
	}
	if (who != NULL && verbs[i].moderator && !who->moderator) {
		hp_seterr(err, HP_EINVAL, "only the moderator of %s may '%s'",
		    cmd->campaign, cmd->verb);
		return HP_EINVAL;
	}
	if (who != NULL && cmd->nonce[0] == '\0') {
		hp_seterr(err, HP_EINVAL, "a command file needs a 'nonce:' line "
		    "(any text never used before; contrib/hexpost-player fills "
		    "it in)");
		return HP_EINVAL;
	}
	memset(&x, 0, sizeof x);
	x.st = st;
	x.cfg = cfg;
	x.cmd = cmd;
	x.who = who;
	x.now = now;
	x.reply = reply;
	x.err = err;
	game_init(&x.g);
	if ((rc = store_savepoint(st, err)) != HP_OK)
		goto out;
	if ((rc = store_game_load(st, cmd->campaign, &x.g, &x.cid, err)) !=
	    HP_OK || (rc = deadline_settings_get(st, cfg, x.cid, &x.ds,
	    err)) != HP_OK)
		goto undo;
	snprintf(line, sizeof line, "%s%s%s", cmd->verb, cmd->arg[0] ? " " :
	    "", cmd->arg);
	if ((rc = store_command_add(st, x.cid, who ? who->id : 0, who ?
	    cmd->nonce : NULL, line, cmd->email, now, &x.cmdid, err)) !=
	    HP_OK)
		goto undo;
	if ((rc = statement(&x, &printed)) != HP_OK)
		goto undo;
	/* A signed command is the player writing again (absence.h). */
	if (who != NULL && !printed && (rc = absence_player_wrote(st, who->id,
	    now, reply, err)) != HP_OK)
		goto undo;
	if (printed) {	/* --print-statement: nothing is carried out */
		store_rollback_savepoint(st);
		goto out;
	}
	/* A replace is announced before it is carried out, so that the
	 * player replaced gets the statement too. */
	if (x.stmt != NULL && strcmp(cmd->verb, "replace") == 0 &&
	    (rc = notify_all(&x, "moderator statement", "A player is "
	    "replaced by the moderator's statement below.\n")) != HP_OK)
		goto undo;
	if ((rc = dispatch(&x)) != HP_OK)
		goto undo;
	if (x.stmt != NULL && !x.announced && (rc = notify_all(&x,
	    "moderator statement", reply->buf)) != HP_OK)
		goto undo;
	rc = store_release(st, err);
	log_info("%s: %s by %s", x.g.name, line, who ? who->name :
	    "the command line");
	goto out;
undo:
	store_rollback_savepoint(st);
out:
	free(x.stmt);
	game_free(&x.g);
	return rc;
}

/* The base64 line of a minisign public key file. */
static int
key_line(const char *path, char *out, size_t len, struct hp_error *err)
{
	struct minisign_pubkey pk;
	char *text, *line, *next;
	int rc = HP_EINVAL;

	if ((text = util_read_file(path, NULL, err)) == NULL)
		return HP_EIO;
	if (minisign_pubkey_parse(text, strlen(text), &pk, err) == HP_OK)
		for (line = text; line != NULL; line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			line[strcspn(line, "\r")] = '\0';
			if (*line != '\0' && strncmp(line, "untrusted comment:",
			    18) != 0 && strlen(line) < len) {
				strlcpy_(out, line, len);
				rc = HP_OK;
			}
		}
	if (rc != HP_OK && err->msg[0] == '\0')
		hp_seterr(err, HP_EINVAL, "%s: not a minisign public key", path);
	free(text);
	return rc;
}

int
moderator_key_file(const char *path, char *out, size_t len,
    struct hp_error *err)
{
	return key_line(path, out, len, err);
}

int
moderator_key_register(struct store *st, const struct config *cfg,
    const char *campaign, const char *keyline, struct sbuf *reply,
    struct hp_error *err)
{
	struct mod_command cmd;
	int rc;

	memset(&cmd, 0, sizeof cmd);
	strlcpy_(cmd.campaign, campaign, sizeof cmd.campaign);
	strlcpy_(cmd.verb, "moderator-key", sizeof cmd.verb);
	strlcpy_(cmd.key, keyline, sizeof cmd.key);
	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	if ((rc = moderator_exec(st, cfg, &cmd, NULL, deadline_now(), reply,
	    err)) != HP_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st, err);
}

int
moderator_cli(int argc, char **argv, const struct config *cfg,
    const char *db_path)
{
	static const struct option opts[] = {
		{ "email", required_argument, NULL, 'e' },
		{ "key", required_argument, NULL, 'k' },
		{ "name", required_argument, NULL, 'n' },
		{ "sig", required_argument, NULL, 's' },
		{ "print-statement", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	struct mod_command cmd;
	struct store *st = NULL;
	struct sbuf reply, arg;
	char *sig = NULL;
	int ch, rc, i;

	memset(&cmd, 0, sizeof cmd);
	while ((ch = getopt_long(argc, argv, "e:k:n:s:ph", opts, NULL)) != -1)
		switch (ch) {
		case 's':
			free(sig);
			if ((sig = util_read_file(optarg, NULL, &err)) == NULL) {
				fprintf(stderr, "hexpost: %s\n", err.msg);
				return HP_EX_NOINPUT;
			}
			cmd.sig = sig;
			break;
		case 'p':
			cmd.print_statement = true;
			break;
		case 'e':
			strlcpy_(cmd.email, optarg, sizeof cmd.email);
			break;
		case 'n':
			strlcpy_(cmd.name, optarg, sizeof cmd.name);
			break;
		case 'k':
			if (key_line(optarg, cmd.key, sizeof cmd.key, &err) !=
			    HP_OK) {
				fprintf(stderr, "hexpost: %s\n", err.msg);
				free(sig);
				return HP_EX_DATAERR;
			}
			break;
		default:
			fprintf(stderr, "usage: hexpost moderate NAME COMMAND "
			    "[ARG...] [--email A] [--key FILE] [--name N] "
			    "[--sig FILE] [--print-statement]\n");
			free(sig);
			return ch == 'h' ? 0 : HP_EX_USAGE;
		}
	if (argc - optind < 2 || strlen(argv[optind]) >= sizeof cmd.campaign ||
	    strlen(argv[optind + 1]) >= sizeof cmd.verb) {
		fprintf(stderr, "usage: hexpost moderate NAME COMMAND [ARG...] "
		    "[--email A] [--key FILE] [--name N] [--sig FILE] "
		    "[--print-statement]\n");
		free(sig);
		return HP_EX_USAGE;
	}
	strlcpy_(cmd.campaign, argv[optind], sizeof cmd.campaign);
	strlcpy_(cmd.verb, argv[optind + 1], sizeof cmd.verb);
	sbuf_init(&arg);
	sbuf_add(&arg, "", 0);
	for (i = optind + 2; i < argc; i++)
		sbuf_printf(&arg, "%s%s", i > optind + 2 ? " " : "", argv[i]);
	strlcpy_(cmd.arg, arg.buf, sizeof cmd.arg);
	sbuf_free(&arg);
	if (access(db_path, F_OK) != 0) {
		fprintf(stderr, "hexpost: %s: no database (run 'hexpost init' "
		    "first, or give --db)\n", db_path);
		free(sig);
		return HP_EX_NOINPUT;
	}
	sbuf_init(&reply);
	sbuf_add(&reply, "", 0);
	if ((rc = store_open(&st, db_path, false, &err)) != HP_OK)
		goto out;
	if ((rc = store_begin(st, &err)) != HP_OK)
		goto out;
	if ((rc = moderator_exec(st, cfg, &cmd, NULL, deadline_now(), &reply,
	    &err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	rc = store_commit(st, &err);
out:
	if (rc == HP_OK)
		fputs(reply.buf, stdout);
	else
		fprintf(stderr, "hexpost: %s\n", err.msg);
	sbuf_free(&reply);
	free(sig);
	store_close(st);
	return hp_exit_code(rc);
}
