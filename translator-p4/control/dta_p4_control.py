#!/usr/bin/python3
"""Control plane of the P4 translator, for BMv2 and for Tofino.

It reads a collector's switch description (its `switch_meta` file, or
`dta-query switch`) and programs the switch for it, checking first that
the program can do what the description asks.

BMv2 (translator-p4/v1model): with the compiled program's BMv2 JSON, it
prints the simple_switch_CLI commands that program the switch:

- each crc32_custom calculation gets the polynomial, initial value and
  final XOR of its CRC role (the JSON names them by output field,
  meta.roleN), reflected in and out, so slots and checksums equal libdta's;
- the addresses (ours as the collector knows us, the collector's), each
  queue pair's collector QPN and UDP source port, the QPN replies come back
  to, and its first PSN;
- the Key-Write and Key-Increment structures (slots, slot size, address,
  R_Key, N, egress port) and the Append structures (list range, ring,
  address, R_Key; their lists numbered in the batching registers);
- multicast groups 1..4 with 1..4 replicas (replica id = copy index), and
  clone session 100, which sends datagrams with several reports round
  again;
- with --flush, the timer a switch lacks: flush packets that make it write
  partial Append batches and incomplete postcard flows old enough.

Usage:
  dta_p4_control.py --desc switch.json --bmv2-json dta_translator.json \\
      --port 1 --mac 02:00:00:00:00:01 | simple_switch_CLI

Tofino (translator-p4/tna): the CRC roles and the Append batch size are
compile-time, so --tna-defines prints the compiler options first
(-DDTA_ROLE<r>_POLY/_INIT/_XOR of the roles in use, -DAP_BATCH):
  p4c --target tofino --arch tna $(dta_p4_control.py --desc switch.json \\
      --tna-defines) translator-p4/tna/dta_translator.p4
and --bfrt then programs the running switch through BF Runtime (gRPC;
the SDE's Python client bfrt_grpc must be importable, e.g. PYTHONPATH=
$SDE_INSTALL/lib/python3*/site-packages/tofino):
  dta_p4_control.py --desc switch.json --bfrt 127.0.0.1:50052 \\
      --port 1 --mac 02:00:00:00:00:01
the tables (kw_table one entry per N, ki_table and ki_row_table per row,
ap_table one entry per list, pc_table, reply_table, qp_table with the
collector's addresses, ap_timeout_table's negated timeout), the PSN
registers, and multicast groups 1..4 (replica id = copy index).
--tna-plan prints what --bfrt would write, as JSON; --bfrt-json FILE
checks it against the bf-rt.json the compiler wrote for the program
(every table, key field, action and action parameter, and that every
value fits its field) and, without --bfrt, exits.

Refuses (exit 2) what the P4 program cannot do: slot counts, widths or
rings that are not powers of two, the prototype hash family's Key-Write,
Append batches other than 4 x 4 bytes (Tofino: 2, 4, 8 or 16 x 4 bytes,
one size for all), Key-Write checksums other than 4 bytes, data other
than 4 or 20 bytes, N above 4, more than one Key-Write structure per
data size, more than one Key-Increment or Postcarding structure,
Key-Increment with two banks or more than 4 rows, more than 64 queue
pairs (structures), and on Tofino timeouts of 2 s or more (it compares
32-bit nanosecond times).
"""
import argparse
import json
import re
import sys


def fail(msg):
    print("dta_p4_control: " + msg, file=sys.stderr)
    sys.exit(2)


def ip_int(s):
    a = [int(x) for x in s.split(".")]
    return (a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]


def mac_int(s):
    return int(s.replace(":", ""), 16)


def qp_lines(i, s, port):
    """Queue pair i (structure s): the collector's QPN and our UDP source
    port, the QPN replies come back to, and the first PSN."""
    return ["table_add qp_table qp_dest %d => %d %d" % (i, s["qpn"], 49152 + i),
            "table_add reply_table reply_qp %d => %d %d" % (s["peer_qpn"], i, port),
            "register_write psn_reg %d %d" % (i, s["psn"])]


def add_roles(roles, s):
    """The structure's CRC roles; all structures must agree per role (the
    program has one calculation per role)."""
    for role, poly, init, xorout in s["crc"]:
        if role in roles and roles[role] != (poly, init, xorout):
            fail("structures disagree on CRC role %d: the program has one "
                 "calculation per role" % role)
        roles[role] = (poly, init, xorout)


def tna_defines(desc):
    """Compiler options of translator-p4/tna for this collector: its CRC
    roles (all structures must agree per role) and its Append batch."""
    roles = {}
    batch = None
    for s in desc["structures"]:
        prim = s["primitive"]
        if prim == "append":
            if s["entry"] != 4 or s["batch"] not in (2, 4, 8, 16):
                fail("%s: batches of %d entries of %d bytes (the Tofino "
                     "program makes 2, 4, 8 or 16 entries of 4 bytes)"
                     % (s["name"], s["batch"], s["entry"]))
            if batch is not None and batch != s["batch"]:
                fail("Append structures with batches of %d and %d entries: "
                     "the Tofino program has one batch size" % (batch, s["batch"]))
            batch = s["batch"]
            continue
        if prim == "key-write" and s.get("family") == "prototype":
            fail("%s: the prototype hash family's Key-Write (reversed key, "
                 "copy byte) is not what the program computes" % s["name"])
        if prim in ("key-write", "key-increment", "postcard"):
            add_roles(roles, s)
    # Roles no structure uses keep the program's defaults.
    out = []
    for r in sorted(roles):
        poly, init, xorout = roles[r]
        out += ["-DDTA_ROLE%d_POLY=0x%08X" % (r, poly),
                "-DDTA_ROLE%d_INIT=0x%08X" % (r, init),
                "-DDTA_ROLE%d_XOR=0x%08X" % (r, xorout)]
    if batch is not None:
        out.append("-DAP_BATCH=%d" % batch)
    return " ".join(out)



MAX_QPS = 64


def check_common(desc):
    """What neither program (v1model, TNA) can do, whatever the target:
    the checks both make of every structure they serve."""
    kinds = {}
    kw_seen = set()
    if len(desc["structures"]) > MAX_QPS:
        fail("%d structures: the program has %d queue pairs"
             % (len(desc["structures"]), MAX_QPS))
    for s in desc["structures"]:
        prim, name = s["primitive"], s["name"]
        if prim in ("key-increment", "postcard"):
            if prim in kinds:
                fail("two %s structures (%s, %s): the program has one"
                     % (prim, kinds[prim], name))
            kinds[prim] = name
        if prim == "append":
            rb = s["ring_batches"]
            if rb & (rb - 1):
                fail("%s: %d frames per ring: the program needs a power of "
                     "two" % (name, rb))
        elif prim == "postcard":
            if (s["hops"], s["chunk_size"]) != (5, 32):
                fail("%s: %d hops in %d-byte chunks (the program writes 5 "
                     "hops of 4 bytes in 32-byte chunks)"
                     % (name, s["hops"], s["chunk_size"]))
            if s["chunks"] & (s["chunks"] - 1) or s["redundancy"] > 4:
                fail("%s: chunks must be a power of two and N <= 4" % name)
        elif prim in ("key-write", "key-increment"):
            if s.get("family") == "prototype":
                fail("%s: the prototype hash family's %s (reversed key, copy "
                     "byte) is not what the program computes" % (name, prim))
            size = s["slots"] if prim == "key-write" else s["width"]
            if size & (size - 1):
                fail("%s: %d slots or counters per row: the program needs a "
                     "power of two (it masks instead of taking a modulo)"
                     % (name, size))
        if prim == "key-write":
            if s["csum_bytes"] != 4 or s["data_len"] not in (4, 20):
                fail("%s: %d-byte checksums and %d-byte data (the program "
                     "writes 4-byte checksums, 4- or 20-byte data)"
                     % (name, s["csum_bytes"], s["data_len"]))
            if s["data_len"] in kw_seen:
                fail("two Key-Write structures with %d-byte data"
                     % s["data_len"])
            kw_seen.add(s["data_len"])
        elif prim == "key-increment" and (s["banks"] != 1 or s["rows"] > 4):
            fail("%s: %d banks of %d rows (the program writes one bank of at "
                 "most 4)" % (name, s["banks"], s["rows"]))


def tna_plan(desc, port, mac, pc_timeout_us, ap_timeout_us,
             ap_max_lists=65536):
    """What the Tofino program needs for this collector, as BF Runtime
    writes: table entries, default entries, register values and multicast
    groups, named as the program's bf-rt.json names them."""
    check_common(desc)
    tna_defines(desc)   # refuses what the compile-time options cannot do
    for name, us in (("--pc-timeout-us", pc_timeout_us),
                     ("--ap-timeout-us", ap_timeout_us)):
        if us < 0 or us >= 2000000:
            fail("%s %d: the Tofino program compares 32-bit nanosecond "
                 "times: give a timeout under 2 s" % (name, us))
    smac, dmac = mac_int(mac), mac_int(desc["collector_mac"])
    sip, dip = ip_int(desc["peer_ip"]), ip_int(desc["collector_ip"])
    entries, defaults, registers = [], [], []

    def entry(table, key, action, data):
        entries.append({"table": table, "key": key, "action": action,
                        "data": data})

    ap_index = 0
    for i, s in enumerate(desc["structures"]):
        prim = s["primitive"]
        if prim not in ("key-write", "key-increment", "append", "postcard"):
            print("dta_p4_control: %s (%s) is not served by this program"
                  % (s["name"], prim), file=sys.stderr)
            continue
        if prim == "key-write":
            for n in range(1, min(s["redundancy"], 4) + 1):
                entry("DtaIngress.kw_table",
                      {"hdr.data20.$valid": int(s["data_len"] == 20),
                       "meta.n": n},
                      "DtaIngress.kw_structure",
                      {"qp": i, "mask": s["slots"] - 1, "base": s["addr"],
                       "rkey": s["rkey"]})
        elif prim == "key-increment":
            w = s["width"]
            entry("DtaIngress.ki_table", {"meta.kind": 3},
                  "DtaIngress.ki_structure",
                  {"qp": i, "mask": w - 1, "rows": s["rows"],
                   "rkey": s["rkey"]})
            # Row r's first counter (8-byte counters, rows one after the
            # other): the program has no multiplication.
            for r in range(s["rows"]):
                entry("DtaEgress.ki_row_table",
                      {"hdr.bridge.qp": i, "eg_intr_md.egress_rid": r},
                      "DtaEgress.ki_row", {"row": s["addr"] + r * w * 8})
        elif prim == "append":
            rb = s["ring_batches"]
            if ap_index + s["lists"] > ap_max_lists:
                fail("%d Append lists in all: the program has %d "
                     "(-DAP_MAX_LISTS)" % (ap_index + s["lists"], ap_max_lists))
            for l in range(s["lists"]):
                entry("DtaIngress.ap_table", {"meta.list": s["list_base"] + l},
                      "DtaIngress.ap_list",
                      {"qp": i, "index": ap_index + l, "ring_mask": rb - 1,
                       "ring": s["addr"] + l * rb * s["frame_size"],
                       "rkey": s["rkey"], "port": port})
            ap_index += s["lists"]
        else:
            entry("DtaIngress.pc_table", {"meta.kind": 4},
                  "DtaIngress.pc_structure",
                  {"qp": i, "mask": s["chunks"] - 1, "base": s["addr"],
                   "rkey": s["rkey"], "redundancy": s["redundancy"],
                   "raw": int(s.get("family") == "prototype"),
                   "minus_timeout": -pc_timeout_us * 1000 & 0xFFFFFFFF})
        # The queue pair: replies to it, its frames' addresses, its PSN.
        entry("DtaIngress.reply_table", {"hdr.bth.dqpn": s["peer_qpn"]},
              "DtaIngress.reply_qp", {"qp": i, "port": port})
        entry("DtaEgress.qp_table", {"hdr.bridge.qp": i},
              "DtaEgress.qp_dest",
              {"smac": smac, "dmac": dmac, "sip": sip, "dip": dip,
               "dqpn": s["qpn"], "sport": 49152 + i})
        registers.append({"register": "DtaEgress.psn_reg", "index": i,
                          "value": s["psn"]})
        registers.append({"register": "DtaEgress.ipid_reg", "index": i,
                          "value": 0})
    defaults.append({"table": "DtaIngress.ap_timeout_table",
                     "action": "DtaIngress.ap_timeout",
                     "data": {"minus_timeout":
                              -ap_timeout_us * 1000 & 0xFFFFFFFF}})
    # Multicast group N: N copies to the collector's port, replica ids
    # 0..N-1 (Key-Write and Postcarding copy n, Key-Increment row n).
    mcast = [{"group": n, "port": port, "rids": list(range(n))}
             for n in range(1, 5)]
    return {"entries": entries, "defaults": defaults,
            "registers": registers, "mcast": mcast}


def bfrt_tables(path):
    """bf-rt.json's tables by name."""
    return {t["name"]: t for t in json.load(open(path))["tables"]}


def bfrt_find(tables, name):
    """A table by its name or a dotted suffix of it (as bfrt_grpc's
    table_get resolves them)."""
    hits = [t for n, t in tables.items() if n == name or n.endswith("." + name)]
    if len(hits) != 1:
        return None
    return hits[0]


def check_plan(plan, path):
    """Every table, key field, action and parameter the plan writes is in
    the program's bf-rt.json, and every value fits its field's width.
    Returns the list of problems."""
    tables = bfrt_tables(path)
    bad = []

    def fits(where, name, fields, value):
        f = fields.get(name)
        if f is None:
            bad.append("%s: no field %s (has %s)"
                       % (where, name, ", ".join(sorted(fields)) or "none"))
            return
        width = f["type"].get("width")
        if width is not None and not 0 <= value < 1 << width:
            bad.append("%s: %s = %d does not fit %d bits"
                       % (where, name, value, width))

    def table(name):
        t = bfrt_find(tables, name)
        if t is None:
            bad.append("no table %s in %s" % (name, path))
        return t

    def action(t, name):
        for a in t.get("action_specs", []):
            if a["name"] == name:
                return a
        bad.append("%s: no action %s" % (t["name"], name))
        return None

    def all_fit(where, what, values, fields):
        """@values names exactly @fields (key fields or action
        parameters), and each value fits."""
        fields = {f["name"]: f for f in fields}
        if set(fields) != set(values):
            bad.append("%s: %s %s, the program's are %s"
                       % (where, what, sorted(values), sorted(fields)))
        for k, v in values.items():
            fits(where, k, fields, v)

    for e in plan["entries"] + plan["defaults"]:
        t = table(e["table"])
        if t is None:
            continue
        if "key" in e:
            all_fit(t["name"], "key fields", e["key"], t["key"])
        a = action(t, e["action"])
        if a is not None:
            all_fit(a["name"], "parameters", e["data"], a["data"])
    for r in plan["registers"]:
        t = table(r["register"])
        if t is None:
            continue
        if t.get("table_type") != "Register":
            bad.append("%s is a %s, not a register" % (t["name"], t.get("table_type")))
            continue
        size = t.get("size", 0)
        if r["index"] >= size:
            bad.append("%s: index %d, size %d" % (t["name"], r["index"], size))
        fields = {x["singleton"]["name"]: x["singleton"] for x in t["data"]}
        fits(t["name"], r["register"] + ".f1", fields, r["value"])
    return bad


def bfrt_program(plan, addr, p4_name, device):
    """Write the plan into the running switch through BF Runtime: our
    tables are emptied and every register of the program is reset first,
    so that configuring twice is configuring once; then the entries,
    defaults, registers and multicast groups."""
    try:
        import bfrt_grpc.client as gc
    except ImportError as e:
        fail("--bfrt needs the SDE's Python client bfrt_grpc on PYTHONPATH "
             "(%s)" % e)
    intf = gc.ClientInterface(addr, client_id=0, device_id=device,
                              num_tries=10)
    try:
        info = intf.bfrt_info_get(p4_name)
        intf.bind_pipeline_config(p4_name)
        target = gc.Target(device_id=device, pipe_id=0xFFFF)
        names = sorted({e["table"] for e in plan["entries"]})
        for n in names:
            info.table_get(n).entry_del(target)
        # Every register back to zero (batches, postcard cache, sequence
        # numbers): state from before belongs to another configuration.
        for n in info.table_name_list_get():
            t = info.table_get(n)
            if n.startswith("pipe.") and t.info.type_get() == "Register":
                t.entry_del(target)
        for e in plan["entries"]:
            t = info.table_get(e["table"])
            t.entry_add(target,
                        [t.make_key([gc.KeyTuple(k, v)
                                     for k, v in e["key"].items()])],
                        [t.make_data([gc.DataTuple(k, v)
                                      for k, v in e["data"].items()],
                                     e["action"])])
        for d in plan["defaults"]:
            t = info.table_get(d["table"])
            t.default_entry_set(target, t.make_data(
                [gc.DataTuple(k, v) for k, v in d["data"].items()],
                d["action"]))
        for r in plan["registers"]:
            t = info.table_get(r["register"])
            t.entry_mod(target,
                        [t.make_key([gc.KeyTuple("$REGISTER_INDEX",
                                                 r["index"])])],
                        [t.make_data([gc.DataTuple(r["register"] + ".f1",
                                                   r["value"])])])
        program_mcast(gc, info, target, plan["mcast"])
    finally:
        intf.tear_down_stream()


REPORT_OUTCOMES = ["key-write", "key-increment", "no-structure", "bad-n-or-hop",
                   "not-handled", "append-frame", "postcard-chunk", "absorbed"]


def bfrt_counters(addr, p4_name, device):
    """The program's counters as JSON: reports by outcome (each datagram
    the switch takes is counted once, under one of REPORT_OUTCOMES) and
    RoCE replies by AETH syndrome class (0 ACK, 1 RNR NAK, 3 NAK)."""
    try:
        import bfrt_grpc.client as gc
    except ImportError as e:
        fail("--bfrt-counters needs the SDE's Python client bfrt_grpc on "
             "PYTHONPATH (%s)" % e)
    # A reader of its own: it binds nothing, so it can run beside the
    # client that configured the switch.
    intf = gc.ClientInterface(addr, client_id=1, device_id=device,
                              num_tries=10, perform_subscribe=False)
    try:
        info = intf.bfrt_info_get(p4_name)
        target = gc.Target(device_id=device, pipe_id=0xFFFF)
        out = {}
        for name, n in (("reports", 8), ("replies", 8)):
            t = info.table_get("DtaIngress." + name)
            vals = []
            for i in range(n):
                data, _ = next(t.entry_get(
                    target, [t.make_key([gc.KeyTuple("$COUNTER_INDEX", i)])],
                    {"from_hw": True}, p4_name=p4_name))
                vals.append(data.to_dict()["$COUNTER_SPEC_PKTS"])
            out[name] = vals
        out["reports_by_outcome"] = dict(zip(REPORT_OUTCOMES, out["reports"]))
        return out
    finally:
        intf.channel.close()   # no stream to tear down: it never subscribed


def program_mcast(gc, info, target, groups):
    """Multicast groups through the PRE's fixed tables: one node per
    (group, replica id), all to the collector's port."""
    mgid, node = info.table_get("$pre.mgid"), info.table_get("$pre.node")
    # The PRE's tables cannot be cleared whole: delete entry by entry,
    # groups before the nodes they hold.
    for t in (mgid, node):
        keys = [k for _, k in t.entry_get(target, None, {"from_hw": False})]
        if keys:
            t.entry_del(target, keys)
    nid = 1
    for g in groups:
        ids = []
        for rid in g["rids"]:
            node.entry_add(target,
                           [node.make_key([gc.KeyTuple("$MULTICAST_NODE_ID", nid)])],
                           [node.make_data([gc.DataTuple("$MULTICAST_RID", rid),
                                            gc.DataTuple("$MULTICAST_LAG_ID", int_arr_val=[]),
                                            gc.DataTuple("$DEV_PORT", int_arr_val=[g["port"]])])])
            ids.append(nid)
            nid += 1
        # The PRE walks a group's node list from its end: give it in
        # reverse, so that copies leave in copy order and take their
        # PSNs in the order libdta's model gives them.
        ids.reverse()
        mgid.entry_add(target,
                       [mgid.make_key([gc.KeyTuple("$MGID", g["group"])])],
                       [mgid.make_data([gc.DataTuple("$MULTICAST_NODE_ID", int_arr_val=ids),
                                        gc.DataTuple("$MULTICAST_NODE_L1_XID_VALID", bool_arr_val=[False] * len(ids)),
                                        gc.DataTuple("$MULTICAST_NODE_L1_XID", int_arr_val=[0] * len(ids))])])


def bmv2_commands(a, desc):
    """simple_switch_CLI commands for the v1model program."""
    check_common(desc)
    prog = json.load(open(a.bmv2_json))
    out = []

    # CRC roles of the structures this program serves (all share role
    # parameters only if their layouts agree: check).
    roles = {}
    ap_lists = 0
    flush_lists = []
    for i, s in enumerate(desc["structures"]):
        prim = s["primitive"]
        if prim == "append":
            if s["batch"] != 4 or s["entry"] != 4:
                fail("%s: batches of %d entries of %d bytes (the program "
                     "makes batches of 4 entries of 4 bytes)"
                     % (s["name"], s["batch"], s["entry"]))
            rb = s["ring_batches"]
            if ap_lists + s["lists"] > 64:
                fail("more than 64 Append lists in all")
            lo, hi = s["list_base"], s["list_base"] + s["lists"] - 1
            out.append("table_add ap_table ap_structure %d->%d => %d %d %d %d %d %d %d %d %d 0"
                       % (lo, hi, i, lo, ap_lists, rb - 1, rb, s["addr"],
                          s["rkey"], a.ap_timeout_us, a.port))
            flush_lists.extend(range(lo, hi + 1))
            ap_lists += s["lists"]
            out += qp_lines(i, s, a.port)
            continue
        if prim == "postcard":
            add_roles(roles, s)
            if s.get("family") == "prototype":
                # Values unencoded, hops past the path zeros (docs/layouts.md)
                raw, blank = 1, 0
            else:
                # g(blank): the value function over no bytes, init ^ xorout.
                r9 = [c for c in s["crc"] if c[0] == 9][0]
                raw, blank = 0, (r9[2] ^ r9[3]) & 0xFFFFFFFF
            out.append("table_add pc_table pc_structure 4 => %d %d %d %d %d %d %d %d %d"
                       % (i, s["chunks"], s["addr"], s["rkey"], s["redundancy"],
                          blank, raw, a.pc_timeout_us, a.port))
            out += qp_lines(i, s, a.port)
            continue
        if prim not in ("key-write", "key-increment"):
            print("dta_p4_control: %s (%s) is not served by this program"
                  % (s["name"], prim), file=sys.stderr)
            continue
        add_roles(roles, s)
        if prim == "key-write":
            out.append("table_add kw_table kw_structure %d => %d %d %d %d %d %d %d"
                       % (1 if s["data_len"] == 20 else 0, i, s["slots"],
                          s["slot_size"], s["addr"], s["rkey"],
                          min(s["redundancy"], 4), a.port))
        else:
            out.append("table_add ki_table ki_structure 3 => %d %d %d %d %d %d"
                       % (i, s["width"], s["rows"], s["addr"], s["rkey"],
                          a.port))
        out += qp_lines(i, s, a.port)

    out.insert(0, "table_set_default addr_table roce_addresses %d %d %d %d"
               % (mac_int(a.mac), mac_int(desc["collector_mac"]),
                  ip_int(desc["peer_ip"]), ip_int(desc["collector_ip"])))

    # Each crc32_custom calculation is named in the JSON; the primitive
    # that uses it says which metadata field (meta.roleN) it computes.
    calc_role = {}
    for act in prog.get("actions", []):
        for prim in act.get("primitives", []):
            if prim.get("op") != "modify_field_with_hash_based_offset":
                continue
            dst, calc = prim["parameters"][0], prim["parameters"][2]
            field = dst.get("value", ["", ""])[-1]
            m = re.search(r"role(\d+)(_\d+)?$", field)
            if m:
                calc_role[calc["value"]] = int(m.group(1))
    for calc in prog.get("calculations", []):
        if calc.get("algo") != "crc32_custom":
            continue
        role = calc_role.get(calc["name"])
        frag = calc.get("source_info", {}).get("source_fragment", "")
        if role is None:
            fail("cannot tell the CRC role of calculation %s (%s)"
                 % (calc["name"], frag))
        if role not in roles:
            continue
        poly, init, xorout = roles[role]
        out.append("set_crc32_parameters %s 0x%08x 0x%08x 0x%08x true true"
                   % (calc["name"], poly, init, xorout))

    # Datagrams with several reports: a clone of each goes round again
    # (clone session 100 of the program; its port does not matter).
    out.append("mirroring_add 100 %d" % a.port)
    # Multicast group N: N replicas to the collector's port, ids 0..N-1.
    handle = 0
    for n in range(1, 5):
        out.append("mc_mgrp_create %d" % n)
        for rid in range(n):
            out.append("mc_node_create %d %d" % (rid, a.port))
            out.append("mc_node_associate %d %d" % (n, handle))
            handle += 1
    return out, flush_lists


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--desc",
                    help="the collector's switch description (JSON; "
                    "required but with --bfrt-counters)")
    ap.add_argument("--bmv2-json",
                    help="BMv2: the compiled P4 program (p4c-bm2-ss output); "
                    "print simple_switch_CLI commands")
    ap.add_argument("--port", type=int,
                    help="egress port towards the collector (Tofino: its "
                    "device port)")
    ap.add_argument("--mac",
                    help="our MAC address on that port")
    ap.add_argument("--tna-defines", action="store_true",
                    help="print the compiler options of the Tofino program "
                    "(translator-p4/tna) for this collector, and exit")
    ap.add_argument("--bfrt", metavar="HOST:PORT",
                    help="Tofino: program the running switch through BF "
                    "Runtime's gRPC server (bf_switchd: 127.0.0.1:50052)")
    ap.add_argument("--bfrt-json", metavar="FILE",
                    help="Tofino: check what would be written against the "
                    "program's bf-rt.json (exit 1 on a mismatch)")
    ap.add_argument("--bfrt-counters", action="store_true",
                    help="Tofino: print the program's counters (reports by "
                    "outcome, RoCE replies) from --bfrt as JSON, and exit")
    ap.add_argument("--tna-plan", action="store_true",
                    help="Tofino: print what --bfrt would write, as JSON")
    ap.add_argument("--p4-name", default="dta_translator",
                    help="Tofino: the program's name in bf_switchd "
                    "(default dta_translator)")
    ap.add_argument("--device", type=int, default=0,
                    help="Tofino: the device id (default 0)")
    ap.add_argument("--ap-max-lists", type=int, default=65536,
                    help="Tofino: the program's -DAP_MAX_LISTS (default 65536)")
    ap.add_argument("--pc-timeout-us", type=int, default=10000,
                    help="incomplete postcard flows are written when a flush "
                    "finds them this old (default 10000, as dta-translator)")
    ap.add_argument("--ap-timeout-us", type=int, default=1000,
                    help="partial Append batches likewise (default 1000)")
    ap.add_argument("--pc-cache", type=int,
                    help="postcard cache entries to flush (default: 1024 "
                    "for BMv2, 32768 for Tofino, the programs' "
                    "-DPC_CACHE_BITS=15)")
    ap.add_argument("--flush", metavar="IFACE",
                    help="after configuring, keep sending the switch flush "
                    "packets on IFACE (a link into one of its ports) every "
                    "--flush-ms: a switch has no timer")
    ap.add_argument("--flush-ms", type=int, default=1000)
    ap.add_argument("--flush-count", type=int, default=0,
                    help="stop after this many rounds (0: never)")
    a = ap.parse_args()

    if a.bfrt_counters:
        if not a.bfrt:
            ap.error("--bfrt-counters reads from --bfrt HOST:PORT")
        print(json.dumps(bfrt_counters(a.bfrt, a.p4_name, a.device)))
        return
    if a.desc is None:
        ap.error("--desc is required")
    desc = json.load(open(a.desc))["switch"]
    if a.tna_defines:
        print(tna_defines(desc))
        return
    tna = a.bfrt or a.bfrt_json or a.tna_plan
    if tna and a.bmv2_json:
        ap.error("--bmv2-json is for BMv2, --bfrt, --bfrt-json and "
                 "--tna-plan for Tofino: one target at a time")
    if (a.bmv2_json is None and not tna) or a.port is None or a.mac is None:
        ap.error("--port, --mac and a target (--bmv2-json, or --bfrt, "
                 "--bfrt-json or --tna-plan) are required (or --tna-defines)")
    if not tna:
        out, flush_lists = bmv2_commands(a, desc)
        print("\n".join(out))
        sys.stdout.flush()
        if a.flush:
            flush_loop(a, desc, flush_lists, a.pc_cache or 1024)
        return
    plan = tna_plan(desc, a.port, a.mac, a.pc_timeout_us, a.ap_timeout_us,
                    a.ap_max_lists)
    if a.tna_plan:
        print(json.dumps(plan, indent=1))
    if a.bfrt_json:
        bad = check_plan(plan, a.bfrt_json)
        for b in bad:
            print("dta_p4_control: %s" % b, file=sys.stderr)
        if bad:
            sys.exit(1)
    if a.bfrt:
        bfrt_program(plan, a.bfrt, a.p4_name, a.device)
        print("dta_p4_control: %s configured: %d entries, %d registers, %d "
              "multicast groups" % (a.p4_name, len(plan["entries"]),
                                    len(plan["registers"]), len(plan["mcast"])),
              file=sys.stderr)
        if a.flush:
            lists = sorted(e["key"]["meta.list"] for e in plan["entries"]
                           if e["table"] == "DtaIngress.ap_table")
            flush_loop(a, desc, lists, a.pc_cache or 32768)


def flush_loop(a, desc, lists, pc_cache):
    """Every --flush-ms, one flush packet (UDP 40041, ctrl_h) per Append
    list and per Postcarding cache entry, as a switch's packet generator
    would send them; the program writes what is old enough."""
    import socket
    import struct
    import time

    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((a.flush, 0))

    def frame(kind, index):
        payload = struct.pack("!BBHI", kind, 0, 0, index)
        udp = struct.pack("!HHHH", 40041, 40041, 8 + len(payload), 0)
        ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0,
                                   20 + len(udp) + len(payload), 0, 0x4000,
                                   64, 17, 0, bytes(4),
                                   struct.pack("!I", ip_int(desc["peer_ip"]))))
        s = sum(struct.unpack("!10H", bytes(ip)))
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        ip[10:12] = struct.pack("!H", ~s & 0xffff)
        mac = mac_int(a.mac).to_bytes(6, "big")
        return mac + mac + b"\x08\x00" + bytes(ip) + udp + payload

    rounds = 0
    while True:
        for lid in lists:
            sock.send(frame(1, lid))
        for i in range(pc_cache):
            sock.send(frame(2, i))
        rounds += 1
        if a.flush_count and rounds >= a.flush_count:
            return
        time.sleep(a.flush_ms / 1000.0)


if __name__ == "__main__":
    main()
