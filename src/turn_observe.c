/* turn: the observers of the window lifecycle (see include/turn.h). Kept
 * apart from turn.c, whose lifecycle only calls turn_observers_*. */
#include "turn.h"

#define TURN_OBSERVERS 8

static const struct turn_observer *observers[TURN_OBSERVERS];
static int nobservers;

/* Add o to the observers (turn.h). */
void
turn_observe(const struct turn_observer *o)
{
	int i;

	for (i = 0; i < nobservers; i++)
		if (observers[i] == o)
			return;
	if (nobservers == TURN_OBSERVERS)
		fatalx("turn_observe: more than %d observers", TURN_OBSERVERS);
	observers[nobservers++] = o;
}

/* Refuse a lifecycle nothing observes: its windows would get no clock and
 * no report. */
static int
none(struct hp_error *err)
{
	hp_seterr(err, HP_EINTERNAL, "the window lifecycle has no observers "
	    "(engine_init was not called)");
	return HP_EINTERNAL;
}

/* Run every observer's opened hook (turn.h). */
int
turn_observers_opened(struct store *st, int64_t wid, struct hp_error *err)
{
	int i, rc;

	if (nobservers == 0)
		return none(err);
	for (i = 0; i < nobservers; i++)
		if (observers[i]->opened != NULL &&
		    (rc = observers[i]->opened(st, wid, err)) != HP_OK)
			return rc;
	return HP_OK;
}

/* Run every observer's resolved hook (turn.h). */
int
turn_observers_resolved(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct events *ev,
    const struct dice *d, struct hp_error *err)
{
	int i, rc;

	if (nobservers == 0)
		return none(err);
	for (i = 0; i < nobservers; i++)
		if (observers[i]->resolved != NULL &&
		    (rc = observers[i]->resolved(st, cid, g, w, ev, d, err)) !=
		    HP_OK)
			return rc;
	return HP_OK;
}
