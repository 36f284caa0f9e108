# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures: one private DTA system per test session (dtaenv.py), fed with
dta-gen's four workloads with ground truth, the translator stopped (so its
last Append batches are written) and snapshots taken."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import dtaenv  # noqa: E402

# The sections the tests' systems are built from: [structure NAME] with
# these keys, in this order (structures() writes them).
SECTIONS = {
    "paths": (("primitive", "key-write"), ("slots", "4096"), ("data", "20"),
              ("schema", "path:u32[5]")),
    "events": (("primitive", "append"), ("lists", "2"), ("entry", "8"),
               ("batches", "64"), ("batch", "16"),
               ("schema", "seq:u32, value:u32")),
    "flows": (("primitive", "postcard"), ("chunks", "4096"),
              ("values", "1-80")),
    "counts": (("primitive", "key-increment"), ("width", "4096")),
    "raw": (("primitive", "key-write"), ("slots", "64"), ("data", "8")),
}


def structures(*names, **changes):
    """Configuration text of the SECTIONS @names, in that order, a blank line
    between them; @changes maps a name to a dict of keys to change (in place)
    or add (at its end), e.g. structures("counts", counts={"collector":
    "east"})."""
    out = []
    for n in names:
        keys = dict(SECTIONS[n])
        keys.update(changes.get(n, {}))
        out.append("[structure %s]\n" % n +
                   "".join("%s = %s\n" % kv for kv in keys.items()))
    return "\n".join(out)


STRUCTURES = structures("paths", "events", "flows", "counts", "raw")


class System:
    pass


def fed_system(structures, name, ap_n, lists, **kw):
    """A DtaSystem fed dta-gen's four workloads with ground truth (Append: @ap_n
    entries over @lists lists), the translator stopped (its last Append batches
    written) and snapshots taken; its truth in .truth[kind]."""
    s = dtaenv.DtaSystem(structures, name, **kw)
    try:
        s.start()
        t = {}
        for kind, args in (
                ("kw", ["-n", "400", "-k", "200"]),
                ("ap", ["-n", str(ap_n), "--lists", str(lists),
                        "--entry", "8"]),
                ("pc", ["-n", "100"]),
                ("ki", ["-n", "600", "-k", "60"])):
            path = os.path.join(s.dir, kind + ".truth")
            s.gen("-t", kind, *args, "-T", path)
            t[kind] = dtaenv.read_truth(path)
        s.stop_translator()
        s.snapshot()
        s.truth = t
        return s
    except BaseException:
        s.stop()
        raise


@pytest.fixture(scope="session")
def system():
    s = fed_system(STRUCTURES, "tests", 300, 2)
    yield s
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


SHARDED = structures(
    "paths", "flows", "events", "counts",
    paths={"collector": "default, east"},
    flows={"collector": "east, default"},
    events={"collector": "default, east"},
    counts={"collector": "east"})


@pytest.fixture(scope="session")
def sharded():
    """Two collectors ([collector] and [collector east]) over which the
    structures are partitioned, as tests/e2e/collectors.sh has them."""
    s = fed_system(SHARDED, "shards", 400, 4, east=True)
    yield s
    s.stop()
