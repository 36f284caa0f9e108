#!/bin/sh
# `snapshot` and `ki-reset` run off the collector's loop (issue 25): while
# one runs, other clients are answered (a `stats` sent after it is
# answered before it), a second one is refused with a clear error, the
# requester's own later requests wait for its answer, in order, and
# SIGTERM waits for it. Deterministic, not timed: the collector's test-only
# gate (DTA_COLLECTOR_TEST_JOB_GATE, a FIFO: the job waits until the test
# writes it) holds the job as long as the test needs, as a 2 GiB structure
# would (9 s on the machine of the report).
. "$(dirname "$0")/lib.sh"
e2e_init snapshot_offloop "$1"
command -v python3 > /dev/null || { echo "SKIP: no python3" >&2; exit 77; }
S=$E2E/collector.sock
{
	e2e_conf_head
	cat <<EOF2

[structure counters]
primitive = key-increment
width = 1024
rows = 2
banks = 2
EOF2
} > "$E2E/dta.conf"
mkfifo "$E2E/gate"
export DTA_COLLECTOR_TEST_JOB_GATE="$E2E/gate"
e2e_start_collector
cat > "$E2E/client.py" <<'EOF2'
import os, select, socket, sys
path, gate, req = sys.argv[1], sys.argv[2], sys.argv[3]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)  # failure timeout only
    s.connect(path)
    return s
def line(s):
    b = b""
    while not b.endswith(b"\n"):
        d = s.recv(1)
        if not d:
            return "EOF"
        b += d
    return b.decode().strip()
a = conn()
a.sendall(req.encode() + b"\nstats\n")
b = conn()
b.sendall(b"stats\n")
print("other:", line(b)[:8])
# The job is held at the gate: its requester has nothing yet.
r, _, _ = select.select([a], [], [], 0)
print("requester answered before the gate:", "yes" if r else "no")
if r:  # not held: the job did not wait for the gate (ran on the loop)
    sys.exit(0)
c = conn()
c.sendall(b"snapshot\nki-reset counters 1\ninfo\n")
print("second:", line(c))
print("second:", line(c))
print("after:", line(c)[:14])
g = os.open(gate, os.O_WRONLY)  # the job opened it for reading
os.write(g, b"go\n")
os.close(g)
print("requester:", line(a))
print("then:", line(a)[:8])
EOF2
python3 "$E2E/client.py" "$S" "$E2E/gate" snapshot > "$E2E/snap.out"
cat "$E2E/snap.out"
busy='{"error":"snapshot: a snapshot or ki-reset is running already; ask again once it has answered"}'
e2e_expect "snapshot: answer to another client" "$(sed -n 1p "$E2E/snap.out")" 'other: {"name":'
e2e_expect "snapshot: held" "$(sed -n 2p "$E2E/snap.out")" 'requester answered before the gate: no'
e2e_expect "a second snapshot" "$(sed -n 3p "$E2E/snap.out")" "second: $busy"
e2e_expect "a ki-reset meanwhile" "$(sed -n 4p "$E2E/snap.out")" \
	'second: {"error":"ki-reset: a snapshot or ki-reset is running already; ask again once it has answered"}'
e2e_expect "the refused client goes on" "$(sed -n 5p "$E2E/snap.out")" 'after: {"structures":'
sed -n 6p "$E2E/snap.out" | grep -q '^requester: {"saved":\["[^"]*counters[^"]*"\],"failed":\[\],"ok":true}$' ||
	{ echo "FAIL: the snapshot's answer" >&2; exit 1; }
e2e_expect "then the request after it" "$(sed -n 7p "$E2E/snap.out")" 'then: {"name":'
e2e_expect "snapshots" "$(e2e_coll_stat snapshots)" 1

python3 "$E2E/client.py" "$S" "$E2E/gate" "ki-reset counters 1" > "$E2E/ki.out"
cat "$E2E/ki.out"
e2e_expect "ki-reset: answer to another client" "$(sed -n 1p "$E2E/ki.out")" 'other: {"name":'
e2e_expect "ki-reset: held" "$(sed -n 2p "$E2E/ki.out")" 'requester answered before the gate: no'
e2e_expect "a snapshot meanwhile" "$(sed -n 3p "$E2E/ki.out")" "second: $busy"
e2e_expect "ki-reset's answer" "$(sed -n 6p "$E2E/ki.out")" 'requester: {"ok":true}'
e2e_expect "then the request after it" "$(sed -n 7p "$E2E/ki.out")" 'then: {"name":'

# SIGTERM while a snapshot is held: the collector waits for it, then
# writes its shutdown snapshot and exits 0.
"$QUERY" --socket "$S" snapshot > "$E2E/term.out" 2>&1 &
qpid=$!
i=0
until grep -q '"clients":2,' "$E2E/st.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: no snapshot client" >&2; exit 1; }
	e2e_query stats > "$E2E/st.out" || true
	sleep 0.1
done
kill -TERM "$E2E_CPID"
until grep -q 'waiting for a snapshot or ki-reset to finish' "$E2E/collector.log"; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: no wait at shutdown" >&2; exit 1; }
	sleep 0.1
done
kill -0 "$E2E_CPID" || { echo "FAIL: the collector did not wait" >&2; exit 1; }
echo go > "$E2E/gate"
p=$E2E_CPID
E2E_CPID=
wait "$p"
echo "ok: the collector exited 0 after its snapshot"
wait $qpid || true
grep -q 'snapshots written to' "$E2E/collector.log"
e2e_pass
