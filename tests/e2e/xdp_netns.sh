#!/bin/sh
# The AF_XDP receive path ([translator] receive = xdp, docs/translator.md
# "AF_XDP receive path") on a veth pair between two network namespaces
# the test creates: a sender and the translator's "host", native XDP on
# the translator's veth, two receive queues (a worker each). Every primitive, one report per datagram and
# batched (IPv4, a VLAN tag, IPv6), INT reports on the [int] port, with
# the exact accounting of the e2e
# suite (sent = applied + counted lost, nothing lost), every answer
# checked against the generator's truth, and the answers identical to
# the same workload through the socket path (receive = socket, same
# namespaces). Traffic that is not DTA still reaches the kernel: a UDP
# datagram to another port reaches a socket there. A translator killed
# with SIGKILL leaves its program attached: the next one removes it and
# starts. Needs root (namespaces, veth, XDP); skips otherwise, or when
# this build or kernel cannot attach XDP, saying why.
. "$(dirname "$0")/lib.sh"
e2e_init xdp_netns "$1"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces, XDP)"; exit 77; }
command -v ip > /dev/null || { echo "SKIP: ip missing (apt-get install iproute2)"; exit 77; }
NS=dtaxs-$$ # the sender
NT=dtaxt-$$ # the translator
n=$(($$ % 250 + 1))
S4=198.19.$n.1
T4=198.19.$n.2
S6=fd00:d7a:$n::1
T6=fd00:d7a:$n::2
netns_cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$NT" 2>/dev/null || true
}
# e2e_cleanup takes the script's status from $?.
trap 'rc=$?; set +e; netns_cleanup; (exit $rc); e2e_cleanup' EXIT INT TERM
ip netns add "$NS" 2>/dev/null || { echo "SKIP: cannot create network namespaces here"; exit 77; }
ip netns add "$NT"
ip link add veth0 netns "$NS" numtxqueues 2 numrxqueues 2 type veth \
	peer name veth0 netns "$NT" numtxqueues 2 numrxqueues 2
for ns in "$NS" "$NT"; do
	ip -n "$ns" link set lo up
	ip -n "$ns" link set veth0 up
done
ip -n "$NS" addr add "$S4/30" dev veth0
ip -n "$NT" addr add "$T4/30" dev veth0
ip -n "$NS" -6 addr add "$S6/64" dev veth0 nodad
ip -n "$NT" -6 addr add "$T6/64" dev veth0 nodad
E2E_WRAP="ip netns exec $NT"

conf() { # RECEIVE
	{
		e2e_conf_head | sed '/^bind = /d'
		cat <<EOF2
bind = 0.0.0.0
receive = $1
xdp_interface = veth0
xdp_mode = native
pc_timeout_ms = 60000

[structure paths]
primitive = key-write
slots = 1M
data = 20
redundancy = 4

[structure postcards]
primitive = postcard
chunks = 1M
values = 1-80

[structure events]
primitive = append
lists = 6
first_list = 100
batches = 16384
entry = 8

[structure counters]
primitive = key-increment
width = 1M
rows = 3
EOF2
	} > "$E2E/dta.conf"
}

# The translator in its namespace; with receive = xdp, a skip when XDP
# cannot attach here (the log says why).
start_translator() {
	: > "$E2E/translator.log"
	: > "$E2E/translator.out"
	rm -f "$E2E/translator.json"
	echo 0 > "$E2E/sent"
	$E2E_WRAP "$TRANSLATOR" -c "$E2E/dta.conf" -o "$E2E/translator.json" \
		>>"$E2E/translator.out" 2>>"$E2E/translator.log" &
	E2E_TPID=$!
	while ! grep -q '^ready' "$E2E/translator.out"; do
		if ! kill -0 "$E2E_TPID" 2>/dev/null; then
			wait "$E2E_TPID" || true
			E2E_TPID=
			why=$(grep 'receive = xdp' "$E2E/translator.log" || true)
			if [ -n "$why" ]; then
				echo "SKIP: XDP does not attach here: $why"
				exit 77
			fi
			cat "$E2E/translator.log" >&2
			exit 1
		fi
		sleep 0.05
	done
}

# dta-gen in the sender's namespace to DEST, in windows the translator
# surely holds; adds what it sent to $E2E/sent.
gen() { # DEST args
	d=$1
	shift
	ip netns exec "$NS" "$GEN" -d "$d:$E2E_PORT" --sync "$E2E/translator.json" \
		"$@" 2>"$E2E/gen.last" || { cat "$E2E/gen.last" >&2; return 1; }
	cat "$E2E/gen.last" >> "$E2E/gen.log"
	echo $(($(cat "$E2E/sent") + $(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last"))) \
		> "$E2E/sent"
}

# IPv6 and VLAN-tagged frames: dta-gen sends IPv4, and this kernel may
# have no VLAN devices, so its packets (a pcap) are sent again over an
# IPv6 socket, or as raw Ethernet frames with an 802.1Q tag (VLAN 7) on
# the sender's veth, one datagram each, in windows the ring surely holds
# (paced by the stats file). Through the socket path (IPv4, no VLAN
# device) the same workload goes over plain IPv4.
genraw() { # RECEIVE v6|vlan TRUTH args
	r=$1
	kind=$2
	truth=$3
	shift 3
	if [ "$r" != xdp ]; then
		gen "$T4" -T "$truth" "$@"
		return
	fi
	"$GEN" -w "$E2E/raw.pcap" -T "$truth" "$@" 2>>"$E2E/gen.log"
	nr=$(ip netns exec "$NS" python3 - "$E2E/raw.pcap" "$kind" "$T6" "$T4" \
		"$E2E_PORT" "$E2E/translator.json" \
		"$(ip netns exec "$NT" cat /sys/class/net/veth0/address)" <<'EOF2'
import json, socket, struct, sys, time
pcap, kind, host6, host4, port, stats, mac = sys.argv[1:8]
port = int(port)
data = open(pcap, "rb").read()
link = struct.unpack_from("<I", data, 20)[0]
off, payloads = 24, []
while off < len(data):
    incl = struct.unpack_from("<I", data, off + 8)[0]
    pkt = data[off + 16:off + 16 + incl]
    off += 16 + incl
    ip = pkt[14:] if link == 1 else pkt
    payloads.append(ip[(ip[0] & 15) * 4 + 8:])
def packets():
    return json.load(open(stats))["packets"]
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s & 0xffff) + (s >> 16)
    return ~((s & 0xffff) + (s >> 16)) & 0xffff
if kind == "v6":
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    send = lambda p: s.sendto(p, (host6, port))
else:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(("veth0", 0))
    src = bytes.fromhex(open("/sys/class/net/veth0/address").read().strip().replace(":", ""))
    dst = bytes.fromhex(mac.replace(":", ""))
    saddr = socket.inet_aton(host4[:host4.rindex(".")] + ".1")
    def send(p):
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(p), 0, 0x4000, 64, 17,
                         0, saddr, socket.inet_aton(host4))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        udp = struct.pack("!HHHH", 40000, port, 8 + len(p), 0)
        s.send(dst + src + struct.pack("!HHH", 0x8100, 7, 0x0800) + ip + udp + p)
base = packets()
for i in range(0, len(payloads), 256):
    for p in payloads[i:i + 256]:
        send(p)
    want, end = base + min(i + 256, len(payloads)), time.time() + 60
    while time.time() < end:
        try:
            if packets() >= want:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.01)
print(len(payloads))
EOF2
)
	echo $(($(cat "$E2E/sent") + nr)) > "$E2E/sent"
}

# Every primitive, one report per datagram and batched; every answer
# checked; the verification's answers kept in $E2E/answers.RECEIVE.
workload() { # RECEIVE
	gen "$T4" -t kw -n 6000 -k 3000 -r 100000 -T "$E2E/kw1.truth"
	gen "$T4" -t kw -n 6000 -k 3000 -s 2 --reporter 2 --batch 8 -r 200000 -T "$E2E/kw8.truth"
	gen "$T4" -t pc -n 1500 -r 100000 -T "$E2E/pc1.truth"
	gen "$T4" -t ap -n 6000 --lists 3 --first-list 100 --entry 8 -r 100000 -T "$E2E/ap1.truth"
	gen "$T4" -t ap -n 6000 --lists 3 --first-list 103 --entry 8 -s 3 --reporter 3 --batch 4 -r 200000 -T "$E2E/ap4.truth"
	gen "$T4" -t ki -n 9000 -k 900 -r 100000 -T "$E2E/ki1.truth"
	gen "$T4" -t ki -n 9000 -k 900 -s 4 --reporter 4 --batch 8 -r 200000 -T "$E2E/ki8.truth"
	genraw "$1" vlan "$E2E/kwv.truth" -t kw -n 3000 -k 3000 -s 5 --reporter 5
	genraw "$1" v6 "$E2E/kw6.truth" -t kw -n 2000 -k 2000 -s 6 --reporter 6
	: > "$E2E/answers.$1"
	for t in kw1 kw8 pc1 ap1 ap4 ki1 ki8 kwv kw6; do
		e2e_retry e2e_query verify --truth "$E2E/$t.truth" --min-success 1
		e2e_query --json verify --truth "$E2E/$t.truth" |
			sed 's/,"seconds":[0-9.]*//' >> "$E2E/answers.$1"
	done
}

# ---- receive = xdp ----
conf xdp
e2e_start_collector
start_translator
grep -q 'receiving with AF_XDP on veth0 (native XDP, copy, 2 queues)' "$E2E/translator.log" ||
	{ echo "FAIL: not receiving with AF_XDP" >&2; cat "$E2E/translator.log" >&2; exit 1; }
echo "ok: $(grep 'receiving with AF_XDP' "$E2E/translator.log")"

# Not DTA: a datagram to another port reaches a socket in the
# translator's namespace (the program passes it to the kernel).
ip netns exec "$NT" python3 -c '
import socket, sys
s = socket.socket(); s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.settimeout(30)
print(s.recv(100).decode())' $((E2E_PORT + 1)) > "$E2E/other.out" &
other=$!
E2E_PIDS="$E2E_PIDS $other"
# Sent until the receiver has it (it may bind late on a busy machine).
ip netns exec "$NS" python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 30
while time.time() < end and os.path.getsize(sys.argv[3]) == 0:
    s.sendto(b"not dta", (sys.argv[1], int(sys.argv[2]))); time.sleep(0.1)' \
	"$T4" $((E2E_PORT + 1)) "$E2E/other.out" &
wait "$other"
E2E_PIDS=
e2e_expect "a datagram to another port reached its socket" "$(cat "$E2E/other.out")" "not dta"

workload xdp
e2e_stop_translator
e2e_expect "frames the program passed to the kernel (other port)" \
	"$([ "$(e2e_stat xdp_passed)" -ge 1 ] && echo yes)" yes
e2e_expect "datagrams redirected to the AF_XDP socket" "$(e2e_stat xdp_redirected)" \
	"$(e2e_stat packets)"
for c in xdp_rx_dropped xdp_rx_ring_full xdp_rx_invalid_descs xdp_bad_frames xdp_no_socket; do
	e2e_expect "$c" "$(e2e_stat "$c")" 0
done
state=$(ip netns exec "$NT" ip link show veth0)
case $state in
*xdp*) echo "FAIL: the program is still attached after exit: $state" >&2; exit 1 ;;
esac
echo "ok: the program was detached at exit"

# A translator killed with SIGKILL leaves its program attached; the next
# one removes it (and logs that) and receives. That one serves queue 0
# only (workers = 1): datagrams on queue 1 (the sender's hash picks the
# queue per socket) go through the kernel to its UDP socket, counted
# xdp_no_socket, and the accounting stays exact.
sed -i '/^receive = xdp$/a workers = 1' "$E2E/dta.conf"
start_translator
kill -KILL "$E2E_TPID"
wait "$E2E_TPID" 2>/dev/null || true
E2E_TPID=
ip netns exec "$NT" ip link show veth0 | grep -q xdp ||
	{ echo "FAIL: expected the killed translator's program attached" >&2; exit 1; }
start_translator
grep -q 'removed 1 stale dta_xdp program' "$E2E/translator.log" ||
	{ echo "FAIL: the stale program was not removed" >&2; cat "$E2E/translator.log" >&2; exit 1; }
grep -q 'native XDP, copy, 1 queue)' "$E2E/translator.log" ||
	{ echo "FAIL: workers = 1 should serve one queue" >&2; cat "$E2E/translator.log" >&2; exit 1; }
for s in 9 10 11 12; do
	gen "$T4" -t kw -n 1000 -k 1000 -s $s --reporter $s -r 100000
done
e2e_stop_translator
echo "ok: a stale program is removed and the next translator receives" \
     "($(e2e_stat xdp_redirected) datagrams through AF_XDP, $(e2e_stat xdp_no_socket) through the socket)"
e2e_stop_collector

# INT reports on the [int] port take the same AF_XDP socket: INT-MD
# stacks and drop reports (as few as tests/e2e/int_gen.sh sends, so
# that no hash collision can blur an answer), every line of the truth exact.
INT_PORT=$((E2E_PORT + 1))
e2e_int_conf key-write "slots = 4K
data = 20" 16K 1 "" | sed -e '/^bind = /d' -e '/^\[translator\]$/a bind = 0.0.0.0\
receive = xdp\
xdp_interface = veth0' > "$E2E/dta.conf"
e2e_start_collector
start_translator
for t in "int-md 2" "int-drop 3"; do
	set -- $t
	ip netns exec "$NS" "$GEN" -d "$T4:$INT_PORT" --sync "$E2E/translator.json" \
		-t "$1" --reporter "$2" -s "$2" -n 30 -T "$E2E/$1.truth" 2> "$E2E/gen.last" ||
		{ cat "$E2E/gen.last" >&2; exit 1; }
	cat "$E2E/gen.last" >> "$E2E/gen.log"
done
cat "$E2E/int-md.truth" "$E2E/int-drop.truth" > "$E2E/int.truth"
e2e_query verify --truth "$E2E/int.truth" > "$E2E/verify.out" ||
	{ cat "$E2E/verify.out" >&2; echo "FAIL: INT verify" >&2; exit 1; }
grep '^INT' "$E2E/verify.out"
e2e_stop_translator
e2e_expect "INT reports applied" "$(e2e_stat int_applied)" 60
e2e_expect "INT datagrams through AF_XDP" "$(e2e_stat xdp_redirected)" \
	"$(e2e_stat int_datagrams)"
e2e_stop_collector

# ---- the same workload through the socket path ----
conf socket
e2e_start_collector
start_translator
workload socket
e2e_stop_translator
e2e_stop_collector
if ! cmp -s "$E2E/answers.xdp" "$E2E/answers.socket"; then
	echo "FAIL: answers differ between the AF_XDP and the socket path" >&2
	diff "$E2E/answers.xdp" "$E2E/answers.socket" >&2 || true
	exit 1
fi
echo "ok: $(wc -l < "$E2E/answers.xdp") verification answers identical through AF_XDP and sockets"
e2e_pass
