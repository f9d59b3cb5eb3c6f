# stability.py A_CUBES A_MESH B_CUBES B_MESH C_CUBES C_MESH: how a rule learned from some rounds fares in others (NOTES.md)
import gzip, json, sys, statistics, itertools, collections
def load(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        for line in f:
            line = line.strip()
            if line: yield json.loads(line)
def cls(r):
    if r['backend'] == 'openmp': return 'openmp'
    return 'opencl-cpu'
def usable(r):
    return (r.get('type') == 'measurement' and r.get('benchmark') == 'spmv' and r.get('status') == 'ok'
            and not r.get('cold') and not r['kernel'].startswith('peer:')
            and (r.get('check') or {}).get('error_vs_double_values') is None
            and (r.get('stats') or {}).get('median_s', 0) > 0)
def rule(records):
    """(class, precision, matrix) -> (kernel, params, time) at the median of each configuration's medians"""
    by_cfg = collections.defaultdict(list)
    for r in records:
        key = (cls(r), r['precision'], r['matrix']['name'], r['matrix'].get('hash'))
        by_cfg[key + (r['kernel'], json.dumps(r['params'], sort_keys=True))].append(r['stats']['median_s'])
    best = {}
    for k, v in by_cfg.items():
        m = statistics.median(v)
        row = k[:4]
        if row not in best or m < best[row][2]: best[row] = (k[4], k[5], m)
    kernels = collections.defaultdict(set)
    for k in by_cfg: kernels[k[:4]].add(k[4])
    return {k: v for k, v in best.items() if len(kernels[k]) > 1}
def disagree(a, b):
    rows = sorted(set(a) & set(b))
    return sum(a[k][0] != b[k][0] for k in rows), len(rows)
files = sys.argv[1:]
sets = {f: [r for r in load(f) if usable(r)] for f in files}
def rounds(recs):
    out = collections.defaultdict(list)
    for r in recs: out[r.get('round', 1)].append(r)
    return out
# a: one round; b and c: three rounds each
a = sets[files[0]] + sets[files[1]]
b = sets[files[2]] + sets[files[3]]
c = sets[files[4]] + sets[files[5]]
rb, rc = rounds(b), rounds(c)
singles = [rule(x) for x in [a] + [rb[i] for i in sorted(rb)] + [rc[i] for i in sorted(rc)]]
pairs = [disagree(x, y) for x, y in itertools.combinations(singles, 2)]
print('one round against another: %d pairs, rows with another kernel: %s of %d (median %g)' % (
    len(pairs), sorted(p[0] for p in pairs), pairs[0][1], statistics.median(p[0] for p in pairs)))
rB, rC = rule(b), rule(c)
d = disagree(rB, rC)
print('three rounds (b) against three others (c): %d of %d rows with another kernel' % d)
for k in sorted(set(rB) & set(rC)):
    if rB[k][0] != rC[k][0]:
        print('   ', k[:3], rB[k][0], '%.3g' % rB[k][2], '|', rC[k][0], '%.3g' % rC[k][2])
allr = rule(a + b + c)
cnt = collections.Counter((k[0], v[0]) for k, v in allr.items())
print('all seven rounds:', len(allr), 'rows;', sorted(cnt.items()))

def medians(records):
    by_cfg = collections.defaultdict(list)
    for r in records:
        key = (cls(r), r['precision'], r['matrix']['name'], r['matrix'].get('hash'))
        by_cfg[key + (r['kernel'], json.dumps(r['params'], sort_keys=True))].append(r['stats']['median_s'])
    return {k: statistics.median(v) for k, v in by_cfg.items()}
def regrets(rule_from, judge_records):
    """the pick's time in another run's medians over that run's best, per row"""
    m = medians(judge_records)
    best = {}
    for k, t in m.items():
        if k[:4] not in best or t < best[k[:4]]: best[k[:4]] = t
    out = {}
    for row, (kernel, params, _) in rule_from.items():
        t = m.get(row + (kernel, params))
        if t is not None and row in best: out[row] = t / best[row]
    return out
def summary(vals):
    v = sorted(vals)
    q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
    return 'rows %d: median %.3f, 90th %.3f, worst %.3f; over 1.10: %d' % (len(v), q(0.5), q(0.9), v[-1], sum(x > 1.10 for x in v))
print()
print('the pick of one round, judged by another round:')
rs = [a] + [rb[i] for i in sorted(rb)] + [rc[i] for i in sorted(rc)]
allv = []
for i, j in itertools.permutations(range(len(rs)), 2):
    allv += list(regrets(rule(rs[i]), rs[j]).values())
print('  ', summary(allv))
print('the pick of three rounds (b), judged by three others (c), and c by b:')
print('  ', summary(list(regrets(rB, c).values()) + list(regrets(rC, b).values())))
print('rows slower than 0.1 ms only:')
def slow_rows(rule_from, judge):
    rg = regrets(rule_from, judge)
    return [v for k, v in rg.items() if rule_from[k][2] > 1e-4]
v1 = []
for i, j in itertools.permutations(range(len(rs)), 2):
    v1 += slow_rows(rule(rs[i]), rs[j])
print('   one round by another:', summary(v1))
print('   three by three:', summary(slow_rows(rB, c) + slow_rows(rC, b)))
