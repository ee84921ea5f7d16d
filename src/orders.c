/* orders: the shared plain-text order file format (see include/orders.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "orders.h"

void
orders_errors_init(struct order_errors *e)
{
	memset(e, 0, sizeof *e);
}

void
orders_errors_free(struct order_errors *e)
{
	free(e->v);
	memset(e, 0, sizeof *e);
}

void
orders_error(struct order_errors *e, int line, const char *fmt, ...)
{
	struct order_error *oe;
	va_list ap;

	if (e->n >= 100)
		return;
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 8;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	oe = &e->v[e->n++];
	oe->line = line;
	va_start(ap, fmt);
	vsnprintf(oe->msg, sizeof oe->msg, fmt, ap);
	va_end(ap);
}

char *
orders_errors_text(const struct order_errors *e)
{
	struct sbuf b;
	size_t i;

	sbuf_init(&b);
	for (i = 0; i < e->n; i++) {
		if (e->v[i].line > 0)
			sbuf_printf(&b, "line %d: %s\n", e->v[i].line,
			    e->v[i].msg);
		else
			sbuf_printf(&b, "%s\n", e->v[i].msg);
	}
	return sbuf_steal(&b);
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t
utf8_seq(const unsigned char *p, size_t left)
{
	size_t n, i;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static const char *header_names[] = { "campaign", "turn", "window", "side",
	"nonce", "chain", "sequence" };
/* Their lengths, in the same order. */
static const size_t header_lens[] = { 8, 4, 6, 4, 5, 5, 8 };
_Static_assert(sizeof header_lens / sizeof header_lens[0] ==
    sizeof header_names / sizeof header_names[0], "a length per header");

/* Parse "key: value" if line is a header line; returns the header index,
 * -2 for an unknown key, -1 if the line is not header-shaped. */
static int
header_line(const char *line, const char **val)
{
	const char *colon;
	size_t klen, i;

	/* A key is letters and '-' up to the first colon: one scan, which
	 * stops at the first other character (an order's first space). */
	for (klen = 0; isalpha((unsigned char)line[klen]) || line[klen] == '-';
	    klen++)
		;
	if (line[klen] != ':' || klen == 0)
		return -1;
	colon = line + klen;
	*val = colon + 1;
	while (**val == ' ' || **val == '\t')
		(*val)++;
	for (i = 0; i < sizeof header_names / sizeof header_names[0]; i++)
		if (header_lens[i] == klen &&
		    strncasecmp(line, header_names[i], klen) == 0)
			return (int)i;
	return -2;
}

static int
set_header(struct order_header *h, int which, const char *val, int lineno,
    struct order_errors *errs)
{
	int bit = 1 << which;

	if (h->have & bit) {
		orders_error(errs, lineno, "header '%s:' given twice",
		    header_names[which]);
		return -1;
	}
	/* Seen, even if its value is refused below: it is not missing. */
	h->have |= bit;
	if (*val == '\0' && which == 4) {
		/* An empty nonce, as in the template: the player's helper
		 * fills it in place so line numbers do not move. */
		h->have &= ~bit;
		return 0;
	}
	if (*val == '\0') {
		orders_error(errs, lineno, "header '%s:' has no value",
		    header_names[which]);
		return -1;
	}
	switch (which) {
	case 0:
		if (strlen(val) >= sizeof h->campaign)
			goto toolong;
		strlcpy_(h->campaign, val, sizeof h->campaign);
		break;
	case 1:
		if (orders_parse_int(val, 0, 100000, &h->turn) != HP_OK) {
			orders_error(errs, lineno, "expected a turn number "
			    "after 'turn:', got '%.40s'", val);
			return -1;
		}
		break;
	case 2:
		if (strlen(val) >= sizeof h->window)
			goto toolong;
		strlcpy_(h->window, val, sizeof h->window);
		break;
	case 3:
		if (strlen(val) >= sizeof h->side)
			goto toolong;
		strlcpy_(h->side, val, sizeof h->side);
		break;
	case 4:
		if (strlen(val) >= sizeof h->nonce)
			goto toolong;
		strlcpy_(h->nonce, val, sizeof h->nonce);
		break;
	case 5:
		if (strlen(val) != 64 || strspn(val, "0123456789abcdef") !=
		    64) {
			orders_error(errs, lineno, "expected the seed chain's "
			    "head (64 lowercase hex digits, from the welcome "
			    "mail) after 'chain:', got '%.40s'", val);
			return -1;
		}
		strlcpy_(h->chain, val, sizeof h->chain);
		break;
	case 6:
		/* Standing orders' sequence: ASCII digits only, at most 18,
		 * at least 1 (docs/AUDIT.md, "Standing orders' sequence"). */
		if (strspn(val, "0123456789") != strlen(val) ||
		    strlen(val) > 18 || strspn(val, "0") == strlen(val)) {
			orders_error(errs, lineno, "expected a number from 1 "
			    "(at most 18 digits) after 'sequence:', got "
			    "'%.40s'", val);
			return -1;
		}
		h->sequence = strtoll(val, NULL, 10);
		h->sequence_line = lineno;
		break;
	}
	h->have |= bit;
	return 0;
toolong:
	orders_error(errs, lineno, "header '%s:' value is too long",
	    header_names[which]);
	return -1;
}

/* Split a trimmed line into lower-cased words; false if too many/long. */
static bool
split_words(struct order_line *ol, int lineno, struct order_errors *errs)
{
	const char *p = ol->text;

	ol->nwords = 0;
	while (*p != '\0') {
		size_t n = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (ol->nwords == ORDERS_MAX_WORDS) {
			orders_error(errs, lineno, "too many words on one line "
			    "(at most %d)", ORDERS_MAX_WORDS);
			return false;
		}
		while (*p != '\0' && *p != ' ' && *p != '\t') {
			if (n + 1 >= ORDERS_WORD_MAX) {
				orders_error(errs, lineno, "word too long");
				return false;
			}
			ol->words[ol->nwords][n++] =
			    (char)tolower((unsigned char)*p);
			p++;
		}
		ol->words[ol->nwords][n] = '\0';
		ol->nwords++;
	}
	return true;
}

int
orders_parse_file(const char *text, size_t len, struct order_header *h,
    struct order_body *body, struct order_errors *errs)
{
	size_t pos = 0, cap = 0, i;
	int lineno = 0;
	bool in_body = false, bad = false;
	size_t before = errs->n;

	memset(h, 0, sizeof *h);
	memset(body, 0, sizeof *body);
	/* A byte-order mark, as some editors write, is not part of line 1. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	if (len > ORDERS_MAX_BYTES) {
		orders_error(errs, 0, "order file is %zu bytes; the limit is "
		    "%d", len, ORDERS_MAX_BYTES);
		return HP_EINVAL;
	}
	for (i = 0; i < len;) {
		size_t n;
		uint64_t w;

		/* Eight ASCII bytes, none of them NUL, at a time. */
		if (len - i >= 8) {
			memcpy(&w, text + i, 8);
			if ((w & 0x8080808080808080ULL) == 0 &&
			    ((w - 0x0101010101010101ULL) & ~w &
			    0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		n = utf8_seq((const unsigned char *)text + i, len - i);

		if (text[i] == '\0') {
			orders_error(errs, 0, "order file contains a NUL byte "
			    "(it must be plain text)");
			return HP_EINVAL;
		}
		if (n == 0) {
			orders_error(errs, 0, "order file is not valid UTF-8 "
			    "(byte %zu)", i + 1);
			return HP_EINVAL;
		}
		i += n;
	}
	while (pos < len) {
		const char *start = text + pos, *nl, *val;
		size_t linelen, a, b;
		char line[256];
		int which;

		nl = memchr(start, '\n', len - pos);
		linelen = nl ? (size_t)(nl - start) : len - pos;
		pos += linelen + (nl ? 1 : 0);
		if (++lineno > ORDERS_MAX_LINES) {
			orders_error(errs, lineno, "too many lines (at most %d)",
			    ORDERS_MAX_LINES);
			bad = true;
			break;
		}
		for (a = 0; a < linelen && start[a] != '#'; a++)
			;
		b = a;
		a = 0;
		while (a < b && isspace((unsigned char)start[a]))
			a++;
		while (b > a && isspace((unsigned char)start[b - 1]))
			b--;
		if (a == b)
			continue;
		if (b - a >= sizeof line) {
			orders_error(errs, lineno, "line too long (at most %zu "
			    "characters)", sizeof line - 1);
			bad = true;
			continue;
		}
		memcpy(line, start + a, b - a);
		line[b - a] = '\0';
		which = header_line(line, &val);
		if (which == -2 && !in_body) {
			orders_error(errs, lineno, "unknown header '%.*s'; "
			    "expected campaign:, turn:, window:, side:, nonce:, "
			    "chain: or sequence:", (int)(strchr(line, ':') - line + 1),
			    line);
			bad = true;
			continue;
		}
		if (which >= 0) {
			if (in_body) {
				orders_error(errs, lineno, "header '%s:' after "
				    "the first order; headers go at the top",
				    header_names[which]);
				bad = true;
			} else if (set_header(h, which, val, lineno, errs) != 0)
				bad = true;
			continue;
		}
		in_body = true;
		if (body->n == cap) {
			cap = cap ? cap * 2 : 16;
			body->v = xrealloc(body->v, cap * sizeof *body->v);
		}
		/* Every word empty, the text set: a line is read no further
		 * than the NUL of each (not the whole 1.3 KB cleared). */
		body->v[body->n].lineno = lineno;
		body->v[body->n].nwords = 0;
		for (i = 0; i < ORDERS_MAX_WORDS; i++)
			body->v[body->n].words[i][0] = '\0';
		strlcpy_(body->v[body->n].text, line, sizeof body->v[0].text);
		if (!split_words(&body->v[body->n], lineno, errs))
			bad = true;
		else
			body->n++;
	}
	for (i = 0; i < 4; i++)
		if (!(h->have & (1 << i))) {
			orders_error(errs, 0, "missing header '%s:' at the top "
			    "of the file", header_names[i]);
			bad = true;
		}
	if ((h->have & ORDERS_H_SEQUENCE) && (h->have & ORDERS_H_WINDOW) &&
	    strcasecmp(h->window, "standing") != 0) {
		orders_error(errs, h->sequence_line, "header 'sequence:' "
		    "belongs only in standing orders (window: standing)");
		bad = true;
	}
	if (bad || errs->n > before) {
		orders_body_free(body);
		return HP_EINVAL;
	}
	return HP_OK;
}

void
orders_body_free(struct order_body *b)
{
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

int
orders_parse_int(const char *s, int lo, int hi, int *out)
{
	long v = 0;
	const char *p = s;
	bool neg = false;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!isdigit((unsigned char)*p))
		return HP_EINVAL;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		if (v > 1000000000L)
			return HP_EINVAL;
		p++;
	}
	if (*p != '\0')
		return HP_EINVAL;
	if (neg)
		v = -v;
	if (v < lo || v > hi)
		return HP_EINVAL;
	*out = (int)v;
	return HP_OK;
}
