"""The global symbol table: every declared name, what it is, and where it was declared.

Built first, so every later pass can resolve a use of a name wherever its declaration sits
in the file (a rule may run a rule declared below it).  This pass also enforces the
one-of-a-kind declarations: exactly one `players` and one `flow`, at most one `game`,
`card` and `returns`.
"""
from __future__ import annotations

from typing import Optional

import attrs

from .. import ast as A
from ..builtins import AGGREGATES, FUNCTIONS, NAMES
from ..keywords import reserved_for
from ..span import Span
from ._report import Report

#: the most seats a game may have (each seat is a name, a column of every per-seat value)
MOST_SEATS = 1_000


@attrs.frozen
class Symbol:
    """A declared global name: its kind ('zone', 'var', 'rule', ...) and its declaration."""
    name: str
    kind: str
    decl: object = attrs.field(eq=False, repr=False)
    span: Span = attrs.field(eq=False, repr=False)


@attrs.define(eq=False)
class Local:
    """A name bound inside a declaration (a parameter, `let`, a `for` variable...).

    Compared by identity: two locals named `p` in different rules are different things.
    """
    name: str
    kind: str
    span: Span


@attrs.frozen
class Member:
    """A value named by an enum member or a seat; `owner` is the enum, or 'player'."""
    owner: str
    name: str


@attrs.frozen
class Predef:
    """One of the predefined names of gdl/builtins.py NAMES."""
    name: str


Binding = object  # Symbol | Local | Member | Predef

_KINDS = {
    A.OptionDecl: "option", A.EnumDecl: "enum", A.ZoneDecl: "zone", A.VarDecl: "var",
    A.DefDecl: "def", A.TableDecl: "table", A.RuleDecl: "rule", A.ActionDecl: "action",
    A.TriggerDecl: "trigger", A.InvariantDecl: "invariant",
}

# The declarations a ruleset has one of: attribute name, word in messages, required.
_SINGLES = {
    A.PlayersDecl: ("players", "players", True), A.FlowDecl: ("flow", "flow", True),
    A.GameDecl: ("game", "game", False), A.CardDecl: ("card", "card", False),
    A.ReturnsDecl: ("returns", "returns", False),
}


@attrs.define
class Scope:
    """What the declarations of one ruleset define."""
    symbols: dict = attrs.Factory(dict)
    enums: dict = attrs.Factory(dict)    # enum (or choice option) name -> member names
    owners: dict = attrs.Factory(dict)   # member or seat name -> enum names / 'player'
    seats: tuple = ()
    fields: dict = attrs.Factory(dict)   # card field name -> A.Field
    players: Optional[A.PlayersDecl] = None
    flow: Optional[A.FlowDecl] = None
    game: Optional[A.GameDecl] = None
    card: Optional[A.CardDecl] = None
    returns: Optional[A.ReturnsDecl] = None

    def names_of(self, *kinds: str) -> list:
        """The declared names of these kinds, for did-you-mean and expected lists."""
        return sorted(n for n, s in self.symbols.items() if s.kind in kinds)

    def members_of(self, owner: str) -> tuple:
        return self.seats if owner == "player" else self.enums.get(owner, ())

    def decl_of(self, name: str, kind: str):
        sym = self.symbols.get(name)
        return sym.decl if sym is not None and sym.kind == kind else None


#: the kinds of declaration an expression reads by their bare name
READ_IN_EXPRESSIONS = frozenset({"var", "zone", "def", "table", "option"})


def build_scope(ruleset: A.Ruleset, report: Report) -> Scope:
    """Returns the symbol table of a ruleset, reporting duplicate and missing declarations."""
    builder = _Builder(report)
    for decl in ruleset.decls:
        builder.add(decl)
    builder.require_singles()
    builder.unnameable()
    return builder.scope


class _Builder:
    def __init__(self, report: Report):
        self.report = report
        self.scope = Scope()

    def add(self, decl) -> None:
        kind = _KINDS.get(type(decl))
        if type(decl) in _SINGLES:
            self._single(decl)
        if isinstance(decl, A.PlayersDecl):
            self._players(decl)
        elif kind is not None:
            self.declare(decl.name, kind, decl)
        if isinstance(decl, A.EnumDecl):
            self._enum(decl.name, [m.name for m in decl.members], decl)
        elif isinstance(decl, A.OptionDecl) and isinstance(decl.type, A.ChoiceType):
            self._enum(decl.name, list(decl.type.names), decl)
        elif isinstance(decl, A.CardDecl):
            self._fields(decl)

    def declare(self, name: str, kind: str, decl) -> None:
        """Adds a global name, unless it is taken, reserved, predefined or a builtin's name."""
        span = self.report.word_span(decl.span, name)
        why = reserved_for(name, kind)
        if why:
            self.report.error(f"{name} cannot name a {kind}: {why}; choose another name", span)
            return
        if name in NAMES:
            self.report.error(f"{name} is a predefined name and cannot be declared again "
                              f"(it means {NAMES[name].split(':')[0]})", span)
            return
        if kind in ("def", "table") and (name in FUNCTIONS or name in AGGREGATES):
            self.report.error(f"{kind} {name} would hide the builtin function {name}; "
                              f"choose another name", span)
            return
        first = self.scope.symbols.get(name)
        if first is not None:
            self.report.error(f"duplicate name {name}: already declared as the {first.kind} "
                              f"{name} at line {first.span.line}", span)
            return
        self.scope.symbols[name] = Symbol(name, kind, decl, span)

    def unnameable(self) -> None:
        """Reports the declarations read in expressions that share their name with an enum
        member: the bare name would mean both, and only the member has a qualified name
        (`rank.five`), so the declaration could never be read.  Rules and actions are
        named only by statements (`do`, `choose`), where no member is meant."""
        for name, sym in self.scope.symbols.items():
            owners = [o for o in self.scope.owners.get(name, ()) if o != "player"]
            if owners and sym.kind in READ_IN_EXPRESSIONS:
                self.report.error(
                    f"the {sym.kind} {name} has the name of a member of {owners[0]}: the "
                    f"bare name {name} would mean both, and only the member can be written "
                    f"out ({owners[0]}.{name}); rename the {sym.kind}", sym.span)

    def _single(self, decl) -> None:
        attr, word, _ = _SINGLES[type(decl)]
        first = getattr(self.scope, attr)
        if first is not None:
            self.report.error(f"a ruleset has only one {word} declaration; the first is at "
                              f"line {first.span.line}", decl.span)
        else:
            setattr(self.scope, attr, decl)

    def _players(self, decl: A.PlayersDecl) -> None:
        if self.scope.players is not decl:
            return
        if decl.lo < 1 or not decl.lo <= decl.default <= decl.hi:
            self.report.error(f"players {decl.lo}..{decl.hi} = {decl.default}: the default "
                              f"must lie within the range, and a game needs a player",
                              decl.span)
        if decl.hi > MOST_SEATS:
            self.report.error(f"a game of up to {decl.hi:,} players: gdl takes at most "
                              f"{MOST_SEATS:,}", decl.span)
            return
        # Unnamed seats are p1, p2, ... as the engine names them; with a range of player
        # counts, only the seats every game has.
        names = decl.names or tuple(f"p{i}" for i in range(1, decl.lo + 1))
        for seat in names:
            self.declare(seat, "seat", decl)
        self.scope.seats = tuple(dict.fromkeys(names))
        for seat in self.scope.seats:
            self.scope.owners.setdefault(seat, []).append("player")

    def _enum(self, name: str, members: list, decl) -> None:
        seen = set()
        for member in members:
            if member in seen:
                self.report.error(f"{name} lists {member} twice",
                                  self.report.word_span(decl.span, member))
                continue
            seen.add(member)
            owners = self.scope.owners.setdefault(member, [])
            if name not in owners:
                owners.append(name)
        if name not in self.scope.enums:
            self.scope.enums[name] = tuple(dict.fromkeys(members))

    def _fields(self, decl: A.CardDecl) -> None:
        if self.scope.card is not decl:
            return
        for field in decl.fields:
            if field.name in self.scope.fields:
                self.report.error(f"card field {field.name} is declared twice", field.span)
            else:
                self.scope.fields[field.name] = field

    def require_singles(self) -> None:
        for attr, word, required in _SINGLES.values():
            if required and getattr(self.scope, attr) is None:
                example = ("such as `players 2` or `players north, south`"
                           if word == "players" else "with the game's main procedure")
                self.report.error(f"the ruleset has no {word} declaration: add one {example}",
                                  self.report.start())
