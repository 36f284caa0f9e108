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
CM=$E2E_PORT
TM=$((E2E_PORT + 1))
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
# Nothing but the families' lines: every sample's name is dta_*.
e2e_expect "lines not dta_ or comments" \
	"$(grep -cv '^\(# \(HELP\|TYPE\) \)\{0,1\}dta_' "$E2E/t.prom" "$E2E/c.prom" | awk -F: '{ s += $2 } END { print s }')" 0

# The translator's health follows its collector.
e2e_stop_collector
unhealthy() {
	test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TM/health")" = 503
}
e2e_retry unhealthy
curl -s "http://127.0.0.1:$TM/health" | grep -q '^unhealthy: '
e2e_stop_translator
e2e_pass
