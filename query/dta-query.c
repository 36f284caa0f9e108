/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query: the DTA query CLI. Sub-commands:
 *   size kw|pc   memory and N for a target query success (sizing tool)
 *   info FILE    describe a saved region
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

static int cmd_size(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "target", required_argument, NULL, 't' },
		{ "data-bytes", required_argument, NULL, 'd' },
		{ "checksum-bits", required_argument, NULL, 'c' },
		{ "slot-bits", required_argument, NULL, 'b' },
		{ "hops", required_argument, NULL, 'H' },
		{ "values", required_argument, NULL, 'v' },
		{ "max-n", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dta_sizing s = { .target = 0.99, .data_len = 20, .bits = 32,
				.hops = 5, .values = 262144, .max_n = 8 };
	unsigned slot_bits = 32;
	int json = 0, pc, c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': s.keys_after = strtoull(optarg, NULL, 0); break;
		case 't': s.target = strtod(optarg, NULL); break;
		case 'd': s.data_len = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c': s.bits = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'b': slot_bits = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'H': s.hops = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'v': s.values = strtod(optarg, NULL); break;
		case 'n': s.max_n = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'j': json = 1; break;
		case 'h':
			printf("Usage: dta-query size kw|pc --flows N [options]\n"
			       "  --flows N          keys reported after the queried one (required)\n"
			       "  --target P         query success wanted (default 0.99)\n"
			       "  --data-bytes D     kw: bytes of data per key (default 20)\n"
			       "  --checksum-bits B  kw: 8, 16, 32 or 64 (default 32)\n"
			       "  --slot-bits B      pc: 8, 16 or 32 (default 32)\n"
			       "  --hops B           pc: hops per chunk (default 5)\n"
			       "  --values V         pc: possible hop values |V| (default 262144)\n"
			       "  --max-n N          largest redundancy considered (default 8)\n"
			       "  --json             one JSON object\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind >= argc || (strcmp(argv[optind], "kw") && strcmp(argv[optind], "pc"))) {
		fprintf(stderr, "dta-query size: say kw or pc (see --help)\n");
		return 2;
	}
	pc = !strcmp(argv[optind], "pc");
	if (pc)
		s.bits = slot_bits;
	err = pc ? dta_size_pc(&s) : dta_size_kw(&s);
	if (err) {
		fprintf(stderr, "dta-query size: inputs out of range or target unreachable\n");
		return 2;
	}
	if (json)
		printf("{\"primitive\":\"%s\",\"n\":%u,\"%s\":%llu,\"bytes\":%llu,"
		       "\"empty_bound\":%.6g,\"wrong_bound\":%.6g}\n",
		       pc ? "postcard" : "key-write", s.n, pc ? "chunks" : "slots",
		       (unsigned long long)s.units, (unsigned long long)s.bytes,
		       s.empty, s.wrong);
	else
		printf("%s: N=%u, %llu %s, %.2f MiB (%llu bytes)\n"
		       "  no-answer bound %.4g, wrong-answer bound %.3g at %llu flows\n",
		       pc ? "Postcarding" : "Key-Write", s.n,
		       (unsigned long long)s.units, pc ? "chunks" : "slots",
		       s.bytes / 1048576.0, (unsigned long long)s.bytes, s.empty,
		       s.wrong, (unsigned long long)s.keys_after);
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_FILE,
				     .flags = DTA_REGION_RDONLY };
	const struct dta_layout *l;
	struct dta_region *r;
	int err;

	if (argc < 2 || !strcmp(argv[1], "--help")) {
		printf("Usage: dta-query info FILE\n");
		return argc < 2 ? 2 : 0;
	}
	o.path = argv[1];
	err = dta_region_open(&o, &r);
	if (err) {
		fprintf(stderr, "dta-query info: %s: %s\n", argv[1], dta_strerror(err));
		return 3;
	}
	l = dta_region_layout(r);
	printf("name: %s\nprimitive: %s\nhash: %s seed %llu\ndata bytes: %llu\n",
	       dta_region_name(r), dta_primitive_name(l->primitive),
	       dta_hash_family_name(l->hash_family),
	       (unsigned long long)l->hash_seed,
	       (unsigned long long)l->data_size);
	for (unsigned i = 0; i < DTA_HF_COUNT; i++)
		if (l->fn[i].kind == DTA_HASHFN_CRC32)
			printf("role %2u: crc32 poly 0x%08x init 0x%08x xorout 0x%08x\n",
			       i, l->fn[i].poly, l->fn[i].init, l->fn[i].xorout);
		else if (l->fn[i].kind == DTA_HASHFN_XXH3)
			printf("role %2u: xxh3 seed 0x%016llx\n", i,
			       (unsigned long long)l->fn[i].seed);
	dta_region_destroy(r);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
	{ "size", cmd_size, "memory and redundancy for a target success rate" },
	{ "info", cmd_info, "describe a saved region file" },
};

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("Usage: dta-query COMMAND [options]\n");
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			printf("  %-6s %s\n", cmds[i].name, cmds[i].help);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "dta-query: unknown command %s\n", argv[1]);
	return 2;
}
