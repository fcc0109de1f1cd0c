"""Move lists remembered by what they read, and requires skipped while a guard holds.

An action whose parameter domains and requires read the state only through a few values
that cannot fail to evaluate (`me`, a variable, `count` of a zone named by `me` or by
constants) lists the same moves whenever those values are the same: `shuffle(k: 1..count(
deck[me]) - 1, d: 0..count(deck[me]) - k)` depends on the deck's size alone.  Its
generated list (`_actions._lone_list`, `_lone_pairs`) then keys a dict by those values
and lists only on a miss.  Anything else the listing might read (a zone's cards, a def
call, `players`) rules the memo out, so a hit gives exactly the list a fresh pass would
have made; the key's parts are evaluated first, which is safe because none can raise.

The same reading, stricter, gives a require's guard (`guard_of`): its leading terms
that read no parameter and cannot fail at all, which, while they decide it, let a list
keep every candidate without testing each.
"""
from __future__ import annotations

from typing import Optional

from gdl import ast as A
from gdl.checker._walk import walk

from ._closures import _folded
from .values import ZoneRef

#: the most lists one action remembers (a key is a few small values)
MEMO_MAX = 4096

_LITERALS = (A.IntLit, A.BoolLit, A.NoneLit, A.StrLit)
_PURE_OPS = {"+", "-", "*"}           # `/` and `%` only by a constant other than 0


def listing_inputs(compiler, decl, scope) -> Optional[list]:
    """Returns the sub-expressions an action's move list reads the state through (each
    once, in order of appearance), or None if the list may read anything else."""
    params = {prm.name for prm in decl.params}
    found: dict = {}
    reader = _Reader(compiler, scope, params, found)
    for prm in decl.params:
        d = prm.domain
        if isinstance(d, A.Range):
            if not (reader.pure(d.lo) and reader.pure(d.hi)):
                return None
        elif not reader.constant(d):
            return None
    for r in decl.requires:
        if not reader.pure(r.cond):
            return None
    return list(found)


class _Reader:
    """Decides whether an expression is a function of the parameters and of inputs (the
    parts it reads the state through, none of which can fail to evaluate), collecting
    the inputs in `found`.  The expression itself may fail (`x.n` of a none, `<` of
    unlike values), as it would in the plain list, unless `strict`: then only `==`,
    `!=`, `in` a constant list, `and`, `or`, `not` and `if` join the inputs, none of
    which can fail whatever the values."""

    def __init__(self, compiler, scope, params, found, strict=False):
        self.compiler, self.scope, self.params, self.found = compiler, scope, params, found
        self.prog, self.strict = compiler.prog, strict

    def constant(self, node) -> bool:
        """A value known before play that names no zone (a zone's cards are state)."""
        c = _folded(self.compiler.expr(node, self.scope))
        if c is None:
            return False
        v = c[0]
        return not isinstance(v, ZoneRef) and not (
            isinstance(v, tuple) and any(isinstance(x, ZoneRef) for x in v))

    def nonzero(self, node) -> bool:
        """A divisor known before play that is not zero (`t % 11`)."""
        c = _folded(self.compiler.expr(node, self.scope))
        return c is not None and type(c[0]) is int and c[0] != 0

    def keyed(self, node) -> bool:
        """`me` or a constant: what a zone or variable family may be indexed by here."""
        if isinstance(node, A.Name) and node.id == "me" and node.id not in self.params:
            return True         # the indexed value is the input, not `me`
        return not (names_in(node) & self.params) and self.constant(node)

    def pure(self, node) -> bool:
        if isinstance(node, _LITERALS):
            return True
        if isinstance(node, A.Name):
            if node.id in self.params:
                return True
            if node.id == "me" or (node.id in self.prog.var_slots
                                   and self.scope.lookup(node.id) is None):
                self.found.setdefault(node)
                return True
            return self.constant(node)
        if isinstance(node, A.BinOp):
            if self.strict or (node.op not in _PURE_OPS and not self.nonzero(node.right)):
                return False
            return self.pure(node.left) and self.pure(node.right)
        if isinstance(node, A.Not) or (isinstance(node, A.Neg) and not self.strict):
            return self.pure(node.operand)
        if isinstance(node, (A.And, A.Or)):
            return all(self.pure(i) for i in node.items)
        if isinstance(node, A.Compare):
            if self.strict and node.op not in ("==", "!="):
                return False
            return self.pure(node.left) and self.pure(node.right)
        if isinstance(node, A.Cond):
            return self.pure(node.test) and self.pure(node.then) and self.pure(node.else_)
        if isinstance(node, A.Attr):
            if self.strict:     # a field of a parameter that is always a card
                obj = node.obj
                if not (isinstance(obj, A.Name) and obj.id in self.params):
                    return False
                local = self.scope.lookup(obj.id)
                return local is not None and local.card
            return self.pure(node.obj)
        if isinstance(node, A.Member):
            return self.pure(node.item) and self.constant(node.coll)
        if isinstance(node, A.Call):
            if node.func == "count" and len(node.args) == 1 and self.zone(node.args[0]) \
                    and node.func not in self.prog.defs and node.func not in self.prog.tables:
                self.found.setdefault(node)
                return True
            return False
        if isinstance(node, A.Index):
            obj = node.obj
            if isinstance(obj, A.Name) and obj.id in self.prog.var_index \
                    and self.scope.lookup(obj.id) is None and obj.id not in self.params:
                if all(self.keyed(a) for a in node.args):
                    self.found.setdefault(node)
                    return True
            return False
        return False

    def zone(self, node) -> bool:
        """A zone named outright, or a family's zone indexed by `me` or constants."""
        scope, prog = self.scope, self.prog
        if isinstance(node, A.Name):
            return node.id in prog.zone_plain and scope.lookup(node.id) is None \
                and node.id not in self.params
        if isinstance(node, A.Index) and isinstance(node.obj, A.Name):
            name = node.obj.id
            return name in prog.families and scope.lookup(name) is None \
                and name not in self.params and all(self.keyed(a) for a in node.args)
        return False


def guard_of(compiler, cond, params, scope):
    """A require's guard: an expression of its leading terms that read no parameter
    and cannot fail (`_Reader.pure`, strict), which, when true, makes the require hold
    for every candidate without evaluating the rest -- `X or f(c)` has X; `not (A and B
    and f(c))` has `not A or not B` (a rule that binds only in some situation, stated
    first).  The guard is read before the candidates, even where there are none, which
    is why it must not fail; and only a prefix counts, so the terms it reads are ones
    the require reads first.  Returns the guard's AST, or None."""
    params = set(params)
    reader = _Reader(compiler, scope, params, {}, strict=True)
    negate = False
    if isinstance(cond, A.Not) and isinstance(cond.operand, A.And):
        items, negate = cond.operand.items, True
    elif isinstance(cond, A.Or):
        items = cond.items
    else:
        return None
    lead = []
    for item in items:
        if names_in(item) & params or not reader.pure(item) or _tested(compiler, item):
            break
        lead.append(A.Not(item) if negate else item)
    if not lead:
        return None
    return lead[0] if len(lead) == 1 else A.Or(tuple(lead))


def cannot_fail(compiler, node, params, scope) -> bool:
    """Whether an expression of the parameters `params` and of inputs cannot fail to
    evaluate whatever the state (`_Reader.pure`, strict: a field only of a parameter
    that is always a card), nothing in it a `T?` used as a `T` (tested for none as it is
    read: an optional field, a `bool?` variable)."""
    return not _tested(compiler, node) and \
        _Reader(compiler, scope, set(params), {}, strict=True).pure(node)


def _tested(compiler, node) -> bool:
    """Whether an expression holds a `T?` used as a `T` (the checker's `needs_value`):
    tested for none as it is read, it can fail."""
    needs = compiler.needs_value
    return any(id(n) in needs for n in walk(node))


def names_in(node) -> set:
    """Returns every plain name an expression mentions (to stage a require early, to
    tell whether a term reads a parameter)."""
    return {n.id for n in walk(node) if isinstance(n, A.Name)}


def memo_lines(ctx, memo, keys):
    """A list's look-up of `memo` by its inputs' values (`keys`, compiled closures),
    rendered before the list's own lines (so that no loop variable is held yet).
    Returns `wrap(listed, outs)`, which runs `listed` (with `me` bound, leaving their
    results in the temporaries `outs`) only on a miss and keeps their results (up to
    `MEMO_MAX` keys; none where a value is unhashable).  A line that returns early (no
    move: the requires without parameters fail) leaves nothing kept."""
    key, hit = ctx.tmp(), ctx.tmp()
    parts = "".join(f"{ctx.sub(k)}, " for k in keys)
    m = ctx.k(memo)
    head = [f"{key} = ({parts})",
            f"try: {hit} = {m}.get({key})",
            f"except {ctx.k(TypeError)}: {hit} = {key} = None",
            f"if {hit} is None:"]

    def wrap(listed, outs) -> list:
        results = ", ".join(outs)
        return [*head, *("    " + line for line in listed),
                f"    if {key} is not None and len({m}) < {MEMO_MAX:d}: "
                f"{m}[{key}] = ({results},)",
                f"else: {results}, = {hit}"]
    return wrap
