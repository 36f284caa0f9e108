#!/bin/sh
# dta-gen's INT workloads (docs/int.md "dta-gen INT workloads and truth"):
# for each report version, postcards, INT-MD stacks, drop and congestion
# reports go to the translator's [int] port with --sync; every report
# sent is applied (int_applied) and none is lost (IPv4 and IPv6 flows), and the truth file's
# lines (a sample of hops, every path, flow, queue and event) match what
# dta-query reads back.
. "$(dirname "$0")/lib.sh"
e2e_init int_gen "$1"
INT_PORT=$((E2E_PORT + 1))
e2e_int_conf key-write "slots = 4K
data = 20" 16K 1 "" > "$E2E/dta.conf"

# dta-gen to the INT port; adds its reports and datagrams to the totals.
int_gen() { # TRUTH ARGS...
	truth=$1
	shift
	$E2E_WRAP "$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" \
		-T "$E2E/$truth" "$@" 2> "$E2E/gen.last"
	cat "$E2E/gen.last"
	reports=$((reports + $(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")))
	datagrams=$((datagrams + $(sed -n 's/^dta-gen: [0-9]* reports in \([0-9]*\) datagrams.*/\1/p' "$E2E/gen.last")))
}

# The truth against dta-query's answers (docs/int.md "Mapping").
check_truth() {
	cat "$E2E"/t-*.truth > "$E2E/all.truth"
	# Paths: INT-MD writes every flow's path, padded to 5 switch ids.
	cat "$E2E"/t-md*.truth | grep '^int-path' | while read -r _ key path; do
		want=0x$(echo "$path" | tr ',' '\n' | awk '{ printf "%08x", $1 } END { for (i = NR; i < 5; i++) printf "ffffffff" }')
		e2e_expect "path of $key" \
			"$(e2e_query kw get paths "0x$key" | cut -d' ' -f2)" "$want"
	done
	# Hop records (fields not carried are all ones): the last line of
	# each (flow, switch).
	awk '$1 == "int-hop" { last[$2 " " $3] = $0 } END { for (k in last) print last[k] }' \
		"$E2E/all.truth" | while read -r _ key sw lat occ ets; do
		want=$(awk -v l="$lat" -v o="$occ" -v e="$ets" -v s="$sw" 'BEGIN {
			printf "%08x 0x", s
			if (l == "-") printf "ffffffff"; else printf "%08x", l
			printf "%08x00000000%08x\n", o, e }')
		e2e_expect "hop $key at $sw" \
			"$(e2e_query kw get hops "0x$key${want%% *}" | cut -d' ' -f2)" "${want#* }"
	done
	# Reports per flow and per (switch, queue), summed over the runs.
	for tag in int-flow int-queue; do
		awk -v t=$tag '$1 == t { n[$2] += $3 } END { for (k in n) print k, n[k] }' \
			"$E2E/all.truth" | while read -r key n; do
			st=flows
			[ $tag = int-flow ] || st=queues
			e2e_expect "$tag $key" "$(e2e_query ki get $st "0x$key")" "$n"
		done
	done
	# Events: every truth entry is in the list, and no other.
	e2e_query ap tail events 0 -n 100000 > "$E2E/events.out"
	awk '$1 == "int-event" { print "0x" $NF }' "$E2E/all.truth" | sort > "$E2E/events.want"
	grep '^0x' "$E2E/events.out" | sort > "$E2E/events.got"
	e2e_expect "events" "$(cmp "$E2E/events.want" "$E2E/events.got" && echo same)" same
}

for version in 0.5 1.0 2.0; do
	echo "== INT $version"
	reports=0
	datagrams=0
	rm -f "$E2E"/t-*.truth
	batch=1
	[ $version != 2.0 ] || batch=8
	e2e_start_collector
	e2e_start_translator
	int_gen t-pc.truth -t int-pc --int-version $version --reporter 1 -n 20 -s 11 --batch $batch
	int_gen t-md.truth -t int-md --int-version $version --reporter 2 -n 20 -s 12 --batch $batch
	int_gen t-drop.truth -t int-drop --int-version $version --reporter 3 -n 30 -s 13 --batch $batch
	int_gen t-q.truth -t int-q --int-version $version --reporter 4 -n 30 -s 14 --batch $batch
	int_gen t-md6.truth -t int-md --int-ipv6 --int-version $version --reporter 5 -n 10 -s 15 --batch $batch
	int_gen t-drop6.truth -t int-drop --int-ipv6 --int-version $version --reporter 6 -n 10 -s 16 --batch $batch
	check_truth
	e2e_stop_translator
	e2e_stop_collector
	e2e_expect "INT $version datagrams" "$(e2e_stat int_datagrams)" "$datagrams"
	e2e_expect "INT $version reports" "$(e2e_stat int_reports_in)" "$reports"
	e2e_expect "INT $version applied" "$(e2e_stat int_applied)" "$reports"
	e2e_expect "INT $version unmapped" "$(e2e_stat int_unmapped)" 0
	e2e_expect "INT $version malformed" "$(e2e_stat int_malformed)" 0
	e2e_expect "INT $version sequence losses" "$(e2e_stat int_seq_lost)" 0
	e2e_expect "INT $version duplicates" "$(e2e_stat int_seq_duplicates)" 0
	e2e_expect "socket drops" "$(e2e_stat socket_drops)" 0
done

# The same workload as a pcap file (-w), read by dta-translator -r.
"$GEN" -t int-pc --int-version 2.0 -n 20 -s 11 --batch 8 -d "127.0.0.1:$INT_PORT" \
	-w "$E2E/int.pcap" -T "$E2E/t-pc.truth" 2> "$E2E/gen.last"
cat "$E2E/gen.last"
e2e_start_collector
"$TRANSLATOR" -q -c "$E2E/dta.conf" -r "$E2E/int.pcap" > "$E2E/translator.out"
e2e_expect "pcap: INT datagrams" "$(e2e_stat int_datagrams)" \
	"$(sed -n 's/^dta-gen: [0-9]* reports in \([0-9]*\) datagrams.*/\1/p' "$E2E/gen.last")"
e2e_expect "pcap: INT applied" "$(e2e_stat int_applied)" \
	"$(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")"
awk '$1 == "int-hop" { print $2, $3 }' "$E2E/t-pc.truth" | head -5 | while read -r key sw; do
	e2e_query kw get hops "0x$key$(printf %08x "$sw")" > /dev/null
done
e2e_stop_collector
e2e_pass
