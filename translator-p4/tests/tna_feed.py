#!/usr/bin/python3
"""Feed a switch the frames of a pcap on one interface, one at a time, and
record what it sends on another, for a byte-for-byte comparison with
libdta's reference frames (pcap_compare.py).

  tna_feed.py IN.pcap EXPECTED.pcap SEND_IF RECV_IF OUT.pcap

Loss-free by construction: after input k it waits until the switch has
sent every frame the reference model makes up to and including input k
(p4_vectors stamps each expected frame with the number of its input in
its seconds: 1700000000 + k), so the switch's queues hold at most one
input's frames. A wait that runs out (--wait, default 20 s) ends the
feed: the comparison then shows what is missing. Afterwards it listens
--settle seconds (default 1) more for frames nobody expected.

Run as root (raw sockets); interfaces should carry no addresses and no
IPv6, so that only the switch sends on RECV_IF.
"""
import argparse
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def frames(path):
    """(seconds, frame) of each record of a pcap (either byte order)."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        sec, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        out.append((sec, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


def write_pcap(path, got):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(got):
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)))
            f.write(fr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inp")
    ap.add_argument("expected")
    ap.add_argument("send_if")
    ap.add_argument("recv_if")
    ap.add_argument("out")
    ap.add_argument("--wait", type=float, default=20.0)
    ap.add_argument("--settle", type=float, default=1.0)
    a = ap.parse_args()

    inputs = [f for _, f in frames(a.inp)]
    # want[k]: frames expected once inputs 0..k are in
    want, n = [], 0
    exp = frames(a.expected)
    for k in range(len(inputs)):
        while n < len(exp) and exp[n][0] - 1700000000 <= k + 1:
            n += 1
        want.append(n)

    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                       socket.htons(ETH_P_ALL))
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    rx.bind((a.recv_if, 0))
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((a.send_if, 0))
    got = []

    def receive(deadline, until):
        while len(got) < until:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([rx], [], [], left)
            if not r:
                continue
            fr, addr = rx.recvfrom(65535)
            # AF_PACKET also shows frames this host sends on the interface
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            got.append(fr)
        return True

    ok = True
    for k, fr in enumerate(inputs):
        tx.send(fr)
        if not receive(time.monotonic() + a.wait, want[k]):
            print("tna_feed: after input %d of %d, %d frames of %d expected "
                  "within %.0f s" % (k + 1, len(inputs), len(got), want[k],
                                     a.wait))
            ok = False
            break
    if ok:
        receive(time.monotonic() + a.settle, len(exp) + 1000)
    write_pcap(a.out, got)
    print("tna_feed: %d inputs sent, %d frames received, %d expected"
          % (k + 1, len(got), len(exp)))
    return 0 if ok else 1


sys.exit(main())
