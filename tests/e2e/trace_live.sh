#!/bin/sh
# Reports derived from a packet trace (dta-gen --trace: flows and packet
# order from a pcap, Key-Increment counting bytes per flow), received by a
# translator capturing on the loopback interface with libpcap
# (dta-translator -i lo). Capturing needs CAP_NET_RAW: without it the live
# part is skipped and the trace is sent over UDP instead.
. "$(dirname "$0")/lib.sh"
e2e_init trace "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 4M
data = 20

[structure bytes]
primitive = key-increment
width = 4M
rows = 2
EOF
} > "$E2E/dta.conf"
"$BUILD/tests/mktrace" "$E2E/trace.pcap" 3000 40000
e2e_start_collector
live=no
if "$TRANSLATOR" -c "$E2E/dta.conf" -i lo -o "$E2E/translator.json" \
	> "$E2E/translator.out" 2>"$E2E/translator.log" &
then
	E2E_TPID=$!
	i=0
	while ! grep -q '^ready' "$E2E/translator.out" 2>/dev/null; do
		if ! kill -0 "$E2E_TPID" 2>/dev/null; then
			E2E_TPID=
			break
		fi
		i=$((i + 1))
		[ $i -le 100 ] || break
		sleep 0.05
	done
	[ -n "$E2E_TPID" ] && grep -q '^ready' "$E2E/translator.out" && live=yes
fi
if [ $live = no ]; then
	echo "note: cannot capture on lo ($(tail -n 1 "$E2E/translator.log")); using UDP"
	[ -n "$E2E_TPID" ] && { kill "$E2E_TPID" 2>/dev/null || true; wait "$E2E_TPID" 2>/dev/null || true; }
	e2e_start_translator
fi
[ $live = no ] || echo 0 > "$E2E/sent" # for e2e_accounting
echo "translator input: $([ $live = yes ] && echo 'live capture on lo' || echo UDP)"
# Nothing listens on the port in the live case; the capture still sees
# the datagrams. e2e_gen sends in windows the capture buffer surely holds
# (the translator's queue_datagrams), so the capture drops nothing either.
e2e_gen -t ki --trace "$E2E/trace.pcap" -n 40000 -r 40000 --batch 4 -T "$E2E/ki.truth"
e2e_gen -t kw --trace "$E2E/trace.pcap" -n 10000 -r 20000 -T "$E2E/kw.truth"
test "$(grep -c '^ki ' "$E2E/ki.truth")" -eq 3000
e2e_query verify --truth "$E2E/ki.truth" --min-success 1
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
e2e_stop_translator
e2e_expect "reports lost" "$(e2e_stat seq_lost)" 0
e2e_stop_collector
e2e_pass
