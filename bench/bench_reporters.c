/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_reporters: what dta-translator's reporter slots (translator/
 * reporters.c, docs/metrics.md "Losses by reporter and structure") cost
 * per datagram: nanoseconds per reporters_slot() lookup, CPU time of this
 * thread, for sources arriving
 *  - all from one switch (the worker's last-source check in dta-translator
 *    skips even this lookup then; measured here without it),
 *  - round robin over as many switches as there are labels (every lookup
 *    a hit in the table),
 *  - round robin over 16x more switches than labels (most lookups a miss:
 *    "other", which probes to an empty entry).
 * Compare with a datagram's whole cost in the translator (about 700 ns
 * per report per CPU-second at 1.4 M reports/CPU-s, bench/translator_udp.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "reporters.h"

static double ns_per_lookup(unsigned labels, unsigned sources, unsigned n,
			    unsigned *sink)
{
	struct reporters r;
	double c0, c;
	unsigned acc = 0;

	if (reporters_init(&r, labels))
		exit(1);
	for (unsigned i = 0; i < sources; i++) /* first sightings: untimed */
		acc += reporters_slot(&r, 0x0A000000u + i * 7919u);
	c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (unsigned i = 0; i < n; i++)
		acc += reporters_slot(&r, 0x0A000000u + (i % sources) * 7919u);
	c = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	reporters_fini(&r);
	*sink += acc;
	return c * 1e9 / n;
}

int main(int argc, char **argv)
{
	unsigned labels = argc > 1 ? (unsigned)atoi(argv[1]) : 64;
	unsigned n = 20000000, sink = 0;
	double v[5];

	if (labels < 1 || labels > 4096) {
		fprintf(stderr, "usage: bench_reporters [LABELS 1..4096]\n");
		return 2;
	}
	printf("bench_reporters: %u labels, %u lookups, ns per lookup "
	       "(median of 5)\n", labels, n);
	for (int k = 0; k < 3; k++) {
		unsigned src = k == 0 ? 1 : k == 1 ? labels : 16 * labels;

		for (int i = 0; i < 5; i++)
			v[i] = ns_per_lookup(labels, src, n, &sink);
		printf("%6u sources round robin: %6.2f ns\n", src,
		       bench_median(v, 5));
	}
	return sink == 42; /* keep the lookups */
}
