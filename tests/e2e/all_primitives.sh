#!/bin/sh
# Every primitive through real processes and UDP, structures sized so that
# collisions cannot matter: every Key-Write key and Postcarding path comes
# back exactly, every Append entry once and in order, every counter equals
# the sum sent. Malformed packets in the stream are counted and disturb
# nothing else.
. "$(dirname "$0")/lib.sh"
e2e_init all "$1"
{
	e2e_conf_head
	# No translator timeouts during the test: every flow completes and
	# every full batch is written however slowly this machine runs; the
	# last partial batches are written when the generator goes quiet
	# (ap timeout) - so that one stays short.
	echo "pc_timeout_ms = 60000"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 16M
data = 20
redundancy = 4

[structure postcards]
primitive = postcard
chunks = 4M
values = 1-80

[structure events]
primitive = append
lists = 3
first_list = 100
batches = 16384
entry = 8

[structure counters]
primitive = key-increment
width = 4M
rows = 3
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator

# Sent in windows the translator surely holds (e2e_gen): any loss is a bug.
e2e_gen -t kw -n 20000 -k 5000 -r 200000 --malformed 50 -T "$E2E/kw.truth"
e2e_gen -t pc -n 5000 -r 200000 --malformed 50 -T "$E2E/pc.truth"
# A client follows list 100 live while it is written, from the oldest
# entry so that when it starts does not matter. Its own pid: dta-query.
"$QUERY" -c "$E2E/dta.conf" ap follow events 0 --from-start > "$E2E/follow.out" &
follow=$!
E2E_PIDS="$E2E_PIDS $follow"
e2e_gen -t ap -n 30000 --lists 3 --first-list 100 --entry 8 --batch 4 \
	-r 200000 --malformed 50 -T "$E2E/ap.truth"
e2e_gen -t ki -n 50000 -k 3000 -z 1.0 --batch 8 -r 250000 \
	--malformed 50 -T "$E2E/ki.truth"
grep '^ap 100 ' "$E2E/ap.truth" | sed 's/^ap 100 /0x/' > "$E2E/follow.want"
# The last partial batches are written on the translator's timer.
follow_done() {
	test "$(wc -l < "$E2E/follow.out")" -ge "$(wc -l < "$E2E/follow.want")"
}
e2e_retry follow_done
kill "$follow"
wait "$follow" 2>/dev/null || true
E2E_PIDS=
if ! cmp -s "$E2E/follow.want" "$E2E/follow.out"; then
	echo "ap follow did not print list 100's entries in order:" >&2
	wc -l "$E2E/follow.want" "$E2E/follow.out" >&2
	exit 1
fi
echo "ok: ap follow printed $(wc -l < "$E2E/follow.out") entries in order"

for t in kw pc ap ki; do
	e2e_retry e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done
e2e_stop_translator
e2e_expect "malformed packets counted" "$(e2e_stat malformed)" 200
# dta-gen's junk cycles: truncated, bad version, a length past the end
# (truncated), bad opcode; 50 a run = 13, 13, 12, 12 of them; 4 runs.
e2e_expect "malformed: truncated" "$(e2e_stat malformed_truncated)" 100
e2e_expect "malformed: version" "$(e2e_stat malformed_version)" 52
e2e_expect "malformed: opcode" "$(e2e_stat malformed_opcode)" 48
e2e_expect "reports lost in transit" "$(e2e_stat seq_lost)" 0
e2e_expect "unknown structure" "$(e2e_stat unknown_structure)" 0
e2e_expect "key-write reports" "$(e2e_stat reports_key_write)" 20000
e2e_expect "append reports" "$(e2e_stat reports_append)" 30000
e2e_expect "key-increment reports" "$(e2e_stat reports_key_increment)" 50000
e2e_stop_collector
e2e_pass
