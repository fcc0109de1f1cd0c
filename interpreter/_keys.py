"""The canonical key of a state: equal keys mean the same position, whichever of several
identical cards is where (enumeration merges states by it; `State.__hash__` uses it).

Only equality of keys matters, not their form.  An enumerator makes one key per edge of
the state graph, so the common parts are built with few Python-level steps: a game whose
cards all differ is keyed by each card's zone, the order of the ordered zones and the
facings as they are, and the variables are canonicalised once per distinct tuple of them.
"""
from __future__ import annotations

from itertools import chain
from operator import attrgetter, itemgetter
from typing import Optional

from ._compiler import CHANCE, DECIDE, END, SIMUL
from .values import Card, Member, Seat, ZoneRef, canon

#: The most values (and tuples of them) a program's `_Canon` remembers, then it starts again.
CANON_LIMIT = 50_000

_ID = attrgetter("id")
_chain = chain.from_iterable


class _Refs(tuple):
    """The canonical form of a value holding a card of a kind several cards share: the
    key then tells that kind's cards by their ids (`named_kinds`), as the kind alone
    merged positions whose futures differ (which twin a variable names moves with it)."""

    __slots__ = ()


class _Canon(dict):
    """Value -> `canon(value)`, filled on first use.  Equal values have equal canonical
    forms (seats, members, cards and zones are compared by identity), so a lookup by
    equality is exact; a tuple whose canonical form equals it is kept as it is, so keys
    share it.  A value holding one of `twins` (cards) gets a `_Refs` form."""

    __slots__ = ("twins",)

    def __init__(self, twins: frozenset = frozenset()):
        super().__init__()
        self.twins = twins

    def __missing__(self, value):
        form = canon(value)
        if form == value:
            form = value
        elif self.twins and _holds(value, self.twins):
            form = _Refs(form)
        if len(self) >= CANON_LIMIT:
            self.clear()
        self[value] = form
        return form


def _holds(value, cards: frozenset) -> bool:
    """Whether `value` (hashable, as all of its items) is or holds, in a list at any
    depth, one of `cards` (the twins): tested in C where no list holds a list (every
    tuple of values the key canonicalises anew passes here)."""
    if type(value) is not tuple:
        return value in cards
    if not cards.isdisjoint(value):
        return True
    return tuple in set(map(type, value)) and \
        any(_holds(v, cards) for v in value if type(v) is tuple)


def named_kinds(st, kinds, frame: bool = True) -> set:
    """The kinds (of `kinds`, those several cards share) of the cards the variables and
    the frame hold (`frame` false: the variables alone).  Such twins are no longer
    alike: which of them a variable names moves with it, so the key (and the chance
    outcomes listed) tell every card of a named kind by its id."""
    out: set = set()

    def walk(v):
        if type(v) is tuple:
            for x in v:
                walk(x)
        elif isinstance(v, Card) and v.kind in kinds:
            out.add(v.kind)
    for v in st.vars:
        walk(v)
    if frame:                   # (a finished game's key leaves its frame out)
        for v in st.frame:
            walk(v)
    return out


def names_twins(st) -> bool:
    """Whether the variables or the frame hold a twin (one look-up of their canonical
    form, remembered: the test `sample_chance` makes at every shuffle)."""
    if not st.prog.has_twins:
        return False
    canonical = st.prog.helper(_Layout).canonical
    try:
        return type(canonical(tuple(st.vars))) is _Refs or \
            type(canonical(tuple(st.frame))) is _Refs
    except TypeError:                   # an unhashable value: looked at one by one
        return bool(named_kinds(st, st.prog.twin_kinds))


def _exact(v, named):
    """`canon(v)`, each card of a `named` kind as its id."""
    if type(v) is tuple:
        return tuple([_exact(x, named) for x in v])
    if isinstance(v, Card) and v.kind in named:
        return ("i", v.id)
    return canon(v)


def _no_zones(zones):
    return ()


class _Layout:
    """What keying a program's states needs, worked out once: whether it has identical
    cards (and of which kinds), a getter of its ordered zones, and its values' canonical
    forms as found."""

    __slots__ = ("twins", "twin_kinds", "stacks", "canonical", "key", "head")

    def __init__(self, prog):
        self.canonical = _Canon(frozenset(c for c in prog.cards if c.kind in prog.twin_kinds)
                                ).__getitem__
        self.twins = prog.has_twins
        self.twin_kinds = prog.twin_kinds
        stacks = [slot for slot, is_set in enumerate(prog.is_set) if not is_set]
        if not stacks:
            self.stacks = _no_zones
        elif len(stacks) == 1:              # the one ordered zone's cards, bottom first
            self.stacks = itemgetter(stacks[0])
        else:                               # every ordered zone's cards, one run
            getter = itemgetter(*stacks)
            self.stacks = lambda zones: _chain(getter(zones))
        self.key = _key_function(self)
        self.head = _key_function(self, whole=False)


def state_key(st):
    """Returns the canonical, hashable form of a state."""
    return st.prog.helper(_Layout).key(st)


def keyer(prog):
    """Returns `state_key` for the states of one program, its layout looked up once (an
    enumerator keys every edge)."""
    return prog.helper(_Layout).key


def cards_at(prog) -> Optional[int]:
    """Returns where the cards' part of a state's key starts (the rest of the key from
    there is every card's place, the ordered zones' orders, the facings and what each seat
    knows: equal parts, equal zones but for the order of set zones' cards), or None in a
    game with identical cards, whose keys tell cards apart only by their kinds."""
    return None if prog.helper(_Layout).twins else _CARDS_AT


#: the length of a key's head in a game without twins: (pc, node, out, values, frame)
_CARDS_AT = 5


def header(prog):
    """Returns the function giving a state's head: its key less the frame (the running
    rule's locals) and the cards, but for how many cards each zone holds.  Equal keys
    have equal heads, so a head not met before is a position not met before, found
    without reading a card; and along a playthrough two heads are seldom equal, as the
    variables and the zones' sizes move."""
    return prog.helper(_Layout).head


def _key_function(layout, whole: bool = True):
    """Returns the key function of a layout (or, not `whole`, its head function): a
    closure, so that the per-key work reads its constants from cells, not from the
    layout's attributes."""
    canonical, stacks, twins = layout.canonical, layout.stacks, layout.twins
    kinds = layout.twin_kinds
    plain = _ONE_TO_ONE if twins else _ONE_TO_ONE | {Card}    # see `_head`

    def key(st):
        node = st.node
        kind = node[0] if node is not None else 0
        if kind == DECIDE:                      # one seat decides: its index says it
            nk = (kind, node[1].id, node[2][0].index)
        elif kind == SIMUL:                     # the seats (a tuple) and who committed what
            committed = node[3]
            nk = (kind, node[1].id, canonical(node[2]),
                  tuple(sorted([(p.index, m.text) for p, m in committed.items()]))
                  if committed else ())
        elif kind == CHANCE:                    # few distinct chance nodes: forms kept
            nk = canonical(node)
        else:
            nk = (kind, st.result)
            if kind == END:     # where the rules ended the game, and the locals of the
                return _ended(st, nk, whole)    # rule that did, are no part of it
        if not whole:
            return _head(st, st.pc, nk, canonical, plain)
        try:
            values, frame = canonical(tuple(st.vars)), canonical(tuple(st.frame))
        except TypeError:               # an unhashable value: canonicalised one by one
            values, frame = _Refs(map(canon, st.vars)), tuple(map(canon, st.frame))
            # (marked `_Refs`: the twins' forms are worked out exactly below)
        if twins:
            if type(values) is _Refs or type(frame) is _Refs:
                named = named_kinds(st, kinds)
                return (st.pc, nk, st.out, tuple([_exact(v, named) for v in st.vars]),
                        tuple([_exact(v, named) for v in st.frame]),
                        _twin_zones(st, named))
            return st.pc, nk, st.out, values, frame, _twin_zones(st)
        # every card differs from every other: where each card is (a set zone is no more),
        # the order of the ordered zones, and what each card shows and to whom, in one
        # flat run after the frame.  It is exact: where each card is comes first, one
        # number a card, and says how many ids follow (the cards in ordered zones) and
        # where each zone's run of them starts; the facings and what each seat knows
        # are one number a card and a seat.
        return (st.pc, nk, st.out, values, frame, *st.loc, *map(_ID, stacks(st.zones)),
                *st.up, *st.known)

    def _ended(st, nk, whole):
        """The key (or head) of a game over: as any other, with no program counter (two
        `end game`s, or the last moves of two actions, end in one position) and no frame."""
        if not whole:
            return _head(st, None, nk, canonical, plain)
        try:
            values = canonical(tuple(st.vars))
        except TypeError:
            values = _Refs(map(canon, st.vars))
        if twins:
            if type(values) is _Refs:
                named = named_kinds(st, kinds, frame=False)
                return (None, nk, st.out, tuple([_exact(v, named) for v in st.vars]), (),
                        _twin_zones(st, named))
            return None, nk, st.out, values, (), _twin_zones(st)
        return (None, nk, st.out, values, (), *st.loc, *map(_ID, stacks(st.zones)),
                *st.up, *st.known)

    return key


#: the types of values that are equal exactly when their canonical forms are (each seat,
#: member and zone is one object), and cards too in a game without twins
_ONE_TO_ONE = frozenset((int, str, bool, type(None), Seat, Member, ZoneRef))


def _head(st, pc, nk, canonical, plain) -> tuple:
    """A state's head: the variables as they are where each value's type is in `plain`
    (equal then exactly when their canonical forms are, so two states with equal keys
    have equal heads, as `header` promises), canonical otherwise; and each zone's
    length."""
    values = tuple(st.vars)
    try:
        if not plain.issuperset(map(type, values)):
            values = canonical(values)
    except TypeError:                   # an unhashable value: canonicalised one by one
        values = tuple(map(canon, st.vars))
    return pc, nk, st.out, values, tuple(map(len, st.zones))


def _twin_zones(st, named=None) -> tuple:
    """Returns each zone as the kinds and facings of its cards (and who knows each, if
    anyone knows a face-down card; the id of a card of a `named` kind), in order: a set
    zone's is by kind, then the order the cards came (`card_order`; facing before it
    where twins in a set may differ in it, `State.regroup`), so twins alike in it lie
    together, and of twins that differ in who knows them the order tells which is
    `top`.  Where nobody knows a face-down card, a card is the one number
    `2 * kind + up` (one to one), not a pair made for each card."""
    up, known = st.up, st.known
    if any(known):
        # who knows each card, one tuple per card id: worked out only for the cards
        # somebody knows, the others sharing one tuple of zeros
        bits = [(0,) * len(known)] * len(up)
        seen = 0
        for k in known:
            seen |= k
        seen &= (1 << len(up)) - 1
        while seen:
            low = seen & -seen
            i = low.bit_length() - 1
            bits[i] = tuple([k >> i & 1 for k in known])
            seen ^= low
    else:
        bits = None
    zones = []
    for z in st.zones:
        if not z:
            zones.append(())
            continue
        if named:                       # the cards of a kind a variable names: by id
            items = [(c.kind, up[c.id], bits[c.id] if bits is not None else (),
                      c.id if c.kind in named else -1) for c in z]
        elif bits is not None:
            items = [(c.kind, up[c.id], bits[c.id]) for c in z]
        else:
            items = [c.kind * 2 + up[c.id] for c in z]
        zones.append(tuple(items))
    return tuple(zones)
