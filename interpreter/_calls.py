"""Calls compiled into closures: the builtin functions, `def`s (their parameters in
scratch slots) and tables."""
from __future__ import annotations

import re
from itertools import chain, combinations
from math import comb, prod

from gdl import ast as A
from gdl.checker._walk import walk
from gdl.errors import MOST_DIGITS, counted, whole_number

from ._closures import MOST_IN_RANGE, _cards, _const, _folded, _tuple_valued, _tuples
from ._closures import _all_ints, _among, _has_runs, _rendered, _runs_of, _texts, _values_among
from ._closures import by_card
from ._fuse import UNSET, fuse
from ._purity import pure_def, pure_expr, rememberable
from ._scope import Local, Scope
from .values import HAS_TEXT, Member, ZoneRef, text_of


class CallMixin:
    """Part of ExprCompiler: builtins, defs and tables."""

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
        fn = handler(node, scope)
        if name in _REPEATABLE and len(node.args) == 1 and isinstance(node.args[0], A.Name) \
                and getattr(fn, "render", None) is not None and _folded(fn) is None:
            # `top(t)` three times in a def body over a zone `t`: computed once there
            key = self.repeated_call_key(name, [self.expr(a, scope) for a in node.args])
            if key is not None:
                _remembered(fn, key, self.def_stack[-1][1])
        return fn

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

        def render(ctx):
            t = ctx.tmp()
            return (f"({t} if isinstance(({t} := {ctx.sub(fn)}), {ctx.k(ZoneRef)}) "
                    f"else {ctx.call(zone, cold=True)})")
        zone.render = render
        return zone

    def _b_count(self, node, scope):
        """`count(xs)`: a zone's number of cards, or a list's length.  A constant zone, a
        zone family's element (`count(deck[me])`) and a frame local are read without the
        extra layers; a list made to be counted (`count([c for c in hand[p] if ...])`, its
        items the loop's own variable) is counted as the aggregate `count(true for c in
        hand[p] if ...)` counts, with no list made."""
        made = node.args[0] if len(node.args) == 1 else None
        if isinstance(made, A.ListComp) and isinstance(made.item, A.Name) and \
                any(f.var == made.item.id for f in made.fors):
            return self.expr(A.Aggregate("count", A.BoolLit(True, span=made.item.span),
                                         made.fors, made.cond, span=node.span), scope)
        (coll,) = self.args(node, scope, 1)
        c = _folded(coll)
        if c is not None and isinstance(c[0], ZoneRef):
            slot = c[0].slot
            return _rendered(lambda st: len(st.zones[slot]),
                             lambda ctx: f"len(st.zones[{slot:d}])")
        if getattr(coll, "zone_valued", False):
            return _rendered(lambda st: len(st.zones[coll(st).slot]),
                             lambda ctx: f"len(st.zones[{ctx.sub(coll)}.slot])")
        if _tuple_valued(coll):   # `count(alive())`, `count(chars(t))`
            return _rendered(lambda st: len(coll(st)), lambda ctx: f"len({ctx.sub(coll)})")

        def count(st):
            v = coll(st)
            return len(st.zones[v.slot]) if isinstance(v, ZoneRef) else len(v)

        def render(ctx):
            t = ctx.tmp()
            return (f"(len(st.zones[{t}.slot]) if isinstance(({t} := {ctx.sub(coll)}), "
                    f"{ctx.k(ZoneRef)}) else len({t}))")
        count.render = render
        return count

    def _b_cards(self, node, scope):
        (z,) = self.args(node, scope, 1)
        is_set = self.prog.is_set

        def cards(st):
            ref = z(st)
            zone = st.zones[ref.slot]
            return tuple(zone) if is_set[ref.slot] else tuple(reversed(zone))

        def render(ctx):
            r = ctx.tmp()
            return (f"({ctx.k(tuple)}(st.zones[{r}.slot]) if "     # the test runs first
                    f"{ctx.k(is_set)}[({r} := {ctx.sub(z)}).slot] else "
                    f"{ctx.k(tuple)}({ctx.k(reversed)}(st.zones[{r}.slot])))")
        cards.render = render
        return _cards(_tuples(cards))

    def _b_top(self, node, scope, bottom=False):
        args = self.args(node, scope, 1, 2)
        z = self.zone_arg(args[0], node)
        if len(args) == 1:
            def one(st):
                ref = z(st)
                cards = st.zones[ref.slot]
                if not cards:
                    raise self.runtime_error(f"{node.func}() of an empty zone, {ref.text}",
                                             node, st)
                return cards[0] if bottom else cards[-1]
            end = 0 if bottom else -1
            named = _folded(z)              # a zone named outright: its slot written in

            def render(ctx):
                t = ctx.tmp()
                slot = f"{named[0].slot:d}" if named else f"{ctx.sub(z)}.slot"
                return (f"({t}[{end:d}] if ({t} := st.zones[{slot}]) "
                        f"else {ctx.call(one, cold=True)})")
            one.render = render
            one.card_valued = True          # zones hold cards, and an empty one raises
            if not bottom:                  # `move top(z) ...` pops it off the zone
                one.top_card_of = lambda ctx: named[0].slot if named else \
                    f"{ctx.sub(z)}.slot"
            return one
        n = args[1]

        def several(st):
            cards, k = st.zones[z(st).slot], n(st)
            if k > len(cards) or k < 0:
                raise self.runtime_error(f"{node.func}(zone, {k}) but the zone has "
                                         f"{counted(len(cards), 'card')}", node, st)
            if bottom:
                return tuple(reversed(cards[:k]))
            return tuple(reversed(cards[len(cards) - k:]))

        def render(ctx):   # the zone, then the count, as above; out of range: `several`
            c, k = ctx.tmp(), ctx.tmp()
            part = f"{c}[:{k}]" if bottom else f"{c}[len({c}) - {k}:]"
            return (f"({ctx.k(tuple)}({ctx.k(reversed)}({part})) "
                    f"if (({c} := st.zones[{ctx.sub(z)}.slot]) or True) "
                    f"and 0 <= ({k} := {ctx.sub(n)}) <= len({c}) "
                    f"else {ctx.call(several, cold=True)})")
        several.render = render
        if not bottom:      # `move top(z, n) ...` moves the block without the tuple
            several.top_of = (z, n)
        return _tuples(several)

    def _b_bottom(self, node, scope):
        return self._b_top(node, scope, bottom=True)

    def _b_faceup(self, node, scope):
        (c,) = self.args(node, scope, 1)
        return _rendered(lambda st: st.up[c(st).id], lambda ctx: f"st.up[{ctx.sub(c)}.id]")

    def _b_facedown(self, node, scope):
        (c,) = self.args(node, scope, 1)
        return _rendered(lambda st: not st.up[c(st).id],
                         lambda ctx: f"(not st.up[{ctx.sub(c)}.id])")

    def _b_zone_of(self, node, scope):
        (c,) = self.args(node, scope, 1)
        zones = self.prog.zones
        return _rendered(lambda st: zones[st.loc[c(st).id]],
                         lambda ctx: f"{ctx.k(zones)}[st.loc[{ctx.sub(c)}.id]]")

    def _b_owner(self, node, scope):
        (z,) = self.args(node, scope, 1)
        return _rendered(lambda st: z(st).owner, lambda ctx: f"{ctx.sub(z)}.owner")

    def _b_knows(self, node, scope):
        p, c = self.args(node, scope, 2)

        def render(ctx):    # the card once, after the seat, as the closure reads them
            card = ctx.tmp()
            return (f"({ctx.k(bool)}(st.known[{ctx.sub(p)}.index] >> ({card} := "
                    f"{ctx.sub(c)}).id & 1) or st.up[{card}.id])")
        return _rendered(
            lambda st: bool(st.known[p(st).index] >> c(st).id & 1) or st.up[c(st).id],
            render)

    def _b_next(self, node, scope, step=1):
        (p,) = self.args(node, scope, 1)
        seats = self.prog.seats
        n = len(seats)

        by_out: dict = {}                  # the `st.out` bits -> seat -> the next one in

        def nxt(st):
            i = p(st).index
            out = st.out
            for _ in range(n):
                i = (i + step) % n
                if not out >> i & 1:
                    if out not in by_out and len(by_out) < PLAYERS_KEPT:
                        by_out[out] = {s: _next_in(seats, s.index, step, out)
                                       for s in seats}
                    return seats[i]
            raise self.runtime_error("no active player left", node, st)
        following = {s: seats[(s.index + step) % n] for s in seats}

        def render(ctx):   # nobody out, or seats out as before: one dict lookup
            seat, table = ctx.tmp(), ctx.tmp()
            return (f"({ctx.k(following)}[{seat}] if (({seat} := {ctx.sub(p)}) or True) "
                    f"and not st.out else {table}[{seat}] if ({table} := "
                    f"{ctx.k(by_out)}.get(st.out)) is not None else {ctx.call(nxt)})")
        nxt.render = render
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
            out = st.out >> me.index & 1
            if len(others) != 1 or out:
                raise self.runtime_error(
                    f"opponent() needs exactly two active players, one of them "
                    f"{me.name}; there are {len(others) + (not out)}"
                    + (f", and {me.name} is out" if out else ""), node, st)
            return others[0]
        if other is not None:   # two seats, both in: one dict lookup
            def render(ctx):
                return (f"({ctx.k(other)}[{ctx.sub(p)}] if not st.out "
                        f"else {ctx.call(opponent, cold=True)})")
            opponent.render = render
        opponent.one_of = tuple(seats)      # a seat or an error: `hand[opponent(p)]` found
        return opponent

    def _b_active(self, node, scope):
        (p,) = self.args(node, scope, 1)
        return _rendered(lambda st: not st.out >> p(st).index & 1,
                         lambda ctx: f"(not st.out >> {ctx.sub(p)}.index & 1)")

    def _b_seat(self, node, scope):
        (p,) = self.args(node, scope, 1)
        return _rendered(lambda st: p(st).index + 1, lambda ctx: f"({ctx.sub(p)}.index + 1)")

    def _b_adjacent(self, node, scope):
        a, b = self.args(node, scope, 2)
        known = _Adjacency()

        def adjacent(st):
            return known[a(st), b(st)]
        return _rendered(adjacent, lambda ctx: f"{ctx.k(known)}[{ctx.sub(a)}, {ctx.sub(b)}]")

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
        read = getattr(m, "read_by", None)      # a card's field (`_e_Attr`): its
        if read is not None and self.prog.cards and all(   # members' positions by card
                type(c.attrs.get(read[0])) is Member for c in self.prog.cards):   # id
            field, by = read
            return _rendered(lambda st: m(st).index, lambda ctx: by(
                ctx, ctx.k(by_card(self.prog, field, ords=True))))
        return _rendered(lambda st: m(st).index, lambda ctx: f"{ctx.sub(m)}.index")

    def _b_abs(self, node, scope):
        (x,) = self.args(node, scope, 1)
        return _rendered(lambda st: abs(x(st)), lambda ctx: f"{ctx.k(abs)}({ctx.sub(x)})")

    def _b_min(self, node, scope, pick=min):
        xs = self.args(node, scope, 2, 16)
        if len(xs) == 2:   # as min()/max() of two: the first unless the second is beyond it
            a, b = xs
            if pick is min:
                def min2(st):
                    x, y = a(st), b(st)
                    return y if y < x else x
                fn, beyond = min2, ">"
            else:
                def max2(st):
                    x, y = a(st), b(st)
                    return y if y > x else x
                fn, beyond = max2, "<"

            def render(ctx):   # x first, then y; y if x is beyond it (y < x is x > y)
                xs, ys = ctx.sub(a), ctx.sub(b)     # (a temporary or a constant as it is)
                x = xs if _STABLE.fullmatch(xs) else ctx.tmp()
                y = ys if _STABLE.fullmatch(ys) else ctx.tmp()
                left = x if x == xs else f"({x} := {xs})"
                right = y if y == ys else f"({y} := {ys})"
                return f"({y} if {left} {beyond} {right} else {x})"
            return fuse(fn, render)
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

        def sliced(ctx, whole, part, otherwise) -> str:
            """The slice of `whole` inline (`part` of it); out of bounds, the closure says
            why (`otherwise` of its call)."""
            items, i, k = ctx.tmp(), ctx.tmp(), ctx.tmp()
            return (f"({part(f'{items}[{i}:{i} + {k}]')} if "
                    f"({items} := {ctx.sub(whole)}) is not None and 0 <= ({i} := "
                    f"{ctx.sub(start)}) and 0 <= ({k} := {ctx.sub(n)}) and "
                    f"{i} + {k} <= len({items}) else "
                    f"{otherwise(ctx.call(sublist, cold=True))})")
        fn = fuse(sublist, lambda ctx: sliced(ctx, coll, lambda s: f"{ctx.k(tuple)}({s})",
                                              lambda call: call))
        if getattr(coll, "texts_only", False):     # a part of a list of texts: texts
            _texts(fn)
        text = getattr(coll, "chars_of", None)
        if text is not None:        # of `chars(t)`: joined by "", the part of t itself
            fn.text_part = lambda ctx: sliced(ctx, text, lambda s: s,
                                              lambda call: f"{ctx.k('')}.join({call})")
        return _tuples(fn)

    def _b_subsets(self, node, scope):
        """`subsets(xs)`: every choice of items, the fewest first (`itertools` order)."""
        coll = self.collection(node.args[0], scope)

        def subsets(st):
            items = coll(st)
            if 2 ** len(items) > MOST_IN_RANGE:
                raise self.runtime_error(f"subsets of {len(items)} items would be "
                                         f"{2 ** len(items):,} lists, more than the "
                                         f"{MOST_IN_RANGE:,} a rule may go through", node, st)
            return tuple(chain.from_iterable(combinations(items, k)
                                             for k in range(len(items) + 1)))
        return _tuples(subsets)

    def _b_combinations(self, node, scope):
        """`combinations(xs, k)`: every choice of k items, in `itertools` order."""
        coll = self.collection(node.args[0], scope)
        size = self.expr(node.args[1], scope)

        def chosen(st):
            items, k = coll(st), size(st)
            if k < 0:
                raise self.runtime_error(f"combinations of {k} items: a number of items is "
                                         f"0 or more", node, st)
            if comb(len(items), k) > MOST_IN_RANGE:
                raise self.runtime_error(f"combinations of {k} of {len(items)} items would "
                                         f"be {comb(len(items), k):,} lists, more than the "
                                         f"{MOST_IN_RANGE:,} a rule may go through", node, st)
            return tuple(combinations(items, k))
        return _tuples(chosen)

    def _b_text(self, node, scope):
        """`text(x)`: a card, member, seat or zone gives its own text inline (as `text_of`
        does first)."""
        (x,) = self.args(node, scope, 1)
        c = _folded(x)
        if c is not None:   # `text(1)`, `text(hearts)`: known before play
            return _const(text_of(c[0]))
        if getattr(x, "member_valued", False):   # a card's enum attribute: its text
            card, field = x.by_card     # its texts by card id (`_e_Attr`): one subscript
            return _rendered(lambda st: x(st).text, lambda ctx: (
                f"{ctx.k(by_card(self.prog, field, texts=True))}[{ctx.sub(card)}.id]"))
        if _all_ints(getattr(x, "one_of", None)):   # a local drawn from ints only:
            texts = {v: str(v) for v in x.one_of}   # their texts made at load, a subscript
            return _rendered(lambda st: str(x(st)), lambda ctx: f"{ctx.k(texts)}[{ctx.sub(x)}]")

        def render(ctx):    # `text_of`'s first tests, inline: no call for its common cases
            v, t = ctx.tmp(), ctx.tmp()
            return (f"({v}.text if ({t} := {ctx.k(type)}({v} := {ctx.sub(x)})) in "
                    f"{ctx.k(HAS_TEXT)} else {ctx.k(str)}({v}) if {t} is {ctx.k(int)} "
                    f"else {ctx.k(text_of)}({v}))")
        return _rendered(lambda st: text_of(x(st)), render)

    def _b_join(self, node, scope):
        xs, sep = self.collection(node.args[0], scope), self.expr(node.args[1], scope)
        c = _folded(sep)
        if getattr(xs, "texts_only", False):      # texts already: joined as they are, in C
            if c is not None and type(c[0]) is str:
                separator = c[0]
                part = getattr(xs, "text_part", None)
                if part is not None and separator == "":   # `join(sublist(chars(t), ..), "")`
                    return fuse(lambda st: separator.join(xs(st)), part)
                return fuse(lambda st: separator.join(xs(st)),
                            lambda ctx: f"{ctx.k(separator)}.join({ctx.sub(xs)})")
            return lambda st: sep(st).join(xs(st))
        if c is not None and type(c[0]) is str:    # things with a text: the list inline
            separator = c[0]
            return fuse(lambda st: _join_texts(separator, xs(st)),
                        lambda ctx: f"{ctx.k(_join_texts)}({ctx.k(separator)}, "
                                    f"{ctx.sub(xs)})")
        return lambda st: _join_texts(sep(st), xs(st))

    def _b_split(self, node, scope):
        s, sep = self.args(node, scope, 2)

        def split(st):
            text, separator = s(st), sep(st)
            if not separator:
                return tuple(text.split())
            return tuple(text.split(separator))
        c = _folded(sep)
        if c is not None and type(c[0]) is str and c[0]:    # a separator known before play
            separator = c[0]
            split = fuse(split, lambda ctx: f"{ctx.k(tuple)}({ctx.sub(s)}.split("
                                            f"{ctx.k(separator)}))")
        else:
            def render(ctx):
                text, separator = ctx.tmp(), ctx.tmp()
                return (f"{ctx.k(tuple)}({text}.split({separator}) if ({text} := "
                        f"{ctx.sub(s)}) is not None and ({separator} := {ctx.sub(sep)}) "
                        f"else {text}.split())")
            split = fuse(split, render)
        return _texts(_tuples(split))

    def _b_chars(self, node, scope):
        (s,) = self.args(node, scope, 1)
        fn = _texts(_tuples(fuse(lambda st: tuple(s(st)),
                                 lambda ctx: f"{ctx.k(tuple)}({ctx.sub(s)})")))
        fn.chars_of = s         # for a part of it joined again (`_b_sublist`, `_b_join`)
        return fn

    def _b_number(self, node, scope):
        (s,) = self.args(node, scope, 1)

        numbers: dict = {}    # text -> its number, for texts read again and again

        def parse(st, text):
            t = text.strip()
            value = whole_number(t)
            if value is None:
                raise self.runtime_error(f"{t!r} is not a whole number (of at most "
                                         f"{MOST_DIGITS} digits)", node, st)
            if len(numbers) < NUMBERS_KEPT:
                numbers[text] = value
            return value

        def number(st):
            return parse(st, s(st))

        # `parse` reads no local: no held one is written before it
        number.render = lambda ctx: _kept_or_made(ctx, numbers, ctx.sub(s), parse)
        number.parsed = (s, numbers, parse)     # for a family indexed by it (`_lookup`)
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
        return _rendered(lambda st: name in st.dirty,
                         lambda ctx: f"({ctx.k(name)} in st.dirty)")

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
            raise self.error(f"{name} takes {counted(len(decl.params), 'argument')}", node)
        args = [self.expr(a, scope) for a in node.args]
        zones = self.zone_parameters(decl, args)
        body, slots = self.def_body(decl, zones=zones)
        if self.memo_varying is not None and slots and not pure_def(self.prog, name):
            kept = self.hoisted_body(decl, node.args, zones)   # parts kept over a loop
            if kept is not None:
                body, slots = kept
        key = self.repeated_call_key(name, args) if getattr(body, "constant", None) is None \
            else None
        carried = _constant_call_key(name, args) if self.tested_calls is not None \
            and not self.def_stack and getattr(body, "constant", None) is None else None
        if carried is not None:
            self.tested_calls[carried] = self.tested_calls.get(carried, 0) + 1
        if not slots:
            if key is None and carried is None:
                return body
            fn = lambda st: body(st)  # noqa: E731   (a site of its own, to remember)
            fn.__dict__.update(body.__dict__)
            fn.render = lambda ctx: ctx.sub(body)
        elif pure_def(self.prog, name) and rememberable(self.prog, decl):
            fn = self.call_remembering(name, body, slots, args, decl)
        else:
            fn = self.call_with(body, slots, args)
        if key is not None:
            _remembered(fn, key, self.def_stack[-1][1])
        if carried is not None and not _tuple_valued(body):
            _carried(fn, carried, self.tested_calls)
        _among(fn, _values_among(body))
        return _tuples(fn) if _tuple_valued(body) else fn

    def repeated_call_key(self, name, args):
        """Inside a def body, the key of a call whose arguments are constants or the def's
        own parameters (`colour_sum(z, black)`), counted for that body: its value cannot
        change while the body is evaluated (expressions change nothing, and the body's
        parameters are written only on entry), so an inlined body computes it once.  None
        for any other call."""
        if not self.def_stack:
            return None
        params, counts = self.def_stack[-1]
        parts = []
        for a in args:
            c = getattr(a, "constant", None)
            if c is not None:
                try:
                    hash(c[0])
                except TypeError:
                    return None
                parts.append((type(c[0]), c[0]))
            elif getattr(a, "scratch_slot", None) in params:
                parts.append(a.scratch_slot)
            else:
                return None
        key = (name, tuple(parts))
        counts[key] = counts.get(key, 0) + 1
        return key

    def call_remembering(self, name, body, slots, args, decl):
        """A call of a def whose value depends on its arguments alone (`_purity`): its
        answers are kept per argument value (per tuple of them), so the body runs once per
        card, say, not at every call.  An answer of none is not kept (a miss and a none
        look alike), nor one the body fails on.  Every call site of the def shares them.
        A def of one card has its answers for every card worked out now where it can
        (`answer_every_card`): a call whose argument is never none then looks its answer
        up in generated code with no test for a miss."""
        scratch = self.scratch
        answers = self.def_answers.setdefault(name, {})
        every = self.answer_every_card(name, decl, body, slots, answers)

        def fill(st, key):
            if len(slots) == 1:
                scratch[slots[0]] = key
            else:
                for s, v in zip(slots, key):
                    scratch[s] = v
            value = body(st)
            if value is not None and len(answers) < ANSWERS_KEPT:
                answers[key] = value
            return value

        if len(args) == 1:
            (a0,) = args

            def call(st):
                key = a0(st)
                value = answers.get(key)
                return value if value is not None else fill(st, key)
        else:
            def call(st):
                key = tuple([a(st) for a in args])
                value = answers.get(key)
                return value if value is not None else fill(st, key)

        def render(ctx):   # `fill` writes the slots it reads: no held local is written
            if every and _never_none(args[0]):     # a card: its answer is there
                return f"{ctx.k(answers)}[{ctx.sub(args[0])}]"
            parts = [ctx.sub(a) for a in args]
            given = parts[0] if len(parts) == 1 else f"({', '.join(parts)},)"
            return _kept_or_made(ctx, answers, given, fill)
        call.render = render
        return call

    def answer_every_card(self, name, decl, body, slots, answers) -> bool:
        """Whether a pure def of one `card` parameter has its answer for every card kept
        in `answers`, worked out now (once per def: every card is made before the rules
        compile, and the answers hang on nothing else); False where the cards are many or
        an answer fails or is none (the calls then find out, as for any other def)."""
        known = self.def_every.get(name)
        if known is not None:
            return known
        if not self.cards_made:     # a `cards` declaration's call: the cards so far
            return False
        cards = self.prog.cards
        (param,) = decl.params if len(decl.params) == 1 else (None,)
        every = (param is not None and not param.optional and param.domain.id == "card"
                 and 0 < len(cards) <= CARDS_ANSWERED and _loopless(self.prog, decl))
        if every:
            (slot,) = slots
            scratch = self.scratch
            saved = scratch[slot]
            try:
                for c in cards:
                    scratch[slot] = c
                    value = body(self.const_state)
                    if value is None:
                        every = False
                        break
                    answers[c] = value
            except Exception:   # noqa: BLE001 - failing for some card: left to the calls
                every = False
            finally:
                scratch[slot] = saved
        self.def_every[name] = every
        return every

    def def_parameters(self):
        """(scratch, the slots of its parameters) of the def whose body is being compiled,
        or None: a loop in a def body takes them as arguments (`fuse_body`)."""
        if not self.def_stack or not self.def_stack[-1][0]:
            return None
        return self.scratch, tuple(sorted(self.def_stack[-1][0]))

    def call_with(self, body, slots, args):
        """The closure behind `call_def`: the arguments are evaluated in order, then
        written to the def's slots, then the body runs.  Rendered inline, the arguments
        go to temporaries that the body reads instead of the slots (`Ctx.held`), and
        only a part of the body called as a closure has them written first."""
        scratch = self.scratch
        if len(slots) == 1:
            (s0,), (a0,) = slots, args

            def call(st):
                scratch[s0] = a0(st)
                return body(st)
        elif len(slots) == 2:
            (s0, s1), (a0, a1) = slots, args

            def call(st):
                v0 = a0(st)
                scratch[s1] = a1(st)
                scratch[s0] = v0
                return body(st)
        else:
            def call(st):
                values = [a(st) for a in args]
                for s, v in zip(slots, values):
                    scratch[s] = v
                return body(st)

        def rendered(ctx, inside):   # the arguments in order, then the body
            temps, binds = [], []
            for a in args:     # a constant or a temporary needs no temporary of its own
                text = ctx.sub(a)
                if _STABLE.fullmatch(text):
                    temps.append(text)
                else:
                    temps.append(ctx.tmp())
                    binds.append(f"(({temps[-1]} := {text}) or True)")
                    among = getattr(a, "one_of", None)    # (a temporary is as `within`
                    if among is not None:       # has it) `hand[p]` in the body: found
                        ctx.within[temps[-1]] = among
            bound = " and ".join(binds) or "True"
            # the body sees only its parameters: the held locals around the call are
            # not written before the body's calls, nor do those calls count for them
            outer, hot, memo, sure = ctx.held, ctx.hot, ctx.memo, ctx.sure
            ctx.held, ctx.memo = {}, {}
            for s, t in zip(slots, temps):
                ctx.hold_in("scratch", s, t, scratch)
            # a parameter given a card from a zone, or a value tested for none as it is
            # passed, is never none in the body (nothing in it binds its temporary again)
            ctx.sure = frozenset(t for a, t in zip(args, temps) if _never_none(a))
            try:
                inner = inside(ctx)
                # the repeated calls' temporaries start unset at every evaluation (but
                # those always bound before they are read: `_e_Cond`)
                bound += "".join(f" and (({t} := {ctx.k(UNSET)}) or True)"
                                 for t in ctx.memo.values() if t in ctx.unsure)
            finally:
                ctx.held, ctx.hot, ctx.memo, ctx.sure = outer, hot, memo, sure
            return f"({inner} if {bound} else None)"
        call.render = lambda ctx: rendered(ctx, lambda ctx: ctx.sub(body))
        if _has_runs(body):    # a draw from the call picks from the body's runs
            call.runs = lambda ctx: rendered(ctx, lambda ctx: _runs_of(ctx, body))
        return call

    def zone_parameters(self, decl, args) -> frozenset:
        """The positions of a def's parameters typed by a zone family (`z: cell`) that
        this call fills with a value always a zone (`zone_valued`): the body compiled for
        it reads them as zones, skipping the type test.  Only where the argument is known
        to be one: the checker lets a value of unknown type reach such a parameter (a
        local first bound to none, later to a list, say), which the body then reads as
        that value."""
        families = self.prog.families
        return frozenset(
            i for i, (p, a) in enumerate(zip(decl.params, args))
            if not p.optional and isinstance(p.domain, A.Name) and p.domain.id in families
            and getattr(a, "zone_valued", False))

    def def_body(self, decl, fresh: bool = False, zones: frozenset = frozenset()):
        """(the compiled body, its parameters' slots) of a def, compiled once for each
        set of parameters known to be zones (`zone_parameters`); `fresh`: compiled anew,
        not kept (`hoisted_body`: parts memoised for one call site)."""
        key = decl.name if not zones else (decl.name, zones)
        cached = None if fresh else self.def_cache.get(key)
        if fresh:
            scope = Scope()
            slots = [scope.bind(p.name, Local("scratch", self.new_scratch(),
                                              zone=i in zones)).slot
                     for i, p in enumerate(decl.params)]
            self.def_stack.append((frozenset(slots), {}))
            try:
                return self.expr(decl.body, scope), slots
            finally:
                self.def_stack.pop()
        if cached is None:
            scope = Scope()
            slots = [scope.bind(p.name, Local("scratch", self.new_scratch(),
                                              zone=i in zones)).slot
                     for i, p in enumerate(decl.params)]
            self.def_cache[key] = cached = (None, slots)
            self.def_stack.append((frozenset(slots), {}))   # see `repeated_call_key`
            try:
                cached = (self.expr(decl.body, scope), slots)
            except BaseException:       # not "calls itself" when it is met again
                del self.def_cache[key]
                raise
            finally:
                self.def_stack.pop()
            self.def_cache[key] = cached
        if cached[0] is None:
            raise self.error(f"{decl.name} calls itself", decl)
        return cached

    def call_table(self, name, node, scope):
        decl = self.prog.tables[name]
        table, default = self.table_map(decl)
        args = [self.expr(a, scope) for a in node.args]
        if len(args) != len(decl.params):
            raise self.error(f"{name} takes {counted(len(decl.params), 'argument')}", node)

        def missed(st, key):
            if key in table:                    # a row whose value is none
                return table[key]
            if default is not None:             # the else row, its parameters the key's
                slots = self.table_slots[name]
                scratch = self.scratch
                saved = [scratch[s] for s in slots]
                for s, k in zip(slots, key):
                    scratch[s] = k
                try:
                    return default(st)
                finally:
                    for s, v in zip(slots, saved):
                        scratch[s] = v
            shown = ", ".join(f"{p.name}={getattr(k, 'text', k)}"
                              for p, k in zip(decl.params, key))
            raise self.runtime_error(f"table {name} has no case for {shown}", node, st)

        def lookup(st):
            key = tuple([a(st) for a in args])
            value = table.get(key)
            return value if value is not None else missed(st, key)

        def render(ctx):    # one look-up inline; a miss (or a none) is `missed`'s
            return _kept_or_made(ctx, table, f"({''.join(ctx.sub(a) + ', ' for a in args)})",
                                 missed)
        lookup.render = render
        return lookup

    def table_map(self, decl):
        """(key -> value of its row, the else row's value or None), made once per table.
        A row's value and the else row's may read the parameters: a row's is worked out
        for each key it covers, with the parameters in scratch slots
        (`table_slots`), as the else row's is at each look-up no row answers."""
        if decl.name not in self.table_cache:
            scope = Scope()
            slots = [scope.bind(p.name, Local("scratch", self.new_scratch())).slot
                     for p in decl.params]
            self.table_slots[decl.name] = slots
            table = {}
            for row in decl.rows:
                choices = []
                for k in row.keys:
                    v = self.const(k)
                    choices.append(v if isinstance(v, tuple) else (v,))
                for key in _product(choices):
                    for s, k in zip(slots, key):
                        self.scratch[s] = k
                    table.setdefault(key, self.const(row.value, scope))
            default = self.expr(decl.default, scope) if decl.default is not None else None
            if default is not None:
                self.fill_else_row(decl, table, default, slots)
            self.table_cache[decl.name] = (table, default)
        return self.table_cache[decl.name]

    def fill_else_row(self, decl, table, default, slots):
        """Writes the else row's value into the table for each key no row covers, where
        the value depends on the key alone and the keys are few and known before the game
        (a look-up no row answers then finds it at once, instead of working the else row
        out again).  A key whose value cannot be worked out now is left to the look-up."""
        if not pure_expr(self.prog, decl.default, {p.name for p in decl.params}):
            return
        choices = []
        for p in decl.params:
            try:
                values = self.const(p.domain)
            except Exception:   # noqa: BLE001 - a type no list of values stands for (int)
                return
            if not isinstance(values, (tuple, range)):
                return
            choices.append(values)
        if prod(map(len, choices)) > ELSE_ROWS_FILLED:
            return
        for key in _product(choices):
            if key in table:
                continue
            for s, k in zip(slots, key):
                self.scratch[s] = k
            try:
                table[key] = default(self.const_state)
            except Exception:   # noqa: BLE001 - e.g. a division by zero: at the look-up
                continue


def _product(choices):
    if not choices:
        yield ()
        return
    for v in choices[0]:
        for rest in _product(choices[1:]):
            yield (v,) + rest


def _kept_or_made(ctx, kept: dict, key_text: str, make) -> str:
    """The text of a lookup in `kept` by the value of `key_text`, or, on a miss (or a kept
    none), of `make(st, key)`, which may keep what it makes (`number`, remembered defs)."""
    key, value = ctx.tmp(), ctx.tmp()
    return (f"({value} if ({value} := {ctx.k(kept)}.get({key} := {key_text})) is not None "
            f"else {ctx.k(make)}(st, {key}))")


def _next_in(seats, i: int, step: int, out: int):
    """The first seat after seat `i` (by `step`) that the `out` bits leave in."""
    n = len(seats)
    for _ in range(n):
        i = (i + step) % n
        if not out >> i & 1:
            return seats[i]
    return None


def _join_texts(separator: str, values) -> str:
    """`join` of values that are texts or have one (cards, members, seats, numbers)."""
    return separator.join([v if type(v) is str else v.text if type(v) in HAS_TEXT
                           else text_of(v) for v in values])


#: the most keys a table's else row is written out for (`fill_else_row`)
ELSE_ROWS_FILLED = 4096

#: argument texts whose value cannot change while a def body runs: a temporary is
#: assigned once per evaluation, a `K` is a value passed in, the rest are literals
_STABLE = re.compile(r"_t\d+|K\d+|\(-?\d+\)|True|False|None")


def _loopless(prog, decl, seen=None) -> bool:
    """Whether a def's body, and those of the defs it calls, pass over no list or range:
    its answer for every card, worked out as the rules load, costs about as much as the
    cards are many (a body that loops could make loading take what the game would only
    pay for the cards it plays)."""
    seen = set() if seen is None else seen
    for n in walk(decl.body):
        if isinstance(n, (A.Aggregate, A.ListComp, A.Range)):
            return False
        if isinstance(n, A.Call) and n.func in prog.defs and n.func not in seen:
            seen.add(n.func)
            if not _loopless(prog, prog.defs[n.func], seen):
                return False
    return True


def _never_none(fn) -> bool:
    """Whether a compiled expression's value is never none: a card drawn from a zone, or
    a `T?` used as a `T`, tested for none as it is read (`ExprCompiler.needing_value`)."""
    return getattr(fn, "card_valued", False) or getattr(fn, "never_none", False)

#: builtins worth computing once where an inlined def body calls one of them again with
#: the same argument (a parameter, a constant): each reads the state, which does not
#: change while the body is evaluated, and gives one card (of one argument only: of two
#: they give a list); cheaper ones (`count`, `opponent`) cost more kept than made again
_REPEATABLE = frozenset({"top", "bottom"})


def _remembered(fn, key, counts):
    """Makes a def call site, rendered inside an inlined def body that makes the same call
    more than once, compute it at the first of them to be evaluated and reuse it after."""
    plain = fn.render

    def render(ctx):
        memo = ctx.memo
        if memo is None or counts[key] < 2:
            return plain(ctx)
        t = memo.get(key)
        if t is None:
            t = memo[key] = ctx.tmp()
        if t in ctx.settled:        # an `if`'s branch, its test having worked it out
            return t
        if render in ctx.binding:   # a side of that test: evaluated first, and always
            text = plain(ctx)
            ctx.settled |= {t}
            return f"({t} := {text})"
        ctx.unsure |= {t}
        return f"({t} if {t} is not {ctx.k(UNSET)} else ({t} := {plain(ctx)}))"
    fn.render = fn.remembered = render


def _constant_call_key(name, args):
    """The key of a def call whose arguments are all constants (`strength(p1)`), equal
    for every such call of the def with the same arguments; None for any other call."""
    parts = []
    for a in args:
        c = getattr(a, "constant", None)
        if c is None:
            return None
        try:
            hash(c[0])
        except TypeError:
            return None
        parts.append((type(c[0]), c[0]))
    return (name, tuple(parts))


def _carried(fn, key, counts):
    """Makes a def call of constant arguments, rendered in an `if`'s test (`Ctx.chain`),
    give its value a temporary where the test evaluates it once and always (a side of a
    comparison: `Ctx.binding`), and read that temporary where the same test or an elif
    straight after it makes the same call: `elif strength(p1) > strength(p2): ... elif
    strength(p2) > strength(p1)` works each out once.  Sound since nothing runs between
    an if's test and the next elif's (expressions change nothing), a def's value depends
    on its arguments and the state alone, and an error the call raises ends the chain at
    its first evaluation, as it did.  Only a call the `if`'s tests make more than once
    (`counts`) is given a temporary."""
    plain = fn.render

    def render(ctx):
        chain = ctx.chain
        if chain is None:
            return plain(ctx)
        t = chain.get(key)
        if t is not None:
            return t
        if render not in ctx.binding or counts[key] < 2:
            return plain(ctx)
        text = plain(ctx)
        t = chain[key] = ctx.tmp()
        return f"({t} := {text})"
    fn.render = fn.carried = render


class _Adjacency(dict):
    """(zone, zone) -> whether they are orthogonal neighbours of one grid, worked out on
    first use: a move list tests one zone against every cell, every turn."""

    __slots__ = ()

    def __missing__(self, pair):
        x, y = pair
        found = x.family == y.family
        diffs = []
        for i, j in zip(x.indices, y.indices) if found else ():
            if type(i) is int and type(j) is int:
                diffs.append(abs(i - j))
            elif i is not j:          # a seat, a member: the same in both, or not near
                found = False
        found = found and sorted(diffs)[-1:] == [1] and sum(diffs) == 1
        if len(self) >= ADJACENCY_LIMIT:
            self.clear()
        self[pair] = found
        return found


#: the most pairs one `adjacent` call site remembers (zones are few: never reached in practice)
ADJACENCY_LIMIT = 100_000

#: the most answers one remembered def keeps (per argument value: cards, members, seats)
ANSWERS_KEPT = 100_000

#: the most cards a def of one card has its answers worked out for before the game
CARDS_ANSWERED = 512

#: the most texts one `number` call site remembers the numbers of (beyond, it parses)
NUMBERS_KEPT = 10_000

#: how many sets of seats out `players`, `next` and `prev` remember their answers for
#: (2 ** seats at most)
PLAYERS_KEPT = 1024
