/* tmpl: a logic-less Mustache subset for reports and mail. A template is
 * first parsed into a flat token array (checking its structure and applying
 * the standalone-line rule), then rendered against a context chain. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"

#define TMPL_MAXDEPTH 32
/* Rendering budget: one unit per token visited plus one per byte written.
 * It bounds time and memory for templates whose nested sections multiply
 * (e.g. the same list nested 32 deep). */
#define TMPL_MAXWORK ((size_t)1 << 24)

struct tmpl_val {
	char *name;
	size_t namelen;
	int islist;
	char *str;			/* when !islist */
	struct tmpl_ctx **items;	/* when islist */
	size_t nitems;
	size_t itemcap;
};

struct tmpl_ctx {
	struct tmpl_val *vals;		/* in insertion order */
	size_t nvals;
	size_t cap;
};

enum tok_type { TOK_TEXT, TOK_VAR, TOK_SECTION, TOK_INVERTED, TOK_CLOSE };

struct tok {
	enum tok_type type;
	const char *s;			/* text or name, inside the template */
	size_t len;
	size_t match;			/* index of the matching open/close */
	int line;
};

struct toks {
	struct tok *t;
	size_t n;
	size_t cap;
};

struct rstate {
	const struct tok *t;
	const struct tmpl_ctx *stack[TMPL_MAXDEPTH + 1];
	int sp;
	struct sbuf *out;
	size_t work;
	struct hp_error *err;
};

struct tmpl_ctx *
tmpl_ctx_new(void)
{
	return xcalloc(1, sizeof(struct tmpl_ctx));
}

/* Free what v holds (not v itself), including list items and their
 * contents. */
static void
val_clear(struct tmpl_val *v)
{
	size_t i;

	free(v->str);
	v->str = NULL;
	for (i = 0; i < v->nitems; i++)
		tmpl_ctx_free(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->nitems = v->itemcap = 0;
	v->islist = 0;
}

void
tmpl_ctx_free(struct tmpl_ctx *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nvals; i++) {
		val_clear(&c->vals[i]);
		free(c->vals[i].name);
	}
	free(c->vals);
	free(c);
}

/* Find name (len bytes, not necessarily NUL-terminated) in c; the result
 * points into c. */
static struct tmpl_val *
ctx_find(const struct tmpl_ctx *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < c->nvals; i++)
		if (c->vals[i].namelen == len &&
		    memcmp(c->vals[i].name, name, len) == 0)
			return &c->vals[i];
	return NULL;
}

/* Find name in c, appending an empty string entry if missing; the result
 * points into c and is valid until the next entry is added. */
static struct tmpl_val *
ctx_get(struct tmpl_ctx *c, const char *name)
{
	struct tmpl_val *v;
	size_t len = strlen(name);

	if ((v = ctx_find(c, name, len)) != NULL)
		return v;
	if (c->nvals == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->vals = xrealloc(c->vals, c->cap * sizeof(*c->vals));
	}
	v = &c->vals[c->nvals++];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->namelen = len;
	return v;
}

/* Set name to val, taking ownership of the malloc'd val. A list previously
 * under name is freed with its items. */
static void
ctx_set_owned(struct tmpl_ctx *c, const char *name, char *val)
{
	struct tmpl_val *v = ctx_get(c, name);

	val_clear(v);
	v->str = val;
}

void
tmpl_set(struct tmpl_ctx *c, const char *name, const char *val)
{
	ctx_set_owned(c, name, xstrdup(val != NULL ? val : ""));
}

void
tmpl_setf(struct tmpl_ctx *c, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("tmpl_setf: bad format");
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ctx_set_owned(c, name, s);
}

void
tmpl_set_int(struct tmpl_ctx *c, const char *name, long val)
{
	tmpl_setf(c, name, "%ld", val);
}

struct tmpl_ctx *
tmpl_list_add(struct tmpl_ctx *c, const char *name)
{
	struct tmpl_val *v = ctx_get(c, name);
	struct tmpl_ctx *item;

	if (!v->islist) {
		val_clear(v);
		v->islist = 1;
	}
	if (v->nitems == v->itemcap) {
		v->itemcap = v->itemcap ? v->itemcap * 2 : 4;
		v->items = xrealloc(v->items, v->itemcap * sizeof(*v->items));
	}
	item = tmpl_ctx_new();
	v->items[v->nitems++] = item;
	return item;
}

static int
count_nl(const char *s, const char *e)
{
	int n = 0;

	for (; s < e; s++)
		if (*s == '\n')
			n++;
	return n;
}

static int
is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

static int
is_namechar(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
}

/* Append a token to tl and return its index. */
static size_t
toks_add(struct toks *tl, enum tok_type type, const char *s, size_t len,
    int line)
{
	struct tok *t;

	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 32;
		tl->t = xrealloc(tl->t, tl->cap * sizeof(*tl->t));
	}
	t = &tl->t[tl->n];
	t->type = type;
	t->s = s;
	t->len = len;
	t->match = 0;
	t->line = line;
	return tl->n++;
}

/* Is the tag spanning [open, after) alone on its line (only blanks around
 * it)? If so, set *ls to the start of the line and *le past its end of
 * line (newline, CRLF, or the terminating NUL). */
static int
standalone(const char *text, const char *open, const char *after,
    const char **ls, const char **le)
{
	const char *b = open, *e = after;

	while (b > text && is_blank(b[-1]))
		b--;
	if (b > text && b[-1] != '\n')
		return 0;
	while (is_blank(*e))
		e++;
	if (*e == '\r' && e[1] == '\n')
		e += 2;
	else if (*e == '\n')
		e++;
	else if (*e != '\0')
		return 0;
	*ls = b;
	*le = e;
	return 1;
}

/* Parse text into tl, checking section structure. Tokens point into
 * text. Returns HP_OK or HP_EINVAL with err set. */
static int
parse(const char *text, struct toks *tl, struct hp_error *err)
{
	const char *p = text, *textstart = text, *o, *c, *s, *e, *q;
	const char *textend, *after, *ls, *le;
	size_t opens[TMPL_MAXDEPTH], idx, k;
	enum tok_type type;
	int depth = 0, line = 1, textline = 1, tagline, comment;

	while ((o = strstr(p, "{{")) != NULL) {
		line += count_nl(p, o);
		tagline = line;
		if ((c = strstr(o + 2, "}}")) == NULL) {
			hp_seterr(err, HP_EINVAL,
			    "template line %d: unterminated tag", tagline);
			return HP_EINVAL;
		}
		s = o + 2;
		e = c;
		while (s < e && is_blank(*s))
			s++;
		comment = 0;
		type = TOK_VAR;
		if (s < e && *s == '!')
			comment = 1;
		else if (s < e && *s == '#')
			type = TOK_SECTION;
		else if (s < e && *s == '^')
			type = TOK_INVERTED;
		else if (s < e && *s == '/')
			type = TOK_CLOSE;
		if (!comment) {
			if (type != TOK_VAR)
				s++;
			while (s < e && is_blank(*s))
				s++;
			while (e > s && is_blank(e[-1]))
				e--;
			if (s == e) {
				hp_seterr(err, HP_EINVAL,
				    "template line %d: empty tag name", tagline);
				return HP_EINVAL;
			}
			for (q = s; q < e; q++)
				if (!is_namechar(*q)) {
					hp_seterr(err, HP_EINVAL, "template line "
					    "%d: bad character in tag name",
					    tagline);
					return HP_EINVAL;
				}
		}

		textend = o;
		after = c + 2;
		if ((comment || type != TOK_VAR) &&
		    standalone(text, o, after, &ls, &le)) {
			textend = ls;
			after = le;
		}
		if (textend > textstart)
			toks_add(tl, TOK_TEXT, textstart, (size_t)(textend -
			    textstart), textline);
		line += count_nl(o, after);
		textline = line;
		textstart = p = after;
		if (comment)
			continue;

		switch (type) {
		case TOK_SECTION:
		case TOK_INVERTED:
			if (depth == TMPL_MAXDEPTH) {
				hp_seterr(err, HP_EINVAL, "template line %d: "
				    "sections nested deeper than %d", tagline,
				    TMPL_MAXDEPTH);
				return HP_EINVAL;
			}
			opens[depth++] = toks_add(tl, type, s,
			    (size_t)(e - s), tagline);
			break;
		case TOK_CLOSE:
			if (depth == 0) {
				hp_seterr(err, HP_EINVAL, "template line %d: "
				    "close tag \"%.*s\" without open section",
				    tagline, (int)(e - s), s);
				return HP_EINVAL;
			}
			idx = opens[depth - 1];
			if (tl->t[idx].len != (size_t)(e - s) ||
			    memcmp(tl->t[idx].s, s, (size_t)(e - s)) != 0) {
				hp_seterr(err, HP_EINVAL, "template line %d: "
				    "close tag \"%.*s\" does not match \"%.*s\" "
				    "opened on line %d", tagline, (int)(e - s),
				    s, (int)tl->t[idx].len, tl->t[idx].s,
				    tl->t[idx].line);
				return HP_EINVAL;
			}
			depth--;
			k = toks_add(tl, TOK_CLOSE, s, (size_t)(e - s),
			    tagline);
			tl->t[k].match = idx;
			tl->t[idx].match = k;
			break;
		default:
			toks_add(tl, TOK_VAR, s, (size_t)(e - s), tagline);
			break;
		}
	}
	if (*textstart != '\0')
		toks_add(tl, TOK_TEXT, textstart, strlen(textstart), textline);
	if (depth > 0) {
		idx = opens[depth - 1];
		hp_seterr(err, HP_EINVAL, "template line %d: section \"%.*s\" "
		    "is not closed", tl->t[idx].line, (int)tl->t[idx].len,
		    tl->t[idx].s);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* Look name up in the context chain, innermost first; the result points
 * into the chain or is NULL. */
static const struct tmpl_val *
lookup(const struct rstate *rs, const struct tok *t)
{
	const struct tmpl_val *v;
	int i;

	for (i = rs->sp - 1; i >= 0; i--)
		if ((v = ctx_find(rs->stack[i], t->s, t->len)) != NULL)
			return v;
	return NULL;
}

/* Charge n units of work for token t; fails once the budget is spent. */
static int
charge(struct rstate *rs, const struct tok *t, size_t n)
{
	if (n > TMPL_MAXWORK - rs->work) {
		hp_seterr(rs->err, HP_EINVAL, "template line %d: output too "
		    "large", t->line);
		return HP_EINVAL;
	}
	rs->work += n;
	return HP_OK;
}

/* Render tokens [from, to) into rs->out. Recursion depth is bounded by the
 * section nesting limit checked in parse. */
static int
render_range(struct rstate *rs, size_t from, size_t to)
{
	const struct tok *t;
	const struct tmpl_val *v;
	size_t i, k, len;
	int rc;

	for (i = from; i < to; i++) {
		t = &rs->t[i];
		if ((rc = charge(rs, t, 1)) != HP_OK)
			return rc;
		switch (t->type) {
		case TOK_TEXT:
			if ((rc = charge(rs, t, t->len)) != HP_OK)
				return rc;
			sbuf_add(rs->out, t->s, t->len);
			break;
		case TOK_VAR:
			v = lookup(rs, t);
			if (v == NULL || v->islist)
				break;
			len = strlen(v->str);
			if ((rc = charge(rs, t, len)) != HP_OK)
				return rc;
			sbuf_add(rs->out, v->str, len);
			break;
		case TOK_SECTION:
			v = lookup(rs, t);
			if (v != NULL && v->islist) {
				for (k = 0; k < v->nitems; k++) {
					rs->stack[rs->sp++] = v->items[k];
					rc = render_range(rs, i + 1, t->match);
					rs->sp--;
					if (rc != HP_OK)
						return rc;
				}
			} else if (v != NULL && v->str[0] != '\0') {
				if ((rc = render_range(rs, i + 1, t->match)) !=
				    HP_OK)
					return rc;
			}
			i = t->match;
			break;
		case TOK_INVERTED:
			v = lookup(rs, t);
			if (v == NULL || (v->islist ? v->nitems == 0 :
			    v->str[0] == '\0')) {
				if ((rc = render_range(rs, i + 1, t->match)) !=
				    HP_OK)
					return rc;
			}
			i = t->match;
			break;
		case TOK_CLOSE:
			break;
		}
	}
	return HP_OK;
}

int
tmpl_render(const char *text, const struct tmpl_ctx *c, struct sbuf *out,
    struct hp_error *err)
{
	struct toks tl = { NULL, 0, 0 };
	struct rstate rs;
	size_t start = out->len;
	int rc;

	if ((rc = parse(text, &tl, err)) != HP_OK) {
		free(tl.t);
		return rc;
	}
	memset(&rs, 0, sizeof(rs));
	rs.t = tl.t;
	if (c != NULL)
		rs.stack[rs.sp++] = c;
	rs.out = out;
	rs.err = err;
	rc = render_range(&rs, 0, tl.n);
	if (rc != HP_OK && out->buf != NULL) {
		out->len = start;
		out->buf[start] = '\0';
	}
	free(tl.t);
	return rc;
}
