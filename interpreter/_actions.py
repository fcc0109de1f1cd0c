"""Actions compiled for move enumeration: each parameter's domain, the requires staged by
the parameters they need, and what makes listing or sampling moves cheap (ranges narrowed
by constant bounds, a value excluded in one pass, loop-invariant parts memoised once per
loop over the candidates).  `State.legal_moves` and `State.random_move` read the result."""
from __future__ import annotations

from itertools import filterfalse
from typing import Optional

import attrs

from gdl import ast as A
from gdl.checker._walk import walk

from ._closures import _all_cards, _all_zones, _const, _folded, range_tuple
from . import _fuse
from ._fuse import UNSET, Ctx, build, fuse, holding
from ._listing_memo import cannot_fail, guard_of, listing_inputs, memo_lines, names_in
from ._scope import Local, Scope
from .values import Card, Move, move_text


@attrs.define(eq=False)
class ActionInfo:
    """An action compiled once: its parameter domains, preconditions and secrets."""
    name: str
    decl: A.ActionDecl
    me_slot: int
    params: list          # (name, frame slot, domain closure)
    requires: list        # (closure, reason, span)
    secrets: list         # (frozenset of param positions, closure or None)
    block: Optional[list] = None
    scope: object = None
    staged: list = attrs.Factory(list)   # requires by the number of parameters they need
    enum_params: list = attrs.Factory(list)  # params with domains narrowed by their bounds
    tests: list = attrs.Factory(list)    # per stage: its requires as one closure, or None
    plain: object = None                 # the one Move of an action without parameters
    never: bool = False                  # a require is false whatever the state (options)
    hoisted: bool = False                # has requires with memoised parts (Compiler.hoisted)
    card_args: Optional[bool] = None     # do its moves name cards? (False: never; else
    #                                      known after the first)
    exclude: object = None               # `require last != x` first: x, dropped from the domain
    texts: dict = attrs.Factory(dict)    # arguments -> move text (`Move.text`)
    moves: Optional[dict] = None         # arguments -> its Move (`state._KeptMoves`)
    chunks: object = None                # chunks(st): `_chunk_enumerators` as generated
    #                                      code, or None
    slots: tuple = ()                    # the parameters' frame slots, in order
    merged: bool = False                 # `chunks` keeps one card of each kind already
    memo: Optional[dict] = None          # inputs' values -> a lone list's results, where
    memo_inputs: tuple = ()              # the list reads only these (`_listing_memo`)
    chunk_memo: Optional[dict] = None    # the same -> `chunks`' list (three parameters up)
    guard: object = None                 # true: the last parameter's requires all hold
    split: Optional[tuple] = None        # (the rest, the tail) of a lone require on the
    #                                      last parameter, `_trailing_split`
    by_field: Optional[tuple] = None     # a lone require `c.f == e or T`: `field_filter`
    last_fixed: bool = False             # the last parameter's values, filtered, read no
    #                                      earlier parameter: listed once for all of them


class ActionMixin:
    """Part of the Compiler: `action(name)` compiles an action's header once."""

    def action(self, name, node) -> ActionInfo:
        info = self.action_info.get(name)
        if info is not None:
            return info
        decl = self.prog.actions.get(name)
        if decl is None:
            raise self.error(f"unknown action {name!r}", node)
        # `me` is always a seat (a none seat is the choosing statement's error)
        me = Local("frame", self.new_frame(), among=tuple(self.prog.seats))
        scope = Scope(me=me)
        params, before = [], []         # before[i]: the scope param i's domain sees
        for prm in decl.params:
            domain = self.domain(prm.domain, scope)
            before.append(scope)
            scope = scope.child()
            local = scope.bind(prm.name, Local("frame", self.new_frame(),
                                               zone=_all_zones(domain),
                                               card=_all_cards(domain)))
            params.append((prm.name, local.slot, domain))
        while len(self.prog.epoch) < len(params):
            self.prog.epoch.append(0)
        requires = [(self.expr(r.cond, scope), r.reason, r.span) for r in decl.requires]
        names = [prm.name for prm in decl.params]
        staged = [[] for _ in range(len(names) + 1)]
        conds = []                      # the requires on the last parameter, as written
        lasts = [decl.params[-1].domain] if names else []   # what the last values read
        bounds = [[] for _ in names]
        limits = [[] for _ in names]    # bounds that the state gives (`state_bound`)
        hoisted, exclude = False, None
        for cond, fn in self.listed_terms(decl, requires, names, scope):
            if _folded(fn) == [True]:     # holds whatever the options: no test
                continue
            if names and _level(cond, names) == len(names):
                lasts.append(cond)
            bound = self.param_bound(cond, names, scope)
            if bound is not None and isinstance(decl.params[bound[0]].domain, A.Range):
                bounds[bound[0]].append(bound[1:])
                continue
            level = _level(cond, names)
            if level and not staged[level] and (level < len(names) or exclude is None) \
                    and isinstance(decl.params[level - 1].domain, A.Range):
                limit = self.state_bound(cond, names[level - 1], scope, before[level - 1])
                if limit is not None:
                    limits[level - 1].append(limit)
                    continue
            if names and level == len(names) and not staged[level] and exclude is None:
                exclude = self.excluded_value(cond, names[-1], scope)
                if exclude is not None:
                    continue
            test = self.hoisted(cond, names[level - 1], level - 1, scope) \
                if level else None
            hoisted = hoisted or test is not None
            keys = self.kept_by(cond, decl, names)
            staged[level].append(_kept_by(test or fn, [params[names.index(n)][1] for n in keys])
                                 if keys else test or fn)
            if names and level == len(names):
                conds.append(cond)
        enum_params = []
        for i, ((pname, slot, domain), prm, b) in enumerate(zip(params, decl.params, bounds)):
            compile_domain = (lambda n, sc, b=b: self.narrowed(n, sc, b)) if b else self.domain
            fast = self.hoisted(prm.domain, names[i - 1], i - 1, before[i],
                                compile_domain) if i else None
            hoisted = hoisted or fast is not None
            if fast is None:
                fast = self.narrowed(prm.domain, before[i], b) if b else domain
            if limits[i]:
                fast = _limited(fast, limits[i])
            enum_params.append((pname, slot, fast))
        positions = {prm.name: i for i, prm in enumerate(decl.params)}
        secrets = [(frozenset(positions[n] for n in sec.names if n in positions),
                    self.expr(sec.when, scope) if sec.when is not None else None)
                   for sec in decl.secrets]
        info = ActionInfo(name, decl, me.slot, params, requires, secrets, scope=scope,
                          staged=staged, enum_params=enum_params,
                          tests=[all_of(stage) for stage in staged])
        if not params:
            info.plain = Move(info, ())
        info.never = any(_folded(r) == [False] for r, _, _ in requires)
        info.slots = tuple(slot for _, slot, _ in params)
        info.hoisted = hoisted
        info.exclude = exclude
        info.guard = self.listing_guard(conds, names, scope)
        if len(conds) == 1 and len(staged[-1]) == 1 and names:
            info.split = self.trailing_split(conds[0], decl, names, scope,
                                             info.guard is not None)
            if _all_cards(params[-1][2]):
                info.by_field = self.field_filter(conds[0], decl, names, scope,
                                                  info.guard is not None, exclude)
        info.last_fixed = len(names) >= 2 and (exclude is not None or bool(staged[-1])) \
            and not any(_free_names(x) & set(names[:-1]) for x in lasts)
        if params and all(_never_a_card(prm.domain, domain)
                          for prm, (_, _, domain) in zip(decl.params, params)):
            info.card_args = False
        if params:
            # a lone card parameter where cards have twins: the list merges them itself
            info.merged = len(params) == 1 and self.prog.has_twins and _all_cards(
                enum_params[0][2])
            if len(params) >= 2 or info.tests[1] is not None or exclude is not None:
                inputs = listing_inputs(self, decl, scope)
                if inputs is not None:
                    info.memo = {} if len(params) <= 2 else None
                    info.chunk_memo = {} if len(params) > 2 else None
                    info.memo_inputs = tuple(self.expr(n, scope) for n in inputs)
            info.chunks = generated_chunks(info, self.prog.epoch if hoisted else None)
            info.merged = info.merged and info.chunks is not None
            if info.chunks is None:             # only generated code keeps the chunks
                info.chunk_memo = None
        self.action_info[name] = info
        return info

    def listed_terms(self, decl, requires, names, scope) -> list:
        """The requires as the move list tests them: (condition, compiled) each, but a
        require `a and b` whose terms read parameters of different depths is its terms,
        each tested as soon as the parameters it reads are bound
        (`require id(x) < id(y) and id(y) < id(z)` skips every z of a failing x, y).  A
        move is legal when all of them hold either way, and the list's moves and their
        order are the domains'; only which of them is tested for which candidate changes,
        as staging each require by its parameters already did.  Likewise where a term
        would be kept by the parameters it reads (`kept_by`) and the whole would not."""
        out = []
        for r, (compiled, _, _) in zip(decl.requires, requires):
            terms = r.cond.items if isinstance(r.cond, A.And) else ()
            if len({_level(t, names) for t in terms}) > 1 or not \
                    self.kept_by(r.cond, decl, names) and \
                    any(self.kept_by(t, decl, names) for t in terms):
                out += [(t, self.expr(t, scope)) for t in terms]
            else:
                out.append((r.cond, compiled))
        return out

    def kept_by(self, cond, decl, names) -> list:
        """For a costly require term that reads a later parameter but not every one
        before it (`require holds(me, r)` in `ask(q: player, r: rank)`): the parameters
        it reads, by which one list keeps its values (`_kept_by`), so that it is worked
        out once for each of their values and not again for each value of the ones it
        skips.  Empty for any other term, and where a parameter it reads takes values of
        a list (which may not be kept by)."""
        level = _level(cond, names)
        reads = _free_names(cond)
        keys = [n for n in names[:level] if n in reads]
        if level < 2 or len(keys) == level or not _costly(cond, self.prog.defs):
            return []
        domains = {prm.name: prm.domain for prm in decl.params}
        if any(isinstance(domains[n], (A.ListLit, A.ListComp)) for n in keys):
            return []
        return keys

    def listing_guard(self, conds, names, scope):
        """A condition that, when true, makes every require on the last parameter hold
        for all its candidates (each require's `guard_of`, all of them needed), so the
        list need not test them one by one; None if some require has no guard."""
        guards = [guard_of(self, c, names, scope) for c in conds]
        if not guards or any(g is None for g in guards):
            return None
        guard = self.expr(guards[0] if len(guards) == 1 else A.And(tuple(guards)), scope)
        return None if _folded(guard) == [False] else guard

    def trailing_split(self, cond, decl, names, scope, guarded):
        """For the lone require on the last parameter, `require X(c) or T` whose
        trailing terms T read no parameter: (X, T) compiled, X without the leading terms
        the guard tests (false wherever X is tested, under `listing_guard`'s else).  T is
        first worked out at the first candidate failing X, as the require would; true
        there, it keeps that candidate and every later one, untested, and every earlier
        one passed X, so the list is all the candidates.  Only where X cannot fail
        (`cannot_fail`): the require would have tested it on the later candidates.  None
        where the require has no such shape."""
        if not isinstance(cond, A.Or) or self.kept_by(cond, decl, names):
            return None
        items = self.unguarded_terms(cond, names, scope, guarded)
        last = names[-1]
        tail = len(items)
        while tail > 0 and last not in _free_names(items[tail - 1]):
            tail -= 1
        if tail == 0 or tail == len(items):
            return None
        rest, trail = items[:tail], items[tail:]
        if not all(cannot_fail(self, x, names, scope) for x in rest):
            return None
        parts = []
        for terms in (rest, trail):
            node = terms[0] if len(terms) == 1 else A.Or(tuple(terms))
            fn = self.hoisted(node, last, len(names) - 1, scope)
            parts.append(fn if fn is not None else self.expr(node, scope))
        return tuple(parts)

    def unguarded_terms(self, cond, names, scope, guarded) -> list:
        """The terms of a require `a or b or ...` (a lone term: itself) less the leading
        ones its guard tests (`guard_of`), where the list has a guard: under the
        guard's else those are false for every candidate."""
        items = list(cond.items) if isinstance(cond, A.Or) else [cond]
        if guarded:
            lead = guard_of(self, cond, names, scope)
            items = items[len(lead.items) if isinstance(lead, A.Or) else 1:]
        return items

    def field_filter(self, cond, decl, names, scope, guarded, exclude):
        """For the lone require on a last parameter of cards, `require c.f == e or T`
        (or `!=`), e and T reading no parameter of the loop (`c.suit == led.suit or
        all(x.suit != led.suit for x in hand[me])`), after the leading terms a guard
        tests (as in `trailing_split`): (the cards of each value of f, as
        `_attr_set_aggregate` makes them, `!=`, e, T or None)
        compiled, so that the list is C's `filter` of one set's membership.  A card's
        field cannot fail, so the require fails only where e or T does: e is worked out
        where there are candidates, as at the first one, and T only where some candidate
        fails `c.f == e`, as at the first such one; T that says no candidate passes
        (`_none_pass`), where none has passed.  Each set is kept as its membership test.
        None for any other shape."""
        from ._collections import _field_compared, field_sets
        if self.kept_by(cond, decl, names):
            return None
        items = self.unguarded_terms(cond, names, scope, guarded)
        if not items:
            return None
        found = _field_compared(self.prog, items[0], names[-1])
        if found is None or any(names[-1] in _free_names(x) for x in items[1:]):
            return None
        table = field_sets(self.prog, found[0])
        if table is None:
            return None
        rest = items[1:]
        tail = None if not rest else self.expr(
            rest[0] if len(rest) == 1 else A.Or(tuple(rest)), scope)
        if len(rest) == 1 and exclude is None and _none_pass(
                rest[0], items[0], found, decl.params[-1].domain, self.prog):
            tail = NONE_PASSES
        tests = {v: cards.__contains__ for v, cards in table.items()}
        return tests, items[0].op == "!=", self.expr(found[1], scope), tail

    def excluded_value(self, cond, param, scope):
        """For the first require on the last parameter, `require dest != selected[me]`:
        the value to leave out of its domain (computed once per loop, only when the domain
        has candidates, as the plain require would first be), or None."""
        found = _param_compare(cond, [param], scope)
        if found is None or found[0] != "!=" or param in _free_names(found[2]):
            return None
        return self.expr(found[2], scope)

    def param_bound(self, cond, names, scope):
        """Returns (parameter position, op, constant) when a require only bounds one
        parameter by a number known before play (`d > 0`, also `d > 0 or flag` with the
        option false): such a require narrows the parameter's range for enumeration
        instead of testing every candidate.  None otherwise."""
        if isinstance(cond, (A.Or, A.And)):
            neutral = isinstance(cond, A.And)       # True is neutral in `and`, False in `or`
            rest = [i for i in cond.items
                    if _folded(self.expr(i, scope)) != [neutral]]
            return self.param_bound(rest[0], names, scope) if len(rest) == 1 else None
        found = _param_compare(cond, names, scope)
        if found is None or found[0] == "!=":
            return None
        op, name, other = found
        value = _folded(self.expr(other, scope))
        if value is None or type(value[0]) is not int:
            return None
        return names.index(name), op, value[0]

    def state_bound(self, cond, param, scope, outer):
        """For the first require on a range parameter that bounds it by what the state
        says, `require count(a) >= k` in `shift(a: tableau, b: tableau, k: 1..13)`:
        (op, the other side compiled where the domain is), so that the range is cut to
        the values that pass (`_limited`) instead of testing each; else None.  The other
        side reads no later parameter, so it is worked out once (compiled in `outer`, the
        scope of the parameter's domain), where the first candidate would have tested
        it: only when the range has values."""
        found = _param_compare(cond, [param], scope)
        if found is None or found[0] == "!=" or param in _free_names(found[2]):
            return None
        return found[0], self.expr(found[2], outer)

    def hoisted(self, node, param, level, scope, compile=None):
        """For `require c != selected[opponent(me)]`, `require c.suit == led.suit or
        all(x.suit != led.suit for x in hand[me])` or a domain `d: 0..count(deck[me]) - k`:
        a sub-expression that mentions neither the parameter whose candidates are being
        looped over (`param`, position `level`) nor a comprehension variable around it has
        the same value for all of them, so it is computed once per loop (memoised until
        `prog.epoch[level]` moves on) instead of once per candidate.  Everything still runs
        in its order and only when reached, so the value and any error are those of the
        plain expression.  Returns the compiled expression, or None if nothing hoists."""
        varying = {param} | _comprehension_vars(node)
        marked: list = []
        _invariant_parts(node, varying, marked)
        if not marked and not _calls_with(node, varying, self.prog.defs):
            return None
        self.memo_ids, self.memo_level = {id(n) for n in marked}, level
        self.memo_varying = varying
        fresh = self.fresh_bodies
        try:
            fn = (compile or self.expr)(node, scope)
        finally:
            self.memo_ids = self.memo_varying = None
        return fn if marked or self.fresh_bodies > fresh else None   # (none kept)

    def hoisted_body(self, decl, arg_nodes, zones: frozenset = frozenset()):
        """Under `hoisted`, a def called with an argument that varies over the loop
        (`touches(q, c)` in a require looping over c): its body compiled anew for this
        call, the parts of it that read none of the parameters those arguments fill
        (`my_slots(q)`) computed once per loop, as `hoisted` does for a require's own
        parts.  Returns (body, slots), or None where no part of the body keeps."""
        varying = self.memo_varying
        moving = {p.name for p, a in zip(decl.params, arg_nodes) if _free_names(a) & varying}
        if not moving or self.fresh_bodies >= FRESH_BODIES:
            return None         # the whole call keeps, or sits in a part that does
        self.fresh_bodies += 1
        inner = moving | _comprehension_vars(decl.body)
        marked: list = []
        _invariant_parts(decl.body, inner, marked)
        if not marked and not _calls_with(decl.body, inner, self.prog.defs):
            return None
        outer = self.memo_ids, self.memo_varying
        self.memo_ids, self.memo_varying = {id(n) for n in marked}, inner
        try:
            return self.def_body(decl, fresh=True, zones=zones)
        finally:
            self.memo_ids, self.memo_varying = outer

    def memoised(self, fn):
        """Returns `fn` computed once per loop at `memo_level`.  Rendered inside that
        loop written out in the same function (`Ctx.loops`), it is remembered in a
        temporary the loop starts unset; anywhere else in a memo kept with the epoch."""
        epochs, level = self.prog.epoch, self.memo_level
        memo = [None, None]                 # [epoch it was computed in, value]

        def once_per_loop(st):
            if memo[0] != epochs[level]:
                memo[1] = fn(st)
                memo[0] = epochs[level]
            return memo[1]

        def render(ctx):
            temps = None if ctx.loops is None else ctx.loops.get(level)
            if temps is None:               # the memo read inline while it is current
                return (f"({ctx.k(memo)}[1] if {ctx.k(memo)}[0] == {ctx.k(epochs)}"
                        f"[{level:d}] else {ctx.call(once_per_loop)})")
            t = ctx.tmp()
            temps.append(t)
            hot = ctx.hot                   # its calls run once per loop, not per item:
            text = ctx.sub(fn)              # writing the held locals first costs little
            ctx.hot = hot
            return f"({t} if {t} is not {ctx.k(UNSET)} else ({t} := {text}))"
        once_per_loop.render = render
        return once_per_loop

    def narrowed(self, node, scope, bounds):
        """A range domain cut to the bounds of its parameter's requires: the same values
        that pass them, in the same order."""
        lo, hi = self.expr(node.lo, scope), self.expr(node.hi, scope)
        low, high = None, None
        for op, c in bounds:
            if op in (">", ">=", "=="):
                c = c + 1 if op == ">" else c
                low = c if low is None else max(low, c)
            if op in ("<", "<=", "=="):
                c = c - 1 if op == "<" else c
                high = c if high is None else min(high, c)
        both = _folded(lo, hi)
        if both is not None:
            a, b = both
            a, b = a if low is None else max(a, low), b if high is None else min(b, high)
            return _const(range_tuple(a, b, self.error, node) if b >= a else ())
        if high is None:
            fn = lambda st: range(max(lo(st), low), hi(st) + 1)  # noqa: E731
        elif low is None:
            fn = lambda st: range(lo(st), min(hi(st), high) + 1)  # noqa: E731
        else:
            fn = lambda st: range(max(lo(st), low), min(hi(st), high) + 1)  # noqa: E731

        def end(ctx, e, bound, pick):     # a constant end meets its bound here
            if bound is None:
                return ctx.sub(e)
            c = _folded(e)
            if c is not None:
                return ctx.lit(pick(c[0], bound))
            return f"{ctx.k(pick)}({ctx.sub(e)}, {ctx.lit(bound)})"

        def range_ends(ctx):              # the texts of the range's start and stop
            return end(ctx, lo, low, max), f"{end(ctx, hi, high, min)} + 1"
        fn.range_ends = range_ends
        return fuse(fn, lambda ctx: "{}({}, {})".format(ctx.k(range), *range_ends(ctx)))


def _limited(domain, limits):
    """A range domain cut by the bounds `ActionMixin.state_bound` found, in their order:
    each worked out only while values are left (as the first candidate's test would
    work it out), the values left those that pass, in the same order."""
    def values(st):
        vals = domain(st)
        for op, other in limits:
            if not vals:
                break
            x = other(st)
            vals = _within(vals, *(None if d is None else x + d for d in _ENDS[op]))
        return vals

    def render(ctx):
        text = ctx.sub(domain)
        rest = limits
        c = _folded(domain)
        if c is not None and c[0] and c[0] == tuple(range(c[0][0], c[0][-1] + 1)):
            # a constant range with values: the first bound cuts it at once, worked out
            # where it is first read (the low end's, if the bound gives one)
            (op, other), rest = limits[0], limits[1:]
            x = ctx.tmp()
            low, high = _ENDS[op]
            first = f"({x} := {ctx.sub(other)})"
            lo = ctx.lit(c[0][0]) if low is None else \
                f"{ctx.k(max)}({c[0][0]:d}, {_shifted(first, low)})"
            hi = ctx.lit(c[0][-1]) if high is None else \
                f"{ctx.k(min)}({c[0][-1]:d}, {_shifted(x if low is not None else first, high)})"
            text = f"{ctx.k(range)}({lo}, {hi} + 1)"
        for op, other in rest:
            vals, x = ctx.tmp(), ctx.tmp()
            lo, hi = (None if d is None else _shifted(x, d) for d in _ENDS[op])
            text = (f"({ctx.k(_within)}({vals}, {lo}, {hi}) if ({vals} := {text}) and "
                    f"(({x} := {ctx.sub(other)}) or True) else {vals})")
        return text
    return fuse(values, render)


#: a bound `p op x` -> how far from x the least and the greatest value of p lie (None:
#: that side is not bounded)
_ENDS = {">": (1, None), ">=": (0, None), "<": (None, -1), "<=": (None, 0), "==": (0, 0)}


def _shifted(x: str, d: int) -> str:
    """The text of x + d, d being -1, 0 or 1."""
    return x if d == 0 else f"{x} + 1" if d > 0 else f"{x} - 1"


def _within(vals, lo, hi):
    """The run of consecutive numbers `vals` (a range, or a tuple of one) cut to lo..hi
    (None: no bound on that side)."""
    a, b = vals[0], vals[-1]
    if lo is not None and lo > a:
        a = lo
    if hi is not None and hi < b:
        b = hi
    return range(a, b + 1)


def _kept_by(term, slots):
    """A require term whose values one list keeps by those of the parameters in `slots`
    (`ActionMixin.kept_by`): in generated code a dict made as the list starts
    (`Ctx.lists`) answers again for the values it has seen, and the term is worked out
    where it has not, in the same place and order as before; the term is a pure test of
    a state that does not change during the list, so its value and any error are the
    same.  Elsewhere it is the term itself."""
    def kept(st):
        return term(st)

    def render(ctx):
        if ctx.lists is None:
            return ctx.test(term)
        memo, hit = ctx.tmp(), ctx.tmp()
        ctx.lists.append(memo)
        keys = [ctx.local("frame", s, f"st.frame[{s:d}]") for s in slots]
        key = keys[0] if len(keys) == 1 else f"({', '.join(keys)})"
        return (f"({hit} if ({hit} := {memo}.get({key})) is not None else "
                f"{memo}.setdefault({key}, {ctx.test(term)}))")
    kept.render = kept.render_test = render
    return kept


#: calls that make lists: worth keeping a term for (`top` and `bottom` of a count only)
_LISTING_CALLS = frozenset({"top", "bottom", "cards", "sublist"})


def _costly(node, defs) -> bool:
    """Whether a term passes over cards or lists (a comprehension, an aggregate, a def,
    a call making a list), so that a dict's look-up is cheaper than working it out."""
    return any(isinstance(n, (A.Aggregate, A.ListComp)) or isinstance(n, A.Call) and (
        n.func in defs or n.func in _LISTING_CALLS and (
            len(n.args) > 1 or n.func not in ("top", "bottom"))) for n in walk(node))


def all_of(tests):
    """Returns one closure for a list of requires (the lone require itself, the common
    case), or None for none: move enumeration then calls it once per candidate."""
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        a, b = tests
        both = fuse(lambda st: a(st) and b(st), lambda ctx: f"({ctx.sub(a)} and {ctx.sub(b)})")
        both.render_test = lambda ctx: f"({ctx.test(a)} and {ctx.test(b)})"
        return both
    tests = tuple(tests)

    def every(st):
        for test in tests:
            if not test(st):
                return False
        return True
    every.render_test = lambda ctx: "(" + " and ".join(map(ctx.test, tests)) + ")"
    return every


#: expressions worth computing once per loop when they do not depend on the loop (a name
#: or a literal is as cheap to read as a memo)
_HOISTABLE = (A.Call, A.Index, A.Aggregate, A.ListComp, A.BinOp, A.Compare, A.Member, A.Attr,
              A.And, A.Or, A.Not, A.Cond, A.Range, A.Neg)


def _children(node):
    for f in node.__attrs_attrs__:
        value = getattr(node, f.name)
        if isinstance(value, tuple):
            yield from (v for v in value if hasattr(v, "__attrs_attrs__"))
        elif hasattr(value, "__attrs_attrs__"):
            yield value


def _level(cond, names) -> int:
    """How many of an action's parameters (`names`, in order) a condition needs bound:
    1 + the position of the last one it reads, 0 if none."""
    used = names_in(cond)
    return max((i + 1 for i, n in enumerate(names) if n in used), default=0)


def _free_names(node) -> set:
    """Returns the names an expression reads from outside it (a comprehension's own
    variables are not free in it, but are in an iterable before they are bound)."""
    if isinstance(node, A.Name):
        return {node.id}
    if isinstance(node, (A.ListComp, A.Aggregate)):
        free, bound = set(), set()
        for f in node.fors:
            free |= _free_names(f.iter) - bound
            bound.add(f.var)
        inner = _free_names(node.item)
        if node.cond is not None:
            inner |= _free_names(node.cond)
        return free | (inner - bound)
    out = set()
    for child in _children(node):
        out |= _free_names(child)
    return out


def _comprehension_vars(node) -> set:
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (A.ListComp, A.Aggregate)):
            out.update(f.var for f in n.fors)
        stack.extend(_children(n))
    return out


#: the most def bodies `hoisted_body` compiles anew for a program (defs calling defs
#: twice each, twenty deep, would make a million)
FRESH_BODIES = 500


def _calls_with(node, varying: set, defs) -> bool:
    """Whether an expression calls a def with an argument reading one of the `varying`
    names (`hoisted_body` may find a part of that def's body to keep)."""
    if isinstance(node, A.Call) and node.func in defs and \
            any(_free_names(a) & varying for a in node.args):
        return True
    return any(_calls_with(child, varying, defs) for child in _children(node))


def _invariant_parts(node, varying: set, out: list):
    """Collects the largest sub-expressions that read none of the `varying` names."""
    if isinstance(node, _HOISTABLE) and not (_free_names(node) & varying):
        out.append(node)
        return
    for child in _children(node):
        _invariant_parts(child, varying, out)


#: each comparison operator with its sides swapped
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _param_compare(cond, names, scope):
    """Returns (op, parameter name, other side) for a require `p OP x` or `x OP p` (then
    with OP flipped) where p is one of the action's parameters `names`, else None."""
    if not isinstance(cond, A.Compare) or cond.op not in _FLIPPED:
        return None
    op, left, right = cond.op, cond.left, cond.right
    if not (isinstance(left, A.Name) and left.id in names):
        op, left, right = _FLIPPED[op], right, left
    if not (isinstance(left, A.Name) and left.id in names) or scope.lookup(left.id) is None:
        return None
    return op, left.id, right


def generated_chunks(info, epochs):
    """Returns `chunks(st)` for an action of one parameter or more: what
    `state._chunk_enumerators` gives (the leading values bound in turn, the last
    parameter's values its requires allow), in the same order and evaluating the same
    parts in the same order, as one function; or None when generated code is off.  The
    parameters are held in the loops' own variables, not written to their frame slots,
    unless a part called as a closure on the way (not an error path) reads the slots.
    An action of three parameters or more whose list reads only a few values
    (`chunk_memo`) keeps its chunks by them: its consumers only read them."""
    if not _fuse.ENABLED:
        return None
    return build(*holding(lambda ctx: _chunk_lines(info, epochs, ctx)))


def _chunk_lines(info, epochs, ctx) -> list:
    out = ctx.tmp()
    wrap = memo_lines(ctx, info.chunk_memo, info.memo_inputs) \
        if info.chunk_memo is not None else None

    def keep(vals, prefix, pad):
        given = f"({', '.join(prefix)},)" if prefix else "()"
        return [f"{pad}if {vals}: {out}.append(({ctx.k(info)}, {given}, {vals}))"]
    body = [f"{out} = []", *_listing_lines(info, epochs, ctx, keep, [f"return {out}"])]
    if wrap is not None:        # (no move at all returns the empty list, kept nowhere)
        body = wrap(body, (out,))
    return [*body, f"return {out}"]


def _listing_lines(info, epochs, ctx, keep, stop, ends=None) -> list:
    """The lines listing an action's moves: the leading values bound in turn (nested
    loops), the last parameter's values its requires allow in `vals`, then
    `keep(vals, prefix, pad)`'s lines (`prefix` the leading values' names); `stop`, the
    lines run when the requires without parameters fail.  Given `ends` (a list), where
    the last values are a range that nothing filters (`_ranged`), `vals` is not made:
    its start and its length (stop - start, not above 0 where it is empty) go in two
    temporaries, named in `ends`."""
    params, tests = info.enum_params, info.tests
    vals = ctx.tmp()
    lines = []
    if tests[0] is not None:
        test = ctx.test(tests[0])
        lines += [f"if not {test}: {stop[0]}"] if len(stop) == 1 else [
            f"if not {test}:", *_indented(stop, "    ")]
    ctx.lists, top = [], len(lines)      # the terms' dicts (`_kept_by`), made here
    pad = ""
    prefix, starts, firsts = [], [], []
    ctx.loops = {}          # the loops' invariant parts, remembered in temporaries
    for level, (_, slot, domain) in enumerate(params[:-1]):
        v = ctx.tmp()
        prefix.append(v)
        if epochs is not None:
            lines.append(f"{pad}{ctx.k(epochs)}[{level:d}] += 1")
        lines.append(f"{pad}for {v} in {ctx.sub(domain)}:")
        starts.append((len(lines) - 1, pad))
        ctx.loops[level] = []
        lines += ctx.bind("frame", slot, v, pad + "    ")
        if tests[level + 1] is not None:
            lines.append(f"{pad}    if not {ctx.test(tests[level + 1])}: continue")
        pad += "    "
    _, slot, domain = params[-1]
    if ends is not None and _ranged(info):
        lo, hi = domain.range_ends(ctx)
        ends += [ctx.tmp(), ctx.tmp()]
        lines += [f"{pad}{ends[0]} = {lo}", f"{pad}{ends[1]} = {hi} - {ends[0]}"]
    elif info.last_fixed and params[:-1]:
        # the same values for every leading value: listed at the first, kept for the rest
        once = ctx.tmp()
        firsts.append(f"{once} = {ctx.k(UNSET)}")
        lines += [f"{pad}if {once} is {ctx.k(UNSET)}:",
                  f"{pad}    {vals} = {_candidates(ctx, info, domain)}",
                  *_filter_lines(info, epochs, ctx, vals, pad + "    "),
                  f"{pad}    {once} = {vals}",
                  f"{pad}else: {vals} = {once}"]
    else:
        lines.append(f"{pad}{vals} = {_candidates(ctx, info, domain)}")
        lines += _filter_lines(info, epochs, ctx, vals, pad)
    # each loop's remembered parts start unset as the loop starts (innermost first, so
    # that the places found before stay right)
    for level in reversed(range(len(starts))):
        at, outer = starts[level]
        lines[at:at] = _unset(ctx, ctx.loops.pop(level), outer)
    lines[top:top] = [f"{memo} = {{}}" for memo in ctx.lists] + firsts
    ctx.loops = ctx.lists = None
    return lines + keep(vals, prefix, pad)


def _candidates(ctx, info, domain) -> str:
    """The text of the last parameter's candidates: a pass over a zone's own list
    (`live`) where `_filter_lines` only passes over them once into a new list, else the
    domain's value (a tuple of the zone's cards, a range...)."""
    live = getattr(domain, "live", None)
    filtered = info.tests[len(info.enum_params)] is not None or info.merged
    if live is not None and filtered and info.exclude is None:
        return live(ctx)
    return ctx.sub(domain)


def _ranged(info) -> bool:
    """Whether an action's last values are a run-time range that no require filters (no
    excluded value, no test, no twins merged)."""
    domain = info.enum_params[-1][2]
    return (getattr(domain, "range_ends", None) is not None and info.exclude is None
            and info.tests[len(info.enum_params)] is None and not info.merged)


def _filter_lines(info, epochs, ctx, vals, pad) -> list:
    """The lines narrowing `vals`, the last parameter's candidates, to the values its
    requires allow (the excluded value left out, the tests, one card of each kind)."""
    n = len(info.enum_params)
    _, slot, domain = info.enum_params[-1]
    test = info.tests[n]
    lines = []
    if info.exclude is not None:   # as `_excluding`: x computed only with candidates
        x = ctx.tmp()
        without = _without_each(domain)
        if without is not None:    # a constant domain: what is left is looked up
            if without:
                lines += [f"{pad}{x} = {ctx.sub(info.exclude)}",
                          f"{pad}{vals} = {ctx.k(without)}.get({x}, {vals})"]
        else:
            lines += [f"{pad}{vals} = {ctx.k(list)}({vals})", f"{pad}if {vals}:",
                      f"{pad}    {x} = {ctx.sub(info.exclude)}",
                      f"{pad}    while {x} in {vals}: {vals}.remove({x})"]   # a fresh list
    if test is None and not info.merged:
        return lines
    guard = info.guard if test is not None else None
    if guard is not None:          # the guard holds: every candidate passes untested
        tested = _by_field_lines(info, ctx, vals, pad + "    ") \
            if info.by_field is not None and not info.merged \
            else _split_lines(info, epochs, ctx, vals, pad + "    ") \
            if info.split is not None and not info.merged \
            else _kept_lines(info, epochs, ctx, vals, pad + "    ", test)
        if not info.merged:        # all pass: the candidates are the list
            return [*lines, f"{pad}if {ctx.test(guard)}: {vals} = {ctx.k(list)}({vals})",
                    f"{pad}else:", *tested]
        return [*lines, f"{pad}if {ctx.test(guard)}:",
                *_kept_lines(info, epochs, ctx, vals, pad + "    ", None),
                f"{pad}else:", *tested]
    if info.by_field is not None and not info.merged:
        return lines + _by_field_lines(info, ctx, vals, pad)
    if info.split is not None and not info.merged:
        return lines + _split_lines(info, epochs, ctx, vals, pad)
    return lines + _kept_lines(info, epochs, ctx, vals, pad, test)


#: `field_filter`'s T where it is `all(x.f != e for x in Z)`, Z the candidates' domain
NONE_PASSES = object()
#: the membership test of a value no card's field has (`_by_field_lines`)
_IN_NONE = frozenset().__contains__


def _none_pass(term, compared, found, domain, prog) -> bool:
    """Whether `term` says that no candidate passes the field's test `compared` (`c.f
    == e`, found as (f, e)): `all(x.f != e for x in Z)` (`==` for `!=`), with the same
    f and e, Z the last parameter's domain as written and x named in neither (no
    excluded value, so the candidates are Z's cards).  Nothing changes the state while
    a list is made, and e was worked out without failing for the filter, so the term is
    true exactly where the filter kept no candidate."""
    from ._collections import _field_compared
    if not (isinstance(term, A.Aggregate) and term.func == "all" and len(term.fors) == 1
            and term.cond is None and term.fors[0].iter == domain):
        return False
    var = term.fors[0].var
    other = _field_compared(prog, term.item, var)
    return other is not None and other == found and term.item.op != compared.op \
        and var not in _free_names(found[1]) and var not in _free_names(domain)


def _by_field_lines(info, ctx, vals, pad) -> list:
    """`_kept_lines` for a require `c.f == e or T` (`field_filter`): the candidates in
    the set of e's cards, by C's `filter` (`filterfalse` for `!=`), or all of them where
    some fails and T holds; always a new list (the candidates may be a zone's own, or
    a pass over a stack's, listed first)."""
    tests, negate, value, tail = info.by_field
    kept = ctx.tmp()
    keep = ctx.k(filterfalse if negate else filter)
    domain = info.enum_params[-1][2]
    lines = [f"{pad}{kept} = []", f"{pad}if {vals}:"]
    if getattr(domain, "live", None) is not None and info.exclude is None and \
            not getattr(domain, "kind_sorted", False):   # one pass over a stack's list
        lines[1:1] = [f"{pad}{vals} = [*{vals}]"]
    lines.append(f"{pad}    {kept} = [*{keep}({ctx.k(tests)}.get({ctx.sub(value)}, "
                 f"{ctx.k(_IN_NONE)}), {vals})]")
    if tail is NONE_PASSES:         # T: no candidate passes
        lines.append(f"{pad}    if not {kept}: {kept} = [*{vals}]")
    elif tail is not None:
        lines.append(f"{pad}    if len({kept}) < len({vals}) and {ctx.test(tail)}: "
                     f"{kept} = [*{vals}]")
    return lines + [f"{pad}{vals} = {kept}"]


def _split_lines(info, epochs, ctx, vals, pad) -> list:
    """`_kept_lines` for a require split in two (`trailing_split`): the candidates that
    pass its first part, or all of them from the first that fails it where its tail is
    true there."""
    n = len(info.enum_params)
    _, slot, _ = info.enum_params[-1]
    rest, tail = info.split
    lines = []
    kept, v, it = ctx.tmp(), ctx.tmp(), ctx.tmp()
    if epochs is not None:
        lines.append(f"{pad}{ctx.k(epochs)}[{n - 1:d}] += 1")
    ctx.loops[n - 1] = temps = []
    inner = pad + "    "
    loop = [f"{pad}{it} = {ctx.k(iter)}({vals})",
            f"{pad}for {v} in {it}:", *ctx.bind("frame", slot, v, inner),
            f"{inner}if {ctx.test(rest)}: {kept}.append({v})",
            f"{inner}elif {ctx.test(tail)}:",
            f"{inner}    {kept}.append({v})",
            f"{inner}    {kept} += {it}",
            f"{inner}    break"]
    return [*lines, f"{pad}{kept} = []", *_unset(ctx, temps, pad), *loop, f"{pad}{vals} = {kept}"]


def _kept_lines(info, epochs, ctx, vals, pad, test) -> list:
    """`_filter_lines`' pass over the candidates `vals` keeping those that pass `test`
    (all, if None), one card of each kind where the action merges twins."""
    n = len(info.enum_params)
    _, slot, _ = info.enum_params[-1]
    lines = []
    kept, v = ctx.tmp(), ctx.tmp()
    if epochs is not None and test is not None:
        lines.append(f"{pad}{ctx.k(epochs)}[{n - 1:d}] += 1")
    ctx.loops[n - 1] = temps = []
    loop = [f"{pad}for {v} in {vals}:", *ctx.bind("frame", slot, v, pad + "    ")]
    inner = pad + "    "
    tested = ctx.test(test) if test is not None else None
    if test is not None:
        loop.append(f"{inner}if {tested}:")
        inner += "    "
    if info.merged and getattr(info.enum_params[-1][2], "kind_sorted", False):
        # a set zone's cards (or some of them, in order) come by kind, each kind's twins
        # side by side (`card_order`): the first of each run of a kind is its first; a
        # kind differs from the last kept one's (none kept yet: -1, no kind's number)
        k = ctx.tmp()
        lines.append(f"{pad}{k} = -1")
        start, end = f"{kept} = []", f"{vals} = {kept}"
        new = f"{k} != ({k} := {v}.kind)"
        if test is not None:    # one line: the test, then the kind (a kept card's)
            loop[-1] = f"{pad}    if {tested} and {new}: {kept}.append({v})"
        else:
            loop.append(f"{inner}if {new}: {kept}.append({v})")
        return [*lines, f"{pad}{start}", *_unset(ctx, temps, pad), *loop, f"{pad}{end}"]
    if info.merged:            # the first card of each kind that passes, in order:
        # a dict keeps each kind's first card (one call per card, as `_one_per_kind`)
        keep = f"{kept}.setdefault({v}.kind, {v})"
        start, end = f"{kept} = {{}}", f"{vals} = [*{kept}.values()]"
    else:
        keep = f"{kept}.append({v})"
        start, end = f"{kept} = []", f"{vals} = {kept}"
    if test is not None:
        loop[-1] += f" {keep}"
    else:
        loop.append(f"{inner}{keep}")
    return [*lines, f"{pad}{start}", *_unset(ctx, temps, pad), *loop, f"{pad}{end}"]


#: the longest constant domain `_without_each` tabulates (its table holds n * n values)
WITHOUT_MAX = 64


def _without_each(domain):
    """For a constant domain of distinct values: each value -> the domain without it (a
    tuple, as the domain is; an empty table for an empty domain), so that leaving a value
    out is one look-up, not a copy and three scans; None for any other domain."""
    c = _folded(domain)
    if c is None or not isinstance(c[0], tuple) or len(c[0]) > WITHOUT_MAX:
        return None
    values = c[0]
    try:
        if len(set(values)) != len(values):   # equal values: each would have to go
            return None
    except TypeError:                          # an unhashable value
        return None
    return {v: values[:i] + values[i + 1:] for i, v in enumerate(values)}


def _unset(ctx, temps, pad) -> list:
    """The line starting a loop's remembered parts unset (none if it has none)."""
    return [f"{pad}{' = '.join(temps)} = {ctx.k(UNSET)}"] if temps else []


def generated_plain(site):
    """Returns `moves(st, seat)` for a site whose actions have no parameters: the plain
    moves whose requires hold for `seat`, in site order, as `State._random_plain` lists
    them, as one function; or None when generated code is off.  `_random_plain` clears the
    `me` slots if a require raises."""
    if not _fuse.ENABLED:
        return None
    ctx = Ctx()
    out = ctx.tmp()
    lines = [f"{out} = []"]
    for info, _ in site.actions:
        test = info.tests[0]
        if test is None:
            lines.append(f"{out}.append({ctx.k(info.plain)})")
            continue
        lines += [f"st.frame[{info.me_slot:d}] = seat",
                  f"if {ctx.test(test)}: {out}.append({ctx.k(info.plain)})",
                  f"st.frame[{info.me_slot:d}] = None"]
    lines.append(f"return {out}")
    return build(ctx, "\n        ".join(lines), "st, seat")


def generated_pick(site, twins, epochs):
    """Returns `pick(st, seat, rng, bits)` for a site some of whose actions have
    parameters: `State._random_pick` with its loop over the actions unrolled, giving the
    same move for the same draw (a Move for an action without parameters, else (action,
    arguments)), or None when no move is legal; `bits` says the draw is `_bits_below`'s.
    Where cards have twins, `twins(st, seat, info, chunks)` merges them in an action's
    chunks; `epochs` is the program's list of loop epochs (for an action whose list
    remembers loop-invariant parts).  None (no function) when generated code is off or
    when an action lists its moves without generated chunks.  `State._clear_slots`
    empties the `me` and parameter slots if a part raises."""
    if not _fuse.ENABLED:
        return None
    actions = [info for info, _ in site.actions if not info.never]
    if any(info.plain is None and info.chunks is None for info in actions):
        return None
    info = _lone_action(actions, twins)
    if info is not None:
        return build(*holding(lambda ctx: _lone_pick_lines(
            info, epochs if info.hoisted else None, ctx)), "st, seat, rng, bits")

    def returned(ctx, info, kind, expr):
        if kind == "plain":
            return [f"return {ctx.k(info.plain)}"]
        return [f"return {expr}" if kind == "move" else f"return {ctx.k(info)}, {expr}"]
    ctx = Ctx()
    return build(ctx, "\n        ".join(_site_pick_lines(ctx, actions, twins, returned)),
                 "st, seat, rng, bits")


def _site_pick_lines(ctx, actions, twins, finish) -> list:
    """A pick's lines over several actions: each action's moves counted (its generated
    chunks, twins merged where needed), one drawn, and `finish(ctx, info, kind, expr)`'s
    lines for it: kind "plain" (the action's one move), "move" (`expr` is a Move) or
    "args" (`expr` is the arguments)."""
    total, i, k = ctx.tmp(), ctx.tmp(), ctx.tmp()
    count = [f"{total} = 0"]
    pick = []
    for info in actions:
        found = ctx.tmp()
        if info.plain is not None:
            chosen = [f"if {i} == 0:", *_indented(finish(ctx, info, "plain", None), "    "),
                      f"{i} -= 1"]
            test = info.tests[0]
            if test is None:             # always legal
                count.append(f"{total} += 1")
                pick += chosen
                continue
            count += [f"st.frame[{info.me_slot:d}] = seat",
                      f"{found} = 1 if {ctx.test(test)} else 0",
                      f"st.frame[{info.me_slot:d}] = None",
                      f"{total} += {found}"]
            pick += [f"if {found}:", *_indented(chosen, "    ")]
            continue
        chunk, values = ctx.tmp(), ctx.tmp()
        count += [f"st.frame[{info.me_slot:d}] = seat",
                  f"{found} = {ctx.k(info.chunks)}(st)",
                  f"st.frame[{info.me_slot:d}] = None",
                  *(f"st.frame[{slot:d}] = None" for slot in info.slots)]
        if twins is not None and not info.merged and info.card_args is not False:
            count.append(f"if {found}: {found} = {ctx.k(twins)}(st, seat, {ctx.k(info)}, "
                         f"{found})")
        count.append(f"for {chunk} in {found}: {total} += len({chunk}[2])")
        pick += [f"for {chunk} in {found}:",
                 f"    {values} = {chunk}[2]",
                 f"    if {i} < len({values}):",
                 f"        if {chunk}[1] is None:",
                 *_indented(finish(ctx, info, "move", f"{values}[{i}]"), "            "),
                 *_indented(finish(ctx, info, "args", f"{chunk}[1] + ({values}[{i}],)"),
                            "        "),
                 f"    {i} -= len({values})"]
    return [*count, f"if not {total}: return None", *_draw_lines(total, i, k), *pick,
            "return None"]


def _indented(lines, pad) -> list:
    return [pad + line for line in lines]


def _lone_action(actions, twins):
    """The one action of a site's `actions` (those not ruled out), if it has one or two
    parameters, a generated list, and needs no twins merged after it; else None."""
    if len(actions) == 1 and 1 <= len(actions[0].params) <= 2 \
            and actions[0].chunks is not None \
            and (twins is None or actions[0].merged or actions[0].card_args is False):
        return actions[0]
    return None


def _draw_lines(total, i, k) -> list:
    """A pick's draw of `i` below `total` (at least 1): `_bits_below`'s lines where
    `bits`, else `randrange`."""
    return ["if bits:",
            f"    {k} = {total}.bit_length()",
            f"    {i} = rng.getrandbits({k})",
            f"    while {i} >= {total}: {i} = rng.getrandbits({k})",
            f"else: {i} = rng.randrange({total})"]


def _lone_list(info, epochs, ctx, held=False):
    """The lines listing the values of a lone action's one parameter (`_lone_action`)
    that its requires allow, with `me` bound, into `vals`, and their number into
    `total`; returns (lines, vals, total)."""
    vals, total = ctx.tmp(), ctx.tmp()
    bind = _me_bound(info, ctx, held)
    test = info.tests[0]
    head = f"if {ctx.test(test)}:" if test is not None else None
    _, slot, domain = info.enum_params[0]
    wrap = memo_lines(ctx, info.memo, info.memo_inputs) if info.memo is not None else None
    ctx.loops = {}          # the loop's invariant parts, remembered in temporaries
    live = getattr(domain, "live", None)
    if wrap is None and live is not None and getattr(domain, "kind_sorted", False):
        # a set zone's own list (in card order, as its tuple): only counted and read at
        # the draw, before anything moves, and kept nowhere (no memo), so not copied (a
        # filter makes a new list from it anyway)
        first = live(ctx)
    else:
        first = _candidates(ctx, info, domain)
    body = [f"{vals} = {first}", *_filter_lines(info, epochs, ctx, vals, "")]
    ctx.loops = None
    if head is not None:
        body = [head, *("    " + line for line in body), f"else: {vals} = ()"]
    body.append(f"{total} = len({vals})")
    if wrap is not None:
        body = wrap(body, (vals, total))
    return [*bind, *body], vals, total


def _me_bound(info, ctx, held) -> list:
    """The line binding `me` to `seat` for a listing; none where `held` and the
    rendering holds locals (`holding`): `me` is read as `seat` then, and written to its
    slot only before a call (`Ctx.call`)."""
    if held and ctx.hold:
        ctx.hold_in("frame", info.me_slot, "seat")
        return []
    return [f"st.frame[{info.me_slot:d}] = seat"]


def _me_cleared(info, ctx) -> list:
    """`_cleared`'s lines after a listing bound by `_me_bound`: where `me` is held, the
    slots were written only if a cold call ran (it writes every held local, `me` first,
    and the slots are empty as a pick starts), so they are emptied only then."""
    if ctx.held.get(("frame", info.me_slot), (None,))[0] != "seat":
        return _cleared(info)
    return [f"if st.frame[{info.me_slot:d}] is not None:",
            *_indented(_cleared(info), "    ")]


def _lone_pairs(info, epochs, ctx, held=False):
    """`_lone_list` for an action of two parameters: the lines listing, with `me` bound,
    each leading value and the last values the requires allow with it, as pairs in
    `found`, and how many moves in `total`; returns (lines, found, total, ranged).  Where
    the last values are a range nothing filters (`ranged`), a pair is (leading value,
    start, count), with no range made; read them with `_pair_walk`.  Where the requires
    without parameters fail, the lines clear `me` and return None."""
    found, total = ctx.tmp(), ctx.tmp()
    ends = []

    def keep(vals, prefix, pad):
        v0, = prefix
        if ends:                # a range's start and length kept, where it is not empty
            lo, n = ends
            return [f"{pad}if {n} > 0:", f"{pad}    {found}.append(({v0}, {lo}, {n}))",
                    f"{pad}    {total} += {n}"]
        return [f"{pad}if {vals}:", f"{pad}    {found}.append(({v0}, {vals}))",
                f"{pad}    {total} += len({vals})"]
    bind = _me_bound(info, ctx, held)
    stop = [f"st.frame[{info.me_slot:d}] = None", "return None"] if bind else [
        f"if st.frame[{info.me_slot:d}] is not None: st.frame[{info.me_slot:d}] = None",
        "return None"]
    wrap = memo_lines(ctx, info.memo, info.memo_inputs) if info.memo is not None else None
    body = [f"{found} = []", f"{total} = 0", *_listing_lines(info, epochs, ctx, keep, stop,
                                                             ends)]
    flat = None
    if wrap is not None:        # kept with the pairs: every move's arguments in order
        flat = ctx.tmp()
        body = wrap([*body, *_flat_lines(ctx, found, total, flat, bool(ends))],
                    (found, total, flat))
    return ([*bind, *body], found, total, bool(ends), flat)


#: the most moves of a kept list (`_lone_pairs`) also kept as one list of arguments
FLAT_MOST = 64


def _flat_lines(ctx, found, total, flat, ranged) -> list:
    """The lines making `flat`, the arguments of each of the `total` moves the pairs in
    `found` give, in the order `_pair_walk` goes through them (so the i-th is the move a
    draw of i picks, found without a walk), where there are at most `FLAT_MOST`; else
    None.  Made where the pairs are kept, for every look-up that finds them."""
    v0, a, b = ctx.tmp(), ctx.tmp(), ctx.tmp()
    if ranged:
        inner = [f"    for {v0}, {a}, {b} in {found}:",
                 f"        for {b} in {ctx.k(range)}({a}, {a} + {b}): "
                 f"{flat}.append(({v0}, {b}))"]
    else:
        inner = [f"    for {v0}, {a} in {found}:",
                 f"        for {b} in {a}: {flat}.append(({v0}, {b}))"]
    return [f"if {total} <= {FLAT_MOST:d}:", f"    {flat} = []", *inner,
            f"else: {flat} = None"]


def _pair_pick(ctx, found, ranged, flat, i, v0, v, args) -> list:
    """The lines finding the arguments of the `i`-th move of `_lone_pairs`' list: the
    leading value in `v0`, the last in `v` and both as a tuple in `args`; from the kept
    `flat` list where there is one, else by `_pair_walk`."""
    head, w0, count, w = _pair_walk(ctx, found, ranged, i)
    walk_ = [head,
             f"    if {i} < {count}:",
             f"        {v0} = {w0}",
             f"        {v} = {w}",
             "        break",
             f"    {i} -= {count}",
             "else: return None",
             f"{args} = ({v0}, {v})"]
    if flat is None:
        return walk_
    return [f"if {flat} is not None:",
            f"    {args} = {flat}[{i}]",
            f"    {v0}, {v} = {args}",
            "else:", *_indented(walk_, "    ")]


def _pair_walk(ctx, found, ranged, i):
    """The head of a loop over `_lone_pairs`' pairs, with the texts of a pair's count
    and of its `i`-th last value (a range's start plus i, as the range would give)."""
    v0, a, b = ctx.tmp(), ctx.tmp(), ctx.tmp()
    if ranged:
        return f"for {v0}, {a}, {b} in {found}:", v0, b, f"{a} + {i}"
    return f"for {v0}, {a} in {found}:", v0, f"len({a})", f"{a}[{i}]"


def _cleared(info) -> list:
    """The lines emptying an action's `me` and parameter slots."""
    return [f"st.frame[{slot:d}] = None" for slot in (info.me_slot, *info.slots)]


def _lone_pick_lines(info, epochs, ctx) -> list:
    """The pick of a site with one action, of one or two parameters, whose list needs no
    twins merged after it: the action's generated list inline, no chunk made, one move
    drawn from it (the same move for the same draw as the general pick)."""
    i, k = ctx.tmp(), ctx.tmp()
    if len(info.params) == 1:
        lines, vals, total = _lone_list(info, epochs, ctx, held=True)
        return [*lines, *_me_cleared(info, ctx), f"if not {total}: return None",
                *_draw_lines(total, i, k), f"return {ctx.k(info)}, ({vals}[{i}],)"]
    lines, found, total, ranged, flat = _lone_pairs(info, epochs, ctx, held=True)
    if flat is not None:
        return [*lines, *_me_cleared(info, ctx), f"if not {total}: return None",
                *_draw_lines(total, i, k),
                f"if {flat} is not None: return {ctx.k(info)}, {flat}[{i}]",
                *_pair_returned(ctx, info, found, ranged, i)]
    return [*lines, *_me_cleared(info, ctx), f"if not {total}: return None",
            *_draw_lines(total, i, k), *_pair_returned(ctx, info, found, ranged, i)]


def _pair_returned(ctx, info, found, ranged, i) -> list:
    """A pick's walk to the `i`-th move of `_lone_pairs`' list, returning it."""
    head, v0, count, v = _pair_walk(ctx, found, ranged, i)
    return [head,
            f"    if {i} < {count}: return {ctx.k(info)}, ({v0}, {v})",
            f"    {i} -= {count}",
            "return None"]


def generated_step(site, twins, epochs, budget, code=None):
    """Returns `step(st, seat, rng, bits)` for a decision site: `State.random_run`'s
    decision where no observations are kept, as one function.  It draws the move as the
    site's pick does (as `_random_plain` or the fixed moves' draw where no action has
    parameters), records it in the history (its text as `move_text` makes it), binds
    `me` and the parameters, clears the node and sets the step budget to `budget`, and
    returns the action's entry pc, where the rules go on from (given the program's
    unfused `code`, it runs the rules' run from there first, `_fuse.run_lines`, and
    returns the pc that ends at); or None, with the slots cleared, when there is no
    legal move.  None (no function) where an action has no generated list, the site is
    simultaneous or generated code is off."""
    if not _fuse.ENABLED or any(entry is None for _, entry in site.actions):
        return None
    entries = {info: entry for info, entry in site.actions}
    actions = [info for info, _ in site.actions if not info.never]
    if any(info.plain is None and info.chunks is None for info in actions):
        return None
    lone = _lone_action(actions, twins)
    if lone is not None:
        epochs = epochs if lone.hoisted else None
        entry = entries[lone]

        def lines(ctx):
            i, k = ctx.tmp(), ctx.tmp()
            if len(lone.params) == 1:
                listed, vals, total = _lone_list(lone, epochs, ctx)
                v = ctx.tmp()
                return [*listed,
                        f"if not {total}:", *_indented(_cleared(lone), "    "),
                        "    return None",
                        *_draw_lines(total, i, k),
                        f"{v} = {vals}[{i}]",
                        *_record_lines(ctx, lone, entry, budget, f"({v},)", [v],
                                       bound=True, code=code)]
            listed, found, total, ranged, flat = _lone_pairs(lone, epochs, ctx)
            if flat is not None:
                v0, v, args = ctx.tmp(), ctx.tmp(), ctx.tmp()
                return [*listed,
                        f"if not {total}:", *_indented(_cleared(lone), "    "),
                        "    return None",
                        *_draw_lines(total, i, k),
                        *_pair_pick(ctx, found, ranged, flat, i, v0, v, args),
                        *_record_lines(ctx, lone, entry, budget, args, [v0, v],
                                       bound=True, code=code)]
            head, v0, count, v = _pair_walk(ctx, found, ranged, i)
            if ranged:              # the value once, as the range would give it
                picked = ctx.tmp()
                got, v = [f"        {picked} = {v}"], picked
            else:
                got = []
            return [*listed,
                    f"if not {total}:", *_indented(_cleared(lone), "    "),
                    "    return None",
                    *_draw_lines(total, i, k),
                    head,
                    f"    if {i} < {count}:", *got,
                    *_indented(_record_lines(ctx, lone, entry, budget, f"({v0}, {v})",
                                             [v0, v], bound=True, code=code), "        "),
                    f"    {i} -= {count}",
                    "return None"]
        return build(*holding(lines), "st, seat, rng, bits")

    share = len(actions)

    def recorded(ctx, info, kind, expr):
        entry = entries[info]
        if kind == "plain":
            return _record_lines(ctx, info, entry, budget, "()", [],
                                 text=ctx.k(info.plain.text), code=code, share=share)
        move = ctx.tmp()
        if kind == "move":
            return [f"{move} = {expr}",
                    *_record_lines(ctx, info, entry, budget, f"{move}.args", None,
                                   text=f"{move}.text", code=code, share=share)]
        return [f"{move} = {expr}", *_record_lines(ctx, info, entry, budget, move, None,
                                                   code=code, share=share)]
    ctx = Ctx()
    return build(ctx, "\n        ".join(_site_pick_lines(ctx, actions, twins, recorded)),
                 "st, seat, rng, bits")


def generated_joint(site, twins, pick, commit, budget, code=None):
    """Returns `joint(st, rng, bits)` for a simultaneous site with one action (those
    ruled out aside) that is a lone action (`_lone_action`), or has three parameters or
    more and no twins to merge (its generated `pick` draws (action, arguments), never a
    Move, either way), where no seat has committed yet and no
    observations are kept: `State.random_joint_step`'s draws and `_resolve_drawn` as one
    function.  Each seat in turn draws with `pick`; the moves are recorded in that
    order, then take effect in seat order (`me` and the parameters bound, the action's
    block's first run called inline, the slots cleared), the budget set to `budget`
    before and after; then the rules' run from the next pc, given the program's unfused
    `code` (`_fuse.run_lines`); the pc it ends at is returned (-1 if a block ended the
    game).  If a seat has no legal move, or a pick raises, `commit(st, info, drawn)`
    commits the seats drawn before and None is returned (or the error raised).  None (no
    function) for any other site."""
    if not _fuse.ENABLED or any(e is not None for _, e in site.actions):
        return None
    actions = [i for i, _ in site.actions if not i.never]
    info = _lone_action(actions, twins)
    if info is None and len(actions) == 1 and len(actions[0].params) > 2 \
            and actions[0].chunks is not None \
            and (twins is None or actions[0].card_args is False):
        info = actions[0]       # its pick draws from its chunks, each with its prefix
    if info is None:
        return _several_joint(actions, site, twins, commit, budget, code)
    if pick is None:
        return None
    ctx = Ctx()
    drawn, m, a = ctx.tmp(), ctx.tmp(), ctx.tmp()
    number, ended = ctx.tmp(), ctx.tmp()
    kept = ctx.k({})
    committed = f"{ctx.k(commit)}(st, {ctx.k(info)}, {drawn})"
    each = f"for {number}, seat, {a} in {drawn}:"
    lines = [*_joint_draw_lines(ctx, pick, committed, drawn, m, [f"{a} = {m}[1]"], a,
                                number, kept, ctx.k(info), a),
             *_joint_record_lines(drawn, budget, site.seat_ordered),
             *_untaken_lines(ctx, site, each, ctx.k(info), a),
             *_ended_lines(_move_block_lines(ctx, info, a, ended, "    "), ended, "    "),
             *_joint_end_lines(ctx, site, budget, code)]
    return build(ctx, "\n        ".join(lines), "st, rng, bits")


def _several_joint(actions, site, twins, commit, budget, code):
    """`generated_joint` for a site of several actions (or of actions without
    parameters, as rock, paper and scissors): each seat's move drawn as the site's pick
    draws it (`_site_pick_lines`), as (action, arguments); each move's block run in
    seat order under its action's slots.  None where an action lists its moves without
    generated chunks, or the site has no action left."""
    if not actions or any(i.plain is None and i.chunks is None for i in actions):
        return None

    def drawn_as(ctx, info, kind, expr):
        if kind == "plain":
            return [f"return {ctx.k(info)}, ()"]
        if kind == "move":                    # a Move, where twins were merged
            move = ctx.tmp()
            return [f"{move} = {expr}", f"return {move}.action, {move}.args"]
        return [f"return {ctx.k(info)}, {expr}"]
    dctx = Ctx()
    draw = build(dctx, "\n        ".join(_site_pick_lines(dctx, actions, twins, drawn_as)),
                 "st, seat, rng, bits")
    ctx = Ctx()
    drawn, m, number, which, a, ended = (ctx.tmp() for _ in range(6))
    committed = f"{ctx.k(commit)}(st, None, {drawn})"
    kept = {info: {} for info in actions}       # each action's history lines kept
    each = f"for {number}, seat, {which}, {a} in {drawn}:"
    lines = [*_joint_draw_lines(ctx, draw, committed, drawn, m, [f"{which}, {a} = {m}"],
                                f"{which}, {a}", number, f"{ctx.k(kept)}[{which}]",
                                which, a),
             *_joint_record_lines(drawn, budget, site.seat_ordered)]
    moves = []
    for j, info in enumerate(actions):
        moves += [f"    {'if' if j == 0 else 'elif'} {which} is {ctx.k(info)}:",
                  *_move_block_lines(ctx, info, a, ended, "        ", len(actions))]
    ending = _ended_lines(moves, ended, "    ")
    if len(ending) > len(moves):    # a block written in place (or empty) sets no `ended`
        lines.append(f"{ended} = False")
    lines += [*_untaken_lines(ctx, site, each, which, a), *ending,
              *_joint_end_lines(ctx, site, budget, code)]
    return build(ctx, "\n        ".join(lines), "st, rng, bits")


def _untaken_lines(ctx, site, each, info, args) -> list:
    """A joint step's loop over the moves as they take effect (`each`), each move's card
    arguments taken by a seat before it swapped for twins still where they lay
    (`State._untaken`), at a site whose actions may name cards."""
    if not site.takes_cards:
        return [each]
    where = ctx.tmp()
    return [f"{where} = {ctx.k(list)}(st.loc)", each,
            f"    {args} = st._untaken(seat, {info}, {args}, {where})"]


def _joint_record_lines(drawn, budget, ordered=False) -> list:
    """A joint step's moves (recorded as drawn) put in seat order and the budget set,
    from which the blocks' loops count.  Where the site's seats always come in seat
    order (`ordered`), they were drawn in it: no sort."""
    return [*([] if ordered else   # seat order: seat numbers differ
              [f"if len({drawn}) > 1: {drawn}.sort()"]),
            f"st.budget = {budget:d}"]


def _move_block_lines(ctx, info, args, ended, pad, share: int = 1) -> list:
    """A move of `info` (its arguments in `args`, its seat in `seat`) taking effect:
    `me` and the parameters bound, the action's block run (`ended` set), the slots
    cleared."""
    return [f"{pad}st.frame[{info.me_slot:d}] = seat",
            *(f"{pad}st.frame[{slot:d}] = {args}[{j:d}]"
              for j, slot in enumerate(info.slots)),
            *_block_lines(ctx, info.block, ended, pad, share),
            *(f"{pad}st.frame[{slot:d}] = None" for slot in (info.me_slot, *info.slots))]


def _joint_end_lines(ctx, site, budget, code) -> list:
    """A joint step's end: the budget set again, and the rules' run from the site's next
    pc (given the program's unfused `code`), or that pc returned."""
    return [f"st.budget = {budget:d}", f"st.pc = {site.next_pc:d}",
            *(_fuse.run_lines(code, site.next_pc, ctx) if code is not None
              else [f"return {site.next_pc:d}"])]


def _joint_draw_lines(ctx, pick, committed, drawn, m, unpack, kept, number, lines,
                      info, args) -> list:
    """A joint step's draws: each deciding seat's move drawn by `pick` into `m`
    (`unpack` names its parts), its history line made at once (`_kept_line`, kept in
    the dict `lines` by the move's arguments `args` and the seat's number, for the
    move's action `info`), and the move kept in `drawn` as (seat number, seat, `kept`);
    where a seat has no legal move, or a draw raises, the `committed` line commits the
    seats drawn before (and None is returned, or the error raised), the history as it
    was (an error's trace is the history's).  After the last draw the node is cleared
    and the lines join the history in the order drawn."""
    line, recorded = ctx.tmp(), ctx.tmp()
    made = f"{ctx.k(_kept_line)}({info}, {args}, {args}, seat, {ctx.k('simultaneous')}, {lines})"
    # the lines join the history after the last draw: an error a later seat's draw
    # raises names the history (its trace) as it was before the step
    return [f"{drawn} = []", f"{recorded} = []",
            "for seat in st.node[2]:",
            f"    try: {m} = {ctx.k(pick)}(st, seat, rng, bits)",
            f"    except {ctx.k(BaseException)}:",
            f"        {committed}",
            "        raise",
            f"    if {m} is None:",
            f"        {committed}",
            "        return None",
            *("    " + text for text in unpack),
            f"    {number} = seat.index",
            f"    try: {line} = {lines}[{args}][{number}] or {made}",
            f"    except {ctx.k(_MISSED)}: {line} = {made}",
            f"    {recorded}.append({line})",
            f"    {drawn}.append(({number}, seat, {kept}))",
            "st.node = None",
            f"st.lines += {recorded}"]


def _ended_lines(lines, ended, pad) -> list:
    """A joint step's moves (`lines`), then its return where a block set `ended` (the
    game over); none where every block was written in place (`_block_lines`)."""
    if any(line.lstrip().startswith(f"{ended} = ") for line in lines):
        return [*lines, f"{pad}if {ended}: return -1"]
    return lines


def _block_lines(ctx, block, ended, pad, share: int = 1) -> list:
    """`{ended} = st.exec_block(block)` with the block's first run called inline: the
    rest of the block (`exec_block` from where that run ends) only where it does not
    end at the block's end.  A block that runs straight to its end (`straight_lines`:
    no branch, return or pause, so it cannot end the game) is written in place, no
    call and no `ended`."""
    if not block:
        return []
    straight = _fuse.straight_lines(block, ctx, share)
    if straight is not None:    # written in place: no call, and it cannot end the game
        return [pad + line for line in straight]
    return [f"{pad}{ended} = {ctx.k(_fuse.ready(block, 0))}(st)",
            f"{pad}{ended} = {ended} != {len(block):d} and "
            f"st.exec_block({ctx.k(block)}, {ended})"]


def _record_lines(ctx, info, entry, budget, args, values, text=None, bound=False,
                  code=None, share=1) -> list:
    """The lines a step ends with: the move (`info`, `args`) of `seat` recorded in the
    history with its text (`move_text`'s, unless `text` is given), `me` (unless `bound`
    already) and the parameters bound (to `values`, the arguments' own expressions, where
    given), the node cleared, the budget set, and the entry pc returned; or, given the
    program's unfused `code`, the run of the rules from the entry (`_fuse.run_lines`,
    its limits divided by `share`), returning the pc that run ends at."""
    lines = []
    if text is None and values is not None and len(values) == 1 and args == f"({values[0]},)":
        # one value: the history line itself kept by value and seat (`_kept_line`), not
        # a text looked up by a tuple made for it and a line made around it
        e, v, kept = ctx.tmp(), values[0], ctx.k({})
        made = f"{ctx.k(_kept_line)}({ctx.k(info)}, ({v},), {v}, seat, None, {kept})"
        lines += [f"try: {e} = {kept}[{v}][seat.index] or {made}",
                  f"except {ctx.k(_MISSED)}: {e} = {made}"]
        lines.append(f"st.lines.append({e})")
    else:
        if text is None:
            text = ctx.tmp()
            made = f"{ctx.k(move_text)}({ctx.k(info)}, {args})"
            lines += [f"try: {text} = {ctx.k(info.texts)}.get({args}) or {made}",
                      f"except {ctx.k(TypeError)}: {text} = {made}"]   # an unhashable value
        lines.append(f"st.lines.append((seat.index, {text}, None))")
    if not bound:
        lines.append(f"st.frame[{info.me_slot:d}] = seat")
    if values is None:
        values = [f"{args}[{j:d}]" for j in range(len(info.slots))]
    lines += [f"st.frame[{slot:d}] = {value}" for slot, value in zip(info.slots, values)]
    lines += ["st.node = None", f"st.budget = {budget:d}", f"st.pc = {entry:d}"]
    if code is None:
        return [*lines, f"return {entry:d}"]
    return [*lines, *_fuse.run_lines(code, entry, ctx, share)]


#: what a kept history line's look-up may meet: a value or seat not kept yet, an
#: unhashable value
_MISSED = (KeyError, IndexError, TypeError)


def _kept_line(info, args, key, seat, kind, kept) -> tuple:
    """The history line (seat number, text, `kind`) of `seat`'s move (info, args); kept
    in `kept` (`key` -> a line by seat index) where the action keeps the move's text for
    good (`move_text`), so that equal arguments find the same text the action's own
    table gives."""
    text = move_text(info, args)
    line = (seat.index, text, kind)
    if kept is not None:
        try:
            if info.texts.get(args) is text:
                row = kept.setdefault(key, [])
                row += [None] * (seat.index + 1 - len(row))
                row[seat.index] = line
        except TypeError:                 # an unhashable argument: made each time
            pass
    return line


def _never_a_card(node, domain) -> bool:
    """Whether a parameter's candidates are never cards, known before play: a range, or
    a constant list of no card (an enum, the seats), so no twins need merging."""
    if isinstance(node, A.Range):
        return True
    c = _folded(domain)
    return c is not None and isinstance(c[0], (tuple, list)) and not any(
        isinstance(v, Card) for v in c[0])
