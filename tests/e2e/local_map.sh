#!/bin/sh
# The local mapping path (docs/collector-protocol.md): dta-query --map maps
# a running collector's structures read-only and queries them here; every
# answer equals the socket's (the same executor on the same memory). An
# object anyone may write is refused.
. "$(dirname "$0")/lib.sh"
e2e_init local_map "$1"
{
	e2e_conf_head | sed 's/^\[translator\]$/shm_mode = 0640\n\n&/'
	cat <<EOF2

[structure paths]
primitive = key-write
slots = 16384
data = 20
redundancy = 2

[structure counts]
primitive = key-increment
width = 4096
EOF2
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 20000 -k 20000 -r 250000 -T "$E2E/kw.truth"
e2e_gen -t ki -n 20000 -k 500 -r 250000 -T "$E2E/ki.truth"
e2e_stop_translator # nothing changes below

for t in kw ki; do
	# Everything but the time taken.
	e2e_query --json verify --truth "$E2E/$t.truth" |
		sed 's/,"seconds":[0-9.]*//' > "$E2E/$t.sock"
	e2e_query --map --json verify --truth "$E2E/$t.truth" |
		sed 's/,"seconds":[0-9.]*//' > "$E2E/$t.map"
	cmp "$E2E/$t.sock" "$E2E/$t.map" ||
		{ echo "FAIL: $t: --map and the socket differ" >&2; head -c 600 "$E2E/$t.sock" "$E2E/$t.map" >&2; exit 1; }
done
grep -q '"exact":[1-9][0-9]*,' "$E2E/kw.map" || { cat "$E2E/kw.map"; exit 1; }
grep -q '"exact":[1-9][0-9]*,' "$E2E/ki.map" || { cat "$E2E/ki.map"; exit 1; }
# Single answers, found and not found, byte for byte. (The truth file's
# keys are bare hex, which dta-query reads as a 5-tuple; 0x makes them
# bytes. Without it both answers were an empty refusal, equal, and this
# compared nothing: each answer must now be one, and some found; how many
# depends on collisions, which verify above counts.)
found=0
for k in $(grep -v '^#' "$E2E/kw.truth" | head -n 20 | cut -d' ' -f2 | sed 's/^\(0x\)\{0,1\}/0x/') 0x0102030405; do
	a=$(e2e_query --json kw get paths "$k") || true
	b=$(e2e_query --map --json kw get paths "$k") || true
	case $a in
	*'"status":"found"'*) found=$((found + 1)) ;;
	*'"status":'*) ;;
	*) echo "FAIL: kw get $k: no answer: '$a'" >&2; exit 1 ;;
	esac
	e2e_expect "kw get $k over --map" "$b" "$a"
done
[ $found -ge 1 ] || { echo "FAIL: none of 20 written keys found over the socket" >&2; exit 1; }
echo "found over both: $found of 20 written keys (the rest overwritten: key-write)"
# examples/dta_map_query (the library calls, batched) agrees too.
keys=$(grep -v '^#' "$E2E/kw.truth" | head -n 20 | cut -d' ' -f2 | sed 's/^0x//')
# shellcheck disable=SC2086
"$BUILD/examples/dta_map_query" "/dta-e2e-local_map-$$.paths" $keys > "$E2E/example.out"
e2e_expect "example answers" "$(wc -l < "$E2E/example.out")" 20
while read -r k st d; do
	a=$(e2e_query --json kw get paths "0x$k" < /dev/null) || true
	case $st in
	found) echo "$a" | grep -q "\"data\":\"$d\"" ;;
	*) echo "$a" | grep -q "\"status\":\"$st\"" ;;
	esac || { echo "FAIL: example $k $st $d, socket $a" >&2; exit 1; }
done < "$E2E/example.out"
e2e_query --map --json info > "$E2E/info.map"
e2e_query --json info > "$E2E/info.sock"
cmp "$E2E/info.sock" "$E2E/info.map"

# An object anyone may write could hold anything: refused.
shm=/dev/shm/dta-e2e-local_map-$$.paths
[ -e "$shm" ] || { echo "FAIL: no $shm" >&2; exit 1; }
chmod 0646 "$shm"
if e2e_query --map kw get paths 0x0102030405 2> "$E2E/planted.err"; then
	echo "FAIL: a world-writable object was read" >&2
	exit 1
fi
grep -q 'refusing /dta-e2e-local_map-.*writable by anyone' "$E2E/planted.err" ||
	{ cat "$E2E/planted.err"; exit 1; }
chmod 0640 "$shm"
e2e_stop_collector
# Gone with its collector.
if e2e_query --map kw get paths 0x0102030405 2> "$E2E/gone.err"; then
	echo "FAIL: --map without a collector" >&2
	exit 1
fi
grep -q 'no shared-memory object' "$E2E/gone.err" || { cat "$E2E/gone.err"; exit 1; }
e2e_pass
