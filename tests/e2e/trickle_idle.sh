#!/bin/sh
# Bytes that complete no request do not hold a client slot (issue 25):
# 63 connections each trickle a blank byte every 0.3 s and never a
# newline. With idle_timeout = 2 the collector closes every one of them
# (counted in clients_idle_closed) although each sent bytes all along,
# while a 64th client asking `stats` over and over is answered each time;
# then a new client gets in. With idle_timeout = 0 (never) and
# request_timeout = 2, a request line still has a deadline of its own
# (clients_request_closed). Counts decide: the trickle's 40 s is a
# failure timeout only (on the old collector the tricklers were never
# closed).
. "$(dirname "$0")/lib.sh"
e2e_init trickle_idle "$1"
command -v python3 > /dev/null || { echo "SKIP: no python3" >&2; exit 77; }
S=$E2E/collector.sock
conf() { # IDLE REQUEST
	cat > "$E2E/dta.conf" <<EOF2
[collector]
name = e2e-ti-$$
socket = $S
idle_timeout = $1
request_timeout = $2
stall_timeout = 600

[structure paths]
primitive = key-write
slots = 4096
data = 20
EOF2
}
cat > "$E2E/trickle.py" <<'EOF2'
import select, socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s
ask = conn()  # a client that works: one request at a time
t = [conn() for _ in range(n)]
open_ = set(range(n))
closed = answered = 0
end = time.monotonic() + 40  # failure timeout only
while open_ and time.monotonic() < end:
    for i in list(open_):
        try:
            t[i].send(b" ")
        except OSError:
            pass
        r, _, _ = select.select([t[i]], [], [], 0)
        if r:
            try:
                d = t[i].recv(4096)
            except OSError:
                d = b""
            if not d:  # the collector closed it
                open_.discard(i)
                closed += 1
                t[i].close()
    ask.sendall(b"stats\n")
    line = b""
    while not line.endswith(b"\n"):
        d = ask.recv(65536)
        if not d:
            break
        line += d
    answered += line.startswith(b'{"name":')
    time.sleep(0.3)
print("closed", closed, "of", n)
print("answered", answered)
late = conn()
late.sendall(b"stats\n")
print("late", late.recv(65536).decode().strip()[:8])
EOF2

# idle_timeout: the 63 tricklers are closed, the working client is not.
conf 2 0
e2e_start_collector
python3 "$E2E/trickle.py" "$S" 63 > "$E2E/t1.out"
cat "$E2E/t1.out"
e2e_expect "tricklers closed by the collector" \
	"$(sed -n 's/^closed \([0-9]*\) of .*/\1/p' "$E2E/t1.out")" 63
[ "$(sed -n 's/^answered //p' "$E2E/t1.out")" -ge 1 ] ||
	{ echo "FAIL: the working client was not answered" >&2; exit 1; }
e2e_expect "a new client's answer" "$(sed -n 's/^late //p' "$E2E/t1.out")" \
	'{"name":'
e2e_query stats > "$E2E/stats1.out"
e2e_expect "clients_idle_closed" "$(e2e_json_num clients_idle_closed < "$E2E/stats1.out")" 63
e2e_expect "clients_request_closed" "$(e2e_json_num clients_request_closed < "$E2E/stats1.out")" 0
grep -q 'no request for 2 s (idle_timeout); connection closed' "$E2E/collector.log"
e2e_stop_collector

# No idle timeout: the request line's own deadline closes them.
conf 0 2
e2e_start_collector
python3 "$E2E/trickle.py" "$S" 8 > "$E2E/t2.out"
cat "$E2E/t2.out"
e2e_expect "tricklers closed (request_timeout)" \
	"$(sed -n 's/^closed \([0-9]*\) of .*/\1/p' "$E2E/t2.out")" 8
e2e_query stats > "$E2E/stats2.out"
e2e_expect "clients_request_closed" "$(e2e_json_num clients_request_closed < "$E2E/stats2.out")" 8
e2e_expect "clients_idle_closed" "$(e2e_json_num clients_idle_closed < "$E2E/stats2.out")" 0
grep -q 'a request unfinished after 2 s (request_timeout); connection closed' \
	"$E2E/collector.log"
e2e_stop_collector
e2e_pass
