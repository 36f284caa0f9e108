#!/bin/sh
# dta-export into a 2-shard ClickHouse cluster (docs/export.md): two
# clickhouse-server processes on loopback (own directories and ports, a
# remote_servers cluster "dta" of both), the tables of dta-export
# --print-schema on each, a collector, a translator and dta-export. Every
# Append entry dta-gen sends is found exactly once by SELECT ... FINAL
# over the Distributed tables, or counted lost by the exporter with its
# cause, exactly: rows = entries sent - counted lost, every row's id
# (collector, list, position) and entry distinct, every entry one dta-gen
# sent, the schema's fields decoded from it. Then the same across
# faults: one ClickHouse server killed (SIGKILL) mid-stream and
# restarted, dta-export killed (SIGKILL) mid-stream and restarted (it
# resumes from its saved cursors), and the collector restarted (the
# exporter reconnects), with its memory restored and without; and both
# ClickHouse servers down longer than the buffer lasts (losses counted
# with cause buffer_full). INT drop events are exported with the fields of
# their built-in schema. No timing asserts: conditions are
# waited for with generous bounds, counters printed on failure.
. "$(dirname "$0")/lib.sh"
e2e_need_clickhouse
EXPORT=$1/export/dta-export
[ -x "$EXPORT" ] || { echo "SKIP: dta-export not built (libcurl missing)"; exit 77; }
e2e_init export_clickhouse "$1"

# Ports: HTTP, native, interserver for each server, and metrics: ones
# the kernel gives out as free now (other tests run beside this one).
set -- $(e2e_free_ports 7)
HTTP_A=$1 TCP_A=$2 IS_A=$3 HTTP_B=$4 TCP_B=$5 IS_B=$6 METRICS=$7

ch_start() { # NAME HTTP
	e2e_ch_start "$E2E/ch_$1" "$2"
	eval "CH_PID_$1=$E2E_CH_PID"
}

# One query against server A (the Distributed tables span both).
chq() { "$CHC" --port "$TCP_A" -q "$1"; }

INT_PORT=$((E2E_PORT + 1))
e2e_ch_conf "$E2E/ch_a" $HTTP_A $TCP_A $IS_A $TCP_A $TCP_B
e2e_ch_conf "$E2E/ch_b" $HTTP_B $TCP_B $IS_B $TCP_A $TCP_B
ch_start a $HTTP_A
ch_start b $HTTP_B

{
	e2e_conf_head
	cat <<EOF
[structure events]
primitive = append
lists = 8
entry = 16
batches = 64
batch = 8
schema = n:u32, flow:u16[2], pad:bytes[4], z:i32le

[int]
port = $INT_PORT
events = intev

[structure intev]
primitive = append
entry = 32
lists = 1
first_list = 100
batches = 1024
batch = 4

[export]
clickhouse_url = http://127.0.0.1:$HTTP_A, http://127.0.0.1:$HTTP_B
state_dir = $E2E/state
batch_rows = 4096
flush_ms = 200
poll_ms = 10
buffer_rows = 200000
metrics_listen = 127.0.0.1:$METRICS
EOF
} > "$E2E/dta.conf"
# The tables, on each server.
"$EXPORT" -c "$E2E/dta.conf" --print-schema > "$E2E/ddl.sql"
grep -q 'ReplacingMergeTree' "$E2E/ddl.sql"
"$CHC" --port $TCP_A --multiquery < "$E2E/ddl.sql"
"$CHC" --port $TCP_B --multiquery < "$E2E/ddl.sql"

e2e_start_collector
e2e_start_translator

exp_start() { # [CONFIG]
	"$EXPORT" -c "${1:-$E2E/dta.conf}" >> "$E2E/export.log" 2>&1 &
	EXP_PID=$!
	E2E_PIDS="$E2E_PIDS $!"
	i=0
	until curl -sf "http://127.0.0.1:$METRICS/metrics" > /dev/null 2>&1; do
		i=$((i + 1))
		kill -0 $EXP_PID 2>/dev/null || { echo "FAIL: dta-export exited" >&2; cat "$E2E/export.log" >&2; exit 1; }
		[ $i -le 600 ] || { echo "FAIL: dta-export did not serve metrics" >&2; exit 1; }
		sleep 0.1
	done
}
# A sample of the exporter's metrics (summed over labels).
metric() {
	curl -sf "http://127.0.0.1:$METRICS/metrics" |
		awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $2 } END { printf "%d\n", s }'
}
sent=0 # entries the translator applied (every report sent: loss-free)
gen() { # N RATE
	e2e_gen -t ap -n "$1" --lists 8 --entry 16 -r "$2" -s $((sent + 1)) \
		-T "$E2E/t$sent.truth"
	sent=$((sent + $1))
}
rows() { chq "SELECT count() FROM dta_events FINAL"; }
# Every sent entry is a row or counted lost: wait for rows = sent - lost.
settled() {
	lost=$(metric dta_export_lost_total)
	r=$(rows)
	[ "$r" -eq $((sent - lost)) ] && [ "$(metric dta_export_buffer_rows)" -eq 0 ]
}
wait_settled() { # WHAT
	i=0
	until settled; do
		i=$((i + 1))
		if [ $i -gt 1200 ]; then
			echo "FAIL: $1: $(rows) rows, $sent sent, $(metric dta_export_lost_total) counted lost" >&2
			curl -s "http://127.0.0.1:$METRICS/metrics" | grep -v '^#' >&2
			tail -20 "$E2E/export.log" >&2
			exit 1
		fi
		sleep 0.1
	done
}
check() { # WHAT
	lost=$(metric dta_export_lost_total)
	r=$(rows)
	e2e_expect "$1: rows + counted lost" $((r + lost)) $sent
	e2e_expect "$1: distinct row ids" \
		"$(chq "SELECT uniqExact(collector, list, position) FROM dta_events FINAL")" "$r"
	# Every row is an entry dta-gen sent (as multisets: runs may repeat
	# an entry), its fields decoded from it.
	cat "$E2E"/t*.truth | awk '$1 == "ap" { print toupper($3) }' | sort > "$E2E/want"
	chq "SELECT hex(entry) FROM dta_events FINAL" | sort > "$E2E/got"
	e2e_expect "$1: rows not sent" "$(comm -13 "$E2E/want" "$E2E/got" | wc -l)" 0
	chq "SELECT hex(entry), n, flow, hex(pad), z FROM dta_events FINAL" > "$E2E/fields"
	e2e_expect "$1: fields not matching the entry" "$(/usr/bin/python3 -c '
import sys
bad = 0
for line in open(sys.argv[1]):
    h, n, flow, pad, z = line.rstrip("\n").split("\t")
    b = bytes.fromhex(h)
    want = (str(int.from_bytes(b[0:4], "big")),
            "[%d,%d]" % (int.from_bytes(b[4:6], "big"), int.from_bytes(b[6:8], "big")),
            b[8:12].hex().upper(), str(int.from_bytes(b[12:16], "little", signed=True)))
    bad += (n, flow, pad, z) != want
print(bad)' "$E2E/fields")" 0
	e2e_expect "$1: rows of a list not its collector's" "$(chq "SELECT count() FROM dta_events FINAL
		WHERE collector != 'e2e-export_clickhouse-$$' OR list > 7 OR structure != 'events'")" 0
	echo "$1: $sent sent, $r rows, $lost counted lost"
}

exp_start
# 1. A plain run.
gen 20000 20000
wait_settled "plain"
check "plain"
# The process_* families every daemon serves (docs/metrics.md "Process").
e2e_expect "dta-export's process_max_fds" "$(metric process_max_fds)" \
	"$(awk '/^Max open files/ { print $4 }' /proc/$EXP_PID/limits)"
# Each shard holds the lists the sharding key gives it (shard index =
# cityHash64(collector, list) mod 2, both weighing 1), together all rows.
sum=0
idx=0
for p in $TCP_A $TCP_B; do
	e2e_expect "rows on shard $idx of another shard's lists" "$("$CHC" --port $p -q \
		"SELECT count() FROM dta_events_local WHERE cityHash64(collector, list) % 2 != $idx")" 0
	sum=$((sum + $("$CHC" --port $p -q "SELECT count() FROM dta_events_local FINAL")))
	idx=$((idx + 1))
done
e2e_expect "rows over both shards" $sum "$(rows)"

# gen N RATE in the background (GEN_PID), returning once rows arrive
# (or after 30 s): what follows happens mid-stream.
gen_midstream() {
	gen "$1" "$2" &
	GEN_PID=$!
	i=0
	r0=$(rows)
	until [ "$(rows)" -gt "$r0" ] || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.05; done
}

# 2. A ClickHouse server killed mid-stream, restarted later.
f0=$(metric dta_export_sink_failures_total)
gen_midstream 10000 20000
kill -KILL $CH_PID_b
wait $CH_PID_b 2>/dev/null || true
wait $GEN_PID
sent=$((sent + 10000))
gen 5000 20000
# The exporter notices (its inserts fail) before the server is back.
i=0
until [ "$(metric dta_export_sink_failures_total)" -gt "$f0" ]; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: no failed insert with a shard down" >&2; exit 1; }
	sleep 0.1
done
ch_start b $HTTP_B
wait_settled "shard restarted"
check "shard restarted"

# 3. dta-export killed mid-stream, restarted: resumes from its cursors.
gen_midstream 20000 10000
kill -KILL $EXP_PID
wait $EXP_PID 2>/dev/null || true
exp_start
wait $GEN_PID
sent=$((sent + 20000))
wait_settled "exporter restarted"
check "exporter restarted"
# 4. The collector restarted (its snapshot restored): the exporter opens
# its source again, each list where it stopped reading.
e2e_stop_collector
e2e_start_collector --restore
i=0
until [ "$(metric dta_export_source_reconnects_total)" -ge 1 ] &&
	[ "$(metric dta_export_source_up)" -eq 1 ]; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: dta-export did not reconnect" >&2; tail "$E2E/export.log" >&2; exit 1; }
	sleep 0.1
done
gen 10000 20000
wait_settled "collector restarted"
check "collector restarted"
# 5. The collector restarted without its memory: its lists start over at
# entry 0, behind the exporter's cursors; what the new collector holds is
# read on (positions going on, so ids stay distinct), nothing skipped.
r0=$(metric dta_export_source_reconnects_total)
e2e_stop_collector
e2e_start_collector
gen 4000 20000
i=0
until [ "$(metric dta_export_source_reconnects_total)" -gt "$r0" ]; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: dta-export did not reconnect" >&2; tail "$E2E/export.log" >&2; exit 1; }
	sleep 0.1
done
gen 4000 20000
wait_settled "collector started over"
check "collector started over"
# 6. Both ClickHouse servers down while events keep coming, with a buffer
# smaller than what comes: the exporter fills its buffer, stops reading,
# the rings overwrite; those entries are counted with cause buffer_full.
e2e_term $EXP_PID dta-export
sed 's/^buffer_rows = .*/buffer_rows = 1000/; s/^batch_rows = .*/batch_rows = 500/' \
	"$E2E/dta.conf" > "$E2E/small.conf"
exp_start "$E2E/small.conf"
kill -KILL $CH_PID_a $CH_PID_b
wait $CH_PID_a $CH_PID_b 2>/dev/null || true
gen 8000 20000
ch_start a $HTTP_A
ch_start b $HTTP_B
wait_settled "buffer full"
check "buffer full"
full=$(curl -sf "http://127.0.0.1:$METRICS/metrics" |
	awk '/^dta_export_lost_total\{.*cause="buffer_full"/ { s += $2 } END { print s + 0 }')
[ "$full" -gt 0 ] || { echo "FAIL: no loss counted as buffer_full" >&2
	curl -s "http://127.0.0.1:$METRICS/metrics" | grep lost >&2; exit 1; }
echo "ok: $full entries lost while the buffer was full, counted as such"
# 7. INT drop events (Append entries with the built-in event schema):
# each one a row or counted lost, its fields (the reporter's "time" in
# column field_time) decoded from its bytes.
"$GEN" -t int-drop -n 3000 -r 20000 -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" \
	-T "$E2E/int.truth" 2> "$E2E/gen.last" || { cat "$E2E/gen.last"; exit 1; }
want=$(grep -c '^int-event' "$E2E/int.truth")
i=0
until lost=$(curl -sf "http://127.0.0.1:$METRICS/metrics" |
		awk '/^dta_export_lost_total\{.*structure="intev"/ { s += $2 } END { print s + 0 }') &&
	[ $(($(chq "SELECT count() FROM dta_intev FINAL") + lost)) -eq "$want" ]; do
	i=$((i + 1))
	[ $i -le 1200 ] || { echo "FAIL: INT events: $(chq "SELECT count() FROM dta_intev FINAL") rows + $lost lost, $want sent" >&2; exit 1; }
	sleep 0.1
done
r=$(chq "SELECT count() FROM dta_intev FINAL")
[ "$r" -gt 0 ] || { echo "FAIL: no INT event exported" >&2; exit 1; }
awk '$1 == "int-event" { print toupper($NF) }' "$E2E/int.truth" | sort > "$E2E/want"
chq "SELECT hex(entry) FROM dta_intev FINAL" | sort > "$E2E/got"
e2e_expect "INT events not sent" "$(comm -13 "$E2E/want" "$E2E/got" | wc -l)" 0
e2e_expect "INT event fields not matching" "$(chq "SELECT count() FROM dta_intev FINAL
	WHERE reinterpretAsUInt32(reverse(substring(entry, 1, 4))) != switch_id
	   OR reinterpretAsUInt64(reverse(substring(entry, 25, 8))) != field_time
	   OR field_time = 0")" 0
echo "INT events: $want sent, $r rows, $lost counted lost"
[ "$(stat -c %a "$E2E/state")" = 700 ] && [ "$(stat -c %a "$E2E/state/cursors")" = 600 ] ||
	{ echo "FAIL: state modes $(stat -c %a "$E2E/state") $(stat -c %a "$E2E/state/cursors")" >&2; exit 1; }
e2e_term $EXP_PID dta-export
e2e_stop_translator
e2e_pass
