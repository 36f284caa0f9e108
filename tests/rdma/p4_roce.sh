#!/bin/sh
# Runs inside the Soft-RoCE guest (tests/rdma/run.sh BUILD p4): the P4
# translator end to end. dta-gen sends reports from namespace dtasrc into
# BMv2's port 0; BMv2 runs translator-p4/v1model/dta_translator.p4 and sends
# RoCEv2 frames out of port 1 across a veth pair into rxe (ICRC checking
# on) in the collector's namespace; dta-query reads back what was sent.
# Skipped (77) where p4c or BMv2 are not installed.
. "$(dirname "$0")/../e2e/lib.sh"
PATH=$PATH:/opt/p4/bin:/usr/local/bin
for t in p4c-bm2-ss simple_switch simple_switch_CLI; do
	command -v $t > /dev/null || { echo "$t not installed: skipped"; exit 77; }
done
e2e_init p4 "$1"
top=$(cd "$(dirname "$0")/../.." && pwd)
CLI="/usr/bin/python3 $(command -v simple_switch_CLI)"
SRC="ip netns exec dtasrc"
SW="ip netns exec dtap4"
SWMAC=02:00:00:00:00:01
# dtasrc (10.0.0.1, vsrc) -- (vin) BMv2 (vsw) -- (vcol, 198.51.100.1, rxe1)
ip netns add dtasrc
ip netns add dtap4
ip link add vsrc type veth peer name vin
ip link add vcol type veth peer name vsw
ip link set vsrc netns dtasrc
ip link set vin netns dtap4
ip link set vsw netns dtap4
$SRC ip addr add 10.0.0.1/24 dev vsrc
$SRC ip link set vsrc up
$SRC ip link set lo up
# BMv2 answers no ARP: static neighbours on both sides.
$SRC ip neigh add 10.0.0.2 lladdr $SWMAC dev vsrc
$SW ip link set vin up
$SW ip link set vsw address $SWMAC
$SW ip link set vsw up
$SW ip link set lo up
ip addr add 198.51.100.1/24 dev vcol
ip link set vcol up
ip neigh add 198.51.100.2 lladdr $SWMAC dev vcol
rdma link add rxe1 type rxe netdev vcol

{
	e2e_conf_head | sed "/^\[translator\]/i rdma_bind = 198.51.100.1\nrdma_port = 40080\nswitch_peer = 198.51.100.2\nswitch_meta = $E2E/switch.json"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 256K
data = 20

[structure counters]
primitive = key-increment
width = 64K
rows = 2

[structure postcards]
primitive = postcard
chunks = 64K
values = 1-80

[structure events]
primitive = append
lists = 2
batches = 256
batch = 4
entry = 4
EOF
} > "$E2E/dta.conf"
e2e_start_collector
cp "$BUILD/dta_translator.json" "$E2E/dta.json"   # compiled by run.sh
$SW simple_switch -i 0@vin -i 1@vsw --thrift-port 9190 "$E2E/dta.json" \
	> "$E2E/bmv2.log" 2>&1 &
E2E_PIDS=$!
i=0
until $SW $CLI --thrift-port 9190 < /dev/null > /dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "simple_switch did not start" >&2; exit 1; }
	sleep 0.2
done
/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" --desc "$E2E/switch.json" \
	--bmv2-json "$E2E/dta.json" --port 1 --mac $SWMAC > "$E2E/cmds.txt"
$SW $CLI --thrift-port 9190 --json "$E2E/dta.json" < "$E2E/cmds.txt" > "$E2E/cli.log" 2>&1
if grep -qi "error\|invalid" "$E2E/cli.log"; then
	cat "$E2E/cli.log" >&2
	exit 1
fi
p4gen() { $SRC "$GEN" -d 10.0.0.2:40040 "$@" 2>>"$E2E/gen.log"; }
# BMv2 under software emulation is slow: a modest pace, then time for it
# to send everything and for the collector to answer.
p4gen -t kw -n 200 -k 150 -r 100 -T "$E2E/kw.truth"
p4gen -t ki -n 200 -k 40 -r 100 -T "$E2E/ki.truth"
# 101 entries per list: 25 whole batches of 4 each and one entry left,
# which the control plane's flush packets (the switch's stand-in for a
# timer) make it write.
p4gen -t ap -n 202 --lists 2 --entry 4 -r 100 -T "$E2E/ap.truth"
p4gen -t pc -n 60 -r 100 -T "$E2E/pc.truth"
sleep 3
$SRC /usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc "$E2E/switch.json" --bmv2-json "$E2E/dta.json" --port 1 \
	--mac $SWMAC --flush vsrc --flush-count 1 > /dev/null
# Replies (index 0: ACKs and atomic ACKs; 1: RNR NAKs; 2..6: NAK codes
# 0..4), as BMv2's ingress counted them.
replies() {
	echo "counter_read DtaIngress.replies $1" | $SW $CLI --thrift-port 9190 2>&1 |
		sed -n 's/.*bytes, \([0-9]*\) packets.*/\1/p'
}
want=$((200 * 2 + 200 * 2 + 200 / 4 + 2 + 60 * 2))
# BMv2 in an emulated guest is slow to take in the replies when the host
# is busy (a sanitizer build beside it): wait for them, up to 60 s.
i=0
acks=$(replies 0)
while [ "${acks:-0}" -lt $want ] && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
	acks=$(replies 0)
done
for k in 1 2 3 4 5 6; do
	echo "replies $k: $(replies $k)"
done
echo "ok: $acks ACKs (and atomic ACKs) came back to BMv2, $want frames sent"
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
e2e_query verify --truth "$E2E/ki.truth" --min-success 1
e2e_query verify --truth "$E2E/ap.truth" --min-success 1
# Postcards of concurrent flows can collide in the switch's direct-mapped
# cache: the evicted flow is written as its prefix (counted as truncated),
# never wrong.
e2e_query --json verify --truth "$E2E/pc.truth" --min-success 0.9 > "$E2E/pc.json" ||
	{ cat "$E2E/pc.json"; exit 1; }
grep -q '"not_found":0,"wrong":0,"conflict":0,' "$E2E/pc.json" || { cat "$E2E/pc.json"; exit 1; }
echo "ok: postcards $(sed 's/.*"exact":\([0-9]*\),.*"truncated":\([0-9]*\),.*/\1 exact, \2 truncated by cache eviction/' "$E2E/pc.json")"
# Every frame acknowledged, none NAKed: the ICRC computed in the P4
# pipeline is one rxe accepts.
e2e_expect "ACKs" "$acks" $want
e2e_expect "PSN sequence NAKs" "$(replies 2)" 0
kill $E2E_PIDS
wait $E2E_PIDS 2> /dev/null || true
E2E_PIDS=
e2e_stop_collector
e2e_pass
