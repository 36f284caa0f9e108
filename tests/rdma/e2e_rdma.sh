#!/bin/sh
# Runs inside the Soft-RoCE guest (tests/rdma/run.sh starts it): the same
# end-to-end checks as over shared memory, but the translator writes into
# the collector's memory with RDMA WRITE and FETCH_AND_ADD through rxe0,
# and a translator that is not on the allow-list is refused.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init rdma "$1"
: "${DTA_RDMA_IP:?run me through tests/rdma/run.sh}"
{
	e2e_conf_head | sed "/^\[translator\]/i rdma_bind = $DTA_RDMA_IP\nrdma_allow = $DTA_RDMA_IP/32"
	echo "rdma_collector = $DTA_RDMA_IP:40050"
	echo "pc_timeout_ms = 60000"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 1M
data = 20

[structure postcards]
primitive = postcard
chunks = 256K
values = 1-80

[structure events]
primitive = append
lists = 2
batches = 2048
entry = 8

[structure counters]
primitive = key-increment
width = 256K
rows = 2
EOF
} > "$E2E/dta.conf"
cat "$E2E/dta.conf" | sed -n '1,12p'
e2e_start_collector
e2e_start_translator
grep -q "connected to collector" "$E2E/translator.log"
# Emulated RDMA is slow: modest workloads, paced.
e2e_gen -t kw -n 3000 -k 1000 -r 20000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 1000 -r 20000 -T "$E2E/pc.truth"
e2e_gen -t ap -n 4000 --lists 2 --entry 8 -r 20000 -T "$E2E/ap.truth"
e2e_gen -t ki -n 5000 -k 500 -r 20000 -T "$E2E/ki.truth"
sleep 1
for t in kw pc ap ki; do
	e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done
e2e_stop_translator
e2e_expect "reports lost" "$(e2e_stat seq_lost)" 0
e2e_expect "rdma completion errors" "$(e2e_stat rdma_errors)" 0
e2e_expect "sink errors" "$(e2e_stat sink_errors)" 0
echo "ok: $(e2e_stat rdma_ops) RDMA operations, $(e2e_stat rdma_bytes) bytes written"
e2e_query stats

# Not on the allow-list: refused, and the collector says so.
sed "s|^rdma_allow = .*|rdma_allow = 192.0.2.99|" "$E2E/dta.conf" > "$E2E/deny.conf"
e2e_stop_collector
"$COLLECTOR" -c "$E2E/deny.conf" --restore > "$E2E/collector.log" 2>&1 &
E2E_CPID=$!
e2e_wait_ready "$E2E/collector.log" dta-collector
if "$TRANSLATOR" -c "$E2E/deny.conf" > "$E2E/denied.out" 2> "$E2E/denied.log"; then
	echo "a translator not on the allow-list was accepted" >&2
	exit 1
fi
grep -q "refused" "$E2E/denied.log"
grep -q "refused translator" "$E2E/collector.log"
echo "ok: translator outside rdma_allow refused"
# The data written before is still all there (snapshot restored).
e2e_query -c "$E2E/deny.conf" verify --truth "$E2E/kw.truth" --min-success 1
e2e_stop_collector
e2e_pass
