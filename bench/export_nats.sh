#!/bin/sh
# dta-export's NATS JetStream sink: rows per second and per CPU-second of
# the publishing process (the sink and libnats's threads; making the rows
# costs next to nothing), against a 3-node JetStream cluster (Debian's
# nats-server, R3 file-backed stream) on loopback, for several batch sizes
# in one run; with the servers' CPU-seconds per row beside it. Every row is
# acknowledged by JetStream before the batch counts (docs/export.md "NATS
# JetStream"), so the figure includes the cluster's replication.
#
#   bench/export_nats.sh BUILD_DIR [ROWS]
set -eu
B=$(cd "${1:?usage: bench/export_nats.sh BUILD_DIR [ROWS]}" && pwd)
ROWS=${2:-200000}
T=$(dirname "$0")/../tests/e2e
. "$T/lib.sh"
e2e_init bench_nats "$B"
. "$T/nats.inc"
nats_need
nats_cluster_start
# CPU seconds (user + system) of the three servers so far.
servers_cpu() {
	tck=$(getconf CLK_TCK)
	s=0
	for k in 1 2 3; do
		eval "pid=\$PID_n$k"
		t=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
		s=$((s + t))
	done
	awk -v s=$s -v t="$tck" 'BEGIN { printf "%.3f", s / t }'
}
# Until the cluster has elected its JetStream leader, stream requests time
# out: a few rows to another stream first, outside the figures.
printf '[export]\nnats_url = %s\nnats_stream = WARMUP\nnats_subject = warmup\n' \
	"$NATS_URLS" > "$E2E/w.conf"
"$PROBE" publish "$E2E/w.conf" 10 10 > /dev/null 2>&1
echo "== load: $(uptime)"
for batch in 1000 10000 65536; do
	stream=BENCH$batch
	cat > "$E2E/b.conf" <<EOF2
[export]
nats_url = $NATS_URLS
nats_stream = $stream
nats_subject = bench.b$batch
EOF2
	s0=$(servers_cpu)
	"$PROBE" publish "$E2E/b.conf" "$ROWS" $batch > "$E2E/b.out" 2> "$E2E/b.log" ||
		{ cat "$E2E/b.log"; exit 1; }
	sed "s/^/  /" "$E2E/b.log"
	s1=$(servers_cpu)
	awk -v rows="$ROWS" -v batch=$batch -v scpu="$(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }')" '
		{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
		END {
			printf "batch %6d: %d rows in %.2f s: %.0f rows/s, %.0f rows per sink CPU-s, " \
			       "servers %.1f us CPU per row (retries %d)\n", batch, rows, v["wall_s"],
			       rows / v["wall_s"], rows / v["cpu_s"], scpu * 1e6 / rows, v["retries"]
		}' "$E2E/b.out"
done
echo "== load: $(uptime)"
