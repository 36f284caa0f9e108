#!/bin/sh
# --restore never rolls live data back. A collector killed after a
# snapshot leaves its region, newer than the snapshot; the next collector
# reattaches it and keeps it (the snapshot is a copy of the same region:
# same origin id). A snapshot of another region is loaded over a
# reattached one only when it was saved after that region was created.
# Every choice is logged.
. "$(dirname "$0")/lib.sh"
e2e_init restore_newer "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 1M
data = 20
EOF
} > "$E2E/dta.conf"
# Collector B: another region of the same layout, its own snapshots (its
# name keeps its shm object under the cleanup's pattern).
sed -e "s#^name = .*#name = e2e-restore_newer-$$-b#" \
	-e "s#^socket = .*#socket = $E2E/b.sock#" \
	-e "s#^snapshot_dir = .*#snapshot_dir = $E2E/snapb#" \
	"$E2E/dta.conf" > "$E2E/b.conf"
snapshot_of_b() { # FILE: a snapshot of a new region of collector B
	: > "$E2E/b.log" # now, so the wait cannot see the last run's "ready"
	"$COLLECTOR" -c "$E2E/b.conf" >> "$E2E/b.log" 2>&1 &
	pid=$!
	E2E_PIDS=$pid
	e2e_wait_ready "$E2E/b.log" "collector B"
	E2E_PIDS=
	e2e_term "$pid" "collector B"
	cp "$E2E/snapb/paths.dta" "$1"
}
restart_killed() { # a collector dies (SIGKILL) and another starts --restore
	kill -KILL "$E2E_CPID"
	wait "$E2E_CPID" 2>/dev/null || true
	E2E_CPID=
	e2e_start_collector --restore
	cat "$E2E/collector.log"
}

snapshot_of_b "$E2E/older.dta"
sleep 0.01
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 3000 -r 100000 -T "$E2E/kw1.truth"
sleep 0.3
e2e_query snapshot
e2e_gen -t kw -n 3000 -s 2 -r 100000 -T "$E2E/kw2.truth"
sleep 0.3
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1

# The snapshot is an older copy of the reattached region: keep the region.
restart_killed
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
e2e_query verify --truth "$E2E/kw1.truth" --min-success 1
grep -q "keeping the reattached region, not restoring .*same origin" \
	"$E2E/collector.log"

# Another region's snapshot, saved before this region was created: keep.
cp "$E2E/older.dta" "$E2E/snapshots/paths.dta"
restart_killed
grep -q "keeping the reattached region, not restoring .*saved before the region was created" \
	"$E2E/collector.log"
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1

# Another region's snapshot saved after this region was created (an
# operator restoring on purpose): it is loaded.
snapshot_of_b "$E2E/newer.dta"
cp "$E2E/newer.dta" "$E2E/snapshots/paths.dta"
restart_killed
grep -q "restoring .* over the reattached region" "$E2E/collector.log"
# Not "verify fails" (it would for any reason): it answers, and finds
# none of the keys written before.
e2e_query verify --truth "$E2E/kw2.truth" > "$E2E/v.out" 2>&1 || true
cat "$E2E/v.out"
grep -q " 0\.000% exact" "$E2E/v.out" || {
	echo "FAIL: the newer (empty) snapshot was not loaded" >&2
	exit 1
}
e2e_stop_translator
e2e_stop_collector
e2e_pass
