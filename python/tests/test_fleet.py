# SPDX-License-Identifier: BSD-3-Clause
"""A fleet through one config: client: structures partitioned over two
collectors, one of which dies mid-session and comes back. While it is away
the same Client answers partially (its keys UNAVAILABLE, the others exact;
the Key-Increment total the other collector's; Client.partial and
Client.missing say so), and once it is back the same Client answers whole
again (it reconnects by itself). What each collector holds is learnt from
its own socket, independently of the routing under test."""
import signal

import numpy as np
import pytest

import dta
import dtaenv
from conftest import fed_system, structures
from test_client import latest

# Every structure over both collectors.
FLEET = structures("paths", "flows", "events", "counts",
                   **{n: {"collector": "default, east"}
                      for n in ("paths", "flows", "events", "counts")})


@pytest.fixture(scope="module")
def fleet():
    s = fed_system(FLEET, "fleet", 400, 4, east=True)
    yield s
    s.stop()


def east_down(s):
    p = s.extra.pop(0)
    p.send_signal(signal.SIGKILL)
    p.wait(30)


def east_up(s):
    """East again, reattaching the regions the killed one left."""
    s.extra.append(s._start([dtaenv.program("collector"), "-c", s.conf,
                             "--collector", "east"], "east.log", "east.log"))


def test_partial_and_back(fleet):
    kw = latest(fleet.truth["kw"], "kw")
    keys = list(kw)
    ki = {}
    for t in fleet.truth["ki"]:
        ki[bytes.fromhex(t[1])] = ki.get(bytes.fromhex(t[1]), 0) + int(t[2])
    kisum = sum(int(t[2]) for t in fleet.truth["ki"])
    # Each collector's share, from its own socket.
    home = {}
    totals = []
    for i, sock in enumerate(fleet.socks):
        with dta.connect("unix:" + sock) as one:
            r = one.kw_get("paths", keys)
            totals.append(one.ki_total("counts"))
        for j, k in enumerate(keys):
            if r.found[j] and r.values[j].tobytes() == bytes.fromhex(kw[k]):
                assert k not in home
                home[k] = i
    assert len(home) == len(keys)
    assert sum(totals) == kisum and min(totals) > 0
    on_east = np.array([home[k] == 1 for k in keys])

    with dta.connect("config:" + fleet.conf, timeout=5) as c:
        r = c.kw_get("paths", keys)
        assert not c.partial and c.missing == []
        assert (r.status == dta.FOUND).all()
        assert c.ki_total("counts") == kisum and not c.partial

        east_down(fleet)
        r = c.kw_get("paths", keys)
        assert c.partial and c.missing == ["east"]
        assert "east" in c.partial_message
        assert (r.status[on_east] == dta.UNAVAILABLE).all()
        assert (r.status[~on_east] == dta.FOUND).all()
        for j, k in enumerate(keys):
            if not on_east[j]:
                assert r.values[j].tobytes() == bytes.fromhex(kw[k])
        counts = c.ki_get("counts", list(ki))
        assert c.missing == ["east"]
        assert (counts == dta.KI_UNAVAILABLE).any()
        for j, k in enumerate(ki):
            if counts[j] != dta.KI_UNAVAILABLE:
                assert int(counts[j]) >= ki[k]
        assert c.ki_total("counts") == totals[0]
        assert c.partial and c.missing == ["east"]
        # A list only east holds: an error that says so.
        with pytest.raises(dta.Error) as e:
            list(c.ap_follow("events", 3))
        assert e.value.errno == dta.E_UNAVAILABLE
        # A list of the other collector: whole.
        got = b"".join(b.tobytes() for b in c.ap_follow("events", 0))
        want = b"".join(bytes.fromhex(t[2]) for t in fleet.truth["ap"]
                        if t[0] == "ap" and int(t[1]) == 0)
        assert got == want and want

        east_up(fleet)
        r = c.kw_get("paths", keys)
        assert not c.partial and c.missing == []
        assert (r.status == dta.FOUND).all()
        for j, k in enumerate(keys):
            assert r.values[j].tobytes() == bytes.fromhex(kw[k])
        assert c.ki_total("counts") == kisum and not c.partial

