#!/bin/sh
# Losses by reporter and by structure (docs/metrics.md "Losses by reporter
# and structure"): dta-gen plays five switches (--source 127.0.0.1-.5) and
# each loses reports in a known way - malformed datagrams, reports of a
# size no structure takes, Append entries of the wrong size, a source
# outside allow, a sequence that skips 10 numbers. With reporter_labels =
# 2 the first two sources get a label each and the rest are summed under
# "other": the scrape must show exactly the numbers sent, per reporter
# and structure, at most 2 + 2 reporter values, and every breakdown must
# sum to its total exactly (loss_sums.py). Windows of --sync: no kernel
# drops by construction.
. "$(dirname "$0")/lib.sh"
e2e_init metrics_losses "$1"
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
INT_PORT=$((E2E_PORT + 1))
TM=$E2E_TCP0 # TCP
e2e_metrics_conf |
	sed -e "/^\[translator\]/a reporter_labels = 2" \
	    -e "/^\[translator\]/a allow = 127.0.0.0/30" > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator --metrics "$TM"
if grep -q 'no libmicrohttpd' "$E2E/translator.log"; then
	echo "SKIP: built without libmicrohttpd"
	exit 77
fi
rm -f "$E2E/sent" # losses by design: e2e_accounting does not apply

# 127.0.0.2 (first seen: a label): 200 Key-Write reports and 10 malformed
# datagrams
e2e_gen --source 127.0.0.2 -t kw -n 200 --reporter 11 --malformed 10
# 127.0.0.3 (second: a label): 50 reports of 8 bytes, no structure's size
e2e_gen --source 127.0.0.3 -t kw --data 8 -n 50 --reporter 12
# 127.0.0.1 (third: "other"): 30 Append entries of 4 bytes to "log",
# whose entries are 8
e2e_gen --source 127.0.0.1 -t ap --entry 4 --first-list 100 -n 30 --reporter 13
# 127.0.0.5 ("other"), outside allow: 20 datagrams refused
e2e_gen --source 127.0.0.5 -t kw -n 20 --reporter 14
# 127.0.0.2 again: reporter 15 sends 0-99, then 110-209: 100-109 lost
# (counted once 210 - 64 has passed them)
e2e_gen --source 127.0.0.2 -t kw -n 100 --reporter 15
e2e_gen --source 127.0.0.2 -t kw -n 100 --reporter 15 --seq 110

curl -fsS "http://127.0.0.1:$TM/metrics" > "$E2E/t.prom"
if command -v promtool > /dev/null; then
	promtool check metrics < "$E2E/t.prom" ||
		{ echo "FAIL: promtool check metrics" >&2; exit 1; }
fi
m() { # the value of sample $1 (name and labels as written)
	v=$(grep -F "$1 " "$E2E/t.prom" | sed 's/.* //')
	echo "${v:-absent}"
}
p=dta_translator_
# (dta-gen's malformed datagrams are of several causes: their sum)
e2e_expect "malformed from 127.0.0.2" \
	"$(grep "^${p}malformed_by_reporter_total{reporter=\"127.0.0.2\"," "$E2E/t.prom" |
	   awk '{ s += $2 } END { print s }')" 10
e2e_expect "malformed from 127.0.0.3" \
	"$(grep "^${p}malformed_by_reporter_total{reporter=\"127.0.0.3\"," "$E2E/t.prom" |
	   awk '{ s += $2 } END { print s }')" 0
e2e_expect "sequence gap of 127.0.0.2" \
	"$(m "${p}reports_lost_by_reporter_total{reporter=\"127.0.0.2\",cause=\"sequence_gap\"}")" 10
e2e_expect "unknown structure from 127.0.0.3" \
	"$(m "${p}reports_lost_by_reporter_total{reporter=\"127.0.0.3\",cause=\"unknown_structure\"}")" 50
e2e_expect "mismatch from other" \
	"$(m "${p}reports_lost_by_reporter_total{reporter=\"other\",cause=\"mismatch\"}")" 30
e2e_expect "refused from other" \
	"$(m "${p}datagrams_lost_by_reporter_total{reporter=\"other\",cause=\"refused_source\"}")" 20
coll=$(sed -n 's/^name = //p' "$E2E/dta.conf" | head -n 1)
e2e_expect "mismatch in structure log" \
	"$(m "${p}reports_lost_by_structure_total{structure=\"log\",collector=\"$coll\",cause=\"mismatch\"}")" 30
e2e_expect "mismatch in structure paths" \
	"$(m "${p}reports_lost_by_structure_total{structure=\"paths\",collector=\"$coll\",cause=\"mismatch\"}")" 0
# Nothing else lost anywhere: the other reporter values carry zeros.
e2e_expect "127.0.0.3 lost no datagram" \
	"$(m "${p}datagrams_lost_by_reporter_total{reporter=\"127.0.0.3\",cause=\"refused_source\"}")" 0
# Bounded: 2 sources, other, unknown - five sources sent.
e2e_expect "reporter label values" \
	"$(grep -o 'reporter="[^"]*"' "$E2E/t.prom" | sort -u | tr '\n' ' ')" \
	'reporter="127.0.0.2" reporter="127.0.0.3" reporter="other" reporter="unknown" '
python3 "$here/loss_sums.py" "$E2E/t.prom" ||
	{ grep 'lost\|malformed\|sink_errors' "$E2E/t.prom" >&2; exit 1; }
# The check can fail: a breakdown off by one is caught.
sed 's/^\(dta_translator_reports_lost_by_reporter_total{reporter="other",cause="mismatch"}\) 30$/\1 31/' \
	"$E2E/t.prom" > "$E2E/t.bad"
if python3 "$here/loss_sums.py" "$E2E/t.bad" > /dev/null; then
	echo "FAIL: loss_sums.py passed a breakdown that does not add up" >&2
	exit 1
fi
echo "ok: loss_sums.py refuses a breakdown off by one"

# reporter_labels = 0: no breakdown by reporter (and none of its cost);
# by structure still.
e2e_stop_translator
sed -i 's/^reporter_labels = 2$/reporter_labels = 0/' "$E2E/dta.conf"
e2e_start_translator --metrics "$TM"
curl -fsS "http://127.0.0.1:$TM/metrics" > "$E2E/t0.prom"
e2e_expect "series by reporter with reporter_labels = 0" \
	"$(grep -c '_by_reporter_total{' "$E2E/t0.prom")" 0
grep -q '^dta_translator_reports_lost_by_structure_total{structure="log"' "$E2E/t0.prom"
e2e_stop_translator
# Negative: a value outside 0-4096 is refused at start.
sed -i 's/^reporter_labels = 0$/reporter_labels = 4097/' "$E2E/dta.conf"
if "$TRANSLATOR" -c "$E2E/dta.conf" --metrics "$TM" > "$E2E/bad.out" 2>&1; then
	echo "FAIL: reporter_labels = 4097 accepted" >&2
	exit 1
fi
grep -q reporter_labels "$E2E/bad.out" ||
	{ cat "$E2E/bad.out"; echo "FAIL: the refusal does not name the key" >&2; exit 1; }
echo "ok: reporter_labels = 4097 refused: $(grep reporter_labels "$E2E/bad.out" | head -n 1)"
e2e_stop_collector
e2e_pass
