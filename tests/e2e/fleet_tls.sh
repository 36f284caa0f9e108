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
P0=$E2E_TCP0
P1=$E2E_TCP1
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
	e2e_fleet_structures
} > "$E2E/dta.conf"
e2e_tls_client "$E2E/pki" analyst
e2e_start_pair
e2e_fleet_load

ask() { e2e_fleet_ask "$1" "$2" 5000; }

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

e2e_kill_east
same dead
for q in kw ap ki; do
	grep -q "^$q exit 4\$" "$E2E/dead.endpoint"
done
grep -q '"partial":true,"missing":\["east"\]' "$E2E/dead.endpoint"
test "$(grep -c '"status":"unavailable"' "$E2E/dead.endpoint")" -gt 0
grep -q "127.0.0.1:$P1" "$E2E/dead.endpoint.err"

e2e_restart_east
same back
cmp "$E2E/whole.endpoint" "$E2E/back.endpoint"
e2e_stop_pair
e2e_pass
