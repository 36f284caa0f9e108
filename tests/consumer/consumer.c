/* A tool linking the installed libdta: encode a report, decode it, store
 * it, query it back. Exit 0 on success. */
#include <stdio.h>
#include <string.h>

#include <dta/dta.h>

int main(void)
{
	const char key[] = "10.0.0.1,10.0.0.2";
	const unsigned char path[4] = { 0, 0, 0, 42 };
	unsigned char buf[128], area[64 * 8], slot[16], out[4];
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE };
	struct dta_report d;
	struct dta_layout l;
	struct dta_memop ops[8];
	struct dta_kw_result res;
	int len, n;

	r.u.kw.redundancy = 2;
	r.u.kw.key_len = sizeof(key) - 1;
	r.u.kw.key = (const unsigned char *)key;
	r.u.kw.data_len = 4;
	r.u.kw.data = path;
	len = dta_wire_encode(&r, buf, sizeof(buf));
	if (len < 0 || dta_wire_decode(buf, (size_t)len, &d, 1, 0) != 1)
		return 1;
	if (dta_layout_kw(&l, 64, 4, 4, 2, DTA_HASH_CRC32C, 0))
		return 2;
	memset(area, 0, sizeof(area));
	n = dta_kw_ops(&l, d.u.kw.key, d.u.kw.key_len, d.u.kw.data,
		       d.u.kw.data_len, d.u.kw.redundancy, slot, sizeof(slot),
		       ops, 8);
	if (n != 2 || dta_memops_apply(area, l.data_size, ops, 2) != 2)
		return 3;
	if (dta_kw_query(&l, area, key, sizeof(key) - 1, NULL, out, 4, &res) ||
	    res.status != DTA_Q_FOUND || memcmp(out, path, 4))
		return 4;
	printf("consumer ok: %s\n", dta_strerror(0));
	return 0;
}
