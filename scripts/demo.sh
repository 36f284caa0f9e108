#!/bin/sh
# The main job: a whole DTA system on this machine.
#
# Starts dta-collector (structures in shared memory: as root, on a tmpfs
# mounted huge=within_size in the work directory, so on 2 MiB pages, as
# the packaged configuration's shm_dir; not root, /dev/shm) and dta-translator
# (UDP on loopback), sends a workload of every primitive with dta-gen,
# prints per primitive the reports sent, received and lost (by cause, from
# the translator's counters), queries everything back with dta-query
# verify, prints query success (judged against everything sent, lost
# reports included, and saying how many were lost) next to what the
# paper's analysis expects (with its standard error) and the rates
# achieved, shows a few single queries, and shuts down cleanly
# (snapshots written on the way out).
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
shm=
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null || true
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -z "$shm" ] || umount "$shm" 2>/dev/null || umount -l "$shm" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Huge pages without hand work (docs/performance.md "Huge pages by
# default"): the structures in a tmpfs mounted huge=within_size.
shm_line=
if [ "$(id -u)" = 0 ]; then
	mkdir "$work/shm"
	if mount -t tmpfs -o huge=within_size,size=50%,mode=0700 dta-demo "$work/shm"; then
		shm=$work/shm
		shm_line="shm_dir = $shm"
	else
		echo "== could not mount a huge tmpfs on $work/shm: structures in /dev/shm (4 KiB pages)"
	fi
else
	echo "== not root: structures in /dev/shm, on 4 KiB pages (mounting a tmpfs with huge=within_size needs root; docs/performance.md#huge-pages)"
fi

n() { echo $(($1 * scale)); }

cat > "$work/dta.conf" <<EOF
# Written by scripts/demo.sh. Sizes are chosen so that Key-Write and
# Postcarding run at a load where some old keys are overwritten, and the
# analytic bounds have something to say.
[collector]
name = $name
socket = $work/collector.sock
snapshot_dir = $work/snapshots
$shm_line

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
echo "== the pages each structure got (the collector's log)"
grep -E -- '-byte pages\)|structures on 4 KiB pages' "$work/collector.out.err" | sed 's/^dta-collector: /   /'
"$translator" -c "$work/dta.conf" -o "$work/translator.json" \
	>"$work/translator.out" 2>"$work/translator.out.err" &
tpid=$!
wait_ready "$work/translator.out" dta-translator
"$query" -c "$work/dta.conf" info | sed 's/^/   /'

# A counter from the translator's stats file (rewritten atomically every
# 10 ms while counters move).
stat() {
	tr ',{}' '\n' < "$work/translator.json" | sed -n "s/^\"$1\":\([0-9]*\)$/\1/p"
}
# Datagrams the translator has accounted for: received, dropped by the
# kernel, refused, truncated.
accounted() {
	echo $(($(stat packets) + $(stat socket_drops) + $(stat refused_source) +
		$(stat rx_truncated)))
}
# The counters a loss line needs, in this order.
counters() {
	for c in reports_in seq_duplicates seq_suspect seq_lost socket_drops malformed; do
		printf '%s ' "$(stat $c)"
	done
}

# Send with dta-gen as reporter REPORTER (one per primitive, so each has
# its own sequence), paced at 1 M reports/s; wait until the translator has
# accounted for every datagram; append "TAG SENT RECEIVED DROPS SEQ_LOST
# MALFORMED" to $work/loss. A loaded machine may drop reports: the
# translator counts each one, and the demo shows them.
send() { # TAG REPORTER LABEL dta-gen-args...
	tag=$1 rep=$2 label=$3
	shift 3
	before=$(counters)
	want=$(accounted)
	"$gen" -d 127.0.0.1:$port -r 1000000 --reporter "$rep" "$@" 2>"$work/gen.out" ||
		{ cat "$work/gen.out" >&2; exit 1; }
	printf '   %-13s %s\n' "$label" "$(sed 's/^dta-gen: //' "$work/gen.out")"
	sent=$(sed -n 's/^dta-gen: \([0-9]*\) reports in .*/\1/p' "$work/gen.out")
	dgrams=$(sed -n 's/^dta-gen: [0-9]* reports in \([0-9]*\) datagrams.*/\1/p' "$work/gen.out")
	want=$((want + dgrams))
	i=0
	while [ "$(accounted)" -lt "$want" ] && [ $i -lt 500 ]; do
		i=$((i + 1))
		sleep 0.02
	done
	[ "$(accounted)" -ge "$want" ] ||
		echo "   (the translator accounted for $(($(accounted) - want + dgrams)) of $dgrams datagrams after 10 s)"
	echo "$tag $sent $before $(counters)" | awk '{
		# 3..8 before, 9..14 after: reports_in, duplicates, suspect,
		# seq_lost, socket_drops, malformed
		got = ($9 - $3) - ($10 - $4) - ($11 - $5)
		print $1, $2, got, $13 - $7, $12 - $6, $14 - $8 }' >> "$work/loss"
}

# The loss line of TAG: reports sent, received, lost and why.
loss_line() { # TAG LABEL
	awk -v t="$1" -v n="$2" '$1 == t {
		printf "   %-13s %8d sent %8d received %7d lost (%.3f%%; kernel drops %d datagrams, %d missing from the sequence, %d malformed)\n",
			n, $2, $3, $2 - $3, 100 * ($2 - $3) / $2, $4, $5, $6 }' "$work/loss"
}

# Under a verify line, which judges the answers against all that was sent:
# how many reports never arrived. What they would have written is missing
# from the structure, so it shows in the not found / not read / under
# figures, not left out of them.
lost_note() { # TAG WHAT
	awk -v t="$1" -v w="$2" '$1 == t {
		if ($2 == $3)
			printf "   all %d reports reached the translator: the figures above are the structure'"'"'s own\n", $2
		else
			printf "   %d of the %d reports (%.3f%%) never reached the translator; judged against all sent, their loss is in the %s above\n",
				$2 - $3, $2, 100 * ($2 - $3) / $2, w }' "$work/loss"
}

echo "== sending (dta-gen, UDP to 127.0.0.1:$port, paced to 1 M reports/s)"
send kw 1 key-write -t kw -n "$(n 300000)" -k "$(n 200000)" -T "$work/kw.truth"
send pc 2 postcard -t pc -n "$(n 50000)" -T "$work/pc.truth"
send ap 3 append -t ap -n "$(n 200000)" --lists 4 --entry 8 --batch 8 -T "$work/ap.truth"
send ki 4 key-increment -t ki -n "$(n 500000)" -k "$(n 20000)" -z 1.1 --batch 8 -T "$work/ki.truth"

echo "== what reached the translator (its counters: sent = received + lost)"
for t in kw:key-write pc:postcard ap:append ki:key-increment; do
	loss_line "${t%%:*}" "${t#*:}"
done
awk '{ s += $2; r += $3; d += $4; q += $5; m += $6 } END { print "all", s, r, d, q, m }' \
	"$work/loss" >> "$work/loss"
loss_line all all

echo "== querying everything back (dta-query verify against dta-gen's truth, all sent)"
sleep 0.3 # partial Append batches are written after their 1 ms timeout
for t in kw:"not found and wrong answers" pc:"not found and truncated paths" \
	 ap:"entries not read in order" ki:"under-estimated counters"; do
	tag=${t%%:*}
	"$query" -c "$work/dta.conf" verify --truth "$work/$tag.truth" | sed 's/^/   /'
	lost_note "$tag" "${t#*:}"
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
	grep -E '^(packets|socket_drops|reports_|malformed|seq_lost|ops_|pc_evictions|ap_batches|ap_partial)' |
	sed 's/:/ /' | awk '{ printf "   translator %-22s %s\n", $1, $2 }'
kill -TERM "$cpid"
wait "$cpid" || true
cpid=
grep -h 'snapshots written' "$work/collector.out.err" | sed 's/^dta-collector: /   collector: /'
echo "== done"
