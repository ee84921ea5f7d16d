/* sim: self-play of the built-in opponent (see include/sim.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "window.h"

void
sim_wilson(int k, int n, double *lo, double *hi)
{
	double z = 1.959963984540054, p, den, mid, half;

	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / n;
	den = 1 + z * z / n;
	mid = (p + z * z / (2.0 * n)) / den;
	half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / den;
	*lo = mid - half < 0 ? 0 : mid - half;
	*hi = mid + half > 1 ? 1 : mid + half;
}

/* Classify a finished game by its result text. */
static int
outcome_of(const struct game *g)
{
	if (strncmp(g->result, "Draw", 4) == 0)
		return 1;
	if (strncasecmp(g->result, g->sides[0].name,
	    strlen(g->sides[0].name)) == 0)
		return 0;
	return 2;
}

int
sim_game(const struct ruleset *rules, const char *options, int index,
    const unsigned char *master, size_t masterlen, struct game *g,
    int *outcome, long *windows, long *rolls, struct hp_error *err)
{
	struct window_spec w, next;
	struct window_resume res;
	char name[GAME_NAME_MAX];
	char *prior[GAME_MAX_SIDES] = { 0 };
	int rc = HP_OK, s, guard;
	bool resuming = false, more;

	snprintf(name, sizeof name, "sim-%d", index);
	strlcpy_(g->name, name, sizeof g->name);
	strlcpy_(g->options, options ? options : "", sizeof g->options);
	g->rules = rules;
	if ((rc = ruleset_setup(g, NULL, NULL, NULL, NULL, err)) != HP_OK)
		return rc;
	for (guard = 0; guard < 10000 && rules->next_window(g, &w); guard++) {
		unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
		unsigned char hashes[GAME_MAX_SIDES][32];
		char *raw[GAME_MAX_SIDES] = { 0 };
		struct events ev;
		struct dice d;
		size_t nh = 0;
		unsigned m;

		for (s = 0; s < g->nsides; s++) {
			if (!(w.sides & (1u << s)))
				continue;
			raw[s] = window_opponent_orders(g, &w, s);
			window_order_hash(raw[s], hashes[nh++]);
		}
		dice_seed_from_master(master, masterlen, g->name, w.turn,
		    w.number, seed);
		dice_derive_key(seed, g->name, w.turn, w.number,
		    (const unsigned char (*)[32])hashes, nh, key);
		dice_init_stream(&d, key);
		/* Sealed sets as a test campaign draws them (sealed.c). */
		for (m = 1; rules->hidden && m < (1u << g->nsides) &&
		    m < DICE_SEALED_SETS; m++) {
			dice_seed_from_master(master, masterlen, g->name, 0,
			    (int)m, seed);
			dice_sealed_enable(&d, m, seed);
		}
		events_init(&ev);
		struct window_stop stop = { -1, 0 };

		rc = window_resolve_resume(g, &w, (const char *const *)raw,
		    NULL, resuming ? &res : NULL, &stop, &d, &ev, err);
		if (rc == HP_OK && stop.step >= 0)
			rc = window_advance(g, &stop, &next, &more, err);
		*rolls += (long)d.nlog;
		(*windows)++;
		dice_free(&d);
		events_free(&ev);
		/* A stop: the decision window resumes with the orders of the
		 * window that stopped first (G1). */
		if (rc == HP_OK && stop.step >= 0) {
			if (!resuming) {
				res.w = w;
				for (s = 0; s < GAME_MAX_SIDES; s++) {
					prior[s] = raw[s];
					raw[s] = NULL;
					res.prior[s] = prior[s];
				}
			}
			res.step = stop.step;
			resuming = true;
		} else if (resuming) {
			resuming = false;
			for (s = 0; s < GAME_MAX_SIDES; s++) {
				free(prior[s]);
				prior[s] = NULL;
			}
		}
		for (s = 0; s < GAME_MAX_SIDES; s++)
			free(raw[s]);
		if (rc != HP_OK)
			break;
		if (g->status == GAME_FINISHED)
			break;
	}
	for (s = 0; s < GAME_MAX_SIDES; s++)
		free(prior[s]);
	if (rc != HP_OK)
		return rc;
	if (g->status != GAME_FINISHED) {
		hp_seterr(err, HP_EINTERNAL, "game %d did not end", index);
		return HP_EINTERNAL;
	}
	*outcome = outcome_of(g);
	return HP_OK;
}

int
sim_run(const struct ruleset *rules, const char *options, int games,
    const unsigned char *master, size_t masterlen, struct sim_result *res,
    struct hp_error *err)
{
	struct timespec t0, t1;
	int i, k, rc, outcome;

	memset(res, 0, sizeof *res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < games; i++) {
		struct game g;

		game_init(&g);
		rc = sim_game(rules, options, i, master, masterlen, &g,
		    &outcome, &res->windows, &res->rolls, err);
		for (k = 0; rc == HP_OK && k < 21; k++) {
			char key[16];

			snprintf(key, sizeof key, "mh.%d", k);
			res->mails[k] += game_var(&g, key, 0);
		}
		game_free(&g);
		if (rc != HP_OK)
			return rc;
		res->outcome[outcome]++;
		res->games++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return HP_OK;
}
