# SPDX-License-Identifier: BSD-3-Clause
"""dta against a real collector (conftest.py): answers checked against
dta-gen's ground truth, against dta-query -j for the same keys, and
between every target (socket, text lines, configuration, mapping,
snapshots); the errors a caller can meet."""
import errno
import json
import threading

import numpy as np
import pytest

import dta
from conftest import targets

STATUS = {"found": dta.FOUND, "not-found": dta.NOT_FOUND,
          "not_found": dta.NOT_FOUND, "not found": dta.NOT_FOUND,
          "conflict": dta.CONFLICT}


def latest(truth, kind):
    """{key bytes: value} of a kw/pc/ki truth, the last line per key
    winning (later reports overwrite earlier ones)."""
    out = {}
    for t in truth:
        if t[0] == kind:
            out[bytes.fromhex(t[1])] = t[2]
    return out


def dq_json(system, *args):
    out = system.query("-j", *args).strip()
    return json.loads(out.splitlines()[-1])


# ------------------------------------------------------------- structures

def test_structures(system):
    with dta.connect("unix:" + system.sock) as c:
        by = {s.name: s for s in c.structures}
    assert sorted(by) == ["counts", "events", "flows", "paths", "raw"]
    p = by["paths"]
    assert (p.primitive, p.primitive_name) == (dta.KEY_WRITE, "key-write")
    assert p.geometry["slots"] == 4096 and p.geometry["data_len"] == 20
    assert p.shares == 1 and p.lists == 0
    assert p.schema == "path:u32[5]"
    assert p.dtype == np.dtype([("path", ">u4", (5,))])
    assert p.value_size == 20 and p.dtype.itemsize == 20
    e = by["events"]
    assert e.primitive == dta.APPEND and e.lists == 2 and e.list_base == 0
    assert e.geometry["entry_size"] == 8
    assert e.dtype == np.dtype([("seq", ">u4"), ("value", ">u4")])
    f = by["flows"]
    assert f.primitive == dta.POSTCARD and f.geometry["chunks"] == 4096
    # a socket alone may not know the value set (only its size); the
    # configuration's targets do
    assert f.values in (None, tuple(range(1, 81)))
    with dta.connect("config:" + system.conf) as c:
        assert c.structure("flows").values == tuple(range(1, 81))
    k = by["counts"]
    assert k.primitive == dta.KEY_INCREMENT and k.geometry["width"] == 4096
    r = by["raw"]
    assert r.schema is None and r.dtype == np.dtype("V8")


# ---------------------------------------------------------------- Key-Write

def test_kw_against_truth(system):
    want = latest(system.truth["kw"], "kw")
    keys = list(want)
    with dta.connect("unix:" + system.sock) as c:
        status, values, found = c.kw_get("paths", keys)
    assert status.dtype == np.uint8 and len(status) == len(keys)
    assert (found == (status == dta.FOUND)).all()
    # 200 keys in 4096 slots (N = 2): nearly all survive; every one found
    # must carry the latest data the generator sent for it.
    assert found.sum() >= 0.9 * len(keys)
    for i, k in enumerate(keys):
        if found[i]:
            assert values[i].tobytes() == bytes.fromhex(want[k])
            ids = [int(want[k][8 * j:8 * j + 8], 16) for j in range(5)]
            assert values["path"][i].tolist() == ids
        else:
            assert values[i].tobytes() == bytes(20)


def test_kw_against_dta_query(system):
    keys = list(latest(system.truth["kw"], "kw"))[:25]
    keys.append(bytes.fromhex("0a0a0a0a0b0b0b0b00010002ff"))  # never sent
    with dta.connect("unix:" + system.sock) as c:
        status, values, _ = c.kw_get("paths", keys)
    for i, k in enumerate(keys):
        j = dq_json(system, "kw", "get", "paths", "0x" + k.hex())
        assert status[i] == STATUS[j["status"]], (k.hex(), j)
        if status[i] == dta.FOUND:
            assert values[i].tobytes().hex() == j["data"]
    assert status[-1] == dta.NOT_FOUND


def test_kw_key_forms(system):
    keys = list(latest(system.truth["kw"], "kw"))[:40]
    arr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, 13)
    with dta.connect("unix:" + system.sock) as c:
        a = c.kw_get("paths", keys)
        b = c.kw_get("paths", arr)
        d = c.kw_get("paths", b"".join(keys), klen=13)
        e = c.kw_get("paths", [])
        t = c.kw_get("paths", keys, redundancy=1)
    for r in (b, d):
        assert (r.status == a.status).all()
        assert r.values.tobytes() == a.values.tobytes()
    assert len(e.status) == 0 and len(e.values) == 0
    # N = 1 looks at the first hash only: never more found than with N = 4
    assert t.found.sum() <= a.found.sum()


def test_kw_threshold(system):
    keys = list(latest(system.truth["kw"], "kw"))[:40]
    with dta.connect("unix:" + system.sock) as c:
        a = c.kw_get("paths", keys)
        b = c.kw_get("paths", keys, threshold=3)
    # dta-gen writes each key twice (-R 2): three agreeing votes are rare,
    # and a key found with T = 3 is found with plurality too.
    assert (a.found | ~b.found).all()


# ---------------------------------------------------------- Postcarding

def test_pc_against_truth_and_dta_query(system):
    want = latest(system.truth["pc"], "pc")
    keys = list(want)
    with dta.connect("unix:" + system.sock) as c:
        status, paths, lengths = c.pc_get("flows", keys)
        padded = c.pc_get("flows", keys, padded=True)
    assert (status == dta.FOUND).sum() >= 0.9 * len(keys)
    for i, k in enumerate(keys):
        if status[i] == dta.FOUND:
            assert paths[i] == [int(x) for x in want[k].split(",")]
            assert lengths[i] == len(paths[i])
            assert padded.paths[i, :lengths[i]].tolist() == paths[i]
            assert not padded.paths[i, lengths[i]:].any()
        else:
            assert paths[i] == [] and lengths[i] == 0
    for i, k in enumerate(keys[:20]):
        j = dq_json(system, "pc", "path", "flows", "0x" + k.hex())
        assert status[i] == STATUS[j["status"]]
        if status[i] == dta.FOUND:
            assert paths[i] == j["path"]


# ------------------------------------------------------- Key-Increment

def test_ki_against_truth_and_dta_query(system):
    want = {}
    for t in system.truth["ki"]:
        if t[0] == "ki":
            want[bytes.fromhex(t[1])] = int(t[2])
    keys = list(want)
    with dta.connect("unix:" + system.sock) as c:
        counts = c.ki_get("counts", keys)
    assert counts.dtype == np.uint64
    # count-min never underestimates; 60 keys in 4096 counters: mostly exact
    assert all(int(counts[i]) >= want[k] for i, k in enumerate(keys))
    assert sum(int(counts[i]) == want[k] for i, k in enumerate(keys)) \
        >= 0.9 * len(keys)
    for i, k in enumerate(keys[:20]):
        assert int(counts[i]) == dq_json(system, "ki", "get", "counts",
                                         "0x" + k.hex())["count"]


# ---------------------------------------------------------------- Append

def ap_truth(system, lst):
    return [bytes.fromhex(t[2]) for t in system.truth["ap"]
            if t[0] == "ap" and int(t[1]) == lst]


@pytest.mark.parametrize("lst", [0, 1])
def test_ap_follow(system, lst):
    want = ap_truth(system, lst)
    with dta.connect("unix:" + system.sock) as c:
        it = c.ap_follow("events", lst, batch=20)
        got = list(it)
        position = it.position
        # fewer than one Append batch (16 entries here) is rounded up
        small = list(c.ap_follow("events", lst, batch=7))
    assert all(0 < len(b) <= 20 for b in got)
    assert len(got) > 1 and all(0 < len(b) <= 16 for b in small)
    assert np.concatenate(small).tobytes() == np.concatenate(got).tobytes()
    entries = np.concatenate(got)
    # (np.concatenate makes the byte order native: check a batch)
    assert got[0].dtype == np.dtype([("seq", ">u4"), ("value", ">u4")])
    raw = b"".join(b.tobytes() for b in got)  # the entries' own bytes
    assert [raw[i:i + 8] for i in range(0, len(raw), 8)] == want
    assert entries["seq"].tolist() == [int(w[:4].hex(), 16) for w in want]
    assert it.lost == 0 and it.entries == len(want)
    assert position == len(want)


def test_ap_follow_start_now_and_idle(system):
    with dta.connect("unix:" + system.sock) as c:
        assert list(c.ap_follow("events", 0, start="now")) == []
        it = c.ap_follow("events", 0, idle=0.2)
        n = sum(len(b) for b in it)  # ends 0.2 s after the last entry
    assert n == len(ap_truth(system, 0))


# ----------------------------------------- every target gives one answer

def answers(c, system, pc_values=True):
    kw = list(latest(system.truth["kw"], "kw"))
    pc = list(latest(system.truth["pc"], "pc"))
    ki = list({bytes.fromhex(t[1]) for t in system.truth["ki"]})
    r = c.kw_get("paths", kw)
    if pc_values:
        p = c.pc_get("flows", pc, padded=True)
        pcs = {"pc_status": p.status.tobytes(), "pc_paths": p.paths.tobytes()}
    else:  # no value set to decode paths with
        with pytest.raises(dta.Error) as e:
            c.pc_get("flows", pc)
        assert e.value.errno == dta._dta.E_NOVALUES
        pcs = {}
    return {
        "kw_status": r.status.tobytes(), "kw_values": r.values.tobytes(),
        **pcs,
        "ki": c.ki_get("counts", sorted(ki)).tobytes(),
        "ap0": b"".join(b.tobytes() for b in c.ap_follow("events", 0)),
        "ap1": b"".join(b.tobytes() for b in c.ap_follow("events", 1)),
        "structures": [(s.name, s.primitive, s.geometry, s.schema, s.dtype,
                        s.shares, s.lists) for s in c.structures],
        "values": [s.values for s in c.structures],
    }


@pytest.mark.parametrize("target", ["path", "unix-text", "config", "map",
                                    "snapshot", "file", "file-config"])
def test_targets_agree(system, target):
    t = targets(system)
    with dta.connect(t["unix"]) as c:
        ref = answers(c, system)
    with dta.connect(t["config"]) as c:
        ref["values"] = answers(c, system)["values"]
    assert len(ref["ap0"]) == 8 * len(ap_truth(system, 0))
    text = target == "unix-text"
    # snapshot files alone carry no Postcarding value set (the
    # configuration does): paths cannot be decoded from them
    bare = target == "file"
    with dta.connect(t["unix" if text else target], text=text) as c:
        got = answers(c, system, pc_values=not bare)
    for k in ref:
        if bare and k.startswith("pc_"):
            continue
        if k == "values" and (text or target in ("path", "file")):
            continue  # a socket's or a bare file's listing may lack them
        assert got[k] == ref[k], k


# ---------------------------------------------------------------- errors

def test_errors(system):
    with pytest.raises(dta.Error) as e:
        dta.connect("unix:" + system.dir + "/no-such.sock")
    assert e.value.errno == errno.ENOENT
    assert isinstance(e.value, OSError)
    with pytest.raises(dta.Error) as e:
        dta.connect("bogus:" + system.conf)
    assert e.value.errno == errno.EINVAL
    c = dta.connect("unix:" + system.sock)
    with pytest.raises(dta.Error) as e:
        c.kw_get("nosuch", [b"\0" * 13])
    assert e.value.errno == errno.ENOENT and "nosuch" in str(e.value)
    for get in (c.pc_get, c.ki_get):  # the library's own message
        with pytest.raises(dta.Error) as e:
            get("nosuch", [b"\0" * 13])
        assert e.value.errno == errno.ENOENT and e.value.strerror
    with pytest.raises(dta.Error) as e:  # the extension's own lookup
        c._c.kw_get("nosuch", b"\0" * 13, 13, bytearray(1), bytearray(20))
    assert e.value.errno == errno.ENOENT
    assert e.value.strerror == "no structure 'nosuch'"
    with pytest.raises(RuntimeError):
        c._c.__init__("unix:" + system.sock)  # a handle opens once
    with pytest.raises(dta.Error) as e:
        c.ki_get("paths", [b"\0" * 13])
    assert e.value.errno == dta._dta.E_PRIMITIVE
    with pytest.raises(dta.Error) as e:
        c.ap_follow("paths", 0)
    assert e.value.errno == dta._dta.E_PRIMITIVE
    with pytest.raises(dta.Error) as e:
        c.ap_follow("events", 2)
    assert e.value.errno == dta._dta.E_MISMATCH
    with pytest.raises(ValueError):
        c.kw_get("paths", [b"\0" * 13, b"\0" * 4])
    with pytest.raises(ValueError):
        c.kw_get("paths", b"\0" * 14, klen=13)
    with pytest.raises(ValueError):
        c.kw_get("paths", [b"\0" * 65])
    with pytest.raises(ValueError):
        c.ap_follow("events", 0, start="later")
    it = c.ap_follow("events", 0)
    c.close()
    c.close()  # idempotent
    assert c.closed
    with pytest.raises(dta.Error) as e:
        c.kw_get("paths", [b"\0" * 13])
    assert e.value.errno == errno.EBADF
    with pytest.raises(dta.Error) as e:
        next(it)
    assert e.value.errno == errno.EBADF


def test_request(system):
    with dta.connect("unix:" + system.sock) as c:
        st = json.loads(c.request("stats"))
        assert "clients" in st or st  # the collector's counters
    with dta.connect("map:" + system.conf) as c:
        with pytest.raises(dta.Error) as e:
            c.request("stats")
        assert e.value.errno == errno.EOPNOTSUPP


def test_threads_share_a_client(system):
    keys = list(latest(system.truth["kw"], "kw"))
    with dta.connect("unix:" + system.sock) as c:
        ref = c.kw_get("paths", keys).values.tobytes()
        bad = []

        def work():
            for _ in range(20):
                if c.kw_get("paths", keys).values.tobytes() != ref:
                    bad.append(1)

        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert not bad


def test_dataframe(system):
    pd = pytest.importorskip("pandas")
    keys = list(latest(system.truth["kw"], "kw"))[:10]
    with dta.connect("unix:" + system.sock) as c:
        df = c.kw_get("paths", keys, dataframe=True)
        r = c.kw_get("paths", keys)
    assert isinstance(df, pd.DataFrame) and len(df) == 10
    assert df["path_0"].tolist() == r.values["path"][:, 0].tolist()
    assert df["found"].tolist() == r.found.tolist()
    with dta.connect("unix:" + system.sock) as c:
        frames = list(c.ap_follow("events", 0, dataframe=True))
    want = ap_truth(system, 0)
    seq = [v for f in frames for v in f["seq"].tolist()]
    assert seq == [int(w[:4].hex(), 16) for w in want]


def test_close_while_other_threads_query(system):
    """close() waits for a call in progress; later calls and cursors of
    the closed client raise EBADF, never touch freed state."""
    keys = list(latest(system.truth["kw"], "kw"))
    for _ in range(5):
        c = dta.connect("unix:" + system.sock)
        it = c.ap_follow("events", 0, batch=16)
        outcomes = []

        def work():
            try:
                for _ in range(200):
                    c.kw_get("paths", keys)
                    it.read()
                outcomes.append("done")
            except dta.Error as e:
                outcomes.append(e.errno)

        ts = [threading.Thread(target=work) for _ in range(3)]
        for t in ts:
            t.start()
        c.close()
        for t in ts:
            t.join()
        assert all(o in ("done", errno.EBADF) for o in outcomes), outcomes
        assert len(outcomes) == 3
        it.close()
