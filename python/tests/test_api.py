# SPDX-License-Identifier: BSD-3-Clause
"""The collector's HTTPS JSON API (docs/api.md) from Python `requests`,
against a collector this module starts with certificates it makes
(certtool): lookups equal to the unix socket's answers, `readers`, an
Append walk with the cursor, refusals, and the request deadline."""
import json
import os
import shutil
import socket
import ssl
import subprocess
import time

import pytest

import dtaenv
from conftest import structures

requests = pytest.importorskip("requests")

STRUCTURES = structures(
    "paths", "events", "counts",
    events={"batches": "8", "batch": "4"}) + """
[structure private]
primitive = key-write
slots = 64
data = 8
readers = bob
"""


def certtool(*args):
    # Without a sanitizer build's preloaded runtimes: certtool hangs
    # under them (dtaenv.child_env()).
    subprocess.run(["certtool"] + list(args), check=True,
                   capture_output=True, env=dtaenv.child_env(),
                   timeout=60)


def make_pki(d):
    """CA ca1 (server, alice, bob) and ca2 (eve): PEM files in @d."""
    def key(name):
        certtool("--generate-privkey", "--key-type=ecdsa", "--outfile",
                 os.path.join(d, name + ".key"))
        os.chmod(os.path.join(d, name + ".key"), 0o600)

    def tmpl(name, text):
        p = os.path.join(d, name + ".tmpl")
        with open(p, "w") as f:
            f.write(text)
        return p

    for ca in ("ca1", "ca2"):
        key(ca)
        certtool("--generate-self-signed", "--load-privkey",
                 os.path.join(d, ca + ".key"), "--template",
                 tmpl(ca, 'cn = "%s"\nca\ncert_signing_key\n'
                      'expiration_days = 2\n' % ca),
                 "--outfile", os.path.join(d, ca + ".pem"))
    for name, ca, extra in (
            ("server", "ca1", 'dns_name = "localhost"\n'
             'ip_address = "127.0.0.1"\ntls_www_server\nencryption_key\n'),
            ("alice", "ca1", "tls_www_client\n"),
            ("bob", "ca1", "tls_www_client\n"),
            ("eve", "ca2", "tls_www_client\n")):
        key(name)
        certtool("--generate-certificate", "--load-privkey",
                 os.path.join(d, name + ".key"), "--load-ca-certificate",
                 os.path.join(d, ca + ".pem"), "--load-ca-privkey",
                 os.path.join(d, ca + ".key"), "--template",
                 tmpl(name, 'cn = "%s"\nexpiration_days = 2\nsigning_key\n%s'
                      % ("alice" if name == "eve" else name, extra)),
                 "--outfile", os.path.join(d, name + ".pem"))


class Api:
    pass


@pytest.fixture(scope="module")
def api():
    if not shutil.which("certtool"):
        pytest.skip("no certtool (apt-get install gnutls-bin)")
    s = dtaenv.DtaSystem(STRUCTURES, "api")
    try:
        pki = os.path.join(s.dir, "pki")
        os.mkdir(pki, 0o700)
        make_pki(pki)
        port = dtaenv.tcp_port()
        with open(s.conf) as f:
            text = f.read()
        text = text.replace(
            "[translator]",
            "api_listen = 127.0.0.1:%d\ntls_cert = %s/server.pem\n"
            "tls_key = %s/server.key\ntls_ca = %s/ca1.pem\n\n[translator]"
            % (port, pki, pki, pki), 1)
        with open(s.conf, "w") as f:
            f.write(text)
        s.start()
        truth = {}
        for kind, args in (("kw", ["-n", "300", "-k", "150"]),
                           ("ap", ["-n", "150", "--lists", "2",
                                   "--entry", "8"]),
                           ("ki", ["-n", "400", "-k", "40"])):
            path = os.path.join(s.dir, kind + ".truth")
            s.gen("-t", kind, *args, "-T", path)
            truth[kind] = dtaenv.read_truth(path)
        s.stop_translator()
        a = Api()
        a.s, a.truth, a.pki = s, truth, pki
        a.url = "https://127.0.0.1:%d" % port
        a.ca = os.path.join(pki, "ca1.pem")

        def cert(who):
            return (os.path.join(pki, who + ".pem"),
                    os.path.join(pki, who + ".key"))
        a.cert = cert
        yield a
    finally:
        s.stop()


def get(a, path, who="alice", **kw):
    return requests.get(a.url + path, cert=a.cert(who), verify=a.ca,
                        timeout=30, **kw)


def unix(sock, lines):
    """The unix socket's text answers to @lines."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall("".join(line + "\n" for line in lines).encode())
    s.shutdown(socket.SHUT_WR)
    buf = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        buf += b
    s.close()
    return [json.loads(line) for line in buf.decode().splitlines()]


def keys(truth, kind, n):
    out = []
    for t in truth[kind]:
        k = t[1][2:] if t[1].startswith("0x") else t[1]
        if t[0] == kind and k not in out:
            out.append(k)
    return out[:n]


def test_structures_and_readers(api):
    r = get(api, "/v1/structures")
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    names = [s["name"] for s in r.json()["structures"]]
    assert names == ["paths", "events", "counts"]
    names = [s["name"] for s in get(api, "/v1/structures", "bob")
             .json()["structures"]]
    assert names == ["paths", "events", "counts", "private"]
    assert get(api, "/v1/structures/private").status_code == 404
    assert get(api, "/v1/structures/private", "bob").status_code == 200
    ev = get(api, "/v1/structures/events").json()
    assert ev["primitive"] == "append" and ev["lists"] == 2
    assert ev["schema"] == "seq:u32, value:u32"


def test_lookups_equal_socket(api):
    for kind, st in (("kw", "paths"), ("ki", "counts")):
        ks = keys(api.truth, kind, 100)
        want = unix(api.s.sock, ["%s %s %s" % (kind, st, k) for k in ks])
        r = requests.post(api.url + "/v1/structures/%s/%s" % (st, kind),
                          json={"keys": ks}, cert=api.cert("alice"),
                          verify=api.ca, timeout=30)
        assert r.status_code == 200, r.text
        got = r.json()["results"]
        assert [g.pop("key") for g in got] == ks
        assert got == want
        assert sum(1 for w in want if w.get("status") == "found" or
                   w.get("count", 0)) >= len(ks) // 2
        r = get(api, "/v1/structures/%s/%s" % (st, kind),
                params=[("key", k) for k in ks[:10]])
        assert [dict((x, v) for x, v in g.items() if x != "key")
                for g in r.json()["results"]] == want[:10]


def test_append_cursor_walk(api):
    sent = {0: [], 1: []}
    for t in api.truth["ap"]:
        if t[0] == "ap":
            sent[int(t[1])].append(t[2][2:] if t[2].startswith("0x")
                                   else t[2])
    for lst in (0, 1):
        cur, seen, lost = 0, [], 0
        while True:
            r = get(api, "/v1/structures/events/lists/%d" % lst,
                    params={"cursor": cur, "max": 8}).json()
            if not r["entries"]:
                break
            lost += r["lost"]
            seen += [e["hex"] for e in r["entries"]]
            cur = r["next"]
        assert len(seen) + lost == len(sent[lst])
        # The ring keeps the last 8 batches (of 4 entries at most: the
        # translator flushes partial ones when reports pause, so where
        # batches end depends on timing). What it holds is what a consumer
        # on the unix socket reads from the oldest batch: the walk must
        # have seen exactly that, and counted all before it lost.
        ring = unix(api.s.sock, ["ap events %d 65536 oldest" % lst])[0]
        assert ring["lost"] == 0
        assert 8 <= len(ring["entries"]) <= 32 < len(sent[lst])
        assert seen == ring["entries"]
        assert lost == len(sent[lst]) - len(ring["entries"])
        assert seen == sent[lst][lost:]


def test_refused(api):
    with pytest.raises(requests.exceptions.RequestException):
        requests.get(api.url + "/", verify=api.ca, timeout=30)
    with pytest.raises(requests.exceptions.RequestException):
        get(api, "/", "eve")
    r = requests.delete(api.url + "/v1/structures", cert=api.cert("alice"),
                        verify=api.ca, timeout=30)
    assert r.status_code == 405 and "error" in r.json()
    r = requests.post(api.url + "/v1/structures/paths/kw",
                      data=b"{" * (2 << 20), cert=api.cert("alice"),
                      verify=api.ca, timeout=30)
    assert r.status_code == 413


def test_per_address_cap(api):
    """16 silent connections from one address at once (a slowloris); a
    17th is served all the same, and the cap still holds: the oldest of
    the 16 is shut to make room for it (docs/api.md, issue 25)."""
    host, port = api.url[len("https://"):].split(":")
    held = [socket.create_connection((host, int(port)), timeout=30)
            for _ in range(16)]
    try:
        assert get(api, "/").status_code == 200
        try:
            gone = held[0].recv(1) == b""  # shut by the collector
        except ConnectionResetError:
            gone = True
        assert gone
    finally:
        for s in held:
            s.close()
    st = json.loads(api.s.query("stats").strip().splitlines()[-1])
    assert st["api"]["evicted"] >= 1, st["api"]


def test_request_deadline(api):
    """A client that trickles a request, a byte at a time well within the
    inactivity timeout, is cut off at the total deadline (30 s): the
    connection ends while it is still sending."""
    ctx = ssl.create_default_context(cafile=api.ca)
    ctx.load_cert_chain(*api.cert("alice"))
    host, port = api.url[len("https://"):].split(":")
    raw = socket.create_connection((host, int(port)), timeout=30)
    s = ctx.wrap_socket(raw, server_hostname="localhost")
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    closed = False
    for _ in range(120):  # 120 bytes over 2 minutes at most
        try:
            s.sendall(b"X")
            s.settimeout(1.0)
            if s.recv(1) == b"":
                closed = True
                break
        except socket.timeout:
            continue
        except (OSError, ssl.SSLError):
            closed = True
            break
    s.close()
    assert closed, "the server kept a trickling request past 2 minutes"
    # Ended by the deadline, not before it (not the inactivity timeout),
    # and counted.
    assert time.monotonic() - start >= 20
    st = json.loads(api.s.query("stats").strip().splitlines()[-1])
    assert st["api"]["deadline_closed"] == 1, st["api"]
