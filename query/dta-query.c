/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query: the DTA query CLI, a thin layer over the client
 * (dta/client.h): main(), the options, query_client(), size and verify
 * here; kw/pc/ki in point.c, ap in ap.c, info/stats/snapshot/switch in
 * info.c, int in int.c, verify's checks in verify.c. Every answer comes
 * through the client, whether from a collector's socket, its shared
 * memory (--map) or snapshot files. See `dta-query --help` and
 * docs/query.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dta/client.h"
#include "query.h"
#include "tools.h"

/* A numeric option's value, or exit 2 saying why: strtoul() and strtod()
 * without an end check took "abc" as 0 and "5x" as 5. */
uint64_t opt_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	uint64_t v;

	if (dta_parse_size(s, &v) || v < lo || v > hi) {
		fprintf(stderr, "dta-query: %s: '%s' is not a number from %llu "
			"to %llu\n", opt, s, (unsigned long long)lo,
			(unsigned long long)hi);
		exit(2);
	}
	return v;
}

static double opt_real(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= lo && v <= hi)) {
		fprintf(stderr, "dta-query: %s: '%s' is not a number from %g to "
			"%g\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

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

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': s.keys_after = opt_uint("--flows", optarg, 1, UINT64_MAX); break;
		case 't': s.target = opt_real("--target", optarg, 0, 1); break;
		case 'd': s.data_len = (unsigned)opt_uint("--data-bytes", optarg, 1, DTA_DATA_MAX); break;
		case 'c': s.bits = (unsigned)opt_uint("--checksum-bits", optarg, 8, 64); break;
		case 'b': slot_bits = (unsigned)opt_uint("--slot-bits", optarg, 8, 32); break;
		case 'H': s.hops = (unsigned)opt_uint("--hops", optarg, 1, DTA_MAX_HOPS); break;
		case 'v': s.values = opt_real("--values", optarg, 1, 1e300); break;
		case 'n': s.max_n = (unsigned)opt_uint("--max-n", optarg, 1, DTA_MAX_REDUNDANCY); break;
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

struct query_opts G;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dta-query: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(3);
}

void query_fail(const struct dta_client *c)
{
	if (G.json) { /* the error object the collector's answer was */
		fputs("{\"error\":", stdout);
		tool_json_str(stdout, dta_client_error(c));
		fputs("}\n", stdout);
	}
	die("%s", dta_client_error(c));
}

void load_config(void)
{
	char err[256];
	int rc;

	if (G.cfg || !G.config)
		return;
	rc = dta_config_load(G.config, &G.cfg, err, sizeof(err));
	if (rc == -DTA_E_MALFORMED)
		die("%s", err); /* err names the file */
	if (rc)
		die("%s: %s", G.config, dta_strerror(rc));
}

/* Collector @c's socket (configuration, else default); dies if none. */
static void socket_path(int c, char *path, size_t cap)
{
	int err = G.cfg ? dta_config_collector_socket(G.cfg, (size_t)c, path, cap)
			: dta_default_socket("dta", path, cap);

	if (err == -ENOENT)
		die("no directory for the default socket (not root, no "
		    "$XDG_RUNTIME_DIR, no %s): give --socket", DTA_RUN_DIR);
	if (err)
		die("socket path %s is too long: a Unix socket path has at "
		    "most %d bytes", path, DTA_SOCKET_PATH_MAX);
}

void query_note_partial(const struct dta_client *c)
{
	uint32_t m;

	if (dta_client_partial(c, &m))
		query_note_missing(c, m);
}

void query_note_missing(const struct dta_client *c, uint32_t m)
{
	uint32_t fresh = m & ~G.missing;

	for (unsigned i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		if (fresh & (1u << i)) {
			const char *n = dta_client_collector_name(c, i);

			snprintf(G.missing_name[i], sizeof(G.missing_name[i]),
				 "%s", n ? n : "?");
		}
	G.missing |= m;
	for (unsigned i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		if (fresh & (1u << i))
			fprintf(stderr, "dta-query: warning: collector %s did "
				"not answer, the answer is partial%s%s%s\n",
				G.missing_name[i],
				dta_client_partial(c, NULL) ? " (" : "",
				dta_client_partial(c, NULL) ? dta_client_error(c)
							    : "",
				dta_client_partial(c, NULL) ? ")" : "");
}

void query_json_partial(void)
{
	bool first = true;

	printf(",\"partial\":%s,\"missing\":[", G.missing ? "true" : "false");
	for (unsigned i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		if (G.missing & (1u << i)) {
			printf("%s\"%s\"", first ? "" : ",", G.missing_name[i]);
			first = false;
		}
	putchar(']');
}

struct dta_client *query_client(const char **how)
{
	char target[8192], err[1024], path[4096];
	struct dta_client_opts o = { .sz = sizeof(o) };
	struct dta_client *c;
	size_t len = 0;
	int rc;

	load_config();
#define TARGET(...) (len += (size_t)snprintf(target + len, \
		len < sizeof(target) ? sizeof(target) - len : 0, __VA_ARGS__))
	if (G.map) {
		if (!G.cfg)
			die("--map needs --config (the collector's name and "
			    "structures)");
		TARGET("map:%s", G.config);
		if (G.coll_name)
			TARGET("?collector=%s", G.coll_name);
		*how = "on the mapped structures";
	} else if (G.nfiles) {
		TARGET("file:");
		for (unsigned i = 0; i < G.nfiles; i++)
			TARGET("%s%s", i ? "," : "", G.files[i]);
		if (G.config) /* value sets, list bases, schemas */
			TARGET("?config=%s", G.config);
		*how = "snapshot files";
	} else if (G.dir) {
		if (!G.cfg)
			die("--snapshot-dir needs --config (which structures "
			    "to open)");
		TARGET("snapshot:%s?config=%s", G.dir, G.config);
		if (G.coll_name)
			TARGET("&collector=%s", G.coll_name);
		*how = "snapshot files";
	} else if (G.target) {
		TARGET("%s", G.target);
		*how = "over TLS";
	} else if (G.socket || !G.cfg) {
		if (G.socket)
			snprintf(path, sizeof(path), "%s", G.socket);
		else
			socket_path(0, path, sizeof(path));
		TARGET("unix:%s", path);
		*how = "over the collector socket";
	} else {
		TARGET("config:%s", G.config);
		if (G.via)
			TARGET("?via=%s", G.via);
		*how = G.via && !strcmp(G.via, "endpoint")
			       ? "over the collector endpoints"
			       : "over the collector sockets";
	}
#undef TARGET
	if (len >= sizeof(target))
		die("paths too long");
	o.timeout_ms = G.timeout_ms;
	rc = dta_client_open(target, &o, &c, err, sizeof(err));
	if ((rc == -ECONNRESET || rc == -EPIPE) && !strncmp(target, "unix:", 5))
		die("the collector at %s closed the connection (it stopped, "
		    "or dropped this client: see its log)", target + 5);
	if (rc)
		die("%s", err);
	query_note_partial(c); /* collectors that did not answer at open */
	return c;
}

void query_schema_json(const struct dta_schema *sch, const void *v,
		       size_t len)
{
	/* DTA_DATA_MAX bytes as i8 fields: under 5 chars a byte. */
	static char js[6 * DTA_DATA_MAX + 2048];
	int n = dta_schema_json(sch, v, len, js, sizeof(js));

	if (n < 0)
		die("a value cannot be decoded with its schema: %s",
		    dta_strerror(n));
	fputs(js, stdout);
}

void query_json_fields(const struct dta_schema *sch, const void *v,
		       size_t len)
{
	if (!sch)
		return;
	fputs(",\"fields\":", stdout);
	query_schema_json(sch, v, len);
}

/* ---- verify: compare a collector's answers with dta-gen's truth ---- */

/* The expected exact share and its standard error (fractions). */
static void expected_share(const struct tally *t, double *mean, double *se)
{
	*mean = t->total ? t->expect / (double)t->total : 1;
	*se = t->total ? sqrt(t->var) / (double)t->total : 0;
}

/* File @path mapped read-only (private, read ahead), *@len bytes; dies
 * when it cannot be. An empty file is a NULL mapping of 0 bytes. */
static const char *map_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die("%s: not a regular file", path);
	*len = (size_t)st.st_size;
	if (!*len) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		die("%s: %s", path, strerror(errno));
	close(fd);
	madvise(p, *len, MADV_SEQUENTIAL);
	return p;
}

static int cmd_verify(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "truth", required_argument, NULL, 't' },
		{ "min-success", required_argument, NULL, 'm' },
		{ "max-below-bound", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *truth = NULL;
	double min_success = -1, below = -1;
	struct tally tl[DTA_CONFIG_MAX_STRUCTURES];
	size_t nt = 0, tlen;
	struct dta_client *client;
	const char *how, *text;
	struct verify_ints vi;
	uint64_t t_start, queries = 0;
	double secs;
	struct int_tally iv[IV_ROLES];
	int opt, bad = 0;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "t:m:b:h", lo, NULL)) != -1) {
		if (opt == 't') {
			truth = optarg;
		} else if (opt == 'b') {
			below = opt_real("--max-below-bound", optarg, 0, 1);
		} else if (opt == 'm') {
			min_success = opt_real("--min-success", optarg, 0, 1);
		} else {
			printf("Usage: dta-query -c CONFIG [--socket S | --snapshot-dir D]\n"
			       "                 verify --truth FILE [--min-success P]\n"
			       "  Query every key of a dta-gen ground-truth file and compare.\n"
			       "  Prints per structure: exact answers, not found, wrong,\n"
			       "  conflicts, and for Key-Write and Postcarding the expected\n"
			       "  exact share, the mean over the keys of the success the paper's\n"
			       "  eq. 1-8 give at each key's age, with its standard error\n"
			       "  (sqrt(sum p(1-p)) / keys): \"expected 78.918%% \u00b1 0.096%%\".\n"
			       "  Measured success falls below it about half the time.\n"
			       "  --min-success P  exit 1 if a structure's exact share is\n"
			       "                   below P (0..1)\n"
			       "  --max-below-bound D  exit 1 if a structure's exact share is\n"
			       "                   below the expected share minus 3 standard\n"
			       "                   errors minus D (0..1)\n"
			       "  INT lines (int-path, int-hop, int-event, int-flow, int-queue;\n"
			       "  docs/int.md) are checked exactly against the structures of\n"
			       "  CONFIG's [int] roles: paths and hop records byte for byte,\n"
			       "  events in order in the list events_by puts them in, counts\n"
			       "  summed over the file equal to the counters. Exit 1 on any INT\n"
			       "  mismatch (the first ones are printed on stderr); lines of a\n"
			       "  role [int] leaves out are counted as not checked.\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!truth || optind != argc)
		die("usage: dta-query -c CONFIG verify --truth FILE");
	load_config();
	if (!G.cfg)
		die("verify needs --config (to route reports as the translator did)");
	/* The file mapped, not copied: a truth file may hold millions of
	 * lines, and verify_dta() reads them where they are. */
	text = map_file(truth, &tlen);
	client = query_client(&how);
	t_start = tool_now_ns();
	queries = verify_dta(client, text, tlen, truth, tl, &nt,
			     !G.json && isatty(STDERR_FILENO), &vi);
	memset(iv, 0, sizeof(iv));
	if (vi.n)
		int_verify(client, vi.lines, vi.lnum, vi.pcrun, vi.n, truth,
			   iv);
	secs = (double)(tool_now_ns() - t_start) / 1e9;
	for (int r = 0; r < IV_ROLES; r++) {
		queries += iv[r].total;
		/* INT answers are exact or wrong: no bound, no threshold. */
		if (iv[r].exact != iv[r].total || iv[r].disagree || iv[r].lost)
			bad = 1;
	}
	if (G.json)
		fputs("{\"structures\":[", stdout);
	for (size_t i = 0; i < nt; i++) {
		struct tally *t = &tl[i];
		double ok = t->total ? (double)t->exact / (double)t->total : 1;
		double mean, se;

		expected_share(t, &mean, &se);
		if (min_success >= 0 && ok < min_success)
			bad = 1;
		/* Measured success is below its expected value about half the
		 * time: only more than 3 standard errors (one time in 740 by
		 * chance) plus the slack D is a failure. */
		if (below >= 0 && t->has_bound && ok < mean - 3 * se - below)
			bad = 1;
		if (G.json) {
			printf("%s{\"name\":\"%s\",\"primitive\":\"%s\",\"total\":%" PRIu64
			       ",\"exact\":%" PRIu64 ",\"not_found\":%" PRIu64
			       ",\"wrong\":%" PRIu64 ",\"conflict\":%" PRIu64
			       ",\"over\":%" PRIu64 ",\"under\":%" PRIu64
			       ",\"truncated\":%" PRIu64 ",\"success\":%.6f",
			       i ? "," : "", t->name,
			       dta_primitive_name(t->prim), t->total, t->exact,
			       t->notfound, t->wrong, t->conflict, t->over, t->under,
			       t->truncated, ok);
			if (t->has_bound)
				printf(",\"expected_success\":%.6f,"
				       "\"expected_stderr\":%.6f,"
				       "\"bound_success\":%.6f", mean, se, mean);
			putchar('}');
			continue;
		}
		printf("%-13s %-10s %9" PRIu64 " sent  %7.3f%% exact", 
		       dta_primitive_name(t->prim), t->name, t->total, 100 * ok);
		switch (t->prim) {
		case DTA_PRIM_KEY_WRITE:
		case DTA_PRIM_POSTCARD:
			printf("  (%" PRIu64 " not found, %" PRIu64 " wrong, %" PRIu64
			       " conflict", t->notfound, t->wrong, t->conflict);
			if (t->prim == DTA_PRIM_POSTCARD)
				printf(", %" PRIu64 " truncated by cache eviction",
				       t->truncated);
			putchar(')');
			if (t->has_bound)
				printf("  expected %.3f%% \u00b1 %.3f%%",
				       100 * mean, 100 * se);
			break;
		case DTA_PRIM_APPEND:
			printf("  (%" PRIu64 " not read in order, %" PRIu64
			       " read but never sent, %" PRIu64
			       " overwritten before read)", t->notfound, t->wrong,
			       t->under);
			break;
		case DTA_PRIM_KEY_INCREMENT:
			printf("  (%" PRIu64 " over-estimated, %" PRIu64
			       " under: lost reports)", t->over, t->under);
			break;
		}
		putchar('\n');
	}
	{
		bool first = nt == 0;

		for (int r = 0; r < IV_ROLES; r++)
			int_verify_print(&iv[r], r, &first);
	}
	if (G.json)
		printf("],\"seconds\":%.6f}\n", secs);
	else
		printf("%" PRIu64 " answers checked in %.3f s (%.0f per second, %s)\n",
		       queries, secs, (double)queries / (secs > 0 ? secs : 1e-9),
		       how);
	if (text)
		munmap((void *)text, tlen);
	verify_ints_free(&vi);
	dta_client_close(client);
	return bad;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
	{ "kw", cmd_kw, "kw get NAME KEY..: Key-Write data of keys" },
	{ "pc", cmd_pc, "pc path NAME KEY..: Postcarding paths of flows" },
	{ "ap", cmd_ap, "ap tail|follow NAME LIST|all: Append entries" },
	{ "ki", cmd_ki, "ki get|total NAME [KEY..]: Key-Increment counters" },
	{ "epoch", cmd_epoch, "epoch FILE [KEY..]: a closed Key-Increment epoch's file" },
	{ "int", cmd_int, "int path|hops|drops|congestion|count|queue: INT telemetry" },
	{ "info", cmd_info, "info [FILE]: structures and their geometry" },
	{ "stats", cmd_stats, "stats: collector counters" },
	{ "snapshot", cmd_snapshot, "snapshot: make the collector save snapshots" },
	{ "switch", cmd_switch, "switch: the description a switch translator needs" },
	{ "verify", cmd_verify, "verify --truth FILE: check answers against dta-gen" },
	{ "size", cmd_size, "size kw|pc: memory and N for a target success rate" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-query [options] COMMAND [args]   (COMMAND --help for more)\n"
		"Query a running dta-collector or snapshot files.\n"
		"\n"
		"Options (before COMMAND):\n"
		"  -c, --config FILE        configuration (collector socket, structure\n"
		"                           names, Postcarding value sets, the [int]\n"
		"                           section's structures for int)\n"
		"  -S, --socket PATH        collector socket (default: from the config,\n"
		"                           else DIR/dta-dta.sock, DIR the first of\n"
		"                           $RUNTIME_DIRECTORY, /run/dta (if root or it\n"
		"                           exists), $XDG_RUNTIME_DIR); every request goes\n"
		"                           there. Answers are trusted only from your\n"
		"                           uid, root or the owner of the socket's\n"
		"                           directory (SO_PEERCRED)\n"
		"  -C, --collector NAME     stats, snapshot and switch go to the collector\n"
		"                           of [collector NAME]; with --map and\n"
		"                           --snapshot-dir only its shares are read.\n"
		"                           Otherwise keys and lists go to the collector\n"
		"                           holding them (its socket from the config)\n"
		"  -C, --collector tls://HOST:PORT[?ca=FILE&cert=FILE&key=FILE&name=NAME]\n"
		"                           every request goes to that remote collector\n"
		"                           over TLS (its query_listen); files default\n"
		"                           to $DTA_TLS_CA, $DTA_TLS_CERT, $DTA_TLS_KEY\n"
		"                           (docs/client.md)\n"
		"  -f, --file FILE          use a snapshot file instead (repeatable)\n"
		"  -D, --snapshot-dir DIR   use DIR/NAME.dta for every configured structure\n"
		"                           (with several collectors and no --collector,\n"
		"                           DIR/COLLECTOR/NAME.dta, docs/client.md)\n"
		"  -m, --map                map the collectors' structures from their\n"
		"                           shared memory read-only and query them here\n"
		"                           (same machine; needs --config and read\n"
		"                           access: shm_mode). Objects owned by another\n"
		"                           user (unless shm_mode lets the group in) or\n"
		"                           writable by anyone are refused. Requests\n"
		"                           only a collector answers (stats, snapshot)\n"
		"                           need its socket\n"
		"  -j, --json               JSON output (one object per answer)\n"
		"      --via auto|socket|endpoint\n"
		"                           with --config: reach each collector by its\n"
		"                           socket when it exists here, else by its\n"
		"                           endpoint over TLS (auto, the default), or\n"
		"                           always one way (docs/scale-out.md)\n"
		"      --timeout MS         a collector silent this long counts as not\n"
		"                           answering (default 10000)\n"
		"  -h, --help               this text\n"
		"      --version            print \"dta-query VERSION\" and exit\n"
		"\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nKEY forms: 10.0.0.1:1234->10.0.0.2:80/tcp, "
		"[2001:db8::1]:1->[2001:db8::2]:2/udp,\n10.0.0.1, 42 (4 bytes "
		"big-endian), 0x0a000001 (bytes as written); docs/keys.md.\n"
		"Exit status: 0 found/ok, 1 not found (kw, pc, int path|hops) or\nverify below "
		"--min-success or an INT truth line not exact, 2 usage,\n3 error, 4 partial: a collector of --config did not answer (its\nkeys \"unavailable\", fan-outs answered by the others; stderr names it).\n"
		"The docs/NAME.md files named here are installed as\n"
		"/usr/share/doc/dta-tools/NAME.md by the dta-tools package\n"
		"(PREFIX/share/doc/dta-tools/ by cmake --install).\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 'S' },
		{ "collector", required_argument, NULL, 'C' },
		{ "file", required_argument, NULL, 'f' },
		{ "snapshot-dir", required_argument, NULL, 'D' },
		{ "map", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "via", required_argument, NULL, 'v' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/* A collector that closed the connection is an error message, not a
	 * silent death. */
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt_long(argc, argv, "+c:S:C:f:D:mjh", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': G.config = optarg; break;
		case 'C':
			if (strstr(optarg, "://"))
				G.target = optarg; /* a remote collector */
			else
				G.coll_name = optarg;
			break;
		case 'S': G.socket = optarg; break;
		case 'f':
			if (G.nfiles == DTA_CONFIG_MAX_STRUCTURES)
				die("too many --file");
			G.files[G.nfiles++] = optarg;
			break;
		case 'D': G.dir = optarg; break;
		case 'm': G.map = 1; break;
		case 'j': G.json = 1; break;
		case 'v':
			if (strcmp(optarg, "auto") && strcmp(optarg, "socket") &&
			    strcmp(optarg, "endpoint"))
				die("--via: auto, socket or endpoint, not %s",
				    optarg);
			G.via = optarg;
			break;
		case 't':
			G.timeout_ms = (int)opt_uint("--timeout", optarg, 1,
						     INT32_MAX);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("dta-query %s\n", DTA_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (G.coll_name) {
		load_config();
		if (!G.cfg)
			die("--collector needs --config");
		G.coll = dta_config_collector_find(G.cfg, G.coll_name);
		if (G.coll < 0)
			die("%s has no [collector %s]", G.config, G.coll_name);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[optind], cmds[i].name)) {
			int rc = cmds[i].fn(argc - optind, argv + optind);

			dta_config_destroy(G.cfg);
			/* Some collector did not answer: whatever was found,
			 * the answer is not whole. */
			return G.missing && (rc == 0 || rc == 1)
				       ? QUERY_EXIT_PARTIAL : rc;
		}
	fprintf(stderr, "dta-query: unknown command %s\n", argv[optind]);
	usage(stderr);
	return 2;
}
