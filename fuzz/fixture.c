/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the harnesses; see fixture.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static const char fixture_config[] =
	"[structure flows]\n"
	"primitive = key-write\nslots = 64\ndata = 4\nchecksum = 2\n"
	"redundancy = 3\nschema = hi:u16, lo:u16le\n"
	"[structure flows8]\n"
	"primitive = kw\nhash = xxh3\nslots = 32\ndata = 8\nchecksum = 8\n"
	"[structure flows_p]\n"
	"primitive = kw\nhash = prototype\nslots = 32\ndata = 4\n"
	"[structure paths]\n"
	"primitive = postcard\nchunks = 16\nhops = 4\nslot_bytes = 1\n"
	"values = 1-40\n"
	"[structure paths_p]\n"
	"primitive = pc\nhash = prototype\nchunks = 16\nhops = 5\n"
	"slot_bytes = 4\nvalues = 1-20,100\n"
	"[structure log]\n"
	"primitive = append\nlists = 2\nbatches = 4\nbatch = 4\nentry = 4\n"
	"[structure log2]\n"
	"primitive = ap\nfirst_list = 10\nlists = 1\nbatches = 3\nbatch = 2\n"
	"entry = 8\nseparate_trailer = 1\n"
	"[structure counts]\n"
	"primitive = key-increment\nhash = crc32\nwidth = 16\nrows = 2\n"
	"banks = 2\n"
	"[structure counts_x]\n"
	"primitive = ki\nhash = xxh3\nwidth = 16\nrows = 3\n";

void fixture_key(unsigned i, uint8_t key[FIX_KEY_LEN])
{
	const uint8_t k[FIX_KEY_LEN] = {
		10, 0, 0, (uint8_t)i, 10, 0, 1, 1,
		(uint8_t)((1000 + i) >> 8), (uint8_t)(1000 + i), 0, 80, 6 };

	memcpy(key, k, FIX_KEY_LEN);
}

static void apply(const struct dta_layout *l, uint8_t *area,
		  const struct dta_memop *ops, int n)
{
	if (n < 0 || dta_memops_apply(area, l->data_size, ops, (size_t)n) != n)
		abort();
}

/* Writes the way a translator would: every key once, Append lists wrapped
 * at least once, counters in both banks. */
static void populate(const struct dta_config_structure *cs, uint8_t *area)
{
	static uint8_t buf[1 << 16];
	const struct dta_layout *l = &cs->layout;
	struct dta_memop ops[2 * DTA_MAX_REDUNDANCY];
	uint8_t key[FIX_KEY_LEN], data[DTA_DATA_MAX];
	uint32_t path[DTA_MAX_HOPS];

	for (unsigned i = 0; i < FIX_KEYS; i++) {
		fixture_key(i, key);
		memset(data, (int)(0x11 * (i + 1)), sizeof(data));
		switch (l->primitive) {
		case DTA_PRIM_KEY_WRITE:
			apply(l, area, ops, dta_kw_ops(l, key, sizeof(key), data,
						       l->g.kw.data_len,
						       1 + i % l->g.kw.max_redundancy,
						       buf, sizeof(buf), ops,
						       DTA_MAX_REDUNDANCY));
			break;
		case DTA_PRIM_POSTCARD:
			for (unsigned h = 0; h < l->g.pc.hops; h++)
				path[h] = cs->values[(i + h) % cs->nvalues];
			apply(l, area, ops, dta_pc_ops(l, key, sizeof(key), path,
						       1 + i % l->g.pc.hops, buf,
						       sizeof(buf), ops,
						       DTA_MAX_REDUNDANCY));
			break;
		case DTA_PRIM_KEY_INCREMENT:
			for (unsigned b = 0; b < l->g.ki.banks; b++)
				apply(l, area, ops,
				      dta_ki_ops(l, key, sizeof(key), i + 1 + b,
						 b, ops, DTA_MAX_REDUNDANCY));
			break;
		}
	}
	if (l->primitive == DTA_PRIM_APPEND) {
		for (uint32_t list = 0; list < l->g.ap.lists; list++) {
			struct dta_ap_cursor cur = { 0 };
			unsigned batches = l->g.ap.ring_batches + 1 + list;

			for (unsigned b = 0; b < batches; b++) {
				unsigned count = b == batches - 1 ? 1
					       : l->g.ap.batch_entries;

				memset(data, (int)(b + 1), sizeof(data));
				apply(l, area, ops,
				      dta_ap_ops(l, list, &cur, data, count, buf,
						 sizeof(buf), ops, 2));
			}
		}
	}
}

struct fixture *fixture_get(void)
{
	static struct fixture f;
	char err[256];

	if (f.cfg)
		return &f;
	if (dta_config_parse(fixture_config, sizeof(fixture_config) - 1, &f.cfg,
			     err, sizeof(err))) {
		fprintf(stderr, "fixture configuration: %s\n", err);
		abort();
	}
	f.n = dta_config_count(f.cfg);
	if (f.n > FIX_MAX)
		abort();
	for (size_t i = 0; i < f.n; i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(f.cfg, i);
		size_t size = (cs->layout.data_size + 63) / 64 * 64;

		f.area[i] = aligned_alloc(64, size);
		f.pristine[i] = malloc(size);
		if (!f.area[i] || !f.pristine[i])
			abort();
		memset(f.area[i], 0, size);
		populate(cs, f.area[i]);
		memcpy(f.pristine[i], f.area[i], size);
		f.v[i] = (struct fix_view){ .cs = cs, .l = &cs->layout,
					     .area = f.area[i] };
	}
	return &f;
}

struct dta_exec *fixture_exec(void)
{
	static struct dta_exec *x;
	struct fixture *f = fixture_get();

	if (x)
		return x;
	if (dta_exec_create(&x))
		abort();
	for (size_t i = 0; i < f->n; i++) {
		const struct dta_config_structure *cs = f->v[i].cs;
		struct dta_exec_structure s = {
			.name = cs->name, .layout = &cs->layout,
			.area = f->area[i], .values = cs->values,
			.nvalues = cs->nvalues, .list_base = cs->list_base,
			.schema = cs->schema,
		};

		if (dta_exec_add(x, &s) != (int)i)
			abort();
	}
	return x;
}

void fixture_restore(struct fixture *f)
{
	for (size_t i = 0; i < f->n; i++)
		memcpy(f->area[i], f->pristine[i], f->v[i].l->data_size);
}

static void check_kw(const struct dta_layout *l, const void *area,
		     const uint8_t *key, size_t klen)
{
	static const struct dta_kw_query_opts opts[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 2 }, { DTA_MAX_REDUNDANCY, 1 },
	};
	uint8_t out[DTA_DATA_MAX];

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct dta_kw_result r;
		unsigned n = opts[i].redundancy ? opts[i].redundancy
						: l->g.kw.max_redundancy;
		int err = dta_kw_query(l, area, key, klen, &opts[i], out,
				       sizeof(out), &r);

		if (err == -EINVAL && (klen == 0 || n > DTA_MAX_REDUNDANCY))
			continue;
		if (err || r.status < DTA_Q_FOUND || r.status > DTA_Q_CONFLICT ||
		    r.candidates > n || r.votes > r.candidates ||
		    (r.status == DTA_Q_FOUND &&
		     (r.votes == 0 || r.votes < opts[i].threshold)) ||
		    (r.status == DTA_Q_NOT_FOUND && r.candidates &&
		     opts[i].threshold < 2))
			abort();
	}
}

static void check_pc(const struct dta_layout *l, const void *area,
		     const struct dta_pc_codebook *cb, const uint8_t *key,
		     size_t klen)
{
	for (unsigned n = 0; n <= l->g.pc.redundancy; n++) {
		struct dta_pc_result r;
		int err = dta_pc_query(l, area, cb, key, klen, n, &r);

		if (err == -EINVAL && klen == 0)
			continue;
		if (err || r.status < DTA_Q_FOUND || r.status > DTA_Q_CONFLICT ||
		    r.valid_copies > (n ? n : l->g.pc.redundancy) ||
		    (r.status == DTA_Q_FOUND &&
		     (r.path_len == 0 || r.path_len > l->g.pc.hops)))
			abort();
	}
}

static void check_ki(const struct dta_layout *l, const void *area,
		     const uint8_t *key, size_t klen)
{
	for (unsigned bank = 0; bank <= l->g.ki.banks; bank++) {
		uint64_t v;
		int err = dta_ki_query(l, area, key, klen, bank, &v);

		if (bank == l->g.ki.banks || klen == 0) {
			if (err == 0 && bank == l->g.ki.banks)
				abort(); /* a bank that does not exist */
			continue;
		}
		if (err)
			abort();
	}
}

/* Read @rd dry, @k entries at a time (each read at most @k, never an
 * error: else abort), adding what it returns to *@got (NULL: not
 * counted). Stopped after a few rings without judging: crafted sequence
 * numbers can walk a reader round the 32-bit sequence space back to a
 * batch it returned (docs/fuzzing.md, known limits). False when it ran
 * dry at a position below *@got. */
static bool drain(const struct dta_layout *l, struct dta_ap_reader *rd,
		  void *out, size_t k, uint64_t *got)
{
	unsigned reads = 0, max = 4 * (l->g.ap.ring_batches + 1);
	uint64_t lost = 0;
	int rc;

	while ((rc = dta_ap_read(rd, out, k, &lost)) > 0) {
		if ((size_t)rc > k)
			abort();
		if (got)
			*got += (uint64_t)rc;
		if (++reads > max)
			return true;
	}
	if (rc < 0)
		abort();
	return !got || dta_ap_reader_position(rd) >= *got;
}

static void check_ap(const struct dta_layout *l, const void *area)
{
	static uint8_t out[1 << 16];
	uint32_t lists = l->g.ap.lists < 4 ? l->g.ap.lists : 4;
	size_t k = l->g.ap.batch_entries, es = l->g.ap.entry_size;

	if (k * es > sizeof(out))
		return;
	for (uint32_t list = 0; list <= lists; list++) {
		/* list == lists (when not capped) must be refused. */
		uint32_t id = list == lists ? l->g.ap.lists : list;
		struct dta_ap_cursor cur = { 0 };
		int rc = dta_ap_cursor_recover(l, area, id, &cur);

		if (id == l->g.ap.lists ? rc >= 0 : (rc < 0 || rc > 1))
			abort();
		for (int from_now = 0; from_now < 2; from_now++) {
			struct dta_ap_reader *rd;
			uint64_t lost = 0, got = 0;

			rc = dta_ap_reader_create(l, area, id, from_now, &rd);
			if (id == l->g.ap.lists) {
				if (rc == 0)
					abort();
				continue;
			}
			if (rc)
				abort();
			/* Too small for a batch: nothing, or -ENOSPC. */
			rc = dta_ap_read(rd, out, k > 1 ? k - 1 : 1, &lost);
			if (rc < 0 ? rc != -ENOSPC : (size_t)rc > (k > 1 ? k - 1 : 1))
				abort();
			got += rc > 0 ? (uint64_t)rc : 0;
			/* The memory does not change, so a reader should run
			 * dry within one ring (or be stopped: drain()). */
			if (!drain(l, rd, out, k, &got))
				abort();
			dta_ap_reader_destroy(rd);
		}
		/* Readers placed at an entry index (dta_ap_reader_create_at(),
		 * the stateless cursors): at 0, at the writer's position the
		 * ring's bytes give, and a batch before it. They run dry (or
		 * are stopped, as above) without reading out of bounds. */
		for (int j = 0; j < 3; j++) {
			uint32_t at = j == 0 ? 0
				      : j == 1 ? cur.next_entry
					       : cur.next_entry - (uint32_t)k - 1;
			struct dta_ap_reader *rd;

			rc = dta_ap_reader_create_at(l, area, id, at, &rd);
			if (id == l->g.ap.lists) {
				if (rc == 0)
					abort();
				continue;
			}
			if (rc)
				abort();
			drain(l, rd, out, k, NULL);
			dta_ap_reader_destroy(rd);
		}
	}
}

void fixture_query_all(const struct dta_layout *l, const void *area,
		       const uint32_t *values, size_t nvalues,
		       const uint8_t *extra, size_t extra_len)
{
	struct dta_pc_codebook *cb = NULL;
	uint8_t key[FIX_KEY_LEN];

	if (extra_len > DTA_KEY_MAX)
		extra_len = DTA_KEY_MAX;
	if (l->primitive == DTA_PRIM_APPEND) {
		check_ap(l, area);
		return;
	}
	if (l->primitive == DTA_PRIM_POSTCARD) {
		static uint32_t dflt[32];

		if (!values) {
			for (unsigned i = 0; i < 32; i++)
				dflt[i] = i + 1;
			values = dflt;
			nvalues = 32;
		}
		if (dta_pc_codebook_create(l, values, nvalues, &cb))
			abort();
	}
	for (unsigned i = 0; i <= FIX_KEYS; i++) {
		const uint8_t *k = key;
		size_t klen = sizeof(key);

		if (i == FIX_KEYS) {
			k = extra;
			klen = extra_len;
		} else {
			fixture_key(i, key);
		}
		if (l->primitive == DTA_PRIM_KEY_WRITE)
			check_kw(l, area, k, klen);
		else if (l->primitive == DTA_PRIM_POSTCARD)
			check_pc(l, area, cb, k, klen);
		else if (l->primitive == DTA_PRIM_KEY_INCREMENT)
			check_ki(l, area, k, klen);
	}
	if (l->primitive == DTA_PRIM_KEY_WRITE) {
		/* The batch form must agree with the single queries. */
		uint8_t keys[8 * FIX_KEY_LEN], out[8 * DTA_DATA_MAX];
		uint8_t one[DTA_DATA_MAX];
		struct dta_kw_result res[8], r;

		for (unsigned i = 0; i < 8; i++)
			fixture_key(i, keys + i * FIX_KEY_LEN);
		if (dta_kw_query_batch(l, area, keys, FIX_KEY_LEN, 8, NULL, out,
				       sizeof(out), res))
			abort();
		for (unsigned i = 0; i < 8; i++) {
			if (dta_kw_query(l, area, keys + i * FIX_KEY_LEN,
					 FIX_KEY_LEN, NULL, one, sizeof(one), &r) ||
			    r.status != res[i].status || r.votes != res[i].votes ||
			    (r.status == DTA_Q_FOUND &&
			     memcmp(one, out + i * l->g.kw.data_len,
				    l->g.kw.data_len)))
				abort();
		}
	}
	dta_pc_codebook_destroy(cb);
}
