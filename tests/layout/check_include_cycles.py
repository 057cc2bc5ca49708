#!/usr/bin/env python3
"""check_include_cycles.py - no project header includes itself, directly or
through others (issue 15: "no include cycles").

Usage: check_include_cycles.py SOURCE_ROOT

Follows the quoted includes ("...") of every header under the runtime and
compiler trees, resolving each the way the build's include directories do
(the including file's folder first, then a path suffix match), and prints
each cycle it finds. Exits non-zero when there is one.
"""

import collections
import os
import re
import sys

TREES = ["base", "vm", "hal", "modules", "runtime", "tools", "schemas", "python/src",
         "samples", "compiler/include", "compiler/lib", "fuzz", "tests"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    headers = {}
    for tree in TREES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, tree)):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.endswith((".h", ".hpp")):
                    path = os.path.relpath(os.path.join(dirpath, name), root)
                    with open(os.path.join(root, path), encoding="utf-8",
                              errors="replace") as f:
                        headers[path] = f.read()
    by_suffix = collections.defaultdict(list)
    for path in headers:
        parts = path.split("/")
        for i in range(len(parts)):
            by_suffix["/".join(parts[i:])].append(path)

    graph = {}
    for path, text in headers.items():
        deps = []
        for include in INCLUDE_RE.findall(text):
            local = os.path.normpath(os.path.join(os.path.dirname(path),
                                                  include))
            if local in headers:
                deps.append(local)
            elif by_suffix.get(include):
                deps.append(sorted(by_suffix[include])[0])
        graph[path] = deps

    cycles = []
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for dep in graph.get(node, []):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in state:
            visit(node)
    for cycle in cycles:
        print("include cycle: " + " -> ".join(cycle))
    if cycles:
        return 1
    print(f"include cycles: none among {len(graph)} headers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
