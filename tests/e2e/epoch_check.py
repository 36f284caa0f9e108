#!/usr/bin/python3
"""Key-Increment epochs, checked from the files and a snapshot: the helper
of tests/e2e/ki_epochs*.sh.

  epoch_check.py sum DIR STRUCT           row 0's sum over DIR/STRUCT.*.epoch
  epoch_check.py banks SNAPSHOT ROWS WIDTH row 0's sum of both banks of a
                                           region snapshot (dta_region_save)
  epoch_check.py rows DIR STRUCT WIDTH ROWS SNAPSHOT TOTAL [SINK_ROWS]
                                           every row's sum over files, banks
                                           (and a sink's rows) is TOTAL
  epoch_check.py files DIR STRUCT T_LO T_HI LEN_S
                                           every file: mode 0600, its name's
                                           epoch is its header's, bank =
                                           epoch % 2, the epoch within
                                           [T_LO, T_HI] (Unix ns); prints
                                           how many

The epoch file is parsed here independently of libdta (docs/layouts.md
"Epoch files"): header 1024 bytes, records of (u64 index, u64 count),
little-endian; row 0 is index < width.
"""
import glob
import os
import stat
import struct
import sys

HDR = 1024


def parse(path):
    b = open(path, "rb").read()
    assert b[:8] == b"DTAEPOCH", path
    epoch, len_ns, closed_ns, counters, row0 = struct.unpack_from("<5Q", b, 16)
    bank, = struct.unpack_from("<I", b, 56)
    structure = b[128:192].split(b"\0")[0].decode()
    # layout descriptor at 192: width is not needed for the sum, which
    # the records give: count the records whose index < width via row0
    assert len(b) == HDR + 16 * counters, (path, len(b), counters)
    recs = [struct.unpack_from("<2Q", b, HDR + 16 * i) for i in range(counters)]
    return dict(epoch=epoch, len_ns=len_ns, closed_ns=closed_ns, bank=bank,
                structure=structure, row0=row0, recs=recs)


def files(d, st):
    return sorted(glob.glob(os.path.join(d, st + ".*.epoch")))


def main():
    cmd = sys.argv[1]
    if cmd == "sum":
        d, st, width = sys.argv[2], sys.argv[3], int(sys.argv[4])
        total = 0
        for f in files(d, st):
            e = parse(f)
            s = sum(c for i, c in e["recs"] if i < width)
            assert s == e["row0"], (f, s, e["row0"])
            total += s
        print(total)
    elif cmd == "banks":
        snap, rows, width = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        b = open(snap, "rb").read()
        total = 0
        for bank in range(2):
            off = 4096 + bank * rows * width * 8
            total += sum(struct.unpack_from("<%dQ" % width, b, off))
        print(total)
    elif cmd == "files":
        d, st = sys.argv[2], sys.argv[3]
        lo, hi, len_s = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        n = 0
        for f in files(d, st):
            e = parse(f)
            mode = stat.S_IMODE(os.stat(f).st_mode)
            assert mode == 0o600, (f, oct(mode))
            name_epoch = int(os.path.basename(f).split(".")[-2])
            assert name_epoch == e["epoch"], (f, e["epoch"])
            assert e["bank"] == e["epoch"] % 2, (f, e["bank"])
            assert e["len_ns"] == len_s * 10**9, (f, e["len_ns"])
            assert e["structure"] == st, (f, e["structure"])
            assert lo // e["len_ns"] <= e["epoch"] <= hi // e["len_ns"], \
                (f, e["epoch"], lo, hi)
            # closed a grace period after its end, never before
            assert e["closed_ns"] >= (e["epoch"] + 1) * e["len_ns"], f
            n += 1
        print(n)
    elif cmd == "rows":
        # every row, not only row 0: each increment adds to one counter
        # of every row, so each row's sum over the files, the banks (and
        # the rows a sink holds, "ROW<TAB>SUM" lines) is the total sent
        d, st, width, rows = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        snap, total = sys.argv[6], int(sys.argv[7])
        got = [0] * rows
        for f in files(d, st):
            for i, c in parse(f)["recs"]:
                got[i // width] += c
        b = open(snap, "rb").read()
        for bank in range(2):
            for r in range(rows):
                off = 4096 + ((bank * rows + r) * width) * 8
                got[r] += sum(struct.unpack_from("<%dQ" % width, b, off))
        if len(sys.argv) > 8:
            for line in open(sys.argv[8]):
                r, v = line.split()
                got[int(r)] += int(v)
        print(" ".join(map(str, got)))
        if any(g != total for g in got):
            sys.exit("rows: sums %s, want %d each" % (got, total))
    else:
        sys.exit("unknown command " + cmd)


main()
