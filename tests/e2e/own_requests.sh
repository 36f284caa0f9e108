#!/bin/sh
# The collector's own requests (docs/collector-protocol.md): what is not a
# request is refused with a message naming what is wrong, never answered
# as a shorter request it begins with; every answer is valid UTF-8 JSON,
# request bytes that are not UTF-8 echoed escaped. Requests are sent raw
# over the Unix socket, one connection, and the answers checked in order.
. "$(dirname "$0")/lib.sh"
e2e_init own_requests "$1"
PY=/usr/bin/python3
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 64K
data = 4

[structure counters]
primitive = key-increment
width = 64
rows = 2
banks = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
$PY - "$E2E/collector.sock" <<'PYEOF'
import json, socket, sys

# (request bytes, what its answer must be: a predicate and its description)
cases = [
    (b"stats", lambda a: "requests" in a or "uptime_s" in a or "error" not in a, "stats answered"),
    (b"stats\0junk", lambda a: a.get("error") == "request contains a NUL byte", "NUL refused"),
    (b"kw paths\0 00", lambda a: a.get("error") == "request contains a NUL byte", "NUL refused (executor's)"),
    (b"stats extra", lambda a: a.get("error") == "stats takes no arguments (usage: stats)", "stats arguments"),
    (b"snapshot extra", lambda a: a.get("error") == "snapshot takes no arguments (usage: snapshot)", "snapshot arguments"),
    (b"switch x", lambda a: a.get("error") == "switch takes no arguments (usage: switch)", "switch arguments"),
    (b"ki-reset counters 2", lambda a: a.get("error") == "ki-reset: bank 2 is not a bank of counters (it has 2: 0..1)", "bank out of range"),
    (b"ki-reset counters 1x", lambda a: a.get("error") == "ki-reset: bank 1x is not a bank of counters (it has 2: 0..1)", "bank not a number"),
    (b"ki-reset counters -1", lambda a: a.get("error") == "ki-reset: bank -1 is not a bank of counters (it has 2: 0..1)", "negative bank"),
    (b"ki-reset paths 0", lambda a: a.get("error") == "ki-reset: paths is not a Key-Increment structure", "not KI"),
    (b"ki-reset nosuch 0", lambda a: a.get("error") == "ki-reset: no structure named nosuch", "unknown name"),
    (b"ki-reset \xff\xfe 0", lambda a: a.get("error") == "ki-reset: no structure named \u00ff\u00fe", "unknown non-UTF-8 name, escaped"),
    (b"ki-reset counters", lambda a: a.get("error") == "usage: ki-reset NAME BANK", "usage"),
    (b"ki-reset counters 1", lambda a: a == {"ok": True}, "valid reset"),
    (b"kw \xff\xfe 00", lambda a: a.get("error") == "no structure named \u00ff\u00fe", "kw non-UTF-8 name, escaped"),
    (b"\xc3\x28", lambda a: "error" in a, "invalid UTF-8 request"),
    (b"stats", lambda a: "error" not in a, "still serving"),
]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"".join(c[0] + b"\n" for c in cases))
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
lines = data.split(b"\n")
assert lines[-1] == b"", lines[-1]
lines = lines[:-1]
bad = 0
if len(lines) != len(cases):
    print("FAIL: %d answers to %d requests" % (len(lines), len(cases)))
    bad = 1
for (req, ok, what), raw in zip(cases, lines):
    try:
        a = json.loads(raw.decode("utf-8", errors="strict"))
    except ValueError as e:
        print("FAIL: %s: %r -> not valid UTF-8 JSON (%s): %r" % (what, req, e, raw))
        bad = 1
        continue
    if not ok(a):
        print("FAIL: %s: %r -> %r" % (what, req, raw))
        bad = 1
    else:
        print("ok: %s: %r -> %s" % (what, req, raw.decode()))
sys.exit(bad)
PYEOF
e2e_stop_collector
e2e_pass
