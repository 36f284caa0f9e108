#!/bin/sh
# --version on every program: exactly "PROGRAM VERSION" on stdout, nothing
# on stderr, exit 0, with no configuration and before any other option is
# looked at. VERSION is read here from the version macros of
# lib/include/dta/dta.h and from CMakeLists.txt's project() (what the
# packages are named after), not from the programs: a program built
# against another libdta, or the two sources drifting apart, fails.
. "$(dirname "$0")/lib.sh"
e2e_init version "$1"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

macro() {
	sed -n "s/^#define DTA_VERSION_$1 \\([0-9][0-9]*\\)\$/\\1/p" \
		"$SRC/lib/include/dta/dta.h"
}
want=$(macro MAJOR).$(macro MINOR).$(macro PATCH)
case $want in
[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "no DTA_VERSION_MAJOR/MINOR/PATCH in dta.h ($want)" >&2; exit 1 ;;
esac
project=$(sed -n 's/^project(libdta VERSION \([0-9.]*\) .*/\1/p' \
	"$SRC/CMakeLists.txt")
[ "$project" = "$want" ] || {
	echo "CMakeLists.txt project() says $project, dta.h $want" >&2
	exit 1
}

EXPORT=$BUILD/export/dta-export # (not built without libcurl)
for prog in "$COLLECTOR" "$TRANSLATOR" "$QUERY" "$GEN" $([ -x "$EXPORT" ] && echo "$EXPORT"); do
	name=$(basename "$prog")
	# Also after an option that would need a configuration to act on.
	for args in "--version" "-q --version"; do
		[ "$name" = dta-query ] && [ "$args" = "-q --version" ] &&
			args="--json --version"
		[ "$name" = dta-gen ] && [ "$args" = "-q --version" ] &&
			args="-n 5 --version"
		# shellcheck disable=SC2086 # $args is two words on purpose
		"$prog" $args > "$E2E/out" 2> "$E2E/err" || {
			echo "$name $args: exit $?" >&2; cat "$E2E/err" >&2; exit 1
		}
		printf '%s %s\n' "$name" "$want" > "$E2E/want"
		cmp -s "$E2E/want" "$E2E/out" || {
			echo "$name $args printed:" >&2; cat "$E2E/out" >&2
			echo "wanted: $name $want" >&2; exit 1
		}
		[ ! -s "$E2E/err" ] || {
			echo "$name $args wrote to stderr:" >&2; cat "$E2E/err" >&2
			exit 1
		}
	done
	# --help names it, so the option can be found.
	"$prog" --help | grep -q -- '^      --version ' || {
		echo "$name --help does not list --version" >&2; exit 1
	}
done
e2e_pass
