#!/bin/sh
# dta-query --json shows Key-Write data and Append entries of a structure
# with a value schema (docs/config.md "Value schemas") decoded as "fields"
# beside the hex: the same from the socket, --map and a snapshot, for one
# key and for many, for ap tail; without --json, or without a schema, the
# output is the hex alone. The fields are checked against the hex decoded
# here, in Python, from the schema's definition.
. "$(dirname "$0")/lib.sh"
e2e_init query_schema "$1"
command -v python3 > /dev/null || { echo "SKIP: no python3" >&2; exit 77; }
C=$E2E/dta.conf
{
	e2e_conf_head
	cat <<EOF
[structure flows]
primitive = key-write
slots = 64K
data = 20
schema = a:u32, b:u16le, c:u8, d:i8, e:bytes[4], f:u32[2]

[structure events]
primitive = append
lists = 2
batches = 16
entry = 8
schema = seq:u32, g:i16le, h:u8[2]
EOF
} > "$C"
e2e_start_collector
e2e_start_translator -q
e2e_gen -t kw -n 300 -k 100 -T "$E2E/kw.truth"
e2e_gen -t ap -n 200 --lists 2 --entry 8 -T "$E2E/ap.truth"
e2e_retry e2e_query verify --truth "$E2E/kw.truth" --min-success 1
e2e_stop_translator
e2e_query snapshot > /dev/null
grep '^kw ' "$E2E/kw.truth" | cut -d' ' -f2 | sort -u | head -n 20 |
	sed 's/^/0x/' > "$E2E/keys"
K=$(head -n 1 "$E2E/keys")

# The decoder the test trusts: the schemas above, by hand.
cat > "$E2E/check.py" <<'PY'
import json, struct, sys

def kw(b):
    a, = struct.unpack(">I", b[0:4])
    bb, = struct.unpack("<H", b[4:6])
    d, = struct.unpack("b", b[7:8])
    return {"a": a, "b": bb, "c": b[6], "d": d, "e": b[8:12].hex(),
            "f": list(struct.unpack(">II", b[12:20]))}

def ap(b):
    seq, = struct.unpack(">I", b[0:4])
    g, = struct.unpack("<h", b[4:6])
    return {"seq": seq, "g": g, "h": [b[6], b[7]]}

n = 0
for line in sys.stdin:
    o = json.loads(line)
    if sys.argv[1] == "kw":
        if o["status"] != "found":
            assert "fields" not in o, line
            continue
        assert o["fields"] == kw(bytes.fromhex(o["data"])), line
        n += 1
    else:
        assert len(o["fields"]) == len(o["entries"]), line
        for e, f in zip(o["entries"], o["fields"]):
            assert f == ap(bytes.fromhex(e)), line
            n += 1
print(n)
PY
py() { python3 "$E2E/check.py" "$@"; }

# One key, many keys, ap tail, from each target: fields match the hex,
# and the targets answer alike.
for t in sock map snap; do
	case $t in
	sock) o= ;;
	map) o=--map ;;
	snap) o="--snapshot-dir $E2E/snapshots" ;;
	esac
	# shellcheck disable=SC2086
	e2e_query $o --json kw get flows "$K" > "$E2E/one.$t"
	e2e_expect "one key with fields ($t)" "$(py kw < "$E2E/one.$t")" 1
	# shellcheck disable=SC2086
	e2e_query $o --json kw get flows $(cat "$E2E/keys") > "$E2E/many.$t" ||
		true
	e2e_expect "keys with fields ($t)" "$(py kw < "$E2E/many.$t")" \
		"$(grep -c '"found"' "$E2E/many.$t")"
	# shellcheck disable=SC2086
	e2e_query $o --json ap tail events 1 -n 5 > "$E2E/ap.$t"
	e2e_expect "ap tail entries with fields ($t)" "$(py ap < "$E2E/ap.$t")" 5
done
for f in one many ap; do
	cmp "$E2E/$f.sock" "$E2E/$f.map"
	cmp "$E2E/$f.sock" "$E2E/$f.snap"
done
e2e_expect "keys found" "$(grep -c '"found"' "$E2E/many.sock")" 20
# The hex stays where it was; fields follow it.
grep -q '^{"status":"found","data":"[0-9a-f]\{40\}","fields":{"a":' "$E2E/one.sock"
grep -q '^{"key":"[0-9a-f]*","status":"found","data":"[0-9a-f]\{40\}","fields":{"a":' \
	"$E2E/many.sock"
grep -q '^{"entries":\["[0-9a-f]\{16\}",' "$E2E/ap.sock"
grep -q '\],"fields":\[{"seq":[0-9]*,"g":' "$E2E/ap.sock"
grep -q '}\],"stored":[0-9]*}$' "$E2E/ap.sock"
# A key never written has no data, so no fields; without --json, the hex
# alone.
rc=0
e2e_query --json kw get flows 0x0102030405 > "$E2E/none.json" || rc=$?
e2e_expect "exit status of a key not found" $rc 1
grep -q '^{"status":"not-found","votes":0,"candidates":[0-9]*}$' "$E2E/none.json"
e2e_query kw get flows "$K" > "$E2E/text.out"
grep -q '^found: 0x[0-9a-f]\{40\} (' "$E2E/text.out"
e2e_query ap tail events 1 -n 3 > "$E2E/ap.out"
e2e_expect "ap tail text lines" "$(grep -c '^0x[0-9a-f]\{16\}$' "$E2E/ap.out")" 3
# follow --json: the same members as the collector's ap answer, fields
# after the entries; everything stored, from the oldest entry.
e2e_query --json ap follow events 1 --from-start > "$E2E/follow.json" &
follow=$!
E2E_PIDS="$E2E_PIDS $follow"
n=$(grep -c '^ap 1 ' "$E2E/ap.truth")
# Whole lines only: py fails on a line still being written.
follow_done() { [ "$(py ap < "$E2E/follow.json" 2>/dev/null)" = "$n" ]; }
e2e_retry follow_done
kill "$follow"
wait "$follow" 2>/dev/null || true
E2E_PIDS=
e2e_expect "follow entries with fields" "$(py ap < "$E2E/follow.json")" "$n"
grep -q '}\],"lost":0,"position":[0-9]*}$' "$E2E/follow.json"
e2e_stop_collector
e2e_pass
