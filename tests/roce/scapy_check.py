#!/usr/bin/python3
"""RoCEv2 frames from libdta (tests/tools/roce_frame) against scapy's
contrib/roce.py, an implementation written independently of ours:

- every request frame dta_roce_build() makes equals, byte for byte, the
  frame scapy builds from the same fields, ICRC included;
- replies scapy builds (ACK, NAKs of each kind, atomic ACK) parse to the
  right fields, and a flipped bit anywhere is caught by the ICRC check.

Usage: scapy_check.py PATH/TO/roce_frame
"""
import struct
import subprocess
import sys

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.contrib.roce import BTH, AETH

tool = sys.argv[1]
failures = 0

SMAC, DMAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
SIP, DIP = "192.0.2.2", "192.0.2.1"


def ours(*args):
    out = subprocess.run([tool] + list(args), capture_output=True, text=True)
    return out.stdout.strip()


def check(name, got, want, what=None):
    global failures
    if got != want:
        failures += 1
        print("FAIL %s\n  libdta: %s\n  scapy:  %s" % (name, got, want))
    else:
        print("ok   %s%s" % (name, what if what else ""))


def scapy_request(opcode, ext, payload, qpn, psn, sport, tos, ttl, ipid,
                  ackreq, pkey):
    pad = (4 - len(payload) % 4) % 4
    pkt = (Ether(src=SMAC, dst=DMAC) /
           IP(src=SIP, dst=DIP, tos=tos, ttl=ttl, id=ipid, flags="DF") /
           UDP(sport=sport, dport=4791, chksum=0) /
           BTH(opcode=opcode, padcount=pad, pkey=pkey, dqpn=qpn,
               ackreq=ackreq, psn=psn) /
           Raw(ext + payload + b"\0" * pad ))
    return bytes(pkt).hex()


# (name, data hex, qpn, psn, addr, rkey, offset, sport, tos, ttl, id, ackreq, pkey)
writes = [
    ("write 4 B", "deadbeef", 0x11, 0, 0x7f0000001000, 0x1234, 0, 49152,
     0, 64, 0, 1, 0xffff),
    ("write 20 B (an INT path)", "0000000100000002000000030000000400000005",
     0xabcdef, 0xfffffe, 0x10000, 0xcafe, 4096, 50000, 2, 64, 7, 1, 0xffff),
    ("write 13 B, padded", "0a000001c0a80001003500501106"[:26], 0x2a, 77,
     0x55aa00000000, 0x1, 24, 61000, 0, 32, 65535, 0, 0x8001),
    ("write 1 B, padded", "7f", 1, 5, 0x1000, 9, 1, 1, 0x1c, 255, 1, 1,
     0xffff),
    ("write 272 B (an Append frame)", "".join("%02x" % (i % 256)
                                              for i in range(272)),
     0x100, 1000, 0x200000, 0x77, 8192, 40000, 0, 64, 300, 1, 0xffff),
]
for (name, data, qpn, psn, addr, rkey, off, sport, tos, ttl, ipid, ackreq,
     pkey) in writes:
    got = ours("write", "qpn=%d" % qpn, "psn=%d" % psn, "addr=%d" % addr,
               "rkey=%d" % rkey, "off=%d" % off, "sport=%d" % sport,
               "tos=%d" % tos, "ttl=%d" % ttl, "id=%d" % ipid,
               "ackreq=%d" % ackreq, "pkey=%d" % pkey, "data=" + data)
    payload = bytes.fromhex(data)
    reth = struct.pack("!QII", addr + off, rkey, len(payload))
    want = scapy_request(0x0A, reth, payload, qpn, psn, sport, tos, ttl, ipid,
                         ackreq, pkey)
    check(name, got, want, " (%d bytes, identical)" % (len(got) // 2))

# A probe: zero-length write, no payload (PSN discovery).
got = ours("probe", "qpn=5", "psn=%d" % 0x400001, "addr=4096", "rkey=77")
want = scapy_request(0x0A, struct.pack("!QII", 4096, 77, 0), b"", 5, 0x400001,
                     49152, 0, 64, 0, 1, 0xffff)
check("probe (zero-length write)", got, want, " (%d bytes, identical)" % (len(got) // 2))

# A notification: zero-length WRITE Only with Immediate (opcode 0x0B),
# ImmDt after the RETH.
got = ours("notify", "qpn=7", "psn=%d" % 0xfffffe, "addr=8192", "rkey=99",
           "imm=%d" % 0x01020304, "id=9")
want = scapy_request(0x0B, struct.pack("!QIII", 8192, 99, 0, 0x01020304), b"",
                     7, 0xfffffe, 49152, 0, 64, 9, 1, 0xffff)
check("notify (write with immediate)", got, want, " (%d bytes, identical)" % (len(got) // 2))

for (name, add, qpn, psn, addr, rkey, off) in [
        ("fetch-add 1", 1, 0x11, 9, 0x7f0000002000, 0x4321, 64),
        ("fetch-add 2^40", 1 << 40, 0xfff, 0xffffff, 0x1000, 0xffffffff, 0)]:
    got = ours("fadd", "qpn=%d" % qpn, "psn=%d" % psn, "addr=%d" % addr,
               "rkey=%d" % rkey, "off=%d" % off, "add=%d" % add)
    atomiceth = struct.pack("!QIQQ", addr + off, rkey, add, 0)
    want = scapy_request(0x14, atomiceth, b"", qpn, psn, 49152, 0, 64, 0, 1,
                         0xffff)
    check(name, got, want, " (%d bytes, identical)" % (len(got) // 2))


def reply(opcode, syndrome, msn, qpn, psn, orig=None):
    aeth = AETH(syndrome=syndrome, msn=msn)
    tail = b"" if orig is None else struct.pack("!Q", orig)
    pkt = (Ether(src=DMAC, dst=SMAC) / IP(src=DIP, dst=SIP, flags="DF") /
           UDP(sport=12345, dport=4791, chksum=0) /
           BTH(opcode=opcode, dqpn=qpn, psn=psn) /
           Raw(bytes(aeth) + tail ))
    return bytes(pkt)


replies = [
    ("ACK", reply(0x11, 0x1f, 5, 0x22, 100),
     "kind=1 opcode=17 qpn=34 psn=100 syndrome=31 nak=0 msn=5 orig=0"),
    ("atomic ACK", reply(0x12, 0x00, 6, 0x22, 101, orig=0x123456789),
     "kind=2 opcode=18 qpn=34 psn=101 syndrome=0 nak=0 msn=6 orig=4886718345"),
    ("NAK PSN sequence error", reply(0x11, 0x60, 7, 0x22, 42),
     "kind=3 opcode=17 qpn=34 psn=42 syndrome=96 nak=0 msn=7 orig=0"),
    ("NAK invalid request", reply(0x11, 0x61, 7, 0x22, 43),
     "kind=3 opcode=17 qpn=34 psn=43 syndrome=97 nak=1 msn=7 orig=0"),
    ("NAK remote access error", reply(0x11, 0x62, 7, 0x22, 44),
     "kind=3 opcode=17 qpn=34 psn=44 syndrome=98 nak=2 msn=7 orig=0"),
    ("NAK remote operational error", reply(0x11, 0x63, 7, 0x22, 45),
     "kind=3 opcode=17 qpn=34 psn=45 syndrome=99 nak=3 msn=7 orig=0"),
    ("RNR NAK", reply(0x11, 0x21, 7, 0x22, 46),
     "kind=4 opcode=17 qpn=34 psn=46 syndrome=33 nak=0 msn=7 orig=0"),
]
for name, frame, want in replies:
    check("parse " + name, ours("parse", frame.hex()), want)
    # Any single flipped bit after the Ethernet header is caught (by the
    # ICRC, or as a malformed header), never parsed as something else.
    caught = 0
    for i in range(14, len(frame)):
        bad = bytearray(frame)
        bad[i] ^= 0x10
        if ours("parse", bad.hex()).startswith("error"):
            caught += 1
    # TOS, TTL and the IP checksum are masked from the ICRC but covered
    # by the IP checksum; the UDP checksum (0: none) and the BTH's
    # FECN/BECN/reserved byte are masked and may change in flight.
    masked = 3
    check("%s: %d of %d bit flips caught" % (name, caught, len(frame) - 14),
          str(caught >= len(frame) - 14 - masked), "True")

sys.exit(1 if failures else 0)
