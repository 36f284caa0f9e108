#!/bin/sh
# A real Prometheus server scrapes both daemons (metrics_listen in the
# configuration, docs/metrics.md) every second. After a workload of every
# primitive, INT reports and malformed datagrams, every member of each
# daemon's stats JSON is read back through Prometheus's HTTP API
# (/api/v1/query) under its docs/metrics.md row and must be equal, once
# the translator's counters are at rest (prom_compare.py polls for that);
# the histograms' counts equal their counters; series nobody exports are
# absent.
. "$(dirname "$0")/lib.sh"
e2e_init metrics_prometheus "$1"
command -v prometheus > /dev/null || { echo "SKIP: no prometheus (apt-get install prometheus)"; exit 77; }
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
INT_PORT=$((E2E_PORT + 1))
# TCP ports: the test's two UDP port numbers are its own on TCP too;
# Prometheus takes the first on another loopback address.
CM=$E2E_TCP0
TM=$E2E_TCP1
PROM=127.0.0.2:$E2E_TCP2
# metrics_listen goes into the head's sections (here the endpoints come
# from the configuration; metrics_promtool.sh uses --metrics); a port
# alone is 127.0.0.1.
e2e_metrics_conf |
	sed -e "/^\[collector\]/a metrics_listen = $CM" \
	    -e "/^\[translator\]/a metrics_listen = 127.0.0.1:$TM" > "$E2E/dta.conf"
cat > "$E2E/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: dta-collector
    static_configs:
      - targets: ['127.0.0.1:$CM']
  - job_name: dta-translator
    static_configs:
      - targets: ['127.0.0.1:$TM']
EOF

e2e_start_collector
if grep -q 'no libmicrohttpd' "$E2E/collector.log"; then
	echo "SKIP: built without libmicrohttpd"
	exit 77
fi
e2e_start_translator
prometheus --config.file="$E2E/prometheus.yml" \
	--storage.tsdb.path="$E2E/prometheus-data" \
	--web.listen-address="$PROM" > "$E2E/prometheus.log" 2>&1 &
E2E_PIDS="$E2E_PIDS $!"
e2e_retry curl -fsS "http://$PROM/-/ready"

e2e_gen -t kw -n 2000 -k 500 --malformed 20
e2e_gen -t ki -n 1700 -k 100 --malformed 10
e2e_gen -t pc -n 200 --malformed 20
e2e_gen -t ap -n 3000 --lists 2 --first-list 100 --entry 8 --malformed 20 \
	-T "$E2E/ap.truth"
"$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" -t int-md \
	--reporter 2 -n 20 -s 12 2>> "$E2E/gen.log"
"$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" -t int-drop \
	--reporter 3 -n 20 -s 13 2>> "$E2E/gen.log"
# The last partial Append batches leave on the translator's timer.
e2e_retry e2e_query verify --truth "$E2E/ap.truth" --min-success 1

python3 "$here/prom_compare.py" "$here/../../docs/metrics.md" "http://$PROM" \
	dta-translator translator "cat '$E2E/translator.json'"
python3 "$here/prom_compare.py" "$here/../../docs/metrics.md" "http://$PROM" \
	dta-collector collector "'$QUERY' -c '$E2E/dta.conf' stats"
# The standard process_* families and the _info metrics of both, as
# Prometheus stored them: one series per job each.
for f in process_cpu_seconds_total process_resident_memory_bytes \
	 process_virtual_memory_bytes process_start_time_seconds \
	 process_open_fds process_max_fds; do
	n=$(curl -fsS "http://$PROM/api/v1/query?query=count%20by%20(job)%20($f)" |
		grep -o '"job":"dta-[a-z]*"' | sort | tr '\n' ' ')
	e2e_expect "$f in Prometheus" "$n" '"job":"dta-collector" "job":"dta-translator" '
done
info=$(curl -fsS "http://$PROM/api/v1/query?query=dta_translator_info")
e2e_expect "dta_translator_info in Prometheus" \
	"$(echo "$info" | grep -o '"sink":"[a-z]*"')" '"sink":"shm"'
# Both targets up, and no scrape failed.
up=$(curl -fsS "http://$PROM/api/v1/query?query=sum(up)")
e2e_expect "targets up" "$(echo "$up" | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')" 2
e2e_stop_translator
e2e_stop_collector
e2e_pass
