/* ruleset: the static registry of rulesets. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ruleset.h"

static const struct ruleset *const rulesets[] = {
	&ruleset_fam,
	&ruleset_pw,
	&ruleset_platoon,
	&ruleset_test_decide,
	&ruleset_test_fog,
	&ruleset_skirmish,
	&ruleset_cards_ap,
	NULL
};

const struct ruleset *
ruleset_find(const char *name)
{
	int i;

	for (i = 0; rulesets[i] != NULL; i++)
		if (strcasecmp(rulesets[i]->name, name) == 0)
			return rulesets[i];
	return NULL;
}

const struct ruleset *const *
ruleset_all(void)
{
	return rulesets;
}

int
ruleset_setup(struct game *g, const char *spec, const char *text,
    char **sc_text, struct order_errors *errs, struct hp_error *err)
{
	struct order_errors own;
	struct scenario sc;
	int rc;

	if (sc_text != NULL)
		*sc_text = NULL;
	orders_errors_init(&own);
	if (errs == NULL)
		errs = &own;
	if (text != NULL && *text != '\0')
		rc = scenario_from_text(&sc, text, errs, err);
	else
		rc = scenario_load(&sc, g->rules->name,
		    g->rules->default_scenario, spec, errs, err);
	if (rc == HP_OK) {
		sc.errs = errs;
		rc = g->rules->setup(g, &sc, err);
	}
	if (rc == HP_OK && sc_text != NULL) {
		*sc_text = sc.text;
		sc.text = NULL;
	}
	scenario_free(&sc);
	if (rc != HP_OK && errs == &own && own.n > 0) {
		char *t = orders_errors_text(&own);
		char *nl = strchr(t, '\n');

		if (nl != NULL)
			*nl = '\0';
		hp_seterr(err, rc, "the scenario has %zu error%s ('hexpost "
		    "scenario check' lists them all); the first: %.200s",
		    own.n, own.n == 1 ? "" : "s", t);
		free(t);
	}
	orders_errors_free(&own);
	return rc;
}

int
ruleset_scenario_check(const char *text, size_t len, const char *options,
    struct scenario *sc, struct order_errors *errs)
{
	struct hp_error err = { 0, "" };
	size_t n0 = errs->n;
	struct game g;

	game_init(&g);
	if (scenario_parse(sc, text, len, errs) != HP_OK)
		goto out;
	if ((g.rules = ruleset_find(sc->ruleset)) == NULL)
		orders_error(errs, 0, "ruleset: no ruleset \"%s\" (see "
		    "'hexpost rules list')", sc->ruleset);
	else {
		strlcpy_(g.name, "check", sizeof g.name);
		strlcpy_(g.options, options ? options : "", sizeof g.options);
		if (g.rules->setup(&g, sc, &err) != HP_OK && errs->n == n0)
			orders_error(errs, 0, "%s", err.msg);
	}
out:
	game_free(&g);
	return errs->n > n0 ? HP_EINVAL : HP_OK;
}
