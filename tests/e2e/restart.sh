#!/bin/sh
# Nothing is lost across a clean restart: the collector writes snapshots on
# SIGTERM, a new collector restores them, and the same answers come back,
# from the new collector and from the snapshot files directly.
. "$(dirname "$0")/lib.sh"
e2e_init restart "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 4M
data = 20

[structure events]
primitive = append
batches = 8192
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 10000 -r 200000 -T "$E2E/kw.truth"
e2e_gen -t ap -n 5000 -r 200000 -T "$E2E/ap.truth"
e2e_stop_translator
e2e_stop_collector
test -s "$E2E/snapshots/paths.dta"
test -s "$E2E/snapshots/events.dta"
# The shared memory went away with the collector.
if ls /dev/shm 2>/dev/null | grep -q "e2e-restart-$$"; then
	echo "shared memory left behind" >&2
	exit 1
fi

e2e_query -D "$E2E/snapshots" verify --truth "$E2E/kw.truth" --min-success 1
e2e_query -D "$E2E/snapshots" verify --truth "$E2E/ap.truth" --min-success 1
e2e_start_collector --restore
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
e2e_query verify --truth "$E2E/ap.truth" --min-success 1
# Writing goes on after the restart: a new translator adds more keys, and
# its events follow the restored ones in the same list, in order.
e2e_start_translator
e2e_gen -t kw -n 2000 -s 7 -r 200000 -T "$E2E/kw2.truth"
e2e_gen -t ap -n 3000 -s 7 -r 200000 -T "$E2E/ap2.truth"
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
{ cat "$E2E/ap.truth"; grep -v '^#' "$E2E/ap2.truth"; } > "$E2E/ap12.truth"
# The last partial batch is written on the translator's timer.
ap12_exact() {
	e2e_query --json verify --truth "$E2E/ap12.truth" --min-success 1 > "$E2E/ap12.json"
	grep -q '"exact":8000,' "$E2E/ap12.json"
}
e2e_retry ap12_exact || { cat "$E2E/ap12.json"; exit 1; }
grep -q '"wrong":0,' "$E2E/ap12.json" || { cat "$E2E/ap12.json"; exit 1; }
e2e_query verify --truth "$E2E/kw.truth" --min-success 0.99

# A translator outlives a collector restart: it notices the new shared
# memory objects within a second and writes there.
e2e_stop_collector
e2e_start_collector --restore
# However long this machine takes to let the translator notice.
e2e_retry grep -q "re-created by a new collector" "$E2E/translator.log"
e2e_gen -t kw -n 2000 -s 8 -r 200000 -T "$E2E/kw3.truth"
e2e_query verify --truth "$E2E/kw3.truth" --min-success 1

# A collector that dies without cleaning up (SIGKILL) leaves its regions;
# the next one with the same layout reattaches and nothing is lost.
kill -KILL "$E2E_CPID"
wait "$E2E_CPID" 2>/dev/null || true
E2E_CPID=
e2e_start_collector
grep -q "reattached" "$E2E/collector.log"
e2e_query verify --truth "$E2E/kw3.truth" --min-success 1
e2e_stop_translator
e2e_stop_collector

# Another configuration must not silently take over existing regions.
e2e_start_collector
kill -KILL "$E2E_CPID"
wait "$E2E_CPID" 2>/dev/null || true
E2E_CPID=
sed 's/^slots = 4M$/slots = 2M/' "$E2E/dta.conf" > "$E2E/other.conf"
if "$COLLECTOR" -c "$E2E/other.conf" > "$E2E/refused.log" 2>&1; then
	echo "collector took over regions of another layout" >&2
	exit 1
fi
grep -q "exists with another layout" "$E2E/refused.log"
# --force replaces them (and the clean exit removes them).
"$COLLECTOR" -c "$E2E/other.conf" --force > "$E2E/forced.log" 2>&1 &
E2E_CPID=$!
e2e_wait_ready "$E2E/forced.log" "dta-collector --force"
e2e_stop_collector
e2e_pass
