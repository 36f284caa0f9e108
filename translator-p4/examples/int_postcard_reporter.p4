/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An INT postcard reporter on DTA (v1model): forwards IPv4 as usual, and
 * for every packet sends the translator a DTA Postcarding report "flow F
 * passed this switch as hop H of P" with this switch's id as the value,
 * instead of an INT-over-UDP postcard. The report is an ingress-to-egress
 * clone (mirroring session 1) turned into a report in egress by
 * dta_reporter.p4's DtaPostcard.
 *
 * Control plane: table_set_default int_config set_int <hop> <path_len>
 * <switch_id> <our IP> <translator IP> <reporter id>; mirroring_add 1
 * <port towards the translator>; table_set_default fwd set_port <port>.
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

header ports_t {      /* the first four bytes of TCP and UDP */
    bit<16> sport;
    bit<16> dport;
}

struct headers {
    ethernet_t   eth;
    ipv4_t       ipv4;
    ports_t      ports;
    dta_report_t dta;
}

struct metadata {
    bit<8>  hop;
    bit<8>  path_len;
    bit<32> switch_id;
    bit<32> my_ip;
    bit<32> translator_ip;
    bit<16> reporter;
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
            (5, 6): ports;
            (5, 17): ports;
            default: accept;
        }
    }
    state ports {
        pkt.extract(hdr.ports);
        transition accept;
    }
}

control V(inout headers hdr, inout metadata meta) { apply { } }

control I(inout headers hdr, inout metadata meta,
          inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; }
    table fwd {
        key = { hdr.ipv4.dst: lpm; }
        actions = { set_port; }
        default_action = set_port(1);
    }
    apply {
        if (hdr.ports.isValid()) {
            fwd.apply();
            clone(CloneType.I2E, 1);   /* the postcard */
        }
    }
}

control E(inout headers hdr, inout metadata meta,
          inout standard_metadata_t sm) {
    action set_int(bit<8> hop, bit<8> path_len, bit<32> switch_id,
                   bit<32> my_ip, bit<32> translator_ip, bit<16> reporter) {
        meta.hop = hop;
        meta.path_len = path_len;
        meta.switch_id = switch_id;
        meta.my_ip = my_ip;
        meta.translator_ip = translator_ip;
        meta.reporter = reporter;
    }
    table int_config {
        actions = { set_int; }
        default_action = set_int(0, 1, 1, 0, 0, 0);
    }
    DtaPostcard() postcard;
    apply {
        if (sm.instance_type == 1) {   /* the ingress clone */
            int_config.apply();
            postcard.apply(hdr.dta, meta.my_ip, meta.translator_ip,
                           meta.reporter,
                           hdr.ipv4.src ++ hdr.ipv4.dst ++ hdr.ports.sport ++
                           hdr.ports.dport ++ hdr.ipv4.protocol,
                           meta.hop, meta.path_len, meta.switch_id);
            hdr.ipv4.setInvalid();
            hdr.ports.setInvalid();
            /* Ethernet + IPv4 + UDP + base + postcard + key */
            truncate(14 + 20 + 8 + 12 + 8 + 13);
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
        pkt.emit(hdr.ports);
    }
}

V1Switch(P(), V(), I(), E(), C(), D()) main;
