"""Integer action indices for move texts, fixed before any game is played.

OpenSpiel and gymnasium both want a game's actions numbered 0..N-1 up front.  A gdl move is
an action name plus one value per parameter, so the table lists every action of the
ruleset (sorted by name) and, for each parameter, every value of its type:

- a card: each distinct card text (twins share a text, as they share a move);
- a player, an enum, `bool`, a zone family: their members, seats or zones in order;
- an `int`: the whole numbers between bounds found by interval arithmetic on the
  parameter's domain (`1..count(deck[me]) - 1` gives 1..cards-1, since `count` of
  cards is at most the number of cards in the game; options count at their values).

An action's indices are a block of the product of its parameters' universes (mixed radix,
first parameter most significant), and the blocks follow each other in name order, so an
index depends only on the ruleset and its options.  Most indices are never legal; the
legal ones at a state are its legal moves' indices.
"""
from __future__ import annotations

from math import factorial
from operator import itemgetter
from typing import Dict, List, Optional, Tuple

from gdl import ast as A
from gdl.errors import GdlError

from ..values import text_of

Interval = Optional[Tuple[int, int]]


class IntegrationError(GdlError):
    """A ruleset that an adapter cannot map onto the outside API (with the reason)."""
    kind = "integration error"


def checker_types(ruleset):
    """Returns the checker's type pass and name resolution for a checked ruleset.

    CheckedInfo does not record parameter types, so this reruns the name and type passes
    (cheap) to read the type of each action parameter and `random` variable."""
    from gdl.checker._names import resolve
    from gdl.checker._report import Report
    from gdl.checker._scope import build_scope
    from gdl.checker._typedecls import TypePass
    report = Report(ruleset)
    scope = build_scope(ruleset, report)
    res = resolve(ruleset, scope, report)
    types = TypePass(scope, res, report)
    types.run(ruleset)
    return types, res


def walk(node):
    """Yields every AST node below `node`."""
    if isinstance(node, tuple):
        for x in node:
            yield from walk(x)
    elif hasattr(node, "__attrs_attrs__"):
        yield node
        for f in node.__attrs_attrs__:
            yield from walk(getattr(node, f.name))


class Bounds:
    """Interval arithmetic over gdl expressions: the least and greatest whole number an
    expression (or the members of a collection) can take in any state, or None."""

    def __init__(self, game, types):
        self.game, self.types = game, types
        self.prog = game.prog
        decls = game.ruleset.decls
        self.defs = {d.name: d for d in decls if isinstance(d, A.DefDecl)}
        self.vars = {d.name: d for d in decls if isinstance(d, A.VarDecl)}
        self.depth = 0

    def scalar(self, node, env: Dict[str, Tuple[int, int]]) -> Interval:
        """Returns (lo, hi) bounding an integer expression, or None."""
        handler = getattr(self, "_s_" + type(node).__name__, None)
        return handler(node, env) if handler is not None else None

    def elems(self, node, env) -> Interval:
        """Returns (lo, hi) bounding the members of an integer collection, or None."""
        if isinstance(node, A.Range):
            lo, hi = self.scalar(node.lo, env), self.scalar(node.hi, env)
            return (lo[0], hi[1]) if lo and hi else None
        if isinstance(node, (A.ListLit, A.SetLit)):
            return _union(*(self.scalar(x, env) for x in node.items)) if node.items else None
        if isinstance(node, A.ListComp):
            inner = dict(env)
            for f in node.fors:
                got = self.elems(f.iter, inner)
                if got is not None:
                    inner[f.var] = got
            return self.scalar(node.item, inner)
        if isinstance(node, A.Cond):
            return _union(self.elems(node.then, env), self.elems(node.else_, env))
        if isinstance(node, A.Call) and node.func in self.defs:
            return self._inline(node, env, self.elems)
        return None

    def _s_IntLit(self, node, env):
        return (node.value, node.value)

    def _s_Name(self, node, env):
        if node.id in env:
            return env[node.id]
        value = self.game.options.get(node.id)
        if isinstance(value, int) and not isinstance(value, bool):
            return (value, value)
        if node.id == "num_players":
            return (len(self.prog.seats),) * 2
        decl = self.vars.get(node.id)
        if decl is not None and isinstance(decl.type, A.RangeType) and not decl.indices:
            return self.elems(A.Range(decl.type.lo, decl.type.hi), {})
        return None

    def _s_Neg(self, node, env):
        x = self.scalar(node.operand, env)
        return (-x[1], -x[0]) if x else None

    def _s_BinOp(self, node, env):
        a, b = self.scalar(node.left, env), self.scalar(node.right, env)
        if a is None or b is None:
            return None
        if node.op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if node.op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if node.op == "*":
            ends = [x * y for x in a for y in b]
            return (min(ends), max(ends))
        if node.op == "%" and b[0] > 0:
            return (0, b[1] - 1) if a[0] >= 0 else (-(b[1] - 1), b[1] - 1)
        if node.op == "/" and b[0] > 0:
            ends = [x // y for x in a for y in b]
            return (min(ends), max(ends))
        return None

    def _s_Cond(self, node, env):
        return _union(self.scalar(node.then, env), self.scalar(node.else_, env))

    def _s_Call(self, node, env):
        args = node.args
        if node.func == "count" and len(args) == 1:
            return self._count(args[0])
        if node.func in ("min", "max") and args:
            parts = [self.scalar(a, env) for a in args]
            if any(p is None for p in parts):
                return None
            pick = min if node.func == "min" else max
            return (pick(p[0] for p in parts), pick(p[1] for p in parts))
        if node.func == "abs" and len(args) == 1:
            x = self.scalar(args[0], env)
            return None if x is None else (0 if x[0] <= 0 <= x[1] else min(map(abs, x)),
                                           max(map(abs, x)))
        if node.func == "seat":
            return (1, len(self.prog.seats))
        if node.func == "ord" and len(args) == 1:
            size = _enum_size(self.prog, self.types.type_of(args[0]))
            return (0, size - 1) if size else None
        if node.func in self.defs:
            return self._inline(node, env, self.scalar)
        return None

    def _count(self, arg) -> Interval:
        """Bounds `count(arg)`: a list joined with `+` holds both parts, a comprehension at
        most the product of what it goes through (either may name a card twice), a list
        typed by its items no more than there are of them."""
        from gdl.checker import ListT, Prim, ZoneT
        if isinstance(arg, A.BinOp) and arg.op == "+":
            a, b = self._count(arg.left), self._count(arg.right)
            return None if a is None or b is None else (0, a[1] + b[1])
        if isinstance(arg, (A.ListLit, A.SetLit)):
            return (0, len(arg.items))
        if isinstance(arg, A.Range):        # `[top(deck) for i in 1..2]`
            ends = self.elems(arg, {})
            return None if ends is None else (0, max(0, ends[1] - ends[0] + 1))
        if isinstance(arg, A.ListComp):
            most = 1
            for f in arg.fors:
                got = self._count(f.iter)
                if got is None:
                    return None
                most *= got[1]
            return (0, most)
        t = self.types.type_of(arg)
        elem = t.elem if isinstance(t, ListT) else None
        if isinstance(t, ZoneT) or elem == Prim("card"):
            return (0, len(self.prog.cards))
        if elem == Prim("player"):
            return (0, len(self.prog.seats))
        if isinstance(elem, ZoneT):
            return (0, len(self.prog.zones))
        size = _enum_size(self.prog, elem)
        return (0, size) if size else None

    def _inline(self, node, env, how):
        """Bounds a def's body, its integer parameters bounded by their declared ranges
        (the arguments' own bounds when those are known)."""
        decl = self.defs[node.func]
        if self.depth > 8 or len(node.args) != len(decl.params):
            return None
        inner = {}
        for p, arg in zip(decl.params, node.args):
            got = self.scalar(arg, env)
            if got is None and isinstance(p.domain, A.Range):
                got = self.elems(p.domain, {})
            if got is not None:
                inner[p.name] = got
        self.depth += 1
        try:
            return how(decl.body, inner)
        finally:
            self.depth -= 1


def _union(*parts) -> Interval:
    if not parts or any(p is None for p in parts):
        return None
    return (min(p[0] for p in parts), max(p[1] for p in parts))


def _enum_size(prog, t) -> int:
    from gdl.checker import EnumT, Prim
    if isinstance(t, EnumT) and t.name in prog.enums:
        return len(prog.enums[t.name])
    if t == Prim("bool"):
        return 2
    if t == Prim("player"):
        return len(prog.seats)
    return 0


def universe(game, t, domain, bounds: Bounds, env, what: str) -> List[str]:
    """Returns the texts of every value a parameter (or random variable) of type `t` with
    this domain can take, in a fixed order."""
    from gdl.checker import EnumT, ListT, Prim, ZoneT
    prog = game.prog
    if t == Prim("card"):
        return list(dict.fromkeys(c.text for c in prog.cards))
    if t == Prim("player"):
        return [s.name for s in prog.seats]
    if t == Prim("bool"):
        return ["false", "true"]
    if isinstance(t, EnumT) and t.name in prog.enums:
        return [text_of(m) for m in prog.enums[t.name]]
    if isinstance(t, ZoneT):
        return [z.text for z in prog.zones if t.family is None or z.family == t.family]
    if t == Prim("int"):
        got = bounds.elems(domain, env)
        if got is not None and got[1] - got[0] < 1_000_000:
            return [str(v) for v in range(got[0], got[1] + 1)]
    if isinstance(t, ListT):                # a choice of several things at once
        raise IntegrationError(
            f"cannot number the values of {what}: they are lists (of {t.elem}), which "
            f"can be more than the adapter numbers before play",
            getattr(domain, "span", None), source=game.source,
            notes=["to play it through OpenSpiel or PettingZoo, choose one item a move "
                   "(a card, then another, with a rule that ends the choice)"])
    raise IntegrationError(
        f"cannot number the values of {what}: its domain has no bounds the adapter can "
        f"find before play", getattr(domain, "span", None), source=game.source,
        notes=["give it a range whose ends are numbers, options, count(...), min/max of "
               "those, or sums of them"])


#: the most moves whose index an `ActionTable` remembers
INDICES_KEPT = 100_000

#: the most lists of legal moves an `ActionTable` remembers numbered, then it starts again
LISTS_KEPT = 2048

_first = itemgetter(0)


class ActionTable:
    """Every move of a game numbered 0..size-1, independently of any state."""

    def __init__(self, game):
        types, res = checker_types(game.ruleset)
        bounds = Bounds(game, types)
        self.blocks = []            # (name, offset, [(text -> position)], [texts], strides)
        offset = 0
        for name in sorted(game.prog.actions):
            decl = game.prog.actions[name]
            env: Dict[str, Tuple[int, int]] = {}
            universes = []
            for p in decl.params:
                t = types.local_types.get(res.local(p))
                texts = universe(game, t, p.domain, bounds, env,
                                 f"parameter {p.name} of action {name}")
                if t is not None and str(t) == "int":
                    env[p.name] = (int(texts[0]), int(texts[-1]))
                universes.append(texts)
            strides, size = [], 1
            for texts in reversed(universes):
                strides.append(size)
                size *= len(texts)
            strides.reverse()
            lookup = [{x: i for i, x in enumerate(texts)} for texts in universes]
            self.blocks.append((name, offset, lookup, universes, strides, size))
            offset += size
        self.size = offset
        self.by_name = {b[0]: b for b in self.blocks}
        self.known: Dict[tuple, int] = {}       # (action, args) -> index, for `legal`
        self.lists: Dict[tuple, tuple] = {}     # the moves' ids -> `numbered`'s answer

    def index(self, move) -> int:
        """Returns the index of a legal move (a Move)."""
        try:
            key = move.action, move.args
            i = self.known.get(key)
        except TypeError:                       # an unhashable argument: worked out
            key = i = None
        if i is None:
            i = self._index(move)
            if key is not None and len(self.known) < INDICES_KEPT:
                self.known[key] = i
        return i

    def _index(self, move) -> int:
        name, offset, lookup, _, strides, _ = self.by_name[move.action.name]
        i = offset
        for pos, stride, value in zip(lookup, strides, move.args):
            text = text_of(value)
            if text not in pos:
                raise IntegrationError(
                    f"the move {move.text!r} has {text!r}, outside the values numbered for "
                    f"action {name} before play ({', '.join(list(pos)[:3])}, ...)")
            i += pos[text] * stride
        return i

    def text(self, index: int) -> str:
        """Returns the move text an index stands for (legal or not)."""
        if not 0 <= index < self.size:
            raise IntegrationError(f"action {index} is not one of 0..{self.size - 1}")
        for name, offset, _, universes, strides, size in self.blocks:
            if index < offset + size:
                rest = index - offset
                words = [name]
                for texts, stride in zip(universes, strides):
                    words.append(texts[rest // stride])
                    rest %= stride
                return " ".join(words)
        raise AssertionError("unreachable")

    def legal(self, state, seat) -> List[tuple]:
        """Returns [(index, Move)] of the seat's legal moves, by index."""
        return list(self.numbered(state.legal_moves(seat))[2])

    def numbered(self, moves) -> tuple:
        """Returns ([index], {index: Move}, ((index, Move), ...)) of a list of legal moves,
        by index (the map keeps the first move of an index).  Remembered by the moves'
        identities: the engine keeps each distinct move of an action as one object, so
        the same few lists come back at every step, and an entry holds its moves, so no
        other object can take their ids while it is kept."""
        key = tuple(map(id, moves))
        got = self.lists.get(key)
        if got is None:
            pairs = tuple(sorted(((self.index(m), m) for m in moves), key=_first))
            by_index: Dict[int, object] = {}
            for i, m in pairs:
                by_index.setdefault(i, m)
            got = ([i for i, _ in pairs], by_index, pairs)
            if len(self.lists) >= LISTS_KEPT:
                self.lists.clear()
            self.lists[key] = got
        return got


def shuffle_bound(game) -> int:
    """Returns at most how many distinct orders a shuffle of the game's cards has: all
    of them, each group of twins split as evenly as may be between the two facings
    (twins facing two ways are told apart; no shuffle of some of them has more)."""
    counts: Dict[int, int] = {}
    for c in game.prog.cards:
        counts[c.kind] = counts.get(c.kind, 0) + 1
    total = factorial(len(game.prog.cards))
    for k in counts.values():
        total //= factorial(k // 2) * factorial(k - k // 2)
    return total


def random_bound(game) -> Optional[int]:
    """Returns the most distinct values any `random` statement can draw from, or None when
    some `random` draws integers without bounds the adapter can find.  A card is one of
    the game's cards: twins one text, but apart where they lie in different places."""
    from gdl.checker import Prim
    types, res = checker_types(game.ruleset)
    bounds = Bounds(game, types)
    most = 0
    for node in walk(game.ruleset.decls):
        if isinstance(node, A.RandomChoice):
            t = types.local_types.get(res.local(node))
            if t == Prim("card"):
                most = max(most, len(game.prog.cards))
                continue
            try:
                most = max(most, len(universe(game, t, node.domain, bounds, {}, "random")))
            except IntegrationError:
                return None
    return most
