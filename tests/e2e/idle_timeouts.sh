#!/bin/sh
# An idle translator sleeps until its next deadline, yet every timeout is
# still honoured with no further traffic: a partial Append batch, postcard
# flows, and Key-Increment pre-aggregation all reach the collector after
# their timeouts, long after the last datagram. Timeouts are long here
# (hundreds of ms: far more than the translator's first ticks after a
# datagram), and the results are waited for with e2e_retry, never a fixed
# sleep.
. "$(dirname "$0")/lib.sh"
e2e_init idle_timeouts "$1"
{
	e2e_conf_head
	cat <<EOF
ap_timeout_ms = 400
pc_timeout_ms = 300
ki_window_us = 500000

[structure postcards]
primitive = postcard
chunks = 4K
values = 1-80

[structure events]
primitive = append
lists = 1
entry = 8
batches = 1K

[structure counters]
primitive = key-increment
width = 16K
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
# Fewer Append entries than a batch holds: only ap_timeout writes them.
e2e_gen -t ap -n 5 --entry 8 --reporter 1 -T "$E2E/ap.truth"
e2e_gen -t ki -n 300 -k 30 --reporter 2 -T "$E2E/ki.truth"
e2e_gen -t pc -n 50 --reporter 3 -T "$E2E/pc.truth"
stat() { tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n "s/^\"$1\":\([0-9]*\)$/\1/p"; }
at_least() { [ "$(stat "$1")" -ge "$2" ]; }
e2e_retry at_least ap_partial 1
e2e_retry at_least ki_merged 1
e2e_retry e2e_query verify --truth "$E2E/ap.truth" --min-success 1
e2e_retry e2e_query verify --truth "$E2E/ki.truth" --min-success 1
e2e_retry e2e_query verify --truth "$E2E/pc.truth" --min-success 1
e2e_stop_translator
e2e_stop_collector
e2e_pass
