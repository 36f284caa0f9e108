#!/bin/sh
# shared_memory = no (docs/config.md): a collector whose translators all
# write over RDMA keeps its structures in anonymous memory, on transparent
# huge pages where the machine has them, and logs the page size each got.
# Such structures are answered over the socket, snapshotted and restored
# like shared ones; dta-query --map says they cannot be mapped.
. "$(dirname "$0")/lib.sh"
e2e_init anon_regions "$1"
conf() { # extra [collector] lines
	{
		e2e_conf_head | sed "s/^\[translator\]$/$1\n\n&/"
		cat <<EOF2

[structure paths]
primitive = key-write
slots = 1048576
data = 20
redundancy = 2
EOF2
	} > "$E2E/dta.conf"
}
strip() { sed 's/,"seconds":[0-9.]*//'; }

# Filled through shared memory by a local translator, then snapshotted.
conf "restore = yes"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 20000 -k 20000 -r 250000 -T "$E2E/kw.truth"
e2e_stop_translator
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/shared.json"
grep -q '"exact":[1-9][0-9]*,' "$E2E/shared.json" || { cat "$E2E/shared.json"; exit 1; }
e2e_stop_collector

# The same structure restored into anonymous memory.
conf "restore = yes\nshared_memory = no"
e2e_start_collector
grep -q '^dta-collector: paths: key-write, 25165824 bytes in anonymous memory ([0-9]*-byte pages)$' \
	"$E2E/collector.log" || { cat "$E2E/collector.log"; exit 1; }
grep -q 'no rdma_bind: no translator can write' "$E2E/collector.log"
grep -q 'restored from' "$E2E/collector.log"
[ ! -e "/dev/shm/dta-e2e-anon_regions-$$.paths" ] ||
	{ echo "FAIL: a shared-memory object was made" >&2; exit 1; }
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/anon.json"
cmp "$E2E/shared.json" "$E2E/anon.json" ||
	{ cat "$E2E/shared.json" "$E2E/anon.json"; exit 1; }
if e2e_query --map kw get paths 0x0102 2> "$E2E/map.err"; then
	echo "FAIL: --map found an anonymous region" >&2
	exit 1
fi
grep -q 'anonymous memory (shared_memory = no); ask over its socket' "$E2E/map.err"
e2e_query snapshot > /dev/null
e2e_stop_collector
# Its snapshot holds the same data.
"$QUERY" -c "$E2E/dta.conf" --json -D "$E2E/snapshots" verify --truth "$E2E/kw.truth" |
	strip > "$E2E/snap.json"
cmp "$E2E/shared.json" "$E2E/snap.json"
e2e_pass
