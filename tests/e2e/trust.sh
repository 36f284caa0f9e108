#!/bin/sh
# Who may send reports: a second translator on a taken port refuses to
# start (it would take part of the traffic with SO_REUSEPORT), with one
# worker or several; the default bind is 127.0.0.1; datagrams from a
# source outside the allow-list are dropped and counted.
. "$(dirname "$0")/lib.sh"
e2e_init trust "$1"
{
	e2e_conf_head | grep -v '^bind'
	cat <<EOF
[structure counters]
primitive = key-increment
width = 64K
rows = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator -w 2
grep -q "^ready udp 127.0.0.1:$E2E_PORT\$" "$E2E/translator.out"
for w in 1 2; do
	if "$TRANSLATOR" -c "$E2E/dta.conf" -w $w > "$E2E/second.out" 2> "$E2E/second.log"; then
		echo "FAIL: a second translator started on a taken port (-w $w)" >&2
		exit 1
	fi
	grep -q "Address already in use (another dta-translator" "$E2E/second.log" ||
		{ cat "$E2E/second.log" >&2; exit 1; }
	echo "ok: a second translator with $w worker(s) refused: $(cat "$E2E/second.log")"
done
# The first one still gets everything.
e2e_gen -t ki -n 5000 -k 500 -T "$E2E/ki.truth"
e2e_query verify --truth "$E2E/ki.truth" --min-success 1
e2e_stop_translator

# Only 10.0.0.0/8 and one address: datagrams from 127.0.0.1 are refused.
e2e_start_translator --allow "10.0.0.0/8, 192.0.2.7"
"$GEN" -d "127.0.0.1:$E2E_PORT" --sync "$E2E/translator.json" -t ki -n 700 \
	-s 3 2>>"$E2E/gen.log"
p=$E2E_TPID
E2E_TPID=
e2e_term "$p" dta-translator
e2e_expect "refused datagrams" "$(e2e_stat refused_source)" 700
e2e_expect "reports received" "$(e2e_stat reports_in)" 0
grep -q "refused a datagram from 127.0.0.1" "$E2E/translator.log"
# ... and from an allowed source, in the configuration this time.
sed "s|^\[translator\]|[translator]\nallow = 127.0.0.0/8|" "$E2E/dta.conf" > "$E2E/allow.conf"
mv "$E2E/allow.conf" "$E2E/dta.conf"
e2e_start_translator
e2e_gen -t ki -n 700 -s 3
e2e_stop_translator
e2e_expect "refused datagrams" "$(e2e_stat refused_source)" 0
# A bad list is an error, not an open door.
if "$TRANSLATOR" -c "$E2E/dta.conf" --allow "10.0.0.0/33" > /dev/null 2> "$E2E/bad.log"; then
	echo "FAIL: a bad allow-list was accepted" >&2
	exit 1
fi
grep -q "allow: .10.0.0.0/33. is not a list of IPv4 addresses" "$E2E/bad.log"
e2e_stop_collector
e2e_pass
