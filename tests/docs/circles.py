#!/usr/bin/env python3
"""Import circles between the product's source files (issue 53): a test of the sources.

A file depends on another when it #includes it, when its object refers to a symbol the other's
object defines (nm on the build's objects), or, for a header, when one of its inline functions
names a symbol a .c file defines (a header whose inline code calls into the .c that includes it
is a circle). Circles are the strongly connected components of more than one file. Each must be
one of KNOWN below (an inline fast path kept on purpose); any other fails.
Usage: circles.py SRC_DIR BUILD_DIR [-v]"""
import os, re, subprocess, sys
from collections import defaultdict

# The one circle there is: buf.h's inline append (every byte of every output) calls hw_io.c's
# hw_buf_grow when the buffer must grow, and hw_io.c includes buf.h.
KNOWN = [
    {'include/hwrun/buf.h', 'runlog/common/hw_io.c'},  # hw_buf_reserve -> hw_buf_grow
]

src, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
verbose = '-v' in sys.argv

# objects of the product (not tests): build/<sub>/CMakeFiles/<target>.dir/<rel>.c.o
objs = {}
for root, dirs, files in os.walk(build):
    rel = os.path.relpath(root, build)
    if rel.startswith('tests') or '/CMakeFiles/' not in '/' + rel + '/':
        continue
    for f in files:
        if not f.endswith('.c.o'):
            continue
        sub, _, rest = rel.partition('/CMakeFiles/')
        inner = rest.split('/', 1)[1] if '/' in rest else ''
        c = os.path.normpath(os.path.join(src, '' if sub == '.' else sub, inner, f[:-2]))
        if os.path.exists(c):
            objs[c] = os.path.join(root, f)

defs, undef = {}, defaultdict(set)
src_of = {o: c for c, o in objs.items()}
out = subprocess.run(['nm', '-A', '-P'] + sorted(src_of), capture_output=True, text=True,
                     check=True).stdout  # one run: "OBJECT: SYMBOL TYPE [VALUE SIZE]"
for line in out.splitlines():
    o, _, rest = line.rpartition(': ')  # symbols hold no blanks
    parts = rest.split()
    c = src_of.get(o)
    if c is None or len(parts) < 2:
        continue
    if parts[1] == 'U':
        undef[c].add(parts[0])
    elif parts[1] in 'TDRBCV':
        defs.setdefault(parts[0], c)  # a symbol in two objects (two programs): the first

def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)

headers = set()
for root, dirs, files in os.walk(src):
    if os.path.relpath(root, src).split(os.sep)[0] in ('build', 'tests', '.git', 'python'):
        continue
    headers.update(os.path.join(root, f) for f in files if f.endswith('.h'))

def resolve(name, where):
    for d in (os.path.dirname(where), os.path.join(src, 'include')):
        p = os.path.normpath(os.path.join(d, name))
        if p in headers:
            return p
    hits = [h for h in headers if h.endswith('/' + name)]
    return hits[0] if len(hits) == 1 else None

edges, why = defaultdict(set), {}
def edge(a, b, reason):
    if a != b:
        edges[a].add(b)
        why.setdefault((a, b), reason)

for f in list(objs) + sorted(headers):
    text = open(f, errors='replace').read()
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, flags=re.M):
        h = resolve(m.group(1), f)
        if h:
            edge(f, h, '#include')
for c in objs:
    for s in undef[c]:
        if s in defs:
            edge(c, defs[s], s)
for h in headers:
    text = strip(open(h, errors='replace').read())
    bodies = []
    for m in re.finditer(r'\binline\b[^;{]*\{', text):
        i, depth = m.end(), 1
        while depth and i < len(text):
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
        bodies.append(text[m.end():i])
    # macros are expanded at the user's site: their calls are the user's (nm sees them)
    for b in bodies:
        for s in set(re.findall(r'\b[A-Za-z_]\w*\b', b)):
            if s in defs:
                edge(h, defs[s], s + ' (inline)')

g = edges

# Tarjan, iterative
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
nodes = sorted(set(g) | {b for v in g.values() for b in v})
for v0 in nodes:
    if v0 in index:
        continue
    work = [(v0, iter(sorted(g[v0])))]
    index[v0] = low[v0] = n[0]; n[0] += 1; stack.append(v0); on.add(v0)
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(g[w]))))
                break
            if w in on:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))

rel = lambda p: os.path.relpath(p, src)
if not objs:
    sys.exit('circles.py: no objects of the product under %s: build it first' % build)
bad = 0
for comp in sccs:
    names = {rel(p) for p in comp}
    known = names in [set(k) for k in KNOWN]
    bad += not known
    print('%s circle: %s' % ('known' if known else 'NEW', ' '.join(sorted(names))))
    if verbose or not known:
        for a in comp:
            for b in sorted(g[a]):
                if b in comp:
                    print('   %s -> %s (%s)' % (rel(a), rel(b), why[(a, b)]))
for k in KNOWN:
    if set(k) not in [{rel(p) for p in c} for c in sccs]:
        print('gone (take it out of KNOWN): ' + ' '.join(sorted(k)))
print('%d circle(s) among %d files, %d not known' % (len(sccs), len(nodes), bad))
sys.exit(1 if bad else 0)
