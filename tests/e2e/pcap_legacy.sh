#!/bin/sh
# Offline path: dta-gen writes pcap files and dta-translator replays them
# with the packets' own timestamps, so translator timeouts are
# deterministic. The reports use the research prototype's wire format and
# land in prototype-compatible layouts.
. "$(dirname "$0")/lib.sh"
e2e_init pcap "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
hash = prototype
memory = 32M
data = 4

[structure postcards]
primitive = postcard
hash = prototype
memory = 32M
values = 1-80

[structure events]
primitive = append
batches = 1024
EOF
} > "$E2E/dta.conf"
e2e_start_collector
for t in kw pc ap; do
	"$GEN" -t $t -n 3000 --legacy -w "$E2E/$t.pcap" -d "127.0.0.1:$E2E_PORT" \
		-T "$E2E/$t.truth" 2>>"$E2E/gen.log"
	"$TRANSLATOR" -q -c "$E2E/dta.conf" -r "$E2E/$t.pcap" > "$E2E/translator.out"
	e2e_expect "$t: malformed" "$(e2e_stat malformed)" 0
	e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done
e2e_stop_collector
e2e_pass
