#!/bin/sh
# dta-export's NATS JetStream sink against a real 3-node JetStream cluster
# (Debian's nats-server) on loopback: rows published through the sink
# (tests/tools/nats_probe.c), the stream leader killed with SIGKILL
# mid-stream, publishing continued, then the stream read back: every row
# present exactly once with its content, nothing else (docs/export.md
# "NATS JetStream"); every row sent once more is dropped as a duplicate
# by its Nats-Msg-Id. No timing asserts: the sink answers -EAGAIN while
# the cluster elects a new leader and the batch is sent again; the
# duplicate window drops what had been stored already.
. "$(dirname "$0")/lib.sh"
e2e_init nats_cluster "$1"
. "$(dirname "$0")/nats.inc"
nats_need

N=${DTA_NATS_ROWS:-20000}
BATCH=500
STREAM=DTAE2E
PREFIX=dta.e2e
nats_cluster_start
cat > "$E2E/dta.conf" <<EOF2
[export]
nats_url = $NATS_URLS
nats_stream = $STREAM
nats_subject = $PREFIX
EOF2

# Publish; after half the rows the probe pauses until the leader is dead.
"$PROBE" publish "$E2E/dta.conf" "$N" $BATCH $((N / 2)) "$E2E/paused" "$E2E/go" \
	> "$E2E/publish.out" 2> "$E2E/publish.log" &
probe=$!
E2E_PIDS="$E2E_PIDS $probe"
while [ ! -f "$E2E/paused" ]; do
	kill -0 $probe 2>/dev/null || { cat "$E2E/publish.log"; echo "FAIL: probe died"; exit 1; }
	sleep 0.1
done
nats_kill_leader $STREAM
touch "$E2E/go"
rc=0
wait $probe || rc=$?
echo "sink: $(cat "$E2E/publish.out")"
if [ $rc -ne 0 ]; then
	cat "$E2E/publish.log"
	echo "FAIL: publishing through the sink failed"
	exit 1
fi

# A batch sent again (what dta-export's core does after a failure or a
# restart from its last saved cursor) is acknowledged as a duplicate and
# not stored again: send every row once more, in other batches.
"$PROBE" publish "$E2E/dta.conf" "$N" 700 > "$E2E/again.out" 2> "$E2E/again.log" ||
	{ cat "$E2E/again.log"; echo "FAIL: publishing again failed"; exit 1; }
echo "sink, every row again: $(cat "$E2E/again.out")"
grep -q " duplicates $N " "$E2E/again.out" ||
	{ echo "FAIL: JetStream did not report all $N rows sent again as duplicates"; exit 1; }

# Read back from a surviving server.
rc=0
"$PROBE" check "$NATS_ALIVE" $STREAM $PREFIX "$N" > "$E2E/check.out" 2> "$E2E/check.log" || rc=$?
echo "stream: $(cat "$E2E/check.out")"
if [ $rc -ne 0 ]; then
	cat "$E2E/check.log" "$E2E/publish.log"
	echo "FAIL: the stream does not hold every row exactly once"
	exit 1
fi
grep -q " replicas 3$" "$E2E/check.out" || { echo "FAIL: stream not created with 3 replicas"; exit 1; }
e2e_pass
