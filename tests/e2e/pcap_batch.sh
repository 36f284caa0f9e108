#!/bin/sh
# dta-translator -r hands the core its datagrams in batches, copied out of
# libpcap's buffer: a capture mixing reports with frames that are not
# theirs must count every frame as one call per datagram did. Between the
# good datagrams (Key-Write, 8 reports each) the capture holds ARP frames,
# UDP to another port, garbage to the port (malformed), payloads longer
# than DTA_PAYLOAD_MAX (malformed too, handed over uncopied) and copies
# from a source `allow` refuses. Twice: with Key-Write structures only
# (batches across the packets' times) and with a Postcarding structure
# besides (time counts: batches of one time), whose postcards must also
# verify.
. "$(dirname "$0")/lib.sh"
e2e_init pcapbatch "$1"
SRC=$(dirname "$0")

conf() { # EXTRA_STRUCTURE_TEXT
	e2e_conf_head
	cat <<EOF
allow = 10.0.0.1
legacy = off

[structure paths]
primitive = key-write
slots = 1M
data = 20
EOF
	printf '%s\n' "$1"
}

# mix IN OUT PORT: IN's frames, and after every good one the junk above.
mix() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
src, dst, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
out = [data[:24]]
def frame(dport, payload, saddr=b"\x0a\x00\x00\x01"):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(payload), 1, 0, 64,
                     17, 0, saddr, b"\x0a\x00\x00\x02")
    udp = struct.pack("!HHHH", 40000, dport, 8 + len(payload), 0)
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + udp + payload
arp = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01\x08\x06" + b"\x00" * 28
off, i = 24, 0
counts = dict(good=0, arp=0, other=0, garbage=0, big=0, refused=0)
while off < len(data):
    ts, us, incl, orig = struct.unpack("<IIII", data[off:off + 16])
    f = data[off + 16:off + 16 + incl]
    off += 16 + incl
    def rec(fr):
        out.append(struct.pack("<IIII", ts, us, len(fr), len(fr)) + fr)
    rec(f)
    counts["good"] += 1
    i += 1
    junk = []
    if i % 3 == 0:
        junk.append(("arp", arp))
    if i % 4 == 0:
        junk.append(("other", frame(port + 1, f[42:])))
    if i % 5 == 0:
        junk.append(("garbage", frame(port, b"\xee" * (5 + i % 40))))
    if i % 7 == 0:
        junk.append(("refused", frame(port, f[42:], b"\x0a\x00\x00\x09")))
    if i % 50 == 0:
        junk.append(("big", frame(port, b"\xee" * 9100)))
    for kind, fr in junk:
        rec(fr)
        counts[kind] += 1
open(dst, "wb").write(b"".join(out))
print(" ".join("%s=%d" % kv for kv in counts.items()))
EOF
}

val() { # COUNTS KEY
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# replay CONF_EXTRA: the checks on one configuration.
replay() {
	conf "$1" > "$E2E/dta.conf"
	e2e_start_collector
	"$GEN" -t kw -n 4000 -k 2000 --batch 8 -w "$E2E/kw.pcap" \
		-d "127.0.0.1:$E2E_PORT" -T "$E2E/kw.truth" 2>>"$E2E/gen.log"
	counts=$(mix "$E2E/kw.pcap" "$E2E/mixed.pcap" "$E2E_PORT")
	echo "mixed capture: $counts"
	good=$(val "$counts" good)
	garbage=$(val "$counts" garbage)
	big=$(val "$counts" big)
	refused=$(val "$counts" refused)
	all=$((good + $(val "$counts" arp) + $(val "$counts" other) + garbage + big + refused))
	"$TRANSLATOR" -c "$E2E/dta.conf" -r "$E2E/mixed.pcap" \
		> "$E2E/translator.out" 2> "$E2E/translator.err"
	e2e_expect "packets" "$(e2e_stat packets)" $((good + garbage + big))
	e2e_expect "reports_key_write" "$(e2e_stat reports_key_write)" 4000
	e2e_expect "malformed" "$(e2e_stat malformed)" $((garbage + big))
	e2e_expect "malformed_version" "$(e2e_stat malformed_version)" $((garbage + big))
	e2e_expect "refused_source" "$(e2e_stat refused_source)" "$refused"
	e2e_expect "seq_lost" "$(e2e_stat seq_lost)" 0
	e2e_expect "read / UDP to the port" \
		"$(sed -n 's/.* \([0-9]*\) packets read, \([0-9]*\) UDP to port.*/\1 \2/p' "$E2E/translator.err")" \
		"$all $((good + garbage + big + refused))"
	e2e_query verify --truth "$E2E/kw.truth" --min-success 1
}

echo "== Key-Write only: batches across times"
replay ""
grep -q "populated in" "$E2E/translator.err" ||
	{ cat "$E2E/translator.err"; echo "FAIL: no populate line" >&2; exit 1; }
e2e_stop_collector

echo "== with a Postcarding structure: batches of one time"
replay "
[structure postcards]
primitive = postcard
chunks = 16K
hops = 5
values = 1-80"
"$GEN" -t pc -n 500 -w "$E2E/pc.pcap" -d "127.0.0.1:$E2E_PORT" \
	-T "$E2E/pc.truth" 2>>"$E2E/gen.log"
"$TRANSLATOR" -q -c "$E2E/dta.conf" -r "$E2E/pc.pcap" > "$E2E/translator.out"
e2e_expect "pc: reports_postcard" "$(e2e_stat reports_postcard)" \
	"$(sed -n 's/^dta-gen: \([0-9]*\) reports.*/\1/p' "$E2E/gen.log" | tail -n 1)"
e2e_expect "pc: malformed" "$(e2e_stat malformed)" 0
e2e_query verify --truth "$E2E/pc.truth" --min-success 1
e2e_stop_collector
e2e_pass
