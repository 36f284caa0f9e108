#!/bin/sh
# dta-query's INT questions (docs/int.md "Querying INT structures"): the
# datagrams of tests/tools/int_send.py --congestion go through a translator
# with an [int] section; `dta-query int path|hops|drops|congestion|count|
# queue` answer in words and JSON, exactly, over the collector's socket,
# through --map and from snapshot files; then once more with the paths in
# a Postcarding structure.
. "$(dirname "$0")/lib.sh"
e2e_init int_query "$1"
command -v python3 > /dev/null || exit 77
INT_PORT=$((E2E_PORT + 1))
F9='10.0.0.9:1234-10.0.0.2:80/udp'
F7='10.0.0.7:1234-10.0.0.2:80/udp'
F5='10.0.0.5:1234->10.0.0.2:80/udp'
conf() { # PATH-PRIMITIVE
	if [ "$1" = key-write ]; then
		paths='slots = 4K
data = 16'
	else
		paths='chunks = 4K
hops = 3
values = 1-16'
	fi
	# Postcards of a flow arrive in separate datagrams: on a loaded
	# machine more than the default 10 ms apart, and the timeout would
	# write a path cut short. Complete paths are written when their last
	# hop arrives, whatever the timeout.
	e2e_int_conf "$1" "$paths" 4K 16 "events_by = switch" |
		sed '/^\[translator\]$/a pc_timeout_ms = 3600000'
}
q() { e2e_query "$@"; }
send() {
	e2e_start_collector
	e2e_start_translator
	int_sent=$(python3 "$(dirname "$0")/../tools/int_send.py" --congestion \
		127.0.0.1 "$INT_PORT")
	all_in() {
		n=$(tr ',{}' '\n\n\n' < "$E2E/translator.json" |
			sed -n 's/^"int_datagrams":\([0-9]*\)$/\1/p')
		[ "$n" = "$int_sent" ]
	}
	e2e_retry all_in
	e2e_stop_translator
}
# Every answer of one way of asking (WAY: "" the socket, "-m" --map,
# "-D DIR" snapshot files).
answers() { # WAY
	w=$1
	e2e_expect "path $w" "$(q $w int path "$F9")" \
		"found: 1 2 3 (switch ids, first hop first; 4 of 4 matching slots agree)"
	e2e_expect "path json $w" "$(q $w -j int path "$F9")" \
		'{"flow":"10.0.0.9:1234->10.0.0.2:80/udp","structure":"paths","primitive":"kw","status":"found","path":[1,2,3],"votes":4,"candidates":4}'
	# 10.0.0.7's reports are postcards: no Key-Write path.
	rc=0; out=$(q $w int path "$F7") || rc=$?
	e2e_expect "no path $w" "$out/$rc" "not-found (0 slots matched the key's checksum)/1"
	e2e_expect "hops $w" "$(q $w int hops "$F9")" \
"path found: 1 2 3 (switch ids, first hop first; 4 of 4 matching slots agree)
hop 0 switch 1: found, latency 10, occupancy 1, egress ts -
hop 1 switch 2: found, latency 20, occupancy 2, egress ts -
hop 2 switch 3: found, latency 30, occupancy 3, egress ts -"
	e2e_expect "hops json $w" "$(q $w -j int hops "$F9")" \
		'{"flow":"10.0.0.9:1234->10.0.0.2:80/udp","structure":"paths","primitive":"kw","status":"found","path":[1,2,3],"votes":4,"candidates":4,"hops_structure":"hops","hops":[{"hop":0,"switch":1,"status":"found","latency":10,"occupancy":1,"egress_ts":null},{"hop":1,"switch":2,"status":"found","latency":20,"occupancy":2,"egress_ts":null},{"hop":2,"switch":3,"status":"found","latency":30,"occupancy":3,"egress_ts":null}]}'
	# Flow hash: CRC-32C of 10.0.0.5's key (0a0000050a00000204d2005011).
	drop='switch 11 queue 1 ports 5->6: drop, reason 11, occupancy -, latency -, time 4096, flow hash 0x55702fdd, version 1.0'
	e2e_expect "drops $w" "$(q $w int drops)" "$drop
$drop
2 drops of 3 events read (lists 0-15)"
	e2e_expect "drops of switch 11, reason 11 $w" \
		"$(q $w int drops --switch 11 --reason 11)" "$drop
$drop
2 drops of 2 events read (lists 11-11)"
	e2e_expect "drops of reason 12 $w" "$(q $w int drops --reason 12)" \
		"0 drops of 3 events read (lists 0-15)"
	e2e_expect "drops of switch 12 $w" "$(q $w int drops --switch 12)" \
		"0 drops of 1 events read (lists 12-12)"
	dj='{"list":11,"switch":11,"dropped":true,"congested":false,"queue":1,"reason":11,"ingress_port":5,"egress_port":6,"occupancy":null,"latency":null,"time":4096,"flow_hash":1433415645,"version":1}'
	e2e_expect "drops json $w" "$(q $w -j int drops --switch 11)" \
		"{\"structure\":\"events\",\"first_list\":11,\"last_list\":11,\"events\":[$dj,$dj],\"matched\":2,\"read\":2,\"lost\":0,\"partial\":false,\"missing\":[]}"
	e2e_expect "congestion $w" "$(q $w int congestion --queue 4)" \
"switch 12 queue 4 ports 7->8: congestion, reason -, occupancy 300, latency -, time 8192, flow hash 0x55702fdd, version 1.0
1 congestion events of 3 events read (lists 0-15)"
	e2e_expect "congestion of queue 5 $w" \
		"$(q $w int congestion --switch 12 --queue 5)" \
		"0 congestion events of 1 events read (lists 12-12)"
	e2e_expect "congestion json $w" "$(q $w -j int congestion --switch 12)" \
		'{"structure":"events","first_list":12,"last_list":12,"events":[{"list":12,"switch":12,"dropped":false,"congested":true,"queue":4,"reason":null,"ingress_port":7,"egress_port":8,"occupancy":300,"latency":null,"time":8192,"flow_hash":1433415645,"version":1}],"matched":1,"read":1,"lost":0,"partial":false,"missing":[]}'
	e2e_expect "count $w" "$(q $w int count "$F7")" 3
	e2e_expect "count json $w" "$(q $w -j int count "$F5")" \
		'{"flow":"10.0.0.5:1234->10.0.0.2:80/udp","structure":"flows","count":3}'
	e2e_expect "count IPv6 $w" \
		"$(q $w -j int count '[2001:db8::1]:1234-[2001:db8::2]:80/udp')" \
		'{"flow":"[2001:db8::1]:1234->[2001:db8::2]:80/udp","structure":"flows","count":1}'
	e2e_expect "queue $w" "$(q $w int queue 2 3)" 1
	e2e_expect "queue json $w" "$(q $w -j int queue 12 4)" \
		'{"queue":"12/4","structure":"queues","count":1}'
}

# Usage errors: exit 3 (2 for an unknown question) and a message.
refused() { # WANT-RC WANT-MESSAGE ARGS..
	want=$1 msg=$2
	shift 2
	rc=0
	q "$@" > "$E2E/refused.out" 2> "$E2E/refused.err" || rc=$?
	e2e_expect "exit status of $*" "$rc" "$want"
	grep -qF -- "$msg" "$E2E/refused.err" || {
		echo "FAIL: $*: no '$msg' in:" >&2
		cat "$E2E/refused.err" >&2
		exit 1
	}
}

conf key-write > "$E2E/dta.conf"
send
answers ""
answers -m
refused 3 "bad flow '10.0.0.1'" int path 10.0.0.1
refused 3 "bad flow '0x0a000001'" int count 0x0a000001
refused 3 "5-tuple needs" int hops '10.0.0.1:1-10.0.0.2:2'
refused 3 "usage: dta-query int drops" int drops --queue 1
refused 3 "go with drops or congestion" int count "$F7" --switch 1
refused 2 "unknown int question bogus" int bogus
# A structure the collector does not hold: its refusal, exit 3.
{
	sed 's/^path = paths$/path = ghost/' "$E2E/dta.conf"
	printf '[structure ghost]\nprimitive = key-write\nslots = 4K\ndata = 16\n'
} > "$E2E/ghost.conf"
rc=0
"$QUERY" -c "$E2E/ghost.conf" -S "$E2E/collector.sock" int path "$F9" \
	2> "$E2E/ghost.err" || rc=$?
e2e_expect "unknown structure" "$rc" 3
grep ghost "$E2E/ghost.err"
e2e_stop_collector
# The same answers from the snapshots the collector wrote on exit.
answers "-D $E2E/snapshots"

# The paths in a Postcarding structure (3 hops, switch ids 1-16, N = 2):
# the v0.5 postcards of 10.0.0.7 at hops 0-2, the INT-MD path of 10.0.0.9
# (the v1.0 reports, hop 4 by their TTL, count as int_mismatch).
conf postcard > "$E2E/dta.conf"
send
for w in "" -m; do
	e2e_expect "pc path $w" "$(q $w int path "$F7")" \
		"found: 1 2 3 (switch ids, first hop first; 2 copies decoded validly)"
	e2e_expect "pc path json $w" "$(q $w -j int path "$F9")" \
		'{"flow":"10.0.0.9:1234->10.0.0.2:80/udp","structure":"paths","primitive":"pc","status":"found","path":[1,2,3],"valid_copies":2}'
	e2e_expect "pc hops $w" "$(q $w int hops "$F7" | tail -n 1)" \
		"hop 2 switch 3: found, latency -, occupancy 300, egress ts 3007"
done
e2e_stop_collector
e2e_pass
