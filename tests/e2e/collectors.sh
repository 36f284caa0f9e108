#!/bin/sh
# Several collectors: structures partitioned across two collectors, Key-Write
# / Postcarding / Key-Increment by key hash, Append by list id; one
# translator writes into both, and dta-query finds the collector that holds
# each key or list. Every answer must be exact, and each collector must
# hold only its share.
. "$(dirname "$0")/lib.sh"
e2e_init collectors "$1"
{
cat <<EOF
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

EOF
e2e_partitioned 1M 256K 1024 256K
} > "$E2E/dta.conf"
e2e_start_pair
grep -q "serving 3 structures" "$E2E/c0.log"
grep -q "serving 4 structures" "$E2E/c1.log"
e2e_start_translator -q

e2e_four e2e_gen 4000 4 50000

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
e2e_stop_pair
e2e_pass
