#!/usr/bin/python3
"""Compare two pcap files frame by frame (the P4 translator's output with
the C reference model's): exit 1 listing the first differences.

  pcap_compare.py EXPECTED GOT
  pcap_compare.py --count FILE     print how many frames FILE has
  pcap_compare.py --ethernet FILE  mark FILE as Ethernet (BMv2 writes link
                                   type 0 and snap length 0 in its output)
"""
import struct
import sys


def frames(path):
    data = open(path, "rb").read()
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def describe(f):
    if len(f) < 54:
        return "%d bytes" % len(f)
    return ("opcode 0x%02x qpn %d psn %d, %d bytes, icrc %s"
            % (f[42], int.from_bytes(f[47:50], "big"),
               int.from_bytes(f[51:54], "big"), len(f), f[-4:].hex()))


if sys.argv[1] == "--ethernet":
    data = bytearray(open(sys.argv[2], "rb").read())
    end = "<" if struct.unpack("<I", data[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    data[16:24] = struct.pack(end + "II", 65535, 1)
    open(sys.argv[2], "wb").write(bytes(data))
    sys.exit(0)
if sys.argv[1] == "--count":
    print(len(frames(sys.argv[2])))
    sys.exit(0)
want, got = frames(sys.argv[1]), frames(sys.argv[2])
bad = 0
for i in range(max(len(want), len(got))):
    w = want[i] if i < len(want) else None
    g = got[i] if i < len(got) else None
    if w == g:
        print("ok   frame %2d: %s" % (i, describe(w)))
        continue
    bad += 1
    print("FAIL frame %2d:\n  model: %s\n  p4:    %s" %
          (i, w.hex() if w else "(none)", g.hex() if g else "(none)"))
    if w and g:
        diff = [j for j in range(min(len(w), len(g))) if w[j] != g[j]]
        print("  first differing bytes: %s" % diff[:12])
print("%d of %d frames identical" % (len(want) - bad if len(want) >= bad else 0, len(want)))
sys.exit(1 if bad else 0)
