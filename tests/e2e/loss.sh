#!/bin/sh
# Loss is always counted: a translator frozen (SIGSTOP) while dta-gen sends
# at full speed overflows its socket queue. The kernel's drops must show up
# as socket_drops, the same reports as seq_lost (one report per datagram),
# and reports sent = received + lost exactly. A reporter that restarts its
# sequence (a new dta-gen run) must not turn losses into late reports.
. "$(dirname "$0")/lib.sh"
e2e_init loss "$1"
{
	e2e_conf_head
	cat <<EOF
[structure counters]
primitive = key-increment
width = 64K
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
E2E_LOSSY=yes
# A first run the translator sees whole; the next run restarts at 0.
e2e_gen -t ki -n 20000 -k 1000
accounted() { # datagrams the translator received, or knows were dropped
	js=$(cat "$E2E/translator.json")
	for k in packets socket_drops; do
		echo "$js" | tr ',{}' '\n\n\n' | sed -n "s/^\"$k\":\([0-9]*\)$/\1/p"
	done | awk '{ s += $1 } END { print s }'
}
base=$(accounted)
n=300000
# The translator is frozen for the whole run: far more datagrams than its
# socket holds are sent, so the kernel surely drops some (no timing).
kill -STOP "$E2E_TPID"
"$GEN" -d "127.0.0.1:$E2E_PORT" -t ki -n $n -k 1000 2>>"$E2E/gen.log" ||
	{ kill -CONT "$E2E_TPID"; exit 1; }
kill -CONT "$E2E_TPID"
echo $(($(cat "$E2E/sent") + n)) > "$E2E/sent"
# Until the translator has taken or counted every datagram of that run, so
# that the next run is not dropped at the end of a full queue.
caught_up() { [ "$(accounted)" -ge $((base + n)) ]; }
e2e_retry caught_up
# The same sequence goes on: its first report shows what the frozen run
# lost at its end, if anything.
e2e_gen -t ki -n 1000 -k 1000 -s 2 --seq $n
e2e_stop_translator
drops=$(e2e_stat socket_drops)
lost=$(e2e_stat seq_lost)
backlog=$(($(e2e_backlog_drops) - E2E_BACKLOG0))
echo "kernel drops while frozen: $drops datagrams at the socket, $backlog before it"
if [ "$drops" -eq 0 ]; then
	echo "FAIL: no drop counted although the translator was frozen" >&2
	exit 1
fi
# One report per datagram: the reports lost are the datagrams the socket
# dropped, and any the kernel dropped before the socket (a full per-CPU
# backlog, counted system-wide: usually none).
if [ "$lost" -lt "$drops" ] || [ $((lost - drops)) -gt "$backlog" ]; then
	echo "FAIL: $lost reports lost, $drops datagrams dropped at the socket," \
	     "$backlog before it" >&2
	exit 1
fi
echo "ok: reports lost ($lost) = datagrams dropped ($drops + $((lost - drops)))"
e2e_expect "restarts" "$(e2e_stat seq_restarts)" 1
e2e_expect "late reports" "$(e2e_stat seq_late)" 0
e2e_expect "suspect reports" "$(e2e_stat seq_suspect)" 0
e2e_stop_collector
e2e_pass
