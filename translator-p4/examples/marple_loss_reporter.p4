/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Marple-style loss reporter on DTA (v1model): Marple's "lossy flows"
 * query counts, per TCP flow, packets that retransmit data already seen
 * (a sequence number not above the highest one seen). Instead of keeping
 * the counts on the switch, every retransmission becomes a DTA
 * Key-Increment report "flow F: +1", which the translator turns into
 * fetch-and-adds on the collector's count-min sketch (dta-query ki get).
 *
 * Control plane: table_set_default loss_config set_loss <our IP>
 * <translator IP> <reporter id> <rows>; mirroring_add 1 <port towards the
 * translator>; table_set_default fwd set_port <port>.
 */
#include <core.p4>
#include <v1model.p4>

#include "../include/dta_reporter.p4"

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
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

header tcp_t {       /* up to the sequence number */
    bit<16> sport;
    bit<16> dport;
    bit<32> seq;
}

struct headers {
    ethernet_t   eth;
    ipv4_t       ipv4;
    tcp_t        tcp;
    dta_report_t dta;
}

struct metadata {
    bit<32> my_ip;
    bit<32> translator_ip;
    bit<16> reporter;
    bit<8>  rows;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, 6): tcp;
            default: accept;
        }
    }
    state tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }
}

control V(inout headers hdr, inout metadata meta) { apply { } }

/* Highest sequence number seen per flow slot (+1; 0 = never seen). */
register<bit<32>>(4096) max_seq;

control I(inout headers hdr, inout metadata meta,
          inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; }
    table fwd {
        key = { hdr.ipv4.dst: lpm; }
        actions = { set_port; }
        default_action = set_port(1);
    }
    apply {
        if (!hdr.tcp.isValid()) {
            return;
        }
        fwd.apply();
        bit<12> slot;
        bit<32> seen;
        hash(slot, HashAlgorithm.crc16, 12w0,
             { hdr.ipv4.src, hdr.ipv4.dst, hdr.tcp.sport, hdr.tcp.dport },
             13w4096);
        max_seq.read(seen, (bit<32>)slot);
        if (seen != 0 && hdr.tcp.seq + 1 <= seen) {
            clone(CloneType.I2E, 1);   /* a retransmission: report it */
        } else {
            max_seq.write((bit<32>)slot, hdr.tcp.seq + 1);
        }
    }
}

control E(inout headers hdr, inout metadata meta,
          inout standard_metadata_t sm) {
    action set_loss(bit<32> my_ip, bit<32> translator_ip, bit<16> reporter,
                    bit<8> rows) {
        meta.my_ip = my_ip;
        meta.translator_ip = translator_ip;
        meta.reporter = reporter;
        meta.rows = rows;
    }
    table loss_config {
        actions = { set_loss; }
        default_action = set_loss(0, 0, 0, 2);
    }
    DtaKeyIncrement() report;
    apply {
        if (sm.instance_type == 1) {
            loss_config.apply();
            report.apply(hdr.dta, meta.my_ip, meta.translator_ip,
                         meta.reporter,
                         hdr.ipv4.src ++ hdr.ipv4.dst ++ hdr.tcp.sport ++
                         hdr.tcp.dport ++ hdr.ipv4.protocol,
                         64w1, meta.rows);
            hdr.ipv4.setInvalid();
            hdr.tcp.setInvalid();
            /* Ethernet + IPv4 + UDP + base + Key-Increment + key */
            truncate(14 + 20 + 8 + 12 + 12 + 13);
        }
    }
}

control C(inout headers hdr, inout metadata meta) {
    DtaReportChecksum() report_csum;
    apply { report_csum.apply(hdr.dta); }
}

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.dta);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
    }
}

V1Switch(P(), V(), I(), E(), C(), D()) main;
