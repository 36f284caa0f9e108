#!/usr/bin/python3
"""ctest p4_control_plane (always runs): the Tofino control plane
(control/dta_p4_control.py) on the packet-test collector, and every
description it must refuse.

  test_control.py TOP [BF_RT_JSON]

With BF_RT_JSON (the compiler's output for translator-p4/tna), the plan
is also checked against it, and a plan naming a table, key, action or
parameter the program lacks, or a value too wide, must be caught.
"""
import copy
import importlib.util
import io
import json
import sys
sys.dont_write_bytecode = True
from contextlib import redirect_stderr

top = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "ctl", top + "/translator-p4/control/dta_p4_control.py")
ctl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ctl)
desc = json.load(open(top + "/translator-p4/tests/vectors/tna/desc.json"))["switch"]
bad = 0


def check(what, cond):
    global bad
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        bad += 1


def plan(d, pc=0, ap=0, lists=65536):
    return ctl.tna_plan(d, 1, "02:00:00:00:00:01", pc, ap, lists)


def refused(what, d, **kw):
    err = io.StringIO()
    try:
        with redirect_stderr(err):
            plan(d, **kw)
    except SystemExit as e:
        check("refuses %s (%s)" % (what, err.getvalue().strip()), e.code == 2)
        return
    check("refuses %s" % what, False)


p = plan(desc)
by = {}
for e in p["entries"]:
    by.setdefault(e["table"], []).append(e)
st = desc["structures"]
check("one kw_table entry per N of each Key-Write structure",
      len(by["DtaIngress.kw_table"]) ==
      sum(min(s["redundancy"], 4) for s in st if s["primitive"] == "key-write"))
ki = [s for s in st if s["primitive"] == "key-increment"][0]
rows = sorted((e["key"]["eg_intr_md.egress_rid"], e["data"]["row"])
              for e in by["DtaEgress.ki_row_table"])
check("ki_row_table: row r starts r * width * 8 bytes in",
      rows == [(r, ki["addr"] + r * ki["width"] * 8) for r in range(ki["rows"])])
ap = [s for s in st if s["primitive"] == "append"][0]
rings = sorted((e["key"]["meta.list"], e["data"]["ring"], e["data"]["index"])
               for e in by["DtaIngress.ap_table"])
check("ap_table: one entry per list, rings one after the other",
      rings == [(ap["list_base"] + l, ap["addr"] + l * ap["ring_batches"] *
                 ap["frame_size"], l) for l in range(ap["lists"])])
check("a qp_table and a reply_table entry and a PSN per structure",
      len(by["DtaEgress.qp_table"]) == len(st) ==
      len(by["DtaIngress.reply_table"]) ==
      len([r for r in p["registers"] if r["register"] == "DtaEgress.psn_reg"]))
check("multicast groups 1..4 with replica ids 0..N-1",
      [(g["group"], g["rids"]) for g in p["mcast"]] ==
      [(n, list(range(n))) for n in range(1, 5)])
check("timeouts negated in 32-bit nanoseconds",
      plan(desc, pc=10000, ap=1000)["defaults"][0]["data"]["minus_timeout"] ==
      (1 << 32) - 1000000 and
      [e for e in plan(desc, pc=10000)["entries"]
       if e["table"] == "DtaIngress.pc_table"][0]["data"]["minus_timeout"] ==
      (1 << 32) - 10000000)


def mutated(name, f):
    d = copy.deepcopy(desc)
    f(d)
    return d


def by_prim(d, prim):
    return [s for s in d["structures"] if s["primitive"] == prim][0]


refused("a slot count that is not a power of two",
        mutated("kw", lambda d: by_prim(d, "key-write").update(slots=3000)))
refused("a width that is not a power of two",
        mutated("ki", lambda d: by_prim(d, "key-increment").update(width=1000)))
refused("a ring that is not a power of two",
        mutated("ap", lambda d: by_prim(d, "append").update(ring_batches=3)))
refused("two Key-Increment structures",
        mutated("ki2", lambda d: d["structures"].append(copy.deepcopy(by_prim(d, "key-increment")))))
refused("two Key-Write structures with one data size",
        mutated("kw2", lambda d: d["structures"].append(copy.deepcopy(by_prim(d, "key-write")))))
refused("Key-Increment with two banks",
        mutated("ki", lambda d: by_prim(d, "key-increment").update(banks=2)))
refused("Append batches of 3", mutated("ap", lambda d: by_prim(d, "append").update(batch=3)))
refused("6 hops per postcard", mutated("pc", lambda d: by_prim(d, "postcard").update(hops=6)))
refused("the prototype family's Key-Write",
        mutated("kw", lambda d: by_prim(d, "key-write").update(family="prototype")))
refused("65 structures",
        mutated("many", lambda d: d["structures"].extend(
            [copy.deepcopy(by_prim(d, "append")) for _ in range(61)])))
refused("more Append lists than the program has", desc, lists=1)
refused("a postcard timeout of 2 s", desc, pc=2000000)
refused("a negative Append timeout", desc, ap=-1)

if len(sys.argv) > 2:
    problems = ctl.check_plan(p, sys.argv[2])
    for x in problems:
        print("  " + x)
    check("the plan matches the program's bf-rt.json", not problems)
    for what, f in (
            ("a table the program lacks",
             lambda q: q["entries"][0].update(table="DtaIngress.no_table")),
            ("a key field the program lacks",
             lambda q: q["entries"][0]["key"].update(nokey=1)),
            ("an action the program lacks",
             lambda q: q["entries"][0].update(action="DtaIngress.no_action")),
            ("a parameter the program lacks",
             lambda q: q["entries"][0]["data"].update(noparam=1)),
            ("a value wider than its field",
             lambda q: q["entries"][0]["data"].update(qp=256)),
            ("a register index past the register",
             lambda q: q["registers"][0].update(index=1 << 20))):
        q = copy.deepcopy(p)
        f(q)
        check("bf-rt.json check catches %s" % what, ctl.check_plan(q, sys.argv[2]))
sys.exit(1 if bad else 0)
