"""Operators (arithmetic, comparisons, membership, and/or/not, conditionals, ranges and
literal lists) compiled into plain closures, each tagged with its template for generated
code (`_fuse.py`), which is what runs."""
from __future__ import annotations

import operator

from gdl import ast as A

from ._closures import (MOST_IN_RANGE, _among, _bound_sides, _const, _folded, _has_runs,
                        _rendered, _runs_of, _values_among, _tuple_valued, _tuples, range_tuple)
from ._fuse import fuse

_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul}
#: the most digits a product may have (as many as Python writes out: a number is text in
#: views, logs and keys)
MOST_PRODUCT_DIGITS = 4300
_MOST_PRODUCT = 10 ** MOST_PRODUCT_DIGITS
#: a constant factor no larger than this grows a product as a sum grows: left unchecked
_SMALL_FACTOR = 1 << 16
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
# The plain closures: the reference form, run as they are with GDL_FUSE=0.  The fast path
# is the same operator written into generated code (`_fuse.py`), one function per
# expression instead of a closure per node.
_PLAIN = {
    "+": lambda a, b: lambda st: a(st) + b(st),
    "-": lambda a, b: lambda st: a(st) - b(st),
    "*": lambda a, b: lambda st: a(st) * b(st),
    "==": lambda a, b: lambda st: a(st) == b(st),
    "!=": lambda a, b: lambda st: a(st) != b(st),
    "<": lambda a, b: lambda st: a(st) < b(st),
    "<=": lambda a, b: lambda st: a(st) <= b(st),
    ">": lambda a, b: lambda st: a(st) > b(st),
    ">=": lambda a, b: lambda st: a(st) >= b(st),
}


class OperatorMixin:
    """Part of ExprCompiler: `_e_` handlers for operators."""

    # ------------------------------------------------------------------ operators
    def _e_BinOp(self, node, scope):
        if id(node) in self.joins_lists:
            return self.joined_lists(node, scope)
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        op = node.op
        both = _folded(left, right)
        if op in _BINOPS:
            if both is not None:
                return _const(_BINOPS[op](*both))
            if op == "*" and not any(   # (`3 * n` grows as a sum does: unchecked)
                    c is not None and type(c[0]) is int and abs(c[0]) <= _SMALL_FACTOR
                    for c in (_folded(left), _folded(right))):
                return self.product(node, left, right)
            return fuse(_PLAIN[op](left, right),
                        lambda ctx: f"({ctx.sub(left)} {op} {ctx.sub(right)})")
        c = _folded(right)
        if c is not None and c[0] != 0:   # `t % 11`: no zero test needed
            (k,) = c
            if op == "/":
                fn = lambda st: left(st) // k  # noqa: E731
            else:
                fn = lambda st: left(st) % k  # noqa: E731
            py = "//" if op == "/" else "%"
            return fuse(fn, lambda ctx: f"({ctx.sub(left)} {py} {ctx.sub(right)})")

        def divide(st):   # a divisor that may be zero: reported
            a, b = left(st), right(st)
            if b == 0:
                raise self.runtime_error("division by zero", node, st)
            return a // b if op == "/" else a % b

        def render(ctx):  # the same, inline: a zero divisor goes through `divide`
            a, b = ctx.tmp(), ctx.tmp()
            py = "//" if op == "/" else "%"
            return (f"({a} {py} {b} if (({a} := {ctx.sub(left)}) or True) and "
                    f"({b} := {ctx.sub(right)}) != 0 else {ctx.call(divide, cold=True)})")
        divide.render = render
        return divide

    def product(self, node, left, right):
        """`a * b`, refused past MOST_PRODUCT: a number squared in a loop takes minutes,
        then all memory, before anything else stops it (`+` grows a digit at a time)."""
        def too_big(st):
            raise self.runtime_error(f"a product of more than {MOST_PRODUCT_DIGITS:,} digits "
                                     f"(numbers multiplied in a loop?)", node, st)

        def times(st):
            r = left(st) * right(st)
            return r if -_MOST_PRODUCT < r < _MOST_PRODUCT else too_big(st)

        def render(ctx):
            r = ctx.tmp()
            return (f"({r} if -{ctx.k(_MOST_PRODUCT)} < ({r} := {ctx.sub(left)} * "
                    f"{ctx.sub(right)}) < {ctx.k(_MOST_PRODUCT)} else "
                    f"{ctx.call(too_big, cold=True)})")
        times.render = render
        return times

    def joined_lists(self, node, scope):
        """`a + b` of two lists: one tuple of both's items (a zone stands for its cards)."""
        left, right = self.collection(node.left, scope), self.collection(node.right, scope)
        both = _folded(left, right)
        if both is not None:
            return _const(both[0] + both[1])
        return _tuples(fuse(lambda st: left(st) + right(st),
                            lambda ctx: f"({ctx.sub(left)} + {ctx.sub(right)})"))

    def _e_Neg(self, node, scope):
        inner = self.expr(node.operand, scope)
        return fuse(lambda st: -inner(st), lambda ctx: f"(-{ctx.sub(inner)})")

    def _e_Compare(self, node, scope):
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        op = node.op
        both = _folded(left, right)
        if both is not None:
            return _const(_COMPARE[op](*both))
        render = lambda ctx: f"({ctx.sub(left)} {op} {ctx.sub(right)})"  # noqa: E731
        fn = fuse(_PLAIN[op](left, right), render)
        fn.evaluates = (render, left, right)     # both sides, once each (`_branch`)
        fn.bool_valued = True           # (no value of the language compares otherwise)
        return fn

    def _e_Member(self, node, scope):
        item, coll = self.expr(node.item, scope), self.container(node.coll, scope)
        word = "not in" if node.negated else "in"
        c = _folded(coll)
        if c is not None:   # `c.suit in {hearts, diamonds}`: the constant tuple passed in
            values = c[0]
            if node.negated:
                fn = lambda st: item(st) not in values  # noqa: E731
            else:
                fn = lambda st: item(st) in values  # noqa: E731
            fn = fuse(fn, lambda ctx: f"({ctx.sub(item)} {word} {ctx.k(values)})")
            fn.bool_valued = True
            return fn
        if node.negated:
            fn = lambda st: item(st) not in coll(st)  # noqa: E731
        else:
            fn = lambda st: item(st) in coll(st)  # noqa: E731
        fn = fuse(fn, lambda ctx: f"({ctx.sub(item)} {word} {ctx.sub(coll)})")
        fn.bool_valued = True
        return fn

    def _e_And(self, node, scope):
        return self._junction(node, scope, "and")

    def _e_Or(self, node, scope):
        return self._junction(node, scope, "or")

    def _junction(self, node, scope, word):
        """`a and b ...` / `a or b ...`: a constant part that decides it folds the whole,
        constant parts that do not are dropped.  Two parts give the deciding part's value,
        as Python's `and`/`or` do; more give a bool."""
        decides = word == "or"          # a true part decides `or`, a false one `and`
        parts = [self.expr(i, scope) for i in node.items]
        if any(_folded(p) == [decides] for p in parts):
            return _const(decides)
        parts = [p for p in parts if _folded(p) != [not decides]] or [_const(not decides)]
        if len(parts) == 1:
            return parts[0]
        if len(parts) == 2:
            a, b = parts
            fn = (lambda st: a(st) or b(st)) if decides else (lambda st: a(st) and b(st))
        else:
            def fn(st):
                for p in parts:
                    if bool(p(st)) is decides:
                        return decides
                return not decides
        fn.render_test = lambda ctx: "(" + f" {word} ".join(map(ctx.test, parts)) + ")"
        fn = fuse(fn, lambda ctx: _join(ctx, parts, word))
        fn.bool_valued = len(parts) > 2 or all(_bool_valued(p) for p in parts)
        return fn

    def _e_Not(self, node, scope):
        inner = self.expr(node.operand, scope)
        if _folded(inner) is not None:
            return _const(not _folded(inner)[0])
        fn = fuse(lambda st: not inner(st), lambda ctx: f"(not {ctx.test(inner)})")
        fn.bool_valued = True
        return fn

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
        among_a, among_b = _values_among(a), _values_among(b)   # (va, vb: read by fn)
        if among_a is not None and among_b is not None:
            _among(fn, among_a + among_b)
        if _has_runs(a, b):         # a draw from either branch picks from its runs
            fn.runs = lambda ctx: \
                f"({_runs_of(ctx, a)} if {ctx.test(test)} else {_runs_of(ctx, b)})"
        # a repeated call a comparison tested evaluates (`_remembered`): worked out there,
        # read plainly in the branches
        binding = _bound_sides(test, "remembered")
        if not binding:
            return fuse(fn, lambda ctx: f"({ctx.sub(a)} if {ctx.test(test)} else {ctx.sub(b)})")

        def rendered(ctx):
            if ctx.memo is None:
                return f"({ctx.sub(a)} if {ctx.test(test)} else {ctx.sub(b)})"
            outer, settled = ctx.binding, ctx.settled
            ctx.binding = binding
            try:
                tested = ctx.test(test)
            finally:
                ctx.binding = outer
            try:
                return f"({ctx.sub(a)} if {tested} else {ctx.sub(b)})"
            finally:
                ctx.settled = settled
        return fuse(fn, rendered)

    def _e_Range(self, node, scope):
        lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
        both = _folded(lo, hi)
        if both is not None:
            return _const(range_tuple(both[0], both[1], self.error, node))
        values = self.range_values(node, lo, hi)
        return _tuples(_rendered(
            lambda st: tuple(values(st)),
            lambda ctx: f"{ctx.k(tuple)}({ctx.sub(values)})"))

    def range_values(self, node, lo, hi):
        """`lo..hi` at run time, as a `range`: at most MOST_IN_RANGE values, as where its
        ends are constants (a range of a huge number took all memory, or overflowed)."""
        def too_many(st):
            a, b = lo(st), hi(st)
            raise self.runtime_error(f"the range {a}..{b} holds {b - a + 1:,} values, more "
                                     f"than the {MOST_IN_RANGE:,} a rule may go through",
                                     node, st)

        def values(st):
            a, b = lo(st), hi(st)
            return range(a, b + 1) if b - a < MOST_IN_RANGE else too_many(st)

        def render(ctx):
            a, b = ctx.tmp(), ctx.tmp()
            return (f"({ctx.k(range)}({a}, {b} + 1) if (({a} := {ctx.sub(lo)}) or True) and "
                    f"({b} := {ctx.sub(hi)}) - {a} < {MOST_IN_RANGE:d} else "
                    f"{ctx.call(too_many, cold=True)})")
        values.render = render
        return values

    def _e_SetLit(self, node, scope):
        return self._e_ListLit(node, scope)

    def _e_ListLit(self, node, scope):
        items = [self.expr(i, scope) for i in node.items]
        # names of options, enums and cards make a constant, worked out once; a local
        # (a comprehension's variable, a parameter, `me`) reads as none before the game
        if all(isinstance(i, (A.IntLit, A.Name, A.Attr)) and not _reads_local(i, scope)
               for i in node.items):
            try:
                values = tuple(f(self.const_state) for f in items)
                return _const(values)
            except Exception:  # noqa: BLE001 - not constant: evaluate at run time
                pass
        return _tuples(_rendered(   # a tuple display: its items in order, inline
            lambda st: tuple([f(st) for f in items]),
            lambda ctx: f"({''.join(ctx.sub(f) + ', ' for f in items)})"))


def _reads_local(node, scope) -> bool:
    """Whether a name, or a name's field (`x.suit`), is a local's."""
    while isinstance(node, A.Attr):
        node = node.obj
    return isinstance(node, A.Name) and (node.id == "me" or scope.lookup(node.id) is not None)


def _bool_valued(fn) -> bool:
    """Whether an expression's value is always True or False (a comparison, a membership
    test, `not`, an and/or giving a bool)."""
    c = _folded(fn)
    return getattr(fn, "bool_valued", False) or c is not None and type(c[0]) is bool


def _join(ctx, parts, word):
    """`a and b` as the two-part closure gives it (a's value when false); three or more
    parts give a bool, as `and_all` / `or_any` do: Python's own `and`/`or` where every
    part's value is a bool already."""
    text = f" {word} ".join(ctx.sub(p) for p in parts)
    if len(parts) == 2 or all(_bool_valued(p) for p in parts):
        return f"({text})"
    return f"(True if {text} else False)"
