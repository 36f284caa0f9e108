#!/bin/sh
# ctest p4_bmv2 (label p4): compile translator-p4/v1model/dta_translator.p4
# with p4c-bm2-ss, run it on BMv2's simple_switch with pcap files as ports,
# program it with translator-p4/control/dta_p4_control.py, feed it the DTA
# reports of p4_vectors (libdta's C reference model) and require the RoCEv2
# frames it sends to equal the model's, byte for byte, ICRC included.
# Skipped (exit 77) where p4c or BMv2 are not installed: README, "P4".
set -eu
build=$(cd "${1:?usage: run_bmv2.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/opt/p4/bin:/usr/local/bin
for t in p4c-bm2-ss simple_switch simple_switch_CLI; do
	if ! command -v $t > /dev/null; then
		echo "$t is not installed: P4 packet tests skipped (see README, P4)"
		exit 77
	fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dta-p4.XXXXXX")
ss=
cleanup() {
	rc=$?
	[ -n "$ss" ] && kill "$ss" 2> /dev/null || true
	wait 2> /dev/null || true
	[ $rc -ne 0 ] && [ -f "$work/ss.log" ] && tail -n 40 "$work/ss.log"
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT INT TERM

p4c-bm2-ss --std p4-16 -o "$work/dta.json" "$top/translator-p4/v1model/dta_translator.p4"
"$build/tests/p4_vectors" "$work"
cd "$work"
mv in.pcap p0_in.pcap
# p1 (towards the collector) receives nothing: an empty capture.
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' > p1_in.pcap
port=$((9090 + $$ % 1000))
simple_switch --use-files 4 -i 0@p0 -i 1@p1 --thrift-port $port \
	--log-console dta.json > ss.log 2>&1 &
ss=$!
i=0
until simple_switch_CLI --thrift-port $port < /dev/null > /dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 40 ] || { echo "simple_switch did not start"; exit 1; }
	sleep 0.1
done
/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc desc.json --bmv2-json dta.json --port 1 --mac 02:00:00:00:00:01 > cmds.txt
simple_switch_CLI --thrift-port $port --json dta.json < cmds.txt > cli.log 2>&1
if grep -qi "error\|invalid" cli.log; then
	cat cli.log
	exit 1
fi
want=$(/usr/bin/python3 "$here/pcap_compare.py" --count expected.pcap)
i=0
while [ $i -lt 100 ]; do
	[ -f p1_out.pcap ] && [ "$(/usr/bin/python3 "$here/pcap_compare.py" --count p1_out.pcap)" -ge "$want" ] && break
	i=$((i + 1))
	sleep 0.2
done
sleep 0.5
kill $ss
wait $ss 2> /dev/null || true
ss=
/usr/bin/python3 "$here/pcap_compare.py" expected.pcap p1_out.pcap
