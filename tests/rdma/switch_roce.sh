#!/bin/sh
# Runs inside the Soft-RoCE guest (tests/rdma/run.sh --roce): the switch
# path. dta-translator acts as a switch: it crafts RoCEv2 frames itself
# (libdta's reference model, ICRC computed) and sends them raw on an
# interface into the collector's switch-mode queue pairs on rxe, whose ICRC
# check is on (rxe always checks). The switch side lives in its own network
# namespace, so frames really cross the veth pair.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init roce "$1"
FRAME=$BUILD/tests/roce_frame
NS="ip netns exec dtasw"
ip netns add dtasw
ip link add vcol type veth peer name vsw
ip link set vsw netns dtasw
ip addr add 198.51.100.1/24 dev vcol
ip link set vcol up
$NS ip addr add 198.51.100.2/24 dev vsw
$NS ip link set vsw up
$NS ip link set lo up
rdma link add rxe1 type rxe netdev vcol
cleanup_ns() { ip netns del dtasw 2>/dev/null || true; rdma link del rxe1 2>/dev/null || true; }

{
	e2e_conf_head | sed "/^\[translator\]/i rdma_bind = 198.51.100.1\nrdma_port = 40070\nswitch_peer = 198.51.100.2\nswitch_meta = $E2E/switch.json"
	echo "switch_interface = vsw"
	echo "switch_meta = $E2E/switch.json"
	echo "pc_timeout_ms = 60000"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 256K
data = 20

[structure postcards]
primitive = postcard
chunks = 64K
values = 1-80

[structure events]
primitive = append
lists = 2
batches = 512
entry = 8

[structure counters]
primitive = key-increment
width = 64K
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
grep "switch mode" "$E2E/collector.log"
test -s "$E2E/switch.json"
e2e_query switch | grep -q '"collector_ip":"198.51.100.1"'

# The translator runs in the switch's namespace: UDP reports in on its
# loopback, RoCEv2 frames out of vsw. dta-gen sends there too.
E2E_WRAP=$NS
e2e_start_translator -q
e2e_four e2e_gen 2000 2 20000
e2e_stop_translator
tr ',{}' '\n\n\n' < "$E2E/translator.out" | grep '"switch_' | tr '\n' ' '
echo
# Every queue pair found its PSN by a probe (a deliberately skipped PSN,
# answered by a sequence NAK), and every frame was acknowledged. Frames the
# emulated link drops (it does under load) draw more sequence NAKs and are
# sent again, so how many NAKs and resends there are depends on the
# machine; that nothing was given up and every answer is exact does not.
e2e_expect "resynchronisations (one per queue pair's probe)" "$(e2e_stat switch_resyncs)" 4
naks=$(e2e_stat switch_nak_psn)
test "$naks" -ge 4 || { echo "FAIL: PSN sequence NAKs: got '$naks', want >= 4" >&2; exit 1; }
echo "ok: PSN sequence NAKs = $naks (4 probes), $(e2e_stat switch_retransmits) frames resent, $(e2e_stat switch_timeouts) timeouts"
e2e_expect "frames not acknowledged" "$(e2e_stat switch_unacked)" 0
e2e_expect "operations given up" "$(e2e_stat switch_lost)" 0
e2e_expect "operations refused for a full window" "$(e2e_stat switch_window_full)" 0
e2e_expect "other NAKs" "$(e2e_stat switch_nak_access)$(e2e_stat switch_nak_invalid)$(e2e_stat switch_nak_remote_op)" 000
e2e_expect "sink errors" "$(e2e_stat sink_errors)" 0
echo "ok: $(e2e_stat switch_frames) RoCEv2 frames, $(e2e_stat switch_acks) ACKs, $(e2e_stat switch_atomic_acks) atomic ACKs"

# A frame with a corrupted ICRC is dropped by rxe: nothing written, no
# answer. The same frame with the right ICRC lands.
sed 's/.*"collector_mac":"\([^"]*\)".*/\1/' "$E2E/switch.json" | tr -d ':' > "$E2E/cmac"
c=$(sed 's/.*{"name":"counters",\([^}]*\)}.*/\1/' "$E2E/switch.json")
field() { echo "$c" | sed "s/.*\"$1\":\([0-9]*\).*/\1/"; }
smac=$($NS cat /sys/class/net/vsw/address | tr -d ':')
shm=$(sed -n 's/^name = //p' "$E2E/dta.conf")
set -- dmac="$(cat "$E2E/cmac")" smac="$smac" sip=198.51.100.2 dip=198.51.100.1 \
	qpn="$(field qpn)" myqpn="$(field peer_qpn)" psn="$(field psn)" \
	rkey="$(field rkey)" addr="$(field addr)" len="$(field length)" \
	off=8 add=4242 check="/dta-$shm.counters"
$NS "$FRAME" send vsw fadd "$@" badicrc=1 > "$E2E/icrc.out"
cat "$E2E/icrc.out"
grep -q "^bad icrc: reply none" "$E2E/icrc.out"
grep -q "^good icrc: reply atomic-ack" "$E2E/icrc.out"
v0=$(sed -n 's/^value //p' "$E2E/icrc.out" | sed -n 1p)
v1=$(sed -n 's/^value //p' "$E2E/icrc.out" | sed -n 2p)
e2e_expect "counter before the frames" "$v0" 0
e2e_expect "counter after the good frame" "$v1" 4242
echo "ok: corrupted ICRC dropped by rxe, nothing written; correct ICRC written"

# Another writer moved the responder's PSN (the frames above): a new
# translator finds it again with its probe, and its frames land.
e2e_start_translator -q
e2e_gen -t kw -n 1000 -s 9 -r 20000 -T "$E2E/kw2.truth"
e2e_retry e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
e2e_stop_translator
e2e_expect "frames not acknowledged" "$(e2e_stat switch_unacked)" 0
e2e_expect "operations given up" "$(e2e_stat switch_lost)" 0
echo "ok: $(e2e_stat switch_nak_psn) PSN sequence NAKs, $(e2e_stat switch_retransmits) frames resent"

# Notifications (docs/rdma.md "Notifications"): immediate reports become
# zero-length writes with immediate on the structure's queue pair; the
# collector's receive completions advance its sequence and wake a waiter.
PROBE=$BUILD/tests/wait_probe
seq_of() { "$PROBE" "$E2E/collector.sock" "$1" 4294967295 0 | sed -n 's/^{"seq":\([0-9]*\).*/\1/p'; }
e2e_expect "sequence after plain reports" "$(seq_of paths)" 0
e2e_start_translator -q
"$PROBE" "$E2E/collector.sock" paths 0 600000 > "$E2E/woken" 2> "$E2E/probe.log" &
w=$!
i=0
while ! grep -q '^ready' "$E2E/probe.log"; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: probe not ready" >&2; exit 1; }
	sleep 0.1
done
e2e_gen -t kw -n 200 -k 200 -r 2000 --immediate -s 41 --reporter 41
wait $w || { cat "$E2E/woken" "$E2E/probe.log"; exit 1; }
grep -q '^{"seq":[1-9][0-9]*}$' "$E2E/woken" || { cat "$E2E/woken"; exit 1; }
e2e_stop_translator
e2e_expect "frames not acknowledged" "$(e2e_stat switch_unacked)" 0
e2e_expect "writes with immediate = sequence" "$(e2e_stat switch_notifies)" "$(seq_of paths)"
e2e_query stats | grep -q "\"notifications\":$(seq_of paths)," ||
	{ echo "FAIL: collector's notifications" >&2; e2e_query stats >&2; exit 1; }
echo "ok: immediate reports woke a waiter through the switch path ($(seq_of paths) notifications)"
e2e_stop_collector
cleanup_ns
e2e_pass
