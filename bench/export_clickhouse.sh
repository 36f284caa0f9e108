#!/bin/sh
# dta-export's figures for docs/performance.md ("dta-export"), printed, not
# asserted:
#   1. rows per CPU-second of dta-export into ClickHouse: N Append entries
#      sent as fast as dta-gen and the translator go, the exporter's CPU
#      time (user + system, /proc) from before the first until every row
#      is in ClickHouse; rows = what ClickHouse holds.
#   2. report-to-row latency at a paced rate (default 100 k events/s):
#      entry k is sent at T0 + k / RATE (dta-gen paces by its clock);
#      ClickHouse's row count is sampled every 20 ms; entry k's latency is
#      the first sample holding more than k rows minus its send time
#      (rows of one list arrive in order; the lists interleave, so this
#      is per the count, within a batch of the true order). p50, p99, max.
# One clickhouse-server on loopback (a cluster of one shard: inserts take
# the Distributed path the tests use), a collector, a translator and
# dta-export reading the collector's shared memory (source = map:).
#
#   bench/export_clickhouse.sh BUILD_DIR [N] [RATE] [SECONDS]
set -eu
B=$(cd "${1:?usage: bench/export_clickhouse.sh BUILD_DIR [N] [RATE] [SECONDS]}" && pwd)
N=${2:-4000000}
RATE=${3:-100000}
SECS=${4:-20}
command -v clickhouse-server > /dev/null || { echo "needs clickhouse-server" >&2; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/dta-bench-export.XXXXXX")
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -rf "$D"
	rm -f /dev/shm/dta-bench-export-$$.*
}
trap cleanup EXIT INT TERM
# Ports the kernel gives out as free now.
set -- $(/usr/bin/python3 -c '
import socket
ss = [socket.socket() for _ in range(5)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
HTTP=$1 TCP=$2 IS=$3 UDP=$4 METRICS=$5

mkdir -p "$D/ch/data" "$D/ch/tmp" "$D/ch/log"
cat > "$D/ch/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$D/ch/log/server.log</log>
    <errorlog>$D/ch/log/err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$HTTP</http_port>
  <tcp_port>$TCP</tcp_port>
  <interserver_http_port>$IS</interserver_http_port>
  <path>$D/ch/data/</path>
  <tmp_path>$D/ch/tmp/</tmp_path>
  <users_config>$D/ch/users.xml</users_config>
  <default_profile>default</default_profile>
  <mark_cache_size>67108864</mark_cache_size>
  <remote_servers><dta><shard><replica><host>127.0.0.1</host><port>$TCP</port>
    </replica></shard></dta></remote_servers>
</yandex>
EOF
cat > "$D/ch/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOF
clickhouse-server --config-file="$D/ch/config.xml" > "$D/ch.out" 2>&1 &
PIDS="$PIDS $!"
until [ "$(curl -s "http://127.0.0.1:$HTTP/ping")" = "Ok." ]; do sleep 0.1; done

cat > "$D/dta.conf" <<EOF
[collector]
name = dta-bench-export-$$
socket = $D/collector.sock

[translator]
port = $UDP
bind = 127.0.0.1

[structure events]
primitive = append
lists = 4
entry = 16
batches = 65536
batch = 16
schema = n:u32, flow:u32, pad:bytes[8]

[export]
source = map:$D/dta.conf
clickhouse_url = http://127.0.0.1:$HTTP
state_dir = $D/state
metrics_listen = 127.0.0.1:$METRICS
EOF
"$B/export/dta-export" -c "$D/dta.conf" --print-schema |
	clickhouse-client --port "$TCP" --multiquery
"$B/collector/dta-collector" -c "$D/dta.conf" > "$D/collector.log" 2>&1 &
PIDS="$PIDS $!"
until grep -q '^ready' "$D/collector.log" 2>/dev/null; do sleep 0.05; done
"$B/translator/dta-translator" -c "$D/dta.conf" -o "$D/tr.json" > "$D/tr.out" 2> "$D/tr.log" &
PIDS="$PIDS $!"
until grep -q '^ready' "$D/tr.out" 2>/dev/null; do sleep 0.05; done
"$B/export/dta-export" -c "$D/dta.conf" > "$D/export.log" 2>&1 &
EXP=$!
PIDS="$PIDS $EXP"
until curl -sf "http://127.0.0.1:$METRICS/metrics" > /dev/null; do
	kill -0 $EXP 2>/dev/null || { echo "dta-export exited:" >&2; cat "$D/export.log" >&2; exit 1; }
	sleep 0.05
done

cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rows() { curl -s "http://127.0.0.1:$HTTP/" --data-binary "SELECT count() FROM dta_events"; }
metric() {
	curl -sf "http://127.0.0.1:$METRICS/metrics" |
		awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $2 } END { printf "%d\n", s }'
}
TCK=$(getconf CLK_TCK)

# 1. Throughput.
echo "== load: $(uptime)"
c0=$(cpu $EXP)
t0=$(date +%s.%N)
"$B/gen/dta-gen" -t ap -n "$N" --lists 4 --entry 16 --batch 16 -d "127.0.0.1:$UDP" 2> "$D/gen.log"
# Done when the exporter has read what the translator applied (minus what
# it counted lost) and ClickHouse holds every row it read.
until r=$(rows) && [ "$r" -gt 0 ] && [ "$r" -eq "$(metric dta_export_rows_read_total)" ] &&
	[ "$(metric dta_export_buffer_rows)" -eq 0 ] &&
	[ "$(metric dta_export_rows_read_total)" -eq "$(metric dta_export_rows_read_total)" ]; do
	sleep 0.2
done
sleep 1 # nothing more arrives (the translator's last partial batches)
r=$(rows)
c1=$(cpu $EXP)
t1=$(date +%s.%N)
lost=$(metric dta_export_lost_total)
awk -v r="$r" -v c="$(( c1 - c0 ))" -v k="$TCK" -v w="$(echo "$t1 - $t0" | bc)" -v l="$lost" \
	-v s="$(sed -n 's/^dta-gen: \([0-9]*\) reports.*/\1/p' "$D/gen.log")" 'BEGIN {
	printf "throughput: %d reports sent, %d rows in ClickHouse, %d counted lost by the exporter\n", s, r, l
	printf "  dta-export CPU: %.2f s (user+system) over %.1f s wall: %.2f M rows per CPU-second\n",
		c / k, w, r / (c / k) / 1e6 }'
echo "== load: $(uptime)"

# 2. Latency at a paced rate.
base=$(rows)
n=$((RATE * SECS))
t0=$(date +%s.%N)
"$B/gen/dta-gen" -t ap -n "$n" --lists 4 --entry 16 -r "$RATE" -d "127.0.0.1:$UDP" 2> "$D/gen2.log" &
GEN=$!
: > "$D/samples"
c0=$(cpu $EXP)
while :; do
	r=$(rows)
	echo "$(date +%s.%N) $((r - base))" >> "$D/samples"
	[ $((r - base)) -ge "$n" ] && break
	kill -0 $GEN 2>/dev/null || [ "$(date +%s)" -lt $(( $(date +%s -d @"${t0%.*}") + SECS + 30 )) ] || break
	sleep 0.02
done
wait $GEN || true
c1=$(cpu $EXP)
echo "latency: $n reports at $RATE/s ($(sed -n 's/^dta-gen: .* \(([0-9.]* M reports\/s)\)$/\1/p' "$D/gen2.log")), rows sampled every 20 ms"
/usr/bin/python3 - "$D/samples" "$t0" "$RATE" "$n" <<'EOF'
import sys
samples = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
t0, rate, n = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
lat = []
k = 0
for t, c in samples:
    while k < min(int(c), n):
        lat.append(t - (t0 + k / rate))
        k += 1
lat.sort()
if not lat:
    sys.exit("no rows arrived")
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print("  report-to-row: p50 %.3f s, p99 %.3f s, max %.3f s over %d rows (%d not seen)"
      % (p(0.5), p(0.99), lat[-1], len(lat), n - len(lat)))
EOF
echo "  dta-export CPU at $RATE/s: $(echo "scale=3; ($c1 - $c0) / $TCK" | bc) s"
echo "== load: $(uptime)"
