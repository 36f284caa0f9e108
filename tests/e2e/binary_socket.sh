#!/bin/sh
# Binary frames on the query socket (docs/collector-protocol.md "Binary
# frames"): a connection switched with `binary` gets, for a pipelined
# batch of frames of every primitive, answers equal key by key to the text
# protocol's for the same keys (tests/tools/frame_probe); TEXT frames are
# answered as text lines are, bad requests with error answers, and a
# malformed frame ends only its own connection; a binary client that
# does not read is held back like a text one. stats counts the frames.
. "$(dirname "$0")/lib.sh"
e2e_init binary_socket "$1"
PROBE=$BUILD/tests/frame_probe
{
	e2e_conf_head
	cat <<EOF2
[structure paths]
primitive = key-write
slots = 64K
data = 20
redundancy = 2
schema = path:u32[5]

[structure postcards]
primitive = postcard
chunks = 16K
values = 1-80

[structure events]
primitive = append
lists = 2
batches = 1024
entry = 8
schema = seq:u32, value:u32

[structure counters]
primitive = key-increment
width = 64K
rows = 3
EOF2
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator -q
e2e_gen -t kw -n 3000 -k 1000 -r 100000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 1000 -r 100000 -T "$E2E/pc.truth"
e2e_gen -t ap -n 3000 --lists 2 --entry 8 --batch 4 -r 100000 -T "$E2E/ap.truth"
e2e_gen -t ki -n 5000 -k 500 --batch 8 -r 100000 -T "$E2E/ki.truth"
e2e_stop_translator # its last partial batches are written now

# The keys written, and as many never written (not found, counts 0).
key() { sed -n "s/^$1 \(0x\)\{0,1\}\([0-9a-f]*\) .*/\2/p" "$E2E/$1.truth"; }
{
	key kw | sed 's/^/kw paths /'
	key kw | sed 's/^/kw paths ff/; s/..$//'
	# One frame of over 20000 keys: a request larger than the read
	# buffer (64 KiB) and an answer larger than the cap (256 KiB).
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		key kw | sed 's/^/kw paths /'
		key kw | sed 's/^/kw paths ff/; s/..$//'
	done
	key pc | sed 's/^/pc postcards /'
	key pc | sed 's/^/pc postcards ff/; s/..$//'
	key ki | sed 's/^/ki counters /; s/$/ 0/'
	key ki | sed 's/^/ki counters ee/; s/..$/ 0/'
	echo "ap events 0 1000"
	echo "ap events 0 65536"
	echo "ap events 1 65536"
	echo "ap events 1 65536" # nothing new: an empty answer
} > "$E2E/requests"
e2e_expect "kw keys" "$(grep -c '^kw' "$E2E/requests")" \
	$((24 * $(key kw | wc -l)))
[ "$(key kw | wc -l)" -gt 500 ] && [ "$(key pc | wc -l)" -gt 500 ] &&
	[ "$(key ki | wc -l)" -gt 100 ] ||
	{ echo "FAIL: too few keys in the truth files" >&2; exit 1; }

"$PROBE" "$E2E/collector.sock" < "$E2E/requests" > "$E2E/probe.out" ||
	exit 1
cat "$E2E/probe.out"
# Half the keys were written: the comparisons covered found answers too
# (at least 9 in 10 written keys found, each asked 12 times: tables this
# size lose few).
set -- $(sed -n 's/^found: kw \([0-9]*\) pc \([0-9]*\), counts not 0: ki \([0-9]*\), entries: ap \([0-9]*\)$/\1 \2 \3 \4/p' "$E2E/probe.out")
[ $# = 4 ] && [ "$1" -ge $(($(key kw | wc -l) * 12 * 9 / 10)) ] &&
	[ "$2" -ge $(($(key pc | wc -l) * 9 / 10)) ] &&
	[ "$3" -ge "$(key ki | wc -l)" ] &&
	[ "$4" = "$(grep -c '^ap ' "$E2E/ap.truth")" ] ||
	{ echo "FAIL: found/counted/entries: $*" >&2; exit 1; }

# Fairness holds for frames: a binary client that never reads is held
# back (256 KiB of answers unsent) while a text client gets 200 answers;
# then it reads every one of its own, whole.
"$BUILD/tests/query_probe" stall-binary "$E2E/collector.sock" 200 \
	> "$E2E/stall.out" || exit 1
cat "$E2E/stall.out"
stalled=$(sed -n 's/^A sent \([0-9]*\) requests.*/\1/p' "$E2E/stall.out")

# stats: the frames counted, and the keys they asked about.
e2e_query stats > "$E2E/stats.json"
frames=$(sed -n 's/.*"frames":\([0-9]*\).*/\1/p' "$E2E/stats.json")
keys=$(sed -n 's/.*"keys":\([0-9]*\).*/\1/p' "$E2E/stats.json")
# frame_probe's data frames, its 8 TEXT and error frames, the TEXT frame
# before each malformed one (which is no request), the stalled client's,
# and dta-query's own two (the client's info at open, stats in a TEXT
# frame).
probe=$(sed -n 's/^ok: \([0-9]*\) frames.*/\1/p' "$E2E/probe.out")
e2e_expect "frames counted" "$frames" $((probe + 8 + 2 + stalled + 2))
e2e_expect "keys counted in frames" "$keys" \
	"$(grep -c '^\(kw\|pc\|ki\)' "$E2E/requests")"
# The same structures, schemas included, whoever answers: the socket,
# the mapping (dta-query --map) and snapshots (--snapshot-dir), each
# through the library's executor.
e2e_query --json info > "$E2E/info.sock"
e2e_query --map --json info > "$E2E/info.map"
e2e_query snapshot > /dev/null
e2e_query --snapshot-dir "$E2E/snapshots" --json info > "$E2E/info.snap"
grep -q '"schema"' "$E2E/info.sock" ||
	{ echo "FAIL: no schema in info: $(cat "$E2E/info.sock")" >&2; exit 1; }
cmp "$E2E/info.sock" "$E2E/info.map" && cmp "$E2E/info.sock" "$E2E/info.snap" ||
	{ echo "FAIL: info differs between the socket, --map and snapshots" >&2; exit 1; }
# dta-query writes info from the client's structures: what the collector
# itself answers to `info`, byte for byte.
echo info | "$BUILD/tests/query_probe" pipe "$E2E/collector.sock" > "$E2E/info.raw"
cmp "$E2E/info.raw" "$E2E/info.sock" ||
	{ echo "FAIL: dta-query info is not the collector's answer" >&2; exit 1; }
grep -q 'malformed frame' "$E2E/collector.log" ||
	{ echo "FAIL: the malformed frame is not in the log" >&2; exit 1; }
e2e_pass
