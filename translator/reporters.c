/* SPDX-License-Identifier: BSD-3-Clause */
/* Reporter slots for the loss metrics: see reporters.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "reporters.h"

#define USED (1ull << 63)

int reporters_init(struct reporters *r, unsigned max)
{
	unsigned size = 16;

	if (!r || max == 0 || max > 65534)
		return -EINVAL;
	/* At most a quarter full: a miss ends within a probe or two. */
	while (size < 4 * max)
		size <<= 1;
	r->max = max;
	r->mask = size - 1;
	atomic_init(&r->n, 0);
	r->tab = calloc(size, sizeof(*r->tab));
	r->addr = calloc(max, sizeof(*r->addr));
	if (!r->tab || !r->addr) {
		free((void *)r->tab);
		free(r->addr);
		r->tab = NULL;
		r->addr = NULL;
		return -ENOMEM;
	}
	pthread_mutex_init(&r->lock, NULL);
	return 0;
}

void reporters_fini(struct reporters *r)
{
	if (!r || !r->tab)
		return;
	pthread_mutex_destroy(&r->lock);
	free((void *)r->tab);
	free(r->addr);
	r->tab = NULL;
	r->addr = NULL;
}

static unsigned hash(uint32_t addr)
{
	return (unsigned)((addr * 0x9E3779B97F4A7C15ull) >> 40);
}

/* The slot of @addr in the table, or -1 if it is not there. */
static int find(struct reporters *r, uint32_t addr)
{
	for (unsigned i = hash(addr);; i++) {
		uint64_t e = atomic_load_explicit(&r->tab[i & r->mask],
						  memory_order_acquire);

		if (!e)
			return -1;
		if ((uint32_t)e == addr)
			return (int)((e >> 32) & 0xFFFF);
	}
}

unsigned reporters_slot(struct reporters *r, uint32_t addr)
{
	int s = find(r, addr);
	unsigned n;

	if (s >= 0)
		return (unsigned)s;
	if (atomic_load_explicit(&r->n, memory_order_relaxed) >= r->max)
		return r->max; /* full: never inserted, never waited for */
	pthread_mutex_lock(&r->lock);
	s = find(r, addr); /* another worker may have just added it */
	n = atomic_load_explicit(&r->n, memory_order_relaxed);
	if (s < 0 && n < r->max) {
		unsigned i = hash(addr);

		while (atomic_load_explicit(&r->tab[i & r->mask],
					    memory_order_relaxed))
			i++;
		r->addr[n] = addr;
		atomic_store_explicit(&r->tab[i & r->mask],
				      USED | (uint64_t)n << 32 | addr,
				      memory_order_release);
		atomic_store_explicit(&r->n, n + 1, memory_order_release);
		s = (int)n;
	}
	pthread_mutex_unlock(&r->lock);
	return s < 0 ? r->max : (unsigned)s;
}

unsigned reporters_count(struct reporters *r)
{
	return atomic_load_explicit(&r->n, memory_order_acquire);
}

const char *reporters_label(struct reporters *r, unsigned slot, char *buf,
			    size_t cap)
{
	struct in_addr in;

	if (slot < reporters_count(r)) {
		in.s_addr = htonl(r->addr[slot]);
		if (!inet_ntop(AF_INET, &in, buf, (socklen_t)cap))
			snprintf(buf, cap, "?");
	} else {
		snprintf(buf, cap, "%s", slot == r->max ? "other" : "unknown");
	}
	return buf;
}
