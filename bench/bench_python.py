#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Python binding's rates beside the C client's, in one run (issue 22
goals: batched gets >= 50% of the C client's rate; Append follow >= 100 M
entries/s from a local mapping, >= 30 M/s over the socket).

Starts a private collector and translator (python/tests/dtaenv.py), fills
a Key-Write structure and an Append list with dta-gen, then measures:
  - batched kw_get: Python (dta.Client.kw_get) and C (bench/bench_client_kw,
    dta_client_kw_get) on the same structure, keys and batch sizes, through
    the collector socket and the local mapping;
  - ap_follow: entries/s reading the whole list from the oldest entry, from
    the mapping and over the socket.
Rates are per wall second and per CPU second of the measuring process
(over the socket the collector's CPU is not in the latter). Medians of
--repeats passes. Prints figures; asserts nothing.

Usage: PYTHONPATH=build/python python3 bench/bench_python.py --build build
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python", "tests"))
import dtaenv  # noqa: E402

import dta  # noqa: E402


def timed(fn, repeats):
    walls, cpus = [], []
    for _ in range(repeats):
        w0, c0 = time.monotonic(), time.process_time()
        fn()
        walls.append(time.monotonic() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="build directory")
    ap.add_argument("--slots-log2", type=int, default=20,
                    help="Key-Write slots = 2^K (default 20)")
    ap.add_argument("--keys", type=int, default=200000,
                    help="Key-Write keys sent and queried (default 200000)")
    ap.add_argument("--batches", default="64,1024,65536",
                    help="keys per kw_get call, comma-separated sizes "
                    "(default 64,1024,65536: where Python's per-call cost "
                    "shows)")
    ap.add_argument("--entries", type=int, default=1000000,
                    help="Append entries sent (default 1000000)")
    ap.add_argument("--entry", type=int, default=8,
                    help="Append entry bytes (default 8)")
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    os.environ["DTA_BUILD_DIR"] = os.path.abspath(a.build)
    helper = os.path.join(a.build, "bench", "bench_client_kw")

    batches = max(1024, 2 * a.entries // 16 + 1)
    conf = """\
[structure paths]
primitive = key-write
slots = %d
data = 20
schema = path:u32[5]

[structure events]
primitive = append
lists = 1
entry = %d
batch = 16
batches = %d
""" % (1 << a.slots_log2, a.entry, batches)
    s = dtaenv.DtaSystem(conf, "bench")
    try:
        s.start()
        kwt = os.path.join(s.dir, "kw.truth")
        t0 = time.monotonic()
        s.gen("-t", "kw", "-n", str(a.keys), "-k", str(a.keys), "-T", kwt)
        s.gen("-t", "ap", "-n", str(a.entries), "--entry", str(a.entry))
        s.stop_translator()
        print("filled %d Key-Write keys and %d Append entries in %.1f s"
              % (a.keys, a.entries, time.monotonic() - t0))
        keys = sorted({bytes.fromhex(t[1]) for t in dtaenv.read_truth(kwt)
                       if t[0] == "kw"})
        arr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, 13)
        keyfile = os.path.join(s.dir, "keys.bin")
        with open(keyfile, "wb") as f:
            f.write(arr.tobytes())
        n = len(arr)

        print("\nbatched Key-Write gets, %d keys, %d slots"
              % (n, 1 << a.slots_log2))
        print("%-8s %6s %-7s %14s %16s %8s" % (
            "target", "batch", "client", "keys/s", "keys/CPU-s", "found"))
        for label, target in (("socket", "unix:" + s.sock),
                              ("map", "map:" + s.conf)):
            for batch in [int(x) for x in a.batches.split(",")]:
                r = subprocess.run([helper, target, "paths", keyfile, "13",
                                    str(batch), str(a.repeats)],
                                   capture_output=True, text=True)
                cj = None
                if r.returncode != 0:
                    print("%-8s %6d C       failed: %s"
                          % (label, batch, r.stderr.strip()))
                else:
                    cj = json.loads(r.stdout)
                    print("%-8s %6d %-7s %14.0f %16.0f %8d" % (
                        label, batch, "C", cj["keys_per_s"],
                        cj["keys_per_cpu_s"], cj["found"]))
                with dta.connect(target) as c:
                    found = [0]

                    def run():
                        f = 0
                        for i in range(0, n, batch):
                            f += int(c.kw_get("paths",
                                              arr[i:i + batch]).found.sum())
                        found[0] = f
                    w, u = timed(run, a.repeats)
                print("%-8s %6d %-7s %14.0f %16.0f %8d" % (
                    label, batch, "Python", n / w, n / u, found[0]))
                if cj:
                    print("%-8s %6s Python/C: %.0f%% of the C client's "
                          "keys/s, %.0f%% per CPU-second" % (
                              "", "", 100 * (n / w) / cj["keys_per_s"],
                              100 * (n / u) / cj["keys_per_cpu_s"]))

        print("\nAppend follow, list 0 from the oldest entry, %d-byte entries"
              % a.entry)
        print("%-8s %14s %16s %10s" % ("target", "entries/s",
                                       "entries/CPU-s", "entries"))
        for label, target in (("map", "map:" + s.conf),
                              ("socket", "unix:" + s.sock)):
            with dta.connect(target) as c:
                got = [0]

                def follow():
                    it = c.ap_follow("events", 0, batch=65536)
                    got[0] = sum(len(b) for b in it)
                    it.close()
                w, u = timed(follow, a.repeats)
            print("%-8s %14.0f %16.0f %10d" % (label, got[0] / w, got[0] / u,
                                               got[0]))
    finally:
        s.stop()


if __name__ == "__main__":
    main()
