/* bench_resolve: resolution speed. Plays N games (argv[1], default 2000) of
 * fire-and-movement opponent self-play with sim_run and prints games/s,
 * windows/s and dice/s; then, in the same run, the baseline cost of just
 * rolling as many dice with dice_roll on one stream, and the ratio of the
 * two (how much a resolution costs beyond its dice). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "dice.h"
#include "hexpost.h"
#include "ruleset.h"
#include "sim.h"

int
main(int argc, char **argv)
{
	static const char master[] = "bench_resolve master seed 000";
	const struct ruleset *rules;
	struct sim_result res;
	struct hp_error err;
	unsigned char key[DICE_KEYLEN];
	struct dice d;
	long games = 2000, i, sum = 0;
	double t0, dice_s;
	char *end;

	if (argc > 2) {
		fprintf(stderr, "usage: bench_resolve [GAMES]\n");
		return HP_EX_USAGE;
	}
	if (argc == 2) {
		games = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || games < 1 ||
		    games > 100000000L) {
			fprintf(stderr, "bench_resolve: bad number of games "
			    "'%s'\n", argv[1]);
			return HP_EX_USAGE;
		}
	}
	if ((rules = ruleset_find("fire-and-movement")) == NULL) {
		fprintf(stderr, "bench_resolve: no fire-and-movement ruleset\n");
		return HP_EX_SOFTWARE;
	}
	memset(&err, 0, sizeof err);
	if (sim_run(rules, NULL, (int)games, (const unsigned char *)master,
	    sizeof master - 1, &res, &err) != HP_OK) {
		fprintf(stderr, "bench_resolve: %s\n", err.msg);
		return HP_EX_SOFTWARE;
	}

	/* Baseline: the same number of d6 rolls, logged like the game's. */
	memset(key, 0x5a, sizeof key);
	dice_init_stream(&d, key);
	t0 = bench_now();
	for (i = 0; i < res.rolls; i++)
		sum += dice_roll(&d, 6, 4, "bench_resolve baseline roll");
	dice_s = bench_now() - t0;
	dice_free(&d);

	printf("fire-and-movement self-play: %d games, %ld windows, "
	    "%ld dice in %.3f s\n", res.games, res.windows, res.rolls,
	    res.seconds);
	printf("  outcomes: Blue %d, draw %d, Red %d\n", res.outcome[0],
	    res.outcome[1], res.outcome[2]);
	printf("  games/s    %12.1f\n", bench_per_sec(res.games, res.seconds));
	printf("  windows/s  %12.1f\n", bench_per_sec((double)res.windows,
	    res.seconds));
	printf("  dice/s     %12.1f\n", bench_per_sec((double)res.rolls,
	    res.seconds));
	printf("baseline: %ld dice_roll calls on one stream in %.3f s "
	    "(%.1f dice/s; mean %ld.%02ld)\n", res.rolls, dice_s,
	    bench_per_sec((double)res.rolls, dice_s), res.rolls ? sum / res.rolls :
	    0, res.rolls ? (sum * 100 / res.rolls) % 100 : 0);
	if (dice_s > 0)
		printf("ratio: resolution takes %.1fx the time of its dice "
		    "alone\n", res.seconds / dice_s);
	else
		printf("ratio: n/a (no dice rolled)\n");
	return 0;
}
