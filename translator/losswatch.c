/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-translator's watch on losses: losswatch.h. */
#include "losswatch.h"

#include <string.h>

void lw_limit_init(struct lw_limit *l, uint64_t interval_ns)
{
	memset(l, 0, sizeof(*l));
	l->interval_ns = interval_ns;
}

uint64_t lw_limit(struct lw_limit *l, uint64_t now, uint64_t n)
{
	uint64_t k;

	l->pending += n;
	if (!l->pending || (l->lines && now < l->next))
		return 0;
	k = l->pending;
	l->pending = 0;
	l->lines++;
	l->next = now + l->interval_ns;
	return k;
}

void lw_window_init(struct lw_window *w, uint64_t window_ns, double limit)
{
	memset(w, 0, sizeof(*w));
	w->window_ns = window_ns ? window_ns : 1;
	w->limit = limit;
}

static struct lw_sample *at(struct lw_window *w, unsigned i)
{
	return &w->s[(w->head + i) % LW_SAMPLES];
}

bool lw_window_update(struct lw_window *w, uint64_t now, uint64_t applied,
		      uint64_t lost, uint64_t *dl, uint64_t *dt)
{
	const struct lw_sample *b;
	uint64_t l, d;

	/* A new sample every window / 32 (the first at once). */
	if (!w->n || now - at(w, w->n - 1)->t >= w->window_ns / 32) {
		if (w->n == LW_SAMPLES) { /* calls closer than that: drop */
			w->head = (w->head + 1) % LW_SAMPLES;
			w->n--;
		}
		*at(w, w->n++) = (struct lw_sample){ now, applied, lost };
	}
	/* Forget samples older than the newest one a window old. */
	while (w->n > 1 && now - at(w, 1)->t >= w->window_ns) {
		w->head = (w->head + 1) % LW_SAMPLES;
		w->n--;
	}
	b = at(w, 0);
	l = lost - b->lost;
	d = l + (applied - b->applied);
	if (dl)
		*dl = l;
	if (dt)
		*dt = d;
	return d && (double)l > w->limit * (double)d;
}
