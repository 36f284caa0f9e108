#!/bin/sh
# Remote queries (docs/security.md "Remote queries"): the collector's
# query_listen, TCP with TLS and client certificates the test makes
# (tests/tls_certs.sh), against its Unix socket. Real handshakes:
#  - the same text requests get byte-identical answers over both; the
#    client (binary frames, batched gets, Append cursors, text mode) gets
#    identical results (tests/tools/client_same); `wait` works over TLS;
#  - readers: a structure with `readers = other` is not there for CN
#    analyst (info, text requests, frames, wait answer as for a structure
#    that does not exist) and is there for CN other;
#  - snapshot and ki-reset are refused remotely;
#  - refused: no client certificate, another CA's, a CN that is no reader
#    name, no handshake at all (each counted, the cause logged); the
#    client refuses a collector
#    whose certificate does not carry the name it dialed;
#  - the collector will not start with query_listen but no tls_ca, or with
#    a key file others can read; the client will not use such a key.
. "$(dirname "$0")/lib.sh"
e2e_init remote_tls "$1"
CERTS=$E2E/certs
e2e_tls_certs "$CERTS" analyst other "badcn=bad name"
SAME=$BUILD/tests/client_same
RAW=$BUILD/tests/raw_lines
WAITP=$BUILD/tests/client_wait
RP=$E2E_TCP0 # TCP; the translator's port is UDP
S=$E2E/collector.sock
tls() { # HOST CN [MORE]
	echo "tls://$1:$RP?ca=$CERTS/ca.pem&cert=$CERTS/$2.pem&key=$CERTS/$2.key${3:-}"
}
A=$(tls 127.0.0.1 analyst)
O=$(tls localhost other)
remote_conf() { # TLS-LINES
	e2e_conf_head | awk -v ins="$1" '{ print } /^\[collector\]$/ { print ins }'
	echo "pc_timeout_ms = 60000"
	echo
	e2e_client_structures 64K 16K
	cat <<EOF2

[structure secret]
primitive = append
lists = 1
first_list = 10
batches = 16
entry = 8
readers = other
EOF2
}
TLSCONF="query_listen = 127.0.0.1:$RP
tls_cert = $CERTS/server.pem
tls_key = $CERTS/server.key
tls_ca = $CERTS/ca.pem"

# --- the collector refuses to start without its TLS files, or with a key
# others can read (before it creates anything)
remote_conf "query_listen = 127.0.0.1:$RP
tls_cert = $CERTS/server.pem
tls_key = $CERTS/server.key" > "$E2E/dta.conf"
e2e_collector_refuses "$E2E/dta.conf" \
	'query_listen needs tls_cert, tls_key and tls_ca'
remote_conf "$TLSCONF" > "$E2E/dta.conf"
chmod 640 "$CERTS/server.key"
e2e_collector_refuses "$E2E/dta.conf" 'mode 0640.*chmod 600'
chmod 600 "$CERTS/server.key"

e2e_start_collector
grep -q "remote queries on 127.0.0.1:$RP" "$E2E/collector.log"
e2e_start_translator -q
e2e_gen -t kw -n 3000 -k 1500 -r 50000 -T "$E2E/kw.truth"
e2e_gen -t pc -n 1000 -r 50000 -T "$E2E/pc.truth"
e2e_gen -t ki -n 4000 -k 400 -r 50000 -T "$E2E/ki.truth"
e2e_gen -t ap -n 2000 --lists 2 --entry 8 -r 50000 -T "$E2E/ap.truth"
for t in kw pc ki; do
	e2e_retry e2e_query verify --truth "$E2E/$t.truth" --min-success 1
done

# --- wait over TLS (its own second connection): woken by an immediate
# report, judged by sequence numbers
s0=$("$WAITP" "$A" paths 4294967295 0 | awk '{ print $2 }')
[ -n "$s0" ] || { echo "FAIL: no sequence over TLS" >&2; exit 1; }
e2e_wake "$WAITP" "$A" paths "$s0" 77 "TLS"
echo "ok: wait over TLS: $s0 -> $E2E_WOKEN"
e2e_stop_translator

# --- the client: identical results over the socket and TLS
"$SAME" -k "$E2E/kw.truth" -k "$E2E/pc.truth" -k "$E2E/ki.truth" \
	"unix:$S" "$O" "text:$O" > "$E2E/same.out"
cat "$E2E/same.out"
grep -q '^kw paths: [0-9]* keys, [1-9][0-9]* found, same from 3' "$E2E/same.out"
grep -q '^pc postcards: 2000 keys, 1000 found, same from 3' "$E2E/same.out"
grep -q '^ki counters: 800 keys, counts summing to 4000, same from 3' "$E2E/same.out"
grep -q '^ap events: 2 lists, [1-9][0-9]* entries, 0 lost, same from 3' "$E2E/same.out"

# --- the same text requests, byte for byte
key() { sed -n "s/^$1 \(0x\)\{0,1\}\([0-9a-f]*\) .*/\2/p" "$E2E/$1.truth"; }
{
	echo info
	key kw | sed 's/^/kw paths /'
	key kw | sed 's/^/kw paths ff/; s/..$//'
	key pc | sed 's/^/pc postcards /'
	key ki | sed 's/^/ki counters /; s/$/ 0/'
	key ki | sed 's/^/ki counters /; s/$/ 1/'
	echo "ap events 0 1000"
	echo "ap events 1 65536"
	echo "ap events 1 65536"
	echo "kw nosuch 00"
	echo "wait nosuch 0 0"
	echo "bogus request"
} > "$E2E/requests"
"$RAW" "unix:$S" < "$E2E/requests" > "$E2E/unix.ans"
"$RAW" "$O" < "$E2E/requests" > "$E2E/tls.ans"
e2e_expect "answers over the socket" "$(wc -l < "$E2E/unix.ans")" \
	"$(wc -l < "$E2E/requests")"
cmp "$E2E/unix.ans" "$E2E/tls.ans"
[ "$(grep -c '"data":"' "$E2E/tls.ans")" -gt 500 ] ||
	{ echo "FAIL: too few found answers" >&2; exit 1; }
echo "ok: $(wc -l < "$E2E/requests") text requests, identical answers over TLS"

# --- readers: secret is other's only
printf 'info\n' | "$RAW" "$O" | grep -q '"name":"secret"'
printf 'info\n' | "$RAW" "$A" > "$E2E/a.info"
if grep -q secret "$E2E/a.info"; then
	echo "FAIL: analyst sees secret: $(cat "$E2E/a.info")" >&2; exit 1
fi
for n in paths postcards events counters; do
	grep -q "\"name\":\"$n\"" "$E2E/a.info" ||
		{ echo "FAIL: analyst does not see $n: $(cat "$E2E/a.info")" >&2; exit 1; }
done
# Any request on it answers as on a structure that does not exist.
printf 'ap zzzzzz 0 10\nwait zzzzzz 0 0\nki zzzzzz 00\n' | "$RAW" "unix:$S" |
	sed 's/zzzzzz/secret/g' > "$E2E/want"
printf 'ap secret 0 10\nwait secret 0 0\nki secret 00\n' | "$RAW" "$A" > "$E2E/got"
cmp "$E2E/want" "$E2E/got"
grep -q 'no structure' "$E2E/got"
printf 'ap secret 0 1000\n' | "$RAW" "$O" | grep -qF '"entries":[]'
# Through the client (binary frames): as an unknown name, too.
"$QUERY" -C "$A" ap tail secret 0 > "$E2E/got" 2>&1 || true
"$QUERY" -C "$A" ap tail zzzzzz 0 2>&1 | sed 's/zzzzzz/secret/g' > "$E2E/want" || true
cmp "$E2E/want" "$E2E/got"
"$QUERY" -C "$O" ap tail secret 0 > /dev/null
e2e_expect "structures in analyst's stats" \
	"$("$QUERY" -j -C "$A" stats | sed -n 's/.*"structures":\([0-9]*\).*/\1/p')" 4
echo "ok: readers"

# --- what changes or costs the collector stays local
for r in snapshot "ki-reset counters 0" switch; do
	printf '%s\n' "$r" | "$RAW" "$A" > "$E2E/got"
	grep -q 'not allowed over a remote connection' "$E2E/got" ||
		{ echo "FAIL: $r remotely: $(cat "$E2E/got")" >&2; exit 1; }
done
if "$QUERY" -C "$O" snapshot > "$E2E/got" 2>&1; then
	echo "FAIL: snapshot over TLS succeeded" >&2; exit 1
fi
grep -q 'not allowed over a remote connection' "$E2E/got"
e2e_query snapshot > /dev/null # locally it works
echo "ok: snapshot, ki-reset, switch refused remotely"

# --- refused clients, each counted; the cause in the log
refused0=$(e2e_query -j stats | sed -n 's/.*"remote_refused":\([0-9]*\).*/\1/p')
e2e_expect "refused so far" "$refused0" 0
for how in "rogue" "badcn" "none"; do
	if [ $how = none ]; then
		T="tls://127.0.0.1:$RP?ca=$CERTS/ca.pem"
	else
		T=$(tls 127.0.0.1 $how)
	fi
	if "$QUERY" -C "$T" info > "$E2E/got" 2>&1; then
		echo "FAIL: a client with certificate '$how' was served" >&2; exit 1
	fi
	grep -q 'the collector refused this client' "$E2E/got" ||
		{ echo "FAIL: $how: $(cat "$E2E/got")" >&2; exit 1; }
	echo "ok: refused ($how): $(cat "$E2E/got")"
done
e2e_expect "refused handshakes" \
	"$(e2e_query -j stats | sed -n 's/.*"remote_refused":\([0-9]*\).*/\1/p')" 3
# A connection that never starts its handshake is closed (after the
# handshake deadline, 10 s; the wait is bounded by recv's 120 s only) and
# counted as refused.
e2e_expect "bytes before the collector closed a silent connection" \
	"$(python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(120)
print(len(s.recv(100)))' "$RP")" 0
e2e_expect "refused handshakes" \
	"$(e2e_query -j stats | sed -n 's/.*"remote_refused":\([0-9]*\).*/\1/p')" 4
grep -q 'refused: certificate refused: .*issuer is unknown' "$E2E/collector.log" ||
	{ echo "FAIL: no refusal with its cause in the log" >&2; exit 1; }

# --- the client refuses a collector whose certificate lacks the name
if "$QUERY" -C "$(tls 127.0.0.1 analyst '&name=wrong.example')" info \
	> "$E2E/got" 2>&1; then
	echo "FAIL: a certificate without the name was accepted" >&2; exit 1
fi
grep -q 'name in the certificate does not match' "$E2E/got"
echo "ok: wrong name: $(cat "$E2E/got")"
# A client key others can read is refused before anything is sent.
cp "$CERTS/analyst.key" "$E2E/open.key"
chmod 644 "$E2E/open.key"
if "$QUERY" -C "tls://127.0.0.1:$RP?ca=$CERTS/ca.pem&cert=$CERTS/analyst.pem&key=$E2E/open.key" \
	info > "$E2E/got" 2>&1; then
	echo "FAIL: a client key of mode 0644 was used" >&2; exit 1
fi
grep -q 'mode 0644.*chmod 600' "$E2E/got"
e2e_stop_collector

# --- a collector whose certificate names wrong.example and 127.0.0.2
remote_conf "query_listen = 127.0.0.1:$RP
tls_cert = $CERTS/wrongname.pem
tls_key = $CERTS/wrongname.key
tls_ca = $CERTS/ca.pem" > "$E2E/dta.conf"
e2e_start_collector
for h in 127.0.0.1 localhost; do
	if "$QUERY" -C "$(tls $h analyst)" info > "$E2E/got" 2>&1; then
		echo "FAIL: $h: a certificate for other names was accepted" >&2
		exit 1
	fi
	grep -q 'name in the certificate does not match' "$E2E/got"
done
# Dialing the address, expecting the name it has: accepted.
"$QUERY" -C "$(tls 127.0.0.1 analyst '&name=wrong.example')" info | grep -q '^name=paths'
echo "ok: the client checks the collector's name"
e2e_stop_collector
e2e_pass
