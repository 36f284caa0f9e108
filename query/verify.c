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
#define VERIFY_CHUNK 262144
/* Intervals of a bound's grid (below). */
#define BOUND_GRID 4096

/*
 * eq. 1-8 at every key's age: a key's failure probability is a smooth
 * function of its structure's load alpha = age / units / collectors, and
 * evaluating it (pow, exp) for each of millions of keys cost verify a
 * third of its time. It is evaluated exactly at BOUND_GRID + 1 loads
 * spread evenly over [0, the oldest key's], and linearly between: the
 * error is below h^2/8 times the bound's curvature (h the spacing, about
 * 1/1000 of the oldest load), far under the third decimal of a percent
 * that verify prints.
 */
struct bound_grid {
	double amax;
	double fail[BOUND_GRID + 1];
};

static double bound_exact(const struct dta_config_structure *cs,
			  unsigned redundancy, double alpha)
{
	if (cs->layout.primitive == DTA_PRIM_KEY_WRITE) {
		unsigned bits = 8 * cs->layout.g.kw.csum_bytes;

		return dta_bound_kw_empty(redundancy, bits, alpha) +
		       dta_bound_kw_wrong(redundancy, bits, alpha);
	} else {
		unsigned n = cs->layout.g.pc.redundancy;
		unsigned bits = 8 * cs->layout.g.pc.slot_bytes;
		double v = (double)cs->nvalues;

		return dta_bound_pc_empty(n, bits, alpha, v, cs->layout.g.pc.hops) +
		       dta_bound_pc_wrong(n, bits, alpha, v, cs->layout.g.pc.hops);
	}
}

static double bound_fail(struct bound_grid **g,
			 const struct dta_config_structure *cs,
			 unsigned redundancy, double alpha)
{
	double x;
	size_t j;

	if (!*g) { /* the first key seen is the oldest: the grid's end */
		*g = malloc(sizeof(**g));
		if (!*g)
			die("out of memory");
		(*g)->amax = alpha;
		for (j = 0; j <= BOUND_GRID; j++)
			(*g)->fail[j] = bound_exact(cs, redundancy,
						    alpha * (double)j / BOUND_GRID);
	}
	if (!((*g)->amax > 0) || alpha > (*g)->amax)
		return bound_exact(cs, redundancy, alpha);
	x = alpha / (*g)->amax * BOUND_GRID;
	j = (size_t)x;
	if (j >= BOUND_GRID)
		return (*g)->fail[BOUND_GRID];
	return (*g)->fail[j] + (x - (double)j) * ((*g)->fail[j + 1] - (*g)->fail[j]);
}

/* Point queries of one structure with one key length. */
struct group {
	const struct dta_config_structure *cs;
	struct tally *t;
	size_t klen, n;
	uint8_t *keys; /* n * klen */
	uint8_t *want; /* kw: n * data_len; pc: n * hops u32; ki: n u64 */
	uint8_t *hops; /* pc: hops in each truth path */
	struct bound_grid *bound;
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

/* One more key whose answer fails with probability @fail (eq. 1-8). */
static void expect_add(struct tally *t, double fail)
{
	double p = fail < 1 ? 1 - fail : 0;

	t->expect += p;
	t->var += p * (1 - p);
	t->has_bound = true;
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
	uint64_t done, total;
};

/* Ask @g's keys [@lo, @hi) and judge the answers. */
static void judge(struct dta_client *c, struct group *g, size_t lo, size_t hi,
		  void *res, uint8_t *data)
{
	const struct dta_config_structure *cs = g->cs;
	const uint8_t *keys = g->keys + lo * g->klen;
	size_t n = hi - lo, ws = want_size(cs);
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
				memcmp(data + i * ws, g->want + (lo + i) * ws,
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
				(const uint32_t *)(g->want + (lo + i) * ws);
			unsigned hops = g->hops[lo + i], got = r[i].path_len;

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

			memcpy(&want, g->want + (lo + i) * ws, sizeof(want));
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

/* A hex digit's value plus one; 0 for anything else. */
static const uint8_t hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Decode the hex digits at *@s into @out until a character that is not
 * one; *@s then points at it. Return bytes, or -1 for an odd count or
 * more than @cap bytes. */
static int hex_run(const char **s, uint8_t *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)*s;
	size_t n = 0;

	while (hex1[p[0]]) {
		if (!hex1[p[1]] || n == cap)
			return -1;
		out[n++] = (uint8_t)((hex1[p[0]] - 1) << 4 | (hex1[p[1]] - 1));
		p += 2;
	}
	*s = (const char *)p;
	return (int)n;
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
	*klen = hex_run(&p, key, DTA_KEY_MAX);
	if (*klen <= 0 || *p != ' ')
		return false;
	p++;
	*dlen = hex_run(&p, data, DTA_DATA_MAX);
	if (*dlen <= 0 || *p != '\n')
		return false;
	*next = p + 1;
	return true;
}

/* Judge @g's queued keys and empty it; @v counts progress. */
static void flush(struct dta_client *c, struct group *g, void **res,
		  uint8_t **data, struct verify_progress *v)
{
	if (!g->n)
		return;
	if (!*res) {
		size_t r = sizeof(struct dta_pc_result) >
				   sizeof(struct dta_kw_result)
				   ? sizeof(struct dta_pc_result)
				   : sizeof(struct dta_kw_result);

		*res = xrealloc(NULL, VERIFY_CHUNK * r);
		*data = xrealloc(NULL, (size_t)VERIFY_CHUNK * DTA_DATA_MAX);
	}
	judge(c, g, 0, g->n, *res, *data);
	v->done += g->n;
	g->n = 0;
	if (v->show)
		fprintf(stderr, "\rverify: %" PRIu64 " of %" PRIu64 " keys   ",
			v->done, v->total);
}

uint64_t verify_dta(struct dta_client *c, const char *text, size_t tlen,
		    const struct verify_counts *vc, const char *truth,
		    unsigned redundancy, struct tally *tl, size_t *nt,
		    bool progress)
{
	struct groups gs = { 0 };
	struct ap_truth *aps = NULL;
	struct verify_progress v = {
		.show = progress, .total = vc->kw + vc->pc + vc->ki };
	size_t naps = 0, fileline = 0, lcap = 0;
	char *line = NULL;
	uint64_t answers = 0, kw_seen = 0, pc_seen = 0;
	void *res = NULL;
	uint8_t *data = NULL;
	/* The last kw line's structure and group: consecutive lines are
	 * mostly of one. */
	const struct dta_config_structure *kw_cs = NULL;
	size_t kw_g = 0;
	int kw_dl = -1, kw_kl = -1;

	/* Lines are NUL-terminated in place (cmd_verify() split them); the
	 * truth lists keys oldest write first, so a key's age is the number
	 * of keys of its kind after it. Keys are asked a chunk at a time,
	 * while the file is read: what is held stays in the caches. */
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
				flush(c, g, &res, &data, &v);
			k = group_add(g, key);
			memcpy(g->want + k * (size_t)dl, d, (size_t)dl);
			/* Each collector's share sees 1/n of the keys. */
			expect_add(g->t, bound_fail(&g->bound, kw_cs, redundancy,
					(double)(vc->kw - ++kw_seen) /
					(double)kw_cs->layout.g.kw.slots /
					kw_cs->ncollectors));
			continue;
		}
		nl = memchr(ln, '\n', (size_t)(end - ln));
		len = (size_t)((nl ? nl : end) - ln);
		next = nl ? nl + 1 : end;
		if (!len || ln[0] == '#' || (len >= 4 && !strncmp(ln, "int-", 4)))
			continue; /* comments; INT lines are int_verify()'s */
		/* The general parser splits its line: a copy of it. */
		if (len + 1 > lcap) {
			lcap = len + 1;
			line = xrealloc(line, lcap);
		}
		memcpy(line, ln, len);
		line[len] = 0;
		if (tool_truth_parse(line, &tt))
			die("%s:%zu: %s", truth, fileline, tt.why);
		if (tt.kind == TOOL_TRUTH_NONE)
			continue;
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
				flush(c, g, &res, &data, &v);
			k = group_add(g, key);
			dl = tool_unhex(tt.value, g->want + k * want_size(cs),
					want_size(cs));
			if (dl != (int)want_size(cs))
				die("%s:%zu: data is not %zu bytes of hex",
				    truth, fileline, want_size(cs));
			expect_add(t, bound_fail(&g->bound, cs, redundancy,
					(double)(vc->kw - ++kw_seen) /
					(double)cs->layout.g.kw.slots /
					cs->ncollectors));
		} else if (tt.kind == TOOL_TRUTH_PC) {
			cs = tool_route(G.cfg, DTA_PRIM_POSTCARD, 0, tt.hops, 0);
			if (!cs)
				die("no Postcarding structure takes %u-hop paths",
				    tt.hops);
			t = tally_for(tl, nt, cs);
			g = group_for(&gs, t, cs, (size_t)klen);
			if (g->n == VERIFY_CHUNK)
				flush(c, g, &res, &data, &v);
			k = group_add(g, key);
			g->hops[k] = (uint8_t)tt.hops;
			if (!parse_path(tt.value, tt.hops,
					(uint32_t *)(g->want + k * want_size(cs))))
				die("%s:%zu: the path is not %u numbers", truth,
				    fileline, tt.hops);
			pc_seen++;
			if (cs->nvalues)
				expect_add(t, bound_fail(&g->bound, cs, 0,
						(double)(vc->pc - pc_seen) /
						(double)cs->layout.g.pc.chunks /
						cs->ncollectors));
		} else { /* TOOL_TRUTH_KI */
			cs = tool_route(G.cfg, DTA_PRIM_KEY_INCREMENT, 0, 0, 0);
			if (!cs)
				die("no Key-Increment structure configured");
			t = tally_for(tl, nt, cs);
			g = group_for(&gs, t, cs, (size_t)klen);
			if (g->n == VERIFY_CHUNK)
				flush(c, g, &res, &data, &v);
			k = group_add(g, key);
			memcpy(g->want + k * sizeof(uint64_t), &tt.count,
			       sizeof(tt.count));
		}
	}
	for (size_t i = 0; i < gs.n; i++) {
		struct group *g = &gs.g[i];

		flush(c, g, &res, &data, &v);
		free(g->keys);
		free(g->want);
		free(g->hops);
		free(g->bound);
	}
	answers = v.done;
	if (progress && v.total)
		fputc('\n', stderr);
	free(res);
	free(data);
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
