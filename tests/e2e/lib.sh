# Shared by the end-to-end tests: real processes, real UDP sockets.
# Usage in a test: . "$(dirname "$0")/lib.sh"; e2e_init NAME BUILD_DIR
# Then write "$E2E/dta.conf" (e2e_conf helps), e2e_start, run dta-gen and
# dta-query, and call e2e_pass at the end. Any failing command fails the test.
#
# No test may pass or fail with the machine's load:
#  - e2e_gen sends with dta-gen --sync: in windows the translator's receive
#    queue surely holds, each sent only when the translator has accounted
#    for everything before it. Loss-free by construction.
#  - e2e_stop_translator checks the accounting invariant exactly (reports
#    sent = reports received + reports lost, docs/translator.md) and that
#    nothing was lost, unless E2E_LOSSY=yes; on failure it prints the
#    translator's counters and the kernel's UDP drops.
#  - What only happens on a timer (partial Append batches) is waited for
#    with e2e_retry, never with a fixed sleep.
set -eu

e2e_init() {
	E2E_NAME=$1
	BUILD=$2
	COLLECTOR=$BUILD/collector/dta-collector
	TRANSLATOR=$BUILD/translator/dta-translator
	GEN=$BUILD/gen/dta-gen
	QUERY=$BUILD/query/dta-query
	E2E=$(mktemp -d "${TMPDIR:-/tmp}/dta-e2e-$E2E_NAME.XXXXXX")
	# Two ports per test, E2E_PORT and E2E_PORT + 1 (INT and second
	# translators use the next one): tests started one after the other
	# have neighbouring PIDs, and with one port per PID a test's
	# E2E_PORT + 1 was its neighbour's E2E_PORT; the translators'
	# SO_REUSEPORT then split one test's datagrams between them.
	E2E_PORT=$((42000 + ($$ % 10000) * 2))
	# TCP listeners (metrics, API, TLS queries) take ports the kernel
	# says are free now: E2E_PORT's range is inside the ephemeral one,
	# where any test's outgoing connection may hold it.
	read -r E2E_TCP0 E2E_TCP1 E2E_TCP2 <<EOF_TCP
$(e2e_free_ports 3)
EOF_TCP
	E2E_RCVBUF0=$(e2e_rcvbuf_errors)
	E2E_BACKLOG0=$(e2e_backlog_drops)
	E2E_CPID=
	E2E_TPID=
	E2E_PIDS= # more processes a test started, killed on exit
	# A command the translator and dta-gen run under (e.g. "ip netns
	# exec NS"), empty for none. It must exec them: $! is then theirs.
	E2E_WRAP=
	E2E_LOSSY=no
	trap e2e_cleanup EXIT INT TERM
}

# The kernel's count of UDP datagrams dropped for a full receive queue.
e2e_rcvbuf_errors() {
	awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
	              else print $c["RcvbufErrors"] }' /proc/net/snmp
}

e2e_counters() {
	echo "--- translator counters:"
	cat "$E2E/translator.out" 2>/dev/null || cat "$E2E/translator.json" 2>/dev/null || true
	echo
	echo "--- kernel UDP RcvbufErrors: $(e2e_rcvbuf_errors) (at start: $E2E_RCVBUF0)," \
	     "backlog drops: $(e2e_backlog_drops) (at start: $E2E_BACKLOG0)"
}

# Datagrams dropped before any socket: per-CPU backlog full (softnet_stat).
e2e_backlog_drops() {
	s=0; for x in $(cut -d" " -f2 /proc/net/softnet_stat 2>/dev/null); do s=$((s + 0x$x)); done; echo $s ||
		echo "?"
}

e2e_cleanup() {
	rc=$?
	for p in $E2E_TPID $E2E_CPID $E2E_PIDS; do
		kill -CONT "$p" 2>/dev/null || true # a test may have frozen it
		kill "$p" 2>/dev/null || true
	done
	for p in $E2E_TPID $E2E_CPID $E2E_PIDS; do
		e2e_reap "$p" 20 || { echo "pid $p ignored SIGTERM; killed" >&2; rc=1; }
	done
	if [ $rc -ne 0 ]; then
		e2e_counters
		echo "--- $E2E_NAME failed; logs:"
		for f in "$E2E"/*.log; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
		done
	fi
	rm -rf "$E2E"
	# A collector keeps its regions when a snapshot fails: do not leave
	# this test's behind.
	rm -f /dev/shm/dta-e2e-"$E2E_NAME"-$$.* /dev/shm/dta-e2e-"$E2E_NAME"-$$-*
	exit $rc
}

# Wait up to SECONDS for PID to exit; then SIGKILL it and return 1, so a
# process that hangs on shutdown fails the test instead of hanging it.
e2e_reap() { # PID SECONDS
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $(($2 * 10)) ]; then
			kill -KILL "$1" 2>/dev/null || true
			wait "$1" 2>/dev/null || true
			return 1
		fi
		sleep 0.1
	done
	wait "$1" 2>/dev/null || true
}

# Stop PID with SIGTERM; fail if it does not exit within 60 s or exits
# with an error.
e2e_term() { # PID WHAT
	kill -TERM "$1"
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "FAIL: $2 did not exit within 60 s of SIGTERM" >&2
		kill -KILL "$1"
		wait "$1" 2>/dev/null || true
		return 1
	fi
	wait "$1"
}

# Collector and translator sections for this test's private instance.
e2e_conf_head() {
	cat <<EOF2
[collector]
name = e2e-$E2E_NAME-$$
socket = $E2E/collector.sock
snapshot_dir = $E2E/snapshots

[translator]
port = $E2E_PORT
bind = 127.0.0.1
EOF2
	# The receive path under test (ctest runs some scripts once per
	# mode: e2e_NAME_uring); default: the program's.
	[ -z "${DTA_E2E_RX:-}" ] || echo "rx = $DTA_E2E_RX"
}

# The head plus an [int] section on port INT_PORT mapping every role, with
# its structures: PATHS_BODY the lines of [structure paths] after its
# primitive line is PATH_PRIMITIVE; EXTRA_INT more [int] lines; the hop
# records take HOP_SLOTS slots and the events LISTS lists.
e2e_int_conf() { # PATH_PRIMITIVE PATHS_BODY HOP_SLOTS LISTS EXTRA_INT
	e2e_conf_head
	cat <<EOF2
[int]
port = $INT_PORT
path = paths
hops = hops
events = events
flow_counts = flows
queue_counts = queues
ttl_init = 64
$5

[structure paths]
primitive = $1
$2
[structure hops]
primitive = key-write
slots = $3
data = 16
[structure events]
primitive = append
entry = 32
lists = $4
batch = 1
[structure flows]
primitive = key-increment
width = 4K
[structure queues]
primitive = key-increment
width = 4K
EOF2
}

# The metrics tests' configuration: e2e_int_conf's structures and every
# other primitive (Append lists 100-101, Postcarding), so that every
# family of counters moves.
e2e_metrics_conf() {
	e2e_int_conf key-write "slots = 4K
data = 20" 16K 1 ""
	cat <<EOF2
[structure log]
primitive = append
lists = 2
first_list = 100
batches = 1024
entry = 8

[structure pcs]
primitive = postcard
chunks = 64K
values = 1-80
EOF2
}

e2e_wait_ready() { # LOG WHAT
	i=0
	while ! grep -q '^ready' "$1" 2>/dev/null; do
		i=$((i + 1))
		# A minute: a loaded machine may take long to map the regions.
		[ $i -le 1200 ] || { echo "$2 did not start" >&2; cat "$1" >&2; return 1; }
		sleep 0.05
	done
}

e2e_start_collector() { # extra args
	: > "$E2E/collector.log"
	"$COLLECTOR" -c "$E2E/dta.conf" "$@" >>"$E2E/collector.log" 2>&1 &
	E2E_CPID=$!
	e2e_wait_ready "$E2E/collector.log" dta-collector
}

e2e_start_translator() { # extra args
	# Emptied here, not by the background job's redirection: that runs
	# after the fork, so the wait below could see the previous
	# translator's "ready" and go on before this one listens.
	: > "$E2E/translator.log"
	: > "$E2E/translator.out"
	rm -f "$E2E/translator.json"
	echo 0 > "$E2E/sent" # reports sent to this translator (e2e_gen)
	$E2E_WRAP "$TRANSLATOR" -c "$E2E/dta.conf" -o "$E2E/translator.json" "$@" \
		>>"$E2E/translator.out" 2>>"$E2E/translator.log" &
	E2E_TPID=$!
	e2e_wait_ready "$E2E/translator.out" dta-translator
}

e2e_stop_translator() {
	p=$E2E_TPID
	E2E_TPID=
	e2e_term "$p" dta-translator
	e2e_accounting
}

# Reports sent = reports received + reports lost (docs/translator.md
# "Loss accounting"), exactly; and none lost unless E2E_LOSSY=yes. For
# a translator whose reports were counted in $E2E/sent (started with
# e2e_start_translator, or a test that writes 0 there).
e2e_accounting() {
	[ -f "$E2E/sent" ] || return 0
	sent=$(cat "$E2E/sent")
	rm -f "$E2E/sent"
	got=$(($(e2e_stat reports_in) - $(e2e_stat seq_duplicates) - \
	       $(e2e_stat seq_suspect)))
	lost=$(e2e_stat seq_lost)
	drops=$(e2e_stat socket_drops)
	echo "accounting: $sent reports sent, $got received, $lost lost" \
	     "($drops datagrams dropped by the kernel)"
	if [ $((got + lost)) -ne "$sent" ]; then
		echo "FAIL: reports sent ($sent) != received ($got) + lost ($lost)" >&2
		e2e_counters >&2
		exit 1
	fi
	if [ "$E2E_LOSSY" != yes ] && [ "$lost" != 0 -o "$drops" != 0 ]; then
		echo "FAIL: reports lost in a test that must lose none" >&2
		e2e_counters >&2
		exit 1
	fi
}

e2e_stop_collector() {
	p=$E2E_CPID
	E2E_CPID=
	e2e_term "$p" dta-collector
}

# A counter from the translator's final JSON (after e2e_stop_translator).
e2e_stat() {
	e2e_json_num "$1" < "$E2E/translator.out"
}

e2e_expect() { # WHAT GOT WANT
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got '$2', want '$3'" >&2
		exit 1
	fi
	echo "ok: $1 = $2"
}

# dta-gen to this test's translator, in windows it surely holds (--sync);
# adds what it sent to $E2E/sent.
e2e_gen() {
	$E2E_WRAP "$GEN" -d "127.0.0.1:$E2E_PORT" --sync "$E2E/translator.json" "$@" \
		2>"$E2E/gen.last" || { cat "$E2E/gen.last" >> "$E2E/gen.log"; return 1; }
	cat "$E2E/gen.last" >> "$E2E/gen.log"
	n=$(sed -n 's/^dta-gen: \([0-9]*\) reports in.*/\1/p' "$E2E/gen.last")
	[ ! -f "$E2E/sent" ] || echo $(($(cat "$E2E/sent") + n)) > "$E2E/sent"
}

# Run a command until it succeeds, for up to 60 s of wall time (what
# happens on the translator's timers; a slow command, as under emulation,
# does not stretch the limit); then once more, for its output and status.
e2e_retry() {
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt $end ]; do
		if "$@" > /dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	"$@"
}
e2e_query() { "$QUERY" -c "$E2E/dta.conf" "$@"; }

# The four workloads (N reports of kw, pc flows, ap entries over LISTS
# lists, ki reports), sent with GEN (e2e_gen or a wrapper), then every
# answer checked exact: e2e_four GEN N LISTS RATE
e2e_four() {
	$1 -t kw -n "$2" -k $(($2 / 2)) -r "$4" -T "$E2E/kw.truth"
	$1 -t pc -n $(($2 / 4)) -r "$4" -T "$E2E/pc.truth"
	$1 -t ap -n "$2" --lists "$3" --entry 8 -r "$4" -T "$E2E/ap.truth"
	$1 -t ki -n $(($2 * 3 / 2)) -k $(($2 * 3 / 20)) -r "$4" -T "$E2E/ki.truth"
	for t in kw pc ap ki; do
		e2e_retry e2e_query verify --truth "$E2E/$t.truth" --min-success 1
	done
}

# Start [collector] and [collector east] of $E2E/dta.conf (logs c0.log and
# c1.log); their pids are in E2E_PIDS. Stop them with e2e_stop_pair.
e2e_start_pair() {
	"$COLLECTOR" -c "$E2E/dta.conf" > "$E2E/c0.log" 2>&1 &
	E2E_PIDS=$!
	"$COLLECTOR" -c "$E2E/dta.conf" --collector east > "$E2E/c1.log" 2>&1 &
	E2E_PIDS="$E2E_PIDS $!"
	e2e_wait_ready "$E2E/c0.log" "collector 0"
	e2e_wait_ready "$E2E/c1.log" "collector east"
}

# [collector east] of e2e_start_pair started again (after e2e_kill_east).
# Its log is emptied first, here: the shell opens it for the new process
# only once that runs, and the wait would see the last one's "ready".
e2e_restart_east() {
	: > "$E2E/c1.log"
	"$COLLECTOR" -c "$E2E/dta.conf" --collector east >> "$E2E/c1.log" 2>&1 &
	E2E_PIDS="$E2E_PIDS $!"
	e2e_wait_ready "$E2E/c1.log" "collector east"
}

e2e_stop_pair() {
	set -- $E2E_PIDS
	E2E_PIDS=
	e2e_term "$1" "collector 0"
	e2e_term "$2" "collector east"
}

# The four structures partitioned over [collector] and [collector east]
# (Key-Increment on east only): e2e_partitioned SLOTS CHUNKS BATCHES WIDTH
e2e_partitioned() {
	cat <<EOF2
[structure paths]
primitive = key-write
slots = $1
data = 20
collector = default, east

[structure postcards]
primitive = postcard
chunks = $2
values = 1-80
collector = east, default

[structure events]
primitive = append
lists = 2
entry = 8
batches = $3
collector = default, east

[structure counters]
primitive = key-increment
width = $4
collector = east
EOF2
}

e2e_pass() {
	echo "PASS: $E2E_NAME"
}

# TLS certificates for remote-query tests (tests/tls_certs.sh): DIR gets
# ca.pem, server.pem (localhost, 127.0.0.1), wrongname.pem, rogue.pem
# (another CA's) and NAME.pem for each client NAME given, with their .key
# files. Exits 77 (skip) without certtool.
e2e_tls_certs() { # DIR NAME[=CN]..
	command -v certtool >/dev/null ||
		{ echo "SKIP: certtool (gnutls-bin) is not installed"; exit 77; }
	sh "$(dirname "$0")/../tls_certs.sh" "$@"
}

# Ports the kernel gives out as free now, N of them, on one line (for
# servers whose ports cannot follow E2E_PORT; other tests run beside).
e2e_free_ports() { # N
	/usr/bin/python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# ClickHouse for the exporter's tests: CH and CHC set to the server and
# client, and curl present; or the test skips (exit 77) saying which.
e2e_need_clickhouse() {
	CH=$(command -v clickhouse-server || true)
	CHC=$(command -v clickhouse-client || true)
	if [ -z "$CH" ] || [ -z "$CHC" ]; then
		echo "SKIP: clickhouse-server/clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
		exit 77
	fi
	command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
}

# A private clickhouse-server's configuration and directories in DIR:
# loopback only, its own HTTP, native and interserver ports, user
# "default" without password from 127.0.0.1, and a cluster "dta" of one
# shard per native port SHARD_TCP given (none given: this server alone).
e2e_ch_conf() { # DIR HTTP TCP INTERSERVER [SHARD_TCP]...
	_d=$1 _http=$2 _tcp=$3 _is=$4
	shift 4
	[ $# -gt 0 ] || set -- "$_tcp"
	mkdir -p "$_d/data" "$_d/tmp" "$_d/user_files" "$_d/log"
	{
		cat <<EOF2
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$_d/log/server.log</log>
    <errorlog>$_d/log/err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$_http</http_port>
  <tcp_port>$_tcp</tcp_port>
  <interserver_http_port>$_is</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <path>$_d/data/</path>
  <tmp_path>$_d/tmp/</tmp_path>
  <user_files_path>$_d/user_files/</user_files_path>
  <format_schema_path>$_d/format_schemas/</format_schema_path>
  <users_config>$_d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <remote_servers>
    <dta>
EOF2
		for _p; do
			echo "      <shard><replica><host>127.0.0.1</host><port>$_p</port></replica></shard>"
		done
		cat <<EOF2
    </dta>
  </remote_servers>
</yandex>
EOF2
	} > "$_d/config.xml"
	cat > "$_d/users.xml" <<EOF2
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries>
    <errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows>
    <execution_time>0</execution_time></interval></default></quotas>
</yandex>
EOF2
}

# Start the clickhouse-server configured in DIR (e2e_ch_conf; its output
# in DIR.log) and wait until HTTP port HTTP answers /ping; fail showing
# its error log if it does not within 120 s. Its pid in E2E_CH_PID (and
# in E2E_PIDS, stopped on exit).
e2e_ch_start() { # DIR HTTP
	"$CH" --config-file="$1/config.xml" > "$1.log" 2>&1 &
	E2E_CH_PID=$!
	E2E_PIDS="$E2E_PIDS $!"
	_i=0
	until [ "$(curl -s "http://127.0.0.1:$2/ping" 2>/dev/null)" = "Ok." ]; do
		_i=$((_i + 1))
		[ $_i -le 1200 ] || { echo "FAIL: clickhouse-server in $1 did not start" >&2
			tail -20 "$1/log/err.log" >&2; return 1; }
		sleep 0.1
	done
}

# The fleet tests' [translator] and structures: Key-Write, Append and
# Key-Increment, each spread over [collector] and [collector east].
e2e_fleet_structures() {
	cat <<EOF2
[translator]
port = $E2E_PORT
bind = 127.0.0.1

[structure paths]
primitive = key-write
slots = 1M
data = 20
collector = default, east

[structure events]
primitive = append
lists = 2
entry = 8
batches = 1024
collector = default, east

[structure counters]
primitive = key-increment
width = 64K
collector = default, east
EOF2
}

# The fleet tests' workload into e2e_fleet_structures, through a
# translator started and stopped here: truths in kw.truth, ap.truth,
# ki.truth, each waited for until verify finds it; the Key-Write keys
# one a line in kw.keys.
e2e_fleet_load() {
	e2e_start_translator -q
	e2e_gen -t kw -n 4000 -k 2000 -r 50000 -T "$E2E/kw.truth"
	e2e_gen -t ap -n 4000 --lists 4 --entry 8 -r 50000 -T "$E2E/ap.truth"
	e2e_gen -t ki -n 6000 -k 600 -r 50000 -T "$E2E/ki.truth"
	for _t in kw ap ki; do
		e2e_retry e2e_query verify --truth "$E2E/$_t.truth" --min-success 1
	done
	e2e_stop_translator
	awk '$1 == "kw" { print "0x" $2 }' "$E2E/kw.truth" > "$E2E/kw.keys"
}

# The client's TLS identity for tls:// and endpoint targets: the CA and
# certificate NAME made by e2e_tls_certs or tls_certs.sh in PKI.
e2e_tls_client() { # PKI NAME
	DTA_TLS_CA=$1/ca.pem
	DTA_TLS_CERT=$1/$2.pem
	DTA_TLS_KEY=$1/$2.key
	export DTA_TLS_CA DTA_TLS_CERT DTA_TLS_KEY
}

# Ask the fleet through VIA (socket, endpoint): kw get of every key, ap
# tail of every list, ki total, each with --timeout MS; the outputs and
# exit statuses in TAG.VIA, stderr in TAG.VIA.err.
e2e_fleet_ask() { # VIA TAG MS
	set +e
	{
		e2e_query --via "$1" --json --timeout "$3" kw get paths - \
			< "$E2E/kw.keys"
		echo "kw exit $?"
		e2e_query --via "$1" --json --timeout "$3" ap tail events all \
			-n 100000
		echo "ap exit $?"
		e2e_query --via "$1" --json --timeout "$3" ki total counters
		echo "ki exit $?"
	} > "$E2E/$2.$1" 2> "$E2E/$2.$1.err"
	set -e
}

# Kill [collector east] of e2e_start_pair (SIGKILL: no clean shutdown);
# [collector] runs on.
e2e_kill_east() {
	set -- $E2E_PIDS
	E2E_PIDS=$1
	kill -KILL "$2"
	wait "$2" 2>/dev/null || true
}

# A waiter (tests/tools/client_wait PROBE) on STRUCTURE of TARGET past
# sequence SEQ, then 20 immediate Key-Write reports from reporter REP:
# the waiter must be woken with another sequence, "moved NEW" (NEW in
# E2E_WOKEN). WHAT names the case in messages.
e2e_wake() { # PROBE TARGET STRUCTURE SEQ REP WHAT
	"$1" "$2" "$3" "$4" 600000 > "$E2E/woken" 2> "$E2E/probe.log" &
	_w=$!
	E2E_PIDS="$E2E_PIDS $_w"
	e2e_wait_ready "$E2E/probe.log" "$6: the wait probe"
	e2e_gen -t kw -n 20 -k 20 -r 10000 --immediate -s "$5" --reporter "$5"
	wait $_w || { echo "FAIL: $6: the waiter failed" >&2
		cat "$E2E/woken" "$E2E/probe.log" >&2; exit 1; }
	E2E_PIDS=$(echo " $E2E_PIDS " | sed "s/ $_w / /")
	_s=$4 _what=$6
	set -- $(cat "$E2E/woken") x x
	[ "$1" = moved ] && [ "$2" != "$_s" ] ||
		{ echo "FAIL: $_what: woken with '$(cat "$E2E/woken")'" >&2; exit 1; }
	E2E_WOKEN=$2
}

# The client tests' structures, one of each primitive: Key-Write "paths"
# of SLOTS slots with a path schema, Postcarding "postcards", Append
# "events" (2 lists of 64 batches) and Key-Increment "counters" of WIDTH
# (3 rows, 2 banks).
e2e_client_structures() { # SLOTS WIDTH
	cat <<EOF2
[structure paths]
primitive = key-write
slots = $1
data = 20
schema = path:u32[5]

[structure postcards]
primitive = postcard
chunks = 64K
values = 1-80

[structure events]
primitive = append
lists = 2
batches = 64
entry = 8

[structure counters]
primitive = key-increment
width = $2
rows = 3
banks = 2
EOF2
}

# The number KEY of the flat JSON object on stdin (the programs' stats).
e2e_json_num() { # KEY
	tr ',{}' '\n\n\n' | sed -n "s/^\"$1\":\([0-9]*\)\$/\1/p"
}

# A counter of the collector's `stats` answer.
e2e_coll_stat() { # KEY
	e2e_query stats | e2e_json_num "$1"
}

# The epoch tests' structure, after a blank line: Key-Increment
# "counters", WIDTH x ROWS, two banks switched every 2 s (epoch = 2).
e2e_epoch_counters() { # WIDTH ROWS
	cat <<EOF2

[structure counters]
primitive = key-increment
width = $1
rows = $2
banks = 2
epoch = 2
EOF2
}

# dta-collector must refuse to start with configuration CONF, saying
# something that matches PATTERN (grep); its output in refused.log.
e2e_collector_refuses() { # CONF PATTERN
	if "$COLLECTOR" -c "$1" > "$E2E/refused.log" 2>&1; then
		echo "FAIL: the collector started with: $(grep -v '^\[' "$1" | head -n 8)" >&2
		exit 1
	fi
	grep -q "$2" "$E2E/refused.log" || {
		echo "FAIL: no '$2' in:" >&2; cat "$E2E/refused.log" >&2; exit 1; }
	echo "ok: refused to start: $(grep -m1 "$2" "$E2E/refused.log")"
}
