#!/bin/sh
# dta-export's NATS JetStream sink against a real 3-node JetStream cluster
# (Debian's nats-server) on loopback: rows published through the sink
# (tests/tools/nats_probe.c), the stream leader killed with SIGKILL
# mid-stream, publishing continued, then the stream read back: every row
# present exactly once with its content, nothing else (docs/export.md
# "NATS JetStream"). No timing asserts: the sink answers -EAGAIN while
# the cluster elects a new leader and the batch is sent again; the
# duplicate window drops what had been stored already.
. "$(dirname "$0")/lib.sh"
e2e_init nats_cluster "$1"

NATS=$(command -v nats-server || echo /usr/sbin/nats-server)
PROBE=$BUILD/tests/nats_probe
if [ ! -x "$NATS" ]; then
	echo "SKIP: nats-server not installed (apt-get install nats-server)"
	exit 77
fi
if [ ! -x "$PROBE" ]; then
	echo "SKIP: built without libnats (apt-get install libnats-dev): no NATS sink"
	exit 77
fi

N=${DTA_NATS_ROWS:-20000}
BATCH=500
STREAM=DTAE2E
PREFIX=dta.e2e
# Six ports under the ephemeral range, apart from lib.sh's E2E_PORT range.
BASE=$((20000 + ($$ % 2000) * 6))
URLS=
for k in 1 2 3; do
	port=$((BASE + k - 1))
	URLS="$URLS${URLS:+,}nats://127.0.0.1:$port"
done
for k in 1 2 3; do
	routes=
	for j in 1 2 3; do
		[ $j = $k ] || routes="$routes${routes:+, }nats-route://127.0.0.1:$((BASE + 2 + j))"
	done
	mkdir -m 700 "$E2E/js$k"
	cat > "$E2E/n$k.conf" <<EOF2
server_name: n$k
listen: 127.0.0.1:$((BASE + k - 1))
jetstream {
	store_dir: "$E2E/js$k"
	max_memory_store: 64MB
	max_file_store: 1GB
}
cluster {
	name: dtae2e
	listen: 127.0.0.1:$((BASE + 2 + k))
	routes: [ $routes ]
}
EOF2
	"$NATS" -c "$E2E/n$k.conf" > "$E2E/n$k.log" 2>&1 &
	eval "PID_n$k=$!"
	E2E_PIDS="$E2E_PIDS $!"
done
for k in 1 2 3; do
	eval "pid=\$PID_n$k"
	until grep -q "Server is ready" "$E2E/n$k.log"; do
		kill -0 "$pid" 2>/dev/null || { echo "FAIL: nats-server n$k exited"; exit 1; }
		sleep 0.1
	done
done

cat > "$E2E/dta.conf" <<EOF2
[export]
nats_url = $URLS
nats_stream = $STREAM
nats_subject = $PREFIX
EOF2

# Publish; after half the rows the probe pauses until the leader is dead.
"$PROBE" publish "$E2E/dta.conf" "$N" $BATCH $((N / 2)) "$E2E/paused" "$E2E/go" \
	> "$E2E/publish.out" 2> "$E2E/publish.log" &
PPID_=$!
E2E_PIDS="$E2E_PIDS $PPID_"
while [ ! -f "$E2E/paused" ]; do
	kill -0 $PPID_ 2>/dev/null || { cat "$E2E/publish.log"; echo "FAIL: probe died"; exit 1; }
	sleep 0.1
done
LEADER=$("$PROBE" leader "$URLS" $STREAM)
case $LEADER in
n1 | n2 | n3) ;;
*) echo "FAIL: stream leader '$LEADER'"; exit 1 ;;
esac
eval "VICTIM=\$PID_$LEADER"
kill -KILL "$VICTIM"
wait "$VICTIM" 2>/dev/null || true
echo "killed the stream's leader $LEADER (pid $VICTIM) after $((N / 2)) rows"
touch "$E2E/go"
rc=0
wait $PPID_ || rc=$?
echo "sink: $(cat "$E2E/publish.out")"
if [ $rc -ne 0 ]; then
	cat "$E2E/publish.log"
	echo "FAIL: publishing through the sink failed"
	exit 1
fi

# Read back from a surviving server.
ALIVE=
for k in 1 2 3; do
	[ "n$k" = "$LEADER" ] || ALIVE="$ALIVE${ALIVE:+,}nats://127.0.0.1:$((BASE + k - 1))"
done
rc=0
"$PROBE" check "$ALIVE" $STREAM $PREFIX "$N" > "$E2E/check.out" 2> "$E2E/check.log" || rc=$?
echo "stream: $(cat "$E2E/check.out")"
if [ $rc -ne 0 ]; then
	cat "$E2E/check.log" "$E2E/publish.log"
	echo "FAIL: the stream does not hold every row exactly once"
	exit 1
fi
grep -q " replicas 3$" "$E2E/check.out" || { echo "FAIL: stream not created with 3 replicas"; exit 1; }
e2e_pass
