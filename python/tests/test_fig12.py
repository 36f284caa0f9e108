# SPDX-License-Identifier: BSD-3-Clause
"""examples/fig12.py (the paper's figure 12 from a live collector): its
counts are dta-query verify's, exactly, and it writes a PNG."""
import json
import os
import subprocess
import sys

import pytest

import dtaenv

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "examples", "fig12.py")

# Three Key-Write structures, one per N: a run goes to the structure of
# its data size (the translator routes by it, as verify does).
STRUCTURES = "".join("""
[structure kw%d]
primitive = key-write
slots = 2048
data = %d
redundancy = 4
""" % (n, d) for n, d in ((1, 20), (2, 24), (4, 28)))


@pytest.fixture(scope="module")
def fig12():
    pytest.importorskip("matplotlib")
    s = dtaenv.DtaSystem(STRUCTURES, "fig12")
    try:
        s.start()
        truths = []
        for n, d in ((1, 20), (2, 24), (4, 28)):
            path = os.path.join(s.dir, "kw%d.truth" % n)
            # 6000 keys into 2048 slots: loads up to about 3.
            s.gen("-t", "kw", "-n", "6000", "-R", str(n), "--data", str(d),
                  "-s", str(n), "--reporter", str(n), "-T", path)
            truths.append(path)
        s.stop_translator()
        yield s, truths
    finally:
        s.stop()


def test_fig12_counts_are_verify_counts(fig12, tmp_path):
    s, truths = fig12
    png = tmp_path / "fig12.png"
    args = [sys.executable, SCRIPT, "map:" + s.conf, "--out", str(png),
            "--bins", "8", "--json"]
    for t in truths:
        args += ["--truth", t]
    r = subprocess.run(args, capture_output=True, text=True,
                       env=dict(os.environ, MPLBACKEND="Agg"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert [run["n"] for run in out["runs"]] == [1, 2, 4]
    for run, t in zip(out["runs"], truths):
        v = json.loads(s.query("--json", "verify", "--truth", t))
        (st,) = [x for x in v["structures"] if x["name"] == run["structure"]]
        assert run["keys"] == st["total"] > 1000
        assert run["exact"] == st["exact"]
        # The expected share: verify sums eq. 1-4 per bin of keys, the
        # example per key; the same to far below a printed digit.
        assert abs(run["expected"] - st["expected_success"]) < 1e-6
        # Per interval: the keys add up, success within [0, 1].
        assert sum(b[2] for b in run["bins"]) == run["keys"]
        assert all(0 <= b[3] <= 1 for b in run["bins"])
    # More copies keep young keys better (the figure's point): in the
    # youngest interval N = 4 does at least as well as N = 1.
    young = [run["bins"][0][3] for run in out["runs"]]
    assert young[2] >= young[0]
