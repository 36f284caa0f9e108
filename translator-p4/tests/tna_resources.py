#!/usr/bin/python3
"""Summarise a Tofino compile: the MAU resources a program uses, per stage
and in all, from the p4c Tofino back end's pipe/logs/resources.json.

  tna_resources.py RESOURCES_JSON

The columns are those of the DTA paper's table 3 (SRAM, match crossbar,
table IDs, ternary result buses, stateful ALUs) plus TCAMs and hash bits;
each total is also given as a share of what the chip's stages hold.
Exit status 1 when the program needs more stages than the chip has (the
back end lays such a program out anyway; its assembler, bfas, refuses it).
"""
import json
import sys


def used(stage, key, inner):
    v = stage.get(key, {})
    return len(v.get(inner, [])), v


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    mau = json.load(open(sys.argv[1]))["resources"]["mau"]
    cols = ("SRAM", "TCAM", "xbar B", "tables", "tind", "SALU", "hash b")
    tot = [0] * len(cols)
    cap = [0] * len(cols)
    busy = 0
    print("stage " + " ".join("%7s" % c for c in cols))
    for st in mau["mau_stages"]:
        sram, r = used(st, "rams", "srams")
        tcam, t = used(st, "tcams", "tcams")
        xbar, x = used(st, "xbar_bytes", "bytes")
        tables, lt = used(st, "logical_tables", "ids")
        tind, tb = used(st, "tind_result_buses", "ids")
        salu, m = used(st, "meter_alus", "meters")
        hb, h = used(st, "hash_bits", "bits")
        row = (sram, tcam, xbar, tables, tind, salu, hb)
        caps = (r.get("nRows", 0) * r.get("nColumns", 0),
                t.get("nRows", 0) * t.get("nColumns", 0),
                x.get("size", 0),
                lt.get("size", 0), tb.get("size", 0), m.get("nAlus", 0),
                h.get("nBits", 0) * h.get("nFunctions", 0))
        for i in range(len(cols)):
            tot[i] += row[i]
            cap[i] = max(cap[i], caps[i])
        if tables:
            busy += 1
        print("%5d " % st["stage_number"] + " ".join("%7d" % x for x in row))
    print("total " + " ".join("%7d" % x for x in tot))
    # Every stage has the same units: the chip holds nStages of them.
    n = mau["nStages"]
    print("share " + " ".join("%6.1f%%" % (100.0 * x / (c * n) if c else 0)
                              for x, c in zip(tot, cap)))
    print("stages used: %d, the chip has %d" % (busy, n))
    return 0 if busy <= n else 1


sys.exit(main())
