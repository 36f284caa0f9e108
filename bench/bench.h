/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every benchmark in bench/ measures with: a seeded generator (the
 * same key sequences from run to run), a clock read in seconds (CPU
 * clocks, so rates stay comparable on a loaded machine), and medians.
 */
#ifndef DTA_BENCH_H
#define DTA_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* splitmix64 stepping @state. */
static inline uint64_t bench_rnd(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* @id's time in seconds, e.g. CLOCK_THREAD_CPUTIME_ID. */
static inline double bench_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread, in seconds. */
static inline double bench_cpu_s(void)
{
	return bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n > 0 values; sorts @v. */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* DTA_BENCH_H */
