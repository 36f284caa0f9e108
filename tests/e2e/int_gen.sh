#!/bin/sh
# dta-gen's INT workloads (docs/int.md "dta-gen INT workloads and truth"):
# for each report version, postcards, INT-MD stacks, drop and congestion
# reports of IPv4 and IPv6 flows go to the translator's [int] port with
# --sync, and once more through pcap files (dta-translator -r); every
# report sent is applied (int_applied) and none is lost or malformed, and
# the truth file's lines (every path, hop, flow, queue and event) match
# what dta-query reads back: `dta-query verify` finds them all exact, and
# for UDP with Key-Write paths a second check by hand agrees (kw get, ki
# get, ap tail). `dta-query int path` and `int hops` answer the IPv6
# flows exactly. Then the same with the paths in a Postcarding structure:
# the postcards' paths (int-pc) and the INT-MD paths are checked end to
# end there.
. "$(dirname "$0")/lib.sh"
e2e_init int_gen "$1"
INT_PORT=$((E2E_PORT + 1))
conf() { # PATH-PRIMITIVE
	if [ "$1" = key-write ]; then
		e2e_int_conf key-write "slots = 4K
data = 20" 16K 1 ""
	else
		# Fat-tree paths of up to 5 switches, ids 1-80 (dta-gen's
		# default fat tree). Paths shorter than 5 hops are written
		# when the translator stops: with the default 10 ms timeout a
		# loaded machine could cut a path whose postcards it took
		# longer to read.
		e2e_int_conf postcard "chunks = 4K
hops = 5
values = 1-80" 16K 1 "" | sed '/^\[translator\]$/a pc_timeout_ms = 3600000'
	fi
}

# dta-gen to the INT port; adds its reports and datagrams to the totals.
int_gen() { # TRUTH ARGS...
	truth=$1
	shift
	echo "$truth" >> "$E2E/order"
	$E2E_WRAP "$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" \
		-T "$E2E/$truth" "$@" 2> "$E2E/gen.last" || { cat "$E2E/gen.last"; return 1; }
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

# verify over the whole truth of a run: every INT line exact (exit 0)
# and as many lines checked as the file has keys (paths of postcard runs
# are not checked against Key-Write paths, and need not be).
verify_all() { # WHAT
	# In the order sent: verify reads each list's events in that order.
	(cd "$E2E" && cat $(cat order)) > "$E2E/all.truth"
	e2e_query verify --truth "$E2E/all.truth" > "$E2E/verify.out" ||
		{ cat "$E2E/verify.out"; echo "FAIL: $1: verify" >&2; exit 1; }
	cat "$E2E/verify.out"
	e2e_expect "$1: hop records checked" \
		"$(sed -n 's/^INT hops  *hops  *\([0-9]*\) lines 100.000% exact.*/\1/p' "$E2E/verify.out")" \
		"$(awk '$1 == "int-hop" { print $2, $3 }' "$E2E/all.truth" | sort -u | wc -l)"
	e2e_expect "$1: events checked" \
		"$(sed -n 's/^INT events  *events  *\([0-9]*\) lines 100.000% exact.*/\1/p' "$E2E/verify.out")" \
		"$(grep -c '^int-event' "$E2E/all.truth")"
	if grep -q '^\[structure paths\]' "$E2E/dta.conf" &&
	   grep -A1 '^\[structure paths\]' "$E2E/dta.conf" | grep -q postcard; then
		# Postcarding: every path of the file, postcards' too.
		e2e_expect "$1: paths checked" \
			"$(sed -n 's/^INT path  *paths  *\([0-9]*\) lines 100.000% exact.*/\1/p' "$E2E/verify.out")" \
			"$(awk '$1 == "int-path" { print $2 }' "$E2E/all.truth" | sort -u | wc -l)"
	fi
}

# `dta-query int path` and `int hops` for the first 5 flows of TRUTH
# (verify has checked them all), exactly: the path, then each hop's
# record (its last line).
int_answers() { # TRUTH
	awk '$1 == "int-path" { print $2, $3 }' "$E2E/$1" | head -n 5 | while read -r key path; do
		ids=$(echo "$path" | tr ',' ' ')
		out=$(e2e_query int path "0x$key")
		case $out in
		"found: $ids (switch ids, first hop first; "*) echo "ok: int path 0x$key = $ids" ;;
		*) echo "FAIL: int path 0x$key: got '$out', want the path $ids" >&2; exit 1 ;;
		esac
		want=$(awk -v k="$key" -v p="$path" '
			$1 == "int-hop" && $2 == k { rec[$3] = $4 ", occupancy " $5 ", egress ts " $6 }
			END { n = split(p, s, ","); for (i = 1; i <= n; i++)
				printf "hop %d switch %s: found, latency %s\n", i - 1, s[i], rec[s[i]] }' "$E2E/all.truth")
		e2e_expect "int hops 0x$key" "$(e2e_query int hops "0x$key" | tail -n +2)" "$want"
	done
}

# The counters of the runs of one version, exactly.
counters() { # WHAT
	e2e_expect "$1 datagrams" "$(e2e_stat int_datagrams)" "$datagrams"
	e2e_expect "$1 reports" "$(e2e_stat int_reports_in)" "$reports"
	e2e_expect "$1 applied" "$(e2e_stat int_applied)" "$reports"
	e2e_expect "$1 unmapped" "$(e2e_stat int_unmapped)" 0
	e2e_expect "$1 int_reports_in = int_applied + int_unmapped" \
		"$(e2e_stat int_reports_in)" $(($(e2e_stat int_applied) + $(e2e_stat int_unmapped)))
	e2e_expect "$1 malformed" "$(e2e_stat int_malformed)" 0
	e2e_expect "$1 mismatches" "$(e2e_stat int_mismatch)" 0
	e2e_expect "$1 sequence losses" "$(e2e_stat int_seq_lost)" 0
	e2e_expect "$1 duplicates" "$(e2e_stat int_seq_duplicates)" 0
}

# The workloads of one version: WORKLOAD TRUTH ARGS... for each.
workloads() { # VERSION FUNCTION
	batch=1
	[ "$1" != 2.0 ] || batch=8
	$2 t-pc.truth -t int-pc --int-version "$1" --reporter 1 -n 20 -s 11 --batch $batch
	$2 t-md.truth -t int-md --int-version "$1" --reporter 2 -n 20 -s 12 --batch $batch
	$2 t-drop.truth -t int-drop --int-version "$1" --reporter 3 -n 30 -s 13 --batch $batch
	$2 t-q.truth -t int-q --int-version "$1" --reporter 4 -n 30 -s 14 --batch $batch
	$2 t-md6.truth -t int-md --int-ipv6 --int-version "$1" --reporter 5 -n 10 -s 15 --batch $batch
	$2 t-drop6.truth -t int-drop --int-ipv6 --int-version "$1" --reporter 6 -n 10 -s 16 --batch $batch
	$2 t-pc6.truth -t int-pc --int-ipv6 --int-version "$1" --reporter 7 -n 10 -s 17 --batch $batch
	# What switches of that version send: v0.5 and v1.0 INT-MD stacks
	# (8-bit shim Type, Ver 0 / 1), a v2.0 sink with its own metadata in
	# the report header (the path's last hop).
	case $1 in
	0.5) extra="--int-stack 0.5" ;;
	1.0) extra="--int-stack 1.0" ;;
	*) extra="--int-sink-md" ;;
	esac
	$2 t-mdv.truth -t int-md $extra --int-version "$1" --reporter 8 -n 20 -s 23 --batch $batch
}

# The same workloads as pcap files, each replayed by its own
# dta-translator -r; the counters summed over the replays.
pcap_gen() { # TRUTH ARGS...
	truth=$1
	shift
	echo "$truth" >> "$E2E/order"
	"$GEN" -d "127.0.0.1:$INT_PORT" -w "$E2E/${truth%.truth}.pcap" \
		-T "$E2E/$truth" "$@" 2> "$E2E/gen.last" || { cat "$E2E/gen.last"; return 1; }
	cat "$E2E/gen.last"
	n=$(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")
	reports=$((reports + n))
	datagrams=$((datagrams + $(sed -n 's/^dta-gen: [0-9]* reports in \([0-9]*\) datagrams.*/\1/p' "$E2E/gen.last")))
	"$TRANSLATOR" -q -c "$E2E/dta.conf" -r "$E2E/${truth%.truth}.pcap" > "$E2E/translator.out"
	for c in int_datagrams int_reports_in int_applied int_unmapped int_malformed \
		 int_mismatch int_seq_lost int_seq_duplicates; do
		echo $(($(cat "$E2E/sum.$c" 2>/dev/null || echo 0) + $(e2e_stat $c))) > "$E2E/sum.$c"
	done
}

for paths in key-write postcard; do
	conf $paths > "$E2E/dta.conf"
	for version in 0.5 1.0 2.0; do
		echo "== INT $version over UDP, $paths paths"
		reports=0
		datagrams=0
		rm -f "$E2E"/t-*.truth "$E2E/order"
		e2e_start_collector
		e2e_start_translator
		workloads $version int_gen
		[ $paths = postcard ] || check_truth
		e2e_stop_translator
		counters "INT $version UDP"
		e2e_expect "socket drops" "$(e2e_stat socket_drops)" 0
		# Postcards of paths shorter than 5 hops are written when the
		# translator flushes (timeout, exit): verify after it stopped.
		verify_all "INT $version UDP, $paths paths"
		int_answers t-md6.truth
		[ $paths = key-write ] || int_answers t-pc6.truth
		e2e_stop_collector

		echo "== INT $version from pcap files, $paths paths"
		reports=0
		datagrams=0
		rm -f "$E2E"/t-*.truth "$E2E/order" "$E2E"/sum.*
		e2e_start_collector
		workloads $version pcap_gen
		for c in "$E2E"/sum.*; do
			printf '"%s":%s,' "${c#"$E2E"/sum.}" "$(cat "$c")"
		done > "$E2E/translator.out"
		counters "INT $version pcap"
		verify_all "INT $version pcap, $paths paths"
		e2e_stop_collector
	done
done
e2e_pass
