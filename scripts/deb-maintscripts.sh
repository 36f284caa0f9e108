#!/bin/sh
# The maintainer scripts of the Debian packages, made by debhelper itself
# (docs/packaging.md "Maintainer scripts"): the packages are built by
# CPack, not dpkg-buildpackage, so this runs debhelper's own tools on a
# scratch debian/ directory holding just what they read - each package's
# systemd units, the sysusers.d entry, and our postrm templates
# (cmake/debian/PACKAGE.postrm, with #DEBHELPER#) - and keeps the
# postinst, prerm and postrm that dh_installdeb assembles:
#   dh_installsysusers --name=dta (dta-tools)  systemd-sysusers dta.conf,
#       first: the units run as that user
#   dh_installsystemd  its defaults: each unit enabled (deb-systemd-helper)
#       and started on installation (the packaged configuration listens on
#       127.0.0.1 only and maps 128 MiB), daemon-reload, restarted after an
#       upgrade, stopped on removal, deb-systemd-helper purge on purge.
#       (--no-start would also drop the stop on removal and the restart
#       after an upgrade in debhelper 13.11: not used.)
# Usage: deb-maintscripts.sh SRC_DIR OUT_DIR PACKAGE:UNIT[,UNIT...] ...
#   (a PACKAGE with no unit: "PACKAGE:"). Writes OUT_DIR/PACKAGE/{postinst,
#   prerm,postrm} (those debhelper made) with mode 0755.
set -eu
src=$1
out=$2
shift 2
for t in dh_installsystemd dh_installsysusers dh_installdeb; do
	command -v $t > /dev/null ||
		{ echo "deb-maintscripts.sh: $t not found (apt-get install debhelper)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dta-maint.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
ver=$(sed -n 's/^project(libdta VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
{
	printf 'Source: libdta\nSection: net\nPriority: optional\n'
	printf 'Maintainer: libdta maintainers <nobody@example.org>\n'
	printf 'Build-Depends: debhelper-compat (= 13)\n'
	printf 'Standards-Version: 4.6.2\n'
	for p in "$@"; do
		printf '\nPackage: %s\nArchitecture: any\nDescription: x\n x\n' "${p%%:*}"
	done
} > "$work/debian/control"
printf 'libdta (%s) unstable; urgency=medium\n\n  * x\n\n -- x <nobody@example.org>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
	"$ver" > "$work/debian/changelog"
for p in "$@"; do
	pkg=${p%%:*}
	units=$(echo "${p#*:}" | tr ',' ' ')
	# debhelper 13.11 (bookworm) looks for units under lib/systemd/system
	# of the package's tree; their [Install] sections decide what
	# "enable" does.
	mkdir -p "$work/debian/$pkg/lib/systemd/system"
	for u in $units; do
		sed -e 's|@DTA_BINDIR@|/usr/bin|g' -e 's|@DTA_CONF@|/etc/dta/dta.conf|g' \
			"$src/dist/systemd/$u.in" > "$work/debian/$pkg/lib/systemd/system/$u"
	done
	for s in preinst postinst prerm postrm; do
		[ ! -f "$src/cmake/debian/$pkg.$s" ] ||
			cp "$src/cmake/debian/$pkg.$s" "$work/debian/$pkg.$s"
	done
	[ "$pkg" != dta-tools ] ||
		cp "$src/dist/systemd/dta.sysusers" "$work/debian/$pkg.dta.sysusers"
done
# dh_installdeb gives the scripts to root (chown 0:0), which an ordinary
# user may only pretend to do: under fakeroot, as dpkg-buildpackage does.
asroot=
if [ "$(id -u)" != 0 ]; then
	command -v fakeroot > /dev/null ||
		{ echo "deb-maintscripts.sh: not root and no fakeroot (apt-get install fakeroot)" >&2; exit 1; }
	asroot=fakeroot
fi
(
	cd "$work"
	$asroot sh -eu -c '
	for p in "$@"; do
		pkg=${p%%:*}
		[ "$pkg" != dta-tools ] || dh_installsysusers -p"$pkg" --name=dta
		[ -z "${p#*:}" ] || dh_installsystemd -p"$pkg"
		dh_installdeb -p"$pkg"
	done' sh "$@"
)
for p in "$@"; do
	pkg=${p%%:*}
	mkdir -p "$out/$pkg"
	rm -f "$out/$pkg/preinst" "$out/$pkg/postinst" "$out/$pkg/prerm" \
		"$out/$pkg/postrm"
	for s in preinst postinst prerm postrm; do
		f=$work/debian/$pkg/DEBIAN/$s
		[ -f "$f" ] || continue
		cp "$f" "$out/$pkg/$s"
		chmod 0755 "$out/$pkg/$s"
	done
done
