/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Applying memory operations to local memory: the shared-memory sink's
 * engine, and what tests and benchmarks use in place of a NIC.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "dta/layout.h"
#include "internal.h"

static int memop_check(const struct dta_memop *op, uint64_t size)
{
	switch (op->kind) {
	case DTA_MEMOP_WRITE:
		if (op->len == 0 || !op->data)
			return -EINVAL;
		break;
	case DTA_MEMOP_FETCH_ADD:
		if (op->len != 8 || (op->offset & 7))
			return -DTA_E_RANGE;
		break;
	default:
		return -EINVAL;
	}
	if (op->offset > size || op->len > size - op->offset)
		return -DTA_E_RANGE;
	return 0;
}

/*
 * Place a WRITE the way a NIC does (PCIe posted writes, in address order):
 * a concurrent reader that sees the last word also sees everything before
 * it, and one that sees any byte of a later overwrite also sees that
 * overwrite's first word (the Append reader's seqlock depends on both).
 */
/* @n bytes whose order among themselves does not matter; the sizes of
 * Key-Write slots and Postcarding chunks (up to 32 bytes) as a couple of
 * fixed-size moves instead of a library call. */
static inline void copy_any(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	if (n >= 8 && n <= 16) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n > 16 && n <= 32) {
		memcpy(dst, src, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n >= 4 && n < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else {
		memcpy(dst, src, n);
	}
}

static inline void memop_write(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len <= 8) {
		copy_any(dst, src, len);
		atomic_thread_fence(memory_order_release);
		return;
	}
	memcpy(dst, src, 8);
	atomic_thread_fence(memory_order_release);
	if (len > 16) {
		copy_any(dst + 8, src + 8, len - 16);
		atomic_thread_fence(memory_order_release);
		memcpy(dst + len - 8, src + len - 8, 8);
	} else {
		copy_any(dst + 8, src + 8, len - 8);
	}
	atomic_thread_fence(memory_order_release);
}

DTA_API int dta_memops_apply(void *area, uint64_t size,
			     const struct dta_memop *ops, size_t n)
{
	uint8_t *base = area;
	int err;

	if (!area || (n && !ops))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		err = memop_check(&ops[i], size);
		if (err)
			return err;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dta_memop *op = &ops[i];

		if (op->kind == DTA_MEMOP_WRITE)
			memop_write(base + op->offset, op->data, op->len);
		else
			__atomic_fetch_add((uint64_t *)(void *)(base + op->offset),
					   op->add, __ATOMIC_RELAXED);
	}
	return (int)n;
}
