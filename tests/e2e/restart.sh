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
batches = 1024
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 10000 -r 200000 -T "$E2E/kw.truth"
e2e_gen -t ap -n 5000 -r 200000 -T "$E2E/ap.truth"
sleep 0.2
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
# Writing goes on after the restart: a new translator adds more keys.
e2e_start_translator
e2e_gen -t kw -n 2000 -s 7 -r 200000 -T "$E2E/kw2.truth"
sleep 0.1
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
e2e_query verify --truth "$E2E/kw.truth" --min-success 0.99
e2e_stop_translator
e2e_stop_collector
e2e_pass
