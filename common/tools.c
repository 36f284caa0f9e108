/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the DTA programs; see tools.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"

int tool_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void tool_hex(const uint8_t *p, size_t len, char *out)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * len] = 0;
}

/* Value of hex digit @c, or -1 (a table: the collector decodes a key
 * per query). */
static int hexval(int c)
{
	static const signed char v[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
		['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
		['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
		['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14,
		['E'] = 15, ['F'] = 16,
	};

	return v[(unsigned char)c] - 1;
}

int tool_hex_run(const char **s, uint8_t *out, size_t cap)
{
	const char *p = *s;
	size_t n = 0;

	while (hexval(p[0]) >= 0) {
		int lo = hexval(p[1]);

		if (lo < 0 || n == cap)
			return -1;
		out[n++] = (uint8_t)(hexval(p[0]) << 4 | lo);
		p += 2;
	}
	*s = p;
	return (int)n;
}

int tool_unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

static int parse_proto(const char *s)
{
	char *end;
	unsigned long v;

	if (!strcasecmp(s, "tcp"))
		return 6;
	if (!strcasecmp(s, "udp"))
		return 17;
	if (!strcasecmp(s, "icmp"))
		return 1;
	v = strtoul(s, &end, 10);
	return *s && !*end && v < 256 ? (int)v : -1;
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into @addr (4 or 16 bytes). */
static int parse_endpoint(char *s, int v6, uint8_t *addr, uint16_t *port)
{
	char *colon, *end;
	unsigned long p;

	if (v6) {
		char *close = strchr(s, ']');

		if (s[0] != '[' || !close || close[1] != ':')
			return -1;
		*close = 0;
		if (inet_pton(AF_INET6, s + 1, addr) != 1)
			return -1;
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -1;
		*colon = 0;
		if (inet_pton(AF_INET, s, addr) != 1)
			return -1;
	}
	p = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || p > 65535)
		return -1;
	*port = (uint16_t)p;
	return 0;
}

int tool_parse_key(const char *s, uint8_t *key, size_t cap, char *err,
		   size_t errlen)
{
	char buf[256], *arrow, *slash;
	uint16_t sp, dp;
	int v6, proto, alen;

	if (!s || !*s)
		return tool_fail(err, errlen, -1, "empty key");
	if (strlen(s) >= sizeof(buf))
		return tool_fail(err, errlen, -1, "key too long");
	strcpy(buf, s);
	arrow = strstr(buf, "->");
	if (arrow) {
		v6 = buf[0] == '[';
		alen = v6 ? 16 : 4;
		slash = strrchr(arrow, '/');
		if (!slash || (proto = parse_proto(slash + 1)) < 0)
			return tool_fail(err, errlen, -1,
					 "5-tuple needs /tcp, /udp or /PROTO");
		if ((size_t)(2 * alen + 5) > cap)
			return tool_fail(err, errlen, -1, "key too long");
		*slash = 0;
		*arrow = 0;
		if (parse_endpoint(buf, v6, key, &sp) ||
		    parse_endpoint(arrow + 2, v6, key + alen, &dp))
			return tool_fail(err, errlen, -1,
					 "bad 5-tuple '%s' (want A:p->B:q/tcp or "
					 "[A6]:p->[B6]:q/udp)", s);
		key[2 * alen] = (uint8_t)(sp >> 8);
		key[2 * alen + 1] = (uint8_t)sp;
		key[2 * alen + 2] = (uint8_t)(dp >> 8);
		key[2 * alen + 3] = (uint8_t)dp;
		key[2 * alen + 4] = (uint8_t)proto;
		return 2 * alen + 5;
	}
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		int n = tool_unhex(buf, key, cap);

		return n > 0 ? n : tool_fail(err, errlen, -1,
					     "bad hex key '%s'", s);
	}
	if (strchr(buf, '.') && cap >= 4) {
		if (inet_pton(AF_INET, buf, key) == 1)
			return 4;
		return tool_fail(err, errlen, -1, "bad IPv4 address '%s'", s);
	}
	if (strchr(buf, ':') && cap >= 16) {
		if (inet_pton(AF_INET6, buf, key) == 1)
			return 16;
		return tool_fail(err, errlen, -1, "bad IPv6 address '%s'", s);
	}
	{
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(buf, &end, 10);
		if (errno || *end || buf[0] == '-')
			return tool_fail(err, errlen, -1,
					 "unrecognised key '%s' (docs/keys.md)",
					 s);
		if (v <= UINT32_MAX && cap >= 4) {
			for (int i = 0; i < 4; i++)
				key[i] = (uint8_t)(v >> (24 - 8 * i));
			return 4;
		}
		if (cap < 8)
			return tool_fail(err, errlen, -1, "key too long");
		for (int i = 0; i < 8; i++)
			key[i] = (uint8_t)(v >> (56 - 8 * i));
		return 8;
	}
}

int tool_parse_flow(const char *s, uint8_t *key, size_t cap, char *err,
		    size_t errlen)
{
	char buf[256], arrow[260];
	const char *dash, *orig = s;
	int n;

	if (!s || !*s)
		return tool_fail(err, errlen, -1, "empty flow");
	if (strlen(s) >= sizeof(buf))
		return tool_fail(err, errlen, -1, "flow too long");
	if (!strstr(s, "->") && (dash = strchr(s, '-')) != NULL) {
		/* Addresses hold no '-': the first one separates. */
		snprintf(arrow, sizeof(arrow), "%.*s->%s", (int)(dash - s), s,
			 dash + 1);
		s = arrow;
	}
	if (s[0] != '0' && !strstr(s, "->"))
		return tool_fail(err, errlen, -1,
				 "bad flow '%s' (want A:p-B:q/udp, "
				 "[A6]:p-[B6]:q/tcp or 0x + 13 or 37 bytes)",
				 orig);
	n = tool_parse_key(s, key, cap, buf, sizeof(buf));
	if (n < 0)
		return tool_fail(err, errlen, -1, "%s", buf);
	if (n != 13 && n != 37)
		return tool_fail(err, errlen, -1,
				 "bad flow '%s': a flow key is 13 (IPv4) or 37 "
				 "(IPv6) bytes, not %d", orig, n);
	return n;
}

static const char *proto_name(uint8_t p, char *buf)
{
	if (p == 6)
		return "tcp";
	if (p == 17)
		return "udp";
	if (p == 1)
		return "icmp";
	sprintf(buf, "%u", p);
	return buf;
}

void tool_format_key(const uint8_t *key, size_t len, char *out, size_t cap)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], pb[8];

	if (len == 13 || len == 37) {
		int v6 = len == 37, alen = v6 ? 16 : 4;
		const uint8_t *t = key + 2 * alen;

		inet_ntop(v6 ? AF_INET6 : AF_INET, key, a, sizeof(a));
		inet_ntop(v6 ? AF_INET6 : AF_INET, key + alen, b, sizeof(b));
		snprintf(out, cap, v6 ? "[%s]:%u->[%s]:%u/%s" : "%s:%u->%s:%u/%s",
			 a, (unsigned)(t[0] << 8 | t[1]), b,
			 (unsigned)(t[2] << 8 | t[3]), proto_name(t[4], pb));
		return;
	}
	if (cap < 2 * len + 3) {
		snprintf(out, cap, "(key)");
		return;
	}
	out[0] = '0';
	out[1] = 'x';
	tool_hex(key, len, out + 2);
}

const struct dta_config_structure *tool_route(const struct dta_config *c,
					      int opcode, unsigned data_len,
					      unsigned path_len, uint32_t list)
{
	for (size_t i = 0; i < dta_config_count(c); i++) {
		const struct dta_config_structure *s = dta_config_structure(c, i);
		const struct dta_layout *l = &s->layout;

		if (l->primitive != opcode)
			continue;
		switch (opcode) {
		case DTA_PRIM_KEY_WRITE:
			if (l->g.kw.data_len == data_len)
				return s;
			break;
		case DTA_PRIM_POSTCARD:
			if (path_len <= l->g.pc.hops)
				return s;
			break;
		case DTA_PRIM_APPEND:
			if (list >= s->list_base &&
			    list - s->list_base <
				    (uint64_t)l->g.ap.lists * s->ncollectors)
				return s;
			break;
		default:
			return s;
		}
	}
	return NULL;
}

int tool_parse_allow(const char *list, struct tool_net *out, size_t max)
{
	char buf[1024], *save = NULL, *tok;
	size_t n = 0;

	if (!list || !*list)
		return 0;
	if (strlen(list) >= sizeof(buf))
		return -E2BIG; /* cut short, an item could read as another */
	strcpy(buf, list);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		char *slash = strchr(tok, '/');
		unsigned bits = 32;
		struct in_addr a;

		if (n == max)
			return -E2BIG;
		if (slash) {
			char *end;

			*slash = 0;
			/* strtoul() takes "" as 0: "a.b.c.d/" would allow all. */
			if (!isdigit((unsigned char)slash[1]))
				return -EINVAL;
			bits = (unsigned)strtoul(slash + 1, &end, 10);
			if (*end || bits > 32)
				return -EINVAL;
		}
		if (inet_pton(AF_INET, tok, &a) != 1)
			return -EINVAL;
		out[n].mask = bits ? ~0u << (32 - bits) : 0;
		out[n].net = ntohl(a.s_addr) & out[n].mask;
		n++;
	}
	return (int)n;
}

bool tool_net_match(const struct tool_net *nets, size_t n, uint32_t addr)
{
	for (size_t i = 0; i < n; i++)
		if ((addr & nets[i].mask) == nets[i].net)
			return true;
	return false;
}

void tool_switch_layout_json(FILE *f, const struct dta_layout *l)
{
	bool first = true;

	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		fprintf(f, ",\"slots\":%" PRIu64 ",\"slot_size\":%u,"
			"\"csum_bytes\":%u,\"data_len\":%u,\"redundancy\":%u",
			l->g.kw.slots, l->g.kw.slot_size, l->g.kw.csum_bytes,
			l->g.kw.data_len, l->g.kw.max_redundancy);
		break;
	case DTA_PRIM_KEY_INCREMENT:
		fprintf(f, ",\"width\":%" PRIu64 ",\"rows\":%u,\"banks\":%u",
			l->g.ki.width, l->g.ki.rows, l->g.ki.banks);
		break;
	case DTA_PRIM_POSTCARD:
		fprintf(f, ",\"chunks\":%" PRIu64 ",\"chunk_size\":%u,\"hops\":%u,"
			"\"slot_bytes\":%u,\"redundancy\":%u", l->g.pc.chunks,
			l->g.pc.chunk_size, l->g.pc.hops, l->g.pc.slot_bytes,
			l->g.pc.redundancy);
		break;
	case DTA_PRIM_APPEND:
		fprintf(f, ",\"lists\":%u,\"ring_batches\":%u,\"frame_size\":%u,"
			"\"batch\":%u,\"entry\":%u", l->g.ap.lists,
			l->g.ap.ring_batches, l->g.ap.frame_size,
			l->g.ap.batch_entries, l->g.ap.entry_size);
		break;
	}
	/* The family says how the roles are used (the prototype's differ). */
	if (l->primitive != DTA_PRIM_APPEND)
		fprintf(f, ",\"family\":\"%s\"",
			dta_hash_family_name(l->hash_family));
	/* Reflected input and output, as struct dta_hashfn says. */
	fputs(",\"crc\":[", f);
	for (unsigned role = 0; role < DTA_HF_COUNT; role++) {
		const struct dta_hashfn *fn = &l->fn[role];

		if (fn->kind != DTA_HASHFN_CRC32)
			continue;
		fprintf(f, "%s[%u,%u,%u,%u]", first ? "" : ",", role, fn->poly,
			fn->init, fn->xorout);
		first = false;
	}
	fputc(']', f);
}

/* Bytes of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), or 0 when there is none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (size_t i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi) /* a NUL ends it too */
			return 0;
	return n;
}

void tool_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || !n) /* control, or not UTF-8: its value */
			fprintf(out, "\\u%04x", *p);
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
	fputc('"', out);
}

/* ---- dta-gen truth files ---- */

/* A whole decimal number (base 0 for list ids) up to @max; false for
 * anything else, a sign or trailing text included. */
static bool truth_num(const char *s, int base, uint64_t max, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end && *v <= max;
}

/* A number as truth_num(), or '-' (@none) where @dash allows it. */
static bool truth_field(const char *s, uint64_t max, bool dash,
			uint64_t none, uint64_t *v)
{
	if (dash && !strcmp(s, "-")) {
		*v = none;
		return true;
	}
	return truth_num(s, 10, max, v);
}

/* The words of an INT line (@w[0] starts with "int-"), @nw of them. */
static int truth_int(char **w, int nw, struct tool_truth *t)
{
	static const struct {
		const char *name;
		int kind, words;
	} kinds[] = {
		{ "int-path", TOOL_TRUTH_INT_PATH, 3 },
		{ "int-hop", TOOL_TRUTH_INT_HOP, 6 },
		{ "int-event", TOOL_TRUTH_INT_EVENT, 10 },
		{ "int-flow", TOOL_TRUTH_INT_FLOW, 3 },
		{ "int-queue", TOOL_TRUTH_INT_QUEUE, 3 },
	};
	uint64_t v[7];
	size_t k;
	int len;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(w[0], kinds[k].name))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		t->why = "unknown kind (int-path, int-hop, int-event, "
			 "int-flow or int-queue)";
		return -1;
	}
	t->kind = kinds[k].kind;
	if (nw != kinds[k].words) {
		t->why = t->kind == TOOL_TRUTH_INT_HOP
				 ? "int-hop needs 6 words"
			 : t->kind == TOOL_TRUTH_INT_EVENT
				 ? "int-event needs 10 words"
				 : "this INT line needs 3 words";
		return -1;
	}
	t->key = w[1];
	t->value = w[2];
	len = tool_unhex(w[1], t->ikey, sizeof(t->ikey));
	if (t->kind == TOOL_TRUTH_INT_QUEUE ? len != 5
					    : len != 13 && len != 37) {
		t->why = t->kind == TOOL_TRUTH_INT_QUEUE
				 ? "the queue key is not 5 bytes of hex"
				 : "FLOW is not 13 or 37 bytes of hex";
		return -1;
	}
	t->ikey_len = (unsigned)len;
	switch (t->kind) {
	case TOOL_TRUTH_INT_PATH: {
		const char *c = w[2];

		for (;;) {
			char num[16];
			size_t n = strcspn(c, ",");

			if (t->hops == TOOL_TRUTH_PATH_MAX || n >= sizeof(num)) {
				t->why = "a path of more than 255 switch ids, "
					 "or one too long";
				return -1;
			}
			memcpy(num, c, n);
			num[n] = 0;
			if (!truth_num(num, 10, UINT32_MAX, &v[0])) {
				t->why = "a switch id of the path is not a "
					 "32-bit number";
				return -1;
			}
			t->path[t->hops++] = (uint32_t)v[0];
			if (!c[n])
				break;
			c += n + 1;
		}
		break;
	}
	case TOOL_TRUTH_INT_HOP:
		if (!truth_num(w[2], 10, UINT32_MAX, &v[0]) ||
		    !truth_field(w[3], UINT32_MAX, true, UINT32_MAX, &v[1]) ||
		    !truth_field(w[4], UINT32_MAX, true, UINT32_MAX, &v[2]) ||
		    !truth_field(w[5], UINT64_MAX, true, UINT64_MAX, &v[3])) {
			t->why = "int-hop: SWITCH, LATENCY, OCCUPANCY (32-bit) "
				 "or EGRESS_TS (64-bit) is not a number or -";
			return -1;
		}
		t->switch_id = (uint32_t)v[0];
		t->latency = (uint32_t)v[1];
		t->occupancy = (uint32_t)v[2];
		t->egress_ts = v[3];
		break;
	case TOOL_TRUTH_INT_EVENT:
		if (!truth_num(w[2], 10, UINT32_MAX, &v[0]) ||
		    !truth_num(w[3], 10, UINT16_MAX, &v[1]) ||
		    !truth_num(w[4], 10, UINT16_MAX, &v[2]) ||
		    (strcmp(w[5], "D") && strcmp(w[5], "Q")) ||
		    !truth_num(w[6], 10, UINT8_MAX, &v[3]) ||
		    !truth_num(w[7], 10, UINT8_MAX, &v[4]) ||
		    !truth_num(w[8], 10, UINT32_MAX, &v[5])) {
			t->why = "int-event: a field is not a number in its "
				 "range, or the kind is not D or Q";
			return -1;
		}
		if (strlen(w[9]) != 2 * TOOL_TRUTH_EVENT_SIZE ||
		    tool_unhex(w[9], t->entry, sizeof(t->entry)) !=
			    TOOL_TRUTH_EVENT_SIZE) {
			t->why = "int-event: ENTRY is not 32 bytes of hex";
			return -1;
		}
		t->switch_id = (uint32_t)v[0];
		t->in_port = (uint16_t)v[1];
		t->eg_port = (uint16_t)v[2];
		t->event = w[5][0];
		t->queue = (uint8_t)v[3];
		t->reason = (uint8_t)v[4];
		t->occupancy = (uint32_t)v[5];
		t->value = w[9];
		break;
	default: /* int-flow, int-queue */
		if (!truth_num(w[2], 10, UINT64_MAX, &t->count)) {
			t->why = "the count is not a number";
			return -1;
		}
		break;
	}
	return 0;
}

int tool_truth_parse(char *line, struct tool_truth *t)
{
	char *w[10];
	uint64_t v;
	int nw;

	memset(t, 0, sizeof(*t));
	nw = tool_split(line, w, 10);
	if (nw == 0)
		return 0;
	if (w[0][0] == '#') {
		/* tool_split() cut the comment into words: look at each. */
		for (int i = 0; i < nw; i++) {
			if (!strncmp(w[i], "type=", 5))
				t->type = w[i] + 5;
			if (strncmp(w[i], "redundancy=", 11))
				continue;
			if (!truth_num(w[i] + 11, 10, DTA_MAX_REDUNDANCY, &v) ||
			    v == 0) {
				static_assert(DTA_MAX_REDUNDANCY == 8,
					      "the message says 8");
				t->why = "redundancy= must be 1 to 8";
				return -1;
			}
			t->redundancy = (unsigned)v;
		}
		return 0;
	}
	if (nw < 3) {
		t->why = "fewer than three words";
		return -1;
	}
	if (!strncmp(w[0], "int-", 4))
		return truth_int(w, nw, t);
	t->key = w[1];
	t->value = w[2];
	if (!strcmp(w[0], "kw")) {
		t->kind = TOOL_TRUTH_KW;
		t->data_len = (unsigned)(strlen(w[2]) / 2);
	} else if (!strcmp(w[0], "pc")) {
		t->kind = TOOL_TRUTH_PC;
		t->hops = 1;
		for (const char *c = w[2]; *c; c++)
			t->hops += *c == ',';
	} else if (!strcmp(w[0], "ki")) {
		t->kind = TOOL_TRUTH_KI;
		if (!truth_num(w[2], 10, UINT64_MAX, &t->count)) {
			t->why = "the count is not a number";
			return -1;
		}
	} else if (!strcmp(w[0], "ap")) {
		t->kind = TOOL_TRUTH_AP;
		if (!truth_num(w[1], 0, UINT32_MAX, &v)) {
			t->why = "the list id is not a 32-bit number";
			return -1;
		}
		t->list = (uint32_t)v;
		t->key = NULL;
	} else {
		t->why = "unknown kind (kw, pc, ki or ap)";
		return -1;
	}
	return 0;
}

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

int tool_split(char *line, char **w, int max)
{
	int n = 0;

	while (n < max) {
		while (is_blank(*line))
			line++;
		if (!*line)
			break;
		w[n++] = line;
		while (*line && !is_blank(*line))
			line++;
		if (!*line)
			break;
		*line++ = 0;
	}
	return n;
}

void tool_dir_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, cap, ".");
	else if (slash == path)
		snprintf(out, cap, "/");
	else
		snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

int tool_private_dir_open(const char *path, char *why, size_t cap)
{
	struct stat st;
	int fd, e;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if ((e == ELOOP || e == ENOTDIR) && lstat(path, &st) == 0 &&
		    S_ISLNK(st.st_mode))
			snprintf(why, cap, "refusing %s: it is a symbolic link "
				 "(uid %u), not followed: it must be a directory "
				 "owned by us (uid %u) or root", path,
				 (unsigned)st.st_uid, (unsigned)geteuid());
		else
			snprintf(why, cap, "%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		e = errno;
		snprintf(why, cap, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if ((st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, cap, "refusing %s: it must be a directory owned "
			 "by us (uid %u) or root that neither group nor others "
			 "can write (it is uid %u, mode %04o): another user "
			 "could replace or remove its files", path,
			 (unsigned)geteuid(), (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777));
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int tool_private_dir(const char *path, char *why, size_t cap)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		snprintf(why, cap, "cannot create %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return tool_private_dir_open(path, why, cap);
}

int tool_private_file(int dirfd, const char *name, char *why, size_t cap)
{
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return -2;
		if (e == ELOOP)
			snprintf(why, cap, "refusing %s: it is a symbolic "
				 "link, not followed", name);
		else
			snprintf(why, cap, "%s: %s", name, strerror(e));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(why, cap, "%s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, cap, "refusing %s: it must be a regular file "
			 "owned by us (uid %u) or root that neither group nor "
			 "others can write (it is %s, uid %u, mode %04o): "
			 "someone else could have planted or changed it", name,
			 (unsigned)geteuid(),
			 S_ISREG(st.st_mode) ? "a file" : "not a regular file",
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	return fd;
}

void tool_fd_path(int fd, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "/proc/self/fd/%d%s%s", fd, *name ? "/" : "", name);
}

int tool_connect_checked(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	struct stat st;
	char dir[4096];
	int fd, e;

	if (strlen(path) > DTA_SOCKET_PATH_MAX)
		return tool_fail(err, errlen, -ENAMETOOLONG,
				 "socket path %s is %zu bytes; a Unix socket "
				 "path has at most %d", path, strlen(path),
				 DTA_SOCKET_PATH_MAX);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tool_fail(err, errlen, -errno, "socket: %s",
				 strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		close(fd);
		return tool_fail(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0) {
		e = errno;
		close(fd);
		return tool_fail(err, errlen, -e,
				 "%s: cannot learn who answers "
				 "(SO_PEERCRED): %s", path, strerror(e));
	}
	/* Anyone may create a socket where they can write: trust the
	 * answers only of ourselves, root, and whoever owns the directory
	 * (who could replace the socket anyway). */
	tool_dir_of(path, dir, sizeof(dir));
	if (cr.uid == geteuid() || cr.uid == 0 ||
	    (stat(dir, &st) == 0 && st.st_uid == cr.uid))
		return fd;
	close(fd);
	return tool_fail(err, errlen, -EPERM,
			 "%s is answered by a process of uid %u, which is neither "
			 "you (uid %u), root, nor the owner of %s: refusing to "
			 "talk to it (docs/security.md)", path,
			 (unsigned)cr.uid, (unsigned)geteuid(), dir);
}

int tool_connect(const char *path)
{
	return tool_connect_checked(path, NULL, 0);
}

int tool_request(int fd, FILE *in, const char *req, char **buf,
		 size_t *cap)
{
	size_t len = strlen(req), off = 0;
	ssize_t n;

	while (off < len + 1) {
		/* The request, then its newline. */
		n = off < len ? send(fd, req + off, len - off, MSG_NOSIGNAL)
			      : send(fd, "\n", 1, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				break; /* read what it said before closing */
			return -errno;
		}
		off += (size_t)n;
	}
	n = getline(buf, cap, in);
	if (n <= 0)
		return -ECONNRESET;
	if ((*buf)[n - 1] == '\n')
		(*buf)[--n] = 0;
	return (int)n;
}

int tool_write_private(const char *path, const void *data, size_t len)
{
	char tmp[4096], dir[4096];
	const char *p = data;
	int fd, err = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* mkstemp: O_CREAT | O_EXCL, mode 0600, a name nobody else holds. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0)
		err = -errno;
	while (!err && len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	/* The rename is durable only once its directory is synced. */
	tool_dir_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

struct dta_config_structure tool_share(const struct dta_config_structure *cs,
				       unsigned k)
{
	struct dta_config_structure s = *cs;

	s.list_base = dta_config_share_list_base(cs, k);
	return s;
}

bool tool_same_layout(const struct dta_layout *a, const struct dta_layout *b)
{
	uint8_t x[DTA_LAYOUT_WIRE_SIZE], y[DTA_LAYOUT_WIRE_SIZE];

	return dta_layout_encode(a, x, sizeof(x)) == DTA_LAYOUT_WIRE_SIZE &&
	       dta_layout_encode(b, y, sizeof(y)) == DTA_LAYOUT_WIRE_SIZE &&
	       !memcmp(x, y, sizeof(x));
}

/* ---- verify: Append entries read against the entries sent ---- */

static uint64_t text_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* The table slot of @len bytes at @s: the one holding that text, or the
 * empty one where it belongs. */
static size_t match_slot(struct tool_ap_match *m, const char *s, size_t len)
{
	size_t i = (size_t)text_hash(s, len) & (m->nslots - 1);

	for (;; i = (i + 1) & (m->nslots - 1)) {
		size_t f = m->first[i];

		m->steps++;
		if (f == m->n || (strlen(m->e[f]) == len &&
				  !memcmp(m->e[f], s, len)))
			return i;
	}
}

int tool_ap_match_init(struct tool_ap_match *m, const char *const *e,
		       size_t n)
{
	size_t *last;

	memset(m, 0, sizeof(*m));
	m->e = e;
	m->n = n;
	m->nslots = 16;
	while (m->nslots < 2 * n)
		m->nslots *= 2;
	m->same = malloc((n + 1) * sizeof(*m->same));
	m->first = malloc(m->nslots * sizeof(*m->first));
	m->cur = malloc(m->nslots * sizeof(*m->cur));
	last = malloc(m->nslots * sizeof(*last));
	if (!m->same || !m->first || !m->cur || !last) {
		free(last);
		tool_ap_match_free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nslots; i++)
		m->first[i] = m->cur[i] = last[i] = n;
	for (size_t i = 0; i < n; i++) {
		size_t k = match_slot(m, e[i], strlen(e[i]));

		m->same[i] = n;
		if (m->first[k] == n)
			m->first[k] = m->cur[k] = i;
		else
			m->same[last[k]] = i;
		last[k] = i;
	}
	free(last);
	m->steps = 0;
	return 0;
}

void tool_ap_match_entry(struct tool_ap_match *m, const char *s, size_t len)
{
	size_t k = match_slot(m, s, len), p = m->cur[k];

	/* Occurrences before m->next can never match again: drop them. */
	while (p < m->n && p < m->next) {
		p = m->same[p];
		m->steps++;
	}
	m->cur[k] = p;
	if (p >= m->n) {
		m->wrong++;
		return;
	}
	m->notfound += p - m->next;
	m->exact++;
	m->next = p + 1;
}

void tool_ap_match_finish(struct tool_ap_match *m)
{
	m->notfound += m->n - m->next;
	m->next = m->n;
}

void tool_ap_match_free(struct tool_ap_match *m)
{
	free(m->same);
	free(m->first);
	free(m->cur);
	m->same = m->first = m->cur = NULL;
}

bool tool_epoch_dir(const struct dta_config *cfg, size_t i,
		    const char *snapshot_dir, char *out, size_t cap)
{
	const char *v = dta_config_collector_get(cfg, i, "epoch_dir");

	if (v) {
		snprintf(out, cap, "%s", v);
		return true;
	}
	if (!snapshot_dir)
		snapshot_dir = dta_config_collector_get(cfg, i, "snapshot_dir");
	snprintf(out, cap, "%s/epochs",
		 snapshot_dir ? snapshot_dir : "/var/lib/dta");
	return false;
}
