#!/bin/sh
# Snapshots are the collector's own (docs/security.md): a snapshot_dir
# another user owns or can write, or a symlink in its place, is refused at
# start and at every snapshot, never followed; --restore refuses a snapshot
# file another user owns or group or others can write, and says why.
# Needs root: the files must be owned by another user (nobody).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (files owned by nobody)"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
e2e_init snapshot_trust "$1"
PUB=$E2E/pub # a shared parent: mode 1777, like /tmp
mkdir -m 1777 "$PUB"
chmod 1777 "$PUB"
SNAP=$PUB/snap
{
	e2e_conf_head | sed "s|^snapshot_dir = .*|snapshot_dir = $SNAP|"
	cat <<EOF
[structure paths]
primitive = key-write
slots = 1M
data = 20
EOF
} > "$E2E/dta.conf"
SHM=/dev/shm/dta-e2e-snapshot_trust-$$.paths

# 1. Pre-created by nobody, mode 0777: refused at start, with the reason.
mkdir -m 0777 "$SNAP"
chmod 0777 "$SNAP"
chown nobody "$SNAP"
e2e_collector_refuses "$E2E/dta.conf" "refusing $SNAP: it must be a directory owned by us"
grep -q "uid $(id -u nobody), mode 0777" "$E2E/refused.log"
test ! -e "$SHM"
# Root's but others may write it: refused as well.
chown root "$SNAP"
e2e_collector_refuses "$E2E/dta.conf" "refusing $SNAP: .*mode 0777"
rmdir "$SNAP"

# 2. A symlink planted by nobody, to a directory that would pass: not
# followed, and nothing written through it.
mkdir -m 0700 "$E2E/target"
ln -s "$E2E/target" "$SNAP"
chown -h nobody "$SNAP"
e2e_collector_refuses "$E2E/dta.conf" "refusing $SNAP: it is a symbolic link"
rm "$SNAP"
mkdir -m 0700 "$SNAP"

# 3. Replaced by a symlink while the collector runs: the snapshot request
# fails naming why, and nothing lands in the link's target; at shutdown
# the snapshot fails too, so the shared memory is kept.
e2e_start_collector
e2e_start_translator
e2e_gen -t kw -n 500 -r 100000 -T "$E2E/kw.truth"
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
mv "$SNAP" "$E2E/real"
ln -s "$E2E/target" "$SNAP"
chown -h nobody "$SNAP"
if e2e_query snapshot > "$E2E/answer.json"; then
	echo "FAIL: snapshot written through a symlink" >&2; cat "$E2E/answer.json" >&2; exit 1
fi
cat "$E2E/answer.json"; echo
grep -q '"error":"refusing [^"]*: it is a symbolic link' "$E2E/answer.json"
e2e_expect "files in the symlink's target" "$(ls -A "$E2E/target" | wc -l)" 0
# Back in place: the snapshot is written there.
rm "$SNAP"
mv "$E2E/real" "$SNAP"
e2e_query snapshot > "$E2E/answer.json"
grep -q '"ok":true' "$E2E/answer.json"
e2e_stop_translator
e2e_stop_collector
test ! -e "$SHM"
e2e_expect "snapshot file mode" "$(stat -c %a "$SNAP/paths.dta")" 600

# 4. --restore: a snapshot file nobody owns is not loaded.
cp -p "$SNAP/paths.dta" "$E2E/good.dta"
chown nobody "$SNAP/paths.dta"
if "$COLLECTOR" -c "$E2E/dta.conf" --restore > "$E2E/r1.log" 2>&1; then
	echo "FAIL: restored a file owned by nobody" >&2; cat "$E2E/r1.log" >&2; exit 1
fi
cat "$E2E/r1.log"
grep -q "paths: cannot restore $SNAP/paths.dta: refusing paths.dta: it must be a regular file owned by us .*uid $(id -u nobody), mode 0600" "$E2E/r1.log"
test ! -e "$SHM"
# Ours, but others may write it: refused.
chown root "$SNAP/paths.dta"
chmod 0622 "$SNAP/paths.dta"
if "$COLLECTOR" -c "$E2E/dta.conf" --restore > "$E2E/r2.log" 2>&1; then
	echo "FAIL: restored a file others can write" >&2; cat "$E2E/r2.log" >&2; exit 1
fi
grep -q "refusing paths.dta: .*mode 0622" "$E2E/r2.log"
# A symlink to a good file: not followed.
rm "$SNAP/paths.dta"
ln -s "$E2E/good.dta" "$SNAP/paths.dta"
if "$COLLECTOR" -c "$E2E/dta.conf" --restore > "$E2E/r3.log" 2>&1; then
	echo "FAIL: restored through a symlink" >&2; cat "$E2E/r3.log" >&2; exit 1
fi
grep -q "refusing paths.dta: it is a symbolic link" "$E2E/r3.log"
# The good file: restored, and its data answered.
rm "$SNAP/paths.dta"
cp -p "$E2E/good.dta" "$SNAP/paths.dta"
e2e_start_collector --restore
grep -q "paths: restored from $SNAP/paths.dta" "$E2E/collector.log"
e2e_query verify --truth "$E2E/kw.truth" --min-success 1
e2e_stop_collector
e2e_pass
