#!/usr/bin/python3
"""A small pcap of TCP packets for the reporter examples: flow
10.0.0.1:1234 -> 10.0.0.2:80 with sequence numbers 1000, 2000, 3000, then
2000 again (a retransmission), and flow 10.0.0.3:5555 -> 10.0.0.2:80 once.

  mkflows.py OUT.pcap
"""
import struct
import sys


def csum(b):
    s = sum(struct.unpack("!10H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp(src, dst, sport, dport, seq):
    tcph = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, 0x10,
                       65535, 0, 0)
    payload = b"x" * 20
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcph) +
                               len(payload), 1, 0x4000, 64, 6, 0,
                               bytes(src), bytes(dst)))
    ip[10:12] = struct.pack("!H", csum(bytes(ip)))
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    return eth + bytes(ip) + tcph + payload


pkts = [tcp([10, 0, 0, 1], [10, 0, 0, 2], 1234, 80, s)
        for s in (1000, 2000, 3000, 2000)]
pkts.append(tcp([10, 0, 0, 3], [10, 0, 0, 2], 5555, 80, 7))
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, p in enumerate(pkts):
        f.write(struct.pack("<IIII", 1700000000, i, len(p), len(p)) + p)
