#!/bin/sh
# run_tna.sh [--all]: compile translator-p4/tna/dta_translator.p4 for
# Tofino-1 with the open-source p4c Tofino back end (p4c-barefoot) and
# assemble it with its assembler (bfas), with the control plane's
# --tna-defines for the packet-test collector (tests/vectors/desc.json:
# Append batches of 4); with --all also with batches of 2, and of 8 with
# 4096 Append lists, which fit too, and of 16 for the figures only (it
# does not compile: README, "Tofino"). Prints the
# stages, SRAM blocks, crossbar bytes, tables, stateful ALUs and hash bits
# each build uses (tna_resources.py). Exit 1 when a build does not
# compile, needs more stages than the chip has, or does not assemble; 77
# where p4c-barefoot is not installed (README, "Tofino"). A build takes
# 2 to 5 minutes.
#
# TNA_P4INCLUDE: directories holding core.p4 and tna.p4 (colon-separated;
# default: share/p4c-tofino/p4include beside the compiler's bin).
# BFAS: the assembler (default: bfas on the PATH or beside p4c-barefoot);
# without one, only the stage count is checked, and the script says so.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/opt/p4/bin
if ! command -v p4c-barefoot > /dev/null; then
	echo "p4c-barefoot is not installed: Tofino compile test skipped (see README, Tofino)"
	exit 77
fi
bin=$(dirname "$(command -v p4c-barefoot)")
inc=${TNA_P4INCLUDE:-$bin/../share/p4c-tofino/p4include}
incs=
for d in $(echo "$inc" | tr ':' ' '); do
	incs="$incs -I $d"
done
bfas=${BFAS:-$(command -v bfas || true)}
if [ -z "$bfas" ] && [ -x "$bin/bfas" ]; then
	bfas=$bin/bfas
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dta-tna.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# compile NAME DEFINES...: 0 when it fits (and assembles)
compile() {
	name=$1
	shift
	echo "== $name: p4c-barefoot --target tofino --arch tna -g $*"
	# shellcheck disable=SC2086
	if ! p4c-barefoot --target tofino --arch tna -g $incs -D__TARGET_TOFINO__=1 \
		"$@" -o "$work/$name" "$top/translator-p4/tna/dta_translator.p4" \
		> "$work/$name.log" 2>&1; then
		grep -i -B2 -A12 "error" "$work/$name.log" | head -n 40
		echo "$name: does not compile for Tofino-1"
		return 1
	fi
	if ! /usr/bin/python3 "$here/tna_resources.py" "$work/$name/pipe/logs/resources.json"; then
		echo "$name: compiles, but does not fit Tofino-1's stages"
		return 1
	fi
	if [ -z "$bfas" ]; then
		echo "$name: bfas not found (BFAS=...): not assembled"
		return 0
	fi
	mkdir -p "$work/$name/bin/logs"
	if ! (cd "$work/$name" && "$bfas" pipe/dta_translator.bfa -o bin > bfas.log 2>&1) ||
	   ! [ -s "$work/$name/bin/tofino.bin" ]; then
		grep -v "warning" "$work/$name/bfas.log" | head -n 20
		echo "$name: bfas does not assemble it"
		return 1
	fi
	echo "$name: assembled ($(grep -c warning "$work/$name/bfas.log" || true) bfas warnings)"
}
fail=0
defs=$(/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc "$here/vectors/desc.json" --tna-defines)
roles=$(echo "$defs" | sed 's/-DAP_BATCH=[0-9]*//')
# shellcheck disable=SC2086
compile batch4 $defs || fail=1
if [ "${1:-}" = --all ]; then
	# shellcheck disable=SC2086
	compile batch2 $roles -DAP_BATCH=2 || fail=1
	# shellcheck disable=SC2086
	compile batch8 $roles -DAP_BATCH=8 -DAP_MAX_LISTS=4096 || fail=1
	# shellcheck disable=SC2086
	compile batch16 $roles -DAP_BATCH=16 ||
		echo "batch16: known not to fit (README, Tofino)"
fi
[ $fail = 0 ] || exit 1
echo "ok: the Tofino translator fits Tofino-1 and assembles"
