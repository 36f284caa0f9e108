/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz harness for what the client (dta/client.h, lib/src/client.c) reads
 * from a collector: the answer to `binary`, the `info` JSON it builds the
 * structures from (layouts, schemas, values), and the answers to batched
 * gets and Append reads, as frames or text lines.
 *
 * Input: [flags (1)][the collector's whole answer stream]. Flag bit 0:
 * text lines (DTA_CLIENT_TEXT). The stream is written into one end of a
 * socket pair before the client opens the other, then that end is shut
 * down: the client reads answers until they run out (an error, never a
 * hang). Then every structure it learned is asked: three 4-byte keys for
 * kw, pc, ki (bank 0, then the bank's kitotal), a cursor on list 0 from
 * the oldest entry for ap.
 * Checked: no crash or sanitizer report; every failure returns a negative
 * code with a message; statuses and counts read back are in range.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client_internal.h"
#include "dta/exec.h"
#include "dta/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ask(struct dta_client *c, const struct dta_client_structure *s)
{
	static const uint8_t keys[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct dta_kw_result kw[3];
	struct dta_pc_result pc[3];
	struct dta_client_cursor *cur;
	uint64_t cnt[3], lost, total;
	uint8_t d[3 * DTA_DATA_MAX], buf[16 * DTA_DATA_MAX];
	long got;
	int rc = 0;

	switch (s->layout.primitive) {
	case DTA_PRIM_KEY_WRITE:
		if (s->layout.g.kw.data_len > DTA_DATA_MAX)
			abort();
		rc = dta_client_kw_get(c, s->name, keys, 4, 3, NULL, kw, d);
		for (int i = 0; !rc && i < 3; i++)
			if (kw[i].status < DTA_Q_FOUND ||
			    kw[i].status > DTA_Q_CONFLICT)
				abort();
		break;
	case DTA_PRIM_POSTCARD:
		rc = dta_client_pc_get(c, s->name, keys, 4, 3, pc);
		for (int i = 0; !rc && i < 3; i++)
			if (pc[i].path_len > DTA_MAX_HOPS)
				abort();
		break;
	case DTA_PRIM_KEY_INCREMENT:
		rc = dta_client_ki_get(c, s->name, keys, 4, 3, 0, cnt);
		if (!rc) /* and the bank's total: `kitotal`'s answer */
			rc = dta_client_ki_total(c, s->name, 0, &total);
		break;
	case DTA_PRIM_APPEND:
		if (s->layout.g.ap.entry_size > DTA_DATA_MAX)
			abort();
		rc = dta_client_ap_open(c, s->name, 0, DTA_EXEC_AP_OLDEST, &cur);
		if (rc)
			break;
		got = dta_client_ap_read(cur, buf, 16, &lost);
		if (got > 16)
			abort();
		rc = got < 0 ? (int)got : 0;
		dta_client_ap_close(cur);
		break;
	default:
		abort();
	}
	if (rc > 0 || (rc < 0 && !*dta_client_error(c)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta_client *c;
	int sv[2];

	if (size < 1 || size > 60000)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	if (write(sv[1], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	shutdown(sv[1], SHUT_WR);
	if (dta__client_open_fd(sv[0], data[0] & 1 ? DTA_CLIENT_TEXT : 0,
				&c) == 0) {
		for (size_t i = 0; i < dta_client_count(c); i++)
			ask(c, dta_client_structure(c, i));
		dta_client_close(c);
	}
	close(sv[1]);
	return 0;
}
