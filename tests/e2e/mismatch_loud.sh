#!/bin/sh
# Issue 24's case, loud (docs/operations.md "Configuration mismatches"):
# an Append structure of 8-byte entries in lists 0-3, as the example
# configuration's "events", and dta-gen's default 4-byte entries.
#  - dta-gen -c refuses to send them, naming the structure and both
#    sizes, exit 1; --allow-mismatch sends them;
#  - 100,000 such reports: the structure-labelled loss metric is exactly
#    100,000, the translator's log names the structure and both
#    geometries at once and then at most a line per 10 s;
#  - /health answers 503 "degraded: ..." while mismatched reports flow
#    (health_window_s = 2 here), and 200 "ok" again once a window of
#    correct ones has passed;
#  - at exit the summary is in the log.
# No timing asserts: every state is waited for (e2e_retry, 60 s); the
# bound on log lines is computed from the time the run actually took.
. "$(dirname "$0")/lib.sh"
e2e_init mismatch_loud "$1"
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }
TM=$E2E_TCP0 # TCP
{
	e2e_conf_head
	cat <<EOF2
health_loss_ratio = 0.01
health_window_s = 2

[structure events]
primitive = append
lists = 4
batches = 256
entry = 8
EOF2
} > "$E2E/dta.conf"
e2e_start_collector
t0=$(date +%s)
e2e_start_translator --metrics "$TM"
if grep -q 'no libmicrohttpd' "$E2E/translator.log"; then
	echo "SKIP: built without libmicrohttpd"
	exit 77
fi
health() { curl -s -o "$E2E/health.body" -w '%{http_code}' "http://127.0.0.1:$TM/health"; }
e2e_expect "health before any report" "$(health)" 200

# dta-gen knows from the configuration: refused, nothing sent.
if "$GEN" -c "$E2E/dta.conf" -d "127.0.0.1:$E2E_PORT" -t ap -n 10 \
	2> "$E2E/refused.err"; then
	echo "FAIL: dta-gen sent 4-byte entries to a structure of 8" >&2
	exit 1
fi
cat "$E2E/refused.err"
grep -q "structure events takes entries of 8 bytes, these reports carry 4" \
	"$E2E/refused.err" || { echo "FAIL: refusal without structure and sizes" >&2; exit 1; }
grep -q "allow-mismatch" "$E2E/refused.err"
# ... and an entry size that fits passes the check (a pcap: not sent).
"$GEN" -c "$E2E/dta.conf" -t ap -n 10 --entry 8 -w "$E2E/ok.pcap" 2> /dev/null
# Negative: the check can fail the other way too (a list no structure holds).
if "$GEN" -c "$E2E/dta.conf" -t ap -n 10 --entry 8 --first-list 4 \
	-w "$E2E/x.pcap" 2> "$E2E/list.err"; then
	echo "FAIL: dta-gen sent to list 4 of lists 0-3" >&2
	exit 1
fi
grep -q "no Append structure holds list 4" "$E2E/list.err"
e2e_expect "translator's reports after the refusals" \
	"$(tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n 's/^"reports_in":\([0-9]*\)$/\1/p')" 0

# The issue's run: 100,000 reports of 4-byte entries, sent anyway.
e2e_gen -c "$E2E/dta.conf" --allow-mismatch -t ap -n 100000
e2e_expect "dta-gen said it sends anyway" \
	"$(grep -c 'sending anyway (--allow-mismatch)' "$E2E/gen.last")" 1
coll=$(sed -n 's/^name = //p' "$E2E/dta.conf" | head -n 1)
lost_events() {
	curl -fsS "http://127.0.0.1:$TM/metrics" |
		grep -F "dta_translator_reports_lost_by_structure_total{structure=\"events\",collector=\"$coll\",cause=\"mismatch\"} " |
		sed 's/.* //'
}
e2e_expect "mismatch losses labelled events" "$(lost_events)" 100000
# (the first line counts the reports refused before it: one --sync
# window or so)
line='structure events: [0-9]* reports\{0,1\} refused for a configuration mismatch: it takes entries of 8 bytes in lists 0\.\.3; the report carried an entry of 4 bytes for list 0 (reporters and dta.conf disagree'
logged() { grep -q "$line" "$E2E/translator.log"; }
e2e_retry logged || { echo "FAIL: no mismatch line naming both geometries" >&2; exit 1; }
echo "ok: logged: $(grep -F 'structure events' "$E2E/translator.log" | head -n 1)"

# Health: degraded while mismatched reports flow, ok once correct ones
# have for a window. The senders run until stopped (no --sync: these
# reports are not counted exactly; the 100,000 above were).
rm -f "$E2E/sent"
E2E_LOSSY=yes
"$GEN" -c "$E2E/dta.conf" --allow-mismatch -d "127.0.0.1:$E2E_PORT" -t ap \
	-n 1000000000 -r 2000 2> /dev/null &
bad=$!
E2E_PIDS="$E2E_PIDS $bad"
degraded() { [ "$(health)" = 503 ] && grep -q '^degraded: .*health_loss_ratio 0.01' "$E2E/health.body"; }
e2e_retry degraded || { cat "$E2E/health.body" >&2; echo "FAIL: health not degraded" >&2; exit 1; }
echo "ok: /health while mismatched: $(cat "$E2E/health.body")"
grep -q 'degraded: .* reports lost in the last 2 s' "$E2E/translator.log"
kill "$bad"
e2e_reap "$bad" 20
"$GEN" -c "$E2E/dta.conf" -d "127.0.0.1:$E2E_PORT" -t ap --entry 8 \
	-n 1000000000 -r 2000 2> /dev/null &
good=$!
E2E_PIDS="$E2E_PIDS $good"
healthy() { [ "$(health)" = 200 ] && grep -qx ok "$E2E/health.body"; }
e2e_retry healthy || { cat "$E2E/health.body" >&2; echo "FAIL: health not ok again" >&2; exit 1; }
echo "ok: /health once correct reports flow: $(cat "$E2E/health.body")"
grep -q 'healthy again' "$E2E/translator.log"
kill "$good"
e2e_reap "$good" 20

e2e_stop_translator
t1=$(date +%s)
# Rate-limited: a line at once, then at most one per 10 s (and one at exit
# for those held back).
n=$(grep -c 'structure events: .*refused for a configuration mismatch' "$E2E/translator.log")
most=$((2 + (t1 - t0) / 10 + 1))
[ "$n" -ge 2 ] && [ "$n" -le "$most" ] ||
	{ echo "FAIL: $n mismatch lines in $((t1 - t0)) s (want 2..$most)" >&2; exit 1; }
echo "ok: $n mismatch lines in $((t1 - t0)) s"
grep -q 'more reports\{0,1\} refused for a configuration mismatch ([0-9]* in all)' "$E2E/translator.log"
# Every refused report is in the lines' counts: their sum is the total.
sum=$(sed -n 's/.*structure events: \([0-9]*\) \(more \)\{0,1\}reports\{0,1\} refused.*/\1/p' \
	"$E2E/translator.log" | awk '{ s += $1 } END { print s }')
e2e_expect "refused reports in the log lines" "$sum" "$(e2e_stat mismatch)"
grep -q 'at exit: .* reports applied, .* lost (.* mismatch [1-9]' "$E2E/translator.log" ||
	{ echo "FAIL: no exit summary in the log" >&2; exit 1; }
echo "ok: $(grep 'at exit:' "$E2E/translator.log")"
e2e_stop_collector
e2e_pass
