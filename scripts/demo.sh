#!/bin/sh
# The main job: a whole DTA system on this machine.
#
# Starts dta-collector (structures in shared memory) and dta-translator
# (UDP on loopback), sends a workload of every primitive with dta-gen,
# queries everything back with dta-query verify, prints query success next
# to what the paper's analysis expects (with its standard error) and the
# rates achieved, shows a few single
# queries, and shuts down cleanly (snapshots written on the way out).
#
# Usage: scripts/demo.sh BUILD_DIR [SCALE]
#   SCALE multiplies the workload sizes (default 1: about 10 seconds).
set -eu

build=${1:?usage: demo.sh BUILD_DIR [SCALE]}
scale=${2:-1}
bin() { echo "$build/$1/$2"; }
collector=$(bin collector dta-collector)
translator=$(bin translator dta-translator)
gen=$(bin gen dta-gen)
query=$(bin query dta-query)

work=$(mktemp -d "${TMPDIR:-/tmp}/dta-demo.XXXXXX")
name=demo$$
port=$((41000 + $$ % 20000))
cpid=
tpid=
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null || true
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

n() { echo $(($1 * scale)); }

cat > "$work/dta.conf" <<EOF
# Written by scripts/demo.sh. Sizes are chosen so that Key-Write and
# Postcarding run at a load where some old keys are overwritten, and the
# analytic bounds have something to say.
[collector]
name = $name
socket = $work/collector.sock
snapshot_dir = $work/snapshots

[translator]
port = $port
bind = 127.0.0.1

# INT path tracing: 5 switch ids per flow, 2 copies per report.
[structure paths]
primitive = key-write
slots = $(n 262144)
data = 20
redundancy = 2

# INT postcards on a k=8 fat tree (switch ids 1-80).
[structure postcards]
primitive = postcard
chunks = $(n 65536)
hops = 5
redundancy = 2
values = 1-80

# Congestion events: 4 lists, 64 Ki entries of ring each.
[structure events]
primitive = append
lists = 4
batches = $(n 4096)
batch = 16
entry = 8

# Per-flow packet counters (TurboFlow / Marple style).
[structure counters]
primitive = key-increment
width = $(n 65536)
rows = 2
EOF

wait_ready() { # FILE WHAT
	i=0
	while ! grep -q '^ready' "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			echo "demo: $2 did not start:" >&2
			cat "$1" "$1.err" >&2 2>/dev/null || true
			exit 1
		fi
		sleep 0.05
	done
}

echo "== DTA demo: collector + translator + traffic on this machine ($work)"
"$collector" -c "$work/dta.conf" >"$work/collector.out" 2>"$work/collector.out.err" &
cpid=$!
wait_ready "$work/collector.out" dta-collector
"$translator" -c "$work/dta.conf" -o "$work/translator.json" \
	>"$work/translator.out" 2>"$work/translator.out.err" &
tpid=$!
wait_ready "$work/translator.out" dta-translator
"$query" -c "$work/dta.conf" info | sed 's/^/   /'

echo "== sending (dta-gen, UDP to 127.0.0.1:$port, paced to 1 M reports/s)"
g() { "$gen" -d 127.0.0.1:$port -r 1000000 "$@" 2>&1 | sed 's/^dta-gen: /   /'; }
printf '   key-write     '; g -t kw -n "$(n 300000)" -k "$(n 200000)" -T "$work/kw.truth"
printf '   postcard      '; g -t pc -n "$(n 50000)" -T "$work/pc.truth"
printf '   append        '; g -t ap -n "$(n 200000)" --lists 4 --entry 8 --batch 8 -T "$work/ap.truth"
printf '   key-increment '; g -t ki -n "$(n 500000)" -k "$(n 20000)" -z 1.1 --batch 8 -T "$work/ki.truth"
sleep 0.3 # partial Append batches are written after their 1 ms timeout

echo "== querying everything back (dta-query verify against dta-gen's truth)"
for t in kw pc ap ki; do
	"$query" -c "$work/dta.conf" verify --truth "$work/$t.truth" | sed 's/^/   /'
done

echo "== single queries"
key=$(sed -n 's/^kw \([0-9a-f]*\) .*/\1/p' "$work/kw.truth" | tail -n 1)
flow=$(sed -n 's/^pc \([0-9a-f]*\) .*/\1/p' "$work/pc.truth" | tail -n 1)
ckey=$(sed -n 's/^ki \([0-9a-f]*\) .*/\1/p' "$work/ki.truth" | head -n 1)
echo "   $ dta-query kw get paths 0x$key"
"$query" -c "$work/dta.conf" kw get paths "0x$key" | sed 's/^/     /'
echo "   $ dta-query pc path postcards 0x$flow"
"$query" -c "$work/dta.conf" pc path postcards "0x$flow" | sed 's/^/     /'
echo "   $ dta-query ap tail events 0 -n 3"
"$query" -c "$work/dta.conf" ap tail events 0 -n 3 | sed 's/^/     /'
echo "   $ dta-query ki get counters 0x$ckey"
"$query" -c "$work/dta.conf" ki get counters "0x$ckey" | sed 's/^/     /'

echo "== shutting down"
kill -TERM "$tpid"
wait "$tpid" || true
tpid=
tr -d '{}"' < "$work/translator.out" | grep packets | tr ',' '\n' |
	grep -E '^(packets|reports_|malformed|seq_lost|ops_|pc_evictions|ap_batches|ap_partial)' |
	sed 's/:/ /' | awk '{ printf "   translator %-22s %s\n", $1, $2 }'
kill -TERM "$cpid"
wait "$cpid" || true
cpid=
grep -h 'snapshots written' "$work/collector.out.err" | sed 's/^dta-collector: /   collector: /'
echo "== done"
