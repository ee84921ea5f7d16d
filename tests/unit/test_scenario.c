/* Unit tests for scenario files (src/scenario.c, the portable-modern set-up
 * from a scenario, ruleset_setup): the catalogue of bad files in
 * tests/parse/ with their exact errors, every shipped scenario checks
 * clean, a scenario written from docs/SCENARIOS.md alone plays through to
 * a clean audit with its text stored and bundled, and a changed scenario
 * in a bundle fails the audit's replay. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "embedded.h"
#include "fixtures.h"
#include "minisign.h"
#include "ruleset.h"
#include "scenario.h"
#include "seedchain.h"
#include "store.h"
#include "turn.h"

/* The source tree (tests run with HEXPOST_SOURCE set by CMake). */
static const char *
source(void)
{
	const char *s = getenv("HEXPOST_SOURCE");

	return s != NULL ? s : "..";
}

/* The "#= " lines of a catalogue file: the errors it must give. */
static char *
expected_errors(const char *text)
{
	struct sbuf b;
	const char *p = text, *nl;

	sbuf_init(&b);
	sbuf_puts(&b, "");
	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (strncmp(p, "#= ", 3) == 0) {
			sbuf_add(&b, p + 3, (size_t)((nl ? nl : p + strlen(p)) -
			    (p + 3)));
			sbuf_puts(&b, "\n");
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	return sbuf_steal(&b);
}

/* Every file of tests/parse/ gives exactly the errors its "#=" lines
 * name, in that order (none: it checks clean). */
static void
test_catalogue(void **state)
{
	struct hp_error err = { 0, "" };
	char dir[700], path[1000];
	struct dirent *de;
	int nfiles = 0, bad = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof dir, "%s/tests/parse", source());
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		struct order_errors e;
		struct scenario sc;
		char *text, *want, *got;
		size_t len, n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".scn") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		text = util_read_file(path, &len, &err);
		assert_non_null(text);
		want = expected_errors(text);
		orders_errors_init(&e);
		assert_int_equal(ruleset_scenario_check(text, len, "", &sc, &e),
		    *want ? HP_EINVAL : HP_OK);
		got = orders_errors_text(&e);
		if (strcmp(got, want) != 0) {
			print_error("%s:\n--- want\n%s--- got\n%s", de->d_name,
			    want, got);
			bad++;
		}
		nfiles++;
		free(got);
		free(want);
		free(text);
		scenario_free(&sc);
		orders_errors_free(&e);
	}
	closedir(d);
	assert_true(nfiles >= 9);
	assert_int_equal(bad, 0);
}

/* Every shipped scenario checks clean, with and without each option the
 * ruleset offers. */
static void
test_shipped(void **state)
{
	static const char *const opts[] = { "", "cyclists", "tank-riders",
		"cyclists,tank-riders,gas,turns=5" };
	const char **names;
	size_t n, i, k;
	char path[200];

	(void)state;
	names = scenario_list(NULL, &n);
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		const struct embedded_file *f;

		snprintf(path, sizeof path, "scenarios/%s", names[i]);
		f = embedded_find(path);
		assert_non_null(f);
		for (k = 0; k < sizeof opts / sizeof opts[0]; k++) {
			struct order_errors e;
			struct scenario sc;

			if (strncmp(names[i], "portable-modern/", 16) != 0 &&
			    k > 0)
				continue;
			orders_errors_init(&e);
			if (ruleset_scenario_check(f->data, f->len, opts[k], &sc,
			    &e) != HP_OK) {
				char *t = orders_errors_text(&e);

				fail_msg("%s (%s): %s", names[i], opts[k], t);
			}
			scenario_free(&sc);
			orders_errors_free(&e);
		}
	}
	free(names);
}

/* The options the river-crossing declares do what its lines say: b6 is a
 * cyclist unit at B5; b5 rides tank b12. */
static void
test_options(void **state)
{
	struct hp_error err = { 0, "" };
	struct game g;
	int i, t;

	(void)state;
	game_init(&g);
	g.rules = ruleset_find("portable-modern");
	strlcpy_(g.options, "cyclists,tank-riders", sizeof g.options);
	assert_int_equal(ruleset_setup(&g, NULL, NULL, NULL, NULL, &err),
	    HP_OK);
	i = game_unit_index(&g, "b6");
	assert_string_equal(g.units[i].kind, "cyclists");
	assert_true(hex_eq(g.units[i].pos, fx_hex(&g, "B5")));
	assert_int_equal(g.units[i].attached, -1);
	i = game_unit_index(&g, "b5");
	t = game_unit_index(&g, "b12");
	assert_int_equal(g.units[i].attached, t);
	assert_true(hex_eq(g.units[i].pos, g.units[t].pos));
	assert_int_equal(game_var(&g, "turns", 0), 20);
	game_free(&g);

	/* Unknown shipped name: the error lists the shipped ones. */
	game_init(&g);
	g.rules = ruleset_find("portable-modern");
	assert_int_equal(ruleset_setup(&g, "desert", NULL, NULL, NULL, &err),
	    HP_EINVAL);
	assert_string_equal(err.msg, "portable-modern has no scenario "
	    "'desert' (shipped: empty, river-crossing; or give a file's "
	    "path)");
	game_free(&g);
}

static char tdir[512], db[700], skp[700], pkp[700], bdir[700];

/* A campaign from the hand-written crossroads scenario, both sides the
 * built-in opponent, resolved to its end with signed dice logs. */
static struct store *
crossroads(char **file_text)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *sk = NULL;
	struct store *st;
	char path[800];
	int n = 0;

	fx_mkdtemp(tdir, sizeof tdir, "scenario");
	snprintf(db, sizeof db, "%s/db", tdir);
	snprintf(skp, sizeof skp, "%s/server.key", tdir);
	snprintf(pkp, sizeof pkp, "%s/server.pub", tdir);
	snprintf(bdir, sizeof bdir, "%s/bundle", tdir);
	snprintf(path, sizeof path, "%s/tests/data/scenarios/crossroads.scn",
	    source());
	*file_text = util_read_file(path, NULL, &err);
	assert_non_null(*file_text);
	st = fx_store_new(db);
	assert_int_equal(turn_campaign_new(st, "cr", "portable-modern", path,
	    NULL, NULL, 0, &err), HP_OK);
	assert_int_equal(minisign_keygen(skp, pkp, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(skp, &sk, &err), HP_OK);
	assert_int_equal(seedchain_sign(st, "cr", sk, &err), HP_OK);
	assert_int_equal(turn_resolve_signed(st, "cr", NULL, sk, &n, &err),
	    HP_OK);
	minisign_seckey_free(sk);
	assert_true(n >= 2);
	return st;
}

/* The scenario written from the documentation alone starts a campaign
 * that plays to its end; its exact text and hash are stored; the audit
 * passes from the database and from the bundle, which carries the text. */
static void
test_handwritten_campaign(void **state)
{
	struct hp_error err = { 0, "" };
	struct audit_opts o = { pkp, NULL, false, NULL, 0, NULL, false };
	struct audit_stats s;
	struct store *st;
	struct game g;
	char *file, *stored, *bundled, path[800], *row;
	int64_t cid;

	(void)state;
	st = crossroads(&file);
	game_init(&g);
	assert_int_equal(store_game_load(st, "cr", &g, &cid, &err), HP_OK);
	assert_string_equal(g.scenario, "crossroads");
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(g.layout.cols, 8);
	assert_int_equal(g.layout.rows, 6);
	assert_int_equal(game_var(&g, "obj.need", 0), 2);
	assert_int_equal(game_var(&g, "turns", 0), 8);
	game_free(&g);
	assert_int_equal(store_campaign_scenario(st, cid, &stored, &err),
	    HP_OK);
	assert_non_null(stored);
	assert_string_equal(stored, file);
	row = fx_db_rows(db, "SELECT scenario_sha256 FROM campaigns");
	assert_string_equal(row, "65547711d95c1771c0c09220c5da5c86ebf740cdd1d0"
	    "b03c11ac93cfb75af9bb\n");
	free(row);
	if (audit_campaign(st, "cr", &o, &s, &err) != HP_OK)
		fail_msg("audit: %s", err.msg);
	assert_int_equal(audit_export(st, "cr", bdir, pkp, &err), HP_OK);
	snprintf(path, sizeof path, "%s/scenario.scn", bdir);
	bundled = util_read_file(path, NULL, &err);
	assert_non_null(bundled);
	assert_string_equal(bundled, file);
	assert_int_equal(audit_bundle(bdir, NULL, &s, &err), HP_OK);
	free(bundled);
	free(stored);
	free(file);
	store_close(st);
	fx_rmtree(tdir);
}

/* A bundle whose scenario.scn was changed (a tank moved one hex) fails
 * the audit's replay; the one with the original text passes. */
static void
test_bundle_scenario_tampered(void **state)
{
	struct hp_error err = { 0, "" };
	struct audit_stats s;
	struct store *st;
	char *file, *p, path[800];
	FILE *f;

	(void)state;
	st = crossroads(&file);
	assert_int_equal(audit_export(st, "cr", bdir, pkp, &err), HP_OK);
	assert_int_equal(audit_bundle(bdir, NULL, &s, &err), HP_OK);
	p = strstr(file, "unit: b5 tank blue F6");
	assert_non_null(p);
	p[strlen("unit: b5 tank blue F")] = '5';
	snprintf(path, sizeof path, "%s/scenario.scn", bdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(file, f);
	assert_int_equal(fclose(f), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(audit_bundle(bdir, NULL, &s, &err), HP_EINVAL);
	if (strstr(err.msg, "turn 1") == NULL)
		fail_msg("the replay did not fail at once: %s", err.msg);
	free(file);
	store_close(st);
	fx_rmtree(tdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_handwritten_campaign),
		cmocka_unit_test(test_bundle_scenario_tampered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
