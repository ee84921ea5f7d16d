/* parser: the generic line parser of data files (see parser.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "hexpost.h"

enum field_type { F_WORD, F_INT, F_REST };

struct field {
	char name[32];
	enum field_type type;
	bool optional;
	int lo, hi;
};

struct rule_state {
	struct field f[PARSER_MAX_FIELDS];
	int nf;
	int count;      /* statements seen */
	int first_line; /* line of the first one */
};

struct parser {
	const struct parser_rule *rule;
	const struct rule_state *rs;
	int line;
	int nvals;
	char *vals[PARSER_MAX_FIELDS];
	bool given[PARSER_MAX_FIELDS];
	struct order_errors *errs;
};

/* Parse one rule's specification into rs; false if it is malformed. */
static bool
spec_parse(const char *spec, struct rule_state *rs)
{
	char buf[512], *tok, *save = NULL, *colon, *type;
	bool seen_optional = false;
	struct field *f;

	rs->nf = 0;
	if (strlen(spec) >= sizeof buf)
		return false;
	strlcpy_(buf, spec, sizeof buf);
	for (tok = strtok_r(buf, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		if (rs->nf == PARSER_MAX_FIELDS)
			return false;
		f = &rs->f[rs->nf];
		memset(f, 0, sizeof *f);
		if (*tok == '?') {
			f->optional = true;
			tok++;
		}
		if (seen_optional && !f->optional)
			return false;
		seen_optional = f->optional;
		if ((colon = strchr(tok, ':')) == NULL ||
		    (size_t)(colon - tok) >= sizeof f->name || colon == tok)
			return false;
		memcpy(f->name, tok, (size_t)(colon - tok));
		type = colon + 1;
		if (strcmp(type, "word") == 0)
			f->type = F_WORD;
		else if (strcmp(type, "rest") == 0)
			f->type = F_REST;
		else if (sscanf(type, "int(%d-%d)", &f->lo, &f->hi) == 2 &&
		    f->lo <= f->hi)
			f->type = F_INT;
		else
			return false;
		rs->nf++;
		if (f->type == F_REST && strtok_r(NULL, " ", &save) != NULL)
			return false;
		if (f->type == F_REST)
			break;
	}
	return true;
}

/* The usage of a rule, "keyword: <a> <b> [<c>]", into buf. */
static void
usage(const struct parser_rule *r, const struct rule_state *rs, char *buf,
    size_t size)
{
	size_t n;
	int i;

	snprintf(buf, size, "%s:", r->keyword);
	for (i = 0; i < rs->nf; i++) {
		n = strlen(buf);
		snprintf(buf + n, size - n, rs->f[i].optional ? " [<%s%s>]" :
		    " <%s%s>", rs->f[i].name,
		    rs->f[i].type == F_REST ? "..." : "");
	}
}

void
parser_error(struct parser *p, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	orders_error(p->errs, p->line, "%s: %s", p->rule->keyword, msg);
}

int
parser_line(const struct parser *p)
{
	return p->line;
}

const char *
parser_keyword(const struct parser *p)
{
	return p->rule->keyword;
}

/* Index of field name in the current rule; a handler asking for a field
 * its rule lacks is a broken invariant. */
static int
field_index(const struct parser *p, const char *name)
{
	int i;

	for (i = 0; i < p->rs->nf; i++)
		if (strcmp(p->rs->f[i].name, name) == 0)
			return i;
	fatalx("parser: rule '%s' has no field '%s'", p->rule->keyword, name);
}

bool
parser_has(const struct parser *p, const char *name)
{
	return p->given[field_index(p, name)];
}

const char *
parser_str(const struct parser *p, const char *name)
{
	int i = field_index(p, name);

	return p->given[i] ? p->vals[i] : "";
}

int
parser_int(const struct parser *p, const char *name)
{
	int i = field_index(p, name), v = 0;

	if (p->given[i])
		(void)orders_parse_int(p->vals[i], p->rs->f[i].lo,
		    p->rs->f[i].hi, &v);
	return v;
}

/* Split s (modified in place) into the fields of the current rule and check
 * their shape; false after recording the error. */
static bool
split_fields(struct parser *p, char *s)
{
	const struct rule_state *rs = p->rs;
	char use[400], *w;
	int i, v;

	memset(p->given, 0, sizeof p->given);
	p->nvals = 0;
	for (i = 0; i < rs->nf; i++) {
		p->vals[i] = NULL;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#') {
			if (rs->f[i].optional)
				return true;
			usage(p->rule, rs, use, sizeof use);
			parser_error(p, "missing <%s> (expected \"%s\")",
			    rs->f[i].name, use);
			return false;
		}
		if (rs->f[i].type == F_REST) {
			/* A '#' after a blank starts a comment here too. */
			for (w = s; *w != '\0'; w++)
				if (*w == '#' && (w[-1] == ' ' || w[-1] == '\t'))
					break;
			*w = '\0';
			while (w > s && (w[-1] == ' ' || w[-1] == '\t'))
				*--w = '\0';
			p->vals[i] = s;
			p->given[i] = true;
			p->nvals = i + 1;
			return true;
		}
		w = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		if (*s != '\0')
			*s++ = '\0';
		p->vals[i] = w;
		p->given[i] = true;
		p->nvals = i + 1;
		if (rs->f[i].type == F_INT &&
		    orders_parse_int(w, rs->f[i].lo, rs->f[i].hi, &v) !=
		    HP_OK) {
			parser_error(p, "<%s> must be a whole number from %d "
			    "to %d, not \"%.40s\"", rs->f[i].name,
			    rs->f[i].lo, rs->f[i].hi, w);
			return false;
		}
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '\0' && *s != '#') {
		w = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		*s = '\0';
		usage(p->rule, rs, use, sizeof use);
		parser_error(p, "unexpected \"%.40s\" (expected \"%s\")", w,
		    use);
		return false;
	}
	return true;
}

/* The list of keywords, "a, b, c", into buf. */
static void
keywords(const struct parser_rule *rules, char *buf, size_t size)
{
	size_t n;
	int i;

	buf[0] = '\0';
	for (i = 0; rules[i].keyword != NULL; i++) {
		n = strlen(buf);
		snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
		    rules[i].keyword);
	}
}

/* Check one line's bytes: printable text, tabs and UTF-8 only. Returns
 * the offending byte, or -1 if the line is clean. */
static int
line_bad_byte(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return c;
	}
	return -1;
}

int
parser_run(const struct parser_rule *rules, const char *text, size_t len,
    void *ctx, struct order_errors *errs)
{
	struct rule_state *rs = NULL;
	struct parser p;
	char line[PARSER_LINE_MAX + 2], kw[40], all[400];
	const char *s = text, *end = text + len, *nl;
	size_t n0 = errs->n, ll, nrules, i;
	char *body, *colon, *k;
	int bad, rc = HP_EINTERNAL;

	for (nrules = 0; rules[nrules].keyword != NULL; nrules++)
		;
	rs = xcalloc(nrules ? nrules : 1, sizeof *rs);
	for (i = 0; i < nrules; i++)
		if (!spec_parse(rules[i].spec, &rs[i]))
			goto out;
	memset(&p, 0, sizeof p);
	p.errs = errs;
	keywords(rules, all, sizeof all);
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		ll = (size_t)((nl ? nl : end) - s);
		p.line++;
		if (p.line > PARSER_MAX_LINES) {
			orders_error(errs, 0, "more than %d lines",
			    PARSER_MAX_LINES);
			break;
		}
		if (ll > 0 && s[ll - 1] == '\r')
			ll--;
		if (ll > PARSER_LINE_MAX) {
			orders_error(errs, p.line, "longer than %d bytes",
			    PARSER_LINE_MAX);
			goto next;
		}
		if ((bad = line_bad_byte(s, ll)) >= 0) {
			orders_error(errs, p.line, "control byte 0x%02x (only "
			    "printable text, tabs and spaces)", bad);
			goto next;
		}
		memcpy(line, s, ll);
		line[ll] = '\0';
		body = line;
		while (*body == ' ' || *body == '\t')
			body++;
		if (*body == '\0' || *body == '#')
			goto next;
		colon = strchr(body, ':');
		for (k = body; colon != NULL && k < colon; k++)
			if (*k == ' ' || *k == '\t')
				colon = NULL;
		if (colon == NULL || colon == body) {
			orders_error(errs, p.line, "expected \"keyword: "
			    "values\", not \"%.40s\"", body);
			goto next;
		}
		*colon = '\0';
		strlcpy_(kw, body, sizeof kw);
		for (i = 0; i < nrules; i++)
			if (strcmp(rules[i].keyword, kw) == 0)
				break;
		if (i == nrules) {
			orders_error(errs, p.line, "unknown statement \"%.32s\" "
			    "(expected one of: %s)", kw, all);
			goto next;
		}
		p.rule = &rules[i];
		p.rs = &rs[i];
		if ((rules[i].flags & PARSER_ONCE) && rs[i].count > 0) {
			parser_error(&p, "given twice (first on line %d)",
			    rs[i].first_line);
			goto next;
		}
		if (rs[i].count++ == 0)
			rs[i].first_line = p.line;
		if (!split_fields(&p, colon + 1))
			goto next;
		if (rules[i].fn(&p, ctx) != 0)
			goto out;
next:
		s = nl ? nl + 1 : end;
	}
	for (i = 0; i < nrules; i++)
		if ((rules[i].flags & PARSER_REQUIRED) && rs[i].count == 0)
			orders_error(errs, 0, "missing statement \"%s:\"",
			    rules[i].keyword);
	rc = errs->n > n0 ? HP_EINVAL : HP_OK;
out:
	free(rs);
	return rc;
}
