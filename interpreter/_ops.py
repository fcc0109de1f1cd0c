"""Operators (arithmetic, comparisons, membership, and/or/not, conditionals, ranges and
literal lists) compiled into closures, with the inline fast paths the hot requires need."""
from __future__ import annotations

import operator

from gdl import ast as A

from ._closures import _const, _folded, _tuple_valued, _tuples
from ._fuse import fuse
from .values import ZoneRef

_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
# The same operators written inline, one closure each instead of `fn(left(st), right(st))`
# (a call fewer): `_INLINE[op](left, right)` for two closures, `_INLINE_CONST[op](left, c)`
# for a constant right operand.
_INLINE = {
    "+": lambda a, b: lambda st: a(st) + b(st),
    "-": lambda a, b: lambda st: a(st) - b(st),
    "*": lambda a, b: lambda st: a(st) * b(st),
    "<": lambda a, b: lambda st: a(st) < b(st),
    "<=": lambda a, b: lambda st: a(st) <= b(st),
    ">": lambda a, b: lambda st: a(st) > b(st),
    ">=": lambda a, b: lambda st: a(st) >= b(st),
}
_INLINE_CONST = {
    "+": lambda a, c: lambda st: a(st) + c,
    "-": lambda a, c: lambda st: a(st) - c,
    "*": lambda a, c: lambda st: a(st) * c,
    "<": lambda a, c: lambda st: a(st) < c,
    "<=": lambda a, c: lambda st: a(st) <= c,
    ">": lambda a, c: lambda st: a(st) > c,
    ">=": lambda a, c: lambda st: a(st) >= c,
    "/": lambda a, c: lambda st: a(st) // c,
    "%": lambda a, c: lambda st: a(st) % c,
}

# `v + c` / `v - c` of a global variable, read inline: `_INLINE_VAR_CONST[op](slot, c)`.
_INLINE_VAR_CONST = {
    "+": lambda slot, c: lambda st: st.vars[slot] + c,
    "-": lambda slot, c: lambda st: st.vars[slot] - c,
}

# `a + x` / `a - x` of a frame local x, read inline: `_INLINE_FRAME[op](a, slot)`.
_INLINE_FRAME = {
    "+": lambda a, slot: lambda st: a(st) + st.frame[slot],
    "-": lambda a, slot: lambda st: a(st) - st.frame[slot],
}


class OperatorMixin:
    """Part of ExprCompiler: `_e_` handlers for operators."""

    # ------------------------------------------------------------------ operators
    def _e_BinOp(self, node, scope):
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        fn = self._binop(node, left, right)
        if _folded(fn) is not None:
            return fn
        op = node.op
        if op in _BINOPS:
            return fuse(fn, lambda ctx: f"({ctx.sub(left)} {op} {ctx.sub(right)})")
        c = _folded(right)
        if c is not None and c[0] != 0:
            py = "//" if op == "/" else "%"
            return fuse(fn, lambda ctx: f"({ctx.sub(left)} {py} {ctx.sub(right)})")
        return fn   # a divisor that may be zero: the closure reports it

    def _binop(self, node, left, right):
        if node.op in _BINOPS:
            fn = _BINOPS[node.op]
            both = _folded(left, right)
            if both is not None:
                return _const(fn(*both))
            c = _folded(right)
            if c is not None:
                slot = getattr(left, "var_slot", None)
                if slot is not None and node.op in _INLINE_VAR_CONST:   # `history + "p"`
                    return _INLINE_VAR_CONST[node.op](slot, c[0])
                return _INLINE_CONST[node.op](left, c[0])
            slot = getattr(right, "frame_slot", None)
            if slot is not None and node.op in _INLINE_FRAME:   # `count(deck[me]) - k`
                return _INLINE_FRAME[node.op](left, slot)
            return _INLINE[node.op](left, right)
        c = _folded(right)
        if c is not None and c[0] != 0:   # `t % 11`: no zero test needed
            return _INLINE_CONST[node.op](left, c[0])
        if node.op == "/":
            def divide(st):
                a, b = left(st), right(st)
                if b == 0:
                    raise self.runtime_error("division by zero", node, st)
                return a // b
            return divide

        def modulo(st):
            a, b = left(st), right(st)
            if b == 0:
                raise self.runtime_error("division by zero", node, st)
            return a % b
        return modulo

    def _e_Neg(self, node, scope):
        inner = self.expr(node.operand, scope)
        return fuse(lambda st: -inner(st), lambda ctx: f"(-{ctx.sub(inner)})")

    def _e_Compare(self, node, scope):
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        fn = _COMPARE[node.op]
        both = _folded(left, right)
        if both is not None:
            return _const(fn(*both))
        op = node.op
        return fuse(self._compare(node, fn, left, right),
                    lambda ctx: f"({ctx.sub(left)} {op} {ctx.sub(right)})")

    def _compare(self, node, fn, left, right):
        if _folded(right) is not None:
            return self._compare_const(node.op, fn, left, _folded(right)[0])
        loop_attr = getattr(left, "loop_attr", None)
        if loop_attr is not None and node.op in ("==", "!="):
            return self._compare_loop_attr(node.op == "==", left, loop_attr, right)
        if node.op in ("==", "!="):
            return self._equality(node.op == "==", left, right)
        return _INLINE[node.op](left, right)

    def _equality(self, equal, left, right):
        """`a == b` / `!=` of two run-time values: a frame local, comprehension variable or
        global variable on either side (`p == winner`, `colour_of(c) == x`) is read inline,
        the left side first, as the generic form evaluates it."""
        scratch = self.scratch
        memo = getattr(right, "memo", None)
        if memo is not None:
            return self._equality_memo(equal, left, memo)
        slot = getattr(left, "frame_slot", None)
        if slot is not None:
            if equal:
                return lambda st: st.frame[slot] == right(st)
            return lambda st: st.frame[slot] != right(st)
        slot = getattr(left, "scratch_slot", None)
        if slot is not None:
            if equal:
                return lambda st: scratch[slot] == right(st)
            return lambda st: scratch[slot] != right(st)
        slot = getattr(left, "var_slot", None)
        if slot is not None:
            if equal:
                return lambda st: st.vars[slot] == right(st)
            return lambda st: st.vars[slot] != right(st)
        slot = getattr(right, "frame_slot", None)
        if slot is not None:
            if equal:
                return lambda st: left(st) == st.frame[slot]
            return lambda st: left(st) != st.frame[slot]
        slot = getattr(right, "scratch_slot", None)
        if slot is not None:
            if equal:
                return lambda st: left(st) == scratch[slot]
            return lambda st: left(st) != scratch[slot]
        slot = getattr(right, "var_slot", None)
        if slot is not None:
            if equal:
                return lambda st: left(st) == st.vars[slot]
            return lambda st: left(st) != st.vars[slot]
        if equal:
            return lambda st: left(st) == right(st)
        return lambda st: left(st) != right(st)

    @staticmethod
    def _equality_memo(equal, left, memo):
        """`c != selected[opponent(me)]`, `c.suit == led.suit`: a value against a hoisted
        part, the commonest require; the memo (`memoised` tags its closure with `.memo =
        (memo, epochs, level, fn)`) is read inline, one call fewer per candidate, after the
        left side as in the generic form."""
        cell, epochs, level, fn = memo
        slot = getattr(left, "frame_slot", None)
        if slot is not None:
            def frame_eq_memo(st):
                if cell[0] != epochs[level]:
                    cell[1] = fn(st)
                    cell[0] = epochs[level]
                return st.frame[slot] == cell[1]

            def frame_ne_memo(st):
                if cell[0] != epochs[level]:
                    cell[1] = fn(st)
                    cell[0] = epochs[level]
                return st.frame[slot] != cell[1]
            return frame_eq_memo if equal else frame_ne_memo

        def eq_memo(st):
            v = left(st)
            if cell[0] != epochs[level]:
                cell[1] = fn(st)
                cell[0] = epochs[level]
            return v == cell[1]

        def ne_memo(st):
            v = left(st)
            if cell[0] != epochs[level]:
                cell[1] = fn(st)
                cell[0] = epochs[level]
            return v != cell[1]
        return eq_memo if equal else ne_memo

    def _compare_loop_attr(self, equal, left, loop_attr, right, const=()):
        """`x.suit == y` / `!=` over a comprehension's x, the commonest test in
        comprehensions: the field is read inline (a none x goes through `left`, which
        reports it).  The right side is the closure `right`, or the constant in the 1-tuple
        `const` (which may be none)."""
        slot, field = loop_attr
        scratch = self.scratch
        if const:
            (c,) = const
            if equal:
                def loop_attr_eq_const(st):
                    v = scratch[slot]
                    return (left(st) if v is None else v.attrs[field]) == c
                return loop_attr_eq_const

            def loop_attr_ne_const(st):
                v = scratch[slot]
                return (left(st) if v is None else v.attrs[field]) != c
            return loop_attr_ne_const
        if equal:
            def loop_attr_eq(st):
                v = scratch[slot]
                return (left(st) if v is None else v.attrs[field]) == right(st)
            return loop_attr_eq

        def loop_attr_ne(st):
            v = scratch[slot]
            return (left(st) if v is None else v.attrs[field]) != right(st)
        return loop_attr_ne

    def _compare_const(self, op, fn, left, c):
        """`x OP constant`, the commonest test in requires: equality is written inline and
        a frame local, a global variable or a comprehension variable is read inline, sparing
        two calls per test."""
        slot = getattr(left, "frame_slot", None)
        var = getattr(left, "var_slot", None)
        loop = getattr(left, "scratch_slot", None)
        scratch = self.scratch
        loop_attr = getattr(left, "loop_attr", None)
        if loop_attr is not None and op in ("==", "!="):
            return self._compare_loop_attr(op == "==", left, loop_attr, None, (c,))
        if op == "==":
            if slot is not None:
                return lambda st: st.frame[slot] == c
            if var is not None:
                return lambda st: st.vars[var] == c
            if loop is not None:
                return lambda st: scratch[loop] == c
            return lambda st: left(st) == c
        if op == "!=":
            if slot is not None:
                return lambda st: st.frame[slot] != c
            if var is not None:
                return lambda st: st.vars[var] != c
            if loop is not None:
                return lambda st: scratch[loop] != c
            return lambda st: left(st) != c
        if slot is not None:
            return lambda st: fn(st.frame[slot], c)
        if var is not None:
            return lambda st: fn(st.vars[var], c)
        counted = getattr(left, "count_frame", None)
        if counted is not None:
            def compare_count(st):   # `count(c) > 1` over a frame local: one call
                v = st.frame[counted]
                return fn(len(st.zones[v.slot]) if isinstance(v, ZoneRef) else len(v), c)
            return compare_count
        return _INLINE_CONST[op](left, c)

    def _e_Member(self, node, scope):
        item, coll = self.expr(node.item, scope), self.container(node.coll, scope)
        c = _folded(coll)
        if c is not None:   # `c.suit in {hearts, diamonds}`: the constant tuple inline
            values = c[0]
            loop_attr = getattr(item, "loop_attr", None)
            if loop_attr is not None and not node.negated:
                slot, field = loop_attr    # over a comprehension's c: the field read inline
                scratch = self.scratch

                def loop_attr_in(st):
                    v = scratch[slot]
                    return (item(st) if v is None else v.attrs[field]) in values
                return loop_attr_in
            if node.negated:
                return lambda st: item(st) not in values
            return lambda st: item(st) in values
        if node.negated:
            return lambda st: item(st) not in coll(st)
        return lambda st: item(st) in coll(st)

    def _e_And(self, node, scope):
        parts = [self.expr(i, scope) for i in node.items]
        if any(_folded(p) == [False] for p in parts):
            return _const(False)
        parts = [p for p in parts if _folded(p) != [True]] or [_const(True)]
        if len(parts) == 1:
            return parts[0]
        return fuse(self._and(parts), lambda ctx: _join(ctx, parts, "and"))

    @staticmethod
    def _and(parts):
        if len(parts) == 2:
            a, b = parts
            return lambda st: a(st) and b(st)
        if len(parts) == 3:   # as `all(...)` (a bool), without a generator
            a, b, c = parts
            return lambda st: True if a(st) and b(st) and c(st) else False
        if len(parts) == 4:
            a, b, c, d = parts
            return lambda st: True if a(st) and b(st) and c(st) and d(st) else False
        if len(parts) == 5:
            a, b, c, d, e = parts
            return lambda st: True if a(st) and b(st) and c(st) and d(st) and e(st) else False

        def and_all(st):
            for p in parts:
                if not p(st):
                    return False
            return True
        return and_all

    def _e_Or(self, node, scope):
        parts = [self.expr(i, scope) for i in node.items]
        if any(_folded(p) == [True] for p in parts):
            return _const(True)
        parts = [p for p in parts if _folded(p) != [False]] or [_const(False)]
        if len(parts) == 1:
            return parts[0]
        return fuse(self._or(parts), lambda ctx: _join(ctx, parts, "or"))

    @staticmethod
    def _or(parts):
        if len(parts) == 2:
            a, b = parts
            return lambda st: a(st) or b(st)
        if len(parts) == 3:   # as `any(...)` (a bool), without a generator
            a, b, c = parts
            return lambda st: True if a(st) or b(st) or c(st) else False
        if len(parts) == 4:
            a, b, c, d = parts
            return lambda st: True if a(st) or b(st) or c(st) or d(st) else False

        def or_any(st):
            for p in parts:
                if p(st):
                    return True
            return False
        return or_any

    def _e_Not(self, node, scope):
        inner = self.expr(node.operand, scope)
        if _folded(inner) is not None:
            return _const(not _folded(inner)[0])
        return fuse(self._not(inner), lambda ctx: f"(not {ctx.sub(inner)})")

    @staticmethod
    def _not(inner):
        slot = getattr(inner, "var_slot", None)
        if slot is not None:   # `not round_over`: the variable read inline
            return lambda st: not st.vars[slot]
        slot = getattr(inner, "frame_slot", None)
        if slot is not None:
            return lambda st: not st.frame[slot]
        return lambda st: not inner(st)

    def _e_Cond(self, node, scope):
        test, a, b = (self.expr(x, scope) for x in (node.test, node.then, node.else_))
        if _folded(test) is not None:
            return a if _folded(test)[0] else b
        ca, cb = _folded(a), _folded(b)
        if ca is not None and cb is not None:   # `if .. then red else black`: no calls
            va, vb = ca[0], cb[0]
            fn = lambda st: va if test(st) else vb  # noqa: E731
        elif ca is not None:
            va = ca[0]
            fn = lambda st: va if test(st) else b(st)  # noqa: E731
        elif cb is not None:
            vb = cb[0]
            fn = lambda st: a(st) if test(st) else vb  # noqa: E731
        else:
            fn = lambda st: a(st) if test(st) else b(st)  # noqa: E731
        if _tuple_valued(a) and _tuple_valued(b):
            _tuples(fn)
        return fuse(fn, lambda ctx: f"({ctx.sub(a)} if {ctx.sub(test)} else {ctx.sub(b)})")

    def _e_Range(self, node, scope):
        lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
        both = _folded(lo, hi)
        if both is not None:
            return _const(tuple(range(both[0], both[1] + 1)))
        return _tuples(lambda st: tuple(range(lo(st), hi(st) + 1)))

    def _e_SetLit(self, node, scope):
        return self._e_ListLit(node, scope)

    def _e_ListLit(self, node, scope):
        items = [self.expr(i, scope) for i in node.items]
        if all(isinstance(i, (A.IntLit, A.Name, A.Attr)) for i in node.items):
            try:
                values = tuple(f(self.const_state) for f in items)
                return _const(values)
            except Exception:  # noqa: BLE001 - not constant: evaluate at run time
                pass
        return _tuples(lambda st: tuple([f(st) for f in items]))


def _join(ctx, parts, word):
    """`a and b` as the two-part closure gives it (a's value when false); three or more
    parts give a bool, as `and_all` / `or_any` do."""
    text = f" {word} ".join(ctx.sub(p) for p in parts)
    return f"({text})" if len(parts) == 2 else f"(True if {text} else False)"
