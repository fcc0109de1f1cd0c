"""Generic traversal of AST nodes, for passes that look for constructs anywhere.

The passes that give each construct its own meaning (names, types) dispatch on node type;
the ones that only search (does the game ever end? which rules does this rule run?) use
these walkers so they do not have to list every node type.
"""
from __future__ import annotations

from typing import Iterable, Iterator

import attrs

from .. import ast as A


def children(node) -> Iterator:
    """Yields the AST nodes directly inside `node`, in field order (spans left out)."""
    for field in attrs.fields(type(node)):
        if field.name != "span":
            yield from _nodes_in(getattr(node, field.name))


def _nodes_in(value) -> Iterator:
    if isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)
    elif attrs.has(type(value)):
        yield value


def walk(node) -> Iterator:
    """Yields `node` and every node inside it, parents before children."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def walk_all(nodes: Iterable) -> Iterator:
    """Yields every node inside any of `nodes` (a body of statements, a list of decls)."""
    for node in nodes:
        yield from walk(node)


def callees_first(decls) -> list:
    """The defs, each after the defs it calls (a cycle, reported elsewhere, where it
    falls): typed in this order, no def's type waits on a chain of others."""
    defs = {d.name: d for d in decls if isinstance(d, A.DefDecl)}
    out, seen = [], set()
    for root in defs.values():
        if root.name in seen:
            continue
        seen.add(root.name)
        stack = [(root, iter(_calls(root, defs)))]
        while stack:
            decl, pending = stack[-1]
            nxt = next((d for d in pending if d.name not in seen), None)
            if nxt is None:
                stack.pop()
                out.append(decl)
            else:
                seen.add(nxt.name)
                stack.append((nxt, iter(_calls(nxt, defs))))
    return out


def _calls(decl, defs) -> list:
    return [defs[n.func] for n in walk(decl.body) if isinstance(n, A.Call) and n.func in defs]
