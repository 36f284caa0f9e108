/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query verify, DTA lines: dta-gen's truth against what a collector
 * (or its mapping, or its snapshots) answers, through the client.
 *
 * Every key of one structure and key length is asked in one batched call
 * (dta_client_kw_get() and friends), so the client pays one frame per
 * thousands of keys over a socket and runs the library's batched queries
 * on a mapping; the truth is decoded once into arrays, and answers are
 * compared as bytes, never as text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "tools.h"

/* Keys asked per client call: progress is shown between calls. */
#define VERIFY_CHUNK 65536
/* A bin of the bounds' tally (below) spans at most 1/SEQ_STEPS of a
 * load factor: its keys' loads differ by that much at most. */
#define SEQ_STEPS 4096

/*
 * eq. 1-8 at every key's age. The truth lists keys oldest write first, so
 * a key's age is the number of keys of its kind listed after it: known
 * only once the whole file is read. And evaluating the bound (pow, exp)
 * for each of millions of keys cost verify a third of its time. So each
 * key is only counted, by its place among the keys of its kind, in bins
 * of w places (its count, and the sums of its offset x in [0, 1) within
 * the bin and of x^2); at the end the success probability p is evaluated
 * exactly at each bin's ends and taken as linear between, which gives the
 * bin's sum of p and of p (1 - p) from those three numbers. w is the
 * structure's units (slots or chunks, over all shares) / SEQ_STEPS, so the
 * load moves by at most 1/4096 across a bin and the linear error stays far
 * below the digits verify prints; small structures get one key a bin
 * (exact).
 */
struct seq_bins {
	uint64_t w; /* keys a bin */
	size_t n;
	struct seq_bin {
		uint64_t cnt;
		double sx, sxx;
	} *b;
};

/* Point queries of one structure with one key length. */
struct group {
	const struct dta_config_structure *cs;
	struct tally *t;
	size_t klen, n;
	uint8_t *keys; /* n * klen */
	uint8_t *want; /* kw: n * data_len; pc: n * hops u32; ki: n u64 */
	uint8_t *hops; /* pc: hops in each truth path */
	void *res;     /* the answers: kw, pc results, or ki counts */
	uint8_t *data; /* kw: the data answered */
	struct seq_bins seq; /* kw, pc: where each key stands (bounds) */
};

struct groups {
	struct group *g;
	size_t n;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static size_t want_size(const struct dta_config_structure *cs)
{
	switch (cs->layout.primitive) {
	case DTA_PRIM_KEY_WRITE:
		return cs->layout.g.kw.data_len;
	case DTA_PRIM_POSTCARD:
		return (size_t)cs->layout.g.pc.hops * sizeof(uint32_t);
	default:
		return sizeof(uint64_t);
	}
}

static struct group *group_for(struct groups *gs, struct tally *t,
			       const struct dta_config_structure *cs,
			       size_t klen)
{
	struct group *g;

	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].cs == cs && gs->g[i].klen == klen)
			return &gs->g[i];
	gs->g = xrealloc(gs->g, (gs->n + 1) * sizeof(*gs->g));
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->cs = cs;
	g->t = t;
	g->klen = klen;
	{
		uint64_t units = cs->layout.primitive == DTA_PRIM_KEY_WRITE
					 ? cs->layout.g.kw.slots
				 : cs->layout.primitive == DTA_PRIM_POSTCARD
					 ? cs->layout.g.pc.chunks
					 : 0;

		g->seq.w = units * cs->ncollectors / SEQ_STEPS;
		if (!g->seq.w)
			g->seq.w = 1;
	}
	return g;
}

/* Room for one more key in @g (a chunk of VERIFY_CHUNK keys, allocated
 * once); returns its index. The caller judges a full chunk first. */
static size_t group_add(struct group *g, const uint8_t *key)
{
	if (!g->keys) {
		g->keys = xrealloc(NULL, VERIFY_CHUNK * g->klen);
		g->want = xrealloc(NULL, VERIFY_CHUNK * want_size(g->cs));
		if (g->cs->layout.primitive == DTA_PRIM_POSTCARD)
			g->hops = xrealloc(NULL, VERIFY_CHUNK);
		switch (g->cs->layout.primitive) {
		case DTA_PRIM_KEY_WRITE:
			g->res = xrealloc(NULL, VERIFY_CHUNK *
					  sizeof(struct dta_kw_result));
			g->data = xrealloc(NULL, VERIFY_CHUNK * want_size(g->cs));
			break;
		case DTA_PRIM_POSTCARD:
			g->res = xrealloc(NULL, VERIFY_CHUNK *
					  sizeof(struct dta_pc_result));
			break;
		default:
			g->res = xrealloc(NULL, VERIFY_CHUNK * sizeof(uint64_t));
		}
	}
	memcpy(g->keys + g->n * g->klen, key, g->klen);
	return g->n++;
}

static struct tally *tally_for(struct tally *t, size_t *nt,
			       const struct dta_config_structure *cs)
{
	for (size_t i = 0; i < *nt; i++)
		if (t[i].name == cs->name)
			return &t[i];
	memset(&t[*nt], 0, sizeof(t[0]));
	t[*nt].name = cs->name;
	t[*nt].prim = cs->layout.primitive;
	return &t[(*nt)++];
}

/* Key number @seq of its kind (0: the first listed, the oldest). */
static void seq_add(struct seq_bins *h, uint64_t seq)
{
	size_t b = (size_t)(seq / h->w);
	double x = (double)(seq % h->w) / (double)h->w;

	if (b >= h->n) {
		size_t n = h->n ? h->n : 64;

		while (n <= b)
			n *= 2;
		h->b = xrealloc(h->b, n * sizeof(*h->b));
		memset(h->b + h->n, 0, (n - h->n) * sizeof(*h->b));
		h->n = n;
	}
	h->b[b].cnt++;
	h->b[b].sx += x;
	h->b[b].sxx += x * x;
}

/* The success probability eq. 1-8 give a key of @cs at load @alpha. */
static double success(const struct dta_config_structure *cs,
		      unsigned redundancy, double alpha)
{
	double fail;

	if (cs->layout.primitive == DTA_PRIM_KEY_WRITE) {
		unsigned bits = 8 * cs->layout.g.kw.csum_bytes;

		fail = dta_bound_kw_empty(redundancy, bits, alpha) +
		       dta_bound_kw_wrong(redundancy, bits, alpha);
	} else {
		unsigned n = cs->layout.g.pc.redundancy;
		unsigned bits = 8 * cs->layout.g.pc.slot_bytes;
		double v = (double)cs->nvalues;

		fail = dta_bound_pc_empty(n, bits, alpha, v, cs->layout.g.pc.hops) +
		       dta_bound_pc_wrong(n, bits, alpha, v, cs->layout.g.pc.hops);
	}
	return fail < 1 ? 1 - fail : 0;
}

/*
 * Add to @t the expected successes of the keys binned in @h, and their
 * variance: each is a Bernoulli(p) trial, so the exact count is a sum of
 * them (Poisson binomial), expected sum p, standard error sqrt(sum p (1 -
 * p)). @total keys of this kind were listed; key @seq's age is
 * total - seq - 1, its load that over @units and the collectors.
 */
static void seq_expect(struct tally *t, const struct seq_bins *h,
		       const struct dta_config_structure *cs,
		       unsigned redundancy, uint64_t total, double units)
{
	double per = units * cs->ncollectors;

	for (size_t b = 0; b < h->n; b++) {
		const struct seq_bin *e = &h->b[b];
		uint64_t s0 = (uint64_t)b * h->w, s1 = s0 + h->w;
		double p0, d, k, sx, sxx, sp, spp;

		if (!e->cnt)
			continue;
		if (s1 > total - 1)
			s1 = total - 1; /* the last bin ends at age 0 */
		p0 = success(cs, redundancy, (double)(total - s0 - 1) / per);
		d = s1 > s0 ? success(cs, redundancy,
				      (double)(total - s1 - 1) / per) - p0
			    : 0;
		/* x measured in w places; p is linear in places. */
		k = s1 > s0 ? (double)h->w / (double)(s1 - s0) : 0;
		sx = e->sx * k;
		sxx = e->sxx * k * k;
		sp = (double)e->cnt * p0 + d * sx;
		spp = (double)e->cnt * p0 * p0 + 2 * p0 * d * sx + d * d * sxx;
		t->expect += sp;
		t->var += sp - spp;
		t->has_bound = true;
	}
}

/* "V,V,..": @hops values into @out; false when malformed. */
static bool parse_path(const char *s, unsigned hops, uint32_t *out)
{
	for (unsigned i = 0; i < hops; i++) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(s, &end, 10);
		if (end == s || errno || v > UINT32_MAX ||
		    *end != (i + 1 < hops ? ',' : '\0'))
			return false;
		out[i] = (uint32_t)v;
		s = end + 1;
	}
	return true;
}

void ap_add(struct ap_truth **aps, size_t *naps, uint32_t id,
	    const char *hex)
{
	struct ap_truth *a;
	size_t lo = 0, hi = *naps;

	/* Kept sorted by list id: a binary search per truth line. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((*aps)[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == *naps || (*aps)[lo].id != id) {
		*aps = xrealloc(*aps, (*naps + 1) * sizeof(**aps));
		memmove(&(*aps)[lo + 1], &(*aps)[lo],
			(*naps - lo) * sizeof(**aps));
		(*naps)++;
		memset(&(*aps)[lo], 0, sizeof(**aps));
		(*aps)[lo].id = id;
	}
	a = &(*aps)[lo];
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 1024;
		a->e = xrealloc(a->e, a->cap * sizeof(*a->e));
	}
	a->e[a->n] = strdup(hex);
	if (!a->e[a->n++])
		die("out of memory");
}

void ap_truth_free(struct ap_truth *aps, size_t naps)
{
	for (size_t i = 0; i < naps; i++) {
		for (size_t j = 0; j < aps[i].n; j++)
			free(aps[i].e[j]);
		free(aps[i].e);
	}
	free(aps);
}

void ap_read_match(struct dta_client *c, const struct dta_config_structure *cs,
		   const struct ap_truth *a, struct tool_ap_match *m,
		   uint64_t *lost)
{
	size_t esz = cs->layout.g.ap.entry_size, max = 65536;
	struct dta_client_cursor *cur;
	uint8_t *buf = xrealloc(NULL, max * esz);
	char *hex = xrealloc(NULL, 2 * esz + 1);

	if (tool_ap_match_init(m, (const char *const *)a->e, a->n))
		die("out of memory");
	if (dta_client_ap_open(c, cs->name, a->id, DTA_EXEC_AP_OLDEST, &cur))
		die("%s list %u: %s", cs->name, a->id, dta_client_error(c));
	for (;;) {
		uint64_t l = 0;
		long n = dta_client_ap_read(cur, buf, max, &l);

		if (n < 0)
			die("%s list %u: %s", cs->name, a->id,
			    dta_client_error(c));
		*lost += l;
		if (n == 0)
			break;
		for (long i = 0; i < n; i++) {
			tool_hex(buf + (size_t)i * esz, esz, hex);
			tool_ap_match_entry(m, hex, 2 * esz);
		}
	}
	dta_client_ap_close(cur);
	tool_ap_match_finish(m);
	free(hex);
	free(buf);
}

/*
 * Read one list and match it against the truth in order: an entry sent
 * but skipped is not found, an entry read that was never sent (or out of
 * order) is wrong, and entries the ring overwrote before they were read
 * are counted from the cursor's lost count.
 */
static void ap_check(struct dta_client *c,
		     const struct dta_config_structure *cs,
		     const struct ap_truth *a, struct tally *t)
{
	struct tool_ap_match m;

	ap_read_match(c, cs, a, &m, &t->under);
	t->exact += m.exact;
	t->notfound += m.notfound;
	t->wrong += m.wrong;
	t->total += a->n;
	tool_ap_match_free(&m);
}

struct verify_progress {
	bool show;
	uint64_t done;
	size_t pos, tlen; /* bytes of the truth read, of all */
};

/* Ask @g's queued keys and judge the answers. */
static void judge(struct dta_client *c, struct group *g)
{
	const struct dta_config_structure *cs = g->cs;
	const uint8_t *keys = g->keys;
	uint8_t *data = g->data;
	void *res = g->res;
	size_t n = g->n, ws = want_size(cs);
	struct tally *t = g->t;
	int err;

	switch (cs->layout.primitive) {
	case DTA_PRIM_KEY_WRITE: {
		struct dta_kw_query_opts o = {
			.redundancy = cs->layout.g.kw.max_redundancy };
		struct dta_kw_result *r = res;

		err = dta_client_kw_get(c, cs->name, keys, g->klen, n, &o, r,
					data);
		if (err)
			break;
		for (size_t i = 0; i < n; i++) {
			t->total++;
			if (r[i].status == DTA_Q_FOUND)
				memcmp(data + i * ws, g->want + i * ws,
				       ws) ? t->wrong++ : t->exact++;
			else if (r[i].status == DTA_Q_CONFLICT)
				t->conflict++;
			else
				t->notfound++;
		}
		break;
	}
	case DTA_PRIM_POSTCARD: {
		struct dta_pc_result *r = res;

		err = dta_client_pc_get(c, cs->name, keys, g->klen, n, r);
		if (err)
			break;
		for (size_t i = 0; i < n; i++) {
			const uint32_t *w =
				(const uint32_t *)(g->want + i * ws);
			unsigned hops = g->hops[i], got = r[i].path_len;

			t->total++;
			if (r[i].status == DTA_Q_CONFLICT) {
				t->conflict++;
			} else if (r[i].status != DTA_Q_FOUND) {
				t->notfound++;
			} else if (memcmp(r[i].values, w,
					  (got < hops ? got : hops) *
						  sizeof(*w))) {
				t->wrong++;
			} else if (got == hops) {
				t->exact++;
			} else if (got < hops) {
				t->truncated++; /* the cache evicted it early */
			} else {
				t->wrong++;
			}
		}
		break;
	}
	default: {
		uint64_t *got = res;

		err = dta_client_ki_get(c, cs->name, keys, g->klen, n, 0, got);
		if (err)
			break;
		for (size_t i = 0; i < n; i++) {
			uint64_t want;

			memcpy(&want, g->want + i * ws, sizeof(want));
			t->total++;
			t->exact += got[i] == want;
			t->over += got[i] > want;
			t->under += got[i] < want;
		}
		break;
	}
	}
	if (err)
		die("%s: %s", cs->name, dta_client_error(c));
}

/*
 * A kw line exactly as dta-gen writes it, "kw KEYHEX DATAHEX\n", decoded
 * in one pass where it lies, its end found on the way: verify spent most
 * of its time reading the truth, not asking. False for any other spelling
 * (blanks, 0x, odd digits, a last line without a newline), which the
 * general parser then reads from a copy and judges. On success *@next is
 * the next line.
 */
static bool fast_kw(const char *ln, const char *end, uint8_t *key, int *klen,
		    uint8_t *data, int *dlen, const char **next)
{
	const char *p = ln + 3;

	/* The mapping may end right after a digit: hex_run() stops at the
	 * first non-digit, so it needs one past the last. */
	if (end - ln < 8 || end[-1] != '\n')
		return false;
	if (ln[0] != 'k' || ln[1] != 'w' || ln[2] != ' ')
		return false;
	*klen = tool_hex_run(&p, key, DTA_KEY_MAX);
	if (*klen <= 0 || *p != ' ')
		return false;
	p++;
	*dlen = tool_hex_run(&p, data, DTA_DATA_MAX);
	if (*dlen <= 0 || *p != '\n')
		return false;
	*next = p + 1;
	return true;
}

/* Judge @g's queued keys and empty it; @v counts progress. */
static void flush(struct dta_client *c, struct group *g,
		  struct verify_progress *v)
{
	if (!g->n)
		return;
	judge(c, g);
	v->done += g->n;
	g->n = 0;
	if (v->show)
		fprintf(stderr, "\rverify: %" PRIu64 " keys, %.0f%% of the "
			"truth read   ", v->done,
			v->tlen ? 100.0 * (double)v->pos / (double)v->tlen : 100);
}

/* Keep INT line @ln (@len bytes, line @lnum, of a postcard run or not)
 * for int_verify(). */
static void int_keep(struct verify_ints *vi, const char *ln, size_t len,
		     size_t lnum, bool pcrun)
{
	if (vi->n == vi->cap) {
		vi->cap = vi->cap ? 2 * vi->cap : 1024;
		vi->lines = xrealloc(vi->lines, vi->cap * sizeof(*vi->lines));
		vi->lnum = xrealloc(vi->lnum, vi->cap * sizeof(*vi->lnum));
		vi->pcrun = xrealloc(vi->pcrun, vi->cap * sizeof(*vi->pcrun));
	}
	vi->lines[vi->n] = strndup(ln, len);
	if (!vi->lines[vi->n])
		die("out of memory");
	vi->lnum[vi->n] = lnum;
	vi->pcrun[vi->n++] = pcrun;
}

void verify_ints_free(struct verify_ints *vi)
{
	for (size_t i = 0; i < vi->n; i++)
		free(vi->lines[i]);
	free(vi->lines);
	free(vi->lnum);
	free(vi->pcrun);
	memset(vi, 0, sizeof(*vi));
}

uint64_t verify_dta(struct dta_client *c, const char *text, size_t tlen,
		    const char *truth, struct tally *tl, size_t *nt,
		    bool progress, struct verify_ints *vi)
{
	struct groups gs = { 0 };
	struct ap_truth *aps = NULL;
	struct verify_progress v = { .show = progress, .tlen = tlen };
	size_t naps = 0, fileline = 0, lcap = 0;
	uint64_t answers = 0, kw_seen = 0, pc_seen = 0;
	unsigned redundancy = 2; /* dta-gen's default, else its comment's */
	bool in_pc = false;
	char *line = NULL;
	/* The last kw line's structure and group: consecutive lines are
	 * mostly of one. */
	const struct dta_config_structure *kw_cs = NULL;
	size_t kw_g = 0;
	int kw_dl = -1, kw_kl = -1;

	/* One pass: keys are asked a chunk at a time while the file is
	 * read, so what is held stays in the caches. */
	memset(vi, 0, sizeof(*vi));
	for (const char *ln = text, *end = text + tlen, *next; ln < end;
	     ln = next) {
		const struct dta_config_structure *cs;
		uint8_t key[DTA_KEY_MAX], d[DTA_DATA_MAX];
		struct tool_truth tt;
		struct group *g;
		struct tally *t;
		const char *nl;
		size_t k, len;
		int klen, dl;

		fileline++;
		v.pos = (size_t)(ln - text);
		if (fast_kw(ln, end, key, &klen, d, &dl, &next)) {
			if (dl != kw_dl || klen != kw_kl) {
				kw_cs = tool_route(G.cfg, DTA_PRIM_KEY_WRITE,
						   (unsigned)dl, 0, 0);
				if (!kw_cs)
					die("no Key-Write structure takes "
					    "%d-byte data", dl);
				t = tally_for(tl, nt, kw_cs);
				g = group_for(&gs, t, kw_cs, (size_t)klen);
				kw_g = (size_t)(g - gs.g);
				kw_dl = dl;
				kw_kl = klen;
			}
			g = &gs.g[kw_g];
			if (g->n == VERIFY_CHUNK)
				flush(c, g, &v);
			k = group_add(g, key);
			memcpy(g->want + k * (size_t)dl, d, (size_t)dl);
			seq_add(&g->seq, kw_seen++);
			continue;
		}
		nl = memchr(ln, '\n', (size_t)(end - ln));
		len = (size_t)((nl ? nl : end) - ln);
		next = nl ? nl + 1 : end;
		if (!len)
			continue;
		if (len >= 4 && !strncmp(ln, "int-", 4)) {
			int_keep(vi, ln, len, fileline, in_pc);
			continue; /* int_verify()'s */
		}
		/* The general parser splits its line: a copy of it. */
		if (len + 1 > lcap) {
			lcap = len + 1;
			line = xrealloc(line, lcap);
		}
		memcpy(line, ln, len);
		line[len] = 0;
		if (tool_truth_parse(line, &tt))
			die("%s:%zu: %s", truth, fileline, tt.why);
		if (tt.kind == TOOL_TRUTH_NONE) {
			/* Each run's header says whose lines follow: an
			 * int-path of a postcard run is what path_pc holds. */
			if (tt.redundancy)
				redundancy = tt.redundancy;
			if (tt.type)
				in_pc = !strcmp(tt.type, "int-pc");
			continue;
		}
		if (tt.kind == TOOL_TRUTH_AP) {
			if (!tool_route(G.cfg, DTA_PRIM_APPEND, 0, 0, tt.list))
				die("no Append structure holds list %u", tt.list);
			ap_add(&aps, &naps, tt.list, tt.value);
			continue;
		}
		klen = tool_unhex(tt.key, key, sizeof(key));
		if (klen <= 0)
			die("%s:%zu: the key is not 1..%d bytes of hex", truth,
			    fileline, DTA_KEY_MAX);
		if (tt.kind == TOOL_TRUTH_KW) {
			cs = tool_route(G.cfg, DTA_PRIM_KEY_WRITE, tt.data_len,
					0, 0);
			if (!cs)
				die("no Key-Write structure takes %u-byte data",
				    tt.data_len);
			t = tally_for(tl, nt, cs);
			g = group_for(&gs, t, cs, (size_t)klen);
			if (g->n == VERIFY_CHUNK)
				flush(c, g, &v);
			k = group_add(g, key);
			dl = tool_unhex(tt.value, g->want + k * want_size(cs),
					want_size(cs));
			if (dl != (int)want_size(cs))
				die("%s:%zu: data is not %zu bytes of hex",
				    truth, fileline, want_size(cs));
			seq_add(&g->seq, kw_seen++);
		} else if (tt.kind == TOOL_TRUTH_PC) {
			cs = tool_route(G.cfg, DTA_PRIM_POSTCARD, 0, tt.hops, 0);
			if (!cs)
				die("no Postcarding structure takes %u-hop paths",
				    tt.hops);
			t = tally_for(tl, nt, cs);
			g = group_for(&gs, t, cs, (size_t)klen);
			if (g->n == VERIFY_CHUNK)
				flush(c, g, &v);
			k = group_add(g, key);
			g->hops[k] = (uint8_t)tt.hops;
			if (!parse_path(tt.value, tt.hops,
					(uint32_t *)(g->want + k * want_size(cs))))
				die("%s:%zu: the path is not %u numbers", truth,
				    fileline, tt.hops);
			seq_add(&g->seq, pc_seen++);
		} else { /* TOOL_TRUTH_KI */
			cs = tool_route(G.cfg, DTA_PRIM_KEY_INCREMENT, 0, 0, 0);
			if (!cs)
				die("no Key-Increment structure configured");
			t = tally_for(tl, nt, cs);
			g = group_for(&gs, t, cs, (size_t)klen);
			if (g->n == VERIFY_CHUNK)
				flush(c, g, &v);
			k = group_add(g, key);
			memcpy(g->want + k * sizeof(uint64_t), &tt.count,
			       sizeof(tt.count));
		}
	}
	v.pos = tlen;
	for (size_t i = 0; i < gs.n; i++) {
		struct group *g = &gs.g[i];
		const struct dta_config_structure *cs = g->cs;

		flush(c, g, &v);
		if (cs->layout.primitive == DTA_PRIM_KEY_WRITE)
			seq_expect(g->t, &g->seq, cs, redundancy, kw_seen,
				   (double)cs->layout.g.kw.slots);
		else if (cs->layout.primitive == DTA_PRIM_POSTCARD &&
			 cs->nvalues)
			seq_expect(g->t, &g->seq, cs, redundancy, pc_seen,
				   (double)cs->layout.g.pc.chunks);
		free(g->keys);
		free(g->want);
		free(g->hops);
		free(g->res);
		free(g->data);
		free(g->seq.b);
	}
	answers = v.done;
	if (progress && v.done)
		fputc('\n', stderr);
	free(gs.g);

	for (size_t i = 0; i < naps; i++) {
		const struct dta_config_structure *cs =
			tool_route(G.cfg, DTA_PRIM_APPEND, 0, 0, aps[i].id);

		/* From here on the list's index within its structure. */
		aps[i].id -= cs->list_base;
		ap_check(c, cs, &aps[i], tally_for(tl, nt, cs));
		answers += aps[i].n;
	}
	ap_truth_free(aps, naps);
	free(line);
	return answers;
}
