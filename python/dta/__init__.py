# SPDX-License-Identifier: BSD-3-Clause
"""dta: Python access to Direct Telemetry Access collectors through libdta.

A thin binding of libdta's query client (``dta/client.h``, docs/client.md):
the same target strings, the same answers as the C client and ``dta-query``
(every decision lives in the library), returned as numpy arrays whose
structured dtypes come from the structures' value schemas.

    import dta
    with dta.connect("unix:/run/dta/collector.sock") as c:
        key = dta.key5("10.0.0.1", 1234, "10.0.0.2", 80, "tcp")
        status, values, found = c.kw_get("paths", [key])

See docs/python.md.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from typing import Iterator, List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _dta
from ._dta import Error

__all__ = [
    "connect", "Client", "Structure", "Error", "KwResult", "PcResult",
    "ApFollow", "key5", "parse_key", "dtype_of_schema", "to_dataframe",
    "bound_kw", "bound_pc", "IntPath", "IntHop", "IntEvent", "IntEvents",
    "FOUND", "NOT_FOUND", "CONFLICT", "UNAVAILABLE", "KI_UNAVAILABLE",
    "E_UNAVAILABLE", "KEY_WRITE", "APPEND", "KEY_INCREMENT", "POSTCARD",
]

#: libdta's version (DTA_VERSION_STRING), which the package shares.
__version__: str = _dta.VERSION

#: Query status values (``enum dta_query_status``).
FOUND: int = _dta.FOUND
NOT_FOUND: int = _dta.NOT_FOUND
CONFLICT: int = _dta.CONFLICT
#: A key whose collector did not answer ("config:" targets): nothing is
#: known about it, and the answer is partial (Client.partial).
UNAVAILABLE: int = _dta.UNAVAILABLE
#: ki_get()'s count of such a key (DTA_CLIENT_KI_UNAVAILABLE, 2**64 - 1).
KI_UNAVAILABLE: int = (1 << 64) - 1
#: dta.Error.errno of a call that needed one collector that did not answer.
E_UNAVAILABLE: int = _dta.E_UNAVAILABLE
#: Primitives (``enum dta_primitive``).
KEY_WRITE: int = _dta.KEY_WRITE
APPEND: int = _dta.APPEND
KEY_INCREMENT: int = _dta.KEY_INCREMENT
POSTCARD: int = _dta.POSTCARD

PRIMITIVE_NAMES = {
    KEY_WRITE: "key-write",
    APPEND: "append",
    KEY_INCREMENT: "key-increment",
    POSTCARD: "postcard",
}

Keys = Union[Sequence[bytes], np.ndarray, bytes, bytearray, memoryview]

_INT_CODES = {
    _dta.FIELD_U8: "u1", _dta.FIELD_U16: "u2", _dta.FIELD_U32: "u4",
    _dta.FIELD_U64: "u8", _dta.FIELD_I8: "i1", _dta.FIELD_I16: "i2",
    _dta.FIELD_I32: "i4", _dta.FIELD_I64: "i8",
}


def _schema_dtype(schema: dict) -> np.dtype:
    names, formats, offsets = [], [], []
    for f in schema["fields"]:
        if f["type"] == _dta.FIELD_BYTES:
            fmt: object = "V%d" % f["count"]
        else:
            code = _INT_CODES[f["type"]]
            if code[1] != "1":
                code = ("<" if f["little"] else ">") + code
            fmt = code if f["count"] == 1 else (code, (f["count"],))
        names.append(f["name"])
        formats.append(fmt)
        offsets.append(f["offset"])
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": schema["size"]})


def dtype_of_schema(text: str) -> np.dtype:
    """The numpy dtype of values with schema ``text`` (docs/config.md
    "Value schemas"), parsed by libdta: big-endian integers as ``'>u4'``,
    little-endian as ``'<u4'``, arrays as subarray fields, ``bytes[n]`` as
    ``'V<n>'``. Raises dta.Error for a malformed schema."""
    return _schema_dtype(_dta.schema_parse(text))


class Structure:
    """One structure as the client sees it.

    Attributes:
        name: its name.
        primitive: KEY_WRITE, APPEND, KEY_INCREMENT or POSTCARD.
        primitive_name: "key-write", "append", "key-increment", "postcard".
        geometry: the layout's geometry (dict; e.g. slots, data_len in
            bytes for Key-Write; lists, entry_size in bytes for Append).
        data_size: bytes of its data area (of one share).
        shares: collectors it is partitioned over (1: not partitioned).
        lists: Append: lists over all shares; 0 otherwise.
        list_base: Append: report list id of list 0.
        values: Postcarding: the known value set (tuple), or None.
        schema: the schema's canonical text, or None when none is declared.
        schema_fields: the schema's fields (list of dicts: name, type,
            little, count, offset and size in bytes, time unit), or [].
        time_field: name of the field holding the reporter's timestamp,
            or None.
        value_size: bytes of one value (Key-Write data, Append entry), or 0.
        dtype: numpy dtype of one value: the schema's structured dtype, or
            ``'V<value_size>'`` when the structure declares no schema.
    """

    def __init__(self, d: dict):
        self.name: str = d["name"]
        self.primitive: int = d["primitive"]
        self.primitive_name: str = PRIMITIVE_NAMES.get(self.primitive, "?")
        self.geometry: dict = d["geometry"]
        self.data_size: int = d["data_size"]
        self.shares: int = d["shares"]
        self.lists: int = d["lists"]
        self.list_base: int = d["list_base"]
        self.values: Optional[tuple] = d["values"]
        s = d["schema"]
        self.schema: Optional[str] = s["text"] if s else None
        self.schema_fields: List[dict] = s["fields"] if s else []
        self.time_field: Optional[str] = (
            s["fields"][s["time"]]["name"] if s and s["time"] >= 0 else None)
        if self.primitive == KEY_WRITE:
            self.value_size: int = self.geometry["data_len"]
        elif self.primitive == APPEND:
            self.value_size = self.geometry["entry_size"]
        else:
            self.value_size = 0
        if s:
            self.dtype: np.dtype = _schema_dtype(s)
        else:
            self.dtype = np.dtype("V%d" % self.value_size)

    def __repr__(self) -> str:
        return "<dta.Structure %s %s shares=%d schema=%r>" % (
            self.name, self.primitive_name, self.shares, self.schema)


class KwResult(NamedTuple):
    """Key-Write answers, in key order.

    status: uint8 array of FOUND / NOT_FOUND / CONFLICT.
    values: structured array of the structure's dtype (zeros unless FOUND).
    found: boolean mask, status == FOUND.
    """
    status: np.ndarray
    values: np.ndarray
    found: np.ndarray


class PcResult(NamedTuple):
    """Postcarding answers, in key order.

    status: uint8 array of FOUND / NOT_FOUND / CONFLICT.
    paths: a list of paths (each a list of hop values, hop 0 first; empty
        unless FOUND), or with ``padded=True`` an (n, MAX_HOPS) uint32 array
        padded with zeros past each path's length.
    lengths: uint8 array of path lengths (0 unless FOUND).
    """
    status: np.ndarray
    paths: Union[List[List[int]], np.ndarray]
    lengths: np.ndarray


def _keys(keys: Keys, klen: Optional[int]):
    """(contiguous bytes-like, klen, n) for the library."""
    buf, kl = _keys_buf(keys, klen)
    nbytes = buf.nbytes if isinstance(buf, (np.ndarray, memoryview)) \
        else len(buf)
    return buf, kl, nbytes // kl


def _keys_buf(keys: Keys, klen: Optional[int]):
    if isinstance(keys, np.ndarray):
        if keys.ndim == 2:
            if keys.dtype != np.uint8:
                raise TypeError("a 2-D key array must be uint8, shape (n, klen)")
            if klen is not None and klen != keys.shape[1]:
                raise ValueError("klen %d differs from the array's %d"
                                 % (klen, keys.shape[1]))
            return np.ascontiguousarray(keys), int(keys.shape[1])
        if keys.ndim == 1 and keys.dtype.kind == "V":
            return np.ascontiguousarray(keys), keys.dtype.itemsize
        if keys.ndim == 1 and keys.dtype == np.uint8 and klen:
            return np.ascontiguousarray(keys), klen
        raise TypeError("keys: a uint8 array of shape (n, klen) expected")
    if isinstance(keys, (bytes, bytearray, memoryview)):
        if not klen:
            raise ValueError("keys as one buffer need klen=")
        return keys, klen
    keys = list(keys)
    if not keys:
        return b"", klen or 1
    n = len(keys[0])
    for k in keys:
        if len(k) != n:
            raise ValueError("keys of different lengths (%d and %d bytes) "
                             "in one batch" % (n, len(k)))
    if klen is not None and klen != n:
        raise ValueError("klen %d differs from the keys' %d" % (klen, n))
    return b"".join(keys), n


def to_dataframe(values: np.ndarray, **extra):
    """A pandas DataFrame of structured array ``values``: one column per
    scalar field, array fields split into NAME_0, NAME_1..., bytes fields
    as Python bytes; ``extra`` adds columns (e.g. status=..., found=...).
    Needs pandas (ImportError otherwise)."""
    import pandas as pd

    cols = {}
    for k, v in extra.items():
        cols[k] = v
    if values.dtype.names is None:
        cols["value"] = [bytes(x) for x in values]
    else:
        for name in values.dtype.names:
            col = values[name]
            if col.dtype.kind == "V":
                cols[name] = [bytes(x) for x in col]
            elif col.ndim == 2:
                for j in range(col.shape[1]):
                    cols["%s_%d" % (name, j)] = col[:, j].astype(
                        col.dtype.newbyteorder("="))
            else:
                cols[name] = col.astype(col.dtype.newbyteorder("="))
    return pd.DataFrame(cols)


class ApFollow:
    """Iterator over new entries of one Append list (Client.ap_follow()).

    Each step yields a structured array (the structure's dtype) of at most
    ``batch`` entries (rounded up to the structure's batch_entries), in
    list order. Attributes: ``lost`` (entries
    overwritten before they could be read, in total), ``entries`` (entries
    yielded in total), ``position`` (index of the next entry expected).
    Closing the client or calling close() ends it.
    """

    def __init__(self, client: "Client", st: Structure, lst: int,
                 start: str, batch: int, idle, dataframe: bool):
        if start not in ("oldest", "now"):
            raise ValueError("start is 'oldest' or 'now'")
        if batch < 1:
            raise ValueError("batch must be at least 1")
        if not (idle == "stop" or idle is None or
                (isinstance(idle, (int, float)) and idle >= 0)):
            raise ValueError("idle is 'stop', None or seconds >= 0")
        self._cur = client._c.ap_open(
            st.name, lst, _dta.AP_OLDEST if start == "oldest" else _dta.AP_NOW)
        self._dtype = st.dtype
        # The library reads whole Append batches (frames of batch_entries
        # entries): a read with room for fewer is refused (ENOSPC).
        self._batch = max(batch, st.geometry["batch_entries"])
        self._idle = idle
        self._df = dataframe
        self.lost: int = 0
        self.entries: int = 0

    @property
    def position(self) -> int:
        return self._cur.position

    def __iter__(self) -> "ApFollow":
        return self

    def read(self) -> np.ndarray:
        """One read: up to ``batch`` new entries (possibly none)."""
        buf = np.empty(self._batch, dtype=self._dtype)
        n, lost = self._cur.read(buf, self._batch)
        self.lost += lost
        self.entries += n
        return buf[:n]

    def __next__(self):
        waited = None
        while True:
            out = self.read()
            if len(out):
                return to_dataframe(out) if self._df else out
            if self._idle == "stop":
                raise StopIteration
            now = time.monotonic()
            if waited is None:
                waited = now
            elif self._idle is not None and now - waited >= self._idle:
                raise StopIteration
            time.sleep(0.001)

    def close(self) -> None:
        self._cur.close()

    def __enter__(self) -> "ApFollow":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Client:
    """A handle on one collector, several of one configuration, a local
    mapping or snapshot files (see connect()). A context manager; close()
    is idempotent. Use one Client per thread for parallel queries (calls on
    one Client from several threads are serialised)."""

    def __init__(self, target: str, text: bool = False,
                 any_owner: bool = False, timeout: Optional[float] = None):
        flags = (_dta.CLIENT_TEXT if text else 0) | (
            _dta.CLIENT_ANY_OWNER if any_owner else 0)
        self.target = target
        self._events_missing: Optional[List[str]] = None
        self._c = _dta.Client(target, flags, _timeout_ms(timeout))
        self._structures: Optional[List[Structure]] = None
        self._by_name: Optional[dict] = None

    def close(self) -> None:
        """Close the handle and every cursor of it."""
        self._c.close()

    @property
    def closed(self) -> bool:
        return self._c.closed

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<dta.Client %r%s>" % (self.target,
                                      " closed" if self.closed else "")

    @property
    def partial(self) -> bool:
        """Whether the last call's answer lacks collectors ("config:"
        targets; docs/client.md "Partial answers"): keys of theirs are
        UNAVAILABLE (KI_UNAVAILABLE counts), fan-outs (ki_total,
        int_events) answered from the others."""
        return bool(self.missing)

    @property
    def missing(self) -> List[str]:
        """The collectors (names) the last call's answer lacks; [] when
        whole. After int_events: those whose lists it could not read."""
        if self._events_missing is not None:
            return list(self._events_missing)
        return self._c.partial()[1]

    @property
    def partial_message(self) -> str:
        """Why: the client's message naming each missing collector."""
        return self._c.partial()[2]

    def ki_total(self, name: str, bank: int = 0) -> int:
        """Everything added to ``bank`` of Key-Increment structure
        ``name`` over all its collectors (the sum of one row: exact, in
        the reporters' units). Partial when a collector did not answer
        (see ``partial``, ``missing``): the others' sum."""
        self._events_missing = None
        return self._c.ki_total(name, bank)

    @property
    def structures(self) -> List[Structure]:
        """Every structure, in the client's order (a list of Structure)."""
        if self._structures is None:
            self._structures = [Structure(d) for d in self._c.structures()]
        return self._structures

    def structure(self, name: str) -> Structure:
        """The structure called ``name`` (dta.Error ENOENT if none)."""
        if self._by_name is None:
            self._by_name = {s.name: s for s in self.structures}
        s = self._by_name.get(name)
        if s is None:
            import errno
            raise Error(errno.ENOENT, "no structure '%s'" % name)
        return s

    def kw_get(self, name: str, keys: Keys, klen: Optional[int] = None,
               redundancy: int = 0, threshold: int = 0,
               dataframe: bool = False):
        """Key-Write gets of a batch of keys.

        keys: a list of equal-length bytes, a uint8 array of shape
            (n, klen), or one bytes-like buffer of n * klen bytes with klen=.
        redundancy: N the query assumes (0: the structure's maximum).
        threshold: T, minimum votes for a winner (0 or 1: plurality).
        Returns KwResult(status, values, found); with dataframe=True a
        pandas DataFrame with the fields and columns status and found.
        """
        self._events_missing = None
        st = self.structure(name)
        buf, kl, n = _keys(keys, klen)
        status = np.empty(n, dtype=np.uint8)
        found = np.empty(n, dtype=np.bool_)
        # (the library writes zeros where a key is not found)
        values = np.empty(n, dtype=st.dtype if st.primitive == KEY_WRITE
                          else "V1")
        self._c.kw_get(name, buf, kl, status, values, redundancy, threshold,
                       None, found)
        res = KwResult(status, values, found)
        if dataframe:
            return to_dataframe(values, status=status, found=res.found)
        return res

    def pc_get(self, name: str, keys: Keys, klen: Optional[int] = None,
               padded: bool = False) -> PcResult:
        """Postcarding: the path of each flow key (see PcResult)."""
        self._events_missing = None
        buf, kl, n = _keys(keys, klen)
        status = np.empty(n, dtype=np.uint8)
        lengths = np.empty(n, dtype=np.uint8)
        paths = np.empty((n, _dta.MAX_HOPS), dtype=np.uint32)
        self._c.pc_get(name, buf, kl, status, lengths, paths)
        if padded:
            return PcResult(status, paths, lengths)
        return PcResult(status, [paths[i, :lengths[i]].tolist()
                                 for i in range(n)], lengths)

    pc_path = pc_get

    def ki_get(self, name: str, keys: Keys, bank: int = 0,
               klen: Optional[int] = None) -> np.ndarray:
        """Key-Increment: the count-min estimate of each key in ``bank``
        (uint64 array, in the units reporters counted: packets, bytes..)."""
        self._events_missing = None
        buf, kl, n = _keys(keys, klen)
        counts = np.empty(n, dtype=np.uint64)
        self._c.ki_get(name, buf, kl, bank, counts)
        return counts

    def ap_follow(self, name: str, lst: int = 0, start: str = "oldest",
                  batch: int = 65536, idle: Union[str, float, None] = "stop",
                  dataframe: bool = False) -> ApFollow:
        """Follow Append list ``lst`` (numbered over all shares) of
        structure ``name``.

        start: "oldest" (the oldest entries still stored) or "now".
        batch: entries per yielded array, at most (at least the
            structure's batch_entries: the library reads whole batches).
        idle: "stop" ends the iteration when nothing new is there; a number
            of seconds ends it after that long without new entries; None
            follows forever.
        Yields structured arrays of the structure's dtype (or DataFrames).
        """
        st = self.structure(name)
        if st.primitive != APPEND:
            raise Error(_dta.E_PRIMITIVE,
                        "structure '%s' is %s, not append"
                        % (name, st.primitive_name))
        return ApFollow(self, st, lst, start, batch, idle, dataframe)

    def request(self, text: str, collector: int = 0) -> str:
        """A text request (e.g. "stats") to collector ``collector`` of the
        configuration; its JSON answer as text."""
        return self._c.request(collector, text)

    # ---- INT questions (dta/int_query.h, docs/int.md) ----

    def int_roles(self, config: Optional[str] = None) -> dict:
        """The [int] roles (which structure holds paths, hop records,
        events, flow and queue counts) of configuration ``config``; by
        default the configuration this client was opened on (config:,
        map:, snapshot:...?config=). Raises dta.Error without one."""
        if config is None:
            config = _config_of(self.target)
        if config is None:
            raise Error(2, "INT questions need the configuration's [int] "
                        "section: connect with config:, map: or "
                        "snapshot:?config=, or pass roles=int_roles(CONF)")
        roles = _dta.int_roles(config)
        if roles is None:
            raise Error(2, "%s has no [int] section" % config)
        return roles

    def int_paths(self, flows: Keys, which: str = "auto",
                  roles: Optional[dict] = None) -> List["IntPath"]:
        """The paths of a batch of flows (13- or 37-byte keys, key5()):
        from path_kw (INT-MD) or path_pc (postcards) as ``which`` says
        ("auto": path_kw when there is one). Switch ids first hop first;
        None for a hop that reported none."""
        buf, kl, _ = _keys(flows, None)
        w = {"auto": 0, "kw": 1, "pc": 2}[which]
        return [IntPath(*t) for t in self._c.int_paths(
            roles or self.int_roles(), buf, kl, w)]

    def int_hops(self, flow: bytes, switch_ids: Optional[Sequence] = None,
                 roles: Optional[dict] = None) -> List["IntHop"]:
        """The hop records of one flow at each switch of ``switch_ids``
        (default: its path, int_paths()): latency, queue occupancy and
        egress timestamp as the hop reported them (None: not reported)."""
        roles = roles or self.int_roles()
        if switch_ids is None:
            (p,) = self.int_paths([flow], roles=roles)
            switch_ids = list(p.path)
        keys = bytes(flow) * len(switch_ids)
        return [IntHop(*t) for t in self._c.int_hops(
            roles, keys, len(flow), list(switch_ids))]

    def int_flow_counts(self, flows: Keys,
                        roles: Optional[dict] = None) -> np.ndarray:
        """Reports counted per flow (flow_ki, count-min estimates)."""
        buf, kl, n = _keys(flows, None)
        out = np.zeros(n, dtype=np.uint64)
        self._c.int_flow_counts(roles or self.int_roles(), buf, kl, out)
        return out

    def int_queue_counts(self, switch_ids: Sequence[int],
                         queues: Sequence[int],
                         roles: Optional[dict] = None) -> np.ndarray:
        """Reports counted per (switch id, queue id) (queue_ki)."""
        out = np.zeros(len(switch_ids), dtype=np.uint64)
        self._c.int_queue_counts(roles or self.int_roles(), list(switch_ids),
                                 list(queues), out)
        return out

    def int_events(self, kind: Optional[str] = None,
                   switch_id: Optional[int] = None,
                   flow_hash: Optional[int] = None,
                   reason: Optional[int] = None, queue: Optional[int] = None,
                   time_from: Optional[int] = None,
                   time_to: Optional[int] = None, start: str = "oldest",
                   max: int = 1 << 20, roles: Optional[dict] = None
                   ) -> "IntEvents":
        """Drop ("drop") and congestion ("congestion") events stored now in
        events_ap that match every given field (times in the reports' own
        unit, inclusive), oldest first per list, up to ``max``. Returns
        IntEvents(events, read, lost): ``read`` entries looked at, ``lost``
        entries the rings overwrote before they were read."""
        flags = {None: 0, "drop": _dta.INT_F_DROPPED,
                 "congestion": _dta.INT_F_CONGESTED}[kind]
        f = {"flags": flags, "switch_id": switch_id, "flow_hash": flow_hash,
             "reason": reason, "queue": queue, "time_from": time_from,
             "time_to": time_to}
        ev, nread, lost, missing = self._c.int_events(
            roles or self.int_roles(), f,
            _dta.AP_NOW if start == "now" else _dta.AP_OLDEST, max)
        self._events_missing = [self._c.collector_name(i) for i in range(32)
                                if missing & (1 << i)]
        return IntEvents([IntEvent(*e) for e in ev], nread, lost)

    def wait(self, name: str, seq: Optional[int] = None,
             timeout: float = 30.0):
        """Wait for a notification on structure ``name``: a report with the
        immediate flag written to it (docs/client.md "Notifications").

        seq: the sequence last seen (None: take the current one and wait
            for the next move). timeout: seconds at most (0: only read).
        Returns (moved, seq): moved is True when the structure's sequence
        differs from ``seq`` (at once if it already does), and seq is its
        sequence now (over all shares, their sum mod 2**32).
        """
        ms = max(0, int(timeout * 1000))
        if seq is None:
            _, seq = self._c.wait(name, 0, 0)
        moved, now = self._c.wait(name, seq & 0xFFFFFFFF, ms)
        return bool(moved), now

    def notifications(self, name: str, timeout: Optional[float] = None
                      ) -> Iterator[int]:
        """Iterate over the notifications of structure ``name``: yields the
        structure's new sequence each time reports with the immediate flag
        moved it (several may fold into one step). Starts from the current
        sequence. With a timeout (seconds), stops after that long without
        a notification; without one, runs until the client is closed or
        the loop breaks."""
        _, seq = self._c.wait(name, 0, 0)
        while True:
            moved, seq = self.wait(name, seq,
                                   3600.0 if timeout is None else timeout)
            if moved:
                yield seq
            elif timeout is not None:
                return


def bound_kw(n: int, checksum_bits: int, alpha: float):
    """The paper's Key-Write bounds (eq. 1-4, libdta's dta_bound_kw_*()):
    (probability of no answer, probability of a wrong answer) for a key
    written with N = ``n`` copies and ``checksum_bits``-bit checksums, at
    load factor ``alpha`` (keys written after it per slot)."""
    return _dta.bound_kw(n, checksum_bits, alpha)


def bound_pc(n: int, slot_bits: int, alpha: float, values: int, hops: int):
    """The paper's Postcarding bounds (eq. 5-8): (no answer, wrong answer)
    at load ``alpha`` (flows per chunk) for a value set of ``values``."""
    return _dta.bound_pc(n, slot_bits, alpha, values, hops)


class IntPath(NamedTuple):
    """A flow's path (dta_int_paths())."""
    status: int      #: FOUND, NOT_FOUND or CONFLICT
    primitive: int   #: KEY_WRITE or POSTCARD: which structure answered
    path: tuple      #: switch ids, first hop first (None: not reported)
    votes: int
    candidates: int
    valid_copies: int


class IntHop(NamedTuple):
    """A hop record (dta_int_hop_records()); None: not reported."""
    switch_id: Optional[int]
    status: int
    hop_latency: Optional[int]
    queue_occupancy: Optional[int]
    egress_ts: Optional[int]
    clean: bool


class IntEvent(NamedTuple):
    """A drop or congestion event (docs/int.md); None: not reported."""
    list: int
    switch_id: int
    ingress_port: Optional[int]
    egress_port: Optional[int]
    flags: int
    queue_id: Optional[int]
    drop_reason: Optional[int]
    version: int
    queue_occupancy: Optional[int]
    flow_hash: int
    hop_latency: Optional[int]
    time: int


class IntEvents(NamedTuple):
    events: list
    read: int
    lost: int


def _config_of(target: str) -> Optional[str]:
    """The configuration file a target names, if any."""
    for p in ("config:", "map:"):
        if target.startswith(p):
            return target[len(p):].split("?", 1)[0]
    if "?" in target:
        for kv in target.split("?", 1)[1].split("&"):
            if kv.startswith("config="):
                return kv[len("config="):]
    return None


def _timeout_ms(timeout: Optional[float]) -> int:
    if timeout is None:
        return 0  # the library's default, DTA_CLIENT_TIMEOUT_MS
    if timeout < 0:
        return -1  # forever
    return max(1, int(timeout * 1000))


def connect(target: str, text: bool = False, any_owner: bool = False,
            timeout: Optional[float] = None) -> Client:
    """Open a client on ``target`` (docs/client.md): ``unix:PATH`` or a
    socket PATH, ``config:CONF[?via=auto|socket|endpoint]``, ``map:CONF``,
    ``snapshot:DIR?config=CONF``, ``file:PATH[,PATH..]``;
    ``?collector=NAME`` for one collector's share. text=True: speak text
    lines on sockets (for comparison). any_owner=True: map: accepts shared
    memory of another user. timeout: seconds a collector may stay silent
    before it counts as not answering (None: 10 s; negative: forever).
    With config:, a collector that does not answer makes answers partial
    (Client.partial, Client.missing) rather than raising. Raises
    dta.Error."""
    return Client(target, text=text, any_owner=any_owner, timeout=timeout)


_PROTOS = {"tcp": 6, "udp": 17, "icmp": 1}


def _proto(p: Union[int, str]) -> int:
    if isinstance(p, str):
        if p.lower() in _PROTOS:
            return _PROTOS[p.lower()]
        p = int(p, 10)
    if not 0 <= p <= 255:
        raise ValueError("protocol %r is not 0..255" % p)
    return p


def key5(src, sport: int, dst, dport: int, proto: Union[int, str] = "tcp") -> bytes:
    """A 5-tuple flow key in docs/keys.md's layout: source address,
    destination address (4 bytes each for IPv4, 16 for IPv6), source port,
    destination port (2 bytes each, big-endian), protocol (1 byte): 13 or
    37 bytes, what dta-gen and reporters use. Addresses as text,
    ipaddress objects or integers (IPv4); proto a number or tcp/udp/icmp."""
    a = ipaddress.ip_address(src)
    b = ipaddress.ip_address(dst)
    if a.version != b.version:
        raise ValueError("source and destination of different IP versions")
    for port in (sport, dport):
        if not 0 <= port <= 65535:
            raise ValueError("port %r is not 0..65535" % port)
    return (a.packed + b.packed + sport.to_bytes(2, "big")
            + dport.to_bytes(2, "big") + bytes([_proto(proto)]))


def parse_key(text: str) -> bytes:
    """A key in one of docs/keys.md's forms, as the bytes dta-query uses:
    ``10.0.0.1:1234->10.0.0.2:80/tcp`` (13 B), ``[2001:db8::1]:1->[::2]:2/udp``
    (37 B), ``10.0.0.1`` (4 B), ``2001:db8::1`` (16 B), ``42`` (4 B
    big-endian, 8 B above 2^32 - 1), ``0x0a000001`` (raw bytes)."""
    s = text
    if not s:
        raise ValueError("empty key")
    if "->" in s:
        left, right = s.split("->", 1)
        if "/" not in right:
            raise ValueError("5-tuple needs /tcp, /udp or /PROTO")
        right, proto = right.rsplit("/", 1)
        v6 = left.startswith("[")

        def endpoint(e: str):
            if v6:
                if not e.startswith("[") or "]:" not in e:
                    raise ValueError("bad 5-tuple %r" % text)
                addr, port = e[1:].split("]:", 1)
                ip = ipaddress.IPv6Address(addr)
            else:
                addr, port = e.rsplit(":", 1)
                ip = ipaddress.IPv4Address(addr)
            if not port.isdigit():
                raise ValueError("bad 5-tuple %r" % text)
            return ip, int(port)

        a, sp = endpoint(left)
        b, dp = endpoint(right)
        try:
            pr = _proto(proto)
        except ValueError:
            raise ValueError("5-tuple needs /tcp, /udp or /PROTO") from None
        return key5(a, sp, b, dp, pr)
    if s[:2] in ("0x", "0X"):
        h = s[2:]
        if not h or len(h) % 2:
            raise ValueError("bad hex key %r" % text)
        return bytes.fromhex(h)
    if "." in s or ":" in s:
        fam = socket.AF_INET if "." in s else socket.AF_INET6
        try:
            return socket.inet_pton(fam, s)
        except OSError:
            raise ValueError("bad IP address %r" % text) from None
    if not s.isdigit():
        raise ValueError("unrecognised key %r (docs/keys.md)" % text)
    v = int(s)
    if v <= 0xFFFFFFFF:
        return v.to_bytes(4, "big")
    if v > 0xFFFFFFFFFFFFFFFF:
        raise ValueError("key %r over 2^64 - 1" % text)
    return v.to_bytes(8, "big")
