/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translator core (DTA paper section 5.2): routing, the Postcarding cache,
 * Append batching and Key-Increment pre-aggregation. See translator.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dta/append.h"
#include "dta/int.h"
#include "dta/hash.h"
#include "dta/keyincr.h"
#include "dta/keywrite.h"
#include "dta/postcard.h"
#include "dta/translator.h"
#include "dta/wire.h"
#include "internal.h"

#define MAX_STRUCTS 64
/* Structures up to this size stay in the cache of the core writing them
 * (a megabyte, half a server core's L2): prefetching them costs a call per
 * operation and hides no miss (docs/performance.md, issue 27). */
#define PF_MIN_BYTES (1u << 20)
#define STRIPES 256 /* locks per striped table */
#define SEQ_W DTA_SEQ_WINDOW
static_assert(SEQ_W == 64, "the window is one 64-bit mask");

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile("yield")
#else
#define cpu_relax() ((void)0)
#endif

/* A test-and-test-and-set lock: critical sections are a few hundred ns. */
typedef struct {
	atomic_bool held;
} spin_t;

static void spin_lock(spin_t *s)
{
	for (;;) {
		if (!atomic_exchange_explicit(&s->held, true,
					      memory_order_acquire))
			return;
		while (atomic_load_explicit(&s->held, memory_order_relaxed))
			cpu_relax();
	}
}

static void spin_unlock(spin_t *s)
{
	atomic_store_explicit(&s->held, false, memory_order_release);
}

struct pc_entry {
	uint64_t since; /* first postcard's time */
	uint32_t values[DTA_MAX_HOPS];
	uint16_t seen;  /* bit i: hop i present */
	uint8_t path_len; /* 0: unknown */
	uint8_t key_len;  /* 0: free */
	uint8_t structure;
	uint8_t notify;   /* a postcard carried DTA_FLAG_IMMEDIATE */
	/* INT postcards placed by falling TTL (pc_put_ttl()): hop i holds the
	 * postcard with TTL @top - i. The entry outlives its writes (@dirty
	 * says what changed since) so that a packet's later postcards keep
	 * the anchor its first ones set. */
	uint8_t by_ttl;
	uint8_t dirty;
	uint8_t top;      /* the highest TTL seen: hop 0 */
	uint8_t key[DTA_KEY_MAX];
};

struct ki_entry {
	uint64_t since;
	uint64_t sum;
	uint32_t reports; /* reports folded into @sum */
	uint8_t key_len; /* 0: free */
	uint8_t structure;
	uint8_t notify;  /* a folded report carried DTA_FLAG_IMMEDIATE */
	uint8_t key[DTA_KEY_MAX];
};

struct ap_list {
	spin_t lock;
	uint32_t count;
	bool notify; /* an entry of the batch carried DTA_FLAG_IMMEDIATE */
	uint64_t since;
	struct dta_ap_cursor cur;
	uint8_t *buf; /* K entries */
};

/* One reporter's position (see DTA_SEQ_WINDOW in translator.h): 24 bytes,
 * the flags in one byte so that testing them after an update reads what
 * one store wrote. */
struct seq_state {
	uint64_t seen;  /* bit i: number next - 1 - i arrived (or is settled) */
	uint32_t next;  /* highest accepted number + 1 */
	uint32_t cand;  /* an out-of-window number awaiting confirmation */
	uint32_t prev;  /* the candidate @cand replaced, if SQ_PREV */
	uint8_t f;      /* SQ_* */
};
enum {
	SQ_KNOWN = 1, /* a report has arrived */
	SQ_CAND = 2,  /* @cand is set */
	SQ_PREV = 4,  /* @prev is set */
	SQ_BACK = 8,  /* @cand is behind (a restart if confirmed) */
};
static_assert(sizeof(struct seq_state) == 24, "packed reporter state");

struct int_reporter {
	uint32_t node;
	uint8_t hw_id;
	uint8_t version;
	bool used;
	uint16_t slot; /* reporter slot of its last datagram */
	struct seq_state q;
};

struct tr_struct {
	struct dta_layout l;
	uint32_t list_base;
	unsigned shard, nshards; /* share of a key-partitioned structure */
	atomic_uint ki_bank;
	struct ap_list *lists; /* Append only */
	/* Key-Write and Key-Increment: dta__fastmod_init() of the slots or
	 * the width, and the lanes of their roles (when @vec). */
	uint64_t fm;
	bool pf;        /* large enough to prefetch (PF_MIN_BYTES) */
	bool vec;
	struct dta__hash_lanes hl;
};

/* Counter indices: one atomic array so stats can be read without locks. */
enum {
	C_PACKETS, C_R0, C_R1, C_R2, C_R3, C_R4, C_MALFORMED, C_UNKNOWN,
	C_MISMATCH, C_SEQ_LOST, C_SEQ_LATE, C_SEQ_RESTART, C_OPS_W, C_OPS_FA, C_BYTES,
	C_SINK_ERR, C_PC_EMIT, C_PC_EVICT, C_PC_TIMEOUT, C_PC_DROP, C_PC_DUP,
	C_AP_BATCH, C_AP_PARTIAL, C_KI_MERGED, C_REPORTS_IN, C_MAL_TRUNC,
	C_MAL_VERSION, C_MAL_OPCODE, C_MAL_FIELD, C_MAL_AMBIGUOUS,
	C_MAL_TOO_MANY, C_SEQ_DUP, C_SEQ_SUSPECT, C_SEQ_JUMP, C_SINK_LOST,
	C_SOCKET_DROP, C_RX_TRUNC, C_REFUSED_SOURCE, C_INT_DGRAMS, C_INT_IN,
	C_INT_APPLIED, C_INT_UNMAPPED, C_INT_MAL, C_INT_MAL_TRUNC,
	C_INT_MAL_VERSION, C_INT_MAL_UNSUP, C_INT_MAL_LENGTH, C_INT_MAL_HOPS,
	C_INT_MAL_OTHER, C_INT_UPDATES, C_INT_MISMATCH, C_INT_PATH_TRUNC,
	C_INT_SEQ_LOST, C_INT_SEQ_LATE, C_INT_SEQ_DUP, C_INT_SEQ_JUMP,
	C_INT_SEQ_RESTART, C_INT_SEQ_SUSPECT, C_INT_SEQ_UNTRACKED, C_IMMEDIATE,
	C_NOTIFY, C_PC_TIE, C_INT_SEQ_SKIPPED, C_COUNT
};
static_assert(sizeof(struct dta_translator_stats) == C_COUNT * 8,
	      "stats struct and counter list agree");

/* Loss counters kept by reporter slot and structure: the fields of struct
 * dta_translator_losses, in order. */
enum {
	L_SOCKET_DROP, L_RX_TRUNC, L_REFUSED_SOURCE, L_MALFORMED, L_SEQ_LOST,
	L_UNKNOWN, L_MISMATCH, L_SINK_LOST, L_SINK_ERR, L_INT_MAL,
	L_INT_UNMAPPED, L_INT_MISMATCH, L_INT_SEQ_LOST, L_MAL_TRUNC,
	L_MAL_VERSION, L_MAL_OPCODE, L_MAL_FIELD, L_MAL_AMBIGUOUS,
	L_MAL_TOO_MANY, L_INT_MAL_TRUNC, L_INT_MAL_VERSION, L_INT_MAL_UNSUP,
	L_INT_MAL_LENGTH, L_INT_MAL_HOPS, L_INT_MAL_OTHER, L_COUNT
};
static_assert(sizeof(struct dta_translator_losses) == L_COUNT * 8,
	      "losses struct and loss list agree");
/* The counter of each loss (C_*), and its inverse as a mask and table. */
static const unsigned char loss_c[L_COUNT] = {
	C_SOCKET_DROP, C_RX_TRUNC, C_REFUSED_SOURCE, C_MALFORMED, C_SEQ_LOST,
	C_UNKNOWN, C_MISMATCH, C_SINK_LOST, C_SINK_ERR, C_INT_MAL,
	C_INT_UNMAPPED, C_INT_MISMATCH, C_INT_SEQ_LOST, C_MAL_TRUNC,
	C_MAL_VERSION, C_MAL_OPCODE, C_MAL_FIELD, C_MAL_AMBIGUOUS,
	C_MAL_TOO_MANY, C_INT_MAL_TRUNC, C_INT_MAL_VERSION, C_INT_MAL_UNSUP,
	C_INT_MAL_LENGTH, C_INT_MAL_HOPS, C_INT_MAL_OTHER,
};
#define LOSS_MASK                                                         \
	(1ull << C_SOCKET_DROP | 1ull << C_RX_TRUNC |                     \
	 1ull << C_REFUSED_SOURCE | 1ull << C_MALFORMED |                 \
	 1ull << C_SEQ_LOST | 1ull << C_UNKNOWN | 1ull << C_MISMATCH |    \
	 1ull << C_SINK_LOST | 1ull << C_SINK_ERR | 1ull << C_INT_MAL |   \
	 1ull << C_INT_UNMAPPED | 1ull << C_INT_MISMATCH |                \
	 1ull << C_INT_SEQ_LOST | 1ull << C_MAL_TRUNC |                   \
	 1ull << C_MAL_VERSION | 1ull << C_MAL_OPCODE |                   \
	 1ull << C_MAL_FIELD | 1ull << C_MAL_AMBIGUOUS |                  \
	 1ull << C_MAL_TOO_MANY | 1ull << C_INT_MAL_TRUNC |               \
	 1ull << C_INT_MAL_VERSION | 1ull << C_INT_MAL_UNSUP |            \
	 1ull << C_INT_MAL_LENGTH | 1ull << C_INT_MAL_HOPS |              \
	 1ull << C_INT_MAL_OTHER)

struct dta_translator {
	struct dta_translator_opts o;
	struct dta_sink sink;
	unsigned nstruct;
	struct tr_struct s[MAX_STRUCTS];

	struct dta_hashfn cache_fn; /* independent of every layout's roles */
	struct pc_entry *pc;
	spin_t pc_lock[STRIPES];
	atomic_uint_fast64_t pc_scan; /* timeout scan cursor */
	struct ki_entry *ki;
	spin_t ki_lock[STRIPES];
	atomic_uint_fast64_t ki_scan;
	atomic_uint_fast64_t last_tick;

	/* Per-reporter sequence state, 65536 of them. */
	struct seq_state *seq;
	spin_t seq_lock[STRIPES];

	/* Losses by reporter slot (dta_translator_set_reporter_slots()):
	 * (nslots + 1) x L_COUNT, slot nslots the unattributed one; NULL
	 * when off. seq_slot: each v1 reporter id's last payload's slot. */
	_Atomic uint64_t *rl;
	unsigned nslots;
	uint16_t *seq_slot;
	/* Losses by structure, always counted (rare: atomics are fine). */
	_Atomic uint64_t sl[MAX_STRUCTS][L_COUNT];
	/* The last report each structure refused for its sizes, packed as
	 * mism() writes it (0: none): one word, so a reader never sees
	 * half of one report and half of another. */
	_Atomic uint64_t last_mm[MAX_STRUCTS];

	/* INT reports: the map, and sequence state per INT reporter in an
	 * open-addressed table of DTA_INT_REPORTERS_MAX under one lock. */
	bool has_int_map;
	struct dta_int_map im;
	struct int_reporter *iseq;
	spin_t iseq_lock;

	/* Counters: a block per thread, so counting needs no locked
	 * instruction (each block has one writer); the last block is shared
	 * by threads beyond CTR_SLOTS and uses atomic adds. */
	struct ctr_block *ctr;

	/* Lock elision while one thread drives the translator (enter()). */
	atomic_int owner;  /* thread_slot() + 1 of the first caller */
	atomic_bool shared; /* another thread has called since */
	atomic_bool busy;   /* the owner is inside a call */
};

#define CTR_SLOTS 64
struct ctr_block {
	_Atomic uint64_t c[C_COUNT];
} __attribute__((aligned(64)));

/* Process-wide thread index, assigned on a thread's first count. */
static _Thread_local int tl_slot = -1;
static atomic_int next_slot;

static inline void count(struct dta_translator *t, unsigned c, uint64_t n)
{
	int s;

	if (!n)
		return;
	s = tl_slot;
	if (s < 0)
		s = tl_slot = atomic_fetch_add(&next_slot, 1);
	if (s < CTR_SLOTS) {
		_Atomic uint64_t *p = &t->ctr[s].c[c];

		/* Release: a reader who sees the count sees the writes
		 * made before it (C_PACKETS is counted after them). */
		atomic_store_explicit(p, atomic_load_explicit(p, memory_order_relaxed) + n,
				      memory_order_release);
	} else {
		atomic_fetch_add_explicit(&t->ctr[CTR_SLOTS].c[c], n,
					  memory_order_release);
	}
}

static uint64_t counter(const struct dta_translator *t, unsigned c)
{
	uint64_t sum = 0;

	for (unsigned s = 0; s <= CTR_SLOTS; s++)
		sum += atomic_load_explicit(&t->ctr[s].c[c], memory_order_acquire);
	return sum;
}

/*
 * Counts of one call (a payload batch, a tick), kept on the caller's stack
 * and added to the thread's block once at the end: a report costs no
 * shared-counter store, and C_PACKETS, published last, still follows every
 * write it stands for.
 */
struct tally {
	uint64_t touched; /* bit c: c[c] is valid */
	bool locks;       /* other threads may be inside: take the locks */
	bool int_ap;      /* int_ap()'s own tally: no structure mismatch */
	uint64_t notify;  /* bit s: structure s to notify at the run's end */
	/* Reporter slots (t->rl, or NULL: not counted by slot here): losses
	 * tallied go to @slot too, at once; @rslot: the slot of each report
	 * of the reports being run; @un: the unattributed slot. */
	_Atomic uint64_t *lz;
	const uint16_t *rslot;
	unsigned slot, un;
	uint64_t c[C_COUNT];
};
static_assert(C_COUNT <= 64, "one bit per counter");
static_assert(MAX_STRUCTS <= 64, "one notify bit per structure");

/* C_* -> L_*, for the counters in LOSS_MASK. */
static const unsigned char loss_index[C_COUNT] = {
	[C_SOCKET_DROP] = L_SOCKET_DROP, [C_RX_TRUNC] = L_RX_TRUNC,
	[C_REFUSED_SOURCE] = L_REFUSED_SOURCE, [C_MALFORMED] = L_MALFORMED,
	[C_SEQ_LOST] = L_SEQ_LOST, [C_UNKNOWN] = L_UNKNOWN,
	[C_MISMATCH] = L_MISMATCH, [C_SINK_LOST] = L_SINK_LOST,
	[C_SINK_ERR] = L_SINK_ERR, [C_INT_MAL] = L_INT_MAL,
	[C_INT_UNMAPPED] = L_INT_UNMAPPED, [C_INT_MISMATCH] = L_INT_MISMATCH,
	[C_INT_SEQ_LOST] = L_INT_SEQ_LOST, [C_MAL_TRUNC] = L_MAL_TRUNC,
	[C_MAL_VERSION] = L_MAL_VERSION, [C_MAL_OPCODE] = L_MAL_OPCODE,
	[C_MAL_FIELD] = L_MAL_FIELD, [C_MAL_AMBIGUOUS] = L_MAL_AMBIGUOUS,
	[C_MAL_TOO_MANY] = L_MAL_TOO_MANY, [C_INT_MAL_TRUNC] = L_INT_MAL_TRUNC,
	[C_INT_MAL_VERSION] = L_INT_MAL_VERSION,
	[C_INT_MAL_UNSUP] = L_INT_MAL_UNSUP,
	[C_INT_MAL_LENGTH] = L_INT_MAL_LENGTH,
	[C_INT_MAL_HOPS] = L_INT_MAL_HOPS, [C_INT_MAL_OTHER] = L_INT_MAL_OTHER,
};

static void lose(struct tally *a, unsigned c, uint64_t n)
{
	atomic_fetch_add_explicit(&a->lz[(size_t)a->slot * L_COUNT +
					 loss_index[c]],
				  n, memory_order_relaxed);
}

static inline void tally(struct tally *a, unsigned c, uint64_t n)
{
	uint64_t bit = 1ull << c;

	if (!(a->touched & bit)) {
		a->touched |= bit;
		a->c[c] = 0;
	}
	a->c[c] += n;
	if (a->lz && (LOSS_MASK & bit)) /* losses are rare: out of line */
		lose(a, c, n);
}

/* A tally fresh for a call (c[] is written before it is read). */
static void tally_init(const struct dta_translator *t, struct tally *a,
		       bool locks)
{
	a->touched = 0;
	a->notify = 0;
	a->locks = locks;
	a->int_ap = false;
	a->lz = t->rl;
	a->rslot = NULL;
	a->un = a->slot = t->nslots;
}

static void sloss(struct dta_translator *t, unsigned s, unsigned l,
		  uint64_t n)
{
	if (n)
		atomic_fetch_add_explicit(&t->sl[s][l], n,
					  memory_order_relaxed);
}

/* Structure @s refused a report of opcode @op for its sizes: keep what it
 * carried (struct dta_translator_mismatch) for the program to say. */
static void mism(struct dta_translator *t, unsigned s, unsigned op,
		 uint32_t got, uint32_t detail)
{
	atomic_store_explicit(&t->last_mm[s],
			      (uint64_t)(op & 0xff) << 56 |
				      (uint64_t)(got & 0xffffff) << 32 | detail,
			      memory_order_relaxed);
}

static void tally_publish(struct dta_translator *t, struct tally *a)
{
	uint64_t m = a->touched & ~(1ull << C_PACKETS);

	while (m) {
		unsigned c = (unsigned)__builtin_ctzll(m);

		m &= m - 1;
		count(t, c, a->c[c]);
	}
	if (a->touched & (1ull << C_PACKETS))
		count(t, C_PACKETS, a->c[C_PACKETS]);
	a->touched = 0;
}

static inline void lock(const struct tally *a, spin_t *s)
{
	if (a->locks)
		spin_lock(s);
}

static inline void unlock(const struct tally *a, spin_t *s)
{
	if (a->locks)
		spin_unlock(s);
}

static int thread_slot(void)
{
	if (tl_slot < 0)
		tl_slot = atomic_fetch_add(&next_slot, 1);
	return tl_slot;
}

/*
 * Entering a call that touches the core's state. The first thread to call
 * owns the translator and takes no lock while it is the only one: it
 * announces each call in @busy. A second thread marks the translator
 * @shared (for good) and waits until the owner is outside a call; from
 * then on every thread takes the locks. (Dekker's handshake: the owner
 * stores @busy then reads @shared, the other stores @shared then reads
 * @busy, both sequentially consistent, so at least one sees the other.)
 * Returns whether locks are needed.
 */
static bool enter(struct dta_translator *t)
{
	int me = thread_slot() + 1;

	if (!atomic_load_explicit(&t->shared, memory_order_relaxed)) {
		int o = atomic_load_explicit(&t->owner, memory_order_relaxed);

		if (o == 0 && atomic_compare_exchange_strong(&t->owner, &o, me))
			o = me;
		if (o == me) {
			atomic_store(&t->busy, true);
			if (!atomic_load(&t->shared))
				return false;
			atomic_store_explicit(&t->busy, false,
					      memory_order_release);
			return true;
		}
		atomic_store(&t->shared, true);
	}
	/* The owner's last unlocked call is over before we touch anything. */
	while (atomic_load(&t->busy))
		cpu_relax();
	return true;
}

static void leave(struct dta_translator *t, bool locks)
{
	if (!locks)
		atomic_store_explicit(&t->busy, false, memory_order_release);
}

static inline void run_begin(const struct dta_translator *t)
{
	if (t->sink.batch_begin)
		t->sink.batch_begin(t->sink.ctx);
}

static inline void run_end(const struct dta_translator *t)
{
	if (t->sink.batch_end)
		t->sink.batch_end(t->sink.ctx);
}

/*
 * Notifications (DTA_FLAG_IMMEDIATE): a report's structure is marked in
 * the run's tally when the operations carrying the report are accepted by
 * the sink (for buffered primitives that is when its postcard chunk,
 * Append batch or aggregated increment is written, maybe in a later run
 * or a tick); the sink hears of each marked structure once, after the
 * run's last submit (notify_run()).
 */
static inline void mark(struct tally *a, unsigned s, bool imm, int submitted)
{
	if (imm && submitted > 0)
		a->notify |= 1ull << s;
}

static void notify_run(struct dta_translator *t, struct tally *a)
{
	uint64_t m = a->notify;

	a->notify = 0;
	if (!m || !t->sink.notify)
		return;
	tally(a, C_NOTIFY, (uint64_t)__builtin_popcountll(m));
	while (m) {
		unsigned s = (unsigned)__builtin_ctzll(m);

		m &= m - 1;
		t->sink.notify(t->sink.ctx, s);
	}
}

/* Hand @n operations carrying @reports reports to the sink. */
static int submit(struct dta_translator *t, struct tally *a, unsigned s,
		  const struct dta_memop *ops, int n, uint64_t reports)
{
	uint64_t bytes = 0, fa = 0;
	int err;

	if (n <= 0)
		return n;
	for (int i = 0; i < n; i++) {
		if (ops[i].kind == DTA_MEMOP_FETCH_ADD)
			fa++;
		else
			bytes += ops[i].len;
	}
	err = t->sink.submit(t->sink.ctx, s, ops, (size_t)n);
	if (err) {
		tally(a, C_SINK_ERR, (uint64_t)n);
		tally(a, C_SINK_LOST, reports);
		sloss(t, s, L_SINK_ERR, (uint64_t)n);
		sloss(t, s, L_SINK_LOST, reports);
		return err;
	}
	tally(a, C_OPS_W, (uint64_t)n - fa);
	tally(a, C_OPS_FA, fa);
	tally(a, C_BYTES, bytes);
	return n;
}

DTA_API int dta_translator_create(const struct dta_translator_opts *opts,
				  const struct dta_sink *sink,
				  struct dta_translator **out)
{
	struct dta_translator *t;
	int err;

	if (!out || !sink || !sink->submit)
		return -EINVAL;
	if (opts && opts->sz < sizeof(size_t))
		return -EINVAL;
	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (opts)
		memcpy(&t->o, opts,
		       opts->sz < sizeof(t->o) ? opts->sz : sizeof(t->o));
	t->o.sz = sizeof(t->o);
	if (!t->o.pc_cache_entries)
		t->o.pc_cache_entries = 32768;
	if (!t->o.pc_timeout_ns)
		t->o.pc_timeout_ns = 10000000;
	if (!t->o.ap_timeout_ns)
		t->o.ap_timeout_ns = 1000000;
	if (!t->o.ki_agg_entries)
		t->o.ki_agg_entries = 16384;
	t->sink = *sink;

	err = -ENOMEM;
	t->pc = calloc(t->o.pc_cache_entries, sizeof(*t->pc));
	t->seq = calloc(65536, sizeof(*t->seq));
	t->iseq = calloc(DTA_INT_REPORTERS_MAX, sizeof(*t->iseq));
	t->ctr = aligned_alloc(64, (CTR_SLOTS + 1) * sizeof(*t->ctr));
	if (!t->pc || !t->seq || !t->iseq || !t->ctr)
		goto fail;
	memset(t->ctr, 0, (CTR_SLOTS + 1) * sizeof(*t->ctr));
	if (t->o.ki_window_ns) {
		t->ki = calloc(t->o.ki_agg_entries, sizeof(*t->ki));
		if (!t->ki)
			goto fail;
	}
	/* XXH3 with a fixed seed no layout family derives: cache slots are
	 * independent of chunk indices (unlike the prototype's). */
	err = dta_hash_family_fn(DTA_HASH_XXH3, 0x7472616e736c6174ull, 0,
				 &t->cache_fn);
	if (err)
		goto fail;
	*out = t;
	return 0;
fail:
	dta_translator_destroy(t);
	return err;
}

DTA_API void dta_translator_destroy(struct dta_translator *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nstruct; i++) {
		if (t->s[i].lists) {
			for (uint32_t j = 0; j < t->s[i].l.g.ap.lists; j++)
				free(t->s[i].lists[j].buf);
			free(t->s[i].lists);
		}
	}
	free(t->pc);
	free(t->ki);
	free(t->seq);
	free(t->iseq);
	free(t->ctr);
	free((void *)t->rl);
	free(t->seq_slot);
	free(t);
}

DTA_API int dta_translator_add(struct dta_translator *t,
			       const struct dta_layout *l, uint32_t list_base)
{
	return dta_translator_add_shard(t, l, list_base, 0, 1);
}

DTA_API int dta_translator_add_shard(struct dta_translator *t,
				     const struct dta_layout *l,
				     uint32_t list_base, unsigned shard,
				     unsigned nshards)
{
	struct tr_struct *s;

	if (!t || !l || !dta_primitive_name(l->primitive) || !nshards ||
	    shard >= nshards ||
	    (nshards > 1 && l->primitive == DTA_PRIM_APPEND))
		return -EINVAL;
	/* Share k > 0 follows share k - 1 of the same structure. */
	if (shard && (!t->nstruct || t->s[t->nstruct - 1].shard != shard - 1 ||
		      t->s[t->nstruct - 1].nshards != nshards ||
		      t->s[t->nstruct - 1].l.primitive != l->primitive))
		return -EINVAL;
	if (t->nstruct == MAX_STRUCTS)
		return -ENOMEM;
	if (l->primitive == DTA_PRIM_APPEND) {
		uint64_t end = (uint64_t)list_base + l->g.ap.lists;

		if (end > (1ull << 32))
			return -EINVAL;
		for (unsigned i = 0; i < t->nstruct; i++) {
			const struct tr_struct *o = &t->s[i];

			if (o->l.primitive == DTA_PRIM_APPEND &&
			    list_base < (uint64_t)o->list_base + o->l.g.ap.lists &&
			    o->list_base < end)
				return -EEXIST;
		}
	}
	s = &t->s[t->nstruct];
	memset(s, 0, sizeof(*s));
	s->l = *l;
	s->list_base = list_base;
	s->shard = shard;
	s->nshards = nshards;
	s->pf = l->data_size > PF_MIN_BYTES;
	if (l->primitive == DTA_PRIM_KEY_WRITE) {
		s->fm = dta__fastmod_init(l->g.kw.slots);
		s->vec = dta__kw_lanes_init(l, &s->hl) == 0;
	} else if (l->primitive == DTA_PRIM_KEY_INCREMENT) {
		s->fm = dta__fastmod_init(l->g.ki.width);
		s->vec = dta__ki_lanes_init(l, &s->hl) == 0;
	}
	if (l->primitive == DTA_PRIM_APPEND) {
		s->lists = calloc(l->g.ap.lists, sizeof(*s->lists));
		if (!s->lists)
			return -ENOMEM;
		for (uint32_t j = 0; j < l->g.ap.lists; j++) {
			s->lists[j].buf = malloc((size_t)l->g.ap.batch_entries *
						 l->g.ap.entry_size);
			if (!s->lists[j].buf) {
				while (j--)
					free(s->lists[j].buf);
				free(s->lists);
				s->lists = NULL;
				return -ENOMEM;
			}
		}
	}
	return (int)t->nstruct++;
}

static int check_struct(struct dta_translator *t, unsigned structure,
			int primitive)
{
	if (!t || structure >= t->nstruct)
		return -EINVAL;
	if (t->s[structure].l.primitive != primitive)
		return -DTA_E_PRIMITIVE;
	return 0;
}

DTA_API int dta_translator_set_ap_cursor(struct dta_translator *t,
					 unsigned structure, uint32_t list,
					 const struct dta_ap_cursor *cur)
{
	int err = check_struct(t, structure, DTA_PRIM_APPEND);

	if (err)
		return err;
	if (!cur)
		return -EINVAL;
	if (list >= t->s[structure].l.g.ap.lists)
		return -DTA_E_MISMATCH;
	t->s[structure].lists[list].cur = *cur;
	return 0;
}

DTA_API int dta_translator_set_ki_bank(struct dta_translator *t,
				       unsigned structure, unsigned bank)
{
	int err = check_struct(t, structure, DTA_PRIM_KEY_INCREMENT);

	if (err)
		return err;
	if (bank >= t->s[structure].l.g.ki.banks)
		return -DTA_E_RANGE;
	atomic_store(&t->s[structure].ki_bank, bank);
	return 0;
}

/* ---- sequence accounting (v1 reports carry reporter + seq) ---- */

/* Numbers leaving @q's window unseen when it moves @k ahead (1..SEQ_W). */
static unsigned seq_advance(struct seq_state *q, unsigned k)
{
	uint64_t out = k == SEQ_W ? q->seen : q->seen >> (SEQ_W - k);

	q->seen = (k == SEQ_W ? 0 : q->seen << k) | 1;
	q->next += k;
	if (k == 1)
		return !(out & 1); /* the usual step: no popcount call */
	return k - (unsigned)__builtin_popcountll(out);
}

/* @k numbers in a row from @q->next (1..SEQ_W) arrived: the same as @k
 * single steps of seq_advance(), in one shift. */
static unsigned seq_advance_run(struct seq_state *q, unsigned k)
{
	uint64_t out = k == SEQ_W ? q->seen : q->seen >> (SEQ_W - k);

	q->seen = k == SEQ_W ? ~0ull : q->seen << k | ((1ull << k) - 1);
	q->next += k;
	if (out == (k == SEQ_W ? ~0ull : (1ull << k) - 1))
		return 0; /* the usual case: nothing was missing */
	return k - (unsigned)__builtin_popcountll(out);
}

/* A number @d from @q->next, -SEQ_W <= d < SEQ_W: returns what was lost;
 * *late / *dup tell how a number behind the newest was taken. */
static unsigned seq_in_window(struct seq_state *q, int32_t d,
			      struct tally *a)
{
	uint64_t bit;

	if (d >= 0)
		return seq_advance(q, (unsigned)d + 1);
	bit = 1ull << (-d - 1);
	if (q->seen & bit) {
		tally(a, C_SEQ_DUP, 1);
	} else {
		q->seen |= bit;
		tally(a, C_SEQ_LATE, 1);
	}
	return 0;
}

/*
 * The rule of docs/translator.md "Sequence accounting" for number @seq of
 * the reporter @q, whose stripe lock the caller holds. Modulo 2^32: a
 * number up to 2^31 ahead is ahead.
 */
static void seq_one(struct seq_state *q, uint32_t seq, struct tally *a,
		    uint64_t *skipped)
{
	uint64_t lost = 0, suspect = 0, gap = 0;
	int32_t d, e;

	if (!(q->f & SQ_KNOWN)) {
		/* Nothing before a reporter's first report is known missing. */
		q->f = SQ_KNOWN;
		q->next = seq + 1;
		q->seen = ~0ull;
		return;
	}
	d = (int32_t)(seq - q->next);
	if (d >= -SEQ_W && d < SEQ_W) {
		/* The old sequence went on: candidates were not part of it. */
		suspect += !!(q->f & SQ_CAND) + !!(q->f & SQ_PREV);
		q->f &= (uint8_t)~(SQ_CAND | SQ_PREV);
		lost += seq_in_window(q, d, a);
		goto out;
	}
	e = (int32_t)(seq - q->cand);
	if ((q->f & SQ_CAND) && e > 0 && e < SEQ_W) {
		/* Confirmed: the reporter continues from the candidate. What
		 * the old window still missed is lost. The candidate it
		 * replaced belongs to the new stretch if it lies before the
		 * candidate (a report alone between two bursts of losses):
		 * the stretch starts there. Ahead, every number from the old
		 * position to the stretch is lost; after a restart only those
		 * within the stretch are known. */
		bool back = q->f & SQ_BACK;
		uint32_t from = back ? q->cand : q->next;
		bool prev_in = (q->f & SQ_PREV) &&
			       (back ? (int32_t)(q->cand - q->prev) > 0
					     : (int32_t)(q->prev - q->next) >= 0 &&
						       (int32_t)(q->cand - q->prev) > 0);

		lost += SEQ_W - (unsigned)__builtin_popcountll(q->seen);
		if (prev_in) {
			if (back)
				from = q->prev + 1;
			gap = (uint32_t)(q->cand - from) - (back ? 0 : 1);
		} else {
			suspect += !!(q->f & SQ_PREV);
			if (!back)
				gap = (uint32_t)(q->cand - from);
		}
		/* INT: the numbers the jump went over are counted apart
		 * (skipped), not as loss: a corrupt or replayed number
		 * confirmed by the next one would otherwise add up to 2^31
		 * (docs/translator.md "Sequence accounting"). */
		if (skipped)
			*skipped += gap;
		else
			lost += gap;
		tally(a, back ? C_SEQ_RESTART : C_SEQ_JUMP, 1);
		q->f = SQ_KNOWN;
		q->next = q->cand + 1;
		q->seen = ~0ull;
		lost += seq_advance(q, (unsigned)e);
		goto out;
	}
	if (q->f & SQ_CAND) {
		/* Keep the replaced candidate for the decision above; one
		 * replaced before it is suspect now. */
		suspect += !!(q->f & SQ_PREV);
		q->f |= SQ_PREV;
		q->prev = q->cand;
	}
	q->cand = seq;
	q->f = (uint8_t)((q->f & ~SQ_BACK) | SQ_CAND | (d < 0 ? SQ_BACK : 0));
out:
	if (lost)
		tally(a, C_SEQ_LOST, lost);
	if (suspect)
		tally(a, C_SEQ_SUSPECT, suspect);
}

/*
 * Sequence accounting for @n decoded reports, in order. Reports of one
 * reporter next to each other (a payload's, usually) are taken under one
 * lock of STRIPES (so reporters on different workers rarely share one),
 * and a run of consecutive numbers moves the window in one step.
 */
static void track_seq(struct dta_translator *t, const struct dta_report *r,
		      size_t n, struct tally *a)
{
	size_t i = 0;

	while (i < n) {
		uint16_t rep = r[i].reporter;
		struct seq_state *q = &t->seq[rep];
		spin_t *lk = &t->seq_lock[rep % STRIPES];

		if (r[i].format != DTA_FORMAT_V1) {
			i++;
			continue;
		}
		lock(a, lk);
		if (a->lz) { /* under the lock settle_seq() reads it with */
			a->slot = a->rslot[i];
			t->seq_slot[rep] = (uint16_t)a->slot;
		}
		do {
			unsigned k = 0, lost;

			seq_one(q, r[i].seq, a, NULL);
			i++;
			if (q->f & (SQ_CAND | SQ_PREV))
				continue;
			while (i + k < n && k < SEQ_W &&
			       r[i + k].format == DTA_FORMAT_V1 &&
			       r[i + k].reporter == rep &&
			       r[i + k].seq == q->next + k)
				k++;
			if (!k)
				continue;
			lost = seq_advance_run(q, k);
			if (lost)
				tally(a, C_SEQ_LOST, lost);
			i += k;
		} while (i < n && r[i].format == DTA_FORMAT_V1 &&
			 r[i].reporter == rep);
		unlock(a, lk);
	}
}

static void settle_int_seq(struct dta_translator *t, bool locks);

/* Flush: count what is still open as settled (see translator.h). */
static void settle_seq(struct dta_translator *t, bool locks)
{
	const struct tally lk_only = { .locks = locks }, *a = &lk_only;
	uint64_t lost = 0, suspect = 0;

	for (unsigned i = 0; i < 65536; i++) {
		struct seq_state *q = &t->seq[i];
		spin_t *lk = &t->seq_lock[i % STRIPES];
		unsigned k;

		if (!(q->f & SQ_KNOWN))
			continue;
		lock(a, lk);
		k = SEQ_W - (unsigned)__builtin_popcountll(q->seen);
		lost += k;
		if (t->rl && k)
			atomic_fetch_add_explicit(
				&t->rl[(size_t)t->seq_slot[i] * L_COUNT +
				       L_SEQ_LOST], k, memory_order_relaxed);
		q->seen = ~0ull;
		suspect += !!(q->f & SQ_CAND) + !!(q->f & SQ_PREV);
		q->f = SQ_KNOWN;
		unlock(a, lk);
	}
	count(t, C_SEQ_LOST, lost);
	count(t, C_SEQ_SUSPECT, suspect);
}

/* ---- routing ---- */

enum { NOWHERE = -1, MISMATCH = -2 };

/* The Key-Write structure (share) @r goes to, or NOWHERE. */
static int route_kw(const struct dta_translator *t, const struct dta_report *r)
{
	for (unsigned i = 0; i < t->nstruct; i++) {
		const struct dta_layout *l = &t->s[i].l;

		if (l->primitive != DTA_PRIM_KEY_WRITE ||
		    l->g.kw.data_len != r->u.kw.data_len)
			continue;
		/* The first share of a partitioned structure matched. */
		if (t->s[i].nshards == 1)
			return (int)i;
		return (int)(i + dta_shard(r->u.kw.key, r->u.kw.key_len,
					   t->s[i].nshards));
	}
	return NOWHERE;
}

static int route_ki(const struct dta_translator *t, const struct dta_report *r)
{
	for (unsigned s = 0; s < t->nstruct; s++)
		if (t->s[s].l.primitive == DTA_PRIM_KEY_INCREMENT)
			return (int)(s + dta_shard(r->u.ki.key, r->u.ki.key_len,
						   t->s[s].nshards));
	return NOWHERE;
}

/* The Postcarding structure (share) of @r, NOWHERE, or MISMATCH when its
 * hop does not fit. */
static int route_pc(const struct dta_translator *t, const struct dta_report *r,
		    int *ms)
{
	unsigned s;

	for (s = 0; s < t->nstruct; s++)
		if (t->s[s].l.primitive == DTA_PRIM_POSTCARD &&
		    r->u.pc.path_len <= t->s[s].l.g.pc.hops)
			break;
	if (s == t->nstruct)
		return NOWHERE;
	s += dta_shard(r->u.pc.key, r->u.pc.key_len, t->s[s].nshards);
	*ms = (int)s;
	return r->u.pc.hop >= t->s[s].l.g.pc.hops ? MISMATCH : (int)s;
}

/* ---- Key-Increment ---- */

static void ki_issue(struct dta_translator *t, struct tally *a, unsigned s,
		     const uint8_t *key, size_t key_len, uint64_t add,
		     uint64_t reports, bool imm)
{
	struct dta_memop ops[DTA_MAX_REDUNDANCY];
	struct tr_struct *ts = &t->s[s];
	int n = dta_ki_ops(&ts->l, key, key_len, add,
			   atomic_load_explicit(&ts->ki_bank,
						memory_order_relaxed),
			   ops, DTA_MAX_REDUNDANCY);
	unsigned slot = a->slot;

	/* Aggregated: several reporters' increments, maybe. */
	a->slot = a->un;
	mark(a, s, imm, submit(t, a, s, ops, n, reports));
	a->slot = slot;
}

static uint64_t key_hash(const struct dta_translator *t, unsigned s,
			 const uint8_t *key, size_t key_len)
{
	return dta_hashfn_eval(&t->cache_fn, key, key_len) ^
	       (0x9E3779B97F4A7C15ull * (s + 1));
}

/* Fold @r into aggregation entry @idx of structure @s. */
static void ki_aggregate(struct dta_translator *t, struct tally *a, unsigned s,
			 uint64_t idx, const struct dta_report *r, uint64_t now)
{
	struct ki_entry *e = &t->ki[idx], old;
	spin_t *lk = &t->ki_lock[idx % STRIPES];

	old.key_len = 0;
	lock(a, lk);
	if (e->key_len && e->structure == s && e->key_len == r->u.ki.key_len &&
	    !memcmp(e->key, r->u.ki.key, e->key_len)) {
		e->sum += r->u.ki.counter;
		e->reports++;
		e->notify |= r->flags & DTA_FLAG_IMMEDIATE;
		unlock(a, lk);
		tally(a, C_KI_MERGED, 1);
		return;
	}
	if (e->key_len)
		old = *e; /* a different key: issue it, take the slot */
	e->key_len = r->u.ki.key_len;
	e->structure = (uint8_t)s;
	memcpy(e->key, r->u.ki.key, e->key_len);
	e->sum = r->u.ki.counter;
	e->reports = 1;
	e->notify = r->flags & DTA_FLAG_IMMEDIATE;
	e->since = now;
	unlock(a, lk);
	if (old.key_len)
		ki_issue(t, a, old.structure, old.key, old.key_len, old.sum,
			 old.reports, old.notify);
}

/* ---- Postcarding ---- */

/* Write @e's flow; the caller owns @e (a copy taken under the lock). */
static void pc_write(struct dta_translator *t, struct tally *a,
		     const struct pc_entry *e, unsigned counter)
{
	const struct dta_layout *l = &t->s[e->structure].l;
	uint8_t chunk[4 * DTA_MAX_HOPS * 2];
	struct dta_memop ops[DTA_MAX_REDUNDANCY];
	unsigned len = 0;
	int n;

	while (len < l->g.pc.hops && (e->seen & (1u << len)))
		len++;
	if (len == 0) {
		/* Nothing from hop 0: no prefix to write. */
		tally(a, C_PC_DROP, (uint64_t)__builtin_popcount(e->seen));
		return;
	}
	tally(a, C_PC_DROP,
	      (uint64_t)__builtin_popcount(e->seen & ~((1u << len) - 1)));
	if (e->path_len && len > e->path_len)
		len = e->path_len;
	n = dta_pc_ops(l, e->key, e->key_len, e->values, len, chunk,
		       sizeof(chunk), ops, DTA_MAX_REDUNDANCY);
	if (n < 0) {
		tally(a, C_MISMATCH, 1);
		sloss(t, e->structure, L_MISMATCH, 1);
		mism(t, e->structure, DTA_OP_POSTCARD, len, e->path_len);
		return;
	}
	tally(a, counter, 1);
	/* hops 0 .. len-1, all seen */
	mark(a, e->structure, e->notify, submit(t, a, e->structure, ops, n, len));
}

/* pc_write(), its losses unattributed: a flow's postcards come from the
 * switch of each hop. */
static void pc_emit(struct dta_translator *t, struct tally *a,
		    const struct pc_entry *e, unsigned counter)
{
	unsigned slot = a->slot;

	a->slot = a->un;
	pc_write(t, a, e, counter);
	a->slot = slot;
}

static bool pc_complete(const struct dta_layout *l, const struct pc_entry *e)
{
	unsigned want = e->path_len ? e->path_len : l->g.pc.hops;

	return (e->seen & ((1u << want) - 1)) == (1u << want) - 1;
}

static uint64_t pc_index(const struct dta_translator *t, unsigned s,
			 const struct dta_report *r)
{
	return key_hash(t, s, r->u.pc.key, r->u.pc.key_len) %
	       t->o.pc_cache_entries;
}

/* Put postcard @r of structure @s into cache entry @idx. */
static void pc_put(struct dta_translator *t, struct tally *a, unsigned s,
		   uint64_t idx, const struct dta_report *r, uint64_t now)
{
	struct pc_entry *e = &t->pc[idx], evicted, done;
	bool have_evicted = false, have_done = false;
	spin_t *lk = &t->pc_lock[idx % STRIPES];

	lock(a, lk);
	if (e->key_len &&
	    !(!e->by_ttl && e->structure == s &&
	      e->key_len == r->u.pc.key_len &&
	      !memcmp(e->key, r->u.pc.key, e->key_len))) {
		evicted = *e; /* written at the evicted flow's own chunks */
		have_evicted = !e->by_ttl || e->dirty;
		e->key_len = 0;
	}
	if (!e->key_len) {
		e->key_len = r->u.pc.key_len;
		e->structure = (uint8_t)s;
		memcpy(e->key, r->u.pc.key, e->key_len);
		e->seen = 0;
		e->path_len = 0;
		e->notify = 0;
		e->since = now;
		e->by_ttl = 0;
		e->dirty = 0;
	}
	e->notify |= r->flags & DTA_FLAG_IMMEDIATE;
	if (e->seen & (1u << r->u.pc.hop))
		tally(a, C_PC_DUP, 1);
	e->seen |= (uint16_t)(1u << r->u.pc.hop);
	e->values[r->u.pc.hop] = r->u.pc.value;
	if (r->u.pc.path_len)
		e->path_len = r->u.pc.path_len;
	if (pc_complete(&t->s[s].l, e)) {
		done = *e; /* the flow's next postcard starts afresh */
		have_done = true;
		e->key_len = 0;
	}
	unlock(a, lk);
	if (have_evicted)
		pc_emit(t, a, &evicted, C_PC_EVICT);
	if (have_done)
		pc_emit(t, a, &done, C_PC_EMIT);
}

/*
 * INT postcard @value (the switch id) with inner TTL @ttl into cache entry
 * @idx: hop = the highest TTL the entry has seen - @ttl (docs/int.md "Hop
 * index"). No initial TTL is assumed: relative order is exact for hops
 * that each decrement the TTL once. Return: 1 if placed (or a duplicate).
 */
static int pc_put_ttl(struct dta_translator *t, struct tally *a, unsigned s,
		      uint64_t idx, const uint8_t *key, size_t klen,
		      uint8_t ttl, uint32_t value, uint64_t now)
{
	struct pc_entry *e = &t->pc[idx], evicted, done;
	bool have_evicted = false, have_done = false;
	spin_t *lk = &t->pc_lock[idx % STRIPES];
	unsigned b = t->s[s].l.g.pc.hops, hop;
	int placed = 1;

	lock(a, lk);
	if (e->key_len && !(e->by_ttl && e->structure == s &&
			    e->key_len == klen && !memcmp(e->key, key, klen))) {
		evicted = *e;
		have_evicted = !e->by_ttl || e->dirty; /* else written already */
		e->key_len = 0;
	}
	if (!e->key_len) {
		e->key_len = (uint8_t)klen;
		e->structure = (uint8_t)s;
		memcpy(e->key, key, klen);
		e->seen = 0;
		e->path_len = 0;
		e->notify = 0;
		e->since = now;
		e->by_ttl = 1;
		e->dirty = 0;
		e->top = ttl;
	}
	if (ttl > e->top) {
		/* An earlier hop than any seen: everything moves down. */
		unsigned d = (unsigned)(ttl - e->top);
		uint32_t keep = d >= b ? 0 : (1u << (b - d)) - 1;

		tally(a, C_PC_DROP,
		      (uint64_t)__builtin_popcount(e->seen & ~keep));
		e->seen &= (uint16_t)keep;
		if (d < b) {
			memmove(e->values + d, e->values,
				(b - d) * sizeof(e->values[0]));
			e->seen = (uint16_t)(e->seen << d);
		}
		e->top = ttl;
		e->dirty = 1;
	}
	hop = (unsigned)(e->top - ttl);
	if (hop >= b) {
		placed = 0; /* the path is longer than the structure's B */
	} else if (e->seen & (1u << hop)) {
		tally(a, e->values[hop] == value ? C_PC_DUP : C_PC_TIE, 1);
	} else {
		e->seen |= (uint16_t)(1u << hop);
		e->values[hop] = value;
		e->dirty = 1;
	}
	if (e->dirty && pc_complete(&t->s[s].l, e)) {
		done = *e;
		have_done = true;
		e->dirty = 0;
		e->since = now;
	}
	unlock(a, lk);
	if (have_evicted)
		pc_emit(t, a, &evicted, C_PC_EVICT);
	if (have_done)
		pc_emit(t, a, &done, C_PC_EMIT);
	return placed;
}

/* ---- Append ---- */

/* Write @al's batch; called with its lock held. */
static void ap_write(struct dta_translator *t, struct tally *a, unsigned s,
		     uint32_t list, struct ap_list *al)
{
	const struct dta_layout *l = &t->s[s].l;
	uint8_t frame[DTA_AP_FRAME_OVERHEAD + 8 + 1024 * 8];
	uint8_t *fb = frame;
	struct dta_memop ops[2];
	uint32_t entries = al->count;
	unsigned slot = a->slot;
	int n;

	/* A batch holds entries of several reporters: unattributed. */
	a->slot = a->un;
	if (l->g.ap.frame_size > sizeof(frame)) {
		fb = malloc(l->g.ap.frame_size);
		if (!fb) {
			tally(a, C_SINK_ERR, 1);
			tally(a, C_SINK_LOST, al->count);
			sloss(t, s, L_SINK_ERR, 1);
			sloss(t, s, L_SINK_LOST, al->count);
			al->count = 0;
			al->notify = false;
			a->slot = slot;
			return;
		}
	}
	n = dta_ap_ops(l, list, &al->cur, al->buf, al->count, fb,
		       l->g.ap.frame_size, ops, 2);
	tally(a, al->count == l->g.ap.batch_entries ? C_AP_BATCH : C_AP_PARTIAL,
	      1);
	al->count = 0;
	mark(a, s, al->notify, submit(t, a, s, ops, n, entries));
	al->notify = false;
	a->slot = slot;
	if (fb != frame)
		free(fb);
}

/*
 * Add Append report @r to its list. *@held is the list whose lock the
 * caller holds from the previous report (or NULL): reports in a row for
 * one list take its lock once. Return: 1 if applied.
 */
static int ap_put(struct dta_translator *t, struct tally *a,
		  const struct dta_report *r, uint64_t now,
		  struct ap_list **held, unsigned slot)
{
	for (unsigned s = 0; s < t->nstruct; s++) {
		struct tr_struct *ts = &t->s[s];
		const struct dta_layout *l = &ts->l;
		struct ap_list *al;
		uint32_t list;

		if (l->primitive != DTA_PRIM_APPEND ||
		    r->u.ap.list_id < ts->list_base ||
		    r->u.ap.list_id - ts->list_base >= l->g.ap.lists)
			continue;
		if (r->u.ap.data_len != l->g.ap.entry_size) {
			a->slot = slot;
			tally(a, C_MISMATCH, 1);
			if (!a->int_ap) /* int_ap() counts it as INT's */
				sloss(t, s, L_MISMATCH, 1);
			mism(t, s, DTA_OP_APPEND, r->u.ap.data_len,
			     r->u.ap.list_id);
			return 0;
		}
		list = r->u.ap.list_id - ts->list_base;
		al = &ts->lists[list];
		if (*held != al) {
			if (*held)
				unlock(a, &(*held)->lock);
			lock(a, &al->lock);
			*held = al;
		}
		if (al->count == 0)
			al->since = now;
		memcpy(al->buf + (size_t)al->count * l->g.ap.entry_size,
		       r->u.ap.data, l->g.ap.entry_size);
		al->notify |= (r->flags & DTA_FLAG_IMMEDIATE) != 0;
		if (++al->count == l->g.ap.batch_entries)
			ap_write(t, a, s, list, al);
		return 1;
	}
	a->slot = slot;
	tally(a, C_UNKNOWN, 1);
	return 0;
}

/* ---- a batch of reports ---- */

/*
 * Reports are decoded CHUNK at a time (a payload's DTA_WIRE_REPORTS_MAX
 * always fit), sequence-accounted, then applied in windows of up to WIN:
 * every report of a window is routed and hashed and its destination
 * prefetched (through the sink's hook for structure memory; directly for
 * the core's own Postcarding and aggregation tables) before the first is
 * written. Writes are then issued in report order, so memory ends as if
 * each report had been applied alone.
 */
#define CHUNK (2 * DTA_WIRE_REPORTS_MAX)
#define WIN 64
#define WIN_OPS (WIN * 4)
#define WIN_BYTES 8192

struct prep {
	int s;        /* structure, NOWHERE or MISMATCH */
	int ms;       /* MISMATCH: the structure that refused it */
	int nops;     /* Key-Write, direct Key-Increment: from dta_*_ops() */
	unsigned op0; /* first of them in the window's ops */
	uint64_t idx; /* Postcarding cache / aggregation table entry */
};

struct window {
	struct prep p[WIN];
	struct dta_memop ops[WIN_OPS];
	uint8_t bytes[WIN_BYTES]; /* Key-Write slots the ops point into */
};

static void prefetch_ops(const struct dta_translator *t, unsigned s,
			 const struct dta_memop *ops, int n)
{
	if (!t->s[s].pf)
		return;
	for (int i = 0; i < n; i++)
		t->sink.prefetch(t->sink.ctx, s, ops[i].offset,
				 ops[i].kind == DTA_MEMOP_FETCH_ADD ? 8
								   : ops[i].len);
}

/* Route, hash and prefetch reports from @r on; return how many fit the
 * window (at least one). */
static size_t prepare(struct dta_translator *t, struct window *w,
		      const struct dta_report *r, size_t n, struct tally *a)
{
	unsigned nops = 0, nbytes = 0;
	bool pf; /* a window of one has nothing to overlap its miss with */
	size_t i;

	if (n > WIN)
		n = WIN;
	pf = n > 1;
	for (i = 0; i < n; i++) {
		struct prep *p = &w->p[i];
		const struct dta_layout *l;

		p->nops = 0;
		switch (r[i].opcode) {
		case DTA_OP_KEY_WRITE:
			p->s = route_kw(t, &r[i]);
			if (p->s < 0)
				break;
			l = &t->s[p->s].l;
			if (nops + DTA_MAX_REDUNDANCY > WIN_OPS ||
			    nbytes + l->g.kw.slot_size > WIN_BYTES)
				return i; /* i > 0: the window is not empty */
			p->op0 = nops;
			p->nops = dta__kw_ops_fast(l, t->s[p->s].fm,
						   t->s[p->s].vec ?
						   &t->s[p->s].hl : NULL,
						   r[i].u.kw.key,
						   r[i].u.kw.key_len,
						   r[i].u.kw.data,
						   r[i].u.kw.redundancy,
						   w->bytes + nbytes,
						   w->ops + nops);
			if (p->nops < 0) {
				p->ms = p->s;
				p->s = MISMATCH;
				break;
			}
			nops += (unsigned)p->nops;
			nbytes += l->g.kw.slot_size;
			if (pf && t->sink.prefetch)
				prefetch_ops(t, (unsigned)p->s, w->ops + p->op0,
					     p->nops);
			break;
		case DTA_OP_KEY_INCREMENT:
			p->s = route_ki(t, &r[i]);
			if (p->s < 0)
				break;
			if (t->ki) {
				p->idx = key_hash(t, (unsigned)p->s, r[i].u.ki.key,
						  r[i].u.ki.key_len) %
					 t->o.ki_agg_entries;
				if (pf)
					__builtin_prefetch(&t->ki[p->idx], 1);
				break;
			}
			if (nops + DTA_MAX_REDUNDANCY > WIN_OPS)
				return i;
			p->op0 = nops;
			p->nops = dta__ki_ops_fast(&t->s[p->s].l, t->s[p->s].fm,
						   t->s[p->s].vec ?
						   &t->s[p->s].hl : NULL,
						   r[i].u.ki.key,
						   r[i].u.ki.key_len,
						   r[i].u.ki.counter,
						   atomic_load_explicit(&t->s[p->s].ki_bank,
									memory_order_relaxed),
						   w->ops + nops);
			if (p->nops > 0) {
				nops += (unsigned)p->nops;
				if (pf && t->sink.prefetch)
					prefetch_ops(t, (unsigned)p->s,
						     w->ops + p->op0, p->nops);
			}
			break;
		case DTA_OP_POSTCARD:
			p->s = route_pc(t, &r[i], &p->ms);
			if (p->s < 0)
				break;
			p->idx = pc_index(t, (unsigned)p->s, &r[i]);
			if (pf)
				__builtin_prefetch(&t->pc[p->idx], 1);
			break;
		default: /* Append: routed when applied */
			p->s = 0;
			break;
		}
	}
	return i;
}

/* Apply the @n prepared reports of @w in order; return how many were
 * applied, counted by opcode in @a. */
static int apply(struct dta_translator *t, struct window *w,
		 const struct dta_report *r, size_t n, uint64_t now,
		 struct tally *a)
{
	struct ap_list *held = NULL;
	uint64_t by_op = 0; /* 16 bits per opcode: a window has <= WIN reports */
	int done = 0;

	static_assert(WIN < 1 << 16 && DTA_OP_KEY_WRITE == 1 &&
		      DTA_OP_POSTCARD == 4, "opcodes 1..4, 16 bits each");

	for (size_t i = 0; i < n; i++) {
		const struct prep *p = &w->p[i];
		bool imm = r[i].flags & DTA_FLAG_IMMEDIATE;
		int ok = 0;

		if (held && r[i].opcode != DTA_OP_APPEND) {
			unlock(a, &held->lock);
			held = NULL;
		}
		/* The report's slot, where its loss may be counted: not for
		 * Postcarding and aggregated increments (their writes carry
		 * several reporters', counted unattributed), nor Append
		 * (ap_put() takes it, for its own losses only). */
		if (a->lz && (p->s < 0 || r[i].opcode == DTA_OP_KEY_WRITE ||
			      (r[i].opcode == DTA_OP_KEY_INCREMENT && !t->ki)))
			a->slot = a->rslot[i];
		if (p->s == NOWHERE) {
			tally(a, C_UNKNOWN, 1);
			continue;
		}
		if (p->s == MISMATCH) {
			tally(a, C_MISMATCH, 1);
			sloss(t, (unsigned)p->ms, L_MISMATCH, 1);
			if (r[i].opcode == DTA_OP_KEY_WRITE)
				mism(t, (unsigned)p->ms, DTA_OP_KEY_WRITE,
				     r[i].u.kw.data_len, r[i].u.kw.redundancy);
			else
				mism(t, (unsigned)p->ms, DTA_OP_POSTCARD,
				     r[i].u.pc.hop, r[i].u.pc.path_len);
			continue;
		}
		switch (r[i].opcode) {
		case DTA_OP_KEY_INCREMENT:
			if (t->ki) {
				ki_aggregate(t, a, (unsigned)p->s, p->idx, &r[i],
					     now);
				ok = 1;
				break;
			}
			/* direct: as Key-Write */
			__attribute__((fallthrough));
		case DTA_OP_KEY_WRITE: {
			size_t j = i + 1;
			int nops = p->nops;
			bool any = imm;

			/* The next reports' operations follow in w->ops. */
			while (j < n && r[j].opcode == r[i].opcode &&
			       w->p[j].s == p->s &&
			       (unsigned)(nops + w->p[j].nops) <= t->sink.merge_ops &&
			       (!a->lz || a->rslot[j] == a->rslot[i])) {
				bool jm = r[j].flags & DTA_FLAG_IMMEDIATE;

				any |= jm;
				nops += w->p[j].nops;
				by_op += 1ull << (16 * (r[j].opcode - 1));
				if (jm)
					tally(a, C_IMMEDIATE, 1);
				j++;
			}
			mark(a, (unsigned)p->s, any,
			     submit(t, a, (unsigned)p->s, w->ops + p->op0,
				    nops, j - i));
			i = j - 1;
			ok = 1;
			break;
		}
		case DTA_OP_POSTCARD:
			pc_put(t, a, (unsigned)p->s, p->idx, &r[i], now);
			ok = 1;
			break;
		case DTA_OP_APPEND:
			ok = ap_put(t, a, &r[i], now, &held,
				    a->lz ? a->rslot[i] : 0);
			break;
		}
		if (ok) /* opcodes 1..4 only */
			by_op += 1ull << (16 * (r[i].opcode - 1));
		if (ok && imm)
			tally(a, C_IMMEDIATE, 1);
	}
	if (held)
		unlock(a, &held->lock);
	for (unsigned op = 1; op < 5 && by_op; op++, by_op >>= 16) {
		unsigned k = (unsigned)(by_op & 0xffff);

		if (k)
			tally(a, C_R0 + op, k);
		done += (int)k;
	}
	return done;
}

/* Account and apply @n decoded reports. */
static int run_reports(struct dta_translator *t, const struct dta_report *r,
		       size_t n, uint64_t now, struct tally *a)
{
	const uint16_t *rslot = a->rslot;
	struct window w;
	int done = 0;

	tally(a, C_REPORTS_IN, n);
	track_seq(t, r, n, a);
	for (size_t i = 0; i < n;) {
		size_t k = prepare(t, &w, r + i, n - i, a);

		if (rslot)
			a->rslot = rslot + i;
		done += apply(t, &w, r + i, k, now, a);
		i += k;
	}
	a->rslot = rslot;
	return done;
}

static void count_malformed(struct tally *a, int err)
{
	tally(a, C_MALFORMED, 1);
	tally(a, err == -DTA_E_TRUNCATED ? C_MAL_TRUNC
		 : err == -DTA_E_VERSION ? C_MAL_VERSION
		 : err == -DTA_E_OPCODE ? C_MAL_OPCODE
		 : err == -DTA_E_AMBIGUOUS ? C_MAL_AMBIGUOUS
		 : err == -ENOSPC ? C_MAL_TOO_MANY : C_MAL_FIELD, 1);
}

/* The batch; *@err gets the last payload's decoder error (or 0).
 * @slot: each payload's reporter slot, or NULL. */
static int process(struct dta_translator *t, const struct dta_payload *p,
		   const uint16_t *slot, size_t n, uint64_t now, int *err)
{
	struct dta_report r[CHUNK];
	uint16_t rs[CHUNK]; /* reporter slot of each report in r[] */
	struct tally a;
	size_t fill = 0;
	int done = 0;

	static_assert(CHUNK >= DTA_WIRE_REPORTS_MAX, "a payload fits");
	*err = 0;
	tally_init(t, &a, enter(t));
	if (a.lz)
		a.rslot = rs;
	run_begin(t);
	for (size_t i = 0; i < n; i++) {
		int k;

		if (CHUNK - fill < DTA_WIRE_REPORTS_MAX) {
			done += run_reports(t, r, fill, now, &a);
			fill = 0;
		}
		k = dta_wire_decode(p[i].buf, p[i].len, r + fill,
				    DTA_WIRE_REPORTS_MAX, t->o.decode_flags);
		*err = k < 0 ? k : 0;
		if (a.lz) {
			/* Per payload: its reports' slots (a store each). */
			a.slot = slot ? slot[i] : a.un;
			for (int j = 0; j < k; j++)
				rs[fill + (size_t)j] = (uint16_t)a.slot;
		}
		if (k < 0)
			count_malformed(&a, k);
		else
			fill += (size_t)k;
	}
	if (fill)
		done += run_reports(t, r, fill, now, &a);
	notify_run(t, &a);
	run_end(t);
	/* Last: whoever sees the payloads counted sees what they wrote. */
	tally(&a, C_PACKETS, n);
	tally_publish(t, &a);
	leave(t, a.locks);
	return done;
}

DTA_API int dta_translator_process(struct dta_translator *t, const void *buf,
				   size_t len, uint64_t now_ns)
{
	struct dta_payload p = { .buf = buf, .len = len };
	int err, done;

	if (!t)
		return -EINVAL;
	done = process(t, &p, NULL, 1, now_ns, &err);
	return err ? err : done;
}

DTA_API int dta_translator_process_batch(struct dta_translator *t,
					 const struct dta_payload *p, size_t n,
					 uint64_t now_ns)
{
	int err;

	if (!t || (!p && n))
		return -EINVAL;
	return n ? process(t, p, NULL, n, now_ns, &err) : 0;
}

/* Is every one of @n slots in range (or are slots off)? */
static bool slots_ok(const struct dta_translator *t, const uint16_t *slot,
		     size_t n)
{
	if (!t->rl || !slot)
		return true;
	for (size_t i = 0; i < n; i++)
		if (slot[i] >= t->nslots)
			return false;
	return true;
}

DTA_API int dta_translator_process_batch_from(struct dta_translator *t,
					      const struct dta_payload *p,
					      const uint16_t *slot, size_t n,
					      uint64_t now_ns)
{
	int err;

	if (!t || (!p && n) || !slots_ok(t, slot, n))
		return -EINVAL;
	return n ? process(t, p, slot, n, now_ns, &err) : 0;
}

/* Entries of a table of @size to scan now so that the whole table is
 * visited about four times per @timeout. */
static uint64_t scan_quota(uint64_t size, uint64_t elapsed, uint64_t timeout,
			   bool all)
{
	uint64_t q;

	if (all)
		return size;
	q = (uint64_t)((double)size * 4.0 * (double)elapsed / (double)timeout) + 1;
	return q < size ? q : size;
}

static bool has_postcard(const struct dta_translator *t)
{
	for (unsigned s = 0; s < t->nstruct; s++)
		if (t->s[s].l.primitive == DTA_PRIM_POSTCARD)
			return true;
	return false;
}

static int tick(struct dta_translator *t, uint64_t now, bool all, bool locks)
{
	uint64_t last = atomic_exchange(&t->last_tick, now);
	uint64_t elapsed = now > last ? now - last : 0;
	uint64_t q, base;
	struct tally a;
	int issued;

	tally_init(t, &a, locks); /* what times out: unattributed */

	run_begin(t);

	/* Postcarding cache: not scanned without a Postcarding structure
	 * (a scan of the empty cache cost a Key-Write translator 4-11% of its
	 * CPU, at four passes over 32768 entries per timeout). */
	q = has_postcard(t) ? scan_quota(t->o.pc_cache_entries, elapsed,
					 t->o.pc_timeout_ns, all)
			    : 0;
	base = atomic_fetch_add(&t->pc_scan, q);
	for (uint64_t k = 0; k < q; k++) {
		uint64_t idx = (base + k) % t->o.pc_cache_entries;
		struct pc_entry *e = &t->pc[idx], out;
		spin_t *lk = &t->pc_lock[idx % STRIPES];

		if (!e->key_len) /* racy peek; re-checked under the lock */
			continue;
		lock(&a, lk);
		if (!e->key_len ||
		    (!all && now - e->since < t->o.pc_timeout_ns)) {
			unlock(&a, lk);
			continue;
		}
		out = *e;
		if (e->by_ttl && e->dirty && !all) {
			/* Written; kept one more timeout as the anchor of
			 * the flow's postcards still on their way. */
			e->dirty = 0;
			e->since = now;
		} else {
			e->key_len = 0;
		}
		unlock(&a, lk);
		if (out.by_ttl && !out.dirty)
			continue; /* written already: only the anchor goes */
		pc_emit(t, &a, &out, pc_complete(&t->s[out.structure].l, &out)
					 ? C_PC_EMIT : C_PC_TIMEOUT);
	}

	/* Key-Increment aggregation. */
	if (t->ki) {
		q = scan_quota(t->o.ki_agg_entries, elapsed, t->o.ki_window_ns,
			       all);
		base = atomic_fetch_add(&t->ki_scan, q);
		for (uint64_t k = 0; k < q; k++) {
			uint64_t idx = (base + k) % t->o.ki_agg_entries;
			struct ki_entry *e = &t->ki[idx], out;
			spin_t *lk = &t->ki_lock[idx % STRIPES];

			if (!e->key_len)
				continue;
			lock(&a, lk);
			if (!e->key_len ||
			    (!all && now - e->since < t->o.ki_window_ns)) {
				unlock(&a, lk);
				continue;
			}
			out = *e;
			e->key_len = 0;
			unlock(&a, lk);
			ki_issue(t, &a, out.structure, out.key, out.key_len, out.sum,
				 out.reports, out.notify);
		}
	}

	/* Append partial batches. */
	for (unsigned s = 0; s < t->nstruct; s++) {
		struct tr_struct *ts = &t->s[s];

		if (ts->l.primitive != DTA_PRIM_APPEND)
			continue;
		for (uint32_t j = 0; j < ts->l.g.ap.lists; j++) {
			struct ap_list *al = &ts->lists[j];

			if (!al->count)
				continue;
			lock(&a, &al->lock);
			if (al->count &&
			    (all || now - al->since >= t->o.ap_timeout_ns))
				ap_write(t, &a, s, j, al);
			unlock(&a, &al->lock);
		}
	}
	notify_run(t, &a);
	run_end(t);
	issued = (int)((a.touched & 1ull << C_OPS_W ? a.c[C_OPS_W] : 0) +
		       (a.touched & 1ull << C_OPS_FA ? a.c[C_OPS_FA] : 0));
	tally_publish(t, &a);
	return issued;
}

DTA_API int dta_translator_tick(struct dta_translator *t, uint64_t now_ns)
{
	bool locks;
	int n;

	if (!t)
		return -EINVAL;
	locks = enter(t);
	n = tick(t, now_ns, false, locks);
	leave(t, locks);
	return n;
}

DTA_API int dta_translator_flush(struct dta_translator *t)
{
	bool locks;

	if (!t)
		return -EINVAL;
	locks = enter(t);
	tick(t, atomic_load(&t->last_tick), true, locks);
	settle_seq(t, locks);
	settle_int_seq(t, locks);
	leave(t, locks);
	return t->sink.flush ? t->sink.flush(t->sink.ctx) : 0;
}

DTA_API int dta_translator_count_input(struct dta_translator *t,
				       unsigned cause, uint64_t n)
{
	static const unsigned c[] = {
		[DTA_INPUT_SOCKET_DROP] = C_SOCKET_DROP,
		[DTA_INPUT_TRUNCATED] = C_RX_TRUNC,
		[DTA_INPUT_REFUSED_SOURCE] = C_REFUSED_SOURCE,
	};

	if (!t || cause < DTA_INPUT_SOCKET_DROP ||
	    cause > DTA_INPUT_REFUSED_SOURCE)
		return -EINVAL;
	count(t, c[cause], n);
	if (t->rl) /* so that the slots still add up: unattributed */
		atomic_fetch_add_explicit(&t->rl[(size_t)t->nslots * L_COUNT +
						 loss_index[c[cause]]],
					  n, memory_order_relaxed);
	return 0;
}

DTA_API int dta_translator_count_input_from(struct dta_translator *t,
					    unsigned cause, unsigned slot,
					    uint64_t n)
{
	static const unsigned char l[] = {
		[DTA_INPUT_SOCKET_DROP] = L_SOCKET_DROP,
		[DTA_INPUT_TRUNCATED] = L_RX_TRUNC,
		[DTA_INPUT_REFUSED_SOURCE] = L_REFUSED_SOURCE,
	};

	if (!t || cause < DTA_INPUT_SOCKET_DROP ||
	    cause > DTA_INPUT_REFUSED_SOURCE || (t->rl && slot > t->nslots))
		return -EINVAL;
	count(t, loss_c[l[cause]], n);
	if (t->rl)
		atomic_fetch_add_explicit(&t->rl[(size_t)slot * L_COUNT +
						 l[cause]],
					  n, memory_order_relaxed);
	return 0;
}

DTA_API int dta_translator_set_reporter_slots(struct dta_translator *t,
					      unsigned n)
{
	if (!t || n > DTA_REPORTER_SLOTS_MAX)
		return -EINVAL;
	if (t->rl)
		return -EBUSY;
	if (!n)
		return 0;
	t->seq_slot = malloc(65536 * sizeof(*t->seq_slot));
	t->rl = calloc(((size_t)n + 1) * L_COUNT, sizeof(*t->rl));
	if (!t->seq_slot || !t->rl) {
		free(t->seq_slot);
		free((void *)t->rl);
		t->seq_slot = NULL;
		t->rl = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < 65536; i++)
		t->seq_slot[i] = (uint16_t)n;
	for (unsigned i = 0; i < DTA_INT_REPORTERS_MAX; i++)
		t->iseq[i].slot = (uint16_t)n;
	t->nslots = n;
	return 0;
}

static void losses_out(_Atomic const uint64_t *c,
		       struct dta_translator_losses *out)
{
	uint64_t *o = (uint64_t *)out;

	for (unsigned l = 0; l < L_COUNT; l++)
		o[l] = atomic_load_explicit(&c[l], memory_order_relaxed);
}

DTA_API int dta_translator_reporter_losses(const struct dta_translator *t,
					   unsigned slot,
					   struct dta_translator_losses *out)
{
	if (!t || !out || !t->rl || slot > t->nslots)
		return -EINVAL;
	losses_out(t->rl + (size_t)slot * L_COUNT, out);
	return 0;
}

DTA_API int dta_translator_structure_losses(const struct dta_translator *t,
					    unsigned structure,
					    struct dta_translator_losses *out)
{
	if (!t || !out || structure >= t->nstruct)
		return -EINVAL;
	losses_out(t->sl[structure], out);
	return 0;
}

DTA_API int dta_translator_last_mismatch(const struct dta_translator *t,
					 unsigned structure,
					 struct dta_translator_mismatch *out)
{
	uint64_t w;

	if (!t || !out || structure >= t->nstruct)
		return -EINVAL;
	w = atomic_load_explicit(&t->last_mm[structure], memory_order_relaxed);
	out->opcode = (unsigned)(w >> 56);
	out->received = (uint32_t)(w >> 32) & 0xffffff;
	out->detail = (uint32_t)w;
	return out->opcode ? 1 : 0;
}

DTA_API void dta_translator_stats(const struct dta_translator *t,
				  struct dta_translator_stats *st)
{
	uint64_t *p = (uint64_t *)st;

	if (!t || !st)
		return;
	for (unsigned i = 0; i < C_COUNT; i++)
		p[i] = counter(t, i);
}

/* ---- INT telemetry reports (docs/int.md "Mapping") ---- */

static_assert(DTA_INT_REPORTERS_MAX > 0 &&
	      (DTA_INT_REPORTERS_MAX & (DTA_INT_REPORTERS_MAX - 1)) == 0,
	      "reporter table size is a power of two");
static_assert(13 + 4 <= DTA_KEY_MAX && 37 + 4 <= DTA_KEY_MAX,
	      "flow key + switch id fits a key");

/* The event entry as it lies in an Append list (big-endian fields). */
struct int_event_wire {
	uint32_t switch_id;
	uint16_t ingress_port;
	uint16_t egress_port;
	uint8_t flags;
	uint8_t queue_id;
	uint8_t drop_reason;
	uint8_t version;
	uint32_t queue_occupancy;
	uint32_t flow_hash;
	uint32_t hop_latency;
	uint64_t time;
};
static_assert(sizeof(struct int_event_wire) == DTA_INT_EVENT_SIZE,
	      "event entry layout");
static_assert(offsetof(struct int_event_wire, time) == 24,
	      "event entry layout");

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

DTA_API void dta_int_map_init(struct dta_int_map *m)
{
	if (!m)
		return;
	memset(m, 0, sizeof(*m));
	m->sz = sizeof(*m);
	m->path_kw = m->path_pc = m->hop_kw = DTA_INT_MAP_NONE;
	m->events_ap = m->flow_ki = m->queue_ki = DTA_INT_MAP_NONE;
	m->events_by = DTA_INT_EVENTS_ONE;
}

DTA_API int dta_int_event_decode(const void *buf, struct dta_int_event *ev)
{
	const uint8_t *p = buf;

	if (!buf || !ev)
		return -EINVAL;
	ev->switch_id = get_be32(p);
	ev->ingress_port = (uint16_t)(p[4] << 8 | p[5]);
	ev->egress_port = (uint16_t)(p[6] << 8 | p[7]);
	ev->flags = p[8];
	ev->queue_id = p[9];
	ev->drop_reason = p[10];
	ev->version = p[11];
	ev->queue_occupancy = get_be32(p + 12);
	ev->flow_hash = get_be32(p + 16);
	ev->hop_latency = get_be32(p + 20);
	ev->time = (uint64_t)get_be32(p + 24) << 32 | get_be32(p + 28);
	return 0;
}

DTA_API int dta_int_hop_decode(const void *buf, struct dta_int_hop *h)
{
	const uint8_t *p = buf;

	if (!buf || !h)
		return -EINVAL;
	h->hop_latency = get_be32(p);
	h->queue_occupancy = get_be32(p + 4);
	h->egress_ts = (uint64_t)get_be32(p + 8) << 32 | get_be32(p + 12);
	return 0;
}

DTA_API size_t dta_int_flow_key(const struct dta_int_flow *f, uint8_t *key)
{
	size_t a;

	if (!f || !key || (f->family != 4 && f->family != 6))
		return 0;
	a = f->family == 4 ? 4 : 16; /* docs/keys.md 5-tuple forms */
	memcpy(key, f->src, a);
	memcpy(key + a, f->dst, a);
	put_be16(key + 2 * a, f->sport);
	put_be16(key + 2 * a + 2, f->dport);
	key[2 * a + 4] = f->proto;
	return 2 * a + 5;
}

/* Whether role @idx names a usable first share with @prim. */
static int int_role(const struct dta_translator *t, int idx, int prim)
{
	if (idx == DTA_INT_MAP_NONE)
		return 0;
	if (idx < 0 || (unsigned)idx >= t->nstruct || t->s[idx].shard)
		return -EINVAL;
	return t->s[idx].l.primitive == prim ? 0 : -DTA_E_PRIMITIVE;
}

DTA_API int dta_translator_set_int_map(struct dta_translator *t,
				       const struct dta_int_map *m)
{
	struct dta_int_map c;
	int err;

	if (!t || !m || m->sz < offsetof(struct dta_int_map, decode))
		return -EINVAL;
	dta_int_map_init(&c);
	memcpy(&c, m, m->sz < sizeof(c) ? m->sz : sizeof(c));
	c.sz = sizeof(c);
	if (c.events_by > DTA_INT_EVENTS_REASON ||
	    c.pc_order > DTA_INT_PC_ABSOLUTE ||
	    c.redundancy > DTA_MAX_REDUNDANCY ||
	    (c.decode.sz && c.decode.sz < sizeof(struct dta_int_opts)))
		return -EINVAL;
	if ((err = int_role(t, c.path_kw, DTA_PRIM_KEY_WRITE)) ||
	    (err = int_role(t, c.path_pc, DTA_PRIM_POSTCARD)) ||
	    (err = int_role(t, c.hop_kw, DTA_PRIM_KEY_WRITE)) ||
	    (err = int_role(t, c.events_ap, DTA_PRIM_APPEND)) ||
	    (err = int_role(t, c.flow_ki, DTA_PRIM_KEY_INCREMENT)) ||
	    (err = int_role(t, c.queue_ki, DTA_PRIM_KEY_INCREMENT)))
		return err;
	if (c.path_kw >= 0 && t->s[c.path_kw].l.g.kw.data_len % 4)
		return -DTA_E_MISMATCH;
	if (c.hop_kw >= 0 &&
	    t->s[c.hop_kw].l.g.kw.data_len < DTA_INT_HOP_DATA_LEN)
		return -DTA_E_MISMATCH;
	if (c.events_ap >= 0 &&
	    t->s[c.events_ap].l.g.ap.entry_size != DTA_INT_EVENT_SIZE)
		return -DTA_E_MISMATCH;
	if (c.redundancy) {
		if ((c.path_kw >= 0 &&
		     c.redundancy > t->s[c.path_kw].l.g.kw.max_redundancy) ||
		    (c.hop_kw >= 0 &&
		     c.redundancy > t->s[c.hop_kw].l.g.kw.max_redundancy))
			return -EINVAL;
	}
	t->im = c;
	t->has_int_map = true;
	return 0;
}

/* ---- INT: sequence accounting ---- */

/* The reporter entry of (@ver, @node, @hw), inserted if new; NULL when
 * the table is full. Called with iseq_lock held. */
static struct int_reporter *int_reporter(struct dta_translator *t,
					 uint8_t ver, uint32_t node,
					 uint8_t hw)
{
	uint64_t h = ((uint64_t)node << 8 | (uint64_t)hw << 2 | ver) *
		     0x9E3779B97F4A7C15ull;

	for (unsigned k = 0; k < DTA_INT_REPORTERS_MAX; k++) {
		struct int_reporter *e =
			&t->iseq[((h >> 40) + k) & (DTA_INT_REPORTERS_MAX - 1)];

		if (!e->used) {
			e->used = true;
			e->node = node;
			e->hw_id = hw;
			e->version = ver;
			return e;
		}
		if (e->node == node && e->hw_id == hw && e->version == ver)
			return e;
	}
	return NULL;
}

/*
 * One datagram's sequence number (a v2.0 group's reports share it). The
 * DTA v1 rule (seq_one) applies per reporter; v2.0's 22-bit numbers are
 * first placed in 32 bits nearest the reporter's position, so the rule's
 * modulo-2^32 arithmetic sees a wrap as a step.
 */
static void int_seq(struct dta_translator *t, struct tally *a,
		    const struct dta_int_report *r)
{
	static const unsigned from[] = { C_SEQ_LOST, C_SEQ_LATE, C_SEQ_DUP,
					 C_SEQ_JUMP, C_SEQ_RESTART,
					 C_SEQ_SUSPECT };
	static const unsigned to[] = { C_INT_SEQ_LOST, C_INT_SEQ_LATE,
				       C_INT_SEQ_DUP, C_INT_SEQ_JUMP,
				       C_INT_SEQ_RESTART, C_INT_SEQ_SUSPECT };
	struct tally b = { .touched = 0 };
	struct int_reporter *e;
	uint64_t skipped = 0;
	uint32_t seq = r->seq;

	lock(a, &t->iseq_lock);
	e = int_reporter(t, r->version, r->node_id, r->hw_id);
	if (!e) {
		unlock(a, &t->iseq_lock);
		tally(a, C_INT_SEQ_UNTRACKED, 1);
		return;
	}
	e->slot = (uint16_t)a->slot;
	if (r->version == DTA_INT_V2_0 && (e->q.f & SQ_KNOWN)) {
		uint32_t d = (seq - e->q.next) & 0x3FFFFF;

		/* sign-extend the 22-bit distance */
		seq = e->q.next + (d & 0x200000 ? d | 0xFFC00000u : d);
	}
	seq_one(&e->q, seq, &b, &skipped);
	unlock(a, &t->iseq_lock);
	if (skipped)
		tally(a, C_INT_SEQ_SKIPPED, skipped);
	for (unsigned i = 0; i < sizeof(from) / sizeof(from[0]); i++)
		if (b.touched & 1ull << from[i])
			tally(a, to[i], b.c[from[i]]);
}

static void settle_int_seq(struct dta_translator *t, bool locks)
{
	const struct tally lk_only = { .locks = locks }, *a = &lk_only;
	uint64_t lost = 0, suspect = 0;

	if (!t->iseq)
		return;
	lock(a, &t->iseq_lock);
	for (unsigned i = 0; i < DTA_INT_REPORTERS_MAX; i++) {
		struct seq_state *q = &t->iseq[i].q;

		unsigned k;

		if (!t->iseq[i].used || !(q->f & SQ_KNOWN))
			continue;
		k = SEQ_W - (unsigned)__builtin_popcountll(q->seen);
		lost += k;
		if (t->rl && k)
			atomic_fetch_add_explicit(
				&t->rl[(size_t)t->iseq[i].slot * L_COUNT +
				       L_INT_SEQ_LOST], k, memory_order_relaxed);
		q->seen = ~0ull;
		suspect += !!(q->f & SQ_CAND) + !!(q->f & SQ_PREV);
		q->f = SQ_KNOWN;
	}
	unlock(a, &t->iseq_lock);
	count(t, C_INT_SEQ_LOST, lost);
	count(t, C_INT_SEQ_SUSPECT, suspect);
}

/* ---- INT: structure updates; each returns 1 if issued ---- */

/*
 * Key-Write and direct Key-Increment updates of INT reports are not
 * submitted at once: their operations are computed, their destinations
 * prefetched, and the operations queued here, then submitted in order when
 * the queue is full and at the end of a process_int() call. An INT-MD
 * report with every role mapped makes a dozen updates to structures far
 * larger than the caches; queued, their misses overlap instead of being
 * paid one after another (the DTA batch path's window, "a batch of
 * reports" above, does the same for DTA reports). Each structure's
 * operations keep their order, and Postcarding and Append updates go to
 * other structures, so memory ends as if each update had been submitted
 * at once.
 */
struct int_win {
	unsigned n, nops, nbytes;
	struct {
		unsigned s, op0, slot;
		int nops;
	} e[WIN];
	struct dta_memop ops[WIN_OPS];
	uint8_t bytes[WIN_BYTES]; /* Key-Write slot images the ops point into */
};

static void int_win_flush(struct dta_translator *t, struct tally *a,
			  struct int_win *w)
{
	unsigned slot = a->slot;

	for (unsigned i = 0; i < w->n; i++) {
		a->slot = w->e[i].slot; /* the datagram's that made it */
		submit(t, a, w->e[i].s, w->ops + w->e[i].op0, w->e[i].nops, 1);
	}
	a->slot = slot;
	w->n = w->nops = w->nbytes = 0;
}

/* Room for one more update of up to @bytes slot bytes, flushing if not. */
static void int_win_room(struct dta_translator *t, struct tally *a,
			 struct int_win *w, unsigned bytes)
{
	if (w->n == WIN || w->nops + DTA_MAX_REDUNDANCY > WIN_OPS ||
	    w->nbytes + bytes > WIN_BYTES)
		int_win_flush(t, a, w);
}

/* Queue the @n operations just computed at w->ops + w->nops. */
static void int_win_add(struct dta_translator *t, const struct tally *a,
			struct int_win *w, unsigned s, int n, unsigned bytes)
{
	if (t->sink.prefetch)
		prefetch_ops(t, s, w->ops + w->nops, n);
	w->e[w->n].s = s;
	w->e[w->n].slot = a->slot;
	w->e[w->n].op0 = w->nops;
	w->e[w->n].nops = n;
	w->n++;
	w->nops += (unsigned)n;
	w->nbytes += bytes;
}

static int int_kw(struct dta_translator *t, struct tally *a,
		  struct int_win *w, int s0, const uint8_t *key, size_t klen,
		  const uint8_t *data)
{
	unsigned s = (unsigned)s0 +
		     dta_shard(key, klen, t->s[s0].nshards);
	const struct dta_layout *l = &t->s[s].l;
	unsigned red = t->im.redundancy ? t->im.redundancy
					: l->g.kw.max_redundancy;
	int n;

	int_win_room(t, a, w, l->g.kw.slot_size);
	n = dta_kw_ops(l, key, klen, data, l->g.kw.data_len, red,
		       w->bytes + w->nbytes, WIN_BYTES - w->nbytes,
		       w->ops + w->nops, DTA_MAX_REDUNDANCY);
	if (n < 0) {
		tally(a, C_INT_MISMATCH, 1);
		sloss(t, s, L_INT_MISMATCH, 1);
		return 0;
	}
	int_win_add(t, a, w, s, n, l->g.kw.slot_size);
	return 1;
}

static int int_pc(struct dta_translator *t, struct tally *a, int s0,
		  const uint8_t *key, size_t klen, unsigned hop,
		  unsigned path_len, uint32_t value, uint64_t now)
{
	struct dta_report r = { .opcode = DTA_OP_POSTCARD };
	unsigned s = (unsigned)s0 + dta_shard(key, klen, t->s[s0].nshards);

	if (hop >= t->s[s].l.g.pc.hops) {
		tally(a, C_INT_MISMATCH, 1);
		sloss(t, s, L_INT_MISMATCH, 1);
		return 0;
	}
	r.u.pc.hop = (uint8_t)hop;
	r.u.pc.path_len = (uint8_t)path_len;
	r.u.pc.key_len = (uint8_t)klen;
	r.u.pc.key = key;
	r.u.pc.value = value;
	pc_put(t, a, s, pc_index(t, s, &r), &r, now);
	return 1;
}

/* A postcard-style report placed by falling TTL (DTA_INT_PC_BY_TTL). */
static int int_pc_ttl(struct dta_translator *t, struct tally *a, int s0,
		      const uint8_t *key, size_t klen, uint8_t ttl,
		      uint32_t value, uint64_t now)
{
	unsigned s = (unsigned)s0 + dta_shard(key, klen, t->s[s0].nshards);

	if (!pc_put_ttl(t, a, s, key_hash(t, s, key, klen) %
					 t->o.pc_cache_entries,
			key, klen, ttl, value, now)) {
		/* More hops below the highest TTL than the structure has:
		 * the same cause as a hop index at or past B. */
		tally(a, C_INT_MISMATCH, 1);
		sloss(t, s, L_INT_MISMATCH, 1);
		return 0;
	}
	return 1;
}

static int int_ki(struct dta_translator *t, struct tally *a,
		  struct int_win *w, int s0, const uint8_t *key, size_t klen,
		  uint64_t now)
{
	unsigned s = (unsigned)s0 + dta_shard(key, klen, t->s[s0].nshards);
	struct dta_report r = { .opcode = DTA_OP_KEY_INCREMENT };

	if (!t->ki) {
		int n;

		int_win_room(t, a, w, 0);
		n = dta_ki_ops(&t->s[s].l, key, klen, 1,
			       atomic_load_explicit(&t->s[s].ki_bank,
						    memory_order_relaxed),
			       w->ops + w->nops, DTA_MAX_REDUNDANCY);
		if (n > 0)
			int_win_add(t, a, w, s, n, 0);
		return 1;
	}
	r.u.ki.key_len = (uint8_t)klen;
	r.u.ki.key = key;
	r.u.ki.counter = 1;
	ki_aggregate(t, a, s,
		     key_hash(t, s, key, klen) % t->o.ki_agg_entries, &r, now);
	return 1;
}

static int int_ap(struct dta_translator *t, struct tally *a, int s,
		  uint32_t list, const uint8_t *entry, uint64_t now)
{
	struct dta_report r = { .opcode = DTA_OP_APPEND };
	struct ap_list *held = NULL;
	/* No slots in @b: what it counts is added to @a below. */
	struct tally b = { .touched = 0, .locks = a->locks, .int_ap = true };
	unsigned slot = a->slot;
	int ok;

	r.u.ap.list_id = t->s[s].list_base + list;
	r.u.ap.data_len = DTA_INT_EVENT_SIZE;
	r.u.ap.data = entry;
	/* ap_put counts a refused entry as the DTA counters do: move those
	 * to the INT ones. */
	ok = ap_put(t, &b, &r, now, &held, a->slot);
	if (held)
		unlock(a, &held->lock);
	if (b.touched & (1ull << C_MISMATCH | 1ull << C_UNKNOWN)) {
		b.touched &= ~(1ull << C_MISMATCH | 1ull << C_UNKNOWN);
		tally(a, C_INT_MISMATCH, 1);
		sloss(t, (unsigned)s, L_INT_MISMATCH, 1);
	}
	/* The rest is ap_write()'s, of a batch: unattributed. */
	a->slot = a->un;
	for (uint64_t m = b.touched; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);

		tally(a, c, b.c[c]);
	}
	a->slot = slot;
	a->notify |= b.notify; /* a batch with a DTA report's flag in it */
	return ok;
}

/* ---- INT: one report ---- */

#define ALL32 0xFFFFFFFFu

/*
 * Whether a report's header metadata is the INT-MD sink's own, to follow
 * its stack as the path's last hop. INT.mdk v2.1 lets the sink add its
 * local metadata either to the stack (as transit nodes do) or to the v2.0
 * report's Variable Optional Baseline Metadata. A v2.0 INT report (RepType
 * 1) whose RepMdBits select any metadata is the second way; unless the
 * stack's newest hop already is the reporting node (its Node ID equal to
 * the group's), which means the sink pushed onto the stack and the header
 * repeats it. v0.5/v1.0 report headers always carry a switch id and some
 * metadata, with no such option in their specifications: not added.
 */
static bool int_sink_in_header(const struct dta_int_report *r)
{
	const struct dta_int_md *top = &r->hops[0];

	return r->has_int_md && r->version == DTA_INT_V2_0 &&
	       r->rep_type == DTA_INT_REPTYPE_INT && r->rep_md_bits &&
	       !(r->n_hops && (top->present & DTA_INT_MD_SWITCH_ID) &&
		 top->switch_id == r->node_id);
}

/* The hops a report describes, path order: an INT-MD stack reversed
 * (hops[] is newest first), followed by the sink's header metadata when
 * int_sink_in_header() (alone when the stack is empty: a one-hop path);
 * or the reporting node alone, no path. */
static unsigned int_hops(const struct dta_int_report *r,
			 const struct dta_int_md **h, bool *stack)
{
	unsigned n = r->n_hops;

	*stack = r->has_int_md && (r->n_hops || int_sink_in_header(r));
	if (!*stack) {
		h[0] = &r->local;
		return 1;
	}
	for (unsigned i = 0; i < n; i++)
		h[i] = &r->hops[n - 1 - i];
	if (int_sink_in_header(r))
		h[n++] = &r->local;
	return n;
}

static void int_event(const struct dta_int_report *r, const uint8_t *key,
		      size_t klen, uint8_t *e)
{
	const struct dta_int_md *m = &r->local;
	uint64_t time = 0;

	memset(e, 0xFF, DTA_INT_EVENT_SIZE);
	put_be32(e, m->present & DTA_INT_MD_SWITCH_ID ? m->switch_id : ALL32);
	if (m->present & DTA_INT_MD_PORTS) {
		put_be16(e + 4, m->ingress_port);
		put_be16(e + 6, m->egress_port);
	}
	e[8] = r->flags & (DTA_INT_F_DROPPED | DTA_INT_F_CONGESTED);
	if (m->present & DTA_INT_MD_QUEUE)
		e[9] = m->queue_id;
	else if (m->present & DTA_INT_MD_DROP)
		e[9] = m->drop_queue_id;
	if (m->present & DTA_INT_MD_DROP)
		e[10] = m->drop_reason;
	e[11] = r->version;
	if (m->present & DTA_INT_MD_QUEUE)
		put_be32(e + 12, m->queue_occupancy);
	put_be32(e + 16, klen ? dta_crc32c(0, key, klen) : 0);
	if (m->present & DTA_INT_MD_HOP_LATENCY)
		put_be32(e + 20, m->hop_latency);
	if (m->present & DTA_INT_MD_EGRESS_TS)
		time = m->egress_ts;
	else if (m->present & DTA_INT_MD_INGRESS_TS)
		time = m->ingress_ts;
	put_be64(e + 24, time);
}

/* Apply report @r through the map; return the updates issued. */
static unsigned int_apply(struct dta_translator *t, struct tally *a,
			  struct int_win *w, const struct dta_int_report *r,
			  uint64_t now)
{
	const struct dta_int_map *m = &t->im;
	const struct dta_int_md *h[DTA_INT_HOPS_MAX + 1];
	uint8_t key[DTA_KEY_MAX], hkey[DTA_KEY_MAX];
	uint8_t data[DTA_DATA_MAX];
	size_t klen = dta_int_flow_key(&r->flow, key);
	bool stack;
	unsigned nh = int_hops(r, h, &stack), u = 0;

	/* Path tracing. */
	if (klen && stack && m->path_kw >= 0) {
		unsigned cap = t->s[m->path_kw].l.g.kw.data_len / 4;

		if (nh > cap)
			tally(a, C_INT_PATH_TRUNC, 1);
		memset(data, 0xFF, cap * 4u);
		for (unsigned i = 0; i < nh && i < cap; i++)
			if (h[i]->present & DTA_INT_MD_SWITCH_ID)
				put_be32(data + 4 * i, h[i]->switch_id);
		u += (unsigned)int_kw(t, a, w, m->path_kw, key, klen, data);
	} else if (klen && stack && m->path_pc >= 0) {
		unsigned b = t->s[m->path_pc].l.g.pc.hops;
		unsigned len = nh < b ? nh : b;

		if (nh > b)
			tally(a, C_INT_PATH_TRUNC, 1);
		for (unsigned i = 0; i < len; i++)
			u += (unsigned)int_pc(
				t, a, m->path_pc, key, klen, i, len,
				h[i]->present & DTA_INT_MD_SWITCH_ID
					? h[i]->switch_id : ALL32, now);
	} else if (klen && !stack && m->path_pc >= 0 &&
		   m->pc_order == DTA_INT_PC_BY_TTL && r->flow.family &&
		   (r->local.present & DTA_INT_MD_SWITCH_ID)) {
		/* A drop or congestion report of a flow nobody tracks (D or
		 * Q without F) is an event, not a postcard of the path: it
		 * would anchor hop 0 at whatever switch saw the event. */
		if ((r->flags & DTA_INT_F_TRACKED) ||
		    !(r->flags & (DTA_INT_F_DROPPED | DTA_INT_F_CONGESTED)))
			u += (unsigned)int_pc_ttl(t, a, m->path_pc, key, klen,
						  r->ttl, r->local.switch_id,
						  now);
	} else if (klen && !stack && m->path_pc >= 0 &&
		   r->hop_index != DTA_INT_HOP_UNKNOWN &&
		   (r->local.present & DTA_INT_MD_SWITCH_ID)) {
		u += (unsigned)int_pc(t, a, m->path_pc, key, klen, r->hop_index,
				      0, r->local.switch_id, now);
	}

	/* Per-hop measurements, keyed by flow + switch id. */
	if (klen && m->hop_kw >= 0) {
		unsigned dl = t->s[m->hop_kw].l.g.kw.data_len;

		for (unsigned i = 0; i < nh; i++) {
			const struct dta_int_md *x = h[i];

			if (!(x->present & DTA_INT_MD_SWITCH_ID) ||
			    !(x->present & (DTA_INT_MD_HOP_LATENCY |
					    DTA_INT_MD_QUEUE |
					    DTA_INT_MD_EGRESS_TS)))
				continue;
			memset(data, 0, dl);
			memset(data, 0xFF, DTA_INT_HOP_DATA_LEN);
			if (x->present & DTA_INT_MD_HOP_LATENCY)
				put_be32(data, x->hop_latency);
			if (x->present & DTA_INT_MD_QUEUE)
				put_be32(data + 4, x->queue_occupancy);
			if (x->present & DTA_INT_MD_EGRESS_TS)
				put_be64(data + 8, x->egress_ts);
			memcpy(hkey, key, klen);
			put_be32(hkey + klen, x->switch_id);
			u += (unsigned)int_kw(t, a, w, m->hop_kw, hkey, klen + 4,
					      data);
		}
	}

	/* Drop and congestion events. */
	if (m->events_ap >= 0 &&
	    (r->flags & (DTA_INT_F_DROPPED | DTA_INT_F_CONGESTED))) {
		uint8_t e[DTA_INT_EVENT_SIZE];
		uint32_t lists = t->s[m->events_ap].l.g.ap.lists, list = 0;

		int_event(r, key, klen, e);
		if (m->events_by == DTA_INT_EVENTS_SWITCH)
			list = get_be32(e) % lists;
		else if (m->events_by == DTA_INT_EVENTS_REASON)
			list = (r->local.present & DTA_INT_MD_DROP
					? r->local.drop_reason : 0) % lists;
		u += (unsigned)int_ap(t, a, m->events_ap, list, e, now);
	}

	/* Counters. */
	if (klen && m->flow_ki >= 0)
		u += (unsigned)int_ki(t, a, w, m->flow_ki, key, klen, now);
	if (m->queue_ki >= 0) {
		for (unsigned i = 0; i < nh; i++) {
			const struct dta_int_md *x = h[i];
			uint8_t q[5];

			if (!(x->present & DTA_INT_MD_SWITCH_ID))
				continue;
			if (x->present & DTA_INT_MD_QUEUE)
				q[4] = x->queue_id;
			else if (x->present & DTA_INT_MD_DROP)
				q[4] = x->drop_queue_id;
			else
				continue;
			put_be32(q, x->switch_id);
			u += (unsigned)int_ki(t, a, w, m->queue_ki, q, 5, now);
		}
	}
	return u;
}

static void count_int_malformed(struct tally *a, int err)
{
	tally(a, C_INT_MAL, 1);
	tally(a, err == -DTA_E_TRUNCATED ? C_INT_MAL_TRUNC
		 : err == -DTA_E_VERSION ? C_INT_MAL_VERSION
		 : err == -DTA_E_INT_UNSUPPORTED ? C_INT_MAL_UNSUP
		 : err == -DTA_E_INT_LENGTH ? C_INT_MAL_LENGTH
		 : err == -DTA_E_INT_HOPS ? C_INT_MAL_HOPS : C_INT_MAL_OTHER,
	      1);
}

/* Reports decoded on the stack; a datagram with more (v2.0 groups) takes
 * a heap array of DTA_INT_REPORTS_MAX. */
#define INT_STACK 16

static int process_int(struct dta_translator *t, const struct dta_payload *p,
		       const uint16_t *slot, size_t n, uint64_t now, int *err)
{
	struct dta_int_report rs[INT_STACK], *big = NULL;
	struct int_win w;
	struct dta_int_opts oo = { .sz = sizeof(oo), .dscp_mask = 0x01,
				   .dscp_value = 0x01 };
	const struct dta_int_opts *o = &oo;
	struct tally a;
	int done = 0;

	/* A report that cannot be read is refused alone where the format
	 * frames it, so its datagram's others apply and its sequence number
	 * still counts (no false gap). */
	if (t->im.decode.sz)
		oo = t->im.decode;
	oo.separate = true;
	*err = 0;
	w.n = w.nops = w.nbytes = 0;
	tally_init(t, &a, enter(t));
	run_begin(t);
	for (size_t i = 0; i < n; i++) {
		struct dta_int_report *r = rs;

		if (a.lz)
			a.slot = slot ? slot[i] : a.un;
		int k = dta_int_decode(p[i].buf, p[i].len, o, rs, INT_STACK);

		if (k == -DTA_E_INT_TOOMANY) {
			if (!big)
				big = malloc(DTA_INT_REPORTS_MAX * sizeof(*big));
			k = big ? dta_int_decode(p[i].buf, p[i].len, o, big,
						 DTA_INT_REPORTS_MAX)
				: -ENOMEM;
			r = big;
		}
		*err = k < 0 ? k : 0;
		if (k < 0) {
			count_int_malformed(&a, k);
			continue;
		}
		int_seq(t, &a, &r[0]); /* one number per datagram */
		for (int j = 0; j < k; j++) {
			if (r[j].error) {
				count_int_malformed(&a, r[j].error);
				*err = r[j].error;
				continue;
			}
			tally(&a, C_INT_IN, 1);

			unsigned u = t->has_int_map
					     ? int_apply(t, &a, &w, &r[j], now)
					     : 0;

			tally(&a, u ? C_INT_APPLIED : C_INT_UNMAPPED, 1);
			tally(&a, C_INT_UPDATES, u);
			done += !!u;
		}
	}
	int_win_flush(t, &a, &w);
	notify_run(t, &a);
	run_end(t);
	tally(&a, C_INT_DGRAMS, n);
	tally_publish(t, &a);
	leave(t, a.locks);
	free(big);
	return done;
}

DTA_API int dta_translator_process_int(struct dta_translator *t,
				       const void *buf, size_t len,
				       uint64_t now_ns)
{
	struct dta_payload p = { .buf = buf, .len = len };
	int err, done;

	if (!t)
		return -EINVAL;
	done = process_int(t, &p, NULL, 1, now_ns, &err);
	return err ? err : done;
}

DTA_API int dta_translator_process_int_batch(struct dta_translator *t,
					     const struct dta_payload *p,
					     size_t n, uint64_t now_ns)
{
	int err;

	if (!t || (!p && n))
		return -EINVAL;
	return n ? process_int(t, p, NULL, n, now_ns, &err) : 0;
}

DTA_API int dta_translator_process_int_batch_from(struct dta_translator *t,
						  const struct dta_payload *p,
						  const uint16_t *slot,
						  size_t n, uint64_t now_ns)
{
	int err;

	if (!t || (!p && n) || !slots_ok(t, slot, n))
		return -EINVAL;
	return n ? process_int(t, p, slot, n, now_ns, &err) : 0;
}
