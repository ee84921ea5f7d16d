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

void
events_add(struct events *ev, unsigned visible, int roll, const char *fmt, ...)
{
	struct event *e = events_append(ev);
	va_list ap;

	e->seq = (int)ev->n;
	e->step = ev->step;
	strlcpy_(e->phase, ev->phase, sizeof e->phase);
	e->visible = visible;
	e->roll = roll;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
}
