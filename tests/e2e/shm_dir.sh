#!/bin/sh
# [collector] shm_dir on a tmpfs mounted huge=within_size (docs/performance.md
# "Huge pages by default"): each structure is the file SHM_DIR/dta-NAME.S,
# and both the collector's and the translator's mappings of it are on 2 MiB
# pages (ShmemPmdMapped in /proc/PID/smaps); the collector's log line and
# its dta_collector_region_page_bytes metric say so; dta-query over the
# socket and --map answer exactly as with the same workload in /dev/shm.
# Refused at start: an shm_dir that is a symbolic link, not a directory,
# missing, owned by another user, group- or other-writable, or not a tmpfs;
# an object in it that another user owns is not reattached.
# Needs root (mounts a tmpfs, in a private mount namespace); else skips.
if [ "$2" != inner ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mounts a tmpfs)"; exit 77; }
	command -v unshare > /dev/null || { echo "SKIP: no unshare"; exit 77; }
	[ -r /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ] ||
		{ echo "SKIP: no transparent huge pages in this kernel"; exit 77; }
	exec unshare -m --propagation private sh "$0" "$1" inner
fi
. "$(dirname "$0")/lib.sh"
e2e_init shm_dir "$1"
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }
SHM=$E2E/shm
mkdir "$SHM"
mount -t tmpfs -o huge=within_size,size=64m,mode=0700 dta-e2e "$SHM" ||
	{ echo "SKIP: cannot mount a tmpfs with huge=within_size"; exit 77; }
# Unmounted before e2e_cleanup removes the directory (lazily: a process a
# failed test leaves may still map it).
shm_cleanup() {
	rc=$?
	umount -l "$SHM" 2>/dev/null || true
	(exit $rc)
	e2e_cleanup
}
trap shm_cleanup EXIT INT TERM
{
	e2e_conf_head | sed -e "/^\[collector\]/a shm_dir = $SHM" \
			    -e "/^\[collector\]/a metrics_listen = $E2E_TCP0"
	cat <<EOF2

[structure paths]
primitive = key-write
slots = 131072
data = 20
redundancy = 2
EOF2
} > "$E2E/dta.conf"
obj=dta-e2e-shm_dir-$$.paths
fail() { echo "FAIL: $*" >&2; exit 1; }

# Bytes of the mapping of FILE in process PID on PMD-mapped huge pages.
pmd_kb() { # PID FILE
	awk -v f="$2" '/^[0-9a-f]+-[0-9a-f]+ / { in_ = ($NF == f) }
		in_ && /^(ShmemPmdMapped|FilePmdMapped):/ { s += $2 }
		END { print s + 0 }' "/proc/$1/smaps"
}

e2e_start_collector
# The kernel may have no free 2 MiB page to give (memory fragmented): the
# collector says so, and this machine cannot run the test now.
if grep -q "mounted huge=within_size but the kernel gave 4 KiB pages" "$E2E/collector.log"; then
	echo "SKIP: the kernel gave no 2 MiB pages (memory fragmented?)"
	exit 77
fi
grep -q "^dta-collector: paths: key-write, 3145728 bytes at $SHM/$obj (2097152-byte pages)$" \
	"$E2E/collector.log" || { cat "$E2E/collector.log"; fail "log line"; }
! grep -q "4 KiB pages" "$E2E/collector.log" || fail "a 4 KiB line"
[ -f "$SHM/$obj" ] || fail "no $SHM/$obj"
[ ! -e "/dev/shm/$obj" ] || fail "/dev/shm/$obj too"
[ "$(stat -c %a "$SHM/$obj")" = 600 ] || fail "mode $(stat -c %a "$SHM/$obj")"
m=$(curl -s "http://127.0.0.1:$E2E_TCP0/metrics")
echo "$m" | grep -q "^dta_collector_region_page_bytes{collector=\"e2e-shm_dir-$$\",structure=\"paths\"} 2097152$" ||
	{ echo "$m" | grep region; fail "page_bytes metric"; }
hb=$(echo "$m" | awk '/^dta_collector_region_huge_bytes\{.*structure="paths"\}/ { print $2 }')
[ "${hb:-0}" -ge 2097152 ] || fail "huge_bytes metric $hb"
ck=$(pmd_kb "$E2E_CPID" "$SHM/$obj")
[ "$ck" -ge 2048 ] || fail "collector: $ck kB PMD-mapped"

e2e_start_translator
e2e_gen -t kw -n 20000 -k 20000 -r 250000 -T "$E2E/kw.truth"
tk=$(pmd_kb "$E2E_TPID" "$SHM/$obj")
[ "$tk" -ge 2048 ] || { grep -A25 "$obj" "/proc/$E2E_TPID/smaps"; fail "translator: $tk kB PMD-mapped"; }
echo "PMD-mapped: collector $ck kB, translator $tk kB"
strip() { sed 's/,"seconds":[0-9.]*//'; }
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/sock.json"
e2e_query --map --json verify --truth "$E2E/kw.truth" | strip > "$E2E/map.json"
grep -q '"exact":[1-9][0-9]*,' "$E2E/sock.json" || { cat "$E2E/sock.json"; exit 1; }
cmp "$E2E/sock.json" "$E2E/map.json"
e2e_stop_translator

# Killed: the object stays in shm_dir, and the next collector reattaches it.
kill -KILL "$E2E_CPID"
wait "$E2E_CPID" 2>/dev/null || true
[ -f "$SHM/$obj" ] || fail "object gone with a killed collector"
e2e_start_collector
grep -q "reattached to existing /$obj (contents kept)" "$E2E/collector.log" ||
	{ cat "$E2E/collector.log"; fail "not reattached"; }
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/again.json"
cmp "$E2E/sock.json" "$E2E/again.json"
e2e_stop_collector
[ ! -e "$SHM/$obj" ] || fail "$SHM/$obj left"

# The same workload in /dev/shm: the same answers.
sed -i "/^shm_dir = /d" "$E2E/dta.conf"
e2e_start_collector
[ -e "/dev/shm/$obj" ] || fail "no /dev/shm/$obj"
e2e_start_translator
e2e_gen -t kw -n 20000 -k 20000 -r 250000 -T "$E2E/kw2.truth"
cmp "$E2E/kw.truth" "$E2E/kw2.truth"
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/shm.json"
cmp "$E2E/sock.json" "$E2E/shm.json"
e2e_stop_translator
e2e_stop_collector

# Refused at start, with the reason.
refused() { # DIR WHY-REGEX
	sed -i "/^shm_dir = /d; /^\[collector\]/a shm_dir = $1" "$E2E/dta.conf"
	if "$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/refused.log" 2>&1; then
		fail "started with shm_dir $1"
	fi
	grep -q "shm_dir: .*$2" "$E2E/refused.log" ||
		{ cat "$E2E/refused.log"; fail "no '$2' for $1"; }
}
ln -s "$SHM" "$E2E/link"
refused "$E2E/link" "symbolic link"
: > "$E2E/file"
refused "$E2E/file" "Not a directory"
refused "$E2E/missing" "does not exist"
mkdir "$E2E/disk"
chmod 0700 "$E2E/disk"
if [ "$(stat -f -c %T "$E2E/disk")" != tmpfs ]; then
	refused "$E2E/disk" "not on a tmpfs"
fi
chmod 0770 "$SHM"
refused "$SHM" "neither group nor others can write"
chmod 0702 "$SHM"
refused "$SHM" "neither group nor others can write"
chmod 0700 "$SHM"
chown 65534 "$SHM"
refused "$SHM" "owned by us"
chown 0 "$SHM"

# Another user's object under the structure's name: not reattached, not
# removed, not written.
sed -i "/^shm_dir = /d; /^\[collector\]/a shm_dir = $SHM" "$E2E/dta.conf"
head -c 8192 /dev/zero > "$SHM/$obj"
chown 65534 "$SHM/$obj"
chmod 0600 "$SHM/$obj"
sum=$(cksum < "$SHM/$obj")
if "$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/foreign.log" 2>&1; then
	fail "started over another user's object"
fi
grep -q "owned by uid 65534, not by us" "$E2E/foreign.log" ||
	{ cat "$E2E/foreign.log"; fail "no owner message"; }
[ "$(stat -c %u "$SHM/$obj")" = 65534 ] && [ "$(cksum < "$SHM/$obj")" = "$sum" ] ||
	fail "another user's object was changed"
rm -f "$SHM/$obj"
e2e_pass
