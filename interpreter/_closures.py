"""What compiled expression closures carry besides their code: tags read at compile time
by the handlers that consume them (a constant's value, a tuple-valued result), so that a
consumer can fold or skip a run-time check.  Shared by every expression mixin."""
from __future__ import annotations

from ._fuse import MAX_DEPTH
from .values import ZoneRef


#: The most values a range written in the rules may hold (as many as a rule's loops may
#: go through): a larger one is an error where the rules are loaded, not a MemoryError.
MOST_IN_RANGE = 1_000_000


def range_tuple(lo: int, hi: int, error, node) -> tuple:
    """The values lo..hi of a range whose ends are constants, or `error(message, node)`
    raised where there are more than MOST_IN_RANGE."""
    if hi - lo + 1 > MOST_IN_RANGE:
        raise error(f"the range {lo}..{hi} holds {hi - lo + 1:,} values, more than the "
                    f"{MOST_IN_RANGE:,} a rule may go through", node)
    return tuple(range(lo, hi + 1))


def _const(value):
    fn = lambda st: value  # noqa: E731
    fn.constant = (value,)
    fn.render = lambda ctx: ctx.lit(value)
    return fn


def _rendered(fn, render):
    """Tags a closure with its text form (see `_fuse`), for consumers to inline."""
    fn.render = render
    return fn


def _tuples(fn):
    """Tags a closure that always gives a tuple (never a zone): `collection` then uses it
    as it is, without a wrapper testing for zones."""
    fn.tuple_valued = True
    return fn


def _texts(fn):
    """Tags a closure that always gives a tuple of texts (`chars`, `split`, a part of
    one, a list of `text(...)`): `join` joins it as it is, in C."""
    fn.texts_only = True
    return fn


def _cards(fn):
    """Tags a closure giving a zone's cards (a copy or a pass over them): a local taking
    its values from it is always a card, never none."""
    fn.cards_only = True
    return fn


def _among(fn, values):
    """Tags a closure that always gives a tuple whose items are all among the constant
    `values` (a repeated comprehension over a constant first loop, a def whose body is
    one, either branch of an `if`): a local drawn from it is always one of them."""
    if values is not None:
        fn.values_among = values
    return fn


def _values_among(fn):
    """The constant tuple a closure's items are all among (tagged by `_among`, or the
    closure's own constant tuple), or None."""
    values = getattr(fn, "values_among", None)
    if values is not None:
        return values
    c = getattr(fn, "constant", None)
    return c[0] if c is not None and type(c[0]) is tuple else None


def _runs_of(ctx, fn):
    """The text of `fn`'s list as runs, `(values, ends)`: values[k] repeated up to the
    place ends[k] (the ends rising, the last the list's length), or the list itself and
    None, for a draw to pick from without making the list (see `_has_runs`)."""
    runs = getattr(fn, "runs", None)
    if runs is None or ctx.depth >= MAX_DEPTH:
        return f"({ctx.sub(fn)}, None)"
    ctx.depth += 1
    try:
        return runs(ctx)
    finally:
        ctx.depth -= 1


def _has_runs(*fns) -> bool:
    """Whether `fns` can be drawn from as runs (`_runs_of`): some one tagged `runs` (a
    repeated comprehension, or what passes one on), each other giving a tuple."""
    return any(getattr(f, "runs", None) is not None for f in fns) and all(
        getattr(f, "runs", None) is not None or _tuple_valued(f) for f in fns)


def runs_expanded(values, ends) -> tuple:
    """The list that runs stand for (`_runs_of`): a draw's chance node, or an outcome
    not kept yet, needs it."""
    if ends is None:
        return values
    out, start = [], 0
    for v, end in zip(values, ends):
        out += [v] * (end - start)
        start = end
    return tuple(out)


def _bound_sides(test, tag: str) -> frozenset:
    """The renderings of the sides of `test`, a comparison rendered as it is (no wrapper
    that might evaluate it otherwise), that are tagged `tag` (a def call's rendering
    that can keep its value: `carried`, `remembered`): the test evaluates each once and
    always, left first."""
    render, *sides = getattr(test, "evaluates", (None,))
    if render is None or render is not getattr(test, "render", None) or \
            getattr(test, "render_test", None) is not None:
        return frozenset()
    return frozenset(s.render for s in sides if getattr(s, tag, None) is getattr(s, "render", 0))


def _all_ints(values) -> bool:
    """Whether `values` (None: not known) are all exactly ints (`true` is no int here)."""
    return values is not None and all(type(v) is int for v in values)


def _all_cards(fn) -> bool:
    """Whether a closure gives only cards (tagged by `_cards`)."""
    return getattr(fn, "cards_only", False)


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


def _all_zones(fn) -> bool:
    """Whether a closure is a constant list of zones only (`cell` as a domain): a local
    taking its values from it is always a zone."""
    c = getattr(fn, "constant", None)
    return c is not None and isinstance(c[0], tuple) and bool(c[0]) and all(
        isinstance(z, ZoneRef) for z in c[0])


def by_card(prog, field: str, texts: bool = False, ords: bool = False) -> tuple:
    """A card field's values (or, `texts`, their texts; `ords`, their positions in their
    enum) by card id: made once per program and field, once the cards are all made, so
    that every read of the field in generated code passes the same tuple (equal reads
    are equal texts, which inlined defs and loops keep once)."""
    key = ("field by card", field, texts, ords)
    table = prog.derived.get(key)
    if table is None:
        table = tuple(c.attrs[field] for c in prog.cards)
        if texts:
            table = tuple(v.text for v in table)
        elif ords:
            table = tuple(v.index for v in table)
        prog.derived[key] = table
    return table
