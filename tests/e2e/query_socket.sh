#!/bin/sh
# The query socket serves every client without letting one delay another
# (docs/collector-protocol.md): a client that never reads is held back
# while another gets its answers; a slow reader gets a large answer whole;
# long, blank and over-long requests each get one answer; the 65th client
# is told "too many clients"; idle and stalled clients are closed (and
# the collector logs why); dta-query says when a collector hangs up.
# Ordering and counts decide; the waits are failure timeouts only.
. "$(dirname "$0")/lib.sh"
e2e_init query_socket "$1"
PROBE=$BUILD/tests/query_probe
S=$E2E/collector.sock
cat > "$E2E/dta.conf" <<EOF2
[collector]
name = e2e-qs-$$
socket = $S
idle_timeout = 5
stall_timeout = 600

[translator]
port = $E2E_PORT
bind = 127.0.0.1

[structure events]
primitive = append
lists = 1
batches = 4096
entry = 32

[structure paths]
primitive = key-write
slots = 4096
data = 20
EOF2
e2e_start_collector
e2e_start_translator -q
e2e_gen -t ap -n 20000 --entry 32 -r 100000 -T "$E2E/ap.truth"
n=$(grep -vc '^#' "$E2E/ap.truth")
e2e_stop_translator # its last partial batch is written now

# A slow reader: an answer of ~1.3 MB (far over the socket buffers) read
# only 5 s later arrives whole, followed by the next answer (the old
# collector gave up a write after 2 s without progress).
printf 'ap events 0 65536 oldest\ninfo\n' | "$PROBE" pipe "$S" 5 > "$E2E/slow.out"
e2e_expect "answers to the slow reader" "$(wc -l < "$E2E/slow.out")" 2
got=$(head -n 1 "$E2E/slow.out" | grep -o '"[0-9a-f]\{64\}"' | wc -l)
e2e_expect "entries in its large answer" "$got" "$n"
head -n 1 "$E2E/slow.out" | grep -q '\],"lost":0,"position":[0-9]*}$'
sed -n 2p "$E2E/slow.out" | grep -q '^{"structures":\[{"name":"events"'

# A client that never reads is held back; another gets 200 answers while
# it is still connected; then it reads every one of its own. The same
# with Key-Write queries, which the collector answers in batches: their
# answers are held to the same bound (the client's sends block).
"$PROBE" stall "$S" 200
"$PROBE" stall "$S" 200 "kw paths 0a000001000000000000000001"

# Every line gets one answer, in order: a 3000-byte and a 4095-byte
# request (the limit), blank lines, a 4096-byte request (refused, the
# connection goes on), a 6000-byte one, then a normal request.
pad() { head -c "$1" /dev/zero | tr '\0' ' '; }
{
	echo "info$(pad 2996)"
	echo "info$(pad 4091)"
	echo "   "
	echo ""
	echo "info$(pad 4092)"
	head -c 6000 /dev/zero | tr '\0' x; echo
	echo stats
} | "$PROBE" pipe "$S" > "$E2E/lines.out"
e2e_expect "answers to 7 lines" "$(wc -l < "$E2E/lines.out")" 7
e2e_expect "info answers to 3000 and 4095 bytes" \
	"$(sed -n 1,2p "$E2E/lines.out" | grep -c '^{"structures"')" 2
e2e_expect "answer to a blank line" "$(sed -n 3p "$E2E/lines.out")" \
	'{"error":"empty request"}'
e2e_expect "answer to an empty line" "$(sed -n 4p "$E2E/lines.out")" \
	'{"error":"empty request"}'
e2e_expect "answer to 4096 bytes" "$(sed -n 5p "$E2E/lines.out")" \
	'{"error":"request too long (the limit is 4095 bytes)"}'
e2e_expect "answer to 6000 bytes" "$(sed -n 6p "$E2E/lines.out")" \
	'{"error":"request too long (the limit is 4095 bytes)"}'
sed -n 7p "$E2E/lines.out" | grep -q '^{"name":'

# 64 clients are the limit: the 65th hears why (and dta-query says it);
# once the 64 go idle, idle_timeout (5 s here: held connections send
# every 50 ms, and only a stall of the probe over 5 s could close one
# early) closes them.
i=0
until e2e_query stats | grep -q '"clients":1,'; do
	i=$((i + 1)); [ $i -le 100 ] || { echo "FAIL: clients linger" >&2; exit 1; }
	sleep 0.1
done
"$PROBE" hold "$S" 64 "$E2E/stop" > "$E2E/hold.out" &
holder=$!
E2E_PIDS="$E2E_PIDS $holder"
i=0
until grep -q '^held 64' "$E2E/hold.out"; do
	i=$((i + 1)); [ $i -le 600 ] || { echo "FAIL: hold" >&2; exit 1; }
	kill -0 $holder || { echo "FAIL: hold exited" >&2; exit 1; }
	sleep 0.1
done
if e2e_query stats > "$E2E/65.out" 2> "$E2E/65.err"; then
	echo "FAIL: a 65th client was served" >&2
	exit 1
fi
cat "$E2E/65.err"
grep -q '^dta-query: too many clients: the collector serves 64 at a time' \
	"$E2E/65.err"
touch "$E2E/stop"
wait $holder
grep -q '^closed 64' "$E2E/hold.out"
e2e_query stats > "$E2E/stats.out"
grep -q '"clients_refused":1,' "$E2E/stats.out"
grep -q '"clients_idle_closed":6[4-9],' "$E2E/stats.out"
grep -q 'no request for 5 s (idle_timeout); connection closed' \
	"$E2E/collector.log"

e2e_stop_collector

# A client that leaves its answers unread is dropped after stall_timeout
# (1 s here), and the collector says why.
sed -i 's/^stall_timeout = .*/stall_timeout = 1/' "$E2E/dta.conf"
e2e_start_collector
"$PROBE" fill "$S"
e2e_query stats | grep -q '"clients_stalled":1,'
grep -q 'bytes of answers unread for 1 s (stall_timeout); connection closed' \
	"$E2E/collector.log"
e2e_stop_collector

# A collector that hangs up: dta-query says so (it died of SIGPIPE, or
# printed a bare "Connection reset by peer").
"$PROBE" shut "$E2E/shut.sock" > "$E2E/shut.out" &
E2E_PIDS="$E2E_PIDS $!"
i=0
until grep -q '^ready' "$E2E/shut.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -le 200 ] || { echo "FAIL: shut" >&2; exit 1; }
	sleep 0.05
done
rc=0
"$QUERY" --socket "$E2E/shut.sock" stats 2> "$E2E/shut.err" || rc=$?
cat "$E2E/shut.err"
e2e_expect "dta-query exit status when the collector hangs up" $rc 3
grep -q "^dta-query: the collector at $E2E/shut.sock closed the connection" \
	"$E2E/shut.err"
e2e_pass
