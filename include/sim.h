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
	long orders;        /* order files written (and hashed into keys) */
	long order_bytes;   /* their bytes */
	double cpu_max;     /* CPU seconds of the busiest worker (sim_run:
	                     * of the whole run): with a core each, the
	                     * run could take no less */
};

/* Play games games of rules (options as at campaign creation), each with
 * dice derived from master and the game number. */
int sim_run(const struct ruleset *, const char *options, int games,
    const unsigned char *master, size_t masterlen, struct sim_result *,
    struct hp_error *);
/* Most worker processes sim_run_jobs starts. */
#define SIM_JOBS_MAX 256
/* sim_run split over jobs worker processes (fork), each taking the next
 * games (a chunk: about 1/256 of its share, at least one) from a shared
 * counter when it is free: every game is played as sim_run plays it, so
 * the
 * totals (games, outcomes, windows, rolls) equal sim_run's; seconds is
 * the wall-clock time of the whole. jobs <= 1 (or one game): sim_run
 * itself. An error is the first failing worker's. */
int sim_run_jobs(const struct ruleset *, const char *options, int games,
    const unsigned char *master, size_t masterlen, int jobs,
    struct sim_result *, struct hp_error *);
/* Workers for simulate when none are asked for: HEXPOST_JOBS when it is a
 * number from 1, else the processors online (at most SIM_JOBS_MAX). */
int sim_default_jobs(void);
/* Play one game; *outcome is 0, 1 or 2 as above. Reports its windows and
 * rolls; the final state is left in g (initialised by the caller). */
int sim_game(const struct ruleset *, const char *options, int index,
    const unsigned char *master, size_t masterlen, struct game *g,
    int *outcome, long *windows, long *rolls, struct hp_error *);
/* 95% Wilson score interval of k successes in n trials. */
void sim_wilson(int k, int n, double *lo, double *hi);

#endif
