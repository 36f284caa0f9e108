/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver for fuzz harnesses without libFuzzer: replays every file of a
 * corpus directory, then runs seeded random inputs and byte-flip mutations
 * of the corpus. Usage: fuzz_x [iterations] [corpus-dir]
 * A crash or sanitizer report fails the run; a clean run exits 0.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Jumbo datagrams: what libFuzzer campaigns use as -max_len. */
#define FUZZ_MAX_INPUT 9000
#define MAX_CORPUS 1024 /* files kept for mutation; all are replayed */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	static uint8_t corpus[MAX_CORPUS][FUZZ_MAX_INPUT];
	static size_t corpus_len[MAX_CORPUS];
	size_t ncorpus = 0, nfiles = 0;
	long iters = argc > 1 ? atol(argv[1]) : 100000;
	uint8_t buf[FUZZ_MAX_INPUT];

	if (argc > 2) {
		DIR *d = opendir(argv[2]);
		struct dirent *e;

		if (!d) {
			fprintf(stderr, "cannot open corpus %s\n", argv[2]);
			return 1;
		}
		while ((e = readdir(d))) {
			char path[4096];
			uint8_t *in = ncorpus < MAX_CORPUS ? corpus[ncorpus] : buf;
			size_t len;
			FILE *f;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[2], e->d_name);
			f = fopen(path, "rb");
			if (!f)
				continue;
			len = fread(in, 1, FUZZ_MAX_INPUT, f);
			fclose(f);
			LLVMFuzzerTestOneInput(in, len);
			if (ncorpus < MAX_CORPUS)
				corpus_len[ncorpus++] = len;
			nfiles++;
		}
		closedir(d);
	}
	for (long i = 0; i < iters; i++) {
		size_t len;

		if (ncorpus && (i & 1)) {
			size_t k = rng() % ncorpus;
			int flips = 1 + (int)(rng() % 4);

			len = corpus_len[k];
			memcpy(buf, corpus[k], len);
			if (rng() % 8 == 0 && len)
				len = rng() % len; /* truncate */
			for (int f = 0; f < flips && len; f++)
				buf[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
		} else {
			/* Mostly short, now and then up to the maximum. */
			len = rng() % 16 ? rng() % 128 : rng() % (FUZZ_MAX_INPUT + 1);
			for (size_t j = 0; j < len; j++)
				buf[j] = (uint8_t)rng();
			if (len && rng() % 2)
				buf[0] = (rng() % 2) ? 0xD1 : (uint8_t)(1 + rng() % 4);
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("%ld inputs, %zu corpus files: no crash\n", iters, nfiles);
	return 0;
}
