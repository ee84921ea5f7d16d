/* parser: one generic parser for line-oriented data files (scenarios).
 *
 * A file is a sequence of lines "keyword: field field ...". Blank lines
 * and lines whose first non-blank byte is '#' are ignored, as is a '#'
 * starting a word (a comment to the end of the line). Each keyword is
 * registered with a field specification such as
 *
 *     "id:word kind:word side:word at:word ?facing:word"
 *     "cols:int(1-200) rows:int(1-200)"
 *     "text:rest"
 *
 * where "?" marks an optional field (optional fields come last), "word" is
 * one blank-free word, "int(A-B)" a whole number from A to B, and "rest"
 * the rest of the line (last field only). The parser checks the shape of
 * every line against the specification and calls the keyword's handler
 * with the fields; the handler checks meaning and reports errors with
 * parser_error. Every error is collected with its line number (the
 * messages are exact and tested, tests/unit/test_parser.c), so a file is
 * answered with all its mistakes at once. */
#ifndef PARSER_H
#define PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "orders.h"

#define PARSER_MAX_FIELDS 12
#define PARSER_LINE_MAX 1024
#define PARSER_MAX_LINES 20000

struct parser;

/* Handle one statement; ctx is parser_run's. Return 0, or -1 to stop the
 * whole parse (out of memory or a broken invariant; errors continue
 * otherwise). */
typedef int (*parser_fn)(struct parser *, void *ctx);

#define PARSER_ONCE 1     /* at most one such statement */
#define PARSER_REQUIRED 2 /* at least one such statement */

struct parser_rule {
	const char *keyword;
	const char *spec;
	parser_fn fn;
	unsigned flags;
};

/* Parse text (len bytes, not necessarily NUL-terminated) against rules (a
 * table ended by a NULL keyword), calling handlers with ctx; every error
 * goes to errs. Returns HP_OK if there were none, HP_EINVAL if there were,
 * HP_EINTERNAL if a specification is malformed or a handler stopped. */
int parser_run(const struct parser_rule *rules, const char *text, size_t len,
    void *ctx, struct order_errors *errs);

/* The current line's number (1-based). */
int parser_line(const struct parser *);
/* The statement's keyword. */
const char *parser_keyword(const struct parser *);
/* Was optional field name given on this line? */
bool parser_has(const struct parser *, const char *name);
/* Field name as text ("" when an optional field is absent). The string
 * belongs to the parser and lives until the handler returns. */
const char *parser_str(const struct parser *, const char *name);
/* Field name of type int (0 when an optional field is absent). */
int parser_int(const struct parser *, const char *name);
/* Record an error on the current line: "line N: <keyword>: <message>". */
void parser_error(struct parser *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
