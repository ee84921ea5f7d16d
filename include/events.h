/* events: what happened during a resolution, phase by phase, each with the
 * sides allowed to see it (hidden information is the ruleset's call). */
#ifndef EVENTS_H
#define EVENTS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define EVENT_TEXT_MAX 320
#define EVENT_PHASE_MAX 48
#define EVENT_ALL_SIDES 0xff

struct event {
	int seq;
	int step;
	char phase[EVENT_PHASE_MAX];
	char text[EVENT_TEXT_MAX];
	unsigned visible;   /* bit per side; EVENT_ALL_SIDES for everyone */
	int roll;           /* dice log seq this event reports, 0 if none */
	int nroll;          /* it cites rolls roll..roll+nroll-1 (0: roll
	                     * alone); G6 */
	unsigned roll_set;  /* 0: the public stream; else the sealed stream
	                     * of this visibility set (dice.h) */
};

struct events {
	struct event *v;
	size_t n;
	size_t cap;
	int step;                       /* current step */
	char phase[EVENT_PHASE_MAX];    /* current phase name */
	/* Events nobody reads (a simulation): events_add and
	 * events_add_rolls record nothing (no text is formatted), and a
	 * ruleset may skip other text only people read, such as the
	 * purposes of its rolls. Set after events_init. */
	bool quiet;
};

void events_init(struct events *);
void events_free(struct events *);
void events_phase(struct events *, const char *phase);
/* A new zeroed event at the end of ev (for loaders); owned by ev. */
struct event *events_append(struct events *);
/* Append an event visible to the sides in mask. */
void events_add(struct events *, unsigned visible, int roll, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));
/* Append an event visible to the sides in mask that cites nroll rolls
 * from first on (nroll >= 1) of the public stream (set 0) or of the
 * sealed stream of visibility set set. */
void events_add_rolls(struct events *, unsigned visible, unsigned set,
    int first, int nroll, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Does event e cite roll seq of stream set (0: public)? */
bool events_cites(const struct event *e, unsigned set, int seq);

#endif
