#!/bin/sh
# Notifications (docs/collector-protocol.md "wait"): a client waiting on a
# structure is woken by reports with the immediate flag, not by others.
# (Each dta-gen run is its own reporter: sequence accounting stays
# exact.) Checked by sequence numbers: the structure's sequence moves once per
# translator notification (counted: notifications), never for plain
# reports, and a wait answers with the sequence it saw.
. "$(dirname "$0")/lib.sh"
e2e_init notify "$1"
PROBE=$BUILD/tests/wait_probe
{
	e2e_conf_head
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
SOCK=$E2E/collector.sock

seq_of() { # NAME: the current sequence (a wait that does not wait)
	"$PROBE" "$SOCK" "$1" 4294967295 0 | sed -n 's/^{"seq":\([0-9]*\).*/\1/p'
}

e2e_expect "fresh sequence" "$(seq_of paths)" 0
# Plain reports: the sequence stays.
e2e_gen -t kw -n 2000 -k 2000 -r 200000 --reporter 11
e2e_gen -t ki -n 2000 -k 100 -r 200000 --reporter 12
e2e_expect "after plain reports" "$(seq_of paths)" 0
e2e_expect "a wait that times out" \
	"$("$PROBE" "$SOCK" paths 0 100)" '{"seq":0,"timeout":true}'

# A waiter, then immediate Key-Write reports: woken with a new sequence.
"$PROBE" "$SOCK" paths 0 600000 > "$E2E/woken" 2> "$E2E/probe.log" &
WPID=$!
E2E_PIDS=$WPID
i=0
while ! grep -q '^ready' "$E2E/probe.log"; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: probe not ready" >&2; exit 1; }
	sleep 0.05
done
e2e_gen -t kw -n 50 -k 50 -r 10000 --immediate -s 7 --reporter 13
wait $WPID || { echo "FAIL: the waiter failed" >&2; cat "$E2E/woken" "$E2E/probe.log" >&2; exit 1; }
E2E_PIDS=
woken=$(sed -n 's/^{"seq":\([0-9]*\)}$/\1/p' "$E2E/woken")
[ -n "$woken" ] && [ "$woken" -ge 1 ] && [ "$woken" -le 50 ] ||
	{ echo "FAIL: woken with '$(cat "$E2E/woken")'" >&2; exit 1; }
echo "ok: woken at sequence $woken"
# Other structures did not move; plain reports after this do not either.
e2e_expect "counts untouched" "$(seq_of counts)" 0
after=$(seq_of paths)
e2e_gen -t kw -n 500 -k 500 -r 200000 -s 9 --reporter 14
e2e_expect "plain reports after" "$(seq_of paths)" "$after"
# Immediate Key-Increment reports wake `counts`.
e2e_gen -t ki -n 20 -k 5 -r 10000 --immediate --reporter 15
kseq=$(seq_of counts)
[ "$kseq" -ge 1 ] || { echo "FAIL: counts sequence $kseq" >&2; exit 1; }

# The same answer for a stale SEQ, at once; errors.
e2e_expect "stale seq" "$("$PROBE" "$SOCK" paths 0 0)" "{\"seq\":$after}"
e2e_expect "unknown structure" "$("$PROBE" "$SOCK" nosuch 0 0)" \
	'{"error":"no structure nosuch"}'
"$PROBE" "$SOCK" paths x 0 | grep -q '"error":"usage: wait' ||
	{ echo "FAIL: bad SEQ accepted" >&2; exit 1; }
"$PROBE" "$SOCK" paths 0 3600001 | grep -q '"error":"usage: wait' ||
	{ echo "FAIL: timeout over the maximum accepted" >&2; exit 1; }

# Answers stay in order: a request after a wait is answered after it.
python3 - "$SOCK" "$after" > "$E2E/order" <<'EOF2'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(("wait paths %s 200\ninfo\n" % sys.argv[2]).encode())
buf = b""
while buf.count(b"\n") < 2:
    d = s.recv(65536)
    if not d:
        break
    buf += d
lines = buf.decode().splitlines()
print(lines[0])
print(lines[1][:14] if len(lines) > 1 else "")
EOF2
e2e_expect "pipelined after a wait" "$(tr '\n' ' ' < "$E2E/order")" \
	"{\"seq\":$after,\"timeout\":true} {\"structures\": "

e2e_stop_translator
# Every notification moved exactly one structure's sequence by one.
e2e_expect "sequences = translator notifications" \
	$(($(seq_of paths) + $(seq_of counts))) "$(e2e_stat notifications)"
e2e_expect "immediate reports" "$(e2e_stat reports_immediate)" 70
e2e_stop_collector
e2e_pass
