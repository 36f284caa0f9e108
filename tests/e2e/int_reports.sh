#!/bin/sh
# INT telemetry reports on the [int] port (docs/int.md "Mapping"): v0.5
# postcard-style, v1.0 drop and v2.0 INT-MD datagrams, INT v1.0 and v0.5
# stacks, v2.0 sinks with their own metadata in the header (one beside a
# report refused alone) from a tiny sender
# (tests/tools/int_send.py) become structure writes that dta-query reads
# back; every datagram sent is applied or counted (int_* counters). Then
# the same datagrams once more from a pcap file (dta-translator -r).
. "$(dirname "$0")/lib.sh"
e2e_init int_reports "$1"
command -v python3 > /dev/null || exit 77
INT_PORT=$((E2E_PORT + 1))
e2e_int_conf key-write "slots = 4K
data = 16" 4K 1 "" > "$E2E/dta.conf"
answers() {
	# The INT-MD path of 10.0.0.9 (stack 3, 2, 1, newest first) in path
	# order, padded with all ones.
	path=$(e2e_query kw get paths '10.0.0.9:1234->10.0.0.2:80/udp' | cut -d' ' -f2)
	e2e_expect "path of 10.0.0.9" "$path" 0x000000010000000200000003ffffffff
	# The v0.5 postcards of 10.0.0.7 at switches 1, 2, 3 (queue 3 each).
	e2e_expect "reports of 10.0.0.7" \
		"$(e2e_query ki get flows '10.0.0.7:1234->10.0.0.2:80/udp')" 3
	e2e_expect "reports of switch 2 queue 3" \
		"$(e2e_query ki get queues 0x0000000203)" 1
	# Its hop at switch 2: no latency in v0.5, occupancy 200, egress ts 2007.
	e2e_expect "hop record at switch 2" \
		"$(e2e_query kw get hops 0x0a0000070a00000204d200501100000002 | cut -d' ' -f2)" \
		0xffffffff000000c800000000000007d7
	# The two v1.0 drops at switch 11: ports 5/6, D, queue 1, reason 0x0b,
	# version 1, no occupancy, (flow hash), no latency, time 0x1000.
	e2e_query ap tail events 0 -n 10 > "$E2E/events.out"
	cat "$E2E/events.out"
	e2e_expect "drop events" \
		"$(grep -c '^0x0000000b0005000608010b01ffffffff[0-9a-f]\{8\}ffffffff0000000000001000$' "$E2E/events.out")" 2
	# An INT v1.0 stack (v1.0 report) and an INT v0.5 stack (v0.5
	# report): their paths first hop first.
	e2e_expect "path of 10.0.0.10 (INT v1.0 stack)" \
		"$(e2e_query kw get paths '10.0.0.10:1234->10.0.0.2:80/udp' | cut -d' ' -f2)" \
		0x000000010000000200000003ffffffff
	e2e_expect "path of 10.0.0.11 (INT v0.5 stack)" \
		"$(e2e_query kw get paths '10.0.0.11:1234->10.0.0.2:80/udp' | cut -d' ' -f2)" \
		0x0000000400000005ffffffffffffffff
	# v2.0 sinks with their own metadata in the header: the last hop,
	# with its hop record (latency 60, occupancy 6); the second one's
	# datagram also held a report refused alone.
	e2e_expect "path of 10.0.0.12 (sink 6 in the header)" \
		"$(e2e_query kw get paths '10.0.0.12:1234->10.0.0.2:80/udp' | cut -d' ' -f2)" \
		0x000000010000000200000006ffffffff
	e2e_expect "path of 10.0.0.13 (sink 6, beside a refused report)" \
		"$(e2e_query kw get paths '10.0.0.13:1234->10.0.0.2:80/udp' | cut -d' ' -f2)" \
		0x0000000700000006ffffffffffffffff
	e2e_expect "hop record of 10.0.0.12 at sink 6" \
		"$(e2e_query kw get hops 0x0a00000c0a00000204d200501100000006 | cut -d' ' -f2)" \
		0x0000003c00000006ffffffffffffffff
	# queue 1 of switch 1: the v2.0 path of 10.0.0.9, the v1.0 stack,
	# the sink's path 1, 2, 6; of switch 6: both sinks
	e2e_expect "reports of switch 1 queue 1" \
		"$(e2e_query ki get queues 0x0000000101)" 3
	e2e_expect "reports of sink 6 queue 1" \
		"$(e2e_query ki get queues 0x0000000601)" 2
}

counters() {
	# Every datagram sent is applied or counted, exactly.
	e2e_expect "INT datagrams" "$(e2e_stat int_datagrams)" "$int_sent"
	# The version-3 datagram, and the report refused alone beside a
	# sink's: the sink's report still applies.
	e2e_expect "INT malformed (version)" "$(e2e_stat int_malformed_version)" 2
	e2e_expect "INT malformed" "$(e2e_stat int_malformed)" 2
	e2e_expect "INT reports applied" "$(e2e_stat int_applied)" $((int_sent - 1))
	e2e_expect "INT reports unmapped" "$(e2e_stat int_unmapped)" 0
	e2e_expect "INT sequence losses" "$(e2e_stat int_seq_lost)" 0
	e2e_expect "socket drops" "$(e2e_stat socket_drops)" 0
}

e2e_start_collector
e2e_start_translator
grep -q "INT reports on 127.0.0.1:$INT_PORT" "$E2E/translator.log"
int_sent=$(python3 "$(dirname "$0")/../tools/int_send.py" --layouts 127.0.0.1 "$INT_PORT")
stat() { tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n "s/^\"$1\":\([0-9]*\)$/\1/p"; }
all_in() { [ "$(stat int_datagrams)" = "$int_sent" ]; }
e2e_retry all_in

answers
e2e_stop_translator
e2e_stop_collector
counters

# The same from a capture, into fresh structures.
python3 "$(dirname "$0")/../tools/int_send.py" --layouts --pcap "$E2E/int.pcap" \
	127.0.0.1 "$INT_PORT" > /dev/null
e2e_start_collector
"$TRANSLATOR" -q -c "$E2E/dta.conf" -r "$E2E/int.pcap" > "$E2E/translator.out"
answers
e2e_stop_collector
counters
e2e_pass
