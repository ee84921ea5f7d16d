/* bench_simulate: `simulate` against the floor of its dice, for every
 * ruleset in the registry that is not a test ruleset (a ruleset added
 * later is measured without changing this file), and the speed-up of
 * simulate on two worker processes against one.
 *
 *	bench_simulate [SECONDS [RULESET]]
 *
 * (RULESET: measure that one only; default all of them.)
 * For each ruleset, in one run: the number of games is doubled until one
 * sim_run takes SECONDS (default 0.5) of CPU time; then, three times,
 * sim_run of those
 * games (per resolved window: its time over its windows) and the floor of
 * the same windows (what deriving each window's dice costs: hashing the
 * window's order files, whose hashes the key is made from (as many files,
 * of the same mean length, as the games wrote), the seed from the master,
 * the key, the stream, the sealed sets of a hidden-information ruleset,
 * and as many dice_roll calls as the games rolled, spread over the
 * windows; no resolution, no opponent: bench_dice_floor in bench.h). The median of the three ratios is compared
 * with the target (fire-and-movement: at most 2; any other: at most 10).
 * Both sides of that ratio are CPU time of this process (bench_cpu), so
 * that other work on a shared machine moves it little.
 * Then, JOBS_REPS (5) times, sim_run_jobs with one worker and with two on
 * twice those games (a serial run of at least twice SECONDS: a two-job
 * run of a few tenths of a second on a shared machine was decided by
 * whatever else ran during it), one then two in
 * even rounds and two then one in odd ones (a drift of the machine's load
 * favours neither); their totals must be equal, or the program stops with
 * status 70. The median of the rounds' speed-ups in wall-clock time (which
 * needs the second core free) is compared with 1.8, and their range is
 * printed. Also printed, for a machine shared with other work: the
 * serial run's CPU time over the busiest worker's (median), the speed-up
 * two free cores would give, and how many cores other processes (and the
 * host, as steal time) kept busy meanwhile (from /proc/stat, less this
 * program's and its workers' CPU time): a wall-clock figure taken while
 * they held most of a core says more about them than about simulate.
 * Prints PASS or FAIL per
 * target; the exit status is 0 whatever they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"
#include "dice.h"
#include "hexpost.h"
#include "ruleset.h"
#include "sim.h"

#define REPS 3
#define JOBS_REPS 5

static const char master[] = "bench_simulate master seed 000";

/* Median of the n values of v (n odd; sorted in place). */
static double
median_of(double *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* Median of REPS values (sorted in place). */
static double
median(double *v)
{
	return median_of(v, REPS);
}

/* Seconds of CPU time the whole machine has spent busy (not idle, not
 * waiting for I/O: the first line of /proc/stat), or -1 where it cannot be
 * read. */
static double
machine_busy(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (f == NULL || hz <= 0) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -1;
	/* user nice system (idle iowait) irq softirq steal */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) /
	    (double)hz;
}

/* CPU seconds (user and system) of this process and its reaped workers. */
static double
own_cpu(void)
{
	struct rusage a, b;

	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec +
	    b.ru_utime.tv_sec + b.ru_stime.tv_sec) + (double)(a.ru_utime.tv_usec
	    + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec) /
	    1e6;
}

/* Sides of rules' default scenario (2 if it cannot be set up). */
static int
sides_of(const struct ruleset *rules)
{
	struct hp_error err = { 0, "" };
	struct game g;
	int n = 2;

	game_init(&g);
	g.rules = rules;
	if (ruleset_setup(&g, NULL, NULL, NULL, NULL, &err) == HP_OK &&
	    g.nsides > 0)
		n = g.nsides;
	game_free(&g);
	return n;
}

/* Are two results the same games (all but the time)? */
static bool
same(const struct sim_result *a, const struct sim_result *b)
{
	return a->games == b->games && a->windows == b->windows &&
	    a->rolls == b->rolls && a->outcome[0] == b->outcome[0] &&
	    a->outcome[1] == b->outcome[1] && a->outcome[2] == b->outcome[2];
}

/* Measure one ruleset; false on an error (printed). */
static bool
bench_ruleset(const struct ruleset *rules, double budget, int *fails)
{
	struct hp_error err = { 0, "" };
	struct sim_result res, one, two;
	double sim[REPS], flo[REPS], ratio[REPS];
	double speed[JOBS_REPS], bound[JOBS_REPS];
	double target, cpu, busy0, busy1, own0, med, wall = 0, others = -1;
	int games = 1, i, k, nsides = sides_of(rules);

	for (;;) {
		cpu = bench_cpu();
		if (sim_run(rules, NULL, games, (const unsigned char *)master,
		    sizeof master - 1, &res, &err) != HP_OK)
			goto fail;
		cpu = bench_cpu() - cpu;
		if (cpu >= budget || games >= 10000000)
			break;
		games *= 2;
	}
	for (i = 0; i < REPS; i++) {
		if (i > 0) {
			cpu = bench_cpu();
			if (sim_run(rules, NULL, games, (const unsigned char *)
			    master, sizeof master - 1, &res, &err) != HP_OK)
				goto fail;
			cpu = bench_cpu() - cpu;
		}
		sim[i] = res.windows > 0 ? cpu / (double)res.windows : 0;
		flo[i] = bench_dice_floor(&res, nsides, rules->hidden);
		ratio[i] = flo[i] > 0 ? sim[i] / flo[i] : 0;
	}
	target = strcmp(rules->name, "fire-and-movement") == 0 ? 2 : 10;
	printf("%s: %d games, %ld windows, %ld dice (%.1f dice a window), "
	    "%ld order files (%ld bytes each)\n", rules->name, res.games,
	    res.windows, res.rolls, res.windows > 0 ? (double)res.rolls /
	    (double)res.windows : 0.0, res.orders, res.orders > 0 ?
	    res.order_bytes / res.orders : 0);
	printf("  simulate     %9.2f us a window (CPU time, median of %d)\n",
	    1e6 * median(sim), REPS);
	printf("  dice floor   %9.2f us a window (CPU time; order hashes, "
	    "seed, key, stream, rolls)\n", 1e6 * median(flo));
	printf("  ratio        %9.2f  (target <= %.0f)  %s\n", median(ratio),
	    target, median(ratio) <= target ? "PASS" : "FAIL");
	if (median(ratio) > target)
		(*fails)++;
	busy0 = machine_busy();
	own0 = own_cpu();
	for (i = 0; i < JOBS_REPS; i++) {
		/* Even rounds one worker first, odd rounds two first. */
		for (k = 0; k < 2; k++) {
			bool serial = (k == 0) == (i % 2 == 0);

			if (sim_run_jobs(rules, NULL, 2 * games,
			    (const unsigned char *)master, sizeof master - 1,
			    serial ? 1 : 2, serial ? &one : &two, &err) != HP_OK)
				goto fail;
		}
		if (!same(&one, &two) || one.games != 2 * games) {
			fprintf(stderr, "bench_simulate: %s: two workers "
			    "played other games than one\n", rules->name);
			exit(HP_EX_SOFTWARE);
		}
		speed[i] = two.seconds > 0 ? one.seconds / two.seconds : 0;
		bound[i] = two.cpu_max > 0 ? one.cpu_max / two.cpu_max : 0;
		wall += one.seconds + two.seconds;
	}
	busy1 = machine_busy();
	if (busy0 >= 0 && busy1 >= 0 && wall > 0)
		others = (busy1 - busy0 - (own_cpu() - own0)) / wall;
	med = median_of(speed, JOBS_REPS);  /* sorted: speed[0] the least */
	printf("  2 jobs       %9.2f times as fast as 1 (wall clock, median of "
	    "%d rounds of %d games; target >= 1.8)  %s\n", med, JOBS_REPS,
	    2 * games, med >= 1.8 ? "PASS" : "FAIL");
	printf("                         (rounds from %.2f to %.2f)\n",
	    speed[0], speed[JOBS_REPS - 1]);
	if (med < 1.8)
		(*fails)++;
	printf("  2 jobs, CPU  %9.2f times as fast as 1 (serial CPU time over "
	    "the busiest worker's: the wall-clock figure on two free cores)\n",
	    median_of(bound, JOBS_REPS));
	if (others >= 0)
		printf("  other work   %9.2f cores of %ld taken meanwhile by "
		    "other processes and the host (steal; /proc/stat)\n",
		    others < 0.005 ? 0.0 : others,
		    sysconf(_SC_NPROCESSORS_ONLN));
	return true;
fail:
	fprintf(stderr, "bench_simulate: %s: %s\n", rules->name, err.msg);
	return false;
}

int
main(int argc, char **argv)
{
	const struct ruleset *const *all = ruleset_all();
	double budget = 0.5;
	int i, fails = 0, n = 0;
	char *end;

	if (argc > 3) {
		fprintf(stderr, "usage: bench_simulate [SECONDS [RULESET]]\n");
		return HP_EX_USAGE;
	}
	if (argc >= 2) {
		budget = strtod(argv[1], &end);
		if (*argv[1] == '\0' || *end != '\0' || !(budget > 0) ||
		    budget > 3600) {
			fprintf(stderr, "bench_simulate: bad number of seconds "
			    "'%s'\n", argv[1]);
			return HP_EX_USAGE;
		}
	}
	for (i = 0; all[i] != NULL; i++) {
		if (all[i]->test || (argc == 3 &&
		    strcasecmp(all[i]->name, argv[2]) != 0))
			continue;
		if (!bench_ruleset(all[i], budget, &fails))
			return HP_EX_SOFTWARE;
		n++;
	}
	printf("%d rulesets, %d target%s missed\n", n, fails,
	    fails == 1 ? "" : "s");
	return 0;
}
