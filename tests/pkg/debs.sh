#!/bin/sh
# The Debian packages, built and used as an operator would get them:
# builds them (scripts/build-debs.sh, one Release build in BUILD_DIR/debs),
# checks each holds what docs/packaging.md says, runs lintian (failing on
# any error), unpacks them into a throwaway root with dpkg -x, and runs the
# demo's programs from there - collector, translator, dta-gen, dta-query
# verify over every primitive, with the structures of the packaged example
# configuration - and a consumer built against the unpacked libdta-dev,
# loading the unpacked libdta. The maintainer scripts are debhelper's
# (dh_installsysusers, dh_installsystemd: checked against its own
# autoscripts). As root, on a machine without them, the packages are then
# installed for real with apt-get, the installed daemons run as the units
# would run them, and `apt-get purge` must leave nothing behind but the
# user dta (Debian policy) and files the operator added to /etc/dta; not
# root, or dta-tools already installed here: that part is skipped, saying
# why.
# Skipped (77) without dpkg-deb, dpkg-shlibdeps (dpkg-dev), lintian, scdoc
# or debhelper, or, when not root, fakeroot.
# Usage: debs.sh BUILD_DIR
. "$(dirname "$0")/../e2e/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
for t in dpkg-deb dpkg-shlibdeps lintian scdoc cpack dh_installdeb; do
	command -v $t > /dev/null ||
		{ echo "SKIP: $t not installed (apt-get install dpkg-dev lintian scdoc debhelper)"; exit 77; }
done
# debhelper's dh_installdeb chowns to root: not root, it runs under fakeroot.
[ "$(id -u)" = 0 ] || command -v fakeroot > /dev/null ||
	{ echo "SKIP: not root and fakeroot not installed (apt-get install fakeroot)"; exit 77; }
e2e_init pkg "$1"
debs=$BUILD/debs

# One build; packages rebuilt from scratch each run (cpack is seconds).
sh "$src/scripts/build-debs.sh" "$debs" > "$E2E/build.log" 2>&1 ||
	{ tail -n 40 "$E2E/build.log"; echo "FAIL: building the packages" >&2; exit 1; }
major=$(sed -n 's/^project(libdta VERSION \([0-9]*\)\..*/\1/p' "$src/CMakeLists.txt")
lib=libdta$major
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

# Exactly the four packages, and python3-dta when that build has the
# Python package: an install() rule without a component would make
# another (libdta-Unspecified).
py=
grep -q '^DTA_HAVE_PYTHON:INTERNAL=ON' "$debs/CMakeCache.txt" && py=python3-dta
got=$(cd "$debs" && ls *.deb | sed 's/_.*//' | sort | tr '\n' ' ')
# dta-export when the build has the exporter (libcurl).
ex=
[ ! -x "$debs/export/dta-export" ] || ex=dta-export
e2e_expect "packages built" "$got" "${ex:+$ex }dta-tools dta-wireshark libdta-dev $lib ${py:+$py }"
deb() { ls "$debs/$1"_*_"$arch".deb "$debs/$1"_*_all.deb 2>/dev/null | head -n 1; }

# Each package's files: what docs/packaging.md lists.
has() { # PACKAGE PATH...
	p=$1; shift
	dpkg-deb -c "$(deb "$p")" | awk '{ print $6 }' | sed 's|^\./|/|' > "$E2E/list"
	for f in "$@"; do
		grep -qx "$f" "$E2E/list" || { echo "FAIL: $p lacks $f" >&2; cat "$E2E/list" >&2; exit 1; }
	done
	echo "ok: $p has $*"
}
for p in $lib libdta-dev dta-tools dta-wireshark $py $ex; do
	has $p /usr/share/doc/$p/copyright /usr/share/doc/$p/changelog.gz
done
if [ -n "$ex" ]; then
	has dta-export /usr/bin/dta-export /usr/lib/systemd/system/dta-export.service \
		/usr/share/man/man8/dta-export.8.gz
	e2e_expect "dta-export depends on dta-tools of its version" \
		"$(dpkg-deb -f "$(deb dta-export)" Depends | grep -o "dta-tools (= [^)]*)")" \
		"dta-tools (= $(dpkg-deb -f "$(deb dta-export)" Version))"
	dpkg-deb -I "$(deb dta-export)" postrm | grep -q "deb-systemd-helper purge 'dta-export.service'" ||
		{ echo "FAIL: dta-export postrm lacks debhelper's purge" >&2; exit 1; }
fi
has $lib /usr/lib/$ma/libdta.so.$major
has libdta-dev /usr/lib/$ma/libdta.so /usr/lib/$ma/libdta.a \
	/usr/lib/$ma/pkgconfig/libdta.pc /usr/lib/$ma/cmake/dta/dtaConfig.cmake \
	/usr/include/dta/dta.h
has dta-tools /usr/bin/dta-collector /usr/bin/dta-translator /usr/bin/dta-gen \
	/usr/bin/dta-query /usr/share/man/man8/dta-collector.8.gz \
	/usr/share/man/man8/dta-translator.8.gz /usr/share/man/man1/dta-gen.1.gz \
	/usr/share/man/man1/dta-query.1.gz /usr/share/man/man5/dta.conf.5.gz \
	/usr/lib/systemd/system/dta-collector.service \
	/usr/lib/systemd/system/dta-translator.service \
	/usr/lib/systemd/system/run-dta_shm.mount \
	/usr/lib/sysusers.d/dta.conf /usr/share/doc/dta-tools/systemd/rdma.conf \
	/usr/share/doc/dta-tools/systemd/raw-frames.conf \
	/usr/share/doc/dta-tools/examples/dta.conf /etc/dta/dta.conf
# The documents --help and the man pages point at, where they say: every
# docs/*.md of the source as /usr/share/doc/dta-tools/NAME.md.
set --
for f in "$src"/docs/*.md; do
	set -- "$@" "/usr/share/doc/dta-tools/$(basename "$f")"
done
[ $# -ge 10 ] || { echo "FAIL: only $# docs/*.md in $src" >&2; exit 1; }
has dta-tools "$@"
# The units' configuration is a conffile (dpkg keeps the operator's edits),
# mode 0644, owned by root.
e2e_expect "dta-tools conffiles" \
	"$(dpkg-deb -I "$(deb dta-tools)" conffiles)" /etc/dta/dta.conf
e2e_expect "/etc/dta/dta.conf mode and owner" \
	"$(dpkg-deb -c "$(deb dta-tools)" | awk '$6 == "./etc/dta/dta.conf" { print $1, $2 }')" \
	"-rw-r--r-- root/root"
e2e_expect "dta-tools creates the units' user" \
	"$(dpkg-deb -I "$(deb dta-tools)" postinst | grep -c 'systemd-sysusers.*dta.conf')" 1
# The maintainer scripts hold debhelper's own snippets, as
# /usr/share/debhelper/autoscripts has them with the units filled in:
# sysusers and enable in postinst, stop in prerm, purge in postrm.
auto=/usr/share/debhelper/autoscripts
units="'dta-collector.service' 'dta-translator.service'"
snip() { # SCRIPT AUTOSCRIPT SED
	sed "$3" "$auto/$2" > "$E2E/snip"
	dpkg-deb -I "$(deb dta-tools)" "$1" > "$E2E/script"
	"${PYTHON:-python3}" -c 'import sys; a, b = (open(f).read() for f in sys.argv[1:]); sys.exit(a not in b)' \
		"$E2E/snip" "$E2E/script" ||
		{ cat "$E2E/script"; echo "FAIL: dta-tools $1 lacks debhelper's $2" >&2; exit 1; }
	echo "ok: dta-tools $1 has debhelper's $2"
}
snip postinst postinst-sysusers 's/#CONFILE_BASENAME#/dta.conf/'
snip postinst postinst-systemd-enable "s/#UNITFILE#/'dta-collector.service'/"
snip postinst postinst-systemd-enable "s/#UNITFILE#/'dta-translator.service'/"
snip postinst postinst-systemd-restart "s/#UNITFILES#/$units/; s/#RESTART_ACTION#/restart/"
snip prerm prerm-systemd-restart "s/#UNITFILES#/$units/"
snip postrm postrm-systemd "s/#UNITFILES#/$units/"
# ... and the user is made before the units start.
dpkg-deb -I "$(deb dta-tools)" postinst > "$E2E/script"
[ "$(grep -n 'systemd-sysusers' "$E2E/script" | cut -d: -f1)" -lt \
  "$(grep -n 'deb-systemd-invoke' "$E2E/script" | head -n 1 | cut -d: -f1)" ] ||
	{ echo "FAIL: postinst starts the units before making their user" >&2; exit 1; }
for s in postinst prerm postrm; do
	dpkg-deb -I "$(deb dta-tools)" $s > "$E2E/script"
	sh -n "$E2E/script" || { echo "FAIL: dta-tools $s is not sh" >&2; exit 1; }
done
has dta-wireshark /usr/lib/$ma/wireshark/plugins/dta.lua
if [ -n "$py" ]; then
	pyext=$(dpkg-deb -c "$(deb $py)" | awk '{ print $6 }' |
		grep -c '^\./usr/lib/python3/dist-packages/dta/_dta\.cpython-.*\.so$')
	e2e_expect "python3-dta holds the extension" "$pyext" 1
	has $py /usr/lib/python3/dist-packages/dta/__init__.py
fi
e2e_expect "libdta-dev depends on $lib of its version" \
	"$(dpkg-deb -f "$(deb libdta-dev)" Depends | grep -o "$lib (= [^)]*)")" \
	"$lib (= $(dpkg-deb -f "$(deb libdta-dev)" Version))"

# lintian: no errors (warnings and infos are explained in docs/packaging.md).
lintian --fail-on error --pedantic -I "$debs"/*.deb > "$E2E/lintian.out" 2>&1 ||
	{ cat "$E2E/lintian.out"; echo "FAIL: lintian reports errors" >&2; exit 1; }
echo "lintian (no errors):"
grep -v '^running with root' "$E2E/lintian.out" | sed 's/^/   /'
# ... and that gate can fail: the library package without its ldconfig
# trigger is an error (lacks-ldconfig-trigger).
dpkg-deb -R "$(deb $lib)" "$E2E/bad"
rm "$E2E/bad/DEBIAN/triggers"
mkdir "$E2E/baddeb"
dpkg-deb --root-owner-group -b "$E2E/bad" "$E2E/baddeb/${lib}_bad_$arch.deb" > /dev/null
if lintian --fail-on error "$E2E/baddeb/${lib}_bad_$arch.deb" > "$E2E/lintian.bad" 2>&1 ||
   ! grep -q '^E: .*lacks-ldconfig-trigger' "$E2E/lintian.bad"; then
	cat "$E2E/lintian.bad"
	echo "FAIL: lintian passed a package without its ldconfig trigger" >&2
	exit 1
fi
echo "ok: lintian fails a broken package: $(grep '^E:' "$E2E/lintian.bad")"

# Unpacked into a throwaway root, as dpkg would install them.
root=$E2E/root
for p in $lib libdta-dev dta-tools dta-wireshark $py $ex; do
	dpkg -x "$(deb $p)" "$root"
done
export LD_LIBRARY_PATH="$root/usr/lib/$ma"
COLLECTOR=$root/usr/bin/dta-collector
TRANSLATOR=$root/usr/bin/dta-translator
GEN=$root/usr/bin/dta-gen
QUERY=$root/usr/bin/dta-query
for d in collector translator; do
	e2e_expect "unit starts the packaged $d" \
		"$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$root/usr/lib/systemd/system/dta-$d.service")" \
		/usr/bin/dta-$d
	e2e_expect "unit reads the packaged configuration ($d)" \
		"$(sed -n 's/^ExecStart=.* -c \([^ ]*\).*/\1/p' "$root/usr/lib/systemd/system/dta-$d.service")" \
		/etc/dta/dta.conf
done
# Every docs/NAME.md the packaged programs' --help and man pages name is
# in the package, and both say where: /usr/share/doc/dta-tools/NAME.md.
for p in dta-collector dta-translator dta-query dta-gen; do
	"$root/usr/bin/$p" --help > "$E2E/help.$p"
	grep -q '^/usr/share/doc/dta-tools/NAME.md ' "$E2E/help.$p" ||
		{ echo "FAIL: $p --help does not say where docs are installed" >&2; exit 1; }
	# (roff source, its \- and \&. back to - and .)
	zcat "$root"/usr/share/man/man*/"$p".[18].gz | sed 's/\\-/-/g; s/\\&//g' > "$E2E/man.$p"
	grep -q 'usr/share/doc/dta-tools/NAME' "$E2E/man.$p" ||
		{ echo "FAIL: man $p does not say where docs are installed" >&2; exit 1; }
	cat "$E2E/man.$p" >> "$E2E/help.$p"
	n=0
	for f in $(grep -o 'docs/[a-z0-9_-]*\.md' "$E2E/help.$p" | sort -u); do
		[ -f "$root/usr/share/doc/dta-tools/${f#docs/}" ] ||
			{ echo "FAIL: $p names $f, not in the package" >&2; exit 1; }
		n=$((n + 1))
	done
	for f in $(grep -o 'usr/share/doc/dta-tools/[a-z0-9_-]*\.md' "$E2E/help.$p" | sort -u); do
		[ -f "$root/$f" ] ||
			{ echo "FAIL: $p names /$f, not in the package" >&2; exit 1; }
		n=$((n + 1))
	done
	echo "ok: the $n documents $p --help and man $p name are installed"
done
# The installed configuration loads: dta-query parses it and finds its
# [collector] (-C "" is the unnamed one) before sizing, offline.
"$QUERY" -c "$root/etc/dta/dta.conf" -C "" size kw --flows 1000 \
	> "$E2E/size.out" 2>&1 ||
	{ cat "$E2E/size.out"; echo "FAIL: /etc/dta/dta.conf does not load" >&2; exit 1; }
echo "ok: /etc/dta/dta.conf loads"
if command -v man > /dev/null; then
	for m in "$root"/usr/share/man/man*/*.gz; do
		w=$(MANWIDTH=80 man --warnings -l "$m" 2>&1 > /dev/null)
		[ -z "$w" ] || { echo "FAIL: man $m: $w" >&2; exit 1; }
	done
	echo "ok: the man pages render without warnings"
fi

# The demo's programs from the unpacked root, on this test's instance with
# the packaged example's structures.
{
	e2e_conf_head
	# Postcard flows complete however slowly this machine runs
	# (as in tests/e2e/all_primitives.sh).
	echo "pc_timeout_ms = 60000"
	sed -n '/^\[structure /,$p' "$root/etc/dta/dta.conf"
} > "$E2E/dta.conf"
e2e_start_collector
e2e_start_translator
e2e_four e2e_gen 20000 4 200000
for t in kw pc ap ki; do # (all exact: e2e_four checked --min-success 1)
	e2e_query verify --truth "$E2E/$t.truth" | sed -n 's/^/   /; /exact/p'
done
e2e_stop_translator
e2e_stop_collector

# The packaged Python module, with the packaged programs: the pytest
# suite (python/tests) on its own private collector.
if [ -n "$py" ]; then
	pyrun=$(sed -n 's/^Python3_EXECUTABLE:FILEPATH=//p' "$debs/CMakeCache.txt")
	if "$pyrun" -c "import numpy, pytest" 2>/dev/null; then
		(cd "$src/python/tests" &&
		 PATH=$root/usr/bin:$PATH DTA_BUILD_DIR= PYTHONDONTWRITEBYTECODE=1 \
		 PYTHONPATH=$root/usr/lib/python3/dist-packages \
		 "$pyrun" -m pytest -q -p no:cacheprovider .) ||
			{ echo "FAIL: the packaged Python module's tests" >&2; exit 1; }
		"$pyrun" -c "import sys; sys.path.insert(0, '$root/usr/lib/python3/dist-packages')
import dta; assert dta.__file__.startswith('$root'), dta.__file__"
		echo "ok: the packaged Python module passes its tests"
	else
		echo "note: $pyrun lacks numpy or pytest: packaged module not run"
	fi
fi

# A program built against the unpacked libdta-dev (pkg-config and
# find_package), loading the unpacked libdta.
export PKG_CONFIG_PATH="$root/usr/lib/$ma/pkgconfig"
${CC:-cc} -o "$E2E/consumer" "$src/tests/consumer/consumer.c" \
	$(pkg-config --cflags --libs libdta)
e2e_expect "consumer loads" \
	"$(ldd "$E2E/consumer" | sed -n 's/.*libdta.so.[0-9]* => \([^ ]*\).*/\1/p')" \
	"$root/usr/lib/$ma/libdta.so.$major"
"$E2E/consumer"
cmake -S "$src/tests/consumer" -B "$E2E/cm" -DCMAKE_PREFIX_PATH="$root/usr" \
	> "$E2E/cm.log" 2>&1 || { cat "$E2E/cm.log"; exit 1; }
cmake --build "$E2E/cm" > "$E2E/cm.log" 2>&1 || { cat "$E2E/cm.log"; exit 1; }
"$E2E/cm/consumer_cmake"
unset LD_LIBRARY_PATH PKG_CONFIG_PATH

# ---- installed for real: apt-get install, run, apt-get purge ----
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'; }
if [ "$(id -u)" != 0 ]; then
	echo "SKIP (part): install, run and purge need root (apt-get); not root"
	e2e_pass
	exit 0
fi
for p in $lib dta-tools $ex; do
	if installed $p || [ -e /etc/dta ] || [ -e /var/lib/dta ]; then
		echo "SKIP (part): $p, /etc/dta or /var/lib/dta already on this" \
		     "machine: not installing over them"
		e2e_pass
		exit 0
	fi
done
had_user=no
getent passwd dta > /dev/null && had_user=yes
# What is there before, to find what the packages leave behind.
sweep() {
	find /etc /usr/bin /usr/lib /usr/share /var/lib /var/log /run \
		\( -name 'dta' -o -name 'dta-*' -o -name 'libdta*' -o -name 'dta.*' \
		   -o -name '*dta-collector*' -o -name '*dta-translator*' \
		   -o -name '*dta-export*' \) 2>/dev/null | sort
}
sweep > "$E2E/before"
purge_all() { apt-get purge -y $ex dta-tools $lib > "$E2E/apt-purge.log" 2>&1; }
# On a failure: the daemons stopped (e2e_cleanup), the packages purged,
# the runtime directory removed as systemd would, the user this test
# made removed; the failure's status kept.
undo() {
	rc=$?
	for p in $E2E_TPID $E2E_CPID; do kill "$p" 2>/dev/null || true; done
	sleep 1
	! installed dta-tools || purge_all
	umount /run/dta_shm 2>/dev/null || umount -l /run/dta_shm 2>/dev/null || true
	rmdir /run/dta_shm 2>/dev/null || true
	rm -rf /run/dta
	if [ $had_user = no ] && getent passwd dta > /dev/null; then
		userdel dta 2>/dev/null || true
		groupdel dta 2>/dev/null || true
	fi
	(exit $rc)
	e2e_cleanup
}
trap undo EXIT
pkgs_to_install=
for p in $lib dta-tools $ex; do pkgs_to_install="$pkgs_to_install $(deb $p)"; done
apt-get install -y --no-install-recommends $pkgs_to_install > "$E2E/apt-install.log" 2>&1 ||
	{ cat "$E2E/apt-install.log"; echo "FAIL: apt-get install" >&2; exit 1; }
echo "ok: apt-get install $lib dta-tools $ex"
getent passwd dta > /dev/null || { echo "FAIL: no user dta after install" >&2; exit 1; }
for u in dta-collector dta-translator $ex; do
	[ -L /etc/systemd/system/multi-user.target.wants/$u.service ] ||
		{ echo "FAIL: $u.service not enabled (deb-systemd-helper)" >&2; exit 1; }
done
echo "ok: user dta made, units enabled"

# The installed units pass systemd-analyze verify, the collector's with
# the mount it requires; the packaged configuration's shm_dir is that
# mount's directory.
mount=/usr/lib/systemd/system/run-dta_shm.mount
for u in $mount /usr/lib/systemd/system/dta-collector.service \
	 /usr/lib/systemd/system/dta-translator.service; do
	out=$(systemd-analyze verify --man=no "$u" 2>&1) ||
		{ echo "$out"; echo "FAIL: systemd-analyze verify $u" >&2; exit 1; }
	[ -z "$out" ] || { echo "$out"; echo "FAIL: $u: diagnostics" >&2; exit 1; }
done
shm=$(sed -n 's/^Where=//p' $mount)
e2e_expect "the packaged shm_dir is the mount's" \
	"$(sed -n 's/^shm_dir *= *//p' /etc/dta/dta.conf)" "$shm"
echo "ok: systemd-analyze verify: $mount and the services; shm_dir = $shm"

# Run them as their units do: user dta, /var/lib/dta and /run/dta as
# StateDirectory= and RuntimeDirectory= make them, shm_dir mounted as
# run-dta_shm.mount mounts it (its What=, Type=, Options=), the packaged
# configuration (the translator on this test's port).
install -d -o dta -g dta -m 0750 /var/lib/dta /run/dta
mkdir -p "$shm"
mount -t "$(sed -n 's/^Type=//p' $mount)" -o "$(sed -n 's/^Options=//p' $mount)" \
	"$(sed -n 's/^What=//p' $mount)" "$shm"
e2e_expect "$shm as mounted" "$(stat -c '%U %G %a' "$shm") $(findmnt -n -o FSTYPE "$shm")" \
	"dta dta 750 tmpfs"
setpriv --reuid=dta --regid=dta --init-groups -- env RUNTIME_DIRECTORY=/run/dta \
	/usr/bin/dta-collector -c /etc/dta/dta.conf > "$E2E/icoll.log" 2>&1 &
E2E_CPID=$!
e2e_wait_ready "$E2E/icoll.log" "installed dta-collector"
# Every structure of the packaged configuration on 2 MiB pages there.
nst=$(grep -c '^\[structure ' /etc/dta/dta.conf)
e2e_expect "structures on 2 MiB pages in $shm" \
	"$(grep -c "bytes at $shm/dta-.* (2097152-byte pages)\$" "$E2E/icoll.log")" "$nst"
! grep -q 'structures on 4 KiB pages' "$E2E/icoll.log" ||
	{ cat "$E2E/icoll.log"; echo "FAIL: 4 KiB pages" >&2; exit 1; }
setpriv --reuid=dta --regid=dta --init-groups -- /usr/bin/dta-translator -c /etc/dta/dta.conf \
	-p "$E2E_PORT" > "$E2E/itrans.out" 2> "$E2E/itrans.log" &
E2E_TPID=$!
e2e_wait_ready "$E2E/itrans.out" "installed dta-translator"
/usr/bin/dta-gen -d "127.0.0.1:$E2E_PORT" -t kw -n 2000 -k 1000 \
	-T "$E2E/ikw.truth" 2> "$E2E/igen.log"
# (dta-query as root: the truth file is in this test's private directory;
# root may query, and trusts the socket of user dta's directory)
e2e_retry env RUNTIME_DIRECTORY=/run/dta /usr/bin/dta-query \
	-c /etc/dta/dta.conf verify --truth "$E2E/ikw.truth" --min-success 1
env RUNTIME_DIRECTORY=/run/dta /usr/bin/dta-query -c /etc/dta/dta.conf \
	verify --truth "$E2E/ikw.truth" | sed -n 's/^/   /; /exact/p' 
e2e_term "$E2E_TPID" dta-translator; E2E_TPID=
e2e_term "$E2E_CPID" dta-collector; E2E_CPID=
rm -rf /run/dta # RuntimeDirectory=: systemd removes it when the unit stops
[ -z "$(ls -A "$shm")" ] || { ls -l "$shm"; echo "FAIL: objects left in $shm" >&2; exit 1; }
umount "$shm" && rmdir "$shm" # the mount unit stops with the system
n=$(find /var/lib/dta -type f | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: the installed collector wrote no snapshot" >&2; exit 1; }
echo "ok: the installed daemons ran as dta; $n snapshot files, $(du -sh /var/lib/dta | cut -f1) in /var/lib/dta"
# State the other programs keep there (dta-export's cursors, epoch
# files), as user dta would write it; a log; an operator's edit of the
# conffile and a file of the operator's own in /etc/dta.
setpriv --reuid=dta --regid=dta --init-groups -- sh -c 'mkdir -p /var/lib/dta/export /var/lib/dta/epochs &&
	echo 42 > /var/lib/dta/export/cursor && echo 1 > /var/lib/dta/epochs/flows.1'
install -d -o dta -g dta /var/log/dta
echo log > /var/log/dta/dta.log
echo "# edited by the operator" >> /etc/dta/dta.conf
echo key > /etc/dta/operator.pem

apt-get purge -y $ex dta-tools $lib > "$E2E/apt-purge.log" 2>&1 ||
	{ cat "$E2E/apt-purge.log"; echo "FAIL: apt-get purge" >&2; exit 1; }
for p in $lib dta-tools $ex; do
	st=$(dpkg-query -W -f='${Status}' $p 2>/dev/null || true)
	case $st in ""|*" not-installed") ;;
	*) echo "FAIL: $p after purge: $st" >&2; exit 1 ;;
	esac
done
echo "ok: apt-get purge $ex dta-tools $lib"
leftovers() { # what of the packages is still there, on one line
	left=
	for f in /etc/dta/dta.conf /var/lib/dta /var/log/dta /usr/bin/dta-collector \
		 /usr/lib/systemd/system/dta-collector.service /usr/lib/sysusers.d/dta.conf \
		 /etc/systemd/system/multi-user.target.wants/dta-collector.service; do
		[ ! -e "$f" ] && [ ! -L "$f" ] || left="$left $f"
	done
	! ls /var/lib/systemd/deb-systemd-helper-enabled/ 2>/dev/null | grep -q dta ||
		left="$left deb-systemd-helper-state"
	left="$left $(find /dev/shm -maxdepth 1 -user dta 2>/dev/null | tr '\n' ' ')"
	echo $left
}
[ -z "$(leftovers)" ] || { echo "FAIL: left after purge: $(leftovers)" >&2; exit 1; }
# ... and that check sees a leftover: one planted where state was.
mkdir /var/lib/dta && touch /var/lib/dta/planted
e2e_expect "a planted leftover is seen" "$(leftovers)" /var/lib/dta
rm -r /var/lib/dta
# The operator's own file stays, and so its directory.
e2e_expect "the operator's file in /etc/dta after purge" "$(cat /etc/dta/operator.pem)" key
rm /etc/dta/operator.pem
rmdir /etc/dta
sweep > "$E2E/after"
diff "$E2E/before" "$E2E/after" > "$E2E/sweep.diff" ||
	{ cat "$E2E/sweep.diff"; echo "FAIL: files left after purge (> lines)" >&2; exit 1; }
echo "ok: nothing of the packages left in /etc /usr /var/lib /var/log /run"
getent passwd dta > /dev/null ||
	{ echo "FAIL: purge removed the user dta (policy: it stays)" >&2; exit 1; }
echo "ok: the user dta stays (Debian policy 9.2)"
trap e2e_cleanup EXIT
if [ $had_user = no ]; then # this test's own cleanup, not the package's
	userdel dta 2>/dev/null || true
	groupdel dta 2>/dev/null || true
fi
e2e_pass
