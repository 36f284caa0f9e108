#!/bin/sh
# dta-export of Key-Increment epochs into ClickHouse (docs/export.md
# "Epochs"): a collector closes 2-second epochs into files, dta-export
# turns each file into rows and deletes it only once ClickHouse accepted
# them all. Exactly, whatever the machine's speed: row 0's count summed
# over the rows in ClickHouse (FINAL), plus the files not yet exported,
# plus both live banks, equals every increment sent; every row id
# (collector, epoch, row, column) is distinct. Then with ClickHouse killed:
# the files stay until it is back, and the same holds after.
. "$(dirname "$0")/lib.sh"
e2e_need_clickhouse
EXPORT=$1/export/dta-export
[ -x "$EXPORT" ] || { echo "SKIP: dta-export not built (libcurl missing)"; exit 77; }
e2e_init export_epochs "$1"
PY=/usr/bin/python3
CHECK=$(dirname "$0")/epoch_check.py
WIDTH=2048
ROWS=2
set -- $(e2e_free_ports 4)
HTTP=$1 TCP=$2 IS=$3 METRICS=$4

# One ClickHouse server, its own cluster "dta" of one shard.
CHD=$E2E/ch
e2e_ch_conf "$CHD" $HTTP $TCP $IS
ch_start() {
	e2e_ch_start "$CHD" $HTTP
	CH_PID=$E2E_CH_PID
}
chq() { "$CHC" --port "$TCP" -q "$1"; }
ch_start

{
	e2e_conf_head
	e2e_epoch_counters $WIDTH $ROWS
	cat <<EOF

[export]
clickhouse_url = http://127.0.0.1:$HTTP
state_dir = $E2E/state
flush_ms = 200
poll_ms = 20
metrics_listen = 127.0.0.1:$METRICS
EOF
} > "$E2E/dta.conf"
"$EXPORT" -c "$E2E/dta.conf" --print-schema > "$E2E/ddl.sql"
grep -q 'ORDER BY (collector, epoch, row, column)' "$E2E/ddl.sql"
"$CHC" --port "$TCP" --multiquery < "$E2E/ddl.sql"

EPOCHS=$E2E/snapshots/epochs
e2e_start_collector
e2e_start_translator
echo 0 > "$E2E/sent"
"$EXPORT" -c "$E2E/dta.conf" >> "$E2E/export.log" 2>&1 &
EXP_PID=$!
E2E_PIDS="$E2E_PIDS $!"

total=0
gen() { # SEED: about 1 s of reports
	e2e_gen -t ki -n 1500 -k 150 -s "$1" -r 1500 -T "$E2E/ki$1.truth"
	total=$((total + $(awk '$1 == "ki" { s += $3 } END { print s + 0 }' "$E2E/ki$1.truth")))
}
in_ch() { chq "SELECT sum(count) FROM dta_counters FINAL WHERE row = 0"; }
in_files() { $PY "$CHECK" sum "$EPOCHS" counters $WIDTH 2>/dev/null || echo 0; }
files_left() { ls "$EPOCHS" 2>/dev/null | grep -c '\.epoch$' || true; }
all_in_ch() { [ "$(in_ch)" = "$total" ] && [ "$(files_left)" = 0 ]; }
check() { # WHAT
	e2e_retry all_in_ch || true
	e2e_query snapshot > /dev/null
	c=$(in_ch)
	f=$(in_files)
	b=$($PY "$CHECK" banks "$E2E/snapshots/counters.dta" $ROWS $WIDTH)
	if [ $((c + f + b)) != "$total" ]; then
		echo "FAIL: $1: sent $total increments; ClickHouse holds $c," \
		     "files $f, the banks $b" >&2
		e2e_query stats >&2
		curl -s "http://127.0.0.1:$METRICS/metrics" | grep -v '^#' >&2
		tail -20 "$E2E/export.log" >&2
		exit 1
	fi
	echo "ok: $1: $total increments = $c in ClickHouse + $f in files + $b in the banks"
	chq "SELECT row, sum(count) FROM dta_counters FINAL GROUP BY row" > "$E2E/ch_rows"
	echo "ok: $1: every row sums to $total: $($PY "$CHECK" rows "$EPOCHS" counters $WIDTH $ROWS "$E2E/snapshots/counters.dta" "$total" "$E2E/ch_rows")"
	e2e_expect "$1: epoch files left" "$(files_left)" 0
	r=$(chq "SELECT count() FROM dta_counters FINAL")
	e2e_expect "$1: distinct row ids" \
		"$(chq "SELECT uniqExact(collector, epoch, row, column) FROM dta_counters FINAL")" "$r"
	e2e_expect "$1: rows not of this collector and structure" \
		"$(chq "SELECT count() FROM dta_counters FINAL WHERE collector != 'e2e-export_epochs-$$' OR structure != 'counters' OR epoch_start_ns != epoch * 2000000000 OR epoch_len_ns != 2000000000 OR time_ns != epoch_start_ns + epoch_len_ns")" 0
}

for s in 1 2 3; do gen $s; done
check "plain"
epochs_ch=$(chq "SELECT uniqExact(epoch) FROM dta_counters")
[ "$epochs_ch" -ge 2 ] || { echo "FAIL: rows of $epochs_ch epochs, want 2 or more" >&2; exit 1; }

# ClickHouse down: epochs close, their files stay until it is back.
kill -KILL $CH_PID
wait $CH_PID 2>/dev/null || true
closed0=$(e2e_coll_stat files)
for s in 4 5 6; do gen $s; done
more_files() {
	[ "$(e2e_coll_stat files)" -gt "$closed0" ]
}
e2e_retry more_files
n=$(files_left)
[ "$n" -ge 1 ] || { echo "FAIL: epoch files deleted while ClickHouse was down" >&2; exit 1; }
echo "ok: $n epoch file(s) kept while ClickHouse is down"
ch_start
check "ClickHouse restarted"
e2e_stop_translator
kill -TERM $EXP_PID
wait $EXP_PID || { echo "FAIL: dta-export exit status $?" >&2; cat "$E2E/export.log" >&2; exit 1; }
e2e_stop_collector
e2e_pass
