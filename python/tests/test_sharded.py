# SPDX-License-Identifier: BSD-3-Clause
"""dta over a configuration of two collectors with partitioned structures:
the client routes each key to the collector holding its share and numbers
Append lists over all shares; config:, map: and snapshot: answer alike and
match the truth; ?collector=NAME sees one share."""
import numpy as np
import pytest

import dta
from test_client import latest


def targets(s):
    return {"config": "config:" + s.conf, "map": "map:" + s.conf,
            "snapshot": "snapshot:%s?config=%s" % (s.snapdir, s.conf)}


def test_shares(sharded):
    with dta.connect("config:" + sharded.conf) as c:
        by = {s.name: s for s in c.structures}
    assert by["paths"].shares == 2 and by["flows"].shares == 2
    assert by["events"].shares == 2 and by["events"].lists == 4
    assert by["counts"].shares == 1
    assert by["paths"].dtype == np.dtype([("path", ">u4", (5,))])


@pytest.mark.parametrize("target", ["config", "map", "snapshot"])
def test_sharded_against_truth(sharded, target):
    kw = latest(sharded.truth["kw"], "kw")
    pc = latest(sharded.truth["pc"], "pc")
    ki = {}
    for t in sharded.truth["ki"]:
        ki[bytes.fromhex(t[1])] = int(t[2])
    with dta.connect(targets(sharded)[target]) as c:
        r = c.kw_get("paths", list(kw))
        p = c.pc_get("flows", list(pc))
        counts = c.ki_get("counts", list(ki))
        ap = [b"".join(b.tobytes() for b in c.ap_follow("events", lst))
              for lst in range(4)]
    assert r.found.sum() >= 0.9 * len(kw)
    for i, k in enumerate(kw):
        if r.found[i]:
            assert r.values[i].tobytes() == bytes.fromhex(kw[k])
    assert (p.status == dta.FOUND).sum() >= 0.9 * len(pc)
    for i, k in enumerate(pc):
        if p.status[i] == dta.FOUND:
            assert p.paths[i] == [int(x) for x in pc[k].split(",")]
    assert all(int(counts[i]) >= ki[k] for i, k in enumerate(ki))
    for lst in range(4):
        want = b"".join(bytes.fromhex(t[2]) for t in sharded.truth["ap"]
                        if t[0] == "ap" and int(t[1]) == lst)
        assert ap[lst] == want and want


def test_one_collector_holds_one_share(sharded):
    keys = list(latest(sharded.truth["kw"], "kw"))
    with dta.connect("config:" + sharded.conf) as c:
        both = c.kw_get("paths", keys).found
    parts = []
    for name in ("default", "east"):
        with dta.connect("config:%s?collector=%s" % (sharded.conf, name)) as c:
            ev = c.structure("events")
            assert ev.lists == 2  # its own list numbering
            parts.append(c.kw_get("paths", keys).found)
    # every key found through the configuration is on exactly one of them
    assert not (parts[0] & parts[1]).any()
    assert ((parts[0] | parts[1]) == both).all()
    assert parts[0].sum() > len(keys) // 4 and parts[1].sum() > len(keys) // 4
