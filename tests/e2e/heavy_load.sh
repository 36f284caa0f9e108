#!/bin/sh
# Under heavy load answers are lost to overwrites. Key-Write and
# Postcarding must still do at least as well as the paper's bounds promise
# (within a small statistical margin), count-min may only overestimate, and
# an Append reader that was lapped gets the newest entries, in order.
. "$(dirname "$0")/lib.sh"
e2e_init heavy "$1"
{
	e2e_conf_head
	# Partial Append batches wait a minute: how many entries the ring
	# holds must not depend on how fast this machine runs the test.
	echo "ap_timeout_ms = 60000"
	echo "pc_timeout_ms = 60000"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 65536
data = 20
redundancy = 2

[structure postcards]
primitive = postcard
chunks = 16384
values = 1-80

[structure events]
primitive = append
batches = 64

[structure counters]
primitive = key-increment
width = 1024
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 100000 -k 80000 -r 250000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 20000 -r 250000 -T "$E2E/pc.truth"
e2e_gen -t ap -n 5000 -r 250000 -T "$E2E/ap.truth"
e2e_gen -t ki -n 100000 -k 5000 -r 250000 --batch 8 -T "$E2E/ki.truth"
# Nothing here waits on a timer: once dta-gen returns, the translator has
# applied everything (e2e_gen).
e2e_query verify --truth "$E2E/kw.truth" --max-below-bound 0.01
e2e_query verify --truth "$E2E/pc.truth" --max-below-bound 0.01
e2e_query --json verify --truth "$E2E/ki.truth" > "$E2E/ki.json"
grep -q '"under":0,' "$E2E/ki.json" || { cat "$E2E/ki.json"; exit 1; }
if grep -q '"over":0,' "$E2E/ki.json"; then
	echo "count-min never over-estimated under this load?" >&2
	exit 1
fi
# 5000 entries = 312 full batches of 16 and a partial one of 8 (still
# pending); a ring of 64 frames keeps the newest 64 full batches: 1024
# entries, read in order.
e2e_query --json verify --truth "$E2E/ap.truth" > "$E2E/ap.json"
grep -q '"exact":1024,' "$E2E/ap.json" || { cat "$E2E/ap.json"; exit 1; }
grep -q '"wrong":0,' "$E2E/ap.json" || { cat "$E2E/ap.json"; exit 1; }
e2e_stop_translator
e2e_expect "reports lost in transit" "$(e2e_stat seq_lost)" 0
e2e_stop_collector
e2e_pass
