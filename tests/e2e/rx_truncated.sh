#!/bin/sh
# Datagrams longer than a report can be (DTA_PAYLOAD_MAX, 9000 bytes) are
# cut by the receive buffer: counted as rx_truncated, never applied, in
# every receive mode; the reports around them arrive whole.
. "$(dirname "$0")/lib.sh"
e2e_init rx_truncated "$1"
{
	e2e_conf_head
	cat <<EOF
[structure counters]
primitive = key-increment
width = 16K
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_gen -t ki -n 1000 -k 100 --reporter 1
python3 - "$E2E_PORT" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in (9001, 12000, 60000):
    s.sendto(b"\x01" * n, ("127.0.0.1", int(sys.argv[1])))
EOF
stat() { tr ',{}' '\n\n\n' < "$E2E/translator.json" | sed -n "s/^\"$1\":\([0-9]*\)$/\1/p"; }
truncated() { [ "$(stat rx_truncated)" = 3 ]; }
e2e_retry truncated
e2e_gen -t ki -n 1000 -k 100 --reporter 2
e2e_stop_translator
e2e_expect rx_truncated "$(e2e_stat rx_truncated)" 3
e2e_expect malformed "$(e2e_stat malformed)" 0
e2e_stop_collector
e2e_pass
