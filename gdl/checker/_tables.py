"""Table coverage: every combination of parameter values has exactly one row (or `else`).

A table is the ruleset's transcription of a printed score table, where a missing or a
doubled entry is a typo; both are found here, before a game reaches the gap.  Domains are
computed under the options' defaults; where a domain or a key is not known before the game
starts, coverage is not checked.
"""
from __future__ import annotations

import itertools
from typing import Optional

from .. import ast as A
from ._consts import Consts, show
from ._names import Resolution
from ._report import Report
from ._scope import Scope

_MAX_COMBINATIONS = 100_000
_SHOWN = 5


def check_tables(ruleset: A.Ruleset, scope: Scope, res: Resolution, report: Report) -> None:
    """Reports rows with the wrong number of keys, overlapping rows and missing cases."""
    consts = Consts(scope, res)
    for decl in ruleset.decls:
        if isinstance(decl, A.TableDecl):
            _Table(decl, consts, report).check()


class _Table:
    def __init__(self, decl: A.TableDecl, consts: Consts, report: Report):
        self.decl = decl
        self.consts = consts
        self.report = report

    def check(self) -> None:
        rows = [row for row in self.decl.rows if self.arity_ok(row)]
        keys = [self.row_keys(row) for row in rows]
        if any(k is None for k in keys):
            return      # a key not known before the game starts
        self.overlaps(rows, keys)
        if self.decl.default is None:
            self.coverage(keys)

    def arity_ok(self, row: A.TableRow) -> bool:
        n = len(self.decl.params)
        if len(row.keys) == n:
            return True
        self.report.error(f"this row has {len(row.keys)} key(s), but table {self.decl.name} "
                          f"has {n} parameter(s): give one key per parameter", row.span)
        return False

    def row_keys(self, row: A.TableRow) -> Optional[list]:
        """Each key as a matcher: ('range', lo, hi) or ('value', v); None if not constant."""
        out = []
        for key in row.keys:
            if isinstance(key, A.Range):
                lo, hi = self.consts.int_value(key.lo), self.consts.int_value(key.hi)
                matcher = None if lo is None or hi is None else ("range", lo, hi)
            else:
                value = self.consts.value(key)
                matcher = None if value is None else ("value", value)
            if matcher is None:
                return None
            out.append(matcher)
        return out

    def overlaps(self, rows: list, keys: list) -> None:
        for j in range(len(rows)):
            for i in range(j):
                common = [_meet(a, b) for a, b in zip(keys[i], keys[j])]
                if all(c is not None for c in common):
                    self.report.error(
                        f"rows at lines {rows[i].span.line} and {rows[j].span.line} both "
                        f"match {self.describe(common)}; each case needs exactly one row",
                        rows[j].span)
                    break

    def coverage(self, keys: list) -> None:
        domains = [self.consts.domain(p.domain) for p in self.decl.params]
        if any(d is None for d in domains) or _product_size(domains) > _MAX_COMBINATIONS:
            return
        missing = [combo for combo in itertools.product(*domains)
                   if not any(all(_matches(k, v) for k, v in zip(row, combo)) for row in keys)]
        if missing:
            shown = "; ".join(self.describe(c) for c in missing[:_SHOWN])
            more = f" (and {len(missing) - _SHOWN} more)" if len(missing) > _SHOWN else ""
            self.report.error(f"table {self.decl.name} has no case for {shown}{more}; add rows "
                              f"or an `else => ...` row", self.decl.span)

    def describe(self, combo) -> str:
        return ", ".join(f"{p.name}={show(v)}" for p, v in zip(self.decl.params, combo))


def _matches(key: tuple, value) -> bool:
    if key[0] == "range":
        return type(value) is int and key[1] <= value <= key[2]
    return key[1] == value and type(key[1]) is type(value)


def _meet(a: tuple, b: tuple):
    """A value both keys match, or None."""
    if a[0] == "value":
        return a[1] if _matches(b, a[1]) else None
    if b[0] == "value":
        return b[1] if _matches(a, b[1]) else None
    lo = max(a[1], b[1])
    return lo if lo <= min(a[2], b[2]) else None


def _product_size(domains: list) -> int:
    size = 1
    for d in domains:
        size *= len(d)
    return size
