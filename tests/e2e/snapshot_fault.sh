#!/bin/sh
# A snapshot that cannot be written destroys nothing: the collector's
# snapshot answer says which structure failed and why and dta-query exits
# 1; at shutdown the collector keeps the shared memory, says so and exits
# 1, and the next collector reattaches it with its contents. Snapshot
# files are private (directory 0700, files 0600) and a damaged one stops a
# --restore with the structure and the reason named.
# The fault: a file where the snapshot directory should be (we run as
# root, so permissions cannot make it unwritable).
. "$(dirname "$0")/lib.sh"
e2e_init snapshot_fault "$1"
{
	e2e_conf_head
	cat <<EOF
[structure paths]
primitive = key-write
slots = 1M
data = 20
EOF
} > "$E2E/dta.conf"
SHM=/dev/shm/dta-e2e-snapshot_fault-$$.paths
echo "not a directory" > "$E2E/snapshots"
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 3000 -r 100000 -T "$E2E/kw.truth"
sleep 0.3
e2e_query verify --truth "$E2E/kw.truth" --min-success 1

if e2e_query snapshot > "$E2E/answer.json"; then
	echo "FAIL: dta-query snapshot succeeded although no snapshot was written" >&2
	cat "$E2E/answer.json" >&2
	exit 1
fi
cat "$E2E/answer.json"
grep -q '"failed":\[{"structure":"paths",' "$E2E/answer.json"
grep -q '"error":"[^"]*Not a directory"' "$E2E/answer.json"
grep -q '"ok":false' "$E2E/answer.json"

# Shutdown with the snapshot failing: exit 1, shared memory kept.
kill -TERM "$E2E_CPID"
rc=0
wait "$E2E_CPID" || rc=$?
E2E_CPID=
e2e_expect "collector exit status after a failed snapshot" "$rc" 1
test -e "$SHM" || { echo "FAIL: $SHM removed although no snapshot exists" >&2; exit 1; }
grep -q "keeping shared memory /dta-e2e-snapshot_fault-$$.paths" "$E2E/collector.log"
grep -q "reattaches it" "$E2E/collector.log"

# The next collector reattaches it and nothing is lost; the translator,
# which had stopped writing into the retired region, writes again.
rm "$E2E/snapshots"
e2e_start_collector
grep -q "reattached to existing" "$E2E/collector.log"
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
sleep 0.1
e2e_gen -t kw -n 1000 -s 5 -r 100000 -T "$E2E/kw2.truth"
sleep 0.3
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
e2e_stop_translator
e2e_stop_collector
test ! -e "$SHM"
e2e_expect "snapshot directory mode" "$(stat -c %a "$E2E/snapshots")" 700
e2e_expect "snapshot file mode" "$(stat -c %a "$E2E/snapshots/paths.dta")" 600
e2e_query -D "$E2E/snapshots" verify --truth "$E2E/kw.truth" --min-success 1

# A flipped data byte: --restore refuses to start, naming the structure,
# the reason and the way out; nothing of the old data is lost.
cp "$E2E/snapshots/paths.dta" "$E2E/good.dta"
printf '\377' | dd of="$E2E/snapshots/paths.dta" bs=1 seek=50000 conv=notrunc 2>/dev/null
if "$COLLECTOR" -c "$E2E/dta.conf" --restore > "$E2E/flipped.log" 2>&1; then
	echo "FAIL: collector restored a corrupt snapshot" >&2
	exit 1
fi
cat "$E2E/flipped.log"
grep -q "paths: cannot restore .*checksum" "$E2E/flipped.log"
grep -q "mv .*paths.dta .*paths.dta.bad" "$E2E/flipped.log"
test ! -e "$SHM"
# Bytes appended after the data: refused as well.
{ cat "$E2E/good.dta"; echo garbage; } > "$E2E/snapshots/paths.dta"
if "$COLLECTOR" -c "$E2E/dta.conf" --restore > "$E2E/appended.log" 2>&1; then
	echo "FAIL: collector restored a snapshot with bytes appended" >&2
	exit 1
fi
grep -q "paths: cannot restore .*invalid or corrupt" "$E2E/appended.log"
# Moved aside as told, the good copy restores.
cp "$E2E/good.dta" "$E2E/snapshots/paths.dta"
e2e_start_collector --restore
e2e_query verify --truth "$E2E/kw2.truth" --min-success 1

# The original report: a full file system (a 1 MiB tmpfs, where this
# machine lets us mount one). Checked after unmounting, so a failure does
# not leave the mount behind.
mkdir "$E2E/full"
if mount -t tmpfs -o size=1m,mode=0700 tmpfs "$E2E/full" 2>/dev/null; then
	sed "s#^snapshot_dir = .*#snapshot_dir = $E2E/full#" "$E2E/dta.conf" \
		> "$E2E/full.conf"
	# Killed, the collector leaves its region for the next to reattach.
	kill -KILL "$E2E_CPID"
	wait "$E2E_CPID" 2>/dev/null || true
	E2E_CPID=
	"$COLLECTOR" -c "$E2E/full.conf" > "$E2E/full.log" 2>&1 &
	pid=$!
	e2e_wait_ready "$E2E/full.log" "collector with a full snapshot_dir" ||
		{ kill "$pid"; umount "$E2E/full"; exit 1; }
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	left=$(ls -A "$E2E/full")
	umount "$E2E/full"
	cat "$E2E/full.log"
	e2e_expect "exit status with a full snapshot_dir" "$rc" 1
	e2e_expect "files left in the full snapshot_dir" "$left" ""
	grep -q "paths: snapshot .*: No space left on device" "$E2E/full.log"
	grep -q "keeping shared memory" "$E2E/full.log"
	test -e "$SHM"
	e2e_start_collector
	e2e_query verify --truth "$E2E/kw2.truth" --min-success 1
else
	echo "no tmpfs mount here: full file system case not run"
fi
e2e_stop_collector
e2e_pass
