"""Values known before the game starts: integer arithmetic over literals and option
defaults, enum members, and the members of finite domains built from them.

Options can be changed with --set, so these are the values under the defaults; the passes
that use them (option ranges, table coverage) say nothing when a value is not known here.
"""
from __future__ import annotations

from typing import Optional

import attrs

from .. import ast as A
from ._names import Resolution
from ._scope import Member, Predef, Scope, Symbol

_MAX_DOMAIN = 10_000


@attrs.frozen
class EnumVal:
    """An enum member or a seat (owner 'player') as a constant."""
    owner: str
    name: str

    def __str__(self) -> str:
        return self.name


def show(value) -> str:
    """A constant as gdl writes it: `true`, `7`, `hearts`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Consts:
    """Evaluates constant expressions of one ruleset."""

    def __init__(self, scope: Scope, res: Resolution):
        self.scope = scope
        self.res = res
        self._busy: set = set()

    def value(self, expr):
        """The constant value of `expr` (int, bool or EnumVal), or None if not constant."""
        if isinstance(expr, (A.IntLit, A.BoolLit, A.StrLit)):
            return expr.value
        if isinstance(expr, A.Neg):
            v = self.value(expr.operand)
            return -v if type(v) is int else None
        if isinstance(expr, A.BinOp):
            return self._arith(expr)
        if isinstance(expr, (A.Name, A.Attr)):
            return self._named(self.res.of(expr))
        return None

    def int_value(self, expr) -> Optional[int]:
        v = self.value(expr)
        return v if type(v) is int else None

    def _arith(self, expr: A.BinOp) -> Optional[int]:
        a, b = self.int_value(expr.left), self.int_value(expr.right)
        if a is None or b is None or (expr.op in "/%" and b == 0):
            return None
        ops = {"+": a + b, "-": a - b, "*": a * b}
        if expr.op in ops:
            return ops[expr.op]
        return a // b if expr.op == "/" else a % b

    def _named(self, found):
        if isinstance(found, Member):
            return EnumVal(found.owner, found.name)
        if isinstance(found, Predef) and found.name == "num_players" and self.scope.players:
            return self.scope.players.default
        if isinstance(found, Symbol) and found.kind == "option" and found.name not in self._busy:
            self._busy.add(found.name)
            try:
                return self.value(found.decl.default)
            finally:
                self._busy.discard(found.name)
        return None

    def domain(self, expr) -> Optional[list]:
        """The members of a finite domain known before the game starts, or None."""
        if isinstance(expr, A.Range):
            lo, hi = self.int_value(expr.lo), self.int_value(expr.hi)
            if lo is None or hi is None or hi - lo >= _MAX_DOMAIN:
                return None
            return list(range(lo, hi + 1))
        if isinstance(expr, (A.SetLit, A.ListLit)):
            values = [self.value(item) for item in expr.items]
            return None if any(v is None for v in values) else list(dict.fromkeys(values))
        if isinstance(expr, A.Name):
            return self._named_domain(self.res.of(expr))
        if isinstance(expr, A.BinOp) and expr.op == "+":      # two lists joined
            a, b = self.domain(expr.left), self.domain(expr.right)
            if a is not None and b is not None and len(a) + len(b) <= _MAX_DOMAIN:
                return list(dict.fromkeys(a + b))
        return None

    def _named_domain(self, found) -> Optional[list]:
        if found == Predef("bool"):
            return [False, True]
        if found == Predef("player"):
            return [EnumVal("player", s) for s in self.scope.seats] or None
        if isinstance(found, Symbol) and found.name in self.scope.enums:
            return [EnumVal(found.name, m) for m in self.scope.enums[found.name]]
        return None
