#!/bin/sh
# The collector's shared memory is its own and fits: an object someone
# else planted under a structure's name (another owner, or a mode wider
# than shm_mode) is refused, not reattached; objects are created with
# exactly shm_mode; a structure larger than /dev/shm is refused at start
# with the reason (not a SIGBUS in a translator later); and a collector
# name too long for a shm name is refused, not truncated into a name two
# structures share.
. "$(dirname "$0")/lib.sh"
e2e_init shm_guard "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 64K
data = 20
EOF
} > "$E2E/dta.conf"
SHM=/dev/shm/dta-e2e-shm_guard-$$.paths

refused() { # LOG CONF [ARGS]: the collector must exit non-zero, quickly
	log=$1
	shift
	rc=0
	timeout 20 "$COLLECTOR" -c "$@" > "$log" 2>&1 || rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
		echo "FAIL: the collector started (and ran until stopped)" >&2
		cat "$log" >&2
		exit 1
	fi
	cat "$log"
}

# Squatting: a region left behind (the collector was killed) whose mode
# someone widened, or that someone else owns, is not ours any more.
e2e_start_collector
e2e_expect "mode of a new region" "$(stat -c %a "$SHM")" 600
kill -KILL "$E2E_CPID"
wait "$E2E_CPID" 2>/dev/null || true
E2E_CPID=
chmod 0666 "$SHM"
refused "$E2E/wide.log" "$E2E/dta.conf"
grep -q "region /dta-e2e-shm_guard-$$.paths: mode 0666 grants more than 0600: refusing to use it" "$E2E/wide.log"
grep -q "paths: refusing /dta-e2e-shm_guard-$$.paths: whoever made it could read or forge" "$E2E/wide.log"
# A translator does not write into it either.
if timeout 20 "$TRANSLATOR" -c "$E2E/dta.conf" > "$E2E/tr-wide.log" 2>&1; then
	echo "FAIL: the translator used a world-writable region" >&2
	exit 1
fi
grep -q "cannot open .*mode wider than shm_mode" "$E2E/tr-wide.log"
chmod 0600 "$SHM"
# Another owner's region: giving it away needs root (CAP_CHOWN); without
# it this part is skipped, saying so, and the rest runs.
me=$(id -u)
other=65534
[ "$me" != 65534 ] || other=65533
if [ "$me" = 0 ]; then
	chown "$other" "$SHM"
	refused "$E2E/owner.log" "$E2E/dta.conf"
	grep -q "owned by uid $other, not by us (uid $me): refusing to use it" "$E2E/owner.log"
	grep -q "paths: refusing /dta-e2e-shm_guard-$$.paths" "$E2E/owner.log"
	test -e "$SHM" # refused, not removed: it may be evidence
	chown "$me" "$SHM"
else
	echo "skipped the foreign-owner part: giving a region to uid $other needs root"
fi
e2e_start_collector
grep -q "reattached to existing" "$E2E/collector.log"
e2e_stop_collector

# shm_mode: a group of translators may be let in, and nobody else.
sed 's#^\[collector\]$#[collector]\nshm_mode = 0660#' "$E2E/dta.conf" > "$E2E/group.conf"
cp "$E2E/group.conf" "$E2E/dta.conf"
e2e_start_collector
e2e_expect "mode of a region with shm_mode 0660" "$(stat -c %a "$SHM")" 660
e2e_start_translator
e2e_gen -t kw -n 500 -r 100000 -T "$E2E/kw.truth"
sleep 0.2
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
e2e_stop_translator
e2e_stop_collector
sed 's#^shm_mode = 0660#shm_mode = 0606#' "$E2E/group.conf" > "$E2E/other.conf"
refused "$E2E/badmode.log" "$E2E/other.conf"
grep -q "other.conf:[0-9]*: shm_mode: .0606. must include 0600 and grant nothing beyond 0660" "$E2E/badmode.log"

# Larger than /dev/shm: refused at once, naming the structure and why.
free_kib=$(df -k --output=avail /dev/shm | tail -n 1 | tr -d ' ')
sed "s#^slots = 64K#memory = $((free_kib * 2 + 1048576))K#" "$E2E/group.conf" > "$E2E/huge.conf"
start=$(date +%s)
refused "$E2E/huge.log" "$E2E/huge.conf"
e2e_expect "refused within 10 s" "$(( $(date +%s) - start < 10 ))" 1
grep -q "region paths: needs [0-9]* bytes but /dev/shm has [0-9]* free: /dev/shm is too small" "$E2E/huge.log"
grep -q "paths: cannot create /dta-e2e-shm_guard-$$.paths: make the structure smaller or /dev/shm larger" "$E2E/huge.log"
test ! -e "$SHM"

# Long names: a 200-character collector name was cut to 127 bytes, so two
# structures shared one object. A name is now at most 47 characters (the
# configuration refuses a longer one with its line), so no shm name is
# ever cut; tool_shm_name() refuses too, for names that reach it otherwise.
long=$(printf 'c%.0s' $(seq 1 200))
sed -e "s#^name = .*#name = $long#" "$E2E/group.conf" > "$E2E/long.conf"
refused "$E2E/long.log" "$E2E/long.conf"
grep -q "long.conf:[0-9]*: name: 'c*\.\.\.' is not 1-47 letters" "$E2E/long.log"
if ls /dev/shm | grep -q "^dta-ccccc"; then
	echo "FAIL: a shm object was created for a refused name" >&2
	exit 1
fi
e2e_pass
