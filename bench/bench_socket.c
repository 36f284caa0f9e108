/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_socket: the collector's query socket and the client beside the
 * in-library rate.
 *
 * Starts dta-collector on a temporary configuration with one Key-Write
 * structure (N = 2), fills it through its shared-memory region, then, per
 * round, the same queries:
 *   - library: dta_kw_query_batch() on the region mapped read-only (the
 *     local mapping path, docs/collector-protocol.md), per CPU-second of
 *     this thread;
 *   - text: pipelined "kw NAME KEYHEX" lines over the socket (one thread
 *     sends while another reads the answers), per CPU-second of the
 *     collector process (clock_getcpuclockid());
 *   - binary: dta_client_kw_get() of every key through "unix:SOCKET"
 *     (binary frames), per CPU-second of the collector, and per
 *     CPU-second of the collector and this thread together;
 *   - tls binary: the same through "tls://127.0.0.1:PORT?.." (the
 *     collector's query_listen: TCP, TLS 1.3, client certificate), per
 *     CPU-second of the collector and with the client's, beside the Unix
 *     socket's binary rate of the same round (certificates made with
 *     tests/tls_certs.sh; the row is left out without certtool);
 *   - map: dta_client_kw_get() through "map:CONFIG", per CPU-second of
 *     this thread;
 * then once, dta-query verify of a truth file holding every key, over
 * the socket and with --map, per CPU-second of dta-query and the
 * collector together (getrusage of the child, the collector's clock).
 * Prints each rate and its ratio to the library's, medians of the rounds.
 *
 *   bench_socket [-x PATH-TO-dta-collector] [-q PATH-TO-dta-query]
 *                [-s LOG2_SLOTS] [-n QUERIES] [-r ROUNDS] [--no-huge]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dta/dta.h"
#include "bench.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_socket: %s: %s\n", what,
		err ? dta_strerror(err) : "failed");
	exit(1);
}

static uint64_t rng_state = 7;

struct sender {
	int fd;
	const char *buf;
	size_t len;
};

static void *send_all(void *arg)
{
	struct sender *s = arg;
	size_t off = 0;

	while (off < s->len) {
		ssize_t n = send(s->fd, s->buf + off, s->len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("send", -errno);
		off += (size_t)n;
	}
	return NULL;
}

/* A TCP port on 127.0.0.1 nothing holds now. */
static unsigned free_tcp_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		die("a TCP port", -errno);
	close(fd);
	return ntohs(sa.sin_port);
}

/* Pipeline @len bytes of requests (@n lines) on a new connection and
 * read @n answers; count the "found" ones in *@found. */
static void pipeline(const char *sock, const char *req, size_t len, size_t n,
		     size_t *found)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct sender s = { .buf = req, .len = len };
	static char buf[1 << 16];
	size_t lines = 0, f = 0;
	pthread_t t;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect", -errno);
	s.fd = fd;
	if (pthread_create(&t, NULL, send_all, &s))
		die("thread", 0);
	static const char pat[] = "\"found\"";
	size_t m = 0; /* bytes of pat matched so far */

	while (lines < n) {
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k <= 0)
			die("read answers", k < 0 ? -errno : -ECONNRESET);
		for (ssize_t i = 0; i < k; i++) {
			lines += buf[i] == '\n';
			m = buf[i] == pat[m] ? m + 1 : buf[i] == '"';
			if (m == sizeof(pat) - 1) {
				f++;
				m = 0;
			}
		}
	}
	pthread_join(t, NULL);
	close(fd);
	*found = f;
}

/* @arg, or program @rel beside this one's build directory. */
static void tool_path(char *out, size_t cap, const char *arg, const char *rel)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (arg) {
		snprintf(out, cap, "%s", arg);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("readlink /proc/self/exe", -errno);
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	if ((size_t)snprintf(out, cap, "%s/../%s", self, rel) >= cap)
		die("path too long", -ENAMETOOLONG);
}

/* Run dta-query -c @cfg [--map] verify --truth @truth; return the answers
 * per CPU-second of dta-query and the collector (@ccpu) together, and in
 * *@wall per second of wall time. */
static double run_verify(const char *query, const char *cfg, bool map,
			 const char *truth, size_t n, clockid_t ccpu,
			 double *wall)
{
	struct rusage ru;
	double c0 = bench_clock_s(ccpu), w0 = bench_clock_s(CLOCK_MONOTONIC);
	double c1, cpu;
	int status;
	pid_t pid;

	fflush(NULL); /* or the child flushes our buffered lines again */
	pid = fork();

	if (pid < 0)
		die("fork", -errno);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		if (map)
			execl(query, query, "-c", cfg, "--map", "verify",
			      "--truth", truth, NULL);
		else
			execl(query, query, "-c", cfg, "verify", "--truth",
			      truth, NULL);
		fprintf(stderr, "bench_socket: %s: %s\n", query,
			strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4", -errno);
	c1 = bench_clock_s(ccpu);
	*wall = (double)n / (bench_clock_s(CLOCK_MONOTONIC) - w0);
	/* verify exits 1 only for thresholds, which we do not give. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("dta-query verify failed", 0);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	return (double)n / (cpu + (c1 - c0));
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "collector", required_argument, NULL, 'x' },
		{ "query", required_argument, NULL, 'q' },
		{ "slots", required_argument, NULL, 's' },
		{ "queries", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "no-huge", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *xarg = NULL, *qarg = NULL;
	unsigned log2_slots = 22, rounds = 5;
	size_t nq = 1000000;
	int huge = 1, opt, pfd[2], err;
	char dir[] = "/tmp/dta-bench-sock-XXXXXX", cfg[PATH_MAX], sock[108];
	char exe[PATH_MAX + 64], qexe[PATH_MAX + 64], shm[NAME_MAX], name[32];
	char line[512], truth[PATH_MAX], target[3 * PATH_MAX + 64], err_msg[512];
	char certs[PATH_MAX], cmd[2 * PATH_MAX];
	bool tls;
	unsigned port = 0;
	FILE *f, *ready;
	pid_t pid;
	clockid_t ccpu;

	while ((opt = getopt_long(argc, argv, "x:q:s:n:r:", lo, NULL)) != -1) {
		switch (opt) {
		case 'x': xarg = optarg; break;
		case 'q': qarg = optarg; break;
		case 's': log2_slots = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'n': nq = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'H': huge = 0; break;
		default:
			fprintf(stderr, "usage: bench_socket [-x dta-collector] "
				"[-q dta-query] [-s LOG2_SLOTS] [-n QUERIES] [-r ROUNDS] "
				"[--no-huge]\n");
			return 2;
		}
	}
	if (log2_slots < 10 || log2_slots > 30 || !nq || !rounds || rounds > 99)
		die("arguments out of range", -EINVAL);
	tool_path(exe, sizeof(exe), xarg, "collector/dta-collector");
	tool_path(qexe, sizeof(qexe), qarg, "query/dta-query");
	if (!mkdtemp(dir))
		die("mkdtemp", -errno);
	snprintf(cfg, sizeof(cfg), "%s/dta.conf", dir);
	snprintf(sock, sizeof(sock), "%s/c.sock", dir);
	snprintf(name, sizeof(name), "bsock%d", (int)getpid());
	f = fopen(cfg, "w");
	if (!f)
		die(cfg, -errno);
	/* TLS: certificates of a CA made now (tests/tls_certs.sh). */
	snprintf(certs, sizeof(certs), "%s/certs", dir);
	snprintf(cmd, sizeof(cmd), "command -v certtool >/dev/null && sh "
		 "'%s/tests/tls_certs.sh' '%s' bench", DTA_SOURCE_DIR, certs);
	tls = system(cmd) == 0;
	if (!tls)
		fprintf(stderr, "bench_socket: no certificates (certtool from "
			"gnutls-bin missing?): no TLS row\n");
	fprintf(f, "[collector]\nname = %s\nsocket = %s\nidle_timeout = 0\n"
		"huge_pages = %s\n", name, sock, huge ? "yes" : "no");
	if (tls) {
		port = free_tcp_port();
		fprintf(f, "query_listen = 127.0.0.1:%u\ntls_cert = %s/server.pem"
			"\ntls_key = %s/server.key\ntls_ca = %s/ca.pem\n", port,
			certs, certs, certs);
	}
	fprintf(f, "\n[structure kw]\nprimitive = key-write\n"
		"slots = %llu\ndata = 20\nredundancy = 2\n",
		1ull << log2_slots);
	fclose(f);

	if (pipe(pfd))
		die("pipe", -errno);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl(exe, exe, "-c", cfg, NULL);
		fprintf(stderr, "bench_socket: %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	ready = fdopen(pfd[0], "r");
	if (!ready || !fgets(line, sizeof(line), ready) ||
	    strncmp(line, "ready ", 6))
		die("the collector did not start", 0);
	if (clock_getcpuclockid(pid, &ccpu))
		die("clock_getcpuclockid", -errno);

	/* Fill the structure through its shared memory, as a local
	 * translator would; then map it read-only, as an analysis tool. */
	struct dta_region_opts wo = { .sz = sizeof(wo), .backing = DTA_BACKING_SHM,
				      .path = shm };
	struct dta_region_opts ro = wo;
	struct dta_region *w, *r;
	const struct dta_layout *l;
	uint8_t *keys = malloc(nq * 13), data[20], slot[64];
	uint8_t *out = malloc(64 * 20);
	struct dta_kw_result res[64];
	struct dta_memop ops[8];
	char *req, *p;
	size_t reqlen;
	double lib[99], kept[99], soc[99], bin[99], bint[99], map[99];
	double r_soc[99], r_bin[99], r_bint[99], r_map[99], r_mapk[99];
	double tb[99], tbt[99], r_tb[99], r_tbt[99]; /* TLS: vs binary */
	struct dta_client *cb, *cm, *ct = NULL;
	struct dta_kw_result *cres = malloc(nq * sizeof(*cres));
	uint8_t *cdata = malloc(nq * 20);

	snprintf(shm, sizeof(shm), "/dta-%s.kw", name);
	err = dta_region_open(&wo, &w);
	if (err)
		die("open the collector's region for writing", err);
	ro.flags = DTA_REGION_RDONLY;
	err = dta_region_open(&ro, &r);
	if (err)
		die("open the collector's region read-only", err);
	l = dta_region_layout(r);
	if (!keys || !out)
		die("keys", -ENOMEM);
	for (size_t i = 0; i < nq * 13; i++)
		keys[i] = (uint8_t)bench_rnd(&rng_state);
	for (size_t i = 0; i < nq; i++) {
		int k;

		memcpy(data, keys + i * 13, 13);
		memset(data + 13, 0x5a, 7);
		k = dta_kw_ops(l, keys + i * 13, 13, data, 20, 2, slot,
			       sizeof(slot), ops, 8);
		if (k < 0)
			die("kw ops", k);
		dta_memops_apply(dta_region_data(w), l->data_size, ops, (size_t)k);
	}
	dta_region_destroy(w);

	/* The requests: "kw kw KEYHEX\n" for every key. */
	req = malloc(nq * 40);
	if (!req)
		die("requests", -ENOMEM);
	p = req;
	for (size_t i = 0; i < nq; i++) {
		static const char d[] = "0123456789abcdef";

		memcpy(p, "kw kw ", 6);
		p += 6;
		for (int j = 0; j < 13; j++) {
			*p++ = d[keys[i * 13 + j] >> 4];
			*p++ = d[keys[i * 13 + j] & 15];
		}
		*p++ = '\n';
	}
	reqlen = (size_t)(p - req);

	/* dta-gen's truth form: every key with the data written. */
	snprintf(truth, sizeof(truth), "%s/kw.truth", dir);
	f = fopen(truth, "w");
	if (!f || !cres || !cdata)
		die(truth, f ? -ENOMEM : -errno);
	fprintf(f, "# type=kw redundancy=2\n");
	for (size_t i = 0; i < nq; i++) {
		char hex[2 * 20 + 1];

		memcpy(data, keys + i * 13, 13);
		memset(data + 13, 0x5a, 7);
		fputs("kw ", f);
		for (int j = 0; j < 13; j++)
			fprintf(f, "%02x", keys[i * 13 + j]);
		for (int j = 0; j < 20; j++)
			snprintf(hex + 2 * j, 3, "%02x", data[j]);
		fprintf(f, " %s\n", hex);
	}
	if (fclose(f))
		die(truth, -errno);
	snprintf(target, sizeof(target), "unix:%s", sock);
	err = dta_client_open(target, NULL, &cb, err_msg, sizeof(err_msg));
	if (err) {
		fprintf(stderr, "bench_socket: %s\n", err_msg);
		die("open the client on the socket", err);
	}
	if (tls) {
		snprintf(target, sizeof(target), "tls://127.0.0.1:%u?ca=%s/ca.pem"
			 "&cert=%s/bench.pem&key=%s/bench.key", port, certs,
			 certs, certs);
		err = dta_client_open(target, NULL, &ct, err_msg,
				      sizeof(err_msg));
		if (err) {
			fprintf(stderr, "bench_socket: %s\n", err_msg);
			die("open the client over TLS", err);
		}
	}
	snprintf(target, sizeof(target), "map:%s", cfg);
	err = dta_client_open(target, NULL, &cm, err_msg, sizeof(err_msg));
	if (err) {
		fprintf(stderr, "bench_socket: %s\n", err_msg);
		die("open the client on the mapping", err);
	}

	printf("Key-Write N=2, %llu slots (%" PRIu64 " MiB), %zu queries a "
	       "round, %u rounds; region pages %" PRIu64 " bytes\n",
	       1ull << log2_slots, l->data_size >> 20, nq, rounds,
	       dta_region_page_size(r));
	for (unsigned k = 0; k < rounds; k++) {
		size_t found_lib = 0, found_sock = 0;
		double t0, t1, c0, c1;

		t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		for (size_t i = 0; i < nq; i += 64) {
			size_t m = nq - i < 64 ? nq - i : 64;

			err = dta_kw_query_batch(l, dta_region_data(r),
						 keys + i * 13, 13, m, NULL, out,
						 64 * 20, res);
			if (err)
				die("query", err);
			for (size_t j = 0; j < m; j++)
				found_lib += res[j].status == DTA_Q_FOUND;
		}
		t1 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		lib[k] = (double)nq / (t1 - t0);

		/* The same, keeping every answer (as the client must): the
		 * answers' arrays take cache the table had. */
		t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		for (size_t i = 0; i < nq; i += 256) {
			size_t m = nq - i < 256 ? nq - i : 256;

			err = dta_kw_query_batch(l, dta_region_data(r),
						 keys + i * 13, 13, m, NULL,
						 cdata + i * 20, m * 20,
						 cres + i);
			if (err)
				die("query", err);
		}
		t1 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		kept[k] = (double)nq / (t1 - t0);

		c0 = bench_clock_s(ccpu);
		pipeline(sock, req, reqlen, nq, &found_sock);
		c1 = bench_clock_s(ccpu);
		soc[k] = (double)nq / (c1 - c0);
		r_soc[k] = soc[k] / lib[k];

		/* The client: every key in one call, binary frames. */
		{
			double m0 = bench_cpu_s(), cc0 = bench_clock_s(ccpu);
			size_t fb = 0, fm = 0;

			err = dta_client_kw_get(cb, "kw", keys, 13, nq, NULL,
						cres, cdata);
			if (err)
				die(dta_client_error(cb), err);
			double m1 = bench_cpu_s(), cc1 = bench_clock_s(ccpu);

			for (size_t i = 0; i < nq; i++)
				fb += cres[i].status == DTA_Q_FOUND;
			bin[k] = (double)nq / (cc1 - cc0);
			bint[k] = (double)nq / ((cc1 - cc0) + (m1 - m0));

			m0 = bench_cpu_s();
			err = dta_client_kw_get(cm, "kw", keys, 13, nq, NULL,
						cres, cdata);
			if (err)
				die(dta_client_error(cm), err);
			m1 = bench_cpu_s();
			for (size_t i = 0; i < nq; i++)
				fm += cres[i].status == DTA_Q_FOUND;
			map[k] = (double)nq / (m1 - m0);
			if (fb != found_lib || fm != found_lib)
				die("the client and the library disagree", 0);
			if (ct) {
				size_t ft = 0;

				m0 = bench_cpu_s();
				cc0 = bench_clock_s(ccpu);
				err = dta_client_kw_get(ct, "kw", keys, 13, nq,
							NULL, cres, cdata);
				if (err)
					die(dta_client_error(ct), err);
				m1 = bench_cpu_s();
				cc1 = bench_clock_s(ccpu);
				for (size_t i = 0; i < nq; i++)
					ft += cres[i].status == DTA_Q_FOUND;
				if (ft != found_lib)
					die("TLS and the library disagree", 0);
				tb[k] = (double)nq / (cc1 - cc0);
				tbt[k] = (double)nq / ((cc1 - cc0) + (m1 - m0));
				r_tb[k] = tb[k] / bin[k];
				r_tbt[k] = tbt[k] / bint[k];
			}
		}
		r_bin[k] = bin[k] / lib[k];
		r_bint[k] = bint[k] / lib[k];
		r_map[k] = map[k] / lib[k];
		r_mapk[k] = map[k] / kept[k];
		printf("round %u: library %.3f M/CPU-s (%zu found), keeping "
		       "the answers %.3f; text %.3f "
		       "M/collector-CPU-s (%.1f%%); binary %.3f M/collector-"
		       "CPU-s (%.1f%%), %.3f M/CPU-s with the client's "
		       "(%.1f%%); map %.3f M/CPU-s (%.1f%%)\n", k + 1,
		       lib[k] / 1e6, found_lib, kept[k] / 1e6, soc[k] / 1e6,
		       100 * r_soc[k],
		       bin[k] / 1e6, 100 * r_bin[k], bint[k] / 1e6,
		       100 * r_bint[k], map[k] / 1e6, 100 * r_map[k]);
		if (ct)
			printf("round %u: tls binary %.3f M/collector-CPU-s "
			       "(%.1f%% of unix binary), %.3f M/CPU-s with the "
			       "client's (%.1f%% of unix binary's)\n", k + 1,
			       tb[k] / 1e6, 100 * r_tb[k], tbt[k] / 1e6,
			       100 * r_tbt[k]);
		fflush(stdout);
		if (found_lib != found_sock)
			die("the socket and the library disagree", 0);
	}
	{
		unsigned n = rounds;
		double vs, vm, ws, wm, libm;

		libm = bench_median(lib, n);
		printf("median: library %.3f M queries/CPU-s; text socket "
		       "%.3f M answers/collector-CPU-s (%.1f%%); binary socket "
		       "%.3f M/collector-CPU-s (%.1f%%), %.3f M/CPU-s of "
		       "collector and client (%.1f%%); client on the mapping "
		       "%.3f M/CPU-s (%.1f%%; %.1f%% of the library keeping "
		       "its answers, %.3f M/CPU-s)\n", libm / 1e6,
		       bench_median(soc, n) / 1e6, 100 * bench_median(r_soc, n),
		       bench_median(bin, n) / 1e6, 100 * bench_median(r_bin, n),
		       bench_median(bint, n) / 1e6,
		       100 * bench_median(r_bint, n),
		       bench_median(map, n) / 1e6, 100 * bench_median(r_map, n),
		       100 * bench_median(r_mapk, n),
		       bench_median(kept, n) / 1e6);
		if (ct)
			printf("median: tls binary %.3f M/collector-CPU-s "
			       "(%.1f%% of unix binary), %.3f M/CPU-s of "
			       "collector and client (%.1f%% of unix binary's)\n",
			       bench_median(tb, n) / 1e6,
			       100 * bench_median(r_tb, n),
			       bench_median(tbt, n) / 1e6,
			       100 * bench_median(r_tbt, n));
		fflush(stdout);
		vs = run_verify(qexe, cfg, false, truth, nq, ccpu, &ws);
		vm = run_verify(qexe, cfg, true, truth, nq, ccpu, &wm);
		printf("verify over the socket: %.3f M answers/CPU-s of "
		       "dta-query and collector (%.1f%% of the library's "
		       "median), %.3f M/s wall\n", vs / 1e6, 100 * vs / libm,
		       ws / 1e6);
		printf("verify --map: %.3f M answers/CPU-s (%.1f%%), %.3f M/s "
		       "wall\n", vm / 1e6, 100 * vm / libm, wm / 1e6);
	}

	dta_client_close(cb);
	dta_client_close(cm);
	dta_client_close(ct);
	free(cres);
	free(cdata);
	unlink(truth);
	dta_region_destroy(r);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	unlink(cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", certs);
	if (system(cmd))
		fprintf(stderr, "bench_socket: %s left behind\n", certs);
	rmdir(dir);
	free(req);
	free(keys);
	free(out);
	return 0;
}
