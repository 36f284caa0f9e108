#!/bin/sh
# CPU of an idle dta-translator: after a short burst of every primitive
# (so that timeouts have state to write), the translator is left alone for
# SECONDS and its CPU time over them (every thread, from
# /proc/PID/task/*/schedstat, in ns) is printed as a share of one core.
# Run with and without a stats file (-o: refreshed for dta-gen --sync).
#
# Usage: bench/translator_idle.sh BUILD_DIR [SECONDS]
#   BASE  another dta-translator binary (an older build) measured first
set -eu
BUILD=$1
SECS=${2:-20}
COLLECTOR=$BUILD/collector/dta-collector
TRANSLATOR=$BUILD/translator/dta-translator
GEN=$BUILD/gen/dta-gen
D=$(mktemp -d "${TMPDIR:-/tmp}/dta-bench-idle.XXXXXX")
PORT=$((43000 + $$ % 10000))
CPID=
TPID=
cleanup() {
	for p in $TPID $CPID; do kill "$p" 2>/dev/null || true; done
	for p in $TPID $CPID; do wait "$p" 2>/dev/null || true; done
	rm -rf "$D"
}
trap cleanup EXIT INT TERM

cat > "$D/dta.conf" <<EOF2
[collector]
name = bench-idle-$$
socket = $D/collector.sock
snapshot_dir = $D/snap

[translator]
port = $PORT
bind = 127.0.0.1

[structure paths]
primitive = key-write
slots = 64K
data = 20

[structure postcards]
primitive = postcard
chunks = 16K
values = 1-80

[structure events]
primitive = append
lists = 2
entry = 8
batches = 4K

[structure counters]
primitive = key-increment
width = 16K
EOF2

ready() { # FILE
	i=0
	until grep -q '^ready' "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 1200 ] || { cat "$1" "$D"/*.log >&2; exit 1; }
		sleep 0.05
	done
}

cpu_ns() { # PID: CPU time of every thread, ns
	cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'
}

"$COLLECTOR" -c "$D/dta.conf" > "$D/collector.log" 2>&1 &
CPID=$!
ready "$D/collector.log"

one() { # BINARY ARGS...
	b=$1
	shift
	: > "$D/t.out"
	"$b" -c "$D/dta.conf" -q "$@" > "$D/t.out" 2> "$D/t.log" &
	TPID=$!
	ready "$D/t.out"
	for ty in kw pc ap ki; do
		"$GEN" -d 127.0.0.1:$PORT -t $ty -n 1001 2>/dev/null
	done
	sleep 1
	c0=$(cpu_ns $TPID)
	sleep "$SECS"
	c1=$(cpu_ns $TPID)
	kill -TERM $TPID
	wait $TPID || true
	TPID=
	awk -v c=$((c1 - c0)) -v s="$SECS" 'BEGIN { printf "%.3f", 100 * c / (s * 1e9) }'
}

echo "translator_idle: ${SECS} s idle after a burst; load: $(uptime | sed 's/.*load/load/')"
printf '%-12s %22s %22s\n' binary "% of a core, -o FILE" "% of a core, no -o"
if [ -n "${BASE:-}" ]; then
	printf '%-12s %22s %22s\n' base "$(one "$BASE" -o "$D/s.json")" "$(one "$BASE")"
fi
printf '%-12s %22s %22s\n' this "$(one "$TRANSLATOR" -o "$D/s.json")" "$(one "$TRANSLATOR")"
echo "load after: $(uptime | sed 's/.*load/load/')"
