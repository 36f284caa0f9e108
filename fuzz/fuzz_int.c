/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_int_decode(): INT telemetry reports of every version
 * under three inner-packet option sets. Accepted reports must hold their
 * limits, point inside the input, and re-encode to bytes that decode to the
 * same fields (reports with domain-specific metadata, which the encoder
 * does not write, are only checked for limits). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dta/int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUT_MAX 64

static void same(const struct dta_int_report *a, const struct dta_int_report *b)
{
	if (a->version != b->version || a->next != b->next ||
	    a->rep_type != b->rep_type || a->flags != b->flags ||
	    a->hw_id != b->hw_id || a->seq != b->seq ||
	    a->node_id != b->node_id || a->rep_md_bits != b->rep_md_bits ||
	    a->ttl != b->ttl || a->hop_index != b->hop_index ||
	    a->has_int_md != b->has_int_md || a->n_hops != b->n_hops ||
	    a->inner_len != b->inner_len ||
	    memcmp(&a->local, &b->local, sizeof(a->local)) ||
	    memcmp(&a->flow, &b->flow, sizeof(a->flow)) ||
	    memcmp(a->hops, b->hops, a->n_hops * sizeof(a->hops[0])) ||
	    (a->inner_len && memcmp(a->inner, b->inner, a->inner_len)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dta_int_report r[OUT_MAX], back[OUT_MAX];
	static uint8_t buf[9000 + 64 * OUT_MAX];
	const struct dta_int_opts opts[] = {
		{ .sz = sizeof(struct dta_int_opts) },
		{ .sz = sizeof(struct dta_int_opts), .dscp_mask = 0x3F,
		  .dscp_value = 0x17, .udp_port = 5000, .ttl_init = 64 },
	};

	for (int k = 0; k < 3; k++) {
		const struct dta_int_opts *o = k ? &opts[k - 1] : NULL;
		int n = dta_int_decode(data, size, o, r, OUT_MAX);
		bool encodable = true;

		if (n <= 0)
			continue;
		if (n > OUT_MAX || (r[0].version != DTA_INT_V2_0 && n != 1))
			abort();
		for (int i = 0; i < n; i++) {
			if (r[i].n_hops > DTA_INT_HOPS_MAX ||
			    (r[i].n_hops && !r[i].has_int_md) ||
			    r[i].inner < data || r[i].inner_len > size ||
			    r[i].inner + r[i].inner_len > data + size ||
			    (r[i].flow.family != 0 && r[i].flow.family != 4 &&
			     r[i].flow.family != 6) ||
			    r[i].local.queue_occupancy > 0xFFFFFF ||
			    r[i].local.buffer_occupancy > 0xFFFFFF)
				abort();
			if (r[i].ds_md_bits)
				encodable = false;
		}
		if (!encodable)
			continue;
		int len = dta_int_encode(r, (size_t)n, buf, sizeof(buf));

		if (len < 0 || dta_int_decode(buf, (size_t)len, o, back,
					      OUT_MAX) != n)
			abort();
		for (int i = 0; i < n; i++)
			same(&r[i], &back[i]);
	}

	/* Refusing reports alone (dta_int_opts.separate): a datagram read
	 * whole reads the same; one refused whole either still is (same
	 * code: its header was unreadable) or yields at least one report
	 * carrying an error, and every report without one is sound. */
	{
		struct dta_int_opts so = { .sz = sizeof(so), .dscp_mask = 1,
					   .dscp_value = 1 };
		int whole = dta_int_decode(data, size, &so, r, OUT_MAX), n, bad = 0;

		so.separate = true;
		n = dta_int_decode(data, size, &so, back, OUT_MAX);
		if (whole >= 0 || whole == -DTA_E_INT_TOOMANY) {
			if (n != whole)
				abort();
			for (int i = 0; i < n; i++) {
				if (back[i].error)
					abort();
				same(&r[i], &back[i]);
			}
		} else if (n < 0) {
			/* refused whole again, or more reports than fit now
			 * that the refused ones are returned */
			if (n != whole && n != -DTA_E_INT_TOOMANY)
				abort();
		} else {
			if (n == 0 || n > OUT_MAX)
				abort();
			for (int i = 0; i < n; i++) {
				if (back[i].error > 0 || back[i].error == -EINVAL)
					abort();
				bad += back[i].error != 0;
				if (!back[i].error &&
				    (back[i].inner_len > size ||
				     (back[i].inner &&
				      (back[i].inner < data ||
				       back[i].inner + back[i].inner_len >
					       data + size))))
					abort();
			}
			if (!bad)
				abort();
		}
	}
	return 0;
}
