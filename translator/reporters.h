/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The translator's reporters as loss-metric labels (docs/metrics.md
 * "Losses by reporter"): each datagram's IPv4 source address is turned
 * into a reporter slot of the core (dta_translator_set_reporter_slots()).
 * The first @max distinct sources get a slot each, in the order they are
 * first seen; every later source shares slot @max, labelled "other", so
 * the label's cardinality is bounded by [translator] reporter_labels + 2
 * (with the core's unattributed slot, "unknown").
 *
 * Lookups are lock-free (one probe of an open-addressed table of 64-bit
 * words, usually); only a source's first datagram takes a mutex, and a
 * source beyond @max none (the table is full: "other" without a probe
 * sequence longer than the table's load allows).
 */
#ifndef DTA_TRANSLATOR_REPORTERS_H
#define DTA_TRANSLATOR_REPORTERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct reporters {
	unsigned max;               /* sources with a slot of their own */
	unsigned mask;              /* table size - 1 (a power of two) */
	_Atomic uint64_t *tab;      /* 0, or 1 << 63 | slot << 32 | addr */
	_Atomic unsigned n;         /* slots given */
	uint32_t *addr;             /* slot -> address (host order) */
	pthread_mutex_t lock;       /* inserting */
};

/* Set up @r for @max (1..65534) sources. Return 0, -EINVAL, -ENOMEM. */
int reporters_init(struct reporters *r, unsigned max);
void reporters_fini(struct reporters *r);

/* The slot of source @addr (IPv4, host order; 0 for a source that is not
 * IPv4): 0 .. max-1, or max ("other"). Thread-safe. */
unsigned reporters_slot(struct reporters *r, uint32_t addr);

/* How many slots have been given (at most max). Thread-safe. */
unsigned reporters_count(struct reporters *r);

/* The label of slot @slot into @buf (at least 16 bytes): the dotted
 * address, "other" for max, "unknown" for max + 1 (the core's
 * unattributed slot). Return @buf. */
const char *reporters_label(struct reporters *r, unsigned slot, char *buf,
			    size_t cap);

#endif
