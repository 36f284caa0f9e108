/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration file parser (format: docs/config.md).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dta/config.h"
#include "dta/hash.h"
#include "dta/schema.h"
#include "dta/translator.h"
#include "dta/wire.h"
#include "internal.h"

#define MAX_KV 32
#define VALUE_MAX 256
/* The one key whose value may be longer: a structure's schema (up to a
 * whole line). */
#define LINE_MAX_BYTES 2048
#define MAX_VALUES (1u << 20) /* Postcarding value set entries */

struct kv {
	char key[32];
	char val[VALUE_MAX];
	unsigned line;
	bool used;
};

struct section {
	int kind; /* SEC_* */
	char name[DTA_CONFIG_NAME_MAX];
	unsigned line;
	unsigned nkv;
	struct kv kv[MAX_KV];
	char schema[LINE_MAX_BYTES]; /* the "schema" key's value, in full */
};

enum {
	SEC_NONE,
	SEC_COLLECTOR,
	SEC_TRANSLATOR,
	SEC_STRUCTURE,
	SEC_INT,
	SEC_EXPORT,
};

struct dta_config {
	size_t n;
	struct dta_config_structure s[DTA_CONFIG_MAX_STRUCTURES];
	size_t ncoll;
	struct section coll[DTA_CONFIG_MAX_COLLECTORS]; /* [collector (NAME)] */
	struct section trans;                           /* [translator] */
	struct section intsec;                          /* [int] */
	struct section exportsec;                       /* [export] */
	bool has_int;
	struct kv coll_ref[DTA_CONFIG_MAX_STRUCTURES];  /* "collector" keys */
	struct dta_schema schemas[DTA_CONFIG_MAX_STRUCTURES]; /* s[i].schema */
};

/*
 * Every key of the [collector] and [translator] sections with the kind of
 * value it takes, checked when the file is loaded so that no program can
 * act on a bad value (or fail on it without saying which line). The
 * programs read the values with dta_config_get() and their own parsers;
 * the parsers here accept exactly what those accept (docs/config.md,
 * "Value types").
 */
enum key_type {
	KT_BOOL,     /* yes/no/true/false/1/0 */
	KT_UINT,     /* dta_parse_size() number in [min, max] */
	KT_DURATION, /* KT_UINT in a unit of @scale ns, ns below DURATION_NS_MAX */
	KT_SECONDS,  /* decimal seconds >= 0 (e.g. 0.5), ns below DURATION_NS_MAX */
	KT_RATIO,    /* a decimal fraction from 0 to 1 (e.g. 0.01) */
	KT_MODE,     /* octal permission bits, 0 .. 0777 */
	KT_STRING,   /* any text (a path, a host name) */
	KT_NAME,     /* [A-Za-z0-9_-], 1 .. DTA_CONFIG_NAME_MAX - 1 */
	KT_IPV4,     /* dotted-quad IPv4 address */
	KT_HOSTPORT, /* HOST or HOST:PORT, PORT 1 .. 65535 */
	KT_CIDRS4,   /* IPv4 addresses or a.b.c.d/len, comma-separated */
	KT_ENUM,     /* one of @choices ("a|b|c") */
	KT_LISTEN,   /* PORT or A.B.C.D:PORT, PORT 1 .. 65535 (a TCP listener) */
};

/* 2^62 ns, about 146 years: a duration in ns that can still be added to a
 * monotonic clock reading without overflow. */
#define DURATION_NS_MAX (1ull << 62)

struct key_rule {
	const char *key;
	enum key_type type;
	uint64_t min, max;   /* KT_UINT, KT_DURATION (in the key's unit);
			      * KT_MODE: bits required, bits allowed */
	uint64_t scale;      /* KT_DURATION: ns per unit */
	const char *choices; /* KT_ENUM */
};

static const struct key_rule collector_rules[] = {
	{ "name", KT_NAME, 0, 0, 0, NULL },
	{ "socket", KT_STRING, 0, 0, 0, NULL },
	{ "socket_mode", KT_MODE, 0600, 0777, 0, NULL },
	{ "shm_mode", KT_MODE, 0600, 0660, 0, NULL },
	{ "idle_timeout", KT_DURATION, 0, 86400 * 365, 1000000000ull, NULL },
	{ "stall_timeout", KT_DURATION, 0, 86400 * 365, 1000000000ull, NULL },
	{ "request_timeout", KT_DURATION, 0, 86400 * 365, 1000000000ull, NULL },
	{ "snapshot_dir", KT_STRING, 0, 0, 0, NULL },
	{ "shm_dir", KT_STRING, 0, 0, 0, NULL },
	{ "huge_pages", KT_BOOL, 0, 0, 0, NULL },
	{ "shared_memory", KT_BOOL, 0, 0, 0, NULL },
	{ "restore", KT_BOOL, 0, 0, 0, NULL },
	{ "rdma_bind", KT_IPV4, 0, 0, 0, NULL },
	{ "rdma_port", KT_UINT, 1, 65535, 0, NULL },
	{ "rdma_allow", KT_CIDRS4, 0, 0, 0, NULL },
	{ "switch_peer", KT_IPV4, 0, 0, 0, NULL },
	{ "switch_qpn", KT_UINT, 1, 0xFFFFFF, 0, NULL },
	{ "switch_psn", KT_UINT, 0, 0xFFFFFF, 0, NULL },
	{ "switch_meta", KT_STRING, 0, 0, 0, NULL },
	{ "metrics_listen", KT_LISTEN, 0, 0, 0, NULL },
	/* remote queries (docs/security.md "Remote queries") */
	{ "query_listen", KT_LISTEN, 0, 0, 0, NULL },
	{ "api_listen", KT_LISTEN, 0, 0, 0, NULL },
	{ "endpoint", KT_HOSTPORT, 0, 0, 0, NULL },
	{ "tls_cert", KT_STRING, 0, 0, 0, NULL },
	{ "tls_key", KT_STRING, 0, 0, 0, NULL },
	{ "tls_ca", KT_STRING, 0, 0, 0, NULL },
	/* Key-Increment epochs (docs/layouts.md "Epochs") */
	{ "epoch_dir", KT_STRING, 0, 0, 0, NULL },
	{ NULL, KT_STRING, 0, 0, 0, NULL },
};

/* [export]: dta-export (docs/export.md). */
static const struct key_rule export_rules[] = {
	{ "source", KT_STRING, 0, 0, 0, NULL },
	{ "structures", KT_STRING, 0, 0, 0, NULL },
	{ "state_dir", KT_STRING, 0, 0, 0, NULL },
	{ "batch_rows", KT_UINT, 1, 1u << 24, 0, NULL },
	{ "flush_ms", KT_DURATION, 1, 3600000, 1000000ull, NULL },
	{ "buffer_rows", KT_UINT, 1, 1u << 30, 0, NULL },
	{ "poll_ms", KT_DURATION, 1, 60000, 1000000ull, NULL },
	{ "clickhouse_url", KT_STRING, 0, 0, 0, NULL },
	{ "clickhouse_database", KT_NAME, 0, 0, 0, NULL },
	{ "clickhouse_table_prefix", KT_STRING, 0, 0, 0, NULL },
	{ "clickhouse_user", KT_STRING, 0, 0, 0, NULL },
	{ "clickhouse_password_file", KT_STRING, 0, 0, 0, NULL },
	{ "nats_url", KT_STRING, 0, 0, 0, NULL },
	{ "nats_stream", KT_NAME, 0, 0, 0, NULL },
	{ "nats_subject", KT_STRING, 0, 0, 0, NULL },
	{ "nats_creds", KT_STRING, 0, 0, 0, NULL },
	{ "nats_replicas", KT_UINT, 1, 5, 0, NULL },
	{ "tls_cert", KT_STRING, 0, 0, 0, NULL },
	{ "tls_key", KT_STRING, 0, 0, 0, NULL },
	{ "tls_ca", KT_STRING, 0, 0, 0, NULL },
	{ "metrics_listen", KT_LISTEN, 0, 0, 0, NULL },
	{ NULL, KT_STRING, 0, 0, 0, NULL },
};

static const struct key_rule translator_rules[] = {
	{ "port", KT_UINT, 1, 65535, 0, NULL },
	{ "bind", KT_IPV4, 0, 0, 0, NULL },
	{ "allow", KT_CIDRS4, 0, 0, 0, NULL },
	{ "workers", KT_UINT, 1, 64, 0, NULL },
	{ "pc_cache", KT_UINT, 1, 1u << 30, 0, NULL },
	{ "pc_timeout_ms", KT_DURATION, 1, UINT64_MAX, 1000000ull, NULL },
	{ "ap_timeout_ms", KT_DURATION, 1, UINT64_MAX, 1000000ull, NULL },
	{ "ki_window_us", KT_DURATION, 0, UINT64_MAX, 1000ull, NULL },
	{ "legacy", KT_ENUM, 0, 0, 0, "auto|plain|nack|off" },
	{ "rx", KT_ENUM, 0, 0, 0, "recvmmsg|uring" },
	{ "rx_batch", KT_UINT, 1, 4096, 0, NULL },
	{ "rx_wait_us", KT_DURATION, 0, 10000, 1000ull, NULL },
	/* the AF_XDP receive path (docs/translator.md "AF_XDP receive path") */
	{ "receive", KT_ENUM, 0, 0, 0, "socket|xdp|auto" },
	{ "xdp_interface", KT_STRING, 0, 0, 0, NULL },
	{ "xdp_mode", KT_ENUM, 0, 0, 0, "native|generic" },
	{ "populate", KT_BOOL, 0, 0, 0, NULL },
	{ "stats_interval_s", KT_SECONDS, 0, 0, 0, NULL },
	{ "health_loss_ratio", KT_RATIO, 0, 0, 0, NULL },
	{ "health_window_s", KT_SECONDS, 0, 0, 0, NULL },
	{ "rdma_collector", KT_HOSTPORT, 0, 0, 0, NULL },
	{ "rdma_qps", KT_UINT, 1, 16, 0, NULL },
	{ "sink", KT_ENUM, 0, 0, 0, "shm|rdma" },
	{ "switch_interface", KT_STRING, 0, 0, 0, NULL },
	{ "switch_meta", KT_STRING, 0, 0, 0, NULL },
	{ "metrics_listen", KT_LISTEN, 0, 0, 0, NULL },
	{ "reporter_labels", KT_UINT, 0, 4096, 0, NULL },
	{ NULL, KT_STRING, 0, 0, 0, NULL },
};

/* [int]: INT telemetry reports (docs/int.md "Mapping", "Configuration").
 * The structure keys are checked against the structures once the whole
 * file is read (resolve_int()). */
static const struct key_rule int_rules[] = {
	{ "port", KT_UINT, 1, 65535, 0, NULL },
	{ "path", KT_NAME, 0, 0, 0, NULL },
	{ "hops", KT_NAME, 0, 0, 0, NULL },
	{ "events", KT_NAME, 0, 0, 0, NULL },
	{ "events_by", KT_ENUM, 0, 0, 0, "one|switch|reason" },
	{ "flow_counts", KT_NAME, 0, 0, 0, NULL },
	{ "queue_counts", KT_NAME, 0, 0, 0, NULL },
	{ "redundancy", KT_UINT, 1, DTA_MAX_REDUNDANCY, 0, NULL },
	{ "dscp_mask", KT_UINT, 0, 63, 0, NULL },
	{ "dscp_value", KT_UINT, 0, 63, 0, NULL },
	{ "md_udp_port", KT_UINT, 0, 65535, 0, NULL },
	{ "ttl_init", KT_UINT, 0, 255, 0, NULL },
	{ "postcard_order", KT_ENUM, 0, 0, 0, "ttl|absolute" },
	{ NULL, KT_STRING, 0, 0, 0, NULL },
};

static bool valid_name(const char *n);

static int fail(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (err && errlen) {
		if (line)
			n = snprintf(err, errlen, "line %u: ", line);
		if (n < 0 || (size_t)n >= errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -DTA_E_MALFORMED;
}

DTA_API int dta_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !out || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static struct kv *find_kv(struct section *s, const char *key)
{
	for (unsigned i = 0; i < s->nkv; i++)
		if (!strcmp(s->kv[i].key, key)) {
			s->kv[i].used = true;
			return &s->kv[i];
		}
	return NULL;
}

/* An integer key within [lo, hi], or @def when absent. */
static int get_num(struct section *s, const char *key, uint64_t def,
		   uint64_t lo, uint64_t hi, uint64_t *out, char *err,
		   size_t errlen)
{
	struct kv *kv = find_kv(s, key);

	if (!kv) {
		*out = def;
		return 0;
	}
	if (dta_parse_size(kv->val, out) || *out < lo || *out > hi)
		return fail(err, errlen, kv->line,
			    "%s: '%s' is not a number from %llu to %llu", key,
			    kv->val, (unsigned long long)lo,
			    (unsigned long long)hi);
	return 0;
}

static char *trim(char *p);

/* "readers = NAME, NAME, .." (client certificate names; docs/security.md):
 * kept as given, checked to be a list of names. */
static int parse_readers(struct dta_config_structure *cs, struct kv *kv,
			 char *err, size_t errlen)
{
	char buf[VALUE_MAX], *save = NULL, *tok;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", kv->val);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (strcmp(tok, "*") && !dta_config_reader_valid(tok))
			return fail(err, errlen, kv->line,
				    "readers: '%s' is not a certificate name "
				    "(1-64 letters, digits, '.', '_', '@' or "
				    "'-') or *", tok);
		n++;
	}
	if (!n)
		return fail(err, errlen, kv->line,
			    "readers: name at least one reader (or *)");
	snprintf(cs->readers, sizeof(cs->readers), "%s", kv->val);
	return 0;
}

static char *trim(char *p)
{
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return p;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* "1-64, 100, 0x200-0x20f" -> sorted unique array. */
static int parse_values(struct dta_config_structure *cs, const struct kv *kv,
			char *err, size_t errlen)
{
	const char *p = kv->val;
	size_t n = 0, cap = 0;
	uint32_t *v = NULL;

	while (*p) {
		char buf[VALUE_MAX], *tok, *dash;
		uint64_t a, b;
		size_t len = strcspn(p, ",");

		memcpy(buf, p, len);
		buf[len] = 0;
		p += len + (p[len] == ',');
		tok = trim(buf);
		dash = *tok ? strchr(tok + 1, '-') : NULL;
		if (dash)
			*dash = 0;
		if (dta_parse_size(trim(tok), &a) || a > UINT32_MAX ||
		    (dash && (dta_parse_size(trim(dash + 1), &b) || b > UINT32_MAX ||
			      b < a)))
			goto bad;
		if (!dash)
			b = a;
		if (n + (b - a + 1) > MAX_VALUES) {
			free(v);
			return fail(err, errlen, kv->line,
				    "values: more than %u values", MAX_VALUES);
		}
		if (n + (b - a + 1) > cap) {
			size_t ncap = (n + (size_t)(b - a + 1)) * 2;
			uint32_t *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		for (uint64_t x = a; x <= b; x++)
			v[n++] = (uint32_t)x;
	}
	if (n == 0)
		goto bad;
	qsort(v, n, sizeof(*v), cmp_u32);
	{
		size_t w = 1;

		for (size_t i = 1; i < n; i++)
			if (v[i] != v[w - 1])
				v[w++] = v[i];
		n = w;
	}
	cs->values = v;
	cs->nvalues = n;
	return 0;
bad:
	free(v);
	return fail(err, errlen, kv->line,
		    "values: expected a list like 1-64,100 (32-bit numbers)");
}

static uint64_t pow2_floor(uint64_t x)
{
	return x ? 1ull << (63 - __builtin_clzll(x)) : 0;
}

/* Element count from "memory" (bytes) or the explicit count key. */
static int get_count(struct section *s, const char *count_key,
		     uint64_t unit, uint64_t def, bool pow2, uint64_t *out,
		     char *err, size_t errlen)
{
	struct kv *mem = find_kv(s, "memory"), *cnt = find_kv(s, count_key);
	uint64_t bytes;

	if (mem && cnt)
		return fail(err, errlen, cnt->line,
			    "%s: give either memory or %s, not both",
			    count_key, count_key);
	if (!mem)
		return get_num(s, count_key, def, 1, UINT64_MAX, out, err,
			       errlen);
	if (dta_parse_size(mem->val, &bytes) || bytes < unit)
		return fail(err, errlen, mem->line,
			    "memory: '%s' is not a size of at least %llu "
			    "bytes (e.g. 64M)", mem->val,
			    (unsigned long long)unit);
	*out = bytes / unit;
	if (pow2)
		*out = pow2_floor(*out);
	return 0;
}

/* The "schema" key of structure c->s[c->n] (docs/config.md "Value
 * schemas"): Key-Write data or Append entries, of exactly their size. */
static int structure_schema(struct dta_config *c, struct section *s,
			    const struct kv *kv, char *err, size_t errlen)
{
	struct dta_config_structure *cs = &c->s[c->n];
	struct dta_schema *sc = &c->schemas[c->n];
	const struct dta_layout *l = &cs->layout;
	char why[160];
	unsigned want;

	if (l->primitive == DTA_PRIM_KEY_WRITE)
		want = l->g.kw.data_len;
	else if (l->primitive == DTA_PRIM_APPEND)
		want = l->g.ap.entry_size;
	else
		return fail(err, errlen, kv->line, "schema: a %s structure "
			    "holds no values a schema describes (key-write "
			    "data or append entries)",
			    dta_primitive_name(l->primitive));
	if (dta_schema_parse(s->schema, sc, why, sizeof(why)))
		return fail(err, errlen, kv->line, "schema: %s", why);
	if (sc->size != want)
		return fail(err, errlen, kv->line, "schema: its fields take %u "
			    "bytes, not the %u of '%s'", (unsigned)sc->size,
			    want, l->primitive == DTA_PRIM_KEY_WRITE ? "data"
								    : "entry");
	cs->schema = sc;
	return 0;
}

static int finish_structure(struct dta_config *c, struct section *s,
			    char *err, size_t errlen)
{
	struct dta_config_structure *cs = &c->s[c->n];
	struct kv *kv = find_kv(s, "primitive"), *h;
	uint64_t a, b, d, e, f, seed;
	int prim, fam = DTA_HASH_CRC32C, rc;
	bool proto;

	if (!kv)
		return fail(err, errlen, s->line,
			    "structure %s: primitive is required", s->name);
	prim = dta_primitive_parse(kv->val);
	if (prim < 0)
		return fail(err, errlen, kv->line,
			    "primitive: '%s' is not key-write, postcard, "
			    "append or key-increment", kv->val);
	h = find_kv(s, "hash");
	if (h) {
		fam = dta_hash_family_parse(h->val);
		if (fam < 0)
			return fail(err, errlen, h->line,
				    "hash: '%s' is not crc32c, crc32, xxh3 or "
				    "prototype", h->val);
	}
	proto = fam == DTA_HASH_PROTOTYPE;
	rc = get_num(s, "seed", 0, 0, UINT64_MAX, &seed, err, errlen);
	if (rc)
		return rc;
	memset(cs, 0, sizeof(*cs));
	snprintf(cs->name, sizeof(cs->name), "%s", s->name);
	kv = find_kv(s, "collector");
	if (kv)
		c->coll_ref[c->n] = *kv;
	else
		memset(&c->coll_ref[c->n], 0, sizeof(c->coll_ref[0]));

	switch (prim) {
	case DTA_PRIM_KEY_WRITE:
		if ((rc = get_num(s, "data", 4, 1, DTA_DATA_MAX, &d, err, errlen)) ||
		    (rc = get_num(s, "checksum", 4, 1, 8, &e, err, errlen)) ||
		    (rc = get_num(s, "redundancy", proto ? 2 : DTA_KW_DEFAULT_REDUNDANCY,
				  1, DTA_MAX_REDUNDANCY, &f, err, errlen)) ||
		    (rc = get_count(s, "slots", d + e, 1u << 20, proto, &a, err,
				    errlen)))
			return rc;
		rc = dta_layout_kw(&cs->layout, a, (unsigned)d, (unsigned)e,
				   (unsigned)f, fam, seed);
		break;
	case DTA_PRIM_POSTCARD:
		if ((rc = get_num(s, "hops", 5, 1, DTA_MAX_HOPS, &b, err, errlen)) ||
		    (rc = get_num(s, "slot_bytes", 4, 1, 4, &e, err, errlen)) ||
		    (rc = get_num(s, "redundancy", proto ? 1 : 2, 1,
				  DTA_MAX_REDUNDANCY, &f, err, errlen)))
			return rc;
		{
			uint64_t chunk = 1;

			while (chunk < b * e)
				chunk <<= 1;
			rc = get_count(s, "chunks", chunk, 1u << 18, proto, &a,
				       err, errlen);
			if (rc)
				return rc;
		}
		rc = dta_layout_pc(&cs->layout, a, (unsigned)b, (unsigned)e,
				   (unsigned)f, fam, seed);
		if (!rc && (kv = find_kv(s, "values")) != NULL)
			rc = parse_values(cs, kv, err, errlen);
		if (rc == -DTA_E_MALFORMED || rc == -ENOMEM)
			return rc;
		break;
	case DTA_PRIM_APPEND:
		if ((rc = get_num(s, "lists", 1, 1, UINT32_MAX, &b, err, errlen)) ||
		    (rc = get_num(s, "first_list", 0, 0, UINT32_MAX, &seed, err,
				  errlen)) ||
		    (rc = get_num(s, "batch", 16, 1, 1024, &d, err, errlen)) ||
		    (rc = get_num(s, "entry", 4, 1, DTA_DATA_MAX, &e, err, errlen)) ||
		    (rc = get_num(s, "separate_trailer", 0, 0, 1, &f, err, errlen)))
			return rc;
		if (seed + b > (1ull << 32))
			return fail(err, errlen, s->line,
				    "structure %s: first_list + lists exceeds "
				    "32-bit list ids", s->name);
		rc = get_count(s, "batches", b * ((16 + d * e + 7) & ~7ull), 1024,
			       false, &a, err, errlen);
		if (rc)
			return rc;
		if (a > UINT32_MAX)
			a = UINT32_MAX;
		cs->list_base = (uint32_t)seed;
		rc = dta_layout_ap(&cs->layout, (uint32_t)b, (uint32_t)a,
				   (unsigned)d, (unsigned)e,
				   f ? DTA_AP_SEPARATE_TRAILER : 0);
		break;
	case DTA_PRIM_KEY_INCREMENT:
		if ((rc = get_num(s, "rows", 2, 1, DTA_MAX_REDUNDANCY, &b, err,
				  errlen)) ||
		    (rc = get_num(s, "banks", 1, 1, 2, &d, err, errlen)) ||
		    (rc = get_count(s, "width", 8 * b * d, 1u << 20, false, &a, err,
				    errlen)))
			return rc;
		rc = dta_layout_ki(&cs->layout, a, (unsigned)b, (unsigned)d, fam,
				   seed);
		break;
	}
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return fail(err, errlen, s->line,
			    "structure %s: impossible geometry for %s with hash "
			    "%s (%s; docs/config.md)", s->name,
			    dta_primitive_name(prim), dta_hash_family_name(fam),
			    dta_strerror(rc));
	kv = find_kv(s, "readers");
	if (kv && (rc = parse_readers(cs, kv, err, errlen)) != 0) {
		free(cs->values);
		cs->values = NULL;
		return rc;
	}
	rc = get_num(s, "epoch", 0, 0, 86400 * 365, &a, err, errlen);
	if (!rc && a && (prim != DTA_PRIM_KEY_INCREMENT ||
			 cs->layout.g.ki.banks != 2))
		rc = fail(err, errlen, find_kv(s, "epoch")->line,
			  "epoch: only a Key-Increment structure with banks = 2 "
			  "has epochs (one bank is written while the other is "
			  "read and reset)");
	if (rc) {
		free(cs->values);
		cs->values = NULL;
		return rc;
	}
	cs->epoch_s = (uint32_t)a;
	kv = find_kv(s, "schema");
	if (kv && (rc = structure_schema(c, s, kv, err, errlen)) != 0) {
		free(cs->values);
		cs->values = NULL;
		return rc;
	}
	for (unsigned i = 0; i < s->nkv; i++)
		if (!s->kv[i].used) {
			free(cs->values);
			cs->values = NULL;
			return fail(err, errlen, s->kv[i].line,
				    "%s: unknown key for a %s structure",
				    s->kv[i].key, dta_primitive_name(prim));
		}
	c->n++;
	return 0;
}

static bool is_bool(const char *v)
{
	static const char *const w[] = { "yes", "true", "1", "no", "false", "0" };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(v, w[i]))
			return true;
	return false;
}

/* "len" of a.b.c.d/len: decimal 0 .. @max. */
static bool parse_prefix(const char *p, unsigned max)
{
	unsigned v = 0;

	if (!*p)
		return false;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		v = v * 10 + (unsigned)(*p - '0');
		if (v > max)
			return false;
	}
	return true;
}

/* IPv4 addresses, optionally /len, separated by commas (and blanks, as
 * the programs' allow-list parser, tool_parse_allow(), takes them). */
static bool parse_cidrs(const char *v)
{
	char buf[VALUE_MAX], *save = NULL, *tok;
	unsigned n = 0;

	/* No empty item: "a,,b" or "a," lost an address. */
	for (const char *p = v; *p; p += strcspn(p, ","), p += *p == ',') {
		const char *q = p + strspn(p, " \t");

		if (*q == ',' || !*q)
			return false;
	}
	if (!*v || v[strlen(v) - 1] == ',')
		return false;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save), n++) {
		char *slash = strchr(tok, '/');
		unsigned char a[4];

		if (slash)
			*slash = 0;
		if (inet_pton(AF_INET, tok, a) != 1)
			return false;
		if (slash && !parse_prefix(slash + 1, 32))
			return false;
	}
	return n > 0;
}

static bool parse_mode(const char *v, uint64_t *out)
{
	uint64_t m = 0;

	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '7' || p - v >= 4)
			return false;
		m = m * 8 + (uint64_t)(*p - '0');
	}
	*out = m;
	return m <= 0777;
}

/* One [collector] or [translator] value against its rule. */
static int check_value(const struct key_rule *r, const struct kv *kv,
		       char *err, size_t errlen)
{
	const char *v = kv->val;
	uint64_t x;

	switch (r->type) {
	case KT_BOOL:
		if (!is_bool(v))
			return fail(err, errlen, kv->line, "%s: '%s' is not yes, "
				    "no, true, false, 1 or 0", r->key, v);
		return 0;
	case KT_UINT:
		if (dta_parse_size(v, &x) || x < r->min || x > r->max)
			return fail(err, errlen, kv->line, "%s: '%s' is not a "
				    "number from %llu to %llu", r->key, v,
				    (unsigned long long)r->min,
				    (unsigned long long)r->max);
		return 0;
	case KT_DURATION: {
		uint64_t most = (DURATION_NS_MAX - 1) / r->scale;

		if (r->max < most)
			most = r->max;
		if (dta_parse_size(v, &x) || x < r->min || x > most)
			return fail(err, errlen, kv->line, "%s: '%s' is not a "
				    "whole number from %llu to %llu", r->key, v,
				    (unsigned long long)r->min,
				    (unsigned long long)most);
		return 0;
	}
	case KT_SECONDS: {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (!isdigit((unsigned char)v[0]) || *end || errno ||
		    !(d >= 0 && d * 1e9 < (double)DURATION_NS_MAX))
			return fail(err, errlen, kv->line, "%s: '%s' is not a "
				    "number of seconds (e.g. 10 or 0.5) below "
				    "2^62 ns", r->key, v);
		return 0;
	}
	case KT_RATIO: {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (!isdigit((unsigned char)v[0]) || *end || errno ||
		    !(d >= 0 && d <= 1))
			return fail(err, errlen, kv->line, "%s: '%s' is not a "
				    "fraction from 0 to 1 (e.g. 0.01)", r->key, v);
		return 0;
	}
	case KT_MODE:
		if (!parse_mode(v, &x))
			return fail(err, errlen, kv->line, "%s: '%s' is not an "
				    "octal mode from 0 to 0777 (e.g. 0660)",
				    r->key, v);
		if ((x & r->min) != r->min || (r->max && (x & ~r->max)))
			return fail(err, errlen, kv->line, "%s: '%s' must "
				    "include %04llo and grant nothing beyond "
				    "%04llo", r->key, v,
				    (unsigned long long)r->min,
				    (unsigned long long)r->max);
		return 0;
	case KT_NAME:
		if (!valid_name(v))
			return fail(err, errlen, kv->line, "%s: '%.*s%s' is not "
				    "1-%d letters, digits, _ or -", r->key, 60, v,
				    strlen(v) > 60 ? "..." : "",
				    DTA_CONFIG_NAME_MAX - 1);
		return 0;
	case KT_IPV4: {
		unsigned char a[4];

		if (inet_pton(AF_INET, v, a) != 1)
			return fail(err, errlen, kv->line, "%s: '%s' is not an "
				    "IPv4 address (a.b.c.d)", r->key, v);
		return 0;
	}
	case KT_HOSTPORT: {
		const char *colon = strrchr(v, ':');

		if (colon && (colon == v || dta_parse_size(colon + 1, &x) ||
			      x == 0 || x > 65535 ||
			      !isdigit((unsigned char)colon[1])))
			return fail(err, errlen, kv->line, "%s: '%s' is not HOST "
				    "or HOST:PORT (PORT 1-65535)", r->key, v);
		return 0;
	}
	case KT_CIDRS4:
		if (!parse_cidrs(v))
			return fail(err, errlen, kv->line, "%s: '%s' is not a "
				    "comma-separated list of IPv4 addresses, each "
				    "optionally /LEN", r->key, v);
		return 0;
	case KT_ENUM: {
		size_t n = strlen(v);

		for (const char *c = r->choices; *c;) {
			size_t len = strcspn(c, "|");

			if (len == n && !strncmp(c, v, n))
				return 0;
			c += len + (c[len] == '|');
		}
		return fail(err, errlen, kv->line, "%s: '%s' is not one of %s",
			    r->key, v, r->choices);
	}
	case KT_LISTEN: {
		const char *colon = strrchr(v, ':'), *port = colon ? colon + 1 : v;
		unsigned char a[4];
		char addr[INET_ADDRSTRLEN] = "";

		if (colon && (size_t)(colon - v) < sizeof(addr))
			memcpy(addr, v, (size_t)(colon - v));
		if ((colon && inet_pton(AF_INET, addr, a) != 1) ||
		    !isdigit((unsigned char)*port) ||
		    dta_parse_size(port, &x) || x == 0 || x > 65535 ||
		    strspn(port, "0123456789") != strlen(port))
			return fail(err, errlen, kv->line, "%s: '%s' is not PORT "
				    "or A.B.C.D:PORT (PORT 1-65535)", r->key, v);
		return 0;
	}
	case KT_STRING:
		return 0;
	}
	return 0;
}

static int check_prog_keys(struct section *s, char *err, size_t errlen)
{
	const struct key_rule *rules = s->kind == SEC_COLLECTOR ? collector_rules
				       : s->kind == SEC_INT    ? int_rules
				       : s->kind == SEC_EXPORT ? export_rules
							       : translator_rules;

	for (unsigned i = 0; i < s->nkv; i++) {
		const struct key_rule *r = rules;
		int rc;

		while (r->key && strcmp(r->key, s->kv[i].key))
			r++;
		if (!r->key)
			return fail(err, errlen, s->kv[i].line,
				    "%s: unknown key in [%s%s%s]", s->kv[i].key,
				    s->kind == SEC_COLLECTOR ? "collector"
				    : s->kind == SEC_INT     ? "int"
				    : s->kind == SEC_EXPORT  ? "export"
							     : "translator",
				    s->name[0] ? " " : "", s->name);
		rc = check_value(r, &s->kv[i], err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static int end_section(struct dta_config *c, struct section *s, char *err,
		       size_t errlen)
{
	int rc = 0;

	switch (s->kind) {
	case SEC_STRUCTURE:
		rc = finish_structure(c, s, err, errlen);
		break;
	case SEC_COLLECTOR:
		rc = check_prog_keys(s, err, errlen);
		if (!rc && !s->name[0])
			c->coll[0] = *s;
		else if (!rc)
			c->coll[c->ncoll++] = *s;
		break;
	case SEC_TRANSLATOR:
		rc = check_prog_keys(s, err, errlen);
		if (!rc)
			c->trans = *s;
		break;
	case SEC_INT:
		rc = check_prog_keys(s, err, errlen);
		if (!rc) {
			c->intsec = *s;
			c->has_int = true;
		}
		break;
	case SEC_EXPORT:
		rc = check_prog_keys(s, err, errlen);
		if (!rc)
			c->exportsec = *s;
		break;
	default:
		break;
	}
	s->kind = SEC_NONE;
	s->nkv = 0;
	return rc;
}

static bool valid_name(const char *n)
{
	size_t len = strlen(n);

	if (len == 0 || len >= DTA_CONFIG_NAME_MAX)
		return false;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && *n != '_' && *n != '-')
			return false;
	return true;
}

static int parse_header(struct dta_config *c, struct section *s, char *p,
			unsigned line, bool *seen, char *err, size_t errlen)
{
	char *end = strchr(p, ']'), *name;

	if (!end || *trim(end + 1))
		return fail(err, errlen, line, "expected [section]");
	*end = 0;
	p = trim(p + 1);
	s->line = line;
	s->name[0] = 0;
	if (!strcmp(p, "collector") || !strcmp(p, "translator") ||
	    !strcmp(p, "int") || !strcmp(p, "export")) {
		s->kind = !strcmp(p, "collector")    ? SEC_COLLECTOR
			  : !strcmp(p, "translator") ? SEC_TRANSLATOR
			  : !strcmp(p, "int")        ? SEC_INT
						     : SEC_EXPORT;
		if (seen[s->kind])
			return fail(err, errlen, line, "[%s] given twice", p);
		seen[s->kind] = true;
		return 0;
	}
	if (!strncmp(p, "collector", 9) && (p[9] == ' ' || p[9] == '\t')) {
		name = trim(p + 9);
		if (!valid_name(name) || !strcmp(name, "default"))
			return fail(err, errlen, line,
				    "collector names are 1-%d letters, digits, "
				    "_ or - (and not 'default')",
				    DTA_CONFIG_NAME_MAX - 1);
		if (dta_config_collector_find(c, name) >= 0)
			return fail(err, errlen, line, "[collector %s] given "
				    "twice", name);
		if (c->ncoll == DTA_CONFIG_MAX_COLLECTORS)
			return fail(err, errlen, line, "more than %d collectors",
				    DTA_CONFIG_MAX_COLLECTORS);
		s->kind = SEC_COLLECTOR;
		snprintf(s->name, sizeof(s->name), "%s", name);
		return 0;
	}
	if (strncmp(p, "structure", 9) != 0 || (p[9] != ' ' && p[9] != '\t'))
		return fail(err, errlen, line,
			    "unknown section [%s] (collector, collector NAME, "
			    "translator, int, export or structure NAME)", p);
	name = trim(p + 9);
	if (!valid_name(name))
		return fail(err, errlen, line,
			    "structure names are 1-%d letters, digits, _ or -",
			    DTA_CONFIG_NAME_MAX - 1);
	if (dta_config_find(c, name))
		return fail(err, errlen, line, "structure %s declared twice",
			    name);
	if (c->n == DTA_CONFIG_MAX_STRUCTURES)
		return fail(err, errlen, line, "more than %d structures",
			    DTA_CONFIG_MAX_STRUCTURES);
	s->kind = SEC_STRUCTURE;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return 0;
}

static int parse_kv(struct section *s, char *p, unsigned line, char *err,
		    size_t errlen)
{
	char *eq = strchr(p, '='), *k, *v;

	if (!eq)
		return fail(err, errlen, line, "expected key = value");
	*eq = 0;
	k = trim(p);
	v = trim(eq + 1);
	if (s->kind == SEC_NONE)
		return fail(err, errlen, line, "key '%s' outside a section", k);
	if (!*k || strlen(k) >= sizeof(s->kv[0].key))
		return fail(err, errlen, line, "bad key");
	if (!*v || (strlen(v) >= VALUE_MAX &&
		    (s->kind != SEC_STRUCTURE || strcmp(k, "schema"))))
		return fail(err, errlen, line, "%s: value missing or longer "
			    "than %d characters", k, VALUE_MAX - 1);
	for (unsigned i = 0; i < s->nkv; i++)
		if (!strcmp(s->kv[i].key, k))
			return fail(err, errlen, line, "%s: given twice", k);
	if (s->nkv == MAX_KV)
		return fail(err, errlen, line, "too many keys in one section");
	snprintf(s->kv[s->nkv].key, sizeof(s->kv[0].key), "%s", k);
	snprintf(s->kv[s->nkv].val, VALUE_MAX, "%.*s", VALUE_MAX - 1, v);
	if (!strcmp(k, "schema"))
		snprintf(s->schema, sizeof(s->schema), "%s", v);
	s->kv[s->nkv].line = line;
	s->kv[s->nkv].used = false;
	s->nkv++;
	return 0;
}

/* Each structure's "collector" key: names of declared collectors. */
static int resolve_collectors(struct dta_config *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < c->n; i++) {
		struct dta_config_structure *cs = &c->s[i];
		const struct kv *kv = &c->coll_ref[i];
		const char *p = kv->val;

		cs->ncollectors = 1;
		cs->collectors[0] = 0;
		if (!kv->line)
			continue;
		cs->ncollectors = 0;
		while (*p) {
			char buf[VALUE_MAX];
			size_t len = strcspn(p, ",");
			int k;

			memcpy(buf, p, len);
			buf[len] = 0;
			p += len + (p[len] == ',');
			k = dta_config_collector_find(c, trim(buf));
			if (!*trim(buf) || k < 0)
				return fail(err, errlen, kv->line, "collector: "
					    "'%s' is not declared (a [collector "
					    "NAME] section, or 'default' for "
					    "[collector])", trim(buf));
			for (unsigned j = 0; j < cs->ncollectors; j++)
				if (cs->collectors[j] == k)
					return fail(err, errlen, kv->line,
						    "collector: %s listed twice",
						    trim(buf));
			cs->collectors[cs->ncollectors++] = (uint8_t)k;
		}
		if (cs->layout.primitive == DTA_PRIM_APPEND &&
		    cs->list_base + (uint64_t)cs->ncollectors *
				    cs->layout.g.ap.lists > (1ull << 32))
			return fail(err, errlen, kv->line, "structure %s: "
				    "first_list + lists x collectors exceeds "
				    "32-bit list ids", cs->name);
	}
	/* Append list ranges of all shares must not overlap. */
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = i + 1; j < c->n; j++) {
			const struct dta_config_structure *a = &c->s[i], *b = &c->s[j];
			uint64_t ae, be;

			if (a->layout.primitive != DTA_PRIM_APPEND ||
			    b->layout.primitive != DTA_PRIM_APPEND)
				continue;
			ae = a->list_base + (uint64_t)a->ncollectors * a->layout.g.ap.lists;
			be = b->list_base + (uint64_t)b->ncollectors * b->layout.g.ap.lists;
			if (a->list_base < be && b->list_base < ae)
				return fail(err, errlen, 0, "structures %s and %s "
					    "take overlapping Append list ids",
					    a->name, b->name);
		}
	return 0;
}

/* Structure @i has INT role @key: without a schema of its own it gets the
 * role's built-in one (dta_schema_int(); none when its size is beyond what
 * a schema can describe); a declared one must be of the same size. */
static int int_schema(struct dta_config *c, size_t i, const char *key,
		      const struct kv *kv, char *err, size_t errlen)
{
	struct dta_config_structure *cs = &c->s[i];
	const struct dta_layout *l = &cs->layout;
	struct dta_schema b;
	int role;
	size_t size;

	if (!strcmp(key, "path") && l->primitive == DTA_PRIM_KEY_WRITE)
		role = DTA_SCHEMA_INT_PATH;
	else if (!strcmp(key, "hops"))
		role = DTA_SCHEMA_INT_HOP;
	else if (!strcmp(key, "events"))
		role = DTA_SCHEMA_INT_EVENT;
	else
		return 0;
	size = role == DTA_SCHEMA_INT_EVENT ? l->g.ap.entry_size
					    : l->g.kw.data_len;
	if (dta_schema_int(role, size, &b))
		return 0;
	if (!cs->schema) {
		c->schemas[i] = b;
		cs->schema = &c->schemas[i];
	} else if (cs->schema->size != b.size) {
		return fail(err, errlen, kv->line, "%s: structure %s's schema "
			    "takes %u bytes, the role's values %u", key,
			    cs->name, (unsigned)cs->schema->size,
			    (unsigned)b.size);
	}
	return 0;
}

/* The [int] keys naming structures: each names a declared structure of a
 * primitive and size the role takes (dta_translator_set_int_map() checks
 * the same at run time). */
static int resolve_int(struct dta_config *c, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		int prim, prim2; /* accepted primitives */
		const char *what;
	} roles[] = {
		{ "path", DTA_PRIM_KEY_WRITE, DTA_PRIM_POSTCARD,
		  "a Key-Write or Postcarding structure" },
		{ "hops", DTA_PRIM_KEY_WRITE, 0, "a Key-Write structure" },
		{ "events", DTA_PRIM_APPEND, 0, "an Append structure" },
		{ "flow_counts", DTA_PRIM_KEY_INCREMENT, 0,
		  "a Key-Increment structure" },
		{ "queue_counts", DTA_PRIM_KEY_INCREMENT, 0,
		  "a Key-Increment structure" },
	};
	struct section *s = &c->intsec;
	int rc;

	if (!c->has_int)
		return 0;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		const struct kv *kv = find_kv(s, roles[i].key);
		const struct dta_config_structure *cs;
		const struct dta_layout *l;

		if (!kv)
			continue;
		cs = dta_config_find(c, kv->val);
		if (!cs)
			return fail(err, errlen, kv->line, "%s: no structure "
				    "named '%s'", roles[i].key, kv->val);
		l = &cs->layout;
		if (l->primitive != roles[i].prim &&
		    l->primitive != roles[i].prim2)
			return fail(err, errlen, kv->line, "%s: structure %s "
				    "is %s, not %s", roles[i].key, kv->val,
				    dta_primitive_name(l->primitive),
				    roles[i].what);
		if (!strcmp(roles[i].key, "path") &&
		    l->primitive == DTA_PRIM_KEY_WRITE && l->g.kw.data_len % 4)
			return fail(err, errlen, kv->line, "path: structure %s "
				    "has data_len %u, not a multiple of 4 "
				    "(4-byte switch ids)", kv->val,
				    (unsigned)l->g.kw.data_len);
		if (!strcmp(roles[i].key, "hops") &&
		    l->g.kw.data_len < DTA_INT_HOP_DATA_LEN)
			return fail(err, errlen, kv->line, "hops: structure %s "
				    "has data_len %u, below the %d bytes of a "
				    "hop record", kv->val,
				    (unsigned)l->g.kw.data_len,
				    DTA_INT_HOP_DATA_LEN);
		if (!strcmp(roles[i].key, "events") &&
		    l->g.ap.entry_size != DTA_INT_EVENT_SIZE)
			return fail(err, errlen, kv->line, "events: structure "
				    "%s has entry_size %u, not the %d bytes of "
				    "an event entry", kv->val,
				    (unsigned)l->g.ap.entry_size,
				    DTA_INT_EVENT_SIZE);
		rc = int_schema(c, (size_t)(cs - c->s), roles[i].key, kv, err,
				errlen);
		if (rc)
			return rc;
		if (!strcmp(roles[i].key, "hops") || !strcmp(roles[i].key, "path")) {
			const struct kv *rk = find_kv(s, "redundancy");
			uint64_t red;

			if (rk && l->primitive == DTA_PRIM_KEY_WRITE &&
			    !dta_parse_size(rk->val, &red) &&
			    red > l->g.kw.max_redundancy)
				return fail(err, errlen, rk->line, "redundancy: "
					    "%llu is above structure %s's "
					    "max_redundancy %u",
					    (unsigned long long)red, kv->val,
					    (unsigned)l->g.kw.max_redundancy);
		}
	}
	return 0;
}

DTA_API int dta_config_int_map(const struct dta_config *c,
			       struct dta_int_map *m, uint16_t *port)
{
	static const char *const keys[] = { "hops", "events", "flow_counts",
					    "queue_counts" };
	const char *v;
	uint64_t x;

	if (!c || !m)
		return -EINVAL;
	dta_int_map_init(m);
	if (port)
		*port = DTA_INT_V05_UDP_PORT;
	if (!c->has_int)
		return 0;
	if (port && (v = dta_config_get(c, "int", "port")) &&
	    !dta_parse_size(v, &x))
		*port = (uint16_t)x;
	if ((v = dta_config_get(c, "int", "path"))) {
		const struct dta_config_structure *cs = dta_config_find(c, v);
		int idx = (int)(cs - c->s);

		if (cs->layout.primitive == DTA_PRIM_KEY_WRITE)
			m->path_kw = idx;
		else
			m->path_pc = idx;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int *role = i == 0 ? &m->hop_kw : i == 1 ? &m->events_ap
			    : i == 2 ? &m->flow_ki : &m->queue_ki;

		if ((v = dta_config_get(c, "int", keys[i])))
			*role = (int)(dta_config_find(c, v) - c->s);
	}
	if ((v = dta_config_get(c, "int", "events_by")))
		m->events_by = !strcmp(v, "switch") ? DTA_INT_EVENTS_SWITCH
			       : !strcmp(v, "reason") ? DTA_INT_EVENTS_REASON
						      : DTA_INT_EVENTS_ONE;
	if ((v = dta_config_get(c, "int", "redundancy")) &&
	    !dta_parse_size(v, &x))
		m->redundancy = (unsigned)x;
	m->decode.sz = sizeof(m->decode);
	m->decode.dscp_mask = 0x01; /* dta_int_decode()'s defaults */
	m->decode.dscp_value = 0x01;
	if ((v = dta_config_get(c, "int", "dscp_mask")) && !dta_parse_size(v, &x))
		m->decode.dscp_mask = (uint8_t)x;
	if ((v = dta_config_get(c, "int", "dscp_value")) && !dta_parse_size(v, &x))
		m->decode.dscp_value = (uint8_t)x;
	if ((v = dta_config_get(c, "int", "md_udp_port")) &&
	    !dta_parse_size(v, &x))
		m->decode.udp_port = (uint16_t)x;
	if ((v = dta_config_get(c, "int", "ttl_init")) && !dta_parse_size(v, &x))
		m->decode.ttl_init = (uint8_t)x;
	if ((v = dta_config_get(c, "int", "postcard_order")))
		m->pc_order = strcmp(v, "absolute") ? DTA_INT_PC_BY_TTL
						     : DTA_INT_PC_ABSOLUTE;
	return 1;
}

DTA_API int dta_config_parse(const char *text, size_t len,
			     struct dta_config **out, char *err, size_t errlen)
{
	struct dta_config *c;
	struct section *s;
	bool seen[SEC_EXPORT + 1] = { false };
	unsigned line = 0;
	size_t pos = 0;
	int rc = 0;

	if (!out || (!text && len))
		return -EINVAL;
	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	c = calloc(1, sizeof(*c));
	s = calloc(1, sizeof(*s));
	if (!c || !s) {
		rc = -ENOMEM;
		goto out;
	}
	c->ncoll = 1; /* the unnamed [collector], written or not */
	c->coll[0].kind = SEC_COLLECTOR;
	while (pos < len) {
		char buf[LINE_MAX_BYTES], *p, *hash;
		size_t n = 0;

		line++;
		while (pos < len && text[pos] != '\n') {
			if (n + 1 >= sizeof(buf) || text[pos] == 0) {
				rc = fail(err, errlen, line,
					  text[pos] ? "line too long"
						    : "NUL byte in text");
				goto out;
			}
			buf[n++] = text[pos++];
		}
		pos++; /* the newline */
		buf[n] = 0;
		hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		p = trim(buf);
		if (!*p)
			continue;
		if (*p == '[') {
			rc = end_section(c, s, err, errlen);
			if (!rc)
				rc = parse_header(c, s, p, line, seen, err, errlen);
		} else {
			rc = parse_kv(s, p, line, err, errlen);
		}
		if (rc)
			goto out;
	}
	rc = end_section(c, s, err, errlen);
	if (!rc)
		rc = resolve_collectors(c, err, errlen);
	if (!rc)
		rc = resolve_int(c, err, errlen);
out:
	free(s);
	if (rc) {
		dta_config_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* "line N: why" -> "PATH:N: why", "why" -> "PATH: why" (truncated to fit). */
static void name_origin(const char *path, char *err, size_t errlen)
{
	char *copy = strdup(err);
	const char *why = copy;
	unsigned long line = 0;

	if (!copy)
		return;
	if (!strncmp(copy, "line ", 5) && isdigit((unsigned char)copy[5])) {
		char *end;

		line = strtoul(copy + 5, &end, 10);
		if (end[0] == ':' && end[1] == ' ')
			why = end + 2;
		else
			line = 0;
	}
	if (line)
		snprintf(err, errlen, "%s:%lu: %s", path, line, why);
	else
		snprintf(err, errlen, "%s: %s", path, why);
	free(copy);
}

DTA_API int dta_config_load(const char *path, struct dta_config **out,
			    char *err, size_t errlen)
{
	struct stat st;
	char *text;
	ssize_t got;
	int fd, rc;

	if (!path || !out)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size > (16 << 20)) {
		rc = st.st_size > (16 << 20) ? -EFBIG : -errno;
		close(fd);
		return rc;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	got = read(fd, text, (size_t)st.st_size);
	rc = got < 0 ? -errno : 0;
	close(fd);
	if (!rc)
		rc = dta_config_parse(text, (size_t)got, out, err, errlen);
	free(text);
	if (rc == -DTA_E_MALFORMED && err && errlen)
		name_origin(path, err, errlen);
	return rc;
}

DTA_API void dta_config_destroy(struct dta_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->s[i].values);
	free(c);
}

DTA_API size_t dta_config_count(const struct dta_config *c)
{
	return c ? c->n : 0;
}

DTA_API const struct dta_config_structure *
dta_config_structure(const struct dta_config *c, size_t i)
{
	return c && i < c->n ? &c->s[i] : NULL;
}

DTA_API const struct dta_config_structure *
dta_config_find(const struct dta_config *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, name))
			return &c->s[i];
	return NULL;
}

DTA_API const char *dta_config_get(const struct dta_config *c,
				   const char *section, const char *key)
{
	const struct section *s;

	if (!c || !section || !key)
		return NULL;
	if (!strcmp(section, "collector"))
		s = &c->coll[0];
	else if (!strncmp(section, "collector ", 10)) {
		int k = dta_config_collector_find(c, section + 10);

		if (k < 0)
			return NULL;
		s = &c->coll[k];
	} else if (!strcmp(section, "translator"))
		s = &c->trans;
	else if (!strcmp(section, "int"))
		s = &c->intsec;
	else if (!strcmp(section, "export"))
		s = &c->exportsec;
	else
		return NULL;
	for (unsigned i = 0; i < s->nkv; i++)
		if (!strcmp(s->kv[i].key, key))
			return s->kv[i].val;
	return NULL;
}

DTA_API size_t dta_config_collectors(const struct dta_config *c)
{
	return c ? c->ncoll : 0;
}

DTA_API const char *dta_config_collector_name(const struct dta_config *c,
					      size_t i)
{
	return c && i < c->ncoll ? c->coll[i].name : NULL;
}

DTA_API int dta_config_collector_find(const struct dta_config *c,
				      const char *name)
{
	if (!c)
		return -ENOENT;
	if (!name || !*name || !strcmp(name, "default"))
		return 0;
	for (size_t i = 1; i < c->ncoll; i++)
		if (!strcmp(c->coll[i].name, name))
			return (int)i;
	return -ENOENT;
}

DTA_API const char *dta_config_collector_get(const struct dta_config *c,
					     size_t i, const char *key)
{
	if (!c || i >= c->ncoll || !key)
		return NULL;
	for (unsigned j = 0; j < c->coll[i].nkv; j++)
		if (!strcmp(c->coll[i].kv[j].key, key))
			return c->coll[i].kv[j].val;
	return NULL;
}

DTA_API int dta_config_share(const struct dta_config_structure *cs, size_t i)
{
	if (!cs)
		return -ENOENT;
	for (unsigned k = 0; k < cs->ncollectors; k++)
		if (cs->collectors[k] == i)
			return (int)k;
	return -ENOENT;
}

DTA_API bool dta_config_reader_valid(const char *name)
{
	size_t n = 0;

	if (!name)
		return false;
	for (; name[n]; n++) {
		char ch = name[n];

		if (!isalnum((unsigned char)ch) && ch != '.' && ch != '_' &&
		    ch != '@' && ch != '-')
			return false;
	}
	return n >= 1 && n <= 64;
}

DTA_API bool dta_config_may_read(const struct dta_config_structure *cs,
				 const char *reader)
{
	char buf[sizeof(cs->readers)], *save = NULL, *tok;

	if (!cs || !reader)
		return false;
	if (!cs->readers[0])
		return true;
	snprintf(buf, sizeof(buf), "%s", cs->readers);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (!strcmp(tok, "*") || !strcmp(tok, reader))
			return true;
	}
	return false;
}
