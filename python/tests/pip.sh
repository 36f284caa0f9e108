#!/bin/sh
# ctest python_pip: `pip install` of python/ (setup.py compiles libdta's
# sources into the extension, no installed libdta) into a throwaway
# folder, then the pytest suite on that module with this build's programs.
# The package folder is copied first so that nothing is written into the
# source tree (DTA_SOURCE_DIR tells setup.py where lib/ is).
# Skipped (77) without pip, setuptools, numpy or pytest.
# Usage: pip.sh PYTHON BUILD_DIR
set -u
py=$1
build=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$py" = none ]; then
	echo "SKIP: no python3 with numpy and headers in this build"
	exit 77
fi
for m in pip setuptools numpy pytest; do
	"$py" -c "import $m" 2>/dev/null ||
		{ echo "SKIP: $py lacks $m (apt-get install python3-$m)"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dta-pip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -r "$src/python" "$tmp/python"
rm -rf "$tmp/python/build" "$tmp/python/dta.egg-info"
# Offline: Debian's setuptools (no build isolation) and numpy (no deps).
DTA_SOURCE_DIR=$src "$py" -m pip install -q --no-build-isolation --no-deps \
	--no-index --target "$tmp/site" "$tmp/python" > "$tmp/pip.log" 2>&1 ||
	{ cat "$tmp/pip.log"; echo "FAIL: pip install ./python" >&2; exit 1; }
"$py" -c "import sys; sys.path.insert(0, '$tmp/site')
import dta, os
assert dta.__file__.startswith('$tmp/site'), dta.__file__
print('pip-installed', os.path.basename(dta._dta.__file__))" || exit 1
cd "$src/python/tests" || exit 1
PYTHONPATH=$tmp/site DTA_BUILD_DIR=$build PYTHONDONTWRITEBYTECODE=1 \
	"$py" -m pytest -q -p no:cacheprovider .
rc=$?
[ $rc -ne 5 ] || { echo "FAIL: pytest collected no tests" >&2; exit 1; }
exit $rc
