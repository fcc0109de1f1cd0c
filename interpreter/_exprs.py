"""Expressions compiled once into Python closures `f(st) -> value`.

One small handler per AST node type, split by kind over mixins: names, attributes and
indexing here; operators in `_ops.py`, collections in `_collections.py`, calls in
`_calls.py`.  Names are resolved at compile time, through the scope chain and the
program's symbol tables; nothing the user wrote is looked up by string at run time.
"""
from __future__ import annotations

import re

from gdl import ast as A

from ._closures import _among, _const, _folded, _tuples, by_card
from gdl.checker._typesys import ANY, EnumT, ListT, OptT, Prim, Unknown, ZoneT
from .values import Card, Member, Seat, ZoneRef, text_of
from ._fuse import UNSET, fuse
from ._scope import Local, Scope
from ._calls import NUMBERS_KEPT, PLAYERS_KEPT, CallMixin
from ._collections import CollectionMixin
from ._ops import OperatorMixin


def _done_from(rules: list) -> str:
    """Where a `me` nobody's move defines stands: `in rule r when the flow does it`."""
    if len(rules) < 2:
        return "here"
    doer = "the flow" if rules[-2] == "flow" else f"rule {rules[-2]}"
    return f"in rule {rules[-1]} when {doer} does it"


#: tags of what a closure gives (`_closures`), not how it reads: kept by a test for none
#: around it, and by a comprehension's part kept over its loop (`loop_kept`)
_VALUE_TAGS = ("zone_valued", "tuple_valued", "card_valued", "cards_only", "texts_only")
#: what a value of no type the checker could tell must be at run time, by the name of
#: the type wanted (`needing_type`)
_PRIM_TYPES = {"card": frozenset({Card}), "player": frozenset({Seat}),
               "int": frozenset({int}), "bool": frozenset({bool}),
               "text": frozenset({str})}
_NONE_TYPE = frozenset({type(None)})
_LIST_TYPES = (tuple, list)


def accepts(want):
    """What a value of no type the checker could tell must be where a `want` is needed:
    a frozenset of the Python types it may have (the common, fast test), a predicate on
    it (a zone of one family, a list and its items, one of several wants: a tuple), or
    None where anything goes."""
    if isinstance(want, tuple):
        tests = [accepts(w) for w in want]
        if None in tests:
            return None
        if all(isinstance(t, frozenset) for t in tests):
            return frozenset().union(*tests)
        return lambda v: any(_passes(t, v) for t in tests)
    if isinstance(want, OptT):
        inner = accepts(want.inner)
        if inner is None or isinstance(inner, frozenset):
            return None if inner is None else inner | _NONE_TYPE
        return lambda v: v is None or inner(v)
    if isinstance(want, Prim):
        return _PRIM_TYPES.get(want.name)
    if isinstance(want, ZoneT):
        if want.family is None:
            return frozenset({ZoneRef})
        family = want.family
        return lambda v: type(v) is ZoneRef and v.family == family
    if isinstance(want, EnumT):
        return frozenset({Member})
    if isinstance(want, ListT):
        item = accepts(want.elem)
        if item is None:
            return lambda v: type(v) in _LIST_TYPES
        return lambda v: type(v) in _LIST_TYPES and all(_passes(item, i) for i in v)
    return None


def _passes(test, v) -> bool:
    return test is None or (type(v) in test if isinstance(test, frozenset) else test(v))


def shown(v) -> str:
    """A value as an error about its type shows it: `none`, `KH`, `[3,2,1]`, cut short."""
    text = "none" if v is None else text_of(v)
    return text if len(text) <= 60 else text[:57] + "..."   # (every subset of a hand)


def _wanted(want) -> str:
    """A type as an error names what was needed: `a player`, `an int`, `a zone of hand`,
    `a list[card]`, `a card or none`."""
    if isinstance(want, tuple):
        return " or ".join(map(_wanted, want))
    if isinstance(want, OptT):
        return f"{_wanted(want.inner)} or none"
    if isinstance(want, ListT):
        return "a list" if want.elem == ANY else f"a {want}"
    family = getattr(want, "family", None)      # a zone of a family: say so
    word = f"zone of {family}" if family else str(want)
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


#: a temporary's name: read twice as cheaply as once
_TEMP = re.compile(r"_t\d+")


class ExprCompiler(OperatorMixin, CollectionMixin, CallMixin):
    """Mixin for the Compiler: `expr(node, scope)` returns a closure."""

    def expr(self, node, scope: Scope):
        handler = getattr(self, "_e_" + type(node).__name__, None)
        if handler is None:
            raise self.error(f"{type(node).__name__} cannot be used as a value here", node)
        fn = handler(node, scope)
        want = self.needs_value.get(id(node))
        if want is not None:
            fn = self.needing_value(fn, node, want)
        if self.memo_ids and id(node) in self.memo_ids and _folded(fn) is None:
            memo = self.memoised(fn)        # loop-invariant inside a require (hoisted)
            for tag in ("zone_valued", "tuple_valued"):   # what it gives, not how it reads
                if getattr(fn, tag, False):
                    setattr(memo, tag, True)
            fn = memo
        elif self.loop_ids and id(node) in self.loop_ids and _folded(fn) is None:
            fn = loop_kept(fn, self.loop_ids[id(node)])
        render = getattr(fn, "render", None)
        if render is not None:   # a consumer that calls it runs it as one function
            return fuse(fn, render)
        return fn

    def needing_value(self, fn, node, want, said=None):
        """`fn`, a `T?` used where a `T` is needed, failing with a rule error placed at
        its expression when it is none (as the language reference promises), instead of
        whatever Python error the value's consumer would raise."""
        if isinstance(want, Unknown):
            return self.needing_type(fn, node, want.want, want.said)
        if _folded(fn) is not None and _folded(fn)[0] is not None:
            return fn
        message = f"this value is none, where {said or _wanted(want)} is needed"

        def none(st):
            raise self.runtime_error(message, node, st)

        def value(st):
            v = fn(st)
            return v if v is not None else none(st)

        def render(ctx):
            t = ctx.tmp()
            return (f"({t} if ({t} := {ctx.sub(fn)}) is not None else "
                    f"{ctx.call(none, cold=True)})")
        value.render = render
        value.never_none = True
        for tag in _VALUE_TAGS:       # what it gives, now never none
            if getattr(fn, tag, False):
                setattr(value, tag, True)
        return value

    def needing_type(self, fn, node, want, said=None):
        """`fn`, a value the checker could give no type (`first` of an empty list) used
        where a `want` is needed, failing with a rule error placed at its expression when
        it is none or of another type, instead of a Python error in its consumer."""
        test = accepts(want)
        c = _folded(fn)
        if test is None or (c is not None and _passes(test, c[0])):
            return fn
        wanted = said or _wanted(want)

        def wrong(st, v):
            raise self.runtime_error(f"this value is {shown(v)}, where {wanted} is needed",
                                     node, st)

        if isinstance(test, frozenset):
            def value(st):
                v = fn(st)
                return v if type(v) in test else wrong(st, v)

            def render(ctx):
                t = ctx.tmp()
                return (f"({t} if {ctx.k(type)}({t} := {ctx.sub(fn)}) in {ctx.k(test)} "
                        f"else {ctx.k(wrong)}(st, {t}))")
            if test == frozenset({ZoneRef}):        # what it gives, now sure
                value.zone_valued = True
            elif test == frozenset({Card}):
                value.card_valued = True
        else:
            def value(st):
                v = fn(st)
                return v if test(v) else wrong(st, v)

            def render(ctx):
                t = ctx.tmp()
                return (f"({t} if {ctx.k(test)}({t} := {ctx.sub(fn)}) else "
                        f"{ctx.k(wrong)}(st, {t}))")
            if isinstance(want, ZoneT):
                value.zone_valued = True
        value.render = render
        if not _passes(test, None):
            value.never_none = True
        return value

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
                raise self.error(f"me is not defined {_done_from(self.rule_stack)}: me means "
                                 f"the player making a move, so it exists only in actions "
                                 f"and in the rules they do", node)
            return self.read_local(scope.me)
        return self.global_name(node.id, node)

    def read_local(self, local: Local):
        """A closure reading a local; a comprehension variable's read is tagged with its
        `scratch_slot`, so that a loop yielding the variable itself needs no call."""
        slot = local.slot
        if local.where == "frame":
            fn = lambda st: st.frame[slot]  # noqa: E731
            fn.render = lambda ctx: ctx.local("frame", slot, f"st.frame[{slot:d}]")
        else:
            scratch = self.scratch
            fn = lambda st: scratch[slot]  # noqa: E731
            fn.scratch_slot = slot
            fn.render = lambda ctx: ctx.local("scratch", slot, f"{ctx.k(scratch)}[{slot:d}]")
        if local.zone:
            fn.zone_valued = True   # consumers skip the type test
        if local.card:
            fn.card_valued = True   # never none: `.field` skips the test
        if local.among is not None:
            fn.one_of = local.among     # `text` of an int: `str`; an index: found
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
            fn.render = lambda ctx: f"st.vars[{slot:d}]"
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
            return _const(tuple(p.cards)) if not p.has_twins else _cards_by_place(p)
        raise self.error(f"unknown name {name!r}", node)

    def active_players(self):
        """`players`: the seats still in, in seat order; the same tuple of all seats while
        nobody is out (the common case: no filtering), else one tuple per set of seats
        out, made the first time it is asked for."""
        seats = tuple(self.prog.seats)
        by_out = {}                         # the `st.out` bits -> the seats still in

        def players(st):
            out = st.out
            if not out:
                return seats
            still = by_out.get(out)
            if still is None:
                still = tuple([s for s in seats if not out >> s.index & 1])
                if len(by_out) < PLAYERS_KEPT:
                    by_out[out] = still
            return still

        def render(ctx):    # inline while nobody is out, or where it is remembered
            still = ctx.tmp()
            return (f"({ctx.k(seats)} if not st.out else {still} if ({still} := "
                    f"{ctx.k(by_out)}.get(st.out)) is not None else "
                    f"{ctx.call(players, cold=True)})")
        players.render = render
        return _among(_tuples(players), seats)

    def _e_Attr(self, node, scope):
        if isinstance(node.obj, A.Name) and scope.lookup(node.obj.id) is None:
            qualified = self.qualified(node.obj.id, node.name)
            if qualified is not None:
                return _const(qualified)
        obj = self.expr(node.obj, scope)
        field = node.name
        if getattr(obj, "card_valued", False) and self.cards_made:   # never none
            fn = lambda st: obj(st).attrs[field]  # noqa: E731
            cards = self.prog.cards           # every card is made before the rules compile
            fn.member_valued = bool(cards) and all(
                type(c.attrs.get(field)) is Member for c in cards)
            # a card's attributes never change and every card has every field (the checker
            # knows the fields): the field's values by card id, read in generated code by a
            # tuple's subscript, no look-up in the card's dict by the field's name (taken
            # as the code is written, once the cards are all made)
            fn.by_card = (obj, field)
            fn.render = lambda ctx: f"{ctx.k(by_card(self.prog, field))}[{ctx.sub(obj)}.id]"
            fn.read_by = (field, lambda ctx, table: f"{table}[{ctx.sub(obj)}.id]")
            return fn

        def attr(st):
            value = obj(st)
            if value is None:
                raise self.runtime_error(f"no card to take .{field} of (the value is none)",
                                         node, st)
            return value.attrs[field]

        def read(ctx, table):   # a none value goes through `attr`, which reports it;
            text = ctx.sub(obj)     # any other is a card (the checker's type, or tested
            if text in ctx.sure:    # as one where it has none): `table` by its id
                return f"{table}[{text}.id]"   # (a def's parameter never none)
            if _TEMP.fullmatch(text):   # a temporary is read again as cheaply
                return (f"({ctx.call(attr, cold=True)} if {text} is None "
                        f"else {table}[{text}.id])")
            t = ctx.tmp()
            return (f"({ctx.call(attr, cold=True)} if ({t} := {text}) is None "
                    f"else {table}[{t}.id])")
        if not self.cards_made:     # a `cards` declaration's read, the cards being made:
            return attr             # no table by card id holds them all yet
        attr.render = lambda ctx: read(ctx, ctx.k(by_card(self.prog, field)))
        attr.read_by = (field, read)
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
        if self.element_read is not None and self.element_read[0] is node:
            return self.read_local(self.element_read[1])    # `updated_element`
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
            return find
        if name in p.var_index:
            base, table = p.var_index[name]
            find = self._lookup(table, keys, node, f"variable {name}")
            c = _folded(find)
            if c is not None:   # `put[p1]`: a plain variable's slot
                (slot,) = c
                fn = lambda st: st.vars[slot]  # noqa: E731
                fn.render = lambda ctx: f"st.vars[{slot:d}]"
                return fn
            fn = lambda st: st.vars[find(st)]  # noqa: E731
            fn.render = lambda ctx: f"st.vars[{ctx.sub(find)}]"
            return fn
        raise self.error(f"{name!r} cannot be indexed", node)

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

        def render(ctx):      # the same, inline: a bad position goes through `item`
            xs, i = ctx.tmp(), ctx.tmp()
            return (f"({xs}[{i} - 1] if (({xs} := {ctx.sub(items)}) or True) and "
                    f"1 <= ({i} := {ctx.sub(pos)}) <= len({xs}) else "
                    f"{ctx.call(item, cold=True)})")
        item.render = render
        return item

    def _lookup(self, table, keys, node, what):
        def key_error(st, key):
            shown = ", ".join(map(text_of, key))      # (`true`, `none`, `p1`: not Python's)
            raise self.runtime_error(f"{what} has no element [{shown}]", node, st)
        constant = _folded(*keys)
        if constant is not None:
            key = tuple(constant)
            if key not in table:
                raise self.error(f"{what} has no element [{', '.join(map(text_of, key))}]",
                                 node)
            return _const(table[key])
        fn = self._find(table, keys, key_error)
        t_keys = keys
        by_value = {k[0]: v for k, v in table.items()} if len(keys) == 1 else table
        nested = {}
        if len(keys) == 2:
            t_keys, by_value = _one_index_varies(table, keys)
            if len(t_keys) == 2:
                nested = _nested(by_value)

        def render(ctx):   # a missing key goes through `fn`, which reports it
            if len(keys) == 1 and getattr(keys[0], "parsed", None) is not None:
                return _by_text(ctx, t_keys[0].parsed, by_value, key_error)
            texts = [ctx.sub(k) for k in t_keys]
            found = _found(ctx, by_value, texts)
            if found is not None:      # `hand[p]` in a def called as `f(p1)`
                return ctx.lit(found)
            if len(texts) == 1 and (_all_found(by_value, ctx.within.get(texts[0])) or
                                    _all_found(by_value, getattr(t_keys[0], "one_of", None))):
                return f"{ctx.k(by_value)}[{texts[0]}]"   # `left[d]`, `for d in 1..4`
            if len(texts) == 2 and _pairs_found(nested, _known_values(ctx, t_keys[0], texts[0]),
                                                _known_values(ctx, t_keys[1], texts[1])):
                return f"{ctx.k(nested)}[{texts[0]}][{texts[1]}]"   # `cell[r, k]`, both
            t = ctx.tmp()
            key = ", ".join(texts)
            if len(t_keys) > 1:        # a tuple of the indices (`grid[p, r, k]`)
                key = f"({key})"
            return (f"({ctx.call(fn, cold=True)} if ({t} := {ctx.k(by_value)}.get({key})) "
                    f"is None else {t})")
        fn.render = render
        return fn

    def _find(self, table, keys, key_error):
        if len(keys) == 1:
            (k0,) = keys
            by_value = {k[0]: v for k, v in table.items()}

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


def _all_found(by_value, values) -> bool:
    """Whether every one of `values` (None: not known) is a key of `by_value`: a look-up
    by any of them finds its element."""
    if values is None:
        return False
    try:
        return all(by_value.get(v) is not None for v in values)
    except TypeError:       # an unhashable value
        return False


def _by_text(ctx, parsed, by_value, key_error) -> str:
    """A family's element indexed by `number(t)` (`pile[number(ch)]`): one look-up of
    the element by the text `t` in a table of this place's own, filled as texts are
    read (as `number`'s own is), instead of the text's number and then the element; a
    text not kept yet goes the long way: parsed (and its failure reported) as `number`
    does, then its element found (or a missing one reported as the look-up does)."""
    s, numbers, parse = parsed
    kept: dict = {}

    def find(st, text):
        n = numbers.get(text)
        if n is None:
            n = parse(st, text)
        found = by_value.get(n)
        if found is None:
            key_error(st, (n,))
        if len(kept) < NUMBERS_KEPT:
            kept[text] = found
        return found
    t, x = ctx.tmp(), ctx.tmp()
    return (f"({t} if ({t} := {ctx.k(kept)}.get({x} := {ctx.sub(s)})) is not None "
            f"else {ctx.k(find)}(st, {x}))")


def _found(ctx, by_value, texts):
    """A lookup's answer where its keys' texts are all values passed in, else None."""
    keys = [ctx.known(t) for t in texts]
    if None in keys:
        return None
    key = keys[0][0] if len(keys) == 1 else tuple(k[0] for k in keys)
    try:
        return by_value.get(key)
    except TypeError:       # an unhashable key: looked up when the code runs
        return None


def _known_values(ctx, key, text):
    """The values an index can take where they are known (a loop's over constant values:
    `within` for a generated loop's temporary, `one_of` for a local of the rules), else
    None."""
    values = ctx.within.get(text)
    return values if values is not None else getattr(key, "one_of", None)


def _pairs_found(nested, firsts, seconds) -> bool:
    """Whether every pair of one of `firsts` and one of `seconds` (None: not known) has
    its element in `nested` (`_nested`'s)."""
    if firsts is None:
        return False
    try:
        return all(_all_found(nested.get(a, {}), seconds) for a in firsts)
    except TypeError:       # an unhashable value
        return False


def _nested(table) -> dict:
    """A table keyed by pairs as a dict of dicts (first index, then second): a look-up
    by two indices whose values are all known to be found (`_pairs_found`) makes no pair
    and hashes none.  Two pairs are distinct keys exactly where their parts differ, so
    each finds the same element as before."""
    out: dict = {}
    for (a, b), v in table.items():
        out.setdefault(a, {})[b] = v
    return out


def _one_index_varies(table, keys) -> tuple:
    """(keys, table) for a lookup by two indices: where one is a constant (`won[p,
    first]`), the other alone, in the part of the table at that constant (no pair to make
    and hash per lookup); else both, in the whole table."""
    for fixed, free in ((1, 0), (0, 1)):
        c = _folded(keys[fixed])
        if c is not None:
            part = {k[free]: v for k, v in table.items() if k[fixed] == c[0]}
            if len(part) == sum(1 for k in table if k[fixed] == c[0]):   # none merged
                return [keys[free]], part
    return keys, table


__all__ = ["ExprCompiler", "_const", "_folded"]


def loop_kept(fn, loop):
    """`fn` as a part of a comprehension that does not depend on its innermost variable:
    where the comprehension's loops are written out (`Ctx.loops` has `loop`), it is
    remembered in a temporary the innermost loop starts unset, computed where first
    reached; anywhere else it is `fn` itself, computed each time."""
    def part(st):
        return fn(st)

    def render(ctx):
        temps = None if ctx.loops is None else ctx.loops.get(loop)
        if temps is None:
            return ctx.sub(fn)
        t = ctx.tmp()
        temps.append(t)
        return f"({t} if {t} is not {ctx.k(UNSET)} else ({t} := {ctx.sub(fn)}))"
    part.render = render
    for tag in _VALUE_TAGS:
        if getattr(fn, tag, False):
            setattr(part, tag, getattr(fn, tag))
    return part


def _cards_by_place(prog):
    """`card` in a game with twins: every card, the kinds in their order, each kind's
    twins zone by zone, each zone in its order.  In the order of their ids, which twin
    came first would show which id lay where (`first(c for c in card if ...)` took the
    lowest id), and two positions equal up to renaming twins would part."""
    kinds = range(max(c.kind for c in prog.cards) + 1)

    def cards(st):
        by_kind = [[] for _ in kinds]
        for zone in st.zones:
            for c in zone:
                by_kind[c.kind].append(c)
        return tuple([c for group in by_kind for c in group])
    cards.render = lambda ctx: f"{ctx.k(cards)}(st)"
    cards.tuple_valued = True
    return cards
