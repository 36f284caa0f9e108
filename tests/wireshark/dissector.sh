#!/bin/sh
# The Wireshark dissector (dist/wireshark/dta.lua) read by Debian's tshark
# over pcaps dta-gen writes now, checked against the bytes sent and the
# truth files (tests/wireshark/check.py says how). Skipped (77) without
# tshark, without Lua in it, or where Wireshark refuses Lua scripts to root.
#   sh dissector.sh BUILD_DIR
set -eu
build=${1:?usage: dissector.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
lua=$top/dist/wireshark/dta.lua
gen=$build/gen/dta-gen

tshark=$(command -v tshark || true)
if [ -z "$tshark" ]; then
	echo "SKIP: tshark not installed (Debian: apt-get install tshark)"
	exit 77
fi
if ! "$tshark" -v 2>/dev/null | grep -q "with Lua"; then
	echo "SKIP: this tshark is built without Lua"
	exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/dta-wshark.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
# A personal configuration of whoever runs the tests must not change what
# tshark shows: give it an empty one.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME"

# A copy installed in Wireshark's global plugin folder is loaded anyway, and
# loading the script a second time with -X would fail: test the installed
# copy when it is this one, skip when it is another.
global=$("$tshark" -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
if [ -n "$global" ] && [ -f "$global/dta.lua" ]; then
	if ! cmp -s "$global/dta.lua" "$lua"; then
		echo "SKIP: $global/dta.lua is another version of the dissector and shadows $lua"
		exit 77
	fi
	python3 "$top/tests/wireshark/check.py" "$tshark" "" "$gen" "$work" "$build/tests/wshark_verdict"
	exit $?
fi

# Wireshark runs Lua scripts given with -X as root only if its init.lua
# allows it (run_user_scripts_when_superuser; Debian 12 sets true). Load the
# script once and tell a refusal apart from a broken script.
"$tshark" -G protocols -X "lua_script:$lua" > "$work/protocols" 2> "$work/load.err" || true
if ! grep -q "	dta$" "$work/protocols" || ! grep -q "	int$" "$work/protocols"; then
	if grep -qi "error" "$work/load.err"; then
		echo "FAIL: tshark could not load $lua:"
		cat "$work/load.err"
		exit 1
	fi
	if [ "$(id -u)" = 0 ]; then
		echo "SKIP: tshark does not run Lua scripts as root here" \
			"(run_user_scripts_when_superuser in its init.lua); run the test as another user"
		exit 77
	fi
	echo "FAIL: tshark does not register the dta and int protocols from $lua"
	cat "$work/load.err"
	exit 1
fi

python3 "$top/tests/wireshark/check.py" "$tshark" "$lua" "$gen" "$work" "$build/tests/wshark_verdict"

# As root (CI), tshark warns that running Lua as root could be dangerous.
# The dissector does not need root: decode the same capture as nobody and
# expect the same fields.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 755 "$work"
	"$gen" -t kw -n 20 --batch 3 -w "$work/user.pcap" 2>/dev/null
	chmod 644 "$work/user.pcap"
	set -- -n -X "lua_script:$lua" -r "$work/user.pcap" -T fields \
		-e dta.reports -e dta.seq -e dta.kw.key -e dta.kw.data
	"$tshark" "$@" > "$work/root.txt" 2>/dev/null
	HOME=/nonexistent XDG_CONFIG_HOME=/nonexistent setpriv --reuid=nobody \
		--regid="$(id -g nobody)" --clear-groups "$tshark" "$@" > "$work/user.txt"
	if [ ! -s "$work/root.txt" ] || ! cmp -s "$work/root.txt" "$work/user.txt"; then
		echo "FAIL: tshark as nobody decodes differently from root"
		diff "$work/root.txt" "$work/user.txt" || true
		exit 1
	fi
	echo "ok: as nobody, tshark decodes the same $(wc -l < "$work/user.txt") datagrams as root"
fi
