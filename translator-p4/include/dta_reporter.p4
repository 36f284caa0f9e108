/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DTA reporter controls for P4 programs (INT, Marple, ...) that want to
 * send their telemetry as DTA reports instead of plain UDP: put a
 * dta_report_t in your headers struct, turn a packet (usually an egress
 * clone) into a report with one of the controls below, and emit it in
 * your deparser right after your Ethernet header:
 *
 *     struct headers { ethernet_t eth; ...; dta_report_t dta; }
 *     ...
 *     DtaPostcard() pc;
 *     pc.apply(hdr.dta, my_ip, translator_ip, REPORTER_ID, flow, hop, 5, sw_id);
 *     ...
 *     pkt.emit(hdr.eth); pkt.emit(hdr.dta);
 *
 * Each control makes the whole IPv4/UDP datagram to port 40040 (checksum:
 * call DtaReportChecksum in your checksum control) with a v1 report
 * (docs/wire-format.md) numbered by a per-control sequence register, so
 * the translator counts lost reports. Invalidate the original packet's
 * other headers and truncate its payload (truncate() in v1model) yourself.
 * examples/ has an INT postcard reporter and a Marple-style loss reporter.
 */
#ifndef DTA_REPORTER_P4
#define DTA_REPORTER_P4

#include "dta_headers.p4"

header dta_ipv4_h {
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

header dta_udp_h {
    bit<16> sport;
    bit<16> dport;
    bit<16> len;
    bit<16> csum;
}

/* A report datagram, in wire order. */
struct dta_report_t {
    dta_ipv4_h   ipv4;
    dta_udp_h    udp;
    dta_base_h   base;
    dta_kw_h     kw;
    dta_pc_h     pc;
    dta_ap_h     ap;
    dta_ki_h     ki;
    dta_key13_h  key13;
    dta_data4_h  data4;
    dta_data20_h data20;
}

/* IPv4 + UDP + base header for a body of @body bytes. */
control DtaReportHead(inout dta_report_t r, in bit<32> src, in bit<32> dst,
                      in bit<16> reporter, in bit<8> opcode, in bit<16> body) {
    register<bit<32>>(1) seq;

    apply {
        bit<32> s;
        seq.read(s, 0);
        seq.write(0, s + 1);
        r.ipv4.setValid();
        r.ipv4.version = 4;
        r.ipv4.ihl = 5;
        r.ipv4.tos = 0;
        r.ipv4.total_len = 20 + 8 + 12 + body;
        r.ipv4.id = s[15:0];
        r.ipv4.flags = 2;
        r.ipv4.frag = 0;
        r.ipv4.ttl = 64;
        r.ipv4.protocol = 17;
        r.ipv4.csum = 0;
        r.ipv4.src = src;
        r.ipv4.dst = dst;
        r.udp.setValid();
        r.udp.sport = 40040;
        r.udp.dport = DTA_UDP_PORT;
        r.udp.len = 8 + 12 + body;
        r.udp.csum = 0;
        r.base.setValid();
        r.base.version = DTA_V1_MAGIC;
        r.base.opcode = opcode;
        r.base.flags = 0;
        r.base.reserved = 0;
        r.base.length = body;
        r.base.reporter = reporter;
        r.base.seq = s;
    }
}

/* INT postcard: hop @hop of @path_len on flow @flow (an IPv4 5-tuple)
 * saw value @value (e.g. the switch id). */
control DtaPostcard(inout dta_report_t r, in bit<32> src, in bit<32> dst,
                    in bit<16> reporter, in bit<104> flow, in bit<8> hop,
                    in bit<8> path_len, in bit<32> value) {
    DtaReportHead() head;
    apply {
        head.apply(r, src, dst, reporter, DTA_OP_POSTCARD, 8 + 13);
        r.pc.setValid();
        r.pc.hop = hop;
        r.pc.path_len = path_len;
        r.pc.key_len = 13;
        r.pc.reserved = 0;
        r.pc.value = value;
        r.key13.setValid();
        r.key13.key = flow;
    }
}

/* Key-Write: @data (a 5-hop INT path) for @key, in @n copies. */
control DtaKeyWrite(inout dta_report_t r, in bit<32> src, in bit<32> dst,
                    in bit<16> reporter, in bit<104> key, in bit<160> data,
                    in bit<8> n) {
    DtaReportHead() head;
    apply {
        head.apply(r, src, dst, reporter, DTA_OP_KEY_WRITE, 4 + 13 + 20);
        r.kw.setValid();
        r.kw.redundancy = n;
        r.kw.key_len = 13;
        r.kw.data_len = 20;
        r.key13.setValid();
        r.key13.key = key;
        r.data20.setValid();
        r.data20.data = data;
    }
}

/* Key-Increment: add @amount to @key's count (count-min, @n rows). */
control DtaKeyIncrement(inout dta_report_t r, in bit<32> src, in bit<32> dst,
                        in bit<16> reporter, in bit<104> key,
                        in bit<64> amount, in bit<8> n) {
    DtaReportHead() head;
    apply {
        head.apply(r, src, dst, reporter, DTA_OP_KEY_INCREMENT, 12 + 13);
        r.ki.setValid();
        r.ki.redundancy = n;
        r.ki.key_len = 13;
        r.ki.reserved = 0;
        r.ki.counter = amount;
        r.key13.setValid();
        r.key13.key = key;
    }
}

/* Append: a 4-byte event @data to list @list_id. */
control DtaAppend(inout dta_report_t r, in bit<32> src, in bit<32> dst,
                  in bit<16> reporter, in bit<32> list_id, in bit<32> data) {
    DtaReportHead() head;
    apply {
        head.apply(r, src, dst, reporter, DTA_OP_APPEND, 8 + 4);
        r.ap.setValid();
        r.ap.list_id = list_id;
        r.ap.data_len = 4;
        r.ap.reserved = 0;
        r.data4.setValid();
        r.data4.data = data;
    }
}

/* The report's IPv4 header checksum; call from your checksum control. */
control DtaReportChecksum(inout dta_report_t r) {
    apply {
        update_checksum(r.ipv4.isValid(),
            { r.ipv4.version, r.ipv4.ihl, r.ipv4.tos, r.ipv4.total_len,
              r.ipv4.id, r.ipv4.flags, r.ipv4.frag, r.ipv4.ttl,
              r.ipv4.protocol, r.ipv4.src, r.ipv4.dst },
            r.ipv4.csum, HashAlgorithm.csum16);
    }
}

#endif
