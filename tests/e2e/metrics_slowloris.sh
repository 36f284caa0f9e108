#!/bin/sh
# Slow and silent clients cannot keep a scraper from the metrics endpoint
# (issue 25; common/httpd.c, docs/metrics.md): with 8 slowloris
# connections from 127.0.0.1 and 8 from 127.0.0.2 (a header line every
# 0.5 s, never the blank line that ends the headers: libmicrohttpd's
# inactivity timeout never fires) and 40 silent connections from
# 127.0.0.3, every one of 10 /health requests from 127.0.0.1 and a
# /metrics scrape are answered: the caps shut the oldest connection for
# the new one instead of refusing it. And 300 malformed requests log a
# line at most once a second. Counts decide; the socket timeouts are
# failure timeouts only (the old endpoint refused these requests).
. "$(dirname "$0")/lib.sh"
e2e_init metrics_slowloris "$1"
command -v python3 > /dev/null || { echo "SKIP: no python3" >&2; exit 77; }
"$COLLECTOR" --help 2>&1 | grep -q -- '--metrics' ||
	{ echo "SKIP: this build has no metrics endpoint" >&2; exit 77; }
PORT=$(e2e_free_ports 1)
{
	e2e_conf_head
	cat <<EOF2

[structure paths]
primitive = key-write
slots = 4096
data = 20
EOF2
} > "$E2E/dta.conf"
e2e_start_collector --metrics "127.0.0.1:$PORT"
cat > "$E2E/slow.py" <<'EOF2'
import socket, sys, threading, time
T0 = time.monotonic()
port = int(sys.argv[1])
def conn(src, timeout=25):
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s
slow = []
for src in ("127.0.0.1", "127.0.0.2"):
    for _ in range(8):
        s = conn(src)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        slow.append(s)
silent = [conn("127.0.0.3") for _ in range(40)]
stop = False
def trickle():
    k = 0
    while not stop:
        for s in slow:
            try:
                s.send(b"X-Slow-%d: 1\r\n" % k)
            except OSError:
                pass
        k += 1
        time.sleep(0.5)
th = threading.Thread(target=trickle)
th.start()
time.sleep(1)  # not a timing assert: lets the trickle start first
def ask(path):
    try:
        s = conn("127.0.0.1")
        s.sendall(b"GET " + path + b" HTTP/1.0\r\n\r\n")
        b = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            b += d
        s.close()
        return b.split(b"\r\n", 1)[0]
    except OSError as e:
        return str(e).encode()
health = []
for _ in range(10):
    health.append(ask(b"/health"))
    if b" 200 " not in health[-1] + b" ":
        break  # refused: the rest would be too
print("health answered", sum(1 for h in health if b" 200 " in h + b" "), "of 10")
print("first status", health[0].decode())
m = ask(b"/metrics")
print("metrics", "answered" if b" 200 " in m + b" " else m.decode())
stop = True
th.join()
if len(health) < 10:
    sys.exit(0)
t0 = time.monotonic()
for _ in range(300):
    try:
        s = conn("127.0.0.4")
        s.sendall(b"\x01\x02 nonsense\r\n\r\n")
        s.recv(4096)
        s.close()
    except OSError:
        pass
print("malformed seconds", int(time.monotonic() - t0) + 1)
print("total seconds", int(time.monotonic() - T0) + 1)
EOF2
: > "$E2E/mark"
python3 "$E2E/slow.py" "$PORT" > "$E2E/slow.out"
cat "$E2E/slow.out"
e2e_expect "/health answered" "$(sed -n 's/^health answered \([0-9]*\) of 10$/\1/p' "$E2E/slow.out")" 10
e2e_expect "/metrics scrape" "$(sed -n 's/^metrics //p' "$E2E/slow.out")" answered
grep -q 'metrics: .*full: the oldest connection closed for a new one' "$E2E/collector.log"
# At most one line a second of each kind (libmicrohttpd's, evictions)
# over the whole run, whatever its length: not one per request.
secs=$(sed -n 's/^total seconds //p' "$E2E/slow.out")
mhd=$(grep '^dta-collector: metrics: ' "$E2E/collector.log" |
	grep -vc 'full: the oldest connection closed' || true)
ev=$(grep -c 'metrics: .*full: the oldest connection closed' "$E2E/collector.log" || true)
echo "log lines: $mhd of libmicrohttpd's, $ev of evictions, in $secs s (300 malformed requests)"
[ "$mhd" -le $((secs + 1)) ] && [ "$ev" -le $((secs + 1)) ] ||
	{ echo "FAIL: not rate-limited" >&2; exit 1; }
e2e_stop_collector
e2e_pass
