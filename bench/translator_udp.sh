#!/bin/sh
# The dta-translator's UDP receive path, one report per datagram: reports
# received per CPU-second of the whole translator process (utime + stime
# from /proc/PID/stat, so the kernel's receive work and every wakeup
# count), for each receive mode side by side in one run, medians of RUNS.
#
# Usage: bench/translator_udp.sh BUILD_DIR [REPORTS] [RUNS]
#   MODES  receive configurations, space-separated, each a comma-separated
#          list of [translator] key=value (default below: the old path -
#          recvmmsg, 64 per call, no wait - then the new ones)
#   TYPE   dta-gen workload (default kw; ap for the cheapest core work)
#   BASE   another dta-translator binary (e.g. an older build, before the
#          rx keys existed) measured as the first column, "base", with
#          its defaults
# dta-gen sends as fast as it can from another process (it takes the other
# core); "recv" is reports received / reports sent (the rest is counted by
# the translator as socket_drops).
set -eu
BUILD=$1
N=${2:-1000000}
RUNS=${3:-3}
TYPE=${TYPE:-kw}
MODES=${MODES:-"rx=recvmmsg,rx_batch=64,rx_wait_us=0 rx=recvmmsg,rx_wait_us=50 rx=recvmmsg rx=uring,rx_wait_us=50 rx=uring"}
COLLECTOR=$BUILD/collector/dta-collector
TRANSLATOR=$BUILD/translator/dta-translator
GEN=$BUILD/gen/dta-gen
D=$(mktemp -d "${TMPDIR:-/tmp}/dta-bench-udp.XXXXXX")
PORT=$((43000 + $$ % 10000))
CPID=
TPID=
cleanup() {
	for p in $TPID $CPID; do kill "$p" 2>/dev/null || true; done
	for p in $TPID $CPID; do wait "$p" 2>/dev/null || true; done
	rm -rf "$D"
	rm -f /dev/shm/dta-bench-udp-$$.*
}
trap cleanup EXIT INT TERM

conf() { # KEYS
	cat <<EOF
[collector]
name = bench-udp-$$
socket = $D/collector.sock
snapshot_dir = $D/snap

[translator]
port = $PORT
bind = 127.0.0.1
EOF
	echo "$1" | tr ',' '\n'
	cat <<EOF

[structure paths]
primitive = key-write
slots = 4M
data = 20

[structure events]
primitive = append
lists = 1
entry = 4
batches = 1M

[structure counters]
primitive = key-increment
width = 1M
rows = 2
EOF
}

ready() { # FILE
	i=0
	until grep -q '^ready' "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 1200 ] || { cat "$1" "$D"/*.log >&2; exit 1; }
		sleep 0.05
	done
}

stat_of() { # FILE KEY
	tr ',{}' '\n\n\n' < "$1" | sed -n "s/^\"$2\":\([0-9]*\)$/\1/p"
}

cpu_ticks() { # PID: utime + stime in clock ticks
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

HZ=$(getconf CLK_TCK)
conf "" > "$D/c.conf"
"$COLLECTOR" -c "$D/c.conf" > "$D/collector.log" 2>&1 &
CPID=$!
ready "$D/collector.log"

# One run: prints "MREPORTS_PER_CPU_S RECEIVED_SHARE".
one() { # BINARY KEYS
	conf "$2" > "$D/t.conf"
	: > "$D/t.out"
	rm -f "$D/t.json"
	"$1" -c "$D/t.conf" -o "$D/t.json" -q > "$D/t.out" 2> "$D/t.log" &
	TPID=$!
	ready "$D/t.out"
	c0=$(cpu_ticks $TPID)
	"$GEN" -d 127.0.0.1:$PORT -t "$TYPE" -n "$N" -k $((N / 2)) 2> "$D/gen.log"
	# Until every datagram is received or counted dropped.
	i=0
	while :; do
		got=$(( $(stat_of "$D/t.json" packets) + $(stat_of "$D/t.json" socket_drops) ))
		[ "$got" -lt "$N" ] || break
		i=$((i + 1)); [ $i -lt 300 ] || break
		sleep 0.1
	done
	c1=$(cpu_ticks $TPID)
	kill -TERM $TPID
	wait $TPID || true
	TPID=
	recv=$(stat_of "$D/t.out" reports_in)
	awk -v r="$recv" -v c=$((c1 - c0)) -v hz="$HZ" -v n="$N" \
		'BEGIN { printf "%.3f %.1f\n", c ? r / (c / hz) / 1e6 : 0, 100 * r / n }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "translator_udp: $N $TYPE reports, one per datagram, $RUNS runs; load: $(uptime | sed 's/.*load/load/')"
cols=
[ -z "${BASE:-}" ] || cols=base
cols="$cols $MODES"
for r in $(seq "$RUNS"); do
	for m in $cols; do
		case $m in
		base) res=$(one "$BASE" "") ;;
		*) res=$(one "$TRANSLATOR" "$m") ;;
		esac
		echo "$m $res" >> "$D/results"
	done
done
printf '%-44s %14s %9s\n' "mode ([translator] keys)" "M reports/CPU-s" "received"
for m in $cols; do
	rate=$(awk -v m="$m" '$1 == m { print $2 }' "$D/results" | median)
	recv=$(awk -v m="$m" '$1 == m { print $3 }' "$D/results" | median)
	all=$(awk -v m="$m" '$1 == m { printf "%s ", $2 }' "$D/results")
	printf '%-44s %14s %8s%%   (runs: %s)\n' "$m" "$rate" "$recv" "$all"
done
echo "load after: $(uptime | sed 's/.*load/load/')"
