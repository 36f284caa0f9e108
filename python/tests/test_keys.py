# SPDX-License-Identifier: BSD-3-Clause
"""Key helpers and schema dtypes, against hand-worked bytes (docs/keys.md)
and dta-query's own parsing of the same key texts."""
import ipaddress
import struct

import numpy as np
import pytest

import dta


def test_key5_ipv4():
    # source, destination, sport, dport (big-endian), protocol
    want = bytes([10, 0, 0, 1, 10, 0, 0, 2, 0x04, 0xD2, 0x00, 0x50, 6])
    assert dta.key5("10.0.0.1", 1234, "10.0.0.2", 80, "tcp") == want
    assert dta.key5("10.0.0.1", 1234, "10.0.0.2", 80, 6) == want
    assert dta.parse_key("10.0.0.1:1234->10.0.0.2:80/tcp") == want


def test_key5_ipv6():
    want = (bytes.fromhex("20010db8000000000000000000000001")
            + bytes.fromhex("20010db8000000000000000000000002")
            + b"\x00\x01\x00\x02\x11")
    assert dta.key5("2001:db8::1", 1, "2001:db8::2", 2, "udp") == want
    assert dta.parse_key("[2001:db8::1]:1->[2001:db8::2]:2/udp") == want
    assert len(want) == 37


def test_parse_key_forms():
    assert dta.parse_key("10.0.0.1") == b"\x0a\x00\x00\x01"
    assert dta.parse_key("2001:db8::1") == bytes.fromhex(
        "20010db8000000000000000000000001")
    assert dta.parse_key("42") == b"\x00\x00\x00\x2a"
    assert dta.parse_key("4294967296") == b"\x00\x00\x00\x01\x00\x00\x00\x00"
    assert dta.parse_key("0x0a000001ff") == b"\x0a\x00\x00\x01\xff"
    assert dta.parse_key("1.2.3.4:5->6.7.8.9:10/47")[-1] == 47
    assert dta.parse_key("1.2.3.4:5->6.7.8.9:10/icmp")[-1] == 1
    for bad in ["", "0x", "0xabc", "1.2.3", "x", "-1",
                "1.2.3.4:5->6.7.8.9:10", "1.2.3.4:5->6.7.8.9:10/bogus",
                "1.2.3.4:70000->6.7.8.9:10/tcp", "1.2.3.4:5->[::1]:10/tcp"]:
        with pytest.raises(ValueError):
            dta.parse_key(bad)


def text_of(key):
    """A 13-byte key as docs/keys.md's text, written independently."""
    a, b = ipaddress.IPv4Address(key[:4]), ipaddress.IPv4Address(key[4:8])
    sp, dp, pr = struct.unpack(">HHB", key[8:])
    return "%s:%d->%s:%d/%d" % (a, sp, b, dp, pr)


def test_parse_key_matches_truth_keys(system):
    keys = [bytes.fromhex(t[1]) for t in system.truth["kw"] if t[0] == "kw"]
    for k in keys[:50]:
        assert dta.parse_key(text_of(k)) == k
    # dta-query reads the text form into the same key: same answer
    k = keys[0]
    assert system.query("-j", "kw", "get", "paths", text_of(k)) == \
        system.query("-j", "kw", "get", "paths", "0x" + k.hex())


def test_dtype_of_schema():
    dt = dta.dtype_of_schema(
        "src:u32, x:u16le, hops:u8, pad:bytes[3], path:u32[5], "
        "ts:u64:time, s:i32le, b:i8")
    assert dt.names == ("src", "x", "hops", "pad", "path", "ts", "s", "b")
    assert dt.itemsize == 4 + 2 + 1 + 3 + 20 + 8 + 4 + 1
    assert dt["src"] == np.dtype(">u4") and dt["x"] == np.dtype("<u2")
    assert dt["pad"] == np.dtype("V3")
    assert dt["path"] == np.dtype((">u4", (5,)))
    assert dt["s"] == np.dtype("<i4") and dt["b"] == np.dtype("i1")
    assert [dt.fields[n][1] for n in dt.names] == [0, 4, 6, 7, 10, 30, 38, 42]
    # a value packed by hand with struct reads back field by field
    raw = struct.pack(">I", 0x0A000001) + struct.pack("<H", 513) + b"\x03" \
        + b"abc" + struct.pack(">5I", 1, 2, 3, 4, 5) \
        + struct.pack(">Q", 1700000000123456789) + struct.pack("<i", -7) \
        + b"\xfe"
    v = np.frombuffer(raw, dtype=dt)[0]
    assert v["src"] == 0x0A000001 and v["x"] == 513 and v["hops"] == 3
    assert v["pad"].tobytes() == b"abc"
    assert v["path"].tolist() == [1, 2, 3, 4, 5]
    assert v["ts"] == 1700000000123456789 and v["s"] == -7 and v["b"] == -2


def test_dtype_of_bad_schema():
    with pytest.raises(dta.Error) as e:
        dta.dtype_of_schema("path:u32[0]")
    assert e.value.errno == dta._dta.E_MALFORMED
    with pytest.raises(dta.Error):
        dta.dtype_of_schema("a:u32, a:u8")


def test_version_matches_pyproject():
    """pip's metadata (python/pyproject.toml) names libdta's version."""
    import os
    import re
    path = os.path.join(os.path.dirname(__file__), "..", "pyproject.toml")
    with open(path) as f:
        m = re.search(r'^version = "([^"]+)"$', f.read(), re.M)
    assert m and m.group(1) == dta.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", dta.__version__)
