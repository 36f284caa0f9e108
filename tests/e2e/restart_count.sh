#!/bin/sh
# A collector restarted under a translator loses no write uncounted: the stopping collector retires its regions before the
# snapshot, the translator notices before its next write, writes nothing
# into the orphaned mapping, counts what it could not write while no
# collector was there, and writes into the new collector's regions.
# Key-Increment makes it exact: every applied fetch-add adds 1, so the
# counters of the final snapshot sum to exactly the fetch-adds the
# translator applied, and those plus the ones it counted lost are every
# operation its reports asked for.
. "$(dirname "$0")/lib.sh"
e2e_init restart_count "$1"
{
	e2e_conf_head
	cat <<EOF
[structure counters]
primitive = key-increment
width = 64K
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
# Three runs, one after the other (each waits until the translator has
# taken every datagram, --sync), so what falls where does not depend on
# timing: before the restart, while no collector is there, after it.
e2e_gen -t ki -n 20000 -k 5000 -s 1
e2e_stop_collector
e2e_gen -t ki -n 5000 -k 5000 -s 2
e2e_start_collector --restore
e2e_gen -t ki -n 20000 -k 5000 -s 3
e2e_stop_translator
e2e_stop_collector

# The counters, from the snapshot the last collector wrote (64-bit, this
# host's byte order, after the 4096-byte header).
applied=$(od -An -v -t u8 -j 4096 "$E2E/snapshots/counters.dta" |
	awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%.0f", s }')
reports=$(e2e_stat reports_key_increment)
fa=$(e2e_stat ops_fetch_add)
lost=$(e2e_stat sink_errors)
no_region=$(e2e_stat ops_lost_no_region)
echo "reports $reports, fetch-adds applied $fa, lost $lost" \
	"(no region: ${no_region:-none}), counters sum $applied"
if [ "$applied" != "$fa" ] || [ $((fa + lost)) -ne $((2 * reports)) ] ||
	[ "$no_region" != "$lost" ]; then
	echo "FAIL: writes lost without being counted; translator counters:" >&2
	cat "$E2E/translator.out" >&2
	exit 1
fi
# Exactly the 5000 reports (2 fetch-adds each) sent while no collector
# was there were lost, and counted.
e2e_expect "fetch-adds lost while no collector was there" "$lost" 10000
grep -q "retired by its collector" "$E2E/translator.log"
grep -q "re-created by a new collector" "$E2E/translator.log"
e2e_pass
