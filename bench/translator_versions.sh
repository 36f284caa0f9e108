#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The translator of several libdta versions side by side in one run:
# bench_translator (this tree's source) built against each version's
# library, run in turn, -m RUNS each, for each reports-per-payload value.
#
#   bench/translator_versions.sh [-m RUNS] [-r "1 8 28"] [-n REPORTS] [COMMIT...]
#
# Default commits: 7ca9f03 (before loss accounting, issue 12), a1feef5
# (issue 12's loss accounting, where issue 13 started) and HEAD. Older
# versions lack the sink hooks and dta_translator_process_batch() (a loop
# of _process() stands in: the 'batch' column equals 'process' there) and,
# before issue 12, the region writer guard. Prints `uptime` first.
set -eu
runs=3 pers="1 8 28" n=2000000
while getopts m:r:n: o; do
	case $o in
	m) runs=$OPTARG ;;
	r) pers=$OPTARG ;;
	n) n=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 7ca9f03 a1feef5 HEAD
top=$(git rev-parse --show-toplevel)
work=$(mktemp -d /tmp/dta-versions.XXXXXX)
trap 'rm -rf "$work"' EXIT
for c in "$@"; do
	d=$work/$c
	mkdir -p "$d"
	git -C "$top" archive "$c" | tar -x -C "$d"
	cp "$top/bench/bench_translator.c" "$d/bench/bench_translator.c"
	flags=
	grep -q batch_begin "$d/lib/include/dta/translator.h" || flags="-DBENCH_OLD_API"
	grep -q dta_region_enter "$d/lib/include/dta/region.h" || flags="$flags -DBENCH_NO_GUARD"
	grep -q dta_translator_set_reporter_slots "$d/lib/include/dta/translator.h" ||
		flags="$flags -DBENCH_NO_SLOTS"
	grep -q merge_ops "$d/lib/include/dta/translator.h" ||
		flags="$flags -DBENCH_NO_MERGE"
	nice -n 5 cmake -S "$d" -B "$d/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS="$flags" >/dev/null
	nice -n 5 cmake --build "$d/build" -j2 --target bench_translator >/dev/null
done
uptime
for r in $pers; do
	for c in "$@"; do
		echo "== $c ($(git -C "$top" log -1 --format=%h "$c")), $r per payload"
		"$work/$c/build/bench/bench_translator" -U -n "$n" -r "$r" -m "$runs" | tail -n 5
	done
done
uptime
