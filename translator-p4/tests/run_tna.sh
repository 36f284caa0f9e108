#!/bin/sh
# Compile translator-p4/tna/dta_translator.p4 for Tofino-1 with the
# open-source p4c Tofino back end (p4c-barefoot): once with the control
# plane's --tna-defines for the packet-test collector (tests/vectors/
# desc.json: Append batches of 4) and once with batches of 16 (the paper's
# table 3), and print the stages, SRAM blocks, crossbar bytes, tables,
# stateful ALUs and hash bits each uses (tna_resources.py). Exit 1 when a
# build does not compile or needs more stages than the chip has; 77 where
# p4c-barefoot is not installed (README, "Tofino"). Not a ctest yet: the
# program needs 21 stages today (README).
#
# TNA_P4INCLUDE: directories holding core.p4 and tna.p4 (colon-separated;
# default: share/p4c-tofino/p4include beside the compiler's bin).
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
work=$(mktemp -d "${TMPDIR:-/tmp}/dta-tna.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

compile() {
	name=$1
	shift
	echo "== $name: p4c-barefoot --target tofino --arch tna -g $*"
	# shellcheck disable=SC2086
	if ! p4c-barefoot --target tofino --arch tna -g $incs -D__TARGET_TOFINO__=1 \
		"$@" -o "$work/$name" "$top/translator-p4/tna/dta_translator.p4" \
		> "$work/$name.log" 2>&1; then
		grep -i -B2 -A12 "error" "$work/$name.log" | head -n 80
		echo "$name: does not compile for Tofino-1"
		exit 1
	fi
	if ! /usr/bin/python3 "$here/tna_resources.py" "$work/$name/pipe/logs/resources.json"; then
		echo "$name: compiles, but does not fit Tofino-1's stages"
		fail=1
	fi
}
fail=0

# shellcheck disable=SC2046
compile batch4 $(/usr/bin/python3 "$top/translator-p4/control/dta_p4_control.py" \
	--desc "$here/vectors/desc.json" --tna-defines)
compile batch16 -DAP_BATCH=16
[ $fail = 0 ] || exit 1
echo "ok: the Tofino translator fits Tofino-1"
