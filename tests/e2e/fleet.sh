#!/bin/sh
# A fleet: structures partitioned over two collectors of one configuration,
# asked through config: (dta-query -c). While both answer, every answer is
# exact. Then one collector dies (SIGKILL) and another time freezes
# (SIGSTOP, found out by the client's timeout): key lookups of its share
# say "unavailable" and the others stay exact, the Append fan-out (ap tail
# NAME all) and the Key-Increment total answer from the other collector
# and are marked partial (JSON "partial", "missing", exit status 4). Once
# the collector is back, the same client calls answer whole again.
#
# What each collector holds is learnt independently of the routing under
# test: each collector's own socket, asked directly, finds only its share.
. "$(dirname "$0")/lib.sh"
e2e_init fleet "$1"
cat > "$E2E/dta.conf" <<EOF
[collector]
name = e2e-fleet-$$
socket = $E2E/c0.sock
[collector east]
name = e2e-fleet-$$-east
socket = $E2E/c1.sock

EOF
e2e_fleet_structures >> "$E2E/dta.conf"
e2e_start_pair
e2e_fleet_load

# The truth, independently of the client: keys and their data; each
# collector's share from its own socket (it finds only its keys).
for i in 0 1; do
	"$QUERY" -c "$E2E/dta.conf" --socket "$E2E/c$i.sock" --json \
		kw get paths - < "$E2E/kw.keys" > "$E2E/kw.c$i" || true
	"$QUERY" -c "$E2E/dta.conf" --socket "$E2E/c$i.sock" --json \
		ki total counters > "$E2E/ki.c$i"
done
kisum=$(awk '$1 == "ki" { s += $3 } END { print s }' "$E2E/ki.truth")

# check WHAT FILE STATUS MISSING: dta-query's JSON lines of kw get for
# every key; keys on a collector in MISSING must be unavailable, all
# others found with the truth's data. Prints what it counted.
check_kw() {
	/usr/bin/python3 - "$E2E" "$2" "$3" "$4" <<'PY'
import json, sys
d, out, status, missing = sys.argv[1:5]
truth = {}
for l in open(d + "/kw.truth"):
    w = l.split()
    if w and w[0] == "kw":
        truth[w[1].lower()] = w[2].lower()
home = {}
for i in (0, 1):
    for l in open("%s/kw.c%d" % (d, i)):
        o = json.loads(l)
        if o["status"] == "found" and o["data"] == truth[o["key"]]:
            assert o["key"] not in home, "key found on both collectors"
            home[o["key"]] = "default" if i == 0 else "east"
assert len(home) == len(truth), "a key on neither collector: %d of %d" % (len(home), len(truth))
gone = set(missing.split(",")) if missing else set()
lines = [json.loads(l) for l in open(out)]
assert len(lines) == len(truth), "%d answers for %d keys" % (len(lines), len(truth))
n = {"found": 0, "unavailable": 0}
for o in lines:
    want = "unavailable" if home[o["key"]] in gone else "found"
    assert o["status"] == want, "key %s on %s: %s, want %s" % (o["key"], home[o["key"]], o["status"], want)
    if want == "found":
        assert o["data"] == truth[o["key"]], "key %s: wrong data" % o["key"]
    n[want] += 1
print("kw: %d found, %d unavailable, exit status %s (east holds %d)" % (
    n["found"], n["unavailable"], status, sum(1 for v in home.values() if v == "east")))
if gone:
    assert n["unavailable"] > 0 and n["found"] > 0
    assert status == "4", "exit status %s, want 4 (partial)" % status
else:
    assert status == "0", "exit status %s, want 0" % status
PY
}

# check_ap FILE STATUS MISSING: ap tail events all --json; lists of a
# missing collector (east: lists 2, 3) absent, the others exactly the
# truth's entries in order.
check_ap() {
	/usr/bin/python3 - "$E2E" "$1" "$2" "$3" <<'PY'
import json, sys
d, out, status, missing = sys.argv[1:5]
truth = {}
for l in open(d + "/ap.truth"):
    w = l.split()
    if w and w[0] == "ap":
        truth.setdefault(int(w[1]), []).append(w[2].lower())
o = json.loads(open(out).read())
got = {x["list"]: x["entries"] for x in o["lists"]}
want_lists = [0, 1] if missing == "east" else [0, 1, 2, 3]
assert sorted(got) == want_lists, "lists %s, want %s" % (sorted(got), want_lists)
for l in want_lists:
    assert got[l] == truth[l], "list %d: %d entries, want %d exactly" % (l, len(got[l]), len(truth[l]))
assert o["partial"] == bool(missing) and o["missing"] == ([missing] if missing else []), o
assert status == ("4" if missing else "0"), "exit status " + status
print("ap: lists %s exact (%s entries), partial %s, exit status %s" % (
    want_lists, sum(len(got[l]) for l in want_lists), o["partial"], status))
PY
}

# check_ki FILE STATUS WANT MISSING
check_ki() {
	/usr/bin/python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, sys
out, status, want, missing = sys.argv[1:5]
o = json.loads(open(out).read())
assert o["total"] == int(want), "total %d, want %s" % (o["total"], want)
assert o["partial"] == bool(missing) and o["missing"] == ([missing] if missing else []), o
assert status == ("4" if missing else "0"), "exit status " + status
print("ki total %d, partial %s, exit status %s" % (o["total"], o["partial"], status))
PY
}

# fleet_ask TAG: the three questions through config:, exit statuses kept.
fleet_ask() {
	set +e
	e2e_query --json --timeout 2000 kw get paths - < "$E2E/kw.keys" \
		> "$E2E/kw.$1" 2> "$E2E/kw.$1.err"
	echo $? > "$E2E/kw.$1.rc"
	e2e_query --json --timeout 2000 ap tail events all -n 100000 \
		> "$E2E/ap.$1" 2> "$E2E/ap.$1.err"
	echo $? > "$E2E/ap.$1.rc"
	e2e_query --json --timeout 2000 ki total counters > "$E2E/ki.$1" \
		2> "$E2E/ki.$1.err"
	echo $? > "$E2E/ki.$1.rc"
	set -e
}

t0=$(sed 's/{"total":\([0-9]*\).*/\1/' "$E2E/ki.c0")
t1=$(sed 's/{"total":\([0-9]*\).*/\1/' "$E2E/ki.c1")
e2e_expect "Key-Increment totals of both collectors add up to every increment sent" \
	$((t0 + t1)) "$kisum"
test "$t0" -gt 0 && test "$t1" -gt 0

fleet_ask whole
check_kw whole "$E2E/kw.whole" "$(cat "$E2E/kw.whole.rc")" ""
check_ap "$E2E/ap.whole" "$(cat "$E2E/ap.whole.rc")" ""
check_ki "$E2E/ki.whole" "$(cat "$E2E/ki.whole.rc")" "$kisum" ""

# East dies: its socket refuses (the file stays behind), its regions
# stay in shared memory for the next east to reattach.
e2e_kill_east
fleet_ask dead
cat "$E2E/kw.dead.err" >&2
grep -q "collector east did not answer" "$E2E/kw.dead.err"
check_kw dead "$E2E/kw.dead" "$(cat "$E2E/kw.dead.rc")" east
check_ap "$E2E/ap.dead" "$(cat "$E2E/ap.dead.rc")" east
check_ki "$E2E/ki.dead" "$(cat "$E2E/ki.dead.rc")" "$t0" east
# A question only east can answer is an error naming it.
if e2e_query ap tail events 3 > /dev/null 2> "$E2E/one.err"; then
	echo "FAIL: list 3 of a dead collector answered" >&2
	exit 1
fi
grep -q "east" "$E2E/one.err"

# East back, with what it held.
e2e_restart_east
fleet_ask back
check_kw back "$E2E/kw.back" "$(cat "$E2E/kw.back.rc")" ""
check_ap "$E2E/ap.back" "$(cat "$E2E/ap.back.rc")" ""
check_ki "$E2E/ki.back" "$(cat "$E2E/ki.back.rc")" "$kisum" ""

# East frozen: it accepts connections but never answers; the client's
# timeout (an upper bound, 2 s) makes it count as not answering.
set -- $E2E_PIDS
kill -STOP "$2"
fleet_ask frozen
kill -CONT "$2"
check_kw frozen "$E2E/kw.frozen" "$(cat "$E2E/kw.frozen.rc")" east
check_ap "$E2E/ap.frozen" "$(cat "$E2E/ap.frozen.rc")" east
check_ki "$E2E/ki.frozen" "$(cat "$E2E/ki.frozen.rc")" "$t0" east
grep -q "no answer within 2000 ms" "$E2E/kw.frozen.err"

e2e_stop_pair
e2e_pass
