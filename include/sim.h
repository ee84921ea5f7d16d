/* sim: the built-in opponent plays whole games against itself, in memory,
 * for balance estimates and as the resolution-speed benchmark. */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>

#include "hexpost.h"
#include "ruleset.h"

struct sim_result {
	int games;
	int outcome[3];     /* first side wins, draws, second side wins */
	long windows;       /* windows resolved in all */
	long rolls;         /* dice rolled in all */
	double seconds;
	/* Mails per side per round (cards-ap): the sum over the games of a
	 * ruleset's histogram vars "mh.N" (side-rounds that took N mails,
	 * N 0-20); all zero when the ruleset keeps none. */
	long mails[21];
};

/* Play games games of rules (options as at campaign creation), each with
 * dice derived from master and the game number. */
int sim_run(const struct ruleset *, const char *options, int games,
    const unsigned char *master, size_t masterlen, struct sim_result *,
    struct hp_error *);
/* Play one game; *outcome is 0, 1 or 2 as above. Reports its windows and
 * rolls; the final state is left in g (initialised by the caller). */
int sim_game(const struct ruleset *, const char *options, int index,
    const unsigned char *master, size_t masterlen, struct game *g,
    int *outcome, long *windows, long *rolls, struct hp_error *);
/* 95% Wilson score interval of k successes in n trials. */
void sim_wilson(int k, int n, double *lo, double *hi);

#endif
