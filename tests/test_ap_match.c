/* SPDX-License-Identifier: BSD-3-Clause */
/* verify's Append matching (common/tools.c, tool_ap_match): hand-worked
 * cases, agreement with the obvious quadratic matcher on random inputs,
 * and a million entries that were never sent matched in linear work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools.h"

static void feed(struct tool_ap_match *m, const char *const *read, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tool_ap_match_entry(m, read[i], strlen(read[i]));
	tool_ap_match_finish(m);
}

static void expect_counts(const char *const *sent, size_t ns,
			  const char *const *read, size_t nr, uint64_t exact,
			  uint64_t notfound, uint64_t wrong)
{
	struct tool_ap_match m;

	assert_int_equal(tool_ap_match_init(&m, sent, ns), 0);
	feed(&m, read, nr);
	assert_int_equal(m.exact, exact);
	assert_int_equal(m.notfound, notfound);
	assert_int_equal(m.wrong, wrong);
	tool_ap_match_free(&m);
}

static void test_hand_worked(void **state)
{
	static const char *const sent[] = { "aa", "bb", "cc", "dd", "ee" };
	/* aa: exact; xx: wrong; cc: bb skipped (not found); bb: already
	 * behind, wrong; ee: dd skipped. */
	static const char *const read[] = { "aa", "xx", "cc", "bb", "ee" };
	/* A repeated text matches its occurrences in turn; once past the
	 * last one usable, wrong. */
	static const char *const sent2[] = { "a", "a", "b", "a" };
	static const char *const read2[] = { "a", "a", "a", "b" };
	/* Prefixes are different texts. */
	static const char *const sent3[] = { "ab", "a" };
	static const char *const read3[] = { "a" };

	(void)state;
	expect_counts(sent, 5, read, 5, 3, 2, 2);
	expect_counts(sent2, 4, read2, 4, 3, 1, 1);
	expect_counts(sent3, 2, read3, 1, 1, 1, 0);
	expect_counts(sent, 5, NULL, 0, 0, 5, 0);
	expect_counts(NULL, 0, read, 5, 0, 0, 5);
}

/* The rule as the old verify code applied it, O(n) per entry read. */
static void quadratic(const char *const *sent, size_t ns,
		      const char *const *read, size_t nr, uint64_t *exact,
		      uint64_t *notfound, uint64_t *wrong)
{
	size_t next = 0;

	*exact = *notfound = *wrong = 0;
	for (size_t i = 0; i < nr; i++) {
		size_t k = next;

		while (k < ns && strcmp(sent[k], read[i]))
			k++;
		if (k == ns) {
			(*wrong)++;
		} else {
			*notfound += k - next;
			(*exact)++;
			next = k + 1;
		}
	}
	*notfound += ns - next;
}

static void test_random_against_quadratic(void **state)
{
	static const char *const words[] = { "00", "01", "02", "03", "10",
					     "11", "0", "" };
	const char *sent[64], *read[64];
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (int trial = 0; trial < 5000; trial++) {
		size_t ns, nr;
		uint64_t e, nf, w;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		ns = x % 40;
		nr = (x >> 8) % 40;
		for (size_t i = 0; i < ns; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			sent[i] = words[x % 8];
		}
		for (size_t i = 0; i < nr; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			/* Mostly what was sent, in order, some skipped. */
			read[i] = (x & 3) && i < ns ? sent[i] : words[(x >> 3) % 8];
		}
		quadratic(sent, ns, read, nr, &e, &nf, &w);
		expect_counts(sent, ns, read, nr, e, nf, w);
	}
}

/* 100000 entries sent, of which every tenth was not read, and 1000000
 * entries read that were never sent, interleaved: the quadratic matcher
 * compared each foreign entry with everything after the current position
 * (about 5e10 string comparisons here; verify took 18.9 s instead of
 * 0.13 s on a smaller case). The work must stay linear. */
static void test_million_foreign_entries(void **state)
{
	enum { SENT = 100000, FOREIGN = 1000000 };
	char **sent = malloc(SENT * sizeof(*sent)), buf[32];
	struct tool_ap_match m;
	uint64_t reads = 0;

	(void)state;
	assert_non_null(sent);
	for (size_t i = 0; i < SENT; i++) {
		snprintf(buf, sizeof(buf), "%016llx",
			 (unsigned long long)(i * 0x9E3779B97F4Aull));
		sent[i] = strdup(buf);
		assert_non_null(sent[i]);
	}
	assert_int_equal(tool_ap_match_init(&m, (const char *const *)sent, SENT), 0);
	for (size_t i = 0, f = 0; i < SENT; i++) {
		for (int j = 0; j < FOREIGN / SENT; j++, f++, reads++) {
			snprintf(buf, sizeof(buf), "f%015zx", f);
			tool_ap_match_entry(&m, buf, strlen(buf));
		}
		if (i % 10 == 9)
			continue;
		tool_ap_match_entry(&m, sent[i], strlen(sent[i]));
		reads++;
	}
	tool_ap_match_finish(&m);
	assert_int_equal(m.exact, SENT - SENT / 10);
	assert_int_equal(m.notfound, SENT / 10);
	assert_int_equal(m.wrong, FOREIGN);
	/* Hash probes at load <= 1/2 plus positions stepped over: a small
	 * multiple of the entries, not their product. */
	if (m.steps > 4 * (reads + SENT))
		fail_msg("%llu steps for %llu entries read and %d sent",
			 (unsigned long long)m.steps, (unsigned long long)reads,
			 SENT);
	tool_ap_match_free(&m);
	for (size_t i = 0; i < SENT; i++)
		free(sent[i]);
	free(sent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_worked),
		cmocka_unit_test(test_random_against_quadratic),
		cmocka_unit_test(test_million_foreign_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
