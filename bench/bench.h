/* bench: timing helpers shared by the benchmark programs, and the floor
 * of a window's dice (bench_simulate, bench_resolve). */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dice.h"
#include "game.h"
#include "sim.h"
#include "window.h"

/* Seconds on the monotonic clock. */
static inline double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds of CPU time this process has used: what a ratio of two
 * measurements in one run compares, so that other work on the machine
 * (a shared host) changes it little. */
static inline double
bench_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n per second over s seconds (0 when s is 0). */
static inline double
bench_per_sec(double n, double s)
{
	return s > 0 ? n / s : 0;
}

/* Seconds per window of deriving the dice of the windows res played
 * (res from sim_run), for games of nsides sides (hidden: with the sealed
 * sets a hidden-information campaign draws): per window, as sim_game does
 * and without resolving anything, the window's share of res's order files
 * hashed (files of their mean length: the dice key is made from their
 * hashes), the seed from the master, the key from the seed and those
 * hashes, the stream, the window's share of the rolls and the stream's
 * release. Repeated until at least 0.2 s of CPU time have passed; CPU
 * seconds (bench_cpu). The floor a resolution cannot go below. */
static inline double
bench_dice_floor(const struct sim_result *res, int nsides, bool hidden)
{
	static const char master[] = "bench dice floor master seed";
	unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
	unsigned char hashes[GAME_MAX_SIDES][32];
	long windows = res->windows, w, r, f, rdone, fdone, passes = 0;
	size_t flen = res->orders > 0 ? (size_t)(res->order_bytes /
	    res->orders) : 0;
	char *file = malloc(flen + 1);
	double t0 = bench_cpu(), t;
	struct dice d;
	unsigned m;
	size_t nh;

	if (file == NULL)
		return 0;
	memset(file, 'a', flen);
	file[flen] = '\0';
	if (nsides < 1 || nsides > GAME_MAX_SIDES)
		nsides = 2;
	do {
		rdone = fdone = 0;
		for (w = 0; w < windows; w++) {
			long rupto = res->rolls * (w + 1) / windows;
			long fupto = res->orders * (w + 1) / windows;
			int turn = (int)(w / 4) + 1, number = (int)(w % 4) + 1;

			for (nh = 0, f = fdone; f < fupto; f++, nh++) {
				file[0] = (char)('a' + f % 26);
				window_order_hash(file, hashes[nh <
				    GAME_MAX_SIDES ? nh : GAME_MAX_SIDES - 1]);
			}
			fdone = fupto;
			dice_seed_from_master((const unsigned char *)master,
			    sizeof master - 1, "sim-0", turn, number, seed);
			dice_derive_key(seed, "sim-0", turn, number,
			    (const unsigned char (*)[32])hashes,
			    nh < GAME_MAX_SIDES ? nh : GAME_MAX_SIDES, key);
			dice_init_stream(&d, key);
			for (m = 1; hidden && m < (1u << nsides) &&
			    m < DICE_SEALED_SETS; m++) {
				dice_seed_from_master((const unsigned char *)
				    master, sizeof master - 1, "sim-0", 0,
				    (int)m, seed);
				dice_sealed_enable(&d, m, seed);
			}
			for (r = rdone; r < rupto; r++)
				(void)dice_roll(&d, 6, 4, "bench dice floor");
			rdone = rupto;
			dice_free(&d);
		}
		passes++;
		t = bench_cpu() - t0;
	} while (t < 0.2 && windows > 0);
	free(file);
	return windows > 0 ? t / ((double)passes * (double)windows) : 0;
}

#endif
