#!/bin/sh
# Bad input is refused with a message saying where and why, by every
# program: configuration values (each program, "FILE:LINE: KEY: why",
# exit 1, never a silent exit or a silent default) and dta-query's numeric
# options (exit 2). Also dta-query size's bounds at sizes where they are
# tiny (computed directly, not as a difference of two larger numbers).
. "$(dirname "$0")/lib.sh"
e2e_init bad_input "$1"

# expect_refused PROGRAM_AND_ARGS... : exit status 1 and stderr naming
# "$E2E/bad.conf:LINE: KEY:" ($WANT).
expect_refused() {
	if "$@" > "$E2E/out.log" 2> "$E2E/err.log"; then
		echo "accepted: $* with $(cat "$E2E/bad.conf")" >&2
		exit 1
	fi
	grep -qF "$WANT" "$E2E/err.log" || {
		echo "no '$WANT' in the error of $*:" >&2
		cat "$E2E/err.log" >&2
		exit 1
	}
}

for bad in "pc_cache = 0" "pc_timeout_ms = 0" "ap_timeout_ms = 0" \
	   "stats_interval_s = abc" "pc_timeout_ms = 288230376151711744"; do
	printf '[translator]\n%s\n[structure s]\nprimitive = kw\n' "$bad" \
		> "$E2E/bad.conf"
	WANT="$E2E/bad.conf:2: ${bad%% *}: "
	expect_refused "$TRANSLATOR" -c "$E2E/bad.conf"
	expect_refused "$COLLECTOR" -c "$E2E/bad.conf"
	expect_refused "$QUERY" -c "$E2E/bad.conf" verify --truth /dev/null
done
for bad in "restore = maybe" "huge_pages = maybe" "socket_mode = 999"; do
	printf '[structure s]\nprimitive = kw\n[collector]\n%s\n' "$bad" \
		> "$E2E/bad.conf"
	WANT="$E2E/bad.conf:4: ${bad%% *}: "
	expect_refused "$COLLECTOR" -c "$E2E/bad.conf"
	expect_refused "$TRANSLATOR" -c "$E2E/bad.conf"
done

# dta-query's numbers: garbage is a usage error, not 0 or a prefix.
for args in "--flows abc" "--flows 10x" "--target 0.9x" "--hops five" \
	    "--max-n -1" "--values abc"; do
	set +e
	"$QUERY" size pc --flows 1000 $args > "$E2E/out.log" 2> "$E2E/err.log"
	rc=$?
	set -e
	[ $rc -eq 2 ] || { echo "size $args: exit $rc, not 2" >&2; exit 1; }
	grep -q "is not a number" "$E2E/err.log" || {
		echo "size $args: no message" >&2; cat "$E2E/err.log" >&2; exit 1; }
done

# The wrong-answer bound of a Postcarding size: eq. (8) at the size found,
# (1 - e^{-alpha})^1 * 1 * ((2^18 + 1) 2^-32)^5 with alpha = 10000 / 94913,
# 8.47e-23 (worked independently with bc), not 0.
"$QUERY" size pc --flows 10000 --target 0.9 --max-n 1 --slot-bits 32 \
	--values 262144 --hops 5 --json > "$E2E/size.json"
wrong=$(sed 's/.*"wrong_bound":\([^,}]*\).*/\1/' "$E2E/size.json")
awk -v w="$wrong" 'BEGIN { exit !(w > 8.46e-23 && w < 8.48e-23) }' || {
	echo "wrong-answer bound $wrong, expected 8.47e-23" >&2; exit 1; }
e2e_pass
