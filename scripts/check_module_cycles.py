#!/usr/bin/env python3
"""Fails when the modules of a workspace crate import each other in a cycle.

Cargo already refuses cycles between crates; inside a crate, Rust allows
them, so this check keeps the rule of docs/architecture.md ("no cycles
inside crates either"). An edge a -> b is a `crate::b` or `super::` path in
module a's code (comments and `#[cfg(test)] mod tests` blocks excluded) that
names a module b which is neither a's ancestor nor its descendant.

Usage: scripts/check_module_cycles.py [CRATES_DIR]   (default: crates; the
binary crate's src/ beside CRATES_DIR is checked too)
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super)((?:::\w+)+)")


def module_of(src, file):
    parts = os.path.relpath(file, src)[:-3].split(os.sep)
    return parts[:-1] if parts[-1] in ("lib", "mod") else parts


def code_of(file):
    text = open(file, encoding="utf-8").read()
    cut = text.find("#[cfg(test)]\nmod tests")
    if cut >= 0:
        text = text[:cut]
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def resolve(src, here, base, parts):
    """The deepest existing module a path names."""
    if base == "crate":
        target = list(parts)
    else:
        target = here[:-1]
        while parts and parts[0] == "super":
            target, parts = target[:-1], parts[1:]
        target = target + list(parts)
    found = []
    for p in target:
        cand = found + [p]
        if os.path.exists(os.path.join(src, *cand) + ".rs") or os.path.isdir(os.path.join(src, *cand)):
            found = cand
        else:
            break
    return found


def edges_of(src):
    edges = {}
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            file = os.path.join(d, f)
            here = module_of(src, file)
            for m in PATH.finditer(code_of(file)):
                base, parts = m.group(1), m.group(2).split("::")[1:]
                to = resolve(src, here, base, parts)
                a, b = "::".join(here), "::".join(to)
                if b and a != b and not a.startswith(b + "::") and not b.startswith(a + "::"):
                    edges.setdefault(a, set()).add(b)
    return edges


def cycles(edges):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(100_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "crates"
    # Every crate under CRATES_DIR, and the binary crate beside it (src/).
    sources = [(crate, os.path.join(root, crate, "src")) for crate in sorted(os.listdir(root))]
    sources.append(("tracelab (binary)", os.path.join(os.path.dirname(os.path.abspath(root)), "src")))
    found = []
    for crate, src in sources:
        if os.path.isdir(src):
            found += [(crate, c) for c in cycles(edges_of(src))]
    for crate, comp in found:
        print(f"{crate}: modules import each other in a cycle: {', '.join(comp)}", file=sys.stderr)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
