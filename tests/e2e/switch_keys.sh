#!/bin/sh
# Keys only RDMA reads (switch_peer, switch_qpn, switch_psn, switch_meta,
# rdma_port, rdma_allow) set without rdma_bind: the collector refuses to
# start and says which and why, instead of starting without switch mode.
. "$(dirname "$0")/lib.sh"
e2e_init switch_keys "$1"
body() {
	e2e_conf_head | sed "s|^\[collector\]\$|&\n$1|"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 64K
data = 4
EOF
}
for kv in "switch_peer = 10.0.0.2" "switch_qpn = 256" "switch_psn = 0" \
	  "switch_meta = $E2E/sw.json" "rdma_port = 40050" "rdma_allow = 10.0.0.0/8"; do
	k=${kv%% *}
	body "$kv" > "$E2E/k.conf"
	e2e_collector_refuses "$E2E/k.conf" "$k is set but rdma_bind is not"
	test ! -e "/dev/shm/dta-e2e-switch_keys-$$.paths"
done
# Without them it starts.
body "" > "$E2E/dta.conf"
e2e_start_collector
e2e_stop_collector
e2e_pass
