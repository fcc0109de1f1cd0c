"""The type pass over declarations and statements, on top of the expression typer.

Each statement says what its parts must be (a zone to shuffle, a bool to test, an int to
add); each declaration checks its own parts and publishes the types others rely on: the
signature of a def, table or rule, the type of an option or variable.
"""
from __future__ import annotations

from .. import ast as A
from ._consts import Consts, show
from ._scope import Local, Symbol
from ._typesys import (ANY, BOOL, CARD, INT, NONE, PLAYER, STR, ListT, OptT, Ty, Unknown,
                       ZoneT, assignable, is_cards, is_players, is_zone, unify, unwrap)
from ._types import ExprTyper, loose
from ._walk import callees_first

#: what a statement's cards or players of no type the checker could tell are tested for
#: as it runs
_SOME_CARDS = Unknown((CARD, ZoneT(None), ListT(CARD)), "a card, a list of cards or a zone")
_SOME_PLAYERS = Unknown((PLAYER, ListT(PLAYER)), "a player or a list of players")


class TypePass(ExprTyper):
    """Types a whole ruleset."""

    def __init__(self, scope, res, report):
        super().__init__(scope, res, report)
        self.consts = Consts(scope, res)
        self.too_deep = False           # a chain too long to follow, said (`guarded`)

    def run(self, ruleset: A.Ruleset) -> None:
        # defs typed callees first: a chain of defs each calling the next was typed by
        # recursion as deep as the chain (200 defs: no place named)
        for decl in callees_first(ruleset.decls):
            self.guarded(self.signature, decl)
        for decl in ruleset.decls:
            handler = _DECLS.get(type(decl))
            if handler is not None:
                self.guarded(handler, self, decl)

    def guarded(self, fn, *args) -> None:
        """Runs a declaration's check; a chain of declarations each needing the next (defs
        calling defs, options' defaults naming options) too long to follow by recursion is
        an error at the declaration, not a RecursionError with no place."""
        decl = args[-1]
        try:
            fn(*args)
        except RecursionError:
            if not self.too_deep:           # said once: the later links fail alike
                self.too_deep = True
                self.error("this needs a chain of declarations (defs calling defs, or "
                           "options naming options) too long to follow: shorten it",
                           decl.span)

    # ------------------------------------------------------------------ signatures
    def signature(self, decl) -> tuple:
        compute = self._def_sig if isinstance(decl, A.DefDecl) else self._table_sig
        return self.once(("sig", id(decl)), lambda: compute(decl),
                         ([ANY] * len(decl.params), ANY))

    def _def_sig(self, decl: A.DefDecl) -> tuple:
        params = self.param_types(decl.params, lists=True)
        return params, self.type_of(decl.body)

    def _table_sig(self, decl: A.TableDecl) -> tuple:
        params = self.param_types(decl.params)
        result, untyped = None, []
        for row in decl.rows:
            for key, t, p in zip(row.keys, params, decl.params):
                self._table_key(key, t, p)
            result = self._table_value(result, row.value, decl, untyped)
        if decl.default is not None:
            result = self._table_value(result, decl.default, decl, untyped)
        return params, self.loose(untyped, result or ANY)

    def _table_key(self, key, t: Ty, param: A.Param) -> None:
        if isinstance(key, A.Range):
            self.range_(key)
            if not assignable(INT, t):
                self.error(f"a range key needs an int parameter, and {param.name} is {t}",
                           key.span)
            return
        kt = self.type_of(key)
        if not assignable(kt, t):
            self.error(f"a key for {param.name} must be {t}, not {kt}", key.span)

    def _table_value(self, prev, expr, decl: A.TableDecl, untyped: list):
        t = self.type_of(expr)
        if unwrap(t) == ANY:            # (no type told): tested once the others are known
            untyped.append(expr)
            return prev
        joined = t if prev is None else unify(prev, t)
        if joined is None:
            self.error(f"table {decl.name} gives {prev} in earlier rows but {t} here",
                       expr.span)
            return prev
        return joined

    def rule_params(self, decl: A.RuleDecl) -> list:
        return self.once(("rule", id(decl)), lambda: self.param_types(decl.params, lists=True),
                         [ANY] * len(decl.params))

    # ------------------------------------------------------------------ declarations
    def option(self, d: A.OptionDecl) -> None:
        """A default must have the option's type and be known before the game starts."""
        t = self.option_type(d)
        default = self.type_of(d.default)
        if not assignable(default, t):
            self.error(f"the default of option {d.name} must be {t}, not {default}",
                       d.default.span)
        elif default != ANY and self.consts.value(d.default) is None:
            self.error(f"the default of option {d.name} must be a constant (numbers, "
                       f"members, true/false and other options)", d.default.span)
        if isinstance(d.type, A.RangeType):
            self._option_range(d)

    def _option_range(self, d: A.OptionDecl) -> None:
        lo, hi = self.consts.int_value(d.type.lo), self.consts.int_value(d.type.hi)
        if lo is None or hi is None:
            self.error(f"the bounds of option {d.name} must be constants: numbers or other "
                       f"options", d.type.span)
            return
        value = self.consts.int_value(d.default)
        if value is not None and not lo <= value <= hi:
            self.error(f"the default {show(value)} of option {d.name} is outside {lo}..{hi}",
                       d.default.span)

    def card(self, d: A.CardDecl) -> None:
        for field in d.fields:
            self.field_type(field)

    def cards(self, d: A.CardsDecl) -> None:
        self.bind_fors(d.fors)
        if d.cond is not None:
            self.expect(d.cond, BOOL, "the condition after if")
        zone = self.type_of(d.zone)
        if not is_zone(zone):
            self.error(f"cards go into a zone, not a {zone}", d.zone.span)
        self.expect(d.item, CARD, "each item of a cards declaration")
        # a new card gives every field (positional arguments and a misspelt field have
        # errors of their own, told alone)
        item = d.item
        if isinstance(item, A.Call) and item.func == "card" and \
                all(isinstance(a, A.Keyword) for a in item.args):
            given = {a.name for a in item.args}
            missing = [f for f in self.scope.fields if f not in given]
            if missing and given <= set(self.scope.fields):
                self.error(f"card(...) must give every field; missing: "
                           f"{', '.join(missing)}", item.span)

    def zone(self, d: A.ZoneDecl) -> None:
        self.index_types(d)

    def var(self, d: A.VarDecl) -> None:
        self.index_types(d)
        t = self.var_type(d)
        if d.init is not None:
            init = self.type_of(d.init)
            if not self.fits(d.init, init, t):
                self.error(f"var {d.name} holds {t}, so it cannot start as {init}",
                           d.init.span)
        elif t not in (INT, BOOL, STR, ANY) and not isinstance(t, (OptT, ListT)) and not (
                isinstance(d.type, A.RangeType)):
            self.error(f"var {d.name} holds {t} and has no value to start with: give one "
                       f"(= ...) or make it optional ({t}?) to start as none", d.span)

    def def_(self, d) -> None:
        self.signature(d)

    def rule(self, d: A.RuleDecl) -> None:
        self.rule_params(d)
        self.block(d.body)

    def action(self, d: A.ActionDecl) -> None:
        self.param_types(d.params)
        for req in d.requires:
            self.expect(req.cond, BOOL, "a require")
        for secret in d.secrets:
            if secret.when is not None:
                self.expect(secret.when, BOOL, "the condition of a secret")
        self.block(d.body)

    def trigger(self, d: A.TriggerDecl) -> None:
        self.expect(d.cond, BOOL, "the condition of a trigger")
        self.block(d.body)

    def invariant(self, d: A.InvariantDecl) -> None:
        self.expect(d.expr, BOOL, f"invariant {d.name}")

    def flow(self, d: A.FlowDecl) -> None:
        self.block(d.body)

    def returns(self, d: A.ReturnsDecl) -> None:
        self.set_local(d, PLAYER)
        self.expect(d.expr, INT, "a player's result in returns")

    # ------------------------------------------------------------------ statements
    def block(self, body: tuple) -> None:
        for node in body:
            handler = _STMTS.get(type(node))
            if handler is not None:
                handler(self, node)

    def target(self, t: A.Target) -> Ty:
        found = self.res.of(t)
        if isinstance(found, Local):
            if t.indices:
                self.error(f"{t.name} is a local, so it has no indices", t.span)
            return self.local_types.get(found, ANY)
        if isinstance(found, Symbol):
            if found.decl.indices or t.indices:
                self.check_indices(found, t.indices, t.span)
            return self.var_type(found.decl)
        for index in t.indices:
            self.type_of(index)
        return ANY

    def assign(self, node: A.Assign) -> None:
        want, got = self.target(node.target), self.type_of(node.value)
        if not self.fits(node.value, got, want):
            self.error(f"cannot assign {got} to {node.target.name}, which holds {want}",
                       node.value.span)

    def aug_assign(self, node: A.AugAssign) -> None:
        want = self.target(node.target)
        if not assignable(want, INT):
            self.error(f"{node.op}= needs an int, and {node.target.name} holds {want}",
                       node.target.span)
        else:                           # an `int?` or of no type told: tested as it runs
            self.fits(node.target, want, INT)
        self.expect(node.value, INT, f"the right side of {node.op}=")

    def let(self, node: A.Let) -> None:
        t = self.type_of(node.value)
        self.set_local(node, OptT(ANY) if t == NONE else t)

    def move(self, node: A.Move) -> None:
        self.need_cards(node.cards, "move")
        self.need_zone(node.place.zone, "cards can only move to")
        if node.place.depth is not None:
            self.expect(node.place.depth, INT, "a depth")

    def deal(self, node: A.Deal) -> None:
        self.expect(node.count, INT, "the number of cards to deal")
        self.need_zone(node.source, "deal takes cards from")
        self.set_local(node, self.domain_elem(node.iter, f"for {node.var}"))
        self.need_zone(node.dest, "deal gives cards to")

    def need_cards(self, expr, verb: str) -> None:
        t = self.type_of(expr)
        if not is_cards(self.written_out(expr, t)):
            self.error(f"{verb} needs a card, a list of cards or a zone, not {t}", expr.span)
        self.note_optional(expr, t, _SOME_CARDS, Unknown(CARD))

    def need_zone(self, expr, what: str) -> None:
        t = self.type_of(expr)
        if not is_zone(t):
            self.error(f"{what} a zone, not {t}", expr.span)
        self.note_optional(expr, t)

    def need_players(self, expr, what: str) -> None:
        t = self.type_of(expr)
        if not is_players(self.written_out(expr, t)):
            self.error(f"{what} a player or a list of players, not {t}", expr.span)
        self.note_optional(expr, t, _SOME_PLAYERS, Unknown(PLAYER))

    def written_out(self, expr, t):
        """A list written out of `T?` items stands for a list of T where a statement
        needs one: each item is tested for none as it runs (`note_optional`); a `none`
        written among them is refused."""
        if isinstance(expr, A.ListLit) and isinstance(t, ListT) and \
                isinstance(t.elem, OptT) and NONE not in map(self.type_of, expr.items):
            return ListT(t.elem.inner)
        return t

    def note_optional(self, expr, t, unknown=None, item=None) -> None:
        """A `T?` where a statement needs its value is tested for none as it runs (as
        `fits` notes one in an expression); so is each `T?` of a list written out.  A
        value of no type the checker could tell is tested as `unknown` says (for none,
        where a list may be), an item of a list written out as `item` says."""
        if unwrap(t) == ANY:
            if unknown is not None:
                self.optional_uses[id(expr)] = unknown
        elif isinstance(t, OptT):
            self.optional_uses[id(expr)] = unwrap(t)
        elif item is not None and unknown is not None and \
                not isinstance(expr, A.ListLit) and loose(t, ListT(item.want)):
            self.optional_uses[id(expr)] = Unknown(ListT(item.want))   # (each item)
        if isinstance(expr, A.ListLit):
            for each in expr.items:
                self.note_optional(each, self.type_of(each), item)

    def shuffle(self, node: A.Shuffle) -> None:
        self.need_zone(node.zone, "shuffle needs")
        t = unwrap(self.type_of(node.zone))
        sym = self.scope.symbols.get(t.family) if isinstance(t, ZoneT) and t.family else None
        if sym is not None and sym.kind == "zone" and sym.decl.kind == A.ZoneKind.SET:
            # its cards stay in card order: every one of the n! outcomes is the same
            # position, and a deal from it the same cards every game
            self.error(f"{t.family} is a set zone, whose cards have no order, so shuffling "
                       f"it would change nothing (a deal from it takes the same cards every "
                       f"game); declare it a stack to shuffle it", node.span)

    def flip(self, node: A.Flip) -> None:
        self.need_cards(node.cards, "flip")

    def reveal(self, node: A.Reveal) -> None:
        self.need_cards(node.cards, "reveal")
        self.need_players(node.to, "cards are revealed to")

    def choose(self, node: A.Choose) -> None:
        self.expect(node.player, PLAYER, "the player who chooses")

    def simultaneous(self, node: A.Simultaneous) -> None:
        t = self.expect(node.players, ListT(PLAYER), "the players of simultaneously")
        self.note_optional(node.players, t, None, Unknown(PLAYER))

    def random(self, node: A.RandomChoice) -> None:
        self.set_local(node, self.domain_elem(node.domain, f"random {node.var}"))

    def win(self, node: A.Win) -> None:
        self.need_players(node.who, "the winner must be")

    def eliminate(self, node: A.Eliminate) -> None:
        self.expect(node.who, PLAYER, "the player to eliminate")

    def fail(self, node: A.Fail) -> None:
        self.expect(node.message, STR, "the message of fail")

    def call_rule(self, node: A.CallRule) -> None:
        decl = self.scope.decl_of(node.name, "rule")
        if decl is None:
            for arg in node.args:
                self.type_of(arg)
            return
        self.check_args(node, self.rule_params(decl), f"rule {node.name}")

    def if_(self, node: A.If) -> None:
        for cond, body in node.branches:
            self.expect(cond, BOOL, "the condition of if")
            self.block(body)
        self.block(node.else_body)

    def repeat(self, node: A.Repeat) -> None:
        self.expect(node.count, INT, "the count of repeat")
        self.block(node.body)

    def while_(self, node: A.While) -> None:
        self.expect(node.cond, BOOL, "the condition of while")
        self.block(node.body)

    def for_(self, node: A.For) -> None:
        self.set_local(node, self.domain_elem(node.iter, f"for {node.var}"))
        self.block(node.body)


_DECLS = {
    A.OptionDecl: TypePass.option, A.CardDecl: TypePass.card, A.CardsDecl: TypePass.cards,
    A.ZoneDecl: TypePass.zone, A.VarDecl: TypePass.var, A.DefDecl: TypePass.def_,
    A.TableDecl: TypePass.def_, A.RuleDecl: TypePass.rule, A.ActionDecl: TypePass.action,
    A.TriggerDecl: TypePass.trigger, A.InvariantDecl: TypePass.invariant,
    A.FlowDecl: TypePass.flow, A.ReturnsDecl: TypePass.returns,
}

_STMTS = {
    A.Assign: TypePass.assign, A.AugAssign: TypePass.aug_assign, A.Let: TypePass.let,
    A.Move: TypePass.move, A.Deal: TypePass.deal, A.Shuffle: TypePass.shuffle,
    A.Flip: TypePass.flip, A.Reveal: TypePass.reveal, A.Choose: TypePass.choose,
    A.Simultaneous: TypePass.simultaneous, A.RandomChoice: TypePass.random,
    A.Win: TypePass.win, A.Eliminate: TypePass.eliminate, A.Fail: TypePass.fail, A.CallRule: TypePass.call_rule,
    A.If: TypePass.if_, A.Repeat: TypePass.repeat, A.While: TypePass.while_,
    A.For: TypePass.for_,
}
