/* libFuzzer harness for the plan language of cards-ap (seed 004) alone:
 * the input is a plan as the ruleset's own state stores it (no order-file
 * header), parsed for blue or red (the first byte's low bit) against the
 * fresh crossroads, the first plan window after the deploy window.
 *
 * Checked on every run: cap_plan_from_text never crashes; an accepted plan
 * has at most CAP_MAX_ENTRIES entries and CAP_MAX_STOPS stops, every unit
 * it names is the side's own (a close-combat target the enemy's); its
 * canonical text parses again to itself (byte for byte). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/rules/cards/cap.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define WHO "fuzz_cards_plan"

static struct game fresh;
static bool ready;

/* Does action a of side name only units it may? */
static bool
units_ok(const struct game *g, int side, const struct cap_action *a)
{
	if (a->unit >= 0 && (a->unit >= g->nunits ||
	    g->units[a->unit].side != side))
		return false;
	if (a->tunit >= 0 && a->tunit >= g->nunits)
		return false;
	if (a->kind == ACT_CLOSE && g->units[a->tunit].side == side)
		return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cap_plan *p, *q;
	struct sbuf c1, c2;
	char *text;
	int side, i;

	if (!ready) {
		fuzz_new_game(&fresh, ruleset_find("cards-ap"), "", WHO);
		ready = true;
	}
	if (size < 1)
		return 0;
	side = data[0] & 1;
	text = xmalloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	p = xcalloc(1, sizeof *p);
	q = xcalloc(1, sizeof *q);
	if (cap_plan_from_text(&fresh, side, text, p) == HP_OK) {
		if (p->n > CAP_MAX_ENTRIES || p->nstops > CAP_MAX_STOPS) {
			fprintf(stderr, "%s: %d entries, %d stops\n", WHO, p->n,
			    p->nstops);
			abort();
		}
		for (i = 0; i < p->n; i++)
			if (!units_ok(&fresh, side, &p->e[i].then) ||
			    (p->e[i].has_else && !units_ok(&fresh, side,
			    &p->e[i].els))) {
				fprintf(stderr, "%s: entry %d names a unit it "
				    "may not\n", WHO, i);
				abort();
			}
		sbuf_init(&c1);
		sbuf_init(&c2);
		cap_plan_canon(&fresh, p, &c1);
		if (cap_plan_from_text(&fresh, side, c1.buf ? c1.buf : "", q) !=
		    HP_OK) {
			fprintf(stderr, "%s: canonical text refused:\n%s\n", WHO,
			    c1.buf);
			abort();
		}
		cap_plan_canon(&fresh, q, &c2);
		if (strcmp(c1.buf ? c1.buf : "", c2.buf ? c2.buf : "") != 0) {
			fprintf(stderr, "%s: canonical text not stable:\n%s\n--\n"
			    "%s\n", WHO, c1.buf, c2.buf);
			abort();
		}
		sbuf_free(&c1);
		sbuf_free(&c2);
	}
	free(p);
	free(q);
	free(text);
	return 0;
}
