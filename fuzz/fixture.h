/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What several harnesses share: a configuration with small structures of
 * every primitive (and every hash family), their data areas filled by real
 * writer operations, and one routine that runs every query and read kind
 * over an area and checks the answers stay within the contract.
 */
#ifndef DTA_FUZZ_FIXTURE_H
#define DTA_FUZZ_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "tools.h"

#define FIX_MAX 16
#define FIX_KEYS 24     /* keys written into the structures */
#define FIX_KEY_LEN 13  /* IPv4 5-tuples */

/* One structure of the fixture: its configuration, layout and data. */
struct fix_view {
	const struct dta_config_structure *cs;
	const struct dta_layout *l;
	const uint8_t *area;
};

struct fixture {
	struct dta_config *cfg;
	size_t n;
	struct fix_view v[FIX_MAX];
	uint8_t *area[FIX_MAX];
	uint8_t *pristine[FIX_MAX]; /* the areas as populated */
};

/* The fixture, built on first use (aborts if it cannot be). */
struct fixture *fixture_get(void);
/* The fixture's structures in a query executor (dta/exec.h), in their
 * order, built on first use (aborts if it cannot be). */
struct dta_exec *fixture_exec(void);
/* Put every area back to its populated contents. */
void fixture_restore(struct fixture *f);
/* Key @i of the keys written: 10.0.0.i:(1000+i)->10.0.1.1:80/tcp. */
void fixture_key(unsigned i, uint8_t key[FIX_KEY_LEN]);

/*
 * Every query and read kind over @area of layout @l: Key-Write (several
 * N and T, single and batch), Postcarding (with the values 1..@nvalues or
 * @values), Key-Increment (every bank and one past), Append (readers on
 * every list, oldest and now, reading until dry; cursor recovery). The
 * fixture keys and @extra (any bytes, may be empty) are looked up. Aborts
 * on an answer outside the contract.
 */
void fixture_query_all(const struct dta_layout *l, const void *area,
		       const uint32_t *values, size_t nvalues,
		       const uint8_t *extra, size_t extra_len);

#endif
