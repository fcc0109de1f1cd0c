"""Collections compiled into closures: zones as card tuples or live iterators, action
parameter domains, comprehensions and aggregates (as plain loops where they can be)."""
from __future__ import annotations

from typing import Optional

from gdl import ast as A

from ._closures import (_all_cards, _all_zones, _among, _cards, _const, _folded, _rendered,
                        _values_among,
                        _texts, _tuple_valued, _tuples, range_tuple)
from ._actions import _comprehension_vars, _free_names, _invariant_parts
from ._fuse import UNSET, fuse, fuse_body
from ._scope import Local
from .values import ZoneRef


class CollectionMixin:
    """Part of ExprCompiler: collections, comprehensions and aggregates."""

    # ------------------------------------------------------------------ collections
    def collection(self, node, scope):
        """A closure giving a tuple: zones stand for their cards (top first; a set zone's
        cards in card order).  A closure known to give a tuple is returned as it is, and a
        constant or family zone's cards are copied without testing the type; those two
        are tagged `live`, the text of one pass over the zone's own list in that order,
        for generated code that only passes over them."""
        members = self.choice_members(node, scope)
        if members is not None:
            return members
        inner = self.expr(node, scope)
        is_set = self.prog.is_set
        c = _folded(inner)
        if _tuple_valued(inner) or c is not None and not isinstance(c[0], ZoneRef):
            return inner   # as_tuple would give its value unchanged
        if c is not None:
            slot = c[0].slot
            if is_set[slot]:
                fn = lambda st: tuple(st.zones[slot])  # noqa: E731
                fn.live = lambda ctx: f"st.zones[{slot:d}]"
                fn.kind_sorted = True     # a set's cards: by kind, twins side by side
            else:
                fn = lambda st: tuple(reversed(st.zones[slot]))  # noqa: E731
                fn.live = lambda ctx: f"{ctx.k(reversed)}(st.zones[{slot:d}])"
            return _cards(_tuples(fn))
        if getattr(inner, "zone_valued", False):
            def zone_tuple(st):   # `hand[me]`: always a zone
                slot = inner(st).slot
                z = st.zones[slot]
                return tuple(z) if is_set[slot] else tuple(reversed(z))

            def render(ctx):      # the same, inline: the zone is worked out first
                t = ctx.tmp()
                return (f"({ctx.k(tuple)}(st.zones[{t}.slot]) if {ctx.k(is_set)}"
                        f"[({t} := {ctx.sub(inner)}).slot] else {ctx.k(tuple)}"
                        f"({ctx.k(reversed)}(st.zones[{t}.slot])))")
            zone_tuple.render = render
            order = self.zone_order()
            zone_tuple.kind_sorted = self._sets_only(node, scope)
            if zone_tuple.kind_sorted:  # a set's list, passed over as it is (no `iter`)
                zone_tuple.live = lambda ctx: f"st.zones[{ctx.sub(inner)}.slot]"
            else:
                zone_tuple.live = lambda ctx: _zone_pass(ctx, order, ctx.sub(inner))
            return _cards(_tuples(zone_tuple))

        def as_tuple(st):
            value = inner(st)
            if isinstance(value, ZoneRef):
                z = st.zones[value.slot]
                return tuple(z) if is_set[value.slot] else tuple(reversed(z))
            return value
        return as_tuple

    def _sets_only(self, node, scope) -> bool:
        """Whether every zone `node` can name is a set zone (a family's element, as
        `hand[p]`, of a family of sets): its cards then come in card order, by kind
        (`card_order`, `regroup`), each kind's twins side by side."""
        p = self.prog
        if isinstance(node, A.Index) and isinstance(node.obj, A.Name) \
                and node.obj.id in p.families and scope.lookup(node.obj.id) is None:
            return all(p.is_set[z.slot] for z in p.families[node.obj.id].values())
        return False

    def choice_members(self, node, scope):
        """A choice option's name where a collection is wanted (`for x in o`, `k: o`)
        is its enum's members, as the checker has it, not the option's value; else
        None."""
        p = self.prog
        if isinstance(node, A.Name) and node.id in p.options and node.id in p.enums and \
                scope.lookup(node.id) is None:
            return _const(tuple(p.enums[node.id]))
        return None

    def domain(self, node, scope):
        """A closure giving an action parameter's candidates, which are only iterated: a
        run-time range stays a `range` (same values, same order) instead of a tuple.  A
        constant range's closure carries it as `numbers` (a move's text is read by the
        number its word spells, not by each candidate's text)."""
        if isinstance(node, A.Range):
            lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
            both = _folded(lo, hi)
            if both is None:
                fn = lambda st: range(lo(st), hi(st) + 1)  # noqa: E731
                fn.range_ends = lambda ctx: (ctx.sub(lo), f"{ctx.sub(hi)} + 1")
                return fuse(fn, lambda ctx: "{}({}, {})".format(ctx.k(range),
                                                               *fn.range_ends(ctx)))
            fn = self.collection(node, scope)
            fn.numbers = range(both[0], both[1] + 1)      # (the collection checked it)
            return fn
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
                return _const(range_tuple(both[0], both[1], self.error, node))

            def range_of(st):   # `1..left[d]`: the same values, no tuple built (and not
                return range(lo(st), hi(st) + 1)    # bounded: a comprehension's work is not)
            range_of.sized = True
            range_of.bounds = (lo, hi)
            return fuse(range_of,
                        lambda ctx: f"{ctx.k(range)}({ctx.sub(lo)}, {ctx.sub(hi)} + 1)")
        members = self.choice_members(node, scope)
        if members is not None:
            return members
        inner = self.expr(node, scope)
        if _tuple_valued(inner):      # never a zone (`players`): passed over as it is
            return inner
        is_set = self.prog.is_set
        c = _folded(inner)
        if c is not None:
            if not isinstance(c[0], ZoneRef):
                return inner
            slot = c[0].slot
            if is_set[slot]:
                fn = lambda st: st.zones[slot]  # noqa: E731
                fn.render = lambda ctx: f"st.zones[{slot:d}]"
                return _cards(fn)
            fn = lambda st: reversed(st.zones[slot])  # noqa: E731
            fn.render = lambda ctx: f"{ctx.k(reversed)}(st.zones[{slot:d}])"
            return _cards(fn)
        order = self.zone_order()
        if getattr(inner, "zone_valued", False):
            def zone_cards(st):   # `hand[me]`: always a zone
                slot = inner(st).slot
                return st.zones[slot] if is_set[slot] else reversed(st.zones[slot])
            if self._sets_only(node, scope):    # a set's list, as it is (no `iter`)
                zone_cards.render = lambda ctx: f"st.zones[{ctx.sub(inner)}.slot]"
            else:
                zone_cards.render = lambda ctx: _zone_pass(ctx, order, ctx.sub(inner))
            return _cards(zone_cards)

        slot = getattr(inner, "scratch_slot", None)
        if slot is not None:
            scratch = self.scratch

            def iterate_loop_var(st):   # `for c in z` over a def's parameter z
                value = scratch[slot]
                if isinstance(value, ZoneRef):
                    z = st.zones[value.slot]
                    return z if is_set[value.slot] else reversed(z)
                return value
            iterate_loop_var.render = lambda ctx: _maybe_zone_pass(ctx, order, inner)
            return iterate_loop_var

        def iterate(st):
            value = inner(st)
            if isinstance(value, ZoneRef):
                z = st.zones[value.slot]
                return z if is_set[value.slot] else reversed(z)
            return value
        iterate.render = lambda ctx: _maybe_zone_pass(ctx, order, inner)
        return iterate

    def zone_order(self) -> list:
        """Per zone slot, the builtin that passes over its live card list in `collection`
        order: `iter` for a set zone (kept in card order), `reversed` for a stack (kept
        bottom first): a C call in generated code, where the closures test `is_set`."""
        order = getattr(self, "_zone_order", None)
        if order is None:
            order = self._zone_order = [iter if s else reversed for s in self.prog.is_set]
        return order

    def container(self, node, scope):
        """Like `collection` but only for `in`, where order does not matter: a zone gives its
        live card list, uncopied and unreversed.  A run-time range is a `range` (the same
        answer as its tuple: `in` compares with == either way), a tuple is used as it is."""
        if isinstance(node, A.Range) and not self.memo_wanted(node):
            lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
            both = _folded(lo, hi)
            if both is not None:
                return _const(range_tuple(both[0], both[1], self.error, node))
            return lambda st: range(lo(st), hi(st) + 1)
        members = self.choice_members(node, scope)
        if members is not None:
            return members
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

    def comprehension_parts(self, fors, cond, scope, item_node, loop=None):
        """Compiles `item for x in xs ... if cond`: ([(scratch slot, iterable)] per loop,
        test or None, item).  Given a `loop` (a key of its own), the largest parts of
        the test and the item that do not depend on the innermost loop's variable (nor on
        a comprehension's inside them) are kept once per run of the innermost loop where
        the loops are written out (`loop_kept`), and the test's leading terms that do not
        read it are split off (`_guard`)."""
        inner = scope.child()
        loops = []
        for f in fors:
            it = self.iterable(f.iter, inner)
            local = inner.bind(f.var, Local("scratch", self.new_scratch(),
                                            zone=_all_zones(it), card=_all_cards(it)))
            loops.append((local.slot, it))
        outer = self.loop_ids
        if loop is not None:
            marked: list = []
            for node in (cond, item_node):
                if node is not None:
                    varying = {fors[-1].var} | _comprehension_vars(node)
                    _invariant_parts(node, varying, marked)
            kept = {id(n): loop for n in marked if not self.memo_wanted(n)}
            if kept:
                self.loop_ids = {**outer, **kept}
        try:
            guard = _guard(cond, fors[-1].var) if loop is not None else None
            if guard is not None:
                test = _guarded(*(self.expr(n, inner) if n is not None else None
                                  for n in guard))
            else:
                test = self.expr(cond, inner) if cond is not None else None
            item = self.expr(item_node, inner)
        finally:
            self.loop_ids = outer
        return loops, test, item

    def _generator(self, loops, test, item):
        """A generator factory over two loops or more (the closures' path; one loop is a
        plain function): two nested loops, recursion with `yield from` beyond."""
        scratch = self.scratch
        if len(loops) == 2:
            (s0, it0), (s1, it1) = loops

            def generate2(st):
                for a in it0(st):
                    scratch[s0] = a
                    for b in it1(st):
                        scratch[s1] = b
                        if test is None or test(st):
                            yield item(st)
            return generate2

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
        return generate

    def _e_ListComp(self, node, scope):
        if self._seats_still_in(node, scope):
            return self.active_players()
        fn = _tuples(self.list_comprehension(node, scope))
        return _texts(fn) if self._always_text(node.item) else fn

    def _always_text(self, node, depth: int = 0) -> bool:
        """Whether an expression always gives a text, as its form shows: a text literal,
        `text(...)` or `join(...)`, a text joined to anything (`+`), or a call of a def
        whose body is one of these."""
        if depth > 8:
            return False
        if isinstance(node, A.StrLit):
            return True
        if isinstance(node, A.BinOp):
            return node.op == "+" and (self._always_text(node.left, depth + 1)
                                       or self._always_text(node.right, depth + 1))
        if isinstance(node, A.Call):
            d = self.prog.defs.get(node.func)
            if d is not None:
                return self._always_text(d.body, depth + 1)
            return node.func in ("text", "join") and node.func not in self.prog.tables
        return False

    def _seats_still_in(self, node, scope) -> bool:
        """Whether a comprehension is `[p for p in all_players if active(p)]`: every seat,
        in seat order, that is still in, which is `players` (kept as one tuple while
        nobody is out) without a loop."""
        if len(node.fors) != 1 or not isinstance(node.fors[0].iter, A.Name):
            return False                  # (a name compiles with no side effect)
        var, cond = node.fors[0].var, node.cond
        if not (isinstance(node.item, A.Name) and node.item.id == var
                and isinstance(cond, A.Call) and cond.func == "active"
                and "active" not in self.prog.defs and "active" not in self.prog.tables
                and len(cond.args) == 1 and isinstance(cond.args[0], A.Name)
                and cond.args[0].id == var):
            return False
        return _folded(self.expr(node.fors[0].iter, scope)) == [tuple(self.prog.seats)]

    def list_comprehension(self, node, scope):
        key = object()      # written out, it keeps parts as an aggregate does
        loops, test, item = self.comprehension_parts(node.fors, node.cond, scope, node.item,
                                                     key)
        fn = self._list_comprehension(loops, test, item)
        by_set = self._attr_filter(node, scope, "list", fn)
        if by_set is not None:
            return by_set
        if getattr(fn, "repeats", False):
            _among(fn, _values_among(loops[0][1]))   # the first loop's values, repeated
            return self._repeated_lines(fn, loops)
        if len(loops) > WRITTEN_LOOPS:
            return fn

        def body(ctx, head, held, pad):   # the loops with their test and item inline
            out = ctx.tmp()
            x = held.get(getattr(item, "scratch_slot", None)) or ctx.sub(item)
            return [f"{out} = []", *head, *_when(ctx, test, f"{out}.append({x})", pad),
                    f"return {ctx.k(tuple)}({out})"]
        return fuse_body(fn, lambda ctx: _written(ctx, loops, self.scratch, key, body),
                         self.def_parameters())

    def _repeated_lines(self, fn, loops):
        """`repeated` (each value of the first loop as many times as the second loop
        runs) as generated lines: the two loops' parts inline, not called per value."""
        (s0, it0), (_, it1) = loops
        scratch = self.scratch
        c0 = _folded(it0)
        if c0 is not None and isinstance(c0[0], tuple) and 0 < len(c0[0]) <= WRITTEN_VALUES:
            values = c0[0]

            def counts(ctx):    # each value held as a constant, its count read by it
                outer, texts = ctx.held, []
                for value in values:
                    ctx.held = dict(outer)
                    ctx.hold_in("scratch", s0, ctx.lit(value), scratch)
                    try:
                        texts.append(_length(ctx, it1))
                    finally:
                        ctx.held = outer
                return texts

            def render(ctx):   # `[d for d in 1..4 for i in 1..left[d]]`: one expression
                return "(" + " + ".join(f"({ctx.lit(value)},) * {n}" for value, n
                                        in zip(values, counts(ctx))) + ")"

            def runs(ctx):     # a draw's: the values and where each one's run ends
                ends, temps = [], []    # (a count of 0 or less: the run is empty)
                for n in counts(ctx):
                    t = ctx.tmp()
                    ends.append(f"({t} if ({t} := {end} + {n}) > {end} else ({t} := {end}))"
                                if ends else
                                f"({t} if ({t} := {n}) > 0 else ({t} := 0))")
                    end = t
                    temps.append(t)
                if ctx.ends is not None:        # a draw may pick by the temporaries
                    ctx.ends.append((values, temps))
                return f"({ctx.k(values)}, ({', '.join(ends)},))"
            fn.runs = runs
            return _rendered(fn, render)

        def lines(ctx):
            out, v = ctx.tmp(), ctx.tmp()
            ranging(ctx, v, it0)
            return [f"{out} = []", f"for {v} in {ctx.sub(it0)}:",
                    *ctx.bind("scratch", s0, v, "    ", scratch),
                    f"    {out} += [{v}] * {_length(ctx, it1)}",
                    f"return {ctx.k(tuple)}({out})"]
        return fuse_body(fn, lines, self.def_parameters())

    def _list_comprehension(self, loops, test, item):
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
                repeated.repeats = True
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
        by_sets = self._attr_set_aggregate(node, scope)
        if by_sets is not None:
            return by_sets
        # written out, an aggregate keeps the parts that do not vary with its innermost
        # variable (`_aggregate_written`)
        loop = object()
        loops, test, item = self.comprehension_parts(node.fors, node.cond, scope, node.item,
                                                     loop)
        if f not in ("sum", "count", "any", "all", "first", "min", "max"):
            raise self.error(f"unknown aggregate {f!r}", node)
        if len(loops) == 1:
            fn = self._aggregate1_closure(f, node, loops[0], test, item)
            if f in ("first", "count"):
                by_set = self._attr_filter(node, scope, f, fn)
                if by_set is not None:
                    return by_set
        else:
            fn = self._aggregate_closure(f, node, loops, test, item)
        if len(loops) <= WRITTEN_LOOPS:
            return self._aggregate_written(fn, f, loops, test, item, loop)
        return fn

    def _attr_set_aggregate(self, node, scope):
        """`any(x.f == e for x in z)`, `all(x.f != e for x in z)` (and `!=`/`==` the
        other way) over one zone, where `e` does not read `x`: a card's attributes never
        change, so the cards with `f == v` are one set per value `v`, made now, and the
        aggregate is a test of that set against the zone's list in C (`isdisjoint`,
        `issuperset`) instead of a loop.  `e` is worked out only where the zone has
        cards, as the loop does; None where the shape is another."""
        f = node.func
        if f not in ("any", "all") or len(node.fors) != 1 or node.cond is not None:
            return None
        item = node.item
        found = _field_compared(self.prog, item, node.fors[0].var)
        if found is None:
            return None
        field, other = found
        table = field_sets(self.prog, field)
        if table is None:
            return None
        zone = self.expr(node.fors[0].iter, scope)
        c = _folded(zone)
        if c is not None:
            if not isinstance(c[0], ZoneRef):
                return None
            slot = c[0].slot
            live = lambda st: st.zones[slot]  # noqa: E731
            live_text = lambda ctx: f"st.zones[{slot:d}]"  # noqa: E731
        elif getattr(zone, "zone_valued", False):
            live = lambda st: st.zones[zone(st).slot]  # noqa: E731
            live_text = lambda ctx: f"st.zones[{ctx.sub(zone)}.slot]"  # noqa: E731
        else:
            return None
        value = self.expr(other, scope)
        none = frozenset()
        # any(==) and all(!=) ask whether the zone meets the set; all(==) and any(!=)
        # whether the set holds the whole zone
        meets = (f == "any") == (item.op == "==")
        empty = f == "all"          # the answer for an empty zone
        negate = f == "any"         # any(==) = not disjoint, any(!=) = not superset
        method = "isdisjoint" if meets else "issuperset"
        test = frozenset.isdisjoint if meets else frozenset.issuperset

        def by_sets(st):
            cards_ = live(st)
            if not cards_:
                return empty
            answer = test(table.get(value(st), none), cards_)
            return not answer if negate else answer

        known = _folded(value)
        if known is not None:           # a constant: its set found now
            try:
                known = table.get(known[0], none)
            except TypeError:
                return None

        def render(ctx):
            t = ctx.tmp()
            found = (f"{ctx.k(known)}.{method}({t})" if known is not None else
                     f"{ctx.k(table)}.get({ctx.sub(value)}, {ctx.k(none)}).{method}({t})")
            return (f"({empty} if not ({t} := {live_text(ctx)}) else "
                    f"{'not ' if negate else ''}{found})")
        return fuse(by_sets, render)

    def _attr_filter(self, node, scope, f, plain):
        """`first(x for x in z if x.f == e)`, `[x for x in z if x.f == e]` and
        `count(x for x in z if x.f == e)` (or `!=`) over cards only, `e` a constant: the
        cards that pass are one set, made now (a card's attributes never change, as in
        `_attr_set_aggregate`), and the pass is C's `filter` of its membership test over
        the cards in order, not a loop.  `plain` is the loop's closure, kept for the
        tags; None where the shape is another."""
        if len(node.fors) != 1 or node.cond is None:
            return None
        item, var, cond = node.item, node.fors[0].var, node.cond
        if not (isinstance(item, A.Name) and item.id == var):
            return None
        found = _field_compared(self.prog, cond, var)
        if found is None:
            return None
        field, other = found
        cards = self.prog.cards
        known = _folded(self.expr(other, scope))
        if known is None:
            return None
        it = self.iterable(node.fors[0].iter, scope)
        if not _all_cards(it):
            return None
        try:
            passing = frozenset(c for c in cards if (c.attrs[field] == known[0])
                                == (cond.op == "=="))
        except TypeError:
            return None
        test = passing.__contains__
        if f == "first":
            def by_set(st):
                return next(filter(test, it(st)), None)
            render = lambda ctx: (f"{ctx.k(next)}({ctx.k(filter)}({ctx.k(test)}, "  # noqa: E731
                                  f"{ctx.sub(it)}), None)")
        elif f == "count":
            def by_set(st):
                return sum(map(test, it(st)))
            render = lambda ctx: (f"{ctx.k(sum)}({ctx.k(map)}({ctx.k(test)}, "  # noqa: E731
                                  f"{ctx.sub(it)}))")
        else:
            def by_set(st):
                return tuple(filter(test, it(st)))
            render = lambda ctx: (f"{ctx.k(tuple)}({ctx.k(filter)}({ctx.k(test)}, "  # noqa: E731
                                  f"{ctx.sub(it)}))")
        by_set.__dict__.update({k: v for k, v in plain.__dict__.items() if k != "render"})
        return fuse(by_set, render)

    def _aggregate_written(self, fn, f, loops, test, item, key):
        """An aggregate (`sum(value(c) for z in cell for c in z)`) written out as nested
        loops with its test and item inline, in the closure's order: no generator resumed
        for every item (`_written`)."""
        def body(ctx, head, held, pad):
            return _aggregate_body(ctx, f, head, test, item, held, pad, fn)
        return fuse_body(fn, lambda ctx: _written(ctx, loops, self.scratch, key, body),
                         self.def_parameters())

    def _aggregate_closure(self, f, node, loops, test, item):
        """An aggregate over any loops as a closure over the generator of its items."""
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

    def _aggregate1_closure(self, f, node, loop, test, item):
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


#: the most loops of one comprehension written out as nested loops in generated code
#: (Python allows 20 nested blocks in a function); more go through a generator
WRITTEN_LOOPS = 6
#: the most values of a constant first loop a repeated comprehension is written out for,
#: one part a value (`_repeated_lines`)
WRITTEN_VALUES = 8


def _loop_heads(ctx, loops, scratch) -> tuple:
    """The nested `for` lines of a comprehension's loops, each variable bound before the
    next loop's iterable is rendered (it may read it): (lines, {scratch slot: the
    variable holding it}, the innermost body's indent)."""
    head, held, pad = [], {}, ""
    for slot, it in loops:
        v = ctx.tmp()
        head += [f"{pad}for {v} in {ctx.sub(it)}:",
                 *ctx.bind("scratch", slot, v, pad + "    ", scratch)]
        ranging(ctx, v, it)
        held[slot] = v
        pad += "    "
    return head, held, pad


def ranging(ctx, temp, it):
    """Notes that the loop variable held in the temporary `temp` runs over `it`'s values
    where they are all among some constants (`for d in 1..4`, `for p in players`), so
    that a family's element indexed by it is read without testing for a missing one
    (`ExprCompiler._lookup`).  The temporary is the loop's own: only reads of the
    variable name it."""
    values = _values_among(it)
    if values is not None:
        ctx.within[temp] = values


def _written(ctx, loops, scratch, key, body) -> list:
    """The lines of a comprehension written out: its loops (`_loop_heads`) and
    `body(ctx, head, held, pad)`'s lines around them, where the parts compiled as kept
    under `key` (`loop_kept`: those that do not vary with the innermost variable) are
    kept in temporaries, unset as the innermost loop starts and computed where first
    reached (so a part an empty loop never reaches is never computed)."""
    head, held, pad = _loop_heads(ctx, loops, scratch)
    outer = ctx.loops
    ctx.loops = {**(outer or {}), key: []}
    try:
        lines = body(ctx, head, held, pad)
        kept = ctx.loops[key]
    finally:
        ctx.loops = outer
    if kept:        # (the loop's line names its own temporary: it is unique)
        innermost = [line for line in head if line.lstrip().startswith("for ")][-1]
        indent = innermost[:len(innermost) - len(innermost.lstrip())]
        lines.insert(lines.index(innermost), f"{indent}{' = '.join(kept)} = {ctx.k(UNSET)}")
    return lines


def _aggregate_body(ctx, f, head, test, item, held, pad, empty) -> list:
    """An aggregate's loop lines (`head`, its innermost body indented by `pad`, its loop
    variables `held` by slot) with its test and item inline, in order; `empty` is the
    closure that reports `min` or `max` of no items."""
    tested = f in ("any", "all")      # only the items' truth counts
    x = held.get(getattr(item, "scratch_slot", None)) or (
        ctx.test(item) if tested else ctx.sub(item))
    if f == "sum":     # 0 + x + ... as sum() adds
        total = ctx.tmp()
        return [f"{total} = 0", *head,
                *_when(ctx, test, f"{total} = {total} + {x}", pad), f"return {total}"]
    if f == "count":   # the items that are not False (a constant one, a card or a
        n = ctx.tmp()  # zone: all or none)
        c = _folded(item)
        if c is None and _never_false(item):
            c = (True,)
        line = (f"if {x} is not False: {n} += 1" if c is None else
                "continue" if c[0] is False else f"{n} += 1")
        return [f"{n} = 0", *head, *_when(ctx, test, line, pad), f"return {n}"]
    if f == "any":
        return [*head, *_when(ctx, test, f"if {x}: return True", pad), "return False"]
    if f == "all":
        return [*head, *_when(ctx, test, f"if not {x}: return False", pad), "return True"]
    if f in ("min", "max"):
        values = ctx.tmp()
        body = [f"{values} = []", *head, *_when(ctx, test, f"{values}.append({x})", pad)]
        # no items: the closure reports it, called past the loops, whose variables
        # (unbound if a loop ran no time) it does not read
        loops = {k: ctx.held.pop(k) for k in list(ctx.held)
                 if k[0] == "scratch" and k[1] in held}
        body.append(f"if not {values}: return {ctx.call(empty, cold=True)}")
        ctx.held.update(loops)
        return [*body, f"return {ctx.k(min if f == 'min' else max)}({values})"]
    return [*head, *_when(ctx, test, f"return {x}", pad), "return None"]   # first


def _never_false(item) -> bool:
    """Whether an item is always a card or always a zone (a loop's variable over a
    zone's cards or a family's zones), never `false`."""
    return getattr(item, "card_valued", False) or getattr(item, "zone_valued", False)


def _when(ctx, test, line, pad="    "):
    """`line` as the body of a loop (indented by `pad`), under `if test` when there is
    one; a test with a guard (`_guarded`) leaves the loop once the guard fails."""
    if test is None:
        return [f"{pad}{line}"]
    guard = getattr(test, "guard", None)
    if guard is not None:
        return [f"{pad}if not {ctx.test(guard[0])}: break", *_when(ctx, guard[1], line, pad)]
    return [f"{pad}if {ctx.test(test)}:", f"{pad}    {line}"]


def _guard(cond, var) -> Optional[tuple]:
    """Splits a comprehension's test `a and b and c` into (the leading terms that do not
    read the innermost loop's variable `var`, the rest or None), or None if the first
    term reads it.  The leading terms are the same for every value of `var` (an
    expression changes nothing), so once they fail the innermost loop gives no more
    items: written out, it stops there (a trailing `if` is the only place gdl has for a
    test, so `for z in cell for c in z if open(z) and ...` tests `open(z)` there)."""
    if cond is None:
        return None
    terms = cond.items if isinstance(cond, A.And) else (cond,)
    lead = 0
    while lead < len(terms) and var not in _free_names(terms[lead]):
        lead += 1
    if not lead:
        return None
    return _conjunction(terms[:lead], cond), _conjunction(terms[lead:], cond)


def _conjunction(terms, cond):
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else A.And(tuple(terms), span=cond.span)


def _guarded(guard, rest):
    """The test `guard and rest` (rest None: `guard`) as a closure, the two parts kept
    for generated code (`_when`)."""
    if rest is None:
        def test(st):
            return guard(st)
    else:
        def test(st):
            return guard(st) and rest(st)
    test.guard = (guard, rest)
    return test


def _zone_pass(ctx, order, zone: str) -> str:
    """The text of one pass over the cards of the zone `zone` (a ZoneRef's text)."""
    t = ctx.tmp()
    return f"{ctx.k(order)}[({t} := {zone}).slot](st.zones[{t}.slot])"


def _maybe_zone_pass(ctx, order, inner) -> str:
    """The text of one pass over `inner`'s value: its cards if it is a zone, else itself."""
    t = ctx.tmp()
    return (f"({ctx.k(order)}[{t}.slot](st.zones[{t}.slot]) "
            f"if isinstance(({t} := {ctx.sub(inner)}), {ctx.k(ZoneRef)}) else {t})")


def _length(ctx, it) -> str:
    """The text of how many values `it` gives, for repeating a list (where a negative
    count repeats nothing, as an empty range does): `lo..hi`'s `1 - lo + hi` without
    making the range, else `len(...)`."""
    bounds = getattr(it, "bounds", None)
    if bounds is None:
        return f"len({ctx.sub(it)})"
    lo, hi = bounds
    c = _folded(lo)
    if c is not None and type(c[0]) is int:
        return f"({ctx.sub(hi)} - {c[0] - 1:d})" if c[0] != 1 else f"({ctx.sub(hi)})"
    return f"(1 - {ctx.sub(lo)} + {ctx.sub(hi)})"      # lo read first, as the range reads it


def field_sets(prog, field) -> Optional[dict]:
    """Each value of a card field -> the frozenset of the cards having it (a card's
    attributes never change); None where a value is unhashable."""
    table: dict = {}
    try:
        for card in prog.cards:
            table.setdefault(card.attrs[field], set()).add(card)
    except TypeError:
        return None
    return {v: frozenset(s) for v, s in table.items()}


def _field_compared(prog, node, var):
    """(field, e) where `node` is `var.field == e` or `!=` (either way round), `e` reading
    no `var` and every card having the field (its attributes never change: the cards
    that pass are one set, made once); else None."""
    if not isinstance(node, A.Compare) or node.op not in ("==", "!="):
        return None
    for attr, other in ((node.left, node.right), (node.right, node.left)):
        if isinstance(attr, A.Attr) and isinstance(attr.obj, A.Name) and \
                attr.obj.id == var and var not in _free_names(other):
            cards = prog.cards
            if cards and all(attr.name in c.attrs for c in cards):
                return attr.name, other
            return None
    return None

