#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""NetFlow v5 datagrams carrying the flows of a dta-gen Key-Write pcap.

bench/peers.sh uses it once per run to give nfcapd the same workload the
translator gets: it reads the Key-Write reports dta-gen wrote with -w (13-byte
IPv4 5-tuple keys, 20-byte values), in their order, and sends one NetFlow v5
record per report, 30 records per datagram (v5's maximum), to HOST:PORT. The
5-tuple goes into the record's address, port and protocol fields and the
20-byte value into nexthop, the interfaces, dOctets, the AS numbers, TOS,
TCP flags and masks, so nfcapd stores what the translator stores.

Usage: nf5send.py PCAP HOST PORT [DATAGRAMS_PER_SECOND]
Prints "RECORDS records in DATAGRAMS datagrams" on stdout.
Python 3 standard library only.
"""
import os
import socket
import struct
import sys
import time

# NetFlow v5's maximum; the environment's NF5_PER_DATAGRAM (1-30) sends
# fewer (bench/translator_xdp.sh: one record per datagram).
PER_DATAGRAM = min(30, max(1, int(os.environ.get("NF5_PER_DATAGRAM", "30"))))
V1_KW_LEN = 12 + 4 + 13 + 20  # base header, sub-header, key, value


def reports(path):
    """(key, value) of every Key-Write report in the pcap, in order."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic == 0xA1B2C3D4:
        end = "<"
    elif magic == 0xD4C3B2A1:
        end = ">"
    else:
        sys.exit("nf5send: %s: not a pcap file" % path)
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from(end + "I", data, off + 8)[0]
        off += 16
        frame = data[off:off + caplen]
        off += caplen
        payload = frame[14 + 20 + 8:]
        p = 0
        while p + V1_KW_LEN <= len(payload):
            # v1 base header: version 0xD1, opcode 1 (Key-Write), body
            # length at bytes 4-5; Key-Write sub-header: N, key_len,
            # data_len (16 bits).
            if payload[p] != 0xD1 or payload[p + 1] != 1:
                sys.exit("nf5send: %s: not a v1 Key-Write report" % path)
            body = struct.unpack_from(">H", payload, p + 4)[0]
            klen = payload[p + 13]
            dlen = struct.unpack_from(">H", payload, p + 14)[0]
            if klen != 13 or dlen != 20 or body != 4 + 13 + 20:
                sys.exit("nf5send: want 13-byte keys and 20-byte values")
            key = payload[p + 16:p + 29]
            val = payload[p + 29:p + 49]
            yield key, val
            p += 12 + body


def record(key, val, first, last):
    """One 48-byte NetFlow v5 record."""
    return struct.pack(
        ">4s4s4sHHIIIIHHBBBBHHBBH",
        key[0:4], key[4:8],           # srcaddr, dstaddr
        val[0:4],                     # nexthop
        struct.unpack(">H", val[4:6])[0],    # input
        struct.unpack(">H", val[6:8])[0],    # output
        1,                            # dPkts
        struct.unpack(">I", val[8:12])[0],   # dOctets
        first, last,                  # First, Last (ms of uptime)
        struct.unpack(">H", key[8:10])[0],   # srcport
        struct.unpack(">H", key[10:12])[0],  # dstport
        0, val[12], key[12], val[13],  # pad, tcp_flags, prot, tos
        struct.unpack(">H", val[14:16])[0],  # src_as
        struct.unpack(">H", val[16:18])[0],  # dst_as
        val[18], val[19], 0)          # src_mask, dst_mask, pad


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.split("\n\n")[2])
    path, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rate = float(sys.argv[4]) if len(sys.argv) == 5 else 0.0
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dest = (host, port)
    now = int(time.time())
    uptime = 86400 * 1000  # ms since the exporter booted
    seq = 0
    sent = 0
    recs = []
    t0 = time.monotonic()

    def flush():
        nonlocal seq, sent
        hdr = struct.pack(">HHIIIIBBH", 5, len(recs), uptime, now, 0, seq,
                          0, 0, 0)
        s.sendto(hdr + b"".join(recs), dest)
        seq += len(recs)
        sent += 1
        recs.clear()
        if rate > 0:
            due = t0 + sent / rate
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)

    for key, val in reports(path):
        recs.append(record(key, val, uptime - 1000, uptime - 10))
        if len(recs) == PER_DATAGRAM:
            flush()
    if recs:
        flush()
    print("%d records in %d datagrams" % (seq, sent))


if __name__ == "__main__":
    main()
