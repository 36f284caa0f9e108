#!/bin/sh
# Several collectors: structures partitioned across two collectors, Key-Write
# / Postcarding / Key-Increment by key hash, Append by list id; one
# translator writes into both, and dta-query finds the collector that holds
# each key or list. Every answer must be exact, and each collector must
# hold only its share.
. "$(dirname "$0")/lib.sh"
e2e_init collectors "$1"
cat > "$E2E/dta.conf" <<EOF
[collector]
name = e2e-mc0-$$
socket = $E2E/c0.sock
[collector east]
name = e2e-mc1-$$
socket = $E2E/c1.sock

[translator]
port = $E2E_PORT
bind = 127.0.0.1
pc_timeout_ms = 60000

[structure paths]
primitive = key-write
slots = 1M
data = 20
collector = default, east

[structure postcards]
primitive = postcard
chunks = 256K
values = 1-80
collector = east, default

[structure events]
primitive = append
lists = 2
entry = 8
batches = 1024
collector = default, east

[structure counters]
primitive = key-increment
width = 256K
collector = east
EOF
"$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/c0.log" 2>&1 &
c0=$!
"$COLLECTOR" -c "$E2E/dta.conf" --collector east > "$E2E/c1.log" 2>&1 &
c1=$!
E2E_PIDS="$c0 $c1"
e2e_wait_ready "$E2E/c0.log" "collector 0"
e2e_wait_ready "$E2E/c1.log" "collector east"
grep -q "serving 3 structures" "$E2E/c0.log"
grep -q "serving 4 structures" "$E2E/c1.log"
e2e_start_translator -q

e2e_gen -t kw -n 4000 -k 2000 -r 50000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 1000 -r 50000 -T "$E2E/pc.truth"
e2e_gen -t ap -n 4000 --lists 4 --entry 8 -r 50000 -T "$E2E/ap.truth"
e2e_gen -t ki -n 5000 -k 500 -r 50000 -T "$E2E/ki.truth"
sleep 0.5
for t in kw pc ap ki; do
	e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done

# Each collector holds a share, not everything: asked directly, each
# finds part of the keys, and the two parts add up.
kw0=$("$QUERY" -c "$E2E/dta.conf" --socket "$E2E/c0.sock" --json \
	verify --truth "$E2E/kw.truth" | sed 's/.*"exact":\([0-9]*\).*/\1/')
kw1=$("$QUERY" -c "$E2E/dta.conf" --socket "$E2E/c1.sock" --json \
	verify --truth "$E2E/kw.truth" | sed 's/.*"exact":\([0-9]*\).*/\1/')
total=$(grep -vc '^#' "$E2E/kw.truth")
echo "key-write keys: $kw0 on [collector], $kw1 on [collector east], $total sent"
test "$kw0" -gt $((total / 3)) && test "$kw1" -gt $((total / 3))
e2e_expect "keys found on one collector or the other" $((kw0 + kw1)) "$total"
# Append list 3 is list 1 of the second share, on collector east.
e2e_query ap tail events 3 -n 1000 > "$E2E/l3.out"
e2e_expect "list 3 entries" "$(grep -c . "$E2E/l3.out")" 1000
"$QUERY" -c "$E2E/dta.conf" --socket "$E2E/c1.sock" ap tail events 1 -n 1000 > "$E2E/l3b.out"
cmp "$E2E/l3.out" "$E2E/l3b.out"
# Key-Increment lives on east only.
e2e_query --collector east stats | grep -q '"structures":4'

e2e_stop_translator
e2e_expect "unknown structure" "$(e2e_stat unknown_structure)" 0
e2e_expect "sink errors" "$(e2e_stat sink_errors)" 0
E2E_PIDS=
e2e_term $c0 "collector 0"
e2e_term $c1 "collector east"
e2e_pass
