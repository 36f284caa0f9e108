# SPDX-License-Identifier: BSD-3-Clause
"""dta over TLS (tls://HOST:PORT?ca=&cert=&key=, docs/client.md): a
collector with query_listen and certificates made by tests/tls_certs.sh
(certtool); the same answers as over its Unix socket, readers applied to
the certificate's name, refusals as dta.Error. Skipped without certtool."""
import errno
import json
import os
import shutil
import subprocess
import tempfile

import pytest

import dta
import dtaenv
from conftest import STRUCTURES, fed_system
from test_client import answers

HERE = os.path.dirname(os.path.abspath(__file__))
CERTS_SH = os.path.join(HERE, "..", "..", "tests", "tls_certs.sh")


@pytest.fixture(scope="module")
def tls_system():
    if not shutil.which("certtool") or not os.path.exists(CERTS_SH):
        pytest.skip("certtool (gnutls-bin) or tests/tls_certs.sh missing")
    certs = tempfile.mkdtemp(prefix="dta-py-certs.")
    # (without a sanitizer build's preloaded runtimes: child_env())
    subprocess.run(["sh", CERTS_SH, certs, "analyst", "other"], check=True,
                   env=dtaenv.child_env())
    port = dtaenv.tcp_port()
    extra = ("query_listen = 127.0.0.1:%d\ntls_cert = %s/server.pem\n"
             "tls_key = %s/server.key\ntls_ca = %s/ca.pem\n"
             % (port, certs, certs, certs))
    secret = ("\n[structure secret]\nprimitive = key-write\nslots = 64\n"
              "data = 4\nreaders = other\n")
    s = fed_system(STRUCTURES + secret, "tls", 300, 2, collector_extra=extra)
    s.certs, s.tls_port = certs, port
    yield s
    s.stop()
    shutil.rmtree(certs, ignore_errors=True)


def target(s, cn, host="127.0.0.1", more=""):
    return ("tls://%s:%d?ca=%s/ca.pem&cert=%s/%s.pem&key=%s/%s.key%s"
            % (host, s.tls_port, s.certs, s.certs, cn, s.certs, cn, more))


@pytest.mark.parametrize("text", [False, True])
def test_tls_same_as_unix(tls_system, text):
    s = tls_system
    with dta.connect("unix:" + s.sock) as c:
        ref = answers(c, s)
    with dta.Client(target(s, "other", "localhost"), text=text) as c:
        got = answers(c, s)
    for k in ref:
        if k == "values":
            continue  # a socket's listing may lack the value sets
        assert got[k] == ref[k], k
    assert len(ref["ap0"]) > 0 and ref["kw_status"]


def test_tls_readers(tls_system):
    s = tls_system
    with dta.connect(target(s, "analyst")) as c:
        names = sorted(x.name for x in c.structures)
        assert "secret" not in names
        with pytest.raises(dta.Error) as hidden:
            c.kw_get("secret", [b"\0\0\0\1"])
        with pytest.raises(dta.Error) as absent:
            c.kw_get("nosuch", [b"\0\0\0\1"])
        assert hidden.value.errno == absent.value.errno
        assert json.loads(c.request("stats"))["structures"] == len(names)
        # (an answer, not a broken connection: the error is the answer's)
        assert "not allowed over a remote connection" in \
            json.loads(c.request("snapshot"))["error"]
    with dta.connect(target(s, "other")) as c:
        assert "secret" in [x.name for x in c.structures]


def test_tls_refused(tls_system):
    s = tls_system
    # no client certificate
    with pytest.raises(dta.Error) as e:
        dta.connect("tls://127.0.0.1:%d?ca=%s/ca.pem" % (s.tls_port, s.certs))
    assert "refused this client" in str(e.value)
    # another CA's certificate
    with pytest.raises(dta.Error) as e:
        dta.connect(target(s, "rogue"))
    assert e.value.errno == errno.EACCES
    # a collector certificate without the name the client expects
    with pytest.raises(dta.Error) as e:
        dta.connect(target(s, "analyst", more="&name=wrong.example"))
    assert e.value.errno == errno.EACCES
    assert "does not match" in str(e.value)


def test_tls_env_defaults(tls_system, monkeypatch):
    s = tls_system
    monkeypatch.setenv("DTA_TLS_CA", s.certs + "/ca.pem")
    monkeypatch.setenv("DTA_TLS_CERT", s.certs + "/other.pem")
    monkeypatch.setenv("DTA_TLS_KEY", s.certs + "/other.key")
    with dta.connect("tls://localhost:%d" % s.tls_port) as c:
        assert "secret" in [x.name for x in c.structures]
