# SPDX-License-Identifier: BSD-3-Clause
"""The INT questions from Python (dta/int_query.h through the client): the
reports of tests/tools/int_send.py --congestion through a translator with
an [int] section, asked over the socket, the mapping and the snapshot
files; the same answers as `dta-query -j int ...` and as the reports
built by hand in int_send.py (tests/e2e/int_query.sh checks dta-query's)."""
import json
import os
import subprocess
import sys
import time

import pytest

import dta
import dtaenv

HERE = os.path.dirname(os.path.abspath(__file__))
INT_SEND = os.path.join(HERE, "..", "..", "tests", "tools", "int_send.py")


def structures(int_port):
    return """
[int]
port = %d
path = paths
hops = hops
events = events
flow_counts = flows
queue_counts = queues
ttl_init = 64
events_by = switch

[structure paths]
primitive = key-write
slots = 4K
data = 16
[structure hops]
primitive = key-write
slots = 4K
data = 16
[structure events]
primitive = append
entry = 32
lists = 16
batch = 1
[structure flows]
primitive = key-increment
width = 4K
[structure queues]
primitive = key-increment
width = 4K
""" % int_port


F9 = dta.key5("10.0.0.9", 1234, "10.0.0.2", 80, "udp")
F5 = dta.key5("10.0.0.5", 1234, "10.0.0.2", 80, "udp")
F7 = dta.key5("10.0.0.7", 1234, "10.0.0.2", 80, "udp")


@pytest.fixture(scope="module")
def system():
    port = dtaenv.free_ports(1)
    s = dtaenv.DtaSystem(structures(port), "int")
    try:
        s.start()
        sent = int(subprocess.run(
            [sys.executable, INT_SEND, "--congestion", "127.0.0.1",
             str(port)], capture_output=True, text=True,
            check=True).stdout.split()[-1])
        end = time.monotonic() + 60
        while True:  # every datagram read by the translator
            with open(s.stats) as f:
                text = f.read()
            try:
                if json.loads(text).get("int_datagrams") == sent:
                    break
            except ValueError:
                pass
            assert time.monotonic() < end, text
            time.sleep(0.05)
        s.snapshot()
        yield s
    finally:
        s.stop()


def targets(s):
    return ["unix:" + s.sock, "map:" + s.conf,
            "snapshot:%s?config=%s" % (s.snapdir, s.conf)]


def test_int_answers(system):
    roles = dta._dta.int_roles(system.conf)
    assert roles["path_kw"] == "paths" and roles["events_ap"] == "events"
    drops_q = json.loads(system.query("-j", "int", "drops"))
    for t in targets(system):
        with dta.connect(t) as c:
            # Roles from the target's configuration, or given (unix:).
            r = roles if t.startswith("unix:") else None
            p9, p7 = c.int_paths([F9, F7], roles=r)
            assert p9.status == dta.FOUND and p9.path == (1, 2, 3)
            assert p9.primitive == dta.KEY_WRITE and p9.votes == 4
            assert p7.status == dta.NOT_FOUND and p7.path == ()
            hops = c.int_hops(F9, roles=r)
            assert [(h.switch_id, h.hop_latency, h.queue_occupancy,
                     h.egress_ts) for h in hops] == \
                [(1, 10, 1, None), (2, 20, 2, None), (3, 30, 3, None)]
            assert all(h.status == dta.FOUND and h.clean for h in hops)
            assert list(c.int_flow_counts([F7, F5], roles=r)) == [3, 3]
            assert list(c.int_queue_counts([2, 12], [3, 4], roles=r)) == \
                [1, 1]
            drops = c.int_events("drop", roles=r)
            assert len(drops.events) == 2 and drops.read == 3
            assert drops.lost == 0
            for e, q in zip(drops.events, drops_q["events"]):
                assert (e.list, e.switch_id, e.queue_id, e.drop_reason,
                        e.ingress_port, e.egress_port, e.queue_occupancy,
                        e.time, e.flow_hash) == \
                    (q["list"], q["switch"], q["queue"], q["reason"],
                     q["ingress_port"], q["egress_port"], q["occupancy"],
                     q["time"], q["flow_hash"])
            cong = c.int_events("congestion", switch_id=12, roles=r)
            assert [(e.switch_id, e.queue_id, e.queue_occupancy, e.time)
                    for e in cong.events] == [(12, 4, 300, 8192)]


def test_int_refusals(system):
    with dta.connect("unix:" + system.sock) as c:
        with pytest.raises(dta.Error):
            c.int_paths([F9])  # a bare socket: no [int] section known
        with pytest.raises(dta.Error) as e:
            c.int_paths([b"\x00" * 12], roles=dta._dta.int_roles(system.conf))
        assert e.value.errno == 22 and "13 (IPv4) or 37" in str(e.value)
