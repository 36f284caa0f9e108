/* SPDX-License-Identifier: BSD-3-Clause */
/* The programs' shared helpers (common/tools.c) where security or the
 * protocol depends on them: private files, default socket places, whom
 * a client trusts, request limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dta/exec.h"
#include "tools.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dta-test-tools.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static size_t entries(const char *d)
{
	DIR *h = opendir(d);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(h);
	while ((e = readdir(h)) != NULL)
		n += e->d_name[0] != '.';
	closedir(h);
	return n;
}

/* Mode 0600 whatever the umask and the old file's mode; whole contents;
 * no temporary left behind. */
static void test_write_private(void **state)
{
	char sub[128], path[192], got[64] = "";
	struct stat st;
	mode_t old;
	FILE *f;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/wp", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(path, sizeof(path), "%s/switch.json", sub);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("old", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	old = umask(0);
	assert_int_equal(tool_write_private(path, "{\"rkey\":1}\n", 11), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 11);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "{\"rkey\":1}\n");
	assert_int_equal(entries(sub), 1);
	/* Negative: no directory, no file, nothing left. */
	snprintf(path, sizeof(path), "%s/missing/switch.json", sub);
	assert_int_equal(tool_write_private(path, "x", 1), -ENOENT);
	assert_int_equal(entries(sub), 1);
}

static void test_default_socket(void **state)
{
	char out[4096], rd[120];

	(void)state;
	setenv("RUNTIME_DIRECTORY", "/run/dta-a:/run/dta-b", 1);
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	assert_int_equal(tool_default_socket("lab", out, sizeof(out)), 0);
	assert_string_equal(out, "/run/dta-a/dta-lab.sock");
	unsetenv("RUNTIME_DIRECTORY");
	assert_int_equal(tool_default_socket("lab", out, sizeof(out)), 0);
	if (geteuid() == 0)
		assert_string_equal(out, "/run/dta/dta-lab.sock");
	else if (access(TOOL_RUN_DIR, F_OK))
		assert_string_equal(out, "/run/user/1000/dta-lab.sock");
	/* Never /tmp: with nothing set, root gets /run/dta, others none. */
	unsetenv("XDG_RUNTIME_DIR");
	if (geteuid() == 0) {
		assert_int_equal(tool_default_socket("lab", out, sizeof(out)), 0);
		assert_string_equal(out, "/run/dta/dta-lab.sock");
	} else if (access(TOOL_RUN_DIR, F_OK)) {
		assert_int_equal(tool_default_socket("lab", out, sizeof(out)),
				 -ENOENT);
	}
	/* 107 bytes fit a sockaddr_un; 108 do not, and are not cut. */
	memset(rd, 'd', sizeof(rd));
	rd[0] = '/';
	rd[107 - strlen("/dta-lab.sock")] = 0;
	setenv("RUNTIME_DIRECTORY", rd, 1);
	assert_int_equal(tool_default_socket("lab", out, sizeof(out)), 0);
	assert_int_equal(strlen(out), 107);
	assert_int_equal(tool_default_socket("labs", out, sizeof(out)),
			 -ENAMETOOLONG);
	unsetenv("RUNTIME_DIRECTORY");
}

/* A listener of uid 65534 in @d; returns its pid once it listens. */
static pid_t listen_as_nobody(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		strcpy(sa.sun_path, path);
		if (setgid(65534) || setuid(65534) ||
		    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(fd, 4))
			_exit(1);
		(void)!write(p[1], "r", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

/* The client trusts its own uid, root, and the socket directory's owner;
 * anyone else is refused with a message naming the uid. */
static void test_connect_peer_rule(void **state)
{
	char pub[128], own[128], path[192], err[512] = "";
	pid_t pid;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip(); /* needs a second uid */
	assert_int_equal(chmod(dir, 0711), 0);
	/* A directory anyone may write, like /tmp: an impostor. */
	snprintf(pub, sizeof(pub), "%s/pub", dir);
	assert_int_equal(mkdir(pub, 0700), 0);
	assert_int_equal(chmod(pub, 01777), 0);
	snprintf(path, sizeof(path), "%s/dta.sock", pub);
	pid = listen_as_nobody(path);
	fd = tool_connect_checked(path, err, sizeof(err));
	assert_int_equal(fd, -EPERM);
	assert_non_null(strstr(err, "uid 65534"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Its own directory: it could replace any socket there anyway. */
	snprintf(own, sizeof(own), "%s/own", dir);
	assert_int_equal(mkdir(own, 0700), 0);
	assert_int_equal(chown(own, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/dta.sock", own);
	pid = listen_as_nobody(path);
	fd = tool_connect_checked(path, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_connect_long_path(void **state)
{
	char path[200], err[512] = "";

	(void)state;
	memset(path, 'p', sizeof(path));
	path[0] = '/';
	path[108] = 0;
	assert_int_equal(tool_connect_checked(path, err, sizeof(err)),
			 -ENAMETOOLONG);
	assert_non_null(strstr(err, "at most 107"));
}

/*
 * The executor as the collector runs it (dta/exec.h: text requests
 * queued in runs, answered when the run ends) gives the same bytes as one
 * request at a time (a flush after each), for any mix of requests: runs
 * of one structure, key lengths, N and T, banks, errors inside a run (bad
 * keys, unknown structures, a query the library refuses), and requests
 * that are not the executor's.
 */
static void test_exec_batched_same_bytes(void **state)
{
	static const char *const tmpl[] = {
		"kw a %s", "kw a %s", "kw a %s", "kw a %s", "kw a %s 1",
		"kw a %s 2 2", "kw a %s 9", "kw b %s", "kw a %s00",
		"ki c %s", "ki c %s 1", "ki c %s 7", "kw a zz", "kw nosuch %s",
		"kw c %s", "info", "", "   ", "bogus request", "kw", "kw a",
		"ap a 0 1", "ki c",
	};
	struct dta_layout l[3];
	struct dta_region *r[3];
	struct dta_exec *x;
	struct dta_exec_session *s1, *s2;
	struct dta_buf one = { 0 }, bat = { 0 };
	uint64_t rng = 5;

	(void)state;
	assert_int_equal(dta_exec_create(&x), 0);
	for (int i = 0; i < 3; i++) {
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_ANON };
		char name[2] = { (char)('a' + i), 0 };
		struct dta_exec_structure es = { .name = name, .layout = &l[i] };

		if (i < 2)
			assert_int_equal(dta_layout_kw(&l[i], 1024, 4, 4, 2,
						       DTA_HASH_CRC32C, 0), 0);
		else
			assert_int_equal(dta_layout_ki(&l[i], 512, 2, 2,
						       DTA_HASH_CRC32C, 0), 0);
		assert_int_equal(dta_region_create(&l[i], &o, &r[i]), 0);
		es.area = dta_region_data(r[i]);
		assert_int_equal(dta_exec_add(x, &es), i);
	}
	/* Keys 0..99 written into a, every third into b, counts into c. */
	for (uint32_t k = 0; k < 100; k++) {
		uint8_t slot[16];
		struct dta_memop ops[8];
		uint32_t val = k * 7;
		int n = dta_kw_ops(&l[0], &k, 4, &val, 4, 2, slot, sizeof(slot),
				   ops, 8);

		assert_int_equal(n, 2);
		dta_memops_apply(dta_region_data(r[0]), l[0].data_size, ops, 2);
		if (k % 3 == 0)
			dta_memops_apply(dta_region_data(r[1]), l[1].data_size,
					 ops, 2);
	}
	assert_int_equal(dta_exec_session_create(x, &s1), 0);
	assert_int_equal(dta_exec_session_create(x, &s2), 0);
	for (int i = 0; i < 3000; i++) {
		char key[16], line[64];
		const char *t, *pct;
		uint32_t k;
		int rc1, rc2;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		k = (uint32_t)(rng >> 33) % 150;
		snprintf(key, sizeof(key), "%08x", k);
		/* Mostly "kw a KEY" (runs), the others mixed in. */
		t = tmpl[(rng >> 20) % (sizeof(tmpl) / sizeof(tmpl[0])) *
			 ((rng >> 13) % 4 == 0)];
		pct = strstr(t, "%s");
		if (pct)
			snprintf(line, sizeof(line), "%.*s%s%s", (int)(pct - t),
				 t, key, pct + 2);
		else
			snprintf(line, sizeof(line), "%s", t);
		rc1 = dta_exec_text(s1, line, strlen(line), &one);
		dta_exec_text_flush(s1, &one);
		if (rc1 != 0)
			dta_buf_put(&one, "(not the executor's)\n", 21);
		rc2 = dta_exec_text(s2, line, strlen(line), &bat);
		if (rc2 != 0)
			dta_buf_put(&bat, "(not the executor's)\n", 21);
		assert_int_equal(rc1, rc2);
	}
	dta_exec_text_flush(s2, &bat);
	assert_false(one.oom || bat.oom);
	assert_int_equal(one.len, bat.len);
	assert_memory_equal(one.p, bat.p, one.len);
	assert_int_equal(one.errors, bat.errors);
	assert_true(one.errors > 0);
	dta_buf_put(&one, "", 1);
	assert_non_null(strstr(one.p, "\"status\":\"found\",\"data\":"));
	dta_buf_free(&one);
	dta_buf_free(&bat);
	dta_exec_session_destroy(s1);
	dta_exec_session_destroy(s2);
	dta_exec_destroy(x);
	for (int i = 0; i < 3; i++)
		dta_region_destroy(r[i]);
}

/* tool_json_str(): JSON whatever the bytes: quotes, backslashes and
 * control characters escaped, UTF-8 kept, any byte that is not part of
 * well-formed UTF-8 (a lone continuation byte, an overlong form, a
 * surrogate, a truncated sequence) written as \u00XX of its value. */
static void test_json_str(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b\\c\n\x01", "\"a\\\"b\\\\c\\u000a\\u0001\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "\x80", "\"\\u0080\"" },
		{ "\xc0\xaf", "\"\\u00c0\\u00af\"" },
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" },
		{ "\xe2\x82", "\"\\u00e2\\u0082\"" },
		{ "\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"" },
		{ "\xffok", "\"\\u00ffok\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		tool_json_str(f, t[i].in);
		fclose(f);
		assert_string_equal(buf, t[i].out);
		free(buf);
	}
}

/* INT flows: both arrows, IPv4 and IPv6, hex of the two lengths; the
 * other key forms and malformed tuples are refused with a message. */
static void test_parse_flow(void **state)
{
	static const uint8_t v4[13] = { 10, 0, 0, 1, 10, 0, 0, 2,
					0x04, 0xd2, 0x00, 0x50, 17 };
	static const char *bad[] = {
		"", "10.0.0.1", "42", "0x0a000001", "10.0.0.1:1234-10.0.0.2:80",
		"10.0.0.1:1234-10.0.0.2:80/xyz", "10.0.0.1:99999-10.0.0.2:80/udp",
		"10.0.0.1-10.0.0.2/udp", "10.0.0.1:1-[::1]:2/udp",
		"[::1]:1-10.0.0.2:2/udp", "0x0a0000010a00000204d2005011ff",
		"garbage", "10.0.0.1:1234--10.0.0.2:80/udp",
	};
	uint8_t key[64];
	char err[256];

	(void)state;
	assert_int_equal(tool_parse_flow("10.0.0.1:1234-10.0.0.2:80/udp", key,
					 sizeof(key), err, sizeof(err)), 13);
	assert_memory_equal(key, v4, 13);
	memset(key, 0, sizeof(key));
	assert_int_equal(tool_parse_flow("10.0.0.1:1234->10.0.0.2:80/udp", key,
					 sizeof(key), err, sizeof(err)), 13);
	assert_memory_equal(key, v4, 13);
	memset(key, 0, sizeof(key));
	assert_int_equal(tool_parse_flow("0x0a0000010a00000204d2005011", key,
					 sizeof(key), err, sizeof(err)), 13);
	assert_memory_equal(key, v4, 13);
	assert_int_equal(tool_parse_flow("[2001:db8::1]:1-[2001:db8::2]:2/tcp",
					 key, sizeof(key), err, sizeof(err)), 37);
	assert_int_equal(key[0], 0x20);
	assert_int_equal(key[15], 1);
	assert_int_equal(key[31], 2);
	assert_int_equal(key[33], 1);
	assert_int_equal(key[35], 2);
	assert_int_equal(key[36], 6);
	assert_int_equal(tool_parse_flow("[::1]:1->[::2]:2/udp", key,
					 sizeof(key), err, sizeof(err)), 37);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (tool_parse_flow(bad[i], key, sizeof(key), err,
				    sizeof(err)) != -1)
			fail_msg("accepted flow '%s'", bad[i]);
		assert_true(err[0] != 0);
	}
	assert_int_equal(tool_parse_flow(NULL, key, sizeof(key), err,
					 sizeof(err)), -1);
}

/* INT truth lines (docs/int.md "Truth lines"): each kind with its fields
 * read as written; wrong word counts, keys, numbers and entries refused
 * with a reason. */
static void test_truth_int(void **state)
{
	static const char *bad[] = {
		"int-path 0a0000010a00000204d2005011",             /* 2 words */
		"int-path 0a0000010a00000204d20050 1,2",           /* 12 bytes */
		"int-path 0a0000010a00000204d2005011 1,,2",        /* empty id */
		"int-path 0a0000010a00000204d2005011 1,4294967296", /* > 32 bits */
		"int-path 0a0000010a00000204d2005011 1,2 3",       /* 4 words */
		"int-path 0a0000010a00000204d200501g 1",           /* not hex */
		"int-hop 0a0000010a00000204d2005011 7 1 2",        /* 5 words */
		"int-hop 0a0000010a00000204d2005011 - 1 2 3",      /* switch - */
		"int-hop 0a0000010a00000204d2005011 7 -1 2 3",     /* sign */
		"int-hop 0a0000010a00000204d2005011 7 1 4294967296 3",
		"int-event 0a0000010a00000204d2005011 11 5 6 X 1 11 0 "
		"0000000b0005000608010b01ffffffff55702fddffffffff0000000000001000",
		"int-event 0a0000010a00000204d2005011 11 5 65536 D 1 11 0 "
		"0000000b0005000608010b01ffffffff55702fddffffffff0000000000001000",
		"int-event 0a0000010a00000204d2005011 11 5 6 D 256 11 0 "
		"0000000b0005000608010b01ffffffff55702fddffffffff0000000000001000",
		"int-event 0a0000010a00000204d2005011 11 5 6 D 1 11 0 "
		"0000000b0005000608010b01ffffffff55702fddffffffff00000000000010", /* 31 */
		"int-event 0a0000010a00000204d2005011 11 5 6 D 1 11 0",
		"int-flow 0a0000010a00000204d2005011 x",
		"int-flow 0a0000010a00000204d2005011 -3",
		"int-queue 0000000b0 1",                            /* odd */
		"int-queue 0000000b 1",                             /* 4 bytes */
		"int-queue 0a0000010a00000204d2005011 1",           /* a flow */
		"int-bogus 0a0000010a00000204d2005011 1",
	};
	char line[512];
	struct tool_truth t;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s", bad[i]);
		if (tool_truth_parse(line, &t) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_non_null(t.why);
	}

	snprintf(line, sizeof(line), "# dta-gen truth v1 type=int-pc count=3 "
		 "redundancy=2 int_version=2.0");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.kind, TOOL_TRUTH_NONE);
	assert_string_equal(t.type, "int-pc");
	assert_int_equal(t.redundancy, 2);

	snprintf(line, sizeof(line),
		 "int-path 0a0000010a00000204d2005011 8,39,4294967295\n");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.kind, TOOL_TRUTH_INT_PATH);
	assert_int_equal(t.ikey_len, 13);
	assert_int_equal(t.ikey[0], 10);
	assert_int_equal(t.ikey[8], 0x04);
	assert_int_equal(t.ikey[12], 17);
	assert_int_equal(t.hops, 3);
	assert_int_equal(t.path[0], 8);
	assert_int_equal(t.path[1], 39);
	assert_int_equal(t.path[2], 0xFFFFFFFFu);

	snprintf(line, sizeof(line), "int-hop 20010db80000000000000000000000"
		 "0120010db80000000000000000000000020001000206 45 - 27933 "
		 "18446744073709551615");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.kind, TOOL_TRUTH_INT_HOP);
	assert_int_equal(t.ikey_len, 37);
	assert_int_equal(t.ikey[15], 1);
	assert_int_equal(t.ikey[36], 6);
	assert_int_equal(t.switch_id, 45);
	assert_int_equal(t.latency, 0xFFFFFFFFu);
	assert_int_equal(t.occupancy, 27933);
	assert_true(t.egress_ts == UINT64_MAX);
	snprintf(line, sizeof(line), "int-hop 0a0000010a00000204d2005011 "
		 "4294967295 7 - -");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.switch_id, 0xFFFFFFFFu);
	assert_int_equal(t.latency, 7);
	assert_int_equal(t.occupancy, 0xFFFFFFFFu);
	assert_true(t.egress_ts == UINT64_MAX);

	/* tests/e2e/int_query.sh's v1.0 drop at switch 11. */
	snprintf(line, sizeof(line), "int-event 0a0000050a00000204d2005011 11 "
		 "5 6 D 1 11 0 0000000b0005000608010b01ffffffff55702fddfffff"
		 "fff0000000000001000");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.kind, TOOL_TRUTH_INT_EVENT);
	assert_int_equal(t.switch_id, 11);
	assert_int_equal(t.in_port, 5);
	assert_int_equal(t.eg_port, 6);
	assert_int_equal(t.event, 'D');
	assert_int_equal(t.queue, 1);
	assert_int_equal(t.reason, 11);
	assert_int_equal(t.occupancy, 0);
	assert_int_equal(t.entry[3], 11);
	assert_int_equal(t.entry[8], 0x08);
	assert_int_equal(t.entry[16], 0x55);
	assert_int_equal(t.entry[30], 0x10);
	assert_int_equal(t.entry[31], 0x00);

	snprintf(line, sizeof(line), "int-flow 0a0000010a00000204d2005011 "
		 "18446744073709551615");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.kind, TOOL_TRUTH_INT_FLOW);
	assert_true(t.count == UINT64_MAX);
	snprintf(line, sizeof(line), "int-queue 0000000b03 4");
	assert_int_equal(tool_truth_parse(line, &t), 0);
	assert_int_equal(t.kind, TOOL_TRUTH_INT_QUEUE);
	assert_int_equal(t.ikey_len, 5);
	assert_int_equal(t.ikey[3], 11);
	assert_int_equal(t.ikey[4], 3);
	assert_int_equal(t.count, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_private),
		cmocka_unit_test(test_default_socket),
		cmocka_unit_test(test_connect_peer_rule),
		cmocka_unit_test(test_connect_long_path),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_exec_batched_same_bytes),
		cmocka_unit_test(test_parse_flow),
		cmocka_unit_test(test_truth_int),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
