"""Name resolution: binds every use of a name to a declaration, a local, a member or a
predefined name.

The result, a Resolution, maps each Name node (and each assignment target and qualified
member such as `colour.red`) to what it means, so later passes never look a name up again
and cannot disagree about scopes.  Reported here: unknown and ambiguous names, locals that
hide other names, `me` and `changed` outside the places they mean something, assignments
to things that are not variables, unknown actions, rules and functions, and secrets that
are not parameters.
"""
from __future__ import annotations

from typing import Optional

import attrs

from .. import ast as A
from ..builtins import AGGREGATES, FUNCTIONS, NAMES
from ..keywords import reserved_for
from ..errors import did_you_mean, source_lines
from ..span import Span
from ._report import Report, article, attr_span, listing
from ._scope import READ_IN_EXPRESSIONS, Local, Member, Predef, Scope, Symbol
from ._walk import children


class Resolution:
    """What each name node means, keyed by node identity (equal nodes may differ in place)."""

    def __init__(self):
        self.names: dict = {}    # id(Name | Attr | Target) -> Symbol | Local | Member | Predef
        self.locals: dict = {}   # id(binding node: Param, Let, For, CompFor, ...) -> Local

    def of(self, node):
        return self.names.get(id(node))

    def local(self, binder) -> Optional[Local]:
        return self.locals.get(id(binder))


class _Env:
    """The locals visible at one point: a chain of scopes, innermost first."""

    def __init__(self, parent: Optional["_Env"] = None):
        self.vars: dict = {}
        self.parent = parent

    def lookup(self, name: str) -> Optional[Local]:
        env = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        return None

    def child(self) -> "_Env":
        return _Env(self)

    def all_locals(self) -> list:
        env, out = self, []
        while env is not None:
            out.extend(env.vars.values())
            env = env.parent
        return out


@attrs.frozen
class _Ctx:
    """Where the walk is: for messages, and for what `me`, `changed` and `secret` may do."""
    where: str
    me_ok: bool = False
    trigger_cond: bool = False
    params: tuple = ()


def resolve(ruleset: A.Ruleset, scope: Scope, report: Report) -> Resolution:
    """Returns what every name in the ruleset means, reporting the names that mean nothing."""
    names = _NamePass(scope, report)
    for decl in ruleset.decls:
        handler = _DECLS.get(type(decl))
        if handler is not None:
            handler(names, decl)
    return names.res


def resolve_expression(node, scope: Scope, res: Resolution, report: Report) -> None:
    """Adds to `res` what every name in one expression typed outside the ruleset means
    (no local is in scope, nor `me`), reporting the names that mean nothing."""
    names = _NamePass(scope, report)
    names.res = res
    names.expr(node, _Env(), _Ctx("an expression outside the rules"))


#: words of `seen by` a value may be mistaken for, and what to write instead
_SEATS_WORDS = {
    "others": ("`others` is a word of `seen by` only; the other seats are "
               "`[q for q in players if q != me]`",),
    "owner": ("`owner` is a word of `seen by` only; a zone's owner is `owner(z)`",),
    "everyone": ("every seat in the game is `players`",),
}

#: Words other languages spell true and false with, lower-cased (`yes` was taken for
#: `players`; `True`, `FALSE` are gdl's words in other cases)
_TRUTH_WORDS = {"yes": "true", "on": "true", "true": "true",
                "no": "false", "off": "false", "false": "false"}


class _NamePass:
    def __init__(self, scope: Scope, report: Report):
        self.scope = scope
        self.report = report
        self.res = Resolution()

    # ------------------------------------------------------------------ declarations
    def option(self, d: A.OptionDecl) -> None:
        ctx = _Ctx(f"the default of option {d.name}")
        self.type_expr(d.type, _Env(), ctx)
        self.expr(d.default, _Env(), ctx)

    def cards(self, d: A.CardsDecl) -> None:
        ctx = _Ctx("a cards declaration")
        env = self.fors(d.fors, _Env(), ctx)
        for node in (d.zone, d.item, d.cond):
            if node is not None:
                self.expr(node, env, ctx)

    def card(self, d: A.CardDecl) -> None:
        for field in d.fields:
            self.type_expr(field.type, _Env(), _Ctx(f"card field {field.name}"))

    def zone(self, d: A.ZoneDecl) -> None:
        for index in d.indices:
            self.expr(index, _Env(), _Ctx(f"the indices of zone {d.name}"))

    def var(self, d: A.VarDecl) -> None:
        ctx = _Ctx(f"var {d.name}")
        for index in d.indices:
            self.expr(index, _Env(), ctx)
        self.type_expr(d.type, _Env(), ctx)
        if d.init is not None:
            self.expr(d.init, _Env(), ctx)

    def def_(self, d: A.DefDecl) -> None:
        ctx = _Ctx(f"def {d.name}")
        self.expr(d.body, self.params(d.params, ctx, lists=True), ctx)

    def table(self, d: A.TableDecl) -> None:
        """Keys are constants, resolved without the parameters; values may use them."""
        ctx = _Ctx(f"table {d.name}")
        env = self.params(d.params, ctx)
        for row in d.rows:
            for key in row.keys:
                self.expr(key, _Env(), ctx)
            self.expr(row.value, env, ctx)
        if d.default is not None:
            self.expr(d.default, env, ctx)

    def rule(self, d: A.RuleDecl) -> None:
        ctx = _Ctx(f"rule {d.name}", me_ok=True)
        self.block(d.body, self.params(d.params, ctx, lists=True), ctx)

    def action(self, d: A.ActionDecl) -> None:
        ctx = _Ctx(f"action {d.name}", me_ok=True, params=tuple(p.name for p in d.params))
        env = self.params(d.params, ctx)
        for req in d.requires:
            self.expr(req.cond, env, ctx)
        for secret in d.secrets:
            self.secret(secret, env, ctx)
        self.block(d.body, env, ctx)

    def trigger(self, d: A.TriggerDecl) -> None:
        ctx = _Ctx(f"trigger {d.name}")     # runs after any statement: nobody's move
        self.expr(d.cond, _Env(), attrs.evolve(ctx, trigger_cond=True))
        self.block(d.body, _Env(), ctx)

    def invariant(self, d: A.InvariantDecl) -> None:
        self.expr(d.expr, _Env(), _Ctx(f"invariant {d.name}"))

    def flow(self, d: A.FlowDecl) -> None:
        self.block(d.body, _Env(), _Ctx("the flow"))

    def returns(self, d: A.ReturnsDecl) -> None:
        env = _Env()
        self.bind(env, d.var, "player", self.report.word_span(d.span, d.var), d)
        self.expr(d.expr, env, _Ctx("returns"))

    def params(self, params: tuple, ctx: _Ctx, lists: bool = False) -> _Env:
        """Binds parameters left to right: a domain may use the parameters before it.
        With `lists` (a def's, a rule's), a parameter may be `list[DOMAIN]`."""
        env = _Env()
        for p in params:
            domain = p.domain
            while lists and self.list_type(domain, env):
                domain = A.list_item_domain(domain)
            self.expr(domain, env, ctx)
            self.bind(env, p.name, "parameter", p.span, p)
        return env

    def list_type(self, domain, env: _Env) -> bool:
        """Whether a parameter's domain is `list[...]`, not an index of a zone or variable
        named list."""
        return A.list_item_domain(domain) is not None and env.lookup("list") is None and \
            "list" not in self.scope.names_of("zone", "var")

    def secret(self, s: A.Secret, env: _Env, ctx: _Ctx) -> None:
        for name in s.names:
            if name not in ctx.params:
                self.report.error(f"secret {name}: {name} is not a parameter of {ctx.where}",
                                  self.report.word_span(s.span, name), expected=ctx.params,
                                  suggestion=did_you_mean(name, ctx.params))
        if s.when is not None:
            self.expr(s.when, env, ctx)

    def type_expr(self, t, env: _Env, ctx: _Ctx) -> None:
        """Type names are looked up by the type pass; only range bounds hold expressions."""
        if isinstance(t, A.OptionalType):
            self.type_expr(t.inner, env, ctx)
        elif isinstance(t, A.RangeType):
            self.expr(t.lo, env, ctx)
            self.expr(t.hi, env, ctx)

    # ------------------------------------------------------------------ binding
    def bind(self, env: _Env, name: str, kind: str, span: Span, binder) -> Local:
        """Adds a local, reporting a clash with any name it would hide."""
        here = env.vars.get(name)
        why = reserved_for(name, kind)
        if why:
            self.report.error(f"{name} cannot name a {kind}: {why}; choose another name", span)
        elif here is not None:
            self.report.error(f"{name} is already {article(here.kind)} here (line "
                              f"{here.span.line}); use another name", span)
        else:
            clash = self._hidden(name, env)
            if clash:
                self.report.error(f"local {name} hides {clash}; rename the local", span)
        local = Local(name, kind, span)
        env.vars[name] = local
        self.res.locals[id(binder)] = local
        return local

    def _hidden(self, name: str, env: _Env) -> str:
        prev = env.lookup(name)
        if prev is not None:
            return f"the {prev.kind} {name} (line {prev.span.line})"
        if name in NAMES:
            return f"the predefined name {name}"
        sym = self.scope.symbols.get(name)
        if sym is not None:
            return f"the {sym.kind} {name}"
        owners = self.scope.owners.get(name)
        if owners:
            return f"the member {name} of {' and '.join(owners)}"
        return ""

    def fors(self, fors: tuple, env: _Env, ctx: _Ctx) -> _Env:
        """Binds comprehension variables; each `for` sees the ones before it."""
        inner = env.child()
        for f in fors:
            self.expr(f.iter, inner, ctx)
            self.bind(inner, f.var, "for variable", self.report.word_span(f.span, f.var), f)
        return inner

    # ------------------------------------------------------------------ looking up
    def lookup(self, name: str, span: Span, env: _Env, ctx: _Ctx, noun: str = "name",
               pool: Optional[list] = None):
        """Returns what `name` means here (local, predefined, global, member), or None."""
        local = env.lookup(name)
        if local is not None:
            return local
        if name in NAMES:
            return self._predef(name, span, ctx)
        meanings = self._meanings(name)
        if len(meanings) == 1:
            return meanings[0]
        if meanings:
            self._ambiguous(name, span, meanings)
        else:
            if pool is None:
                pool = ([l.name for l in env.all_locals()] + list(self.scope.symbols)
                        + list(self.scope.owners) + list(NAMES))
            self.report.error(f"unknown {noun} {name}", span,
                              suggestion=(_TRUTH_WORDS.get(name.lower())
                                          or did_you_mean(name, pool)),
                              notes=_SEATS_WORDS.get(name, ()))
        return None

    def _meanings(self, name: str) -> list:
        """Every global meaning of a bare name: a declaration and each enum having it."""
        sym = self.scope.symbols.get(name)
        found = [sym] if sym is not None and sym.kind != "seat" else []
        return found + [Member(owner, name) for owner in self.scope.owners.get(name, ())]

    def _ambiguous(self, name: str, span: Span, meanings: list) -> None:
        if any(isinstance(m, Symbol) and m.kind in READ_IN_EXPRESSIONS for m in meanings):
            return          # reported once, at the declaration (`_scope.unnameable`)
        said, qualified = [], []
        for m in meanings:
            if isinstance(m, Symbol):
                said.append(f"the {m.kind} {name}")
            else:
                said.append("a seat" if m.owner == "player" else f"a member of {m.owner}")
                qualified.append(f"{m.owner}.{name}")
        self.report.error(f"ambiguous name {name}: it is {' and '.join(said)}; write the "
                          f"qualified name instead", span, expected=qualified)

    def _predef(self, name: str, span: Span, ctx: _Ctx) -> Predef:
        if name == "me" and not ctx.me_ok:
            self.report.error(f"me is not defined in {ctx.where}: it means the player making "
                              f"a move, so it exists only in actions and in the rules they do",
                              span)
        return Predef(name)

    # ------------------------------------------------------------------ expressions
    def expr(self, node, env: _Env, ctx: _Ctx) -> None:
        handler = _EXPRS.get(type(node))
        if handler is not None:
            handler(self, node, env, ctx)
            return
        for child in children(node):
            self.expr(child, env, ctx)

    def name(self, node: A.Name, env: _Env, ctx: _Ctx) -> None:
        found = self.lookup(node.id, node.span, env, ctx)
        if found is not None:
            self.res.names[id(node)] = found

    def attr(self, node: A.Attr, env: _Env, ctx: _Ctx) -> None:
        """`colour.red` and `player.red` name members; anything else is a card attribute."""
        owner = self._qualifier(node.obj, env)
        if owner is None:
            self.expr(node.obj, env, ctx)
            return
        members = self.scope.members_of(owner)
        if node.name in members:
            self.res.names[id(node)] = Member(owner, node.name)
            return
        what = "no seat is named" if owner == "player" else f"enum {owner} has no member"
        self.report.error(f"{what} {node.name}", attr_span(node), expected=members,
                          suggestion=did_you_mean(node.name, members))

    def _qualifier(self, obj, env: _Env) -> Optional[str]:
        if not isinstance(obj, A.Name) or env.lookup(obj.id) is not None:
            return None
        if obj.id == "player" or obj.id in self.scope.enums:
            return obj.id
        return None

    def index(self, node: A.Index, env: _Env, ctx: _Ctx) -> None:
        indexable = self.scope.names_of("zone", "var")
        name = node.obj.id if isinstance(node.obj, A.Name) else None
        free = name is not None and env.lookup(name) is None and name not in indexable
        if free and name != "list" and did_you_mean(name, ["list"]) == "list" and \
                did_you_mean(name, indexable) is None:
            self.report.error(f"unknown name {name}: a list type is written list[card]",
                              node.obj.span, suggestion="list")
            return
        if free and name == "list" and len(node.args) != 1:
            self.report.error("list[...] takes the type of its items, one: list[card], "
                              "list[list[card]]", node.obj.span)
            return
        if free and name == "list":
            # the reference writes the types of builtins so (`cards` gives list[card])
            self.report.error("list[...] is a type only of a def's or rule's parameter "
                              "(`def melds(xs: list[card])`): an action's parameter ranges "
                              "over a domain (a zone, a range, an enum, a list of values), "
                              "and a variable holds one value", node.obj.span)
            return
        if isinstance(node.obj, A.Name):
            pool = self.scope.names_of("zone", "var")
            found = self.lookup(node.obj.id, node.obj.span, env, ctx,
                                noun="zone or variable", pool=pool)
            if found is not None:
                self.res.names[id(node.obj)] = found
        else:
            self.expr(node.obj, env, ctx)
        for arg in node.args:
            self.expr(arg, env, ctx)

    def call(self, node: A.Call, env: _Env, ctx: _Ctx) -> None:
        if node.func == "changed":
            self._changed(node, env, ctx)
            return
        self._function(node)
        for arg in node.args:
            self.expr(arg, env, ctx)

    def _function(self, node: A.Call) -> None:
        sym = self.scope.symbols.get(node.func)
        if node.func in FUNCTIONS or (sym is not None and sym.kind in ("def", "table")):
            return
        if sym is not None:
            hint = f"; run it with do {node.func}(...)" if sym.kind == "rule" else ""
            self.report.error(f"{node.func} is {article(sym.kind)}, not a function{hint}",
                              node.span)
            return
        if node.func in AGGREGATES:         # `sum(xs)`: the form is `sum(x for x in xs)`
            self.report.error(f"{node.func} is written {node.func}(item for x in xs if "
                              f"cond), as in {node.func}(x for x in xs), not with a list "
                              f"or a zone as its argument", node.span)
            return
        pool = list(FUNCTIONS) + self.scope.names_of("def", "table")
        self.report.error(f"unknown function {node.func}", node.span,
                          suggestion=did_you_mean(node.func, pool))

    def _changed(self, node: A.Call, env: _Env, ctx: _Ctx) -> None:
        """`changed(v)` asks whether v was assigned since the trigger was last checked."""
        if not ctx.trigger_cond:
            self.report.error("changed(...) is only allowed in the condition of a trigger",
                              node.span)
        arg = node.args[0] if len(node.args) == 1 else None
        if not isinstance(arg, A.Name):
            self.report.error("changed takes the name of one variable, as in changed(total)",
                              node.span, expected=self.scope.names_of("var"))
            return
        found = self.lookup(arg.id, arg.span, env, ctx, noun="variable",
                            pool=self.scope.names_of("var"))
        if found is not None:
            self.res.names[id(arg)] = found
            if not (isinstance(found, Symbol) and found.kind == "var"):
                self.report.error(f"changed takes the name of a variable (var), and {arg.id} "
                                  f"is not one", arg.span, expected=self.scope.names_of("var"))

    def comprehension(self, node, env: _Env, ctx: _Ctx) -> None:
        if isinstance(node, A.Aggregate) and node.func not in AGGREGATES:
            self.report.error(f"unknown aggregate function {node.func}", node.span,
                              expected=listing(AGGREGATES),
                              suggestion=did_you_mean(node.func, AGGREGATES))
        inner = self.fors(node.fors, env, ctx)
        if node.cond is not None:
            self.expr(node.cond, inner, ctx)
        self.expr(node.item, inner, ctx)

    # ------------------------------------------------------------------ statements
    def stmt(self, node, env: _Env, ctx: _Ctx) -> None:
        handler = _STMTS.get(type(node))
        if handler is not None:
            handler(self, node, env, ctx)
            return
        for child in children(node):
            self.expr(child, env, ctx)

    def block(self, body: tuple, env: _Env, ctx: _Ctx) -> None:
        inner = env.child()
        for node in body:
            self.stmt(node, inner, ctx)

    def assign(self, node, env: _Env, ctx: _Ctx) -> None:
        self.target(node.target, env, ctx)
        self.expr(node.value, env, ctx)

    def target(self, t: A.Target, env: _Env, ctx: _Ctx) -> None:
        """Only `var` variables and `let` locals can be assigned."""
        found = env.lookup(t.name) or self.scope.symbols.get(t.name)
        kind = found.kind if found is not None else ("predefined name" if t.name in NAMES
                                                     else None)
        if kind is None:
            pool = self.scope.names_of("var") + [l.name for l in env.all_locals()
                                                 if l.kind == "let local"]
            self.report.error(f"unknown variable {t.name}", t.span,
                              suggestion=did_you_mean(t.name, pool))
        elif kind not in ("var", "let local"):
            self.report.error(f"cannot assign to the {kind} {t.name}: only variables (var) "
                              f"and let locals can be assigned", t.span)
        else:
            self.res.names[id(t)] = found
        for index in t.indices:
            self.expr(index, env, ctx)

    def let(self, node: A.Let, env: _Env, ctx: _Ctx) -> None:
        self.expr(node.value, env, ctx)
        self.bind(env, node.name, "let local", self.report.word_span(node.span, node.name), node)

    def random(self, node: A.RandomChoice, env: _Env, ctx: _Ctx) -> None:
        self.expr(node.domain, env, ctx)
        self.bind(env, node.var, "random variable", self.report.word_span(node.span, node.var),
                  node)

    def for_(self, node: A.For, env: _Env, ctx: _Ctx) -> None:
        self.expr(node.iter, env, ctx)
        inner = env.child()
        self.bind(inner, node.var, "for variable", self.report.word_span(node.span, node.var),
                  node)
        self.block(node.body, inner, ctx)

    def deal(self, node: A.Deal, env: _Env, ctx: _Ctx) -> None:
        """`deal n from z to hand[p] for p in players`: p is bound in the destination only."""
        for part in (node.count, node.source, node.iter):
            self.expr(part, env, ctx)
        inner = env.child()
        self.bind(inner, node.var, "deal variable", self.report.word_span(node.span, node.var),
                  node)
        self.expr(node.dest, inner, ctx)

    def if_(self, node: A.If, env: _Env, ctx: _Ctx) -> None:
        for cond, body in node.branches:
            self.expr(cond, env, ctx)
            self.block(body, env, ctx)
        self.block(node.else_body, env, ctx)

    def loop(self, node, env: _Env, ctx: _Ctx) -> None:
        self.expr(node.count if isinstance(node, A.Repeat) else node.cond, env, ctx)
        self.block(node.body, env, ctx)

    def choose(self, node: A.Choose, env: _Env, ctx: _Ctx) -> None:
        self.expr(node.player, env, ctx)
        self._actions(node, node.actions)

    def simultaneous(self, node: A.Simultaneous, env: _Env, ctx: _Ctx) -> None:
        """The actions run with `me` = each player; the variable itself is not visible."""
        self.expr(node.players, env, ctx)
        self.bind(env.child(), node.var, "simultaneous variable",
                  self.report.word_span(node.span, node.var), node)
        self._actions(node, node.actions)

    def _actions(self, node, names: tuple) -> None:
        actions = self.scope.names_of("action")
        for name in names:
            sym = self.scope.symbols.get(name)
            if sym is not None and sym.kind == "action":
                continue
            what = (f"{name} is {article(sym.kind)}, not an action" if sym
                    else f"unknown action {name}")
            self.report.error(what, self._after_colon(node.span, name), expected=actions,
                              suggestion=did_you_mean(name, actions))

    def _after_colon(self, span: Span, name: str) -> Span:
        """The span of an action name after the ':' of a choose or simultaneously."""
        lines = source_lines(self.report.source)
        if not (1 <= span.line <= len(lines)):
            return span
        colon = lines[span.line - 1].find(":", span.col - 1)
        return self.report.word_span(Span(span.file, span.line, colon + 2 if colon >= 0
                                          else span.col, span.end_line, span.end_col), name)

    def call_rule(self, node: A.CallRule, env: _Env, ctx: _Ctx) -> None:
        sym = self.scope.symbols.get(node.name)
        if sym is None or sym.kind != "rule":
            rules = self.scope.names_of("rule")
            what = (f"{node.name} is {article(sym.kind)}, not a rule" if sym
                    else f"unknown rule {node.name}")
            self.report.error(what, self.report.word_span(node.span, node.name),
                              suggestion=did_you_mean(node.name, rules))
        for arg in node.args:
            self.expr(arg, env, ctx)


_DECLS = {
    A.OptionDecl: _NamePass.option, A.CardsDecl: _NamePass.cards, A.CardDecl: _NamePass.card,
    A.ZoneDecl: _NamePass.zone, A.VarDecl: _NamePass.var, A.DefDecl: _NamePass.def_,
    A.TableDecl: _NamePass.table, A.RuleDecl: _NamePass.rule, A.ActionDecl: _NamePass.action,
    A.TriggerDecl: _NamePass.trigger, A.InvariantDecl: _NamePass.invariant,
    A.FlowDecl: _NamePass.flow, A.ReturnsDecl: _NamePass.returns,
}

_EXPRS = {
    A.Name: _NamePass.name, A.Attr: _NamePass.attr, A.Index: _NamePass.index,
    A.Call: _NamePass.call, A.Aggregate: _NamePass.comprehension,
    A.ListComp: _NamePass.comprehension,
}

_STMTS = {
    A.Assign: _NamePass.assign, A.AugAssign: _NamePass.assign, A.Let: _NamePass.let,
    A.RandomChoice: _NamePass.random, A.For: _NamePass.for_, A.Deal: _NamePass.deal,
    A.If: _NamePass.if_, A.Repeat: _NamePass.loop, A.While: _NamePass.loop,
    A.Choose: _NamePass.choose, A.Simultaneous: _NamePass.simultaneous,
    A.CallRule: _NamePass.call_rule,
}
