#!/bin/sh
# ctest p4_bmv2 (label p4): compile translator-p4/v1model/dta_translator.p4
# with p4c-bm2-ss, run it on BMv2's simple_switch with pcap files as ports,
# program it with translator-p4/control/dta_p4_control.py, feed it the DTA
# reports of translator-p4/tests/vectors (made by p4_vectors with libdta's
# C reference model) and require the RoCEv2 frames it sends to equal the
# model's, byte for byte, ICRC included.
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
# simple_switch_CLI runs on Debian's Python, which has python3-thrift
# (another python3 first on the PATH may not).
CLI=$(command -v simple_switch_CLI)
[ -x /usr/bin/python3 ] && CLI="/usr/bin/python3 $CLI"
work=$(mktemp -d "${TMPDIR:-/tmp}/dta-p4.XXXXXX")
ss=
coll=
cleanup() {
	rc=$?
	[ -n "$ss" ] && kill "$ss" 2> /dev/null || true
	[ -n "$coll" ] && kill "$coll" 2> /dev/null || true
	wait 2> /dev/null || true
	[ $rc -ne 0 ] && [ -f "$work/ss.log" ] && tail -n 40 "$work/ss.log"
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT INT TERM

p4c-bm2-ss --std p4-16 -o "$work/dta.json" "$top/translator-p4/v1model/dta_translator.p4"
# The checked-in vectors (p4_vectors_in_sync keeps them equal to what
# libdta's model makes now).
cp "$here/vectors/in.pcap" "$here/vectors/expected.pcap" "$here/vectors/desc.json" "$work/"
cd "$work"
mv in.pcap p0_in.pcap
# p1 (towards the collector) receives nothing: an empty capture.
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' > p1_in.pcap
port=$((9090 + $$ % 1000))
# run_switch JSON CMDS OUT WANT PORT...: simple_switch on pcap files
# pK_in.pcap -> pK_out.pcap, programmed with CMDS, until port OUT has sent
# WANT frames (or 20 s).
run_switch() {
	json=$1 cmds=$2 out=$3 want=$4
	shift 4
	ifs=
	for p in "$@"; do
		ifs="$ifs -i $p@p$p"
		[ -f "p${p}_in.pcap" ] || cp empty.pcap "p${p}_in.pcap"
	done
	rm -f p*_out.pcap
	simple_switch --use-files 6 $ifs --thrift-port $port --log-console \
		"$json" > ss.log 2>&1 &
	ss=$!
	i=0
	until $CLI --thrift-port $port < /dev/null > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 40 ] || { echo "simple_switch did not start"; exit 1; }
		sleep 0.1
	done
	$CLI --thrift-port $port --json "$json" < "$cmds" > cli.log 2>&1
	if grep -qi "error\|invalid" cli.log; then
		cat cli.log
		exit 1
	fi
	i=0
	while [ $i -lt 100 ]; do
		[ -f "p${out}_out.pcap" ] &&
			[ "$(/usr/bin/python3 "$here/pcap_compare.py" --count "p${out}_out.pcap")" -ge "$want" ] &&
			break
		i=$((i + 1))
		sleep 0.2
	done
	sleep 0.5
	kill $ss
	wait $ss 2> /dev/null || true
	ss=
}
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' > empty.pcap

# 1. The translator against the C reference model.
/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc desc.json --bmv2-json dta.json --port 1 --mac 02:00:00:00:00:01 \
	--pc-timeout-us 0 --ap-timeout-us 0 > cmds.txt
run_switch dta.json cmds.txt 1 "$(/usr/bin/python3 "$here/pcap_compare.py" --count expected.pcap)" 0 1
/usr/bin/python3 "$here/pcap_compare.py" expected.pcap p1_out.pcap
echo "ok: BMv2 sent the reference model's frames"

# 1b. Postcarding of the prototype hash family (values unencoded, zeros
# past the path): its own vectors, one structure.
mkdir proto
cp "$here/vectors/proto/in.pcap" proto/p0_in.pcap
cp "$here/vectors/proto/expected.pcap" "$here/vectors/proto/desc.json" proto/
cp empty.pcap proto/p1_in.pcap
cp dta.json empty.pcap proto/
cd proto
/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc desc.json --bmv2-json dta.json --port 1 --mac 02:00:00:00:00:01 \
	--pc-timeout-us 0 > cmds.txt
run_switch dta.json cmds.txt 1 "$(/usr/bin/python3 "$here/pcap_compare.py" --count expected.pcap)" 0 1
/usr/bin/python3 "$here/pcap_compare.py" expected.pcap p1_out.pcap
cd ..
echo "ok: and for the prototype family's postcards"

# 2. The reporter examples: TCP packets in, DTA reports out (port 2, a
# mirror session), read by dta-translator and queried back.
/usr/bin/python3 "$here/mkflows.py" flows.pcap
cat > dta.conf <<EOF2
[collector]
name = p4test-$$
socket = $work/collector.sock
[translator]
port = 40040
pc_timeout_ms = 1000
[structure postcards]
primitive = postcard
chunks = 4K
values = 1-80
[structure counters]
primitive = key-increment
width = 4K
EOF2
"$build/collector/dta-collector" -c dta.conf > collector.log 2>&1 &
coll=$!
i=0
until grep -q '^ready' collector.log; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat collector.log; exit 1; }
	sleep 0.05
done
flow="10.0.0.1:1234->10.0.0.2:80/tcp"
for ex in int_postcard_reporter marple_loss_reporter; do
	p4c-bm2-ss --std p4-16 -o $ex.json "$top/translator-p4/examples/$ex.p4"
	cp flows.pcap p0_in.pcap
	case $ex in
	int_postcard_reporter)
		echo "table_set_default int_config set_int 0 1 7 168364297 167772260 3" > ex.txt
		want=5 ;;
	*)
		echo "table_set_default loss_config set_loss 168364297 167772260 4 2" > ex.txt
		want=1 ;;
	esac
	echo "mirroring_add 1 2" >> ex.txt
	run_switch $ex.json ex.txt 2 $want 0 1 2
	got=$(/usr/bin/python3 "$here/pcap_compare.py" --count p2_out.pcap)
	[ "$got" = $want ] || { echo "$ex: $got reports, want $want"; exit 1; }
	/usr/bin/python3 "$here/pcap_compare.py" --ethernet p2_out.pcap
	"$build/translator/dta-translator" -c dta.conf -q -r p2_out.pcap > tr.json
	grep -q '"malformed":0,' tr.json || { cat tr.json; exit 1; }
done
"$build/query/dta-query" -c dta.conf pc path postcards "$flow" | tee q.txt
grep -q '^found: 7 ' q.txt
test "$("$build/query/dta-query" -c dta.conf ki get counters "$flow")" = 1
test "$("$build/query/dta-query" -c dta.conf ki get counters "10.0.0.3:5555->10.0.0.2:80/tcp")" = 0
kill $coll
wait $coll 2> /dev/null || true
coll=
echo "ok: the INT postcard and Marple loss reporters' reports decode and land"
