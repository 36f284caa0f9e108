#!/bin/sh
# TLS certificates for the remote-query tests, made with certtool
# (gnutls-bin) into DIR, keys mode 0600, certificates 0644:
#   ca.pem/.key          the CA that signs everything below but rogue
#   server.pem/.key      CN collector, names localhost and 127.0.0.1,
#                        TLS server purpose
#   wrongname.pem/.key   the CA's, names wrong.example and 127.0.0.2 only
#   rogue-ca.pem/.key    another CA, and rogue.pem/.key: CN analyst, its
#   NAME.pem/.key        a TLS client certificate of the CA for each
#                        NAME[=CN] argument (CN default NAME)
# Usage: tls_certs.sh DIR [NAME[=CN]]..   Valid two days.
set -eu
d=$1
shift
mkdir -p "$d"
umask 077
cd "$d"
key() { certtool --generate-privkey --key-type=ecdsa --outfile "$1.key" 2>/dev/null; }
ca() { # NAME CN
	key "$1"
	printf 'cn = "%s"\nca\ncert_signing_key\nexpiration_days = 2\n' "$2" > "$1.tmpl"
	certtool --generate-self-signed --load-privkey "$1.key" \
		--template "$1.tmpl" --outfile "$1.pem" 2>/dev/null
}
leaf() { # NAME CA TEMPLATE-LINES
	key "$1"
	printf '%s\nexpiration_days = 2\nsigning_key\n' "$3" > "$1.tmpl"
	certtool --generate-certificate --load-privkey "$1.key" \
		--load-ca-certificate "$2.pem" --load-ca-privkey "$2.key" \
		--template "$1.tmpl" --outfile "$1.pem" 2>/dev/null
}
ca ca "dta test CA"
ca rogue-ca "dta rogue CA"
leaf server ca 'cn = "collector"
dns_name = "localhost"
ip_address = "127.0.0.1"
tls_www_server'
leaf wrongname ca 'cn = "collector"
dns_name = "wrong.example"
ip_address = "127.0.0.2"
tls_www_server'
leaf rogue rogue-ca 'cn = "analyst"
tls_www_client'
for a in "$@"; do
	name=${a%%=*}
	cn=${a#*=}
	leaf "$name" ca "cn = \"$cn\"
tls_www_client"
done
rm -f ./*.tmpl
chmod 644 ./*.pem
