#!/bin/sh
# Key-Increment epochs end to end (docs/layouts.md "Epochs"): a translator
# switches banks every 2 s by the wall clock, the collector closes each
# epoch into a file (0600, in a 0700 directory) and resets its bank. The
# exact invariant, whatever the machine's speed: row 0's sum over every
# epoch file plus both live banks equals every increment sent (each
# increment adds to exactly one counter of row 0). Also every key's
# estimate summed over the epochs' files is at least its true sum.
. "$(dirname "$0")/lib.sh"
e2e_init ki_epochs "$1"
PY=/usr/bin/python3
CHECK=$(dirname "$0")/epoch_check.py
WIDTH=4096
ROWS=3
{
	e2e_conf_head | sed "s/^\[collector\]\$/&\nmetrics_listen = 127.0.0.1:$E2E_TCP0/"
	e2e_epoch_counters $WIDTH $ROWS
} > "$E2E/dta.conf"
EPOCHS=$E2E/snapshots/epochs
e2e_start_collector
e2e_start_translator
echo 0 > "$E2E/sent"

t_lo=$(date +%s%N)
total=0
# About 5 s of reports, over 3 or more epochs.
for s in 1 2 3 4 5; do
	e2e_gen -t ki -n 2000 -k 200 -s $s -r 2000 -T "$E2E/ki$s.truth"
	total=$((total + $(awk '$1 == "ki" { s += $3 } END { print s + 0 }' "$E2E/ki$s.truth")))
done
t_hi=$(date +%s%N)
e2e_stop_translator

# The epochs close a grace period (0.5 s) after they end: wait until the
# files hold every increment (at most e2e_retry's 60 s).
in_files() { $PY "$CHECK" sum "$EPOCHS" counters $WIDTH; }
all_in_files() { [ "$(in_files)" = "$total" ]; }
e2e_retry all_in_files || true
e2e_query snapshot > /dev/null
files_sum=$(in_files)
banks_sum=$($PY "$CHECK" banks "$E2E/snapshots/counters.dta" $ROWS $WIDTH)
e2e_query stats > "$E2E/stats.json"
if [ $((files_sum + banks_sum)) != "$total" ] || [ "$banks_sum" != 0 ]; then
	echo "FAIL: sent $total increments; epoch files hold $files_sum, the" \
	     "live banks $banks_sum" >&2
	cat "$E2E/stats.json" >&2
	ls -l "$EPOCHS" >&2
	exit 1
fi
echo "ok: $total increments = $files_sum in epoch files + $banks_sum in the banks"
echo "ok: every row sums to $total: $($PY "$CHECK" rows "$EPOCHS" counters $WIDTH $ROWS "$E2E/snapshots/counters.dta" "$total")"

n=$($PY "$CHECK" files "$EPOCHS" counters "$t_lo" "$t_hi" 2)
[ "$n" -ge 2 ] || { echo "FAIL: $n epoch files, want 2 or more" >&2; exit 1; }
echo "ok: $n epoch files, each 0600 and named after its epoch"
e2e_expect "epoch directory mode" "$(stat -c %a "$EPOCHS")" 700

# The collector's counters agree with the files.
grep -q "\"increments\":$total," "$E2E/stats.json" ||
	{ echo "FAIL: stats do not count $total increments" >&2; cat "$E2E/stats.json" >&2; exit 1; }
grep -q '"failed_dir":0,"failed_write":0,"failed_memory":0' "$E2E/stats.json" ||
	{ echo "FAIL: epoch close failures counted" >&2; cat "$E2E/stats.json" >&2; exit 1; }
closed=$(e2e_json_num closed < "$E2E/stats.json")
[ "$closed" -ge "$n" ] || { echo "FAIL: $closed epochs closed < $n files" >&2; exit 1; }
curl -s "http://127.0.0.1:$E2E_TCP0/metrics" > "$E2E/metrics.txt"
grep -q "^dta_collector_epoch_increments_total{collector=\"[^\"]*\"} $total\$" "$E2E/metrics.txt"
grep -q '^dta_collector_epoch_close_failures_total{.*cause="write"} 0$' "$E2E/metrics.txt"

# Per key: the estimates of every epoch holding it sum to at least its
# true sum (count-min never underestimates, epoch by epoch).
cat "$E2E"/ki*.truth | awk '$1 == "ki" { t[$2] += $3 } END { for (k in t) print k, t[k] }' |
	sort > "$E2E/truth.sum"
# One estimate per line, in the order of the keys asked.
awk '{ print 0 }' "$E2E/truth.sum" > "$E2E/est.sum"
for f in "$EPOCHS"/counters.*.epoch; do
	# shellcheck disable=SC2046
	"$QUERY" epoch "$f" $(awk '{ print "0x" $1 }' "$E2E/truth.sum") |
		awk '{ print $NF }' | paste -d' ' "$E2E/est.sum" - |
		awk '{ print $1 + $2 }' > "$E2E/est.new"
	mv "$E2E/est.new" "$E2E/est.sum"
done
paste -d' ' "$E2E/truth.sum" "$E2E/est.sum" > "$E2E/joined"
e2e_expect "keys with estimates" "$(awk 'NF == 3' "$E2E/joined" | wc -l)" "$(wc -l < "$E2E/truth.sum")"
under=$(awk '$3 < $2' "$E2E/joined" | wc -l)
e2e_expect "keys estimated below their true sum" "$under" 0
e2e_stop_collector
e2e_pass
