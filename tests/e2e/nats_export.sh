#!/bin/sh
# End to end into NATS JetStream: dta-gen -> dta-translator -> dta-collector
# -> dta-export -> a 3-node JetStream cluster (Debian's nats-server) on
# loopback. Append events are sent in three parts; while the exporter
# publishes the second, the stream's leader is killed with SIGKILL; while
# it publishes the third, dta-export itself is, and started again. Then
# every event sent is read back from the stream exactly once, in its
# list at its position, with the bytes dta-gen's truth file says
# (docs/export.md "NATS JetStream"). No timing asserts: the waits are for
# counts, bounded only so a broken run ends.
. "$(dirname "$0")/lib.sh"
e2e_init nats_export "$1"
. "$(dirname "$0")/nats.inc"
nats_need
EXPORT=$BUILD/export/dta-export
[ -x "$EXPORT" ] || { echo "SKIP: dta-export not built (libcurl missing)"; exit 77; }

HALF=15000
STREAM=DTAEXP
PREFIX=dta.exp
nats_cluster_start
COLL=e2e-$E2E_NAME-$$
{
	e2e_conf_head
	cat <<EOF2
[structure events]
primitive = append
lists = 3
first_list = 100
batches = 16384
entry = 8

[export]
structures = events
state_dir = $E2E/state
batch_rows = 1000
flush_ms = 100
poll_ms = 20
nats_url = $NATS_URLS
nats_stream = $STREAM
nats_subject = $PREFIX
EOF2
} > "$E2E/dta.conf"
mkdir -m 700 "$E2E/state"
e2e_start_collector
e2e_start_translator
"$EXPORT" -c "$E2E/dta.conf" --stats > "$E2E/export.out" 2> "$E2E/export.log" &
XPID=$!
E2E_PIDS="$E2E_PIDS $XPID"

stored() { "$PROBE" count "$NATS_URLS" $STREAM 2>/dev/null || echo 0; }
# Wait until the stream holds $1 messages (bounded: 5 minutes).
wait_stored() {
	i=0
	while [ "$(stored)" -lt "$1" ]; do
		i=$((i + 1))
		if [ $i -gt 3000 ] || ! kill -0 $XPID 2>/dev/null; then
			echo "FAIL: the stream holds $(stored) messages, want $1"
			tail -n 20 "$E2E/export.log"
			exit 1
		fi
		sleep 0.1
	done
}

e2e_gen -t ap -n $HALF --lists 3 --first-list 100 --entry 8 --batch 4 \
	-r 200000 -s 1 -T "$E2E/ap1.truth"
wait_stored $HALF
# The second half; the leader dies as soon as the exporter is publishing it.
e2e_gen -t ap -n $HALF --lists 3 --first-list 100 --entry 8 --batch 4 \
	-r 100000 -s 2 -T "$E2E/ap2.truth" &
gen=$!
while [ "$(stored)" -le $HALF ] && kill -0 $gen 2>/dev/null; do
	sleep 0.05
done
nats_kill_leader $STREAM
wait $gen
NATS_URLS=$NATS_ALIVE
wait_stored $((2 * HALF))

# A third part; dta-export is killed (SIGKILL) as soon as it publishes it
# and started again: it resumes at its saved cursors and sends again what
# it had published after the last save, which JetStream drops by
# Nats-Msg-Id.
e2e_gen -t ap -n $HALF --lists 3 --first-list 100 --entry 8 --batch 4 \
	-r 100000 -s 3 -T "$E2E/ap3.truth" &
gen=$!
while [ "$(stored)" -le $((2 * HALF)) ] && kill -0 $gen 2>/dev/null; do
	sleep 0.05
done
kill -KILL $XPID
wait $XPID 2>/dev/null || true
echo "killed dta-export with $(stored) messages stored"
"$EXPORT" -c "$E2E/dta.conf" --stats > "$E2E/export.out" 2>> "$E2E/export.log" &
XPID=$!
E2E_PIDS="$E2E_PIDS $XPID"
wait $gen
wait_stored $((3 * HALF))
e2e_term $XPID dta-export
echo "dta-export (after its restart): $(cat "$E2E/export.out")"
grep -c "rows not accepted" "$E2E/export.log" | sed 's/^/sink writes refused (then retried): /'
e2e_stop_translator

# Every event once, at its place, with its bytes.
"$PROBE" dump "$NATS_ALIVE" $STREAM $PREFIX > "$E2E/dump" 2> "$E2E/dump.log" ||
	{ cat "$E2E/dump.log"; echo "FAIL: cannot read the stream back"; exit 1; }
cat "$E2E/ap1.truth" "$E2E/ap2.truth" "$E2E/ap3.truth" | awk '$1 == "ap"' > "$E2E/truth"
awk -v coll="$COLL" -v prefix="$PREFIX" '
	FNR == NR { want[$2, n[$2]++] = $3; total++; next }
	{
		id = $1; subj = $2; list = $6; pos = $7; raw = $8
		got++
		if ($3 != "append" || $4 != coll || $5 != "events") { print "FAIL: wrong row: " $0; bad++; next }
		if (subj != prefix "." coll ".events") { print "FAIL: subject " subj; bad++ }
		if (id != coll "/events/a/" list "/" pos) { print "FAIL: Nats-Msg-Id " id " of " list "/" pos; bad++ }
		l = list + 100 # rows number lists from 0 over the structure
		if (((l, pos) in seen)) { print "FAIL: stored twice: " $0; dup++ }
		seen[l, pos] = 1
		if (!((l, pos) in want)) { print "FAIL: never sent: " $0; bad++ }
		else if (want[l, pos] != raw) { print "FAIL: " list "/" pos ": " raw ", sent " want[l, pos]; bad++ }
	}
	END {
		for (k in want) if (!(k in seen)) missing++
		printf "sent %d stored %d duplicates %d missing %d wrong %d\n", total, got, dup, missing, bad
		exit (got == total && !dup && !missing && !bad) ? 0 : 1
	}' "$E2E/truth" "$E2E/dump" > "$E2E/verdict" || { tail -n 12 "$E2E/verdict"; exit 1; }
cat "$E2E/verdict"
e2e_pass
