/* ruleset: the static registry of rulesets. */
#include <string.h>
#include <strings.h>

#include "ruleset.h"

static const struct ruleset *const rulesets[] = {
	&ruleset_fam,
	&ruleset_pw,
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
