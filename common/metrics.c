/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prometheus text exposition (format 0.0.4, "Exposition formats" in the
 * Prometheus documentation) and its HTTP endpoint on libmicrohttpd.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef DTA_HAVE_MHD
#include "httpd.h"
#endif

#include "metrics.h"

#define PREFIX "dta_"
#define LABELS_MAX 8
#define PAIRS_MAX 256
#define KEY_MAX 96

/* ---- names ---- */

static bool name_chars_ok(const char *s, bool colon)
{
	if (!s || !*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' &&
		    !(colon && *s == ':'))
			return false;
	return true;
}

static bool name_prefix_ok(const char *name, const char *prefix)
{
	return name_chars_ok(name, true) &&
	       !strncmp(name, prefix, strlen(prefix)) &&
	       name[strlen(prefix)] != 0;
}

bool metrics_name_ok(const char *name)
{
	return name_prefix_ok(name, PREFIX);
}

/* The names metrics_write_process() writes: Prometheus's own "process_"
 * family names, the one exception to the prefix (and only there). */
static bool process_name_ok(const char *name)
{
	return name_prefix_ok(name, "process_");
}

bool metrics_label_ok(const char *name)
{
	return name_chars_ok(name, false) && strncmp(name, "__", 2) &&
	       strcmp(name, "le");
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* A JSON number, or one of the exposition format's special values. */
static bool number_ok(const char *v)
{
	const char *p = v;

	if (!strcmp(v, "+Inf") || !strcmp(v, "-Inf") || !strcmp(v, "NaN"))
		return true;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == 0;
}

/* ---- writing ---- */

static void put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static int header(FILE *f, const char *family, enum metrics_type type,
		  const char *help, bool (*name_ok)(const char *))
{
	static const char *const types[] = {
		[METRICS_COUNTER] = "counter",
		[METRICS_GAUGE] = "gauge",
		[METRICS_HISTOGRAM] = "histogram",
	};

	if (!f || !help || !name_ok(family) ||
	    (unsigned)type > METRICS_HISTOGRAM)
		return -EINVAL;
	if (type == METRICS_COUNTER && !ends_with(family, "_total"))
		return -EINVAL;
	if (type != METRICS_COUNTER &&
	    (ends_with(family, "_total") || ends_with(family, "_bucket") ||
	     ends_with(family, "_sum") || ends_with(family, "_count")))
		return -EINVAL;
	fprintf(f, "# HELP %s ", family);
	put_escaped(f, help, false);
	fprintf(f, "\n# TYPE %s %s\n", family, types[type]);
	return ferror(f) ? -EIO : 0;
}

int metrics_write_header(FILE *f, const char *family, enum metrics_type type,
			 const char *help)
{
	return header(f, family, type, help, metrics_name_ok);
}

/* @extra: one more label after @labels (the histogram's le), or NULL. */
static int sample_as(FILE *f, const char *name,
		     const struct metrics_label *labels, size_t nlabels,
		     const struct metrics_label *extra, const char *value,
		     bool (*name_ok)(const char *))
{
	size_t k = 0;

	if (!f || !name_ok(name) || !value || !number_ok(value) ||
	    (nlabels && !labels))
		return -EINVAL;
	for (size_t i = 0; i < nlabels; i++)
		if (!metrics_label_ok(labels[i].name) || !labels[i].value)
			return -EINVAL;
	fputs(name, f);
	for (size_t i = 0; i < nlabels + (extra != NULL); i++) {
		const struct metrics_label *l = i < nlabels ? &labels[i] : extra;

		fprintf(f, "%s%s=\"", k++ ? "," : "{", l->name);
		put_escaped(f, l->value, true);
		fputc('"', f);
	}
	fprintf(f, "%s %s\n", k ? "}" : "", value);
	return ferror(f) ? -EIO : 0;
}

static int sample(FILE *f, const char *name, const struct metrics_label *labels,
		  size_t nlabels, const struct metrics_label *extra,
		  const char *value)
{
	return sample_as(f, name, labels, nlabels, extra, value,
			 metrics_name_ok);
}

int metrics_write_sample(FILE *f, const char *name,
			 const struct metrics_label *labels, size_t nlabels,
			 const char *value)
{
	return sample(f, name, labels, nlabels, NULL, value);
}

/* ---- histograms ---- */

int metrics_hist_init(struct metrics_hist *h, const uint64_t *bounds,
		      unsigned n, double scale)
{
	if (!h || !bounds || n == 0 || n > METRICS_BUCKETS_MAX || !(scale > 0))
		return -EINVAL;
	for (unsigned i = 1; i < n; i++)
		if (bounds[i] <= bounds[i - 1])
			return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->n = n;
	memcpy(h->bound, bounds, n * sizeof(*bounds));
	h->scale = scale;
	return 0;
}

void metrics_hist_observe_n(struct metrics_hist *h, uint64_t v, uint64_t k)
{
	unsigned i = 0;

	if (!k)
		return;
	while (i < h->n && v > h->bound[i])
		i++;
	atomic_fetch_add_explicit(&h->count[i], k, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->sum, v * k, memory_order_relaxed);
}

int metrics_write_hist(FILE *f, const char *family,
		       const struct metrics_label *labels, size_t nlabels,
		       const struct metrics_hist *h)
{
	char name[KEY_MAX + 16], num[64], bound[64];
	struct metrics_label le = { "le", bound };
	uint64_t cum = 0;
	int err;

	if (!h || !family || strlen(family) > KEY_MAX)
		return -EINVAL;
	snprintf(name, sizeof(name), "%s_bucket", family);
	for (unsigned i = 0; i <= h->n; i++) {
		cum += atomic_load_explicit(&h->count[i], memory_order_relaxed);
		if (i < h->n)
			snprintf(bound, sizeof(bound), "%.15g",
				 (double)h->bound[i] * h->scale);
		else
			snprintf(bound, sizeof(bound), "+Inf");
		snprintf(num, sizeof(num), "%" PRIu64, cum);
		err = sample(f, name, labels, nlabels, &le, num);
		if (err)
			return err;
	}
	snprintf(name, sizeof(name), "%s_sum", family);
	snprintf(num, sizeof(num), "%.15g",
		 (double)atomic_load_explicit(&h->sum, memory_order_relaxed) *
			 h->scale);
	err = sample(f, name, labels, nlabels, NULL, num);
	if (err)
		return err;
	snprintf(name, sizeof(name), "%s_count", family);
	snprintf(num, sizeof(num), "%" PRIu64, cum);
	return sample(f, name, labels, nlabels, NULL, num);
}

/* ---- a stats JSON object's numbers ---- */

struct pair {
	char key[KEY_MAX];
	char num[40];
	bool used;
};

struct scan {
	const char *p;
	struct pair *pairs;
	unsigned n;
};

static void ws(struct scan *s)
{
	while (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r')
		s->p++;
}

/* A string's text into @out (escapes kept as written; our keys have
 * none), @s->p past its closing quote. */
static int string(struct scan *s, char *out, size_t cap)
{
	size_t n = 0;

	if (*s->p++ != '"')
		return -EINVAL;
	while (*s->p && *s->p != '"') {
		if (*s->p == '\\' && s->p[1])
			s->p++;
		if (out && n + 1 < cap)
			out[n++] = *s->p;
		s->p++;
	}
	if (*s->p++ != '"')
		return -EINVAL;
	if (out)
		out[n] = 0;
	return 0;
}

static int object(struct scan *s, const char *prefix, int depth)
{
	if (*s->p++ != '{')
		return -EINVAL;
	ws(s);
	if (*s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		char key[KEY_MAX], full[KEY_MAX];
		int err;

		ws(s);
		if (string(s, key, sizeof(key)))
			return -EINVAL;
		if ((size_t)snprintf(full, sizeof(full), "%s%s%s", prefix,
				     *prefix ? "." : "", key) >= sizeof(full))
			return -EINVAL;
		ws(s);
		if (*s->p++ != ':')
			return -EINVAL;
		ws(s);
		if (*s->p == '{') {
			if (depth > 0 || (err = object(s, full, depth + 1)))
				return -EINVAL;
		} else if (*s->p == '"') {
			if (string(s, NULL, 0))
				return -EINVAL;
		} else if (!strncmp(s->p, "true", 4) || !strncmp(s->p, "null", 4)) {
			s->p += 4;
		} else if (!strncmp(s->p, "false", 5)) {
			s->p += 5;
		} else {
			size_t n = strspn(s->p, "+-0123456789.eE");
			struct pair *pr;

			if (n == 0 || n >= sizeof(pr->num) || s->n == PAIRS_MAX)
				return -EINVAL;
			pr = &s->pairs[s->n++];
			memcpy(pr->key, full, sizeof(full));
			memcpy(pr->num, s->p, n);
			pr->num[n] = 0;
			pr->used = false;
			if (!number_ok(pr->num))
				return -EINVAL;
			s->p += n;
		}
		ws(s);
		if (*s->p == ',') {
			s->p++;
			continue;
		}
		if (*s->p++ != '}')
			return -EINVAL;
		return 0;
	}
}

static struct pair *find(struct pair *pairs, unsigned n, const char *key)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(pairs[i].key, key))
			return &pairs[i];
	return NULL;
}

int metrics_write_json(FILE *f, const char *json,
		       const struct metrics_def *defs, size_t ndefs,
		       const struct metrics_label *common, size_t ncommon,
		       unsigned *unmapped)
{
	struct metrics_label lab[LABELS_MAX + 1];
	struct scan s = { .p = json };
	unsigned left = 0;
	int err = 0;

	if (!f || !json || (ndefs && !defs) || ncommon > LABELS_MAX ||
	    (ncommon && !common))
		return -EINVAL;
	s.pairs = calloc(PAIRS_MAX, sizeof(*s.pairs));
	if (!s.pairs)
		return -ENOMEM;
	ws(&s);
	if (object(&s, "", 0) || (ws(&s), *s.p)) {
		err = -EINVAL;
		goto out;
	}
	/* A family's entries must be adjacent: its lines are one block. */
	for (size_t i = 0; i < ndefs; i++)
		for (size_t j = i + 2; j < ndefs; j++)
			if (!strcmp(defs[i].family, defs[j].family) &&
			    strcmp(defs[j - 1].family, defs[i].family)) {
				err = -EINVAL;
				goto out;
			}
	if (ncommon)
		memcpy(lab, common, ncommon * sizeof(*common));
	for (size_t i = 0; i < ndefs;) {
		size_t end = i + 1;
		bool any = false;

		while (end < ndefs && !strcmp(defs[end].family, defs[i].family))
			end++;
		for (size_t j = i; j < end; j++)
			any |= find(s.pairs, s.n, defs[j].key) != NULL;
		if (defs[i].type == METRICS_HISTOGRAM) {
			err = -EINVAL; /* no histogram in a stats JSON */
			goto out;
		}
		if (any) {
			err = metrics_write_header(f, defs[i].family,
						   defs[i].type, defs[i].help
						   ? defs[i].help : "");
			if (err)
				goto out;
		}
		for (size_t j = i; j < end; j++) {
			struct pair *pr = find(s.pairs, s.n, defs[j].key);
			size_t nl = ncommon;

			if (!pr)
				continue;
			pr->used = true;
			if (defs[j].label)
				lab[nl++] = (struct metrics_label){
					defs[j].label, defs[j].value };
			err = metrics_write_sample(f, defs[j].family, lab, nl,
						   pr->num);
			if (err)
				goto out;
		}
		i = end;
	}
	for (unsigned i = 0; i < s.n; i++)
		left += !s.pairs[i].used;
	if (unmapped)
		*unmapped = left;
out:
	free(s.pairs);
	return err;
}

int metrics_write_stats(FILE *f, void (*stats)(void *ctx, FILE *json),
			void *ctx, const struct metrics_def *defs,
			size_t ndefs, const struct metrics_label *common,
			size_t ncommon)
{
	char *json = NULL;
	size_t len = 0;
	FILE *j = open_memstream(&json, &len);
	int err;

	if (!j)
		return -ENOMEM;
	stats(ctx, j);
	if (fclose(j)) {
		free(json);
		return -ENOMEM;
	}
	err = metrics_write_json(f, json, defs, ndefs, common, ncommon, NULL);
	free(json);
	return err;
}

/* ---- the process (Prometheus's process_* conventions) ---- */

int metrics_process_read(struct metrics_process *p)
{
	char buf[1024], *s;
	unsigned long long utime, stime, start, vsize;
	long long rss;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	unsigned long long btime = 0;
	struct rlimit rl;
	struct dirent *de;
	FILE *f;
	DIR *d;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (tck <= 0 || page <= 0)
		return -EINVAL;
	f = fopen("/proc/self/stat", "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* proc(5): the command is in parentheses and may hold anything;
	 * the fields follow its last ')': state (3) ... utime (14), stime
	 * (15) ... starttime (22), vsize (23), rss (24). */
	s = strrchr(buf, ')');
	if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%llu %llu %*d %*d %*d %*d %*d %*d %llu %llu %lld",
			 &utime, &stime, &start, &vsize, &rss) != 5)
		return -EINVAL;
	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	if (!btime)
		return -EINVAL;
	p->cpu_seconds = (double)(utime + stime) / (double)tck;
	p->start_time_seconds = (double)btime + (double)start / (double)tck;
	p->virtual_bytes = vsize;
	p->resident_bytes = rss > 0 ? (uint64_t)rss * (uint64_t)page : 0;
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			p->open_fds++;
	closedir(d);
	p->open_fds--; /* the directory's own descriptor, open while read */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	p->max_fds = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur;
	return 0;
}

int metrics_write_process(FILE *f)
{
	struct metrics_process p;
	char v[6][48];
	static const struct {
		const char *name, *help;
		enum metrics_type type;
	} m[] = {
		{ "process_cpu_seconds_total",
		  "Total user and system CPU time spent in seconds.",
		  METRICS_COUNTER },
		{ "process_resident_memory_bytes",
		  "Resident memory size in bytes.", METRICS_GAUGE },
		{ "process_virtual_memory_bytes",
		  "Virtual memory size in bytes.", METRICS_GAUGE },
		{ "process_start_time_seconds",
		  "Start time of the process since unix epoch in seconds.",
		  METRICS_GAUGE },
		{ "process_open_fds", "Number of open file descriptors.",
		  METRICS_GAUGE },
		{ "process_max_fds",
		  "Maximum number of open file descriptors.", METRICS_GAUGE },
	};
	int err = metrics_process_read(&p);

	if (err)
		return err;
	snprintf(v[0], sizeof(v[0]), "%.17g", p.cpu_seconds);
	snprintf(v[1], sizeof(v[1]), "%" PRIu64, p.resident_bytes);
	snprintf(v[2], sizeof(v[2]), "%" PRIu64, p.virtual_bytes);
	snprintf(v[3], sizeof(v[3]), "%.17g", p.start_time_seconds);
	snprintf(v[4], sizeof(v[4]), "%" PRIu64, p.open_fds);
	snprintf(v[5], sizeof(v[5]), "%" PRIu64, p.max_fds);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		err = header(f, m[i].name, m[i].type, m[i].help,
			     process_name_ok);
		if (!err)
			err = sample_as(f, m[i].name, NULL, 0, NULL, v[i],
					process_name_ok);
		if (err)
			return err;
	}
	return 0;
}

/* ---- the HTTP endpoint ---- */

int metrics_listen_parse(const char *s, uint32_t *addr, uint16_t *port)
{
	const char *colon, *ps = s;
	char a[INET_ADDRSTRLEN];
	struct in_addr in = { .s_addr = htonl(INADDR_LOOPBACK) };
	unsigned long v;
	char *end;

	if (!s || !addr || !port)
		return -EINVAL;
	colon = strrchr(s, ':');
	if (colon) {
		if ((size_t)(colon - s) >= sizeof(a))
			return -EINVAL;
		memcpy(a, s, (size_t)(colon - s));
		a[colon - s] = 0;
		if (inet_pton(AF_INET, a, &in) != 1)
			return -EINVAL;
		ps = colon + 1;
	}
	if (!isdigit((unsigned char)*ps))
		return -EINVAL;
	errno = 0;
	v = strtoul(ps, &end, 10);
	if (errno || *end || v == 0 || v > 65535)
		return -EINVAL;
	*addr = in.s_addr;
	*port = (uint16_t)v;
	return 0;
}

#ifdef DTA_HAVE_MHD
struct metrics_server {
	struct httpd *h;
	struct metrics_server_opts o;
};

static enum MHD_Result text(struct MHD_Connection *conn, unsigned status,
			    const char *msg, const char *allow)
{
	return httpd_reply(conn, status, "text/plain; charset=utf-8", (char *)msg,
		     strlen(msg), false, allow);
}

/* Every request is answered at its first call, before any body: nothing
 * here takes one, and MHD closes a connection whose body was not read. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **state)
{
	struct metrics_server *s = cls;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "method not allowed: GET only\n", "GET, HEAD");
	if (!strcmp(url, "/metrics")) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int err;

		if (!f)
			return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				    "out of memory\n", NULL);
		err = s->o.write(s->o.ctx, f);
		if (fclose(f) || err) {
			free(buf);
			if (s->o.log)
				s->o.log("metrics: cannot write the exposition "
					 "(%s)", strerror(err ? -err : ENOMEM));
			return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				    "cannot write the metrics\n", NULL);
		}
		return httpd_reply(conn, MHD_HTTP_OK,
			     "text/plain; version=0.0.4; charset=utf-8", buf,
			     len, true, NULL);
	}
	if (!strcmp(url, "/health") || !strcmp(url, "/healthz")) {
		char why[256] = "", msg[300];
		int h = s->o.health(s->o.ctx, why, sizeof(why));

		if (!h)
			return text(conn, MHD_HTTP_OK, "ok\n", NULL);
		snprintf(msg, sizeof(msg), "%s: %s\n",
			 h == METRICS_DEGRADED ? "degraded" : "unhealthy", why);
		return text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg, NULL);
	}
	return text(conn, MHD_HTTP_NOT_FOUND,
		    "not found: /metrics, /health, /healthz\n", NULL);
}

int metrics_server_start(const struct metrics_server_opts *o,
			 struct metrics_server **out)
{
	struct metrics_server *s;
	struct httpd_opts ho = {
		.name = "metrics", .handler = on_request,
		.conn_limit = 16, .per_ip_limit = 8, .timeout_s = 10,
		.deadline_s = 30,
	};
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!o || !o->write || !o->health)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *o;
	ho.listen = o->listen;
	ho.cls = s;
	ho.log = o->log;
	err = httpd_start(&ho, &s->h);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

int metrics_server_fd(const struct metrics_server *s)
{
	return httpd_fd(s->h);
}

uint16_t metrics_server_port(const struct metrics_server *s)
{
	return httpd_port(s->h);
}

void metrics_server_run(struct metrics_server *s)
{
	if (s)
		httpd_run(s->h);
}

int metrics_server_timeout(const struct metrics_server *s, int ms)
{
	return s ? httpd_timeout(s->h, ms) : ms;
}

void metrics_server_stop(struct metrics_server *s)
{
	if (!s)
		return;
	httpd_stop(s->h);
	free(s);
}
#else /* !DTA_HAVE_MHD */
struct metrics_server {
	int unused;
};

int metrics_server_start(const struct metrics_server_opts *o,
			 struct metrics_server **out)
{
	uint32_t addr;
	uint16_t port;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!o || !o->write || !o->health ||
	    metrics_listen_parse(o->listen, &addr, &port))
		return -EINVAL;
	if (o->log)
		o->log("metrics: this build has no libmicrohttpd: no metrics on "
		       "%s", o->listen);
	return -ENOTSUP;
}

int metrics_server_fd(const struct metrics_server *s)
{
	(void)s;
	return -1;
}

uint16_t metrics_server_port(const struct metrics_server *s)
{
	(void)s;
	return 0;
}

void metrics_server_run(struct metrics_server *s)
{
	(void)s;
}

int metrics_server_timeout(const struct metrics_server *s, int ms)
{
	(void)s;
	return ms;
}

void metrics_server_stop(struct metrics_server *s)
{
	(void)s;
}
#endif
