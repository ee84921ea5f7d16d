/* Unit tests for tmpl: variables, sections, standalone lines, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tmpl.h"

/* Render tpl with c, asserting success; the caller frees the result. */
static char *
render(const char *tpl, const struct tmpl_ctx *c)
{
	struct sbuf out;
	struct hp_error err;

	memset(&err, 0, sizeof(err));
	sbuf_init(&out);
	assert_int_equal(tmpl_render(tpl, c, &out, &err), HP_OK);
	return sbuf_steal(&out);
}

static void
check(const char *tpl, const struct tmpl_ctx *c, const char *want)
{
	char *got = render(tpl, c);

	assert_string_equal(got, want);
	free(got);
}

/* Render tpl expecting HP_EINVAL with message want and out left as it
 * was. */
static void
check_err(const char *tpl, const struct tmpl_ctx *c, const char *want)
{
	struct sbuf out;
	struct hp_error err;

	memset(&err, 0, sizeof(err));
	sbuf_init(&out);
	sbuf_puts(&out, "keep");
	assert_int_equal(tmpl_render(tpl, c, &out, &err), HP_EINVAL);
	assert_int_equal(err.code, HP_EINVAL);
	assert_string_equal(err.msg, want);
	assert_int_equal(out.len, 4);
	assert_string_equal(out.buf, "keep");
	sbuf_free(&out);
}

static void
test_variables(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();

	(void)state;
	tmpl_set(c, "name", "Ann");
	tmpl_set_int(c, "turn", 7);
	tmpl_set_int(c, "neg", -42);
	tmpl_setf(c, "hex", "%02d%02d", 3, 4);
	tmpl_set(c, "a.b", "1");
	tmpl_set(c, "x-y_2", "2");
	check("Turn {{turn}}: {{ name }} at {{hex}}.", c,
	    "Turn 7: Ann at 0304.");
	check("{{neg}}|{{a.b}}{{x-y_2}}|{{\tname\t}}", c, "-42|12|Ann");
	check("no tags at all\n", c, "no tags at all\n");
	check("", c, "");
	check("a { b } {c} }} x", c, "a { b } {c} }} x");
	tmpl_ctx_free(c);
}

static void
test_missing(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();

	(void)state;
	check("[{{nope}}]", c, "[]");
	tmpl_list_add(c, "l");
	check("[{{l}}]", c, "[]");
	tmpl_ctx_free(c);
}

static void
test_set_replaces(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;

	(void)state;
	tmpl_set(c, "a", "first");
	tmpl_set(c, "a", "second");
	check("{{a}}", c, "second");

	tmpl_list_add(c, "x");
	tmpl_list_add(c, "x");
	check("{{#x}}-{{/x}}", c, "--");
	tmpl_set(c, "x", "s");
	check("{{x}}|{{#x}}[{{x}}]{{/x}}", c, "s|[s]");

	tmpl_set(c, "y", "str");
	it = tmpl_list_add(c, "y");
	tmpl_set(it, "v", "1");
	check("[{{y}}]{{#y}}{{v}}{{/y}}", c, "[]1");
	tmpl_ctx_free(c);
}

static void
test_list_section(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;

	(void)state;
	tmpl_set(c, "side", "Red");
	tmpl_set(c, "hp", "?");
	tmpl_set(c, "name", "ROOT");
	it = tmpl_list_add(c, "units");
	tmpl_set(it, "name", "A");
	tmpl_set(it, "hp", "3");
	it = tmpl_list_add(c, "units");
	tmpl_set(it, "name", "B");
	check("{{#units}}{{name}}/{{side}}/{{hp}};{{/units}}{{name}}", c,
	    "A/Red/3;B/Red/?;ROOT");
	check("{{# units }}x{{/ units }}", c, "xx");
	tmpl_ctx_free(c);
}

static void
test_string_conditional(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();

	(void)state;
	tmpl_set(c, "flag", "yes");
	tmpl_set(c, "empty", "");
	tmpl_set(c, "zero", "0");
	check("{{#flag}}on {{flag}}{{/flag}}{{#empty}}X{{/empty}}"
	    "{{#missing}}Y{{/missing}}{{#zero}}!{{/zero}}", c, "on yes!");
	tmpl_ctx_free(c);
}

static void
test_inverted(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();

	(void)state;
	tmpl_set(c, "flag", "yes");
	tmpl_set(c, "empty", "");
	tmpl_list_add(c, "l");
	check("{{^flag}}A{{/flag}}{{^empty}}B{{/empty}}"
	    "{{^missing}}C{{/missing}}{{^l}}D{{/l}}", c, "BC");
	check("{{^missing}}{{flag}}{{/missing}}", c, "yes");
	tmpl_ctx_free(c);
}

static void
test_nested_lists(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *side, *u;

	(void)state;
	side = tmpl_list_add(c, "sides");
	tmpl_set(side, "name", "Red");
	u = tmpl_list_add(side, "units");
	tmpl_set(u, "id", "u1");
	u = tmpl_list_add(side, "units");
	tmpl_set(u, "id", "u2");
	side = tmpl_list_add(c, "sides");
	tmpl_set(side, "name", "Blue");
	u = tmpl_list_add(side, "units");
	tmpl_set(u, "id", "u3");
	side = tmpl_list_add(c, "sides");
	tmpl_set(side, "name", "Green");
	check("{{#sides}}{{name}}:{{#units}} {{id}}@{{name}}{{/units}}|"
	    "{{/sides}}", c, "Red: u1@Red u2@Red|Blue: u3@Blue|Green:|");
	check("{{#sides}}{{^units}}{{name}} has none{{/units}}{{/sides}}", c,
	    "Green has none");
	tmpl_ctx_free(c);
}

static void
test_same_name_nesting(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;

	(void)state;
	it = tmpl_list_add(c, "l");
	tmpl_set(it, "v", "1");
	tmpl_set(it, "w", "a");
	it = tmpl_list_add(c, "l");
	tmpl_set(it, "v", "2");
	tmpl_set(it, "w", "b");
	tmpl_list_add(c, "m");
	/* The inner l is found at the root and iterated again. */
	check("{{#l}}{{#l}}{{v}}{{/l}}.{{/l}}", c, "12.12.");
	/* m's item is looked up through the item of l enclosing it. */
	check("{{#l}}{{#m}}{{w}}{{/m}}{{/l}}", c, "ab");
	tmpl_set(c, "s", "x");
	check("{{#s}}{{#s}}{{s}}{{/s}}{{/s}}", c, "x");
	tmpl_ctx_free(c);
}

static void
test_standalone(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;

	(void)state;
	it = tmpl_list_add(c, "l");
	tmpl_set(it, "v", "1");
	it = tmpl_list_add(c, "l");
	tmpl_set(it, "v", "2");
	tmpl_set(c, "s", "1");

	check("a\n{{#l}}\n- {{v}}\n{{/l}}\nb\n", c, "a\n- 1\n- 2\nb\n");
	check("a\n  {{#l}}  \n- {{v}}\n\t{{/l}}\t\nb\n", c,
	    "a\n- 1\n- 2\nb\n");
	check("a\r\n{{#l}}\r\n- {{v}}\r\n{{/l}}\r\nb\r\n", c,
	    "a\r\n- 1\r\n- 2\r\nb\r\n");
	check("{{#l}}\n{{v}}\n  {{/l}}", c, "1\n2\n");
	check("{{^missing}}\nX\n{{/missing}}\n", c, "X\n");
	check("a\n  {{! note }}\nb\n", c, "a\nb\n");
	check("a\n{{! one\ntwo }}\nb\n", c, "a\nb\n");

	/* Not standalone: the lines stay. */
	check("x {{#s}}y{{/s}}\n", c, "x y\n");
	check("{{#s}}\ny {{/s}} z\n", c, "y  z\n");
	check("{{#s}}{{/s}}\n", c, "\n");
	check("  {{missing}}  \n", c, "    \n");
	check("{{#s}} x\n{{/s}}\n", c, " x\n");
	check("{{! c }}x\n", c, "x\n");
	check("a\r{{! c }}\nb", c, "a\r\nb");
	tmpl_ctx_free(c);
}

static void
test_comments(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();

	(void)state;
	tmpl_set(c, "x", "X");
	check("a{{! hi }}b{{!}}c{{!{{ x }}d", c, "abcd");
	check("{{! #x ^x /x }}{{x}}", c, "X");
	check("a{{! multi\nline }}b", c, "ab");
	tmpl_ctx_free(c);
}

static void
test_errors(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();

	(void)state;
	check_err("a\nb {{name\nc", c, "template line 2: unterminated tag");
	check_err("{{a}", c, "template line 1: unterminated tag");
	check_err("{{a}}\n{{", c, "template line 2: unterminated tag");
	check_err("a\n\n{{#s}}\nx\n", c,
	    "template line 3: section \"s\" is not closed");
	check_err("{{#a}}\n{{^b}}\n{{/b}}\n{{#c}}\n", c,
	    "template line 4: section \"c\" is not closed");
	check_err("{{#a}}\n{{#b}}\n{{/a}}\n", c, "template line 3: close tag "
	    "\"a\" does not match \"b\" opened on line 2");
	check_err("x\n{{/a}}", c,
	    "template line 2: close tag \"a\" without open section");
	check_err("{{#a}}{{/a}}\n\n{{/a}}", c,
	    "template line 3: close tag \"a\" without open section");
	check_err("x\ny\n{{ }}", c, "template line 3: empty tag name");
	check_err("{{#}}", c, "template line 1: empty tag name");
	check_err("\n{{#a}}{{/ }}", c, "template line 2: empty tag name");
	check_err("{{a b}}", c, "template line 1: bad character in tag name");
	check_err("\n{{&x}}", c, "template line 2: bad character in tag name");
	check_err("{{{x}}}", c, "template line 1: bad character in tag name");
	tmpl_ctx_free(c);
}

static void
test_depth(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();
	struct sbuf t;
	int i;

	(void)state;
	tmpl_set(c, "s", "1");
	sbuf_init(&t);
	for (i = 0; i < 32; i++)
		sbuf_puts(&t, "{{#s}}\n");
	sbuf_puts(&t, "x\n");
	for (i = 0; i < 32; i++)
		sbuf_puts(&t, "{{/s}}\n");
	check(t.buf, c, "x\n");
	sbuf_free(&t);

	for (i = 0; i < 33; i++)
		sbuf_puts(&t, "{{^s}}\n");
	check_err(t.buf, c,
	    "template line 33: sections nested deeper than 32");
	sbuf_free(&t);
	tmpl_ctx_free(c);
}

static void
test_blowup(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new();
	struct sbuf t;
	int i;

	(void)state;
	tmpl_list_add(c, "l");
	tmpl_list_add(c, "l");
	sbuf_init(&t);
	for (i = 0; i < 32; i++)
		sbuf_puts(&t, "{{#l}}");
	sbuf_puts(&t, "x");
	for (i = 0; i < 32; i++)
		sbuf_puts(&t, "{{/l}}");
	check_err(t.buf, c, "template line 1: output too large");
	sbuf_free(&t);
	tmpl_ctx_free(c);
}

static void
test_appends_and_keeps_ctx(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;
	struct sbuf out;
	struct hp_error err;
	const char *tpl = "{{#l}}{{v}}{{/l}}{{^l}}none{{/l}}";

	(void)state;
	it = tmpl_list_add(c, "l");
	tmpl_set(it, "v", "1");
	sbuf_init(&out);
	sbuf_puts(&out, "pre:");
	assert_int_equal(tmpl_render(tpl, c, &out, &err), HP_OK);
	assert_int_equal(tmpl_render(tpl, c, &out, &err), HP_OK);
	assert_string_equal(out.buf, "pre:11");
	sbuf_free(&out);
	tmpl_ctx_free(c);
}

static const char report_tpl[] =
    "Turn {{turn}} report for {{side}}\n"
    "{{! header done }}\n"
    "{{#units}}\n"
    "  {{name}} at {{hex}}{{#damaged}} (damaged){{/damaged}}\n"
    "{{/units}}\n"
    "{{^units}}\n"
    "  No units.\n"
    "{{/units}}\n"
    "{{#events}}\n"
    "Events:\n"
    "  {{#list}}\n"
    "  - {{text}}\n"
    "  {{/list}}\n"
    "{{/events}}\n"
    "-- {{footer}}\n";

static void
test_report(void **state)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it;

	(void)state;
	tmpl_set_int(c, "turn", 12);
	tmpl_set(c, "side", "Red");
	it = tmpl_list_add(c, "units");
	tmpl_set(it, "name", "1st Inf");
	tmpl_set(it, "hex", "0304");
	tmpl_set(it, "damaged", "yes");
	it = tmpl_list_add(c, "units");
	tmpl_set(it, "name", "2nd Cav");
	tmpl_set(it, "hex", "0405");
	tmpl_set(it, "damaged", "");
	tmpl_set(c, "events", "1");
	it = tmpl_list_add(c, "list");
	tmpl_set(it, "text", "Bridge blown at 0506");
	it = tmpl_list_add(c, "list");
	tmpl_set(it, "text", "Rain");
	tmpl_set(c, "footer", "hexpost");
	check(report_tpl, c,
	    "Turn 12 report for Red\n"
	    "  1st Inf at 0304 (damaged)\n"
	    "  2nd Cav at 0405\n"
	    "Events:\n"
	    "  - Bridge blown at 0506\n"
	    "  - Rain\n"
	    "-- hexpost\n");
	tmpl_ctx_free(c);

	c = tmpl_ctx_new();
	tmpl_set_int(c, "turn", 1);
	tmpl_set(c, "side", "Blue");
	check(report_tpl, c,
	    "Turn 1 report for Blue\n"
	    "  No units.\n"
	    "-- \n");
	tmpl_ctx_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_set_replaces),
		cmocka_unit_test(test_list_section),
		cmocka_unit_test(test_string_conditional),
		cmocka_unit_test(test_inverted),
		cmocka_unit_test(test_nested_lists),
		cmocka_unit_test(test_same_name_nesting),
		cmocka_unit_test(test_standalone),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_blowup),
		cmocka_unit_test(test_appends_and_keeps_ctx),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
