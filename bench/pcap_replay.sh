#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dta-translator -r (replaying a capture) per CPU-second of the whole
# process, user and system time apart, for two binaries side by side in one
# run, beside the translator core's own rate on the same reports.
#
# Usage: bench/pcap_replay.sh BUILD_DIR [OLD_TRANSLATOR]  (OLD_NAME: its column, "old")
#   N      reports (default 2000000), PER per datagram (default 8),
#   SLOTS  log2 of the Key-Write structure's slots (default 26: 1.5 GiB),
#   RUNS   runs per binary, interleaved; medians printed (default 3)
# A collector (BUILD_DIR's) creates the structure once; dta-gen writes N
# Key-Write reports (keys = slots / 4, N = 2, 20-byte data, as
# bench_translator -k) into a pcap file; each run is a fresh dta-translator
# replaying it into the existing structure (the first touch of its pages
# included, as for any translator starting), timed with getrusage of the
# child (/usr/bin/time). "populate=no" is BUILD_DIR's translator with
# [translator] populate = no. The core's rates: bench_int on the same pcap
# file (batches of 64 datagrams into a warm region of its own) and
# bench_translator -p kw on reports of the same shape. Prints `uptime`.
set -eu
BUILD=$1
OLD=${2:-}
N=${N:-2000000}
PER=${PER:-8}
SLOTS=${SLOTS:-26}
RUNS=${RUNS:-3}
D=$(mktemp -d "${TMPDIR:-/tmp}/dta-bench-replay.XXXXXX")
PORT=$((44000 + $$ % 10000))
CPID=
cleanup() {
	[ -z "$CPID" ] || { kill "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null || true; }
	rm -rf "$D"
}
trap cleanup EXIT INT TERM

conf() { # EXTRA
	cat <<EOF
[collector]
name = bench-replay-$$
socket = $D/collector.sock

[translator]
port = $PORT
$1

[structure flows]
primitive = key-write
slots = $((1 << SLOTS))
data = 20
redundancy = 2
EOF
}
conf "" > "$D/new.conf"
conf "populate = no" > "$D/lazy.conf"

"$BUILD/collector/dta-collector" -c "$D/new.conf" > "$D/collector.log" 2>&1 &
CPID=$!
i=0
until grep -q '^ready' "$D/collector.log"; do
	i=$((i + 1)); [ $i -lt 600 ] || { cat "$D/collector.log" >&2; exit 1; }
	sleep 0.1
done
"$BUILD/gen/dta-gen" -t kw -n "$N" -k $(((1 << SLOTS) / 4)) --batch "$PER" \
	-w "$D/kw.pcap" -d "127.0.0.1:$PORT" 2> "$D/gen.log"

# One replay: prints "USER SYS REPORTS_APPLIED".
one() { # BINARY CONF
	/usr/bin/time -f '%U %S' -o "$D/time" "$1" -q -c "$2" -r "$D/kw.pcap" \
		> "$D/t.out" 2> "$D/t.err"
	applied=$(tr ',{}' '\n\n\n' < "$D/t.out" | sed -n 's/^"reports_key_write":\([0-9]*\)$/\1/p')
	echo "$(cat "$D/time") $applied"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "pcap_replay: $N Key-Write reports, $PER per datagram, 2^$SLOTS slots, $RUNS runs; load: $(uptime | sed 's/.*load/load/')"
cols="new populate=no"
OLD_NAME=${OLD_NAME:-old}
[ -z "$OLD" ] || cols="$OLD_NAME $cols"
for r in $(seq "$RUNS"); do
	for c in $cols; do
		case $c in
		"$OLD_NAME") res=$(one "$OLD" "$D/new.conf") ;;
		new) res=$(one "$BUILD/translator/dta-translator" "$D/new.conf") ;;
		populate=no) res=$(one "$BUILD/translator/dta-translator" "$D/lazy.conf") ;;
		esac
		echo "$c $res" >> "$D/results"
	done
done
printf '%-14s %8s %8s %8s %14s %10s\n' "translator" "user s" "sys s" "CPU s" "M reports/CPU-s" "applied"
for c in $cols; do
	u=$(awk -v c="$c" '$1 == c { print $2 }' "$D/results" | median)
	s=$(awk -v c="$c" '$1 == c { print $3 }' "$D/results" | median)
	cpu=$(awk -v c="$c" '$1 == c { print $2 + $3 }' "$D/results" | median)
	a=$(awk -v c="$c" '$1 == c { print $4 }' "$D/results" | median)
	all=$(awk -v c="$c" -v n="$N" '$1 == c { printf "%.2f ", n / ($2 + $3) / 1e6 }' "$D/results")
	printf '%-14s %8s %8s %8s %14.2f %10s   (runs: %s)\n' "$c" "$u" "$s" "$cpu" \
		"$(awk -v n="$N" -v c="$cpu" 'BEGIN { print n / c / 1e6 }')" "$a" "$all"
done
echo "the core on the same pcap file (bench_int, batches of 64, warm region):"
"$BUILD/bench/bench_int" -c "$D/new.conf" -m "$RUNS" -d "$D/kw.pcap" | sed 's/^/  /'
echo "the core on reports of the same shape (bench_translator -p kw, $PER per payload):"
"$BUILD/bench/bench_translator" -p kw -k $(((1 << SLOTS) / 4)) -r "$PER" -n "$N" \
	-m "$RUNS" -U | sed -n '/^primitive\|^Key-Write/s/^/  /p'
echo "load after: $(uptime | sed 's/.*load/load/')"
