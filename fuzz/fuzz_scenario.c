/* libFuzzer harness for scenario files: the generic line parser, the
 * scenario statements and the portable-modern set-up from a scenario
 * (ruleset_scenario_check, as `hexpost scenario check` runs them).
 * Checked on every run: a file is either clean or has at least one error,
 * every error names a line within the file (or 0 for the whole file) and
 * has a message; a clean file's map has exactly cols x rows terrain rows
 * of cols letters, each with a legend, and its set-up builds a game with
 * no engine error. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_error err = { 0, "" };
	struct order_errors e;
	struct scenario sc;
	struct game g;
	size_t i, lines = 1;
	int r, rc;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	orders_errors_init(&e);
	rc = ruleset_scenario_check((const char *)data, size, "", &sc, &e);
	if ((rc == HP_OK) != (e.n == 0))
		abort();
	for (i = 0; i < e.n; i++)
		if (e.v[i].line < 0 || (size_t)e.v[i].line > lines ||
		    e.v[i].msg[0] == '\0')
			abort();
	if (rc == HP_OK) {
		if (sc.nterrain != sc.rows)
			abort();
		for (r = 0; r < sc.nterrain; r++) {
			const char *c;

			if ((int)strlen(sc.terrain[r]) != sc.cols)
				abort();
			for (c = sc.terrain[r]; *c != '\0'; c++)
				if (sc.legend_line[(unsigned char)*c] == 0)
					abort();
		}
		game_init(&g);
		g.rules = ruleset_find(sc.ruleset);
		if (g.rules == NULL)
			abort();
		strlcpy_(g.name, "fuzz", sizeof g.name);
		if (ruleset_setup(&g, NULL, sc.text, NULL, NULL, &err) !=
		    HP_OK || game_error(&g) != NULL)
			abort();
		game_free(&g);
	}
	scenario_free(&sc);
	orders_errors_free(&e);
	return 0;
}
