# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures: one private DTA system per test session (dtaenv.py), fed with
dta-gen's four workloads with ground truth, the translator stopped (so its
last Append batches are written) and snapshots taken."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import dtaenv  # noqa: E402

STRUCTURES = """\
[structure paths]
primitive = key-write
slots = 4096
data = 20
schema = path:u32[5]

[structure events]
primitive = append
lists = 2
entry = 8
batches = 64
batch = 16
schema = seq:u32, value:u32

[structure flows]
primitive = postcard
chunks = 4096
values = 1-80

[structure counts]
primitive = key-increment
width = 4096

[structure raw]
primitive = key-write
slots = 64
data = 8
"""


class System:
    pass


@pytest.fixture(scope="session")
def system():
    s = dtaenv.DtaSystem(STRUCTURES, "tests")
    try:
        s.start()
        t = {}
        for kind, args in (
                ("kw", ["-n", "400", "-k", "200"]),
                ("ap", ["-n", "300", "--lists", "2", "--entry", "8"]),
                ("pc", ["-n", "100"]),
                ("ki", ["-n", "600", "-k", "60"])):
            path = os.path.join(s.dir, kind + ".truth")
            s.gen("-t", kind, *args, "-T", path)
            t[kind] = dtaenv.read_truth(path)
        s.stop_translator()
        s.snapshot()
        s.truth = t
        yield s
    finally:
        s.stop()


def targets(s):
    """Every target string naming the system's structures, by kind."""
    t = {
        "unix": "unix:" + s.sock,
        "path": s.sock,
        "config": "config:" + s.conf,
        "map": "map:" + s.conf,
        "snapshot": "snapshot:%s?config=%s" % (s.snapdir, s.conf),
        "file": "file:" + ",".join(
            os.path.join(s.snapdir, n + ".dta")
            for n in ("paths", "events", "flows", "counts", "raw")),
    }
    t["file-config"] = t["file"] + "?config=" + s.conf
    return t


SHARDED = """\
[structure paths]
primitive = key-write
slots = 4096
data = 20
schema = path:u32[5]
collector = default, east

[structure flows]
primitive = postcard
chunks = 4096
values = 1-80
collector = east, default

[structure events]
primitive = append
lists = 2
entry = 8
batches = 64
batch = 16
schema = seq:u32, value:u32
collector = default, east

[structure counts]
primitive = key-increment
width = 4096
collector = east
"""


@pytest.fixture(scope="session")
def sharded():
    """Two collectors ([collector] and [collector east]) over which the
    structures are partitioned, as tests/e2e/collectors.sh has them."""
    s = dtaenv.DtaSystem(SHARDED, "shards", east=True)
    try:
        s.start()
        t = {}
        for kind, args in (
                ("kw", ["-n", "400", "-k", "200"]),
                ("ap", ["-n", "400", "--lists", "4", "--entry", "8"]),
                ("pc", ["-n", "100"]),
                ("ki", ["-n", "600", "-k", "60"])):
            path = os.path.join(s.dir, kind + ".truth")
            s.gen("-t", kind, *args, "-T", path)
            t[kind] = dtaenv.read_truth(path)
        s.stop_translator()
        s.snapshot()
        s.truth = t
        yield s
    finally:
        s.stop()
