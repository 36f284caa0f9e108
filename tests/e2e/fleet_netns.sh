#!/bin/sh
# Two "hosts": each collector in a network namespace of its own, reached
# over a veth pair from this namespace (the querying "third host") at the
# endpoint the shared configuration gives, over TLS with certificates for
# those addresses made here. Whole answers equal the Unix sockets'; when
# host B's link goes down (its packets vanish: no reset, no refusal) the
# client's timeout bounds the wait and the answer is partial; link up
# again, whole again. Needs root (namespaces, veth); skips otherwise.
. "$(dirname "$0")/lib.sh"
e2e_init fleet_netns "$1"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
command -v ip > /dev/null || { echo "SKIP: ip missing (apt-get install iproute2)"; exit 77; }
command -v certtool > /dev/null ||
	{ echo "SKIP: certtool missing (apt-get install gnutls-bin)"; exit 77; }
NA=dtaA-$$
NB=dtaB-$$
VA=dfa$$
VB=dfb$$
n=$(($$ % 250 + 1))
A=198.18.$n.2
B=198.18.$n.6
netns_cleanup() {
	ip netns del "$NA" 2>/dev/null || true
	ip netns del "$NB" 2>/dev/null || true
	ip link del "$VA" 2>/dev/null || true
	ip link del "$VB" 2>/dev/null || true
}
# e2e_cleanup exits with the status it finds: keep the test's.
trap 'rc=$?; set +e; netns_cleanup; (exit $rc); e2e_cleanup' EXIT INT TERM
ip netns add "$NA" 2>/dev/null || { echo "SKIP: cannot create network namespaces here"; exit 77; }
ip netns add "$NB"
ip link add "$VA" type veth peer name veth0 netns "$NA"
ip link add "$VB" type veth peer name veth0 netns "$NB"
ip addr add "198.18.$n.1/30" dev "$VA"
ip addr add "198.18.$n.5/30" dev "$VB"
ip link set "$VA" up
ip link set "$VB" up
ip -n "$NA" addr add "$A/30" dev veth0
ip -n "$NB" addr add "$B/30" dev veth0
for ns in "$NA" "$NB"; do
	ip -n "$ns" link set veth0 up
	ip -n "$ns" link set lo up
done

# Certificates: the test CA, a client certificate, and one server
# certificate per host naming its address.
sh "$(dirname "$0")/../tls_certs.sh" "$E2E/pki" analyst
for h in A B; do
	eval ip_=\$$h
	(umask 077
	 certtool --generate-privkey --key-type=ecdsa --outfile "$E2E/pki/$h.key" 2>/dev/null)
	printf 'cn = "collector %s"\nip_address = "%s"\ntls_www_server\nsigning_key\nexpiration_days = 2\n' \
		"$h" "$ip_" > "$E2E/pki/$h.tmpl"
	certtool --generate-certificate --load-privkey "$E2E/pki/$h.key" \
		--load-ca-certificate "$E2E/pki/ca.pem" \
		--load-ca-privkey "$E2E/pki/ca.key" --template "$E2E/pki/$h.tmpl" \
		--outfile "$E2E/pki/$h.pem" 2>/dev/null
done
{
	printf '[collector]\nname = e2e-fleet_netns-%s\nsocket = %s/c0.sock\n' $$ "$E2E"
	printf 'query_listen = %s:7300\nendpoint = %s:7300\n' "$A" "$A"
	printf 'tls_cert = %s/pki/A.pem\ntls_key = %s/pki/A.key\n' "$E2E" "$E2E"
	printf 'tls_ca = %s/pki/ca.pem\n' "$E2E"
	printf '[collector east]\nname = e2e-fleet_netns-%s-east\nsocket = %s/c1.sock\n' $$ "$E2E"
	printf 'query_listen = %s:7300\nendpoint = %s:7300\n' "$B" "$B"
	printf 'tls_cert = %s/pki/B.pem\ntls_key = %s/pki/B.key\n' "$E2E" "$E2E"
	printf 'tls_ca = %s/pki/ca.pem\n' "$E2E"
	e2e_fleet_structures
} > "$E2E/dta.conf"
e2e_tls_client "$E2E/pki" analyst

# Each collector on its host ("ip netns exec" execs it: $! is its pid).
ip netns exec "$NA" "$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/c0.log" 2>&1 &
E2E_PIDS=$!
ip netns exec "$NB" "$COLLECTOR" -c "$E2E/dta.conf" --collector east > "$E2E/c1.log" 2>&1 &
E2E_PIDS="$E2E_PIDS $!"
e2e_wait_ready "$E2E/c0.log" "collector on host A"
e2e_wait_ready "$E2E/c1.log" "collector on host B"
# One translator writes both collectors' shared memory (shared between
# the namespaces: only the network is separate).
e2e_fleet_load

ask() { e2e_fleet_ask "$1" "$2" 3000; }

ask socket whole
ask endpoint whole
cmp "$E2E/whole.socket" "$E2E/whole.endpoint"
for q in kw ap ki; do
	grep -q "^$q exit 0\$" "$E2E/whole.endpoint"
done
echo "ok: from the third host over $A and $B: the sockets' answers"

# Host B's link goes down: what is sent to it vanishes.
ip -n "$NB" link set veth0 down
ask endpoint gone
for q in kw ap ki; do
	grep -q "^$q exit 4\$" "$E2E/gone.endpoint"
done
grep -q '"partial":true,"missing":\["east"\]' "$E2E/gone.endpoint"
test "$(grep -c '"status":"unavailable"' "$E2E/gone.endpoint")" -gt 0
# What host A holds is what it held.
grep '"status":"found"' "$E2E/gone.endpoint" > "$E2E/gone.found"
grep -F -x -f "$E2E/gone.found" "$E2E/whole.endpoint" | cmp - "$E2E/gone.found"
cat "$E2E/gone.endpoint.err"
echo "ok: host B unreachable: partial answers, host A's exact"

ip -n "$NB" link set veth0 up
e2e_retry sh -c "\"$QUERY\" -c \"$E2E/dta.conf\" --via endpoint --timeout 3000 ki total counters > /dev/null"
ask endpoint back
cmp "$E2E/whole.endpoint" "$E2E/back.endpoint"
echo "ok: host B back: whole answers again"
set -- $E2E_PIDS
E2E_PIDS=
e2e_term "$1" "collector on host A"
e2e_term "$2" "collector on host B"
e2e_pass
