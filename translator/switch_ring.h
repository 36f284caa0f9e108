/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch sink's retransmission ring (translator/switch_ring.c): the
 * frames of one RC queue pair that the responder has not acknowledged yet,
 * exactly as they were sent, by PSN, so they can be sent again unchanged
 * (same PSN, same ICRC) after a PSN sequence NAK or a timeout: go-back-N,
 * as an RC requester does (InfiniBand spec. vol. 1, 9.7.5.1 and 9.7.6;
 * docs/roce.md, "Loss recovery").
 *
 * Pure bookkeeping: no sockets, no clock of its own (times are passed in),
 * no locking (the caller holds its queue pair's lock).
 */
#ifndef DTA_TRANSLATOR_SWITCH_RING_H
#define DTA_TRANSLATOR_SWITCH_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Frames kept per queue pair (a power of two). With SWITCH_RING_SLOT bytes
 * a frame, a queue pair's ring takes SWITCH_RING_K * SWITCH_RING_SLOT
 * bytes: 1024 x 1104 = about 1.1 MiB. */
#define SWITCH_RING_K 1024u
/* Room for the largest frame: a WRITE of one 1024-byte MTU, padded. */
#define SWITCH_RING_SLOT 1104u

/* Retransmission timeout: the first resend after SWITCH_RING_RTO_NS
 * without progress, then doubling up to SWITCH_RING_RTO_MAX_NS; after
 * SWITCH_RING_RETRIES resends without progress the frames are given up. */
#define SWITCH_RING_RTO_NS 20000000ull      /* 20 ms */
#define SWITCH_RING_RTO_MAX_NS 500000000ull /* 500 ms */
#define SWITCH_RING_RETRIES 10

struct switch_ring;

/* A ring of @k frames (a power of two) of up to @slot bytes each; NULL with
 * errno set (EINVAL, ENOMEM). */
struct switch_ring *switch_ring_create(unsigned k, size_t slot);
/* Accepts NULL. */
void switch_ring_destroy(struct switch_ring *r);

/* Frames kept (sent, not acknowledged). */
unsigned switch_ring_count(const struct switch_ring *r);
/* PSN of the oldest kept frame (meaningless when empty). */
uint32_t switch_ring_first(const struct switch_ring *r);
bool switch_ring_full(const struct switch_ring *r);

/*
 * Keep the frame just sent with PSN @psn at time @now_ns. @psn must follow
 * the newest kept frame (any PSN when empty).
 * Return 0; -ENOSPC (full: nothing is ever overwritten), -EMSGSIZE (@len
 * above the slot), -EINVAL (@psn out of order).
 */
int switch_ring_push(struct switch_ring *r, uint32_t psn, const void *frame,
		     size_t len, uint64_t now_ns);

/*
 * An ACK or atomic ACK for @psn: it covers every kept frame up to and
 * including @psn (acknowledgements are cumulative). A stale one (before
 * the oldest kept frame, or past the newest) changes nothing.
 * Return the number of frames released.
 */
unsigned switch_ring_ack(struct switch_ring *r, uint32_t psn, uint64_t now_ns);

/*
 * A PSN sequence NAK: the responder has everything before @psn and drops
 * everything from a later PSN until @psn arrives. Releases the frames
 * before @psn.
 * Return the number of frames to send again, from @psn to the newest
 * (switch_ring_frame(r, 0 .. n-1) after the call; 0 when @psn is the next
 * PSN to send), -ESTALE when @psn lies behind the kept frames (an old
 * NAK: frames up to the oldest kept were acknowledged since; ignore it),
 * or -ERANGE when nothing is kept or @psn lies ahead of the newest (the
 * ring is unchanged either way: on -ERANGE the caller resynchronises).
 */
int switch_ring_nak(struct switch_ring *r, uint32_t psn, uint64_t now_ns);

/*
 * Is a timeout due at @now_ns (frames kept, and nothing acknowledged or
 * resent for the current timeout)? Return 0 (no), the number of frames to
 * send again (all kept ones; the retry is counted and the next timeout
 * doubles), or -ETIMEDOUT when SWITCH_RING_RETRIES retries brought no
 * progress: the caller gives the frames up (switch_ring_clear()).
 */
int switch_ring_timeout(struct switch_ring *r, uint64_t now_ns);

/* Kept frame @i (0: the oldest) and its length; NULL past the newest. */
const void *switch_ring_frame(const struct switch_ring *r, unsigned i,
			      size_t *len);

/* Drop every kept frame; return how many there were. */
unsigned switch_ring_clear(struct switch_ring *r);

#endif
