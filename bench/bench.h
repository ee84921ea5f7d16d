/* bench: timing helpers shared by the benchmark programs. */
#ifndef BENCH_H
#define BENCH_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n per second over s seconds (0 when s is 0). */
static inline double
bench_per_sec(double n, double s)
{
	return s > 0 ? n / s : 0;
}

#endif
