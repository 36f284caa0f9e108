#!/bin/sh
# INT telemetry reports per CPU-second of the translator core, by version
# and mode, beside DTA v1 reports making the same writes, in one run
# (bench_int interleaves the workloads; medians of RUNS).
#
# Usage: bench/int_rates.sh BUILD_DIR [REPORTS] [RUNS]
#
# Three tables, each one bench_int run with its own configuration:
#  1. paths as Key-Write: DTA v1 kw (5 switch ids, 20 bytes, N=2) against
#     INT-MD reports (one per flow, a 5-hop stack) of v0.5, v1.0 and v2.0
#     mapped to the same structure; DTA v1 ap (32-byte entries) against
#     INT drop (D) and congestion (Q) reports into the same Append list.
#  2. paths as Postcarding: DTA v1 pc against INT postcards (one report per
#     hop, hop index from the inner TTL) of each version; and 8 reports per
#     datagram (DTA v1 --batch 8, INT v2.0 --batch 8).
#  3. every role mapped (path, hop records, events, flow and queue
#     counters, as tests/e2e's INT configuration): what an INT deployment
#     costs in full, against DTA v1 kw.
# REPORTS is dta-gen's -n for each workload (flows for pc/int-pc/int-md).
set -eu
BUILD=$1
N=${2:-100000}
RUNS=${3:-5}
GEN=$BUILD/gen/dta-gen
BENCH=$BUILD/bench/bench_int
D=$(mktemp -d "${TMPDIR:-/tmp}/dta-bench-int.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM

gen() { # NAME ARGS...
	name=$1
	shift
	"$GEN" -n "$N" -s 7 -w "$D/$name" "$@" > /dev/null
}

structs() { # PATH_PRIMITIVE
	if [ "$1" = key-write ]; then
		printf '[structure paths]\nprimitive = key-write\nslots = 4M\ndata = 20\nredundancy = 2\n'
	else
		printf '[structure paths]\nprimitive = postcard\nchunks = 1M\nhops = 5\nvalues = 1-80\n'
	fi
	cat <<EOF
[structure events]
primitive = append
entry = 32
lists = 1
batch = 16
batches = 65536
[structure hops]
primitive = key-write
slots = 4M
data = 16
redundancy = 2
[structure flows]
primitive = key-increment
width = 1M
[structure queues]
primitive = key-increment
width = 4K
EOF
}

conf() { # PATH_PRIMITIVE ROLES
	printf '[int]\nttl_init = 64\n%s\n\n' "$2"
	structs "$1"
}

for v in 0.5 1.0 2.0; do
	gen int-md-v$v -t int-md --int-version "$v"
	gen int-drop-v$v -t int-drop --int-version "$v"
	gen int-q-v$v -t int-q --int-version "$v"
	gen int-pc-v$v -t int-pc --int-version "$v"
done
gen int-pc-v2.0-x8 -t int-pc --int-version 2.0 --batch 8
gen dta-kw -t kw --data 20 -R 2
gen dta-ap -t ap --entry 32
gen dta-pc -t pc
gen dta-pc-x8 -t pc --batch 8

conf key-write "path = paths
events = events" > "$D/kw.conf"
conf postcard "path = paths" > "$D/pc.conf"
conf key-write "path = paths
hops = hops
events = events
flow_counts = flows
queue_counts = queues" > "$D/all.conf"

echo "# load before: $(cat /proc/loadavg)"
echo "## 1. paths as Key-Write, events as Append (same writes)"
"$BENCH" -c "$D/kw.conf" -m "$RUNS" -d "$D/dta-kw" \
	-i "$D/int-md-v0.5" -i "$D/int-md-v1.0" -i "$D/int-md-v2.0" \
	-d "$D/dta-ap" -i "$D/int-drop-v0.5" -i "$D/int-drop-v1.0" \
	-i "$D/int-drop-v2.0" -i "$D/int-q-v0.5" -i "$D/int-q-v1.0" -i "$D/int-q-v2.0"
echo "## 2. paths as Postcarding (same writes)"
"$BENCH" -c "$D/pc.conf" -m "$RUNS" -d "$D/dta-pc" \
	-i "$D/int-pc-v0.5" -i "$D/int-pc-v1.0" -i "$D/int-pc-v2.0" \
	-d "$D/dta-pc-x8" -i "$D/int-pc-v2.0-x8"
echo "## 3. every INT role mapped"
"$BENCH" -c "$D/all.conf" -m "$RUNS" -d "$D/dta-kw" \
	-i "$D/int-md-v0.5" -i "$D/int-md-v1.0" -i "$D/int-md-v2.0" \
	-i "$D/int-pc-v0.5" -i "$D/int-pc-v1.0" -i "$D/int-pc-v2.0" \
	-i "$D/int-pc-v2.0-x8" -i "$D/int-drop-v2.0" -i "$D/int-q-v2.0"
echo "# load after: $(cat /proc/loadavg)"
