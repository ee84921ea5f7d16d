/* dicelog: the signed, hash-chained dice log of a window (see
 * include/dicelog.h and docs/AUDIT.md, "Dice log"). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "dicelog.h"
#include "sealed.h"

static const char hexdig[] = "0123456789abcdef";

void
dicelog_init(struct dicelog *l)
{
	memset(l, 0, sizeof *l);
}

void
dicelog_free(struct dicelog *l)
{
	if (l == NULL)
		return;
	free(l->rolls);
	sodium_memzero(l, sizeof *l);
}

/* Append n bytes as lowercase hex. */
static void
put_hex(struct sbuf *b, const unsigned char *p, size_t n)
{
	char h[2];
	size_t i;

	for (i = 0; i < n; i++) {
		h[0] = hexdig[p[i] >> 4];
		h[1] = hexdig[p[i] & 15];
		sbuf_add(b, h, 2);
	}
}

/* Append a purpose with control bytes, DEL and '\' escaped as \xHH. */
static void
put_purpose(struct sbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			sbuf_printf(b, "\\x%c%c", hexdig[*p >> 4],
			    hexdig[*p & 15]);
		else
			sbuf_add(b, (const char *)p, 1);
	}
}

void
dicelog_format(const struct dicelog *l, struct sbuf *b)
{
	size_t i;
	int k;

	sbuf_puts(b, DICELOG_MAGIC "\n");
	sbuf_printf(b, "campaign: %s\nturn: %d\nwindow: %d %s\nprevious: ",
	    l->campaign, l->turn, l->window, l->window_name);
	put_hex(b, l->previous, 32);
	sbuf_puts(b, "\ncommitment: ");
	put_hex(b, l->commitment, 32);
	sbuf_puts(b, "\nseed: ");
	put_hex(b, l->seed, DICE_SEEDLEN);
	sbuf_puts(b, "\n");
	for (k = 0; k < l->norders; k++) {
		sbuf_printf(b, "%s: %s %s ", l->nonce_form ? "order-nonce" :
		    "order", l->orders[k].side, l->orders[k].source);
		put_hex(b, l->orders[k].hash, 32);
		sbuf_puts(b, "\n");
	}
	for (k = 0; k < l->nstanding; k++) {
		sbuf_printf(b, "standing: %s ", l->standing[k].side);
		put_hex(b, l->standing[k].hash, 32);
		sbuf_puts(b, "\n");
	}
	sbuf_puts(b, "key: ");
	put_hex(b, l->key, DICE_KEYLEN);
	sbuf_puts(b, "\nopponent:");
	if (l->nopponent == 0)
		sbuf_puts(b, " -");
	for (k = 0; k < l->nopponent; k++)
		sbuf_printf(b, " %s", l->opponent[k]);
	sbuf_puts(b, "\nnext-commitment: ");
	if (l->have_next)
		put_hex(b, l->next_commitment, 32);
	else
		sbuf_puts(b, "none");
	sbuf_printf(b, "\nrolls: %zu\n", l->nrolls);
	for (i = 0; i < l->nrolls; i++) {
		const struct dice_roll *r = &l->rolls[i];

		sbuf_printf(b, "roll: %d %d %d %d ", r->seq, r->sides,
		    r->target, r->result);
		put_purpose(b, r->purpose);
		sbuf_puts(b, "\n");
	}
	sbuf_puts(b, "end\n");
}

void
dicelog_hash(const char *text, unsigned char *out32)
{
	crypto_generichash(out32, 32, (const unsigned char *)text,
	    strlen(text), NULL, 0);
}

void
dicelog_where(const struct dicelog *l, char *buf, size_t len)
{
	snprintf(buf, len, "turn %d window %d '%s'", l->turn, l->window,
	    l->window_name);
}

void
dicelog_trusted_comment(const struct dicelog *l, char *buf, size_t len)
{
	snprintf(buf, len, "hexpost dice log: campaign %s, turn %d window %d "
	    "'%s', %zu rolls", l->campaign, l->turn, l->window, l->window_name,
	    l->nrolls);
}

/* Parsing: the text is read line by line; every line must start with the
 * expected key. The canonical check at the end catches everything else
 * (number formats, spacing, hex case). */
struct lines {
	const char *p;
	int no;
	char line[512];
};

/* Next line into ls->line (without its newline); false at the end or if a
 * line has no newline or is too long. */
static bool
next_line(struct lines *ls)
{
	const char *nl;
	size_t n;

	if (*ls->p == '\0' || (nl = strchr(ls->p, '\n')) == NULL)
		return false;
	n = (size_t)(nl - ls->p);
	if (n >= sizeof ls->line)
		return false;
	memcpy(ls->line, ls->p, n);
	ls->line[n] = '\0';
	ls->p = nl + 1;
	ls->no++;
	return true;
}

/* The value after "key: " on the next line, or NULL. */
static const char *
field(struct lines *ls, const char *key)
{
	size_t n = strlen(key);

	if (!next_line(ls))
		return NULL;
	if (strncmp(ls->line, key, n) != 0 || ls->line[n] != ':' ||
	    ls->line[n + 1] != ' ')
		return NULL;
	return ls->line + n + 2;
}

static bool
parse_hex(const char *s, unsigned char *out, size_t n)
{
	size_t bin;

	if (strlen(s) != 2 * n)
		return false;
	return sodium_hex2bin(out, n, s, 2 * n, NULL, &bin, NULL) == 0 &&
	    bin == n;
}

static bool
parse_int(const char **s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(*s, &end, 10);
	if (end == *s || errno != 0 || v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	*s = end;
	return true;
}

/* Is s (n bytes) well-formed UTF-8 (no overlong forms, surrogates or
 * code points past U+10FFFF)? */
static bool
utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0, k, len;
	unsigned long cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			len = 2, cp = s[i] & 0x1f;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			len = 3, cp = s[i] & 0x0f;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			len = 4, cp = s[i] & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		    || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		i += len;
	}
	return true;
}

/* Undo put_purpose into dst (DICE_PURPOSE_MAX bytes). */
static bool
parse_purpose(const char *s, char *dst)
{
	size_t n = 0;
	unsigned char v;

	while (*s != '\0') {
		if (n + 1 >= DICE_PURPOSE_MAX)
			return false;
		if (*s == '\\') {
			if (s[1] != 'x' || sodium_hex2bin(&v, 1, s + 2, 2, NULL,
			    NULL, NULL) != 0)
				return false;
			dst[n++] = (char)v;
			s += 4;
		} else
			dst[n++] = *s++;
	}
	dst[n] = '\0';
	/* At most 119 bytes, well-formed UTF-8 (docs/AUDIT.md, "Settled
	 * questions"). */
	return utf8_ok((const unsigned char *)dst, n);
}

/* Parse failure on the current line. */
static int
bad(struct hp_error *err, const struct lines *ls, const char *what)
{
	hp_seterr(err, HP_EINVAL, "dice log line %d: %s", ls->no + 1, what);
	return HP_EINVAL;
}

int
dicelog_parse(const char *text, struct dicelog *l, struct hp_error *err)
{
	struct lines ls = { text, 0, "" };
	struct sbuf canon;
	const char *v;
	size_t i, cap = 0, nrolls;
	char *end;
	int rc;

	dicelog_init(l);
	if (!utf8_ok((const unsigned char *)text, strlen(text)))
		return bad(err, &ls, "the dice log is not valid UTF-8");
	if (!next_line(&ls) || strcmp(ls.line, DICELOG_MAGIC) != 0)
		return bad(err, &ls, "not a hexpost dice log (first line must "
		    "be '" DICELOG_MAGIC "')");
	if ((v = field(&ls, "campaign")) == NULL || strlen(v) == 0 ||
	    strlen(v) >= sizeof l->campaign)
		return bad(err, &ls, "expected 'campaign: NAME'");
	strlcpy_(l->campaign, v, sizeof l->campaign);
	if ((v = field(&ls, "turn")) == NULL || !parse_int(&v, &l->turn) ||
	    *v != '\0')
		return bad(err, &ls, "expected 'turn: N'");
	if ((v = field(&ls, "window")) == NULL || !parse_int(&v, &l->window) ||
	    *v != ' ' || strlen(v + 1) >= sizeof l->window_name)
		return bad(err, &ls, "expected 'window: N NAME'");
	strlcpy_(l->window_name, v + 1, sizeof l->window_name);
	if ((v = field(&ls, "previous")) == NULL ||
	    !parse_hex(v, l->previous, 32))
		return bad(err, &ls, "expected 'previous: ' and 64 hex digits");
	if ((v = field(&ls, "commitment")) == NULL ||
	    !parse_hex(v, l->commitment, 32))
		return bad(err, &ls, "expected 'commitment: ' and 64 hex "
		    "digits");
	if ((v = field(&ls, "seed")) == NULL ||
	    !parse_hex(v, l->seed, DICE_SEEDLEN))
		return bad(err, &ls, "expected 'seed: ' and 64 hex digits");
	for (;;) {
		struct dicelog_order *o;
		const char *sp, *sp2;

		if (!next_line(&ls))
			return bad(err, &ls, "expected 'order:' or 'key:'");
		if (strncmp(ls.line, "order: ", 7) == 0)
			v = ls.line + 7;
		else if (strncmp(ls.line, "order-nonce: ", 13) == 0) {
			v = ls.line + 13;
			l->nonce_form = true;	/* canonical check: all alike */
		} else
			break;
		if (l->norders == GAME_MAX_SIDES)
			return bad(err, &ls, "too many order lines");
		o = &l->orders[l->norders++];
		if ((sp = strchr(v, ' ')) == NULL || (size_t)(sp - v) >=
		    sizeof o->side || (sp2 = strchr(sp + 1, ' ')) == NULL ||
		    (size_t)(sp2 - sp - 1) >= sizeof o->source ||
		    !parse_hex(sp2 + 1, o->hash, 32))
			return bad(err, &ls, "expected 'order: SIDE SOURCE "
			    "HASH'");
		memcpy(o->side, v, (size_t)(sp - v));
		memcpy(o->source, sp + 1, (size_t)(sp2 - sp - 1));
	}
	while (strncmp(ls.line, "standing: ", 10) == 0) {
		struct dicelog_order *o;
		const char *sp;

		if (l->nstanding == GAME_MAX_SIDES)
			return bad(err, &ls, "too many standing lines");
		o = &l->standing[l->nstanding++];
		v = ls.line + 10;
		if ((sp = strchr(v, ' ')) == NULL || sp == v ||
		    (size_t)(sp - v) >= sizeof o->side ||
		    !parse_hex(sp + 1, o->hash, 32))
			return bad(err, &ls, "expected 'standing: SIDE HASH'");
		memcpy(o->side, v, (size_t)(sp - v));
		strlcpy_(o->source, "standing", sizeof o->source);
		if (!next_line(&ls))
			return bad(err, &ls, "expected 'key:'");
	}
	if (strncmp(ls.line, "key: ", 5) != 0 ||
	    !parse_hex(ls.line + 5, l->key, DICE_KEYLEN))
		return bad(err, &ls, "expected 'key: ' and 64 hex digits");
	if ((v = field(&ls, "opponent")) == NULL)
		return bad(err, &ls, "expected 'opponent: SIDES' or "
		    "'opponent: -'");
	if (strcmp(v, "-") != 0) {
		char tmp[256], *save = NULL, *tok;

		strlcpy_(tmp, v, sizeof tmp);
		for (tok = strtok_r(tmp, " ", &save); tok != NULL;
		    tok = strtok_r(NULL, " ", &save)) {
			if (l->nopponent == GAME_MAX_SIDES ||
			    strlen(tok) >= GAME_ID_MAX)
				return bad(err, &ls, "bad 'opponent:' line");
			strlcpy_(l->opponent[l->nopponent++], tok, GAME_ID_MAX);
		}
	}
	if ((v = field(&ls, "next-commitment")) == NULL)
		return bad(err, &ls, "expected 'next-commitment:'");
	if (strcmp(v, "none") != 0) {
		if (!parse_hex(v, l->next_commitment, 32))
			return bad(err, &ls, "expected 'next-commitment: ' and "
			    "64 hex digits or 'none'");
		l->have_next = true;
	}
	if ((v = field(&ls, "rolls")) == NULL || *v < '0' || *v > '9')
		return bad(err, &ls, "expected 'rolls: N'");
	errno = 0;
	nrolls = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || nrolls > 10000000)
		return bad(err, &ls, "expected 'rolls: N'");
	for (i = 0; i < nrolls; i++) {
		struct dice_roll *r;

		if ((v = field(&ls, "roll")) == NULL)
			return bad(err, &ls, "expected 'roll: SEQ SIDES TARGET "
			    "RESULT PURPOSE' (fewer rolls than 'rolls:' says)");
		if (l->nrolls == cap) {
			cap = cap ? cap * 2 : 32;
			l->rolls = xrealloc(l->rolls, cap * sizeof *l->rolls);
		}
		r = &l->rolls[l->nrolls++];
		memset(r, 0, sizeof *r);
		if (!parse_int(&v, &r->seq) || *v++ != ' ' ||
		    !parse_int(&v, &r->sides) || *v++ != ' ' ||
		    !parse_int(&v, &r->target) || *v++ != ' ' ||
		    !parse_int(&v, &r->result) || *v++ != ' ' ||
		    !parse_purpose(v, r->purpose))
			return bad(err, &ls, "expected 'roll: SEQ SIDES TARGET "
			    "RESULT PURPOSE'");
	}
	if (!next_line(&ls) || strcmp(ls.line, "end") != 0)
		return bad(err, &ls, "expected 'end' (more rolls than 'rolls:' "
		    "says?)");
	if (*ls.p != '\0')
		return bad(err, &ls, "text after 'end'");
	sbuf_init(&canon);
	dicelog_format(l, &canon);
	rc = strcmp(canon.buf, text) == 0 ? HP_OK : HP_EINVAL;
	sbuf_free(&canon);
	if (rc != HP_OK)
		hp_seterr(err, rc, "dice log is not in canonical form (numbers, "
		    "spacing or hex digits differ from docs/AUDIT.md)");
	return rc;
}

int
dicelog_check(const struct dicelog *l, struct hp_error *err)
{
	unsigned char commit[32], key[DICE_KEYLEN];
	unsigned char hashes[2 * GAME_MAX_SIDES + 1][32];
	struct dice d;
	char where[128];
	size_t i;
	int k, r;

	dicelog_where(l, where, sizeof where);
	dice_commit(l->seed, commit);
	if (sodium_memcmp(commit, l->commitment, 32) != 0) {
		hp_seterr(err, HP_EINVAL, "%s: the revealed seed does not match "
		    "the commitment published before the orders", where);
		return HP_EINVAL;
	}
	if (l->turn < 0 || l->window < 0) {
		hp_seterr(err, HP_EINVAL, "%s: negative turn or window", where);
		return HP_EINVAL;
	}
	/* The previous log's hash first: it covers every earlier window's
	 * order files (docs/AUDIT.md, "Dice key"). */
	memcpy(hashes[0], l->previous, 32);
	for (k = 0; k < l->norders; k++)
		memcpy(hashes[k + 1], l->orders[k].hash, 32);
	for (k = 0; k < l->nstanding; k++)
		memcpy(hashes[l->norders + k + 1], l->standing[k].hash, 32);
	dice_derive_key(l->seed, l->campaign, l->turn, l->window,
	    (const unsigned char (*)[32])hashes, (size_t)(l->norders +
	    l->nstanding) + 1, key);
	if (sodium_memcmp(key, l->key, DICE_KEYLEN) != 0) {
		sodium_memzero(key, sizeof key);
		hp_seterr(err, HP_EINVAL, "%s: the dice key in the log is not "
		    "the one derived from the seed and the order files", where);
		return HP_EINVAL;
	}
	dice_init_stream(&d, key);
	sodium_memzero(key, sizeof key);
	for (i = 0; i < l->nrolls; i++) {
		const struct dice_roll *lr = &l->rolls[i];

		if (lr->seq != (int)i + 1) {
			hp_seterr(err, HP_EINVAL, "%s: roll %zu of the log is "
			    "numbered #%d (entries missing or out of order)",
			    where, i + 1, lr->seq);
			dice_free(&d);
			return HP_EINVAL;
		}
		if (lr->sides < 2 || lr->sides > 65536) {
			hp_seterr(err, HP_EINVAL, "%s: roll #%d has %d sides",
			    where, lr->seq, lr->sides);
			dice_free(&d);
			return HP_EINVAL;
		}
		r = dice_roll(&d, lr->sides, lr->target, lr->purpose);
		if (r != lr->result) {
			hp_seterr(err, HP_EINVAL, "%s: roll #%d (d%d, %s) is %d "
			    "in the log, but the dice stream gives %d", where,
			    lr->seq, lr->sides, lr->purpose, lr->result, r);
			dice_free(&d);
			return HP_EINVAL;
		}
	}
	dice_free(&d);
	return HP_OK;
}

int
dicelog_record(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct store_order *cur,
    const unsigned char *key, const struct dice *d,
    const struct minisign_seckey *sk, struct hp_error *err)
{
	return dicelog_record_standing(st, cid, g, w, cur, NULL, key, d, sk,
	    err);
}

int
dicelog_record_standing(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct store_order *cur,
    const struct store_order *standing, const unsigned char *key,
    const struct dice *d, const struct minisign_seckey *sk,
    struct hp_error *err)
{
	struct store_window next;
	struct dicelog l;
	struct minisign_pubkey pk;
	struct sbuf text;
	unsigned char hash[32];
	char tc[256], pub[256], *sig = NULL;
	int i, rc;

	dicelog_init(&l);
	sbuf_init(&text);
	strlcpy_(l.campaign, g->name, sizeof l.campaign);
	l.turn = w->spec.turn;
	l.window = w->spec.number;
	strlcpy_(l.window_name, w->spec.name, sizeof l.window_name);
	rc = store_dicelog_last_hash(st, cid, l.previous, err);
	if (rc == HP_ENOENT)
		memset(l.previous, 0, sizeof l.previous);
	else if (rc != HP_OK)
		goto out;
	memcpy(l.commitment, w->commitment, 32);
	memcpy(l.seed, w->seed, DICE_SEEDLEN);
	for (i = 0; i < g->nsides; i++) {
		struct dicelog_order *o;

		if (cur[i].raw == NULL)
			continue;
		o = &l.orders[l.norders++];
		strlcpy_(o->side, g->sides[i].name, sizeof o->side);
		strlcpy_(o->source, cur[i].source, sizeof o->source);
		memcpy(o->hash, cur[i].hash, 32);
		if (g->rules->hidden) {
			l.nonce_form = true;
			if (sealed_file_commitment(cur[i].raw, g->sides[i].name,
			    o->hash) != HP_OK) {
				hp_seterr(err, HP_EINTERNAL, "stored order file "
				    "of %s does not parse", g->sides[i].name);
				rc = HP_EINTERNAL;
				goto out;
			}
		}
	}
	for (i = 0; standing != NULL && i < g->nsides; i++) {
		struct dicelog_order *o;

		if (standing[i].raw == NULL)
			continue;
		o = &l.standing[l.nstanding++];
		strlcpy_(o->side, g->sides[i].name, sizeof o->side);
		strlcpy_(o->source, "standing", sizeof o->source);
		memcpy(o->hash, standing[i].hash, 32);
		/* Hidden orders: its nonce commitment, like the order lines
		 * (docs/AUDIT.md, "Hidden orders"). */
		if (g->rules->hidden && sealed_file_commitment(standing[i].raw,
		    g->sides[i].name, o->hash) != HP_OK) {
			hp_seterr(err, HP_EINTERNAL, "stored standing file of %s "
			    "does not parse", g->sides[i].name);
			rc = HP_EINTERNAL;
			goto out;
		}
	}
	memcpy(l.key, key, DICE_KEYLEN);
	for (i = 0; i < g->nsides; i++)
		if (g->sides[i].ai)
			strlcpy_(l.opponent[l.nopponent++], g->sides[i].name,
			    GAME_ID_MAX);
	if (g->status != GAME_FINISHED) {
		if ((rc = store_window_current(st, cid, &next, err)) != HP_OK)
			goto out;
		l.have_next = true;
		memcpy(l.next_commitment, next.commitment, 32);
		sodium_memzero(next.seed, sizeof next.seed);
	}
	l.rolls = d->log;   /* borrowed; not freed below */
	l.nrolls = d->nlog;
	dicelog_format(&l, &text);
	l.rolls = NULL;
	dicelog_hash(text.buf, hash);
	if (sk != NULL) {
		l.nrolls = d->nlog;
		dicelog_trusted_comment(&l, tc, sizeof tc);
		if ((rc = minisign_sign_text(sk, (const unsigned char *)text.buf,
		    text.len, tc, &sig, err)) != HP_OK)
			goto out;
		minisign_seckey_pubkey(sk, &pk);
		minisign_pubkey_text(&pk, pub, sizeof pub);
	}
	rc = store_dicelog_put(st, cid, w->id, text.buf, hash, sig,
	    sig ? pub : NULL, err);
out:
	free(sig);
	sbuf_free(&text);
	dicelog_free(&l);
	return rc;
}

void
dicelog_sealed_format(const char *campaign, int turn, int window,
    const char *name, const struct dice *d, struct sbuf *out)
{
	size_t i;

	sbuf_printf(out, SEALEDROLLS_MAGIC "\ncampaign: %s\nturn: %d\nwindow: "
	    "%d %s\nrolls: %zu\n", campaign, turn, window, name, d->nslog);
	for (i = 0; i < d->nslog; i++) {
		const struct dice_roll *r = &d->slog[i];

		sbuf_printf(out, "roll: %u %d %d %d %d ", r->visible, r->seq,
		    r->sides, r->target, r->result);
		put_purpose(out, r->purpose);
		sbuf_puts(out, "\n");
	}
	sbuf_puts(out, "end\n");
}

int
dicelog_sealed_parse(const char *text, const char *campaign, int turn,
    int window, const char *name, struct dice *d, struct hp_error *err)
{
	struct lines ls = { text, 0, "" };
	struct sbuf canon;
	const char *v;
	char *end;
	size_t i, n;
	int set, rc;

	if (!utf8_ok((const unsigned char *)text, strlen(text)))
		return bad(err, &ls, "the sealed rolls are not valid UTF-8");
	if (!next_line(&ls) || strcmp(ls.line, SEALEDROLLS_MAGIC) != 0)
		return bad(err, &ls, "not hexpost sealed rolls (first line must "
		    "be '" SEALEDROLLS_MAGIC "')");
	if (!next_line(&ls) || !next_line(&ls) || !next_line(&ls))
		return bad(err, &ls, "expected 'campaign:', 'turn:', 'window:'");
	if ((v = field(&ls, "rolls")) == NULL || *v < '0' || *v > '9')
		return bad(err, &ls, "expected 'rolls: N'");
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || n > 10000000)
		return bad(err, &ls, "expected 'rolls: N'");
	for (i = 0; i < n; i++) {
		struct dice_roll *r;

		if ((v = field(&ls, "roll")) == NULL)
			return bad(err, &ls, "expected 'roll: SET SEQ SIDES TARGET "
			    "RESULT PURPOSE'");
		r = dice_slog_entry(d);
		r->sealed = true;
		if (!parse_int(&v, &set) || set < 1 || set >= DICE_SEALED_SETS ||
		    *v++ != ' ' || !parse_int(&v, &r->seq) || *v++ != ' ' ||
		    !parse_int(&v, &r->sides) || *v++ != ' ' ||
		    !parse_int(&v, &r->target) || *v++ != ' ' ||
		    !parse_int(&v, &r->result) || *v++ != ' ' ||
		    !parse_purpose(v, r->purpose))
			return bad(err, &ls, "expected 'roll: SET SEQ SIDES TARGET "
			    "RESULT PURPOSE'");
		r->visible = (unsigned)set;
	}
	if (!next_line(&ls) || strcmp(ls.line, "end") != 0 || *ls.p != '\0')
		return bad(err, &ls, "expected 'end' as the last line");
	sbuf_init(&canon);
	dicelog_sealed_format(campaign, turn, window, name, d, &canon);
	rc = strcmp(canon.buf, text) == 0 ? HP_OK : HP_EINVAL;
	sbuf_free(&canon);
	if (rc != HP_OK)
		hp_seterr(err, rc, "the sealed rolls are not the canonical text "
		    "for campaign %s turn %d window %d '%s' (docs/AUDIT.md)",
		    campaign, turn, window, name);
	return rc;
}
