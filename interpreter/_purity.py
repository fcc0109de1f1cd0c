"""Which defs depend on their arguments alone, so that their values can be remembered.

A def such as `value(c: card) = ord(c.rank) + 1` or `colour_of(c: card) = if c.suit in
{hearts, diamonds} then red else black` reads no variable, no zone's cards and no seat's
standing: given the same card it always gives the same answer.  `CallMixin.call_def`
remembers the answers of such a def per argument (a dict lookup instead of the body).

The test is on the AST and errs on the side of "no": any node not listed here, any name
that is a variable or `players`, any builtin not in `PURE_BUILTINS`, any collection that
could be a zone's cards (iterating, `in`, `count`) makes a def impure.  Options are
constants of a compiled program, so reading them is pure; so is a sum or list over
constant lists (every card, an enum, the seats, a range) of pure parts, such as
`sum(value(c) for c in card if colour_of(c) == x)`.
"""
from __future__ import annotations

from gdl import ast as A

#: builtins that compute from their arguments' values only (never a zone's cards, never
#: who is still in)
PURE_BUILTINS = frozenset({"ord", "abs", "min", "max", "number", "text", "seat", "split",
                           "chars", "card_named"})

#: global names whose values are constants of the compiled program
_CONSTANT_NAMES = frozenset({"all_players", "player", "num_players", "bool", "card"})

#: those of them that are lists (every seat, every card), which a comprehension may pass over
_CONSTANT_LISTS = frozenset({"all_players", "player", "card"})


def _constant_names(prog) -> frozenset:
    """`_CONSTANT_NAMES` of a program: in a game with twins, `card` lists them by where
    they lie (`_exprs._cards_by_place`), so a def that reads it reads the state."""
    return _CONSTANT_NAMES - {"card"} if prog.has_twins else _CONSTANT_NAMES


#: parameter types whose values compare by identity (cards, enum members, seats, zones):
#: a remembered answer is found only for the very same value, and every value hashes
_IDENTITY_TYPES = frozenset({"card", "player"})

#: the parameter types a remembered def may have besides enums and zone families (an int
#: parameter's answers are bounded by ANSWERS_KEPT, as any def's)
_REMEMBERED_TYPES = _IDENTITY_TYPES | {"int", "bool"}


def pure_def(prog, name: str, _open=None) -> bool:
    """Whether def `name`'s value depends on its arguments alone."""
    decl = prog.defs[name]
    known = prog.derived.setdefault(pure_def, {})
    if name in known:
        return known[name]
    opened = _open if _open is not None else set()
    if name in opened:                    # a cycle: the compiler reports it
        return False
    opened.add(name)
    params = {p.name for p in decl.params}
    found = _pure(decl.body, params, prog, opened)
    opened.discard(name)
    known[name] = found
    return found


def pure_expr(prog, node, params) -> bool:
    """Whether an expression's value depends on the names `params` alone (a table's
    else row on its key, say)."""
    return _pure(node, set(params), prog, set())


def rememberable(prog, decl) -> bool:
    """Whether a pure def's answers can be kept per argument: it has parameters, each of a
    type whose values compare by identity, or an int or a bool (the checker gives such a
    parameter values of its type alone, so `1` and `true`, equal in Python, never meet in
    one position of a key)."""
    if not decl.params:
        return False
    for p in decl.params:
        d = p.domain
        if not isinstance(d, A.Name):
            return False
        if d.id not in _REMEMBERED_TYPES and d.id not in prog.enums and \
                d.id not in prog.families:
            return False
    return True


def _pure(node, params, prog, opened) -> bool:
    def pure(x):
        return _pure(x, params, prog, opened)

    if isinstance(node, (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
        return True
    if isinstance(node, A.Name):
        n = node.id
        if n in params:
            return True
        if n in prog.var_slots or n in prog.var_index or n == "players":
            return False
        return (n in prog.options or n in prog.zone_plain or n in prog.families
                or n in prog.values or n in prog.enums or n in _constant_names(prog))
    if isinstance(node, A.Attr):           # a card's field, or `suit.hearts`
        return pure(node.obj)
    if isinstance(node, A.Index):          # `cell[r, k]`: which zone, not its cards
        return (isinstance(node.obj, A.Name) and node.obj.id not in params
                and node.obj.id in prog.families and all(map(pure, node.args)))
    if isinstance(node, A.Call):
        if not all(map(pure, node.args)):
            return False
        if node.func in prog.defs:
            return pure_def(prog, node.func, opened)
        if node.func in prog.tables:
            default = prog.tables[node.func].default
            return default is None or _pure(default, set(), prog, opened)
        return node.func in PURE_BUILTINS
    if isinstance(node, A.Member):         # only in a list written out: never a zone
        return (isinstance(node.coll, (A.SetLit, A.ListLit, A.Range))
                and pure(node.item) and pure(node.coll))
    if isinstance(node, (A.SetLit, A.ListLit)):
        return all(map(pure, node.items))
    if isinstance(node, A.BinOp):
        return pure(node.left) and pure(node.right)
    if isinstance(node, A.Compare):
        return pure(node.left) and pure(node.right)
    if isinstance(node, (A.Neg, A.Not)):
        return pure(node.operand)
    if isinstance(node, (A.And, A.Or)):
        return all(map(pure, node.items))
    if isinstance(node, A.Cond):
        return pure(node.test) and pure(node.then) and pure(node.else_)
    if isinstance(node, A.Range):
        return pure(node.lo) and pure(node.hi)
    if isinstance(node, (A.Aggregate, A.ListComp)):
        # over constant lists only (every card, an enum, the seats, a range, a list
        # written out), never a zone's cards; the loop variables are then arguments too
        inner = set(params)
        for f in node.fors:
            if not _constant_list(f.iter, inner, prog, opened):
                return False
            inner.add(f.var)
        return ((node.cond is None or _pure(node.cond, inner, prog, opened))
                and _pure(node.item, inner, prog, opened))
    return False


def _constant_list(node, params, prog, opened) -> bool:
    """Whether a comprehension's `in` part is a list that never changes: every card,
    an enum's members, every seat, a range or list of pure ends and items."""
    if isinstance(node, A.Name):
        return (node.id not in prog.var_slots and node.id not in prog.var_index
                and (node.id in _CONSTANT_LISTS and node.id in _constant_names(prog)
                     or node.id in prog.enums))
    if isinstance(node, (A.Range, A.ListLit, A.SetLit)):
        return _pure(node, params, prog, opened)
    return False
