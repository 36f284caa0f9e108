#!/bin/sh
# Runs inside the Soft-RoCE guest after e2e_rdma.sh (tests/rdma/run.sh):
# structures partitioned over two collectors on rxe0 (two rdma_cm ports),
# one translator writing into both over RDMA with two queue pairs per
# collector, and dta-query finding each key and list where it lives.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init rdma-collectors "$1"
: "${DTA_RDMA_IP:?run me through tests/rdma/run.sh}"
cat > "$E2E/dta.conf" <<EOF
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

[structure paths]
primitive = key-write
slots = 256K
data = 20
collector = default, east

[structure postcards]
primitive = postcard
chunks = 64K
values = 1-80
collector = east, default

[structure events]
primitive = append
lists = 2
entry = 8
batches = 512
collector = default, east

[structure counters]
primitive = key-increment
width = 64K
collector = east
EOF
"$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/c0.log" 2>&1 &
c0=$!
"$COLLECTOR" -c "$E2E/dta.conf" --collector east > "$E2E/c1.log" 2>&1 &
c1=$!
E2E_PIDS="$c0 $c1"
e2e_wait_ready "$E2E/c0.log" "collector 0"
e2e_wait_ready "$E2E/c1.log" "collector east"
e2e_start_translator -s 0.2 -q
# Two queue pairs to each collector.
test "$(grep -c 'connected; 3 structure descriptions' "$E2E/c0.log")" = 2
test "$(grep -c 'connected; 4 structure descriptions' "$E2E/c1.log")" = 2

e2e_gen -t kw -n 2000 -k 1000 -r 20000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 500 -r 20000 -T "$E2E/pc.truth"
e2e_gen -t ap -n 2000 --lists 4 --entry 8 -r 20000 -T "$E2E/ap.truth"
e2e_gen -t ki -n 3000 -k 300 -r 20000 -T "$E2E/ki.truth"
sleep 1
for t in kw pc ap ki; do
	e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done
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
E2E_PIDS=
e2e_term $c0 "collector 0"
e2e_term $c1 "collector east"
e2e_pass
