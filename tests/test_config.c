/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration parser: a full file, defaults, memory sizing, and every
 * kind of mistake rejected with its line number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dta/dta.h"

static const char good[] =
	"# a whole system\n"
	"[collector]\n"
	"name = lab   # trailing comment\n"
	"socket = /tmp/lab.sock\n"
	"\n"
	"[translator]\n"
	"port = 40040\n"
	"workers = 2\n"
	"[structure flows]\n"
	"primitive = key-write\n"
	"memory = 64M\n"
	"data = 20\n"
	"redundancy = 2\n"
	"seed = 0x1234\n"
	"[structure paths]\n"
	"\tprimitive = postcard\n"
	"chunks = 1000\n"
	"values = 1-64, 100,0x200-0x201 , 5\n"
	"[structure events]\n"
	"primitive = append\n"
	"lists = 4\n"
	"first_list = 10\n"
	"batches = 256\n"
	"[structure counters]\n"
	"primitive = ki\n"
	"width = 1K\n"
	"rows = 3\n"
	"banks = 2\n"
	"hash = xxh3\n";

static struct dta_config *parse(const char *t, char *err)
{
	struct dta_config *c = NULL;
	int rc = dta_config_parse(t, strlen(t), &c, err, 256);

	return rc ? NULL : c;
}

static void test_good(void **state)
{
	char err[256];
	struct dta_config *c = parse(good, err);
	const struct dta_config_structure *s;

	(void)state;
	assert_non_null(c);
	assert_int_equal(dta_config_count(c), 4);
	assert_string_equal(dta_config_get(c, "collector", "name"), "lab");
	assert_string_equal(dta_config_get(c, "translator", "workers"), "2");
	assert_null(dta_config_get(c, "translator", "bind"));
	assert_null(dta_config_get(c, "structure", "name"));

	s = dta_config_find(c, "flows");
	assert_non_null(s);
	assert_int_equal(s->layout.primitive, DTA_PRIM_KEY_WRITE);
	assert_int_equal(s->layout.g.kw.slot_size, 24);
	assert_int_equal(s->layout.g.kw.slots, (64u << 20) / 24);
	assert_int_equal(s->layout.g.kw.max_redundancy, 2);
	assert_int_equal(s->layout.hash_seed, 0x1234);
	assert_int_equal(s->layout.hash_family, DTA_HASH_CRC32C);

	s = dta_config_find(c, "paths");
	assert_int_equal(s->layout.g.pc.chunks, 1000);
	assert_int_equal(s->layout.g.pc.hops, 5);
	assert_int_equal(s->nvalues, 64 + 1 + 2); /* 5 is a duplicate */
	assert_int_equal(s->values[0], 1);
	assert_int_equal(s->values[s->nvalues - 1], 0x201);

	s = dta_config_find(c, "events");
	assert_int_equal(s->list_base, 10);
	assert_int_equal(s->layout.g.ap.lists, 4);
	assert_int_equal(s->layout.g.ap.ring_batches, 256);
	assert_int_equal(s->layout.g.ap.batch_entries, 16);

	s = dta_config_find(c, "counters");
	assert_int_equal(s->layout.g.ki.width, 1024);
	assert_int_equal(s->layout.g.ki.rows, 3);
	assert_int_equal(s->layout.hash_family, DTA_HASH_XXH3);
	assert_null(dta_config_find(c, "nope"));
	assert_null(dta_config_structure(c, 4));
	dta_config_destroy(c);
}

static void test_prototype_memory_rounds_to_pow2(void **state)
{
	char err[256];
	struct dta_config *c = parse("[structure kw]\nprimitive=key-write\n"
				     "hash=prototype\nmemory=100K\n", err);

	(void)state;
	assert_non_null(c);
	/* 100 KiB / 8 B = 12800 slots -> 8192, a power of two. */
	assert_int_equal(dta_config_structure(c, 0)->layout.g.kw.slots, 8192);
	dta_config_destroy(c);
}

static void expect_error(const char *text, const char *where)
{
	char err[256];
	struct dta_config *c = (void *)1;
	int rc = dta_config_parse(text, strlen(text), &c, err, sizeof(err));

	if (rc != -DTA_E_MALFORMED)
		fail_msg("'%s' gave %d, not -DTA_E_MALFORMED", text, rc);
	assert_null(c);
	if (!strstr(err, where))
		fail_msg("error '%s' does not mention '%s'", err, where);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[collector]\nnmae = x\n", "line 2: nmae: unknown key in [collector]");
	expect_error("[colector]\n", "line 1: unknown section");
	expect_error("x = 1\n", "line 1: key 'x' outside a section");
	expect_error("[structure a]\nprimitive = kw\nprimitive = kw\n",
		     "line 3: primitive: given twice");
	expect_error("[structure a]\nprimitive=kw\n[structure a]\nprimitive=kw\n",
		     "line 3: structure a declared twice");
	expect_error("[structure a]\nprimitive = hashmap\n", "line 2: primitive");
	expect_error("[structure a]\n", "line 1: structure a: primitive is required");
	expect_error("[structure a]\nprimitive=kw\nslots=12x\n",
		     "line 3: slots: '12x' is not a number");
	expect_error("[structure a]\nprimitive=kw\nslots=10\nmemory=1M\n",
		     "either memory or slots");
	expect_error("[structure a]\nprimitive=kw\nhops=5\n",
		     "line 3: hops: unknown key for a key-write");
	expect_error("[structure a]\nprimitive=kw\nchecksum=3\n",
		     "line 1: structure a: impossible geometry");
	expect_error("[structure a]\nprimitive=pc\nvalues=5-1\n", "line 3: values");
	expect_error("[structure a]\nprimitive=pc\nvalues=1,,2\n", "line 3: values");
	expect_error("[structure a]\nprimitive=kw\nhash=md5\n", "line 3: hash");
	expect_error("[structure a b]\n", "line 1: structure names");
	expect_error("[collector\n", "line 1: expected [section]");
	expect_error("[collector]\nname\n", "line 2: expected key = value");
	expect_error("[collector]\nname =\n", "line 2: name: value missing");
	expect_error("[collector]\n[collector]\n", "line 2: [collector] given twice");
	expect_error("[structure a]\nprimitive=ap\nfirst_list=0xffffffff\nlists=2\n",
		     "exceeds 32-bit list ids");
	expect_error("[structure a]\nprimitive=kw\nmemory=3\n", "line 3: memory");
}

static void test_collectors(void **state)
{
	char err[256];
	struct dta_config *c = parse(
		"[collector]\nname = a\n"
		"[structure kw]\nprimitive = kw\ncollector = east, default\n"
		"[collector east]\nsocket = /tmp/e.sock\nrdma_port = 7\n"
		"[structure ev]\nprimitive = ap\nlists = 4\nfirst_list = 10\n"
		"collector = default,east\n"
		"[structure ki]\nprimitive = ki\n", err);
	const struct dta_config_structure *kw, *ev, *ki;

	(void)state;
	assert_non_null(c);
	assert_int_equal(dta_config_collectors(c), 2);
	assert_string_equal(dta_config_collector_name(c, 0), "");
	assert_string_equal(dta_config_collector_name(c, 1), "east");
	assert_null(dta_config_collector_name(c, 2));
	assert_int_equal(dta_config_collector_find(c, "east"), 1);
	assert_int_equal(dta_config_collector_find(c, NULL), 0);
	assert_int_equal(dta_config_collector_find(c, "default"), 0);
	assert_int_equal(dta_config_collector_find(c, "west"), -ENOENT);
	assert_string_equal(dta_config_get(c, "collector east", "rdma_port"), "7");
	assert_string_equal(dta_config_collector_get(c, 1, "socket"), "/tmp/e.sock");
	assert_string_equal(dta_config_collector_get(c, 0, "name"), "a");
	assert_null(dta_config_collector_get(c, 1, "name"));
	kw = dta_config_find(c, "kw");
	ev = dta_config_find(c, "ev");
	ki = dta_config_find(c, "ki");
	/* Declared before [collector east]: resolved after the whole file. */
	assert_int_equal(kw->ncollectors, 2);
	assert_int_equal(kw->collectors[0], 1);
	assert_int_equal(kw->collectors[1], 0);
	assert_int_equal(dta_config_share(kw, 1), 0);
	assert_int_equal(dta_config_share(kw, 0), 1);
	assert_int_equal(ev->ncollectors, 2);
	assert_int_equal(ki->ncollectors, 1);
	assert_int_equal(ki->collectors[0], 0);
	assert_int_equal(dta_config_share(ki, 1), -ENOENT);
	dta_config_destroy(c);

	expect_error("[structure a]\nprimitive=kw\ncollector = west\n",
		     "line 3: collector: 'west' is not declared");
	expect_error("[collector e]\n[structure a]\nprimitive=kw\n"
		     "collector = e, e\n", "line 4: collector: e listed twice");
	expect_error("[collector e]\n[collector e]\n",
		     "line 2: [collector e] given twice");
	expect_error("[collector default]\n", "line 1: collector names");
	expect_error("[collector e]\nport = 1\n",
		     "line 2: port: unknown key in [collector e]");
	expect_error("[collector e]\n[structure a]\nprimitive=ap\nlists=2\n"
		     "collector = default, e\n[structure b]\nprimitive=ap\n"
		     "first_list = 3\n", "a and b take overlapping Append list ids");
	expect_error("[collector e]\n[structure a]\nprimitive=ap\nlists=2\n"
		     "first_list=0xfffffffc\ncollector = default, e, default\n",
		     "listed twice");
	expect_error("[collector e]\n[structure a]\nprimitive=ap\nlists=2\n"
		     "first_list=0xfffffffd\ncollector = default, e\n",
		     "lists x collectors exceeds");
}

static void test_sizes_and_files(void **state)
{
	uint64_t v;
	struct dta_config *c;
	char err[256];

	(void)state;
	assert_int_equal(dta_parse_size("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(dta_parse_size("0x10", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(dta_parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(dta_parse_size("-1", &v), -EINVAL);
	assert_int_equal(dta_parse_size("1Q", &v), -EINVAL);
	assert_int_equal(dta_parse_size("", &v), -EINVAL);
	assert_int_equal(dta_parse_size("99999999999999999999", &v), -EINVAL);
	assert_int_equal(dta_parse_size("17179869184T", &v), -EINVAL);
	assert_int_equal(dta_config_load("/nonexistent/dta.conf", &c, err, 256),
			 -ENOENT);
	assert_int_equal(dta_config_parse(NULL, 1, &c, err, 256), -EINVAL);
	/* An empty file is a valid, empty configuration. */
	assert_int_equal(dta_config_parse("", 0, &c, NULL, 0), 0);
	assert_int_equal(dta_config_count(c), 0);
	dta_config_destroy(c);
}

/* Every [collector] and [translator] key with good values, including the
 * edges of their ranges: all load. */
static void test_program_values_good(void **state)
{
	static const char *const ok[] = {
		"[collector]\nname = lab-1_x\nsocket = /run/dta/x.sock\n"
		"socket_mode = 0660\nshm_mode = 600\nidle_timeout = 0\n"
		"snapshot_dir = /var/lib/dta\nhuge_pages = no\nrestore = yes\n"
		"rdma_bind = 10.0.0.1\nrdma_port = 65535\n"
		"rdma_allow = 10.0.0.0/8, 192.0.2.7 192.0.2.8/32\n"
		"switch_peer = 10.0.0.2\nswitch_qpn = 0xFFFFFF\nswitch_psn = 0\n"
		"switch_meta = /tmp/sw.json\n",
		"[collector]\nhuge_pages = true\nrestore = 0\n",
		"[collector]\nhuge_pages = false\nrestore = 1\nidle_timeout = 3600\n",
		"[translator]\nport = 1\nbind = 0.0.0.0\nworkers = 64\n"
		"pc_cache = 1G\npc_timeout_ms = 1\nap_timeout_ms = 4611686018427\n"
		"ki_window_us = 0\nlegacy = nack\nstats_interval_s = 0.5\n"
		"rdma_collector = 192.0.2.1:40050\nrdma_qps = 16\nsink = rdma\n"
		"switch_interface = eth0\nswitch_meta = /tmp/sw.json\n"
		"allow = 10.0.0.0/8, 192.0.2.7\n",
		"[translator]\nstats_interval_s = 10\nlegacy = auto\nsink = shm\n"
		"rdma_collector = collector.example\npc_cache = 1\n",
		"[translator]\nrx = uring\nrx_batch = 4096\nrx_wait_us = 0\n",
		"[translator]\nrx = recvmmsg\nrx_batch = 1\nrx_wait_us = 10000\n",
		"[translator]\nreceive = xdp\nxdp_interface = eth0.100\n"
		"xdp_mode = generic\n",
		"[translator]\nreceive = auto\nxdp_mode = native\n",
		"[translator]\nreceive = socket\n",
		"[translator]\nhealth_loss_ratio = 0.01\nhealth_window_s = 0.5\n",
		"[translator]\nhealth_loss_ratio = 0\n",
		"[translator]\nhealth_loss_ratio = 1\nhealth_window_s = 3600\n",
		"[translator]\nmetrics_listen = 9465\n[collector]\n"
		"metrics_listen = 0.0.0.0:65535\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char err[256] = "";
		struct dta_config *c = parse(ok[i], err);

		if (!c)
			fail_msg("config %zu refused: %s", i, err);
		dta_config_destroy(c);
	}
}

/* Each bad value is refused at load time with "line N: KEY: why": before,
 * the first three made the translator exit 1 with no message, and the
 * others were accepted (restore = maybe as no, stats_interval_s = abc as
 * 0, pc_timeout_ms = 2^58 as 0 ns after conversion). */
static void test_program_values_bad(void **state)
{
	(void)state;
	expect_error("[translator]\npc_cache = 0\n", "line 2: pc_cache: '0'");
	expect_error("[translator]\npc_cache = 2G\n", "line 2: pc_cache:");
	expect_error("[translator]\n\npc_timeout_ms = 0\n",
		     "line 3: pc_timeout_ms: '0'");
	expect_error("[translator]\nap_timeout_ms = 0\n", "line 2: ap_timeout_ms:");
	expect_error("[translator]\npc_timeout_ms = 288230376151711744\n",
		     "line 2: pc_timeout_ms: '288230376151711744' is not a whole "
		     "number from 1 to 4611686018427");
	expect_error("[translator]\nap_timeout_ms = 4611686018428\n",
		     "line 2: ap_timeout_ms:");
	expect_error("[translator]\nki_window_us = 16E\n", "line 2: ki_window_us:");
	expect_error("[translator]\nrx = xdp\n", "line 2: rx:");
	expect_error("[translator]\nrx = auto\n", "line 2: rx:");
	expect_error("[translator]\nrx_batch = 0\n", "line 2: rx_batch:");
	expect_error("[translator]\nrx_batch = 4097\n", "line 2: rx_batch:");
	expect_error("[translator]\nrx_wait_us = 10001\n", "line 2: rx_wait_us:");
	expect_error("[collector]\nrestore = maybe\n",
		     "line 2: restore: 'maybe' is not yes, no");
	expect_error("[collector]\nhuge_pages = maybe\n", "line 2: huge_pages:");
	expect_error("[collector]\nhuge_pages = YES\n", "line 2: huge_pages:");
	expect_error("[translator]\nstats_interval_s = abc\n",
		     "line 2: stats_interval_s: 'abc'");
	expect_error("[translator]\nstats_interval_s = -1\n", "stats_interval_s:");
	expect_error("[translator]\nstats_interval_s = 1x\n", "stats_interval_s:");
	expect_error("[translator]\nhealth_loss_ratio = 1.5\n",
		     "line 2: health_loss_ratio: '1.5' is not a fraction from 0 to 1");
	expect_error("[translator]\nhealth_loss_ratio = -0.1\n",
		     "health_loss_ratio:");
	expect_error("[translator]\nhealth_loss_ratio = 1%\n",
		     "health_loss_ratio:");
	expect_error("[translator]\nhealth_window_s = x\n", "health_window_s:");
	expect_error("[translator]\nstats_interval_s = nan\n", "stats_interval_s:");
	expect_error("[translator]\nstats_interval_s = inf\n", "stats_interval_s:");
	expect_error("[translator]\nstats_interval_s = 1e10\n", "stats_interval_s:");
	expect_error("[translator]\nport = 0\n", "line 2: port:");
	expect_error("[translator]\nport = 65536\n", "line 2: port:");
	expect_error("[translator]\nworkers = 65\n", "line 2: workers:");
	expect_error("[translator]\nworkers = two\n", "line 2: workers:");
	expect_error("[translator]\nrdma_qps = 17\n", "line 2: rdma_qps:");
	expect_error("[translator]\nlegacy = on\n",
		     "line 2: legacy: 'on' is not one of auto|plain|nack|off");
	expect_error("[translator]\nsink = shmm\n", "line 2: sink:");
	expect_error("[translator]\nreceive = af_xdp\n",
		     "line 2: receive: 'af_xdp' is not one of socket|xdp|auto");
	expect_error("[translator]\nxdp_mode = skb\n",
		     "line 2: xdp_mode: 'skb' is not one of native|generic");
	expect_error("[translator]\nbind = localhost\n", "line 2: bind:");
	expect_error("[translator]\nrdma_collector = 10.0.0.1:0\n",
		     "line 2: rdma_collector:");
	expect_error("[translator]\nrdma_collector = :40050\n",
		     "line 2: rdma_collector:");
	expect_error("[translator]\nallow = 10.0.0.0/33\n", "line 2: allow:");
	expect_error("[translator]\nallow = 10.0.0.0/8,,\n", "line 2: allow:");
	expect_error("[translator]\nallow = ::1\n", "line 2: allow:");
	expect_error("[translator]\nallow = 10.0.0.1,\n", "line 2: allow:");
	expect_error("[translator]\nallow = example.com\n", "line 2: allow:");
	expect_error("[collector]\nrdma_allow = ::1\n", "line 2: rdma_allow:");
	expect_error("[collector]\nrdma_allow = 10.0.0.0/x\n", "line 2: rdma_allow:");
	expect_error("[collector]\nrdma_port = 0\n", "line 2: rdma_port:");
	expect_error("[collector]\nmetrics_listen = 0\n",
		     "line 2: metrics_listen:");
	expect_error("[collector]\nmetrics_listen = localhost:9464\n",
		     "line 2: metrics_listen:");
	expect_error("[collector]\nmetrics_listen = :9464\n",
		     "line 2: metrics_listen:");
	expect_error("[translator]\nmetrics_listen = 127.0.0.1:65536\n",
		     "line 2: metrics_listen:");
	expect_error("[translator]\nmetrics_listen = 127.0.0.1:\n",
		     "line 2: metrics_listen:");
	expect_error("[collector]\nrdma_bind = 10.0.0\n", "line 2: rdma_bind:");
	expect_error("[collector]\nswitch_peer = 300.0.0.1\n", "line 2: switch_peer:");
	expect_error("[collector]\nswitch_qpn = 0\n", "line 2: switch_qpn:");
	expect_error("[collector]\nswitch_psn = 0x1000000\n", "line 2: switch_psn:");
	expect_error("[collector]\nsocket_mode = 0800\n",
		     "line 2: socket_mode: '0800' is not an octal mode");
	expect_error("[collector]\nshm_mode = 01777\n", "line 2: shm_mode:");
	expect_error("[collector]\nshm_mode = rw\n", "line 2: shm_mode:");
	expect_error("[collector]\nshm_mode = 0666\n",
		     "line 2: shm_mode: '0666' must include 0600 and grant "
		     "nothing beyond 0660");
	expect_error("[collector]\nsocket_mode = 0066\n",
		     "line 2: socket_mode: '0066' must include 0600");
	expect_error("[collector]\nidle_timeout = 4611686019\n",
		     "line 2: idle_timeout:");
	expect_error("[collector]\nname = a/b\n", "line 2: name: 'a/b'");
	/* The same checks in a named collector's section. */
	expect_error("[collector e]\nrestore = maybe\n", "line 2: restore:");
}

/* dta_config_load() names the file: "PATH:LINE: KEY: why". */
static void test_load_names_file(void **state)
{
	char path[] = "/tmp/test_config_XXXXXX", err[512], want[600];
	static const char text[] = "[translator]\n# pc\npc_cache = 0\n";
	struct dta_config *c = (void *)1;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (int)sizeof(text) - 1);
	close(fd);
	assert_int_equal(dta_config_load(path, &c, err, sizeof(err)),
			 -DTA_E_MALFORMED);
	assert_null(c);
	snprintf(want, sizeof(want), "%s:3: pc_cache: '0' is not a number from "
		 "1 to 1073741824", path);
	assert_string_equal(err, want);
	unlink(path);
}

/* The [int] section: structures by role, defaults, and every mistake. */
#define INT_STRUCTS                                                           \
	"[structure path]\nprimitive = key-write\nmemory = 1M\ndata = 16\n"  \
	"redundancy = 2\n"                                                    \
	"[structure hops]\nprimitive = key-write\nmemory = 1M\ndata = 16\n"  \
	"[structure post]\nprimitive = postcard\nchunks = 1000\n"            \
	"[structure ev]\nprimitive = append\nentry = 32\nlists = 4\n"        \
	"[structure ev8]\nprimitive = append\nentry = 8\n"                   \
	"first_list = 8\n"                                                    \
	"[structure ctr]\nprimitive = ki\nwidth = 1K\n"                      \
	"[structure kw6]\nprimitive = key-write\nmemory = 1M\ndata = 6\n"

static void test_int_section(void **state)
{
	char err[256];
	struct dta_config *c;
	struct dta_int_map m;
	uint16_t port = 0;

	(void)state;
	/* no [int]: nothing mapped, the default port */
	c = parse(INT_STRUCTS, err);
	assert_non_null(c);
	assert_int_equal(dta_config_int_map(c, &m, &port), 0);
	assert_int_equal(port, 32766);
	assert_int_equal(m.path_kw, DTA_INT_MAP_NONE);
	assert_int_equal(m.path_pc, DTA_INT_MAP_NONE);
	assert_int_equal(m.events_ap, DTA_INT_MAP_NONE);
	dta_config_destroy(c);

	c = parse("[int]\nport = 9555\npath = path\nhops = hops\n"
		  "events = ev\nevents_by = reason\nflow_counts = ctr\n"
		  "queue_counts = ctr\nredundancy = 2\nttl_init = 64\n"
		  "md_udp_port = 5000\n" INT_STRUCTS, err);
	assert_non_null(c);
	assert_int_equal(dta_config_int_map(c, &m, &port), 1);
	assert_int_equal(port, 9555);
	assert_int_equal(m.path_kw, 0);
	assert_int_equal(m.path_pc, DTA_INT_MAP_NONE);
	assert_int_equal(m.hop_kw, 1);
	assert_int_equal(m.events_ap, 3);
	assert_int_equal(m.events_by, DTA_INT_EVENTS_REASON);
	assert_int_equal(m.flow_ki, 5);
	assert_int_equal(m.queue_ki, 5);
	assert_int_equal(m.redundancy, 2);
	assert_int_equal(m.decode.ttl_init, 64);
	assert_int_equal(m.decode.udp_port, 5000);
	assert_int_equal(m.decode.dscp_mask, 1);
	assert_int_equal(m.decode.dscp_value, 1);
	assert_string_equal(dta_config_get(c, "int", "events_by"), "reason");
	dta_config_destroy(c);

	/* a Postcarding path */
	c = parse(INT_STRUCTS "[int]\npath = post\ndscp_mask = 0\n", err);
	assert_non_null(c);
	assert_int_equal(dta_config_int_map(c, &m, NULL), 1);
	assert_int_equal(m.path_kw, DTA_INT_MAP_NONE);
	assert_int_equal(m.path_pc, 2);
	assert_int_equal(m.decode.dscp_mask, 0);
	dta_config_destroy(c);
}

static void test_int_section_bad(void **state)
{
	(void)state;
	expect_error(INT_STRUCTS "[int]\npath = nosuch\n",
		     "path: no structure named 'nosuch'");
	expect_error(INT_STRUCTS "[int]\nhops = post\n",
		     "hops: structure post is postcard, not a Key-Write");
	expect_error(INT_STRUCTS "[int]\nflow_counts = path\n",
		     "flow_counts: structure path is key-write, not a "
		     "Key-Increment");
	expect_error(INT_STRUCTS "[int]\npath = ev\n", "path: structure ev is");
	expect_error(INT_STRUCTS "[int]\npath = kw6\n",
		     "path: structure kw6 has data_len 6, not a multiple of 4");
	expect_error(INT_STRUCTS "[int]\nhops = kw6\n",
		     "hops: structure kw6 has data_len 6, below the 16 bytes");
	expect_error(INT_STRUCTS "[int]\nevents = ev8\n",
		     "events: structure ev8 has entry_size 8, not the 32");
	expect_error(INT_STRUCTS "[int]\n\npath = path\nredundancy = 3\n",
		     "redundancy: 3 is above structure path's max_redundancy");
	expect_error("[int]\nevents_by = queue\n",
		     "line 2: events_by: 'queue' is not one of one|switch|reason");
	expect_error("[int]\nport = 0\n", "line 2: port:");
	expect_error("[int]\nttl_init = 256\n", "line 2: ttl_init:");
	expect_error("[int]\ndscp_value = 64\n", "line 2: dscp_value:");
	expect_error("[int]\nwhat = 1\n", "line 2: what: unknown key in [int]");
	expect_error("[int]\n[int]\n", "[int] given twice");
}

static void schema_text(const struct dta_config *c, const char *name,
			char *out)
{
	const struct dta_config_structure *cs = dta_config_find(c, name);

	assert_non_null(cs);
	if (!cs->schema) {
		strcpy(out, "(none)");
		return;
	}
	assert_true(dta_schema_format(cs->schema, out, DTA_SCHEMA_TEXT_MAX) > 0);
}

static void test_schema_key(void **state)
{
	char err[256], text[DTA_SCHEMA_TEXT_MAX], conf[4096], *p;
	struct dta_config *c;
	const struct dta_config_structure *cs;

	(void)state;
	c = parse("[structure flows]\nprimitive = kw\nmemory = 1M\n"
		  "data = 40\nschema = src:u32, dst:u32, hops:u8, "
		  "pad:bytes[3], path:u32[5], ts:u64:time   # comment\n"
		  "[structure ev]\nprimitive = append\nentry = 6\n"
		  "schema = a:u16le b:i32\n"
		  "[structure plain]\nprimitive = kw\nmemory = 1M\n", err);
	if (!c)
		fail_msg("%s", err);
	cs = dta_config_find(c, "flows");
	assert_non_null(cs->schema);
	assert_int_equal(cs->schema->nfields, 6);
	assert_int_equal(cs->schema->size, 40);
	assert_int_equal(cs->schema->f[5].offset, 32);
	schema_text(c, "flows", text);
	assert_string_equal(text, "src:u32, dst:u32, hops:u8, pad:bytes[3], "
				  "path:u32[5], ts:u64:time_ns");
	schema_text(c, "ev", text);
	assert_string_equal(text, "a:u16le, b:i32");
	assert_null(dta_config_find(c, "plain")->schema);
	dta_config_destroy(c);

	/* Longer than the 255 characters of other values: 32 fields. */
	p = conf + sprintf(conf, "[structure wide]\nprimitive = kw\n"
			   "memory = 1M\ndata = 256\nschema =");
	for (int i = 0; i < 32; i++)
		p += sprintf(p, " field_number_%02d:u64", i);
	strcpy(p, "\n");
	assert_true(strlen(conf) > 700);
	c = parse(conf, err);
	if (!c)
		fail_msg("%s", err);
	assert_int_equal(dta_config_find(c, "wide")->schema->nfields, 32);
	dta_config_destroy(c);
	/* ...but only the schema key may be that long. */
	expect_error("[structure a]\nprimitive = kw\nseed = "
		     "0000000000000000000000000000000000000000000000000000000"
		     "0000000000000000000000000000000000000000000000000000000"
		     "0000000000000000000000000000000000000000000000000000000"
		     "0000000000000000000000000000000000000000000000000000000"
		     "00000000000000000000000000000000000000000000000000001\n",
		     "line 3: seed: value missing or longer than 255");
}

static void test_schema_key_bad(void **state)
{
	(void)state;
	expect_error("[structure a]\nprimitive = kw\ndata = 8\n"
		     "schema = x:u32\n",
		     "line 4: schema: its fields take 4 bytes, not the 8 of "
		     "'data'");
	expect_error("[structure a]\nprimitive = ap\nentry = 8\n"
		     "schema = x:u32[3]\n",
		     "line 4: schema: its fields take 12 bytes, not the 8 of "
		     "'entry'");
	/* The default data size, 4, counts too. */
	expect_error("[structure a]\nprimitive = kw\nschema = x:u16\n",
		     "line 3: schema: its fields take 2 bytes, not the 4 of "
		     "'data'");
	expect_error("[structure a]\nprimitive = kw\ndata = 20\n"
		     "schema = a:u32 path:u32[0]\n",
		     "line 4: schema: field 2 (path): count 0 is not 1..255");
	expect_error("[structure a]\nprimitive = kw\nschema = \n",
		     "line 3: schema: value missing");
	expect_error("[structure p]\nprimitive = postcard\n"
		     "schema = x:u32\n",
		     "line 3: schema: a postcard structure holds no values a "
		     "schema describes");
	expect_error("[structure k]\nprimitive = ki\nschema = x:u32\n",
		     "line 3: schema: a key-increment structure holds no "
		     "values");
	expect_error("[collector]\nschema = x:u32\n",
		     "line 2: schema: unknown key in [collector]");
	expect_error("[structure a]\nprimitive = kw\nschema = x:u32\n"
		     "schema = y:u32\n", "line 4: schema: given twice");
}

static void test_schema_int_builtin(void **state)
{
	char err[256], text[DTA_SCHEMA_TEXT_MAX];
	struct dta_config *c;

	(void)state;
	c = parse(INT_STRUCTS "[structure h20]\nprimitive = kw\n"
		  "memory = 1M\ndata = 20\n"
		  "[int]\npath = path\nhops = h20\nevents = ev\n", err);
	if (!c)
		fail_msg("%s", err);
	schema_text(c, "path", text);
	assert_string_equal(text, "path:u32[4]");
	schema_text(c, "h20", text);
	assert_string_equal(text, "hop_latency:u32, queue_occupancy:u32, "
				  "egress_ts:u64:time_ns, pad:bytes[4]");
	schema_text(c, "ev", text);
	assert_string_equal(text, "switch_id:u32, ingress_port:u16, "
				  "egress_port:u16, flags:u8, queue_id:u8, "
				  "drop_reason:u8, version:u8, "
				  "queue_occupancy:u32, flow_hash:u32, "
				  "hop_latency:u32, time:u64:time_ns");
	/* Structures without a role get nothing. */
	schema_text(c, "hops", text);
	assert_string_equal(text, "(none)");
	schema_text(c, "kw6", text);
	assert_string_equal(text, "(none)");
	dta_config_destroy(c);

	/* A Postcarding path has no schema; a declared one is kept. */
	c = parse("[structure post]\nprimitive = postcard\nchunks = 100\n"
		  "[structure hk]\nprimitive = kw\nmemory = 1M\ndata = 16\n"
		  "schema = lat:u32le occ:u32le ts:u64le:time_us\n"
		  "[int]\npath = post\nhops = hk\n", err);
	if (!c)
		fail_msg("%s", err);
	schema_text(c, "post", text);
	assert_string_equal(text, "(none)");
	schema_text(c, "hk", text);
	assert_string_equal(text, "lat:u32le, occ:u32le, ts:u64le:time_us");
	dta_config_destroy(c);

	/* A declared schema must have the role's size: data = 16 with a
	 * 16-byte schema is refused as a path only when not a multiple of 4
	 * (the role's own check), so its size always agrees here. */
	expect_error("[structure p]\nprimitive = kw\nmemory = 1M\n"
		     "data = 18\nschema = a:u16 b:u64[2]\n[int]\npath = p\n",
		     "path: structure p has data_len 18, not a multiple of 4");
}

/* Remote readers, epochs and [export] (issue 23): what is accepted is
 * read back; what is not names its line and why. */
static void test_remote_keys(void **state)
{
	static const char text[] =
		"[collector]\nquery_listen = 127.0.0.1:7420\n"
		"api_listen = 7421\nendpoint = host-a:7420\n"
		"tls_cert = /etc/dta/c.crt\ntls_key = /etc/dta/c.key\n"
		"tls_ca = /etc/dta/ca.crt\n"
		"[structure open]\nprimitive = kw\n"
		"[structure closed]\nprimitive = kw\n"
		"readers = grafana, ana.lyst@lab ,x-1\n"
		"[structure counts]\nprimitive = ki\nbanks = 2\nepoch = 60\n"
		"[export]\nclickhouse_url = http://127.0.0.1:8123/\n"
		"batch_rows = 50000\nflush_ms = 500\n";
	const struct dta_config_structure *open, *closed, *counts;
	struct dta_config *c = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(dta_config_parse(text, strlen(text), &c, err,
					  sizeof(err)), 0);
	assert_string_equal(dta_config_get(c, "collector", "endpoint"),
			    "host-a:7420");
	assert_string_equal(dta_config_get(c, "export", "batch_rows"), "50000");
	open = dta_config_find(c, "open");
	closed = dta_config_find(c, "closed");
	counts = dta_config_find(c, "counts");
	assert_true(dta_config_may_read(open, "anyone"));
	assert_true(dta_config_may_read(closed, "grafana"));
	assert_true(dta_config_may_read(closed, "ana.lyst@lab"));
	assert_true(dta_config_may_read(closed, "x-1"));
	assert_false(dta_config_may_read(closed, "graf"));
	assert_false(dta_config_may_read(closed, "grafana2"));
	assert_false(dta_config_may_read(closed, NULL));
	assert_int_equal(counts->epoch_s, 60);
	assert_int_equal(open->epoch_s, 0);
	dta_config_destroy(c);

	assert_true(dta_config_reader_valid("a"));
	assert_false(dta_config_reader_valid(""));
	assert_false(dta_config_reader_valid("a b"));
	assert_false(dta_config_reader_valid("a,b"));
	assert_false(dta_config_reader_valid(
		"12345678901234567890123456789012345678901234567890123456789012345"));

	expect_error("[structure a]\nprimitive = kw\nreaders = ok, b d\n",
		     "line 3: readers: 'b d' is not a certificate name (1-64 "
		     "letters, digits, '.', '_', '@' or '-') or *");
	expect_error("[structure a]\nprimitive = kw\nreaders = ,\n",
		     "line 3: readers: name at least one reader (or *)");
	expect_error("[structure a]\nprimitive = kw\nepoch = 10\n",
		     "line 3: epoch: only a Key-Increment structure with banks "
		     "= 2 has epochs (one bank is written while the other is "
		     "read and reset)");
	expect_error("[structure a]\nprimitive = ki\nepoch = 10\n",
		     "line 3: epoch: only a Key-Increment structure with banks "
		     "= 2 has epochs (one bank is written while the other is "
		     "read and reset)");
	expect_error("[export]\nbatch_rows = 0\n",
		     "line 2: batch_rows: '0' is not a number from 1 to 16777216");
	expect_error("[export]\nsocket = x\n",
		     "line 2: socket: unknown key in [export]");
	expect_error("[export]\n[export]\n", "line 2: [export] given twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_prototype_memory_rounds_to_pow2),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sizes_and_files),
		cmocka_unit_test(test_collectors),
		cmocka_unit_test(test_program_values_good),
		cmocka_unit_test(test_program_values_bad),
		cmocka_unit_test(test_load_names_file),
		cmocka_unit_test(test_int_section),
		cmocka_unit_test(test_int_section_bad),
		cmocka_unit_test(test_schema_key),
		cmocka_unit_test(test_schema_key_bad),
		cmocka_unit_test(test_schema_int_builtin),
		cmocka_unit_test(test_remote_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
