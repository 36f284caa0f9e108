#!/bin/sh
# dta-export refuses what it must not run with, saying why (docs/export.md):
# a state directory another user could read or that is not ours, a state
# file it does not understand, no sink configured, buffer_rows below
# batch_rows, a password file others may read, a source it cannot reach;
# --print-schema gives each Append structure (INT events included, with
# the built-in schema's fields) a ReplacingMergeTree and a Distributed
# table. No ClickHouse needed: the sink is never reached.
. "$(dirname "$0")/lib.sh"
EXPORT=$1/export/dta-export
[ -x "$EXPORT" ] || { echo "SKIP: dta-export not built (libcurl missing)"; exit 77; }
e2e_init export_refuse "$1"
INT_PORT=$((E2E_PORT + 1))

conf() { # EXTRA [export] LINES
	e2e_int_conf key-write "slots = 4K
data = 20" 16K 2 ""
	cat <<EOF
[export]
state_dir = $E2E/state
$1
EOF
}
# Run dta-export; it must fail and say MESSAGE.
refused() { # WHAT MESSAGE
	if "$EXPORT" -c "$E2E/dta.conf" > "$E2E/out" 2> "$E2E/err"; then
		echo "FAIL: $1: dta-export ran" >&2; exit 1
	fi
	grep -q -- "$2" "$E2E/err" || { echo "FAIL: $1: no '$2' in:" >&2; cat "$E2E/err" >&2; exit 1; }
	echo "ok: $1 refused: $(head -1 "$E2E/err")"
}

conf "" > "$E2E/dta.conf"
refused "no sink" "no sink configured"

conf "clickhouse_url = http://127.0.0.1:1
batch_rows = 1000
buffer_rows = 10" > "$E2E/dta.conf"
refused "buffer below a batch" "buffer_rows (10) is below batch_rows (1000)"

conf "clickhouse_url = http://127.0.0.1:1" > "$E2E/dta.conf"
e2e_expect "state_dir created with mode" "$(stat -c %a "$E2E/state")" 700
chmod 0755 "$E2E/state"
refused "state_dir 0755" "must be ours (uid $(id -u)) and mode 0700"
chmod 0700 "$E2E/state"
printf 'cursor a b 0 1\nsomething else\n' > "$E2E/state/cursors"
refused "a state file it does not understand" "cursors:2: not a state line"
rm "$E2E/state/cursors"
# No collector running: the source cannot be opened.
refused "no collector" "source config:"

echo secret > "$E2E/pw"
chmod 0644 "$E2E/pw"
conf "clickhouse_url = http://127.0.0.1:1
clickhouse_password_file = $E2E/pw" > "$E2E/dta.conf"
refused "a password file others read" "not readable by group or others"
conf "clickhouse_url = ftp://127.0.0.1:1" > "$E2E/dta.conf"
refused "not an http URL" "not an http:// or https:// URL"

# The schema: every Append structure, INT events with their fields.
conf "clickhouse_url = http://127.0.0.1:1
clickhouse_table_prefix = t_
clickhouse_database = dtadb" > "$E2E/dta.conf"
"$EXPORT" -c "$E2E/dta.conf" --print-schema --cluster two > "$E2E/ddl.sql"
e2e_expect "local tables" "$(grep -c 'ENGINE = ReplacingMergeTree()' "$E2E/ddl.sql")" 1
e2e_expect "distributed table" \
	"$(grep -c 'ENGINE = Distributed(`two`, `dtadb`, `t_events_local`, cityHash64(collector, list))' "$E2E/ddl.sql")" 1
e2e_expect "no ON CLUSTER by default" "$(grep -c 'ON CLUSTER' "$E2E/ddl.sql")" 0
"$EXPORT" -c "$E2E/dta.conf" --print-schema --cluster two --on-cluster > "$E2E/ddl2.sql"
e2e_expect "ON CLUSTER" "$(grep -c 'ON CLUSTER `two`' "$E2E/ddl2.sql")" 2
# Each field of the built-in INT event schema is a column.
for col in collector structure list position time_ns time entry; do
	grep -q "^    $col " "$E2E/ddl.sql" || { echo "FAIL: no column $col" >&2; cat "$E2E/ddl.sql" >&2; exit 1; }
done
n=$(sed -n '/t_events_local/,/ENGINE/p' "$E2E/ddl.sql" | grep -c '^    `')
[ "$n" -ge 3 ] || { echo "FAIL: INT event fields missing:" >&2; cat "$E2E/ddl.sql" >&2; exit 1; }
echo "ok: INT events table has $n schema columns"
"$EXPORT" --help | grep -q -- "--print-schema"
e2e_pass
