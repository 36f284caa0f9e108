#!/bin/sh
# The NATS JetStream sink over TLS with a client certificate, against a
# real nats-server (JetStream, one server: the stream gets 1 replica)
# that requires and verifies client certificates; certificates made by
# the test with certtool. Rows go through and are read back exactly once;
# a sink without a client certificate, and one that does not trust the
# server's CA, store nothing and say why (docs/export.md "NATS JetStream").
. "$(dirname "$0")/lib.sh"
e2e_init nats_tls "$1"
. "$(dirname "$0")/nats.inc"
nats_need
command -v certtool > /dev/null || { echo "SKIP: certtool missing (apt-get install gnutls-bin)"; exit 77; }

N=3000
STREAM=DTATLS
PREFIX=dta.tls
PORT=$(nats_free_ports 1)
C=$E2E/certs
mkdir -m 700 "$C" "$E2E/js"
cert() { # NAME TEMPLATE-LINES...: a key and a certificate signed by $2 (ca: self-signed)
	name=$1 signer=$2
	shift 2
	printf '%s\n' "$@" 'expiration_days = 2' > "$C/$name.tmpl"
	certtool --generate-privkey --key-type ecdsa --outfile "$C/$name.key" 2>/dev/null
	if [ "$signer" = self ]; then
		certtool --generate-self-signed --load-privkey "$C/$name.key" \
			--template "$C/$name.tmpl" --outfile "$C/$name.pem" 2>/dev/null
	else
		certtool --generate-certificate --load-privkey "$C/$name.key" \
			--load-ca-certificate "$C/$signer.pem" --load-ca-privkey "$C/$signer.key" \
			--template "$C/$name.tmpl" --outfile "$C/$name.pem" 2>/dev/null
	fi
}
cert ca self 'cn = "dta test CA"' ca cert_signing_key
cert other self 'cn = "another CA"' ca cert_signing_key
cert srv ca 'cn = "nats"' 'ip_address = "127.0.0.1"' 'dns_name = "localhost"' \
	tls_www_server encryption_key signing_key
cert cli ca 'cn = "dta-export"' tls_www_client encryption_key signing_key

cat > "$E2E/n.conf" <<EOF2
server_name: tls1
listen: 127.0.0.1:$PORT
jetstream { store_dir: "$E2E/js" }
tls {
	cert_file: "$C/srv.pem"
	key_file: "$C/srv.key"
	ca_file: "$C/ca.pem"
	verify: true
}
EOF2
"$NATS" -c "$E2E/n.conf" > "$E2E/n.log" 2>&1 &
pid=$!
E2E_PIDS="$E2E_PIDS $pid"
until grep -q "Server is ready" "$E2E/n.log"; do
	kill -0 $pid 2>/dev/null || { echo "FAIL: nats-server exited"; exit 1; }
	sleep 0.1
done

conf() { # FILE EXTRA-LINES...
	f=$1
	shift
	printf '%s\n' "[export]" "nats_url = tls://127.0.0.1:$PORT" "nats_stream = $STREAM" \
		"nats_subject = $PREFIX" "$@" > "$f"
}
# Refused: no client certificate; a CA that did not sign the server's.
conf "$E2E/nocert.conf" "tls_ca = $C/ca.pem"
conf "$E2E/badca.conf" "tls_ca = $C/other.pem" "tls_cert = $C/cli.pem" "tls_key = $C/cli.key"
for bad in nocert badca; do
	if NATS_PROBE_TRIES=20 "$PROBE" publish "$E2E/$bad.conf" 10 10 > "$E2E/$bad.out" 2> "$E2E/$bad.log"; then
		cat "$E2E/$bad.log"
		echo "FAIL: $bad: rows accepted"
		exit 1
	fi
	grep -q "rows 0 batches 0 " "$E2E/$bad.out" || { cat "$E2E/$bad.out"; echo "FAIL: $bad: counters"; exit 1; }
	grep -q "not connected" "$E2E/$bad.log" || { cat "$E2E/$bad.log"; echo "FAIL: $bad: no reason given"; exit 1; }
	echo "$bad: refused: $(sed -n 1p "$E2E/$bad.log"); $(cat "$E2E/$bad.out")"
done

conf "$E2E/dta.conf" "tls_ca = $C/ca.pem" "tls_cert = $C/cli.pem" "tls_key = $C/cli.key"
"$PROBE" publish "$E2E/dta.conf" $N 250 > "$E2E/publish.out" 2> "$E2E/publish.log" ||
	{ cat "$E2E/publish.log"; echo "FAIL: publishing over TLS"; exit 1; }
echo "sink: $(cat "$E2E/publish.out")"
# The checker reads over TLS too, with the same certificates.
NATS_PROBE_CA=$C/ca.pem NATS_PROBE_CERT=$C/cli.pem NATS_PROBE_KEY=$C/cli.key \
	"$PROBE" check "tls://127.0.0.1:$PORT" $STREAM $PREFIX $N > "$E2E/check.out" 2> "$E2E/check.log" ||
	{ cat "$E2E/check.out" "$E2E/check.log"; echo "FAIL: the stream does not hold every row once"; exit 1; }
echo "stream: $(cat "$E2E/check.out")"
grep -q " replicas 1$" "$E2E/check.out" || { echo "FAIL: a single server's stream should have 1 replica"; exit 1; }

# The stream exists without the subjects of another prefix: the sink adds
# them (its publishes expect this stream, and a subject no stream takes
# gets no ack). The rows have the ids of rows 0..49 stored already, and
# ids are unique per stream, not per subject: JetStream drops all 50.
conf "$E2E/more.conf" "tls_ca = $C/ca.pem" "tls_cert = $C/cli.pem" "tls_key = $C/cli.key"
sed -i "s/^nats_subject = .*/nats_subject = dta.more/" "$E2E/more.conf"
NATS_PROBE_TRIES=100 "$PROBE" publish "$E2E/more.conf" 50 50 > "$E2E/more.out" 2> "$E2E/more.log" ||
	{ cat "$E2E/more.log"; echo "FAIL: publishing under a second prefix"; exit 1; }
grep -q "acked 50 duplicates 50 " "$E2E/more.out" || { cat "$E2E/more.out"; echo "FAIL: second prefix"; exit 1; }
got=$(NATS_PROBE_CA=$C/ca.pem NATS_PROBE_CERT=$C/cli.pem NATS_PROBE_KEY=$C/cli.key \
	"$PROBE" count "tls://127.0.0.1:$PORT" $STREAM)
[ "$got" = $N ] || { echo "FAIL: stream holds $got messages, want $N"; exit 1; }
echo "second prefix: subject added to the stream, $(cat "$E2E/more.out")"
e2e_pass
