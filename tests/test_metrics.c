/* SPDX-License-Identifier: BSD-3-Clause */
/* The Prometheus exposition writer and its HTTP endpoint (common/metrics.c):
 * expected texts are written out by hand from the format's rules
 * (exposition format 0.0.4), not produced by the writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics.h"

struct buf {
	char *p;
	size_t len;
	FILE *f;
};

static void buf_open(struct buf *b)
{
	b->p = NULL;
	b->len = 0;
	b->f = open_memstream(&b->p, &b->len);
	assert_non_null(b->f);
}

/* Close and return the text (the caller frees b->p). */
static const char *buf_text(struct buf *b)
{
	assert_int_equal(fclose(b->f), 0);
	return b->p;
}

/* ---- negative cases first ---- */

static void test_bad_names_refused(void **state)
{
	static const char *const bad[] = {
		"", "9dta_x", "dta_a-b", "dta_a b", "foo_total", "dta_",
		"DTA_x", "dta_é",
	};
	struct metrics_label good = { "cause", "x" };
	struct metrics_label badl[] = {
		{ "__reserved", "x" }, { "le", "1" }, { "a-b", "x" },
		{ "1a", "x" }, { "", "x" }, { "ok", NULL },
	};
	struct buf b;

	(void)state;
	buf_open(&b);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_false(metrics_name_ok(bad[i]));
		assert_int_equal(metrics_write_sample(b.f, bad[i], &good, 1, "1"),
				 -EINVAL);
		assert_int_equal(metrics_write_header(b.f, bad[i],
						      METRICS_GAUGE, "h"),
				 -EINVAL);
	}
	for (size_t i = 0; i < sizeof(badl) / sizeof(*badl); i++)
		assert_int_equal(metrics_write_sample(b.f, "dta_x_total",
						      &badl[i], 1, "1"),
				 -EINVAL);
	/* A counter without _total; a histogram or gauge with a suffix
	 * the format gives its own meaning. */
	assert_int_equal(metrics_write_header(b.f, "dta_x", METRICS_COUNTER,
					      "h"), -EINVAL);
	assert_int_equal(metrics_write_header(b.f, "dta_x_total",
					      METRICS_HISTOGRAM, "h"), -EINVAL);
	assert_int_equal(metrics_write_header(b.f, "dta_x_bucket",
					      METRICS_HISTOGRAM, "h"), -EINVAL);
	assert_int_equal(metrics_write_header(b.f, "dta_x_count",
					      METRICS_GAUGE, "h"), -EINVAL);
	assert_int_equal(metrics_write_header(b.f, "dta_x_total",
					      (enum metrics_type)7, "h"), -EINVAL);
	/* Values that are not numbers. */
	assert_int_equal(metrics_write_sample(b.f, "dta_x", NULL, 0, "1 2"),
			 -EINVAL);
	assert_int_equal(metrics_write_sample(b.f, "dta_x", NULL, 0, "0x10"),
			 -EINVAL);
	assert_int_equal(metrics_write_sample(b.f, "dta_x", NULL, 0, ""),
			 -EINVAL);
	/* Nothing of any refused line was written. */
	assert_string_equal(buf_text(&b), "");
	free(b.p);
}

static void test_hist_init_refused(void **state)
{
	static const uint64_t down[] = { 1, 5, 5 };
	static uint64_t many[METRICS_BUCKETS_MAX + 1];
	struct metrics_hist h;

	(void)state;
	for (unsigned i = 0; i < METRICS_BUCKETS_MAX + 1; i++)
		many[i] = i + 1;
	assert_int_equal(metrics_hist_init(&h, down, 3, 1), -EINVAL);
	assert_int_equal(metrics_hist_init(&h, down, 0, 1), -EINVAL);
	assert_int_equal(metrics_hist_init(&h, many, METRICS_BUCKETS_MAX + 1,
					   1), -EINVAL);
	assert_int_equal(metrics_hist_init(&h, many, 2, 0), -EINVAL);
	assert_int_equal(metrics_hist_init(&h, many, METRICS_BUCKETS_MAX, 1),
			 0);
}

static void test_listen_refused(void **state)
{
	static const char *const bad[] = {
		"", "0", "65536", "x", "localhost:9464", ":9464", "1.2.3:80",
		"1.2.3.4:", "1.2.3.4:0", "1.2.3.4:80x", "-1", "1.2.3.4:+80",
	};
	uint32_t a;
	uint16_t p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(metrics_listen_parse(bad[i], &a, &p), -EINVAL);
}

static void test_json_refused(void **state)
{
	static const struct metrics_def split[] = {
		{ "a", "dta_a_total", METRICS_COUNTER, NULL, NULL, "A" },
		{ "b", "dta_b_total", METRICS_COUNTER, NULL, NULL, "B" },
		{ "c", "dta_a_total", METRICS_COUNTER, NULL, NULL, NULL },
	};
	static const struct metrics_def one[] = {
		{ "a", "dta_a_total", METRICS_COUNTER, NULL, NULL, "A" },
	};
	static const char *const bad[] = {
		"", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":1}x",
		"{\"a\":{\"b\":{\"c\":1}}}", "{\"a\":1.}", "{\"a\":-}",
		"[1]", "{\"a\":tru}",
	};
	struct buf b;

	(void)state;
	buf_open(&b);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(metrics_write_json(b.f, bad[i], one, 1, NULL,
						    0, NULL), -EINVAL);
	assert_int_equal(metrics_write_json(b.f, "{\"a\":1}", split, 3, NULL,
					    0, NULL), -EINVAL);
	assert_string_equal(buf_text(&b), "");
	free(b.p);
}

/* ---- what is written ---- */

static void test_header_and_samples(void **state)
{
	struct metrics_label l[] = {
		{ "cause", "a\"b\\c\nd" }, { "collector", "c1" },
	};
	struct buf b;

	(void)state;
	buf_open(&b);
	assert_int_equal(metrics_write_header(b.f, "dta_lost_total",
					      METRICS_COUNTER,
					      "lost \\ reports\nby cause"), 0);
	assert_int_equal(metrics_write_sample(b.f, "dta_lost_total", l, 2,
					      "18446744073709551615"), 0);
	assert_int_equal(metrics_write_header(b.f, "dta_up_seconds",
					      METRICS_GAUGE, "up"), 0);
	assert_int_equal(metrics_write_sample(b.f, "dta_up_seconds", NULL, 0,
					      "1.5e-3"), 0);
	assert_string_equal(buf_text(&b),
		"# HELP dta_lost_total lost \\\\ reports\\nby cause\n"
		"# TYPE dta_lost_total counter\n"
		"dta_lost_total{cause=\"a\\\"b\\\\c\\nd\",collector=\"c1\"} "
		"18446744073709551615\n"
		"# HELP dta_up_seconds up\n"
		"# TYPE dta_up_seconds gauge\n"
		"dta_up_seconds 1.5e-3\n");
	free(b.p);
}

static void test_histogram(void **state)
{
	static const uint64_t bounds[] = { 1000, 5000, 10000 };
	static const uint64_t seen[] = { 0, 1000, 2000, 5000, 11000, 11000 };
	struct metrics_label l = { "structure", "flows" };
	struct metrics_hist h;
	struct buf b;

	(void)state;
	assert_int_equal(metrics_hist_init(&h, bounds, 3, 1e-6), 0);
	for (size_t i = 0; i < sizeof(seen) / sizeof(*seen); i++)
		metrics_hist_observe(&h, seen[i]);
	metrics_hist_observe_n(&h, 4000, 2);
	metrics_hist_observe_n(&h, 4000, 0);
	buf_open(&b);
	assert_int_equal(metrics_write_header(b.f, "dta_wait_seconds",
					      METRICS_HISTOGRAM, "w"), 0);
	assert_int_equal(metrics_write_hist(b.f, "dta_wait_seconds", &l, 1,
					    &h), 0);
	/* Buckets are cumulative: <= 1000: 0, 1000; <= 5000: + 2000, 5000,
	 * 4000 x 2; <= 10000: nothing more; all 8. Sum 38000 us = 0.038 s. */
	assert_string_equal(buf_text(&b),
		"# HELP dta_wait_seconds w\n"
		"# TYPE dta_wait_seconds histogram\n"
		"dta_wait_seconds_bucket{structure=\"flows\",le=\"0.001\"} 2\n"
		"dta_wait_seconds_bucket{structure=\"flows\",le=\"0.005\"} 6\n"
		"dta_wait_seconds_bucket{structure=\"flows\",le=\"0.01\"} 6\n"
		"dta_wait_seconds_bucket{structure=\"flows\",le=\"+Inf\"} 8\n"
		"dta_wait_seconds_sum{structure=\"flows\"} 0.038\n"
		"dta_wait_seconds_count{structure=\"flows\"} 8\n");
	free(b.p);
}

static void test_json(void **state)
{
	static const struct metrics_def defs[] = {
		{ "up_s", "dta_up_seconds", METRICS_GAUGE, NULL, NULL, "Up." },
		{ "drops", "dta_lost_total", METRICS_COUNTER, "cause", "drop",
		  "Lost." },
		{ "rdma.gone", "dta_lost_total", METRICS_COUNTER, "cause",
		  "rdma", NULL },
		{ "absent", "dta_absent_total", METRICS_COUNTER, NULL, NULL,
		  "Never in the JSON: no family at all." },
	};
	struct metrics_label c = { "collector", "c1" };
	unsigned unmapped = 99;
	struct buf b;

	(void)state;
	buf_open(&b);
	assert_int_equal(metrics_write_json(b.f,
		" {\"name\":\"c\\\"1\",\"up_s\":12.250,\"ok\":true,"
		"\"drops\":7,\"rdma\":{\"gone\":3,\"new\":1},\"x\":null,"
		"\"extra\":-2}\n", defs, 4, &c, 1, &unmapped), 0);
	assert_int_equal(unmapped, 2); /* rdma.new, extra */
	assert_string_equal(buf_text(&b),
		"# HELP dta_up_seconds Up.\n"
		"# TYPE dta_up_seconds gauge\n"
		"dta_up_seconds{collector=\"c1\"} 12.250\n"
		"# HELP dta_lost_total Lost.\n"
		"# TYPE dta_lost_total counter\n"
		"dta_lost_total{collector=\"c1\",cause=\"drop\"} 7\n"
		"dta_lost_total{collector=\"c1\",cause=\"rdma\"} 3\n");
	free(b.p);
	/* No common labels (the translator's case). */
	buf_open(&b);
	assert_int_equal(metrics_write_json(b.f, "{\"drops\":0}", defs, 4,
					    NULL, 0, NULL), 0);
	assert_string_equal(buf_text(&b),
		"# HELP dta_lost_total Lost.\n"
		"# TYPE dta_lost_total counter\n"
		"dta_lost_total{cause=\"drop\"} 0\n");
	free(b.p);
}

static void test_listen(void **state)
{
	uint32_t a;
	uint16_t p;

	(void)state;
	assert_int_equal(metrics_listen_parse("9464", &a, &p), 0);
	assert_int_equal(a, htonl(0x7f000001));
	assert_int_equal(p, 9464);
	assert_int_equal(metrics_listen_parse("0.0.0.0:1", &a, &p), 0);
	assert_int_equal(a, 0);
	assert_int_equal(p, 1);
	assert_int_equal(metrics_listen_parse("10.1.2.3:65535", &a, &p), 0);
	assert_int_equal(a, htonl(0x0a010203));
	assert_int_equal(p, 65535);
}

/* ---- the endpoint, served from this thread as a daemon's loop does ---- */

static int healthy = 1;

static int write_cb(void *ctx, FILE *f)
{
	int err;

	(void)ctx;
	err = metrics_write_header(f, "dta_t_total", METRICS_COUNTER, "T.");
	return err ? err : metrics_write_sample(f, "dta_t_total", NULL, 0, "42");
}

static int health_cb(void *ctx, char *why, size_t cap)
{
	(void)ctx;
	if (healthy)
		return 0;
	snprintf(why, cap, "the collector is gone");
	return 1;
}

/* A port nobody listens on now (the kernel's choice). */
static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

/* Send @req, run the server until it closes the connection; the whole
 * answer into @out. */
static void exchange(struct metrics_server *s, const char *req, char *out,
		     size_t cap)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(metrics_server_port(s)),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t n = 0;

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = metrics_server_fd(s), .events = POLLIN },
			{ .fd = fd, .events = POLLIN },
		};
		ssize_t k;

		assert_true(poll(p, 2, 10000) > 0);
		if (p[0].revents)
			metrics_server_run(s);
		if (!p[1].revents)
			continue;
		k = recv(fd, out + n, cap - 1 - n, 0);
		assert_true(k >= 0);
		if (k == 0)
			break;
		n += (size_t)k;
		assert_true(n < cap - 1);
	}
	out[n] = 0;
	close(fd);
}

static void test_server(void **state)
{
	char listen[32], ans[4096];
	struct metrics_server_opts o = {
		.listen = listen, .write = write_cb, .health = health_cb,
	};
	struct metrics_server *s;
	int err;

	(void)state;
	snprintf(listen, sizeof(listen), "%u", free_port());
	err = metrics_server_start(&o, &s);
	if (err == -ENOTSUP)
		skip();
	assert_int_equal(err, 0);
	assert_true(metrics_server_fd(s) >= 0);

	exchange(s, "GET /metrics HTTP/1.0\r\n\r\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, "HTTP/1.1 200 "));
	assert_non_null(strstr(ans, "text/plain; version=0.0.4"));
	assert_non_null(strstr(ans, "\r\n\r\n# HELP dta_t_total T.\n"
			       "# TYPE dta_t_total counter\ndta_t_total 42\n"));

	exchange(s, "GET /healthz HTTP/1.0\r\n\r\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, " 200 "));
	assert_non_null(strstr(ans, "\r\n\r\nok\n"));
	healthy = 0;
	exchange(s, "GET /health HTTP/1.0\r\n\r\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, " 503 "));
	assert_non_null(strstr(ans, "unhealthy: the collector is gone\n"));

	/* Negative: other paths, other methods. */
	exchange(s, "GET /metrics/x HTTP/1.0\r\n\r\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, " 404 "));
	assert_null(strstr(ans, "dta_t_total"));
	exchange(s, "GET / HTTP/1.0\r\n\r\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, " 404 "));
	exchange(s, "POST /metrics HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
		 ans, sizeof(ans));
	assert_non_null(strstr(ans, " 405 "));
	assert_non_null(strstr(ans, "Allow: GET, HEAD"));
	assert_null(strstr(ans, "dta_t_total"));
	exchange(s, "DELETE /health HTTP/1.0\r\n\r\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, " 405 "));
	metrics_server_stop(s);
	metrics_server_stop(NULL);
}

static void test_server_refused(void **state)
{
	struct metrics_server_opts o = {
		.listen = "localhost:9464", .write = write_cb,
		.health = health_cb,
	};
	struct metrics_server *s = (void *)1;

	(void)state;
	assert_int_equal(metrics_server_start(&o, &s), -EINVAL);
	assert_null(s);
	o.listen = "9464";
	o.write = NULL;
	assert_int_equal(metrics_server_start(&o, &s), -EINVAL);
}

/* process_*: the values of this process, checked against what the test
 * knows independently (descriptors it opens itself, its own limit), and
 * the exposition's shape: six families, no labels, no dta_ prefix. */
static void test_process(void **state)
{
	struct metrics_process a, b;
	struct rlimit rl;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int fd[3];

	(void)state;
	assert_int_equal(metrics_process_read(&a), 0);
	for (int i = 0; i < 3; i++)
		assert_true((fd[i] = open("/dev/null", O_RDONLY)) >= 0);
	assert_int_equal(metrics_process_read(&b), 0);
	assert_int_equal(b.open_fds, a.open_fds + 3);
	for (int i = 0; i < 3; i++)
		close(fd[i]);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(b.max_fds, rl.rlim_cur);
	assert_true(b.cpu_seconds >= a.cpu_seconds);
	assert_true(a.start_time_seconds == b.start_time_seconds);
	assert_true(a.start_time_seconds > 1.5e9); /* after 2017 */
	assert_true(a.resident_bytes > 0 && a.virtual_bytes >= a.resident_bytes);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(metrics_write_process(f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE process_cpu_seconds_total counter\n"
				    "process_cpu_seconds_total "));
	assert_non_null(strstr(buf, "# TYPE process_max_fds gauge\n"));
	assert_non_null(strstr(buf, "\nprocess_open_fds "));
	assert_non_null(strstr(buf, "\nprocess_start_time_seconds "));
	assert_non_null(strstr(buf, "\nprocess_resident_memory_bytes "));
	assert_non_null(strstr(buf, "\nprocess_virtual_memory_bytes "));
	assert_null(strchr(buf, '{'));
	free(buf);
	/* The exception is the writer's own: callers still cannot write a
	 * family without dta_. */
	f = open_memstream(&buf, &len);
	assert_int_equal(metrics_write_header(f, "process_open_fds",
					      METRICS_GAUGE, "x"), -EINVAL);
	assert_int_equal(metrics_write_sample(f, "process_open_fds", NULL, 0,
					      "1"), -EINVAL);
	fclose(f);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_names_refused),
		cmocka_unit_test(test_hist_init_refused),
		cmocka_unit_test(test_listen_refused),
		cmocka_unit_test(test_json_refused),
		cmocka_unit_test(test_server_refused),
		cmocka_unit_test(test_header_and_samples),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
