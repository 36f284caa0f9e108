#!/usr/bin/python3
"""Control plane of the P4 translator (translator-p4/v1model): reads a
collector's switch description (its `switch_meta` file, or `dta-query
switch`) and the compiled program's BMv2 JSON, and prints the
simple_switch_CLI commands that program the switch:

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

For the Tofino program (translator-p4/tna), whose CRC roles and Append
batch size are compile-time, --tna-defines prints the compiler options
instead (-DDTA_ROLE<r>_POLY/_INIT/_XOR of the roles in use, -DAP_BATCH):
  p4c-barefoot $(dta_p4_control.py --desc switch.json --tna-defines) \\
      translator-p4/tna/dta_translator.p4

Refuses (exit 2) what the P4 program cannot do: slot counts, widths or
rings that are not powers of two, the prototype hash family's Key-Write, Append batches other than 4 x 4 bytes, Key-Write checksums other than 4 bytes, data other than 4 or 20 bytes, N above 4, more than one
Key-Write structure per data size, Key-Increment with two banks.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--desc", required=True,
                    help="the collector's switch description (JSON)")
    ap.add_argument("--bmv2-json",
                    help="the compiled P4 program (p4c-bm2-ss output)")
    ap.add_argument("--port", type=int,
                    help="egress port towards the collector")
    ap.add_argument("--mac",
                    help="our MAC address on that port")
    ap.add_argument("--tna-defines", action="store_true",
                    help="print the compiler options of the Tofino program "
                    "(translator-p4/tna) for this collector, and exit")
    ap.add_argument("--pc-timeout-us", type=int, default=10000,
                    help="incomplete postcard flows are written when a flush "
                    "finds them this old (default 10000, as dta-translator)")
    ap.add_argument("--ap-timeout-us", type=int, default=1000,
                    help="partial Append batches likewise (default 1000)")
    ap.add_argument("--flush", metavar="IFACE",
                    help="after printing the commands, keep sending the "
                    "switch flush packets on IFACE (a link into its port 0) "
                    "every --flush-ms: a switch has no timer")
    ap.add_argument("--flush-ms", type=int, default=1000)
    ap.add_argument("--flush-count", type=int, default=0,
                    help="stop after this many rounds (0: never)")
    a = ap.parse_args()

    desc = json.load(open(a.desc))["switch"]
    if a.tna_defines:
        print(tna_defines(desc))
        return
    if a.bmv2_json is None or a.port is None or a.mac is None:
        ap.error("--bmv2-json, --port and --mac are required (or "
                 "--tna-defines)")
    prog = json.load(open(a.bmv2_json))
    out = []

    # CRC roles of the structures this program serves (all share role
    # parameters only if their layouts agree: check).
    roles = {}
    kw_seen = set()
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
            if rb & (rb - 1):
                fail("%s: %d frames per ring: the program needs a power of "
                     "two" % (s["name"], rb))
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
            if (s["hops"], s["chunk_size"]) != (5, 32):
                fail("%s: %d hops in %d-byte chunks (the program writes 5 "
                     "hops of 4 bytes in 32-byte chunks)"
                     % (s["name"], s["hops"], s["chunk_size"]))
            if s["chunks"] & (s["chunks"] - 1) or s["redundancy"] > 4:
                fail("%s: chunks must be a power of two and N <= 4" % s["name"])
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
        if s.get("family") == "prototype":
            fail("%s: the prototype hash family's Key-Write (reversed key, "
                 "copy byte) is not what the program computes" % s["name"])
        add_roles(roles, s)
        size = s["slots"] if prim == "key-write" else s["width"]
        if size & (size - 1):
            fail("%s: %d slots or counters per row: the program needs a power "
                 "of two (it masks instead of taking a modulo)" % (s["name"], size))
        if prim == "key-write":
            if s["csum_bytes"] != 4:
                fail("%s: checksums of %d bytes (the program writes 4)"
                     % (s["name"], s["csum_bytes"]))
            if s["data_len"] not in (4, 20):
                fail("%s: %d-byte data (the program parses 4 or 20)"
                     % (s["name"], s["data_len"]))
            if s["data_len"] in kw_seen:
                fail("two Key-Write structures with %d-byte data"
                     % s["data_len"])
            kw_seen.add(s["data_len"])
            out.append("table_add kw_table kw_structure %d => %d %d %d %d %d %d %d"
                       % (1 if s["data_len"] == 20 else 0, i, s["slots"],
                          s["slot_size"], s["addr"], s["rkey"],
                          min(s["redundancy"], 4), a.port))
        else:
            if s["banks"] != 1:
                fail("%s: two banks (the program writes bank 0 only)"
                     % s["name"])
            if s["rows"] > 4:
                fail("%s: %d rows (at most 4)" % (s["name"], s["rows"]))
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
    print("\n".join(out))
    sys.stdout.flush()
    if a.flush:
        flush_loop(a, desc, flush_lists)


def flush_loop(a, desc, lists):
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
        for i in range(1024):
            sock.send(frame(2, i))
        rounds += 1
        if a.flush_count and rounds >= a.flush_count:
            return
        time.sleep(a.flush_ms / 1000.0)


main()
