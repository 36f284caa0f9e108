/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DTA translator for Tofino-1 (TNA): the v1model program
 * (../v1model/dta_translator.p4) rebuilt for a pipeline where every
 * register lives in one stage, is touched once per packet by a stateful
 * ALU, and nothing multiplies or takes a modulo. Same reports in (UDP
 * 40040, v1; legacy with -DTNA_LEGACY), same RoCEv2 frames out, same collector
 * description; README.md ("Tofino") lists where it differs and what it
 * costs. Status: with batches of 4 (the default) the p4c Tofino back end
 * places it in Tofino-1's 12 stages and its assembler accepts it
 * (tests/run_tna.sh); it has not run on a Tofino.
 *
 * Ingress: parse, pick the structure, Key-Write checksum, the Postcarding
 * cache (values cached as their codes) and the Append batches (stateful),
 * then replicate N copies (multicast group N, replica id = copy). What
 * egress needs rides in a bridged header and in the headers ingress
 * builds (key, chunk values, Append frame).
 * Egress: per copy, slot hash, queue pair PSN and IPv4 id (stateful), the
 * RoCEv2 headers, the address, and the ICRC: the ICRC of the frame with a
 * zero address, XOR the address's own part, so that the long hash need
 * not wait for the address (README.md, "ICRC").
 *
 * CRC roles are compile-time on Tofino (a CRCPolynomial is a constructor
 * argument): DTA_ROLE<r>_POLY / _INIT / _XOR below default to libdta's
 * CRC-32C family with seed 0; `dta_p4_control.py --tna-defines` prints
 * the -D options for a collector's own layout.
 */
#include <core.p4>
#include <tna.p4>

#include "../include/dta_headers.p4"

/* ---- compile-time geometry ---- */
#ifndef AP_BATCH
#define AP_BATCH 4           /* Append entries per frame: 2, 4, 8 or 16 */
#endif
#ifndef AP_MAX_LISTS
#define AP_MAX_LISTS 65536   /* Append lists: registers and ap_table entries
                              * (batches of 8 fit with 4096: README) */
#endif
#ifndef PC_CACHE_BITS
#define PC_CACHE_BITS 15     /* 2^15 Postcarding cache entries (paper: 32K) */
#endif
#define PC_CACHE (1 << PC_CACHE_BITS)
typedef bit<PC_CACHE_BITS> PCI_T;  /* a cache entry's index */
#define PC_HOPS 5
#define PC_CHUNK 32
#define MAX_QPS 64

#if AP_BATCH == 2
#define AP_FRAME 24
#elif AP_BATCH == 4
#define AP_FRAME 32
#elif AP_BATCH == 8
#define AP_FRAME 48
#elif AP_BATCH == 16
#define AP_FRAME 80
#else
#error "AP_BATCH must be 2, 4, 8 or 16"
#endif

/* ---- CRC roles (docs/hashing.md) ----
 * Role r is a reflected CRC-32 with polynomial DTA_ROLE<r>_POLY, initial
 * value DTA_ROLE<r>_INIT and final XOR DTA_ROLE<r>_XOR. A role not given
 * with -D keeps libdta's crc32c family with seed 0;
 * `dta_p4_control.py --tna-defines` prints the -D options of the roles a
 * collector's structures use. */
#ifndef DTA_ROLE0_POLY
#define DTA_ROLE0_POLY 0x1EDC6F41
#define DTA_ROLE0_INIT 0xFFFFFFFF
#define DTA_ROLE0_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE1_POLY
#define DTA_ROLE1_POLY 0x04C11DB7
#define DTA_ROLE1_INIT 0xFFFFFFFF
#define DTA_ROLE1_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE2_POLY
#define DTA_ROLE2_POLY 0x000000AF
#define DTA_ROLE2_INIT 0xFFFFFFFF
#define DTA_ROLE2_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE3_POLY
#define DTA_ROLE3_POLY 0xA833982B
#define DTA_ROLE3_INIT 0xFFFFFFFF
#define DTA_ROLE3_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE8_POLY
#define DTA_ROLE8_POLY 0x89AB9B23
#define DTA_ROLE8_INIT 0xFFFFFFFF
#define DTA_ROLE8_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE9_POLY
#define DTA_ROLE9_POLY 0xA317BB7D
#define DTA_ROLE9_INIT 0xFFFFFFFF
#define DTA_ROLE9_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE10_POLY
#define DTA_ROLE10_POLY 0x23FB41C5
#define DTA_ROLE10_INIT 0xFFFFFFFF
#define DTA_ROLE10_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE11_POLY
#define DTA_ROLE11_POLY 0x5B6C08D1
#define DTA_ROLE11_INIT 0xFFFFFFFF
#define DTA_ROLE11_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE12_POLY
#define DTA_ROLE12_POLY 0xD03A28EF
#define DTA_ROLE12_INIT 0xFFFFFFFF
#define DTA_ROLE12_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE13_POLY
#define DTA_ROLE13_POLY 0xA5944F99
#define DTA_ROLE13_INIT 0xFFFFFFFF
#define DTA_ROLE13_XOR 0xFFFFFFFF
#endif
#ifndef DTA_ROLE14_POLY
#define DTA_ROLE14_POLY 0xFFD21C15
#define DTA_ROLE14_INIT 0xFFFFFFFF
#define DTA_ROLE14_XOR 0xFFFFFFFF
#endif
#define ROLE(r) CRCPolynomial<bit<32>>(DTA_ROLE##r##_POLY, true, false, \
    false, DTA_ROLE##r##_INIT, DTA_ROLE##r##_XOR)
/* The value code of "no value" (past the path): role 9 over no bytes. */
#define DTA_BLANK (DTA_ROLE9_INIT ^ DTA_ROLE9_XOR)

#define ROCE_UDP_PORT 4791
#define CTRL_UDP_PORT 40041
#define CTRL_FLUSH_APPEND 1
#define CTRL_FLUSH_POSTCARD 2
#define OP_WRITE_ONLY 0x0A
#define OP_ACK 0x11
#define OP_ATOMIC_ACK 0x12
#define OP_FETCH_ADD 0x14
#define AP_TRAILER_MAGIC 0xDA7A

/* What a packet is, in the bridged header */
#define K_NONE 0
#define K_KW 1
#define K_AP 2
#define K_KI 3
#define K_PC 4
#define K_NAK 9

header ethernet_h {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> id;
    bit<3>  flags;
    bit<13> frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> csum;
    bit<32> src;
    bit<32> dst;
}

header udp_h {
    bit<16> sport;
    bit<16> dport;
    bit<16> len;
    bit<16> csum;
}

header bth_h {
    bit<8>  opcode;
    bit<1>  se;
    bit<1>  migreq;
    bit<2>  pad;
    bit<4>  tver;
    bit<16> pkey;
    bit<8>  resv8a;
    bit<24> dqpn;
    bit<1>  ackreq;
    bit<7>  resv7;
    bit<24> psn;
}

header reth_h {
    bit<64> va;
    bit<32> rkey;
    bit<32> len;
}

header atomiceth_h {
    bit<64> va;
    bit<32> rkey;
    bit<64> add;
    bit<64> cmp;
}

header aeth_h {
    bit<8>  syndrome;
    bit<24> msn;
}

header ctrl_h {
    bit<8>  kind;
    bit<8>  reserved;
    bit<16> reserved2;
    bit<32> index;
}

header slot_csum_h { bit<32> csum; }

/* The chunk's flow, written from the cache's 32-bit words (13 or 4
 * bytes: egress reads it as the key), and its values. */
header pc_key13_h {
    bit<32> w0;
    bit<32> w1;
    bit<32> w2;
    bit<8>  w3;
}
header pc_key4_h {
    bit<24> w2;
    bit<8>  w3;
}

header pc_vals_h {
    bit<32> v0;
    bit<32> v1;
    bit<32> v2;
    bit<32> v3;
    bit<32> v4;
}

header pc_chunk_h {
    bit<32> s0;
    bit<32> s1;
    bit<32> s2;
    bit<32> s3;
    bit<32> s4;
    bit<96> pad;
}

/* An Append frame (docs/layouts.md): sequence, first entry index, the
 * entries, padding to 8 bytes, trailer. */
header ap_head_h {
    bit<32> seq;
    bit<32> first;
}
header ap_e_h { bit<32> e; }
header ap_tail_h {
    bit<32> tseq;
    bit<16> count;
    bit<16> magic;
}
header icrc_h {
    bit<8> b0;
    bit<8> b1;
    bit<8> b2;
    bit<8> b3;
}

/* Ingress to egress: what egress needs beyond the headers. */
header bridge_h {
    bit<8>  kind;
    bit<8>  qp;
    bit<1>  legacy;      /* the key is 4 bytes (key4) */
    bit<1>  data20;
    bit<1>  raw;         /* Postcarding, prototype family: values unencoded */
    bit<5>  pad;
    bit<8>  pc_len;      /* hops in the chunk's path prefix */
    bit<32> rkey;
    bit<64> base;        /* structure (or Append list ring) address */
    bit<32> mask;        /* slots (or counters) - 1 */
}

struct ig_headers_t {
    bridge_h   bridge;
    ethernet_h ethernet;
    ipv4_h     ipv4;
    udp_h      udp;
    bth_h      bth;      /* a reply coming back */
    aeth_h     aeth;
    dta_base_h base;
    dta_kw_h   kw;
    dta_ki_h   ki;
    dta_ap_h   ap;
    dta_pc_h   pc;
    ctrl_h     ctrl;
    dta_legacy_base_h      lbase;
    dta_legacy_nack_base_h lnbase;
    dta_legacy_kw_h lkw;
    dta_legacy_ki_h lki;
    dta_legacy_ap_h lap;
    dta_legacy_pc_h lpc;
    /* For egress */
    dta_key13_h  key13;
    dta_key4_h   key4;
    pc_key13_h   pc_key13;
    pc_key4_h    pc_key4;
    dta_data4_h  data4;
    dta_data20_h data20;
    slot_csum_h  slot_csum;
    dta_ki_h     kiv;     /* the counter to add */
    pc_vals_h    pc_vals;
    ap_head_h    ap_head;
    ap_e_h       e0;
    ap_e_h       e1;
#if AP_BATCH > 2
    ap_e_h e2;
    ap_e_h e3;
#endif
#if AP_BATCH > 4
    ap_e_h e4;
    ap_e_h e5;
    ap_e_h e6;
    ap_e_h e7;
#endif
#if AP_BATCH > 8
    ap_e_h e8;
    ap_e_h e9;
    ap_e_h e10;
    ap_e_h e11;
    ap_e_h e12;
    ap_e_h e13;
    ap_e_h e14;
    ap_e_h e15;
#endif
    ap_tail_h ap_tail;
}

struct ig_meta_t {
    bit<8>  kind;
    bit<1>  flush;
    bit<3>  outcome;     /* index of the reports counter */
    bit<8>  n;
    bit<32> list;        /* Append list (register index) */
    bit<32> entry;
    bit<32> slot;        /* Append: entries already in the batch */
    bit<32> now;         /* ingress time, ns (wraps after 4.29 s) */
    bit<32> ap_deadline; /* now - the Append timeout */
    bit<32> deadline;    /* now - the Postcarding timeout */
    bit<32> t;           /* now, or a flush's deadline */
    /* Postcarding */
    bit<1>  pc_ok;       /* a well-formed postcard, or a flush */
    bit<8>  hop;
    bit<8>  plen;
    bit<32> plen_m1;
    bit<32> val;
    PCI_T   idx;
    bit<32> n0;          /* this postcard's key: 3 x 32 bits, bits 7:0 */
    bit<32> n1;          /* and the legacy flag (bit 8) */
    bit<32> n2;
    bit<32> n3;
    bit<32> k0;          /* the entry's key before this postcard */
    bit<32> k1;
    bit<32> k2;
    bit<32> k3;
    bit<32> a0;          /* the entry's value codes before it */
    bit<32> a1;
    bit<32> a2;
    bit<32> a3;
    bit<32> a4;
    bit<1>  match;
    bit<1>  eq0;         /* key words equal to the entry's */
    bit<1>  eq1;
    bit<1>  eq2;
    bit<1>  eq3;
    bit<32> remain;      /* hops the entry still needed */
    bit<16> seen;        /* old hop bits (7:0) and path length (15:8) */
    bit<16> fresh;       /* a new entry's: this hop, this path length */
    bit<16> hopbit16;
    bit<8>  prefix;
}

struct eg_headers_t {
    bridge_h   bridge;
    ethernet_h ethernet;
    ipv4_h     ipv4;
    udp_h      udp;
    bth_h      bth;
    reth_h     reth;
    atomiceth_h atomiceth;
    dta_key13_h  key13;
    dta_key4_h   key4;
    slot_csum_h  slot_csum;
    dta_data4_h  data4;
    dta_data20_h data20;
    dta_ki_h     kiv;
    pc_vals_h    pc_vals;
    pc_chunk_h   pc_chunk;
    ap_head_h    ap_head;
    ap_e_h       e0;
    ap_e_h       e1;
#if AP_BATCH > 2
    ap_e_h e2;
    ap_e_h e3;
#endif
#if AP_BATCH > 4
    ap_e_h e4;
    ap_e_h e5;
    ap_e_h e6;
    ap_e_h e7;
#endif
#if AP_BATCH > 8
    ap_e_h e8;
    ap_e_h e9;
    ap_e_h e10;
    ap_e_h e11;
    ap_e_h e12;
    ap_e_h e13;
    ap_e_h e14;
    ap_e_h e15;
#endif
    ap_tail_h ap_tail;
    icrc_h    icrc;
}

struct eg_meta_t {
    bit<32> index;       /* slot, counter, chunk or frame index */
    bit<64> off;         /* its offset: index << a ... */
    bit<64> off2;        /* ... (+ index << b) */
    bit<32> icrc;        /* the ICRC of the frame with its address zero */
    bit<32> icrc_va;     /* L(address ++ zeros): the ICRC is their XOR */
    bit<32> icrc_t;      /* a 16-entry Append frame's last 40 bytes */
}

/* ======================= ingress ======================= */

parser DtaIngressParser(packet_in pkt, out ig_headers_t hdr,
                        out ig_meta_t meta,
                        out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        meta.kind = K_NONE;
        meta.flush = 0;
        meta.outcome = 4;
        meta.pc_ok = 0;
        meta.match = 0;
        meta.eq0 = 0;
        meta.eq1 = 0;
        meta.eq2 = 0;
        meta.eq3 = 0;
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, 17): parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dport) {
            DTA_UDP_PORT: parse_dta;
            ROCE_UDP_PORT: parse_bth;
            CTRL_UDP_PORT: parse_ctrl;
            default: accept;
        }
    }
    state parse_dta {
        transition select(pkt.lookahead<bit<8>>(), hdr.udp.len) {
            (DTA_V1_MAGIC, _): parse_v1;
#ifdef TNA_LEGACY
            (DTA_OP_KEY_WRITE, 8 + 2 + 9): parse_legacy_kw;
            (DTA_OP_KEY_WRITE, 8 + 3 + 9): parse_legacy_nack_kw;
            (DTA_OP_KEY_INCREMENT, 8 + 2 + 13): parse_legacy_ki;
            (DTA_OP_KEY_INCREMENT, 8 + 3 + 13): parse_legacy_nack_ki;
            (DTA_OP_APPEND, 8 + 2 + 8): parse_legacy_ap;
            (DTA_OP_APPEND, 8 + 3 + 8): parse_legacy_nack_ap;
            (DTA_OP_POSTCARD, 8 + 2 + 9): parse_legacy_pc;
            (DTA_OP_POSTCARD, 8 + 3 + 9): parse_legacy_nack_pc;
#endif
            default: accept;
        }
    }
    /* One report per datagram: the UDP length must be that of the one
     * report the opcode announces (of the sizes handled below). A switch
     * cannot walk several; a datagram of several is not handled (none of
     * it applied, counted in reports[4]) rather than cut after its
     * first report unseen. */
    state parse_v1 {
        pkt.extract(hdr.base);
        transition select(hdr.base.opcode, hdr.udp.len) {
            (DTA_OP_KEY_WRITE, 8 + 12 + 4 + 13 + 4): parse_kw;
            (DTA_OP_KEY_WRITE, 8 + 12 + 4 + 13 + 20): parse_kw;
            (DTA_OP_KEY_INCREMENT, 8 + 12 + 12 + 13): parse_ki;
            (DTA_OP_APPEND, 8 + 12 + 8 + 4): parse_ap;
            (DTA_OP_POSTCARD, 8 + 12 + 8 + 13): parse_pc;
            default: accept;
        }
    }
    state parse_kw {
        pkt.extract(hdr.kw);
        transition select(hdr.kw.key_len, hdr.kw.data_len) {
            (13, 4): parse_kw13_4;
            (13, 20): parse_kw13_20;
            default: accept;
        }
    }
    state parse_kw13_4 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.data4);
        meta.kind = K_KW;
        transition accept;
    }
    state parse_kw13_20 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.data20);
        meta.kind = K_KW;
        transition accept;
    }
    state parse_ki {
        pkt.extract(hdr.ki);
        transition select(hdr.ki.key_len) {
            13: parse_ki13;
            default: accept;
        }
    }
    state parse_ki13 {
        pkt.extract(hdr.key13);
        meta.kind = K_KI;
        transition accept;
    }
    state parse_ap {
        pkt.extract(hdr.ap);
        transition select(hdr.ap.data_len) {
            4: parse_ap4;
            default: accept;
        }
    }
    state parse_ap4 {
        pkt.extract(hdr.data4);
        meta.kind = K_AP;
        transition accept;
    }
    state parse_pc {
        pkt.extract(hdr.pc);
        transition select(hdr.pc.key_len) {
            13: parse_pc13;
            default: accept;
        }
    }
    state parse_pc13 {
        pkt.extract(hdr.key13);
        meta.kind = K_PC;
        transition accept;
    }
    state parse_legacy_kw {
        pkt.extract(hdr.lbase);
        transition legacy_kw;
    }
    state parse_legacy_nack_kw {
        pkt.extract(hdr.lnbase);
        transition legacy_kw;
    }
    state legacy_kw {
        pkt.extract(hdr.lkw);
        meta.kind = K_KW;
        transition accept;
    }
    state parse_legacy_ki {
        pkt.extract(hdr.lbase);
        transition legacy_ki;
    }
    state parse_legacy_nack_ki {
        pkt.extract(hdr.lnbase);
        transition legacy_ki;
    }
    state legacy_ki {
        pkt.extract(hdr.lki);
        meta.kind = K_KI;
        transition accept;
    }
    state parse_legacy_ap {
        pkt.extract(hdr.lbase);
        transition legacy_ap;
    }
    state parse_legacy_nack_ap {
        pkt.extract(hdr.lnbase);
        transition legacy_ap;
    }
    state legacy_ap {
        pkt.extract(hdr.lap);
        meta.kind = K_AP;
        transition accept;
    }
    state parse_legacy_pc {
        pkt.extract(hdr.lbase);
        transition legacy_pc;
    }
    state parse_legacy_nack_pc {
        pkt.extract(hdr.lnbase);
        transition legacy_pc;
    }
    state legacy_pc {
        pkt.extract(hdr.lpc);
        meta.kind = K_PC;
        transition accept;
    }
    state parse_ctrl {
        pkt.extract(hdr.ctrl);
        meta.flush = 1;
        transition select(hdr.ctrl.kind) {
            CTRL_FLUSH_APPEND: ctrl_ap;
            CTRL_FLUSH_POSTCARD: ctrl_pc;
            default: accept;
        }
    }
    /* A flush packet (60 bytes on the wire: 10 bytes of Ethernet
     * padding after its 50) becomes the frame: skip the padding, or the
     * deparser appends it after the frame's ICRC. */
    state ctrl_ap {
        meta.kind = K_AP;
        pkt.advance(80);
        transition accept;
    }
    state ctrl_pc {
        meta.kind = K_PC;
        pkt.advance(80);
        transition accept;
    }
    state parse_bth {
        pkt.extract(hdr.bth);
        transition select(hdr.bth.opcode) {
            OP_ACK: parse_aeth;
            OP_ATOMIC_ACK: parse_aeth;
            default: accept;
        }
    }
    state parse_aeth {
        pkt.extract(hdr.aeth);
        meta.kind = K_NAK;
        transition accept;
    }
}

/* One Append entry register: written when the batch has `i` entries,
 * read back by the entry that completes the batch (or a flush). */
#define AP_ENTRY(i) \
    Register<bit<32>, bit<32>>(AP_MAX_LISTS) ap_e##i; \
    RegisterAction<bit<32>, bit<32>, bit<32>>(ap_e##i) ap_e##i##_rw = { \
        void apply(inout bit<32> v, out bit<32> rv) { \
            rv = v; \
            if (meta.slot == i) { \
                v = meta.entry; \
            } \
        } \
    };
#define AP_ENTRY_APPLY(i) \
    hdr.e##i.e = ap_e##i##_rw.execute(meta.list); \
    hdr.e##i.setValid();

/* One postcard hop value register, holding the value's code g(v) (the
 * value itself for the prototype family): this postcard's hop writes it; every
 * postcard reads the old value (an evicted flow's, or the flow's own); a
 * flush (hop 255) only reads. */
#define PC_VALUE(i) \
    Register<bit<32>, PCI_T>(PC_CACHE) pc_v##i; \
    RegisterAction<bit<32>, PCI_T, bit<32>>(pc_v##i) pc_v##i##_rw = { \
        void apply(inout bit<32> v, out bit<32> rv) { \
            rv = v; \
            if (meta.hop == i) { \
                v = meta.val; \
            } \
        } \
    };

/* One word of a cached flow key: swapped in by every postcard, read (and
 * left) by a flush, through the same action: a register's actions must
 * share a stage, and one call site keeps the chain short. */
#define PC_KEY(i) \
    Register<bit<32>, PCI_T>(PC_CACHE) pc_k##i; \
    RegisterAction<bit<32>, PCI_T, bit<32>>(pc_k##i) pc_k##i##_swap = { \
        void apply(inout bit<32> v, out bit<32> rv) { \
            rv = v; \
            if (meta.flush == 0) { \
                v = meta.n##i; \
            } \
        } \
    };

struct pair_t {
    bit<32> lo;
    bit<32> hi;
}

control DtaIngress(inout ig_headers_t hdr, inout ig_meta_t meta,
                   in ingress_intrinsic_metadata_t ig_intr_md,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    /* Reports by outcome: 0 Key-Write, 1 Key-Increment, 2 no structure,
     * 3 bad N or hop, 4 not handled, 5 Append frame, 6 Postcarding chunk,
     * 7 absorbed (an Append entry or a postcard kept in registers, or a
     * flush with nothing to write). */
    Counter<bit<32>, bit<3>>(8, CounterType_t.PACKETS) reports;
    /* Replies by AETH syndrome class: 0 ACK, 1 RNR NAK, 3 NAK. */
    Counter<bit<32>, bit<3>>(8, CounterType_t.PACKETS) replies;

    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(8)) csum13;
    Hash<bit<PC_CACHE_BITS>>(HashAlgorithm_t.CRC32) pc_index13;
    /* A postcard's value code g(v) (CRC role 9), computed once here and
     * cached coded, so that egress hashes no values */
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(9)) pc_code13;
#ifdef TNA_LEGACY
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(8)) csum4;
    Hash<bit<PC_CACHE_BITS>>(HashAlgorithm_t.CRC32) pc_index4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(9)) pc_code4;
#endif

    action drop() {
        ig_dprsr_md.drop_ctl = 1;
    }
    /* No structure for the report (or a bad N): dropped */
    action no_structure() {
        ig_dprsr_md.drop_ctl = 1;
        meta.outcome = 2;
    }
    action start() {
        meta.now = ig_prsr_md.global_tstamp[31:0];
        hdr.bridge.setValid();
        hdr.bridge.kind = meta.kind;
        hdr.bridge.legacy = 0;
        hdr.bridge.data20 = 0;
        hdr.bridge.raw = 0;
        hdr.bridge.pad = 0;
        hdr.bridge.pc_len = 0;
    }

    /* ---- structures (control plane: one entry each) ---- */
    /* N copies: multicast group N, replica id = copy (control plane) */
    action kw_structure(bit<8> qp, bit<32> mask, bit<64> base,
                        bit<32> rkey) {
        hdr.bridge.qp = qp;
        hdr.bridge.mask = mask;
        hdr.bridge.base = base;
        hdr.bridge.rkey = rkey;
        ig_tm_md.mcast_grp_a = (MulticastGroupId_t)meta.n;
        meta.outcome = 0;
    }
    table kw_table {
        key = {
            hdr.data20.isValid(): exact;
            meta.n: exact;
        }
        actions = { kw_structure; no_structure; }
        default_action = no_structure();
        size = 16;
    }
    action ki_structure(bit<8> qp, bit<32> mask, bit<8> rows,
                        bit<32> rkey) {
        hdr.bridge.qp = qp;
        hdr.bridge.mask = mask;
        hdr.bridge.rkey = rkey;
        ig_tm_md.mcast_grp_a = (MulticastGroupId_t)rows;
        meta.outcome = 1;
    }
    table ki_table {
        key = { meta.kind: exact; }
        actions = { ki_structure; no_structure; }
        default_action = no_structure();
        size = 2;
    }
    /* An Append list: its register index, ring (frame index mask) and
     * where the ring starts, so no multiplication is needed. */
    action ap_list(bit<8> qp, bit<32> index, bit<32> ring_mask,
                   bit<64> ring, bit<32> rkey, PortId_t port) {
        hdr.bridge.qp = qp;
        meta.list = index;
        hdr.bridge.mask = ring_mask;
        hdr.bridge.base = ring;
        hdr.bridge.rkey = rkey;
        ig_tm_md.ucast_egress_port = port;
    }
    table ap_table {
        key = { meta.list: exact; }
        actions = { ap_list; no_structure; }
        default_action = no_structure();
        size = AP_MAX_LISTS;
    }
    action pc_structure(bit<8> qp, bit<32> mask, bit<64> base,
                        bit<32> rkey, bit<8> redundancy, bit<1> raw,
                        bit<32> minus_timeout) {
        hdr.bridge.raw = raw;
        hdr.bridge.qp = qp;
        hdr.bridge.mask = mask;
        hdr.bridge.base = base;
        hdr.bridge.rkey = rkey;
        ig_tm_md.mcast_grp_a = (MulticastGroupId_t)redundancy;
        meta.deadline = ig_prsr_md.global_tstamp[31:0] + minus_timeout;
    }
    table pc_table {
        key = { meta.kind: exact; }
        actions = { pc_structure; no_structure; }
        default_action = no_structure();
        size = 2;
    }
    /* A switch subtracts only what comes from the packet or metadata:
     * the control plane gives timeouts negated (2^32 - t, in units of
     * ns, the time base of meta.now). */
    action ap_timeout(bit<32> minus_timeout) {
        meta.ap_deadline = ig_prsr_md.global_tstamp[31:0] + minus_timeout;
    }
    table ap_timeout_table {
        actions = { ap_timeout; }
        default_action = ap_timeout(0xFFF0BDC0);   /* 1 ms */
    }
    action reply_qp(bit<8> qp, PortId_t port) {
        hdr.bridge.qp = qp;
        ig_tm_md.ucast_egress_port = port;
    }
    table reply_table {
        key = { hdr.bth.dqpn: exact; }
        actions = { reply_qp; drop; }
        default_action = drop();
        size = MAX_QPS;
    }

    /* ---- Key-Write and Key-Increment ---- */
    action kw_v1() {
        meta.n = hdr.kw.redundancy;
        hdr.slot_csum.setValid();
        hdr.slot_csum.csum = csum13.get({ hdr.key13.key });
    }
#ifdef TNA_LEGACY
    action kw_legacy() {
        meta.n = hdr.lkw.redundancy;
        hdr.key4.setValid();
        hdr.key4.key = hdr.lkw.key;
        hdr.data4.setValid();
        hdr.data4.data = hdr.lkw.data;
        hdr.bridge.legacy = 1;
        hdr.slot_csum.setValid();
        hdr.slot_csum.csum = csum4.get({ hdr.lkw.key });
    }
    action ki_legacy() {
        hdr.kiv.setValid();
        hdr.kiv.redundancy = 0;
        hdr.kiv.key_len = 0;
        hdr.kiv.reserved = 0;
        hdr.key4.setValid();
        hdr.key4.key = hdr.lki.key;
        hdr.kiv.counter = hdr.lki.counter;
        hdr.bridge.legacy = 1;
    }
#endif
    action ki_v1() {
        hdr.kiv.setValid();
        hdr.kiv.redundancy = 0;
        hdr.kiv.key_len = 0;
        hdr.kiv.reserved = 0;
        hdr.kiv.counter = hdr.ki.counter;
    }

    /* ---- Append batching: one register per entry slot ---- */
    /* Entries in the open batch (lo) and when it began (hi). */
    Register<pair_t, bit<32>>(AP_MAX_LISTS) ap_count;
    RegisterAction<pair_t, bit<32>, bit<32>>(ap_count) ap_count_add = {
        void apply(inout pair_t v, out bit<32> rv) {
            rv = v.lo;
            if (v.lo == 0) {
                v.hi = meta.now;
            }
            if (v.lo == AP_BATCH - 1) {
                v.lo = 0;
            } else {
                v.lo = v.lo + 1;
            }
        }
    };
    /* A flush: close the open batch if it is old enough; returns its
     * entry count (0: nothing to write). */
    RegisterAction<pair_t, bit<32>, bit<32>>(ap_count) ap_count_flush = {
        void apply(inout pair_t v, out bit<32> rv) {
            rv = 0;
            if (v.lo != 0 && v.hi <= meta.ap_deadline) {
                rv = v.lo;
                v.lo = 0;
            }
        }
    };
    /* Last batch number (0: none yet, skipped when it wraps). */
    Register<bit<32>, bit<32>>(AP_MAX_LISTS) ap_seq;
    RegisterAction<bit<32>, bit<32>, bit<32>>(ap_seq) ap_seq_next = {
        void apply(inout bit<32> v, out bit<32> rv) {
            /* (v + 1 == 0, not v == 0xFFFFFFFF: a stateful ALU's
             * constants are small) */
            if (v + 1 == 0) {
                v = 1;
            } else {
                v = v + 1;
            }
            rv = v;
        }
    };
    /* Index of the list's next entry: a full batch adds AP_BATCH, a
     * flush its count. */
    Register<bit<32>, bit<32>>(AP_MAX_LISTS) ap_next;
    RegisterAction<bit<32>, bit<32>, bit<32>>(ap_next) ap_next_batch = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = v + AP_BATCH;
        }
    };
    RegisterAction<bit<32>, bit<32>, bit<32>>(ap_next) ap_next_flush = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = v + meta.slot;
        }
    };
    AP_ENTRY(0)
#if AP_BATCH > 2
    AP_ENTRY(1)
    AP_ENTRY(2)
#endif
#if AP_BATCH > 4
    AP_ENTRY(3)
    AP_ENTRY(4)
    AP_ENTRY(5)
    AP_ENTRY(6)
#endif
#if AP_BATCH > 8
    AP_ENTRY(7)
    AP_ENTRY(8)
    AP_ENTRY(9)
    AP_ENTRY(10)
    AP_ENTRY(11)
    AP_ENTRY(12)
    AP_ENTRY(13)
    AP_ENTRY(14)
#endif
    action ap_flush_list() {
        meta.list = hdr.ctrl.index;
        meta.entry = 0;
    }
    action ap_v1() {
        meta.list = hdr.ap.list_id;
        meta.entry = hdr.data4.data;
    }
#ifdef TNA_LEGACY
    action ap_legacy() {
        meta.list = hdr.lap.list_id;
        meta.entry = hdr.lap.data;
    }
#endif
    /* The frame around the entries: a full batch, or a flush's count */
    action ap_frame(bit<16> count) {
        hdr.ap_head.setValid();
        hdr.e1.setValid();
        hdr.ap_tail.setValid();
        hdr.ap_tail.count = count;
        hdr.ap_tail.magic = AP_TRAILER_MAGIC;
#if AP_BATCH == 2
        hdr.e1.e = meta.entry;
#elif AP_BATCH == 4
        hdr.e3.setValid();
        hdr.e3.e = meta.entry;
#elif AP_BATCH == 8
        hdr.e7.setValid();
        hdr.e7.e = meta.entry;
#else
        hdr.e15.setValid();
        hdr.e15.e = meta.entry;
#endif
        meta.outcome = 5;
    }
    /* Entries past a flush's count are zero in the frame: the registers
     * still hold older batches' entries. */
/* Z<k>: entries k .. AP_BATCH - 1 set to zero */
#define ZERO(i) hdr.e##i.e = 0;
#if AP_BATCH > 8
#define Z15 ZERO(15)
#define Z14 ZERO(14) Z15
#define Z13 ZERO(13) Z14
#define Z12 ZERO(12) Z13
#define Z11 ZERO(11) Z12
#define Z10 ZERO(10) Z11
#define Z9 ZERO(9) Z10
#define Z8 ZERO(8) Z9
#define Z7_NEXT Z8
#else
#define Z7_NEXT
#endif
#if AP_BATCH > 4
#define Z7 ZERO(7) Z7_NEXT
#define Z6 ZERO(6) Z7
#define Z5 ZERO(5) Z6
#define Z4 ZERO(4) Z5
#define Z3_NEXT Z4
#else
#define Z3_NEXT
#endif
#if AP_BATCH > 2
#define Z3 ZERO(3) Z3_NEXT
#define Z2 ZERO(2) Z3
#define Z1_NEXT Z2
#else
#define Z1_NEXT
#endif
#define Z1 ZERO(1) Z1_NEXT
#define ZERO_FROM(k) action zero_from##k() { Z##k }
    ZERO_FROM(1)
#if AP_BATCH > 2
    ZERO_FROM(2)
    ZERO_FROM(3)
#endif
#if AP_BATCH > 4
    ZERO_FROM(4)
    ZERO_FROM(5)
    ZERO_FROM(6)
    ZERO_FROM(7)
#endif
#if AP_BATCH > 8
    ZERO_FROM(8)
    ZERO_FROM(9)
    ZERO_FROM(10)
    ZERO_FROM(11)
    ZERO_FROM(12)
    ZERO_FROM(13)
    ZERO_FROM(14)
    ZERO_FROM(15)
#endif
    /* (A flush's count is 1 .. AP_BATCH - 1: with count c, entries c ..
     * AP_BATCH - 1 are zero.) */
    table ap_zero {
        key = { meta.slot[7:0]: exact; }
        actions = {
            zero_from1;
#if AP_BATCH > 2
            zero_from2; zero_from3;
#endif
#if AP_BATCH > 4
            zero_from4; zero_from5; zero_from6; zero_from7;
#endif
#if AP_BATCH > 8
            zero_from8; zero_from9; zero_from10; zero_from11;
            zero_from12; zero_from13; zero_from14; zero_from15;
#endif
            NoAction;
        }
        default_action = NoAction();
        const entries = {
            1: zero_from1();
#if AP_BATCH > 2
            2: zero_from2();
            3: zero_from3();
#endif
#if AP_BATCH > 4
            4: zero_from4(); 5: zero_from5(); 6: zero_from6();
            7: zero_from7();
#endif
#if AP_BATCH > 8
            8: zero_from8(); 9: zero_from9(); 10: zero_from10();
            11: zero_from11(); 12: zero_from12(); 13: zero_from13();
            14: zero_from14(); 15: zero_from15();
#endif
        }
        size = 16;
    }

    /* ---- Postcarding cache, direct-mapped by CRC-32 of the flow key ---- */
    PC_KEY(0)
    PC_KEY(1)
    PC_KEY(2)
    PC_KEY(3)
    PC_VALUE(0)
    PC_VALUE(1)
    PC_VALUE(2)
    PC_VALUE(3)
    PC_VALUE(4)
    /* Hops the flow still needs (lo; 0: the entry is free) and when its
     * entry began (hi). The paper's row counter: a hop reported twice
     * counts twice. */
    Register<pair_t, PCI_T>(PC_CACHE) pc_state;
    /* (A stateful ALU takes two PHV inputs: the path length and a time,
     * meta.t, which is now or, for a flush, the deadline.) */
    RegisterAction<pair_t, PCI_T, bit<32>>(pc_state) pc_state_add = {
        void apply(inout pair_t v, out bit<32> rv) {
            rv = v.lo;
            if (v.lo == 0) {
                v.lo = meta.plen_m1;
                v.hi = meta.t;
            } else {
                v.lo = v.lo - 1;
            }
        }
    };
    /* Another flow's postcard: it takes the entry. */
    RegisterAction<pair_t, PCI_T, bit<32>>(pc_state) pc_state_new = {
        void apply(inout pair_t v, out bit<32> rv) {
            rv = v.lo;
            v.lo = meta.plen_m1;
            v.hi = meta.t;
        }
    };
    RegisterAction<pair_t, PCI_T, bit<32>>(pc_state) pc_state_flush = {
        void apply(inout pair_t v, out bit<32> rv) {
            rv = 0;
            if (v.lo != 0 && v.hi <= meta.t) {
                rv = v.lo;
                v.lo = 0;
            }
        }
    };
    /* Hop bits present (7:0) and the path length (15:8). */
    Register<bit<16>, PCI_T>(PC_CACHE) pc_seen;
    RegisterAction<bit<16>, PCI_T, bit<16>>(pc_seen) pc_seen_add = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = v | meta.hopbit16;
        }
    };
    RegisterAction<bit<16>, PCI_T, bit<16>>(pc_seen) pc_seen_new = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = meta.fresh;
        }
    };
    RegisterAction<bit<16>, PCI_T, bit<16>>(pc_seen) pc_seen_rd = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
        }
    };

    /* The flow key as the cache keeps it: 3 x 32 bits and a last word of
     * 8 bits plus the legacy flag (bit 8). */
    action pc_report_v1() {
        meta.n0 = hdr.key13.key[103:72];
        meta.n1 = hdr.key13.key[71:40];
        meta.n2 = hdr.key13.key[39:8];
        meta.n3 = (bit<32>)hdr.key13.key[7:0];
        meta.hop = hdr.pc.hop;
        meta.val = hdr.pc.value;
        meta.idx = pc_index13.get({ hdr.key13.key });
    }
    action pc_code_v1() {
        meta.val = pc_code13.get({ hdr.pc.value });
    }
    /* A well-formed postcard (hop 0..4, path length 0..5; 0: unknown,
     * taken as 5): its path length, the hop's bit, a new entry's hop bits
     * and path length. */
    action pc_hop(bit<8> plen, bit<32> plen_m1, bit<16> hopbit,
                  bit<16> fresh) {
        meta.pc_ok = 1;
        meta.plen = plen;
        meta.plen_m1 = plen_m1;
        meta.hopbit16 = hopbit;
        meta.fresh = fresh;
    }
#define PC_HOP(p, b) pc_hop(p, p - 1, b, (p << 8) | b)
    action pc_bad() {
        ig_dprsr_md.drop_ctl = 1;
        meta.outcome = 3;
    }
#define PC_HOP_ENTRIES(h, b) \
            (h, 0): PC_HOP(5, b); (h, 1): PC_HOP(1, b); \
            (h, 2): PC_HOP(2, b); (h, 3): PC_HOP(3, b); \
            (h, 4): PC_HOP(4, b); (h, 5): PC_HOP(5, b);
    table pc_check {
        key = {
            hdr.pc.hop: exact;
            hdr.pc.path_len: exact;
        }
        actions = { pc_hop; pc_bad; }
        default_action = pc_bad();
        const entries = {
            PC_HOP_ENTRIES(0, 1)
            PC_HOP_ENTRIES(1, 2)
            PC_HOP_ENTRIES(2, 4)
            PC_HOP_ENTRIES(3, 8)
            PC_HOP_ENTRIES(4, 16)
        }
        size = 32;
    }
#ifdef TNA_LEGACY
    action pc_report_legacy() {
        meta.n0 = 0;
        meta.n1 = 0;
        meta.n2 = (bit<32>)hdr.lpc.key[31:8];
        meta.n3[31:9] = 0;
        meta.n3[8:8] = 1;
        meta.n3[7:0] = hdr.lpc.key[7:0];
        meta.hop = hdr.lpc.hop - 1;   /* 0 becomes 255: malformed */
        meta.val = hdr.lpc.data;
        meta.idx = pc_index4.get({ hdr.lpc.key });
    }
    action pc_code_legacy() {
        meta.val = pc_code4.get({ hdr.lpc.data });
    }
    /* Legacy postcards: hops 1 .. 5 of a 5-hop path */
    table pc_check_legacy {
        key = { hdr.lpc.hop: exact; }
        actions = { pc_hop; pc_bad; }
        default_action = pc_bad();
        const entries = {
            1: PC_HOP(5, 1); 2: PC_HOP(5, 2); 3: PC_HOP(5, 4);
            4: PC_HOP(5, 8); 5: PC_HOP(5, 16);
        }
        size = 8;
    }
#endif
    /* The timer: write the flow in cache entry ctrl.index as far as its
     * hops run from hop 0, and free the entry. */
    action pc_flush() {
        meta.pc_ok = 1;
        meta.idx = hdr.ctrl.index[PC_CACHE_BITS - 1:0];
        meta.hop = 255;   /* the value registers only read */
    }
    /* Hops present from hop 0 on, up to the old flow's path length:
     * min(the longest run of ones from bit 0, seen[15:8]). */
    action set_prefix(bit<8> p) {
        meta.prefix = p;
    }
    table prefix_table {
        key = { meta.seen: ternary; }
        actions = { set_prefix; }
        default_action = set_prefix(0);
        const entries = {
            16w0x051F &&& 16w0xFF1F: set_prefix(5);
            16w0x050F &&& 16w0xFF1F: set_prefix(4);
            16w0x0507 &&& 16w0xFF0F: set_prefix(3);
            16w0x0503 &&& 16w0xFF07: set_prefix(2);
            16w0x0501 &&& 16w0xFF03: set_prefix(1);
            16w0x041F &&& 16w0xFF1F: set_prefix(4);
            16w0x040F &&& 16w0xFF1F: set_prefix(4);
            16w0x0407 &&& 16w0xFF0F: set_prefix(3);
            16w0x0403 &&& 16w0xFF07: set_prefix(2);
            16w0x0401 &&& 16w0xFF03: set_prefix(1);
            16w0x031F &&& 16w0xFF1F: set_prefix(3);
            16w0x030F &&& 16w0xFF1F: set_prefix(3);
            16w0x0307 &&& 16w0xFF0F: set_prefix(3);
            16w0x0303 &&& 16w0xFF07: set_prefix(2);
            16w0x0301 &&& 16w0xFF03: set_prefix(1);
            16w0x021F &&& 16w0xFF1F: set_prefix(2);
            16w0x020F &&& 16w0xFF1F: set_prefix(2);
            16w0x0207 &&& 16w0xFF0F: set_prefix(2);
            16w0x0203 &&& 16w0xFF07: set_prefix(2);
            16w0x0201 &&& 16w0xFF03: set_prefix(1);
            16w0x011F &&& 16w0xFF1F: set_prefix(1);
            16w0x010F &&& 16w0xFF1F: set_prefix(1);
            16w0x0107 &&& 16w0xFF0F: set_prefix(1);
            16w0x0103 &&& 16w0xFF07: set_prefix(1);
            16w0x0101 &&& 16w0xFF03: set_prefix(1);
        }
        size = 32;
    }
    /* What the postcard (or flush) writes: the entry's old flow as far as
     * its hops run from hop 0, this flow (all its hops: this postcard's
     * value joins the cached ones), or nothing. */
    action emit_old() {
        hdr.bridge.pc_len = meta.prefix;
        hdr.bridge.legacy = meta.k3[8:8];
        hdr.pc_key13.setValid();
        hdr.pc_key13.w0 = meta.k0;
        hdr.pc_key13.w1 = meta.k1;
        hdr.pc_key13.w2 = meta.k2;
        hdr.pc_key13.w3 = meta.k3[7:0];
        hdr.pc_vals.setValid();
        hdr.pc_vals.v0 = meta.a0;
        hdr.pc_vals.v1 = meta.a1;
        hdr.pc_vals.v2 = meta.a2;
        hdr.pc_vals.v3 = meta.a3;
        hdr.pc_vals.v4 = meta.a4;
        meta.outcome = 6;
    }
#define EMIT_OWN(h, x0, x1, x2, x3, x4) \
    action emit_own##h() { \
        hdr.bridge.pc_len = meta.plen; \
        hdr.bridge.legacy = meta.n3[8:8]; \
        hdr.pc_key13.setValid(); \
        hdr.pc_key13.w0 = meta.n0; \
        hdr.pc_key13.w1 = meta.n1; \
        hdr.pc_key13.w2 = meta.n2; \
        hdr.pc_key13.w3 = meta.n3[7:0]; \
        hdr.pc_vals.setValid(); \
        hdr.pc_vals.v0 = x0; \
        hdr.pc_vals.v1 = x1; \
        hdr.pc_vals.v2 = x2; \
        hdr.pc_vals.v3 = x3; \
        hdr.pc_vals.v4 = x4; \
        meta.outcome = 6; \
    }
    EMIT_OWN(0, meta.val, meta.a1, meta.a2, meta.a3, meta.a4)
    EMIT_OWN(1, meta.a0, meta.val, meta.a2, meta.a3, meta.a4)
    EMIT_OWN(2, meta.a0, meta.a1, meta.val, meta.a3, meta.a4)
    EMIT_OWN(3, meta.a0, meta.a1, meta.a2, meta.val, meta.a4)
    EMIT_OWN(4, meta.a0, meta.a1, meta.a2, meta.a3, meta.val)
#ifdef TNA_LEGACY
    /* A legacy flow's chunk key: its 4 bytes */
    action pc_key_legacy() {
        hdr.pc_key4.setValid();
        hdr.pc_key4.w2 = hdr.pc_key13.w2[23:0];
        hdr.pc_key4.w3 = hdr.pc_key13.w3;
        hdr.pc_key13.setInvalid();
    }
#endif
    action emit_none() {
        ig_dprsr_md.drop_ctl = 1;
        meta.outcome = 7;
    }
    /* In order (first match wins):
     *  a flush writes the old flow if the entry was taken and old enough
     *  (remain != 0) and has hop 0 (prefix != 0);
     *  another flow's postcard evicts a taken entry (remain != 0) and
     *  writes its flow if it has hop 0;
     *  a postcard writes its own flow when that makes every hop of the
     *  path: the entry restarts (free or another flow's, or the flow's
     *  own after it completed: remain == 0) with a 1-hop path, or
     *  evicts an unfinished flow that has no hop 0 (nothing of it to
     *  write) with a 1-hop path, or the flow's own entry needed one more
     *  hop (remain == 1). */
#define OWN_ENTRIES(h) \
            (0, 0, 0, _, 1, h): emit_own##h(); \
            (0, 0, _, 0, 1, h): emit_own##h(); \
            (0, 1, 0, _, 1, h): emit_own##h(); \
            (0, 1, 1, _, _, h): emit_own##h();
    table emit_table {
        key = {
            meta.flush: ternary;
            meta.match: ternary;
            meta.remain[7:0]: ternary;
            meta.prefix: ternary;
            meta.plen: ternary;
            meta.hop: ternary;
        }
        actions = { emit_old; emit_own0; emit_own1; emit_own2; emit_own3;
                    emit_own4; emit_none; }
        default_action = emit_none();
        const entries = {
            (1, _, 0, _, _, _): emit_none();
            (1, _, _, 0, _, _): emit_none();
            (1, _, _, _, _, _): emit_old();
            OWN_ENTRIES(0)
            OWN_ENTRIES(1)
            OWN_ENTRIES(2)
            OWN_ENTRIES(3)
            OWN_ENTRIES(4)
            (0, 0, 0, _, _, _): emit_none();
            (0, 0, _, 0, _, _): emit_none();
            (0, 0, _, _, _, _): emit_old();
        }
        size = 32;
    }
    action pc_eq0() { meta.eq0 = 1; }
    action pc_eq1() { meta.eq1 = 1; }
    action pc_eq2() { meta.eq2 = 1; }
    action pc_eq3() { meta.eq3 = 1; }
    action pc_match() { meta.match = 1; }
    action pc_t_now() { meta.t = meta.now; }
    action pc_t_deadline() { meta.t = meta.deadline; }

    /* ---- what the report leaves: egress needs no report header ---- */
    action gone_kw() {
        hdr.base.setInvalid();
        hdr.kw.setInvalid();
#ifdef TNA_LEGACY
        hdr.lbase.setInvalid();
        hdr.lnbase.setInvalid();
        hdr.lkw.setInvalid();
#endif
    }
    action gone_ki() {
        hdr.base.setInvalid();
        hdr.ki.setInvalid();
        hdr.data4.setInvalid();
#ifdef TNA_LEGACY
        hdr.lbase.setInvalid();
        hdr.lnbase.setInvalid();
        hdr.lki.setInvalid();
#endif
    }
    action gone_ap() {
        hdr.base.setInvalid();
        hdr.ap.setInvalid();
        hdr.ctrl.setInvalid();
        hdr.data4.setInvalid();
#ifdef TNA_LEGACY
        hdr.lbase.setInvalid();
        hdr.lnbase.setInvalid();
        hdr.lap.setInvalid();
#endif
    }
    action gone_pc() {
        hdr.base.setInvalid();
        hdr.pc.setInvalid();
        hdr.ctrl.setInvalid();
        hdr.data4.setInvalid();
        hdr.key13.setInvalid();   /* the chunk's key is pc_key13/4 */
#ifdef TNA_LEGACY
        hdr.lbase.setInvalid();
        hdr.lnbase.setInvalid();
        hdr.lpc.setInvalid();
#endif
    }
    table gone {
        key = { meta.kind: exact; }
        actions = { gone_kw; gone_ki; gone_ap; gone_pc; NoAction; }
        default_action = NoAction();
        const entries = {
            K_KW: gone_kw();
            K_KI: gone_ki();
            K_AP: gone_ap();
            K_PC: gone_pc();
        }
        size = 8;
    }
    action count_report() {
        reports.count(meta.outcome);
    }

    apply {
        start();
        if (meta.kind == K_NAK) {
            /* A PSN sequence NAK goes on to the egress of the collector's
             * port, where the PSN register lives, queued behind the frames
             * sent before it. Other replies are counted and dropped. */
            replies.count((bit<3>)hdr.aeth.syndrome[7:5]);
            if (reply_table.apply().hit) {
                if (hdr.aeth.syndrome != 0x60) {
                    drop();
                }
            } else {
                drop();
            }
            exit;
        }

        if (meta.kind == K_KW) {
#ifdef TNA_LEGACY
            if (hdr.lkw.isValid()) {
                kw_legacy();
            } else
#endif
            {
                kw_v1();
            }
            if (hdr.data20.isValid()) {
                hdr.bridge.data20 = 1;
            }
            /* One entry per N the structure takes (1 .. min(N, 4)): a
             * miss is no structure or a bad N. */
            kw_table.apply();
            /* Zero means "never written" */
            if (hdr.slot_csum.csum == 0) {
                hdr.slot_csum.csum = 1;
            }
        } else if (meta.kind == K_KI) {
#ifdef TNA_LEGACY
            if (hdr.lki.isValid()) {
                ki_legacy();
            } else
#endif
            {
                ki_v1();
            }
            ki_table.apply();
        } else if (meta.kind == K_AP) {
            if (meta.flush == 1) {
                ap_flush_list();
#ifdef TNA_LEGACY
            } else if (hdr.lap.isValid()) {
                ap_legacy();
#endif
            } else {
                ap_v1();
            }
            ap_timeout_table.apply();
            if (ap_table.apply().hit) {
                if (meta.flush == 1) {
                    meta.slot = ap_count_flush.execute(meta.list);
                } else {
                    meta.slot = ap_count_add.execute(meta.list);
                }
                if (meta.flush == 1 && meta.slot[7:0] == 0) {
                    /* Nothing old enough to write */
                    emit_none();
                } else {
                    AP_ENTRY_APPLY(0)
#if AP_BATCH > 2
                    AP_ENTRY_APPLY(1)
                    AP_ENTRY_APPLY(2)
#endif
#if AP_BATCH > 4
                    AP_ENTRY_APPLY(3)
                    AP_ENTRY_APPLY(4)
                    AP_ENTRY_APPLY(5)
                    AP_ENTRY_APPLY(6)
#endif
#if AP_BATCH > 8
                    AP_ENTRY_APPLY(7)
                    AP_ENTRY_APPLY(8)
                    AP_ENTRY_APPLY(9)
                    AP_ENTRY_APPLY(10)
                    AP_ENTRY_APPLY(11)
                    AP_ENTRY_APPLY(12)
                    AP_ENTRY_APPLY(13)
                    AP_ENTRY_APPLY(14)
#endif
                    if (meta.flush == 1) {
                        hdr.ap_head.seq = ap_seq_next.execute(meta.list);
                        hdr.ap_head.first = ap_next_flush.execute(meta.list);
                        ap_frame((bit<16>)meta.slot);
                        ap_zero.apply();
                    } else if (meta.slot[7:0] == AP_BATCH - 1) {
                        hdr.ap_head.seq = ap_seq_next.execute(meta.list);
                        hdr.ap_head.first = ap_next_batch.execute(meta.list);
                        ap_frame(AP_BATCH);
                    } else {
                        /* collected; the batch is not full yet */
                        emit_none();
                    }
                    hdr.ap_tail.tseq = hdr.ap_head.seq;
                }
            }
        } else if (meta.kind == K_PC) {
            if (pc_table.apply().hit) {
                if (meta.flush == 1) {
                    pc_flush();
                    pc_t_deadline();
#ifdef TNA_LEGACY
                } else if (hdr.lpc.isValid()) {
                    pc_report_legacy();
                    pc_check_legacy.apply();
                    if (hdr.bridge.raw == 0) {
                        pc_code_legacy();
                    }
                    pc_t_now();
#endif
                } else {
                    pc_report_v1();
                    pc_check.apply();
                    if (hdr.bridge.raw == 0) {
                        pc_code_v1();
                    }
                    pc_t_now();
                }
            }
            if (meta.pc_ok == 1) {
                /* One access per register, the same for a postcard and a
                 * flush (a flush leaves keys and values as they are). */
                meta.k0 = pc_k0_swap.execute(meta.idx);
                meta.k1 = pc_k1_swap.execute(meta.idx);
                meta.k2 = pc_k2_swap.execute(meta.idx);
                meta.k3 = pc_k3_swap.execute(meta.idx);
                meta.a0 = pc_v0_rw.execute(meta.idx);
                meta.a1 = pc_v1_rw.execute(meta.idx);
                meta.a2 = pc_v2_rw.execute(meta.idx);
                meta.a3 = pc_v3_rw.execute(meta.idx);
                meta.a4 = pc_v4_rw.execute(meta.idx);
                /* The same flow? One 32-bit comparison per gateway, each
                 * into its own field so they run side by side. */
                if (meta.k0 == meta.n0) { pc_eq0(); }
                if (meta.k1 == meta.n1) { pc_eq1(); }
                if (meta.k2 == meta.n2) { pc_eq2(); }
                if (meta.k3 == meta.n3) { pc_eq3(); }
                if (meta.flush == 1) {
                    meta.remain = pc_state_flush.execute(meta.idx);
                    meta.seen = pc_seen_rd.execute(meta.idx);
                } else {
                    if (meta.eq0 == 1 && meta.eq1 == 1 && meta.eq2 == 1 &&
                        meta.eq3 == 1) {
                        pc_match();
                        meta.remain = pc_state_add.execute(meta.idx);
                    } else {
                        meta.remain = pc_state_new.execute(meta.idx);
                    }
                    /* A new entry (another flow's, or free) or the flow's
                     * own: restart its hop bits, or add this hop */
                    if (meta.match == 0 || meta.remain[7:0] == 0) {
                        meta.seen = pc_seen_new.execute(meta.idx);
                    } else {
                        meta.seen = pc_seen_add.execute(meta.idx);
                    }
                }
                prefix_table.apply();
                emit_table.apply();
#ifdef TNA_LEGACY
                if (hdr.bridge.legacy == 1) {
                    pc_key_legacy();
                }
#endif
            }
        } else {
            drop();
        }
        gone.apply();
        count_report();
    }
}

control DtaIngressDeparser(packet_out pkt, inout ig_headers_t hdr,
                           in ig_meta_t meta,
                           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

/* ======================= egress ======================= */

parser DtaEgressParser(packet_in pkt, out eg_headers_t hdr,
                       out eg_meta_t meta,
                       out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridge);
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        transition select(hdr.bridge.kind, hdr.bridge.legacy,
                          hdr.bridge.data20) {
            (K_NAK, _, _): parse_bth;
            (K_KW, 0, 0): kw13_4;
            (K_KW, 0, 1): kw13_20;
            (K_KW, 1, _): kw4;
            (K_KI, 0, _): ki13;
            (K_KI, 1, _): ki4;
            (K_PC, 0, _): pc13;
            (K_PC, 1, _): pc4;
            (K_AP, _, _): ap;
            default: accept;
        }
    }
    state parse_bth {
        pkt.extract(hdr.bth);
        transition accept;
    }
    state kw13_4 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.data4);
        pkt.extract(hdr.slot_csum);
        transition accept;
    }
    state kw13_20 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.data20);
        pkt.extract(hdr.slot_csum);
        transition accept;
    }
    state kw4 {
        pkt.extract(hdr.key4);
        pkt.extract(hdr.data4);
        pkt.extract(hdr.slot_csum);
        transition accept;
    }
    state ki13 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.kiv);
        transition accept;
    }
    state ki4 {
        pkt.extract(hdr.key4);
        pkt.extract(hdr.kiv);
        transition accept;
    }
    state pc13 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.pc_vals);
        transition accept;
    }
    state pc4 {
        pkt.extract(hdr.key4);
        pkt.extract(hdr.pc_vals);
        transition accept;
    }
    state ap {
        pkt.extract(hdr.ap_head);
        pkt.extract(hdr.e0);
        pkt.extract(hdr.e1);
#if AP_BATCH > 2
        pkt.extract(hdr.e2);
        pkt.extract(hdr.e3);
#endif
#if AP_BATCH > 4
        pkt.extract(hdr.e4);
        pkt.extract(hdr.e5);
        pkt.extract(hdr.e6);
        pkt.extract(hdr.e7);
#endif
#if AP_BATCH > 8
        pkt.extract(hdr.e8);
        pkt.extract(hdr.e9);
        pkt.extract(hdr.e10);
        pkt.extract(hdr.e11);
        pkt.extract(hdr.e12);
        pkt.extract(hdr.e13);
        pkt.extract(hdr.e14);
        pkt.extract(hdr.e15);
#endif
        pkt.extract(hdr.ap_tail);
        transition accept;
    }
}

/* The ICRC fields up to the end of the BTH (annex A17): 8 bytes of ones
 * for the LRH, IPv4 with TOS, TTL and checksum all ones, UDP with its
 * checksum all ones, BTH with FECN/BECN/reserved all ones. */
#define ICRC_HEAD \
    64w0xFFFFFFFFFFFFFFFF, \
    hdr.ipv4.version, hdr.ipv4.ihl, 8w0xFF, hdr.ipv4.total_len, \
    hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, 8w0xFF, \
    hdr.ipv4.protocol, 16w0xFFFF, hdr.ipv4.src, hdr.ipv4.dst, \
    hdr.udp.sport, hdr.udp.dport, hdr.udp.len, 16w0xFFFF, \
    hdr.bth.opcode, hdr.bth.se, hdr.bth.migreq, hdr.bth.pad, \
    hdr.bth.tver, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn, \
    hdr.bth.ackreq, hdr.bth.resv7, hdr.bth.psn
#if AP_BATCH == 2
#define AP_ENTRIES hdr.e0.e, hdr.e1.e
#elif AP_BATCH == 4
#define AP_ENTRIES hdr.e0.e, hdr.e1.e, hdr.e2.e, hdr.e3.e
#elif AP_BATCH == 8
#define AP_ENTRIES hdr.e0.e, hdr.e1.e, hdr.e2.e, hdr.e3.e, \
    hdr.e4.e, hdr.e5.e, hdr.e6.e, hdr.e7.e
#else
#define AP_ENTRIES hdr.e0.e, hdr.e1.e, hdr.e2.e, hdr.e3.e, \
    hdr.e4.e, hdr.e5.e, hdr.e6.e, hdr.e7.e, 256w0
#endif
/* The RETH with its address left out (README, "ICRC"): the address is
 * the last thing egress computes, so it joins the ICRC on its own. */
#define RETH_NO_VA 64w0, hdr.reth.rkey, hdr.reth.len

/* Standard CRC-32 without its initial value and final XOR: a linear
 * function L, with CRC(x ^ y) = CRC(x) ^ L(y) for equally long x, y. */
#define CRC32_LINEAR \
    CRCPolynomial<bit<32>>(32w0x04C11DB7, true, false, false, 32w0, 32w0)

control DtaEgress(inout eg_headers_t hdr, inout eg_meta_t meta,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                  inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    /* Slot (or counter) of copy n: CRC role n of the key. */
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(0)) s0_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(1)) s1_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(2)) s2_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(3)) s3_13;
#ifdef TNA_LEGACY
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(0)) s0_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(1)) s1_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(2)) s2_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(3)) s3_4;
#endif
    /* Postcarding hop checksums: roles 10..14 of the key (the value
     * codes come from ingress). */
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(10)) h10_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(11)) h11_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(12)) h12_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(13)) h13_13;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(14)) h14_13;
#ifdef TNA_LEGACY
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(10)) h10_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(11)) h11_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(12)) h12_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(13)) h13_4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, ROLE(14)) h14_4;
#endif
    /* ICRC: the frame with its address zero, one hash per layout ... */
    Hash<bit<32>>(HashAlgorithm_t.CRC32) icrc_kw4;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) icrc_kw20;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) icrc_ki;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) icrc_pc;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) icrc_ap;
#if AP_BATCH > 8
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, CRC32_LINEAR) icrc_ap_tail;
#endif
    /* ... then L(address, and zeros to the end of the frame) */
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, CRC32_LINEAR) va_kw4;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, CRC32_LINEAR) va_kw20;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, CRC32_LINEAR) va_ki;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, CRC32_LINEAR) va_pc;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, CRC32_LINEAR) va_ap;

    /* PSN of each queue pair: the next one per frame; a PSN sequence NAK
     * sets the one the responder expects. */
    Register<bit<32>, bit<8>>(MAX_QPS) psn_reg;
    /* (One action for both: the NAK and the frames must share a stage.) */
    RegisterAction<bit<32>, bit<8>, bit<32>>(psn_reg) psn_next = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            if (hdr.bridge.kind == K_NAK) {
                v = (bit<32>)hdr.bth.psn;
            } else {
                v = v + 1;
            }
        }
    };
    Register<bit<16>, bit<8>>(MAX_QPS) ipid_reg;
    RegisterAction<bit<16>, bit<8>, bit<16>>(ipid_reg) ipid_next = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = v + 1;
        }
    };

    /* A queue pair's frames: the collector's addresses, the responder's
     * queue pair and this one's UDP source port. (One table writes every
     * per-queue-pair field, and the frame actions below every constant
     * one: header fields share containers, and two tables writing one
     * container cannot share a stage.) */
    action qp_dest(bit<48> smac, bit<48> dmac, bit<32> sip, bit<32> dip,
                   bit<24> dqpn, bit<16> sport) {
        hdr.ethernet.src = smac;
        hdr.ethernet.dst = dmac;
        hdr.ipv4.src = sip;
        hdr.ipv4.dst = dip;
        hdr.bth.dqpn = dqpn;
        hdr.udp.sport = sport;
    }
    table qp_table {
        key = { hdr.bridge.qp: exact; }
        actions = { qp_dest; }
        default_action = qp_dest(0, 0, 0, 0, 0, 49152);
        size = MAX_QPS;
    }
    /* Key-Increment row n's first counter (no multiplication). */
    action ki_row(bit<64> row) {
        hdr.bridge.base = row;
    }
    table ki_row_table {
        key = {
            hdr.bridge.qp: exact;
            eg_intr_md.egress_rid: exact;
        }
        actions = { ki_row; }
        default_action = ki_row(0);
        size = 4 * MAX_QPS;
    }

    /* The steps below are actions of their own: a Tofino action runs in
     * one stage, so what one computes the next may use. */
    /* Slot of copy n: CRC role n of the key, masked to the structure */
    action slot0_13() { meta.index = s0_13.get({ hdr.key13.key }) & hdr.bridge.mask; }
    action slot1_13() { meta.index = s1_13.get({ hdr.key13.key }) & hdr.bridge.mask; }
    action slot2_13() { meta.index = s2_13.get({ hdr.key13.key }) & hdr.bridge.mask; }
    action slot3_13() { meta.index = s3_13.get({ hdr.key13.key }) & hdr.bridge.mask; }
#ifdef TNA_LEGACY
    action slot0_4() { meta.index = s0_4.get({ hdr.key4.key }) & hdr.bridge.mask; }
    action slot1_4() { meta.index = s1_4.get({ hdr.key4.key }) & hdr.bridge.mask; }
    action slot2_4() { meta.index = s2_4.get({ hdr.key4.key }) & hdr.bridge.mask; }
    action slot3_4() { meta.index = s3_4.get({ hdr.key4.key }) & hdr.bridge.mask; }
#endif
    /* Chunk slot i: the hop checksum (CRC role 10 + i of the flow; an
     * action passes one 32-bit hash: one action per slot) ... */
    action hop0() { hdr.pc_chunk.s0 = h10_13.get({ hdr.key13.key }); }
    action hop1() { hdr.pc_chunk.s1 = h11_13.get({ hdr.key13.key }); }
    action hop2() { hdr.pc_chunk.s2 = h12_13.get({ hdr.key13.key }); }
    action hop3() { hdr.pc_chunk.s3 = h13_13.get({ hdr.key13.key }); }
    action hop4() { hdr.pc_chunk.s4 = h14_13.get({ hdr.key13.key }); }
    /* ... XOR the value's code (ingress), or past the path (slots
     * pc_len .. 4) the blank's code ... */
    action blank_from1() {
        hdr.pc_vals.v1 = DTA_BLANK;
        hdr.pc_vals.v2 = DTA_BLANK;
        hdr.pc_vals.v3 = DTA_BLANK;
        hdr.pc_vals.v4 = DTA_BLANK;
    }
    action blank_from2() {
        hdr.pc_vals.v2 = DTA_BLANK;
        hdr.pc_vals.v3 = DTA_BLANK;
        hdr.pc_vals.v4 = DTA_BLANK;
    }
    action blank_from3() {
        hdr.pc_vals.v3 = DTA_BLANK;
        hdr.pc_vals.v4 = DTA_BLANK;
    }
    action blank_from4() {
        hdr.pc_vals.v4 = DTA_BLANK;
    }
    table pc_blank {
        key = { hdr.bridge.raw: exact; hdr.bridge.pc_len: exact; }
        actions = { blank_from1; blank_from2; blank_from3; blank_from4;
                    NoAction; }
        default_action = NoAction();
        const entries = {
            (0, 1): blank_from1();
            (0, 2): blank_from2();
            (0, 3): blank_from3();
            (0, 4): blank_from4();
        }
        size = 8;
    }
    /* ... or, for the prototype family, the value itself, and zero
     * past the path. */
    action chunk() {
        hdr.pc_chunk.s0 = hdr.pc_chunk.s0 ^ hdr.pc_vals.v0;
        hdr.pc_chunk.s1 = hdr.pc_chunk.s1 ^ hdr.pc_vals.v1;
        hdr.pc_chunk.s2 = hdr.pc_chunk.s2 ^ hdr.pc_vals.v2;
        hdr.pc_chunk.s3 = hdr.pc_chunk.s3 ^ hdr.pc_vals.v3;
        hdr.pc_chunk.s4 = hdr.pc_chunk.s4 ^ hdr.pc_vals.v4;
    }
    action chunk_upto1() {
        hdr.pc_chunk.s0 = hdr.pc_chunk.s0 ^ hdr.pc_vals.v0;
        hdr.pc_chunk.s1 = 0;
        hdr.pc_chunk.s2 = 0;
        hdr.pc_chunk.s3 = 0;
        hdr.pc_chunk.s4 = 0;
    }
    action chunk_upto2() {
        hdr.pc_chunk.s0 = hdr.pc_chunk.s0 ^ hdr.pc_vals.v0;
        hdr.pc_chunk.s1 = hdr.pc_chunk.s1 ^ hdr.pc_vals.v1;
        hdr.pc_chunk.s2 = 0;
        hdr.pc_chunk.s3 = 0;
        hdr.pc_chunk.s4 = 0;
    }
    action chunk_upto3() {
        hdr.pc_chunk.s0 = hdr.pc_chunk.s0 ^ hdr.pc_vals.v0;
        hdr.pc_chunk.s1 = hdr.pc_chunk.s1 ^ hdr.pc_vals.v1;
        hdr.pc_chunk.s2 = hdr.pc_chunk.s2 ^ hdr.pc_vals.v2;
        hdr.pc_chunk.s3 = 0;
        hdr.pc_chunk.s4 = 0;
    }
    action chunk_upto4() {
        hdr.pc_chunk.s0 = hdr.pc_chunk.s0 ^ hdr.pc_vals.v0;
        hdr.pc_chunk.s1 = hdr.pc_chunk.s1 ^ hdr.pc_vals.v1;
        hdr.pc_chunk.s2 = hdr.pc_chunk.s2 ^ hdr.pc_vals.v2;
        hdr.pc_chunk.s3 = hdr.pc_chunk.s3 ^ hdr.pc_vals.v3;
        hdr.pc_chunk.s4 = 0;
    }
    table pc_chunk_table {
        key = { hdr.bridge.raw: exact; hdr.bridge.pc_len: exact; }
        actions = { chunk; chunk_upto1; chunk_upto2; chunk_upto3;
                    chunk_upto4; }
        default_action = chunk();
        const entries = {
            (1, 1): chunk_upto1();
            (1, 2): chunk_upto2();
            (1, 3): chunk_upto3();
            (1, 4): chunk_upto4();
        }
        size = 8;
    }
#ifdef TNA_LEGACY
    action hop0_4() { hdr.pc_chunk.s0 = h10_4.get({ hdr.key4.key }); }
    action hop1_4() { hdr.pc_chunk.s1 = h11_4.get({ hdr.key4.key }); }
    action hop2_4() { hdr.pc_chunk.s2 = h12_4.get({ hdr.key4.key }); }
    action hop3_4() { hdr.pc_chunk.s3 = h13_4.get({ hdr.key4.key }); }
    action hop4_4() { hdr.pc_chunk.s4 = h14_4.get({ hdr.key4.key }); }
#endif
    action chunk_valid() {
        hdr.pc_chunk.setValid();
        hdr.pc_chunk.pad = 0;
    }
    /* The RoCEv2 headers' constant fields */
#define ROCE_COMMON \
        hdr.ethernet.ether_type = 0x0800; \
        hdr.ipv4.tos = 0; \
        hdr.ipv4.flags = 2; \
        hdr.ipv4.frag = 0; \
        hdr.ipv4.ttl = 64; \
        hdr.udp.dport = ROCE_UDP_PORT; \
        hdr.udp.csum = 0; \
        hdr.bth.setValid(); \
        hdr.bth.se = 0; \
        hdr.bth.migreq = 0; \
        hdr.bth.pad = 0; \
        hdr.bth.tver = 0; \
        hdr.bth.pkey = 0xFFFF; \
        hdr.bth.resv8a = 0; \
        hdr.bth.ackreq = 1; \
        hdr.bth.resv7 = 0;
    /* Per frame kind: opcode, lengths (IPv4 20 + UDP 8 + BTH 12 + rest +
     * ICRC 4), extended header. */
    action write_frame(bit<32> len) {
        ROCE_COMMON
        hdr.bth.opcode = OP_WRITE_ONLY;
        hdr.reth.setValid();
        hdr.reth.rkey = hdr.bridge.rkey;
        hdr.reth.len = len;
        hdr.ipv4.total_len = 20 + 8 + 12 + 16 + 4 + (bit<16>)len;
        hdr.udp.len = 8 + 12 + 16 + 4 + (bit<16>)len;
    }
    action atomic_frame() {
        ROCE_COMMON
        hdr.bth.opcode = OP_FETCH_ADD;
        hdr.atomiceth.setValid();
        hdr.atomiceth.rkey = hdr.bridge.rkey;
        hdr.atomiceth.add = hdr.kiv.counter;
        hdr.atomiceth.cmp = 0;
        hdr.ipv4.total_len = 20 + 8 + 12 + 28 + 4;
        hdr.udp.len = 8 + 12 + 28 + 4;
    }
    action ap_frame_number() {
        meta.index = hdr.ap_head.seq - 1;
    }
    action mask_index() {
        meta.index = meta.index & hdr.bridge.mask;
    }
    /* offset = index * size, size = 2^a (+ 2^b), 64 bits wide: the 2^a
     * term in off, the 2^b term in off2; the address is base + off
     * (+ off2). */
    action shift1(bit<8> a) {
        meta.off[31:0] = meta.index << a;
        meta.off[63:32] = meta.index >> (32 - a);
    }
    action shift2(bit<8> a, bit<8> b) {
        meta.off[31:0] = meta.index << a;
        meta.off[63:32] = meta.index >> (32 - a);
        meta.off2[31:0] = meta.index << b;
        meta.off2[63:32] = meta.index >> (32 - b);
    }
    action write_va() {
        hdr.reth.va = hdr.bridge.base + meta.off;
    }
    action write_va2() {
        hdr.reth.va = hdr.reth.va + meta.off2;
    }
    action atomic_va() {
        hdr.atomiceth.va = hdr.bridge.base + meta.off;
    }
    /* The ICRC (annex A17) of the frame with a zero address ... */
    action icrc_kw4_e() {
        meta.icrc = icrc_kw4.get({ ICRC_HEAD, RETH_NO_VA,
            hdr.slot_csum.csum, hdr.data4.data });
    }
    action icrc_kw20_e() {
        meta.icrc = icrc_kw20.get({ ICRC_HEAD, RETH_NO_VA,
            hdr.slot_csum.csum, hdr.data20.data });
    }
    action icrc_ki_e() {
        meta.icrc = icrc_ki.get({ ICRC_HEAD, 64w0, hdr.atomiceth.rkey,
            hdr.atomiceth.add, hdr.atomiceth.cmp });
    }
    action icrc_pc_e() {
        meta.icrc = icrc_pc.get({ ICRC_HEAD, RETH_NO_VA,
            hdr.pc_chunk.s0, hdr.pc_chunk.s1, hdr.pc_chunk.s2,
            hdr.pc_chunk.s3, hdr.pc_chunk.s4, hdr.pc_chunk.pad });
    }
    /* (16 entries: entries 8 to 15 as zeros here; L(those 32 bytes and
     * the 8 after them as zeros) joins below) */
    action icrc_ap_e() {
        meta.icrc = icrc_ap.get({ ICRC_HEAD, RETH_NO_VA,
            hdr.ap_head.seq, hdr.ap_head.first, AP_ENTRIES,
            hdr.ap_tail.tseq, hdr.ap_tail.count, hdr.ap_tail.magic });
    }
#if AP_BATCH > 8
    /* (144 bytes of ICRC input: more than a stage's crossbar gives one
     * hash) */
    action icrc_ap_tail_part() {
        meta.icrc_t = icrc_ap_tail.get({
            hdr.e8.e, hdr.e9.e, hdr.e10.e, hdr.e11.e,
            hdr.e12.e, hdr.e13.e, hdr.e14.e, hdr.e15.e, 64w0 });
    }
    action icrc_ap_join() {
        meta.icrc = meta.icrc ^ meta.icrc_t;
    }
#endif
    /* ... XOR L(address ++ zeros to the frame's end): the bytes after
     * the address are rkey, length and payload (atomic: rkey, add,
     * compare). */
    action icrc_kw4_va() {
        meta.icrc_va = va_kw4.get({ hdr.reth.va, 64w0, 64w0 });
    }
    action icrc_kw20_va() {
        meta.icrc_va = va_kw20.get({ hdr.reth.va, 64w0, 192w0 });
    }
    action icrc_ki_va() {
        meta.icrc_va = va_ki.get({ hdr.atomiceth.va, 32w0, 128w0 });
    }
    action icrc_pc_va() {
        meta.icrc_va = va_pc.get({ hdr.reth.va, 64w0,
            (bit<(PC_CHUNK * 8)>)0 });
    }
    action icrc_ap_va() {
        meta.icrc_va = va_ap.get({ hdr.reth.va, 64w0,
            (bit<(AP_FRAME * 8)>)0 });
    }
    /* The ICRC goes least significant byte first. */
    action icrc_out() {
        hdr.icrc.setValid();
        hdr.icrc.b0 = meta.icrc[7:0] ^ meta.icrc_va[7:0];
        hdr.icrc.b1 = meta.icrc[15:8] ^ meta.icrc_va[15:8];
        hdr.icrc.b2 = meta.icrc[23:16] ^ meta.icrc_va[23:16];
        hdr.icrc.b3 = meta.icrc[31:24] ^ meta.icrc_va[31:24];
    }
    /* What only egress needed leaves. */
    action finish() {
        hdr.bridge.setInvalid();
        hdr.key13.setInvalid();
        hdr.key4.setInvalid();
        hdr.kiv.setInvalid();
        hdr.pc_vals.setInvalid();
    }

    apply {
        hdr.bth.psn = (bit<24>)psn_next.execute(hdr.bridge.qp);
        if (hdr.bridge.kind == K_NAK) {
            /* The NAK set the PSN register to what the responder expects */
            eg_dprsr_md.drop_ctl = 1;
            exit;
        }
        hdr.ipv4.id = ipid_next.execute(hdr.bridge.qp);
        qp_table.apply();

        /* The frame, and the index of copy n (replica id) */
        if (hdr.bridge.kind == K_AP) {
            write_frame(AP_FRAME);
            ap_frame_number();
            mask_index();
        } else {
            if (hdr.bridge.kind == K_KW) {
                if (hdr.data20.isValid()) {
                    write_frame(24);
                } else {
                    write_frame(8);
                }
            } else if (hdr.bridge.kind == K_PC) {
                write_frame(PC_CHUNK);
            } else {
                atomic_frame();
                ki_row_table.apply();
            }
#ifdef TNA_LEGACY
            if (hdr.key4.isValid()) {
                if (eg_intr_md.egress_rid == 0) {
                    slot0_4();
                } else if (eg_intr_md.egress_rid == 1) {
                    slot1_4();
                } else if (eg_intr_md.egress_rid == 2) {
                    slot2_4();
                } else {
                    slot3_4();
                }
            } else
#endif
            {
                if (eg_intr_md.egress_rid == 0) {
                    slot0_13();
                } else if (eg_intr_md.egress_rid == 1) {
                    slot1_13();
                } else if (eg_intr_md.egress_rid == 2) {
                    slot2_13();
                } else {
                    slot3_13();
                }
            }
        }

        if (hdr.bridge.kind == K_PC) {
            /* Slot i: hop checksum (CRC role 10 + i of the flow) XOR the
             * value code from ingress, or the blank's code past the path;
             * prototype family: the value, and zero past the path. */
            chunk_valid();
#ifdef TNA_LEGACY
            if (hdr.key4.isValid()) {
                hop0_4();
                hop1_4();
                hop2_4();
                hop3_4();
                hop4_4();
            } else
#endif
            {
                hop0();
                hop1();
                hop2();
                hop3();
                hop4();
            }
            pc_blank.apply();
            pc_chunk_table.apply();
        }

        /* Per frame layout, each in its own branch so that the layouts
         * share stages: the frame's address, and its ICRC as the ICRC of
         * the frame with a zero address (which needs no address) XOR the
         * address's part. */
        if (hdr.bridge.kind == K_KW) {
            if (hdr.data20.isValid()) {
                icrc_kw20_e();
                shift2(4, 3);   /* 24-byte slots */
                write_va();
                write_va2();
                icrc_kw20_va();
            } else {
                icrc_kw4_e();
                shift1(3);
                write_va();
                icrc_kw4_va();
            }
        } else if (hdr.bridge.kind == K_PC) {
            shift1(5);
            write_va();
            icrc_pc_e();
            icrc_pc_va();
        } else if (hdr.bridge.kind == K_AP) {
            icrc_ap_e();
#if AP_BATCH > 8
            icrc_ap_tail_part();
            icrc_ap_join();
#endif
#if AP_FRAME == 32
            shift1(5);
            write_va();
#elif AP_FRAME == 24
            shift2(4, 3);
            write_va();
            write_va2();
#elif AP_FRAME == 48
            shift2(5, 4);
            write_va();
            write_va2();
#else
            shift2(6, 4);
            write_va();
            write_va2();
#endif
            icrc_ap_va();
        } else {
            icrc_ki_e();
            shift1(3);
            atomic_va();
            icrc_ki_va();
        }
        icrc_out();
        finish();
    }
}

control DtaEgressDeparser(packet_out pkt, inout eg_headers_t hdr,
                          in eg_meta_t meta,
                          in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ipv4_csum;
    apply {
        hdr.ipv4.csum = ipv4_csum.update({
            hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos,
            hdr.ipv4.total_len, hdr.ipv4.id, hdr.ipv4.flags,
            hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.protocol,
            hdr.ipv4.src, hdr.ipv4.dst });
        pkt.emit(hdr);
    }
}

Pipeline(DtaIngressParser(), DtaIngress(), DtaIngressDeparser(),
         DtaEgressParser(), DtaEgress(), DtaEgressDeparser()) pipe;

Switch(pipe) main;
