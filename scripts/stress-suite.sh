#!/bin/sh
# Runs the test suite N times in a row with stress-ng loading every core
# beside it, to show that no test passes or fails with the machine's load.
# Usage: scripts/stress-suite.sh BUILD_DIR [RUNS] [ctest options...]
#   e.g. scripts/stress-suite.sh build 10 -LE rdma
# Stops at the first red run and keeps its log; prints one line per run.
# Needs stress-ng (Debian package stress-ng).
set -eu
build=${1:?usage: stress-suite.sh BUILD_DIR [RUNS] [ctest options...]}
runs=${2:-10}
[ $# -ge 2 ] && shift 2 || shift $#
command -v stress-ng >/dev/null || {
	echo "stress-suite: stress-ng is not installed (apt-get install stress-ng)" >&2
	exit 2
}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/dta-stress.XXXXXX")
stress-ng --cpu 4 --timeout 0 --quiet &
load=$!
trap 'kill $load 2>/dev/null; wait $load 2>/dev/null || true' EXIT INT TERM
i=1
while [ "$i" -le "$runs" ]; do
	log=$logdir/run$i.log
	start=$(date +%s)
	if (cd "$build" && ctest --output-on-failure -j2 --timeout 900 "$@") >"$log" 2>&1; then
		echo "run $i/$runs: green ($(grep -E 'tests passed' "$log")," \
			"$(($(date +%s) - start)) s, load: stress-ng --cpu 4; loadavg $(cut -d' ' -f1-3 /proc/loadavg))"
	else
		echo "run $i/$runs: RED; log kept in $log" >&2
		grep -E 'Failed|\*\*\*' "$log" >&2 || true
		exit 1
	fi
	i=$((i + 1))
done
rm -rf "$logdir"
echo "$runs of $runs runs green under stress-ng --cpu 4"
