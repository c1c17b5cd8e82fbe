#!/usr/bin/env python3
"""result.py: one run-guest run as one machine-readable result (JSON), and reading it back.

  result.py write FILE --guest G --shim S --l0 L --vcpus N --verdict V --seconds T
                  [--error WHY] [--ended HOW] [--console CONSOLE] [--log STAMPED_LOG]
  result.py get FILE KEY[.KEY...]       print one value ("" when absent), e.g. verdict,
                                        timing.linux_version, exits.count
  result.py downtime FILE OP ROUND KEY  print one downtime round's KEY (guest_ms, xl_seconds,
                                        restore_seconds)

The result holds the verdict (PASS, FAIL, TIMEOUT, ERROR), how the domain ended, the guest's and
dom0's CHECK lines, the moments that matter (first console line, "Linux version", RESULT), the
downtime of each save/restore/migration round, the L0 exit count when one was taken, and the
shim's own counters from its last report (guest hypercalls by name, hypercalls to L0, memory).
The file is written whole to a temporary name and renamed: a reader never sees half of one.
"""
import argparse
import json
import os
import re
import sys

STAMP = re.compile(r'^@ *([0-9.]+) ([|=]) (.*)$')


def stamped(path):
    """(seconds, kind, text) for each line of run-guest's stamped log: kind '|' console, '=' bed."""
    if not path or not os.path.exists(path):
        return []
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            m = STAMP.match(line.rstrip('\n'))
            if m:
                out.append((float(m.group(1)), m.group(2), m.group(3)))
            else:
                out.append((None, 'raw', line.rstrip('\n')))
    return out


def counters(text):
    """'name 12 other 3' -> {'name': 12, 'other': 3}"""
    words = text.split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2) if words[i + 1].isdigit()}


def build(a):
    res = {'guest': a.guest, 'shim': a.shim, 'l0': a.l0, 'vcpus': int(a.vcpus) if a.vcpus.isdigit() else None, 'verdict': a.verdict,
           'seconds': float(a.seconds), 'ended': a.ended or None, 'error': a.error or None,
           'checks': [], 'timing': {}, 'downtime': [], 'exits': None,
           'shim_counters': {'guest_hypercalls': {}, 'l0_hypercalls': {}}}
    console = []
    if a.console and os.path.exists(a.console):
        with open(a.console, errors='replace') as f:
            console = [l.rstrip('\n') for l in f]
    for l in console:
        m = re.match(r'^CHECK (\S+) (ok|FAIL)\b ?(.*)$', l)
        if m:
            res['checks'].append({'name': m.group(1), 'ok': m.group(2) == 'ok', 'text': m.group(3)})
    log = stamped(a.log)
    t = res['timing']
    for secs, kind, text in log:
        if kind == '|':
            t.setdefault('first_line', secs)
            if 'Linux version' in text:
                t.setdefault('linux_version', secs)
            if re.match(r'^RESULT (PASS|FAIL)', text):
                t.setdefault('result', secs)
            m = re.match(r'^\(shim\) guest hypercalls(?: \(more\))?:(.*)$', text)
            if m:
                res['shim_counters']['guest_hypercalls'].update(counters(m.group(1)))
            m = re.match(r'^\(shim\) hypercalls to L0:(.*)$', text)
            if m:
                res['shim_counters']['l0_hypercalls'] = counters(m.group(1))
            m = re.search(r'domain (\d+) KiB, guest (\d+) KiB, shim (\d+) KiB', text)
            if m:
                res['shim_counters']['memory_kib'] = {'domain': int(m.group(1)), 'guest': int(m.group(2)),
                                                      'shim': int(m.group(3))}
        else:
            text = re.sub(r'^= ', '', text) if kind == 'raw' else text
            m = re.match(r'^post: CHECK dom0:(checkpoint|save|migrate) ok round (\d+): (.*)$', text)
            if m:
                rest = m.group(3)
                gap = re.search(r'its clock jumped (\d+) ms', rest)
                xl = re.match(r'xl (?:save -c|save|migrate) ([0-9.]+) s', rest)
                rs = re.search(r'xl restore ([0-9.]+) s', rest)
                res['downtime'].append({'op': m.group(1), 'round': int(m.group(2)),
                                        'guest_ms': int(gap.group(1)) if gap else None,
                                        'xl_seconds': float(xl.group(1)) if xl else None,
                                        'restore_seconds': float(rs.group(1)) if rs else None,
                                        'text': rest})
            m = re.match(r'^post: exits: (\d+) in ([0-9.]+) s, (\d+)/s', text)
            if m:
                res['exits'] = {'count': int(m.group(1)), 'seconds': float(m.group(2)),
                                'per_second': int(m.group(3))}
    return res


def write(a):
    res = build(a)
    tmp = a.file + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(res, f, indent=1)
        f.write('\n')
    os.replace(tmp, a.file)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit('result.py: cannot read %s: %s' % (path, e))


def show(v):
    if v is None:
        return ''
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == 'get':
        if len(sys.argv) != 4:
            sys.exit('usage: result.py get FILE KEY[.KEY...]')
        v = load(sys.argv[2])
        for k in sys.argv[3].split('.'):
            v = v.get(k) if isinstance(v, dict) else None
        print(show(v))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == 'downtime':
        if len(sys.argv) != 6:
            sys.exit('usage: result.py downtime FILE OP ROUND KEY')
        for d in load(sys.argv[2]).get('downtime', []):
            if d['op'] == sys.argv[3] and str(d['round']) == sys.argv[4]:
                print(show(d.get(sys.argv[5])))
                return 0
        print('')
        return 0
    p = argparse.ArgumentParser(prog='result.py write')
    p.add_argument('cmd', choices=['write'])
    p.add_argument('file')
    for k in ('guest', 'shim', 'l0', 'vcpus', 'verdict', 'seconds'):
        p.add_argument('--' + k, required=True)
    for k in ('error', 'ended', 'console', 'log'):
        p.add_argument('--' + k, default='')
    a = p.parse_args()
    if a.verdict not in ('PASS', 'FAIL', 'TIMEOUT', 'ERROR'):
        sys.exit('result.py: verdict must be PASS, FAIL, TIMEOUT or ERROR, not %r' % a.verdict)
    write(a)
    return 0


if __name__ == '__main__':
    sys.exit(main())
