#!/bin/sh
# dta-query verify on INT truth files (docs/int.md "Checking a run: verify"):
# dta-gen's four INT workloads (IPv4 and IPv6 flows) go through collector
# and translator; verify finds every truth line exact over the socket,
# through --map and from the snapshots, also with DTA truth lines in the
# same file; and it fails (exit 1, the mismatch counted and named) when
# one truth line is altered: a switch of a path, a byte of an event, a
# count, a hop's latency; a line that is not INT truth is refused (exit 3).
. "$(dirname "$0")/lib.sh"
e2e_init int_verify "$1"
INT_PORT=$((E2E_PORT + 1))
# The DTA structures first: DTA reports go to the first structure of
# their primitive (and size), as verify routes their truth.
{
	e2e_conf_head
	cat <<EOF2
[structure dkw]
primitive = key-write
slots = 16K
data = 8
[structure dki]
primitive = key-increment
width = 16K
EOF2
	e2e_int_conf key-write "slots = 4K
data = 20" 16K 4 "events_by = switch" | sed '/^\[collector\]/,/^\[int\]/{/^\[int\]/!d}'
} > "$E2E/dta.conf"

reports=0
int_gen() { # TRUTH ARGS...
	truth=$1
	shift
	$E2E_WRAP "$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" \
		-T "$E2E/$truth" "$@" 2> "$E2E/gen.last"
	cat "$E2E/gen.last"
	reports=$((reports + $(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")))
}
v() { e2e_query "$@" verify --truth "$E2E/t.truth"; }

e2e_start_collector
e2e_start_translator
int_gen i-pc.truth -t int-pc --int-version 1.0 --reporter 1 -n 20 -s 21
int_gen i-md.truth -t int-md --int-version 2.0 --reporter 2 -n 20 -s 22 --batch 4
int_gen i-drop.truth -t int-drop --int-version 0.5 --reporter 3 -n 30 -s 23
int_gen i-q.truth -t int-q --int-version 2.0 --reporter 4 -n 30 -s 24 --batch 4
int_gen i-md6.truth -t int-md --int-ipv6 --int-version 1.0 --reporter 5 -n 10 -s 25
int_gen i-q6.truth -t int-q --int-ipv6 --int-version 0.5 --reporter 6 -n 10 -s 26
e2e_gen -t kw -n 200 -k 100 --data 8 -s 27 -T "$E2E/d-kw.truth"
e2e_gen -t ki -n 300 -k 30 -s 28 -T "$E2E/d-ki.truth"
cat "$E2E"/i-*.truth > "$E2E/int.truth"
cat "$E2E"/i-*.truth "$E2E"/d-*.truth > "$E2E/all.truth"
cp "$E2E/int.truth" "$E2E/t.truth"

# Negative cases first: each alters one line of a verified file; verify
# must exit 1 and count the mismatch where it belongs.
bad() { # WHAT ROLE-PATTERN FILE SED-SCRIPT (altering the first line)
	for f in "$E2E"/i-*.truth; do
		if [ "$f" = "$E2E/$3" ]; then sed "$4" "$f"; else cat "$f"; fi
	done > "$E2E/t.truth"
	e2e_expect "lines altered, $1" "$(cmp -l "$E2E/int.truth" "$E2E/t.truth" 2>&1 | head -1 | grep -c .)" 1
	e2e_expect "lines, $1" "$(wc -l < "$E2E/t.truth")" "$(wc -l < "$E2E/int.truth")"
	rc=0
	v > "$E2E/v.out" 2> "$E2E/v.err" || rc=$?
	cat "$E2E/v.out" "$E2E/v.err"
	e2e_expect "verify exit status, $1" "$rc" 1
	grep -q "$2" "$E2E/v.out" || { echo "FAIL: $1: no '$2' in the output" >&2; exit 1; }
	grep -q "^dta-query: .*t.truth" "$E2E/v.err" || { echo "FAIL: $1: no mismatch named" >&2; exit 1; }
}
# The first path of the INT-MD run: its second switch id + 1.
bad "a switch of a path" 'INT path .*(0 not found, 1 wrong, ' i-md.truth \
	'0,/^int-path/{/^int-path/s/,\([0-9]*\),/,9999\1,/}'
# The first event's flow-hash byte (offset 16, hex digits 33-34).
bad "a byte of an event" 'INT events .*(1 not read in order, 1 read but never sent' i-drop.truth \
	'0,/^int-event/{/^int-event/s/\(.* [0-9a-f]\{32\}\)\(..\)/\1ee/}'
bad "an event's switch field" 'INT events .* 1 lines disagree' i-q.truth \
	'0,/^int-event/{/^int-event/s/^\(int-event [0-9a-f]*\) \([0-9]*\)/\1 7\2/}'
bad "a flow count" 'INT flow_counts .* 1 under)' i-md6.truth \
	'0,/^int-flow/{/^int-flow/s/ \([0-9]*\)$/ 1\1/}'
bad "a queue count" 'INT queue_counts .*(1 over-estimated' i-drop.truth \
	'0,/^int-queue/{/^int-queue/s/ [0-9]*$/ 0/}'
bad "a hop latency" 'INT hops .*(0 not found, 1 wrong, ' i-md.truth \
	'0,/^int-hop/{/^int-hop/s/^\(int-hop [0-9a-f]* [0-9]*\) \([0-9]*\)/\1 9\2/}'
bad "a hop that was never sent" 'INT hops .*(1 not found, 0 wrong, ' i-pc.truth \
	'0,/^int-hop/{/^int-hop/s/^\(int-hop [0-9a-f]*\) [0-9]*/\1 99999/}'
# A line that is not truth: refused with its line number, exit 3.
printf 'int-hop 0a0000000a 1 2 3 4\n' > "$E2E/t.truth"
rc=0
v > /dev/null 2> "$E2E/v.err" || rc=$?
e2e_expect "malformed truth refused" "$rc/$(cat "$E2E/v.err")" \
	"3/dta-query: $E2E/t.truth:1: FLOW is not 13 or 37 bytes of hex"

# The unaltered files: exact over the socket, --map and (below) snapshots.
# Every line checked exactly: the count of each role is what the file has
# (paths, hop records and counts once per key; int-pc paths are not
# checked against a Key-Write path structure).
want_out() { # FILE
	f=$1
	n() { awk "$1" "$f" | sort -u | wc -l; }
	np=$(n '/type=int-pc/ { pc = 1 } /type=int-md/ { pc = 0 } $1 == "int-path" && !pc { print $2 }')
	nh=$(n '$1 == "int-hop" { print $2, $3 }')
	ne=$(grep -c '^int-event' "$f")
	nf=$(n '$1 == "int-flow" { print $2 }')
	nq=$(n '$1 == "int-queue" { print $2 }')
	npc=$(awk '/type=int-pc/ { pc = 1 } /type=int-md/ { pc = 0 } $1 == "int-path" && pc' "$f" | wc -l)
	printf 'INT %-12s %-10s %7d lines 100.000%% exact  (0 not found, 0 wrong, 0 conflict)  %d not checked: paths of postcard runs, and [int] path is Key-Write, which only INT-MD reports write\n' path paths "$np" "$npc"
	printf 'INT %-12s %-10s %7d lines 100.000%% exact  (0 not found, 0 wrong, 0 conflict)\n' hops hops "$nh"
	printf 'INT %-12s %-10s %7d lines 100.000%% exact  (0 not read in order, 0 read but never sent, 0 overwritten before read, 0 lines disagree with their ENTRY)\n' events events "$ne"
	printf 'INT %-12s %-10s %7d lines 100.000%% exact  (0 over-estimated, 0 under)\n' flow_counts flows "$nf"
	printf 'INT %-12s %-10s %7d lines 100.000%% exact  (0 over-estimated, 0 under)\n' queue_counts queues "$nq"
}
good() { # WAY...
	cp "$E2E/int.truth" "$E2E/t.truth"
	e2e_expect "verify $*" "$(v "$@" | grep '^INT')" "$(want_out "$E2E/int.truth")"
	# With the DTA truth in the same file: both exact, exit 0.
	cp "$E2E/all.truth" "$E2E/t.truth"
	e2e_query "$@" verify --truth "$E2E/t.truth" --min-success 1 > "$E2E/v.out"
	cat "$E2E/v.out"
	e2e_expect "mixed verify $*: DTA lines" "$(grep -c '^key-.* 100.000% exact' "$E2E/v.out")" 2
	e2e_expect "mixed verify $*: INT lines" "$(grep -c '^INT .* 100.000% exact' "$E2E/v.out")" 5
}
good
good -m
# JSON: one object, the INT roles among the structures.
cp "$E2E/int.truth" "$E2E/t.truth"
e2e_expect "verify json" "$(v -j | tr '{' '\n' | grep -c '"int_role":"[a-z_]*","primitive":"[A-Za-z-]*","total":[0-9]*,"exact":')" 5
e2e_stop_translator
e2e_expect "reports" "$(e2e_stat int_reports_in)" "$reports"
e2e_expect "applied" "$(e2e_stat int_applied)" "$reports"
e2e_expect "unmapped" "$(e2e_stat int_unmapped)" 0
e2e_expect "malformed" "$(e2e_stat int_malformed)" 0
e2e_stop_collector
good -D "$E2E/snapshots"

# Postcarding paths: the postcards of a v2.0 run, exact; a switch of one
# path altered fails, and so does a path one hop short.
e2e_int_conf postcard "chunks = 4K
hops = 5
values = 1-80" 16K 4 "" | sed '/^\[translator\]$/a pc_timeout_ms = 3600000' > "$E2E/dta.conf"
rm -f "$E2E"/i-*.truth
e2e_start_collector
e2e_start_translator
int_gen i-pc.truth -t int-pc --int-version 2.0 --reporter 1 -n 20 -s 31 --batch 4
e2e_stop_translator
cp "$E2E/i-pc.truth" "$E2E/int.truth"
cp "$E2E/int.truth" "$E2E/t.truth"
e2e_expect "verify, Postcarding paths" "$(v | grep '^INT path')" \
	"$(printf 'INT %-12s %-10s %7d lines 100.000%% exact  (0 not found, 0 wrong, 0 conflict)' \
		path paths "$(grep -c '^int-path' "$E2E/int.truth")")"
bad "a switch of a Postcarding path" 'INT path .*(0 not found, 1 wrong, ' i-pc.truth \
	'0,/^int-path/{/^int-path/s/,\([0-9]*\)$/,1\1/}'
bad "a path one hop short" 'INT path .*(0 not found, 1 wrong, ' i-pc.truth \
	'0,/^int-path [0-9a-f]* [0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*$/{/^int-path/s/,[0-9]*$//}'
e2e_stop_collector
e2e_pass
