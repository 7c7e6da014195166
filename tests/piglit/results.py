#!/usr/bin/python3
"""Helpers of tests/piglit/run (piglit's own JSON results, test profiles).

results.py status RESULTS_DIR       "STATUS NAME" per test (piglit's worst
                                    subtest status), sorted by name
results.py select GROUPS_FILE       the test names of the quick profile
                                    (quick_gl, quick_shader, glslparser) whose
                                    name starts with one of the group prefixes
results.py compare GROUPS VAGX LLVM counts per group and driver, then the
                                    tests whose status differs
results.py tap EXPECTED STATUS [RESULTS_DIR...]
                                    TAP against the expectation list (its
                                    "env" lines are the runner's); with
                                    the results, an unexpected failure is
                                    followed by the test's command and output
                                    as TAP diagnostics
results.py draft-fast VAGX LLVM N   draft of fast.expected from full-run
                                    results (see cmd_draft_fast)
"""
import bz2
import collections
import gzip
import html
import json
import lzma
import os
import re
import sys

PIGLIT = '/usr/lib/x86_64-linux-gnu/piglit/tests'
PROFILES = ('quick_gl', 'quick_shader', 'glslparser')


def load_results(d):
    for name, opener in (('results.json', open), ('results.json.bz2', bz2.open),
                         ('results.json.gz', gzip.open), ('results.json.xz', lzma.open)):
        p = os.path.join(d, name)
        if os.path.exists(p):
            with opener(p, 'rt') as f:
                return json.load(f)
    raise SystemExit(f'results.py: no results.json* in {d}')


def status(d):
    res = load_results(d)
    return {n.lower(): t['result'] for n, t in res['tests'].items()}


def groups(path):
    """The include prefixes of a groups file (see full.groups)."""
    return [p for kind, n, p in rules(path) if kind == '+']


def rules(path):
    """(kind, n, prefix) per line: '+' include, '-' exclude, '~' keep every
    n-th test under the prefix (in profile order)."""
    out = []
    for ln in open(path):
        ln = ln.split('#', 1)[0].strip()
        if not ln:
            continue
        if ln.startswith('-'):
            out.append(('-', 0, ln[1:].strip().lower()))
        elif ln.startswith('~'):
            n, p = ln[1:].split(None, 1)
            out.append(('~', int(n), p.strip().lower()))
        else:
            out.append(('+', 0, ln.lower()))
    return out


def profile_names():
    names = []
    for p in PROFILES:
        with gzip.open(os.path.join(PIGLIT, p + '.xml.gz'), 'rt') as f:
            names += [html.unescape(n) for n in
                      re.findall(r'<Test type="[^"]*" name="([^"]*)"', f.read())]
    return names


def group_of(name, gs):
    for g in gs:
        if name.startswith(g):
            return g
    return None


def cmd_select(gpath):
    rs = rules(gpath)
    gs = groups(gpath)
    seen = set()
    every = collections.Counter()
    for n in profile_names():
        low = n.lower()
        if not group_of(low, gs) or n in seen:
            continue
        if any(k == '-' and low.startswith(p) for k, _, p in rs):
            continue
        sample = [(k, m, p) for k, m, p in rs if k == '~' and low.startswith(p)]
        if sample:
            _, m, p = sample[0]
            every[p] += 1
            if (every[p] - 1) % m:
                continue
        seen.add(n)
        print(n)


def read_status(path):
    st = {}
    for ln in open(path):
        s, n = ln.rstrip('\n').split(' ', 1)
        st[n] = s
    return st


def cmd_compare(gpath, vpath, lpath):
    gs = groups(gpath)
    v, l = read_status(vpath), read_status(lpath)
    kinds = ('pass', 'fail', 'skip', 'crash', 'timeout', 'other')

    def bucket(s):
        return s if s in kinds else 'other'

    print('%-34s %-9s %6s %6s %6s %6s %7s %6s' % (('group', 'driver') + kinds))
    tot = {'vagx': collections.Counter(), 'llvmpipe': collections.Counter()}
    for g in gs:
        for drv, st in (('vagx', v), ('llvmpipe', l)):
            c = collections.Counter(bucket(s) for n, s in st.items() if group_of(n, gs) == g)
            tot[drv].update(c)
            print('%-34s %-9s' % (g, drv) + ''.join(' %6d' % c[k] for k in kinds[:4])
                  + ' %7d %6d' % (c['timeout'], c['other']))
    for drv in ('vagx', 'llvmpipe'):
        c = tot[drv]
        print('%-34s %-9s' % ('TOTAL', drv) + ''.join(' %6d' % c[k] for k in kinds[:4])
              + ' %7d %6d' % (c['timeout'], c['other']))
    print()
    print('# pass on llvmpipe, not on vagx (vagx status, name):')
    for n in sorted(l):
        if l[n] == 'pass' and v.get(n) != 'pass':
            print('  %-8s %s' % (v.get(n, 'missing'), n))
    print('# pass on vagx, not on llvmpipe:')
    for n in sorted(v):
        if v[n] == 'pass' and l.get(n) != 'pass':
            print('  %-8s %s' % (l.get(n, 'missing'), n))


def diagnostics(res, name):
    """The command line and output of one test of a results dict, as TAP
    diagnostic lines (the last lines of each stream)."""
    t = {n.lower(): v for n, v in res['tests'].items()}.get(name)
    if not t:
        return []
    out = ['# command: ' + ' '.join(t.get('command', []) if isinstance(
        t.get('command'), list) else [str(t.get('command', ''))])]
    for stream in ('out', 'err'):
        text = (t.get(stream) or '').rstrip('\n')
        if text:
            lines = text.split('\n')
            out.append('# %s%s:' % (stream, ' (last 30 lines)' if len(lines) > 30 else ''))
            out += ['#   ' + ln for ln in lines[-30:]]
    return out


def cmd_tap(epath, spath, rdirs=()):
    st = read_status(spath)
    # the tests of every results directory (one per environment)
    res = None
    for d in rdirs:
        r = load_results(d)
        if res is None:
            res = r
        else:
            res['tests'].update(r['tests'])
    cause = None
    env = ''
    tests = []
    for ln in open(epath):
        ln = ln.rstrip('\n')
        if ln.startswith('env '):
            env = ln[4:].strip()
            continue
        if ln.startswith('## '):
            cause = ln[3:].strip()
            continue
        if not ln.strip() or ln.startswith('#') or ln.startswith('env '):
            continue
        exp, name = ln.split(None, 1)
        tests.append((exp, name.strip().lower(), cause, env))
    print('1..%d' % len(tests))
    fails = 0
    for i, (exp, name, cause, env) in enumerate(tests, 1):
        got = st.get(name, 'missing')
        if exp == 'pass':
            if got == 'pass':
                print('ok %d - %s' % (i, name))
            else:
                fails += 1
                print('not ok %d - %s: %s, expected pass' % (i, name, got))
                if env:
                    print('# environment: ' + env)
                if res:
                    print('\n'.join(diagnostics(res, name)))
        elif got == 'pass':
            print('ok %d - %s (expected %s, now passes: update tests/piglit/*.expected)'
                  % (i, name, exp))
        else:
            print('ok %d - %s # SKIP expected %s (%s): %s' % (i, name, exp, got, cause))
    return 1 if fails else 0


def cmd_draft_fast(vdir, ldir, want):
    """A draft of fast.expected from a full run: tests that pass on llvmpipe
    and take under 2 s on vagx, every k-th in name order so that ~want are
    left; expectation = vagx's status (failures carry their first message
    line, to be grouped by cause by hand)."""
    v = load_results(vdir)['tests']
    l = load_results(ldir)['tests']
    cand = []
    for n in sorted(v):
        t = v[n]
        if l.get(n, {}).get('result') != 'pass':
            continue
        if t['time']['end'] - t['time']['start'] > 2.0 or t['result'] == 'skip':
            continue
        cand.append(n)
    k = max(1, len(cand) // want)
    for n in cand[::k]:
        t = v[n]
        if t['result'] == 'pass':
            print('pass', n)
        else:
            o = (t.get('out', '') + t.get('err', '')).strip().split('\n')
            msg = [x for x in o if 'vagx' in x or 'rror' in x or 'Probe' in x or 'Expected' in x]
            print('fail', n, ' ##', t['result'], (msg or o or [''])[0][:100])


def main():
    a = sys.argv[1:]
    if a[:1] == ['status']:
        for n, s in sorted(status(a[1]).items()):
            print(s, n)
    elif a[:1] == ['select']:
        cmd_select(a[1])
    elif a[:1] == ['compare']:
        cmd_compare(a[1], a[2], a[3])
    elif a[:1] == ['draft-fast']:
        cmd_draft_fast(a[1], a[2], int(a[3]))
    elif a[:1] == ['tap']:
        return cmd_tap(a[1], a[2], a[3:])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
