#!/bin/sh
# The collector's figures for docs/performance.md ("Collector socket and
# local mapping", "Huge pages"), each a ratio measured in one run:
#   bench_socket  pipelined socket answers per collector CPU-s beside the
#                 same queries in the library on the region mapped
#                 read-only (the local mapping path)
#   bench_pages   Key-Write batched queries on 4 KiB pages, transparent
#                 huge pages, and shared memory (/dev/shm, or hugetlbfs)
# As root with --hugetlbfs, both run again with hugetlbfs mounted at
# /dev/hugepages in a private mount namespace and enough huge pages
# reserved for the shared regions (vm.nr_hugepages is put back after).
#
#   bench/collector.sh BUILD_DIR [--hugetlbfs]
set -e
B=${1:?usage: bench/collector.sh BUILD_DIR [--hugetlbfs]}
echo "== load: $(uptime)"
"$B/bench/bench_socket" -s 24 -n 2000000 -r 5
echo "== load: $(uptime)"
"$B/bench/bench_pages" -s 24 -n 2000000 -r 5
echo "== load: $(uptime)"
[ "$2" = --hugetlbfs ] || exit 0
[ "$(id -u)" = 0 ] || { echo "--hugetlbfs needs root" >&2; exit 1; }
want=400 # 2 MiB pages: two 384 MiB regions (anon takes reserved pages first)
old=$(cat /proc/sys/vm/nr_hugepages)
made_dir=no
[ -d /dev/hugepages ] || { mkdir /dev/hugepages; made_dir=yes; }
put_back() {
	echo "$old" > /proc/sys/vm/nr_hugepages
	[ $made_dir = no ] || rmdir /dev/hugepages
}
trap put_back EXIT INT TERM
echo $((old + want)) > /proc/sys/vm/nr_hugepages
grep HugePages_Free /proc/meminfo
unshare -m --propagation private sh -c '
	mount -t hugetlbfs -o pagesize=2M none /dev/hugepages &&
	"$0/bench/bench_pages" -s 24 -n 2000000 -r 5 &&
	echo "== load: $(uptime)" &&
	"$0/bench/bench_socket" -s 24 -n 2000000 -r 5' "$B"
echo "== load: $(uptime)"
