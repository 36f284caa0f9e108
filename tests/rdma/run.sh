#!/bin/sh
# ctest entry for the RDMA tests: runs tests/rdma/e2e_rdma.sh, then
# tests/rdma/collectors_rdma.sh (or, with a second argument "roce", the
# switch path tests/rdma/switch_roce.sh; with "p4", the P4 translator on
# BMv2 into rxe, tests/rdma/p4_roce.sh) inside a
# Soft-RoCE guest (tests/rdma/vm.sh). Exit 77 (skipped) where no guest can
# run: not root and packages missing, or no kernel package available.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [roce]}" && pwd)
bash "$here/vm.sh" --prepare || { echo "SKIP: no guest can run here (vm.sh --prepare said why above)"; exit 77; }
if [ "${2:-}" = roce ]; then
	exec bash "$here/vm.sh" --timeout 600 --mem 768 -- sh "$here/switch_roce.sh" "$build"
fi
if [ "${2:-}" = p4 ]; then
	# BMv2 and p4c run from the host's file system inside the guest.
	PATH=$PATH:/opt/p4/bin
	for p in simple_switch p4c-bm2-ss; do
		command -v $p > /dev/null ||
			{ echo "SKIP: $p not found (BMv2 and p4c, on PATH or in /opt/p4/bin; translator-p4/README.md)"; exit 77; }
	done
	# Compiled here: p4c under software emulation would be slow.
	p4c-bm2-ss --std p4-16 -o "$build/dta_translator.json" \
		"$here/../../translator-p4/v1model/dta_translator.p4"
	exec bash "$here/vm.sh" --timeout 900 --mem 1024 -- sh "$here/p4_roce.sh" "$build"
fi
# 900 s, or 40 boots if more: the guest's work took 181 to 217 s unloaded
# with a bare guest run of 9 to 20 s (ratio 10 to 22), and 734 s beside
# stress-ng --cpu 4, 82% of a fixed 900 s (docs/rdma.md).
exec bash "$here/vm.sh" --timeout 900 --per-boot 40 --mem 768 -- sh -c \
	'sh "$1/e2e_rdma.sh" "$2" && sh "$1/collectors_rdma.sh" "$2"' sh "$here" "$build"
