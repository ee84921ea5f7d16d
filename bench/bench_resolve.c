/* bench_resolve: resolution speed. Plays N games (argv[1], default 2000) of
 * fire-and-movement opponent self-play with sim_run and prints games/s,
 * windows/s and dice/s; then, in the same run, the baseline: what deriving
 * the same windows' dice costs (per window its order files hashed, the
 * seed from the master, the key from the seed and those hashes, the
 * stream, and the window's share of the rolls, as sim_game does:
 * bench_dice_floor in bench.h), both in CPU time, and
 * the ratio of the two (how much a resolution costs beyond its dice). The
 * baseline once rolled the dice on one stream and skipped the per-window
 * key derivation, which made the ratio about five times too large. */
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
	long games = 2000;
	double dice_s, cpu;
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
	cpu = bench_cpu();
	if (sim_run(rules, NULL, (int)games, (const unsigned char *)master,
	    sizeof master - 1, &res, &err) != HP_OK) {
		fprintf(stderr, "bench_resolve: %s\n", err.msg);
		return HP_EX_SOFTWARE;
	}

	cpu = bench_cpu() - cpu;
	/* Baseline: deriving each window's dice and rolling them. */
	dice_s = bench_dice_floor(&res, 2, false) *
	    (double)res.windows;
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
	printf("  CPU time   %12.3f s (%.2f us a window)\n", cpu,
	    res.windows > 0 ? 1e6 * cpu / (double)res.windows : 0.0);
	printf("baseline: %ld windows' dice derived (order hashes, seed, key, "
	    "stream) and "
	    "%ld rolled in %.3f s of CPU (%.2f us a window)\n", res.windows,
	    res.rolls, dice_s, res.windows > 0 ? 1e6 * dice_s /
	    (double)res.windows : 0.0);
	if (dice_s > 0)
		printf("ratio: resolution takes %.2fx the CPU time of its "
		    "dice alone (target <= 2)  %s\n", cpu / dice_s,
		    cpu / dice_s <= 2 ? "PASS" : "FAIL");
	else
		printf("ratio: n/a (no dice rolled)\n");
	return 0;
}
