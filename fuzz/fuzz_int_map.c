/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz harness for the INT mapping of the translator core
 * (dta_translator_process_int() and _process_int_batch(), docs/int.md
 * "Mapping"): arbitrary datagrams go to a translator that has every INT
 * role configured, over structures in heap memory. Checked after every
 * call: int_reports_in = int_applied + int_unmapped; every datagram is
 * counted once; the counts and return value agree with what
 * dta_int_decode() makes of the same bytes; a datagram the decoder
 * refuses is counted as malformed (once, by one cause) and changes no
 * byte of any structure; every memory operation lies inside its area,
 * also those of the postcards, Append batches and increments a final tick
 * writes.
 *
 * Input: byte 0 chooses the configuration (bits 0-1 events_by, 3 = one;
 * bit 2 no path_kw, so INT-MD paths go to Postcarding; bit 3 the batch
 * call; bit 4 Key-Increment pre-aggregation; bits 5-6 ttl_init 0, 64, 63,
 * 255, postcards placed by falling TTL with the first two and by the
 * absolute hop index with the others; bit 7 the INT-MD UDP port 5000 and DSCP 0x17/0x3F instead of the
 * default DSCP bit). Then datagrams, each a 16-bit big-endian length and
 * its bytes (the last takes what remains when its length is longer).
 */
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSTRUCT 6
#define DGRAMS_MAX 8

static struct {
	struct dta_layout l[NSTRUCT];
	uint8_t *mem[NSTRUCT];
	bool ready;
} A;

/* The sink: every operation must lie inside its structure. */
static int submit(void *ctx, unsigned s, const struct dta_memop *ops, size_t n)
{
	(void)ctx;
	if (s >= NSTRUCT)
		abort();
	for (size_t i = 0; i < n; i++)
		if (ops[i].offset > A.l[s].data_size ||
		    ops[i].len > A.l[s].data_size - ops[i].offset)
			abort();
	if (dta_memops_apply(A.mem[s], A.l[s].data_size, ops, n) != (int)n)
		abort();
	return 0;
}

static void setup(void)
{
	if (A.ready)
		return;
	/* Small, so that paths are cut (4 ids, 4 hops), chunks and slots
	 * collide and Append rings wrap. */
	if (dta_layout_kw(&A.l[0], 64, 16, 4, 2, DTA_HASH_CRC32C, 1) ||
	    dta_layout_pc(&A.l[1], 64, 4, 4, 2, DTA_HASH_CRC32C, 2) ||
	    dta_layout_kw(&A.l[2], 128, 20, 4, 3, DTA_HASH_XXH3, 3) ||
	    dta_layout_ap(&A.l[3], 4, 2, 2, DTA_INT_EVENT_SIZE, 0) ||
	    dta_layout_ki(&A.l[4], 64, 2, 1, DTA_HASH_CRC32C, 4) ||
	    dta_layout_ki(&A.l[5], 64, 2, 1, DTA_HASH_XXH3, 5))
		abort();
	for (int s = 0; s < NSTRUCT; s++) {
		A.mem[s] = malloc(A.l[s].data_size);
		if (!A.mem[s])
			abort();
	}
	A.ready = true;
}

/* FNV-1a over every structure's bytes. */
static uint64_t sum(void)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int s = 0; s < NSTRUCT; s++)
		for (uint64_t i = 0; i < A.l[s].data_size; i++)
			h = (h ^ A.mem[s][i]) * 0x100000001b3ull;
	return h;
}

static struct dta_translator_stats stats(const struct dta_translator *t)
{
	struct dta_translator_stats st;

	dta_translator_stats(t, &st);
	if (st.int_reports_in != st.int_applied + st.int_unmapped ||
	    st.int_malformed != st.int_malformed_truncated +
					st.int_malformed_version +
					st.int_malformed_unsupported +
					st.int_malformed_length +
					st.int_malformed_hops +
					st.int_malformed_other ||
	    st.sink_errors)
		abort();
	return st;
}

/* What dta_int_decode() alone makes of a datagram, read as the
 * translator reads it (each report refused alone where the format frames
 * it): readable reports, or < 0 when refused whole; *@nbad gets the
 * reports refused alone and *@last the last one's code. */
static int decoded(const struct dta_payload *p, const struct dta_int_opts *o,
		   uint64_t *nbad, int *last)
{
	static struct dta_int_report r[DTA_INT_REPORTS_MAX];
	struct dta_int_opts so = *o;
	int k, good = 0;

	so.separate = true;
	*nbad = 0;
	*last = 0;
	k = dta_int_decode(p->buf, p->len, &so, r, DTA_INT_REPORTS_MAX);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		if (r[i].error) {
			(*nbad)++;
			*last = r[i].error;
		} else {
			good++;
		}
	}
	return good;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t ttl[] = { 0, 64, 63, 255 };
	struct dta_translator_opts to = { .sz = sizeof(to),
					  .pc_cache_entries = 8 };
	struct dta_sink sink = { .submit = submit };
	struct dta_payload p[DGRAMS_MAX];
	struct dta_translator_stats a, b;
	struct dta_translator *t;
	struct dta_int_map m;
	const uint64_t now = 1000000000ull;
	size_t n = 0, pos = 1;
	uint8_t f;

	if (size < 1)
		return 0;
	f = data[0];
	setup();
	for (int s = 0; s < NSTRUCT; s++)
		memset(A.mem[s], 0, A.l[s].data_size);
	if (f & 0x10)
		to.ki_window_ns = 1000000;
	if (dta_translator_create(&to, &sink, &t))
		abort();
	for (int s = 0; s < NSTRUCT; s++)
		if (dta_translator_add(t, &A.l[s], 0) != s)
			abort();
	dta_int_map_init(&m);
	m.path_kw = f & 0x04 ? DTA_INT_MAP_NONE : 0;
	m.path_pc = 1;
	m.hop_kw = 2;
	m.events_ap = 3;
	m.events_by = (f & 3) == 3 ? DTA_INT_EVENTS_ONE : f & 3;
	m.flow_ki = 4;
	m.queue_ki = 5;
	m.decode.sz = sizeof(m.decode);
	m.decode.dscp_mask = f & 0x80 ? 0x3F : 0x01;
	m.decode.dscp_value = f & 0x80 ? 0x17 : 0x01;
	m.decode.udp_port = f & 0x80 ? 5000 : 0;
	m.decode.ttl_init = ttl[(f >> 5) & 3];
	m.pc_order = f & 0x40 ? DTA_INT_PC_ABSOLUTE : DTA_INT_PC_BY_TTL;
	if (dta_translator_set_int_map(t, &m))
		abort();

	while (pos < size && n < DGRAMS_MAX) {
		size_t len = pos + 2 <= size
				     ? (size_t)data[pos] << 8 | data[pos + 1] : 0;

		pos += 2;
		if (pos > size)
			pos = size;
		if (len > size - pos)
			len = size - pos;
		p[n].buf = data + pos;
		p[n].len = len;
		n++;
		pos += len;
	}

	if (f & 0x08) {
		uint64_t before = sum(), in = 0, bad = 0;
		int rc;

		a = stats(t);
		rc = dta_translator_process_int_batch(t, p, n, now);
		b = stats(t);
		bool none = true;

		for (size_t i = 0; i < n; i++) {
			uint64_t nb;
			int last, k = decoded(&p[i], &m.decode, &nb, &last);

			bad += k < 0 ? 1 : nb;
			in += k > 0 ? (uint64_t)k : 0;
			none &= k <= 0;
		}
		if (rc < 0 || (uint64_t)rc != b.int_applied - a.int_applied ||
		    b.int_datagrams - a.int_datagrams != n ||
		    b.int_malformed - a.int_malformed != bad ||
		    b.int_reports_in - a.int_reports_in != in ||
		    (n && none && sum() != before))
			abort();
	} else {
		for (size_t i = 0; i < n; i++) {
			uint64_t before = sum(), nb;
			int last, k = decoded(&p[i], &m.decode, &nb, &last), rc;

			a = stats(t);
			rc = dta_translator_process_int(t, p[i].buf, p[i].len,
							now);
			b = stats(t);
			if (b.int_datagrams - a.int_datagrams != 1)
				abort();
			if (k < 0) {
				/* Refused whole: counted once, nothing
				 * written, no report counted. */
				if (rc != k || b.int_malformed - a.int_malformed != 1 ||
				    b.int_reports_in != a.int_reports_in ||
				    b.int_updates != a.int_updates ||
				    sum() != before)
					abort();
			} else if (nb) {
				/* Some refused alone: each counted, the
				 * call returns the last one's code. */
				if (rc != last ||
				    b.int_malformed - a.int_malformed != nb ||
				    b.int_reports_in - a.int_reports_in !=
					    (uint64_t)k)
					abort();
			} else if (rc < 0 ||
				   (uint64_t)rc != b.int_applied - a.int_applied ||
				   b.int_malformed != a.int_malformed ||
				   b.int_reports_in - a.int_reports_in !=
					   (uint64_t)k) {
				abort();
			}
		}
	}
	/* What is held back (postcards, Append batches, aggregated
	 * increments) is written inside the areas too: a tick a minute on
	 * times all of it out. (Not dta_translator_flush(): it also settles
	 * the 65536 DTA sequence entries, which costs more than the rest of
	 * an input.) */
	if (dta_translator_tick(t, now + 60000000000ull) < 0)
		abort();
	(void)stats(t);
	dta_translator_destroy(t);
	return 0;
}
