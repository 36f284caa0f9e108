#!/bin/sh
# Who may stand behind the query socket, and who may read what from it
# (docs/security.md): an impostor of another uid is refused by dta-query;
# socket paths too long for a sockaddr_un are refused, not cut; the
# default directory is refused when others can write it, and the socket
# gets its mode from socket_mode, not the umask; the switch description
# goes only to the collector's uid or root. Needs root and setpriv (a
# second uid): skipped (77) without.
. "$(dirname "$0")/lib.sh"
e2e_init socket_security "$1"
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || {
	echo "SKIP: needs root and setpriv"; exit 77; }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
PROBE=$BUILD/tests/query_probe
chmod 0711 "$E2E" # others may pass through to the directories below

conf() { # extra [collector] lines
	cat <<EOF2
[collector]
name = e2e-sec-$$
${1-}

[structure paths]
primitive = key-write
slots = 4096
data = 4
EOF2
}

# An impostor in a directory anyone may write (like /tmp) is refused,
# with its uid named.
mkdir "$E2E/pub"
chmod 1777 "$E2E/pub"
# Not through the nobody function: in the background that is a subshell,
# and $! would be its pid, not the listener's (left running at cleanup).
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$PROBE" listen "$E2E/pub/dta.sock" '{"structures":[]}' \
	> "$E2E/impostor.out" 2>&1 &
E2E_PIDS=$!
i=0
until grep -q '^ready' "$E2E/impostor.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -le 200 ] || { echo "FAIL: impostor" >&2; exit 1; }
	sleep 0.05
done
if "$QUERY" --socket "$E2E/pub/dta.sock" info > "$E2E/imp.out" 2> "$E2E/imp.err"; then
	echo "FAIL: dta-query took the impostor's answer: $(cat "$E2E/imp.out")" >&2
	exit 1
fi
cat "$E2E/imp.err"
grep -q 'answered by a process of uid 65534, which is neither you' "$E2E/imp.err"

# A path over 107 bytes: refused by both, not cut to another path.
long=$E2E/$(head -c 100 /dev/zero | tr '\0' d).sock
conf > "$E2E/dta.conf"
rc=0
timeout 30 "$COLLECTOR" -c "$E2E/dta.conf" -s "$long" > "$E2E/long.log" 2>&1 || rc=$?
cat "$E2E/long.log"
e2e_expect "collector exit status with a ${#long}-byte socket path" $rc 1
grep -q 'a Unix socket path has at most 107 bytes' "$E2E/long.log"
rc=0
"$QUERY" --socket "$long" stats 2> "$E2E/long.err" || rc=$?
e2e_expect "dta-query exit status with it" $rc 3
grep -q 'a Unix socket path has at most 107' "$E2E/long.err"

# The default directory ($RUNTIME_DIRECTORY here, as under systemd) must
# not be writable by others...
mkdir "$E2E/rt"
chmod 0777 "$E2E/rt"
rc=0
RUNTIME_DIRECTORY=$E2E/rt timeout 30 "$COLLECTOR" -c "$E2E/dta.conf" \
	> "$E2E/rt.log" 2>&1 || rc=$?
cat "$E2E/rt.log"
e2e_expect "collector exit status with a world-writable runtime dir" $rc 1
grep -q "refusing the default socket directory $E2E/rt" "$E2E/rt.log"
# ... and when missing it is created 0750, the socket has socket_mode's
# mode (default 0660), both even under umask 0, and dta-query finds it.
rmdir "$E2E/rt"
export RUNTIME_DIRECTORY="$E2E/rt"
(umask 0 && exec "$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/collector.log" 2>&1) &
E2E_CPID=$!
e2e_wait_ready "$E2E/collector.log" dta-collector
sock=$E2E/rt/dta-e2e-sec-$$.sock
grep -q "^ready $sock\$" "$E2E/collector.log"
e2e_expect "runtime directory mode under umask 0" "$(stat -c %a "$E2E/rt")" 750
e2e_expect "socket mode under umask 0" "$(stat -c %a "$sock")" 660
e2e_query stats | grep -q '"structures":1'
unset RUNTIME_DIRECTORY
e2e_stop_collector

# A socket path that names something else is not deleted to make room.
echo precious > "$E2E/file"
rc=0
timeout 30 "$COLLECTOR" -c "$E2E/dta.conf" -s "$E2E/file" > "$E2E/file.log" 2>&1 || rc=$?
e2e_expect "collector exit status on a regular file" $rc 1
grep -q "$E2E/file exists and is not a socket" "$E2E/file.log"
e2e_expect "the file" "$(cat "$E2E/file")" precious

# Bad values for the new keys are refused, not guessed at.
for kv in "socket_mode = 0999" "socket_mode = 0066" "idle_timeout = soon" \
	  "stall_timeout = -1"; do
	conf "socket = $E2E/bad.sock
$kv" > "$E2E/bad.conf"
	rc=0
	timeout 30 "$COLLECTOR" -c "$E2E/bad.conf" > "$E2E/bad.log" 2>&1 || rc=$?
	e2e_expect "collector exit status with $kv" $rc 1
	grep -Eq "^dta-collector: (.*:[0-9]+: )?${kv%% *}[: ]" "$E2E/bad.log"
done

# The switch description: not for other users, even ones allowed on the
# socket (socket_mode 0666 here).
mkdir "$E2E/shared"
chmod 0755 "$E2E/shared"
conf "socket = $E2E/shared/c.sock
socket_mode = 0666" > "$E2E/dta.conf"
e2e_start_collector
e2e_expect "socket mode from socket_mode" "$(stat -c %a "$E2E/shared/c.sock")" 666
nobody "$QUERY" --socket "$E2E/shared/c.sock" stats | grep -q '"structures":1'
rc=0
nobody "$QUERY" --socket "$E2E/shared/c.sock" switch > /dev/null 2> "$E2E/sw.err" || rc=$?
cat "$E2E/sw.err"
e2e_expect "dta-query switch exit status as uid 65534" $rc 3
grep -q "switch: only the collector's user (uid 0) and root may read" "$E2E/sw.err"
# Root may (and hears that switch mode is off, or that RDMA is absent).
"$QUERY" --socket "$E2E/shared/c.sock" switch > "$E2E/sw.root" 2>&1 || true
cat "$E2E/sw.root"
if grep -q "only the collector's user" "$E2E/sw.root"; then
	echo "FAIL: root was refused the switch description" >&2
	exit 1
fi
grep -Eiq 'switch|rdma' "$E2E/sw.root"
e2e_stop_collector
e2e_pass
