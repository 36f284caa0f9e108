#!/bin/sh
# run_tna_model.sh BUILD_DIR: ctest p4_tna_model (label p4). The Tofino
# translator (translator-p4/tna) on Intel's open Tofino model: compile it
# for Tofino-1, start tofino-model and bf_switchd with it in a network
# namespace of their own, configure it with the control plane through BF
# Runtime (dta_p4_control.py --bfrt), feed it the DTA reports of
# translator-p4/tests/vectors/tna one at a time on a veth into device port
# 0 and require the RoCEv2 frames it sends on device port 1 to equal
# libdta's reference frames byte for byte, ICRC included.
#
# Needs (skipped with 77 otherwise; translator-p4/README.md, "Tofino
# model"): root (a network namespace, veths, huge pages), the open SDE's
# tofino-model, bf_switchd and bfrt_grpc under SDE_INSTALL (default
# /opt/bf-sde/install), and p4c-barefoot and bfas on the PATH (or in
# /opt/p4/bin or SDE_INSTALL/bin; TNA_P4INCLUDE as for run_tna.sh).
# bf_switchd's DMA pools want 196 huge pages of 2 MiB; when fewer are
# reserved, the test reserves them and gives them back at the end. Takes 5 to 10 minutes, most of it compiling.
set -eu
build=$(cd "${1:?usage: run_tna_model.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
sde=${SDE_INSTALL:-/opt/bf-sde/install}
PATH=$PATH:/opt/p4/bin:$sde/bin
skip() {
	echo "$*: Tofino model test skipped (see translator-p4/README.md, \"Tofino model\")"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root (it needs a network namespace, veths and huge pages)"
for t in tofino-model bf_switchd; do
	[ -x "$sde/bin/$t" ] || skip "no $sde/bin/$t (SDE_INSTALL)"
done
command -v p4c-barefoot > /dev/null || skip "p4c-barefoot is not installed"
command -v unshare > /dev/null || skip "no unshare"
pysite=$(echo "$sde"/lib/python3*/site-packages)
export PYTHONPATH="$pysite/tofino:$pysite${PYTHONPATH:+:$PYTHONPATH}"
/usr/bin/python3 -c 'import bfrt_grpc.client' 2> /dev/null ||
	skip "bfrt_grpc does not import from $pysite/tofino"
bin=$(dirname "$(command -v p4c-barefoot)")
inc=${TNA_P4INCLUDE:-$bin/../share/p4c-tofino/p4include}
incs=
for d in $(echo "$inc" | tr ':' ' '); do
	incs="$incs -I $d"
done
bfas=${BFAS:-$(command -v bfas || echo "$bin/bfas")}
[ -x "$bfas" ] || skip "bfas is not installed"

work=$(mktemp -d "${TMPDIR:-/tmp}/dta-tnamodel.XXXXXX")
hp_file=/proc/sys/vm/nr_hugepages
hp_old=$(cat $hp_file)
cleanup() {
	rc=$?
	if [ "$(cat $hp_file)" != "$hp_old" ]; then
		echo "$hp_old" > $hp_file || true
	fi
	if [ $rc -ne 0 ]; then
		for f in model.out switchd.out control.out; do
			[ -f "$work/$f" ] || continue
			echo "== $f (last 30 lines)"
			tail -n 30 "$work/$f"
		done
	fi
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT INT TERM

vec=$here/vectors/tna
# 1. Compile: the collector's CRC roles and Append batch (--tna-defines),
# and the 1024-entry Postcarding cache the vectors' collisions are made
# for (p4_vectors.c, PC_CACHE).
defs=$(/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc "$vec/desc.json" --tna-defines)
echo "== p4c-barefoot --target tofino --arch tna -DPC_CACHE_BITS=10 $defs"
# shellcheck disable=SC2086
if ! p4c-barefoot --target tofino --arch tna -g $incs -D__TARGET_TOFINO__=1 \
	-DPC_CACHE_BITS=10 $defs --bf-rt-schema "$work/p4/bf-rt.json" \
	-o "$work/p4" "$top/translator-p4/tna/dta_translator.p4" > "$work/p4c.log" 2>&1; then
	tail -n 30 "$work/p4c.log"
	echo "does not compile"
	exit 1
fi
mkdir -p "$work/p4/pipe/bin"
if ! (cd "$work/p4/pipe" && "$bfas" dta_translator.bfa -o bin > bfas.log 2>&1) ||
   ! [ -s "$work/p4/pipe/bin/tofino.bin" ]; then
	grep -v warning "$work/p4/pipe/bfas.log" | head -n 20
	echo "bfas does not assemble it"
	exit 1
fi
# bfas writes the context (the driver's description of the program) beside
# the binary; an older compiler writes it into pipe/.
ctx=$work/p4/pipe/bin/context.json
[ -f "$ctx" ] || ctx=$work/p4/pipe/context.json
# The control plane writes nothing the program does not have (and that
# check catches what it must).
/usr/bin/python3 "$here/test_control.py" "$top" "$work/p4/bf-rt.json" > "$work/control-check.out" ||
	{ cat "$work/control-check.out"; exit 1; }
cat > "$work/dta.conf" << EOF
{
    "chip_list": [{"chip_family": "tofino", "instance": 0,
        "pcie_sysfs_prefix": "/sys/devices/pci0000:00/0000:00:03.0/0000:05:00.0",
        "sds_fw_path": "share/tofino_sds_fw/avago/firmware"}],
    "instance": 0,
    "p4_devices": [{"device-id": 0, "p4_programs": [{
        "program-name": "dta_translator",
        "bfrt-config": "$work/p4/bf-rt.json",
        "p4_pipelines": [{"p4_pipeline_name": "pipe",
            "context": "$ctx",
            "config": "$work/p4/pipe/bin/tofino.bin",
            "pipe_scope": [0, 1, 2, 3],
            "path": "$work/p4"}]}]}]
}
EOF
cat > "$work/ports.json" << EOF
{"PortToIf": [{"device_port": 0, "if": "veth0"}, {"device_port": 1, "if": "veth2"}]}
EOF

# 2. Huge pages for bf_switchd's DMA pools (given back at exit).
if [ "$(cat $hp_file)" -lt 196 ]; then
	echo 196 > $hp_file
	[ "$(cat $hp_file)" -ge 196 ] || { echo "cannot reserve 196 huge pages"; exit 1; }
fi

# 3. In a network namespace of its own (the model and BF Runtime listen
# on every address): veth0/veth2 are the switch's ports 0 and 1, the test
# sends on veth1 and listens on veth3.
cat > "$work/inner.sh" << 'EOF'
set -eu
cd "$work"
ip link set lo up
ip link add veth0 type veth peer name veth1
ip link add veth2 type veth peer name veth3
for i in 0 1 2 3; do
	sysctl -qw net.ipv6.conf.veth$i.disable_ipv6=1
	ip link set veth$i mtu 9000 up
done
export LD_LIBRARY_PATH=$sde/lib
"$sde/bin/tofino-model" --chip-type 1 -f ports.json --no-cli \
	--p4-target-config dta.conf \
	--log-dir "$work" > model.out 2>&1 &
model=$!
"$sde/bin/bf_switchd" --install-dir "$sde" --conf-file dta.conf \
	--background > switchd.out 2>&1 &
switchd=$!
stop() {
	kill -9 $switchd $model 2> /dev/null || true
	wait 2> /dev/null || true
}
trap stop EXIT
# BF Runtime answers once the program is loaded (a minute or two).
i=0
until /usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 50052), 1)' 2> /dev/null; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "bf_switchd's BF Runtime server did not start"; exit 1; }
	kill -0 $switchd 2> /dev/null || { echo "bf_switchd exited"; exit 1; }
	sleep 1
done
/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc "$vec/desc.json" --bfrt 127.0.0.1:50052 --port 1 \
	--mac 02:00:00:00:00:01 --pc-timeout-us 0 --ap-timeout-us 0 \
	> control.out 2>&1 || { cat control.out; exit 1; }
/usr/bin/python3 "$here/tna_feed.py" "$vec/in.pcap" "$vec/expected.pcap" \
	veth1 veth3 got.pcap || true
/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--bfrt 127.0.0.1:50052 --bfrt-counters > counters.json
cat counters.json
/usr/bin/python3 "$here/pcap_compare.py" "$vec/expected.pcap" got.pcap
# Every frame the switch took is counted once: a report or flush under
# its outcome, a RoCE reply (the PSN NAK) under its AETH class.
n=$(/usr/bin/python3 "$here/pcap_compare.py" --count "$vec/in.pcap")
sum=$(/usr/bin/python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(sum(c["reports"]) + sum(c["replies"]))' counters.json)
[ "$sum" = "$n" ] || { echo "counted $sum frames, $n sent"; exit 1; }
echo "ok: $n frames sent, $sum counted"
EOF
export work sde top here vec
unshare --net sh "$work/inner.sh"
echo "ok: the Tofino model sent the reference model's frames"
