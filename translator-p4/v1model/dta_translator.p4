/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DTA translator for the v1model architecture (BMv2 simple_switch): DTA
 * reports in, RoCEv2 frames out, into a collector's switch-mode queue pairs
 * (DTA paper section 5.2, figure 6). It follows libdta's C reference model
 * step by step (lib/src/keywrite.c, keyincr.c, postcard.c, append.c,
 * roce.c; docs/roce.md):
 *
 *  - parse a v1 or legacy (research prototype) report on UDP 40040;
 *  - Key-Write: key checksum (CRC role 8) in ingress; the report's N copies
 *    made by the multicast group N (replica id = copy n); in egress each
 *    copy's slot = CRC role n of the key masked to the slot count, and the
 *    frame is an RDMA WRITE of {checksum, data} to that slot;
 *  - Key-Increment: one FETCH_AND_ADD per row (multicast group = rows) at
 *    row n's counter (CRC role n masked to the width);
 *  - Postcarding: a direct-mapped cache in registers; a flow's chunk (hop
 *    checksums, CRC roles 10 + i, XOR value codes, role 9) is written in N
 *    copies when its path is complete, or as its prefix from hop 0 when a
 *    colliding flow evicts it;
 *  - Append (4-byte entries): per list, entries collect in registers and
 *    every AP_BATCH-th (4) leaves as one frame at the list's next ring
 *    position, with the batch sequence number, first entry index and
 *    trailer libdta's readers check;
 *  - a switch has no timer: partial Append batches and incomplete postcard
 *    flows at least the structure's timeout old are written when the
 *    control plane (or a packet generator) sends a flush packet to UDP
 *    port 40041 (ctrl_h), as dta-translator writes them after a timeout;
 *  - every frame gets the queue pair's next PSN from a register, its IPv4
 *    checksum and its ICRC, computed here over the masked headers and the
 *    payload, all of which the pipeline parsed or built;
 *  - ACKs and NAKs from the collector come back in: every kind is
 *    counted, and a PSN sequence NAK goes on to egress, where it
 *    resynchronises the queue pair's PSN register.
 *
 * The CRC functions are crc32_custom; the control plane
 * (translator-p4/control/dta_p4_control.py) sets each one's polynomial,
 * initial value and final XOR from the collector's layout, so slot indices
 * and checksums equal libdta's.
 *
 * Supported here: slot counts, widths and rings that are powers of two (a
 * switch has no modulo); 13-byte keys (IPv4 5-tuples), 4- or 20-byte
 * Key-Write data, 4-byte Append entries in batches of 4, 5-hop postcard
 * chunks; legacy reports with their 4-byte keys and data (legacy postcards
 * number hops from 1 and carry no path length: all 5 hops); N <= 4.
 * Several v1 reports in one datagram are handled one per pass: a clone of
 * the datagram (session MORE_SESSION) loses its first report in egress
 * and recirculates.
 */
#include <core.p4>
#include <v1model.p4>

#include "../include/dta_headers.p4"

#define ROCE_UDP_PORT 4791
#define OP_WRITE_ONLY 0x0A
#define OP_ACK 0x11
#define OP_ATOMIC_ACK 0x12
#define OP_FETCH_ADD 0x14
#define MAX_QPS 16
/* Clone session of datagrams with more reports (control plane: any port) */
#define MORE_SESSION 100
#define PKT_INSTANCE_TYPE_INGRESS_CLONE 1

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
    bit<8>  resv8a;   /* FECN, BECN, reserved: masked in the ICRC */
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

header slot_csum_h { bit<32> csum; }  /* a Key-Write slot: checksum, data */

/* What the control plane (or a packet generator) sends to UDP port
 * CTRL_UDP_PORT to stand in for the timers a switch lacks: write list
 * @index's partial Append batch (kind 1, @index a report list id), or
 * the incomplete flow in Postcarding cache entry @index (kind 2). */
#define CTRL_UDP_PORT 40041
#define CTRL_FLUSH_APPEND 1
#define CTRL_FLUSH_POSTCARD 2
header ctrl_h {
    bit<8>  kind;
    bit<8>  reserved;
    bit<16> reserved2;
    bit<32> index;
}

/* An Append frame of AP_BATCH 4-byte entries (docs/layouts.md): batch
 * sequence number, index of its first entry, the entries, then the
 * trailer: sequence number again, entry count, magic. 32 bytes. */
#define AP_BATCH 4
#define AP_FRAME 32
#define AP_MAX_LISTS 64
#define AP_TRAILER_MAGIC 0xDA7A
/* A Postcarding chunk of PC_HOPS 4-byte slots, padded to a power of two. */
#define PC_HOPS 5
#define PC_CHUNK 32
#define PC_CACHE 1024
header pc_chunk_h {
    bit<32> s0;
    bit<32> s1;
    bit<32> s2;
    bit<32> s3;
    bit<32> s4;
    bit<96> pad;
}

header ap_frame_h {
    bit<32> seq;
    bit<32> first;
    bit<32> e0;
    bit<32> e1;
    bit<32> e2;
    bit<32> e3;
    bit<32> tseq;
    bit<16> count;
    bit<16> magic;
}
header icrc_h { bit<32> icrc; }

struct headers {
    ethernet_h ethernet;
    ipv4_h     ipv4;
    udp_h      udp;
    /* DTA report (removed before the frame leaves) */
    dta_base_h             base;
    dta_kw_h               kw;
    dta_ki_h               ki;
    dta_ap_h               ap;
    dta_pc_h               pc;
    ctrl_h                 ctrl;
    dta_legacy_ap_h        lap;
    dta_legacy_base_h      lbase;
    dta_legacy_nack_base_h lnbase;
    dta_legacy_kw_h        lkw;
    dta_legacy_ki_h        lki;
    dta_legacy_pc_h        lpc;
    dta_key13_h            key13;
    /* RoCEv2 */
    bth_h       bth;
    reth_h      reth;
    atomiceth_h atomiceth;
    aeth_h      aeth;
    slot_csum_h slot_csum;
    ap_frame_h  ap_frame;
    pc_chunk_h  pc_chunk;
    dta_data4_h data4;
    dta_data20_h data20;
    icrc_h      icrc;
}

struct metadata {
    bit<8>  kind;        /* 1 KW, 3 KI, 9 RoCE reply, 0 other */
    bit<8>  qp;          /* queue pair (structure) index */
    bit<32> key4;        /* legacy key */
    bit<32> csum;
    bit<32> h;           /* this copy's slot hash */
    bit<32> role0;       /* CRC roles 0..3 (slot of copy n), 8 (checksum) */
    bit<32> role1;
    bit<32> role2;
    bit<32> role3;
    bit<32> role8;
    bit<64> slots;       /* Key-Write slots / Key-Increment width */
    bit<64> mask;        /* slots - 1: geometries are powers of two */
    bit<64> base_addr;
    bit<32> rkey;
    bit<32> slot_size;
    bit<64> add;
    bit<8>  copies;
    bit<1>  legacy;
    bit<1>  data20;
    bit<32> list;        /* Append: list within the structure */
    bit<32> entry;       /* Append: the report's entry */
    bit<1>  flush;       /* a control packet standing in for a timer */
    bit<48> timeout;     /* flush only what is at least this old (us) */
    /* Postcarding: the chunk to write (a completed or an evicted flow) */
    bit<104> pc_key;
    bit<1>  pc_leg;      /* the chunk's key is a legacy 4-byte one */
    bit<8>  pc_len;      /* hops in the chunk's path prefix */
    bit<32> v0;
    bit<32> v1;
    bit<32> v2;
    bit<32> v3;
    bit<32> v4;
    bit<32> blank;       /* g(blank): slots past the path */
    bit<1>  pc_raw;      /* prototype family: values unencoded, zeros
                          * past the path */
    bit<32> role9_0;     /* value codes g(v_i), CRC role 9 */
    bit<32> role9_1;
    bit<32> role9_2;
    bit<32> role9_3;
    bit<32> role9_4;
    bit<32> role10;      /* hop checksums, CRC roles 10 + i */
    bit<32> role11;
    bit<32> role12;
    bit<32> role13;
    bit<32> role14;
}

/* ---- parser ---- */

parser DtaParser(packet_in pkt, out headers hdr, inout metadata meta,
                 inout standard_metadata_t sm) {
    state start {
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
    /* v1 starts with 0xD1; legacy with its opcode, and its two header
     * variants differ only in length (docs/wire-format.md). */
    state parse_dta {
        transition select(pkt.lookahead<bit<8>>(), hdr.udp.len) {
            (DTA_V1_MAGIC, _): parse_v1;
            (DTA_OP_KEY_WRITE, 8 + 2 + 9): parse_legacy_kw;
            (DTA_OP_KEY_WRITE, 8 + 3 + 9): parse_legacy_nack_kw;
            (DTA_OP_KEY_INCREMENT, 8 + 2 + 13): parse_legacy_ki;
            (DTA_OP_KEY_INCREMENT, 8 + 3 + 13): parse_legacy_nack_ki;
            (DTA_OP_APPEND, 8 + 2 + 8): parse_legacy_ap;
            (DTA_OP_POSTCARD, 8 + 2 + 9): parse_legacy_pc;
            (DTA_OP_POSTCARD, 8 + 3 + 9): parse_legacy_nack_pc;
            (DTA_OP_APPEND, 8 + 3 + 8): parse_legacy_nack_ap;
            default: accept;
        }
    }
    state parse_v1 {
        pkt.extract(hdr.base);
        transition select(hdr.base.opcode) {
            DTA_OP_KEY_WRITE: parse_kw;
            DTA_OP_KEY_INCREMENT: parse_ki;
            DTA_OP_APPEND: parse_ap;
            DTA_OP_POSTCARD: parse_pc;
            default: accept;
        }
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
    state ctrl_ap {
        meta.kind = DTA_OP_APPEND;
        transition accept;
    }
    state ctrl_pc {
        meta.kind = DTA_OP_POSTCARD;
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
        meta.kind = DTA_OP_POSTCARD;
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
        meta.kind = DTA_OP_APPEND;
        meta.entry = hdr.data4.data;
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
        meta.kind = DTA_OP_POSTCARD;
        meta.legacy = 1;
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
        meta.kind = DTA_OP_APPEND;
        meta.legacy = 1;
        meta.entry = hdr.lap.data;
        transition accept;
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
        meta.kind = DTA_OP_KEY_WRITE;
        transition accept;
    }
    state parse_kw13_20 {
        pkt.extract(hdr.key13);
        pkt.extract(hdr.data20);
        meta.kind = DTA_OP_KEY_WRITE;
        meta.data20 = 1;
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
        meta.kind = DTA_OP_KEY_INCREMENT;
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
        meta.kind = DTA_OP_KEY_WRITE;
        meta.legacy = 1;
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
        meta.kind = DTA_OP_KEY_INCREMENT;
        meta.legacy = 1;
        transition accept;
    }
    /* What the collector's NIC sends back. */
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
        meta.kind = 9;
        transition accept;
    }
}

/* PSN of each queue pair: egress takes the next one, and resets it on a
 * PSN sequence NAK; and the IPv4 identification of its next frame. */
register<bit<24>>(MAX_QPS) psn_reg;
register<bit<16>>(MAX_QPS) ipid_reg;
/* Append batching, per list: entries collected so far, how many, the last
 * batch sequence number used (0: none yet), the index of the next entry. */
/* Postcarding cache, direct-mapped by standard CRC-32 of the flow key:
 * the flow, which hops it has (bit i: hop i; 0: free), its path length,
 * and the hop values. */
register<bit<104>>(PC_CACHE) pc_keys;
register<bit<1>>(PC_CACHE) pc_legs;      /* a legacy 4-byte key */
register<bit<8>>(PC_CACHE) pc_seen;
register<bit<8>>(PC_CACHE) pc_plen;
register<bit<32>>(PC_CACHE) pc_v0;
register<bit<32>>(PC_CACHE) pc_v1;
register<bit<32>>(PC_CACHE) pc_v2;
register<bit<32>>(PC_CACHE) pc_v3;
register<bit<32>>(PC_CACHE) pc_v4;
register<bit<48>>(PC_CACHE) pc_since;   /* when the flow's entry began */
register<bit<32>>(AP_MAX_LISTS * AP_BATCH) ap_entries;
register<bit<8>>(AP_MAX_LISTS) ap_count;
register<bit<32>>(AP_MAX_LISTS) ap_seq;
register<bit<32>>(AP_MAX_LISTS) ap_next;
register<bit<48>>(AP_MAX_LISTS) ap_since; /* when the batch began */

control DtaVerify(inout headers hdr, inout metadata meta) {
    apply { }
}

/* ---- ingress: classify, checksum, replicate; NAKs ---- */

control DtaIngress(inout headers hdr, inout metadata meta,
                   inout standard_metadata_t sm) {
    /* Replies by AETH syndrome: 0 ACK, 1 RNR NAK, 2..6 NAK codes 0..4,
     * 7 other. */
    counter(8, CounterType.packets) replies;
    /* Reports by outcome: 0 Key-Write, 1 Key-Increment, 2 no structure,
     * 3 bad N or hop, 4 not handled by this program, 5 Append, 6 Postcarding
     * chunk written. */
    counter(8, CounterType.packets) reports;

    action drop() { mark_to_drop(sm); }

    /* The structure a report goes to (control plane: one entry each). */
    action kw_structure(bit<8> qp, bit<64> slots, bit<32> slot_size,
                        bit<64> base_addr, bit<32> rkey, bit<8> max_n,
                        bit<9> port) {
        meta.qp = qp;
        meta.slots = slots;
        meta.mask = slots - 1;
        meta.slot_size = slot_size;
        meta.base_addr = base_addr;
        meta.rkey = rkey;
        meta.copies = max_n;   /* checked against the report's N below */
        sm.egress_spec = port;
    }
    table kw_table {
        key = { meta.data20: exact; }
        actions = { kw_structure; drop; }
        default_action = drop();
        size = 4;
    }
    action ki_structure(bit<8> qp, bit<64> width, bit<8> rows,
                        bit<64> base_addr, bit<32> rkey, bit<9> port) {
        meta.qp = qp;
        meta.slots = width;
        meta.mask = width - 1;
        meta.copies = rows;
        meta.base_addr = base_addr;
        meta.rkey = rkey;
        sm.egress_spec = port;
    }
    table ki_table {
        key = { meta.kind: exact; }
        actions = { ki_structure; drop; }
        default_action = drop();
        size = 2;
    }
    /* The Append structure holding a list id (range match on the report's
     * list id): its lists' ring geometry and where it lives. */
    action ap_structure(bit<8> qp, bit<32> list_base, bit<32> first_list,
                        bit<64> ring_mask, bit<64> ring_batches,
                        bit<64> base_addr, bit<32> rkey, bit<48> timeout,
                        bit<9> port) {
        meta.timeout = timeout;
        meta.qp = qp;
        meta.list = meta.list - list_base;
        meta.mask = ring_mask;
        meta.slots = ring_batches;
        meta.base_addr = base_addr;
        meta.rkey = rkey;
        meta.h = first_list;   /* index of the structure's list 0 in the
                                * batching registers */
        sm.egress_spec = port;
    }
    table ap_table {
        key = { meta.list: range; }
        actions = { ap_structure; drop; }
        default_action = drop();
        size = 8;
    }
    action pc_structure(bit<8> qp, bit<64> chunks, bit<64> base_addr,
                        bit<32> rkey, bit<8> redundancy, bit<32> blank,
                        bit<1> raw,
                        bit<48> timeout, bit<9> port) {
        meta.timeout = timeout;
        meta.qp = qp;
        meta.slots = chunks;
        meta.mask = chunks - 1;
        meta.base_addr = base_addr;
        meta.rkey = rkey;
        meta.copies = redundancy;
        meta.blank = blank;
        meta.pc_raw = raw;
        sm.egress_spec = port;
    }
    table pc_table {
        key = { meta.kind: exact; }
        actions = { pc_structure; drop; }
        default_action = drop();
        size = 2;
    }
    /* QP of a reply, from the BTH destination (the QPN the collector
     * believes we are). */
    action reply_qp(bit<8> qp, bit<9> port) {
        meta.qp = qp;
        sm.egress_spec = port;
    }
    table reply_table {
        key = { hdr.bth.dqpn: exact; }
        actions = { reply_qp; drop; }
        default_action = drop();
        size = MAX_QPS;
    }

    apply {
        /* Several v1 reports in one datagram (docs/wire-format.md): this
         * pass handles the first; a clone goes to egress, which strips it
         * and recirculates the rest, to be parsed again from the next. */
        if (hdr.base.isValid() &&
            hdr.udp.len != 8 + 12 + hdr.base.length) {
            clone(CloneType.I2E, MORE_SESSION);
        }
        if (meta.kind == 9) {
            bit<3> cls = hdr.aeth.syndrome[7:5];
            bit<5> code = hdr.aeth.syndrome[4:0];
            if (cls == 0) {
                replies.count(0);
            } else if (cls == 1) {
                replies.count(1);
            } else if (cls == 3 && code <= 4) {
                replies.count((bit<32>)code + 2);
            } else {
                replies.count(7);
            }
            /* A PSN sequence NAK goes on to the egress of the collector's
             * port, where the PSN register lives: queued behind the
             * frames sent before it, as in the reference model (and as a
             * switch must, its registers living in one stage). */
            if (!reply_table.apply().hit || cls != 3 || code != 0) {
                mark_to_drop(sm);
            }
            return;
        }
        if (meta.kind == DTA_OP_KEY_WRITE) {
            bit<8> n;
            if (meta.legacy == 1) {
                n = hdr.lkw.redundancy;
                meta.key4 = hdr.lkw.key;
            } else {
                n = hdr.kw.redundancy;
            }
            if (!kw_table.apply().hit) {
                reports.count(2);
                return;
            }
            if (n == 0 || n > meta.copies || n > 4) {
                reports.count(3);
                mark_to_drop(sm);
                return;
            }
            /* Key checksum, CRC role 8; zero means "never written". */
            if (meta.legacy == 1) {
                hash(meta.role8, HashAlgorithm.crc32_custom, 32w0,
                     { meta.key4 }, 64w4294967296);
            } else {
                hash(meta.role8, HashAlgorithm.crc32_custom, 32w0,
                     { hdr.key13.key }, 64w4294967296);
            }
            meta.csum = meta.role8;
            if (meta.csum == 0) {
                meta.csum = 1;
            }
            sm.mcast_grp = (bit<16>)n;
            reports.count(0);
        } else if (meta.kind == DTA_OP_KEY_INCREMENT) {
            if (meta.legacy == 1) {
                meta.key4 = hdr.lki.key;
                meta.add = hdr.lki.counter;
            } else {
                meta.add = hdr.ki.counter;
            }
            if (!ki_table.apply().hit) {
                reports.count(2);
                return;
            }
            sm.mcast_grp = (bit<16>)meta.copies;
            reports.count(1);
        } else if (meta.kind == DTA_OP_POSTCARD) {
            if (!pc_table.apply().hit) {
                reports.count(2);
                return;
            }
            if (meta.flush == 1) {
                /* The timer: write the flow in cache entry ctrl.index as far
                 * as its hops run from hop 0, and free the entry. */
                bit<32> fi = hdr.ctrl.index & (PC_CACHE - 1);
                bit<8> fseen;
                bit<8> flen;
                bit<48> fsince;
                pc_seen.read(fseen, fi);
                pc_plen.read(flen, fi);
                pc_since.read(fsince, fi);
                if (fseen == 0 ||
                    sm.ingress_global_timestamp - fsince < meta.timeout) {
                    mark_to_drop(sm);   /* empty, or not old enough yet */
                    return;
                }
                bit<8> fpre = 0;
                if (fseen[0:0] == 1) {
                    fpre = 1;
                    if (fseen[1:1] == 1) {
                        fpre = 2;
                        if (fseen[2:2] == 1) {
                            fpre = 3;
                            if (fseen[3:3] == 1) {
                                fpre = 4;
                                if (fseen[4:4] == 1) {
                                    fpre = 5;
                                }
                            }
                        }
                    }
                }
                if (fpre > flen) {
                    fpre = flen;
                }
                pc_seen.write(fi, 0);
                if (fpre == 0) {
                    mark_to_drop(sm);
                    return;
                }
                pc_keys.read(meta.pc_key, fi);
                pc_legs.read(meta.pc_leg, fi);
                pc_v0.read(meta.v0, fi);
                pc_v1.read(meta.v1, fi);
                pc_v2.read(meta.v2, fi);
                pc_v3.read(meta.v3, fi);
                pc_v4.read(meta.v4, fi);
                meta.pc_len = fpre;
                sm.mcast_grp = (bit<16>)meta.copies;
                reports.count(6);
                return;
            }
            /* The flow, its hop (legacy: numbered from 1, path length
             * unknown: all hops), the value. */
            bit<104> fkey;
            bit<1> fleg;
            bit<8> hop;
            bit<8> plen;
            bit<32> val;
            bit<32> h32;
            if (meta.legacy == 1) {
                fkey = (bit<104>)hdr.lpc.key;
                fleg = 1;
                hop = hdr.lpc.hop - 1;
                plen = PC_HOPS;
                val = hdr.lpc.data;
                hash(h32, HashAlgorithm.crc32, 32w0, { hdr.lpc.key }, 64w4294967296);
                if (hdr.lpc.hop == 0) {
                    hop = 255;   /* hop 0 is malformed on the legacy wire */
                }
            } else {
                fkey = hdr.key13.key;
                fleg = 0;
                hop = hdr.pc.hop;
                plen = hdr.pc.path_len == 0 ? (bit<8>)PC_HOPS : hdr.pc.path_len;
                val = hdr.pc.value;
                hash(h32, HashAlgorithm.crc32, 32w0, { hdr.key13.key }, 64w4294967296);
            }
            if (hop >= PC_HOPS || plen > PC_HOPS) {
                reports.count(3);
                mark_to_drop(sm);
                return;
            }
            bit<32> idx = h32 & (PC_CACHE - 1);
            bit<104> k;
            bit<1> kleg;
            bit<8> seen;
            bit<8> elen;
            bit<32> a0;
            bit<32> a1;
            bit<32> a2;
            bit<32> a3;
            bit<32> a4;
            pc_keys.read(k, idx);
            pc_legs.read(kleg, idx);
            pc_seen.read(seen, idx);
            pc_plen.read(elen, idx);
            pc_v0.read(a0, idx);
            pc_v1.read(a1, idx);
            pc_v2.read(a2, idx);
            pc_v3.read(a3, idx);
            pc_v4.read(a4, idx);
            bool emit = false;
            if (seen != 0 && (k != fkey || kleg != fleg)) {
                /* Another flow holds the entry: write the evicted flow at
                 * its own chunks, as far as its hops are consecutive from
                 * hop 0, and start this flow afresh. */
                bit<8> pre = 0;
                if (seen[0:0] == 1) {
                    pre = 1;
                    if (seen[1:1] == 1) {
                        pre = 2;
                        if (seen[2:2] == 1) {
                            pre = 3;
                            if (seen[3:3] == 1) {
                                pre = 4;
                                if (seen[4:4] == 1) {
                                    pre = 5;
                                }
                            }
                        }
                    }
                }
                if (pre > elen) {
                    pre = elen;
                }
                if (pre > 0) {
                    emit = true;
                    meta.pc_key = k;
                    meta.pc_leg = kleg;
                    meta.pc_len = pre;
                    meta.v0 = a0;
                    meta.v1 = a1;
                    meta.v2 = a2;
                    meta.v3 = a3;
                    meta.v4 = a4;
                }
                seen = 0;
            }
            if (seen == 0) {
                pc_since.write(idx, sm.ingress_global_timestamp);
            }
            /* This postcard into the entry. */
            if (hop == 0) { a0 = val; }
            if (hop == 1) { a1 = val; }
            if (hop == 2) { a2 = val; }
            if (hop == 3) { a3 = val; }
            if (hop == 4) { a4 = val; }
            seen = seen | ((bit<8>)1 << hop);
            bit<8> full = ((bit<8>)1 << plen) - 1;
            if (!emit && (seen & full) == full) {
                /* Every hop of the path: write this flow, free the entry. */
                emit = true;
                meta.pc_key = fkey;
                meta.pc_leg = fleg;
                meta.pc_len = plen;
                meta.v0 = a0;
                meta.v1 = a1;
                meta.v2 = a2;
                meta.v3 = a3;
                meta.v4 = a4;
                seen = 0;
            }
            pc_keys.write(idx, fkey);
            pc_legs.write(idx, fleg);
            pc_seen.write(idx, seen);
            pc_plen.write(idx, plen);
            pc_v0.write(idx, a0);
            pc_v1.write(idx, a1);
            pc_v2.write(idx, a2);
            pc_v3.write(idx, a3);
            pc_v4.write(idx, a4);
            if (emit) {
                sm.mcast_grp = (bit<16>)meta.copies;
                reports.count(6);
            } else {
                mark_to_drop(sm);
            }
        } else if (meta.kind == DTA_OP_APPEND) {
            if (meta.flush == 1) {
                meta.list = hdr.ctrl.index;
            } else {
                meta.list = meta.legacy == 1 ? hdr.lap.list_id : hdr.ap.list_id;
            }
            if (!ap_table.apply().hit) {
                reports.count(2);
                return;
            }
            reports.count(5);
        } else {
            reports.count(4);
            mark_to_drop(sm);
        }
    }
}

/* ---- egress: one copy, one RoCEv2 frame ---- */

control DtaEgress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t sm) {
    /* Addresses: ours (as the collector knows us) and the collector's,
     * and each queue pair's collector QPN. */
    action roce_addresses(bit<48> smac, bit<48> dmac, bit<32> sip,
                          bit<32> dip) {
        hdr.ethernet.src = smac;
        hdr.ethernet.dst = dmac;
        hdr.ipv4.src = sip;
        hdr.ipv4.dst = dip;
    }
    table addr_table {
        actions = { roce_addresses; }
        default_action = roce_addresses(0, 0, 0, 0);
    }
    action qp_dest(bit<24> dqpn, bit<16> sport) {
        hdr.bth.dqpn = dqpn;
        hdr.udp.sport = sport;
    }
    table qp_table {
        key = { meta.qp: exact; }
        actions = { qp_dest; }
        default_action = qp_dest(0, 49152);
        size = MAX_QPS;
    }

    apply {
        bit<16> n = sm.egress_rid;   /* copy index */
        bit<24> psn;
        bit<16> ipid;
        bit<64> index;

        if (sm.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE) {
            /* The reports after the first: drop the first and send the
             * rest round again. A datagram shorter than its first
             * report's length says is malformed: nothing follows. */
            bit<16> first = 12 + hdr.base.length;
            if (hdr.udp.len < 8 + first) {
                mark_to_drop(sm);
                return;
            }
            hdr.udp.len = hdr.udp.len - first;
            hdr.ipv4.total_len = hdr.ipv4.total_len - first;
            hdr.base.setInvalid();
            hdr.kw.setInvalid();
            hdr.ki.setInvalid();
            hdr.ap.setInvalid();
            hdr.pc.setInvalid();
            hdr.key13.setInvalid();
            hdr.data4.setInvalid();
            hdr.data20.setInvalid();
            recirculate_preserving_field_list(0);
            return;
        }
        if (meta.kind == 9) {
            /* A PSN sequence NAK: the responder expects bth.psn. */
            psn_reg.write((bit<32>)meta.qp, hdr.bth.psn);
            mark_to_drop(sm);
            return;
        }

        bit<32> apseq = 0;
        bit<32> apfirst = 0;
        bit<32> e0 = 0;
        bit<32> e1 = 0;
        bit<32> e2 = 0;
        bit<16> apcount = AP_BATCH;
        if (meta.kind == DTA_OP_APPEND) {
            /* Collect the entry; a frame leaves with every AP_BATCH-th. */
            bit<32> li = meta.h + meta.list;   /* register index of the list */
            bit<8> count;
            ap_count.read(count, li);
            bit<48> since;
            ap_since.read(since, li);
            if (meta.flush == 1) {
                /* The timer: write what the batch has, if it is old
                 * enough. */
                if (count == 0 ||
                    sm.egress_global_timestamp - since < meta.timeout) {
                    mark_to_drop(sm);
                    return;
                }
                meta.entry = 0;
            } else if (count < AP_BATCH - 1) {
                if (count == 0) {
                    ap_since.write(li, sm.egress_global_timestamp);
                }
                ap_entries.write(li * AP_BATCH + (bit<32>)count, meta.entry);
                ap_count.write(li, count + 1);
                mark_to_drop(sm);
                return;
            }
            ap_count.write(li, 0);
            ap_entries.read(e0, li * AP_BATCH);
            ap_entries.read(e1, li * AP_BATCH + 1);
            ap_entries.read(e2, li * AP_BATCH + 2);
            ap_seq.read(apseq, li);
            apseq = apseq + 1;
            if (apseq == 0) {
                apseq = 1;   /* 0 means "never written" */
            }
            ap_seq.write(li, apseq);
            ap_next.read(apfirst, li);
            if (meta.flush == 1) {
                apcount = (bit<16>)count;
                /* Entries past the count are zero in the frame. */
                if (count < 3) { e2 = 0; }
                if (count < 2) { e1 = 0; }
            } else {
                count = AP_BATCH;
            }
            ap_next.write(li, apfirst + (bit<32>)count);
        }

        /* Slot (or counter) of copy n: CRC role n of the key. Each role
         * is its own calculation (named after its output field, so the
         * control plane can find it and set role n's polynomial). */
        if (meta.kind == DTA_OP_POSTCARD && meta.pc_leg == 1) {
            /* A legacy flow: its key is 4 bytes. */
            bit<32> k4 = meta.pc_key[31:0];
            hash(meta.role0, HashAlgorithm.crc32_custom, 32w0, { k4 }, 64w4294967296);
            hash(meta.role1, HashAlgorithm.crc32_custom, 32w0, { k4 }, 64w4294967296);
            hash(meta.role2, HashAlgorithm.crc32_custom, 32w0, { k4 }, 64w4294967296);
            hash(meta.role3, HashAlgorithm.crc32_custom, 32w0, { k4 }, 64w4294967296);
        } else if (meta.kind == DTA_OP_POSTCARD) {
            /* The chunk's flow: this one, or the one evicted. */
            hash(meta.role0, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
            hash(meta.role1, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
            hash(meta.role2, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
            hash(meta.role3, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
        } else if (meta.legacy == 1) {
            hash(meta.role0, HashAlgorithm.crc32_custom, 32w0, { meta.key4 }, 64w4294967296);
            hash(meta.role1, HashAlgorithm.crc32_custom, 32w0, { meta.key4 }, 64w4294967296);
            hash(meta.role2, HashAlgorithm.crc32_custom, 32w0, { meta.key4 }, 64w4294967296);
            hash(meta.role3, HashAlgorithm.crc32_custom, 32w0, { meta.key4 }, 64w4294967296);
        } else {
            hash(meta.role0, HashAlgorithm.crc32_custom, 32w0, { hdr.key13.key }, 64w4294967296);
            hash(meta.role1, HashAlgorithm.crc32_custom, 32w0, { hdr.key13.key }, 64w4294967296);
            hash(meta.role2, HashAlgorithm.crc32_custom, 32w0, { hdr.key13.key }, 64w4294967296);
            hash(meta.role3, HashAlgorithm.crc32_custom, 32w0, { hdr.key13.key }, 64w4294967296);
        }
        if (n == 0) {
            meta.h = meta.role0;
        } else if (n == 1) {
            meta.h = meta.role1;
        } else if (n == 2) {
            meta.h = meta.role2;
        } else {
            meta.h = meta.role3;
        }
        /* libdta reduces modulo the slot count, which for a power of two
         * is this mask (a switch has no modulo; the control plane refuses
         * other geometries). */
        index = (bit<64>)meta.h & meta.mask;

        psn_reg.read(psn, (bit<32>)meta.qp);
        psn_reg.write((bit<32>)meta.qp, psn + 1);
        ipid_reg.read(ipid, (bit<32>)meta.qp);
        ipid_reg.write((bit<32>)meta.qp, ipid + 1);

        /* Ethernet, IPv4, UDP, BTH */
        addr_table.apply();
        hdr.ethernet.ether_type = 0x0800;
        hdr.ipv4.tos = 0;
        hdr.ipv4.id = ipid;
        hdr.ipv4.flags = 2;  /* don't fragment */
        hdr.ipv4.frag = 0;
        hdr.ipv4.ttl = 64;
        hdr.udp.dport = ROCE_UDP_PORT;
        hdr.udp.csum = 0;
        hdr.bth.setValid();
        hdr.bth.se = 0;
        hdr.bth.migreq = 0;
        hdr.bth.pad = 0;
        hdr.bth.tver = 0;
        hdr.bth.pkey = 0xFFFF;
        hdr.bth.resv8a = 0;
        hdr.bth.ackreq = 1;
        hdr.bth.resv7 = 0;
        hdr.bth.psn = psn;
        qp_table.apply();

        if (meta.kind == DTA_OP_KEY_WRITE) {
            hdr.bth.opcode = OP_WRITE_ONLY;
            hdr.reth.setValid();
            hdr.reth.va = meta.base_addr + index * (bit<64>)meta.slot_size;
            hdr.reth.rkey = meta.rkey;
            hdr.reth.len = meta.slot_size;
            hdr.slot_csum.setValid();
            hdr.slot_csum.csum = meta.csum;
            if (meta.legacy == 1) {
                hdr.data4.setValid();
                hdr.data4.data = hdr.lkw.data;
            }
        } else if (meta.kind == DTA_OP_POSTCARD) {
            /* Slot i: hop checksum (CRC role 10 + i of the flow) XOR the
             * value code g(v_i) (CRC role 9 of the value), or XOR g(blank)
             * past the path (docs/layouts.md). */
            if (meta.pc_leg == 1) {
                bit<32> lk = meta.pc_key[31:0];
                hash(meta.role10, HashAlgorithm.crc32_custom, 32w0, { lk }, 64w4294967296);
                hash(meta.role11, HashAlgorithm.crc32_custom, 32w0, { lk }, 64w4294967296);
                hash(meta.role12, HashAlgorithm.crc32_custom, 32w0, { lk }, 64w4294967296);
                hash(meta.role13, HashAlgorithm.crc32_custom, 32w0, { lk }, 64w4294967296);
                hash(meta.role14, HashAlgorithm.crc32_custom, 32w0, { lk }, 64w4294967296);
            } else {
                hash(meta.role10, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
                hash(meta.role11, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
                hash(meta.role12, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
                hash(meta.role13, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
                hash(meta.role14, HashAlgorithm.crc32_custom, 32w0, { meta.pc_key }, 64w4294967296);
            }
            hash(meta.role9_0, HashAlgorithm.crc32_custom, 32w0, { meta.v0 }, 64w4294967296);
            hash(meta.role9_1, HashAlgorithm.crc32_custom, 32w0, { meta.v1 }, 64w4294967296);
            hash(meta.role9_2, HashAlgorithm.crc32_custom, 32w0, { meta.v2 }, 64w4294967296);
            hash(meta.role9_3, HashAlgorithm.crc32_custom, 32w0, { meta.v3 }, 64w4294967296);
            hash(meta.role9_4, HashAlgorithm.crc32_custom, 32w0, { meta.v4 }, 64w4294967296);
            hdr.bth.opcode = OP_WRITE_ONLY;
            hdr.reth.setValid();
            hdr.reth.va = meta.base_addr + index * PC_CHUNK;
            hdr.reth.rkey = meta.rkey;
            hdr.reth.len = PC_CHUNK;
            hdr.pc_chunk.setValid();
            if (meta.pc_raw == 1) {
                /* The prototype family (docs/layouts.md): values stored
                 * unencoded, hops past the path raw zeros. */
                meta.role9_0 = meta.v0;
                meta.role9_1 = meta.v1;
                meta.role9_2 = meta.v2;
                meta.role9_3 = meta.v3;
                meta.role9_4 = meta.v4;
            }
            hdr.pc_chunk.s0 = meta.role10 ^ (meta.pc_len > 0 ? meta.role9_0 : meta.blank);
            hdr.pc_chunk.s1 = meta.role11 ^ (meta.pc_len > 1 ? meta.role9_1 : meta.blank);
            hdr.pc_chunk.s2 = meta.role12 ^ (meta.pc_len > 2 ? meta.role9_2 : meta.blank);
            hdr.pc_chunk.s3 = meta.role13 ^ (meta.pc_len > 3 ? meta.role9_3 : meta.blank);
            hdr.pc_chunk.s4 = meta.role14 ^ (meta.pc_len > 4 ? meta.role9_4 : meta.blank);
            if (meta.pc_raw == 1) {
                if (meta.pc_len <= 1) { hdr.pc_chunk.s1 = 0; }
                if (meta.pc_len <= 2) { hdr.pc_chunk.s2 = 0; }
                if (meta.pc_len <= 3) { hdr.pc_chunk.s3 = 0; }
                if (meta.pc_len <= 4) { hdr.pc_chunk.s4 = 0; }
            }
            hdr.pc_chunk.pad = 0;
        } else if (meta.kind == DTA_OP_APPEND) {
            /* Frame (list, (seq - 1) mod ring) of the list's ring */
            hdr.bth.opcode = OP_WRITE_ONLY;
            hdr.reth.setValid();
            hdr.reth.va = meta.base_addr +
                (((bit<64>)meta.list * meta.slots) +
                 ((bit<64>)(apseq - 1) & meta.mask)) * AP_FRAME;
            hdr.reth.rkey = meta.rkey;
            hdr.reth.len = AP_FRAME;
            hdr.ap_frame.setValid();
            hdr.ap_frame.seq = apseq;
            hdr.ap_frame.first = apfirst;
            hdr.ap_frame.e0 = e0;
            hdr.ap_frame.e1 = e1;
            hdr.ap_frame.e2 = e2;
            hdr.ap_frame.e3 = meta.entry;
            hdr.ap_frame.tseq = apseq;
            hdr.ap_frame.count = apcount;
            hdr.ap_frame.magic = AP_TRAILER_MAGIC;
            hdr.data4.setInvalid();
        } else {
            hdr.bth.opcode = OP_FETCH_ADD;
            hdr.atomiceth.setValid();
            /* row n of bank 0: ((row * width) + index) * 8 */
            hdr.atomiceth.va = meta.base_addr +
                               (((bit<64>)n * meta.slots) + index) * 8;
            hdr.atomiceth.rkey = meta.rkey;
            hdr.atomiceth.add = meta.add;
            hdr.atomiceth.cmp = 0;
        }
        /* The report is gone; the frame remains. */
        hdr.base.setInvalid();
        hdr.kw.setInvalid();
        hdr.ki.setInvalid();
        hdr.lbase.setInvalid();
        hdr.lnbase.setInvalid();
        hdr.lkw.setInvalid();
        hdr.lki.setInvalid();
        hdr.ap.setInvalid();
        hdr.lap.setInvalid();
        hdr.pc.setInvalid();
        hdr.lpc.setInvalid();
        hdr.key13.setInvalid();

        /* Lengths: IPv4 20 + UDP 8 + BTH 12 + rest + ICRC 4 */
        bit<16> rest;
        if (hdr.pc_chunk.isValid()) {
            rest = 16 + PC_CHUNK;
        } else if (hdr.ap_frame.isValid()) {
            rest = 16 + AP_FRAME;
        } else if (hdr.reth.isValid()) {
            rest = 16 + 4 + (meta.data20 == 1 ? 16w20 : 16w4);
        } else {
            rest = 28;
        }
        hdr.ipv4.total_len = 20 + 8 + 12 + rest + 4;
        hdr.udp.len = 8 + 12 + rest + 4;

        /* ICRC (annex A17): CRC-32 over 8 bytes of ones, the IPv4 header
         * with TOS, TTL and checksum all ones, the UDP header with its
         * checksum all ones, the BTH with FECN/BECN/reserved all ones, and
         * the rest of the packet; sent least significant byte first. */
        bit<32> c = 0;
        if (hdr.atomiceth.isValid()) {
            hash(c, HashAlgorithm.crc32, 32w0,
                 { 64w0xFFFFFFFFFFFFFFFF,
                   hdr.ipv4.version, hdr.ipv4.ihl, 8w0xFF, hdr.ipv4.total_len,
                   hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, 8w0xFF,
                   hdr.ipv4.protocol, 16w0xFFFF, hdr.ipv4.src, hdr.ipv4.dst,
                   hdr.udp.sport, hdr.udp.dport, hdr.udp.len, 16w0xFFFF,
                   hdr.bth.opcode, hdr.bth.se, hdr.bth.migreq, hdr.bth.pad,
                   hdr.bth.tver, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn,
                   hdr.bth.ackreq, hdr.bth.resv7, hdr.bth.psn,
                   hdr.atomiceth.va, hdr.atomiceth.rkey, hdr.atomiceth.add,
                   hdr.atomiceth.cmp },
                 64w4294967296);
        } else if (hdr.pc_chunk.isValid()) {
            hash(c, HashAlgorithm.crc32, 32w0,
                 { 64w0xFFFFFFFFFFFFFFFF,
                   hdr.ipv4.version, hdr.ipv4.ihl, 8w0xFF, hdr.ipv4.total_len,
                   hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, 8w0xFF,
                   hdr.ipv4.protocol, 16w0xFFFF, hdr.ipv4.src, hdr.ipv4.dst,
                   hdr.udp.sport, hdr.udp.dport, hdr.udp.len, 16w0xFFFF,
                   hdr.bth.opcode, hdr.bth.se, hdr.bth.migreq, hdr.bth.pad,
                   hdr.bth.tver, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn,
                   hdr.bth.ackreq, hdr.bth.resv7, hdr.bth.psn,
                   hdr.reth.va, hdr.reth.rkey, hdr.reth.len,
                   hdr.pc_chunk.s0, hdr.pc_chunk.s1, hdr.pc_chunk.s2,
                   hdr.pc_chunk.s3, hdr.pc_chunk.s4, hdr.pc_chunk.pad },
                 64w4294967296);
        } else if (hdr.ap_frame.isValid()) {
            hash(c, HashAlgorithm.crc32, 32w0,
                 { 64w0xFFFFFFFFFFFFFFFF,
                   hdr.ipv4.version, hdr.ipv4.ihl, 8w0xFF, hdr.ipv4.total_len,
                   hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, 8w0xFF,
                   hdr.ipv4.protocol, 16w0xFFFF, hdr.ipv4.src, hdr.ipv4.dst,
                   hdr.udp.sport, hdr.udp.dport, hdr.udp.len, 16w0xFFFF,
                   hdr.bth.opcode, hdr.bth.se, hdr.bth.migreq, hdr.bth.pad,
                   hdr.bth.tver, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn,
                   hdr.bth.ackreq, hdr.bth.resv7, hdr.bth.psn,
                   hdr.reth.va, hdr.reth.rkey, hdr.reth.len,
                   hdr.ap_frame.seq, hdr.ap_frame.first, hdr.ap_frame.e0,
                   hdr.ap_frame.e1, hdr.ap_frame.e2, hdr.ap_frame.e3,
                   hdr.ap_frame.tseq, hdr.ap_frame.count,
                   hdr.ap_frame.magic },
                 64w4294967296);
        } else if (hdr.data20.isValid()) {
            hash(c, HashAlgorithm.crc32, 32w0,
                 { 64w0xFFFFFFFFFFFFFFFF,
                   hdr.ipv4.version, hdr.ipv4.ihl, 8w0xFF, hdr.ipv4.total_len,
                   hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, 8w0xFF,
                   hdr.ipv4.protocol, 16w0xFFFF, hdr.ipv4.src, hdr.ipv4.dst,
                   hdr.udp.sport, hdr.udp.dport, hdr.udp.len, 16w0xFFFF,
                   hdr.bth.opcode, hdr.bth.se, hdr.bth.migreq, hdr.bth.pad,
                   hdr.bth.tver, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn,
                   hdr.bth.ackreq, hdr.bth.resv7, hdr.bth.psn,
                   hdr.reth.va, hdr.reth.rkey, hdr.reth.len,
                   hdr.slot_csum.csum, hdr.data20.data },
                 64w4294967296);
        } else if (hdr.data4.isValid()) {
            hash(c, HashAlgorithm.crc32, 32w0,
                 { 64w0xFFFFFFFFFFFFFFFF,
                   hdr.ipv4.version, hdr.ipv4.ihl, 8w0xFF, hdr.ipv4.total_len,
                   hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, 8w0xFF,
                   hdr.ipv4.protocol, 16w0xFFFF, hdr.ipv4.src, hdr.ipv4.dst,
                   hdr.udp.sport, hdr.udp.dport, hdr.udp.len, 16w0xFFFF,
                   hdr.bth.opcode, hdr.bth.se, hdr.bth.migreq, hdr.bth.pad,
                   hdr.bth.tver, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn,
                   hdr.bth.ackreq, hdr.bth.resv7, hdr.bth.psn,
                   hdr.reth.va, hdr.reth.rkey, hdr.reth.len,
                   hdr.slot_csum.csum, hdr.data4.data },
                 64w4294967296);
        }
        hdr.icrc.setValid();
        hdr.icrc.icrc = c[7:0] ++ c[15:8] ++ c[23:16] ++ c[31:24];
        /* Reports after the first are still payload: cut them off. */
        truncate((bit<32>)(14 + hdr.ipv4.total_len));
    }
}

control DtaComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos,
              hdr.ipv4.total_len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.csum, HashAlgorithm.csum16);
    }
}

control DtaDeparser(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.bth);
        pkt.emit(hdr.reth);
        pkt.emit(hdr.atomiceth);
        pkt.emit(hdr.slot_csum);
        pkt.emit(hdr.ap_frame);
        pkt.emit(hdr.pc_chunk);
        pkt.emit(hdr.data4);
        pkt.emit(hdr.data20);
        pkt.emit(hdr.icrc);
    }
}

V1Switch(DtaParser(), DtaVerify(), DtaIngress(), DtaEgress(),
         DtaComputeChecksum(), DtaDeparser()) main;
