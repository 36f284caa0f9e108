#!/bin/sh
# Builds the Debian packages (libdtaN, libdta-dev, dta-tools) from this
# tree: a Release build installed to /usr, with Debian's hardening flags
# (dpkg-buildflags) when dpkg-dev is installed, then CPack's DEB generator
# (cmake/packaging.cmake, docs/packaging.md), with maintainer scripts
# made by debhelper (scripts/deb-maintscripts.sh).
# Usage: scripts/build-debs.sh BUILD_DIR     (the .deb files end up there)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: build-debs.sh BUILD_DIR}
mkdir -p "$build"
build=$(cd "$build" && pwd)
cd "$top" # dpkg-buildflags maps this directory away in debug paths
if command -v dpkg-buildflags > /dev/null; then
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
	LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
	export CFLAGS LDFLAGS
fi
gen=
command -v ninja > /dev/null && gen="-G Ninja"
# CFLAGS are read when the build directory is first configured; the
# flags are passed again so a reused directory gets today's.
cmake -S "$top" -B "$build" $gen -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_C_FLAGS="${CFLAGS:-}" \
	-DCMAKE_EXE_LINKER_FLAGS="${LDFLAGS:-}" \
	-DCMAKE_SHARED_LINKER_FLAGS="${LDFLAGS:-}" \
	-DDTA_BUILD_TESTS=OFF -DDTA_BUILD_BENCH=OFF -DDTA_BUILD_EXAMPLES=OFF \
	-DDTA_MAN=ON > "$build/configure.log" 2>&1 ||
	{ cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j2
# The maintainer scripts debhelper made at configure time
# (scripts/deb-maintscripts.sh, cmake/packaging.cmake).
[ -f "$build/debian/maint/dta-tools/postinst" ] || {
	echo "build-debs.sh: no maintainer scripts in $build/debian/maint:" \
	     "debhelper missing? (apt-get install debhelper)" >&2
	exit 1
}
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB)
ls "$build"/*.deb
