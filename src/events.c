/* events: the record of a resolution (see include/events.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "hexpost.h"

void
events_init(struct events *ev)
{
	memset(ev, 0, sizeof *ev);
}

void
events_free(struct events *ev)
{
	free(ev->v);
	memset(ev, 0, sizeof *ev);
}

void
events_phase(struct events *ev, const char *phase)
{
	if (ev->quiet)  /* no event will carry it */
		return;
	strlcpy_(ev->phase, phase, sizeof ev->phase);
}

struct event *
events_append(struct events *ev)
{
	struct event *e;

	if (ev->n == ev->cap) {
		ev->cap = ev->cap ? ev->cap * 2 : 32;
		ev->v = xrealloc(ev->v, ev->cap * sizeof *ev->v);
	}
	e = &ev->v[ev->n++];
	memset(e, 0, sizeof *e);
	return e;
}

/* Append an event with its text from fmt and ap; owned by ev. */
static struct event *events_vadd(struct events *, unsigned, int, const char *,
    va_list) __attribute__((format(printf, 4, 0)));

static struct event *
events_vadd(struct events *ev, unsigned visible, int roll, const char *fmt,
    va_list ap)
{
	struct event *e = events_append(ev);

	e->seq = (int)ev->n;
	e->step = ev->step;
	strlcpy_(e->phase, ev->phase, sizeof e->phase);
	e->visible = visible;
	e->roll = roll;
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	return e;
}

void
events_add(struct events *ev, unsigned visible, int roll, const char *fmt, ...)
{
	va_list ap;

	if (ev->quiet)
		return;
	va_start(ap, fmt);
	events_vadd(ev, visible, roll, fmt, ap);
	va_end(ap);
}

void
events_add_rolls(struct events *ev, unsigned visible, unsigned set,
    int first, int nroll, const char *fmt, ...)
{
	struct event *e;
	va_list ap;

	if (ev->quiet)
		return;
	va_start(ap, fmt);
	e = events_vadd(ev, visible, first, fmt, ap);
	va_end(ap);
	e->nroll = nroll > 1 ? nroll : 0;
	e->roll_set = set;
}

bool
events_cites(const struct event *e, unsigned set, int seq)
{
	int n = e->nroll > 1 ? e->nroll : 1;

	if (e->roll <= 0 || e->roll_set != set)
		return false;
	return seq >= e->roll && seq - e->roll < n;
}
