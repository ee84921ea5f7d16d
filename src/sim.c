/* sim: self-play of the built-in opponent (see include/sim.h).
 *
 * A window as the engine plays it: the opponent's order file for each side
 * the window names, each file hashed into the dice key, the seed, key and
 * stream, the resolution, victory. When the ruleset has opponent_parsed
 * (ruleset.h), the text is written and hashed all the same but the
 * opponent's orders reach the resolution as it parsed them
 * (window_resolve_parsed: window_resolve_resume without the parse of
 * the text; docs/ARCHITECTURE.md 3.0, "Speed"). Worker processes
 * (sim_run_jobs) take games from a shared counter a chunk at a time. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scenario.h"
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

/* sim_game with the ruleset's default scenario already loaded in sc (NULL:
 * load it). */
static int
play(const struct ruleset *rules, const char *options, int index,
    const unsigned char *master, size_t masterlen,
    const struct scenario *sc, struct game *g, int *outcome,
    struct sim_result *acc, struct hp_error *err);

int
sim_game(const struct ruleset *rules, const char *options, int index,
    const unsigned char *master, size_t masterlen, struct game *g,
    int *outcome, long *windows, long *rolls, struct hp_error *err)
{
	struct sim_result acc;
	int rc;

	memset(&acc, 0, sizeof acc);
	rc = play(rules, options, index, master, masterlen, NULL, g, outcome,
	    &acc, err);
	*windows += acc.windows;
	*rolls += acc.rolls;
	return rc;
}

/* The built-in opponent's order file for side in w (caller frees), as
 * window_opponent_orders writes it; with the ruleset's opponent_parsed,
 * its parsed orders go to parsed[side] (owned by the caller, for
 * window_resolve_parsed) instead of being parsed back from the text. */
static char *
opponent_orders(const struct game *g, const struct window_spec *w, int side,
    void *parsed[GAME_MAX_SIDES])
{
	struct sbuf b;

	if (g->rules->opponent_parsed == NULL)
		return window_opponent_orders(g, w, side);
	sbuf_init(&b);
	window_order_header(g, w, side, &b);
	parsed[side] = g->rules->opponent_parsed(g, w, side, &b);
	return sbuf_steal(&b);
}

/* "sim-INDEX" into name (GAME_NAME_MAX bytes), as snprintf "sim-%d"
 * writes it, without printf (every simulated game is named). */
static void
sim_name(int index, char name[GAME_NAME_MAX])
{
	char digits[16];
	unsigned u = index < 0 ? 0u - (unsigned)index : (unsigned)index;
	int k = 0, n = 0;

	do {
		digits[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0);
	memcpy(name, "sim-", 4);
	n = 4;
	if (index < 0)
		name[n++] = '-';
	while (k > 0)
		name[n++] = digits[--k];
	name[n] = '\0';
}

/* One game, as sim_game says (sc: the default scenario, or NULL). */
static int
play(const struct ruleset *rules, const char *options, int index,
    const unsigned char *master, size_t masterlen,
    const struct scenario *sc, struct game *g, int *outcome,
    struct sim_result *acc, struct hp_error *err)
{
	struct window_spec w, next;
	struct window_chain chain;
	char name[GAME_NAME_MAX];
	int rc = HP_OK, s, guard;
	bool more;

	memset(&chain, 0, sizeof chain);
	sim_name(index, name);
	strlcpy_(g->name, name, sizeof g->name);
	strlcpy_(g->options, options ? options : "", sizeof g->options);
	g->rules = rules;
	if ((rc = sc != NULL ? rules->setup(g, sc, err) :
	    ruleset_setup(g, NULL, NULL, NULL, NULL, err)) != HP_OK)
		return rc;
	for (guard = 0; guard < 10000 && rules->next_window(g, &w); guard++) {
		unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
		unsigned char hashes[GAME_MAX_SIDES][32];
		char *raw[GAME_MAX_SIDES] = { 0 };
		void *parsed[GAME_MAX_SIDES] = { 0 };
		struct events ev;
		struct dice d;
		size_t nh = 0;
		unsigned m;

		for (s = 0; s < g->nsides; s++) {
			if (!(w.sides & (1u << s)))
				continue;
			raw[s] = opponent_orders(g, &w, s, parsed);
			window_order_hash(raw[s], hashes[nh++]);
			acc->orders++;
			acc->order_bytes += (long)strlen(raw[s]);
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
		ev.quiet = true;  /* a simulation reads no event's text */
		struct window_stop stop = { -1, 0 };

		rc = rules->opponent_parsed != NULL ? window_resolve_parsed(g,
		    &w, parsed, NULL, window_chain_resume(&chain), &stop, &d, &ev,
		    err) :
		    window_resolve_resume(g, &w, (const char *const *)raw,
		    NULL, window_chain_resume(&chain), &stop, &d, &ev, err);
		if (rc == HP_OK && stop.step >= 0)
			rc = window_advance(g, &stop, &next, &more, err);
		acc->rolls += (long)d.nlog;
		acc->windows++;
		dice_free(&d);
		events_free(&ev);
		/* A stop: the decision window resumes with the orders of the
		 * window that stopped first (G1). */
		window_chain_after(&chain, &w, raw, rc == HP_OK ? stop.step :
		    -1);
		for (s = 0; s < GAME_MAX_SIDES; s++)
			free(raw[s]);
		if (rc != HP_OK)
			break;
		if (g->status == GAME_FINISHED)
			break;
	}
	window_chain_free(&chain);
	if (rc != HP_OK)
		return rc;
	if (g->status != GAME_FINISHED) {
		hp_seterr(err, HP_EINTERNAL, "game %d did not end", index);
		return HP_EINTERNAL;
	}
	*outcome = outcome_of(g);
	return HP_OK;
}

/* Add a game's histogram of mails per side per round (the ruleset's vars
 * "mh.N", N 0-20; cards-ap keeps it) to res->mails: one pass over the
 * vars, no key formatted (most rulesets keep none of them). */
static void
add_mails(const struct game *g, struct sim_result *res)
{
	int i, k;

	for (i = 0; i < g->nvars; i++) {
		const char *key = g->vars[i].key;

		if (key[0] != 'm' || key[1] != 'h' || key[2] != '.' ||
		    key[3] < '0' || key[3] > '9')
			continue;
		k = key[3] - '0';
		if (key[4] >= '0' && key[4] <= '9' && k != 0 && key[5] == '\0')
			k = k * 10 + (key[4] - '0');
		else if (key[4] != '\0')
			continue;
		if (k <= 20)
			res->mails[k] += g->vars[i].val;
	}
}

/* Play games first, first + step, ... below games (or, with next, the
 * games a shared counter hands out, chunk at a time) into res (not
 * cleared; its seconds untouched). */
static int
run_part(const struct ruleset *rules, const char *options, int games,
    int first, int step, int *next, int chunk, const unsigned char *master,
    size_t masterlen, struct sim_result *res, struct hp_error *err)
{
	struct order_errors errs;
	struct scenario sc;
	struct hp_error lerr = { 0, "" };
	int i, end, rc = HP_OK, outcome;
	bool loaded;

	/* The scenario is read and parsed once, not once a game; if it
	 * cannot be, each game's setup says why as ruleset_setup does. */
	orders_errors_init(&errs);
	loaded = scenario_load(&sc, rules->name, rules->default_scenario, NULL,
	    &errs, &lerr) == HP_OK;
	if (loaded)
		sc.errs = &errs;
	i = next != NULL ? __atomic_fetch_add(next, chunk, __ATOMIC_RELAXED) :
	    first;
	end = next != NULL ? (i < games - chunk ? i + chunk : games) : games;
	while (i < end && rc == HP_OK) {
		struct game g;

		game_init(&g);
		rc = play(rules, options, i, master, masterlen, loaded ? &sc :
		    NULL, &g, &outcome, res, err);
		if (rc == HP_OK)
			add_mails(&g, res);
		game_free(&g);
		if (rc != HP_OK)
			break;
		res->outcome[outcome]++;
		res->games++;
		if (next == NULL)
			i += step;
		else if (++i == end) {
			/* This chunk played: the next one. */
			i = __atomic_fetch_add(next, chunk, __ATOMIC_RELAXED);
			end = i < games - chunk ? i + chunk : games;
		}
	}
	if (loaded)
		scenario_free(&sc);
	orders_errors_free(&errs);
	return rc;
}

/* Seconds since t0 on the monotonic clock. */
static double
since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	    (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* CPU seconds this process has used. */
static double
cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
sim_run(const struct ruleset *rules, const char *options, int games,
    const unsigned char *master, size_t masterlen, struct sim_result *res,
    struct hp_error *err)
{
	struct timespec t0;
	double c0 = cpu_now();
	int rc;

	memset(res, 0, sizeof *res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run_part(rules, options, games, 0, 1, NULL, 1, master,
	    masterlen, res, err);
	res->seconds = since(&t0);
	res->cpu_max = cpu_now() - c0;
	return rc;
}

/* What a worker sends back through its pipe. */
struct part {
	struct sim_result res;
	int rc;
	struct hp_error err;
};

/* Write all n bytes of p to fd; false on failure. */
static bool
write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		c += k;
		n -= (size_t)k;
	}
	return true;
}

/* Read exactly n bytes from fd into p; false on failure or early end. */
static bool
read_all(int fd, void *p, size_t n)
{
	char *c = p;
	ssize_t k;

	while (n > 0) {
		if ((k = read(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (k == 0)
			return false;
		c += k;
		n -= (size_t)k;
	}
	return true;
}

int
sim_run_jobs(const struct ruleset *rules, const char *options, int games,
    const unsigned char *master, size_t masterlen, int jobs,
    struct sim_result *res, struct hp_error *err)
{
	struct timespec t0;
	pid_t pid[SIM_JOBS_MAX];
	int fd[SIM_JOBS_MAX], k, started, rc = HP_OK, status, *next, chunk;
	struct part p;

	if (jobs > games)
		jobs = games;
	if (jobs > SIM_JOBS_MAX)
		jobs = SIM_JOBS_MAX;
	if (jobs <= 1)
		return sim_run(rules, options, games, master, masterlen, res,
		    err);
	/* The next game to play, shared by the workers: each takes a chunk
	 * of games when it is free, so a worker dealt long games does not
	 * hold up the run (the totals are sums, the same in any order). About
	 * 256 chunks a worker: the last to finish waits at most one chunk,
	 * and short games (fire-and-movement's, some 25 us each) do not each
	 * pull the counter's cache line from the other core. */
	chunk = games / (jobs * 256);
	if (chunk < 1 || games > INT_MAX - jobs * 1024)
		chunk = 1;
	if (chunk > 1024)
		chunk = 1024;
	next = mmap(NULL, sizeof *next, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (next == MAP_FAILED) {
		hp_seterr(err, HP_EIO, "simulate: mmap: %s", strerror(errno));
		return HP_EIO;
	}
	*next = 0;
	memset(res, 0, sizeof *res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Nothing buffered may be written twice by the workers. */
	fflush(NULL);
	for (started = 0; started < jobs; started++) {
		int pfd[2];

		if (pipe(pfd) != 0) {
			hp_seterr(err, HP_EIO, "simulate: pipe: %s",
			    strerror(errno));
			rc = HP_EIO;
			break;
		}
		if ((pid[started] = fork()) < 0) {
			hp_seterr(err, HP_EIO, "simulate: fork: %s",
			    strerror(errno));
			close(pfd[0]);
			close(pfd[1]);
			rc = HP_EIO;
			break;
		}
		if (pid[started] == 0) {
			/* The worker: the games the shared counter hands it. */
			close(pfd[0]);
			for (k = 0; k < started; k++)
				close(fd[k]);
			memset(&p, 0, sizeof p);
			p.res.cpu_max = cpu_now();
			p.rc = run_part(rules, options, games, started, jobs,
			    next, chunk, master, masterlen, &p.res, &p.err);
			p.res.cpu_max = cpu_now() - p.res.cpu_max;
			_exit(write_all(pfd[1], &p, sizeof p) ? 0 : 1);
		}
		close(pfd[1]);
		fd[started] = pfd[0];
	}
	/* Collect every worker started, in order: the first failing part's
	 * error is the one reported. */
	for (k = 0; k < started; k++) {
		bool got = read_all(fd[k], &p, sizeof p);

		close(fd[k]);
		while (waitpid(pid[k], &status, 0) < 0 && errno == EINTR)
			;
		if (rc != HP_OK)
			continue;
		if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			hp_seterr(err, HP_EINTERNAL, "simulate: worker %d of %d "
			    "failed", k + 1, jobs);
			rc = HP_EINTERNAL;
			continue;
		}
		if (p.rc != HP_OK) {
			*err = p.err;
			rc = p.rc;
			continue;
		}
		res->games += p.res.games;
		res->windows += p.res.windows;
		res->rolls += p.res.rolls;
		res->orders += p.res.orders;
		res->order_bytes += p.res.order_bytes;
		if (p.res.cpu_max > res->cpu_max)
			res->cpu_max = p.res.cpu_max;
		for (status = 0; status < 3; status++)
			res->outcome[status] += p.res.outcome[status];
		for (status = 0; status < 21; status++)
			res->mails[status] += p.res.mails[status];
	}
	res->seconds = since(&t0);
	munmap(next, sizeof *next);
	return rc;
}

int
sim_default_jobs(void)
{
	const char *v = getenv("HEXPOST_JOBS");
	char *end;
	long n;

	if (v != NULL && *v != '\0') {
		n = strtol(v, &end, 10);
		if (*end == '\0' && n >= 1)
			return n > SIM_JOBS_MAX ? SIM_JOBS_MAX : (int)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > SIM_JOBS_MAX ? SIM_JOBS_MAX : (int)n;
}
