"""Expressions compiled once into Python closures `f(st) -> value`.

One small handler per AST node type.  Names are resolved here, at compile time, through the
scope chain and the program's symbol tables; nothing the user wrote is looked up by string
at run time.
"""
from __future__ import annotations

import operator

from gdl import ast as A
from gdl.errors import RuleError

from ._scope import Local, Scope
from .values import HAS_TEXT, Card, Member, Seat, ZoneRef, text_of

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


def _const(value):
    fn = lambda st: value  # noqa: E731
    fn.constant = (value,)
    return fn


def _tuples(fn):
    """Tags a closure that always gives a tuple (never a zone): `collection` then uses it
    as it is, without a wrapper testing for zones."""
    fn.tuple_valued = True
    return fn


def _tuple_valued(fn):
    """Whether a closure always gives a tuple: tagged so, or a constant tuple."""
    if getattr(fn, "tuple_valued", False):
        return True
    c = getattr(fn, "constant", None)
    return c is not None and isinstance(c[0], tuple)


def _folded(*parts):
    """Returns the values of closures that are all constants, or None."""
    values = []
    for p in parts:
        c = getattr(p, "constant", None)
        if c is None:
            return None
        values.append(c[0])
    return values


class ExprCompiler:
    """Mixin for the Compiler: `expr(node, scope)` returns a closure."""

    def expr(self, node, scope: Scope):
        handler = getattr(self, "_e_" + type(node).__name__, None)
        if handler is None:
            raise self.error(f"{type(node).__name__} cannot be used as a value here", node)
        fn = handler(node, scope)
        if self.memo_ids and id(node) in self.memo_ids and _folded(fn) is None:
            memo = self.memoised(fn)        # loop-invariant inside a require (hoisted)
            for tag in ("zone_valued", "tuple_valued"):   # what it gives, not how it reads
                if getattr(fn, tag, False):
                    setattr(memo, tag, True)
            return memo
        return fn

    def memo_wanted(self, node):
        """Whether `expr` would memoise this node (handlers that compile a node's parts
        themselves, bypassing `expr`, keep the node whole then)."""
        return bool(self.memo_ids) and id(node) in self.memo_ids

    def const(self, node, scope: Scope = None):
        """Evaluates an expression that depends only on options and declarations."""
        fn = self.expr(node, scope or Scope())
        try:
            return fn(self.const_state)
        except (AttributeError, TypeError, IndexError):
            raise self.error("this expression must be known before the game starts "
                             "(options, numbers and enums only)", node) from None

    # ------------------------------------------------------------------ literals
    def _e_IntLit(self, node, scope):
        return _const(node.value)

    def _e_BoolLit(self, node, scope):
        return _const(node.value)

    def _e_NoneLit(self, node, scope):
        return _const(None)

    def _e_StrLit(self, node, scope):
        return _const(node.value)

    # ------------------------------------------------------------------ names
    def _e_Name(self, node, scope):
        local = scope.lookup(node.id)
        if local is not None:
            return self.read_local(local)
        if node.id == "me":
            if scope.me is None:
                raise self.error("'me' is only known inside an action", node)
            return self.read_local(scope.me)
        return self.global_name(node.id, node)

    def read_local(self, local: Local):
        """A closure reading a local; reads are tagged with `frame_slot` / `scratch_slot`
        so hot consumers (comparisons, attributes) can read the slot inline, one call
        fewer."""
        slot = local.slot
        if local.where == "frame":
            fn = lambda st: st.frame[slot]  # noqa: E731
            fn.frame_slot = slot
            return fn
        scratch = self.scratch
        fn = lambda st: scratch[slot]  # noqa: E731
        fn.scratch_slot = slot
        return fn

    def global_name(self, name, node):
        p = self.prog
        if name == "players":
            return self.active_players()
        if name in p.options:
            return _const(p.options[name])
        if name in p.var_slots:
            slot = p.var_slots[name]
            fn = lambda st: st.vars[slot]  # noqa: E731
            fn.var_slot = slot  # read inline by attributes and comparisons
            return fn
        if name in p.zone_plain:
            return _const(p.zone_plain[name])
        if name in p.families:
            return _const(tuple(p.families[name].values()))
        if name in p.values:
            return _const(p.values[name])
        if name in p.enums:
            return _const(tuple(p.enums[name]))
        if name in p.var_index:
            raise self.error(f"{name} is indexed: write {name}[...]", node)
        if name in ("all_players", "player"):
            return _const(tuple(p.seats))
        if name == "num_players":
            return _const(len(p.seats))
        if name == "bool":
            return _const((False, True))
        if name == "card":
            return _const(tuple(p.cards))
        raise self.error(f"unknown name {name!r}", node)

    def active_players(self):
        """`players`: the seats still in, in seat order; the same tuple of all seats while
        nobody is out (the common case: no filtering)."""
        seats = tuple(self.prog.seats)

        def players(st):
            out = st.out
            if not out:
                return seats
            return tuple([s for s in seats if not out >> s.index & 1])
        return _tuples(players)

    def _e_Attr(self, node, scope):
        if isinstance(node.obj, A.Name) and scope.lookup(node.obj.id) is None:
            qualified = self.qualified(node.obj.id, node.name)
            if qualified is not None:
                return _const(qualified)
        obj = self.expr(node.obj, scope)
        field = node.name
        slot = getattr(obj, "frame_slot", None)
        if slot is not None:
            def frame_attr(st):
                value = st.frame[slot]
                if value is None:
                    raise self.runtime_error(f"no card to take .{field} of (the value is "
                                             f"none)", node, st)
                return value.attrs[field]
            return frame_attr
        slot = getattr(obj, "scratch_slot", None)
        if slot is not None:
            scratch = self.scratch

            def scratch_attr(st):   # `x.suit` over a comprehension's x: read it inline
                value = scratch[slot]
                if value is None:
                    raise self.runtime_error(f"no card to take .{field} of (the value is "
                                             f"none)", node, st)
                return value.attrs[field]
            scratch_attr.loop_attr = (slot, field)   # read inline by comparisons
            return scratch_attr
        slot = getattr(obj, "var_slot", None)
        if slot is not None:
            def var_attr(st):   # `led.suit` over a global variable: read it inline
                value = st.vars[slot]
                if value is None:
                    raise self.runtime_error(f"no card to take .{field} of (the value is "
                                             f"none)", node, st)
                return value.attrs[field]
            return var_attr

        def attr(st):
            value = obj(st)
            if value is None:
                raise self.runtime_error(f"no card to take .{field} of (the value is none)",
                                         node, st)
            return value.attrs[field]
        return attr

    def qualified(self, enum_name, member):
        p = self.prog
        if enum_name == "player":
            return next((s for s in p.seats if s.name == member), None)
        for m in p.enums.get(enum_name, ()):
            if m.name == member:
                return m
        return None

    def _e_Index(self, node, scope):
        if not isinstance(node.obj, A.Name) or scope.lookup(node.obj.id) is not None or (
                node.obj.id not in self.prog.families and node.obj.id not in self.prog.var_index):
            return self.list_position(node, scope)
        name = node.obj.id
        keys = [self.expr(a, scope) for a in node.args]
        p = self.prog
        if name in p.families:
            table = p.families[name]
            find = self._lookup(table, keys, node, f"zone {name}")
            if _folded(find) is None:
                find.zone_valued = True  # always a ZoneRef: consumers skip the type test
                if len(keys) == 1:
                    # `deck[me]`: the key's slot (frame or scratch) and each key's zone
                    # slot, for `count` to read inline
                    for where in ("frame_slot", "scratch_slot"):
                        key_slot = getattr(keys[0], where, None)
                        if key_slot is not None:
                            find.zone_key = (where, key_slot,
                                             {k[0]: ref.slot for k, ref in table.items()})
            return find
        if name in p.var_index:
            base, table = p.var_index[name]
            find = self._lookup(table, keys, node, f"variable {name}")
            if _folded(*keys) is None:
                if len(keys) == 1:
                    return self._var_at(table, keys[0], find)
                if len(keys) == 2:
                    return self._var_at2(table, keys, find)
            c = _folded(find)
            if c is not None:   # `put[p1]`: a plain variable's slot, read inline by consumers
                (slot,) = c
                fn = lambda st: st.vars[slot]  # noqa: E731
                fn.var_slot = slot
                return fn
            return lambda st: st.vars[find(st)]
        raise self.error(f"{name!r} cannot be indexed", node)

    @staticmethod
    def _var_at(table, key, find):
        """`v[k]` with one run-time key (e.g. `selected[me]`): one closure instead of
        three; a missing key falls back to `find`, which reports it."""
        by_value = {k[0]: v for k, v in table.items()}
        slot = getattr(key, "frame_slot", None)
        if slot is not None:
            def var_at_local(st):
                i = by_value.get(st.frame[slot])
                return st.vars[find(st) if i is None else i]
            return var_at_local
        slot = getattr(key, "var_slot", None)
        if slot is not None:
            def var_at_var(st):   # `betting[round]`: the key variable read inline
                i = by_value.get(st.vars[slot])
                return st.vars[find(st) if i is None else i]
            return var_at_var

        def var_at(st):
            i = by_value.get(key(st))
            return st.vars[find(st) if i is None else i]
        return var_at

    @staticmethod
    def _var_at2(table, keys, find):
        """`v[a, b]` with run-time keys (e.g. `marked[r, k]`): one closure instead of two; a
        missing key falls back to `find`, which reports it."""
        k0, k1 = keys

        def var_at2(st):
            i = table.get((k0(st), k1(st)))
            return st.vars[find(st) if i is None else i]
        return var_at2

    def list_position(self, node, scope):
        """`xs[i]`: the item at position i of a list, counting from 1."""
        if len(node.args) != 1:
            raise self.error("a list takes one position", node)
        items, pos = self.collection(node.obj, scope), self.expr(node.args[0], scope)

        def item(st):
            xs, i = items(st), pos(st)
            if not 1 <= i <= len(xs):
                raise self.runtime_error(f"position {i} of a list of {len(xs)} items "
                                         f"(positions count from 1)", node, st)
            return xs[i - 1]
        return item

    def _lookup(self, table, keys, node, what):
        def key_error(st, key):
            shown = ", ".join(str(getattr(k, "text", k)) for k in key)
            raise self.runtime_error(f"{what} has no element [{shown}]", node, st)
        constant = _folded(*keys)
        if constant is not None:
            key = tuple(constant)
            if key not in table:
                raise self.error(f"{what} has no element [{', '.join(map(str, key))}]", node)
            return _const(table[key])
        if len(keys) == 1:
            (k0,) = keys
            by_value = {k[0]: v for k, v in table.items()}
            slot = getattr(k0, "frame_slot", None)
            if slot is not None:
                def find1_local(st):   # `hand[me]`: the key read inline
                    found = by_value.get(st.frame[slot])
                    if found is None:
                        key_error(st, (st.frame[slot],))
                    return found
                return find1_local
            slot = getattr(k0, "scratch_slot", None)
            if slot is not None:
                scratch = self.scratch

                def find1_scratch(st):   # `hand[p]` in a comprehension over p
                    found = by_value.get(scratch[slot])
                    if found is None:
                        key_error(st, (scratch[slot],))
                    return found
                return find1_scratch
            slot = getattr(k0, "var_slot", None)
            if slot is not None:
                def find1_var(st):   # `hand[to_act]`: the key variable read inline
                    found = by_value.get(st.vars[slot])
                    if found is None:
                        key_error(st, (st.vars[slot],))
                    return found
                return find1_var

            def find1(st):
                found = by_value.get(k0(st))
                if found is None:
                    key_error(st, (k0(st),))
                return found
            return find1
        if len(keys) == 2:
            k0, k1 = keys

            def find2(st):
                found = table.get((k0(st), k1(st)))
                if found is None:
                    key_error(st, (k0(st), k1(st)))
                return found
            return find2

        def find(st):
            key = tuple(k(st) for k in keys)
            try:
                return table[key]
            except KeyError:
                key_error(st, key)
        return find

    # ------------------------------------------------------------------ operators
    def _e_BinOp(self, node, scope):
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
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
        return lambda st: -inner(st)

    def _e_Compare(self, node, scope):
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        fn = _COMPARE[node.op]
        both = _folded(left, right)
        if both is not None:
            return _const(fn(*both))
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
        return fn

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

    # ------------------------------------------------------------------ collections
    def collection(self, node, scope):
        """A closure giving a tuple: zones stand for their cards (top first; a set zone's
        cards in card order).  A closure known to give a tuple is returned as it is, and a
        constant or family zone's cards are copied without testing the type."""
        inner = self.expr(node, scope)
        is_set = self.prog.is_set
        c = _folded(inner)
        if _tuple_valued(inner) or c is not None and not isinstance(c[0], ZoneRef):
            return inner   # as_tuple would give its value unchanged
        if c is not None:
            slot = c[0].slot
            if is_set[slot]:
                return _tuples(lambda st: tuple(st.zones[slot]))
            return _tuples(lambda st: tuple(reversed(st.zones[slot])))
        if getattr(inner, "zone_valued", False):
            def zone_tuple(st):   # `hand[me]`: always a zone
                slot = inner(st).slot
                z = st.zones[slot]
                return tuple(z) if is_set[slot] else tuple(reversed(z))
            return _tuples(zone_tuple)

        def as_tuple(st):
            value = inner(st)
            if isinstance(value, ZoneRef):
                z = st.zones[value.slot]
                return tuple(z) if is_set[value.slot] else tuple(reversed(z))
            return value
        return as_tuple

    def domain(self, node, scope):
        """A closure giving an action parameter's candidates, which are only iterated: a
        run-time range stays a `range` (same values, same order) instead of a tuple."""
        if isinstance(node, A.Range):
            lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
            if _folded(lo, hi) is None:
                return lambda st: range(lo(st), hi(st) + 1)
        return self.collection(node, scope)

    def iterable(self, node, scope):
        """Like `collection` but for one pass (comprehension loops): a zone gives its live
        card list, or a reversed iterator over it for a stack (same order as `collection`),
        instead of a copy; expressions never change zones while they iterate.  A constant
        zone's slot is resolved now; other constants are returned as they are.  A run-time
        range gives a `range` (tagged `sized`: its length is known without iterating)."""
        if isinstance(node, A.Range) and not self.memo_wanted(node):
            lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
            both = _folded(lo, hi)
            if both is not None:
                return _const(tuple(range(both[0], both[1] + 1)))

            def range_of(st):   # `1..left[d]`: the same values, no tuple built
                return range(lo(st), hi(st) + 1)
            range_of.sized = True
            return range_of
        inner = self.expr(node, scope)
        is_set = self.prog.is_set
        c = _folded(inner)
        if c is not None:
            if not isinstance(c[0], ZoneRef):
                return inner
            slot = c[0].slot
            if is_set[slot]:
                return lambda st: st.zones[slot]
            return lambda st: reversed(st.zones[slot])
        if getattr(inner, "zone_valued", False):
            def zone_cards(st):   # `hand[me]`: always a zone
                slot = inner(st).slot
                return st.zones[slot] if is_set[slot] else reversed(st.zones[slot])
            return zone_cards

        slot = getattr(inner, "scratch_slot", None)
        if slot is not None:
            scratch = self.scratch

            def iterate_loop_var(st):   # `for c in z` over a def's parameter z
                value = scratch[slot]
                if isinstance(value, ZoneRef):
                    z = st.zones[value.slot]
                    return z if is_set[value.slot] else reversed(z)
                return value
            return iterate_loop_var

        def iterate(st):
            value = inner(st)
            if isinstance(value, ZoneRef):
                z = st.zones[value.slot]
                return z if is_set[value.slot] else reversed(z)
            return value
        return iterate

    def container(self, node, scope):
        """Like `collection` but only for `in`, where order does not matter: a zone gives its
        live card list, uncopied and unreversed.  A run-time range is a `range` (the same
        answer as its tuple: `in` compares with == either way), a tuple is used as it is."""
        if isinstance(node, A.Range) and not self.memo_wanted(node):
            lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
            both = _folded(lo, hi)
            if both is not None:
                return _const(tuple(range(both[0], both[1] + 1)))
            return lambda st: range(lo(st), hi(st) + 1)
        inner = self.expr(node, scope)
        c = _folded(inner)
        if _tuple_valued(inner):
            return inner
        if c is not None:
            if not isinstance(c[0], ZoneRef):
                return inner
            slot = c[0].slot
            return lambda st: st.zones[slot]
        if getattr(inner, "zone_valued", False):
            return lambda st: st.zones[inner(st).slot]

        def contain(st):
            value = inner(st)
            return st.zones[value.slot] if isinstance(value, ZoneRef) else value
        return contain

    def comprehension_parts(self, fors, cond, scope, item_node):
        """Compiles `item for x in xs ... if cond`: ([(scratch slot, iterable)] per loop,
        test or None, item)."""
        inner = scope.child()
        loops = []
        for f in fors:
            it = self.iterable(f.iter, inner)
            local = inner.bind(f.var, Local("scratch", self.new_scratch()))
            loops.append((local.slot, it))
        test = self.expr(cond, inner) if cond is not None else None
        item = self.expr(item_node, inner)
        return loops, test, item

    def comprehension(self, fors, cond, scope, item_node):
        """Returns a generator factory for `item for x in xs ... if c`."""
        return self._generator(*self.comprehension_parts(fors, cond, scope, item_node))

    def _generator(self, loops, test, item):
        scratch = self.scratch

        def generate(st):
            def rec(i):
                if i == len(loops):
                    if test is None or test(st):
                        yield item(st)
                    return
                slot, it = loops[i]
                for v in it(st):
                    scratch[slot] = v
                    yield from rec(i + 1)
            return rec(0)

        if len(loops) == 2:
            (s0, it0), (s1, it1) = loops

            def generate(st):  # noqa: F811 - two loops, flat: no recursive `yield from`
                for a in it0(st):
                    scratch[s0] = a
                    for b in it1(st):
                        scratch[s1] = b
                        if test is None or test(st):
                            yield item(st)
        if len(loops) == 1:
            (slot, it), = loops
            if test is None:
                def generate(st):  # noqa: F811 - the common single-loop case, faster
                    for v in it(st):
                        scratch[slot] = v
                        yield item(st)
            else:
                def generate(st):  # noqa: F811
                    for v in it(st):
                        scratch[slot] = v
                        if test(st):
                            yield item(st)
        return generate

    def _e_ListComp(self, node, scope):
        return _tuples(self.list_comprehension(node, scope))

    def list_comprehension(self, node, scope):
        loops, test, item = self.comprehension_parts(node.fors, node.cond, scope, node.item)
        scratch = self.scratch
        if len(loops) == 2:
            (s0, it0), (s1, it1) = loops
            c1 = _folded(it1)
            if test is None and getattr(item, "scratch_slot", None) == s0 and (
                    getattr(it1, "sized", False) or c1 is not None and isinstance(c1[0], tuple)):
                def repeated(st):   # `[d for d in 1..4 for i in 1..left[d]]`: d, n times
                    out = []
                    for a in it0(st):
                        scratch[s0] = a
                        out += [a] * len(it1(st))
                    return tuple(out)
                return repeated

            def list_of2(st):   # `[d for d in 1..4 for i in 1..left[d]]`: two plain loops
                out = []
                for a in it0(st):
                    scratch[s0] = a
                    for b in it1(st):
                        scratch[s1] = b
                        if test is None or test(st):
                            out.append(item(st))
                return tuple(out)
            return list_of2
        if len(loops) != 1:
            gen = self._generator(loops, test, item)
            return lambda st: tuple(gen(st))
        (slot, it), = loops
        scratch = self.scratch
        if getattr(item, "scratch_slot", None) == slot:   # `[x for x in xs if ...]`
            if test is None:
                return lambda st: tuple(it(st))

            def select(st):
                out = []
                for v in it(st):
                    scratch[slot] = v
                    if test(st):
                        out.append(v)
                return tuple(out)
            return select

        def list_of(st):   # one plain loop: no generator
            out = []
            for v in it(st):
                scratch[slot] = v
                if test is None or test(st):
                    out.append(item(st))
            return tuple(out)
        return list_of

    def _e_Aggregate(self, node, scope):
        f = node.func
        loops, test, item = self.comprehension_parts(node.fors, node.cond, scope, node.item)
        if f not in ("sum", "count", "any", "all", "first", "min", "max"):
            raise self.error(f"unknown aggregate {f!r}", node)
        if len(loops) == 1:
            return self._aggregate1(f, node, loops[0], test, item)
        gen = self._generator(loops, test, item)
        if f == "sum":
            return lambda st: sum(gen(st))
        if f == "count":
            return lambda st: sum(1 for v in gen(st) if v is not False)
        if f == "any":
            return lambda st: any(gen(st))
        if f == "all":
            return lambda st: all(gen(st))
        if f == "first":
            return lambda st: next(gen(st), None)
        pick = min if f == "min" else max

        def extreme(st):
            values = tuple(gen(st))
            if not values:
                raise self.runtime_error(f"{f} of no items", node, st)
            return pick(values)
        return extreme

    def _aggregate1(self, f, node, loop, test, item):
        """An aggregate over one loop as one plain function with a for loop: no generator
        and no second generator for `count`.  Same results as the generic path: `count`
        counts the items that are not False, `first` gives the first item or none."""
        slot, it = loop
        scratch = self.scratch
        if f == "sum":
            def sum1(st):
                total = 0
                for v in it(st):
                    scratch[slot] = v
                    if test is None or test(st):
                        total = total + item(st)   # as sum(): 0 + x + ...
                return total
            return sum1
        if f == "count":
            def count1(st):
                n = 0
                for v in it(st):
                    scratch[slot] = v
                    if (test is None or test(st)) and item(st) is not False:
                        n += 1
                return n
            return count1
        if f == "any":
            def any1(st):
                for v in it(st):
                    scratch[slot] = v
                    if (test is None or test(st)) and item(st):
                        return True
                return False
            return any1
        if f == "all":
            def all1(st):
                for v in it(st):
                    scratch[slot] = v
                    if (test is None or test(st)) and not item(st):
                        return False
                return True
            return all1
        if f == "first":
            if getattr(item, "scratch_slot", None) == slot:   # `first(p for p in ... if ...)`
                def first_var(st):
                    for v in it(st):
                        scratch[slot] = v
                        if test is None or test(st):
                            return v
                    return None
                return first_var

            def first1(st):
                for v in it(st):
                    scratch[slot] = v
                    if test is None or test(st):
                        return item(st)
                return None
            return first1
        pick = min if f == "min" else max

        def extreme1(st):
            values = []
            for v in it(st):
                scratch[slot] = v
                if test is None or test(st):
                    values.append(item(st))
            if not values:
                raise self.runtime_error(f"{f} of no items", node, st)
            return pick(values)
        return extreme1

    # ------------------------------------------------------------------ calls
    def _e_Call(self, node, scope):
        name = node.func
        if name in self.prog.defs:
            return self.call_def(name, node, scope)
        if name in self.prog.tables:
            return self.call_table(name, node, scope)
        handler = getattr(self, "_b_" + name, None)
        if handler is None:
            raise self.error(f"unknown function {name!r}", node)
        return handler(node, scope)

    def args(self, node, scope, n_min, n_max=None):
        n_max = n_min if n_max is None else n_max
        if not n_min <= len(node.args) <= n_max:
            raise self.error(f"{node.func} takes {n_min}..{n_max} arguments", node)
        return [self.expr(a, scope) for a in node.args]

    def zone_arg(self, fn, node):
        if getattr(fn, "zone_valued", False):
            return fn   # a zone family's element: always a zone
        c = _folded(fn)
        if c is not None and isinstance(c[0], ZoneRef):
            return fn

        def zone(st):
            z = fn(st)
            if not isinstance(z, ZoneRef):
                raise self.runtime_error(f"{node.func} needs a zone", node, st)
            return z
        return zone

    def _b_count(self, node, scope):
        """`count(xs)`: a zone's number of cards, or a list's length.  A constant zone, a
        zone family's element (`count(deck[me])`) and a frame local are read without the
        extra layers."""
        (coll,) = self.args(node, scope, 1)
        c = _folded(coll)
        if c is not None and isinstance(c[0], ZoneRef):
            slot = c[0].slot
            return lambda st: len(st.zones[slot])
        zone_key = getattr(coll, "zone_key", None)
        if zone_key is not None:   # `count(deck[me])`: key and zone slot read inline;
            where, key, slot_of = zone_key   # a missing key goes through `coll` (its error)
            if where == "frame_slot":
                def count_zone_local(st):
                    slot = slot_of.get(st.frame[key])
                    return len(st.zones[coll(st).slot if slot is None else slot])
                return count_zone_local
            scratch = self.scratch

            def count_zone_scratch(st):
                slot = slot_of.get(scratch[key])
                return len(st.zones[coll(st).slot if slot is None else slot])
            return count_zone_scratch
        if getattr(coll, "zone_valued", False):
            return lambda st: len(st.zones[coll(st).slot])
        if _tuple_valued(coll):   # `count(alive())`, `count(chars(t))`
            return lambda st: len(coll(st))
        local = getattr(coll, "frame_slot", None)
        if local is not None:
            def count_local(st):
                v = st.frame[local]
                return len(st.zones[v.slot]) if isinstance(v, ZoneRef) else len(v)
            return count_local

        def count(st):
            v = coll(st)
            return len(st.zones[v.slot]) if isinstance(v, ZoneRef) else len(v)
        return count

    def _b_cards(self, node, scope):
        (z,) = self.args(node, scope, 1)
        is_set = self.prog.is_set

        def cards(st):
            ref = z(st)
            zone = st.zones[ref.slot]
            return tuple(zone) if is_set[ref.slot] else tuple(reversed(zone))
        return _tuples(cards)

    def _b_top(self, node, scope, bottom=False):
        args = self.args(node, scope, 1, 2)
        z = self.zone_arg(args[0], node)
        c = _folded(z)
        if len(args) == 1 and c is not None:
            slot = c[0].slot

            def one_const(st):   # `top(stock)`: the zone's slot known now
                cards = st.zones[slot]
                if not cards:
                    raise self.runtime_error(f"{node.func}() of an empty zone", node, st)
                return cards[0] if bottom else cards[-1]
            return one_const
        if len(args) == 1:
            def one(st):
                cards = st.zones[z(st).slot]
                if not cards:
                    raise self.runtime_error(f"{node.func}() of an empty zone", node, st)
                return cards[0] if bottom else cards[-1]
            return one
        n = args[1]

        def several(st):
            cards, k = st.zones[z(st).slot], n(st)
            if k > len(cards) or k < 0:
                raise self.runtime_error(f"{node.func}(zone, {k}) but the zone has "
                                         f"{len(cards)} cards", node, st)
            if bottom:
                return tuple(reversed(cards[:k]))
            return tuple(reversed(cards[len(cards) - k:]))
        return _tuples(several)

    def _b_bottom(self, node, scope):
        return self._b_top(node, scope, bottom=True)

    def _b_faceup(self, node, scope):
        (c,) = self.args(node, scope, 1)
        return lambda st: st.up[c(st).id]

    def _b_facedown(self, node, scope):
        (c,) = self.args(node, scope, 1)
        return lambda st: not st.up[c(st).id]

    def _b_zone_of(self, node, scope):
        (c,) = self.args(node, scope, 1)
        zones = self.prog.zones
        return lambda st: zones[st.loc[c(st).id]]

    def _b_owner(self, node, scope):
        (z,) = self.args(node, scope, 1)
        return lambda st: z(st).owner

    def _b_knows(self, node, scope):
        p, c = self.args(node, scope, 2)
        return lambda st: bool(st.known[p(st).index] >> c(st).id & 1) or st.up[c(st).id]

    def _b_next(self, node, scope, step=1):
        (p,) = self.args(node, scope, 1)
        seats = self.prog.seats
        n = len(seats)

        def nxt(st):
            i = p(st).index
            for _ in range(n):
                i = (i + step) % n
                if not st.out >> i & 1:
                    return seats[i]
            raise self.runtime_error("no active player left", node, st)
        return nxt

    def _b_prev(self, node, scope):
        return self._b_next(node, scope, step=-1)

    def _b_opponent(self, node, scope):
        (p,) = self.args(node, scope, 1)
        seats = self.prog.seats

        other = {seats[0]: seats[1], seats[1]: seats[0]} if len(seats) == 2 else None

        def opponent(st):
            me = p(st)
            if other is not None and not st.out:
                return other[me]
            others = [s for s in seats if s is not me and not st.out >> s.index & 1]
            if len(others) != 1:
                raise self.runtime_error(f"opponent() needs exactly two active players, "
                                         f"there are {len(others) + 1}", node, st)
            return others[0]
        slot = getattr(p, "frame_slot", None)
        if other is not None and slot is not None:
            def opponent_local(st):   # `opponent(me)` with two seats in: one dict lookup
                if not st.out:
                    return other[st.frame[slot]]
                return opponent(st)
            return opponent_local
        return opponent

    def _b_active(self, node, scope):
        (p,) = self.args(node, scope, 1)
        slot = getattr(p, "scratch_slot", None)
        if slot is not None:   # `active(p)` in a comprehension over p: read it inline
            scratch = self.scratch
            return lambda st: not st.out >> scratch[slot].index & 1
        return lambda st: not st.out >> p(st).index & 1

    def _b_seat(self, node, scope):
        (p,) = self.args(node, scope, 1)
        return lambda st: p(st).index + 1

    def _b_adjacent(self, node, scope):
        a, b = self.args(node, scope, 2)

        def adjacent(st):
            x, y = a(st), b(st)
            if x.family != y.family or not all(
                    type(i) is int for i in x.indices + y.indices):
                return False
            diffs = [abs(i - j) for i, j in zip(x.indices, y.indices)]
            return sorted(diffs)[-1:] == [1] and sum(diffs) == 1
        return adjacent

    def _b_index(self, node, scope):
        z, i = self.args(node, scope, 2)

        def index(st):
            ref, k = z(st), i(st)
            if not 1 <= k <= len(ref.indices):
                raise self.runtime_error(f"{ref.text} has {len(ref.indices)} indices, not an "
                                         f"index {k}", node, st)
            return ref.indices[k - 1]
        return index

    def _b_ord(self, node, scope):
        (m,) = self.args(node, scope, 1)
        loop_attr = getattr(m, "loop_attr", None)
        if loop_attr is not None:   # `ord(c.rank)` over a comprehension's c: read inline
            slot, field = loop_attr
            scratch = self.scratch

            def ord_loop_attr(st):
                v = scratch[slot]
                return (m(st) if v is None else v.attrs[field]).index
            return ord_loop_attr
        return lambda st: m(st).index

    def _b_abs(self, node, scope):
        (x,) = self.args(node, scope, 1)
        return lambda st: abs(x(st))

    def _b_min(self, node, scope, pick=min):
        xs = self.args(node, scope, 2, 16)
        if len(xs) == 2:   # as min()/max() of two: the first unless the second is beyond it
            a, b = xs
            if pick is min:
                def min2(st):
                    x, y = a(st), b(st)
                    return y if y < x else x
                return min2

            def max2(st):
                x, y = a(st), b(st)
                return y if y > x else x
            return max2
        return lambda st: pick(x(st) for x in xs)

    def _b_max(self, node, scope):
        return self._b_min(node, scope, pick=max)

    def _b_sublist(self, node, scope):
        xs, start, n = self.args(node, scope, 3)
        coll = self.collection(node.args[0], scope)

        def sublist(st):
            items, i, k = coll(st), start(st), n(st)
            if i < 0 or k < 0 or i + k > len(items):
                raise self.runtime_error(f"sublist(.., {i}, {k}) of a list of {len(items)} "
                                         f"items", node, st)
            return tuple(items[i:i + k])
        return _tuples(sublist)

    def _b_text(self, node, scope):
        """`text(x)`: a card, member, seat or zone gives its own text inline (as `text_of`
        does first), and `text(c.suit)` over a comprehension's c reads the field inline."""
        (x,) = self.args(node, scope, 1)
        loop_attr = getattr(x, "loop_attr", None)
        if loop_attr is not None:
            slot, field = loop_attr
            scratch = self.scratch

            def text_loop_attr(st):
                v = scratch[slot]
                v = x(st) if v is None else v.attrs[field]   # none: `x` reports it
                return v.text if type(v) in HAS_TEXT else text_of(v)
            return text_loop_attr

        def text(st):
            v = x(st)
            return v.text if type(v) in HAS_TEXT else text_of(v)
        return text

    def _b_join(self, node, scope):
        xs, sep = self.collection(node.args[0], scope), self.expr(node.args[1], scope)
        c = _folded(sep)
        if c is not None and type(c[0]) is str:
            separator = c[0]
            return lambda st: separator.join([text_of(v) for v in xs(st)])
        return lambda st: sep(st).join([text_of(v) for v in xs(st)])

    def _b_split(self, node, scope):
        s, sep = self.args(node, scope, 2)

        def split(st):
            text, separator = s(st), sep(st)
            if not separator:
                return tuple(text.split())
            return tuple(text.split(separator))
        return _tuples(split)

    def _b_chars(self, node, scope):
        (s,) = self.args(node, scope, 1)
        return _tuples(lambda st: tuple(s(st)))

    def _b_number(self, node, scope):
        (s,) = self.args(node, scope, 1)

        def number(st):
            text = s(st).strip()
            if not (text.isdigit() or (text[:1] == "-" and text[1:].isdigit())):
                raise self.runtime_error(f"{text!r} is not a whole number", node, st)
            return int(text)
        return number

    def _b_card_named(self, node, scope):
        (s,) = self.args(node, scope, 1)
        by_text = {}
        for c in self.prog.cards:
            by_text.setdefault(c.text, c)
        return lambda st: by_text.get(s(st))

    def _b_changed(self, node, scope):
        if len(node.args) != 1 or not isinstance(node.args[0], A.Name):
            raise self.error("changed() takes the name of a variable", node)
        name = node.args[0].id
        self.watched.add(name)
        return lambda st: name in st.dirty

    def _b_card(self, node, scope):
        wanted = {}
        for a in node.args:
            if not isinstance(a, A.Keyword):
                raise self.error("card(...) takes field: value pairs", a)
            wanted[a.name] = self.const(a.value, scope)
        for c in self.prog.cards:
            if all(c.attrs.get(k) is v or c.attrs.get(k) == v for k, v in wanted.items()):
                return _const(c)
        raise self.error("no card of the game has these attributes", node)

    # ------------------------------------------------------------------ defs and tables
    def call_def(self, name, node, scope):
        """A call of a def: the arguments are all evaluated, then written to the def's
        scratch slots, then the body runs.  The slots need no saving and restoring: defs
        cannot call themselves, even indirectly (`def_body` rejects it), so no other
        activation of the same def is under way, and every slot is written before it is
        read."""
        decl = self.prog.defs[name]
        if len(node.args) != len(decl.params):
            raise self.error(f"{name} takes {len(decl.params)} arguments", node)
        args = [self.expr(a, scope) for a in node.args]
        body, slots = self.def_body(decl)
        if not slots:
            return body
        fn = self.call_with(body, slots, args)
        return _tuples(fn) if _tuple_valued(body) else fn

    def call_with(self, body, slots, args):
        """The closure behind `call_def`.  With one argument, a constant, a frame local or a
        comprehension variable is copied inline (`value(c)`); with two, a constant second
        argument is (`colour_sum(z, black)`)."""
        scratch = self.scratch
        if len(slots) == 1:
            (s0,), (a0,) = slots, args
            c = _folded(a0)
            if c is not None:
                (v,) = c

                def call1_const(st):
                    scratch[s0] = v
                    return body(st)
                return call1_const
            slot = getattr(a0, "frame_slot", None)
            if slot is not None:
                def call1_local(st):
                    scratch[s0] = st.frame[slot]
                    return body(st)
                return call1_local
            slot = getattr(a0, "scratch_slot", None)
            if slot is not None:
                def call1_loop(st):
                    scratch[s0] = scratch[slot]
                    return body(st)
                return call1_loop

            def call1(st):
                scratch[s0] = a0(st)
                return body(st)
            return call1
        if len(slots) == 2:
            (s0, s1), (a0, a1) = slots, args
            c = _folded(a1)
            if c is not None:
                (v,) = c

                def call2_const(st):
                    scratch[s0] = a0(st)
                    scratch[s1] = v
                    return body(st)
                return call2_const

            def call2(st):
                v0 = a0(st)
                scratch[s1] = a1(st)
                scratch[s0] = v0
                return body(st)
            return call2

        def call(st):
            values = [a(st) for a in args]
            for s, v in zip(slots, values):
                scratch[s] = v
            return body(st)
        return call

    def def_body(self, decl):
        cached = self.def_cache.get(decl.name)
        if cached is None:
            scope = Scope()
            slots = [scope.bind(p.name, Local("scratch", self.new_scratch())).slot
                     for p in decl.params]
            self.def_cache[decl.name] = cached = (None, slots)
            cached = (self.expr(decl.body, scope), slots)
            self.def_cache[decl.name] = cached
        if cached[0] is None:
            raise self.error(f"{decl.name} calls itself", decl)
        return cached

    def call_table(self, name, node, scope):
        decl = self.prog.tables[name]
        table, default = self.table_map(decl)
        args = [self.expr(a, scope) for a in node.args]
        if len(args) != len(decl.params):
            raise self.error(f"{name} takes {len(decl.params)} arguments", node)

        def lookup(st):
            key = tuple(a(st) for a in args)
            if key in table:
                return table[key]
            if default is not None:
                return default(st)
            shown = ", ".join(f"{p.name}={getattr(k, 'text', k)}"
                              for p, k in zip(decl.params, key))
            raise self.runtime_error(f"table {name} has no case for {shown}", node, st)
        return lookup

    def table_map(self, decl):
        if decl.name not in self.table_cache:
            table = {}
            for row in decl.rows:
                choices = []
                for k in row.keys:
                    v = self.const(k)
                    choices.append(v if isinstance(v, tuple) else (v,))
                value = self.const(row.value)
                for key in _product(choices):
                    table.setdefault(key, value)
            default = self.expr(decl.default, Scope()) if decl.default is not None else None
            self.table_cache[decl.name] = (table, default)
        return self.table_cache[decl.name]


def _product(choices):
    if not choices:
        yield ()
        return
    for v in choices[0]:
        for rest in _product(choices[1:]):
            yield (v,) + rest


__all__ = ["ExprCompiler", "Card", "Member", "Seat", "ZoneRef", "RuleError"]
