# SPDX-License-Identifier: BSD-3-Clause
"""Client.wait() and Client.notifications(): woken by reports with the
immediate flag, not by plain ones; judged by sequence numbers."""
import threading

import pytest

import dta
import dtaenv

STRUCTURES = """
[structure paths]
primitive = key-write
slots = 4096
data = 20
"""


@pytest.fixture(scope="module")
def system():
    s = dtaenv.DtaSystem(STRUCTURES, "notify")
    try:
        s.start()
        yield s
    finally:
        s.stop()


@pytest.mark.parametrize("kind", ["unix", "map"])
def test_wait(system, kind):
    target = ("unix:" + system.sock) if kind == "unix" else "map:" + system.conf
    rep = {"unix": 30, "map": 40}[kind]
    with dta.connect(target) as c:
        moved, s0 = c.wait("paths", None, 0)
        assert not moved
        system.gen("-t", "kw", "-n", "300", "-s", str(rep), "--reporter",
                   str(rep))
        assert c.wait("paths", s0, 0) == (False, s0)
        assert c.wait("paths", s0, 0.1) == (False, s0)
        woken = []
        t = threading.Thread(target=lambda: woken.append(
            c.wait("paths", s0, 600)))
        t.start()
        system.gen("-t", "kw", "-n", "10", "--immediate", "-s",
                   str(rep + 1), "--reporter", str(rep + 1))
        t.join(600)
        assert woken and woken[0][0] and woken[0][1] != s0
        # The iterator yields the moves; with a timeout it stops.
        it = c.notifications("paths", timeout=0.2)
        assert list(it) == []


def test_wait_errors(system):
    with dta.connect("unix:" + system.sock) as c:
        with pytest.raises(dta.Error):
            c.wait("nosuch", 0, 0)
