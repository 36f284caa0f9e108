#!/bin/sh
# Shared regions on hugetlbfs (docs/performance.md, "Huge pages"): with
# hugetlbfs mounted at /dev/hugepages and pages free, each structure is
# the file /dev/hugepages/dta-NAME.S on 2 MiB pages (the collector logs
# the page size), translators and dta-query --map find it there, a
# collector that was killed is reattached, and a clean stop removes it.
# Needs root: it reserves 8 huge pages (vm.nr_hugepages, put back after)
# and mounts hugetlbfs in a private mount namespace; else it skips (77).
if [ "$2" != inner ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
	command -v unshare > /dev/null || { echo "SKIP: no unshare"; exit 77; }
	grep -qw hugetlbfs /proc/filesystems || { echo "SKIP: no hugetlbfs"; exit 77; }
	want=8
	old=$(cat /proc/sys/vm/nr_hugepages)
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	made_dir=no
	[ -d /dev/hugepages ] || { mkdir /dev/hugepages && made_dir=yes; }
	put_back() {
		rc=$?
		[ "$(cat /proc/sys/vm/nr_hugepages)" = "$old" ] ||
			echo "$old" > /proc/sys/vm/nr_hugepages
		[ $made_dir = no ] || rmdir /dev/hugepages
		exit $rc
	}
	trap put_back EXIT INT TERM
	[ "$free" -ge $want ] ||
		echo $((old + want - free)) > /proc/sys/vm/nr_hugepages 2>/dev/null || true
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	[ "$free" -ge $want ] || { echo "SKIP: cannot reserve $want huge pages"; exit 77; }
	unshare -m --propagation private sh "$0" "$1" inner
	exit $?
fi

if [ "$(stat -f -c %T /dev/hugepages 2>/dev/null)" != hugetlbfs ]; then
	mount -t hugetlbfs -o pagesize=2M none /dev/hugepages ||
		{ echo "SKIP: cannot mount hugetlbfs"; exit 77; }
fi
. "$(dirname "$0")/lib.sh"
e2e_init hugetlbfs "$1"
{
	e2e_conf_head
	cat <<EOF2

[structure paths]
primitive = key-write
slots = 131072
data = 20
redundancy = 2
EOF2
} > "$E2E/dta.conf"
obj=dta-e2e-hugetlbfs-$$.paths
e2e_start_collector
grep -q "^dta-collector: paths: key-write, 3145728 bytes at /$obj (2097152-byte pages)$" \
	"$E2E/collector.log" || { cat "$E2E/collector.log"; exit 1; }
[ -f "/dev/hugepages/$obj" ] || { echo "FAIL: no /dev/hugepages/$obj" >&2; exit 1; }
[ ! -e "/dev/shm/$obj" ] || { echo "FAIL: /dev/shm/$obj too" >&2; exit 1; }
e2e_start_translator
e2e_gen -t kw -n 20000 -k 20000 -r 250000 -T "$E2E/kw.truth"
strip() { sed 's/,"seconds":[0-9.]*//'; }
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/sock.json"
e2e_query --map --json verify --truth "$E2E/kw.truth" | strip > "$E2E/map.json"
grep -q '"exact":[1-9][0-9]*,' "$E2E/sock.json" || { cat "$E2E/sock.json"; exit 1; }
cmp "$E2E/sock.json" "$E2E/map.json"
if grep -q 'is gone' "$E2E/translator.log"; then
	cat "$E2E/translator.log"; exit 1
fi
e2e_stop_translator

# Killed: the object stays, and the next collector reattaches it.
kill -KILL "$E2E_CPID"
wait "$E2E_CPID" 2>/dev/null || true
[ -f "/dev/hugepages/$obj" ] || { echo "FAIL: object gone with a killed collector" >&2; exit 1; }
e2e_start_collector
grep -q "reattached to existing /$obj (contents kept)" "$E2E/collector.log" ||
	{ cat "$E2E/collector.log"; exit 1; }
e2e_query --json verify --truth "$E2E/kw.truth" | strip > "$E2E/again.json"
cmp "$E2E/sock.json" "$E2E/again.json"
e2e_stop_collector
[ ! -e "/dev/hugepages/$obj" ] || { echo "FAIL: /dev/hugepages/$obj left" >&2; exit 1; }
e2e_pass
