#!/bin/sh
# Runs inside the Soft-RoCE guest (tests/rdma/run.sh starts it): the same
# end-to-end checks as over shared memory, but the translator writes into
# the collector's memory with RDMA WRITE and FETCH_AND_ADD through rxe0,
# and a translator that is not on the allow-list is refused.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init rdma "$1"
: "${DTA_RDMA_IP:?run me through tests/rdma/run.sh}"
{
	e2e_conf_head | sed "/^\[translator\]/i rdma_bind = $DTA_RDMA_IP\nrdma_allow = $DTA_RDMA_IP/32"
	echo "rdma_collector = $DTA_RDMA_IP:40050"
	echo "pc_timeout_ms = 60000"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 1M
data = 20

[structure postcards]
primitive = postcard
chunks = 256K
values = 1-80

[structure events]
primitive = append
lists = 2
batches = 2048
entry = 8

[structure counters]
primitive = key-increment
width = 256K
rows = 2
EOF
} > "$E2E/dta.conf"
cat "$E2E/dta.conf" | sed -n '1,12p'
e2e_start_collector
# Metrics on (TCP E2E_PORT): the RDMA completion latency histogram.
e2e_start_translator -s 0.2 --metrics "$E2E_PORT"
grep -q "connected; 4 structure descriptions" "$E2E/collector.log"

# Emulated RDMA is slow: modest workloads, paced. After each workload the
# translator's counters give the RDMA operations per report (the paper's
# figure 8, "memory instructions per report").
ops_now() { tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n 's/^"rdma_ops":\([0-9]*\)$/\1/p'; }
before=0
send() { # TYPE REPORTS ARGS...
	t=$1 n=$2
	shift 2
	e2e_gen -t "$t" -n "$n" -r 20000 -T "$E2E/$t.truth" "$@"
	sleep 1
	after=$(ops_now)
	reports=$(grep -c . "$E2E/gen.log" >/dev/null; tail -n 1 "$E2E/gen.log" | sed 's/dta-gen: \([0-9]*\) reports.*/\1/')
	echo "ops per report: $t $reports reports, $((after - before)) RDMA operations" |
		awk '{ printf "%s %s %.3f\n", $0, "=", $7 / $5 }' | tee -a "$E2E/opsreport"
	before=$after
}
send kw 3000 -k 1000
send pc 1000
send ap 4000 --lists 2 --entry 8

# Notifications over RDMA (docs/rdma.md "Notifications"): the plain
# reports above moved no sequence; immediate ones reach the collector as
# writes with immediate and wake a client waiting on its socket. Every
# write with immediate the translator posted advanced the sequence once.
PROBE=$BUILD/tests/wait_probe
seq_of() { "$PROBE" "$E2E/collector.sock" "$1" 4294967295 0 | sed -n 's/^{"seq":\([0-9]*\).*/\1/p'; }
e2e_expect "sequence after plain reports" "$(seq_of paths)" 0
"$PROBE" "$E2E/collector.sock" paths 0 600000 > "$E2E/woken" 2> "$E2E/probe.log" &
w=$!
i=0
while ! grep -q '^ready' "$E2E/probe.log"; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: probe not ready" >&2; exit 1; }
	sleep 0.1
done
e2e_gen -t kw -n 200 -k 200 -r 2000 --immediate -s 41 --reporter 41
wait $w || { cat "$E2E/woken" "$E2E/probe.log"; exit 1; }
grep -q '^{"seq":[1-9][0-9]*}$' "$E2E/woken" || { cat "$E2E/woken"; exit 1; }
sleep 1
nseq=$(seq_of paths)
e2e_expect "writes with immediate = sequence" "$(ops_now >/dev/null; tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n 's/^"rdma_notifies":\([0-9]*\)$/\1/p')" "$nseq"
e2e_query stats | grep -q "\"notifications\":$nseq," ||
	{ echo "FAIL: collector's notifications != $nseq" >&2; e2e_query stats >&2; exit 1; }
e2e_expect "other structures" "$(seq_of counters)" 0
echo "ok: immediate reports woke a waiter over RDMA ($nseq notifications)"
send ki 5000 -k 500
for t in kw pc ap ki; do
	e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done

# Every signalled request's posting-to-completion time was observed: a
# histogram with observations, its +Inf bucket equal to its count, no more
# observations than signalled requests (one per 32 operations, plus
# markers, each at least one operation's worth), and valid exposition.
curl -sf "http://127.0.0.1:$E2E_PORT/metrics" > "$E2E/metrics.txt"
lat() { sed -n "s/^dta_translator_rdma_completion_seconds_$1 //p" "$E2E/metrics.txt"; }
count=$(lat count)
inf=$(sed -n 's/^dta_translator_rdma_completion_seconds_bucket{le="+Inf"} //p' "$E2E/metrics.txt")
ops=$(ops_now)
echo "RDMA completions timed: $count (of $ops operations), sum $(lat sum) s"
test "${count:-0}" -gt 0 || { grep rdma_completion "$E2E/metrics.txt"; exit 1; }
e2e_expect "completion histogram +Inf bucket" "$inf" "$count"
test "$count" -le "$ops" || { echo "FAIL: $count completions timed, $ops operations"; exit 1; }
awk -v s="$(lat sum)" 'BEGIN { exit !(s > 0) }'
if command -v promtool > /dev/null; then
	promtool check metrics < "$E2E/metrics.txt"
fi

# Several translators at once: a second one (another UDP port) writes
# events while the first writes paths; killing the second mid-stream does
# not disturb the first or the data; it can connect again.
"$TRANSLATOR" -c "$E2E/dta.conf" -p $((E2E_PORT + 1)) > "$E2E/t2.out" 2> "$E2E/t2.log" &
t2=$!
e2e_wait_ready "$E2E/t2.out" "second translator"
"$GEN" -d 127.0.0.1:$((E2E_PORT + 1)) -t ap -n 200000 -r 20000 -s 5 2>/dev/null &
g2=$!
e2e_gen -t kw -n 2000 -s 11 -r 20000 -T "$E2E/kw2.truth"
kill -KILL "$t2"
wait "$t2" 2>/dev/null || true
kill "$g2" 2>/dev/null || true
wait "$g2" 2>/dev/null || true
e2e_gen -t kw -n 2000 -s 12 -r 20000 -T "$E2E/kw3.truth"
sleep 1
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
e2e_query verify --truth "$E2E/kw3.truth" --min-success 1
"$TRANSLATOR" -c "$E2E/dta.conf" -p $((E2E_PORT + 1)) > "$E2E/t3.out" 2> "$E2E/t3.log" &
t3=$!
e2e_wait_ready "$E2E/t3.out" "reconnecting translator"
e2e_term "$t3" "reconnecting translator"
echo "ok: a killed translator disturbed nothing and could connect again"

# A write past a structure's registered memory is refused by the NIC, and
# the collector goes on serving everyone.
"$BUILD/tests/rdma_forge" "$DTA_RDMA_IP" 40050
e2e_gen -t kw -n 1000 -s 13 -r 20000 -T "$E2E/kw4.truth"
sleep 1
e2e_query verify --truth "$E2E/kw4.truth" --min-success 1
e2e_query verify --truth "$E2E/kw.truth" --min-success 0.99
echo "ok: forged offset refused by the NIC; collector and other translator unaffected"

# The collector restarts under a stream of events: the translator loses its
# connection, reconnects with backoff and re-sends the Append frames that
# were not known written; with the snapshot restored, no entry is lost.
e2e_gen -t ap -n 12000 --lists 2 --entry 8 -r 4000 -s 21 -T "$E2E/ap2.truth" &
g=$!
sleep 1
e2e_stop_collector
e2e_start_collector --restore
wait $g
# Until the translator has nothing queued for the new collector (30 s max).
stat_now() { tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n "s/^\"$1\":\([0-9]*\)$/\1/p"; }
i=0
sleep 0.5
while [ "$(stat_now rdma_queued)" != 0 ] && [ $i -lt 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
sleep 0.5
{ cat "$E2E/ap.truth"; grep -v '^#' "$E2E/ap2.truth"; } > "$E2E/ap12.truth"
e2e_query --json verify --truth "$E2E/ap12.truth" --min-success 1 > "$E2E/ap12.json" ||
	{ cat "$E2E/ap12.json" "$E2E/translator.json"; exit 1; }
grep -q '"wrong":0,' "$E2E/ap12.json" || { cat "$E2E/ap12.json"; exit 1; }
echo "ok: events kept flowing across a collector restart"
e2e_stop_translator
test "$(e2e_stat rdma_reconnects)" -ge 1
e2e_expect "Append frames dropped" "$(e2e_stat rdma_dropped)" 0
e2e_expect "reports lost" "$(e2e_stat seq_lost)" 0
# Only Append frames were in flight: none may be refused (they are queued).
e2e_expect "operations refused" "$(e2e_stat sink_errors)" 0
echo "ok: $(e2e_stat rdma_errors) completion errors, $(e2e_stat rdma_reconnects) reconnections"
echo "ok: $(e2e_stat rdma_ops) RDMA operations, $(e2e_stat rdma_bytes) bytes written"
e2e_query stats

# A new translator continues the Append lists after what the collector
# holds (the collector hands over each list's cursor): readers see one
# ordered stream.
e2e_start_translator
e2e_gen -t ap -n 3000 --lists 2 --entry 8 -r 20000 -s 31 -T "$E2E/ap3.truth"
sleep 1
grep -v '^#' "$E2E/ap3.truth" >> "$E2E/ap12.truth"
e2e_query --json verify --truth "$E2E/ap12.truth" --min-success 1 > "$E2E/ap123.json" ||
	{ cat "$E2E/ap123.json"; exit 1; }
grep -q '"exact":19000,' "$E2E/ap123.json" || { cat "$E2E/ap123.json"; exit 1; }
echo "ok: a new RDMA translator appended after the stored batches"
e2e_stop_translator

# Not on the allow-list: refused, and the collector says so.
sed "s|^rdma_allow = .*|rdma_allow = 192.0.2.99|" "$E2E/dta.conf" > "$E2E/deny.conf"
e2e_stop_collector
"$COLLECTOR" -c "$E2E/deny.conf" --restore > "$E2E/collector.log" 2>&1 &
E2E_CPID=$!
e2e_wait_ready "$E2E/collector.log" dta-collector
if "$TRANSLATOR" -c "$E2E/deny.conf" > "$E2E/denied.out" 2> "$E2E/denied.log"; then
	echo "a translator not on the allow-list was accepted" >&2
	exit 1
fi
grep -q "refused" "$E2E/denied.log"
grep -q "refused translator" "$E2E/collector.log"
echo "ok: translator outside rdma_allow refused"
# The data written before is still all there (snapshot restored).
e2e_query -c "$E2E/deny.conf" verify --truth "$E2E/kw.truth" --min-success 1
e2e_stop_collector
e2e_pass
