#!/bin/sh
# Runs inside the Soft-RoCE guest after e2e_rdma.sh (tests/rdma/run.sh):
# structures partitioned over two collectors on rxe0 (two rdma_cm ports),
# one translator writing into both over RDMA with two queue pairs per
# collector, and dta-query finding each key and list where it lives.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init rdma-collectors "$1"
: "${DTA_RDMA_IP:?run me through tests/rdma/run.sh}"
{
cat <<EOF
[collector]
name = e2e-rmc0-$$
socket = $E2E/c0.sock
rdma_bind = $DTA_RDMA_IP
rdma_port = 40061
rdma_allow = $DTA_RDMA_IP
[collector east]
name = e2e-rmc1-$$
socket = $E2E/c1.sock
rdma_bind = $DTA_RDMA_IP
rdma_port = 40062
rdma_allow = $DTA_RDMA_IP

[translator]
port = $E2E_PORT
bind = 127.0.0.1
pc_timeout_ms = 60000
sink = rdma
rdma_qps = 2

EOF
e2e_partitioned 256K 64K 512 64K
} > "$E2E/dta.conf"
e2e_start_pair
e2e_start_translator -s 0.2 -q
# Two queue pairs to each collector.
test "$(grep -c 'connected; 3 structure descriptions' "$E2E/c0.log")" = 2
test "$(grep -c 'connected; 4 structure descriptions' "$E2E/c1.log")" = 2

e2e_four e2e_gen 2000 4 20000
# Each collector holds its share only.
for c in c0 c1; do
	"$QUERY" -c "$E2E/dta.conf" --socket "$E2E/$c.sock" --json \
		verify --truth "$E2E/kw.truth" | sed 's/.*"exact":\([0-9]*\).*/\1/' > "$E2E/$c.kw"
done
total=$(grep -vc '^#' "$E2E/kw.truth")
echo "key-write keys: $(cat "$E2E/c0.kw") on [collector], $(cat "$E2E/c1.kw") on [collector east], $total sent"
e2e_expect "keys on one collector or the other" $(($(cat "$E2E/c0.kw") + $(cat "$E2E/c1.kw"))) "$total"
test "$(cat "$E2E/c0.kw")" -gt 0 && test "$(cat "$E2E/c1.kw")" -gt 0
e2e_stop_translator
e2e_expect "queue pairs" "$(e2e_stat rdma_qps)" 4
e2e_expect "sink errors" "$(e2e_stat sink_errors)" 0
e2e_expect "completion errors" "$(e2e_stat rdma_errors)" 0
e2e_stop_pair
e2e_pass
