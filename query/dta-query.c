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
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "dta/client.h"
#include "dta/exec.h"
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
	int err = G.cfg ? dta_config_collector_socket(G.cfg, (size_t)c, path, cap)
			: dta_default_socket("dta", path, cap);

	if (err == -ENOENT)
		die("no directory for the default socket (not root, no "
		    "$XDG_RUNTIME_DIR, no %s): give --socket", DTA_RUN_DIR);
	if (err)
		die("socket path %s is too long: a Unix socket path has at "
		    "most %d bytes", path, DTA_SOCKET_PATH_MAX);
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
	coll = dta_config_collector_id(G.cfg, (size_t)G.coll);
	if (dta_config_collector_mode(G.cfg, (size_t)G.coll, "shm_mode", 0600, &mode))
		die("bad shm_mode in %s", G.config);
	for (size_t i = 0; i < dta_config_count(G.cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(G.cfg, i);
		int k = dta_config_share(cs, (size_t)G.coll);

		if (k < 0)
			continue; /* another collector's */
		if (dta_config_shm_name(coll, cs->name, shm, sizeof(shm)))
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

struct dta_client *query_client(const char **how)
{
	char target[8192], err[1024], path[4096];
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
		*how = "snapshot files";
	} else if (G.dir) {
		if (!G.cfg)
			die("--snapshot-dir needs --config (which structures "
			    "to open)");
		TARGET("snapshot:%s?config=%s", G.dir, G.config);
		if (G.coll_name)
			TARGET("&collector=%s", G.coll_name);
		*how = "snapshot files";
	} else if (G.socket || !G.cfg) {
		if (G.socket)
			snprintf(path, sizeof(path), "%s", G.socket);
		else
			socket_path(0, path, sizeof(path));
		TARGET("unix:%s", path);
		*how = "over the collector socket";
	} else {
		TARGET("config:%s", G.config);
		*how = "over the collector sockets";
	}
#undef TARGET
	if (len >= sizeof(target))
		die("paths too long");
	rc = dta_client_open(target, NULL, &c, err, sizeof(err));
	if (rc)
		die("%s", err);
	return c;
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
