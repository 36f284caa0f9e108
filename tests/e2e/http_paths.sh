#!/bin/sh
# The metrics endpoint answers /metrics, /health and /healthz and 404 for
# every other path (docs/metrics.md): a %00 in the path does not cut it
# short (/health%00.html is not /health). Paths sent raw, statuses counted.
. "$(dirname "$0")/lib.sh"
e2e_init http_paths "$1"
PY=/usr/bin/python3
MPORT=$E2E_TCP0
{
	e2e_conf_head | sed "s/^\[collector\]\$/&\nmetrics_listen = 127.0.0.1:$MPORT/"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 64K
data = 4
EOF
} > "$E2E/dta.conf"
e2e_start_collector
$PY - "$MPORT" <<'PYEOF'
import http.client, sys
want = [
    ("/metrics", 200), ("/health", 200), ("/healthz", 200),
    ("/health%00.html", 404), ("/metrics%00anything", 404),
    ("/healthz%00", 404), ("/metrics%2500", 404), ("/health.html", 404),
    ("/metrics/", 404), ("/", 404), ("/metrics?x=%00", 200),
]
bad = 0
for path, code in want:
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
    c.putrequest("GET", path, skip_accept_encoding=True)
    c.endheaders()
    r = c.getresponse()
    r.read()
    c.close()
    print("%s: GET %s -> %d (want %d)" % ("ok" if r.status == code else "FAIL", path, r.status, code))
    bad |= r.status != code
sys.exit(bad)
PYEOF
e2e_stop_collector
e2e_pass
