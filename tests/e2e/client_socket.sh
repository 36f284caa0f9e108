#!/bin/sh
# The client (dta/client.h) gives the same answers whichever way it reaches
# a collector's memory (docs/client.md): its socket in binary frames and
# in text lines, its shared memory mapped here, its snapshots, and its
# configuration - every primitive, with one collector and with two
# collectors holding shares of the structures. tests/tools/client_same
# asks each target for the keys of dta-gen's truth files (and as many
# never sent) and reads every Append list to its end, and fails at the
# first difference; dta-query verify checks the answers against the truth.
. "$(dirname "$0")/lib.sh"
e2e_init client_socket "$1"
SAME=$BUILD/tests/client_same
C=$E2E/dta.conf
{
	e2e_conf_head
	echo "pc_timeout_ms = 60000"
	e2e_client_structures 256K 64K
} > "$C"
e2e_start_collector
e2e_start_translator -q
e2e_gen -t kw -n 4000 -k 2000 -r 50000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 1000 -r 50000 -T "$E2E/pc.truth"
e2e_gen -t ki -n 6000 -k 600 -r 50000 -T "$E2E/ki.truth"
# More Append entries than the rings hold (125 batches a list, 64 kept):
# a reader from the oldest entry misses some, the same from every target.
e2e_gen -t ap -n 4000 --lists 2 --entry 8 -r 50000 -T "$E2E/ap.truth"
for t in kw pc ki; do
	e2e_retry e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done
e2e_stop_translator # its last partial batches are written now
e2e_query snapshot > /dev/null
S=$E2E/collector.sock
"$SAME" -k "$E2E/kw.truth" -k "$E2E/pc.truth" -k "$E2E/ki.truth" \
	"unix:$S" "text:unix:$S" "$S" "map:$C" "snapshot:$E2E/snapshots?config=$C" \
	"config:$C" "text:config:$C" > "$E2E/same1.out"
cat "$E2E/same1.out"
# Something was found: equal answers are not all "not found".
grep -q '^kw paths: [0-9]* keys, [1-9][0-9]* found, same from 7' "$E2E/same1.out"
grep -q '^pc postcards: 2000 keys, 1000 found, same from 7' "$E2E/same1.out"
# Every report counted once, in one bank or the other.
grep -q '^ki counters: 1200 keys, counts summing to 6000, same from 7' "$E2E/same1.out"
# At most 2 lists x 64 batches x 16 entries kept (fewer when the
# translator's timer flushed partial batches), none lost to a reader that
# starts at the oldest batch kept.
grep -q '^ap events: 2 lists, [1-9][0-9]* entries, 0 lost, same from 7' "$E2E/same1.out"
# dta-query: many keys in one call, and keys from stdin, answer line for
# line what one call per key answers; exit status 1 as one key not found.
grep '^kw ' "$E2E/kw.truth" | head -n 40 | cut -d' ' -f2 | sed 's/^/0x/' > "$E2E/k40"
tail -n 20 "$E2E/k40" > "$E2E/k20"
for k in $(cat "$E2E/k40") 0x0102030405; do
	printf '%s: ' "$k"
	e2e_query kw get paths "$k" || true
done > "$E2E/one.out"
rc=0
e2e_query kw get paths $(head -n 20 "$E2E/k40") - 0x0102030405 \
	< "$E2E/k20" > "$E2E/many.out" || rc=$?
e2e_expect "kw get of a missing key among many: exit status" $rc 1
e2e_expect "kw get of 41 keys: lines" "$(wc -l < "$E2E/many.out")" 41
cmp "$E2E/one.out" "$E2E/many.out"
for k in $(cat "$E2E/k40"); do
	printf '%s: ' "$k"
	e2e_query ki get counters "$k"
done > "$E2E/one.out"
e2e_query ki get counters - < "$E2E/k40" > "$E2E/many.out"
cmp "$E2E/one.out" "$E2E/many.out"
grep '^pc ' "$E2E/pc.truth" | head -n 40 | cut -d' ' -f2 | sed 's/^/0x/' > "$E2E/p40"
for k in $(cat "$E2E/p40"); do
	printf '%s: ' "$k"
	e2e_query --map pc path postcards "$k"
done > "$E2E/one.out"
e2e_query --map pc path postcards $(cat "$E2E/p40") > "$E2E/many.out"
cmp "$E2E/one.out" "$E2E/many.out"
e2e_stop_collector

# Two collectors, each structure partitioned over both (Key-Increment on
# east only). Each writes its snapshots under snaps/ITS-NAME/, where
# snapshot:DIR?config= looks for them.
A=e2e-client_socket-$$-a
B=e2e-client_socket-$$-b
{
cat <<EOF
[collector]
name = $A
socket = $E2E/c0.sock
snapshot_dir = $E2E/snaps/$A
[collector east]
name = $B
socket = $E2E/c1.sock
snapshot_dir = $E2E/snaps/$B

[translator]
port = $E2E_PORT
bind = 127.0.0.1
pc_timeout_ms = 60000

EOF
e2e_partitioned 256K 64K 1024 64K
} > "$C"
mkdir -m 0700 "$E2E/snaps" # the collectors create their own directory in it
e2e_start_pair
e2e_start_translator -q
e2e_four e2e_gen 4000 4 50000
e2e_stop_translator
e2e_query snapshot > /dev/null
e2e_query --collector east snapshot > /dev/null
# Every collector through its configuration: keys routed by shard.
"$SAME" -k "$E2E/kw.truth" -k "$E2E/pc.truth" -k "$E2E/ki.truth" \
	"config:$C" "text:config:$C" "map:$C" "snapshot:$E2E/snaps?config=$C" \
	> "$E2E/same2.out"
cat "$E2E/same2.out"
grep -q '^kw paths: [0-9]* keys, [1-9][0-9]* found, same from 4' "$E2E/same2.out"
grep -q '^ap events: 4 lists, 4000 entries, 0 lost, same from 4' "$E2E/same2.out"
# One collector's shares: its socket, its mapping, its snapshots.
"$SAME" -k "$E2E/kw.truth" -k "$E2E/pc.truth" -k "$E2E/ki.truth" \
	"unix:$E2E/c1.sock" "map:$C?collector=east" \
	"snapshot:$E2E/snaps/$B?config=$C&collector=east" \
	"config:$C?collector=east" > "$E2E/same3.out"
cat "$E2E/same3.out"
grep -q '^ap events: 2 lists, 2000 entries, 0 lost' "$E2E/same3.out"
grep -q '^ki counters: [0-9]* keys, counts summing to 6000' "$E2E/same3.out"
# The routed answers find every key the two shares found between them.
f2=$(sed -n 's/^kw paths: [0-9]* keys, \([0-9]*\) found.*/\1/p' "$E2E/same2.out")
f3=$(sed -n 's/^kw paths: [0-9]* keys, \([0-9]*\) found.*/\1/p' "$E2E/same3.out")
"$SAME" -k "$E2E/kw.truth" "unix:$E2E/c0.sock" "map:$C?collector=default" \
	> "$E2E/same4.out"
f4=$(sed -n 's/^kw paths: [0-9]* keys, \([0-9]*\) found.*/\1/p' "$E2E/same4.out")
e2e_expect "keys found routed = found on each collector" "$f2" $((f3 + f4))
e2e_stop_pair
e2e_pass
