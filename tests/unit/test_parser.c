/* Unit tests for the generic line parser (src/parser.c): the shape checks
 * of every field type, comments, line ends, limits, once/required rules,
 * and the exact wording and line number of every error. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

/* What the toy grammar's handlers saw. */
struct seen {
	char log[2048];
	int stop_at; /* line whose handler stops the parse, or 0 */
};

static void
logf_(struct seen *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
logf_(struct seen *s, const char *fmt, ...)
{
	size_t n = strlen(s->log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->log + n, sizeof s->log - n, fmt, ap);
	va_end(ap);
}

static int
h_size(struct parser *p, void *ctx)
{
	logf_(ctx, "size %d %d|", parser_int(p, "w"), parser_int(p, "h"));
	return 0;
}

static int
h_unit(struct parser *p, void *ctx)
{
	struct seen *s = ctx;

	if (parser_line(p) == s->stop_at)
		return -1;
	logf_(s, "unit %s %s %s|", parser_str(p, "id"), parser_str(p, "at"),
	    parser_has(p, "facing") ? parser_str(p, "facing") : "-");
	if (strcmp(parser_str(p, "id"), "bad") == 0)
		parser_error(p, "no unit may be called \"%s\"",
		    parser_str(p, "id"));
	return 0;
}

static int
h_title(struct parser *p, void *ctx)
{
	logf_(ctx, "%s [%s]|", parser_keyword(p), parser_str(p, "text"));
	return 0;
}

static const struct parser_rule toy[] = {
	{ "size", "w:int(1-20) h:int(1-20)", h_size,
	    PARSER_ONCE | PARSER_REQUIRED },
	{ "unit", "id:word at:word ?facing:word", h_unit, 0 },
	{ "title", "text:rest", h_title, 0 },
	{ NULL, NULL, NULL, 0 }
};

/* Parse text with the toy grammar: rc, the handlers' log, the errors. */
static int
run(const char *text, struct seen *s, char **errors)
{
	struct order_errors e;
	int rc;

	orders_errors_init(&e);
	rc = parser_run(toy, text, strlen(text), s, &e);
	*errors = orders_errors_text(&e);
	orders_errors_free(&e);
	return rc;
}

static void
expect(const char *text, int rc, const char *log, const char *errors)
{
	struct seen s;
	char *got;

	memset(&s, 0, sizeof s);
	assert_int_equal(run(text, &s, &got), rc);
	assert_string_equal(s.log, log);
	assert_string_equal(got, errors);
	free(got);
}

/* Well-formed files: fields, optional fields, comments, blank lines, CRLF
 * and a missing final newline. */
static void
test_good(void **state)
{
	(void)state;
	expect("size: 3 4\nunit: a B2\nunit: b C3 ne\n", HP_OK,
	    "size 3 4|unit a B2 -|unit b C3 ne|", "");
	expect("# a comment\n\n  size:\t20 1   # trailing comment\r\n"
	    "title: Hill 112 # not part of the title\r\n"
	    "title: a#b stays\nunit: x A1", HP_OK,
	    "size 20 1|title [Hill 112]|title [a#b stays]|unit x A1 -|", "");
}

/* Every shape error, with its exact wording and line; the parse goes on
 * after each so a file's mistakes are listed at once. */
static void
test_errors(void **state)
{
	(void)state;
	expect("size: 3\n", HP_EINVAL, "",
	    "line 1: size: missing <h> (expected \"size: <w> <h>\")\n");
	expect("size: 3 x\n", HP_EINVAL, "",
	    "line 1: size: <h> must be a whole number from 1 to 20, not "
	    "\"x\"\n");
	expect("size: 3 21\n", HP_EINVAL, "",
	    "line 1: size: <h> must be a whole number from 1 to 20, not "
	    "\"21\"\n");
	expect("size: 1 1\nunit: a B2 ne extra\n", HP_EINVAL, "size 1 1|",
	    "line 2: unit: unexpected \"extra\" (expected \"unit: <id> <at> "
	    "[<facing>]\")\n");
	expect("size: 1 1\nwall: A1\n", HP_EINVAL, "size 1 1|",
	    "line 2: unknown statement \"wall\" (expected one of: size, unit, "
	    "title)\n");
	expect("size: 1 1\nunit a B2\n", HP_EINVAL, "size 1 1|",
	    "line 2: expected \"keyword: values\", not \"unit a B2\"\n");
	expect("size: 1 1\n: x\n", HP_EINVAL, "size 1 1|",
	    "line 2: expected \"keyword: values\", not \": x\"\n");
	expect("size: 1 1\nsize: 2 2\n", HP_EINVAL, "size 1 1|",
	    "line 2: size: given twice (first on line 1)\n");
	expect("unit: a B2\n", HP_EINVAL, "unit a B2 -|",
	    "missing statement \"size:\"\n");
	expect("size: 1 1\nunit: bad A1\ntitle:\n", HP_EINVAL,
	    "size 1 1|unit bad A1 -|",
	    "line 2: unit: no unit may be called \"bad\"\n"
	    "line 3: title: missing <text> (expected \"title: <text...>\")\n");
	expect("size: 1 1\nunit: a\x07 B2\n", HP_EINVAL, "size 1 1|",
	    "line 2: control byte 0x07 (only printable text, tabs and "
	    "spaces)\n");
}

/* A line longer than the limit is one error, and the parse goes on. */
static void
test_long_line(void **state)
{
	char *text = malloc(PARSER_LINE_MAX + 64);

	(void)state;
	assert_non_null(text);
	strcpy(text, "size: 1 1\ntitle: ");
	memset(text + strlen(text), 'x', PARSER_LINE_MAX);
	strcpy(text + strlen("size: 1 1\ntitle: ") + PARSER_LINE_MAX,
	    "\nunit: a B2\n");
	expect(text, HP_EINVAL, "size 1 1|unit a B2 -|",
	    "line 2: longer than 1024 bytes\n");
	free(text);
}

/* A handler that stops the parse (out of memory, a broken invariant)
 * stops it there. */
static void
test_stop(void **state)
{
	struct seen s;
	char *got;

	(void)state;
	memset(&s, 0, sizeof s);
	s.stop_at = 2;
	assert_int_equal(run("size: 1 1\nunit: a B2\nunit: b C3\n", &s, &got),
	    HP_EINTERNAL);
	assert_string_equal(s.log, "size 1 1|");
	free(got);
}

/* A malformed specification is a programming error, reported as such. */
static void
test_bad_spec(void **state)
{
	static const struct parser_rule bad[][2] = {
		{ { "a", "x:float", h_size, 0 }, { NULL, NULL, NULL, 0 } },
		{ { "a", "?x:word y:word", h_size, 0 },
		    { NULL, NULL, NULL, 0 } },
		{ { "a", "x:rest y:word", h_size, 0 },
		    { NULL, NULL, NULL, 0 } },
		{ { "a", "x:int(5-1)", h_size, 0 }, { NULL, NULL, NULL, 0 } },
		{ { "a", "noname", h_size, 0 }, { NULL, NULL, NULL, 0 } },
	};
	struct order_errors e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		orders_errors_init(&e);
		assert_int_equal(parser_run(bad[i], "a: 1\n", 5, NULL, &e),
		    HP_EINTERNAL);
		orders_errors_free(&e);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_bad_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
