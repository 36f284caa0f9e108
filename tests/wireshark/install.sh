#!/bin/sh
# The dissector's install rule (root CMakeLists.txt, component wireshark):
#  - configured for the prefix /usr, it lands in the folder Debian's tshark
#    names "Global Lua Plugins";
#  - any other prefix keeps it under that prefix;
#  - copied to the personal folder docs/wireshark.md names, tshark loads it
#    without -X.
# Skipped (77) without tshark or its Lua support.
#   sh install.sh SOURCE_DIR
set -eu
src=${1:?usage: install.sh SOURCE_DIR}
tshark=$(command -v tshark || true)
if [ -z "$tshark" ]; then
	echo "SKIP: tshark not installed (Debian: apt-get install tshark)"
	exit 77
fi
if ! "$tshark" -v 2>/dev/null | grep -q "with Lua"; then
	echo "SKIP: this tshark is built without Lua"
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dta-wshark-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME"
fails=0

global=$("$tshark" -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
personal=$("$tshark" -G folders 2>/dev/null | sed -n 's/^Personal Lua Plugins:[[:space:]]*//p')
[ -n "$global" ] && [ -n "$personal" ] || { echo "FAIL: tshark -G folders names no Lua plugin folders"; exit 1; }

# Configure, and build only the package changelog the component's
# package-doc rule installs (cmake/packaging.cmake): nothing compiled.
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_INSTALL_PREFIX=/usr \
	-DDTA_BUILD_TESTS=OFF -DDTA_BUILD_BENCH=OFF -DDTA_BUILD_EXAMPLES=OFF > "$work/cmake.log"
cmake --build "$work/build" --target deb_changelog > /dev/null
DESTDIR=$work/root cmake --install "$work/build" --component wireshark > /dev/null
if cmp -s "$src/dist/wireshark/dta.lua" "$work/root$global/dta.lua"; then
	echo "ok: prefix /usr installs $global/dta.lua, tshark's global Lua plugin folder"
else
	echo "FAIL: prefix /usr did not install $global/dta.lua; installed:"
	find "$work/root" -type f
	fails=1
fi

cmake --install "$work/build" --component wireshark --prefix "$work/opt" > /dev/null
found=$(find "$work/opt" -name dta.lua)
case $found in
"$work/opt/"*/wireshark/plugins/dta.lua)
	echo "ok: prefix $work/opt keeps it inside: ${found#"$work/opt/"}" ;;
*)
	echo "FAIL: prefix install put it at '$found'"
	fails=1 ;;
esac

# The personal folder docs/wireshark.md tells users to copy it to.
case $personal in
"$HOME"/*) ;;
*) echo "FAIL: personal folder $personal is not under HOME"; exit 1 ;;
esac
mkdir -p "$personal"
cp "$src/dist/wireshark/dta.lua" "$personal/"
"$tshark" -G protocols > "$work/protocols" 2> "$work/err" || true
if grep -q "	dta$" "$work/protocols" && grep -q "	int$" "$work/protocols"; then
	echo "ok: copied to $personal, tshark registers dta and int by itself"
elif [ "$(id -u)" = 0 ] && ! grep -qi error "$work/err"; then
	echo "SKIP: tshark does not run personal Lua plugins as root here" \
		"(run_user_scripts_when_superuser); the install checks above passed"
	[ $fails = 0 ] && exit 77
else
	echo "FAIL: tshark did not load $personal/dta.lua:"
	cat "$work/err"
	fails=1
fi
exit $fails
