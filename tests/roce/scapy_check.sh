#!/bin/sh
# ctest roce_scapy: tests/roce/scapy_check.py with Debian's Python (the one
# python3-scapy installs into), or skip (77) when scapy is not there.
py=/usr/bin/python3
if ! $py -c 'import scapy.contrib.roce' 2>/dev/null; then
	echo "python3-scapy is not installed: skipped (apt-get install python3-scapy)"
	exit 77
fi
exec $py "$(dirname "$0")/scapy_check.py" "$1"
