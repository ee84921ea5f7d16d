/* bench: timing helpers shared by the benchmark programs, and the floor
 * of a window's dice (bench_simulate, bench_resolve). */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "dice.h"
#include "game.h"

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

/* Seconds per window of deriving the dice of windows windows that rolled
 * rolls dice in all (spread evenly over them), for games of nsides sides
 * (hidden: with the sealed sets a hidden-information campaign draws):
 * per window the seed from the master, the key from the seed and one
 * order hash per side, the stream, the rolls and the stream's release, as
 * sim_game does for a window, without resolving anything. Repeated until
 * at least 0.2 s of CPU time have passed; CPU seconds (bench_cpu). The
 * floor a resolution cannot go below. */
static inline double
bench_dice_floor(long windows, long rolls, int nsides, bool hidden)
{
	static const char master[] = "bench dice floor master seed";
	static volatile long sink;  /* the rolls are used */
	unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
	unsigned char hashes[GAME_MAX_SIDES][32];
	double t0 = bench_cpu(), t;
	long w, r, done, passes = 0, sum = 0;
	struct dice d;
	unsigned m;
	int s;

	if (nsides < 1 || nsides > GAME_MAX_SIDES)
		nsides = 2;
	for (s = 0; s < GAME_MAX_SIDES; s++)
		memset(hashes[s], 0x30 + s, sizeof hashes[s]);
	do {
		done = 0;
		for (w = 0; w < windows; w++) {
			long upto = rolls * (w + 1) / windows;
			int turn = (int)(w / 4) + 1, number = (int)(w % 4) + 1;

			dice_seed_from_master((const unsigned char *)master,
			    sizeof master - 1, "sim-0", turn, number, seed);
			dice_derive_key(seed, "sim-0", turn, number,
			    (const unsigned char (*)[32])hashes,
			    (size_t)nsides, key);
			dice_init_stream(&d, key);
			for (m = 1; hidden && m < (1u << nsides) &&
			    m < DICE_SEALED_SETS; m++) {
				dice_seed_from_master((const unsigned char *)
				    master, sizeof master - 1, "sim-0", 0,
				    (int)m, seed);
				dice_sealed_enable(&d, m, seed);
			}
			for (r = done; r < upto; r++)
				sum += dice_roll(&d, 6, 4, "bench dice floor");
			done = upto;
			dice_free(&d);
		}
		passes++;
		t = bench_cpu() - t0;
	} while (t < 0.2 && windows > 0);
	sink += sum;
	return windows > 0 ? t / ((double)passes * (double)windows) : 0;
}

#endif
