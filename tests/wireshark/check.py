#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the Wireshark dissector (dist/wireshark/dta.lua) against what was sent.

    check.py TSHARK LUA DTA_GEN WORKDIR VERDICT

dta-gen writes pcaps of every DTA primitive (v1, several reports per
datagram, legacy) and of every INT report type and version, with its truth
files. tshark decodes them with the Lua dissector (-T pdml). Each decoded
report is compared with

  * an independent decoding of the same bytes, written here from
    docs/wire-format.md and docs/int.md with struct (no libdta, no Lua): the
    field values of every report and the number of reports per datagram;
  * dta-gen's truth file: keys, data, paths, counters, INT switch ids, hop
    metadata, drop reasons, events and per-flow report counts, read from
    tshark's output alone.

Negative cases are packets built here: truncated, wrong version, bad
opcode, bad lengths. tshark must exit 0, flag each with the expert info
named after the library's error code, mark the datagram rejected, and never
raise a Lua error. Mutants of the valid datagrams are then judged by the
library itself (VERDICT, tests/wireshark/verdict.c): the dissector must
accept what it accepts and flag its error code on the rest.
"""
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

DTA_PORT, INT_PORT = 40040, 32766
failures = []
valid_payloads = {"dta": [], "int": []}  # every valid datagram sent, for mutants


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


# ---------------------------------------------------------------- pcap io

def read_pcap(path):
    """UDP payloads and destination ports of an Ethernet/IPv4/UDP pcap."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from(end + "I", data, off + 8)[0]
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        assert struct.unpack_from(">H", pkt, 12)[0] == 0x0800, "not IPv4"
        ihl = (pkt[14] & 0x0F) * 4
        assert pkt[14 + 9] == 17, "not UDP"
        u = 14 + ihl
        dport, ulen = struct.unpack_from(">HH", pkt, u + 2)
        out.append((dport, pkt[u + 8:u + ulen]))
    return out


def write_pcap(path, payloads):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, (dport, p) in enumerate(payloads):
            udp = struct.pack(">HHHH", 40000, dport, 8 + len(p), 0) + p
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                             0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
            fr = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + udp
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)


# ------------------------------------------- independent decoding: DTA

def be(b, o, n):
    return int.from_bytes(b[o:o + n], "big")


def dta_decode(p):
    """Reports of a valid DTA payload as {wireshark field: [values]}."""
    reps = []
    if p[0] == 0xD1:
        off = 0
        while off < len(p):
            op, flags, blen = p[off + 1], p[off + 2], be(p, off + 4, 2)
            r = {"dta.opcode": [op], "dta.flags.immediate": [flags & 1],
                 "dta.flags.ack_request": [(flags >> 1) & 1],
                 "dta.length": [blen], "dta.reporter": [be(p, off + 6, 2)],
                 "dta.seq": [be(p, off + 8, 4)]}
            b = p[off + 12:off + 12 + blen]
            if op == 1:
                kl, dl = b[1], be(b, 2, 2)
                r.update({"dta.kw.redundancy": [b[0]], "dta.kw.key_len": [kl],
                          "dta.kw.data_len": [dl], "dta.kw.key": [b[4:4 + kl].hex()],
                          "dta.kw.data": [b[4 + kl:4 + kl + dl].hex()]})
            elif op == 4:
                r.update({"dta.pc.hop": [b[0]], "dta.pc.path_len": [b[1]],
                          "dta.pc.key_len": [b[2]], "dta.pc.value": [be(b, 4, 4)],
                          "dta.pc.key": [b[8:8 + b[2]].hex()]})
            elif op == 2:
                dl = be(b, 4, 2)
                r.update({"dta.ap.list_id": [be(b, 0, 4)], "dta.ap.data_len": [dl],
                          "dta.ap.data": [b[8:8 + dl].hex()]})
            elif op == 3:
                r.update({"dta.ki.redundancy": [b[0]], "dta.ki.key_len": [b[1]],
                          "dta.ki.counter": [be(b, 4, 8)],
                          "dta.ki.key": [b[12:12 + b[1]].hex()]})
            reps.append(r)
            off += 12 + blen
        return reps
    op = p[0]
    sub = {1: 9, 2: 8, 3: 13, 4: 9}[op]
    hdr = 2 if len(p) == 2 + sub else 3
    r = {"dta.opcode": [op]}
    if hdr == 2:
        r["dta.legacy.immediate"] = [p[1] >> 7]
    else:
        r["dta.legacy.seq"] = [p[1]]
        r["dta.legacy.immediate"] = [p[2] >> 7]
        r["dta.legacy.retransmittable"] = [(p[2] >> 6) & 1]
    b = p[hdr:]
    if op == 1:
        r.update({"dta.kw.redundancy": [b[0]], "dta.kw.key": [b[1:5].hex()],
                  "dta.kw.data": [b[5:9].hex()]})
    elif op == 3:
        r.update({"dta.ki.redundancy": [b[0]], "dta.ki.key": [b[1:5].hex()],
                  "dta.ki.counter": [be(b, 5, 8)]})
    elif op == 2:
        r.update({"dta.ap.list_id": [be(b, 0, 4)], "dta.ap.data": [b[4:8].hex()]})
    else:
        r.update({"dta.pc.key": [b[0:4].hex()], "dta.legacy.hop": [b[4]],
                  "dta.pc.hop": [b[4] - 1], "dta.pc.value": [be(b, 5, 4)]})
    return [r]


# ------------------------------------------- independent decoding: INT

def bitmap16(b, p, prefix, int_md, layout="v2"):
    """Fields of a 16-bit INT bitmap (bit 0 = MSB) read from p. layout "v2"
    (INT v2.x and v2.0 reports: bits 4-6 take 8 bytes), "v10" (INT v1.0:
    only bit 6 does, timestamps are 4 bytes), "v05" (every value 4 bytes)."""
    r, o = {}, 0
    for n in range(16):
        if not b & (0x8000 >> n):
            continue
        if layout == "v05":
            w = 4
        elif layout == "v10":
            w = 8 if n == 6 else 4
        else:
            w = 8 if 4 <= n <= 6 else 4
        if n == 0 and int_md:
            r[prefix + "switch_id"] = [be(p, o, 4)]
        elif n == 1:
            r[prefix + "ingress_port"] = [be(p, o, 2)]
            r[prefix + "egress_port"] = [be(p, o + 2, 2)]
        elif n == 2:
            r[prefix + "hop_latency"] = [be(p, o, 4)]
        elif n == 3:
            r[prefix + "queue_id"] = [p[o]]
            r[prefix + "queue_occupancy"] = [be(p, o + 1, 3)]
        elif n == 4:
            r[prefix + "ingress_ts"] = [be(p, o, 8 if w == 8 else 4)]
        elif n == 5:
            r[prefix + "egress_ts"] = [be(p, o, 8 if w == 8 else 4)]
        elif n == 15 and not int_md:
            r[prefix + "drop_queue_id"] = [p[o]]
            r[prefix + "drop_reason"] = [p[o + 1]]
        o += w
    return r


def inner_decode(p, first):
    """Flow key, TTL and INT-MD hops of an inner packet (3 Eth, 4 IPv4, 6 IPv6)."""
    o = 0
    if first == 3:
        et, o = be(p, 12, 2), 14
        while et in (0x8100, 0x88A8, 0x9100):
            et, o = be(p, o + 2, 2), o + 4
        first = {0x0800: 4, 0x86DD: 6}.get(et)
        if first is None:
            return {}, []
    if first == 4:
        ihl = (p[o] & 15) * 4
        dscp, ttl, proto = p[o + 1] >> 2, p[o + 8], p[o + 9]
        addrs, l4 = p[o + 12:o + 20], o + ihl
    else:
        dscp = (be(p, o, 2) >> 6) & 0x3F
        ttl, proto, addrs, l4 = p[o + 7], p[o + 6], p[o + 8:o + 40], o + 40
    key = addrs + p[l4:l4 + 4] + bytes([proto])
    hops = []
    r = {"int.flow_key": [key.hex()], "int.hop_index": [64 - ttl]}
    if dscp & 1 and p[l4 + (20 if proto == 6 else 8)] == 0x01:
        # INT v1.0 / v0.5: 8-bit shim Type 1, Length with the shim (INT.mdk
        # telemetry_v1.0 / telemetry_v0.5 "INT over TCP/UDP")
        s = l4 + (20 if proto == 6 else 8)
        total, h = p[s + 2] * 4, s + 4
        ver, inst = p[h] >> 4, be(p, h + 4, 2)
        r["int.mdhdr.version"] = [ver]
        r["int.mdhdr.instructions"] = [inst]
        if ver == 1:
            hop_ml = p[h + 2] & 0x1F
            r["int.mdhdr.hop_ml"] = [hop_ml]
            r["int.mdhdr.remaining_hops"] = [p[h + 3]]
            n, layout = (total - 12) // (hop_ml * 4), "v10"
        else:
            hop_ml, n, layout = p[h + 1] & 0x1F, p[h + 3], "v05"
            r["int.mdhdr.ins_cnt"] = [hop_ml]
            r["int.mdhdr.max_hops"] = [p[h + 2]]
            r["int.mdhdr.total_hops"] = [n]
            r["int.tail.proto"] = [p[s + total - 4]]
            r["int.tail.dport"] = [be(p, s + total - 3, 2)]
        r["int.mdhdr.n_hops"] = [n]
        for i in range(n):
            hops.append(bitmap16(inst, p[h + 8 + i * hop_ml * 4:], "int.hop.", True, layout))
    elif dscp & 1:  # dta-gen marks INT-MD with DSCP 1 (docs/int.md)
        s = l4 + (20 if proto == 6 else 8)
        words = p[s + 1]
        h = s + 4
        r["int.mdhdr.version"] = [p[h] >> 4]
        hop_ml, inst = p[h + 2] & 0x1F, be(p, h + 4, 2)
        r["int.mdhdr.hop_ml"] = [hop_ml]
        r["int.mdhdr.remaining_hops"] = [p[h + 3]]
        r["int.mdhdr.instructions"] = [inst]
        n = (words - 3) // hop_ml
        r["int.mdhdr.n_hops"] = [n]
        for i in range(n):
            hops.append(bitmap16(inst, p[h + 12 + i * hop_ml * 4:], "int.hop.", True))
    return r, hops


def int_decode(p):
    """(group fields, [(report fields, [hop fields])]) of a valid INT payload."""
    ver = p[0] >> 4
    if ver == 0:
        w = be(p, 0, 4)
        r = {"int.version": [0], "int.v05.nproto": [(w >> 24) & 15],
             "int.v05.d": [(w >> 23) & 1], "int.v05.q": [(w >> 22) & 1],
             "int.v05.f": [(w >> 21) & 1], "int.v05.hw_id": [w & 0x3F],
             "int.v05.seq": [be(p, 4, 4)], "int.v05.ingress_ts": [be(p, 8, 4)]}
        o, np = 12, (w >> 24) & 15
        if np == 1:
            r.update({"int.v05.switch_id": [be(p, o, 4)],
                      "int.meta.ingress_port": [be(p, o + 4, 2)],
                      "int.meta.egress_port": [be(p, o + 6, 2)],
                      "int.meta.drop_queue_id": [p[o + 8]],
                      "int.meta.drop_reason": [p[o + 9]]})
            o += 12
        elif np == 2:
            r.update({"int.v05.switch_id": [be(p, o, 4)],
                      "int.meta.ingress_port": [be(p, o + 4, 2)],
                      "int.meta.egress_port": [be(p, o + 6, 2)],
                      "int.meta.queue_id": [p[o + 8]],
                      "int.meta.queue_occupancy": [be(p, o + 9, 3)],
                      "int.meta.egress_ts": [be(p, o + 12, 4)]})
            o += 16
        inner, hops = inner_decode(p[o:], 3)
        r.update(inner)
        return {}, [(r, hops)]
    if ver == 1:
        w = be(p, 0, 4)
        bits = (w >> 15) & 0x3F
        r = {"int.version": [1], "int.v1.length": [(w >> 24) & 15],
             "int.v1.nprot": [(w >> 21) & 7], "int.v1.rep_md_bits": [bits],
             "int.v1.d": [(w >> 8) & 1], "int.v1.q": [(w >> 7) & 1],
             "int.v1.f": [(w >> 6) & 1], "int.v1.hw_id": [w & 0x3F],
             "int.v1.switch_id": [be(p, 4, 4)], "int.v1.seq": [be(p, 8, 4)],
             "int.v1.ingress_ts": [be(p, 12, 4)]}
        o = 16
        for mask, names in ((0x20, ("ingress_port", "egress_port")), (0x10, ("hop_latency",)),
                            (0x08, ("queue_id", "queue_occupancy")), (0x04, ("egress_ts",)),
                            (0x02, ("drop_queue_id", "drop_reason")), (0x01, ("tx_util",))):
            if bits & mask:
                if len(names) == 1:
                    r["int.meta." + names[0]] = [be(p, o, 4)]
                elif mask == 0x20:
                    r["int.meta.ingress_port"] = [be(p, o, 2)]
                    r["int.meta.egress_port"] = [be(p, o + 2, 2)]
                elif mask == 0x08:
                    r["int.meta.queue_id"] = [p[o]]
                    r["int.meta.queue_occupancy"] = [be(p, o + 1, 3)]
                else:
                    r["int.meta.drop_queue_id"] = [p[o]]
                    r["int.meta.drop_reason"] = [p[o + 1]]
                o += 4
        inner, hops = inner_decode(p[o:], {0: 3, 1: 4, 2: 6}[(w >> 21) & 7])
        r.update(inner)
        return {}, [(r, hops)]
    w = be(p, 0, 4)
    group = {"int.version": [2], "int.v2.hw_id": [(w >> 22) & 0x3F],
             "int.v2.seq": [w & 0x3FFFFF], "int.v2.node_id": [be(p, 4, 4)]}
    o, reps = 8, []
    while o < len(p):
        rl = p[o + 1]
        rlen = len(p) - o if rl == 0xFF else 4 + rl * 4
        rep = p[o:o + rlen]
        r = {"int.v2.rep_type": [rep[0] >> 4], "int.v2.in_type": [rep[0] & 15],
             "int.v2.report_len": [rl], "int.v2.md_len": [rep[2]],
             "int.v2.d": [rep[3] >> 7], "int.v2.q": [(rep[3] >> 6) & 1],
             "int.v2.f": [(rep[3] >> 5) & 1], "int.v2.i": [(rep[3] >> 4) & 1]}
        q = 4
        if rep[0] >> 4 == 1:
            bits = be(rep, 4, 2)
            r["int.v2.rep_md_bits"] = [bits]
            r["int.v2.ds_md_bits"] = [be(rep, 8, 2)]
            r.update(bitmap16(bits, rep[12:], "int.meta.", False))
            q = 12 + rep[2] * 4
        inner, hops = inner_decode(rep[q:], {3: 3, 4: 4, 5: 6}[rep[0] & 15])
        r.update(inner)
        # The sink's own metadata in the header is the path's last hop
        # when the stack does not already end at this node (INT.mdk v2.1).
        node = be(p, 4, 4)
        if rep[0] >> 4 == 1 and be(rep, 4, 2) and "int.mdhdr.n_hops" in r and \
                (not hops or hops[0].get("int.hop.switch_id") != [node]):
            r["int.sink_hop"] = [node]
        reps.append((r, hops))
        o += rlen
    return group, reps


# ------------------------------------------------------- tshark side

BYTES = {"dta.kw.key", "dta.kw.data", "dta.pc.key", "dta.ap.data", "dta.ki.key"}


def value(el):
    name, show = el.get("name"), el.get("show", "")
    if name in BYTES:
        return el.get("value", "")
    try:
        return int(show, 0)
    except ValueError:
        return show


def collect(node, skip=()):
    """{field name: [values]} under node, in order, not inside tags in skip."""
    out = {}
    for ch in node:
        if ch.get("name") in skip:
            continue
        n = ch.get("name", "")
        if ch.tag == "field" and (n.startswith("dta.") or n.startswith("int.")):
            out.setdefault(n, []).append(value(ch))
        for k, v in collect(ch, skip).items():
            out.setdefault(k, []).extend(v)
    return out


def find_all(node, name):
    res = []
    for ch in node:
        if ch.get("name") == name:
            res.append(ch)
        else:
            res.extend(find_all(ch, name))
    return res


def run_tshark(tshark, lua, pcap, extra=()):
    # lua "": the dissector is installed where tshark loads it by itself.
    cmd = [tshark, "-n", *(["-X", "lua_script:" + lua] if lua else []), *extra,
           "-r", pcap, "-T", "pdml"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0:
        fail("%s: tshark exited %d: %s" % (pcap, p.returncode, err.strip()))
        return []
    if "Lua" in err and "rror" in err:
        fail("%s: tshark reports a Lua error: %s" % (pcap, err.strip()))
    root = ET.fromstring(p.stdout)
    pkts = root.findall("packet")
    for i, pk in enumerate(pkts):
        if find_all(pk, "_ws.lua.error"):
            fail("%s frame %d: Lua error in the dissector" % (pcap, i + 1))
    return pkts


def proto_of(pkt, name):
    for pr in pkt.findall("proto"):
        if pr.get("name") == name:
            return pr
    return None


def experts(pr):
    return {f.get("name") for e in find_all(pr, "_ws.expert") for f in e
            if f.get("name", "").startswith(("dta.expert.", "int.expert."))}


def compare(where, want, got):
    for k, v in want.items():
        if got.get(k) != v:
            fail("%s: %s is %s, sent %s" % (where, k, got.get(k), v))


# ------------------------------------------------------------ DTA

def check_dta_pcap(tshark, lua, pcap, truth):
    sent = read_pcap(pcap)
    pkts = run_tshark(tshark, lua, pcap)
    if len(pkts) != len(sent):
        return fail("%s: tshark shows %d frames, %d written" % (pcap, len(pkts), len(sent)))
    decoded = []  # tshark's reports, in order
    nrep = 0
    valid_payloads["dta"].extend(sent)
    for i, ((dport, payload), pk) in enumerate(zip(sent, pkts)):
        where = "%s frame %d" % (os.path.basename(pcap), i + 1)
        pr = proto_of(pk, "dta")
        if pr is None:
            fail(where + ": not dissected as DTA")
            continue
        want = dta_decode(payload)
        top = collect(pr, skip=("dta.report",))
        if top.get("dta.reports") != [len(want)]:
            fail("%s: dta.reports %s, %d sent" % (where, top.get("dta.reports"), len(want)))
        if top.get("dta.valid") != [1] or experts(pr):
            fail("%s: a valid datagram flagged: %s" % (where, experts(pr)))
        reps = find_all(pr, "dta.report")
        if len(reps) != len(want):
            fail("%s: %d report subtrees, %d sent" % (where, len(reps), len(want)))
        for j, (w, r) in enumerate(zip(want, reps)):
            got = collect(r)
            compare("%s report %d" % (where, j + 1), w, got)
            decoded.append(got)
        nrep += len(want)
    check_dta_truth(pcap, truth, decoded)
    print("ok: %s: %d frames, %d reports match the bytes sent and %s" %
          (os.path.basename(pcap), len(sent), nrep, os.path.basename(truth)))


def one(got, name):
    v = got.get(name)
    return v[0] if v else None


def check_dta_truth(pcap, truth, decoded):
    lines = [l.split() for l in open(truth) if not l.startswith("#")]
    name = os.path.basename(truth)
    kind = lines[0][0] if lines else None
    if kind == "kw":
        last = {}
        for g in decoded:
            last[one(g, "dta.kw.key")] = one(g, "dta.kw.data")
        for _, key, data in lines:
            if last.get(key) != data:
                fail("%s: key %s carries %s in tshark, truth %s" % (name, key, last.get(key), data))
    elif kind == "pc":
        paths = {}
        for g in decoded:
            paths.setdefault(one(g, "dta.pc.key"), {})[one(g, "dta.pc.hop")] = one(g, "dta.pc.value")
        for _, key, path in lines:
            hops = paths.get(key, {})
            got = [hops.get(h) for h in range(len(hops))]
            if got != [int(x) for x in path.split(",")]:
                fail("%s: key %s path %s in tshark, truth %s" % (name, key, got, path))
    elif kind == "ap":
        got = [(one(g, "dta.ap.list_id"), one(g, "dta.ap.data")) for g in decoded]
        if got != [(int(l), d) for _, l, d in lines]:
            fail("%s: Append entries differ from the truth" % name)
    elif kind == "ki":
        sums = {}
        for g in decoded:
            k = one(g, "dta.ki.key")
            sums[k] = sums.get(k, 0) + one(g, "dta.ki.counter")
        for _, key, n in lines:
            if sums.get(key) != int(n):
                fail("%s: key %s counts %s in tshark, truth %s" % (name, key, sums.get(key), n))
    else:
        fail("%s: no truth lines" % name)


# ------------------------------------------------------------ INT

def check_int_pcap(tshark, lua, pcap, truth, kind, version):
    sent = read_pcap(pcap)
    pkts = run_tshark(tshark, lua, pcap)
    if len(pkts) != len(sent):
        return fail("%s: tshark shows %d frames, %d written" % (pcap, len(pkts), len(sent)))
    reports = []  # (report fields, [hop fields]) as tshark shows them
    multi = 0
    valid_payloads["int"].extend(sent)
    for i, ((dport, payload), pk) in enumerate(zip(sent, pkts)):
        where = "%s frame %d" % (os.path.basename(pcap), i + 1)
        pr = proto_of(pk, "int")
        if pr is None:
            fail(where + ": not dissected as INT")
            continue
        group, want = int_decode(payload)
        top = collect(pr, skip=("int.report",))
        if top.get("int.reports") != [len(want)]:
            fail("%s: int.reports %s, %d sent" % (where, top.get("int.reports"), len(want)))
        multi += len(want) > 1
        if top.get("int.valid") != [1] or experts(pr):
            fail("%s: a valid datagram flagged: %s" % (where, experts(pr)))
        compare(where + " group header", group, top)
        reps = find_all(pr, "int.report")
        if len(reps) != len(want):
            fail("%s: %d report subtrees, %d sent" % (where, len(reps), len(want)))
        for j, ((w, whops), r) in enumerate(zip(want, reps)):
            got = collect(r, skip=("int.hop",))
            rw = "%s report %d" % (where, j + 1)
            compare(rw, w, got)
            if "int.sink_hop" in got and "int.sink_hop" not in w:
                fail("%s: int.sink_hop %s shown, not expected" % (rw, got["int.sink_hop"]))
            hops = [collect(h) for h in find_all(r, "int.hop")]
            if len(hops) != len(whops):
                fail("%s: %d INT-MD hops shown, %d sent" % (rw, len(hops), len(whops)))
            for k, (wh, gh) in enumerate(zip(whops, hops)):
                compare("%s hop %d" % (rw, k), wh, gh)
            # the group header's node id belongs to every report
            got.update({k: v for k, v in top.items() if k.startswith("int.v2.")})
            reports.append((got, hops))
    if version == "2.0" and kind == "int-pc" and multi == 0:
        fail("%s: no datagram with several v2.0 reports: --batch not exercised" % pcap)
    check_int_truth(truth, reports, kind, version)
    print("ok: %s: %d frames, %d reports (%d datagrams with several) match the bytes "
          "sent and %s" % (os.path.basename(pcap), len(sent), len(reports), multi,
                           os.path.basename(truth)))


def node_of(g):
    for k in ("int.v05.switch_id", "int.v1.switch_id", "int.v2.node_id"):
        if g.get(k):
            return g[k][0]
    return None


def field_or_dash(d, name):
    v = d.get(name)
    return str(v[0]) if v else "-"


def check_int_truth(truth, reports, kind, version):
    name = os.path.basename(truth)
    lines = [l.split() for l in open(truth) if not l.startswith("#")]
    paths = {l[1]: [int(x) for x in l[2].split(",")] for l in lines if l[0] == "int-path"}
    # int-path: the switch ids of each flow's path, hop 0 first
    if kind == "int-md":
        for g, hops in reports:
            flow = one(g, "int.flow_key")
            got = [one(h, "int.hop.switch_id") for h in reversed(hops)]
            if g.get("int.sink_hop"):
                got.append(g["int.sink_hop"][0])
            if paths.get(flow) != got:
                fail("%s: flow %s path %s in tshark (stack reversed), truth %s" %
                     (name, flow, got, paths.get(flow)))
    elif kind == "int-pc":
        seen = {}
        for g, _ in reports:
            seen.setdefault(one(g, "int.flow_key"), {})[one(g, "int.hop_index")] = node_of(g)
        for flow, path in paths.items():
            got = [seen.get(flow, {}).get(h) for h in range(len(path))]
            if got != path:
                fail("%s: flow %s hops %s in tshark, truth %s" % (name, flow, got, path))
    if kind in ("int-pc", "int-md") and not paths:
        fail(name + ": no int-path lines")
    # int-hop: every described hop's latency, occupancy, egress timestamp
    want = [l[1:] for l in lines if l[0] == "int-hop"]
    got = []
    for g, hops in reports:
        flow = one(g, "int.flow_key")
        if hops:
            for h in reversed(hops):
                got.append([flow, str(one(h, "int.hop.switch_id")),
                            field_or_dash(h, "int.hop.hop_latency"),
                            field_or_dash(h, "int.hop.queue_occupancy"),
                            field_or_dash(h, "int.hop.egress_ts")])
            if g.get("int.sink_hop"):
                got.append([flow, str(g["int.sink_hop"][0]),
                            field_or_dash(g, "int.meta.hop_latency"),
                            field_or_dash(g, "int.meta.queue_occupancy"),
                            field_or_dash(g, "int.meta.egress_ts")])
        elif any(g.get("int.meta." + f) for f in ("hop_latency", "queue_occupancy", "egress_ts")):
            got.append([flow, str(node_of(g)), field_or_dash(g, "int.meta.hop_latency"),
                        field_or_dash(g, "int.meta.queue_occupancy"),
                        field_or_dash(g, "int.meta.egress_ts")])
    if got != want:
        fail("%s: %d int-hop records in tshark differ from the %d in the truth (first: %s / %s)"
             % (name, len(got), len(want), got[:1], want[:1]))
    # int-event: switch, ports, D|Q, queue, drop reason, occupancy
    want = [l[1:9] for l in lines if l[0] == "int-event"]
    if kind in ("int-drop", "int-q"):
        got = []
        for g, _ in reports:
            d = g.get("int.v05.d", g.get("int.v1.d", g.get("int.v2.d")))[0]
            queue = g.get("int.meta.queue_id", g.get("int.meta.drop_queue_id", [0]))[0]
            got.append([one(g, "int.flow_key"), str(node_of(g)),
                        str(one(g, "int.meta.ingress_port")),
                        str(one(g, "int.meta.egress_port")), "D" if d else "Q", str(queue),
                        str(g.get("int.meta.drop_reason", [255])[0]),
                        str(g.get("int.meta.queue_occupancy", [0])[0])])
        if got != want:
            fail("%s: int-event lines differ from tshark (first: %s / %s)" %
                 (name, got[:1], want[:1]))
        if not want:
            fail(name + ": no int-event lines")
    # int-flow: reports per flow
    want = {l[1]: int(l[2]) for l in lines if l[0] == "int-flow"}
    counts = {}
    for g, _ in reports:
        counts[one(g, "int.flow_key")] = counts.get(one(g, "int.flow_key"), 0) + 1
    if counts != want:
        fail("%s: reports per flow in tshark differ from int-flow lines" % name)


# ------------------------------------------------------- negative cases

def v1(op, body, flags=0, rsvd=0, ver=0xD1, length=None, seq=7):
    return struct.pack(">BBBBHHI", ver, op, flags, rsvd,
                       len(body) if length is None else length, 1, seq) + body


KW = bytes([2, 4, 0, 4]) + b"\x0a\x00\x00\x01" + b"\xde\xad\xbe\xef"


def inner_udp(tos, payload):
    """Ethernet + IPv4 + UDP 1000 -> 2000 carrying payload."""
    ulen = 8 + len(payload)
    return (bytes.fromhex("020000000002020000000001") + b"\x08\x00" +
            struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + ulen, 0, 0, 63, 17, 0,
                        b"\x0a\0\0\1", b"\x0a\0\0\2") +
            struct.pack(">HHHH", 1000, 2000, ulen, 0) + payload)


def v2(reports):
    return struct.pack(">II", (2 << 28) | (1 << 22) | 5, 9) + b"".join(reports)


def v2_report(types, body, md_len=0, flags=0x80, rl=None):
    """A v2.0 individual report; body must be whole words."""
    assert len(body) % 4 == 0
    return bytes([types, len(body) // 4 if rl is None else rl, md_len, flags]) + body


INNER = inner_udp(0, b"\0\0")                       # 44 bytes
V2_OK = v2([v2_report(0x03, INNER)])                 # Inner Only, Ethernet
MD_HDR_V1 = bytes([0x10, 0, 1, 3]) + bytes(8)        # INT-MD metadata Ver 1
# INT v1.0 header (8 bytes: Ver 1, Hop ML 1, Remaining 3, bitmap bit 0)
INT10_HDR = bytes([0x10, 0, 1, 3, 0x80, 0, 0, 0])
MD_HDR_V2 = bytes([0x20, 0, 1, 3]) + bytes(8)


def md_case(shim, mdh):
    return v2([v2_report(0x03, inner_udp(0x04, shim + mdh + b"\0\0"))])


# (name, port, payload, expert expected, reports shown)
NEGATIVE = [
    ("dta shorter than a base header", DTA_PORT, v1(1, KW)[:11], "dta.expert.truncated"),
    ("dta body past the datagram", DTA_PORT, v1(1, KW)[:-2], "dta.expert.truncated"),
    ("dta second report truncated", DTA_PORT, v1(1, KW) + v1(1, KW)[:-1], "dta.expert.truncated"),
    ("dta wrong version 0xd2", DTA_PORT, v1(1, KW, ver=0xD2), "dta.expert.version"),
    ("dta first byte neither v1 nor legacy", DTA_PORT, b"\x77" + KW, "dta.expert.version"),
    ("dta unknown opcode", DTA_PORT, v1(9, KW), "dta.expert.opcode"),
    ("dta undefined flag bit", DTA_PORT, v1(1, KW, flags=0x80), "dta.expert.malformed"),
    ("dta reserved byte", DTA_PORT, v1(1, KW, rsvd=1), "dta.expert.malformed"),
    ("dta kw N = 0", DTA_PORT, v1(1, bytes([0]) + KW[1:]), "dta.expert.malformed"),
    ("dta kw key+data longer than body", DTA_PORT, v1(1, KW[:4] + KW[4:] [:6]),
     "dta.expert.truncated"),
    ("dta pc hop >= path length", DTA_PORT,
     v1(4, bytes([3, 3, 4, 0]) + b"\0\0\0\5" + b"\x0a\0\0\1"), "dta.expert.malformed"),
    ("dta pc reserved byte", DTA_PORT,
     v1(4, bytes([0, 3, 4, 1]) + b"\0\0\0\5" + b"\x0a\0\0\1"), "dta.expert.malformed"),
    ("dta ap reserved bytes", DTA_PORT,
     v1(2, b"\0\0\0\1" + b"\0\4" + b"\0\1" + b"abcd"), "dta.expert.malformed"),
    ("dta ki reserved bytes", DTA_PORT,
     v1(3, bytes([1, 4, 0, 1]) + bytes(7) + b"\1" + b"\x0a\0\0\1"), "dta.expert.malformed"),
    ("dta ki body longer than key", DTA_PORT,
     v1(3, bytes([1, 4, 0, 0]) + bytes(7) + b"\1" + b"\x0a\0\0\1" + b"\0"),
     "dta.expert.malformed"),
    ("dta ap data length 0", DTA_PORT, v1(2, b"\0\0\0\1" + bytes(4)), "dta.expert.malformed"),
    ("dta legacy ambiguous length", DTA_PORT, bytes([1, 0x80]) + bytes(12),
     "dta.expert.ambiguous"),
    ("dta legacy truncated", DTA_PORT, bytes([3, 0x80, 1, 2]), "dta.expert.truncated"),
    ("dta legacy hop 0", DTA_PORT, bytes([4, 0]) + b"\x0a\0\0\1" + b"\0" + b"\0\0\0\5",
     "dta.expert.malformed"),
    ("int wrong version 3", INT_PORT, bytes([0x30]) + bytes(30), "int.expert.version"),
    ("int v0.5 shorter than its header", INT_PORT, bytes([0x00, 0, 0, 1, 0]),
     "int.expert.truncated"),
    ("int v0.5 drop header cut", INT_PORT, bytes([0x01, 0x80, 0, 1]) + bytes(8) + bytes(6),
     "int.expert.truncated"),
    ("int v0.5 NProto 7", INT_PORT, bytes([0x07, 0, 0, 1]) + bytes(8) + INNER,
     "int.expert.unsupported"),
    ("int v1.0 Length against RepMdBits", INT_PORT,
     struct.pack(">I", (1 << 28) | (5 << 24)) + bytes(12) + INNER, "int.expert.length"),
    ("int v1.0 header cut", INT_PORT, struct.pack(">I", (1 << 28) | (4 << 24)) + bytes(4),
     "int.expert.truncated"),
    ("int v2.0 report length past the datagram", INT_PORT, V2_OK[:-4], "int.expert.truncated"),
    ("int v2.0 second report cut", INT_PORT, V2_OK + V2_OK[8:20], "int.expert.truncated"),
    ("int v2.0 RepType 2", INT_PORT,
     V2_OK[:8] + bytes([0x23]) + V2_OK[9:], "int.expert.unsupported"),
    ("int v2.0 MD length against RepMdBits", INT_PORT,
     v2([v2_report(0x13, struct.pack(">HHHH", 0x4000, 0, 0, 0) + bytes(8) + INNER, md_len=2)]),
     "int.expert.length"),
    ("int inner IPv4 IHL 4", INT_PORT,
     V2_OK[:12] + INNER[:14] + b"\x44" + INNER[15:], "int.expert.malformed"),
    ("int INT-MD shim Length past the packet", INT_PORT,
     md_case(bytes([0x10, 40, 0, 0]), MD_HDR_V2), "int.expert.truncated"),
    ("int INT-MD shim Length 2 bytes past the packet", INT_PORT,
     md_case(bytes([0x10, 4, 0, 0]), MD_HDR_V2), "int.expert.truncated"),
    ("int INT-MD metadata Ver 1", INT_PORT,
     md_case(bytes([0x10, 3, 0, 0]), MD_HDR_V1), "int.expert.version"),
    ("int INT-MD shim Type 3", INT_PORT,
     md_case(bytes([0x30, 3, 0, 0]), MD_HDR_V2), "int.expert.unsupported"),
    ("int INT-MD stack of 17 hops", INT_PORT,
     md_case(bytes([0x10, 20, 0, 0]), bytes([0x20, 0, 1, 0]) + struct.pack(">HHHH", 0x8000, 0, 0, 0)
             + b"".join(struct.pack(">I", i) for i in range(17))), "int.expert.hops"),
    ("int INT v1.0 shim Length 2 words", INT_PORT,
     md_case(bytes([0x01, 0, 2, 0]), INT10_HDR), "int.expert.length"),
    ("int INT v1.0 shim Length past the packet", INT_PORT,
     md_case(bytes([0x01, 0, 40, 0]), INT10_HDR), "int.expert.truncated"),
    ("int INT v1.0 shim, metadata Ver 3", INT_PORT,
     md_case(bytes([0x01, 0, 3, 0]), bytes([0x30]) + INT10_HDR[1:]), "int.expert.version"),
    ("int INT v1.0 Hop ML below the bitmap", INT_PORT,
     md_case(bytes([0x01, 0, 4, 0]), bytes([0x10, 0, 1, 3, 0xC0, 0, 0, 0]) + bytes(4)),
     "int.expert.length"),
    ("int INT v0.5 InsCnt against the bitmap", INT_PORT,
     md_case(bytes([0x01, 0, 4, 0]), bytes([0x00, 2, 8, 0, 0x80, 0, 0, 0]) + bytes([17, 0, 80, 0])),
     "int.expert.length"),
    ("int INT v0.5 no room for the tail", INT_PORT,
     md_case(bytes([0x01, 0, 3, 0]), bytes([0x00, 1, 8, 0, 0x80, 0, 0, 0])),
     "int.expert.length"),
    ("int INT-MD stack not whole hops", INT_PORT,
     md_case(bytes([0x10, 4, 0, 0]), bytes([0x20, 0, 2, 3]) + bytes(8) + bytes(4)),
     "int.expert.length"),
]


def check_negative(tshark, lua, work):
    before = len(failures)
    pcap = os.path.join(work, "negative.pcap")
    write_pcap(pcap, [(port, p) for _, port, p, _ in NEGATIVE])
    pkts = run_tshark(tshark, lua, pcap)
    if len(pkts) != len(NEGATIVE):
        return fail("negative.pcap: %d frames shown, %d written" % (len(pkts), len(NEGATIVE)))
    for (name, port, _, ex), pk in zip(NEGATIVE, pkts):
        pr = proto_of(pk, "dta" if port == DTA_PORT else "int")
        if pr is None:
            fail(name + ": not dissected")
            continue
        got = experts(pr)
        valid = collect(pr, skip=("dta.report", "int.report")).get(
            "dta.valid" if port == DTA_PORT else "int.valid")
        if ex not in got:
            fail("%s: expert %s missing (has %s)" % (name, ex, sorted(got)))
        rej = "dta.expert.rejected" if port == DTA_PORT else "int.expert.rejected"
        if rej not in got or valid != [0]:
            fail("%s: not marked as rejected by the translator" % name)
    if len(failures) == before:
        print("ok: %d malformed datagrams flagged with their error, no Lua error" %
              len(NEGATIVE))


def check_gen_malformed(tshark, lua, gen, work):
    """dta-gen's own junk (truncated, version, length, opcode) among valid reports."""
    pcap = os.path.join(work, "junk.pcap")
    subprocess.run([gen, "-t", "kw", "-n", "40", "--malformed", "8", "-w", pcap],
                   check=True, stderr=subprocess.DEVNULL)
    sent = read_pcap(pcap)
    pkts = run_tshark(tshark, lua, pcap)
    bad = 0
    for (_, payload), pk in zip(sent, pkts):
        pr = proto_of(pk, "dta")
        ok = collect(pr, skip=("dta.report",)).get("dta.valid") == [1]
        sound = len(payload) >= 12 and payload[0] == 0xD1 and payload[1] in (1, 2, 3, 4) \
            and be(payload, 4, 2) + 12 <= len(payload)
        bad += not sound
        if ok != sound:
            fail("junk.pcap: a datagram %s by tshark is %s" %
                 ("accepted" if ok else "rejected", "valid" if sound else "malformed"))
    if bad != 8:
        fail("junk.pcap: %d malformed datagrams, dta-gen wrote 8" % bad)
    print("ok: dta-gen --malformed: the 8 junk datagrams and only they are flagged")


# ----------------------------------------------------- preferences etc.

def check_prefs(tshark, lua, gen, work):
    # A non-default port through the preference, and the v1 heuristic.
    pcap = os.path.join(work, "port.pcap")
    subprocess.run([gen, "-t", "ap", "-n", "3", "-d", "127.0.0.1:41000", "-w", pcap],
                   check=True, stderr=subprocess.DEVNULL)
    for extra, what in ((["-o", "dta.udp_port:41000", "--disable-heuristic", "dta_udp"],
                         "udp_port preference"), ([], "heuristic")):
        pkts = run_tshark(tshark, lua, pcap, extra)
        n = sum(proto_of(p, "dta") is not None for p in pkts)
        if n != 3:
            fail("%s: %d of 3 frames on port 41000 dissected as DTA" % (what, n))
    pkts = run_tshark(tshark, lua, pcap, ["--disable-heuristic", "dta_udp"])
    if any(proto_of(p, "dta") is not None for p in pkts):
        fail("port 41000 dissected as DTA with the heuristic off and the default port")
    # The legacy preference forces a header variant, as DTA_DECODE_LEGACY_*.
    pcap = os.path.join(work, "legacy_nack.pcap")
    nack = bytes([2, 5, 0xC0]) + b"\0\0\0\3" + b"\xca\xfe\xba\xbe"
    write_pcap(pcap, [(DTA_PORT, nack)])
    pr = proto_of(run_tshark(tshark, lua, pcap)[0], "dta")
    got = collect(pr)
    if got.get("dta.legacy.seq") != [5] or got.get("dta.legacy.retransmittable") != [1] \
            or got.get("dta.ap.list_id") != [3] or got.get("dta.format") != [3]:
        fail("legacy NACK Append by length: %s" % got)
    pr = proto_of(run_tshark(tshark, lua, pcap, ["-o", "dta.legacy:plain"])[0], "dta")
    if "dta.expert.malformed" not in experts(pr):
        fail("legacy forced plain on a NACK-length payload is not flagged")
    # INT-MD found by DSCP (the default) or by a UDP port with NPT 1.
    pcap = os.path.join(work, "int-md-2.0.pcap")
    for pk in run_tshark(tshark, lua, pcap, ["-o", "int.dscp_mask:0"]):
        pr = proto_of(pk, "int")
        if find_all(pr, "int.hop") or experts(pr):
            fail("int.dscp_mask 0 still reads an INT-MD stack")
    shim = bytes([0x14, 4, 0x07, 0xD0])                 # INT-MD, NPT 1, port 2000
    mdh = bytes([0x20, 0, 1, 7]) + struct.pack(">HHHH", 0x8000, 0, 0, 0)
    inner = inner_udp(0, shim + mdh + struct.pack(">I", 77) + b"\0\0")
    inner = inner[:36] + struct.pack(">H", 5000) + inner[38:]  # UDP dport 5000
    pcap = os.path.join(work, "int_by_port.pcap")
    write_pcap(pcap, [(INT_PORT, v2([v2_report(0x03, inner)]))])
    pr = proto_of(run_tshark(tshark, lua, pcap, ["-o", "int.md_udp_port:5000"])[0], "int")
    got = collect(pr)
    # NPT 1: the flow's destination port is the shim's, as the translator keys it
    if got.get("int.hop.switch_id") != [77] or got.get("int.shim.orig_dport") != [2000] \
            or got.get("int.flow_key") != ["0a0000010a00000203e807d011"] or experts(pr):
        fail("INT-MD by UDP port 5000: %s %s" % (got, experts(pr)))
    pr = proto_of(run_tshark(tshark, lua, pcap)[0], "int")
    if find_all(pr, "int.hop"):
        fail("INT-MD read by UDP port without int.md_udp_port")
    print("ok: preferences (ports, legacy variant, INT-MD detection) and the v1 heuristic")


EXPERT_OF = {"truncated": "truncated", "malformed": "malformed", "version": "version",
             "opcode": "opcode", "ambiguous": "ambiguous", "int_unsupported": "unsupported",
             "int_length": "length", "int_hops": "hops"}
VERDICT_FIELDS = ["dta.valid", "dta.reports", "int.valid", "int.reports", "_ws.lua.error"] + \
    ["dta.expert." + e for e in ("truncated", "malformed", "version", "opcode", "ambiguous")] + \
    ["int.expert." + e for e in ("truncated", "malformed", "version", "unsupported", "length",
                                 "hops")]


def mutate(rnd, p):
    k = rnd.randrange(6)
    b = bytearray(p)
    if k == 0:
        return bytes(b[:rnd.randrange(1, len(b))])
    if k == 1:
        i = rnd.randrange(min(len(b), 16))        # the headers
        b[i] = rnd.randrange(256)
    elif k == 2:
        for _ in range(rnd.randrange(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
    elif k == 3:
        b += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 9)))
    elif k == 4:
        i = rnd.randrange(len(b))                 # one bit anywhere
        b[i] ^= 1 << rnd.randrange(8)
    else:                                         # a datagram cut and glued to another
        return bytes(b[:rnd.randrange(1, len(b))]) + p[rnd.randrange(len(p)):]
    return bytes(b)


def check_library_verdicts(tshark, lua, verdict, work):
    """Mutated datagrams: the dissector must accept exactly what the library
    accepts, with as many reports, and flag the library's error code."""
    import random
    rnd = random.Random(15)
    frames = []
    for port, proto in ((DTA_PORT, "dta"), (INT_PORT, "int")):
        base = valid_payloads[proto]
        for _ in range(1500):
            frames.append((port, mutate(rnd, base[rnd.randrange(len(base))][1])))
    frames = [(port, p) for port, p in frames if p]
    pcap = os.path.join(work, "mutants.pcap")
    write_pcap(pcap, frames)
    lib = subprocess.run([verdict, pcap], stdout=subprocess.PIPE, check=True).stdout.decode()
    lib = [l.split() for l in lib.splitlines()]
    cmd = [tshark, "-n", *(["-X", "lua_script:" + lua] if lua else []), "-r", pcap,
           "-T", "fields", "-E", "occurrence=f"]
    for fld in VERDICT_FIELDS:
        cmd += ["-e", fld]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return fail("mutants.pcap: tshark exited %d" % p.returncode)
    rows = [dict(zip(VERDICT_FIELDS, l.split("\t"))) for l in p.stdout.decode().splitlines()]
    if len(rows) != len(frames) or len(lib) != len(frames):
        return fail("mutants.pcap: %d frames, tshark %d, library %d" %
                    (len(frames), len(rows), len(lib)))
    seen = {}
    before = len(failures)
    for (frame, proto, res), row in zip(lib, rows):
        seen[proto + " " + res if not res.isdigit() else proto + " ok"] = \
            seen.get(proto + " " + res if not res.isdigit() else proto + " ok", 0) + 1
        where = "mutants.pcap frame %s (%s, library: %s)" % (frame, proto, res)
        if row["_ws.lua.error"]:
            fail(where + ": Lua error")
        if res.isdigit():
            if row[proto + ".valid"] != "1" or row[proto + ".reports"] != res:
                fail("%s: dissector says valid=%s reports=%s" %
                     (where, row[proto + ".valid"], row[proto + ".reports"]))
        else:
            ex = proto + ".expert." + EXPERT_OF.get(res, res)
            if row[proto + ".valid"] != "0" or row.get(ex) != "1":
                fail("%s: dissector says valid=%s without %s" %
                     (where, row[proto + ".valid"], ex))
        if len(failures) - before > 20:
            return fail("mutants.pcap: giving up after 20 disagreements")
    if len(failures) == before:
        print("ok: %d mutated datagrams: the dissector's verdict is the library's (%s)" %
              (len(frames), ", ".join("%s %d" % kv for kv in sorted(seen.items()))))


def check_inner_forms(tshark, lua, verdict, work):
    """Inner packets dta-gen does not write: VLAN tags, IPv4 options, raw
    IPv4/IPv6 (v1.0 NProt, v2.0 InType), IPv6 extension headers, TCP
    options before INT-MD. The library must accept each; tshark must show
    the flow key and hops worked out here by hand. They seed the mutants."""
    src4, dst4 = bytes([192, 0, 2, 1]), bytes([198, 51, 100, 7])
    src6 = bytes.fromhex("20010db8000000000000000000000001")
    dst6 = bytes.fromhex("20010db8000000000000000000000002")
    udp = struct.pack(">HHHH", 5353, 53, 8, 0)
    ip4opt = struct.pack(">BBHHHBBH4s4s", 0x46, 0, 24 + 8, 0, 0, 61, 17, 0, src4, dst4) + \
        b"\x01\x01\x01\x00"                               # IHL 6: 4 bytes of options
    vlan = (bytes.fromhex("020000000002020000000001") + b"\x81\x00\x00\x05" +
            b"\x88\xa8\x00\x06" + b"\x08\x00" + ip4opt + udp)
    shim = bytes([0x10, 3 + 2 * 2, 0, 0])                 # INT-MD, 2 hops of 2 words
    mdh = bytes([0x20, 0, 2, 6]) + struct.pack(">HHHH", 0xA000, 0, 0, 0)  # node id, latency
    stack = struct.pack(">IIII", 21, 700, 20, 600)       # newest first
    tcp = struct.pack(">HHIIBBHHH", 443, 8443, 0, 0, 6 << 4, 0, 0, 0, 0) + b"\x01\x01\x01\x01"
    hbh = bytes([44, 0]) + bytes(6)                       # Hop-by-Hop, next Fragment
    frag = bytes([6, 0, 0, 0]) + bytes(4)                 # offset 0: ports are read
    ip6 = struct.pack(">IHBB", (6 << 28) | (1 << 22), 8 + 8 + len(tcp) + 4 + 12 + 16, 0, 59) + \
        src6 + dst6 + hbh + frag + tcp + shim + mdh + stack
    ip4tcp = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40, 0, 0, 62, 6, 0, src4, dst4) + \
        struct.pack(">HHIIBBHHH", 1000, 80, 0, 0, 5 << 4, 0, 0, 0, 0)
    v10 = struct.pack(">IIII", (1 << 28) | (4 << 24) | (1 << 21), 99, 5, 0) + ip4tcp
    cases = [
        ("VLAN tags and IPv4 options", v2([v2_report(0x03, vlan + bytes(-len(vlan) % 4))]),
         (src4 + dst4 + struct.pack(">HH", 5353, 53) + b"\x11").hex(), []),
        ("raw IPv6, extension headers, TCP options, INT-MD",
         v2([v2_report(0x05, ip6 + bytes(-len(ip6) % 4))]),
         (src6 + dst6 + struct.pack(">HH", 443, 8443) + b"\x06").hex(), [21, 20]),
        ("v1.0 NProt 1: raw IPv4", v10,
         (src4 + dst4 + struct.pack(">HH", 1000, 80) + b"\x06").hex(), []),
    ]
    pcap = os.path.join(work, "inner.pcap")
    write_pcap(pcap, [(INT_PORT, c[1]) for c in cases])
    lib = subprocess.run([verdict, pcap], stdout=subprocess.PIPE, check=True).stdout.decode()
    pkts = run_tshark(tshark, lua, pcap)
    before = len(failures)
    for (name, payload, key, hops), line, pk in zip(cases, lib.splitlines(), pkts):
        if line.split()[2] != "1":
            fail("%s: the library says %s" % (name, line))
        pr = proto_of(pk, "int")
        got = collect(pr)
        if got.get("int.flow_key") != [key] or got.get("int.hop.switch_id", []) != hops \
                or got.get("int.valid") != [1]:
            fail("%s: flow key %s hops %s valid %s" % (name, got.get("int.flow_key"),
                                                      got.get("int.hop.switch_id"),
                                                      got.get("int.valid")))
        valid_payloads["int"].append((INT_PORT, payload))
    if len(failures) == before:
        print("ok: VLAN tags, IPv4 options, raw IPv4/IPv6 inner packets, IPv6 extension "
              "headers, TCP options: flow keys and INT-MD hops as worked out by hand")


def check_sink_hop(tshark, lua, verdict, work):
    """A v2.0 sink's own metadata (RepMdBits) with an INT-MD stack, by hand
    (INT.mdk v2.1, the sink's second option): the path's last hop unless the
    stack's newest hop is the group's node (9) already; with an empty stack
    it is the only hop. The library must accept each."""
    def report(stack_ids, layout):
        if layout == "v10":     # INT v1.0: 8-bit Type, Length with the shim
            shim = bytes([0x01, 0, 3 + len(stack_ids), 0])
            mdh = bytes([0x10, 0, 1, 5, 0x80, 0, 0, 0])
        else:                   # INT v2.x
            shim = bytes([0x10, 3 + len(stack_ids), 0, 0])
            mdh = bytes([0x20, 0, 1, 5]) + struct.pack(">HHHH", 0x8000, 0, 0, 0)
        inner = inner_udp(0x04, shim + mdh + b"".join(struct.pack(">I", i) for i in stack_ids)
                          + b"\0\0")
        # RepType 1, InType 3 (Ethernet); RepMdBits bit 2: hop latency 777
        body = struct.pack(">HHHH", 0x2000, 0, 0, 0) + struct.pack(">I", 777) + inner
        return v2([v2_report(0x13, body, md_len=1)])
    cases = [("sink after a v2.x stack", report([21, 20], "v2"), [9]),
             ("sink after a v1.0 stack", report([21, 20], "v10"), [9]),
             ("sink alone, empty stack", report([], "v10"), [9]),
             ("sink already on the stack", report([9, 20], "v2"), None)]
    pcap = os.path.join(work, "sink.pcap")
    write_pcap(pcap, [(INT_PORT, c[1]) for c in cases])
    lib = subprocess.run([verdict, pcap], stdout=subprocess.PIPE, check=True).stdout.decode()
    pkts = run_tshark(tshark, lua, pcap)
    before = len(failures)
    for (name, payload, want), line, pk in zip(cases, lib.splitlines(), pkts):
        if line.split()[2] != "1":
            fail("%s: the library says %s" % (name, line))
        got = collect(proto_of(pk, "int"))
        if got.get("int.sink_hop") != want or got.get("int.valid") != [1] or \
                got.get("int.meta.hop_latency") != [777]:
            fail("%s: int.sink_hop %s (want %s), valid %s, latency %s" %
                 (name, got.get("int.sink_hop"), want, got.get("int.valid"),
                  got.get("int.meta.hop_latency")))
        valid_payloads["int"].append((INT_PORT, payload))
    if len(failures) == before:
        print("ok: v2.0 sinks' header metadata as the path's last hop, by hand (%d cases)" %
              len(cases))


def main():
    tshark, lua, gen, work, verdict = sys.argv[1:6]

    def gen_run(name, *args):
        pcap = os.path.join(work, name + ".pcap")
        truth = os.path.join(work, name + ".truth")
        subprocess.run([gen, *args, "-w", pcap, "-T", truth], check=True,
                       stderr=subprocess.DEVNULL)
        return pcap, truth

    # Sequence numbers and reporter ids far from 0 so that every bit of
    # their fields is exercised (v1 seq wraps at 2^32, INT v2.0 at 2^22).
    for t, extra in (("kw", ["--batch", "4", "-n", "40", "--seq", "4294967280",
                             "--reporter", "65000"]), ("pc", ["-n", "10"]),
                     ("ap", ["--batch", "3", "-n", "30", "--lists", "3"]),
                     ("ki", ["--batch", "5", "-n", "40", "-k", "6"])):
        check_dta_pcap(tshark, lua, *gen_run(t, "-t", t, *extra))
    for t, extra in (("kw", ["-n", "20"]), ("pc", ["-n", "6"]), ("ap", ["-n", "20"]),
                     ("ki", ["-n", "20", "-k", "4"])):
        check_dta_pcap(tshark, lua, *gen_run(t + "_legacy", "-t", t, "--legacy", *extra))
    for v in ("0.5", "1.0", "2.0"):
        for t in ("int-pc", "int-md", "int-drop", "int-q"):
            n = "6" if t in ("int-pc", "int-md") else "20"
            pcap, truth = gen_run("%s-%s" % (t, v), "-t", t, "--int-version", v, "-n", n,
                                  "--batch", "4", "--seq", "4194300", "--reporter", "45")
            check_int_pcap(tshark, lua, pcap, truth, t, v)
    # What switches of each era send: INT v1.0 / v0.5 stacks (in reports of
    # their version and in v2.0 ones), a v2.0 sink's own metadata in the
    # report header.
    for name, args in (("int-md-stack10", ["--int-version", "1.0", "--int-stack", "1.0"]),
                       ("int-md-stack05", ["--int-version", "0.5", "--int-stack", "0.5"]),
                       ("int-md-stack10-v2", ["--int-version", "2.0", "--int-stack", "1.0",
                                              "--batch", "4"]),
                       ("int-md-sink", ["--int-version", "2.0", "--int-sink-md", "--batch", "4"])):
        pcap, truth = gen_run(name, "-t", "int-md", "-n", "8", "--seq", "4194300", *args)
        check_int_pcap(tshark, lua, pcap, truth, "int-md", args[1])
    pcap, truth = gen_run("int-md-v6", "-t", "int-md", "--int-version", "2.0", "--int-ipv6",
                          "-n", "4")
    check_int_pcap(tshark, lua, pcap, truth, "int-md", "2.0")
    pcap, truth = gen_run("int-pc-v6", "-t", "int-pc", "--int-version", "1.0", "--int-ipv6",
                          "-n", "4")
    check_int_pcap(tshark, lua, pcap, truth, "int-pc", "1.0")
    check_negative(tshark, lua, work)
    check_gen_malformed(tshark, lua, gen, work)
    check_prefs(tshark, lua, gen, work)
    check_inner_forms(tshark, lua, verdict, work)
    check_sink_hop(tshark, lua, verdict, work)
    check_library_verdicts(tshark, lua, verdict, work)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
