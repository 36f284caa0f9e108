#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The DTA paper's figure 12 from a live collector: Key-Write query success
by load factor for N = 1, 2, 4 addresses per key.

Each --truth is one dta-gen Key-Write run (dta-gen -t kw -R N -T FILE),
written into its own Key-Write structure (the one whose data size is the
run's: give each run its own --data). A key's load factor is the number of
keys written after it over the structure's slots (the paper's "total
number of telemetry keys over available memory addresses"); every key of
every run is asked once, in one batched call per run, and counted a
success when the answer is the data written. Beside the measured success
per interval of load, the curve eq. 1-4 give (libdta's bounds), and in the
background the N that did best in each interval, as in the paper.

    fig12.py TARGET --truth kw1.truth --truth kw2.truth --truth kw4.truth \\
             --out fig12.png [--bins 16] [--json]

TARGET is any client target (docs/client.md): unix:SOCKET, map:CONF,
config:CONF, snapshot:DIR?config=CONF. Prints, per run: N, the structure,
keys, exact answers and their share, and the share eq. 1-4 expect (the
same figures `dta-query verify` prints); with --json one JSON object.
"""
import argparse
import json
import sys

import numpy as np

import dta


def read_run(path):
    """(N, keys as an (n, klen) uint8 array, data as (n, dlen)) of one
    dta-gen Key-Write truth file, in the order written (oldest first)."""
    n_red, keys, data = 2, [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                for w in line.split():
                    if w.startswith("redundancy="):
                        n_red = int(w[len("redundancy="):])
                continue
            w = line.split()
            if len(w) == 3 and w[0] == "kw":
                keys.append(bytes.fromhex(w[1]))
                data.append(bytes.fromhex(w[2]))
    if not keys:
        raise SystemExit("%s: no kw lines" % path)
    return (n_red,
            np.frombuffer(b"".join(keys), np.uint8).reshape(len(keys), -1),
            np.frombuffer(b"".join(data), np.uint8).reshape(len(data), -1))


def structure_for(client, dlen):
    for s in client.structures:
        if s.primitive == dta.KEY_WRITE and s.value_size == dlen:
            return s
    raise SystemExit("no Key-Write structure holds %d-byte data" % dlen)


def run(client, path):
    n_red, keys, data = read_run(path)
    st = structure_for(client, data.shape[1])
    res = client.kw_get(st.name, keys)
    got = res.values.view(np.uint8).reshape(len(keys), -1)
    exact = res.found & np.all(got == data, axis=1)
    n = len(keys)
    slots = st.geometry["slots"] * st.shares
    load = (n - 1 - np.arange(n)) / slots  # keys written after, per slot
    bits = 8 * st.geometry["csum_bytes"]
    expect = np.array([1 - min(1.0, sum(dta.bound_kw(n_red, bits, a)))
                       for a in load])
    return {"file": path, "n": n_red, "structure": st.name, "keys": n,
            "exact": int(exact.sum()), "load": load, "ok": exact,
            "expect": expect}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target")
    ap.add_argument("--truth", action="append", required=True)
    ap.add_argument("--out", default="fig12.png")
    ap.add_argument("--bins", type=int, default=16)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    with dta.connect(a.target) as c:
        runs = [run(c, p) for p in a.truth]
    top = max(r["load"].max() for r in runs)
    edges = np.linspace(0, top, a.bins + 1)
    for r in runs:
        idx = np.clip(np.digitize(r["load"], edges) - 1, 0, a.bins - 1)
        cnt = np.bincount(idx, minlength=a.bins)
        r["bin_keys"] = cnt
        r["bin_success"] = np.bincount(idx, r["ok"], minlength=a.bins) / \
            np.maximum(cnt, 1)
        r["bin_expect"] = np.bincount(idx, r["expect"], minlength=a.bins) / \
            np.maximum(cnt, 1)

    summary = [{k: r[k] for k in ("file", "n", "structure", "keys", "exact")}
               | {"success": r["exact"] / r["keys"],
                  "expected": float(r["expect"].mean()),
                  "bins": [[float(edges[i]), float(edges[i + 1]),
                            int(r["bin_keys"][i]),
                            float(r["bin_success"][i]),
                            float(r["bin_expect"][i])]
                           for i in range(a.bins)]}
               for r in runs]
    if a.json:
        json.dump({"runs": summary, "png": a.out}, sys.stdout)
        print()
    else:
        for s in summary:
            print("N=%d  %-10s %8d keys  %8d exact  %7.3f%%  expected "
                  "%7.3f%%" % (s["n"], s["structure"], s["keys"], s["exact"],
                               100 * s["success"], 100 * s["expected"]))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {1: "tab:blue", 2: "tab:orange", 4: "tab:green"}
    fig, ax = plt.subplots(figsize=(7, 4.2))
    mid = (edges[:-1] + edges[1:]) / 2
    best = np.argmax(np.stack([r["bin_success"] for r in runs]), axis=0)
    for i in range(a.bins):
        ax.axvspan(edges[i], edges[i + 1], alpha=0.12, lw=0,
                   color=colours.get(runs[best[i]]["n"], "grey"))
    for r in runs:
        col = colours.get(r["n"], None)
        have = r["bin_keys"] > 0
        ax.plot(mid[have], 100 * r["bin_success"][have], "o", color=col,
                label="N = %d, measured" % r["n"])
        ax.plot(mid[have], 100 * r["bin_expect"][have], "-", color=col,
                label="N = %d, eq. 1-4" % r["n"])
    ax.set_xlabel("load factor (keys written after a key, per slot)")
    ax.set_ylabel("query success (%)")
    ax.set_title("Key-Write query success by load factor (DTA fig. 12)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
