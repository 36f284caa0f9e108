#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The HTTPS JSON API's lookup rate beside the unix socket's text protocol,
in one run, on the same collector, structure and keys (docs/api.md).

Starts a private collector with api_listen and certificates it makes
(certtool), fills a Key-Write structure with dta-gen, then measures
Key-Write lookups of the same keys:
  - socket:   the text protocol, all requests written then all answers read;
  - api POST: one POST /v1/structures/NAME/kw with BATCH keys per request,
              over one kept-alive TLS connection (requests.Session);
  - api GET:  one key per request (a dashboard's single lookup), kept alive.
Keys per wall second of the client (the collector's CPU included, as the
client waits for it). Medians of --repeats passes. Prints figures; asserts
nothing.

Usage: python3 bench/bench_api.py --build build
"""
import argparse
import os
import socket
import statistics
import sys
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python", "tests"))
import dtaenv  # noqa: E402
import test_api  # noqa: E402  (its certificate maker)

import requests  # noqa: E402

STRUCTURES = """\
[structure flows]
primitive = key-write
slots = 65536
data = 20
"""


def median_rate(fn, n, repeats):
    rates = []
    for _ in range(repeats):
        t0 = time.monotonic()
        fn()
        rates.append(n / (time.monotonic() - t0))
    return statistics.median(rates)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--keys", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--singles", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    os.environ["DTA_BUILD_DIR"] = os.path.abspath(a.build)
    s = dtaenv.DtaSystem(STRUCTURES, "bench-api")
    try:
        pki = os.path.join(s.dir, "pki")
        os.mkdir(pki, 0o700)
        test_api.make_pki(pki)
        port = test_api.tcp_port()
        with open(s.conf) as f:
            text = f.read()
        with open(s.conf, "w") as f:
            f.write(text.replace(
                "[translator]",
                "api_listen = 127.0.0.1:%d\ntls_cert = %s/server.pem\n"
                "tls_key = %s/server.key\ntls_ca = %s/ca1.pem\n\n"
                "[translator]" % (port, pki, pki, pki), 1))
        s.start()
        truth = os.path.join(s.dir, "kw.truth")
        s.gen("-t", "kw", "-n", str(a.keys), "-k", str(a.keys), "-T", truth)
        s.stop_translator()
        keys = []
        for t in dtaenv.read_truth(truth):
            k = t[1][2:] if t[1].startswith("0x") else t[1]
            if t[0] == "kw" and k not in keys:
                keys.append(k)
        n = len(keys)

        req = "".join("kw flows %s\n" % k for k in keys).encode()

        def sock_all():
            # Written by a thread while this one reads: the collector
            # stops reading a client that leaves its answers unread.
            c = socket.socket(socket.AF_UNIX)
            c.connect(s.sock)

            def send():
                c.sendall(req)
                c.shutdown(socket.SHUT_WR)
            t = threading.Thread(target=send)
            t.start()
            got = 0
            while True:
                b = c.recv(1 << 20)
                if not b:
                    break
                got += b.count(b"\n")
            t.join()
            c.close()
            assert got == n

        sess = requests.Session()
        sess.cert = (os.path.join(pki, "alice.pem"),
                     os.path.join(pki, "alice.key"))
        ca = os.path.join(pki, "ca1.pem")  # per call: REQUESTS_CA_BUNDLE
        # in the environment would override Session.verify
        url = "https://127.0.0.1:%d/v1/structures/flows/kw" % port

        def api_post():
            for i in range(0, n, a.batch):
                r = sess.post(url, json={"keys": keys[i:i + a.batch]},
                              verify=ca)
                assert r.status_code == 200
                r.json()

        def api_get():
            for k in keys[:a.singles]:
                r = sess.get(url, params={"key": k}, verify=ca)
                assert r.status_code == 200
                r.json()

        api_get()  # the handshake, once
        load = os.getloadavg()
        sock = median_rate(sock_all, n, a.repeats)
        post = median_rate(api_post, n, a.repeats)
        single = median_rate(api_get, min(a.singles, n), a.repeats)
        print("kw lookups of %d keys, medians of %d passes (load average "
              "%.1f %.1f %.1f, %d CPUs)" % (n, a.repeats, *load,
                                           os.cpu_count()))
        print("  unix socket, text:           %10.0f keys/s" % sock)
        print("  HTTPS POST, %5d keys/req:   %10.0f keys/s (%.2f of the "
              "socket's)" % (a.batch, post, post / sock))
        print("  HTTPS GET, 1 key/req:        %10.0f requests/s" % single)
    finally:
        s.stop()


if __name__ == "__main__":
    main()
