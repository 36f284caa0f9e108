#!/bin/sh
# dta_client_wait() (docs/client.md "Notifications") through a socket, a
# mapping and a configuration: woken by reports with the immediate flag,
# never by plain ones; judged by sequence numbers, not by time (the
# waits' timeouts only bound a failing run).
. "$(dirname "$0")/lib.sh"
e2e_init client_wait "$1"
PROBE=$BUILD/tests/client_wait
{
	e2e_conf_head
	cat <<EOF2

[structure paths]
primitive = key-write
slots = 16384
data = 20
redundancy = 2
EOF2
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
rep=20
for T in "unix:$E2E/collector.sock" "map:$E2E/dta.conf" \
	 "config:$E2E/dta.conf"; do
	# The sequence now: whatever SEQ is given, a call without time
	# answers with the current one.
	s0=$("$PROBE" "$T" paths 4294967295 0 | awk '{ print $2 }')
	[ -n "$s0" ] || { echo "FAIL: $T: no sequence" >&2; exit 1; }
	rep=$((rep + 1))
	e2e_gen -t kw -n 500 -k 500 -r 200000 -s $rep --reporter $rep
	e2e_expect "$T: plain reports" "$("$PROBE" "$T" paths "$s0" 0)" \
		"same $s0"
	e2e_expect "$T: a wait that times out" \
		"$("$PROBE" "$T" paths "$s0" 100)" "same $s0"
	rep=$((rep + 1))
	e2e_wake "$PROBE" "$T" paths "$s0" $rep "$T"
	echo "ok: $T: $s0 -> $E2E_WOKEN"
done
# Snapshot files: nothing arrives there, and the client says so.
e2e_query snapshot > /dev/null
if "$PROBE" "snapshot:$E2E/snapshots?config=$E2E/dta.conf" paths 0 0 \
	2> "$E2E/snap.err"; then
	echo "FAIL: a wait on snapshot files succeeded" >&2; exit 1
fi
grep -q 'nothing arrives' "$E2E/snap.err" ||
	{ echo "FAIL: $(cat "$E2E/snap.err")" >&2; exit 1; }
e2e_pass
