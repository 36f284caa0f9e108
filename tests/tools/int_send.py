#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Send a fixed set of INT telemetry report datagrams (docs/int.md) to
HOST:PORT (or, with --pcap FILE, write them there as Ethernet/IPv4/UDP
frames to HOST:PORT; --congestion first adds a v1.0 congestion report and a v1.0 report of
an IPv6 flow),
assembled by hand from the Telemetry Report v0.5/v1.0/v2.0 and
INT v2.1 field tables, for tests/e2e/int_reports.sh. Prints the number of
datagrams sent. Standard library only."""
import socket
import struct
import sys


def ip4_udp(src, ttl, dscp=0, extra=b""):
    """IPv4 10.0.0.SRC -> 10.0.0.2, UDP 1234 -> 80 (RFC 791, RFC 768)."""
    tot = 28 + len(extra)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2, tot, 1, 0, ttl, 17, 0,
                     bytes([10, 0, 0, src]), bytes([10, 0, 0, 2]))
    return ip + struct.pack("!HHHH", 1234, 80, 8 + len(extra), 0) + extra


def eth(payload):
    return bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00]) + payload


def v05_local(sw, seq, ttl, src):
    """v0.5 NProto 2: fixed header (F=1, hw_id 1), switch local header."""
    hdr = struct.pack("!BBBBII", 0x02, 0x20, 0x00, 0x01, seq, 1000 * sw)
    loc = struct.pack("!IHHI I".replace(" ", ""), sw, 1, 2,
                      (3 << 24) | (100 * sw), 1000 * sw + 7)
    return hdr + loc + eth(ip4_udp(src, ttl))


def v10_drop(sw, seq, src, reason):
    """v1.0, D=1, hw_id 2, RepMdBits bit 0 (ports) and bit 4 (drop)."""
    md_bits = 0b100010  # bit 0 is the MSB of the 6-bit field
    length = 4 + 2
    b0 = 0x10 | length
    b1 = (1 << 5) | (md_bits >> 1)       # NProt 1 (IPv4) | RepMdBits[0:5]
    b2 = ((md_bits & 1) << 7) | 0x01     # RepMdBits[5] | reserved | D
    b3 = 0x02                            # Q=0 F=0 | hw_id 2
    hdr = struct.pack("!BBBBIII", b0, b1, b2, b3, sw, seq, 0x1000)
    md = struct.pack("!HH", 5, 6) + struct.pack("!BBH", 1, reason, 0)
    return hdr + md + ip4_udp(src, 60)


def v10_congestion(sw, seq, src):
    """v1.0, Q=1, hw_id 2, RepMdBits bit 0 (ports) and bit 2 (queue id and
    occupancy)."""
    md_bits = 0b101000  # bit 0 is the MSB of the 6-bit field
    length = 4 + 2
    b0 = 0x10 | length
    b1 = (1 << 5) | (md_bits >> 1)       # NProt 1 (IPv4) | RepMdBits[0:5]
    b2 = (md_bits & 1) << 7              # RepMdBits[5] | reserved | D=0
    b3 = 0x80 | 0x02                     # Q=1 F=0 | hw_id 2
    hdr = struct.pack("!BBBBIII", b0, b1, b2, b3, sw, seq, 0x2000)
    md = struct.pack("!HH", 7, 8) + struct.pack("!I", (4 << 24) | 300)
    return hdr + md + ip4_udp(src, 60)


def v10_ip6(sw, seq):
    """v1.0, no flags, no metadata, NProt 2: an IPv6 packet
    [2001:db8::1]:1234 -> [2001:db8::2]:80 UDP (RFC 8200)."""
    b0 = 0x10 | 4
    b1 = 2 << 5                          # NProt 2 (IPv6), RepMdBits 0
    hdr = struct.pack("!BBBBIII", b0, b1, 0, 0x02, sw, seq, 0x3000)
    a = socket.inet_pton(socket.AF_INET6, "2001:db8::1")
    b = socket.inet_pton(socket.AF_INET6, "2001:db8::2")
    ip6 = struct.pack("!IHBB16s16s", 0x60000000, 8, 17, 60, a, b)
    return hdr + ip6 + struct.pack("!HHHH", 1234, 80, 8, 0)


def v20_md(node, seq, src, path):
    """v2.0 group, one INT report (InType IPv4) whose inner packet carries
    an INT-MD stack (DSCP 1): node id, hop latency, queue per hop."""
    stack = b""
    for sw in reversed(path):  # newest first
        stack += struct.pack("!III", sw, 10 * sw, (1 << 24) | sw)
    shim = struct.pack("!BBH", 0x10, 3 + 3 * len(path), 0)
    mdh = struct.pack("!BBBBHHHH", 0x20, 0, 3, 5, 0xB000, 0, 0, 0)
    inner = ip4_udp(src, 62, dscp=1, extra=shim + mdh + stack)
    group = struct.pack("!II", (2 << 28) | (0 << 22) | seq, node)
    words = (8 + len(inner)) // 4
    rep = struct.pack("!BBBB", 0x14, words, 0, 0x20) + bytes(8) + inner
    return group + rep


def md_hops(path, ver):
    """INT-MD stack of PATH (node id, hop latency 10 * id, queue 1 with
    occupancy id per hop, newest first) after an INT v1.0 (ver 1) or v0.5
    (ver 0) shim: 8-bit Type 1, Length in words counting the shim (and the
    v0.5 tail), 8-byte metadata header (INT.mdk telemetry_v1.0 "INT
    Hop-by-Hop Metadata Header Format", telemetry_v0.5 "INT Metadata
    Header and Metadata Stack")."""
    stack = b"".join(struct.pack("!III", sw, 10 * sw, (1 << 24) | sw)
                     for sw in reversed(path))
    n = len(path)
    if ver == 1:   # Ver 1 | Hop ML 3 | Remaining 5 | bitmap 0xB000
        mdh = struct.pack("!BBBBHH", 0x10, 0, 3, 5, 0xB000, 0)
        tail = b""
    else:          # Ver 0 | InsCnt 3 | Max 8 | Total n | bitmap 0xB000
        mdh = struct.pack("!BBBBHH", 0x00, 3, 8, n, 0xB000, 0)
        tail = struct.pack("!BHB", 17, 80, 0)   # tail: UDP, port 80
    words = (4 + len(mdh) + len(stack) + len(tail)) // 4
    return struct.pack("!BBBB", 0x01, 0, words, 0) + mdh + stack + tail


def v10_md(sw, seq, src, path):
    """v1.0, F=1, no RepMdBits, NProt 1 (IPv4): an INT v1.0 stack."""
    hdr = struct.pack("!BBBBIII", 0x14, 1 << 5, 0, 0x40 | 0x02, sw, seq, 0x4000)
    return hdr + ip4_udp(src, 62, dscp=1, extra=md_hops(path, 1))


def v05_md(seq, src, path):
    """v0.5 NProto 0 (Ethernet, hw_id 3): an INT v0.5 stack."""
    hdr = struct.pack("!BBBBII", 0x00, 0x20, 0x00, 0x03, seq, 0x5000)
    return hdr + eth(ip4_udp(src, 62, dscp=1, extra=md_hops(path, 0)))


def v20_sink(node, seq, src, path, bad_first=False):
    """v2.0 group: a sink (NODE) reporting its own metadata in the header
    (RepMdBits bits 2, 3: hop latency 10 * node, queue 1 occupancy node),
    INT-MD stack of PATH before it (INT.mdk v2.1, the sink's second
    option). With BAD_FIRST, a first report whose stack has metadata Ver 3
    precedes it: refused alone, the sink's report still applies."""
    def rep(p, ver):
        stack = b"".join(struct.pack("!III", sw, 10 * sw, (1 << 24) | sw)
                         for sw in reversed(p))
        shim = struct.pack("!BBH", 0x10, 3 + 3 * len(p), 0)
        mdh = struct.pack("!BBBBHHHH", ver << 4, 0, 3, 5, 0xB000, 0, 0, 0)
        inner = ip4_udp(src, 62, dscp=1, extra=shim + mdh + stack)
        md = struct.pack("!II", 10 * node, (1 << 24) | node)
        body = struct.pack("!HHHH", 0x3000, 0, 0, 0) + md + inner
        body += bytes(-len(body) % 4)
        return struct.pack("!BBBB", 0x14, len(body) // 4, 2, 0x20) + body
    group = struct.pack("!II", (2 << 28) | (0 << 22) | seq, node)
    return group + (rep([9, 9], 3) if bad_first else b"") + rep(path, 2)


def write_pcap(path, host, port, dgrams):
    """libpcap file format, LINKTYPE_ETHERNET, one frame per datagram."""
    dst = socket.inet_aton(host)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, d in enumerate(dgrams):
            udp = struct.pack("!HHHH", 40000, port, 8 + len(d), 0) + d
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0,
                             64, 17, 0, dst, dst) + udp
            fr = bytes([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00]) + ip
            f.write(struct.pack("<IIII", 1, i, len(fr), len(fr)) + fr)


def main():
    args = sys.argv[1:]
    pcap = None
    congestion = layouts = False
    if args and args[0] == "--congestion":  # tests/e2e/int_query.sh
        congestion, args = True, args[1:]
    if args and args[0] == "--layouts":     # tests/e2e/int_reports.sh
        layouts, args = True, args[1:]
    if args and args[0] == "--pcap":
        pcap, args = args[1], args[2:]
    host, port = args[0], int(args[1])
    dgrams = []
    for sw in (1, 2, 3):          # flow 10.0.0.7, hops 0, 1, 2
        dgrams.append(v05_local(sw, 10, 65 - sw, 7))
    dgrams.append(v10_drop(11, 1, 5, 0x0B))
    dgrams.append(v10_drop(11, 2, 5, 0x0B))
    dgrams.append(v20_md(4, 1, 9, [1, 2, 3]))
    if congestion:  # switch 12, queue 4, flow 10.0.0.5; switch 13, IPv6
        dgrams.append(v10_congestion(12, 1, 5))
        dgrams.append(v10_ip6(13, 1))
    if layouts:
        dgrams.append(v10_md(14, 1, 10, [1, 2, 3]))      # 10.0.0.10: 1, 2, 3
        dgrams.append(v05_md(1, 11, [4, 5]))             # 10.0.0.11: 4, 5
        dgrams.append(v20_sink(6, 1, 12, [1, 2]))        # 10.0.0.12: 1, 2, 6
        dgrams.append(v20_sink(6, 2, 13, [7], True))     # 10.0.0.13: 7, 6
    dgrams.append(b"\x30" + bytes(15))   # version 3: malformed
    if pcap:
        write_pcap(pcap, host, port, dgrams)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for d in dgrams:
            s.sendto(d, (host, port))
    print(len(dgrams))


main()
