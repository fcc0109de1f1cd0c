"""The checker's types: what an expression can evaluate to, and which types fit together.

Types are small frozen values so they can be compared, hashed and printed in messages.
`ANY` stands for "unknown because of an earlier problem": it fits everywhere, so one
mistake is reported once instead of at every use of its result.
"""
from __future__ import annotations

from typing import Optional, Union

import attrs


@attrs.frozen
class Prim:
    """`int`, `bool`, `player`, `card`, a string, `none`, or unknown."""
    name: str

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class EnumT:
    """A member of one enum (or of an option's choice)."""
    name: str

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class ZoneT:
    """A reference to one zone of a family; family None is any zone (from `zone_of`)."""
    family: Optional[str]

    def __str__(self) -> str:
        return self.family or "zone"


@attrs.frozen
class OptT:
    """`T?`: a value of T or `none`."""
    inner: "Ty"

    def __str__(self) -> str:
        return f"{self.inner}?"


@attrs.frozen
class ListT:
    """A finite collection: a list, a range, a set literal, a domain such as `player`."""
    elem: "Ty"

    def __str__(self) -> str:
        return f"list[{self.elem}]"


@attrs.frozen
class Unknown:
    """A value of no type the checker could tell (`first` of an empty list) used where a
    `want` (or any of a tuple of wants) is needed: the engine tests what it is when it
    runs (`needs_value`); `said`, if given, is how an error names what was needed (`a
    zone or a list`)."""
    want: "Ty"
    said: Optional[str] = None

    def __str__(self) -> str:
        return str(self.want)


Ty = Union[Prim, EnumT, ZoneT, OptT, ListT]

INT = Prim("int")
BOOL = Prim("bool")
PLAYER = Prim("player")
CARD = Prim("card")
STR = Prim("text")
NONE = Prim("none")
ANY = Prim("unknown")


def unwrap(t: Ty) -> Ty:
    """`T` for `T?`: an optional is used as its value, and the engine stops with a rule
    error if it holds `none` at that moment."""
    return t.inner if isinstance(t, OptT) else t


def assignable(src: Ty, dst: Ty) -> bool:
    """Whether a value of type `src` may be used where `dst` is expected.

    `T?` fits where `T` is expected (checked when the game runs); `none` fits only `T?`.
    """
    if src == dst or ANY in (src, dst):
        return True
    if isinstance(src, OptT) and not isinstance(dst, OptT):
        return assignable(src.inner, dst)
    if isinstance(dst, OptT):
        if src == NONE:
            return True
        inner = src.inner if isinstance(src, OptT) else src
        return assignable(inner, dst.inner)
    if isinstance(src, ZoneT) and isinstance(dst, ZoneT):
        return None in (src.family, dst.family)
    if isinstance(src, ListT) and isinstance(dst, ListT):
        return assignable(src.elem, dst.elem)
    return False


def comparable(a: Ty, b: Ty) -> bool:
    """Whether `a == b` makes sense: equal types, `none` against `T?`, `T` against `T?`."""
    return assignable(a, b) or assignable(b, a)


def unify(a: Ty, b: Ty) -> Optional[Ty]:
    """The one type both branches (or list items) fit, or None if they do not agree."""
    if a == b or b == ANY:
        return a
    if a == ANY:
        return b
    if NONE in (a, b):
        other = b if a == NONE else a
        return other if isinstance(other, OptT) else OptT(other)
    if isinstance(a, OptT) or isinstance(b, OptT):
        inner = unify(unwrap(a), unwrap(b))
        return None if inner is None else OptT(unwrap(inner))
    if isinstance(a, ZoneT) and isinstance(b, ZoneT) and None in (a.family, b.family):
        return a if a.family else b
    if isinstance(a, ListT) and isinstance(b, ListT):
        inner = unify(a.elem, b.elem)
        return None if inner is None else ListT(inner)
    return None


def elem_of(t: Ty) -> Optional[Ty]:
    """The type of the items of a collection (a zone holds cards), or None if not one."""
    t = unwrap(t)
    if isinstance(t, ListT):
        return t.elem
    if isinstance(t, ZoneT):
        return CARD
    if t == ANY:
        return ANY
    return None


def is_cards(t: Ty) -> bool:
    """Whether `t` names some cards: one card, a list of cards, or a zone (all its cards)."""
    t = unwrap(t)
    return t in (CARD, ANY) or isinstance(t, ZoneT) or t == ListT(CARD) or t == ListT(ANY)


def is_players(t: Ty) -> bool:
    """Whether `t` is one player or a list of players (for win and reveal)."""
    t = unwrap(t)
    return assignable(t, PLAYER) or t in (ListT(PLAYER), ListT(ANY))


def is_zone(t: Ty) -> bool:
    """Whether `t` is a reference to a zone (where cards can be moved, shuffled, dealt)."""
    t = unwrap(t)
    return isinstance(t, ZoneT) or t == ANY
