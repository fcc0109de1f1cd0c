"""The abstract syntax of a ruleset: one frozen attrs class per construct.

Nodes carry a `span` that is left out of equality, so two parses of the same text compare
equal wherever they came from.  Sequences are tuples; closed vocabularies are enums.  Each
docstring shows the construct in gdl syntax; docs/language.md follows the same order.
"""
from __future__ import annotations

import enum
from typing import Optional, Union

import attrs

from .span import Span, span_field

frozen = attrs.frozen


class Facing(enum.Enum):
    UP = "up"
    DOWN = "down"


class ZoneKind(enum.Enum):
    STACK = "stack"
    SET = "set"


class Seen(enum.Enum):
    """Who sees the faces of face-down cards in a zone (face-up cards are seen by all)."""

    NOBODY = "nobody"
    OWNER = "owner"
    ALL = "all"
    OTHERS = "others"


class PlaceKind(enum.Enum):
    TOP = "top"
    BOTTOM = "bottom"
    DEPTH = "depth"
    DEFAULT = "default"


# ------------------------------------------------------------------------------ expressions
@frozen
class IntLit:
    """`42`"""
    value: int
    span: Span = span_field()


@frozen
class StrLit:
    """`"a text"`: a text value, a citation, a doc line or a `fail` message."""
    value: str
    span: Span = span_field()


@frozen
class BoolLit:
    """`true`, `false`"""
    value: bool
    span: Span = span_field()


@frozen
class NoneLit:
    """`none`: the value of an optional variable that holds nothing."""
    span: Span = span_field()


@frozen
class Name:
    """`total`, `me`, `hearts`: any declared name or local."""
    id: str
    span: Span = span_field()


@frozen
class Attr:
    """`c.suit`: a card attribute."""
    obj: "Expr"
    name: str
    span: Span = span_field()


@frozen
class Index:
    """`score[p]`, `cell[r, c]`: an element of an indexed variable or zone family."""
    obj: "Expr"
    args: tuple
    span: Span = span_field()


@frozen
class Keyword:
    """`suit: hearts` inside `card(suit: hearts, rank: king)`."""
    name: str
    value: "Expr"
    span: Span = span_field()


@frozen
class Call:
    """`count(hand[me])`, `value(c)`: a builtin, a `def` or a table."""
    func: str
    args: tuple
    span: Span = span_field()


@frozen
class CompFor:
    """`for p in players` inside a comprehension or aggregate."""
    var: str
    iter: "Expr"
    span: Span = span_field()


@frozen
class Aggregate:
    """`sum(value(c) for c in cell[r, k] if colour(c) == black)`"""
    func: str
    item: "Expr"
    fors: tuple
    cond: Optional["Expr"]
    span: Span = span_field()


@frozen
class ListComp:
    """`[c for c in hand[me] if c.rank == ace]`"""
    item: "Expr"
    fors: tuple
    cond: Optional["Expr"]
    span: Span = span_field()


@frozen
class ListLit:
    """`[1, 2, 3]`"""
    items: tuple
    span: Span = span_field()


@frozen
class SetLit:
    """`{hearts, diamonds}`"""
    items: tuple
    span: Span = span_field()


@frozen
class BinOp:
    """`a + b`, `a - b`, `a * b`, `a / b` (floor division), `a % b`"""
    op: str
    left: "Expr"
    right: "Expr"
    span: Span = span_field()


@frozen
class Neg:
    """`-x`"""
    operand: "Expr"
    span: Span = span_field()


@frozen
class Compare:
    """`a == b`, `a != b`, `a < b`, ..."""
    op: str
    left: "Expr"
    right: "Expr"
    span: Span = span_field()


@frozen
class Member:
    """`c.suit in {hearts, diamonds}`, `x not in xs`"""
    item: "Expr"
    coll: "Expr"
    negated: bool
    span: Span = span_field()


@frozen
class And:
    """`a and b and c`"""
    items: tuple
    span: Span = span_field()


@frozen
class Or:
    """`a or b`"""
    items: tuple
    span: Span = span_field()


@frozen
class Not:
    """`not a`"""
    operand: "Expr"
    span: Span = span_field()


@frozen
class Cond:
    """`if a > b then a else b`"""
    test: "Expr"
    then: "Expr"
    else_: "Expr"
    span: Span = span_field()


@frozen
class Range:
    """`1..size`: the integers from lo to hi inclusive."""
    lo: "Expr"
    hi: "Expr"
    span: Span = span_field()


Expr = Union[IntLit, StrLit, BoolLit, NoneLit, Name, Attr, Index, Call, Aggregate, ListComp,
             ListLit, SetLit, BinOp, Neg, Compare, Member, And, Or, Not, Cond, Range]


# ------------------------------------------------------------------------------ types
@frozen
class NamedType:
    """`int`, `bool`, `player`, `card`, an enum name, or a zone family name (a zone reference)."""
    name: str
    span: Span = span_field()


@frozen
class RangeType:
    """`1..20`: an integer within bounds."""
    lo: Expr
    hi: Expr
    span: Span = span_field()


@frozen
class ChoiceType:
    """`{majority, plurality}`: an enum declared in place (options only)."""
    names: tuple
    span: Span = span_field()


@frozen
class OptionalType:
    """`cell?`: a value or `none`."""
    inner: "TypeExpr"
    span: Span = span_field()


TypeExpr = Union[NamedType, RangeType, ChoiceType, OptionalType]


def list_item_domain(domain) -> "Expr | None":
    """For a def's or rule's parameter written `xs: list[card]` (a list of values of a
    domain: it parses as an index of `list`), the domain of its items; else None."""
    if isinstance(domain, Index) and isinstance(domain.obj, Name) and \
            domain.obj.id == "list" and len(domain.args) == 1:
        return domain.args[0]
    return None


# ------------------------------------------------------------------------------ statements
@frozen
class Target:
    """The left side of an assignment: `total` or `score[p]`."""
    name: str
    indices: tuple
    span: Span = span_field()


@frozen
class Assign:
    """`total = 0`, `score[p] = 3`"""
    target: Target
    value: Expr
    span: Span = span_field()


@frozen
class AugAssign:
    """`total += value(c)`, `score[me] -= 1`"""
    target: Target
    op: str
    value: Expr
    span: Span = span_field()


@frozen
class Let:
    """`let h = hands_left(p)`: a name local to the enclosing rule or action."""
    name: str
    value: Expr
    span: Span = span_field()


@frozen
class Place:
    """Where moved cards go: `top of Z`, `bottom of Z`, `Z at depth d`, or plain `Z` (the top)."""
    kind: PlaceKind
    zone: Expr
    depth: Optional[Expr] = None
    span: Span = span_field()


@frozen
class Move:
    """`move c to top of cell[r, k] face up`, `move top(deck[me], k) to deck[me] at depth d`"""
    cards: Expr
    place: Place
    facing: Optional[Facing]
    span: Span = span_field()


@frozen
class Deal:
    """`deal 5 from stock to hand[p] for p in players face down`: one card at a time, round-robin."""
    count: Expr
    source: Expr
    dest: Expr
    var: str
    iter: Expr
    facing: Optional[Facing]
    span: Span = span_field()


@frozen
class Shuffle:
    """`shuffle stock`: a chance event; everyone forgets where the zone's cards are."""
    zone: Expr
    span: Span = span_field()


@frozen
class Flip:
    """`flip cards(cell[r, k]) up`"""
    cards: Expr
    facing: Facing
    span: Span = span_field()


@frozen
class Reveal:
    """`reveal cards(pile[p]) to players`: the players now know these cards' faces."""
    cards: Expr
    to: Expr
    span: Span = span_field()


@frozen
class Choose:
    """`choose current: move_face_up, look`: a decision among the legal moves of these actions."""
    player: Expr
    actions: tuple
    span: Span = span_field()


@frozen
class Simultaneous:
    """`simultaneously p in players: guess`: each player commits a move unseen, then all apply."""
    var: str
    players: Expr
    actions: tuple
    span: Span = span_field()


@frozen
class RandomChoice:
    """`random first in players`: a chance event, uniform over a finite domain; everyone
    sees the outcome.  `secret random d in 1..4`: nobody sees it (only its effects)."""
    var: str
    domain: Expr
    secret: bool = False
    span: Span = span_field()


@frozen
class Win:
    """`win red`: the game ends and this player (or these players) win."""
    who: Expr
    span: Span = span_field()


@frozen
class Draw:
    """`draw`: the game ends with no winner."""
    span: Span = span_field()


@frozen
class EndGame:
    """`end game`: the game ends; `returns(p) = ...` gives each player's result."""
    span: Span = span_field()


@frozen
class Eliminate:
    """`eliminate me`: the player drops out; `players` and `next` skip them from now on."""
    who: Expr
    span: Span = span_field()


@frozen
class Fail:
    """`fail "row 2 gives pile 1 " + text(n) + " cards"`: the rules cannot go on; a rule
    error with this message, naming the rule and its line."""
    message: "Expr"
    span: Span = span_field()


@frozen
class CallRule:
    """`do score_cell(r, k)`: run a named rule."""
    name: str
    args: tuple
    span: Span = span_field()


@frozen
class Pass:
    """`pass`: do nothing."""
    span: Span = span_field()


@frozen
class If:
    """`if a: ... elif b: ... else: ...`"""
    branches: tuple  # of (Expr, tuple of statements)
    else_body: tuple
    span: Span = span_field()


@frozen
class Repeat:
    """`repeat 3: ...`"""
    count: Expr
    body: tuple
    span: Span = span_field()


@frozen
class While:
    """`while not over: ...` (bounded at run time)"""
    cond: Expr
    body: tuple
    span: Span = span_field()


@frozen
class For:
    """`for p in players: ...`"""
    var: str
    iter: Expr
    body: tuple
    span: Span = span_field()


Stmt = Union[Assign, AugAssign, Let, Move, Deal, Shuffle, Flip, Reveal, Choose, Simultaneous,
             RandomChoice, Win, Draw, EndGame, Eliminate, Fail, CallRule, Pass, If, Repeat,
             While, For]


# ------------------------------------------------------------------------------ declarations
@frozen
class GameDecl:
    """`game "High card"`"""
    title: str
    span: Span = span_field()


@frozen
class VariantOf:
    """`variant of "high_card.gdl"`: this file overrides declarations of another ruleset."""
    path: str
    span: Span = span_field()


@frozen
class PlayersDecl:
    """`players red, black` | `players 2` | `players 2..7 = 4` (a `players` option)."""
    names: tuple
    lo: int
    hi: int
    default: int
    span: Span = span_field()


@frozen
class OptionDecl:
    """`option turns_each: 1..20 = 10 "doc"`: a typed parameter a user may `--set`."""
    name: str
    type: TypeExpr
    default: Expr
    doc: str
    span: Span = span_field()


@frozen
class EnumMember:
    """`hearts "H" "♥"`: a member with its text and optional symbol."""
    name: str
    texts: tuple
    span: Span = span_field()


@frozen
class EnumDecl:
    """`enum suit = clubs "C", diamonds "D", hearts "H", spades "S"`"""
    name: str
    members: tuple
    span: Span = span_field()


@frozen
class Field:
    """`suit: suit` inside a `card` declaration."""
    name: str
    type: TypeExpr
    span: Span = span_field()


@frozen
class CardDecl:
    """`card rank: rank, suit: suit`: the attributes every card has; its text joins them."""
    fields: tuple
    span: Span = span_field()


@frozen
class CardsDecl:
    """`cards into stock: card(rank: r, suit: s) for s in suit for r in rank`"""
    zone: Expr
    item: Expr
    fors: tuple
    cond: Optional[Expr]
    span: Span = span_field()


@frozen
class ZoneDecl:
    """`zone hand[player]: set, seen by owner, face down`"""
    name: str
    indices: tuple
    kind: ZoneKind
    seen: Seen
    facing: Facing
    span: Span = span_field()


@frozen
class VarDecl:
    """`var score[player]: int = 3`, `var sheet[player]: text = "", seen by owner`: a
    variable; `seen by` makes it private (other seats' views show `?`)."""
    name: str
    indices: tuple
    type: TypeExpr
    init: Optional[Expr]
    seen: Seen = Seen.ALL
    span: Span = span_field()


@frozen
class Param:
    """`to: cell`, `k: 1..count(deck[me]) - 1`: a parameter and its finite domain; in a
    def or rule a type, which may be optional: `t: suit?`."""
    name: str
    domain: Expr
    optional: bool = False
    span: Span = span_field()


@frozen
class DefDecl:
    """`def value(c: card) = ord(c.rank) + 1`: a pure function."""
    name: str
    params: tuple
    cite: str
    body: Expr
    span: Span = span_field()


@frozen
class TableRow:
    """`8 => 333` or `1..3, dealer => 0` in a table."""
    keys: tuple
    value: Expr
    span: Span = span_field()


@frozen
class TableDecl:
    """`table points(tricks: 0..8): 8 => 333 ... else => 0`: a lookup checked for coverage."""
    name: str
    params: tuple
    cite: str
    rows: tuple
    default: Optional[Expr]
    span: Span = span_field()


@frozen
class RuleDecl:
    """`rule deal_grid "SETUP: Place 25 cards ...": ...`: a named, cited block of statements."""
    name: str
    params: tuple
    cite: str
    body: tuple
    span: Span = span_field()


@frozen
class Require:
    """`require to != from "G5: ..."`: a precondition of an action."""
    cond: Expr
    reason: str
    span: Span = span_field()


@frozen
class Secret:
    """`secret k, d when shuffle_visibility == hidden`: parameters other players do not see."""
    names: tuple
    when: Optional[Expr]
    span: Span = span_field()


@frozen
class ActionDecl:
    """`action look(at: cell) "Turns: ...": require ...; statements`: a kind of move."""
    name: str
    params: tuple
    cite: str
    requires: tuple
    secrets: tuple
    body: tuple
    span: Span = span_field()


@frozen
class TriggerDecl:
    """`trigger penalty when changed(total) and total > 21 priority 1: ...`"""
    name: str
    cond: Expr
    priority: int
    cite: str
    body: tuple
    span: Span = span_field()


@frozen
class InvariantDecl:
    """`invariant colour_totals: sum(...) == 169`: must hold in every reachable state."""
    name: str
    cite: str
    expr: Expr
    span: Span = span_field()


@frozen
class FlowDecl:
    """`flow: ...`: the game's main procedure, from setup to the end."""
    body: tuple
    span: Span = span_field()


@frozen
class ReturnsDecl:
    """`returns(p) = points[p]`: each player's result when the game ends with `end game`."""
    var: str
    expr: Expr
    span: Span = span_field()


Decl = Union[GameDecl, VariantOf, PlayersDecl, OptionDecl, EnumDecl, CardDecl, CardsDecl,
             ZoneDecl, VarDecl, DefDecl, TableDecl, RuleDecl, ActionDecl, TriggerDecl,
             InvariantDecl, FlowDecl, ReturnsDecl]


@frozen
class Ruleset:
    """A whole file: its declarations in source order."""
    decls: tuple
    path: str = attrs.field(default="<string>", eq=False)
    source: str = attrs.field(default="", eq=False, repr=False)
