#!/bin/sh
# dta-translator's AF_XDP receive path beside its socket path (recvmmsg),
# one report per datagram, in one run: reports received per CPU-second of
# the translator process (utime + stime from /proc/PID/stat, as
# bench/translator_udp.sh), on a veth pair between two network namespaces
# this script creates (the sender's and the translator's; native XDP on
# the translator's veth). Needs root.
#
# Usage: bench/translator_xdp.sh BUILD_DIR [REPORTS] [RUNS]
#   MODES  receive configurations, space-separated, each a comma-separated
#          list of [translator] key=value (default: the socket path,
#          recvmmsg, then AF_XDP); "nfcapd" for Debian's nfcapd fed the
#          same records as NetFlow v5, one per datagram (bench/nf5send.py;
#          "gen CPU-s" is then that Python sender's)
#   TYPE   dta-gen workload (default kw)
#   SLOTS  the Key-Write structure's slots (default 4M; 64K keeps it in
#          the caches and the TLB: the receive path's own cost)
#   PERF   a directory: also profile one run of each mode (perf record -g)
#          into PERF/MODE.txt
#   PAGES  tmpfs: the structures in shm_dir on a tmpfs this script mounts
#          with huge=within_size (2 MiB pages, what the packaged
#          configuration gets); default shm: /dev/shm (4 KiB pages here)
# dta-gen sends as fast as it can from the sender's namespace. "recv" is
# reports received / sent (the rest the translator counts: socket_drops,
# for AF_XDP by cause). On veth the kernel's receive work up to the socket
# queue or the XSK ring (for AF_XDP: the XDP program and the copy into
# the UMEM) runs in the sender's softirq context, so it is charged to the
# sender, not to the translator, on both paths alike: "gen CPU-s" is the
# sender's, and "M/CPU-s both" counts the two processes' CPU together.
set -eu
BUILD=$1
N=${2:-2000000}
RUNS=${3:-3}
TYPE=${TYPE:-kw}
MODES=${MODES:-"receive=socket receive=xdp"}
COLLECTOR=$BUILD/collector/dta-collector
TRANSLATOR=$BUILD/translator/dta-translator
GEN=$BUILD/gen/dta-gen
[ "$(id -u)" = 0 ] || { echo "translator_xdp: needs root (namespaces, XDP)" >&2; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/dta-bench-xdp.XXXXXX")
PORT=$((43000 + $$ % 10000))
NS=dtabs-$$
NT=dtabt-$$
CPID=
TPID=
cleanup() {
	for p in $TPID $CPID; do kill "$p" 2>/dev/null || true; done
	for p in $TPID $CPID; do wait "$p" 2>/dev/null || true; done
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$NT" 2>/dev/null || true
	umount "$D/shm" 2>/dev/null || true
	rm -rf "$D"
	rm -f /dev/shm/dta-bench-xdp-$$.*
}
trap cleanup EXIT INT TERM
SHM_LINE=
if [ "${PAGES:-shm}" = tmpfs ]; then
	mkdir -m 0700 "$D/shm"
	mount -t tmpfs -o huge=within_size,size=2g,mode=0700 dta-bench-xdp "$D/shm"
	SHM_LINE="shm_dir = $D/shm"
fi
ip netns add "$NS"
ip netns add "$NT"
ip link add veth0 netns "$NS" type veth peer name veth0 netns "$NT"
ip -n "$NS" addr add 198.19.254.1/30 dev veth0
ip -n "$NT" addr add 198.19.254.2/30 dev veth0
for ns in "$NS" "$NT"; do
	ip -n "$ns" link set lo up
	ip -n "$ns" link set veth0 up
done

conf() { # KEYS
	cat <<EOF
[collector]
name = bench-xdp-$$
socket = $D/collector.sock
snapshot_dir = $D/snap
$SHM_LINE

[translator]
port = $PORT
bind = 0.0.0.0
xdp_interface = veth0
EOF
	echo "$1" | tr ',' '\n'
	cat <<EOF

[structure paths]
primitive = key-write
slots = ${SLOTS:-4M}
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

# One run: prints "M_PER_TRANSLATOR_CPU_S RECEIVED_% GEN_CPU_S M_PER_BOTH_CPU_S".
one() { # KEYS [PERF_OUT]
	conf "$1" > "$D/t.conf"
	: > "$D/t.out"
	rm -f "$D/t.json"
	ip netns exec "$NT" "$TRANSLATOR" -c "$D/t.conf" -o "$D/t.json" -q \
		> "$D/t.out" 2> "$D/t.log" &
	TPID=$!
	ready "$D/t.out"
	perf=
	if [ -n "${2:-}" ]; then
		perf record -g -o "$D/perf.data" -p "$TPID" 2>/dev/null &
		perf=$!
	fi
	c0=$(cpu_ticks $TPID)
	ip netns exec "$NS" "$GEN" -d 198.19.254.2:$PORT -t "$TYPE" -n "$N" \
		-k $((N / 2)) 2> "$D/gen.log" &
	g=$!
	g0=0
	while kill -0 $g 2>/dev/null; do
		g0=$(cpu_ticks $g 2>/dev/null || echo "$g0")
		sleep 0.05
	done
	wait $g
	# Until every datagram is received or counted dropped.
	i=0
	while :; do
		got=$(( $(stat_of "$D/t.json" packets) + $(stat_of "$D/t.json" socket_drops) ))
		[ "$got" -lt "$N" ] || break
		i=$((i + 1)); [ $i -lt 300 ] || break
		sleep 0.1
	done
	c1=$(cpu_ticks $TPID)
	if [ -n "$perf" ]; then
		kill -INT $perf; wait $perf || true
		perf report -i "$D/perf.data" --stdio --no-children --percent-limit 1 \
			> "$2" 2>/dev/null || true
	fi
	kill -TERM $TPID
	wait $TPID || true
	TPID=
	recv=$(stat_of "$D/t.out" reports_in)
	awk -v r="$recv" -v c=$((c1 - c0)) -v g="$g0" -v hz="$HZ" -v n="$N" \
		'BEGIN { printf "%.3f %.1f %.2f %.3f\n", c ? r / (c / hz) / 1e6 : 0,
		         100 * r / n, g / hz, c + g ? r / ((c + g) / hz) / 1e6 : 0 }'
}

# nfcapd (nfdump) in the translator's namespace, the same Key-Write
# records as NetFlow v5, one record per datagram (bench/nf5send.py with
# NF5_PER_DATAGRAM=1, as fast as it sends), prints as one(); "received"
# is what nfcapd stored (nfdump -I).
NF_PCAP=
one_nfcapd() {
	if [ -z "$NF_PCAP" ]; then
		NF_PCAP=$D/kw.pcap
		"$GEN" -t kw -n "$N" -k $((N / 2)) -w "$NF_PCAP" 2> /dev/null
	fi
	rm -rf "$D/nf"
	mkdir "$D/nf"
	ip netns exec "$NT" nfcapd -w "$D/nf" -b 198.19.254.2 -p "$PORT" -t 86400 \
		-B 8388608 > "$D/nf.log" 2>&1 &
	TPID=$!
	i=0
	until grep -q Startup "$D/nf.log" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 600 ] || { cat "$D/nf.log" >&2; exit 1; }
		sleep 0.05
	done
	c0=$(cpu_ticks $TPID)
	NF5_PER_DATAGRAM=1 ip netns exec "$NS" python3 "$(dirname "$0")/nf5send.py" \
		"$NF_PCAP" 198.19.254.2 "$PORT" > "$D/nf5send.out" &
	g=$!
	g0=0
	while kill -0 $g 2>/dev/null; do
		g0=$(cpu_ticks $g 2>/dev/null || echo "$g0")
		sleep 0.05
	done
	wait $g
	sleep 1 # what its socket holds
	c1=$(cpu_ticks $TPID)
	kill -TERM $TPID
	wait $TPID || true
	TPID=
	stored=$(nfdump -r "$(ls "$D"/nf/nfcapd.2*)" -I | sed -n 's/^Flows: //p')
	awk -v r="$stored" -v c=$((c1 - c0)) -v g="$g0" -v hz="$HZ" -v n="$N" \
		'BEGIN { printf "%.3f %.1f %.2f %.3f\n", c ? r / (c / hz) / 1e6 : 0,
		         100 * r / n, g / hz, c + g ? r / ((c + g) / hz) / 1e6 : 0 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "translator_xdp: $N $TYPE reports, one per datagram, veth between namespaces, $RUNS runs; load: $(uptime | sed 's/.*load/load/')"
for r in $(seq "$RUNS"); do
	for m in $MODES; do
		case $m in
		nfcapd) echo "$m $(one_nfcapd)" >> "$D/results" ;;
		*) echo "$m $(one "$m")" >> "$D/results" ;;
		esac
	done
done
printf '%-22s %18s %9s %10s %13s\n' "mode ([translator])" "M/translator-CPU-s" "received" "gen CPU-s" "M/CPU-s both"
for m in $MODES; do
	col() { awk -v m="$m" -v k="$1" '$1 == m { print $k }' "$D/results" | median; }
	all=$(awk -v m="$m" '$1 == m { printf "%s ", $2 }' "$D/results")
	printf '%-22s %18s %8s%% %10s %13s   (runs: %s)\n' "$m" "$(col 2)" "$(col 3)" \
		"$(col 4)" "$(col 5)" "$all"
done
if [ -n "${PERF:-}" ]; then
	mkdir -p "$PERF"
	for m in $MODES; do
		one "$m" "$PERF/$(echo "$m" | tr '=,' '-_').txt" > /dev/null
	done
	echo "profiles in $PERF"
fi
echo "load after: $(uptime | sed 's/.*load/load/')"
