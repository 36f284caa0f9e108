#!/bin/sh
# The systemd units (dist/systemd/) pass `systemd-analyze verify`, alone
# and with each optional-mode drop-in, without a single diagnostic; a unit
# broken on purpose does not (so this test can fail). `cmake --install`
# into a scratch DESTDIR, with prefixes /usr and /opt/dta, writes the same
# units but for ExecStart=, which names that install's programs and
# configuration (/usr/bin, /etc/dta; /opt/dta/bin, /etc/opt/dta/dta). The
# sysusers.d
# entry creates the user the units name; `systemd-analyze security` rates
# each unit's exposure no worse than 2.5 ("OK"; docs/operations.md has the
# figures and what remains exposed).
# Usage: units.sh BUILD_DIR SOURCE_DIR
set -eu
B=$(cd "$1" && pwd)
S=$(cd "$2" && pwd)
command -v systemd-analyze >/dev/null || {
	echo "systemd-analyze is missing (Debian package systemd): skipped"
	exit 77
}
T=$(mktemp -d "${TMPDIR:-/tmp}/dta-units.XXXXXX")
trap 'rm -rf "$T"' EXIT
U=$B/dist/systemd

# VERIFY UNIT_FILE: exit status and every line systemd-analyze says.
verify() {
	out=$(systemd-analyze verify --man=no "$1" 2>&1) && rc=0 || rc=$?
	[ $rc -eq 0 ] && [ -z "$out" ] && return 0
	printf '%s (exit %d):\n%s\n' "$1" $rc "$out"
	return 1
}

# Negative first: a broken unit, and a unit whose program does not exist.
sed 's/^ProtectSystem=strict$/ProtectSystem=strict-ish/' \
	"$U/test/dta-collector.service" > "$T/broken.service"
grep -q strict-ish "$T/broken.service"
if verify "$T/broken.service" >/dev/null; then
	echo "FAIL: systemd-analyze verify accepted a broken unit"; exit 1
fi
sed 's|^ExecStart=[^ ]*/|ExecStart=/nonexistent/|' \
	"$U/test/dta-translator.service" > "$T/noexec.service"
if verify "$T/noexec.service" >/dev/null; then
	echo "FAIL: systemd-analyze verify accepted a missing program"; exit 1
fi
echo "negative: a broken setting and a missing program are both reported"

# INSTALL PREFIX BINDIR CONF: the installed units are the tested ones with
# ExecStart=BINDIR/PROGRAM -c CONF.
installed() {
	rm -rf "$T/destdir"
	DESTDIR="$T/destdir" cmake --install "$B" --prefix "$1" >/dev/null
	for unit in dta-collector.service dta-translator.service; do
		f=$T/destdir$1/lib/systemd/system/$unit
		[ -f "$f" ] || { echo "FAIL: no $f"; exit 1; }
		grep -qx "ExecStart=$2/${unit%.service} -c $3" "$f" ||
			{ echo "FAIL: $f: $(grep ExecStart= "$f")"; exit 1; }
		conf=$(sed -n 's|^ExecStart=.* -c ||p' "$U/test/$unit")
		sed "s|$2/|$U/test/bin/|g; s|$3|$conf|g" "$f" |
			cmp -s - "$U/test/$unit" ||
			{ echo "FAIL: $f is not the tested unit"; exit 1; }
	done
	[ -f "$T/destdir$1/lib/sysusers.d/dta.conf" ]
	cmp "$T/destdir$1/lib/systemd/system/run-dta_shm.mount" "$U/test/run-dta_shm.mount" ||
		{ echo "FAIL: run-dta_shm.mount not installed"; exit 1; }
	echo "cmake --install --prefix $1: units with ExecStart=$2/... -c $3"
}
installed /usr /usr/bin /etc/dta/dta.conf
installed /opt/dta /opt/dta/bin /etc/opt/dta/dta/dta.conf

# The tmpfs on huge pages the packaged configuration's shm_dir names:
# verified with the units that use it (the collector requires it), and it
# is what docs/performance.md says (huge=within_size, owner dta, mode 0750,
# a size bound), at the path its name says.
mount=run-dta_shm.mount
mkdir -p "$T/plain" "$T/dropins"
cp "$U/test/$mount" "$T/plain/"
cp "$U/test/$mount" "$T/dropins/"
verify "$T/plain/$mount"
e2e_opt() { sed -n "s/^$1=//p" "$T/plain/$mount"; }
[ "$(e2e_opt Where)" = "$(systemd-escape -p -u "${mount%.mount}")" ] ||
	{ echo "FAIL: $mount: Where=$(e2e_opt Where)"; exit 1; }
[ "$(e2e_opt Type)" = tmpfs ] || { echo "FAIL: $mount is not a tmpfs"; exit 1; }
for o in huge=within_size mode=0750 uid=dta gid=dta 'size=[0-9]*[%kmgKMG]*'; do
	e2e_opt Options | tr , '\n' | grep -qx "$o" ||
		{ echo "FAIL: $mount: no $o in Options=$(e2e_opt Options)"; exit 1; }
done
for k in Requires After; do
	grep -q "^$k=.*\b$mount\b" "$U/test/dta-collector.service" ||
		{ echo "FAIL: dta-collector.service has no $k=$mount"; exit 1; }
done
grep -qx "ReadWritePaths=$(e2e_opt Where)" "$U/test/dta-collector.service" ||
	{ echo "FAIL: dta-collector.service cannot write $(e2e_opt Where)"; exit 1; }
echo "$mount: systemd-analyze verify: no diagnostics; $(e2e_opt Options); required by dta-collector.service"

for unit in dta-collector.service dta-translator.service; do
	bindir=$U/test/bin
	[ -x "$bindir/${unit%.service}" ]

	mkdir -p "$T/plain" "$T/dropins/$unit.d"
	cp "$U/test/$unit" "$T/plain/"
	verify "$T/plain/$unit"
	echo "$unit: systemd-analyze verify: no diagnostics (ExecStart $bindir)"
	cp "$U/test/$unit" "$T/dropins/"
	for d in "$S"/dist/systemd/dropins/*.conf; do
		# The drop-in is read: a bad line in it would be reported.
		cp "$d" "$T/dropins/$unit.d/"
		verify "$T/dropins/$unit"
		printf 'ProtectSystem=strict-ish\n' >> "$T/dropins/$unit.d/${d##*/}"
		if verify "$T/dropins/$unit" >/dev/null; then
			echo "FAIL: $unit: the drop-in ${d##*/} was not read"; exit 1
		fi
		cp "$d" "$T/dropins/$unit.d/"
	done
	echo "$unit: with the drop-ins $(cd "$S/dist/systemd/dropins" && echo *.conf): no diagnostics"

	line=$(systemd-analyze security --offline=yes "$T/plain/$unit" 2>&1 |
	       grep 'Overall exposure level') || {
		echo "FAIL: no exposure level for $unit"; exit 1; }
	echo "$unit: $line"
	level=$(echo "$line" | sed 's/.*: \([0-9.]*\) .*/\1/')
	awk -v l="$level" 'BEGIN { exit !(l <= 2.5) }' ||
		{ echo "FAIL: $unit is more exposed than 2.5"; exit 1; }
done

# dta-export's unit (the dta-export package), when this build has the
# exporter: verified and rated as the others; its ExecCondition= (run
# here as systemd would, its \\ unescaped) skips the unit until the
# configuration has an [export] section.
unit=dta-export.service
if [ -x "$U/test/bin/dta-export" ]; then
	mkdir -p "$T/plain"
	cp "$U/test/$unit" "$T/plain/"
	verify "$T/plain/$unit"
	line=$(systemd-analyze security --offline=yes "$T/plain/$unit" 2>&1 |
	       grep 'Overall exposure level') || {
		echo "FAIL: no exposure level for $unit"; exit 1; }
	echo "$unit: systemd-analyze verify: no diagnostics; $line"
	level=$(echo "$line" | sed 's/.*: \([0-9.]*\) .*/\1/')
	awk -v l="$level" 'BEGIN { exit !(l <= 2.5) }' ||
		{ echo "FAIL: $unit is more exposed than 2.5"; exit 1; }
else
	echo "$unit: no dta-export in this build: not verified"
fi
conf=$(sed -n 's|^ExecStart=.* -c ||p' "$U/test/$unit")
cond=$(sed -n 's/^ExecCondition=//p' "$U/test/$unit" | sed 's/\\\\/\\/g')
printf '[collector]\nname = x\n' > "$T/noexport.conf"
printf '[collector]\nname = x\n\n  [export]\nsource = x\n' > "$T/export.conf"
if eval "$(echo "$cond" | sed "s|$conf|$T/noexport.conf|")"; then
	echo "FAIL: $unit would run without [export]"; exit 1
fi
eval "$(echo "$cond" | sed "s|$conf|$T/export.conf|")" ||
	{ echo "FAIL: $unit would not run with [export]"; exit 1; }
echo "$unit: ExecCondition= runs it only with an [export] section"

# The user the units run as.
grep -q '^User=dta$' "$U/test/dta-collector.service"
mkdir -p "$T/root/etc"
systemd-sysusers --root="$T/root" "$S/dist/systemd/dta.sysusers" >/dev/null 2>&1
grep -q '^dta:x:[0-9]*:[0-9]*:' "$T/root/etc/passwd" ||
	{ echo "FAIL: sysusers.d entry made no user dta"; exit 1; }
grep -q '^dta:x:' "$T/root/etc/group"
echo "dta.sysusers: creates user and group dta"
echo PASS
