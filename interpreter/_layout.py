"""The fixed shape of a compiled game: seats, enums, cards, zones and variable slots.

Everything here is decided once, from the checked AST and the resolved options, before any
state exists; states then hold only flat lists indexed by the slots assigned here.
"""
from __future__ import annotations

import itertools
from collections import Counter
from typing import Dict, List, Optional

import attrs

from gdl import ast as A

from ._closures import MOST_IN_RANGE
from .values import Card, Member, Seat, ZoneRef, text_of

#: the most cards a game may have (a shoe of eight decks is 416)
MOST_CARDS = 100_000


@attrs.define
class ZoneInfo:
    """What the engine needs to know of a zone slot besides its contents."""
    ref: ZoneRef
    kind: A.ZoneKind
    seen: A.Seen
    facing_up: bool

    def hides_which(self, seat) -> bool:
        """Whether `seat` cannot tell which face-down card is taken from this zone: it is
        a set (no order to follow) or held as a hand (seen by its owner or the others),
        and shows that seat nothing."""
        return (self.kind is A.ZoneKind.SET or self.seen in (A.Seen.OWNER, A.Seen.OTHERS)) \
            and not self.shows(seat)

    def shows(self, seat) -> bool:
        """Returns whether the zone shows its face-down cards to `seat`."""
        seen = self.seen
        if seen is A.Seen.NOBODY:
            return False
        if seen is A.Seen.ALL:
            return True
        if seen is A.Seen.OWNER:
            return self.ref.owner is seat
        return self.ref.owner is not seat


@attrs.define
class Program:
    """The compiled game: symbol tables, code and decision sites."""
    title: str = ""
    path: str = ""
    options: Dict[str, object] = attrs.Factory(dict)
    seats: List[Seat] = attrs.Factory(list)
    enums: Dict[str, list] = attrs.Factory(dict)
    values: Dict[str, object] = attrs.Factory(dict)     # bare names of members and seats
    card_fields: List[str] = attrs.Factory(list)
    cards: List[Card] = attrs.Factory(list)
    placement: List[tuple] = attrs.Factory(list)        # (card id, zone slot), in order
    zones: List[ZoneRef] = attrs.Factory(list)
    zone_info: List[ZoneInfo] = attrs.Factory(list)
    zone_plain: Dict[str, ZoneRef] = attrs.Factory(dict)
    families: Dict[str, dict] = attrs.Factory(dict)
    var_slots: Dict[str, int] = attrs.Factory(dict)
    var_index: Dict[str, tuple] = attrs.Factory(dict)
    var_init: List[object] = attrs.Factory(list)
    var_names: List[str] = attrs.Factory(list)           # slot -> display name
    var_private: List[object] = attrs.Factory(list)      # slot -> None or (Seen, owner)
    defs: Dict[str, A.DefDecl] = attrs.Factory(dict)
    tables: Dict[str, A.TableDecl] = attrs.Factory(dict)
    rules: Dict[str, A.RuleDecl] = attrs.Factory(dict)
    actions: Dict[str, A.ActionDecl] = attrs.Factory(dict)
    code: list = attrs.Factory(list)
    #: `code` as compiled, before `fuse_runs` made each instruction the rest of its run:
    #: the instructions' texts, for a generated step that goes on into its rules
    plain_code: list = attrs.Factory(list)
    #: every list of instructions that `fuse_runs` gave runs to (`code`, the triggers'
    #: and the actions' blocks), their runs compiled on first use (`Game.compile_now`)
    fused_code: list = attrs.Factory(list)
    code_rules: list = attrs.Factory(list)               # pc -> (rule name, span)
    frame_size: int = 0
    #: the frame slots where actions note cards they take unseen (`Compiler.hidden_picks`)
    pick_slots: tuple = ()
    triggers: list = attrs.Factory(list)
    #: trigger name -> what its condition reads, for the triggers a check may leave out
    #: after a statement that writes none of it (`_trigger_skips`; set by `Game`)
    trigger_skips: dict = attrs.Factory(dict)
    #: trigger name -> what its condition reads, for the checks after one that found
    #: none true (`_trigger_skips.unread`; set by `Game`, None: every check tests the rest)
    calm_reads: Optional[dict] = None
    invariants: list = attrs.Factory(list)
    returns_fn: object = None
    has_hidden: bool = False
    sites: list = attrs.Factory(list)
    is_set: List[bool] = attrs.Factory(list)            # zone slot -> unordered?
    compiler: object = None                              # kept to compile REPL expressions
    has_twins: bool = False                              # are some cards identical?
    twin_kinds: frozenset = frozenset()                  # the kinds of more than one card
    #: whether twins in a set zone may come to differ in facing or in who knows them:
    #: then the rules re-sort the set zones after each statement that may (`regroup`)
    regroups: bool = False
    #: zone slot -> whether the rules only ever lay its cards at its own facing (no
    #: `flip` or move `face ...` can turn one the other way): a move within such a zone
    #: leaves the facings as they are, but in a position placed outside the rules
    #: (`State.placed`), where any card may lie either way (`_facings_set`)
    steady: List[bool] = attrs.Factory(list)
    scratch: list = attrs.Factory(list)
    #: per parameter position, bumped before each loop over that parameter's candidates:
    #: memoised parts of requires and domains (Compiler.hoisted) are good for one loop
    epoch: list = attrs.Factory(lambda: [0])
    derived: dict = attrs.Factory(dict)                 # see `helper`
    outcomes: dict = attrs.Factory(dict)                # see State._random_outcome

    def helper(self, make):
        """Returns `make(self)`, built on first use and kept with the program: what
        keys and views work out once per program (they live and die with it)."""
        found = self.derived.get(make)
        if found is None:
            found = self.derived[make] = make(self)
        return found


def _field_text(field, value) -> str:
    """A bool field shows as its name when true and not at all when false; an optional
    field that is none not at all (not as Python's `None`)."""
    if value is True:
        return field
    if value is False or value is None:
        return ""
    return str(value)


def _var_seen(seen, key):
    """Who sees one element of a variable: None (everyone), or (Seen, owner seat)."""
    if seen is A.Seen.ALL:
        return None
    owner = key[0] if key and isinstance(key[0], Seat) else None
    return (seen, owner)


class LayoutBuilder:
    """Mixin for the Compiler: fills a Program's tables from the declarations."""

    def layout(self, decls):
        p = self.prog
        by_type: Dict[type, list] = {}
        for d in decls:
            by_type.setdefault(type(d), []).append(d)
        for d in by_type.get(A.GameDecl, ()):
            p.title = d.title
        self.layout_seats(by_type[A.PlayersDecl][0])
        for d in by_type.get(A.EnumDecl, ()):
            self.add_enum(d.name, [(m.name, m.texts) for m in d.members])
        for d in by_type.get(A.OptionDecl, ()):
            if isinstance(d.type, A.ChoiceType):
                self.add_enum(d.name, [(n, ()) for n in d.type.names])
        self.resolve_options(by_type.get(A.OptionDecl, ()))
        for kind, table in ((A.DefDecl, p.defs), (A.TableDecl, p.tables),
                            (A.RuleDecl, p.rules), (A.ActionDecl, p.actions)):
            for d in by_type.get(kind, ()):
                table[d.name] = d
        for d in by_type.get(A.CardDecl, ()):
            p.card_fields = [f.name for f in d.fields]
        for d in by_type.get(A.ZoneDecl, ()):
            self.layout_zone(d)
        for d in by_type.get(A.CardsDecl, ()):
            self.layout_cards(d)
        for d in by_type.get(A.VarDecl, ()):    # after the cards: `= card(rank: 2)`
            self.layout_var(d)
        self.texts_apart(by_type.get(A.CardDecl, ()))
        p.has_hidden = any(z.seen is not A.Seen.ALL for z in p.zone_info)
        p.has_twins = len(self.card_kinds) < len(p.cards)
        kinds = Counter(c.kind for c in p.cards)
        p.twin_kinds = frozenset(k for k, n in kinds.items() if n > 1)
        for n, card in enumerate(sorted(p.cards, key=lambda c: (c.kind, c.id))):
            card.order = n      # kinds are numbered as they first come: no twins, the id

    def texts_apart(self, card_decls) -> None:
        """Two cards of different kinds with one text (`1`,`11` and `11`,`1` both `111`)
        are an error where the rules load: a move's text, a view or a trace naming one
        could be read as the other (a replay would not be exact)."""
        first: dict = {}
        for card in self.prog.cards:
            other = first.setdefault(card.text, card)
            if other.kind != card.kind:
                def fields(c):
                    return ", ".join(f"{k}: {text_of(v)}" for k, v in c.attrs.items())
                decl = next(iter(card_decls), None)
                raise self.error(f"the cards ({fields(other)}) and ({fields(card)}) both "
                                 f"have the text {card.text!r}: moves, views and traces "
                                 f"could not tell them apart; give their fields texts "
                                 f"that do not run together", decl)

    def layout_seats(self, d: A.PlayersDecl):
        p = self.prog
        if d.names:
            names = list(d.names)
        else:
            n = self.overrides.get("players", d.default) if d.lo != d.hi else d.lo
            if d.lo != d.hi:
                p.options["players"] = n
            names = [f"p{i + 1}" for i in range(n)]
        p.seats = [Seat(i, name) for i, name in enumerate(names)]
        for s in p.seats:
            self.add_value(s.name, s)

    def add_enum(self, name, members):
        p = self.prog
        p.enums[name] = [Member(name, i, m, texts) for i, (m, texts) in enumerate(members)]
        for m in p.enums[name]:
            self.add_value(m.name, m)

    def add_value(self, name, value):
        values = self.prog.values
        if name in values and values[name] is not value:
            values[name] = None             # ambiguous: must be qualified
            self.ambiguous.add(name)
        elif name not in self.ambiguous:
            values[name] = value

    def resolve_options(self, decls):
        p = self.prog
        for d in decls:
            if d.name in self.overrides:
                value = self.overrides[d.name]
                if isinstance(d.type, A.ChoiceType):
                    value = next(m for m in p.enums[d.name] if m.name == value)
                elif isinstance(d.type, A.NamedType) and d.type.name in p.enums:
                    value = next(m for m in p.enums[d.type.name] if m.name == value)
                elif isinstance(d.type, A.NamedType) and d.type.name == "player":
                    value = next(s for s in p.seats if s.name == value)
                p.options[d.name] = value
            else:
                p.options[d.name] = self.const(d.default)

    def domain_values(self, node):
        """Values of a finite domain known before the game starts, as a tuple."""
        v = self.const(node)
        if not isinstance(v, tuple):
            raise self.error("expected a finite domain (a range, an enum, player, ...)", node)
        return v

    def family_domains(self, d) -> list:
        """The index domains of a zone or variable family, refused where the family would
        have more than MOST_IN_RANGE members (each index may be in range, and their
        product out of memory)."""
        domains = [self.domain_values(i) for i in d.indices]
        size = 1
        for values in domains:
            size *= len(values)
        if size > MOST_IN_RANGE:
            raise self.error(f"{d.name} would be a family of {size:,} "
                             f"{'zones' if isinstance(d, A.ZoneDecl) else 'variables'}: "
                             f"gdl takes at most {MOST_IN_RANGE:,}", d)
        self.members += size
        if self.members > MOST_IN_RANGE:        # families each under the bound, together
            raise self.error(f"with {d.name} the game would have {self.members:,} zones "
                             f"and variables: gdl takes at most {MOST_IN_RANGE:,} in all", d)
        return domains

    def layout_zone(self, d: A.ZoneDecl):
        p = self.prog
        domains = self.family_domains(d)
        table = {}
        for key in itertools.product(*domains) if domains else [()]:
            owner = key[0] if key and isinstance(key[0], Seat) else None
            ref = ZoneRef(d.name, key, len(p.zones), owner)
            p.zones.append(ref)
            p.zone_info.append(ZoneInfo(ref, d.kind, d.seen, d.facing is A.Facing.UP))
            p.is_set.append(d.kind is A.ZoneKind.SET)
            table[key] = ref
        if d.indices:
            p.families[d.name] = table
        else:
            p.zone_plain[d.name] = table[()]

    def layout_var(self, d: A.VarDecl):
        p = self.prog
        init = self.const(d.init) if d.init is not None else self.type_default(d.type)
        domains = self.family_domains(d)
        keys = list(itertools.product(*domains)) if domains else [()]
        base = len(p.var_init)
        table = {}
        for key in keys:
            table[key] = len(p.var_init)
            p.var_init.append(init)
            p.var_private.append(_var_seen(d.seen, key))
            label = d.name + (f"[{','.join(getattr(k, 'text', str(k)) for k in key)}]"
                              if key else "")
            p.var_names.append(label)
        if d.indices:
            p.var_index[d.name] = (base, table)
        else:
            p.var_slots[d.name] = base

    def type_default(self, t):
        if isinstance(t, A.OptionalType):
            return None
        if isinstance(t, A.NamedType) and t.name == "int":
            return 0
        if isinstance(t, A.NamedType) and t.name == "bool":
            return False
        if isinstance(t, A.RangeType):
            return self.const(t.lo)
        if isinstance(t, A.NamedType) and t.name == "text":
            return ""                   # not none: a text is never none but where `text?`
        return None

    def layout_cards(self, d: A.CardsDecl):
        from ._scope import Local, Scope
        scope = Scope()
        loops = [(f, scope.bind(f.var, Local("scratch", self.new_scratch()))) for f in d.fors]
        item = self.card_constructor(d.item, scope)
        zone = self.expr(d.zone, scope)
        cond = self.expr(d.cond, scope) if d.cond is not None else None
        domains = []
        for f, local in loops:
            domains.append((local.slot, f.iter))

        def rec(i):
            if i == len(domains):
                if cond is None or cond(self.const_state):
                    self.place_card(item(self.const_state), zone(self.const_state), d)
                return
            slot, node = domains[i]
            for v in self.const(node, scope):
                self.scratch[slot] = v
                rec(i + 1)
        rec(0)

    def card_constructor(self, node, scope):
        """`card(rank: r, suit: s)` in a `cards` declaration builds a new card's attributes."""
        fields = self.prog.card_fields
        if not (isinstance(node, A.Call) and node.func == "card"):
            raise self.error("a cards declaration makes cards with card(field: value, ...)",
                             node)
        parts = []
        for i, a in enumerate(node.args):
            if isinstance(a, A.Keyword):
                parts.append((a.name, self.expr(a.value, scope)))
            elif i < len(fields):
                parts.append((fields[i], self.expr(a, scope)))
        missing = [f for f in fields if f not in {n for n, _ in parts}]
        if missing:
            raise self.error(f"card(...) must give every field; missing: {', '.join(missing)}",
                             node)
        return lambda st: {n: f(st) for n, f in parts}

    def place_card(self, attrs_, zone, node):
        p = self.prog
        if not isinstance(zone, ZoneRef):
            raise self.error("cards must be placed into a zone", node)
        kind_key = tuple(attrs_[f] for f in p.card_fields)
        kinds = self.card_kinds
        kind = kinds.setdefault(kind_key, len(kinds))
        texts = [getattr(attrs_[f], "text", None) for f in p.card_fields]
        text = "".join(t if t is not None else _field_text(f, attrs_[f])
                       for t, f in zip(texts, p.card_fields))
        symbol = "".join(getattr(attrs_[f], "symbol", None) or str(attrs_[f])
                         if not isinstance(attrs_[f], bool) and attrs_[f] is not None
                         else "" for f in p.card_fields)
        if len(p.cards) >= MOST_CARDS:      # (each seat's knowledge is a bit per card)
            raise self.error(f"the game would have more than {MOST_CARDS:,} cards: gdl takes "
                             f"at most {MOST_CARDS:,}", node)
        card = Card(len(p.cards), attrs_, kind, text, symbol)
        p.cards.append(card)
        p.placement.append((card.id, zone.slot))
