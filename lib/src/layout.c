/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Layout descriptors: construction, validation and the serialised form
 * stored in region headers (docs/layouts.md, "Layout descriptor").
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "dta/hash.h"
#include "dta/layout.h"
#include "dta/wire.h"
#include "internal.h"

#define LAYOUT_MAGIC "DTALAYT1"
#define LAYOUT_VERSION 1
#define LAYOUT_FN_OFF 104
#define LAYOUT_FN_SIZE 24
#define LAYOUT_CRC_OFF (DTA_LAYOUT_WIRE_SIZE - 4)

static_assert(LAYOUT_FN_OFF + DTA_HF_COUNT * LAYOUT_FN_SIZE <= LAYOUT_CRC_OFF,
	      "layout descriptor too small for its functions");

static uint64_t next_pow2_u32(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* The prototype bounds slot indices with a mask table of 2..2^31. */
static bool proto_slots_ok(uint64_t n)
{
	return n >= 2 && n <= (1ull << 31) && (n & (n - 1)) == 0;
}

/* Derived sizes; also the geometry check used by decode. */
static int layout_geometry(struct dta_layout *l)
{
	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE: {
		unsigned c = l->g.kw.csum_bytes;

		if (l->g.kw.slots == 0 || l->g.kw.data_len == 0 ||
		    l->g.kw.data_len > DTA_DATA_MAX ||
		    !(c == 1 || c == 2 || c == 4 || c == 8) ||
		    l->g.kw.max_redundancy == 0 ||
		    l->g.kw.max_redundancy > DTA_MAX_REDUNDANCY)
			return -EINVAL;
		if (c == 8 && l->hash_family != DTA_HASH_XXH3)
			return -EINVAL; /* 32-bit CRCs cannot fill 8 bytes */
		if (l->hash_family != DTA_HASH_XXH3 &&
		    l->g.kw.slots > (1ull << 32))
			return -EINVAL;
		if (l->hash_family == DTA_HASH_PROTOTYPE &&
		    (c != 4 || !proto_slots_ok(l->g.kw.slots)))
			return -EINVAL;
		l->g.kw.slot_size = c + l->g.kw.data_len;
		if (l->g.kw.slots > UINT64_MAX / l->g.kw.slot_size)
			return -EINVAL;
		l->data_size = l->g.kw.slots * l->g.kw.slot_size;
		return 0;
	}
	case DTA_PRIM_POSTCARD: {
		unsigned b = l->g.pc.slot_bytes;

		if (l->g.pc.chunks == 0 || l->g.pc.hops == 0 ||
		    l->g.pc.hops > DTA_MAX_HOPS ||
		    !(b == 1 || b == 2 || b == 4) || l->g.pc.redundancy == 0 ||
		    l->g.pc.redundancy > DTA_MAX_REDUNDANCY)
			return -EINVAL;
		if (l->hash_family != DTA_HASH_XXH3 &&
		    l->g.pc.chunks > (1ull << 32))
			return -EINVAL;
		if (l->hash_family == DTA_HASH_PROTOTYPE &&
		    (b != 4 || l->g.pc.hops > DTA_PROTOTYPE_HOPS ||
		     l->g.pc.redundancy != 1 || !proto_slots_ok(l->g.pc.chunks)))
			return -EINVAL;
		l->g.pc.chunk_size =
			(uint32_t)next_pow2_u32((uint64_t)l->g.pc.hops * b);
		if (l->g.pc.chunks > UINT64_MAX / l->g.pc.chunk_size)
			return -EINVAL;
		l->data_size = l->g.pc.chunks * l->g.pc.chunk_size;
		return 0;
	}
	case DTA_PRIM_APPEND: {
		uint64_t frame;

		if (l->g.ap.lists == 0 || l->g.ap.ring_batches < 2 ||
		    l->g.ap.batch_entries == 0 ||
		    l->g.ap.batch_entries > 1024 || l->g.ap.entry_size == 0 ||
		    l->g.ap.entry_size > DTA_DATA_MAX ||
		    (l->g.ap.flags & ~DTA_AP_SEPARATE_TRAILER))
			return -EINVAL;
		frame = DTA_AP_FRAME_OVERHEAD +
			(uint64_t)l->g.ap.batch_entries * l->g.ap.entry_size;
		frame = (frame + 7) & ~7ull;
		l->g.ap.frame_size = (uint32_t)frame;
		if ((uint64_t)l->g.ap.lists * l->g.ap.ring_batches >
		    UINT64_MAX / frame)
			return -EINVAL;
		l->data_size = (uint64_t)l->g.ap.lists * l->g.ap.ring_batches *
			       frame;
		return 0;
	}
	case DTA_PRIM_KEY_INCREMENT:
		/* The prototype's Key-Increment never produced valid RDMA
		 * (docs/layouts.md): there is nothing to be compatible with. */
		if (l->hash_family == DTA_HASH_PROTOTYPE)
			return -EINVAL;
		if (l->g.ki.width == 0 || l->g.ki.rows == 0 ||
		    l->g.ki.rows > DTA_MAX_REDUNDANCY ||
		    (l->g.ki.banks != 1 && l->g.ki.banks != 2))
			return -EINVAL;
		if (l->hash_family != DTA_HASH_XXH3 &&
		    l->g.ki.width > (1ull << 32))
			return -EINVAL;
		if (l->g.ki.width > UINT64_MAX / 8 / 16)
			return -EINVAL;
		l->data_size = l->g.ki.width * 8 * l->g.ki.rows * l->g.ki.banks;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Roles a primitive uses, as a bit mask over DTA_HF_*. */
static uint32_t layout_roles(const struct dta_layout *l)
{
	uint32_t slots;

	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		/* All copies, so a query may assume a larger N than writers. */
		slots = (1u << DTA_MAX_REDUNDANCY) - 1;
		return slots | 1u << DTA_HF_CHECKSUM;
	case DTA_PRIM_POSTCARD:
		slots = (1u << DTA_MAX_REDUNDANCY) - 1;
		if (l->hash_family == DTA_HASH_PROTOTYPE) /* values unencoded */
			return slots |
			       ((1u << l->g.pc.hops) - 1) << DTA_HF_HOP(0);
		return slots | 1u << DTA_HF_VALUE |
		       ((1u << l->g.pc.hops) - 1) << DTA_HF_HOP(0);
	case DTA_PRIM_KEY_INCREMENT:
		return (1u << l->g.ki.rows) - 1;
	default:
		return 0;
	}
}

static int layout_finish(struct dta_layout *l, int family, uint64_t seed)
{
	uint32_t roles;
	int err;

	l->hash_family = (uint8_t)family;
	l->hash_seed = seed;
	if (!dta_hash_family_name(family))
		return -DTA_E_HASHFAMILY;
	err = layout_geometry(l);
	if (err)
		return err;
	roles = layout_roles(l);
	for (unsigned r = 0; r < DTA_HF_COUNT; r++) {
		if (!(roles & (1u << r)))
			continue;
		err = dta_hash_family_fn(family, seed, r, &l->fn[r]);
		if (err)
			return err;
	}
	return 0;
}

DTA_API int dta_layout_kw(struct dta_layout *l, uint64_t slots,
			  unsigned data_len, unsigned csum_bytes,
			  unsigned max_redundancy, int family, uint64_t seed)
{
	if (!l)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	if (data_len > DTA_DATA_MAX || csum_bytes > 8 ||
	    max_redundancy > DTA_MAX_REDUNDANCY)
		return -EINVAL;
	l->primitive = DTA_PRIM_KEY_WRITE;
	l->g.kw.slots = slots;
	l->g.kw.data_len = (uint16_t)data_len;
	l->g.kw.csum_bytes = (uint8_t)csum_bytes;
	l->g.kw.max_redundancy = (uint8_t)max_redundancy;
	return layout_finish(l, family, seed);
}

DTA_API int dta_layout_pc(struct dta_layout *l, uint64_t chunks,
			  unsigned hops, unsigned slot_bytes,
			  unsigned redundancy, int family, uint64_t seed)
{
	if (!l)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	if (hops > DTA_MAX_HOPS || slot_bytes > 4 ||
	    redundancy > DTA_MAX_REDUNDANCY)
		return -EINVAL;
	l->primitive = DTA_PRIM_POSTCARD;
	l->g.pc.chunks = chunks;
	l->g.pc.hops = (uint8_t)hops;
	l->g.pc.slot_bytes = (uint8_t)slot_bytes;
	l->g.pc.redundancy = (uint8_t)redundancy;
	return layout_finish(l, family, seed);
}

DTA_API int dta_layout_ap(struct dta_layout *l, uint32_t lists,
			  uint32_t ring_batches, unsigned batch_entries,
			  unsigned entry_size, unsigned flags)
{
	if (!l)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	if (batch_entries > 1024 || entry_size > DTA_DATA_MAX || flags > 0xff)
		return -EINVAL;
	l->primitive = DTA_PRIM_APPEND;
	l->g.ap.lists = lists;
	l->g.ap.ring_batches = ring_batches;
	l->g.ap.batch_entries = (uint16_t)batch_entries;
	l->g.ap.entry_size = (uint16_t)entry_size;
	l->g.ap.flags = (uint8_t)flags;
	return layout_finish(l, DTA_HASH_CRC32C, 0);
}

DTA_API int dta_layout_ki(struct dta_layout *l, uint64_t width,
			  unsigned rows, unsigned banks, int family,
			  uint64_t seed)
{
	if (!l)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	if (rows > DTA_MAX_REDUNDANCY || banks > 2)
		return -EINVAL;
	l->primitive = DTA_PRIM_KEY_INCREMENT;
	l->g.ki.width = width;
	l->g.ki.rows = (uint8_t)rows;
	l->g.ki.banks = (uint8_t)banks;
	return layout_finish(l, family, seed);
}

DTA_API int dta_layout_encode(const struct dta_layout *l, void *buf,
			      size_t cap)
{
	uint8_t *p = buf;

	if (!l || !buf)
		return -EINVAL;
	if (cap < DTA_LAYOUT_WIRE_SIZE)
		return -ENOSPC;
	memset(p, 0, DTA_LAYOUT_WIRE_SIZE);
	memcpy(p, LAYOUT_MAGIC, 8);
	dta__put_le(p + 8, LAYOUT_VERSION, 2);
	p[10] = l->primitive;
	p[11] = l->hash_family;
	dta__put_le(p + 16, l->hash_seed, 8);
	dta__put_le(p + 24, l->data_size, 8);
	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		dta__put_le(p + 32, l->g.kw.slots, 8);
		dta__put_le(p + 40, l->g.kw.slot_size, 4);
		dta__put_le(p + 44, l->g.kw.data_len, 2);
		p[46] = l->g.kw.csum_bytes;
		p[47] = l->g.kw.max_redundancy;
		break;
	case DTA_PRIM_POSTCARD:
		dta__put_le(p + 32, l->g.pc.chunks, 8);
		dta__put_le(p + 40, l->g.pc.chunk_size, 4);
		p[44] = l->g.pc.hops;
		p[45] = l->g.pc.slot_bytes;
		p[46] = l->g.pc.redundancy;
		break;
	case DTA_PRIM_APPEND:
		dta__put_le(p + 32, l->g.ap.lists, 4);
		dta__put_le(p + 36, l->g.ap.ring_batches, 4);
		dta__put_le(p + 40, l->g.ap.frame_size, 4);
		dta__put_le(p + 44, l->g.ap.batch_entries, 2);
		dta__put_le(p + 46, l->g.ap.entry_size, 2);
		p[48] = l->g.ap.flags;
		break;
	case DTA_PRIM_KEY_INCREMENT:
		dta__put_le(p + 32, l->g.ki.width, 8);
		p[40] = l->g.ki.rows;
		p[41] = l->g.ki.banks;
		break;
	default:
		return -EINVAL;
	}
	p[96] = DTA_HF_COUNT;
	for (unsigned r = 0; r < DTA_HF_COUNT; r++) {
		uint8_t *f = p + LAYOUT_FN_OFF + r * LAYOUT_FN_SIZE;

		f[0] = l->fn[r].kind;
		dta__put_le(f + 4, l->fn[r].poly, 4);
		dta__put_le(f + 8, l->fn[r].init, 4);
		dta__put_le(f + 12, l->fn[r].xorout, 4);
		dta__put_le(f + 16, l->fn[r].seed, 8);
	}
	dta__put_le(p + LAYOUT_CRC_OFF, dta_crc32c(0, p, LAYOUT_CRC_OFF), 4);
	return DTA_LAYOUT_WIRE_SIZE;
}

DTA_API int dta_layout_decode(const void *buf, size_t len,
			      struct dta_layout *l)
{
	const uint8_t *p = buf;
	struct dta_layout t;
	uint64_t data_size;
	uint32_t roles;
	int err;

	if (!buf || !l)
		return -EINVAL;
	if (len < DTA_LAYOUT_WIRE_SIZE)
		return -DTA_E_TRUNCATED;
	if (memcmp(p, LAYOUT_MAGIC, 8) != 0)
		return -DTA_E_BADREGION;
	if (dta__get_le(p + LAYOUT_CRC_OFF, 4) !=
	    dta_crc32c(0, p, LAYOUT_CRC_OFF))
		return -DTA_E_BADREGION;
	if (dta__get_le(p + 8, 2) != LAYOUT_VERSION)
		return -DTA_E_REGIONVERSION;
	memset(&t, 0, sizeof(t));
	t.primitive = p[10];
	t.hash_family = p[11];
	t.hash_seed = dta__get_le(p + 16, 8);
	data_size = dta__get_le(p + 24, 8);
	switch (t.primitive) {
	case DTA_PRIM_KEY_WRITE:
		t.g.kw.slots = dta__get_le(p + 32, 8);
		t.g.kw.data_len = (uint16_t)dta__get_le(p + 44, 2);
		t.g.kw.csum_bytes = p[46];
		t.g.kw.max_redundancy = p[47];
		break;
	case DTA_PRIM_POSTCARD:
		t.g.pc.chunks = dta__get_le(p + 32, 8);
		t.g.pc.hops = p[44];
		t.g.pc.slot_bytes = p[45];
		t.g.pc.redundancy = p[46];
		break;
	case DTA_PRIM_APPEND:
		t.g.ap.lists = (uint32_t)dta__get_le(p + 32, 4);
		t.g.ap.ring_batches = (uint32_t)dta__get_le(p + 36, 4);
		t.g.ap.batch_entries = (uint16_t)dta__get_le(p + 44, 2);
		t.g.ap.entry_size = (uint16_t)dta__get_le(p + 46, 2);
		t.g.ap.flags = p[48];
		break;
	case DTA_PRIM_KEY_INCREMENT:
		t.g.ki.width = dta__get_le(p + 32, 8);
		t.g.ki.rows = p[40];
		t.g.ki.banks = p[41];
		break;
	default:
		return -DTA_E_BADREGION;
	}
	/* Recompute derived sizes; a header disagreeing with itself is bad. */
	if (layout_geometry(&t) != 0 || t.data_size != data_size)
		return -DTA_E_BADREGION;
	if (p[96] != DTA_HF_COUNT)
		return -DTA_E_BADREGION;
	roles = layout_roles(&t);
	for (unsigned r = 0; r < DTA_HF_COUNT; r++) {
		const uint8_t *f = p + LAYOUT_FN_OFF + r * LAYOUT_FN_SIZE;

		t.fn[r].kind = f[0];
		t.fn[r].poly = (uint32_t)dta__get_le(f + 4, 4);
		t.fn[r].init = (uint32_t)dta__get_le(f + 8, 4);
		t.fn[r].xorout = (uint32_t)dta__get_le(f + 12, 4);
		t.fn[r].seed = dta__get_le(f + 16, 8);
		if (t.fn[r].kind == DTA_HASHFN_NONE) {
			if (roles & (1u << r))
				return -DTA_E_BADREGION;
			continue;
		}
		err = dta_hashfn_prepare(&t.fn[r]);
		if (err == -EINVAL)
			return -DTA_E_BADREGION;
		if (err)
			return err;
	}
	*l = t;
	return 0;
}

static const char *const prim_names[] = {
	[DTA_PRIM_KEY_WRITE] = "key-write",
	[DTA_PRIM_APPEND] = "append",
	[DTA_PRIM_KEY_INCREMENT] = "key-increment",
	[DTA_PRIM_POSTCARD] = "postcard",
};
static const char *const prim_short[] = {
	[DTA_PRIM_KEY_WRITE] = "kw",
	[DTA_PRIM_APPEND] = "ap",
	[DTA_PRIM_KEY_INCREMENT] = "ki",
	[DTA_PRIM_POSTCARD] = "pc",
};

DTA_API const char *dta_primitive_name(int primitive)
{
	if (primitive < DTA_PRIM_KEY_WRITE || primitive > DTA_PRIM_POSTCARD)
		return NULL;
	return prim_names[primitive];
}

DTA_API int dta_primitive_parse(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int p = DTA_PRIM_KEY_WRITE; p <= DTA_PRIM_POSTCARD; p++)
		if (!strcasecmp(name, prim_names[p]) ||
		    !strcasecmp(name, prim_short[p]))
			return p;
	if (!strcasecmp(name, "postcarding"))
		return DTA_PRIM_POSTCARD;
	return -EINVAL;
}
