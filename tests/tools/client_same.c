/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client_same: open several client targets (dta/client.h) of the same
 * memory - a collector's socket in binary frames and in text lines, its
 * mapping, its snapshots, its configuration - and check that every one
 * answers every primitive identically: Key-Write, Postcarding and
 * Key-Increment gets of the keys of dta-gen truth files (and as many keys
 * that were never sent), and every Append list read to its end from the
 * oldest entry. Prints what it compared; exits 1 at the first difference.
 *
 *   client_same [-k TRUTH].. TARGET TARGET..
 *
 * A target written "text:TARGET" is opened with DTA_CLIENT_TEXT.
 * End-to-end tests run it (tests/e2e/client_socket.sh).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/client.h"
#include "dta/exec.h"
#include "dta/wire.h"
#include "tools.h"

#define MAX_TARGETS 8
#define MAX_KEYLEN DTA_KEY_MAX

struct keys {
	uint8_t *k;
	size_t n, cap, klen;
};

static struct keys kw_keys, pc_keys, ki_keys;
static struct dta_client *cl[MAX_TARGETS];
static const char *names[MAX_TARGETS];
static int nt;

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("client_same: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void add_key(struct keys *k, const uint8_t *key, size_t len)
{
	if (k->n && len != k->klen)
		return; /* one key length per primitive */
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 1024;
		k->k = realloc(k->k, k->cap * MAX_KEYLEN);
		if (!k->k)
			die("out of memory");
	}
	k->klen = len;
	memcpy(k->k + k->n * len, key, len);
	k->n++;
}

/* The keys of a truth file, each also with its last byte flipped (a key
 * never sent, most likely). */
static void load_truth(const char *path)
{
	char line[4096], word[8], hex[2 * MAX_KEYLEN + 2];
	uint8_t key[MAX_KEYLEN];
	FILE *f = fopen(path, "r");

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct keys *k;
		int len;

		if (sscanf(line, "%7s %129s", word, hex) != 2)
			continue;
		k = !strcmp(word, "kw") ? &kw_keys : !strcmp(word, "pc") ? &pc_keys
			: !strcmp(word, "ki") ? &ki_keys : NULL;
		if (!k || (len = tool_unhex(hex, key, sizeof(key))) <= 0)
			continue;
		add_key(k, key, (size_t)len);
		key[len - 1] ^= 0x5a;
		add_key(k, key, (size_t)len);
	}
	fclose(f);
}

static const struct dta_client_structure *st_of(int t, const char *name)
{
	int i = dta_client_find(cl[t], name);

	if (i < 0)
		die("%s has no structure %s", names[t], name);
	return dta_client_structure(cl[t], (size_t)i);
}

static void same_kw(const char *name, size_t dl)
{
	struct keys *k = &kw_keys;
	struct dta_kw_result *r[MAX_TARGETS];
	uint8_t *d[MAX_TARGETS];
	size_t found = 0;

	for (int t = 0; t < nt; t++) {
		r[t] = calloc(k->n + 1, sizeof(*r[t]));
		d[t] = calloc(k->n + 1, dl);
		if (!r[t] || !d[t])
			die("out of memory");
		if (dta_client_kw_get(cl[t], name, k->k, k->klen, k->n, NULL,
				      r[t], d[t]))
			die("%s: %s", names[t], dta_client_error(cl[t]));
	}
	for (size_t i = 0; i < k->n; i++) {
		found += r[0][i].status == DTA_Q_FOUND;
		for (int t = 1; t < nt; t++)
			if (r[t][i].status != r[0][i].status ||
			    r[t][i].votes != r[0][i].votes ||
			    r[t][i].candidates != r[0][i].candidates ||
			    memcmp(d[t] + i * dl, d[0] + i * dl, dl))
				die("kw %s key %zu: %s and %s differ", name, i,
				    names[0], names[t]);
	}
	for (int t = 0; t < nt; t++) {
		free(r[t]);
		free(d[t]);
	}
	printf("kw %s: %zu keys, %zu found, same from %d targets\n", name,
	       k->n, found, nt);
}

static void same_pc(const char *name)
{
	struct keys *k = &pc_keys;
	struct dta_pc_result *r[MAX_TARGETS];
	size_t found = 0;

	for (int t = 0; t < nt; t++) {
		r[t] = calloc(k->n + 1, sizeof(*r[t]));
		if (!r[t])
			die("out of memory");
		if (dta_client_pc_get(cl[t], name, k->k, k->klen, k->n, r[t]))
			die("%s: %s", names[t], dta_client_error(cl[t]));
	}
	for (size_t i = 0; i < k->n; i++) {
		found += r[0][i].status == DTA_Q_FOUND;
		for (int t = 1; t < nt; t++)
			if (r[t][i].status != r[0][i].status ||
			    r[t][i].valid_copies != r[0][i].valid_copies ||
			    r[t][i].path_len != r[0][i].path_len ||
			    memcmp(r[t][i].values, r[0][i].values,
				   r[0][i].path_len * sizeof(uint32_t)))
				die("pc %s key %zu: %s and %s differ", name, i,
				    names[0], names[t]);
	}
	for (int t = 0; t < nt; t++)
		free(r[t]);
	printf("pc %s: %zu keys, %zu found, same from %d targets\n", name,
	       k->n, found, nt);
}

static void same_ki(const char *name, unsigned banks)
{
	struct keys *k = &ki_keys;
	uint64_t *r[MAX_TARGETS], sum = 0;

	for (unsigned bank = 0; bank < banks; bank++) {
		for (int t = 0; t < nt; t++) {
			r[t] = calloc(k->n + 1, sizeof(*r[t]));
			if (!r[t])
				die("out of memory");
			if (dta_client_ki_get(cl[t], name, k->k, k->klen, k->n,
					      bank, r[t]))
				die("%s: %s", names[t], dta_client_error(cl[t]));
		}
		for (size_t i = 0; i < k->n; i++) {
			sum += r[0][i];
			for (int t = 1; t < nt; t++)
				if (r[t][i] != r[0][i])
					die("ki %s bank %u key %zu: %s and %s "
					    "differ", name, bank, i, names[0],
					    names[t]);
		}
		for (int t = 0; t < nt; t++)
			free(r[t]);
	}
	printf("ki %s: %zu keys, counts summing to %" PRIu64 ", same from %d "
	       "targets\n", name, k->n, sum, nt);
}

/* Every list to its end, from the oldest entry. */
static void same_ap(const char *name, uint32_t lists, size_t es)
{
	size_t total = 0;
	uint64_t total_lost = 0;

	for (uint32_t l = 0; l < lists; l++) {
		uint8_t *all[MAX_TARGETS];
		size_t n[MAX_TARGETS] = { 0 };
		uint64_t lost[MAX_TARGETS] = { 0 }, pos[MAX_TARGETS] = { 0 };

		for (int t = 0; t < nt; t++) {
			struct dta_client_cursor *cur;
			size_t cap = 4096;
			long got;

			all[t] = malloc(cap * es);
			n[t] = 0;
			lost[t] = 0;
			if (!all[t])
				die("out of memory");
			if (dta_client_ap_open(cl[t], name, l,
					       DTA_EXEC_AP_OLDEST, &cur))
				die("%s: %s", names[t], dta_client_error(cl[t]));
			do {
				uint64_t lo;

				if (cap - n[t] < 1024) {
					cap *= 2;
					all[t] = realloc(all[t], cap * es);
					if (!all[t])
						die("out of memory");
				}
				got = dta_client_ap_read(cur, all[t] + n[t] * es,
							 cap - n[t], &lo);
				if (got < 0)
					die("%s: %s", names[t],
					    dta_client_error(cl[t]));
				n[t] += (size_t)got;
				lost[t] += lo;
			} while (got > 0);
			pos[t] = dta_client_ap_position(cur);
			dta_client_ap_close(cur);
		}
		for (int t = 1; t < nt; t++)
			if (n[t] != n[0] || lost[t] != lost[0] ||
			    pos[t] != pos[0] || memcmp(all[t], all[0], n[0] * es))
				die("ap %s list %u: %s (%zu entries, %" PRIu64
				    " lost) and %s (%zu, %" PRIu64 ") differ",
				    name, l, names[0], n[0], lost[0], names[t],
				    n[t], lost[t]);
		total += n[0];
		total_lost += lost[0];
		for (int t = 0; t < nt; t++)
			free(all[t]);
	}
	printf("ap %s: %u lists, %zu entries, %" PRIu64 " lost, same from %d "
	       "targets\n", name, lists, total, total_lost, nt);
}

int main(int argc, char **argv)
{
	const struct dta_client_structure *s0;
	char err[1024];

	for (int i = 1; i < argc; i++) {
		struct dta_client_opts o = { .sz = sizeof(o) };
		const char *t = argv[i];

		if (!strcmp(t, "-k") && i + 1 < argc) {
			load_truth(argv[++i]);
			continue;
		}
		if (nt == MAX_TARGETS)
			die("at most %d targets", MAX_TARGETS);
		if (!strncmp(t, "text:", 5)) {
			o.flags = DTA_CLIENT_TEXT;
			t += 5;
		}
		if (dta_client_open(t, &o, &cl[nt], err, sizeof(err)))
			die("%s: %s", argv[i], err);
		names[nt++] = argv[i];
	}
	if (nt < 2)
		die("usage: client_same [-k TRUTH].. TARGET TARGET..");
	for (int t = 1; t < nt; t++)
		if (dta_client_count(cl[t]) != dta_client_count(cl[0]))
			die("%s lists %zu structures, %s %zu", names[0],
			    dta_client_count(cl[0]), names[t],
			    dta_client_count(cl[t]));
	for (size_t i = 0; i < dta_client_count(cl[0]); i++) {
		s0 = dta_client_structure(cl[0], i);
		for (int t = 1; t < nt; t++) {
			const struct dta_client_structure *s = st_of(t, s0->name);

			if (s->layout.primitive != s0->layout.primitive ||
			    s->layout.data_size != s0->layout.data_size ||
			    s->shares != s0->shares || s->lists != s0->lists ||
			    s->list_base != s0->list_base ||
			    !s->schema != !s0->schema ||
			    (s->schema && s->schema->size != s0->schema->size))
				die("%s: %s and %s describe it differently",
				    s0->name, names[0], names[t]);
		}
		switch (s0->layout.primitive) {
		case DTA_PRIM_KEY_WRITE:
			if (kw_keys.n)
				same_kw(s0->name, s0->layout.g.kw.data_len);
			break;
		case DTA_PRIM_POSTCARD:
			if (pc_keys.n)
				same_pc(s0->name);
			break;
		case DTA_PRIM_KEY_INCREMENT:
			if (ki_keys.n)
				same_ki(s0->name, s0->layout.g.ki.banks);
			break;
		case DTA_PRIM_APPEND:
			same_ap(s0->name, s0->lists, s0->layout.g.ap.entry_size);
			break;
		}
	}
	for (int t = 0; t < nt; t++)
		dta_client_close(cl[t]);
	free(kw_keys.k);
	free(pc_keys.k);
	free(ki_keys.k);
	return 0;
}
