/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Go-back-N bookkeeping for the switch sink (translator/switch_ring.h).
 * PSNs are 24-bit and wrap: every comparison is a distance from the oldest
 * kept frame, modulo 2^24.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "switch_ring.h"

#define PSN_MASK 0xFFFFFFu

struct switch_ring {
	unsigned k;          /* slots, a power of two */
	size_t slot;         /* bytes per slot */
	unsigned head;       /* slot of the oldest kept frame */
	unsigned count;      /* frames kept */
	uint32_t first;      /* PSN of the oldest kept frame */
	uint64_t since_ns;   /* last progress (ACK, NAK, resend, first push) */
	unsigned retries;    /* timeouts since the last progress */
	uint16_t *len;       /* per slot */
	unsigned char *data; /* k * slot bytes */
};

struct switch_ring *switch_ring_create(unsigned k, size_t slot)
{
	struct switch_ring *r;

	if (!k || (k & (k - 1)) || !slot || slot > UINT16_MAX) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->k = k;
	r->slot = slot;
	r->len = calloc(k, sizeof(*r->len));
	if (!r->len)
		goto free_ring;
	r->data = malloc((size_t)k * slot);
	if (!r->data)
		goto free_len;
	return r;
free_len:
	free(r->len);
free_ring:
	free(r);
fail:
	errno = ENOMEM;
	return NULL;
}

void switch_ring_destroy(struct switch_ring *r)
{
	if (!r)
		return;
	free(r->data);
	free(r->len);
	free(r);
}

unsigned switch_ring_count(const struct switch_ring *r)
{
	return r->count;
}

uint32_t switch_ring_first(const struct switch_ring *r)
{
	return r->first;
}

bool switch_ring_full(const struct switch_ring *r)
{
	return r->count == r->k;
}

/* Progress: the responder is alive and moving; the timeout starts over. */
static void progress(struct switch_ring *r, uint64_t now_ns)
{
	r->since_ns = now_ns;
	r->retries = 0;
}

int switch_ring_push(struct switch_ring *r, uint32_t psn, const void *frame,
		     size_t len, uint64_t now_ns)
{
	unsigned at;

	if (len > r->slot)
		return -EMSGSIZE;
	if (r->count == r->k)
		return -ENOSPC;
	psn &= PSN_MASK;
	if (!r->count) {
		r->first = psn;
		progress(r, now_ns);
	} else if (psn != ((r->first + r->count) & PSN_MASK)) {
		return -EINVAL;
	}
	at = (r->head + r->count) & (r->k - 1);
	memcpy(r->data + (size_t)at * r->slot, frame, len);
	r->len[at] = (uint16_t)len;
	r->count++;
	return 0;
}

/* Forget the @n oldest frames. */
static void release(struct switch_ring *r, unsigned n)
{
	r->head = (r->head + n) & (r->k - 1);
	r->count -= n;
	r->first = (r->first + n) & PSN_MASK;
}

unsigned switch_ring_ack(struct switch_ring *r, uint32_t psn, uint64_t now_ns)
{
	uint32_t d = (psn - r->first) & PSN_MASK;

	if (d >= r->count)
		return 0;
	release(r, d + 1);
	progress(r, now_ns);
	return d + 1;
}

int switch_ring_nak(struct switch_ring *r, uint32_t psn, uint64_t now_ns)
{
	uint32_t d = (psn - r->first) & PSN_MASK;

	/* d == count: the responder has every kept frame and waits for the
	 * next new one. With nothing kept the NAK says nothing about us (the
	 * start-up probe's): the caller resynchronises. */
	if (!r->count)
		return -ERANGE;
	/* Behind the oldest kept frame, which a later ACK released: an old
	 * NAK overtaken by that ACK. Nothing to resend or move. */
	if (d > PSN_MASK / 2)
		return -ESTALE;
	if (d > r->count)
		return -ERANGE;
	release(r, d);
	progress(r, now_ns);
	return (int)r->count;
}

int switch_ring_timeout(struct switch_ring *r, uint64_t now_ns)
{
	uint64_t rto = SWITCH_RING_RTO_NS;

	if (!r->count)
		return 0;
	for (unsigned i = 0; i < r->retries && rto < SWITCH_RING_RTO_MAX_NS; i++)
		rto *= 2;
	if (rto > SWITCH_RING_RTO_MAX_NS)
		rto = SWITCH_RING_RTO_MAX_NS;
	if (now_ns < r->since_ns || now_ns - r->since_ns < rto)
		return 0;
	if (r->retries >= SWITCH_RING_RETRIES)
		return -ETIMEDOUT;
	r->retries++;
	r->since_ns = now_ns;
	return (int)r->count;
}

const void *switch_ring_frame(const struct switch_ring *r, unsigned i,
			      size_t *len)
{
	unsigned at;

	if (i >= r->count)
		return NULL;
	at = (r->head + i) & (r->k - 1);
	if (len)
		*len = r->len[at];
	return r->data + (size_t)at * r->slot;
}

unsigned switch_ring_clear(struct switch_ring *r)
{
	unsigned n = r->count;

	release(r, n);
	r->retries = 0;
	return n;
}
