#!/usr/bin/env python3
# Helper of metrics_losses.sh and prom_compare.py (not a test of its own):
# the translator's loss families by reporter and by structure must sum,
# label by label, to the totals they break down (docs/metrics.md "Losses
# by reporter and structure").
#
#   loss_sums.py FILE      FILE: a /metrics scrape of dta-translator
#
# Exit 0: every sum equal (printed); 1: a sum differs or a family is
# missing.
import re
import sys

# breakdown family -> (total family, the labels summed away)
PAIRS = {
    'datagrams_lost_by_reporter_total': ('datagrams_lost_total', 'reporter'),
    'reports_lost_by_reporter_total': ('reports_lost_total', 'reporter'),
    'malformed_by_reporter_total': ('malformed_by_cause_total', 'reporter'),
    'sink_errors_by_reporter_total': ('sink_errors_total', 'reporter'),
    'int_malformed_by_reporter_total': ('int_malformed_by_cause_total',
                                        'reporter'),
    'int_reports_unmapped_by_reporter_total':
        ('int_reports_unmapped_total', 'reporter'),
    'int_updates_mismatch_by_reporter_total':
        ('int_updates_mismatch_total', 'reporter'),
    'int_seq_lost_by_reporter_total': ('int_seq_lost_total', 'reporter'),
    'reports_lost_by_structure_total': ('reports_lost_total',
                                        'structure collector'),
    'sink_errors_by_structure_total': ('sink_errors_total',
                                       'structure collector'),
    'int_updates_mismatch_by_structure_total':
        ('int_updates_mismatch_total', 'structure collector'),
}
LINE = re.compile(r'^dta_translator_([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def parse(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                labels = tuple(sorted(LABEL.findall(m.group(2) or '')))
                out[(m.group(1), labels)] = float(m.group(3))
    return out


def check(samples, need_int):
    bad = 0
    n = 0
    for fam, (total, away) in PAIRS.items():
        away = away.split()
        parts = {k: v for k, v in samples.items() if k[0] == fam}
        if not parts:
            if fam.startswith('int_') and not need_int:
                continue
            print('FAIL: no %s' % fam)
            return 1
        sums = {}
        for (_, labels), v in parts.items():
            rest = tuple(l for l in labels if l[0] not in away)
            sums[rest] = sums.get(rest, 0) + v
        for rest, v in sorted(sums.items()):
            want = samples.get((total, rest))
            if want is None or want != v:
                print('FAIL: %s%s sums to %s; %s is %s'
                      % (fam, dict(rest), v, total, want))
                bad += 1
            n += 1
    if not bad:
        print('ok: %d loss breakdowns sum to their totals' % n)
    return 1 if bad else 0


if __name__ == '__main__':
    s = parse(sys.argv[1])
    sys.exit(check(s, any(k[0] == 'int_datagrams_total' for k in s)))
