#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seeds for fuzz_int_map (fuzz/fuzz_int_map.c): the INT datagrams of
dta-gen's pcap files (every version and workload), several datagrams per
seed so that postcard paths complete and Append batches fill, under a few
configuration bytes; plus each file of fuzz/corpus/fuzz_int as a single
datagram. Usage: int_map_seeds.py BUILD_DIR OUT_DIR"""
import hashlib
import os
import struct
import subprocess
import sys
import tempfile


def payloads(pcap):
    """UDP payloads of a pcap file of Ethernet + IPv4 or IPv6 + UDP."""
    d = open(pcap, 'rb').read()
    pos, out = 24, []
    while pos + 16 <= len(d):
        incl = struct.unpack('<I', d[pos + 8:pos + 12])[0]
        frame = d[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        ethertype = struct.unpack('>H', frame[12:14])[0]
        if ethertype == 0x0800:
            ihl = (frame[14] & 0x0F) * 4
            udp = 14 + ihl
        elif ethertype == 0x86DD:
            udp = 14 + 40
        else:
            continue
        out.append(frame[udp + 8:])
    return out


def seed(flags, dgrams):
    return bytes([flags]) + b''.join(
        struct.pack('>H', len(g)) + g for g in dgrams)


def main():
    build, out = sys.argv[1], sys.argv[2]
    gen = os.path.join(build, 'gen', 'dta-gen')
    os.makedirs(out, exist_ok=True)
    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        pcap = os.path.join(tmp, 'int.pcap')
        for ver in ('0.5', '1.0', '2.0'):
            for kind in ('int-pc', 'int-md', 'int-drop', 'int-q'):
                for extra in ([], ['--int-ipv6']):
                    subprocess.run([gen, '-t', kind, '--int-version', ver,
                                    '-n', '4', '-s', '7', '--batch', '3',
                                    '-w', pcap] + extra, check=True,
                                   stderr=subprocess.DEVNULL)
                    g = payloads(pcap)[:8]
                    # ttl_init 64 (bits 5-6 = 1), events_by switch; the
                    # batch call; path_pc only; one list, aggregation.
                    for flags in (0x21, 0x29, 0x26, 0x33):
                        seeds.append(seed(flags, g))
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          'corpus', 'fuzz_int')
    for name in sorted(os.listdir(corpus)):
        g = open(os.path.join(corpus, name), 'rb').read()
        if len(g) < 65536:
            seeds.append(seed(0x20, [g]))
    for s in seeds:
        name = hashlib.sha1(s).hexdigest()
        with open(os.path.join(out, name), 'wb') as f:
            f.write(s)
    print(f'{len(seeds)} seeds in {out}')


if __name__ == '__main__':
    main()
