#!/bin/sh
# Both daemons' /metrics after a workload of every primitive, INT reports
# and malformed datagrams pass `promtool check metrics` (Debian's
# prometheus package); unknown paths are 404, other methods 405; health is
# 200, and the translator's turns 503 once its collector is gone
# (docs/metrics.md). The endpoints are set on the command line here
# (--metrics), in the configuration in metrics_prometheus.sh.
. "$(dirname "$0")/lib.sh"
e2e_init metrics_promtool "$1"
command -v promtool > /dev/null || { echo "SKIP: no promtool (apt-get install prometheus)"; exit 77; }
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }
INT_PORT=$((E2E_PORT + 1))
# TCP ports: the test's two UDP port numbers are its own on TCP too.
CM=$E2E_TCP0
TM=$E2E_TCP1
e2e_metrics_conf > "$E2E/dta.conf"

e2e_start_collector --metrics "$CM"
if grep -q 'no libmicrohttpd' "$E2E/collector.log"; then
	echo "SKIP: built without libmicrohttpd"
	exit 77
fi
e2e_start_translator --metrics "$TM"
grep -q "metrics on http://127.0.0.1:$CM/metrics" "$E2E/collector.log"
grep -q "metrics on http://127.0.0.1:$TM/metrics" "$E2E/translator.log"

e2e_gen -t kw -n 2000 -k 500 --malformed 20
e2e_gen -t ki -n 2000 -k 100 --malformed 20
e2e_gen -t pc -n 200 --malformed 20
e2e_gen -t ap -n 3000 --lists 2 --first-list 100 --entry 8 --malformed 20 \
	-T "$E2E/ap.truth"
"$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" -t int-md \
	--reporter 2 -n 20 -s 12 2>> "$E2E/gen.log"
"$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" -t int-drop \
	--reporter 3 -n 20 -s 13 2>> "$E2E/gen.log"
e2e_retry e2e_query verify --truth "$E2E/ap.truth" --min-success 1
e2e_query stats > /dev/null

for d in c:$CM t:$TM; do
	p=${d#*:}
	curl -fsS "http://127.0.0.1:$p/metrics" > "$E2E/${d%%:*}.prom"
	promtool check metrics < "$E2E/${d%%:*}.prom" > "$E2E/${d%%:*}.lint" 2>&1 || {
		cat "$E2E/${d%%:*}.lint" >&2
		echo "FAIL: promtool check metrics refused the ${d%%:*} endpoint's output" >&2
		exit 1
	}
	e2e_expect "promtool on ${d%%:*}" "$(wc -c < "$E2E/${d%%:*}.lint")" 0
	e2e_expect "health of ${d%%:*}" \
		"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/healthz")" 200
	# Negative: only the three paths, only GET.
	for path in / /nope /metrics/ /metricsx /health/x; do
		e2e_expect "GET $path on ${d%%:*}" \
			"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p$path")" 404
	done
	for m in POST PUT DELETE; do
		e2e_expect "$m /metrics on ${d%%:*}" \
			"$(curl -s -o /dev/null -w '%{http_code}' -X $m "http://127.0.0.1:$p/metrics")" 405
	done
done
# The histograms are there and counted something.
grep -q '^dta_translator_append_batch_entries_count{structure="log",collector="e2e-metrics_promtool-[0-9]*"} [1-9]' "$E2E/t.prom"
# Shared memory: no RDMA requests, so no completion latency histogram
# (tests/rdma/e2e_rdma.sh checks it where there are).
if grep -q rdma_completion "$E2E/t.prom"; then
	echo "FAIL: an RDMA completion histogram without RDMA" >&2
	exit 1
fi
grep -q '^dta_collector_request_duration_seconds_count{collector="[^"]*"} [1-9]' "$E2E/c.prom"
grep -q '^dta_translator_malformed_by_cause_total{cause="[a-z_]*"} [1-9]' "$E2E/t.prom"
grep -q '^dta_translator_int_reports_applied_total [1-9]' "$E2E/t.prom"
# Nothing but the families' lines: every sample's name is dta_*, or one
# of Prometheus's six standard process_* families.
e2e_expect "lines not dta_, process_ or comments" \
	"$(grep -cv '^\(# \(HELP\|TYPE\) \)\{0,1\}\(dta_\|process_\(cpu_seconds_total\|resident_memory_bytes\|virtual_memory_bytes\|start_time_seconds\|open_fds\|max_fds\)[ {]\)' "$E2E/t.prom" "$E2E/c.prom" | awk -F: '{ s += $2 } END { print s }')" 0
# The translator's _info, as the collector's: version and sink.
e2e_expect "dta_translator_info" \
	"$(grep '^dta_translator_info{' "$E2E/t.prom")" \
	"dta_translator_info{version=\"$("$TRANSLATOR" --version | sed 's/^dta-translator //')\",sink=\"shm\"} 1"
# process_* of each daemon against what /proc says of its PID, read here
# by this script: start time exactly (btime + starttime / CLK_TCK), the
# descriptor limit exactly, CPU time at least what it had used before
# the scrape, open descriptors those listed now give or take the scrape's
# connection, resident memory within 2x of /proc's.
tck=$(getconf CLK_TCK)
btime=$(sed -n 's/^btime //p' /proc/stat)
for d in c:$E2E_CPID:$CM t:$E2E_TPID:$TM; do
	n=${d%%:*}; rest=${d#*:}; pid=${rest%%:*}; port=${rest#*:}
	stat=$(sed 's/.*) //' /proc/$pid/stat)
	cpu0=$(echo "$stat" | awk -v t=$tck '{ printf "%.6f", ($12 + $13) / t }')
	fds0=$(ls /proc/$pid/fd | wc -l)
	curl -fsS "http://127.0.0.1:$port/metrics" > "$E2E/$n.proc.prom"
	get() { sed -n "s/^$1 //p" "$E2E/$n.proc.prom"; }
	want=$(echo "$stat" | awk -v b=$btime -v t=$tck '{ printf "%.2f", b + $20 / t }')
	e2e_expect "$n process_start_time_seconds" \
		"$(get process_start_time_seconds | awk '{ printf "%.2f", $1 }')" "$want"
	e2e_expect "$n process_max_fds" "$(get process_max_fds)" \
		"$(awk '/^Max open files/ { print $4 }' /proc/$pid/limits)"
	awk -v a="$(get process_cpu_seconds_total)" -v b="$cpu0" \
		'BEGIN { exit !(a + 0 >= b + 0) }' ||
		{ echo "FAIL: $n process_cpu_seconds_total $(get process_cpu_seconds_total) < $cpu0" >&2; exit 1; }
	fds=$(get process_open_fds)
	[ "$fds" -ge "$fds0" ] && [ "$fds" -le $((fds0 + 2)) ] ||
		{ echo "FAIL: $n process_open_fds $fds, /proc lists $fds0" >&2; exit 1; }
	rss=$(awk '/^VmRSS:/ { print $2 * 1024 }' /proc/$pid/status)
	awk -v a="$(get process_resident_memory_bytes)" -v b="$rss" \
		'BEGIN { exit !(a >= b / 2 && a <= b * 2) }' ||
		{ echo "FAIL: $n process_resident_memory_bytes $(get process_resident_memory_bytes), VmRSS $rss" >&2; exit 1; }
	vsz=$(awk '/^VmSize:/ { print $2 * 1024 }' /proc/$pid/status)
	awk -v a="$(get process_virtual_memory_bytes)" -v b="$vsz" \
		'BEGIN { exit !(a >= b / 2 && a <= b * 2) }' ||
		{ echo "FAIL: $n process_virtual_memory_bytes $(get process_virtual_memory_bytes), VmSize $vsz" >&2; exit 1; }
	echo "ok: $n process_* agree with /proc/$pid (cpu $(get process_cpu_seconds_total) s, $fds fds, rss $(get process_resident_memory_bytes))"
done

# The translator's health follows its collector.
e2e_stop_collector
unhealthy() {
	test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TM/health")" = 503
}
e2e_retry unhealthy
curl -s "http://127.0.0.1:$TM/health" | grep -q '^unhealthy: '
e2e_stop_translator
e2e_pass
