#!/bin/sh
# ctest python_client: the dta package's pytest suite (python/tests/)
# against this build: PYTHONPATH=BUILD/python (the package CMake lays out
# there), DTA_BUILD_DIR=BUILD (the programs the tests start).
# Skipped (77) when the build has no Python package or the interpreter
# lacks numpy or pytest; pytest collecting no test (its exit code 5) is a
# failure, not a skip.
# Usage: run.sh PYTHON BUILD_DIR [pytest args]
set -u
py=$1
build=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if [ "$py" = none ] || [ ! -d "$build/python/dta" ]; then
	echo "SKIP: no Python package in this build (apt-get install python3-dev python3-numpy, reconfigure)"
	exit 77
fi
for m in numpy pytest; do
	"$py" -c "import $m" 2>/dev/null ||
		{ echo "SKIP: $py lacks $m (apt-get install python3-$m)"; exit 77; }
done
PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
DTA_BUILD_DIR=$build
PATH=$build/collector:$build/translator:$build/gen:$build/query:$PATH
export PYTHONPATH DTA_BUILD_DIR PATH
# From the tests folder: python -m pytest puts the working directory on
# sys.path, and python/ would shadow the build's package with the sources.
cd "$here" || exit 1
# -p no:cacheprovider: nothing written into the source tree.
if [ -n "${DTA_PY_PRELOAD:-}" ]; then
	# A sanitizer build: its runtimes preloaded into the interpreter
	# (CPython's own allocations are not ours to leak-check); dtaenv.py
	# starts the programs without them.
	LD_PRELOAD="$DTA_PY_PRELOAD" ASAN_OPTIONS=detect_leaks=0 \
	PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -q -p no:cacheprovider . "$@"
else
	PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -q -p no:cacheprovider . "$@"
fi
rc=$?
if [ $rc -eq 5 ]; then
	echo "FAIL: pytest collected no tests" >&2
	exit 1
fi
exit $rc
