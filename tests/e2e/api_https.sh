#!/bin/sh
# The collector's HTTPS JSON API (docs/api.md) with curl, against
# certificates this test makes with certtool (two CAs):
#  - no client certificate, or one another CA signed: the handshake fails;
#  - `readers` hides a structure (404) from one client name, shows it to
#    another;
#  - batched kw/pc/ki lookups (GET ?key= and POST {"keys"}) carry the very
#    answers the unix socket's text protocol gives for the same keys;
#  - an Append list walked with the cursor the API returns gets every
#    stored entry exactly once, in order, equal to what the socket's `ap`
#    reads, and counts as `lost` exactly the entries the ring overwrote
#    (it is filled past its capacity): seen + lost = entries sent;
#  - 400, 404, 405 and 413 where they belong;
#  - api_listen without the TLS keys, or with a key file others can read:
#    the collector refuses to start, saying why.
. "$(dirname "$0")/lib.sh"
e2e_init api_https "$1"
for p in curl certtool python3; do
	command -v $p > /dev/null || { echo "SKIP: no $p (apt-get install curl gnutls-bin python3)" >&2; exit 77; }
done
"$COLLECTOR" --help 2>&1 | grep -q . || exit 1

# ---- certificates ----
P=$E2E/pki
mkdir -m 700 "$P"
key() { certtool --generate-privkey --key-type=ecdsa --outfile "$P/$1.key" 2>/dev/null; chmod 600 "$P/$1.key"; }
ca() { # NAME
	key "$1"
	printf 'cn = "%s"\nca\ncert_signing_key\nexpiration_days = 2\n' "$1" > "$P/$1.tmpl"
	certtool --generate-self-signed --load-privkey "$P/$1.key" \
		--template "$P/$1.tmpl" --outfile "$P/$1.pem" 2>/dev/null
}
leaf() { # NAME CA CN server|client
	key "$1"
	{
		printf 'cn = "%s"\nexpiration_days = 2\nsigning_key\n' "$3"
		if [ "$4" = server ]; then
			printf 'dns_name = "localhost"\nip_address = "127.0.0.1"\ntls_www_server\nencryption_key\n'
		else
			printf 'tls_www_client\n'
		fi
	} > "$P/$1.tmpl"
	certtool --generate-certificate --load-privkey "$P/$1.key" \
		--load-ca-certificate "$P/$2.pem" --load-ca-privkey "$P/$2.key" \
		--template "$P/$1.tmpl" --outfile "$P/$1.pem" 2>/dev/null
}
ca ca1
ca ca2
leaf server ca1 localhost server
leaf alice ca1 alice client
leaf bob ca1 bob client
leaf mallory ca2 alice client # alice's name, the wrong CA

API=127.0.0.1:$E2E_TCP0
C=$E2E/dta.conf
conf() { # extra [collector] lines
	printf '%s\n' "$@" > "$E2E/extra"
	{
		e2e_conf_head | sed "/^snapshot_dir/r $E2E/extra"
		cat <<EOF

[structure flows]
primitive = key-write
slots = 4096
data = 20

[structure secret]
primitive = key-write
slots = 64
data = 8
readers = bob

[structure postcards]
primitive = postcard
chunks = 1024
values = 1-80

[structure counters]
primitive = key-increment
width = 1024

[structure events]
primitive = append
lists = 2
entry = 8
batches = 4
batch = 4
schema = seq:u32, v:u32
EOF
	} > "$C"
}
TLS="tls_cert = $P/server.pem
tls_key = $P/server.key
tls_ca = $P/ca1.pem"

# ---- refusals to start ----
refuses() { e2e_collector_refuses "$C" "$1"; }
conf "api_listen = $API"
refuses "needs tls_cert, tls_key and tls_ca"
conf "api_listen = $API" "tls_cert = $P/server.pem" "tls_key = $P/server.key"
refuses "needs tls_cert, tls_key and tls_ca"
chmod 644 "$P/server.key"
conf "api_listen = $API" "$TLS"
refuses "tls_key"
chmod 600 "$P/server.key"

# ---- a running collector ----
conf "api_listen = $API" "$TLS"
e2e_start_collector
grep -q "HTTPS API on https://$API" "$E2E/collector.log"
e2e_start_translator -q
e2e_gen -t kw -n 400 -k 200 -T "$E2E/kw.truth"
e2e_gen -t pc -n 100 -T "$E2E/pc.truth"
e2e_gen -t ki -n 600 -k 60 -T "$E2E/ki.truth"
# 2 lists x 4 batches x 4 entries stored; 200 entries sent laps each ring.
e2e_gen -t ap -n 200 --lists 2 --entry 8 -T "$E2E/ap.truth"
e2e_stop_translator # its last partial batches are written

U=https://$API
curl_as() { # WHO curl-args...
	who=$1
	shift
	curl -sS --cacert "$P/ca1.pem" --cert "$P/$who.pem" --key "$P/$who.key" \
		--max-time 20 "$@"
}
status() { # WHO URL [curl args]: the HTTP status
	who=$1 u=$2
	shift 2
	curl_as "$who" -o "$E2E/body" -w '%{http_code}' "$@" "$u"
}

# The handshake: refused without a certificate and with another CA's.
if curl -sS --cacert "$P/ca1.pem" --max-time 20 -o /dev/null "$U/" 2> "$E2E/nocert.err"; then
	echo "FAIL: served a client without a certificate" >&2; exit 1
fi
echo "ok: no client certificate: $(head -n 1 "$E2E/nocert.err")"
if curl_as mallory -o /dev/null "$U/" 2> "$E2E/mallory.err"; then
	echo "FAIL: served a certificate another CA signed" >&2; exit 1
fi
echo "ok: another CA's certificate: $(head -n 1 "$E2E/mallory.err")"
e2e_expect "GET / as alice" "$(status alice "$U/")" 200
grep -q '"client":"alice"' "$E2E/body"
e2e_expect "content type" "$(curl_as alice -o /dev/null -w '%{content_type}' "$U/v1/structures")" \
	application/json

# readers: secret is bob's only.
curl_as alice "$U/v1/structures" > "$E2E/alice.json"
curl_as bob "$U/v1/structures" > "$E2E/bob.json"
e2e_expect "structures alice sees" \
	"$(python3 -c 'import json,sys; print(",".join(s["name"] for s in json.load(sys.stdin)["structures"]))' < "$E2E/alice.json")" \
	"flows,postcards,counters,events"
e2e_expect "structures bob sees" \
	"$(python3 -c 'import json,sys; print(",".join(s["name"] for s in json.load(sys.stdin)["structures"]))' < "$E2E/bob.json")" \
	"flows,secret,postcards,counters,events"
e2e_expect "GET secret as alice" "$(status alice "$U/v1/structures/secret")" 404
e2e_expect "kw on secret as alice" "$(status alice "$U/v1/structures/secret/kw?key=00")" 404
e2e_expect "GET secret as bob" "$(status bob "$U/v1/structures/secret")" 200

# Errors.
e2e_expect "unknown structure" "$(status alice "$U/v1/structures/nope")" 404
e2e_expect "a name with a newline and a stray byte" "$(status alice "$U/v1/structures/a%0Ab%FF")" 404
python3 -c 'import json,sys; print("ok: still JSON:", json.load(open(sys.argv[1])))' "$E2E/body"
e2e_expect "unknown path" "$(status alice "$U/v2")" 404
e2e_expect "DELETE" "$(status alice "$U/v1/structures" -X DELETE)" 405
e2e_expect "bad key" "$(status alice "$U/v1/structures/flows/kw?key=xyz")" 400
grep -q '"error"' "$E2E/body"
# A bad key after good ones: nothing of it may be left for the next
# request (the value checks below would see it).
e2e_expect "bad key after good ones" "$(status alice "$U/v1/structures/flows/kw?key=00&key=01&key=xyz")" 400
e2e_expect "no keys" "$(status alice "$U/v1/structures/flows/kw")" 400
e2e_expect "kw on an Append structure" "$(status alice "$U/v1/structures/events/kw?key=00")" 400
e2e_expect "bad JSON body" "$(status alice "$U/v1/structures/flows/kw" --data-binary 'nope')" 400
e2e_expect "list out of range" "$(status alice "$U/v1/structures/events/lists/2")" 404
e2e_expect "Grafana query of secret as alice" "$(status alice "$U/query" \
	--data-binary '{"targets":[{"target":"secret","payload":{"keys":["00"]}}]}')" 404
e2e_expect "cursor of 2^62" "$(status alice "$U/v1/structures/events/lists/0?cursor=4611686018427387904")" 400
e2e_expect "max below a batch" "$(status alice "$U/v1/structures/events/lists/0?max=3")" 400
head -c $((2 * 1024 * 1024)) /dev/zero > "$E2E/big"
e2e_expect "2 MiB body" "$(status alice "$U/v1/structures/flows/kw" --data-binary @"$E2E/big")" 413
e2e_expect "still serving" "$(status alice "$U/")" 200
# Counted: the 16 answers above with a 4xx status; the handshakes that
# failed never became requests.
e2e_query stats > "$E2E/stats.json"
e2e_expect "api errors counted" \
	"$(python3 -c 'import json,sys; a=json.load(sys.stdin)["api"]; print(a["errors"], a["refused"])' < "$E2E/stats.json")" \
	"16 0"

# ---- values: the unix socket's, key for key ----
cat > "$E2E/same.py" <<'PY'
import json, socket, subprocess, sys

sock, url, pki, truthdir = sys.argv[1:5]

def unix(lines):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall("".join(l + "\n" for l in lines).encode())
    s.shutdown(socket.SHUT_WR)
    buf = b""
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        buf += b
    s.close()
    out = [json.loads(l) for l in buf.decode().splitlines()]
    assert len(out) == len(lines), (len(out), len(lines))
    return out

def curl(path, body=None):
    args = ["curl", "-sS", "--fail", "--cacert", pki + "/ca1.pem",
            "--cert", pki + "/alice.pem", "--key", pki + "/alice.key",
            url + path]
    if body is not None:
        args += ["-H", "Content-Type: application/json", "--data-binary",
                 json.dumps(body)]
    return json.loads(subprocess.run(args, check=True, capture_output=True,
                                     text=True).stdout)

def keys_of(kind, n):
    ks = []
    for line in open("%s/%s.truth" % (truthdir, kind)):
        w = line.split()
        if w and w[0] == kind and w[1] not in ks:
            ks.append(w[1])
    ks = [k[2:] if k.startswith("0x") else k for k in ks]
    return ks[:n]

checked = 0
for kind, st, extra in (("kw", "flows", ""), ("pc", "postcards", ""),
                        ("ki", "counters", ""), ("ki", "counters", "1")):
    ks = keys_of(kind, 60) + ["00" * 13, "ff" * 13]  # and two never sent
    want = unix(["%s %s %s%s" % (kind, st, k, " " + extra if extra else "")
                 for k in ks])
    q = "&".join("key=" + k for k in ks) + ("&bank=" + extra if extra else "")
    got_get = curl("/v1/structures/%s/%s?%s" % (st, kind, q))
    body = {"keys": ks}
    if extra:
        body["bank"] = int(extra)
    got_post = curl("/v1/structures/%s/%s" % (st, kind), body)
    for got in (got_get, got_post):
        assert got["structure"] == st, got
        assert len(got["results"]) == len(ks)
        for k, w, g in zip(ks, want, got["results"]):
            assert g.pop("key") == k, (k, g)
            assert g == w, (kind, k, g, w)
            checked += 1
    found = sum(1 for w in want if w.get("status") == "found" or
                w.get("count", 0) > 0)
    if not extra:  # dta-gen counts in bank 0: bank 1 is all zeros
        assert found >= len(ks) // 2, (kind, found)  # real data compared
# Many keys in one GET (2000: within the connection's 256 KiB).
ks = ["%026x" % (i * 7919) for i in range(2000)]
want = unix(["kw flows %s" % k for k in ks])
got = curl("/v1/structures/flows/kw?" + "&".join("key=" + k for k in ks))
assert [g.pop("key") for g in got["results"]] == ks
assert got["results"] == want
checked += len(ks)
print("ok: %d answers equal to the unix socket's" % checked)

# Append: every stored entry once, the overwritten ones counted.
sent = {0: [], 1: []}
for line in open(truthdir + "/ap.truth"):
    w = line.split()
    if w and w[0] == "ap":
        sent[int(w[1])].append(w[2][2:] if w[2].startswith("0x") else w[2])
info = curl("/v1/structures/events")
stored = {}
for lst in (0, 1):
    seen, lost, cur, calls = [], 0, 0, 0
    while True:
        r = curl("/v1/structures/events/lists/%d?cursor=%d&max=4" % (lst, cur))
        calls += 1
        assert r["cursor"] == cur, r
        if not r["entries"]:
            assert r["next"] == cur and r["lost"] == 0, r
            break
        lost += r["lost"]
        for e in r["entries"]:
            seen.append(e["hex"])
            b = bytes.fromhex(e["hex"])
            assert e["fields"] == {"seq": int.from_bytes(b[:4], "big"),
                                   "v": int.from_bytes(b[4:], "big")}, e
        assert r["next"] == cur + r["lost"] + len(r["entries"]), r
        cur = r["next"]
    total = len(sent[lst])
    # The ring holds batches x batch entries at most: the rest was lost.
    assert len(seen) + lost == total, (lst, len(seen), lost, total)
    assert lost >= total - info["batches"] * info["batch"], (lost, total)
    assert lost > 0
    assert seen == sent[lst][lost:], lst           # exactly once, in order
    sock_entries = unix(["ap events %d 1000 oldest" % lst])[0]["entries"]
    assert seen == sock_entries, (seen, sock_entries)
    # From the start, in one read: the same, and the same loss.
    r = curl("/v1/structures/events/lists/%d?cursor=0&max=1000" % lst)
    assert [e["hex"] for e in r["entries"]] == seen and r["lost"] == lost
    # Without a cursor: from the oldest stored, nothing counted lost.
    r = curl("/v1/structures/events/lists/%d" % lst)
    assert [e["hex"] for e in r["entries"]] == seen and r["lost"] == 0
    assert r["cursor"] == lost and r["next"] == total, r
    # Inside a batch: from that entry on.
    r = curl("/v1/structures/events/lists/%d?cursor=%d" % (lst, lost + 1))
    assert [e["hex"] for e in r["entries"]] == seen[1:], r
    print("ok: list %d: %d entries sent, %d read once each in %d calls, "
          "%d counted lost" % (lst, total, len(seen), calls, lost))
    stored[lst] = seen

# Grafana's JSON data source: /metrics lists, /query answers tables with
# the same values.
names = [m["value"] for m in curl("/metrics", {})]
assert names == ["flows", "postcards", "counters", "events"], names
ks = keys_of("ki", 5)
tables = curl("/query", {"targets": [
    {"refId": "A", "target": "counters", "payload": {"keys": ks}},
    {"refId": "B", "target": "events", "payload": {"list": 1, "max": 64}}]})
want = unix(["ki counters %s" % k for k in ks])
assert [c["text"] for c in tables[0]["columns"]] == ["key", "count"], tables
assert tables[0]["rows"] == [[k, w["count"]] for k, w in zip(ks, want)]
assert [c["text"] for c in tables[1]["columns"]] == ["hex", "seq", "v"]
assert [r[0] for r in tables[1]["rows"]] == stored[1]
print("ok: Grafana /metrics and /query")
PY
python3 "$E2E/same.py" "$E2E/collector.sock" "$U" "$P" "$E2E"

grep -q "malformed request" "$E2E/collector.log"
e2e_stop_collector
e2e_pass
