#!/bin/sh
# dta-query verify states what eq. 1-8 give for Key-Write and Postcarding
# as an expected value with its standard error ("expected X% ± Y%"), not a
# floor ("bound: >= X%"): with 32-bit checksums measured success lands
# below it about half the time. The standard error is that of a sum of
# independent Bernoulli trials, sqrt(sum p(1-p)) / n, never above the
# binomial one at the mean, sqrt(m(1-m)/n).
. "$(dirname "$0")/lib.sh"
e2e_init verify_expected "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 16384
data = 20
redundancy = 2
EOF
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 30000 -k 30000 -r 250000 -T "$E2E/kw.truth"
sleep 0.2
e2e_query verify --truth "$E2E/kw.truth" > "$E2E/kw.txt"
grep -Eq 'expected [0-9]+\.[0-9]{3}% ± [0-9]+\.[0-9]{3}%' "$E2E/kw.txt" ||
	{ cat "$E2E/kw.txt"; exit 1; }
if grep -q 'bound: >=' "$E2E/kw.txt"; then cat "$E2E/kw.txt"; exit 1; fi
e2e_query --json verify --truth "$E2E/kw.truth" > "$E2E/kw.json"
field() { sed "s/.*\"$1\":\([^,}]*\).*/\1/" "$E2E/kw.json"; }
awk -v n="$(field total)" -v ok="$(field success)" \
    -v m="$(field expected_success)" -v se="$(field expected_stderr)" 'BEGIN {
	if (!(n > 10000 && m > 0.2 && m < 0.95)) { print "load: n " n ", m " m; exit 1 }
	if (!(se > 0 && se <= sqrt(m * (1 - m) / n) * 1.001)) { print "se " se; exit 1 }
	d = ok - m; if (d < 0) d = -d
	if (d > 5 * se) { print "success " ok " is " d / se " standard errors from " m; exit 1 }
}' || { cat "$E2E/kw.json"; exit 1; }
# --max-below-bound D allows 3 standard errors besides D.
e2e_query verify --truth "$E2E/kw.truth" --max-below-bound 0 > /dev/null
e2e_stop_translator
e2e_stop_collector
e2e_pass
