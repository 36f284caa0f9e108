#!/bin/sh
# INT postcards from hosts of several initial TTLs (docs/int.md "Hop
# index"): dta-gen sends int-pc runs whose flows start at TTL 64, 128,
# 255, 60 and 100, with switches copying before and after their TTL
# decrement (--int-egress), into one translator whose [int] has no
# ttl_init (postcards placed by falling TTL, the default), over UDP (v2.0
# groups) and from pcap files (v1.0 and v0.5). Every path of every run is
# exact (`dta-query verify` checks as many paths as the truth files hold,
# all 100%), with every hop record and count, no report lost, no tie, no
# hop dropped. Then the same pcap files with postcard_order = absolute
# (the initial TTL guessed) must NOT verify: the 60 and 100 hosts and the
# egress copies misplace hops there, which is what the TTL order fixes.
. "$(dirname "$0")/lib.sh"
e2e_init int_pc_ttl "$1"
INT_PORT=$((E2E_PORT + 1))

conf() { # EXTRA_INT
	# Fat-tree paths of up to 5 switches, ids 1-80, in 64K chunks, hop
	# records in 128K slots (150 flows and 710 hops: in 4K chunks and 16K
	# slots a few lose every copy to later keys, the structures' own
	# loss, which is not what this test is about); paths shorter than
	# 5 hops are written when the translator stops (long timeout: no
	# write depends on the machine's speed).
	e2e_int_conf postcard "chunks = 64K
hops = 5
values = 1-80" 128K 1 "$1" |
		sed -e '/^ttl_init = /d' -e '/^\[translator\]$/a pc_timeout_ms = 3600000'
}

# Initial TTL and copy point of each run: "TTL EGRESS".
RUNS="64:0 128:0 255:0 60:0 100:0 64:1 128:1 255:1 60:1 100:1"

# One int-pc run per entry of RUNS through FUNCTION; distinct seeds and
# reporters, so distinct flows.
runs() { # VERSION FUNCTION
	batch=1
	[ "$1" != 2.0 ] || batch=8
	i=0
	for r in $RUNS; do
		i=$((i + 1))
		ttl=${r%:*}
		eg=
		[ "${r#*:}" = 0 ] || eg=--int-egress
		six=
		[ $((i % 2)) = 0 ] || six=--int-ipv6
		$2 "t-$i.truth" -t int-pc --int-version "$1" --int-ttl "$ttl" $eg $six \
			--reporter "$i" -n 15 -s $((100 + i)) --batch $batch
	done
}

int_gen() { # TRUTH ARGS...
	truth=$1
	shift
	echo "$truth" >> "$E2E/order"
	$E2E_WRAP "$GEN" -d "127.0.0.1:$INT_PORT" --sync "$E2E/translator.json" \
		-T "$E2E/$truth" "$@" 2> "$E2E/gen.last" || { cat "$E2E/gen.last"; return 1; }
	reports=$((reports + $(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")))
}

pcap_gen() { # TRUTH ARGS...
	truth=$1
	shift
	echo "$truth" >> "$E2E/order"
	"$GEN" -d "127.0.0.1:$INT_PORT" -w "$E2E/${truth%.truth}.pcap" -T "$E2E/$truth" "$@" 2> "$E2E/gen.last" ||
		{ cat "$E2E/gen.last"; return 1; }
	reports=$((reports + $(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")))
}

# Replay every pcap of the run into the running collector, summing the
# counters the checks read.
replay() {
	rm -f "$E2E"/sum.*
	for p in "$E2E"/t-*.pcap; do
		"$TRANSLATOR" -q -c "$E2E/dta.conf" -r "$p" > "$E2E/translator.out"
		for c in $COUNTERS; do
			echo $(($(cat "$E2E/sum.$c" 2>/dev/null || echo 0) + $(e2e_stat $c))) > "$E2E/sum.$c"
		done
	done
	for c in "$E2E"/sum.*; do
		printf '"%s":%s,' "${c#"$E2E"/sum.}" "$(cat "$c")"
	done > "$E2E/translator.out"
}
COUNTERS="int_reports_in int_applied int_unmapped int_malformed int_mismatch \
int_seq_lost pc_ttl_ties pc_hops_dropped"

counters() { # WHAT
	for c in int_unmapped int_malformed int_mismatch int_seq_lost pc_ttl_ties pc_hops_dropped; do
		e2e_expect "$1 $c" "$(e2e_stat $c)" 0
	done
	e2e_expect "$1 reports" "$(e2e_stat int_reports_in)" "$reports"
	e2e_expect "$1 applied" "$(e2e_stat int_applied)" "$reports"
}

# Every path, hop record and count of the truth files: exact.
verify_all() { # WHAT
	(cd "$E2E" && cat $(cat order)) > "$E2E/all.truth"
	e2e_query verify --truth "$E2E/all.truth" > "$E2E/verify.out" ||
		{ cat "$E2E/verify.out"; echo "FAIL: $1: verify" >&2; exit 1; }
	cat "$E2E/verify.out"
	e2e_expect "$1: paths checked, all exact" \
		"$(sed -n 's/^INT path  *paths  *\([0-9]*\) lines 100.000% exact.*/\1/p' "$E2E/verify.out")" \
		"$(awk '$1 == "int-path" { print $2 }' "$E2E/all.truth" | sort -u | wc -l)"
}

conf "" > "$E2E/dta.conf"

echo "== v2.0 over UDP"
reports=0
rm -f "$E2E"/t-*.truth "$E2E/order"
e2e_start_collector
e2e_start_translator
runs 2.0 int_gen
e2e_stop_translator
counters "v2.0 UDP"
e2e_expect "socket drops" "$(e2e_stat socket_drops)" 0
verify_all "v2.0 UDP"
e2e_stop_collector

for version in 1.0 0.5; do
	echo "== v$version from pcap files"
	reports=0
	rm -f "$E2E"/t-*.truth "$E2E"/t-*.pcap "$E2E/order"
	e2e_start_collector
	runs $version pcap_gen
	replay
	counters "v$version pcap"
	verify_all "v$version pcap"
	e2e_stop_collector
done

echo "== the absolute rule on the same v0.5 pcap files must not verify"
conf "postcard_order = absolute" > "$E2E/dta.conf"
e2e_start_collector
replay
if e2e_query verify --truth "$E2E/all.truth" > "$E2E/verify.out"; then
	cat "$E2E/verify.out"
	echo "FAIL: the absolute rule verified paths it cannot place" >&2
	exit 1
fi
grep '^INT path' "$E2E/verify.out"
# Exact there: the runs of hosts at 64, 128 and 255 copying before the
# decrement (t-1 .. t-3); every other run's paths are not found.
e2e_expect "absolute rule: paths not found" \
	"$(sed -n 's/^INT path .*(\([0-9]*\) not found, 0 wrong.*/\1/p' "$E2E/verify.out")" \
	"$(cd "$E2E" && cat t-4.truth t-5.truth t-6.truth t-7.truth t-8.truth t-9.truth t-10.truth |
	   awk '$1 == "int-path" { print $2 }' | sort -u | wc -l)"
e2e_stop_collector
e2e_pass
