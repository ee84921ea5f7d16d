/* web: the static campaign web archive (see include/web.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "audit.h"
#include "deadline.h"
#include "mapout.h"
#include "picture.h"
#include "view.h"
#include "web.h"

static const char web_css[] =
    "body { font-family: sans-serif; margin: 1em auto; max-width: 72em; "
    "padding: 0 1em; color: #222; background: #fdfdf8; }\n"
    "h1, h2, h3 { color: #234; }\n"
    "table { border-collapse: collapse; margin: .5em 0; }\n"
    "th, td { border: 1px solid #bbb; padding: .25em .6em; text-align: left; "
    "vertical-align: top; }\n"
    "th { background: #e8ecf0; }\n"
    "pre { background: #f3f3ee; padding: .5em; overflow-x: auto; "
    "font-size: .85em; }\n"
    "img.map { max-width: 100%; height: auto; border: 1px solid #ccc; }\n"
    "section.window { border-top: 2px solid #ccd; margin-top: 1.5em; }\n"
    ".owes { color: #a30; font-weight: bold; }\n"
    "code { word-break: break-all; }\n"
    "footer { margin-top: 2em; font-size: .8em; color: #666; }\n";

/* Append s to b with HTML's special characters escaped. */
static void
esc(struct sbuf *b, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		switch (*s) {
		case '<': sbuf_puts(b, "&lt;"); break;
		case '>': sbuf_puts(b, "&gt;"); break;
		case '&': sbuf_puts(b, "&amp;"); break;
		case '"': sbuf_puts(b, "&quot;"); break;
		default: sbuf_add(b, s, 1);
		}
}

/* A file or directory name from a campaign name: [A-Za-z0-9_-] kept. */
static void
safe_name(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < len; i++)
		buf[i] = ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '-' || s[i] == '_') ? s[i] : '_';
	buf[i] = '\0';
}

/* Make dir (if missing) readable by a web server: mode 0755 whatever the
 * umask. */
static int
mkdir_p(const char *dir, struct hp_error *err)
{
	if ((mkdir(dir, 0755) == 0 || errno == EEXIST) && chmod(dir, 0755) ==
	    0)
		return HP_OK;
	hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
	return HP_EIO;
}

/* nftw: the audit bundle (public once the game has ended) readable by a
 * web server. */
static int
bundle_mode(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return chmod(path, flag == FTW_D ? 0755 : 0644) == 0 ? 0 : -1;
}

static int
put(const char *dir, const char *name, const void *data, size_t len,
    struct hp_error *err)
{
	char path[4400], *have;
	size_t n = 0;
	bool same;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	/* A file already as it should be is left alone (the daemon rewrites
	 * the archive after every pass). */
	if ((have = util_read_file(path, &n, NULL)) != NULL) {
		same = n == len && memcmp(have, data, len) == 0;
		free(have);
		if (same)
			return HP_OK;
	}
	return util_write_file_atomic(path, data, len, 0644, err);
}

static bool
exists(const char *dir, const char *name)
{
	char path[4400];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Draw m as base.svg and base.png in dir (unless keep and they exist). */
static int
pictures(const char *dir, const char *base, const struct pic_model *m,
    bool keep, struct hp_error *err)
{
	char name[300];
	struct sbuf b;
	int rc, k;

	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof name, "%s.%s", base, k ? "png" : "svg");
		if (keep && exists(dir, name))
			continue;
		sbuf_init(&b);
		rc = picture_draw(m, k == 0, &b, err);
		if (rc == HP_OK)
			rc = put(dir, name, b.buf, b.len, err);
		sbuf_free(&b);
		if (rc != HP_OK)
			return rc;
	}
	return HP_OK;
}

/* The <figure> of picture base. */
static void
figure(struct sbuf *h, const char *base, const char *caption)
{
	sbuf_printf(h, "<figure><a href=\"%s.png\"><img class=\"map\" src=\""
	    "%s.svg\" alt=\"", base, base);
	esc(h, caption);
	sbuf_puts(h, "\"></a><figcaption>");
	esc(h, caption);
	sbuf_printf(h, " (<a href=\"%s.svg\">SVG</a>, <a href=\"%s.png\">PNG"
	    "</a>)</figcaption></figure>\n", base, base);
}

static void
page_start(struct sbuf *h, const char *title, const char *css)
{
	sbuf_puts(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
	    "charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width="
	    "device-width, initial-scale=1\">\n<title>");
	esc(h, title);
	sbuf_printf(h, "</title>\n<link rel=\"stylesheet\" href=\"%s\">\n"
	    "</head>\n<body>\n<h1>", css);
	esc(h, title);
	sbuf_puts(h, "</h1>\n");
}

static void
page_end(struct sbuf *h)
{
	sbuf_puts(h, "<footer>Written by hexpost " HEXPOST_VERSION ". Dice "
	    "logs are signed with the server's minisign key: check one with "
	    "<code>minisign -V -p server.pub -m dice-log.txt</code>.</footer>\n"
	    "</body>\n</html>\n");
}

static bool
every_side_sees_event(const struct game *g, const struct event *e)
{
	int s;

	for (s = 0; s < g->nsides; s++)
		if (!view_event(e, s))
			return false;
	return true;
}

/* Does every side see every roll of window wid (public stream)? */
static bool
dice_public(struct store *st, const struct game *g, int64_t wid,
    const struct events *ev)
{
	struct hp_error e = { 0, "" };
	struct dice d;
	bool ok = true;
	size_t i;
	int s;

	memset(&d, 0, sizeof d);
	if (store_dice_load(st, wid, &d, &e) != HP_OK)
		ok = false;
	for (i = 0; ok && i < d.nlog; i++)
		for (s = 0; s < g->nsides; s++)
			if (!view_roll(ev, &d.log[i], s))
				ok = false;
	dice_free(&d);
	return ok;
}

struct camp {
	struct store *st;
	const struct config *cfg;
	const char *dir;
	struct sbuf *index;
	int rc;
	struct hp_error *err;
};

/* The open window: deadline, commitment and the sides that owe orders. */
static void
open_window(struct camp *c, const struct game *g, int64_t cid,
    struct sbuf *h, struct sbuf *row)
{
	struct store_window w;
	struct store_order_row *rows = NULL;
	struct deadline_settings ds;
	struct store_clock clk;
	char hex[65], when[64] = "none";
	long dl = 0;
	int n = 0, i, s;
	unsigned owed;

	if (store_window_current(c->st, cid, &w, NULL) != HP_OK) {
		sbuf_puts(row, "<td>-</td><td>-</td><td>-</td>");
		return;
	}
	sodium_memzero(w.seed, sizeof w.seed);
	if (deadline_settings_get(c->st, c->cfg, cid, &ds, NULL) == HP_OK &&
	    store_clock_get(c->st, w.id, &clk, NULL) == HP_OK && clk.have &&
	    (dl = deadline_of(&ds, &clk)) > 0)
		deadline_format(dl, when, sizeof when);
	if (ds.paused)
		snprintf(when, sizeof when, "paused by the moderator");
	owed = w.spec.sides;
	if (store_orders_all(c->st, w.id, &rows, &n, NULL) == HP_OK)
		for (i = 0; i < n; i++)
			if (rows[i].current && rows[i].side >= 0)
				owed &= ~(1u << rows[i].side);
	store_order_rows_free(rows, n);
	sodium_bin2hex(hex, sizeof hex, w.commitment, 32);
	sbuf_printf(h, "<h2>Open window</h2>\n<table>\n<tr><th>turn</th><td>%d"
	    "</td></tr>\n<tr><th>window</th><td>", w.spec.turn);
	esc(h, w.spec.name);
	sbuf_puts(h, "</td></tr>\n<tr><th>deadline</th><td>");
	esc(h, when);
	sbuf_printf(h, "</td></tr>\n<tr><th>dice commitment</th><td><code>%s"
	    "</code></td></tr>\n<tr><th>still owes orders</th><td class=\""
	    "owes\">", hex);
	sbuf_printf(row, "<td>turn %d '", w.spec.turn);
	esc(row, w.spec.name);
	sbuf_puts(row, "'</td><td>");
	esc(row, when);
	sbuf_puts(row, "</td><td>");
	for (s = 0; s < g->nsides; s++)
		if (owed & (1u << s)) {
			esc(h, g->sides[s].label);
			esc(row, g->sides[s].name);
			sbuf_puts(h, g->sides[s].ai ? " (built-in opponent) " :
			    " ");
			sbuf_puts(row, " ");
		}
	if (owed == 0)
		sbuf_puts(h, "nobody: it resolves at the next pass");
	sbuf_puts(row, "</td>");
	sbuf_puts(h, "</td></tr>\n</table>\n");
}

/* One resolved window's section. */
static int
window_section(struct camp *c, const struct game *g, const char *cdir,
    const struct store_window *w, bool finished, struct sbuf *h)
{
	struct hp_error *err = c->err;
	struct pic_model m;
	struct events ev;
	char base[128], hex[2 * 64 + 1], name[160], *text = NULL, *sig = NULL,
	    *pub = NULL, *rep;
	size_t i;
	int rc, s;
	bool any = false;

	events_init(&ev);
	if ((rc = mapout_events(c->st, w->id, &ev, err)) != HP_OK) {
		events_free(&ev);
		return rc;
	}
	sbuf_printf(h, "<section class=\"window\" id=\"t%d-w%d\">\n<h3>Turn %d, "
	    "window '", w->spec.turn, w->spec.number, w->spec.turn);
	esc(h, w->spec.name);
	sbuf_puts(h, "'</h3>\n");
	snprintf(base, sizeof base, "t%d-w%d-public", w->spec.turn,
	    w->spec.number);
	picture_init(&m);
	if (mapout_stored(c->st, w->id, MAPOUT_PUBLIC, &m, err) == HP_OK) {
		if ((rc = pictures(cdir, base, &m, true, err)) != HP_OK) {
			picture_free(&m);
			events_free(&ev);
			return rc;
		}
		figure(h, base, "the public view after this window");
	}
	picture_free(&m);
	sbuf_puts(h, "<h4>Events every side sees</h4>\n<ul>\n");
	for (i = 0; i < ev.n; i++)
		if (finished || every_side_sees_event(g, &ev.v[i])) {
			sbuf_puts(h, "<li>");
			esc(h, ev.v[i].text);
			sbuf_puts(h, "</li>\n");
			any = true;
		}
	if (!any)
		sbuf_puts(h, "<li>none</li>\n");
	sbuf_puts(h, "</ul>\n<table>\n");
	sodium_bin2hex(hex, sizeof hex, w->commitment, 32);
	sbuf_printf(h, "<tr><th>commitment</th><td><code>%s</code></td></tr>\n",
	    hex);
	sodium_bin2hex(hex, sizeof hex, w->seed, DICE_SEEDLEN);
	sbuf_printf(h, "<tr><th>revealed seed</th><td><code>%s</code></td>"
	    "</tr>\n", hex);
	if (store_dicelog_get(c->st, w->id, &text, &sig, &pub, NULL) == HP_OK &&
	    text != NULL && (finished || dice_public(c->st, g, w->id, &ev))) {
		snprintf(name, sizeof name, "t%d-w%d-dice-log.txt",
		    w->spec.turn, w->spec.number);
		rc = put(cdir, name, text, strlen(text), err);
		if (rc == HP_OK && sig != NULL) {
			snprintf(name, sizeof name, "t%d-w%d-dice-log.txt."
			    "minisig", w->spec.turn, w->spec.number);
			rc = put(cdir, name, sig, strlen(sig), err);
		}
		if (rc != HP_OK)
			goto out;
		sbuf_printf(h, "<tr><th>dice log</th><td><a href=\"t%d-w%d-dice-"
		    "log.txt\">dice-log.txt</a>%s", w->spec.turn,
		    w->spec.number, sig != NULL ? ", signature: " : "");
		if (sig != NULL)
			sbuf_printf(h, "<a href=\"t%d-w%d-dice-log.txt.minisig\">"
			    "dice-log.txt.minisig</a>", w->spec.turn,
			    w->spec.number);
		sbuf_puts(h, "<pre>");
		esc(h, text);
		sbuf_puts(h, "</pre></td></tr>\n");
	} else
		sbuf_puts(h, "<tr><th>dice log</th><td>shown after the end of "
		    "the game (some of its rolls are hidden from a side)</td>"
		    "</tr>\n");
	sbuf_puts(h, "</table>\n");
	if (finished) {	/* the full reveal: every side's view */
		for (s = 0; s < g->nsides; s++) {
			char sn[GAME_ID_MAX + 8], cap[200];

			safe_name(g->sides[s].name, sn, sizeof sn);
			snprintf(base, sizeof base, "t%d-w%d-%s", w->spec.turn,
			    w->spec.number, sn);
			picture_init(&m);
			if (mapout_stored(c->st, w->id, s, &m, NULL) == HP_OK) {
				rc = pictures(cdir, base, &m, true, err);
				snprintf(cap, sizeof cap, "%s's view",
				    g->sides[s].label);
				if (rc == HP_OK)
					figure(h, base, cap);
			}
			picture_free(&m);
			if (rc != HP_OK)
				goto out;
			if ((rep = store_report_get(c->st, w->id, s, NULL)) !=
			    NULL) {
				sbuf_puts(h, "<details><summary>");
				esc(h, g->sides[s].label);
				sbuf_puts(h, "'s report</summary><pre>");
				esc(h, rep);
				sbuf_puts(h, "</pre></details>\n");
				free(rep);
			}
		}
	}
	sbuf_puts(h, "</section>\n");
out:
	free(text);
	free(sig);
	free(pub);
	events_free(&ev);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The audit bundle of a finished campaign into cdir/audit (once: written
 * under a temporary name, then renamed), and its top-level entries. */
static int
bundle(struct camp *c, const char *name, const char *cdir, struct sbuf *h)
{
	char dir[4200], tmp[4200], *names[256];
	struct dirent *de;
	DIR *d;
	int rc, n = 0, i;

	snprintf(dir, sizeof dir, "%s/audit", cdir);
	if (access(dir, F_OK) != 0) {
		snprintf(tmp, sizeof tmp, "%s/.audit.tmp.%ld", cdir,
		    (long)getpid());
		if ((rc = audit_export(c->st, name, tmp, c->cfg != NULL ?
		    c->cfg->server_pub : NULL, c->err)) != HP_OK)
			return rc;
		if (nftw(tmp, bundle_mode, 16, FTW_PHYS) != 0) {
			hp_seterr(c->err, HP_EIO, "%s: %s", tmp,
			    strerror(errno));
			return HP_EIO;
		}
		if (rename(tmp, dir) != 0) {
			hp_seterr(c->err, HP_EIO, "%s: %s", dir,
			    strerror(errno));
			return HP_EIO;
		}
	}
	sbuf_puts(h, "<h2>Audit bundle</h2>\n<p>Everything needed to check "
	    "the game: signed order files, dice logs and their signatures, "
	    "revealed seeds, reports and public keys. Download the directory "
	    "<a href=\"audit/\">audit/</a> (e.g. <code>wget -r -np</code>) and "
	    "check it with <code>hexpost audit --bundle audit</code> or "
	    "<code>python3 contrib/hexpost-audit.py audit</code>.</p>\n<ul "
	    "id=\"bundle\">\n");
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL && n < 256)
			if (de->d_name[0] != '.')
				names[n++] = xstrdup(de->d_name);
		closedir(d);
	}
	qsort(names, (size_t)n, sizeof names[0], cmp_str);
	for (i = 0; i < n; i++) {
		sbuf_puts(h, "<li><a href=\"audit/");
		esc(h, names[i]);
		sbuf_puts(h, "\">");
		esc(h, names[i]);
		sbuf_puts(h, "</a></li>\n");
		free(names[i]);
	}
	sbuf_puts(h, "</ul>\n");
	return HP_OK;
}

/* One campaign: its page and its row in the index. */
static void
campaign(const struct store_campaign_info *ci, void *arg)
{
	struct camp *c = arg;
	struct game g;
	struct store_window *ws = NULL;
	struct pic_model m;
	struct sbuf h, row;
	char sn[GAME_NAME_MAX + 4], cdir[4096], title[200];
	int64_t cid;
	int n = 0, i;
	bool finished;

	if (c->rc != HP_OK)
		return;
	game_init(&g);
	sbuf_init(&h);
	sbuf_init(&row);
	if ((c->rc = store_game_load(c->st, ci->name, &g, &cid, c->err)) !=
	    HP_OK)
		goto out;
	finished = g.status == GAME_FINISHED;
	safe_name(ci->name, sn, sizeof sn);
	snprintf(cdir, sizeof cdir, "%s/%s", c->dir, sn);
	if ((c->rc = mkdir_p(cdir, c->err)) != HP_OK)
		goto out;
	snprintf(title, sizeof title, "%s: %s", g.name, g.rules->title);
	page_start(&h, title, "../style.css");
	sbuf_puts(&h, "<p><a href=\"../index.html\">All campaigns</a></p>\n"
	    "<table>\n<tr><th>state</th><td>");
	esc(&h, game_strstatus(g.status));
	sbuf_printf(&h, "</td></tr>\n<tr><th>turn</th><td>%d</td></tr>\n",
	    g.turn);
	if (finished) {
		sbuf_puts(&h, "<tr><th>result</th><td>");
		esc(&h, g.result);
		sbuf_puts(&h, "</td></tr>\n");
	}
	sbuf_puts(&h, "</table>\n");
	sbuf_printf(&row, "<tr><td><a href=\"%s/index.html\">", sn);
	esc(&row, g.name);
	sbuf_puts(&row, "</a></td><td>");
	esc(&row, g.rules->title);
	sbuf_puts(&row, "</td><td>");
	esc(&row, finished ? g.result : game_strstatus(g.status));
	sbuf_printf(&row, "</td><td>%d</td>", g.turn);
	open_window(c, &g, cid, &h, &row);
	/* The map now: the public view, or after the end every side's. */
	sbuf_puts(&h, "<h2>The map now</h2>\n");
	picture_init(&m);
	mapout_model(&g, finished ? -1 : MAPOUT_PUBLIC, NULL, &m);
	c->rc = pictures(cdir, "now", &m, false, c->err);
	picture_free(&m);
	if (c->rc != HP_OK)
		goto out;
	figure(&h, "now", finished ? "the whole map (the game has ended)" :
	    "the public view: what every side sees");
	if (finished)
		for (i = 0; i < g.nsides; i++) {
			char side[GAME_ID_MAX + 8], base[64], cap[160];

			safe_name(g.sides[i].name, side, sizeof side);
			snprintf(base, sizeof base, "now-%s", side);
			picture_init(&m);
			mapout_model(&g, i, NULL, &m);
			c->rc = pictures(cdir, base, &m, false, c->err);
			picture_free(&m);
			if (c->rc != HP_OK)
				goto out;
			snprintf(cap, sizeof cap, "%s's view", g.sides[i].label);
			figure(&h, base, cap);
		}
	if ((c->rc = store_windows_all(c->st, cid, &ws, &n, c->err)) != HP_OK)
		goto out;
	sbuf_printf(&h, "<h2>Turns</h2>\n<p>Each resolved window: the public "
	    "view of the map after it, the events every side sees, its dice "
	    "commitment and revealed seed, and its signed dice log.%s</p>\n",
	    finished ? " The game has ended: every side's view and report "
	    "are shown too." : " Each side's own view is shown after the end.");
	for (i = n - 1; i >= 0; i--) {
		if (ws[i].state != WSTATE_RESOLVED)
			continue;
		if ((c->rc = window_section(c, &g, cdir, &ws[i], finished,
		    &h)) != HP_OK)
			goto out;
	}
	if (finished && (c->rc = bundle(c, g.name, cdir, &h)) != HP_OK)
		goto out;
	page_end(&h);
	if ((c->rc = put(cdir, "index.html", h.buf, h.len, c->err)) != HP_OK)
		goto out;
	sbuf_puts(&row, "</tr>\n");
	sbuf_add(c->index, row.buf, row.len);
out:
	if (ws != NULL) {
		for (i = 0; i < n; i++)
			sodium_memzero(ws[i].seed, sizeof ws[i].seed);
		free(ws);
	}
	sbuf_free(&h);
	sbuf_free(&row);
	game_free(&g);
}

int
web_write(struct store *st, const struct config *cfg, const char *dir,
    struct hp_error *err)
{
	struct sbuf idx, rows;
	struct camp c = { st, cfg, dir, &rows, HP_OK, err };
	int rc;

	if (strlen(dir) > 2048) {
		hp_seterr(err, HP_EINVAL, "web: the directory's path is too "
		    "long");
		return HP_EINVAL;
	}
	if ((rc = mkdir_p(dir, err)) != HP_OK)
		return rc;
	sbuf_init(&idx);
	sbuf_init(&rows);
	if ((rc = store_campaign_list(st, campaign, &c, err)) == HP_OK)
		rc = c.rc;
	if (rc == HP_OK) {
		page_start(&idx, "hexpost campaigns", "style.css");
		sbuf_puts(&idx, "<table id=\"campaigns\">\n<tr><th>campaign</th>"
		    "<th>ruleset</th><th>state</th><th>turn</th><th>open window"
		    "</th><th>deadline</th><th>owes orders</th></tr>\n");
		if (rows.len > 0)
			sbuf_add(&idx, rows.buf, rows.len);
		sbuf_puts(&idx, "</table>\n");
		page_end(&idx);
		if ((rc = put(dir, "style.css", web_css, strlen(web_css),
		    err)) == HP_OK)
			rc = put(dir, "index.html", idx.buf, idx.len, err);
	}
	sbuf_free(&idx);
	sbuf_free(&rows);
	return rc;
}
