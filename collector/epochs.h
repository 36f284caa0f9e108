/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-collector's epoch closer (docs/layouts.md "Epochs"): a thread that
 * closes every Key-Increment structure's epochs a grace period after they
 * end, into epoch files in epoch_dir, off the query loop. The loop only
 * starts and stops it and reads its counters (atomics; no lock).
 */
#ifndef DTA_COLLECTOR_EPOCHS_H
#define DTA_COLLECTOR_EPOCHS_H

#include <stdint.h>
#include <stdio.h>

#include "dta/dta.h"

struct coll_epochs;

struct coll_epochs_opts {
	const char *collector; /* dta_config_collector_id() */
	const char *dir;       /* epoch_dir */
	bool dir_default;      /* not configured: create its parent too */
	size_t n;
	struct {
		const char *name;
		const struct dta_layout *layout;
		void *area;       /* the region's data */
		uint32_t epoch_s; /* 0: no epochs for this one */
	} s[DTA_CONFIG_MAX_STRUCTURES];
};

/*
 * Start the closer when some structure has epochs. *@out is NULL when
 * none has. Return 0, or -errno (nothing started; logged).
 */
int coll_epochs_start(const struct coll_epochs_opts *o,
		      struct coll_epochs **out);

/* Stop it (a close under way finishes first) and free it; NULL is fine. */
void coll_epochs_stop(struct coll_epochs *e);

/* Its counters as the stats member "epochs":{...} (no leading comma). */
void coll_epochs_stats_json(const struct coll_epochs *e, FILE *out);

#endif
