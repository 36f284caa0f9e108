#!/bin/sh
# Installs the built libdta into a scratch prefix and builds a consumer the
# two usual ways: pkg-config (shared and static) and find_package(dta).
# Usage: install_consumers.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n1)
export PKG_CONFIG_PATH="$libdir"
cc=${CC:-cc}

# pkg-config, shared
$cc -o "$work/c_shared" "$src/tests/consumer/consumer.c" \
    $(pkg-config --cflags --libs libdta)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$work/c_shared"

# pkg-config, static
$cc -o "$work/c_static" "$src/tests/consumer/consumer.c" \
    $(pkg-config --cflags libdta) "$(dirname "$libdir")/libdta.a" \
    $(pkg-config --libs-only-l --static libdta | sed 's/-ldta//')
"$work/c_static"

# CMake package
cmake -S "$src/tests/consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$work/cm" >/dev/null
LD_LIBRARY_PATH="$(dirname "$libdir")" "$work/cm/consumer_cmake"
echo "install_consumers: pkg-config shared, static and find_package all ok"
