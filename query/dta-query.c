/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query: the DTA query CLI.
 *
 * Answers come from a running dta-collector (over its socket) or from
 * snapshot files, through the same query code (common/tools.c), so both
 * give identical answers. See `dta-query --help` and docs/query.md.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "dta/client.h"
#include "dta/exec.h"
#include "tools.h"

/* A numeric option's value, or exit 2 saying why: strtoul() and strtod()
 * without an end check took "abc" as 0 and "5x" as 5. */
static uint64_t opt_uint(const char *opt, const char *s, uint64_t lo,
			 uint64_t hi)
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

/* ---- where answers come from ---- */

struct backend {
	int fd;            /* socket mode: the default collector's link */
	FILE *in;
	/* Socket mode with a configuration: links to every collector, opened
	 * when a request is routed there (lfd[G.coll] is fd). */
	int lfd[DTA_CONFIG_MAX_COLLECTORS];
	FILE *lin[DTA_CONFIG_MAX_COLLECTORS];
	char lpath[DTA_CONFIG_MAX_COLLECTORS][4096];
	bool route;
	char *line;        /* last response */
	size_t cap;
	size_t n;          /* file mode: regions */
	struct dta_region *r[DTA_CONFIG_MAX_STRUCTURES];
	struct dta_config_structure cs[DTA_CONFIG_MAX_STRUCTURES];
	/* File mode: the library's executor over the regions (what the
	 * collector answers with), built at the first request. */
	struct dta_exec *x;
	struct dta_exec_session *sess;
	struct dta_buf out;
};

static struct {
	const char *config, *socket, *dir, *coll_name;
	int coll; /* the default collector's index */
	const char *files[DTA_CONFIG_MAX_STRUCTURES];
	unsigned nfiles;
	int json, map;
	struct dta_config *cfg;
} G;

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dta-query: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(3);
}

/* ---- reading answers (jansson) ---- */

/* Answer @js parsed. The last answer parsed is kept: reading several
 * fields of one answer parses it once. NULL when @js is not a JSON object
 * (its fields then read as absent). */
static json_t *jparse(const char *js)
{
	static json_t *last;
	static char *text;

	if (text && !strcmp(text, js))
		return last;
	json_decref(last);
	free(text);
	text = strdup(js);
	if (!text)
		die("out of memory");
	last = json_loads(js, 0, NULL);
	if (last && !json_is_object(last)) {
		json_decref(last);
		last = NULL;
	}
	return last;
}

/* Member @key of answer @js, or NULL. */
static json_t *jget(const char *js, const char *key)
{
	return json_object_get(jparse(js), key);
}

/* String @key of @js into @out: false when absent, not a string or
 * longer than @cap - 1 bytes (@out is then unchanged). */
static bool jstr(const char *js, const char *key, char *out, size_t cap)
{
	json_t *v = jget(js, key);

	if (!json_is_string(v) || json_string_length(v) >= cap)
		return false;
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return true;
}

/* Number @key of @js: 0 when absent or not a non-negative integer. */
static uint64_t jnum(const char *js, const char *key)
{
	json_t *v = jget(js, key);

	return json_is_integer(v) && json_integer_value(v) > 0
		       ? (uint64_t)json_integer_value(v) : 0;
}

/* Is "status" of @js @want? */
static bool jstatus(const char *js, const char *want)
{
	json_t *v = jget(js, "status");

	return json_is_string(v) && !strcmp(json_string_value(v), want);
}

/* The "entries" of an Append answer (strings), and how many. */
static size_t jentries(const char *js, json_t **arr)
{
	*arr = jget(js, "entries");
	return json_array_size(*arr);
}

/* Entry @i of @arr: its text (not NUL-terminated: *@len bytes), or NULL
 * when it is not a string. */
static const char *jentry(json_t *arr, size_t i, size_t *len)
{
	json_t *v = json_array_get(arr, i);

	if (!json_is_string(v))
		return NULL;
	*len = json_string_length(v);
	return json_string_value(v);
}

/* The "path" of a Postcarding answer as text, "v1,v2,..": false when it
 * has none (or it does not fit @cap). */
static bool jpath(const char *js, char *out, size_t cap)
{
	json_t *arr = jget(js, "path"), *v;
	size_t i, len = 0;

	if (!json_is_array(arr) || !cap)
		return false;
	out[0] = 0;
	json_array_foreach(arr, i, v) {
		int w;

		if (!json_is_integer(v))
			return false;
		w = snprintf(out + len, cap - len, "%s%" JSON_INTEGER_FORMAT,
			     i ? "," : "", json_integer_value(v));
		if (w < 0 || (size_t)w >= cap - len)
			return false;
		len += (size_t)w;
	}
	return true;
}

static void load_config(void)
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

/* Open snapshot file @path, or with @shm the shared-memory object @path
 * of a running collector (read-only; @any_owner: accept an object another
 * user owns, as a member of its group). */
static void add_region(struct backend *b, const char *path, const char *name,
		       bool shm, bool any_owner)
{
	struct dta_region_opts o = { .sz = sizeof(o),
				     .backing = shm ? DTA_BACKING_SHM
						    : DTA_BACKING_FILE,
				     .path = path,
				     .flags = DTA_REGION_RDONLY |
					      (any_owner ? DTA_REGION_ANY_OWNER : 0) };
	const struct dta_config_structure *c;
	size_t i = b->n;
	int err = dta_region_open(&o, &b->r[i]);

	if (err == -ENOENT && shm)
		die("%s: no shared-memory object %s: the collector is not "
		    "running on this machine, or keeps it in anonymous memory "
		    "(shared_memory = no); ask over its socket", name, path);
	if (err == -EPERM && shm)
		die("%s: refusing %s: owned by another user or writable by "
		    "anyone (docs/security.md)", name, path);
	if (err)
		die("%s: %s", path, dta_strerror(err));
	if (!name)
		name = dta_region_name(b->r[i]);
	memset(&b->cs[i], 0, sizeof(b->cs[i]));
	snprintf(b->cs[i].name, sizeof(b->cs[i].name), "%s", name);
	c = dta_config_find(G.cfg, name);
	if (c) { /* values and list base live in the configuration */
		b->cs[i].values = c->values;
		b->cs[i].nvalues = c->nvalues;
		b->cs[i].list_base = c->list_base;
	}
	b->cs[i].layout = *dta_region_layout(b->r[i]);
	b->n++;
}

/* Collector @c's socket (configuration, else default); dies if none. */
static void socket_path(int c, char *path, size_t cap)
{
	int err = G.cfg ? tool_collector_socket(G.cfg, (size_t)c, path, cap)
			: tool_default_socket("dta", path, cap);

	if (err == -ENOENT)
		die("no directory for the default socket (not root, no "
		    "$XDG_RUNTIME_DIR, no %s): give --socket", TOOL_RUN_DIR);
	if (err)
		die("socket path %s is too long: a Unix socket path has at "
		    "most %d bytes", path, TOOL_SOCKET_PATH_MAX);
}

/* Connect to @path (collector @name, NULL: the default); dies with why
 * not. */
static int connect_to(const char *path, const char *name)
{
	char err[1024];
	int fd = tool_connect_checked(path, err, sizeof(err));

	if (fd == -EPERM || fd == -ENAMETOOLONG)
		die("%s", err);
	if (fd < 0 && name)
		die("cannot reach collector %s: %s", name, err);
	if (fd < 0)
		die("cannot reach a collector: %s (start dta-collector, or "
		    "give --socket, --file or --snapshot-dir)", err);
	return fd;
}

/* The collector at @path closed the connection (@js: its last answer, if
 * any): say why as well as we know. */
__attribute__((noreturn))
static void closed(const char *path, const char *js)
{
	char msg[512];

	if (js && jstr(js, "error", msg, sizeof(msg)))
		die("%s (the collector at %s then closed the connection)", msg,
		    path);
	die("the collector at %s closed the connection (it stopped, or "
	    "dropped this client: see its log)", path);
}

static void add_file(struct backend *b, const char *path, const char *name)
{
	add_region(b, path, name, false, false);
}

/* --map: every structure of the default collector, from its shared
 * memory, read-only: queries run here, at the library's rate. */
static void map_collector(struct backend *b)
{
	const char *coll;
	unsigned mode;
	char shm[NAME_MAX + 1];

	if (!G.cfg)
		die("--map needs --config (the collector's name and structures)");
	coll = tool_collector_name(G.cfg, (size_t)G.coll);
	if (tool_config_mode(G.cfg, (size_t)G.coll, "shm_mode", 0600, &mode))
		die("bad shm_mode in %s", G.config);
	for (size_t i = 0; i < dta_config_count(G.cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(G.cfg, i);
		int k = dta_config_share(cs, (size_t)G.coll);

		if (k < 0)
			continue; /* another collector's */
		if (tool_shm_name(coll, cs->name, shm, sizeof(shm)))
			die("%s: shared-memory name too long", cs->name);
		/* A group member reads its collector's objects (as a
		 * translator does), when the mode lets the group in. */
		add_region(b, shm, cs->name, true, (mode & 0060) != 0);
		b->cs[b->n - 1].list_base = tool_share(cs, (unsigned)k).list_base;
	}
}

static void backend_open(struct backend *b)
{
	char path[4096];

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	load_config();
	if (G.map) {
		map_collector(b);
		return;
	}
	if (G.nfiles || G.dir) {
		for (unsigned i = 0; i < G.nfiles; i++)
			add_file(b, G.files[i], NULL);
		if (G.dir) {
			if (!G.cfg)
				die("--snapshot-dir needs --config (which "
				    "structures to open)");
			for (size_t i = 0; i < dta_config_count(G.cfg); i++) {
				const struct dta_config_structure *cs =
					dta_config_structure(G.cfg, i);
				int k = dta_config_share(cs, (size_t)G.coll);

				if (k < 0)
					continue; /* another collector's */
				snprintf(path, sizeof(path), "%s/%s.dta", G.dir,
					 cs->name);
				add_file(b, path, cs->name);
				b->cs[b->n - 1].list_base =
					tool_share(cs, (unsigned)k).list_base;
			}
		}
		return;
	}
	for (int i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		b->lfd[i] = -1;
	if (G.socket)
		snprintf(path, sizeof(path), "%s", G.socket);
	else
		socket_path(G.coll, path, sizeof(path));
	b->fd = connect_to(path, NULL);
	b->in = fdopen(dup(b->fd), "r");
	if (!b->in)
		die("fdopen: %s", strerror(errno));
	/* Requests about structures of other collectors go there. */
	b->route = G.cfg && !G.socket;
	b->lfd[G.coll] = b->fd;
	b->lin[G.coll] = b->in;
	snprintf(b->lpath[G.coll], sizeof(b->lpath[G.coll]), "%s", path);
}

/* The link to collector @c, connected on first use. */
static void link_open(struct backend *b, int c)
{
	char path[4096];

	if (b->lfd[c] >= 0)
		return;
	socket_path(c, path, sizeof(path));
	b->lfd[c] = connect_to(path, dta_config_collector_name(G.cfg, (size_t)c));
	snprintf(b->lpath[c], sizeof(b->lpath[c]), "%s", path);
	b->lin[c] = fdopen(dup(b->lfd[c]), "r");
	if (!b->lin[c])
		die("fdopen: %s", strerror(errno));
}

/*
 * Which collector answers about @cs: route_key() the one holding the share
 * of key @keyhex (Key-Write, Postcarding, Key-Increment), route_list() the
 * one holding list @list (Append; *@local gets the list's index within
 * that share). -1: the default link (file mode, --socket, or no
 * configuration).
 */
static int route_key(const struct backend *b,
		     const struct dta_config_structure *cs, const char *keyhex)
{
	uint8_t key[DTA_KEY_MAX];
	int len;

	if (!b->route || !cs)
		return -1;
	len = tool_unhex(keyhex, key, sizeof(key));
	if (len < 0)
		return -1; /* the collector will say what is wrong with it */
	return cs->collectors[dta_shard(key, (size_t)len, cs->ncollectors)];
}

static int route_list(const struct backend *b,
		      const struct dta_config_structure *cs, uint32_t list,
		      uint32_t *local)
{
	*local = list;
	if (!cs || cs->layout.primitive != DTA_PRIM_APPEND)
		return -1;
	if (!b->route) {
		/* One collector's lists: ask with its own index. */
		int k = dta_config_share(cs, (size_t)G.coll);

		if (k > 0 && list >= (uint32_t)k * cs->layout.g.ap.lists)
			*local = list - (uint32_t)k * cs->layout.g.ap.lists;
		return -1;
	}
	if (list / cs->layout.g.ap.lists >= cs->ncollectors)
		return -1; /* out of range: the collector says so */
	*local = list % cs->layout.g.ap.lists;
	return cs->collectors[list / cs->layout.g.ap.lists];
}

static void backend_close(struct backend *b)
{
	for (int i = 0; b->fd >= 0 && i < DTA_CONFIG_MAX_COLLECTORS; i++)
		if (b->lfd[i] >= 0 && b->lfd[i] != b->fd) {
			fclose(b->lin[i]);
			close(b->lfd[i]);
		}
	dta_exec_session_destroy(b->sess);
	dta_exec_destroy(b->x);
	dta_buf_free(&b->out);
	for (size_t i = 0; i < b->n; i++) {
		dta_region_destroy(b->r[i]);
	}
	if (b->in)
		fclose(b->in);
	if (b->fd >= 0)
		close(b->fd);
	free(b->line);
}

/* File mode: the executor over the regions opened, once they all are
 * (their list bases set); a region's schema is its header's (what the
 * collector that made it had), else the configuration's. */
static void local_exec(struct backend *b)
{
	if (b->x)
		return;
	if (dta_exec_create(&b->x))
		die("out of memory");
	for (size_t i = 0; i < b->n; i++) {
		const struct dta_config_structure *cs = &b->cs[i];
		struct dta_exec_structure s = {
			.name = cs->name, .layout = dta_region_layout(b->r[i]),
			.area = dta_region_data(b->r[i]), .values = cs->values,
			.nvalues = cs->nvalues, .list_base = cs->list_base,
			.schema = dta_region_schema(b->r[i]),
		};
		int err;

		if (!s.schema) {
			const struct dta_config_structure *c =
				dta_config_find(G.cfg, cs->name);

			s.schema = c ? c->schema : NULL;
		}
		err = dta_exec_add(b->x, &s);

		if (err < 0)
			die("%s: %s", cs->name, dta_strerror(err));
	}
	if (dta_exec_session_create(b->x, &b->sess))
		die("out of memory");
}

/* One request to collector @c (-1: the default); returns the JSON response
 * (valid until the next call). */
static const char *ask_at(struct backend *b, int c, const char *req)
{
	if (b->fd >= 0) {
		int n;

		if (c < 0)
			c = G.coll;
		link_open(b, c);
		n = tool_request(b->lfd[c], b->lin[c], req, &b->line, &b->cap);

		if (n == -ECONNRESET)
			closed(b->lpath[c], NULL);
		if (n < 0)
			die("collector connection %s: %s", b->lpath[c],
			    strerror(-n));
	} else {
		static const char need[] = "{\"error\":\"this request needs a "
			"running collector\"}\n";

		local_exec(b);
		b->out.len = 0;
		if (dta_exec_text(b->sess, req, strlen(req), &b->out))
			dta_buf_put(&b->out, need, sizeof(need) - 1);
		dta_exec_text_flush(b->sess, &b->out);
		dta_buf_put(&b->out, "", 1);
		if (b->out.oom)
			die("out of memory");
		b->out.p[b->out.len - 2] = 0; /* the newline */
		return b->out.p;
	}
	return b->line;
}

static const char *ask(struct backend *b, const char *req)
{
	return ask_at(b, -1, req);
}

static void ask_window(struct backend *b, int c, char **reqs, const int *to,
		       char **resp, size_t n, size_t window);

/* Answers to many requests (NULL entries are skipped; @to[i]: collector,
 * -1 the default). Over a socket they
 * are pipelined, a window at a time, so the round trip is paid once per
 * window rather than once per request. */
static char **ask_all(struct backend *b, char **reqs, const int *to, size_t n)
{
	char **resp = calloc(n + 1, sizeof(*resp));
	const size_t window = 64;

	if (!resp)
		die("out of memory");
	if (b->fd < 0) {
		for (size_t i = 0; i < n; i++)
			if (reqs[i])
				resp[i] = strdup(ask(b, reqs[i]));
		return resp;
	}
	/* Each collector's requests in turn, pipelined. */
	for (int c = 0; c < DTA_CONFIG_MAX_COLLECTORS; c++) {
		bool any = false;

		for (size_t i = 0; i < n && !any; i++)
			any = reqs[i] && (to[i] < 0 ? G.coll : to[i]) == c;
		if (any)
			ask_window(b, c, reqs, to, resp, n, window);
	}
	return resp;
}

static void ask_window(struct backend *b, int c, char **reqs, const int *to,
		       char **resp, size_t n, size_t window)
{
#define MINE(i) (reqs[i] && (to[i] < 0 ? G.coll : to[i]) == c)
	link_open(b, c);
	for (size_t base = 0; base < n; base += window) {
		size_t end = base + window < n ? base + window : n;
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		if (!out)
			die("out of memory");
		for (size_t i = base; i < end; i++)
			if (MINE(i))
				fprintf(out, "%s\n", reqs[i]);
		fclose(out);
		for (size_t off = 0; off < len;) {
			ssize_t w = send(b->lfd[c], buf + off, len - off,
					 MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
				break; /* what it answered says why */
			if (w <= 0)
				die("collector connection %s: %s", b->lpath[c],
				    strerror(errno));
			off += (size_t)w;
		}
		free(buf);
		for (size_t i = base; i < end; i++) {
			ssize_t r;

			if (!MINE(i))
				continue;
			r = getline(&b->line, &b->cap, b->lin[c]);
			if (r <= 0)
				closed(b->lpath[c], i > base && resp[i - 1]
							    ? resp[i - 1] : NULL);
			if (b->line[r - 1] == '\n')
				b->line[r - 1] = 0;
			resp[i] = strdup(b->line);
		}
	}
#undef MINE
}

/* Fail with the collector's error message, if the response is one. */
static void check(const char *js)
{
	char msg[512];

	if (jstr(js, "error", msg, sizeof(msg))) {
		if (G.json)
			printf("%s\n", js);
		die("%s", msg);
	}
}

static int key_arg(const char *s, char *hex)
{
	uint8_t key[DTA_KEY_MAX];
	char err[256];
	int n = tool_parse_key(s, key, sizeof(key), err, sizeof(err));

	if (n < 0)
		die("%s", err);
	tool_hex(key, (size_t)n, hex);
	return n;
}

/* ---- many keys at once, through the client (dta/client.h) ---- */

/* The client target for the options given: the same memory the single
 * queries reach (--map and --snapshot-dir: the --collector's shares). */
static struct dta_client *client_open(void)
{
	char t[8192], sock[DTA_SOCKET_PATH_MAX + 1], err[1024];
	const char *coll = G.coll_name ? G.coll_name : "default";
	struct dta_client *c;
	size_t len = 0;
	int rc;

	load_config();
	if ((G.map || G.dir) && !G.cfg)
		die("--map and --snapshot-dir need --config");
	if (G.nfiles && G.dir)
		die("many keys: give --file or --snapshot-dir, not both");
	if (G.map) {
		snprintf(t, sizeof(t), "map:%s?collector=%s", G.config, coll);
	} else if (G.dir) {
		snprintf(t, sizeof(t), "snapshot:%s?config=%s&collector=%s",
			 G.dir, G.config, coll);
	} else if (G.nfiles) {
		len = (size_t)snprintf(t, sizeof(t), "file:");
		for (unsigned i = 0; i < G.nfiles && len < sizeof(t); i++)
			len += (size_t)snprintf(t + len, sizeof(t) - len, "%s%s",
						i ? "," : "", G.files[i]);
		if (G.config && len < sizeof(t)) /* value sets, list bases */
			snprintf(t + len, sizeof(t) - len, "?config=%s",
				 G.config);
	} else if (G.socket) {
		snprintf(t, sizeof(t), "unix:%s", G.socket);
	} else if (G.cfg) {
		snprintf(t, sizeof(t), "config:%s", G.config);
	} else {
		rc = dta_default_socket("dta", sock, sizeof(sock));
		if (rc)
			die("no default socket (%s): give --socket or --config",
			    dta_strerror(rc));
		snprintf(t, sizeof(t), "unix:%s", sock);
	}
	rc = dta_client_open(t, NULL, &c, err, sizeof(err));
	if (rc)
		die("%s", err);
	return c;
}

/* One run of keys of one length: their texts (as given) and bytes. */
struct run {
	char **text;
	uint8_t *keys;
	size_t n, klen;
};

#define RUN_MAX 65536

/* Ask @r's keys of structure @name (@prim), print one line each; return
 * how many were not found (kw, pc). */
static size_t run_ask(struct dta_client *c, int prim, const char *name,
		      const struct run *r, const struct dta_kw_query_opts *o,
		      unsigned bank)
{
	static struct dta_kw_result kw[RUN_MAX];
	static struct dta_pc_result pc[RUN_MAX];
	static uint64_t cnt[RUN_MAX];
	static const char *const st[] = { "found", "not-found", "conflict" };
	uint8_t *data = NULL;
	size_t dl = 0, missing = 0;
	char hex[2 * DTA_DATA_MAX + 1], key[2 * DTA_KEY_MAX + 1];
	int rc, i = dta_client_find(c, name);

	if (i >= 0 && prim == DTA_PRIM_KEY_WRITE) {
		dl = dta_client_structure(c, (size_t)i)->layout.g.kw.data_len;
		data = malloc(r->n * dl + 1);
		if (!data)
			die("out of memory");
	}
	rc = prim == DTA_PRIM_KEY_WRITE
		     ? dta_client_kw_get(c, name, r->keys, r->klen, r->n, o, kw,
					 data)
	     : prim == DTA_PRIM_POSTCARD
		     ? dta_client_pc_get(c, name, r->keys, r->klen, r->n, pc)
		     : dta_client_ki_get(c, name, r->keys, r->klen, r->n, bank,
					 cnt);
	if (rc)
		die("%s", dta_client_error(c));
	for (size_t k = 0; k < r->n; k++) {
		tool_hex(r->keys + k * r->klen, r->klen, key);
		if (prim == DTA_PRIM_KEY_INCREMENT) {
			if (G.json)
				printf("{\"key\":\"%s\",\"count\":%" PRIu64 "}\n",
				       key, cnt[k]);
			else
				printf("%s: %" PRIu64 "\n", r->text[k], cnt[k]);
			continue;
		}
		if (prim == DTA_PRIM_KEY_WRITE) {
			missing += kw[k].status != DTA_Q_FOUND;
			tool_hex(data + k * dl, dl, hex);
			if (G.json)
				printf("{\"key\":\"%s\",\"status\":\"%s\"%s%s%s,"
				       "\"votes\":%u,\"candidates\":%u}\n", key,
				       st[kw[k].status],
				       kw[k].status ? "" : ",\"data\":\"",
				       kw[k].status ? "" : hex,
				       kw[k].status ? "" : "\"", kw[k].votes,
				       kw[k].candidates);
			else if (kw[k].status == DTA_Q_FOUND)
				printf("%s: found: 0x%s (%u of %u matching "
				       "slots agree)\n", r->text[k], hex,
				       kw[k].votes, kw[k].candidates);
			else
				printf("%s: %s (%u slots matched the key's "
				       "checksum)\n", r->text[k],
				       st[kw[k].status], kw[k].candidates);
			continue;
		}
		missing += pc[k].status != DTA_Q_FOUND;
		if (G.json)
			printf("{\"key\":\"%s\",\"status\":\"%s\"%s", key,
			       st[pc[k].status],
			       pc[k].status ? "" : ",\"path\":[");
		else if (pc[k].status == DTA_Q_FOUND)
			printf("%s: found: ", r->text[k]);
		else
			printf("%s: %s (%u copies decoded validly)\n",
			       r->text[k], st[pc[k].status],
			       pc[k].valid_copies);
		for (unsigned h = 0; !pc[k].status && h < pc[k].path_len; h++)
			printf("%s%u", h ? "," : "", pc[k].values[h]);
		if (G.json)
			printf("%s\"valid_copies\":%u}\n",
			       pc[k].status ? "," : "],", pc[k].valid_copies);
		else if (pc[k].status == DTA_Q_FOUND)
			printf(" (hop values, first hop first)\n");
	}
	free(data);
	return missing;
}

/*
 * kw get / pc path / ki get with several KEYs, or "-" (keys from stdin,
 * one a line): one batched request per run of keys of one length, one
 * line per key, in order. Exit status as for one key: 1 when some key
 * was not found (kw, pc).
 */
static int many_keys(int prim, const char *name, char **args, int nargs,
		     const struct dta_kw_query_opts *o, unsigned bank)
{
	struct dta_client *c = client_open();
	struct run r = { 0 };
	char *line = NULL, err[256];
	size_t cap = 0, missing = 0;
	int a = 0;

	r.text = calloc(RUN_MAX, sizeof(*r.text));
	r.keys = malloc((size_t)RUN_MAX * DTA_KEY_MAX);
	if (!r.text || !r.keys)
		die("out of memory");
	for (;;) {
		uint8_t key[DTA_KEY_MAX];
		const char *s = NULL;
		ssize_t len;
		int kl;

		if (a < nargs && strcmp(args[a], "-")) {
			s = args[a++];
		} else if (a < nargs) {
			len = getline(&line, &cap, stdin);
			if (len < 0) {
				a++; /* stdin is done: the next argument */
				continue;
			}
			while (len && (line[len - 1] == '\n' ||
				       line[len - 1] == '\r'))
				line[--len] = 0;
			if (!len)
				continue;
			s = line;
		}
		kl = s ? tool_parse_key(s, key, sizeof(key), err, sizeof(err))
		       : 0;
		if (kl < 0)
			die("%s", err);
		if (r.n && (!s || (size_t)kl != r.klen || r.n == RUN_MAX)) {
			missing += run_ask(c, prim, name, &r, o, bank);
			for (size_t k = 0; k < r.n; k++)
				free(r.text[k]);
			r.n = 0;
		}
		if (!s)
			break;
		r.klen = (size_t)kl;
		memcpy(r.keys + r.n * r.klen, key, r.klen);
		r.text[r.n] = strdup(s);
		if (!r.text[r.n++])
			die("out of memory");
	}
	free(line);
	free(r.text);
	free(r.keys);
	dta_client_close(c);
	return missing ? 1 : 0;
}

/* ---- commands ---- */

static int cmd_kw(int argc, char **argv)
{
	char hex[2 * DTA_KEY_MAX + 1], req[512], st[32], data[2 * DTA_DATA_MAX + 1];
	unsigned n = 0, t = 0;
	struct backend b;
	const char *js;
	int opt, found;

	static const struct option lo[] = {
		{ "redundancy", required_argument, NULL, 'n' },
		{ "threshold", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:t:h", lo, NULL)) != -1) {
		if (opt == 'n')
			n = (unsigned)opt_uint("--redundancy", optarg, 0,
					       DTA_MAX_REDUNDANCY);
		else if (opt == 't')
			t = (unsigned)opt_uint("--threshold", optarg, 0,
					       DTA_MAX_REDUNDANCY);
		else {
			printf("Usage: dta-query kw get NAME KEY [KEY..|-] [--redundancy N] "
			       "[--threshold T]\n"
			       "  The data last written for KEY (docs/keys.md for key forms).\n"
			       "  Several KEYs, or - (keys from stdin, one a line): one line\n"
			       "  each, asked in batches.\n"
			       "  --redundancy N  copies to look at (default: the structure's)\n"
			       "  --threshold T   votes the answer needs (default: plurality)\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (argc - optind < 3 || strcmp(argv[optind], "get"))
		die("usage: dta-query kw get NAME KEY [KEY..|-]");
	if (argc - optind > 3 || !strcmp(argv[optind + 2], "-")) {
		struct dta_kw_query_opts o = { .redundancy = n, .threshold = t };

		return many_keys(DTA_PRIM_KEY_WRITE, argv[optind + 1],
				 argv + optind + 2, argc - optind - 2, &o, 0);
	}
	key_arg(argv[optind + 2], hex);
	snprintf(req, sizeof(req), "kw %s %s %u %u", argv[optind + 1], hex, n, t);
	backend_open(&b);
	js = ask_at(&b, route_key(&b, dta_config_find(G.cfg, argv[optind + 1]),
				  hex), req);
	check(js);
	if (G.json) {
		printf("%s\n", js);
	} else {
		jstr(js, "status", st, sizeof(st));
		if (jstr(js, "data", data, sizeof(data)))
			printf("%s: 0x%s (%" PRIu64 " of %" PRIu64 " matching slots "
			       "agree)\n", st, data, jnum(js, "votes"),
			       jnum(js, "candidates"));
		else
			printf("%s (%" PRIu64 " slots matched the key's checksum)\n",
			       st, jnum(js, "candidates"));
	}
	found = jstatus(js, "found");
	backend_close(&b); /* frees js */
	return found ? 0 : 1;
}

static int cmd_pc(int argc, char **argv)
{
	char hex[2 * DTA_KEY_MAX + 1], req[512], st[32], path[4096];
	struct backend b;
	const char *js;
	int found;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: dta-query pc path NAME KEY [KEY..|-]\n"
		       "  The path (hop values) recorded for flow KEY.\n"
		       "  Several KEYs, or - (keys from stdin, one a line): one line\n"
		       "  each, asked in batches.\n");
		return 0;
	}
	if (argc < 4 || strcmp(argv[1], "path"))
		die("usage: dta-query pc path NAME KEY [KEY..|-]");
	if (argc > 4 || !strcmp(argv[3], "-"))
		return many_keys(DTA_PRIM_POSTCARD, argv[2], argv + 3, argc - 3,
				 NULL, 0);
	key_arg(argv[3], hex);
	snprintf(req, sizeof(req), "pc %s %s", argv[2], hex);
	backend_open(&b);
	js = ask_at(&b, route_key(&b, dta_config_find(G.cfg, argv[2]), hex), req);
	check(js);
	found = jstatus(js, "found");
	if (G.json) {
		printf("%s\n", js);
	} else if (found && jpath(js, path, sizeof(path))) {
		printf("found: %s (hop values, first hop first)\n", path);
	} else {
		jstr(js, "status", st, sizeof(st));
		printf("%s (%" PRIu64 " copies decoded validly)\n", st,
		       jnum(js, "valid_copies"));
	}
	backend_close(&b);
	return found ? 0 : 1;
}

static int cmd_ki(int argc, char **argv)
{
	char hex[2 * DTA_KEY_MAX + 1], req[512];
	unsigned bank = 0;
	struct backend b;
	const char *js;
	int opt;

	static const struct option lo[] = {
		{ "bank", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0;
	while ((opt = getopt_long(argc, argv, "b:h", lo, NULL)) != -1) {
		if (opt == 'b') {
			bank = (unsigned)opt_uint("--bank", optarg, 0, 1);
		} else {
			printf("Usage: dta-query ki get NAME KEY [KEY..|-] [--bank B]\n"
			       "  The count-min estimate for KEY (never below the true sum).\n"
			       "  Several KEYs, or - (keys from stdin, one a line): one line\n"
			       "  each, asked in batches.\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (argc - optind < 3 || strcmp(argv[optind], "get"))
		die("usage: dta-query ki get NAME KEY [KEY..|-]");
	if (argc - optind > 3 || !strcmp(argv[optind + 2], "-"))
		return many_keys(DTA_PRIM_KEY_INCREMENT, argv[optind + 1],
				 argv + optind + 2, argc - optind - 2, NULL,
				 bank);
	key_arg(argv[optind + 2], hex);
	snprintf(req, sizeof(req), "ki %s %s %u", argv[optind + 1], hex, bank);
	backend_open(&b);
	js = ask_at(&b, route_key(&b, dta_config_find(G.cfg, argv[optind + 1]),
				  hex), req);
	check(js);
	if (G.json)
		printf("%s\n", js);
	else
		printf("%" PRIu64 "\n", jnum(js, "count"));
	backend_close(&b);
	return 0;
}

static void print_entries(const char *js, uint64_t *printed)
{
	json_t *arr;
	size_t n = jentries(js, &arr), len;
	const char *s;

	for (size_t i = 0; i < n; i++) {
		if (!(s = jentry(arr, i, &len)))
			continue;
		printf("0x%.*s\n", (int)len, s);
		(*printed)++;
	}
}

static int cmd_ap(int argc, char **argv)
{
	char req[512];
	unsigned long tail = 10;
	int follow, from_start = 0, opt;
	struct backend b;
	const char *js;
	uint64_t printed = 0, lost = 0;
	uint32_t local;
	int to;

	static const struct option lo[] = {
		{ "lines", required_argument, NULL, 'n' },
		{ "from-start", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:sh", lo, NULL)) != -1) {
		if (opt == 'n') {
			tail = (unsigned long)opt_uint("--lines", optarg, 0,
						       1u << 24);
		} else if (opt == 's') {
			from_start = 1;
		} else {
			printf("Usage: dta-query ap tail NAME LIST [-n N]\n"
			       "       dta-query ap follow NAME LIST [--from-start]\n"
			       "  tail: the newest N entries still in the list's ring (default 10)\n"
			       "  follow: print entries as they arrive (from now, or from the\n"
			       "  oldest still stored) until interrupted; needs a collector.\n"
			       "  LIST is the list index within structure NAME (0-based;\n"
			       "  with the structure on several collectors, lists count on\n"
			       "  across them: the first collector's, then the next's).\n"
			       "  Entries are printed in hex, oldest first.\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (argc - optind != 3 ||
	    (strcmp(argv[optind], "tail") && strcmp(argv[optind], "follow")))
		die("usage: dta-query ap tail|follow NAME LIST");
	follow = !strcmp(argv[optind], "follow");
	backend_open(&b);
	{
		char *end;
		unsigned long l = strtoul(argv[optind + 2], &end, 0);

		if (*end || end == argv[optind + 2] || l > UINT32_MAX)
			die("LIST must be a list index, not %s", argv[optind + 2]);
		to = route_list(&b, dta_config_find(G.cfg, argv[optind + 1]),
				(uint32_t)l, &local);
	}
	if (follow) {
		if (b.fd < 0)
			die("follow needs a running collector");
		snprintf(req, sizeof(req), "ap %s %u 4096 %s", argv[optind + 1],
			 local, from_start ? "oldest" : "now");
		setvbuf(stdout, NULL, _IOLBF, 0);
		for (;;) {
			js = ask_at(&b, to, req);
			check(js);
			json_t *arr;
			size_t got = jentries(js, &arr);

			if (G.json) {
				if (got)
					printf("%s\n", js);
			} else {
				print_entries(js, &printed);
				if (jnum(js, "lost"))
					fprintf(stderr, "dta-query: %" PRIu64
						" entries overwritten before they "
						"were read\n", jnum(js, "lost"));
			}
			if (!got)
				usleep(20000);
		}
	}
	/* tail: read everything still stored, keep the last N. */
	{
		char **keep = calloc(tail ? tail : 1, sizeof(char *));
		uint64_t total = 0;

		snprintf(req, sizeof(req), "ap %s %u 4096 oldest", argv[optind + 1],
			 local);
		for (;;) {
			const char *s;
			json_t *arr;
			size_t len, got;

			js = ask_at(&b, to, req);
			check(js);
			lost += jnum(js, "lost");
			got = jentries(js, &arr);
			if (!got)
				break;
			for (size_t k = 0; tail && k < got; k++) {
				if (!(s = jentry(arr, k, &len)))
					continue;
				free(keep[total % tail]);
				keep[total % tail] = strndup(s, len);
				total++;
			}
		}
		if (G.json)
			fputs("{\"entries\":[", stdout);
		for (uint64_t i = total > tail ? total - tail : 0; i < total; i++) {
			if (G.json)
				printf("%s\"%s\"", i == (total > tail ? total - tail : 0)
						   ? "" : ",", keep[i % tail]);
			else
				printf("0x%s\n", keep[i % tail]);
		}
		if (G.json)
			printf("],\"stored\":%" PRIu64 "}\n", total);
		for (unsigned long i = 0; i < tail; i++)
			free(keep[i]);
		free(keep);
	}
	backend_close(&b);
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	struct backend b;
	const char *js;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("Usage: dta-query [--file F | --socket S | ...] info [FILE]\n"
		       "  The structures (geometry, hashing) of a collector or snapshot.\n");
		return 0;
	}
	if (argc == 2) /* dta-query info FILE, as before */
		G.files[G.nfiles++] = argv[1];
	backend_open(&b);
	js = ask(&b, "info");
	check(js);
	if (G.json) {
		printf("%s\n", js);
	} else {
		json_t *all = jget(js, "structures"), *st;
		size_t k;

		/* One line per structure: its members as key=value. */
		json_array_foreach(all, k, st) {
			const char *key;
			json_t *v;
			bool first = true;

			json_object_foreach(st, key, v) {
				char *text = json_is_string(v) ? NULL
					: json_dumps(v, JSON_ENCODE_ANY |
						     JSON_COMPACT);

				printf("%s%s=%s", first ? "" : " ", key,
				       text ? text : json_is_string(v)
						? json_string_value(v) : "?");
				free(text);
				first = false;
			}
			putchar('\n');
		}
		for (size_t i = 0; i < b.n; i++) {
			const struct dta_layout *l = dta_region_layout(b.r[i]);

			for (unsigned r = 0; r < DTA_HF_COUNT; r++)
				if (l->fn[r].kind == DTA_HASHFN_CRC32)
					printf("  role %2u: crc32 poly 0x%08x init 0x%08x "
					       "xorout 0x%08x\n", r, l->fn[r].poly,
					       l->fn[r].init, l->fn[r].xorout);
				else if (l->fn[r].kind == DTA_HASHFN_XXH3)
					printf("  role %2u: xxh3 seed 0x%016" PRIx64 "\n",
					       r, l->fn[r].seed);
		}
	}
	backend_close(&b);
	return 0;
}

static int cmd_simple(int argc, char **argv, const char *req,
		      const char *help)
{
	struct backend b;
	const char *js;
	int rc;

	if (argc > 1) {
		printf("%s", help);
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	backend_open(&b);
	if (b.fd < 0)
		die("%s needs a running collector", req);
	js = ask(&b, req);
	/* Only a top-level error is the request's: the snapshot answer names
	 * per-structure errors inside "failed". */
	if (!strncmp(js, "{\"error\"", 8))
		check(js);
	printf("%s\n", js);
	/* A snapshot that failed is a failure, whatever else was saved. */
	rc = !strcmp(req, "snapshot") && json_is_false(jget(js, "ok"));
	backend_close(&b);
	return rc;
}

static int cmd_stats(int argc, char **argv)
{
	return cmd_simple(argc, argv, "stats",
			  "Usage: dta-query stats\n  The collector's counters (JSON).\n");
}

static int cmd_switch(int argc, char **argv)
{
	return cmd_simple(argc, argv, "switch",
			  "Usage: dta-query switch\n  What a switch translator "
			  "needs to write into the collector (JSON, docs/roce.md):\n"
			  "  its MAC, IP, GID index, and per structure the queue pair,\n"
			  "  first PSN, R_Key, address, length and layout. Only for\n"
			  "  the collector's own uid and root (docs/security.md).\n");
}

static int cmd_snapshot(int argc, char **argv)
{
	return cmd_simple(argc, argv, "snapshot",
			  "Usage: dta-query snapshot\n  Ask the collector to write "
			  "snapshots of every structure now; exit status 1\n"
			  "  when any failed (the answer says which and why).\n");
}

/* ---- verify: compare a collector's answers with dta-gen's truth ---- */

struct tally {
	const char *name;
	int prim;
	uint64_t total, exact, notfound, wrong, conflict, over, under, truncated;
	/* Key-Write and Postcarding: sum over the keys of the success
	 * probability eq. 1-8 give at each key's age, and of its variance
	 * p (1 - p): the exact count is a sum of independent Bernoulli(p)
	 * trials (Poisson binomial), expected t->expect, standard error
	 * sqrt(t->var). */
	double expect, var;
	bool has_bound;
};

/* One more key whose answer fails with probability @fail (eq. 1-8). */
static void expect_add(struct tally *t, double fail)
{
	double p = fail < 1 ? 1 - fail : 0;

	t->expect += p;
	t->var += p * (1 - p);
	t->has_bound = true;
}

/* The expected exact share and its standard error (fractions). */
static void expected_share(const struct tally *t, double *mean, double *se)
{
	*mean = t->total ? t->expect / (double)t->total : 1;
	*se = t->total ? sqrt(t->var) / (double)t->total : 0;
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

/* The entries dta-gen sent to one Append list, in order. */
struct ap_truth {
	uint32_t id;
	size_t n, cap;
	char **e;
};

static void ap_add(struct ap_truth **aps, size_t *naps, uint32_t id,
		   const char *hex)
{
	struct ap_truth *a;
	size_t lo = 0, hi = *naps;

	/* Kept sorted by list id: a binary search per truth line, not a
	 * scan of every list seen so far. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((*aps)[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == *naps || (*aps)[lo].id != id) {
		*aps = realloc(*aps, (*naps + 1) * sizeof(**aps));
		if (!*aps)
			die("out of memory");
		memmove(&(*aps)[lo + 1], &(*aps)[lo],
			(*naps - lo) * sizeof(**aps));
		(*naps)++;
		memset(&(*aps)[lo], 0, sizeof(**aps));
		(*aps)[lo].id = id;
	}
	a = &(*aps)[lo];
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 1024;
		a->e = realloc(a->e, a->cap * sizeof(*a->e));
		if (!a->e)
			die("out of memory");
	}
	a->e[a->n++] = strdup(hex);
}

/* Read list @a->id from its oldest stored entry and match it against the
 * truth in order (tool_ap_match, linear in both): an entry sent but
 * skipped is not found, an entry read that was never sent (or out of
 * order) is wrong. */
static void ap_check(struct backend *b, const struct ap_truth *a,
		     struct tally *t)
{
	const struct dta_config_structure *cs =
		tool_route(G.cfg, DTA_PRIM_APPEND, 0, 0, a->id);
	char req[256];
	struct tool_ap_match m;
	uint32_t local;
	int to = route_list(b, cs, a->id - cs->list_base, &local);

	if (tool_ap_match_init(&m, (const char *const *)a->e, a->n))
		die("out of memory");
	snprintf(req, sizeof(req), "ap %s %u 4096 oldest", cs->name, local);
	for (;;) {
		const char *js = ask_at(b, to, req), *s;
		json_t *arr;
		size_t len, got;

		check(js);
		t->under += jnum(js, "lost");
		got = jentries(js, &arr);
		if (!got)
			break;
		for (size_t k = 0; k < got; k++)
			if ((s = jentry(arr, k, &len)) != NULL)
				tool_ap_match_entry(&m, s, len);
	}
	tool_ap_match_finish(&m);
	t->exact += m.exact;
	t->notfound += m.notfound;
	t->wrong += m.wrong;
	t->total += a->n;
	tool_ap_match_free(&m);
}

/* INT truth lines (docs/int.md "Truth lines"), checked exactly against
 * the structures of the [int] roles: one tally per role. */
enum { IV_PATH, IV_HOPS, IV_EVENTS, IV_FLOWS, IV_QUEUES, IV_ROLES };

struct int_tally {
	const char *name; /* the role's structure, NULL: none checked */
	int prim;
	uint64_t total, exact, notfound, wrong, conflict, over, under, lost;
	uint64_t disagree;  /* int-event lines whose fields are not ENTRY's */
	uint64_t unchecked; /* lines no configured role takes */
	const char *why;    /* why those were not checked */
	unsigned shown;     /* mismatches printed (at most INT_SHOW) */
};

static void int_verify(struct backend *b, char **lines, const size_t *lnum,
		       const bool *pcrun, size_t nlines, const char *truth,
		       struct int_tally *iv);
static void int_verify_print(const struct int_tally *t, int role,
			     bool *first);

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
	size_t nt = 0, nlines = 0, naps = 0;
	struct ap_truth *aps = NULL;
	char **reqs, **resp = NULL;
	int *to;
	uint64_t *after, t_start, queries = 0;
	double secs;
	unsigned redundancy = 2;
	struct backend b;
	char *line = NULL, **lines = NULL;
	size_t cap = 0, lcap = 0, *lnum = NULL, fileline = 0;
	bool *pcrun = NULL, in_pc = false, has_int = false;
	struct int_tally iv[IV_ROLES];
	FILE *f;
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
	f = fopen(truth, "r");
	if (!f)
		die("%s: %s", truth, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		fileline++;
		if (line[0] == '#') {
			struct tool_truth tt;

			if (tool_truth_parse(line, &tt))
				die("%s: %s", truth, tt.why);
			if (tt.redundancy)
				redundancy = tt.redundancy;
			/* Each run's header says whose lines follow: an
			 * int-path of a postcard run is what path_pc holds. */
			if (tt.type)
				in_pc = !strcmp(tt.type, "int-pc");
			continue;
		}
		if (nlines == lcap) {
			lcap = lcap ? 2 * lcap : 4096;
			lines = realloc(lines, lcap * sizeof(*lines));
			lnum = realloc(lnum, lcap * sizeof(*lnum));
			pcrun = realloc(pcrun, lcap * sizeof(*pcrun));
			if (!lines || !lnum || !pcrun)
				die("out of memory");
		}
		has_int |= !strncmp(line, "int-", 4);
		lnum[nlines] = fileline;
		pcrun[nlines] = in_pc;
		lines[nlines++] = strdup(line);
	}
	fclose(f);
	backend_open(&b);
	t_start = tool_now_ns();

	/* Ages: the truth lists keys oldest write first, so a key's age is
	 * the number of keys of its kind listed after it. */
	after = calloc(nlines + 1, sizeof(*after));
	if (!after)
		die("out of memory");
	{
		uint64_t kw = 0, pc = 0;

		for (size_t i = nlines; i-- > 0;) {
			after[i] = lines[i][0] == 'k' && lines[i][1] == 'w' ? kw
				   : pc;
			kw += lines[i][0] == 'k' && lines[i][1] == 'w';
			pc += lines[i][0] == 'p' && lines[i][1] == 'c';
		}
	}
	/* Pass 0 builds every request, which are then sent pipelined; pass
	 * 1 judges the answers. */
	reqs = calloc(nlines + 1, sizeof(*reqs));
	to = calloc(nlines + 1, sizeof(*to));
	if (!reqs || !to)
		die("out of memory");
	for (int pass = 0; pass < 2; pass++) {
	if (pass == 1)
		resp = ask_all(&b, reqs, to, nlines);
	for (size_t i = 0; i < nlines; i++) {
		char req[1024], ln[1024];
		struct tool_truth tt;
		const struct dta_config_structure *cs;
		struct tally *t;
		const char *js;

		snprintf(ln, sizeof(ln), "%s", lines[i]);
		if (!strncmp(ln, "int-", 4))
			continue; /* int_verify()'s */
		if (tool_truth_parse(ln, &tt))
			die("%s:%zu: %s", truth, lnum[i], tt.why);
		if (tt.kind == TOOL_TRUTH_KW) {
			uint64_t age = after[i];

			cs = tool_route(G.cfg, DTA_PRIM_KEY_WRITE, tt.data_len,
					0, 0);
			if (!cs)
				die("no Key-Write structure takes %u-byte data",
				    tt.data_len);
			t = tally_for(tl, &nt, cs);
			snprintf(req, sizeof(req), "kw %s %s %u", cs->name, tt.key,
				 cs->layout.g.kw.max_redundancy);
			if (pass == 0) {
				reqs[i] = strdup(req);
				to[i] = route_key(&b, cs, tt.key);
				continue;
			}
			js = resp[i];
			check(js);
			t->total++;
			if (jstatus(js, "found")) {
				char data[2 * DTA_DATA_MAX + 1] = "";

				jstr(js, "data", data, sizeof(data));
				if (!strcmp(data, tt.value))
					t->exact++;
				else
					t->wrong++;
			} else if (jstatus(js, "conflict")) {
				t->conflict++;
			} else {
				t->notfound++;
			}
			{
				/* Each collector's share sees 1/n of the keys. */
				double alpha = (double)age / (double)cs->layout.g.kw.slots /
					       cs->ncollectors;
				double fail = dta_bound_kw_empty(redundancy,
						8 * cs->layout.g.kw.csum_bytes, alpha) +
					      dta_bound_kw_wrong(redundancy,
						8 * cs->layout.g.kw.csum_bytes, alpha);

				expect_add(t, fail);
			}
		} else if (tt.kind == TOOL_TRUTH_PC) {
			uint64_t age = after[i];

			cs = tool_route(G.cfg, DTA_PRIM_POSTCARD, 0, tt.hops, 0);
			if (!cs)
				die("no Postcarding structure takes %u-hop paths",
				    tt.hops);
			t = tally_for(tl, &nt, cs);
			snprintf(req, sizeof(req), "pc %s %s", cs->name, tt.key);
			if (pass == 0) {
				reqs[i] = strdup(req);
				to[i] = route_key(&b, cs, tt.key);
				continue;
			}
			js = resp[i];
			check(js);
			t->total++;
			if (jstatus(js, "found")) {
				char path[4096];
				bool have = jpath(js, path, sizeof(path));
				size_t got = have ? strlen(path) : 0;

				if (have && got == strlen(tt.value) &&
				    !strncmp(path, tt.value, got))
					t->exact++;
				else if (have && got < strlen(tt.value) &&
					 tt.value[got] == ',' &&
					 !strncmp(path, tt.value, got))
					t->truncated++; /* evicted early */
				else
					t->wrong++;
			} else if (jstatus(js, "conflict")) {
				t->conflict++;
			} else {
				t->notfound++;
			}
			if (cs->nvalues) {
				double alpha = (double)age / (double)cs->layout.g.pc.chunks /
					       cs->ncollectors;
				unsigned n = cs->layout.g.pc.redundancy;
				unsigned bits = 8 * cs->layout.g.pc.slot_bytes;
				double fail = dta_bound_pc_empty(n, bits, alpha,
						(double)cs->nvalues, cs->layout.g.pc.hops) +
					      dta_bound_pc_wrong(n, bits, alpha,
						(double)cs->nvalues, cs->layout.g.pc.hops);

				expect_add(t, fail);
			}
		} else if (tt.kind == TOOL_TRUTH_KI) {
			uint64_t want = tt.count, got;

			cs = tool_route(G.cfg, DTA_PRIM_KEY_INCREMENT, 0, 0, 0);
			if (!cs)
				die("no Key-Increment structure configured");
			t = tally_for(tl, &nt, cs);
			snprintf(req, sizeof(req), "ki %s %s 0", cs->name, tt.key);
			if (pass == 0) {
				reqs[i] = strdup(req);
				to[i] = route_key(&b, cs, tt.key);
				continue;
			}
			js = resp[i];
			check(js);
			got = jnum(js, "count");
			t->total++;
			t->exact += got == want;
			t->over += got > want;
			t->under += got < want;
		} else if (tt.kind == TOOL_TRUTH_AP) {
			if (!tool_route(G.cfg, DTA_PRIM_APPEND, 0, 0, tt.list))
				die("no Append structure holds list %u", tt.list);
			if (pass == 1)
				ap_add(&aps, &naps, tt.list, tt.value);
		}
	}
	}
	for (size_t i = 0; i < naps; i++)
		ap_check(&b, &aps[i], tally_for(tl, &nt, tool_route(G.cfg,
				DTA_PRIM_APPEND, 0, 0, aps[i].id)));
	memset(iv, 0, sizeof(iv));
	if (has_int)
		int_verify(&b, lines, lnum, pcrun, nlines, truth, iv);
	secs = (double)(tool_now_ns() - t_start) / 1e9;
	for (size_t i = 0; i < nt; i++)
		queries += tl[i].total;
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
		       b.fd >= 0 ? "pipelined over the collector socket"
				 : "snapshot files");
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	for (size_t i = 0; i < nlines; i++) {
		free(reqs[i]);
		free(resp[i]);
	}
	free(reqs);
	free(to);
	free(resp);
	for (size_t i = 0; i < naps; i++) {
		for (size_t j = 0; j < aps[i].n; j++)
			free(aps[i].e[j]);
		free(aps[i].e);
	}
	free(aps);
	free(after);
	free(lines);
	free(lnum);
	free(pcrun);
	free(line);
	backend_close(&b);
	return bad;
}

/* ---- INT questions (docs/int.md "Querying INT structures") ----
 *
 * Answered here from the primitive requests (kw, pc, ki, ap) against the
 * structures the configuration's [int] section gives each role, so they
 * work the same over a collector's socket, --map and snapshot files, and
 * route by key or list like the primitive commands. (An INT `verify`
 * against dta-gen's INT truth files belongs beside cmd_verify().)
 */

#define INT_NONE UINT32_MAX /* a field or switch id not reported */
#define INT_PATH_MAX (DTA_DATA_MAX / 4 > 256 ? DTA_DATA_MAX / 4 : 256)

/* The [int] section of --config: which structure plays which role. */
static void int_map(struct dta_int_map *m)
{
	int rc;

	load_config();
	if (!G.cfg)
		die("int needs --config: its [int] section names the "
		    "structures (docs/int.md)");
	rc = dta_config_int_map(G.cfg, m, NULL);
	if (rc < 0)
		die("%s: bad [int] section", G.config);
	if (rc == 0)
		die("%s has no [int] section (docs/config.md#int)", G.config);
}

/* The structure of a role, or die naming the [int] key that is missing. */
static const struct dta_config_structure *int_role(int idx, const char *key)
{
	if (idx == DTA_INT_MAP_NONE)
		die("%s: [int] has no %s structure (%s = NAME)", G.config, key,
		    key);
	return dta_config_structure(G.cfg, (size_t)idx);
}

static void put_opt_u64(uint64_t v, uint64_t none)
{
	if (v == none)
		fputs("null", stdout);
	else
		printf("%" PRIu64, v);
}

static void print_opt_u64(uint64_t v, uint64_t none)
{
	if (v == none)
		fputs("-", stdout);
	else
		printf("%" PRIu64, v);
}

struct int_path {
	const struct dta_config_structure *cs;
	bool kw;         /* Key-Write paths, else Postcarding */
	char status[32];
	bool found;
	uint32_t sw[INT_PATH_MAX];
	unsigned n;
	uint64_t votes, candidates, valid_copies;
};

static void int_path_parse(const char *js, struct int_path *p);

/* The path of flow @hex from the path structure (Key-Write if [int] has
 * one, else Postcarding). */
static void int_path_get(struct backend *b, const struct dta_int_map *m,
			 const char *hex, struct int_path *p)
{
	char req[512];
	const char *js;

	memset(p, 0, sizeof(*p));
	p->kw = m->path_kw != DTA_INT_MAP_NONE;
	p->cs = int_role(p->kw ? m->path_kw : m->path_pc, "path");
	if (p->kw)
		snprintf(req, sizeof(req), "kw %s %s %u 0", p->cs->name, hex,
			 m->redundancy);
	else
		snprintf(req, sizeof(req), "pc %s %s", p->cs->name, hex);
	js = ask_at(b, route_key(b, p->cs, hex), req);
	int_path_parse(js, p);
}

/* The answer @js to @p's path request: status, votes, the switch ids. */
static void int_path_parse(const char *js, struct int_path *p)
{
	check(js);
	jstr(js, "status", p->status, sizeof(p->status));
	p->found = !strcmp(p->status, "found");
	p->votes = jnum(js, "votes");
	p->candidates = jnum(js, "candidates");
	p->valid_copies = jnum(js, "valid_copies");
	if (!p->found)
		return;
	if (p->kw) {
		char data[2 * DTA_DATA_MAX + 1];
		uint8_t d[DTA_DATA_MAX];
		int len;

		if (!jstr(js, "data", data, sizeof(data)) ||
		    (len = tool_unhex(data, d, sizeof(d))) < 0)
			die("%s: answer without data", p->cs->name);
		for (int i = 0; i + 4 <= len && p->n < INT_PATH_MAX; i += 4)
			p->sw[p->n++] = (uint32_t)d[i] << 24 |
					(uint32_t)d[i + 1] << 16 |
					(uint32_t)d[i + 2] << 8 | d[i + 3];
	} else {
		json_t *arr = jget(js, "path"), *v;
		size_t i;

		if (!json_is_array(arr))
			die("%s: answer without a path", p->cs->name);
		json_array_foreach(arr, i, v) {
			json_int_t x = json_integer_value(v);

			if (p->n >= INT_PATH_MAX)
				break;
			if (!json_is_integer(v) || x < 0)
				die("%s: bad path in the answer", p->cs->name);
			p->sw[p->n++] = x > UINT32_MAX ? INT_NONE : (uint32_t)x;
		}
	}
	/* Padding after the path's last hop. */
	while (p->n && p->sw[p->n - 1] == INT_NONE)
		p->n--;
}

static void int_path_json(const char *flow, const struct int_path *p)
{
	printf("\"flow\":");
	tool_json_str(stdout, flow);
	printf(",\"structure\":");
	tool_json_str(stdout, p->cs->name);
	printf(",\"primitive\":\"%s\",\"status\":\"%s\"", p->kw ? "kw" : "pc",
	       p->status);
	if (p->found) {
		fputs(",\"path\":[", stdout);
		for (unsigned i = 0; i < p->n; i++) {
			if (i)
				putchar(',');
			put_opt_u64(p->sw[i], INT_NONE);
		}
		putchar(']');
	}
	if (p->kw)
		printf(",\"votes\":%" PRIu64 ",\"candidates\":%" PRIu64,
		       p->votes, p->candidates);
	else
		printf(",\"valid_copies\":%" PRIu64, p->valid_copies);
}

/* "found: 1 2 3 (...)" or "not-found (...)": the path and how sure. */
static void int_path_print(const struct int_path *p)
{
	fputs(p->status, stdout);
	if (p->found) {
		fputs(":", stdout);
		for (unsigned i = 0; i < p->n; i++) {
			putchar(' ');
			print_opt_u64(p->sw[i], INT_NONE);
		}
		fputs(" (switch ids, first hop first;", stdout);
	} else {
		fputs(" (", stdout);
	}
	if (p->kw && p->found)
		printf(" %" PRIu64 " of %" PRIu64 " matching slots agree)\n",
		       p->votes, p->candidates);
	else if (p->kw)
		printf("%" PRIu64 " slots matched the key's checksum)\n",
		       p->candidates);
	else
		printf("%s%" PRIu64 " copies decoded validly)\n",
		       p->found ? " " : "", p->valid_copies);
}

static int int_path(const struct dta_int_map *m, const char *flow,
		    const char *hex)
{
	struct int_path p;
	struct backend b;

	backend_open(&b);
	int_path_get(&b, m, hex, &p);
	if (G.json) {
		putchar('{');
		int_path_json(flow, &p);
		puts("}");
	} else {
		int_path_print(&p);
	}
	backend_close(&b);
	return p.found ? 0 : 1;
}

/* The measurements of hop record @h, as ", latency 10, ..." or JSON
 * members. */
static void int_hop_fields(const struct dta_int_hop *h)
{
	static const char *const json[] = { "latency", "occupancy",
					    "egress_ts" };
	static const char *const human[] = { "latency", "occupancy",
					     "egress ts" };
	const uint64_t v[] = { h->hop_latency, h->queue_occupancy,
			       h->egress_ts };
	const uint64_t none[] = { INT_NONE, INT_NONE, UINT64_MAX };

	for (unsigned f = 0; f < 3; f++) {
		if (G.json) {
			printf(",\"%s\":", json[f]);
			put_opt_u64(v[f], none[f]);
		} else {
			printf(", %s ", human[f]);
			print_opt_u64(v[f], none[f]);
		}
	}
}

static int int_hops(const struct dta_int_map *m, const char *flow,
		    const uint8_t *key, int klen, const char *hex)
{
	const struct dta_config_structure *hs = int_role(m->hop_kw, "hops");
	char *reqs[INT_PATH_MAX] = { NULL }, **resp;
	int to[INT_PATH_MAX];
	struct int_path p;
	struct backend b;

	backend_open(&b);
	int_path_get(&b, m, hex, &p);
	for (unsigned i = 0; p.found && i < p.n; i++) {
		uint8_t k[DTA_KEY_MAX];
		char khex[2 * DTA_KEY_MAX + 1], req[512];

		to[i] = -1;
		if (p.sw[i] == INT_NONE)
			continue;
		memcpy(k, key, (size_t)klen);
		for (int j = 0; j < 4; j++)
			k[klen + j] = (uint8_t)(p.sw[i] >> (24 - 8 * j));
		tool_hex(k, (size_t)klen + 4, khex);
		snprintf(req, sizeof(req), "kw %s %s %u 0", hs->name, khex,
			 m->redundancy);
		reqs[i] = strdup(req);
		if (!reqs[i])
			die("out of memory");
		to[i] = route_key(&b, hs, khex);
	}
	resp = ask_all(&b, reqs, to, p.found ? p.n : 0);
	for (unsigned i = 0; i < (p.found ? p.n : 0); i++)
		if (resp[i])
			check(resp[i]);
	if (G.json) {
		fputs("{", stdout);
		int_path_json(flow, &p);
		fputs(",\"hops_structure\":", stdout);
		tool_json_str(stdout, hs->name);
		fputs(",\"hops\":[", stdout);
	} else {
		fputs("path ", stdout);
		int_path_print(&p);
	}
	for (unsigned i = 0; p.found && i < p.n; i++) {
		char st[32] = "no-switch-id", data[2 * DTA_DATA_MAX + 1];
		uint8_t d[DTA_DATA_MAX];
		struct dta_int_hop h;
		bool have = false;

		if (resp[i]) {
			jstr(resp[i], "status", st, sizeof(st));
			have = jstr(resp[i], "data", data, sizeof(data)) &&
			       tool_unhex(data, d, sizeof(d)) >=
				       DTA_INT_HOP_DATA_LEN &&
			       !dta_int_hop_decode(d, &h);
		}
		if (G.json) {
			printf("%s{\"hop\":%u,\"switch\":", i ? "," : "", i);
			put_opt_u64(p.sw[i], INT_NONE);
			printf(",\"status\":\"%s\"", st);
			if (have)
				int_hop_fields(&h);
			putchar('}');
			continue;
		}
		printf("hop %u switch ", i);
		print_opt_u64(p.sw[i], INT_NONE);
		printf(": %s", st);
		if (have)
			int_hop_fields(&h);
		putchar('\n');
	}
	if (G.json)
		puts("]}");
	for (unsigned i = 0; i < (p.found ? p.n : 0); i++) {
		free(reqs[i]);
		free(resp[i]);
	}
	free(resp);
	backend_close(&b);
	return p.found ? 0 : 1;
}

/* A Key-Increment role's count of @khex (flow, or switch + queue). */
static int int_count(const struct dta_config_structure *cs, const char *what,
		     const char *text, const char *khex)
{
	char req[512];
	struct backend b;
	const char *js;

	snprintf(req, sizeof(req), "ki %s %s 0", cs->name, khex);
	backend_open(&b);
	js = ask_at(&b, route_key(&b, cs, khex), req);
	check(js);
	if (G.json) {
		printf("{\"%s\":", what);
		tool_json_str(stdout, text);
		fputs(",\"structure\":", stdout);
		tool_json_str(stdout, cs->name);
		printf(",\"count\":%" PRIu64 "}\n", jnum(js, "count"));
	} else {
		printf("%" PRIu64 "\n", jnum(js, "count"));
	}
	backend_close(&b);
	return 0;
}

struct int_filter {
	uint8_t flag;            /* DTA_INT_F_DROPPED or _CONGESTED */
	uint64_t sw, reason, queue; /* UINT64_MAX: any */
};

static bool int_event_match(const struct dta_int_event *e,
			    const struct int_filter *f)
{
	return (e->flags & f->flag) &&
	       (f->sw == UINT64_MAX || e->switch_id == f->sw) &&
	       (f->reason == UINT64_MAX || e->drop_reason == f->reason) &&
	       (f->queue == UINT64_MAX || e->queue_id == f->queue);
}

static void int_event_out(const struct dta_int_event *e, uint32_t list,
			  bool first)
{
	if (G.json) {
		printf("%s{\"list\":%u,\"switch\":", first ? "" : ",", list);
		put_opt_u64(e->switch_id, INT_NONE);
		printf(",\"dropped\":%s,\"congested\":%s,\"queue\":",
		       e->flags & DTA_INT_F_DROPPED ? "true" : "false",
		       e->flags & DTA_INT_F_CONGESTED ? "true" : "false");
		put_opt_u64(e->queue_id, 0xff);
		fputs(",\"reason\":", stdout);
		put_opt_u64(e->drop_reason, 0xff);
		fputs(",\"ingress_port\":", stdout);
		put_opt_u64(e->ingress_port, 0xffff);
		fputs(",\"egress_port\":", stdout);
		put_opt_u64(e->egress_port, 0xffff);
		fputs(",\"occupancy\":", stdout);
		put_opt_u64(e->queue_occupancy, INT_NONE);
		fputs(",\"latency\":", stdout);
		put_opt_u64(e->hop_latency, INT_NONE);
		printf(",\"time\":%" PRIu64 ",\"flow_hash\":%u,\"version\":%u}",
		       e->time, e->flow_hash, e->version);
		return;
	}
	fputs("switch ", stdout);
	print_opt_u64(e->switch_id, INT_NONE);
	fputs(" queue ", stdout);
	print_opt_u64(e->queue_id, 0xff);
	fputs(" ports ", stdout);
	print_opt_u64(e->ingress_port, 0xffff);
	fputs("->", stdout);
	print_opt_u64(e->egress_port, 0xffff);
	printf(": %s", (e->flags & DTA_INT_F_DROPPED) &&
			       (e->flags & DTA_INT_F_CONGESTED)
		       ? "drop+congestion"
		       : e->flags & DTA_INT_F_DROPPED ? "drop" : "congestion");
	fputs(", reason ", stdout);
	print_opt_u64(e->drop_reason, 0xff);
	fputs(", occupancy ", stdout);
	print_opt_u64(e->queue_occupancy, INT_NONE);
	fputs(", latency ", stdout);
	print_opt_u64(e->hop_latency, INT_NONE);
	printf(", time %" PRIu64 ", flow hash 0x%08x, version %s\n", e->time,
	       e->flow_hash, e->version == 0 ? "0.5" : e->version == 1 ? "1.0"
			     : e->version == 2 ? "2.0" : "?");
}

/* drops / congestion: the events still stored in the lists the events_by
 * rule puts them in, oldest first per list, filtered. */
static int int_events(const struct dta_int_map *m, const struct int_filter *f)
{
	const struct dta_config_structure *cs = int_role(m->events_ap, "events");
	uint32_t lists, lo = 0, hi;
	uint64_t read = 0, lost = 0, shown = 0;

	if (cs->layout.primitive != DTA_PRIM_APPEND ||
	    cs->layout.g.ap.entry_size != DTA_INT_EVENT_SIZE)
		die("%s is not an Append structure of %d-byte entries",
		    cs->name, DTA_INT_EVENT_SIZE);
	lists = cs->layout.g.ap.lists;
	hi = lists - 1;
	if (m->events_by == DTA_INT_EVENTS_ONE) {
		hi = 0;
	} else if (m->events_by == DTA_INT_EVENTS_SWITCH && f->sw != UINT64_MAX) {
		lo = hi = (uint32_t)(f->sw % lists);
	} else if (m->events_by == DTA_INT_EVENTS_REASON &&
		   f->reason != UINT64_MAX) {
		lo = hi = (uint32_t)(f->reason % lists);
	}
	if (G.json) {
		fputs("{\"structure\":", stdout);
		tool_json_str(stdout, cs->name);
		printf(",\"first_list\":%u,\"last_list\":%u,\"events\":[",
		       lo, hi);
	}
	/* One connection (session) per list: a session keeps 16 readers. */
	for (uint64_t l = lo; l <= hi; l++) {
		char req[512];
		struct backend b;
		uint32_t local;
		int to;

		backend_open(&b);
		to = route_list(&b, cs, (uint32_t)l, &local);
		snprintf(req, sizeof(req), "ap %s %u 4096 oldest", cs->name,
			 local);
		for (;;) {
			const char *js = ask_at(&b, to, req), *s;
			json_t *arr;
			size_t len = 0, got;

			check(js);
			lost += jnum(js, "lost");
			got = jentries(js, &arr);
			if (!got)
				break;
			for (size_t k = 0; k < got; k++) {
				uint8_t e[DTA_INT_EVENT_SIZE];
				char hex[2 * DTA_INT_EVENT_SIZE + 1];
				struct dta_int_event ev;

				read++;
				s = jentry(arr, k, &len);
				if (!s || len != 2 * DTA_INT_EVENT_SIZE)
					die("%s: an entry of %zu hex digits",
					    cs->name, len);
				memcpy(hex, s, len);
				hex[len] = 0;
				if (tool_unhex(hex, e, sizeof(e)) !=
					    DTA_INT_EVENT_SIZE ||
				    dta_int_event_decode(e, &ev))
					die("%s: bad entry %s", cs->name, hex);
				if (int_event_match(&ev, f))
					int_event_out(&ev, (uint32_t)l,
						      shown++ == 0);
			}
		}
		backend_close(&b);
	}
	if (G.json)
		printf("],\"matched\":%" PRIu64 ",\"read\":%" PRIu64
		       ",\"lost\":%" PRIu64 "}\n", shown, read, lost);
	else
		printf("%" PRIu64 " %s of %" PRIu64 " events read (lists %u-%u"
		       "%s)\n", shown,
		       f->flag == DTA_INT_F_DROPPED ? "drops" : "congestion events",
		       read, lo, hi, lost ? ", some overwritten before read" : "");
	return 0;
}

/* ---- verify: INT truth lines (docs/int.md "Truth lines") ---- */

#define INT_SHOW 10 /* mismatches printed per role */

static const char *const iv_role_name[IV_ROLES] = {
	"path", "hops", "events", "flow_counts", "queue_counts"
};

/* One line of a role that will be asked about: lines with the same
 * @group (role and key) are one answer, the last line's (paths and hop
 * records: the last write wins) or the sum of their counts. */
struct iv_item {
	char *group;
	size_t line;    /* index into the lines */
	uint64_t count; /* int-flow, int-queue: summed over the group */
	int role;
};

static int iv_item_cmp(const void *a, const void *b)
{
	const struct iv_item *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Print a mismatch of line @n on stderr (the first INT_SHOW of a role). */
__attribute__((format(printf, 4, 5)))
static void iv_show(struct int_tally *t, const char *truth, size_t n,
		    const char *fmt, ...)
{
	va_list ap;

	if (t->shown++ >= INT_SHOW) {
		if (t->shown == INT_SHOW + 1)
			fprintf(stderr, "dta-query: %s: more INT mismatches of "
				"this role not shown\n", truth);
		return;
	}
	if (n)
		fprintf(stderr, "dta-query: %s:%zu: ", truth, n);
	else
		fprintf(stderr, "dta-query: %s: ", truth);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The Append list the translator puts event @e in (docs/int.md "Roles":
 * events_by); a drop reason of 255 is taken as not carried. */
static uint32_t iv_event_list(const struct dta_int_map *m,
			      const struct dta_int_event *e, uint32_t lists)
{
	if (m->events_by == DTA_INT_EVENTS_SWITCH)
		return e->switch_id % lists;
	if (m->events_by == DTA_INT_EVENTS_REASON)
		return (e->drop_reason == 0xFF ? 0u : e->drop_reason) % lists;
	return 0;
}

/* Whether an int-event line's fields say what its ENTRY holds (REASON
 * 255 and OCCUPANCY 0 stand for fields the report did not carry). */
static bool iv_event_agrees(const struct tool_truth *tt,
			    const struct dta_int_event *e)
{
	uint8_t flag = tt->event == 'D' ? DTA_INT_F_DROPPED
					: DTA_INT_F_CONGESTED;

	return e->switch_id == tt->switch_id &&
	       e->ingress_port == tt->in_port &&
	       e->egress_port == tt->eg_port &&
	       (e->flags & (DTA_INT_F_DROPPED | DTA_INT_F_CONGESTED)) == flag &&
	       e->queue_id == tt->queue && e->drop_reason == tt->reason &&
	       (e->queue_occupancy == tt->occupancy ||
		(e->queue_occupancy == INT_NONE && tt->occupancy == 0));
}

/* Read list @list of events structure @cs from its oldest stored entry
 * and match it, in order, against the entries sent there. */
static void iv_events_check(const struct dta_config_structure *cs,
			    const struct ap_truth *a, struct int_tally *t,
			    const char *truth)
{
	struct tool_ap_match m;
	struct backend b;
	char req[512];
	uint32_t local;
	int to;

	if (tool_ap_match_init(&m, (const char *const *)a->e, a->n))
		die("out of memory");
	/* A connection of its own: a session keeps 16 readers. */
	backend_open(&b);
	to = route_list(&b, cs, a->id, &local);
	snprintf(req, sizeof(req), "ap %s %u 4096 oldest", cs->name, local);
	for (;;) {
		const char *js = ask_at(&b, to, req), *s;
		json_t *arr;
		size_t len, got;

		check(js);
		t->lost += jnum(js, "lost");
		got = jentries(js, &arr);
		if (!got)
			break;
		for (size_t k = 0; k < got; k++)
			if ((s = jentry(arr, k, &len)) != NULL)
				tool_ap_match_entry(&m, s, len);
	}
	backend_close(&b);
	tool_ap_match_finish(&m);
	t->exact += m.exact;
	t->notfound += m.notfound;
	t->wrong += m.wrong;
	t->total += a->n;
	if (m.notfound || m.wrong)
		iv_show(t, truth, 0, "int-event: list %u of %s: %" PRIu64
			" of %zu entries sent not read in order, %" PRIu64
			" read but never sent", a->id, cs->name, m.notfound,
			a->n, m.wrong);
	tool_ap_match_free(&m);
}

/* The role (IV_*) and structure that answer INT line @tt, or -1 with
 * @t[role].unchecked counted when [int] has none. */
static int iv_route(const struct dta_int_map *m, const struct tool_truth *tt,
		    bool pcrun, struct int_tally *t, int *idx)
{
	int role = tt->kind == TOOL_TRUTH_INT_PATH    ? IV_PATH
		   : tt->kind == TOOL_TRUTH_INT_HOP   ? IV_HOPS
		   : tt->kind == TOOL_TRUTH_INT_EVENT ? IV_EVENTS
		   : tt->kind == TOOL_TRUTH_INT_FLOW  ? IV_FLOWS
						      : IV_QUEUES;

	*idx = role == IV_HOPS ? m->hop_kw : role == IV_EVENTS ? m->events_ap
	       : role == IV_FLOWS ? m->flow_ki : m->queue_ki;
	if (role == IV_PATH) /* INT-MD paths go to path_kw, else path_pc;
			      * postcards only to path_pc ("Roles") */
		*idx = pcrun ? m->path_pc
		       : m->path_kw != DTA_INT_MAP_NONE ? m->path_kw : m->path_pc;
	if (*idx != DTA_INT_MAP_NONE)
		return role;
	t[role].unchecked++;
	t[role].why = role == IV_PATH && pcrun && m->path_kw != DTA_INT_MAP_NONE
			      ? "paths of postcard runs, and [int] path is "
				"Key-Write, which only INT-MD reports write"
			      : "[int] has no structure for them";
	return -1;
}

/* The exact Key-Write data (hex) an int-path or int-hop line says the
 * structure @cs holds. */
static void iv_kw_want(const struct tool_truth *tt,
		       const struct dta_config_structure *cs, char *hex)
{
	uint8_t d[DTA_DATA_MAX];
	unsigned dl = cs->layout.g.kw.data_len;

	memset(d, 0, dl);
	if (tt->kind == TOOL_TRUTH_INT_PATH) {
		memset(d, 0xFF, dl);
		for (unsigned i = 0; i < tt->hops && i < dl / 4; i++)
			for (int j = 0; j < 4; j++)
				d[4 * i + j] = (uint8_t)(tt->path[i] >> (24 - 8 * j));
	} else {
		for (int j = 0; j < 4; j++) {
			d[j] = (uint8_t)(tt->latency >> (24 - 8 * j));
			d[4 + j] = (uint8_t)(tt->occupancy >> (24 - 8 * j));
		}
		for (int j = 0; j < 8; j++)
			d[8 + j] = (uint8_t)(tt->egress_ts >> (56 - 8 * j));
	}
	tool_hex(d, dl, hex);
}

static void iv_judge(const struct iv_item *it, const struct tool_truth *tt,
		     const struct dta_config_structure *cs, const char *js,
		     struct int_tally *t, const char *truth, size_t n)
{
	char want[2 * DTA_DATA_MAX + 1], data[2 * DTA_DATA_MAX + 1] = "";

	check(js);
	t->total++;
	if (it->role == IV_FLOWS || it->role == IV_QUEUES) {
		uint64_t got = jnum(js, "count");

		t->exact += got == it->count;
		t->over += got > it->count;
		t->under += got < it->count;
		if (got != it->count)
			iv_show(t, truth, n, "%s %s: count %" PRIu64 ", want %"
				PRIu64 " (summed over the file)",
				it->role == IV_FLOWS ? "int-flow" : "int-queue",
				tt->key, got, it->count);
		return;
	}
	if (jstatus(js, "conflict")) {
		t->conflict++;
		iv_show(t, truth, n, "%s %s: conflict", it->role == IV_PATH
			? "int-path" : "int-hop", tt->key);
		return;
	}
	if (!jstatus(js, "found")) {
		t->notfound++;
		iv_show(t, truth, n, "%s %s: not found", it->role == IV_PATH
			? "int-path" : "int-hop", tt->key);
		return;
	}
	if (cs->layout.primitive == DTA_PRIM_POSTCARD) {
		/* The first B hops (the rest count as int_mismatch). */
		struct int_path p = { .cs = cs };
		unsigned want_n = tt->hops < cs->layout.g.pc.hops
					  ? tt->hops : cs->layout.g.pc.hops;
		bool same;

		int_path_parse(js, &p);
		same = p.n == want_n;
		for (unsigned i = 0; same && i < want_n; i++)
			same = p.sw[i] == tt->path[i];
		t->exact += same;
		t->wrong += !same;
		if (!same)
			iv_show(t, truth, n, "int-path %s: %s has another path "
				"(%u hops, first %u)", tt->key, cs->name, p.n,
				p.n ? p.sw[0] : 0);
		return;
	}
	iv_kw_want(tt, cs, want);
	jstr(js, "data", data, sizeof(data));
	if (!strcmp(data, want)) {
		t->exact++;
		return;
	}
	t->wrong++;
	iv_show(t, truth, n, "%s %s%s: 0x%s, want 0x%s",
		it->role == IV_PATH ? "int-path" : "int-hop", tt->key,
		it->role == IV_PATH ? "" : " at its switch", data, want);
}

static void int_verify(struct backend *b, char **lines, const size_t *lnum,
		       const bool *pcrun, size_t nlines, const char *truth,
		       struct int_tally *t)
{
	struct dta_int_map m;
	struct iv_item *items = calloc(nlines + 1, sizeof(*items));
	struct ap_truth *aps = NULL;
	const struct dta_config_structure *ecs = NULL;
	size_t ni = 0, naps = 0, nj = 0;
	char **reqs, **resp;
	int *to;
	struct tool_truth *tt = malloc(sizeof(*tt));
	char *ln = NULL;
	size_t lncap = 0;

	if (!items || !tt)
		die("out of memory");
	int_map(&m);
	if (m.events_ap != DTA_INT_MAP_NONE) {
		ecs = dta_config_structure(G.cfg, (size_t)m.events_ap);
		if (ecs->layout.g.ap.entry_size != DTA_INT_EVENT_SIZE)
			die("%s is not an Append structure of %d-byte entries",
			    ecs->name, DTA_INT_EVENT_SIZE);
	}
	for (int r = 0; r < IV_ROLES; r++) {
		int idx = r == IV_PATH ? (m.path_kw != DTA_INT_MAP_NONE
					  ? m.path_kw : m.path_pc)
			  : r == IV_HOPS ? m.hop_kw : r == IV_EVENTS ? m.events_ap
			  : r == IV_FLOWS ? m.flow_ki : m.queue_ki;

		if (idx != DTA_INT_MAP_NONE) {
			t[r].name = dta_config_structure(G.cfg, (size_t)idx)->name;
			t[r].prim = dta_config_structure(G.cfg, (size_t)idx)
					    ->layout.primitive;
		}
	}
	/* Every INT line parsed once: events to their lists, the rest to
	 * the groups asked about. */
	for (size_t i = 0; i < nlines; i++) {
		char group[2 * DTA_KEY_MAX + 16];
		size_t len = strlen(lines[i]) + 1;
		int role, idx;

		if (strncmp(lines[i], "int-", 4))
			continue;
		if (len > lncap) {
			lncap = 2 * len;
			ln = realloc(ln, lncap);
			if (!ln)
				die("out of memory");
		}
		memcpy(ln, lines[i], len);
		if (tool_truth_parse(ln, tt))
			die("%s:%zu: %s", truth, lnum[i], tt->why);
		role = iv_route(&m, tt, pcrun[i], t, &idx);
		if (role < 0)
			continue;
		if (role == IV_EVENTS) {
			struct dta_int_event e;
			char hex[2 * DTA_INT_EVENT_SIZE + 1];

			dta_int_event_decode(tt->entry, &e);
			if (!iv_event_agrees(tt, &e)) {
				t[IV_EVENTS].disagree++;
				iv_show(&t[IV_EVENTS], truth, lnum[i],
					"int-event: the fields disagree with "
					"ENTRY");
			}
			tool_hex(tt->entry, DTA_INT_EVENT_SIZE, hex);
			ap_add(&aps, &naps, iv_event_list(&m, &e,
					ecs->layout.g.ap.lists), hex);
			continue;
		}
		tool_hex(tt->ikey, tt->ikey_len, group + 1);
		group[0] = (char)('0' + role);
		if (role == IV_HOPS)
			snprintf(group + 1 + 2 * tt->ikey_len, 10, "%08x",
				 tt->switch_id);
		items[ni].group = strdup(group);
		if (!items[ni].group)
			die("out of memory");
		items[ni].line = i;
		items[ni].count = tt->count;
		items[ni].role = role;
		ni++;
	}
	qsort(items, ni, sizeof(*items), iv_item_cmp);
	/* Keep each group's last line, with the group's sum. */
	for (size_t i = 0; i < ni; i++) {
		if (i + 1 < ni && !strcmp(items[i].group, items[i + 1].group)) {
			items[i + 1].count += items[i].count;
			free(items[i].group);
			continue;
		}
		items[nj++] = items[i];
	}
	reqs = calloc(nj + 1, sizeof(*reqs));
	to = calloc(nj + 1, sizeof(*to));
	if (!reqs || !to)
		die("out of memory");
	for (size_t i = 0; i < nj; i++) {
		const struct iv_item *it = &items[i];
		const struct dta_config_structure *cs;
		char req[512], khex[2 * DTA_KEY_MAX + 1];
		int idx;

		memcpy(ln, lines[it->line], strlen(lines[it->line]) + 1);
		tool_truth_parse(ln, tt);
		iv_route(&m, tt, pcrun[it->line], t, &idx);
		cs = dta_config_structure(G.cfg, (size_t)idx);
		snprintf(khex, sizeof(khex), "%s", it->group + 1);
		if (cs->layout.primitive == DTA_PRIM_KEY_WRITE)
			snprintf(req, sizeof(req), "kw %s %s %u 0", cs->name,
				 khex, m.redundancy);
		else if (cs->layout.primitive == DTA_PRIM_POSTCARD)
			snprintf(req, sizeof(req), "pc %s %s", cs->name, khex);
		else
			snprintf(req, sizeof(req), "ki %s %s 0", cs->name, khex);
		reqs[i] = strdup(req);
		if (!reqs[i])
			die("out of memory");
		to[i] = route_key(b, cs, khex);
	}
	resp = ask_all(b, reqs, to, nj);
	for (size_t i = 0; i < nj; i++) {
		const struct iv_item *it = &items[i];
		int idx;

		memcpy(ln, lines[it->line], strlen(lines[it->line]) + 1);
		tool_truth_parse(ln, tt);
		iv_route(&m, tt, pcrun[it->line], t, &idx);
		iv_judge(it, tt, dta_config_structure(G.cfg, (size_t)idx),
			 resp[i], &t[it->role], truth, lnum[it->line]);
	}
	for (size_t i = 0; i < naps; i++)
		iv_events_check(ecs, &aps[i], &t[IV_EVENTS], truth);
	for (size_t i = 0; i < nj; i++) {
		free(items[i].group);
		free(reqs[i]);
		free(resp[i]);
	}
	for (size_t i = 0; i < naps; i++) {
		for (size_t j = 0; j < aps[i].n; j++)
			free(aps[i].e[j]);
		free(aps[i].e);
	}
	free(aps);
	free(items);
	free(reqs);
	free(to);
	free(resp);
	free(ln);
	free(tt);
}

static void int_verify_print(const struct int_tally *t, int role, bool *first)
{
	double ok = t->total ? (double)t->exact / (double)t->total : 1;

	if (!t->total && !t->unchecked && !t->disagree)
		return;
	if (G.json) {
		printf("%s{\"name\":", *first ? "" : ",");
		*first = false;
		if (t->name)
			tool_json_str(stdout, t->name);
		else
			fputs("null", stdout);
		printf(",\"int_role\":\"%s\",\"primitive\":", iv_role_name[role]);
		if (t->name)
			printf("\"%s\"", dta_primitive_name(t->prim));
		else
			fputs("null", stdout);
		printf(",\"total\":%" PRIu64 ",\"exact\":%" PRIu64
		       ",\"not_found\":%" PRIu64 ",\"wrong\":%" PRIu64
		       ",\"conflict\":%" PRIu64 ",\"over\":%" PRIu64
		       ",\"under\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"disagree\":%" PRIu64 ",\"not_checked\":%" PRIu64
		       ",\"success\":%.6f}", t->total, t->exact, t->notfound,
		       t->wrong, t->conflict, t->over, t->under, t->lost,
		       t->disagree, t->unchecked, ok);
		return;
	}
	printf("INT %-12s %-10s %7" PRIu64 " lines %7.3f%% exact",
	       iv_role_name[role], t->name ? t->name : "-", t->total, 100 * ok);
	switch (role) {
	case IV_PATH:
	case IV_HOPS:
		printf("  (%" PRIu64 " not found, %" PRIu64 " wrong, %" PRIu64
		       " conflict)", t->notfound, t->wrong, t->conflict);
		break;
	case IV_EVENTS:
		printf("  (%" PRIu64 " not read in order, %" PRIu64
		       " read but never sent, %" PRIu64
		       " overwritten before read, %" PRIu64
		       " lines disagree with their ENTRY)", t->notfound, t->wrong,
		       t->lost, t->disagree);
		break;
	default:
		printf("  (%" PRIu64 " over-estimated, %" PRIu64 " under)",
		       t->over, t->under);
		break;
	}
	if (t->unchecked)
		printf("  %" PRIu64 " not checked: %s", t->unchecked, t->why);
	putchar('\n');
}

static void int_usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-query -c CONFIG int path FLOW\n"
		"       dta-query -c CONFIG int hops FLOW\n"
		"       dta-query -c CONFIG int drops [--switch ID] [--reason R]\n"
		"       dta-query -c CONFIG int congestion [--switch ID] [--queue Q]\n"
		"       dta-query -c CONFIG int count FLOW\n"
		"       dta-query -c CONFIG int queue SWITCH QUEUE\n"
		"  INT telemetry in the structures the [int] section of CONFIG\n"
		"  names (docs/int.md \"Querying INT structures\"):\n"
		"  path: the switch ids of FLOW's path, first hop first (path\n"
		"    structure: Key-Write or Postcarding); exit 1 if not found\n"
		"  hops: each hop's latency, queue occupancy and egress timestamp\n"
		"    (hops structure, key FLOW + switch id); '-' not reported\n"
		"  drops, congestion: the events stored (events structure), in\n"
		"    the lists events_by puts them in, filtered\n"
		"  count: reports of FLOW (flow_counts); queue: reports of a\n"
		"    switch's queue (queue_counts); count-min estimates\n"
		"  FLOW: 10.0.0.1:1234-10.0.0.2:80/udp (or ->), [2001:db8::1]:1-\n"
		"    [2001:db8::2]:2/tcp, or the 13- or 37-byte key in hex\n");
}

static int cmd_int(int argc, char **argv)
{
	struct int_filter f = { 0, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	char hex[2 * DTA_KEY_MAX + 1], flow[256], err[256];
	uint8_t key[DTA_KEY_MAX];
	struct dta_int_map m;
	const char *sub;
	int opt, klen, nargs;

	static const struct option lo[] = {
		{ "switch", required_argument, NULL, 's' },
		{ "reason", required_argument, NULL, 'r' },
		{ "queue", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:r:q:h", lo, NULL)) != -1) {
		if (opt == 's')
			f.sw = opt_uint("--switch", optarg, 0, UINT32_MAX - 1);
		else if (opt == 'r')
			f.reason = opt_uint("--reason", optarg, 0, 254);
		else if (opt == 'q')
			f.queue = opt_uint("--queue", optarg, 0, 254);
		else {
			int_usage(opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		int_usage(stderr);
		return 2;
	}
	sub = argv[optind];
	nargs = argc - optind - 1;
	if (!strcmp(sub, "drops") || !strcmp(sub, "congestion")) {
		bool drops = !strcmp(sub, "drops");

		if (nargs || (drops && f.queue != UINT64_MAX) ||
		    (!drops && f.reason != UINT64_MAX))
			die("usage: dta-query int %s", drops
				? "drops [--switch ID] [--reason R]"
				: "congestion [--switch ID] [--queue Q]");
		f.flag = drops ? DTA_INT_F_DROPPED : DTA_INT_F_CONGESTED;
		int_map(&m);
		return int_events(&m, &f);
	}
	if (f.sw != UINT64_MAX || f.reason != UINT64_MAX || f.queue != UINT64_MAX)
		die("--switch, --reason and --queue go with drops or congestion");
	if (!strcmp(sub, "queue")) {
		uint64_t sw, q;

		if (nargs != 2)
			die("usage: dta-query int queue SWITCH QUEUE");
		sw = opt_uint("SWITCH", argv[optind + 1], 0, UINT32_MAX - 1);
		q = opt_uint("QUEUE", argv[optind + 2], 0, 254);
		for (int j = 0; j < 4; j++)
			key[j] = (uint8_t)(sw >> (24 - 8 * j));
		key[4] = (uint8_t)q;
		tool_hex(key, 5, hex);
		snprintf(flow, sizeof(flow), "%" PRIu64 "/%" PRIu64, sw, q);
		int_map(&m);
		return int_count(int_role(m.queue_ki, "queue_counts"), "queue",
				 flow, hex);
	}
	if (strcmp(sub, "path") && strcmp(sub, "hops") && strcmp(sub, "count")) {
		fprintf(stderr, "dta-query: unknown int question %s\n", sub);
		int_usage(stderr);
		return 2;
	}
	if (nargs != 1)
		die("usage: dta-query int %s FLOW", sub);
	klen = tool_parse_flow(argv[optind + 1], key, sizeof(key), err,
			       sizeof(err));
	if (klen < 0)
		die("%s", err);
	tool_hex(key, (size_t)klen, hex);
	tool_format_key(key, (size_t)klen, flow, sizeof(flow));
	int_map(&m);
	if (!strcmp(sub, "path"))
		return int_path(&m, flow, hex);
	if (!strcmp(sub, "hops"))
		return int_hops(&m, flow, key, klen, hex);
	return int_count(int_role(m.flow_ki, "flow_counts"), "flow", flow, hex);
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
	{ "kw", cmd_kw, "kw get NAME KEY..: Key-Write data of keys" },
	{ "pc", cmd_pc, "pc path NAME KEY..: Postcarding paths of flows" },
	{ "ap", cmd_ap, "ap tail|follow NAME LIST: Append entries" },
	{ "ki", cmd_ki, "ki get NAME KEY..: Key-Increment counters of keys" },
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
		"  -C, --collector NAME     the collector of [collector NAME] answers what\n"
		"                           is not routed by key or list (stats, info,\n"
		"                           snapshot; --snapshot-dir holds its files).\n"
		"                           Requests about a structure held by other\n"
		"                           collectors go to the one holding the key\n"
		"                           (its socket from the config)\n"
		"  -f, --file FILE          use a snapshot file instead (repeatable)\n"
		"  -D, --snapshot-dir DIR   use DIR/NAME.dta for every configured structure\n"
		"  -m, --map                map the collector's structures from its\n"
		"                           shared memory read-only and query them here\n"
		"                           (same machine; needs --config and read\n"
		"                           access: shm_mode). Objects owned by another\n"
		"                           user (unless shm_mode lets the group in) or\n"
		"                           writable by anyone are refused. Requests\n"
		"                           only a collector answers (stats, snapshot)\n"
		"                           need its socket\n"
		"  -j, --json               JSON output (one object per answer)\n"
		"  -h, --help               this text\n"
		"\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nKEY forms: 10.0.0.1:1234->10.0.0.2:80/tcp, "
		"[2001:db8::1]:1->[2001:db8::2]:2/udp,\n10.0.0.1, 42 (4 bytes "
		"big-endian), 0x0a000001 (bytes as written); docs/keys.md.\n"
		"Exit status: 0 found/ok, 1 not found (kw, pc, int path|hops) or\nverify below "
		"--min-success or an INT truth line not exact, 2 usage,\n3 error.\n");
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/* A collector that closed the connection is an error message, not a
	 * silent death. */
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt_long(argc, argv, "+c:S:C:f:D:mjh", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': G.config = optarg; break;
		case 'C': G.coll_name = optarg; break;
		case 'S': G.socket = optarg; break;
		case 'f':
			if (G.nfiles == DTA_CONFIG_MAX_STRUCTURES)
				die("too many --file");
			G.files[G.nfiles++] = optarg;
			break;
		case 'D': G.dir = optarg; break;
		case 'm': G.map = 1; break;
		case 'j': G.json = 1; break;
		case 'h': usage(stdout); return 0;
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
			return rc;
		}
	fprintf(stderr, "dta-query: unknown command %s\n", argv[optind]);
	usage(stderr);
	return 2;
}
