#!/usr/bin/env python3
# Helper of metrics_prometheus.sh (not a test of its own): the counters a
# real Prometheus server scraped from a daemon, read back through its HTTP
# API, against that daemon's stats JSON, row by row of docs/metrics.md.
#
#   prom_compare.py DOC URL JOB MODE REF_CMD
#
# MODE translator: REF_CMD prints the stats JSON (the stats file); it is
# read, a scrape after the read is waited for, and it is read again: the
# counters were at rest when both reads agree, and then every row must
# equal Prometheus's value at that scrape. MODE collector: REF_CMD asks the
# collector for its stats (a request itself, counted in the answer);
# counters and `structures` must equal the next scrape's (the other gauges
# move with the asking client and the clock).
#
# Exit 0: all equal; 1: not equal within 60 s (printed); 2: a stats key has
# no row in the doc, or a row no series.
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

ROW = re.compile(r'^\| `(dta_[a-z_]+)(?:\{([a-z_]+)="([^"]*)"\})?` \| '
                 r'(counter|gauge) \| `([a-z0-9_.]+)` \|')


def rows(doc, prefix):
    out = {}
    with open(doc) as f:
        for line in f:
            m = ROW.match(line)
            if m and m.group(1).startswith(prefix):
                name, ln, lv, typ, key = m.groups()
                out[key] = (name, {ln: lv} if ln else {}, typ)
    return out


def flat(obj, prefix=''):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + '.'))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[prefix + k] = v
    return out


def query(url, q, at=None):
    args = {'query': q}
    if at is not None:
        args['time'] = repr(at)
    with urllib.request.urlopen(url + '/api/v1/query?' +
                                urllib.parse.urlencode(args), timeout=10) as r:
        ans = json.load(r)
    if ans.get('status') != 'success':
        raise SystemExit('prometheus: %s' % ans)
    return ans['data']['result']


def scrape_after(url, job, t0, deadline):
    """The timestamp of the first scrape of JOB that started after t0."""
    while time.time() < deadline:
        r = query(url, 'timestamp(up{job="%s"})' % job)
        if r and float(r[0]['value'][1]) > t0:
            return float(r[0]['value'][1])
        time.sleep(0.2)
    return None


def compare(url, job, table, ref, at, mode):
    series = query(url, '{job="%s",__name__=~"dta_.*"}' % job, at)
    got = {}
    for s in series:
        labels = dict(s['metric'])
        name = labels.pop('__name__')
        for k in ('job', 'instance', 'collector'):
            labels.pop(k, None)
        got[(name, tuple(sorted(labels.items())))] = float(s['value'][1])
    bad = []
    for key, v in sorted(ref.items()):
        if key not in table:
            print('FAIL: stats key %s has no row in docs/metrics.md' % key)
            sys.exit(2)
        name, labels, typ = table[key]
        if mode == 'collector' and typ == 'gauge' and key != 'structures':
            continue
        k = (name, tuple(sorted(labels.items())))
        if k not in got:
            print('FAIL: %s (%s) is not in Prometheus' % (name, key))
            sys.exit(2)
        if got[k] != float(v):
            bad.append('%s: stats %s, prometheus %s' % (key, v, got[k]))
    return bad, got


def main():
    doc, url, job, mode, ref_cmd = sys.argv[1:6]
    table = rows(doc, 'dta_%s_' % mode)
    deadline = time.time() + 60
    bad = None
    while True:
        ref = flat(json.loads(subprocess.check_output(ref_cmd, shell=True)))
        t0 = time.time()
        at = scrape_after(url, job, t0, deadline)
        if at is None:
            if bad:
                print('FAIL: Prometheus and the stats JSON differ:')
                print('\n'.join(bad))
            else:
                print('FAIL: no scrape of %s after %.3f, or the counters '
                      'never came to rest' % (job, t0))
            sys.exit(1)
        if mode == 'translator':
            again = flat(json.loads(subprocess.check_output(ref_cmd,
                                                            shell=True)))
            if again != ref:  # counters still moving
                continue
        bad, got = compare(url, job, table, ref, at, mode)
        if not bad:
            break
    print('ok: %d stats members of %s equal in Prometheus (scrape at %.3f)'
          % (len(ref), job, at))
    # The histograms count what their counters count.
    if mode == 'translator':
        n = sum(v for (name, _), v in got.items()
                if name == 'dta_translator_append_batch_entries_count')
        # The DTA Append reports all go to structure "log" (INT events,
        # in structure "events", are Append entries too).
        e = sum(v for (name, labels), v in got.items()
                if name == 'dta_translator_append_batch_entries_sum' and
                ('structure', 'log') in labels)
        want = ref['ap_batches'] + ref['ap_partial']
        if n != want or e != ref['reports_append'] or n == 0:
            print('FAIL: append batch histogram: count %s (want %s), sum %s '
                  '(want %s)' % (n, want, e, ref['reports_append']))
            sys.exit(1)
        print('ok: append batch histogram: %d batches, %d entries in log'
              % (n, e))
        # The losses by reporter and structure, as Prometheus stored
        # them at that scrape, sum to their totals (loss_sums.py).
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import loss_sums
        pre = 'dta_translator_'
        samples = {(name[len(pre):], labels): v
                   for (name, labels), v in got.items()
                   if name.startswith(pre)}
        if loss_sums.check(samples, True):
            sys.exit(1)
    else:
        n = [v for (name, _), v in got.items()
             if name == 'dta_collector_request_duration_seconds_count']
        if n != [float(ref['requests'])]:
            print('FAIL: request histogram count %s, requests %s'
                  % (n, ref['requests']))
            sys.exit(1)
        print('ok: request histogram counts %d requests' % n[0])
    # Negative: series nobody exports are absent.
    for q in ('dta_%s_no_such_metric_total' % mode,
              'dta_translator_reports_by_primitive_total{primitive="none"}',
              '{job="%s",__name__=~"dta_.*",cause="no_such_cause"}' % job):
        if query(url, q, at):
            print('FAIL: %s is in Prometheus' % q)
            sys.exit(1)


main()
