#!/bin/sh
# A fleet over endpoints: two collectors, each with its query_listen on a
# loopback port and that address as its endpoint; the client opens
# config: with ?via=endpoint (dta-query --via endpoint) and reaches both
# over TLS with a client certificate the test makes (certtool). Its
# answers are the same as through the collectors' Unix sockets: whole,
# then partial (exit status 4, east's keys unavailable) once east is
# killed, then whole again once east is back.
. "$(dirname "$0")/lib.sh"
e2e_init fleet_tls "$1"
command -v certtool > /dev/null ||
	{ echo "SKIP: certtool missing (apt-get install gnutls-bin)"; exit 77; }
sh "$(dirname "$0")/../tls_certs.sh" "$E2E/pki" analyst
P0=$E2E_PORT
P1=$((E2E_PORT + 1))
{
	for c in default east; do
		if [ $c = default ]; then
			printf '[collector]\nname = e2e-fleet_tls-%s\n' $$
			printf 'socket = %s/c0.sock\n' "$E2E"
			p=$P0
		else
			printf '[collector east]\nname = e2e-fleet_tls-%s-east\n' $$
			printf 'socket = %s/c1.sock\n' "$E2E"
			p=$P1
		fi
		printf 'query_listen = 127.0.0.1:%s\nendpoint = 127.0.0.1:%s\n' $p $p
		printf 'tls_cert = %s/pki/server.pem\n' "$E2E"
		printf 'tls_key = %s/pki/server.key\n' "$E2E"
		printf 'tls_ca = %s/pki/ca.pem\n' "$E2E"
	done
	printf '[translator]\nport = %s\nbind = 127.0.0.1\n' "$E2E_PORT"
	printf '[structure paths]\nprimitive = key-write\nslots = 1M\n'
	printf 'data = 20\ncollector = default, east\n'
	printf '[structure events]\nprimitive = append\nlists = 2\nentry = 8\n'
	printf 'batches = 1024\ncollector = default, east\n'
	printf '[structure counters]\nprimitive = key-increment\nwidth = 64K\n'
	printf 'collector = default, east\n'
} > "$E2E/dta.conf"
DTA_TLS_CA=$E2E/pki/ca.pem
DTA_TLS_CERT=$E2E/pki/analyst.pem
DTA_TLS_KEY=$E2E/pki/analyst.key
export DTA_TLS_CA DTA_TLS_CERT DTA_TLS_KEY
e2e_start_pair
e2e_start_translator -q
e2e_gen -t kw -n 4000 -k 2000 -r 50000 -T "$E2E/kw.truth"
e2e_gen -t ap -n 4000 --lists 4 --entry 8 -r 50000 -T "$E2E/ap.truth"
e2e_gen -t ki -n 6000 -k 600 -r 50000 -T "$E2E/ki.truth"
e2e_retry e2e_query verify --truth "$E2E/ap.truth" --min-success 1
e2e_stop_translator
awk '$1 == "kw" { print "0x" $2 }' "$E2E/kw.truth" > "$E2E/kw.keys"

# ask VIA TAG: kw get of every key, ap tail of every list, ki total; the
# outputs and exit statuses in TAG.VIA, stderr in TAG.VIA.err.
ask() {
	set +e
	{
		e2e_query --via "$1" --json --timeout 5000 kw get paths - \
			< "$E2E/kw.keys"
		echo "kw exit $?"
		e2e_query --via "$1" --json --timeout 5000 ap tail events all \
			-n 100000
		echo "ap exit $?"
		e2e_query --via "$1" --json --timeout 5000 ki total counters
		echo "ki exit $?"
	} > "$E2E/$2.$1" 2> "$E2E/$2.$1.err"
	set -e
}

# same TAG: the endpoint answers are the socket ones, byte for byte.
same() {
	ask socket "$1"
	ask endpoint "$1"
	if ! cmp "$E2E/$1.socket" "$E2E/$1.endpoint"; then
		diff "$E2E/$1.socket" "$E2E/$1.endpoint" | head >&2
		cat "$E2E/$1.endpoint.err" >&2
		exit 1
	fi
	echo "ok: $1: endpoint answers = socket answers ($(wc -l < "$E2E/$1.endpoint") lines)"
}

same whole
for q in kw ap ki; do
	grep -q "^$q exit 0\$" "$E2E/whole.endpoint"
done
e2e_expect "keys found over the endpoints" \
	"$(grep -c '"status":"found"' "$E2E/whole.endpoint")" "$(wc -l < "$E2E/kw.keys")"
# The same configuration on a host without the collectors (their
# sockets are not there): config: without ?via= takes the endpoints.
sed "s|^socket = $E2E/|socket = $E2E/elsewhere/|" "$E2E/dta.conf" > "$E2E/far.conf"
set +e
"$QUERY" -c "$E2E/far.conf" --json kw get paths - < "$E2E/kw.keys" > "$E2E/far.out"
echo "kw exit $?" >> "$E2E/far.out"
set -e
head -n "$(wc -l < "$E2E/far.out")" "$E2E/whole.endpoint" | cmp - "$E2E/far.out"
echo "ok: without the sockets, config: reached the endpoints"
# Without a client certificate the collectors refuse it in the handshake:
# an error, not a partial answer.
set +e
env -u DTA_TLS_CERT -u DTA_TLS_KEY "$QUERY" -c "$E2E/dta.conf" --via endpoint \
	ki total counters > /dev/null 2> "$E2E/nocert.err"
rc=$?
set -e
cat "$E2E/nocert.err"
e2e_expect "exit status without a client certificate" $rc 3

set -- $E2E_PIDS
c0=$1
kill -KILL "$2"
wait "$2" 2>/dev/null || true
E2E_PIDS=$c0
same dead
for q in kw ap ki; do
	grep -q "^$q exit 4\$" "$E2E/dead.endpoint"
done
grep -q '"partial":true,"missing":\["east"\]' "$E2E/dead.endpoint"
test "$(grep -c '"status":"unavailable"' "$E2E/dead.endpoint")" -gt 0
grep -q "127.0.0.1:$P1" "$E2E/dead.endpoint.err"

"$COLLECTOR" -c "$E2E/dta.conf" --collector east > "$E2E/c1.log" 2>&1 &
E2E_PIDS="$c0 $!"
e2e_wait_ready "$E2E/c1.log" "collector east"
same back
cmp "$E2E/whole.endpoint" "$E2E/back.endpoint"
e2e_stop_pair
e2e_pass
