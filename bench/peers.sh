#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Our translator beside the CPU collectors a user would pick instead, on the
# same workload, in the same run (issue 13, "Peers in the same run").
#
#   dta-translator  Key-Write (N = 2, 20-byte values) into the collector's
#                   shared memory, reports from dta-gen over loopback UDP,
#                   28 (a full 1400-byte datagram), 8 and 1 per datagram
#   nfcapd          Debian's nfdump: the same flows as NetFlow v5 (30
#                   records per datagram) and v9, replayed with nfreplay
#   redis-server    SET of 13-byte keys and 20-byte values from
#                   redis-benchmark, -P 1 and -P 16, over loopback TCP
#
# The workload: RECORDS records over FLOWS distinct IPv4 5-tuples (13-byte
# keys) with 20-byte values (a 5-hop INT path), in dta-gen's order. dta-gen
# writes it once as a pcap; bench/nf5send.py sends exactly those records
# as NetFlow v5 to a capturing nfcapd, whose file nfreplay then replays;
# redis-benchmark draws its keys from FLOWS as well. Every sender runs as
# fast as it goes.
#
# What is measured: the CPU time of the receiving process only (all its
# threads, from /proc/PID/task/*/schedstat, nanoseconds) from just before
# its sender starts until it has taken everything in its socket queue,
# divided by the records it stored: reports the translator applied,
# records nfcapd wrote to its file (nfdump -I), SETs redis-server
# answered. Whatever was lost is counted and printed beside the rate, never
# hidden in it. Each measurement is taken 3 times, the sides alternating,
# and the median is printed; then the ratios of ours to each peer and the
# load (uptime) of the machine.
#
# Paced mode (PEERS_RATES="R ..." records per second, issue 27): ours and
# nfcapd are each offered the same records at the same paced rate by the
# same sender (bench/pacesend.py: the workload's pcap as DTA, 28 reports
# per datagram, or as NetFlow v5, 30 per datagram), and what each stored
# of what was sent is printed beside its CPU rate. The as-fast-as-possible
# comparison measures cost; the paced one whether a receiver keeps up.
#
# Usage: bench/peers.sh BUILD_DIR
# Environment: PEERS_RECORDS (default 2000000), PEERS_FLOWS (1000000),
#   PEERS_SLOTS (Key-Write slots, default 4194304: 96 MiB of 24-byte slots),
#   PEERS_REPS (3), PEERS_REDIS_P1 (SETs at -P 1, default 200000),
#   PEERS_PERF (a directory: also profile one run of ours and of nfcapd
#   with perf record -g, after the measured runs),
#   PEERS_PAGES: where the collector keeps the structure: tmpfs (default as
#   root: the default configuration's shm_dir, a tmpfs mounted
#   huge=within_size in the work directory, 2 MiB pages), shm (/dev/shm;
#   the default when not root), hugetlbfs (as root: below; also
#   PEERS_HUGETLBFS=1),
#   PEERS_RATES (paced mode, above; e.g. "250000 1000000"),
#   PEERS_SIDES (the as-fast-as-possible sides to run, default
#   "dta28 dta8 dta1 nf5 nf9 redis1 redis16"; "" for paced mode only),
#   PEERS_STRESS=N (`stress-ng --cpu N` runs beside every measurement).
# Run as root it installs nfdump, redis-server and redis-tools when they
# are missing; as another user it prints the apt-get line and exits 1.
# A benchmark: it prints figures and is not part of the test suite.
set -euo pipefail

build=${1:?usage: bench/peers.sh BUILD_DIR}
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
records=${PEERS_RECORDS:-2000000}
flows=${PEERS_FLOWS:-1000000}
slots=${PEERS_SLOTS:-4194304}
reps=${PEERS_REPS:-3}
redis_p1=${PEERS_REDIS_P1:-200000}

# ---- huge pages (PEERS_HUGETLBFS=1, root) ----
# The collector puts shared regions on hugetlbfs when one is mounted with
# free pages: the script then runs again inside a private mount namespace
# with hugetlbfs at /dev/hugepages and enough 2 MiB pages reserved for the
# table, and puts vm.nr_hugepages back afterwards.
[ "${PEERS_HUGETLBFS:-0}" != 1 ] || PEERS_PAGES=hugetlbfs
if [ -z "${PEERS_PAGES:-}" ]; then
	PEERS_PAGES=shm
	[ "$(id -u)" != 0 ] || PEERS_PAGES=tmpfs
fi
case $PEERS_PAGES in tmpfs|shm|hugetlbfs) ;;
*) echo "peers: PEERS_PAGES is tmpfs, shm or hugetlbfs" >&2; exit 1 ;;
esac
export PEERS_PAGES
if [ "$PEERS_PAGES" = hugetlbfs ] && [ -z "${PEERS_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "peers: PEERS_HUGETLBFS needs root" >&2; exit 1; }
	old_pages=$(cat /proc/sys/vm/nr_hugepages)
	made_dir=no
	[ -d /dev/hugepages ] || { mkdir /dev/hugepages; made_dir=yes; }
	put_back() {
		echo "$old_pages" > /proc/sys/vm/nr_hugepages
		[ $made_dir = no ] || rmdir /dev/hugepages
	}
	trap put_back EXIT INT TERM
	# 24-byte slots plus headers, in 2 MiB pages, and some to spare.
	echo $((old_pages + slots * 24 / 2097152 + 16)) > /proc/sys/vm/nr_hugepages
	rc=0
	PEERS_IN_NS=1 unshare -m --propagation private sh -c '
		mount -t hugetlbfs -o pagesize=2M none /dev/hugepages &&
		exec bash "$0" "$1"' "$0" "$build" || rc=$?
	exit $rc
fi
[ "$PEERS_PAGES" != tmpfs ] || [ "$(id -u)" = 0 ] ||
	{ echo "peers: PEERS_PAGES=tmpfs needs root (it mounts a tmpfs)" >&2; exit 1; }
rates=${PEERS_RATES:-}
sides=${PEERS_SIDES-dta28 dta8 dta1 nf5 nf9 redis1 redis16}
stress=${PEERS_STRESS:-0}

# ---- packages ----
pkgs="nfdump redis-server redis-tools python3"
[ "$stress" = 0 ] || pkgs="$pkgs stress-ng"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "peers: installing$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086 # one word per package
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "peers: missing packages; install them with:" >&2
		echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
		exit 1
	fi
fi
for b in "$build/collector/dta-collector" "$build/translator/dta-translator" \
	 "$build/gen/dta-gen"; do
	[ -x "$b" ] || { echo "peers: no $b (build first)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/dta-peers.XXXXXX")
base_port=$((43000 + $$ % 10000))
dta_port=$base_port
nf_port=$((base_port + 1))
redis_port=$((base_port + 2))
pids=()
shm_mnt=
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	[ -z "$shm_mnt" ] || umount "$shm_mnt" 2>/dev/null || umount -l "$shm_mnt" || true
	rm -rf "$work"
	rm -f /dev/shm/dta-peers$$.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "peers: $*" >&2; exit 1; }

# CPU time of process $1, all its threads, in nanoseconds.
cpu_ns() {
	local s=0 t a
	for t in /proc/"$1"/task/*/schedstat; do
		read -r a _ < "$t" && s=$((s + a))
	done
	echo "$s"
}
# Its threads: a thread that exits between two readings would take its
# CPU time with it, so a measurement where they changed is refused.
tids() { echo /proc/"$1"/task/*; }

# rx_queue (bytes) and drops of the UDP socket bound to 127.0.0.1:$1.
udp_sock() {
	local want local_addr queues rest
	want=$(printf '0100007F:%04X' "$1")
	while read -r _ local_addr _ _ queues rest; do
		[ "$local_addr" = "$want" ] || continue
		echo "$((16#${queues#*:})) ${rest##* }"
		return 0
	done < /proc/net/udp
	return 1
}

# Wait until the socket on port $1 has an empty queue (twice in a row).
drain_udp() {
	local i=0 q empty=0
	while [ $empty -lt 2 ]; do
		read -r q _ < <(udp_sock "$1") || die "no socket on port $1"
		if [ "$q" = 0 ]; then empty=$((empty + 1)); else empty=0; fi
		i=$((i + 1))
		[ $i -lt 6000 ] || die "port $1: queue not drained after 60 s"
		sleep 0.01
	done
}

wait_for() { # FILE PATTERN WHAT
	local i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 1200 ] || { cat "$1" >&2; die "$3 did not start"; }
		sleep 0.05
	done
}

# A counter from a JSON object on stdin (the translator's stats).
jnum() { tr ',{}' '\n' | sed -n "s/^\"$1\":\([0-9]*\)$/\1/p" | head -n 1; }

# "M per CPU-s, % stored" of STORED SENT NANOSECONDS.
result() {
	awk -v a="$1" -v s="$2" -v ns="$3" \
		'BEGIN { printf "%.3f %.2f\n", (ns > 0 ? a / ns * 1e3 : 0), 100 * a / s }'
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# With PEERS_PERF=DIR, one more run of ours (28 per datagram) and of
# nfcapd (v5) after the measured ones, under perf record -g, reports in
# DIR. Off during the measured runs: perf's sampling costs the profiled
# process CPU time.
perf_to=
perf_pid=
perf_start() {
	[ -n "$perf_to" ] || return 0
	perf record -q -g -o "$perf_to.data" -p "$1" 2> /dev/null &
	perf_pid=$!
	pids+=("$perf_pid")
	sleep 0.5 # perf attaches
}
perf_stop() {
	[ -n "$perf_pid" ] || return 0
	kill -INT "$perf_pid"
	wait "$perf_pid" || true
	perf_pid=
	perf report -i "$perf_to.data" --stdio --no-children -g none \
		--percent-limit 0.5 2> /dev/null |
		grep -v '^$' | head -n 80 > "$perf_to.txt"
	rm -f "$perf_to.data"
}

# ---- our side: one collector and translator for the whole run ----
# The structure's pages (PEERS_PAGES): the default configuration's shm_dir
# on a huge tmpfs, /dev/shm, or hugetlbfs (mounted above).
shm_line=
case $PEERS_PAGES in
tmpfs)
	mkdir "$work/shm"
	mount -t tmpfs -o huge=within_size,size=$((slots * 24 * 2 / 1048576 + 64))m,mode=0700 \
		dta-peers "$work/shm" || die "cannot mount a tmpfs with huge=within_size"
	shm_mnt=$work/shm
	shm_line="shm_dir = $shm_mnt" ;;
esac
cat > "$work/dta.conf" <<EOF
[collector]
name = peers$$
socket = $work/collector.sock
$shm_line

[translator]
port = $dta_port
bind = 127.0.0.1

[structure paths]
primitive = key-write
slots = $slots
data = 20
redundancy = 2
EOF
"$build/collector/dta-collector" -c "$work/dta.conf" > "$work/collector.out" 2>&1 &
pids+=($!)
wait_for "$work/collector.out" '^ready' dta-collector
pages_note="shared memory: $(sed -n 's/^dta-collector: paths: key-write, [0-9]* bytes at \(.*\)$/\1/p' "$work/collector.out") (PEERS_PAGES=$PEERS_PAGES)"
"$build/translator/dta-translator" -c "$work/dta.conf" -o "$work/t.json" \
	> "$work/translator.out" 2> "$work/translator.err" &
tpid=$!
pids+=("$tpid")
wait_for "$work/translator.out" '^ready' dta-translator
wait_for "$work/t.json" '}' "dta-translator's stats file"

# The translator's count of datagrams it accounted for (received, dropped
# by the kernel, refused).
t_accounted() {
	local js
	js=$(cat "$work/t.json")
	echo $(($(jnum packets <<< "$js") + $(jnum socket_drops <<< "$js") +
		$(jnum refused_source <<< "$js") + $(jnum rx_truncated <<< "$js")))
}

reporter=1
gen_args=(-t kw -n "$records" -k "$flows" -s 7 --data 20 -R 2)

# One measurement of ours: PER reports per datagram. Sets out to
# "RATE STORED_SHARE" (M reports applied per CPU-s, % applied of sent).
run_dta() {
	local per=$1 js0 js1 c0 c1 t0 sent dgrams want i
	reporter=$((reporter + 1))
	js0=$(cat "$work/t.json")
	t0=$(tids "$tpid")
	c0=$(cpu_ns "$tpid")
	perf_start "$tpid"
	"$build/gen/dta-gen" "${gen_args[@]}" --batch "$per" \
		--reporter "$reporter" -d "127.0.0.1:$dta_port" 2> "$work/gen.out"
	sent=$(sed -n 's/^dta-gen: \([0-9]*\) reports in \([0-9]*\) datagrams.*/\1/p' "$work/gen.out")
	dgrams=$(sed -n 's/^dta-gen: \([0-9]*\) reports in \([0-9]*\) datagrams.*/\2/p' "$work/gen.out")
	want=$(($(jnum packets <<< "$js0") + $(jnum socket_drops <<< "$js0") +
		$(jnum refused_source <<< "$js0") + $(jnum rx_truncated <<< "$js0") + dgrams))
	i=0
	while [ "$(t_accounted)" -lt "$want" ]; do
		i=$((i + 1))
		[ $i -lt 3000 ] || die "translator accounted for fewer than $dgrams datagrams after 30 s"
		sleep 0.01
	done
	drain_udp "$dta_port"
	c1=$(cpu_ns "$tpid")
	perf_stop
	[ "$(tids "$tpid")" = "$t0" ] || die "the translator's threads changed during a measurement"
	js1=$(cat "$work/t.json")
	local applied=$(($(jnum reports_key_write <<< "$js1") - $(jnum reports_key_write <<< "$js0")))
	local lost=$(($(jnum seq_lost <<< "$js1") - $(jnum seq_lost <<< "$js0")))
	local drops=$(($(jnum socket_drops <<< "$js1") - $(jnum socket_drops <<< "$js0")))
	echo "$per $applied $sent $lost $drops $((c1 - c0))" >> "$work/dta.raw"
	out=$(result "$applied" "$sent" "$((c1 - c0))")
}

# One paced measurement of ours: the workload's pcap (28 per datagram) at
# RATE records/s through bench/pacesend.py. Sets out.
run_dta_paced() {
	local rate=$1 js0 js1 c0 c1 t0 sent dgrams want i
	reporter=$((reporter + 1))
	js0=$(cat "$work/t.json")
	t0=$(tids "$tpid")
	c0=$(cpu_ns "$tpid")
	python3 "$here/pacesend.py" dta "$work/kw.pcap" 127.0.0.1 "$dta_port" \
		"$rate" "$reporter" > "$work/pace.out"
	sent=$(sed -n 's/^\([0-9]*\) records in \([0-9]*\) datagrams.*/\1/p' "$work/pace.out")
	dgrams=$(sed -n 's/^\([0-9]*\) records in \([0-9]*\) datagrams.*/\2/p' "$work/pace.out")
	want=$(($(jnum packets <<< "$js0") + $(jnum socket_drops <<< "$js0") +
		$(jnum refused_source <<< "$js0") + $(jnum rx_truncated <<< "$js0") + dgrams))
	i=0
	while [ "$(t_accounted)" -lt "$want" ]; do
		i=$((i + 1))
		[ $i -lt 3000 ] || die "translator accounted for fewer than $dgrams datagrams after 30 s"
		sleep 0.01
	done
	drain_udp "$dta_port"
	c1=$(cpu_ns "$tpid")
	[ "$(tids "$tpid")" = "$t0" ] || die "the translator's threads changed during a measurement"
	js1=$(cat "$work/t.json")
	local applied=$(($(jnum reports_key_write <<< "$js1") - $(jnum reports_key_write <<< "$js0")))
	local drops=$(($(jnum socket_drops <<< "$js1") - $(jnum socket_drops <<< "$js0")))
	echo "paced $rate $applied $sent $drops $((c1 - c0)) $(cat "$work/pace.out")" >> "$work/paced.raw"
	out=$(result "$applied" "$sent" "$((c1 - c0))")
}

# ---- nfcapd: capture the workload once as NetFlow v5 ----
# (kw.pcap stays: paced mode sends it again, to both sides)
"$build/gen/dta-gen" "${gen_args[@]}" --batch 28 -w "$work/kw.pcap" 2> "$work/gen.out"
mkdir "$work/cap"
nfcapd -w "$work/cap" -b 127.0.0.1 -p "$nf_port" -t 86400 -B 8388608 \
	> "$work/cap.log" 2>&1 &
cpid=$!
pids+=("$cpid")
wait_for "$work/cap.log" 'Startup' nfcapd
# Paced so that the capture keeps everything (checked below).
python3 "$here/nf5send.py" "$work/kw.pcap" 127.0.0.1 "$nf_port" 20000 > "$work/nf5send.out"
drain_udp "$nf_port"
kill -TERM "$cpid"
wait "$cpid" || true
nffile=$(ls "$work"/cap/nfcapd.2*)
captured=$(nfdump -r "$nffile" -I | sed -n 's/^Flows: //p')
[ "$captured" = "$records" ] ||
	die "the capture holds $captured of $records records ($(cat "$work/nf5send.out"))"

nf_run=0
# One measurement of nfcapd: nfreplay -v VERSION, or with "paced RATE"
# bench/pacesend.py nf5 at RATE records/s. Sets out.
run_nfcapd() {
	local v=$1 rate=${2:-} dir c0 c1 t0 pid stored
	nf_run=$((nf_run + 1))
	dir=$work/rep$nf_run
	mkdir "$dir"
	nfcapd -w "$dir" -b 127.0.0.1 -p "$nf_port" -t 86400 -B 8388608 \
		> "$dir.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	wait_for "$dir.log" 'Startup' nfcapd
	t0=$(tids "$pid")
	c0=$(cpu_ns "$pid")
	perf_start "$pid"
	if [ "$v" = paced ]; then
		python3 "$here/pacesend.py" nf5 "$work/kw.pcap" 127.0.0.1 "$nf_port" \
			"$rate" > "$dir.replay"
	else
		nfreplay -r "$nffile" -v "$v" -H 127.0.0.1 -p "$nf_port" -d 0 > "$dir.replay" 2>&1
	fi
	drain_udp "$nf_port"
	c1=$(cpu_ns "$pid")
	perf_stop
	[ "$(tids "$pid")" = "$t0" ] || die "nfcapd's threads changed during a measurement"
	kill -TERM "$pid"
	wait "$pid" || true
	stored=$(nfdump -r "$(ls "$dir"/nfcapd.2*)" -I | sed -n 's/^Flows: //p')
	rm -rf "$dir"
	echo "v$v $rate $stored $records $((c1 - c0)) $(cat "$dir.replay" | tail -n 1)" >> "$work/nf.raw"
	out=$(result "$stored" "$records" "$((c1 - c0))")
}

# ---- redis-server: one server, its keys filled once ----
case " $sides " in *" redis"*) ;; *) redis_off=1 ;; esac
if [ -z "${redis_off:-}" ]; then
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
	--protected-mode yes --daemonize no --logfile "$work/redis.log" &
rpid=$!
pids+=("$rpid")
wait_for "$work/redis.log" 'Ready to accept' redis-server
value=xxxxxxxxxxxxxxxxxxxx # 20 bytes, as -d 20 would send
# "k" and __rand_int__ (12 digits): a 13-byte key.
rb() { redis-benchmark -h 127.0.0.1 -p "$redis_port" -r "$flows" "$@" \
	SET k__rand_int__ "$value"; }
rb -n "$((2 * flows))" -P 16 -q > /dev/null
fi
# One measurement of redis-server: -P DEPTH, COUNT SETs. Sets out.
run_redis() {
	local depth=$1 n=$2 c0 c1 t0 done0 done1
	t0=$(tids "$rpid")
	done0=$(redis-cli -h 127.0.0.1 -p "$redis_port" info commandstats |
		sed -n 's/^cmdstat_set:calls=\([0-9]*\),.*/\1/p')
	c0=$(cpu_ns "$rpid")
	rb -n "$n" -P "$depth" --csv > "$work/rb.out"
	c1=$(cpu_ns "$rpid")
	[ "$(tids "$rpid")" = "$t0" ] || die "redis-server's threads changed during a measurement"
	done1=$(redis-cli -h 127.0.0.1 -p "$redis_port" info commandstats |
		sed -n 's/^cmdstat_set:calls=\([0-9]*\),.*/\1/p')
	local ops=$((done1 - done0)) wall
	wall=$(sed -n 's/^"SET[^"]*","\([0-9.]*\)".*/\1/p' "$work/rb.out" | head -n 1)
	echo "P$depth $ops $n $((c1 - c0)) ${wall:-?}" >> "$work/redis.raw"
	out=$(result "$ops" "$n" "$((c1 - c0))")
}

# ---- warm-up: the translator maps every page of the structure once, as
# a long-running one has (redis was filled above) ----
run_dta 28
: > "$work/dta.raw"

# ---- measure: every side once per round, alternating ----
declare -A rate share
# shellcheck disable=SC2206 # one word per side
names=($sides)
for q in $rates; do
	names+=("pdta@$q" "pnf5@$q")
done
[ ${#names[@]} -gt 0 ] || die "nothing to measure (PEERS_SIDES and PEERS_RATES empty)"
spid=
if [ "$stress" != 0 ]; then
	stress-ng --cpu "$stress" --quiet > "$work/stress.log" 2>&1 &
	spid=$!
	pids+=("$spid")
	sleep 1
fi
load0=$(uptime)
for ((r = 1; r <= reps; r++)); do
	for s in "${names[@]}"; do
		case $s in
		dta28) run_dta 28 ;;
		dta8) run_dta 8 ;;
		dta1) run_dta 1 ;;
		nf5) run_nfcapd 5 ;;
		nf9) run_nfcapd 9 ;;
		redis1) run_redis 1 "$redis_p1" ;;
		redis16) run_redis 16 "$records" ;;
		pdta@*) run_dta_paced "${s#*@}" ;;
		pnf5@*) run_nfcapd paced "${s#*@}" ;;
		*) die "unknown side $s" ;;
		esac
		rate[$s]="${rate[$s]:-} ${out% *}"
		share[$s]="${share[$s]:-} ${out#* }"
	done
	echo "peers: round $r of $reps done" >&2
done
load1=$(uptime)
if [ -n "$spid" ]; then
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
fi
if [ -n "${PEERS_PERF:-}" ]; then
	mkdir -p "$PEERS_PERF"
	perf_to=$PEERS_PERF/dta-translator-28
	run_dta 28
	perf_to=$PEERS_PERF/nfcapd-v5
	run_nfcapd 5
	perf_to=
	echo "peers: profiles in $PEERS_PERF/dta-translator-28.txt and $PEERS_PERF/nfcapd-v5.txt" >&2
fi

# ---- report ----
label() {
	case $1 in
	dta28) echo "dta-translator KW N=2, 28 reports/datagram" ;;
	dta8) echo "dta-translator KW N=2,  8 reports/datagram" ;;
	dta1) echo "dta-translator KW N=2,  1 report/datagram" ;;
	nf5) echo "nfcapd, NetFlow v5 (nfreplay -v 5), 30/datagram" ;;
	nf9) echo "nfcapd, NetFlow v9 (nfreplay -v 9), ~7/datagram" ;;
	redis1) echo "redis-server SET, redis-benchmark -P 1" ;;
	redis16) echo "redis-server SET, redis-benchmark -P 16" ;;
	pdta@*) echo "dta-translator KW N=2, 28/dgram, paced ${1#*@}/s" ;;
	pnf5@*) echo "nfcapd NetFlow v5, 30/dgram, paced ${1#*@}/s" ;;
	esac
}
have() { [ -n "${med[$1]:-}" ] && [ -n "${med[$2]:-}" ]; }
declare -A med
for s in "${names[@]}"; do
	# shellcheck disable=SC2086 # one word per sample
	med[$s]=$(median ${rate[$s]})
done
echo "bench/peers.sh: $records records over $flows flows (13-byte keys, 20-byte values), median of $reps"
echo "load before: ${load0#*load average: }   after: ${load1#*load average: }   ($(nproc) CPUs)"
[ "$stress" = 0 ] || echo "beside stress-ng --cpu $stress (running during every measurement)"
echo "$pages_note"
echo "M records per CPU-s of the receiving process (samples); share of what was sent that it stored"
printf '%-50s %8s   %-26s %s\n' "receiver" "median" "samples" "stored"
for s in "${names[@]}"; do
	# shellcheck disable=SC2086
	printf '%-50s %8.2f   %-26s %s%%\n' "$(label "$s")" "${med[$s]}" \
		"$(printf '%s ' ${rate[$s]})" "$(median ${share[$s]})"
done
echo
echo "ours / peer (medians)"
ratio() { # OURS PEER TEXT
	have "$1" "$2" || return 0
	awk -v a="${med[$1]}" -v b="${med[$2]}" -v t="$3" \
		'BEGIN { printf "%-66s %6.2fx\n", t, (b > 0 ? a / b : 0) }'
}
ratio dta28 nf5 "KW 28/datagram  vs nfcapd NetFlow v5 30/datagram (goal >= 1.5x)"
ratio dta8 nf9 "KW 8/datagram   vs nfcapd NetFlow v9 ~7/datagram"
ratio dta28 nf9 "KW 28/datagram  vs nfcapd NetFlow v9 ~7/datagram"
ratio dta28 redis16 "KW 28/datagram  vs redis SET -P 16"
ratio dta1 redis1 "KW 1/datagram   vs redis SET -P 1"
for q in $rates; do
	ratio "pdta@$q" "pnf5@$q" "KW 28/datagram vs nfcapd v5, both paced at $q/s (per CPU-s)"
	# shellcheck disable=SC2086
	echo "  stored at $q/s: ours $(median ${share[pdta@$q]})%, nfcapd $(median ${share[pnf5@$q]})% (goal: ours >= 99% where nfcapd stores 100%)"
done
echo
echo "raw samples: ours (per applied sent lost drops ns), paced ours (rate applied sent drops ns sender), nfcapd (version rate stored sent ns sender)"
cat "$work/dta.raw" "$work/paced.raw" "$work/nf.raw" 2>/dev/null | sed 's/^/  /' 
