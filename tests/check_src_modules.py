#!/usr/bin/env python3
"""Fails on an include cycle between src/'s modules, or a file of src/ over the line limit.

A module is a path without its extension (driver/stream.hpp and driver/stream.cpp are one); module A
depends on B when a file of A includes B's header with a quoted include (rooted at src/, or relative
to the including file). Dependencies must run one way: a cycle (a strongly connected group of more
than one module) is printed and fails the check. Usage: check_src_modules.py [SRC_DIR] [LINE_LIMIT]."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "src"
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 500
include = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def module(path):
    return os.path.splitext(os.path.relpath(os.path.normpath(path), root))[0]


files = [os.path.join(d, f) for d, _, names in os.walk(root) for f in names if f.endswith((".cpp", ".hpp", ".h"))]
modules = {module(f) for f in files}
graph = {m: set() for m in modules}
for f in files:
    with open(f, errors="replace") as text:
        for line in text:
            m = include.match(line)
            if not m:
                continue
            target = module(os.path.join(os.path.dirname(f), m.group(1)))
            if target not in modules:
                target = module(os.path.join(root, m.group(1)))
            if target in modules and target != module(f):
                graph[module(f)].add(target)

# Tarjan's strongly connected components, iteratively.
index, low, on_stack, stack, cycles = {}, {}, set(), [], []
for start in sorted(graph):
    if start in index:
        continue
    work = [(start, iter(sorted(graph[start])))]
    index[start] = low[start] = len(index)
    stack.append(start)
    on_stack.add(start)
    while work:
        v, successors = work[-1]
        w = next(successors, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on_stack.add(w)
                work.append((w, iter(sorted(graph[w]))))
            elif w in on_stack:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

too_long = []
for f in sorted(files):
    with open(f, errors="replace") as text:
        lines = sum(1 for _ in text)
    if lines > limit:
        too_long.append((f, lines))

for c in cycles:
    print("include cycle: " + " <-> ".join(c))
for f, lines in too_long:
    print(f"{f}: {lines} lines, over {limit}")
print(f"{len(modules)} modules, {len(cycles)} cycles, {len(too_long)} files over {limit} lines")
sys.exit(1 if cycles or too_long else 0)
