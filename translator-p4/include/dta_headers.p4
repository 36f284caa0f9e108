/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DTA report headers (docs/wire-format.md), for P4 programs that emit DTA
 * reports (the reporter controls in dta_reporter.p4) and for the
 * translator that parses them. These must stay field for field the C
 * structures of lib/include/dta/wire.h: translator-p4/tests/check_headers.py
 * (ctest p4_headers_match_c) fails when they differ.
 */
#ifndef DTA_HEADERS_P4
#define DTA_HEADERS_P4

#define DTA_UDP_PORT 40040
#define DTA_V1_MAGIC 0xD1
#define DTA_OP_KEY_WRITE 1
#define DTA_OP_APPEND 2
#define DTA_OP_KEY_INCREMENT 3
#define DTA_OP_POSTCARD 4
#define DTA_FLAG_IMMEDIATE 0x01
#define DTA_FLAG_ACK_REQUEST 0x02

/* v1 base header, 12 bytes (struct dta_wire_base) */
header dta_base_h {
    bit<8>  version;
    bit<8>  opcode;
    bit<8>  flags;
    bit<8>  reserved;
    bit<16> length;
    bit<16> reporter;
    bit<32> seq;
}

/* v1 Key-Write sub-header (struct dta_wire_kw); key and data follow */
header dta_kw_h {
    bit<8>  redundancy;
    bit<8>  key_len;
    bit<16> data_len;
}

/* v1 Postcarding sub-header (struct dta_wire_pc); the key follows */
header dta_pc_h {
    bit<8>  hop;
    bit<8>  path_len;
    bit<8>  key_len;
    bit<8>  reserved;
    bit<32> value;
}

/* v1 Append sub-header (struct dta_wire_ap); the data follows */
header dta_ap_h {
    bit<32> list_id;
    bit<16> data_len;
    bit<16> reserved;
}

/* v1 Key-Increment sub-header (struct dta_wire_ki); the key follows */
header dta_ki_h {
    bit<8>  redundancy;
    bit<8>  key_len;
    bit<16> reserved;
    bit<64> counter;
}

/* Research-prototype reports (docs/wire-format.md, "Legacy") */
header dta_legacy_base_h {        /* struct dta_wire_legacy_base */
    bit<8>  opcode;
    bit<8>  flags;
}

header dta_legacy_nack_base_h {   /* struct dta_wire_legacy_nack_base */
    bit<8>  opcode;
    bit<8>  seq;
    bit<8>  flags;
}

header dta_legacy_kw_h {          /* struct dta_wire_legacy_kw */
    bit<8>  redundancy;
    bit<32> key;
    bit<32> data;
}

header dta_legacy_ki_h {          /* struct dta_wire_legacy_ki */
    bit<8>  redundancy;
    bit<32> key;
    bit<64> counter;
}

header dta_legacy_ap_h {          /* struct dta_wire_legacy_ap */
    bit<32> list_id;
    bit<32> data;
}

header dta_legacy_pc_h {          /* struct dta_wire_legacy_pc */
    bit<32> key;
    bit<8>  hop;
    bit<32> data;
}

/* Keys and data of the sizes the P4 programs handle (the C side takes any
 * length up to 64 / 1024 bytes). */
header dta_key4_h  { bit<32>  key; }
header dta_key13_h { bit<104> key; }   /* IPv4 5-tuple */
header dta_data4_h { bit<32>  data; }
header dta_data20_h { bit<160> data; } /* 5-hop INT path */

#endif
