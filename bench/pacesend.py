#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Send one dta-gen Key-Write pcap's records at a paced rate, as DTA or as
NetFlow v5, so that two receivers are offered the same load by the same
sender.

bench/peers.sh's paced mode (PEERS_RATES): every datagram is built before
the first is sent, then datagram i leaves when the records before it are
due at RATE records per second (it sleeps only when more than a
millisecond ahead, so a late sender catches up in short bursts, never by
dropping). Both modes carry the same records in the same order:
  dta   the pcap's UDP payloads as dta-gen wrote them (e.g. 28 Key-Write
        reports per datagram), with every report's reporter id set to
        REPORTER (the translator keeps a sequence per reporter: a replay
        under a new id is not taken for duplicates)
  nf5   NetFlow v5, 30 records per datagram (bench/nf5send.py's records)

Usage: pacesend.py dta|nf5 PCAP HOST PORT RATE [REPORTER]
Prints "RECORDS records in DATAGRAMS datagrams in SECONDS s (ACHIEVED/s)".
Python 3 standard library only.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nf5send  # noqa: E402


def dta_datagrams(path, reporter):
    """(datagram, records) of every UDP payload in the pcap."""
    with open(path, "rb") as f:
        data = f.read()
    end = "<" if struct.unpack_from("<I", data, 0)[0] == 0xA1B2C3D4 else ">"
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from(end + "I", data, off + 8)[0]
        off += 16
        payload = bytearray(data[off + 14 + 20 + 8:off + caplen])
        off += caplen
        p = n = 0
        while p + 12 <= len(payload):
            struct.pack_into(">H", payload, p + 6, reporter)
            p += 12 + struct.unpack_from(">H", payload, p + 4)[0]
            n += 1
        yield bytes(payload), n


def nf5_datagrams(path):
    now = int(time.time())
    uptime = 86400 * 1000
    seq = 0
    recs = []
    for key, val in nf5send.reports(path):
        recs.append(nf5send.record(key, val, uptime - 1000, uptime - 10))
        if len(recs) == nf5send.PER_DATAGRAM:
            yield (struct.pack(">HHIIIIBBH", 5, len(recs), uptime, now, 0,
                               seq, 0, 0, 0) + b"".join(recs), len(recs))
            seq += len(recs)
            recs = []
    if recs:
        yield (struct.pack(">HHIIIIBBH", 5, len(recs), uptime, now, 0, seq,
                           0, 0, 0) + b"".join(recs), len(recs))


def main():
    if len(sys.argv) not in (6, 7) or sys.argv[1] not in ("dta", "nf5"):
        sys.exit(__doc__.split("\n\n")[2])
    mode, path, host = sys.argv[1], sys.argv[2], sys.argv[3]
    port, rate = int(sys.argv[4]), float(sys.argv[5])
    reporter = int(sys.argv[6]) if len(sys.argv) == 7 else 1
    grams = list(dta_datagrams(path, reporter) if mode == "dta"
                 else nf5_datagrams(path))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dest = (host, port)
    done = 0
    t0 = time.monotonic()
    for g, n in grams:
        ahead = t0 + done / rate - time.monotonic()
        if ahead > 0.001:
            time.sleep(ahead)
        s.sendto(g, dest)
        done += n
    took = time.monotonic() - t0
    print("%d records in %d datagrams in %.3f s (%.0f/s)" %
          (done, len(grams), took, done / took if took > 0 else 0))


if __name__ == "__main__":
    main()
