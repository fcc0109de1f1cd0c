"""Run-time values that are not plain ints or bools: seats, enum members, cards, zone references.

Each is created once per compiled game and compared by identity, so equality and hashing
are as cheap as for ints, and each knows its own text for moves, views and traces.  None
defines an ordering (`__lt__`): a class that defines any comparison makes every `==` and
`in` on it a Python-level call, about ten times slower.  Sort them by a key (`index`,
`id`, `slot`).
"""
from __future__ import annotations

from operator import attrgetter
from typing import Tuple


class Seat:
    """A player: seat number from 0 and a name."""

    __slots__ = ("index", "name")

    def __init__(self, index: int, name: str):
        self.index = index
        self.name = name

    def __repr__(self):
        return self.name

    text = property(lambda self: self.name)



class Member:
    """A member of an enum: its position and its text (`H`) and symbol (`♥`)."""

    __slots__ = ("enum", "index", "name", "text", "symbol")

    def __init__(self, enum: str, index: int, name: str, texts: Tuple[str, ...]):
        self.enum = enum
        self.index = index
        self.name = name
        self.text = texts[0] if texts else name
        self.symbol = texts[1] if len(texts) > 1 else self.text

    def __repr__(self):
        return self.name



class Card:
    """One physical card: an id, its attribute values, and its kind (ids of identical cards
    share a kind, so states that differ only in which twin is where hash alike)."""

    __slots__ = ("id", "attrs", "kind", "text", "symbol", "order")

    def __init__(self, id: int, attrs: dict, kind: int, text: str, symbol: str):
        self.id = id
        self.attrs = attrs
        self.kind = kind
        self.text = text
        self.symbol = symbol
        self.order = id         # its rank by kind, then id, once all are made

    def __repr__(self):
        return self.text



class ZoneRef:
    """One zone: its family name, its indices and its slot in a state's zone list."""

    __slots__ = ("family", "indices", "slot", "text", "owner")

    def __init__(self, family: str, indices: tuple, slot: int, owner):
        self.family = family
        self.indices = indices
        self.slot = slot
        self.owner = owner
        if indices:
            self.text = f"{family}[{','.join(text_of(i) for i in indices)}]"
        else:
            self.text = family

    def __repr__(self):
        return self.text



def text_of(value) -> str:
    """Returns the canonical text of any run-time value.  The commonest exact types are
    tested first (a card, member, seat or zone; a text; an int): it runs for every `text()`
    and move text."""
    t = type(value)
    if t in HAS_TEXT:
        return value.text
    if t is str:
        return value
    if t is int:
        return str(value)
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, tuple):
        return "[" + ",".join([text_of(v) for v in value]) + "]"
    return value.text


HAS_TEXT = frozenset((Seat, Member, Card, ZoneRef))

#: the order of a set zone's cards (`insort` and `sort` take it as their key): by kind,
#: the kinds as they were first declared, so that two states equal but for which twin is
#: where list the same cards in the same order (and offer the same moves in the same order).
#: `insort` puts a card after those of its kind already there and sorts are stable, so
#: twins lie in the order they came, never by id: which twin came first is the rules' own
#: history, the same whichever twin it was (an order by id showed which id met which).
#: Where twins in a set may differ in facing, `State.regroup` puts face down first.
card_order = attrgetter("kind")

#: the types whose values are their own canonical form
_SAME = frozenset((int, str, bool, type(None)))


def canon(value):
    """Returns a hashable, identity-free form of a value for canonical state keys.  A
    tuple's plain items are taken as they are, without a call each (a key canonicalises
    the variables and the frame whenever they hold values it has not met)."""
    kind = type(value)
    if kind in _SAME:
        return value
    if kind is tuple:
        return tuple([v if type(v) in _SAME else canon(v) for v in value])
    if isinstance(value, Card):
        return ("c", value.kind)
    if isinstance(value, (Seat, Member)):
        return value.index
    if isinstance(value, ZoneRef):
        return ("z", value.slot)
    if isinstance(value, tuple):
        return tuple([canon(v) for v in value])
    return value


#: how many move texts an action keeps (a game's distinct moves of one action are few)
MOVE_TEXTS = 50_000


class Move:
    """A legal move: the action, the argument values, and the canonical text (made on
    first use, once per distinct move of the action)."""

    __slots__ = ("action", "args", "_text")

    def __init__(self, action, args: tuple, text: str = None):
        self.action = action
        self.args = args
        self._text = text

    @property
    def text(self) -> str:
        """The move's text (see `move_text`)."""
        text = self._text
        if text is None:
            text = self._text = move_text(self.action, self.args)
        return text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, Move) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


def move_text(action, args: tuple) -> str:
    """The text of the move (action, args), made once per distinct move of the action
    (the action keeps the texts it made in `texts`, up to `MOVE_TEXTS` of them)."""
    texts = action.texts
    try:
        text = texts.get(args)
    except TypeError:                 # an unhashable argument: made each time
        texts = {}
        text = None
    if text is None:
        text = " ".join([action.name] + [text_of(v) for v in args])
        if len(texts) < MOVE_TEXTS:
            texts[args] = text
    return text
