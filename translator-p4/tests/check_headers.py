#!/usr/bin/python3
"""One source of truth for the DTA header layouts: every P4 header in
translator-p4/include/dta_headers.p4 that names a C structure of
lib/include/dta/wire.h must have the same fields, in the same order, with
the same widths. Fails (exit 1) listing every difference.

Usage: check_headers.py REPO_ROOT
"""
import re
import sys

root = sys.argv[1]
wire = open(root + "/lib/include/dta/wire.h").read()
p4 = open(root + "/translator-p4/include/dta_headers.p4").read()

c_structs = {}
for m in re.finditer(r"struct (dta_wire_\w+) \{(.*?)\} __attribute__", wire, re.S):
    fields = []
    for f in re.finditer(r"uint(\d+)_t\s+(\w+);", m.group(2)):
        fields.append((f.group(2), int(f.group(1))))
    c_structs[m.group(1)] = fields

# P4 header -> C structure: dta_X_h <-> dta_wire_X
p4_headers = {}
for m in re.finditer(r"header (dta_\w+)_h\s*\{(.*?)\}", p4, re.S):
    fields = [(f.group(2), int(f.group(1)))
              for f in re.finditer(r"bit<(\d+)>\s+(\w+);", m.group(2))]
    p4_headers["dta_wire_" + m.group(1)[4:]] = fields

bad = 0
for name, cf in sorted(c_structs.items()):
    if name not in p4_headers:
        print("MISSING in P4: %s" % name)
        bad += 1
        continue
    pf = p4_headers[name]
    if cf != pf:
        print("DIFFER %s:\n  C:  %s\n  P4: %s" % (name, cf, pf))
        bad += 1
    else:
        print("ok %-28s %2d bytes, %d fields" % (name, sum(w for _, w in cf) // 8, len(cf)))
if len(c_structs) < 10:
    print("only %d C structures found: parser out of date?" % len(c_structs))
    bad += 1
sys.exit(1 if bad else 0)
