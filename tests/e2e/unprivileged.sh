#!/bin/sh
# A part of the suite, run again as an ordinary user: `./run test` must be
# green for a contributor who is not root, and tests written by root tend
# to assume root (chown to another uid, files under /var, sbin on PATH).
# Run as root (as CI does), this test becomes uid 65534 (nobody, with no
# groups) and runs a few representative tests: unit tests of the shared
# memory regions and of the configuration (file modes and owners), and
# end-to-end runs of the daemons (every primitive; the shm guards; the
# local read-only mapping). Each must pass as that user, its root-only
# parts skipped saying so. Skipped (77), saying why, when not run as root
# (the whole suite then runs unprivileged anyway), without setpriv, or
# when uid 65534 cannot reach the build or source tree (a parent
# directory closed to others, e.g. a tree under /root).
set -eu
BUILD=$(cd "${1:?usage: unprivileged.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || {
	echo "SKIP: not root: this test runs tests as uid 65534 only when the suite runs as root"
	exit 77
}
command -v setpriv > /dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dta-unprivileged.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
chmod 0700 "$T"
chown 65534:65534 "$T"
nobody() {
	(cd "$T" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$T" TMPDIR="$T" USER=nobody LOGNAME=nobody "$@")
}
for f in "$BUILD/tests/test_region" "$BUILD/collector/dta-collector" "$src/tests/e2e/lib.sh"; do
	nobody test -r "$f" || {
		echo "SKIP: uid 65534 cannot read $f (a directory above it is closed to others)"
		exit 77
	}
done
nobody test -w "$T" || { echo "FAIL: uid 65534 cannot write its own $T" >&2; exit 1; }

fail=0
run() { # NAME COMMAND...: must exit 0 as uid 65534
	name=$1
	shift
	rc=0
	nobody "$@" > "$T/$name.out" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok   $name (as uid 65534)"
		grep -i "skip" "$T/$name.out" | sed 's/^/     /' || true
	else
		echo "FAIL $name as uid 65534: exit status $rc; its output:" >&2
		tail -n 40 "$T/$name.out" >&2
		fail=1
	fi
}
run test_region "$BUILD/tests/test_region"
run test_config "$BUILD/tests/test_config"
run e2e_all_primitives sh "$src/tests/e2e/all_primitives.sh" "$BUILD"
run e2e_shm_guard sh "$src/tests/e2e/shm_guard.sh" "$BUILD"
run e2e_local_map sh "$src/tests/e2e/local_map.sh" "$BUILD"
# The foreign-owner part of test_region skips (65534 cannot give its
# objects away), and says so: a skip that printed nothing would be silent.
grep -q "SKIP test_foreign_owner: giving an object to uid 65533 needs root" "$T/test_region.out" || {
	echo "FAIL: test_region as uid 65534 did not say why it skipped test_foreign_owner" >&2
	fail=1
}
[ $fail -eq 0 ] || exit 1
echo "PASS: unprivileged"
