"""Typing of expressions and type names: the half of the type pass that statements and
declarations (gdl/checker/_typedecls.py) build on.

Every expression gets a type; an expression whose parts are wrong is reported once and
typed `ANY`, so a mistake does not echo through everything that uses it.  Declarations
that others depend on (a def's signature, a variable's type) are typed on first use and
memoised, so order in the file does not matter and each problem is reported once.
"""
from __future__ import annotations

from typing import Callable, Optional

from .. import ast as A
from ..builtins import FUNCTIONS
from ..errors import did_you_mean
from ._names import Resolution
from ._report import Report, article, attr_span
from ._scope import Local, Member, Predef, Scope, Symbol
from ._typesys import (ANY, BOOL, CARD, INT, NONE, PLAYER, STR, EnumT, ListT, OptT, Ty,
                       Unknown, ZoneT, assignable, comparable, elem_of, is_zone, unify,
                       unwrap)

_PRIMS = {"int": INT, "bool": BOOL, "player": PLAYER, "card": CARD, "text": STR}

_PREDEF = {
    "players": ListT(PLAYER), "all_players": ListT(PLAYER), "player": ListT(PLAYER),
    "num_players": INT, "me": PLAYER, "bool": ListT(BOOL), "int": ListT(INT),
    "card": ListT(CARD), "text": ListT(STR),
}

# What each word of a builtin signature (gdl/builtins.py FUNCTIONS) accepts, and says.
_FITS = {
    "int": lambda t: assignable(t, INT), "int?": lambda t: assignable(t, INT),
    "bool": lambda t: assignable(t, BOOL), "player": lambda t: assignable(t, PLAYER),
    "card": lambda t: assignable(t, CARD), "zone": is_zone,
    "cards|list": lambda t: is_zone(t) or isinstance(unwrap(t), ListT),
    "enum": lambda t: isinstance(unwrap(t), EnumT) or t == ANY,
    "list": lambda t: isinstance(unwrap(t), ListT) or t == ANY,
    "text": lambda t: assignable(t, STR),
}
#: what a builtin's argument of no type the checker could tell must be as it runs (a
#: written `int?` argument, an int; a list, of any items)
_UNKNOWN_WANTS = {"int": Unknown(INT), "int?": Unknown(INT), "bool": Unknown(BOOL),
                  "player": Unknown(PLAYER), "card": Unknown(CARD),
                  "zone": Unknown(ZoneT(None)), "text": Unknown(STR),
                  "enum": Unknown(EnumT("enum"), "an enum member"),
                  "cards|list": Unknown((ZoneT(None), ListT(ANY)), "a zone or a list"),
                  "list": Unknown(ListT(ANY), "a list")}
_WORDS = {"int?": "int", "zone": "a zone", "cards|list": "a zone or a list",
          "enum": "an enum member", "list": "a list"}
_RESULTS = {"int": INT, "bool": BOOL, "player": PLAYER, "card": CARD, "zone": ZoneT(None),
            "any": ANY, "list[card]": ListT(CARD), "text": STR, "list[text]": ListT(STR),
            "card?": OptT(CARD), "player?": OptT(PLAYER)}


def _source_of(typer, node) -> str:
    """The text of an expression on one line of the source (`...` if it spans more)."""
    span, lines = node.span, typer.report.lines()
    if span.line and span.end_line == span.line and span.line <= len(lines):
        return lines[span.line - 1][span.col - 1:span.end_col - 1]
    return "..."


def _listing(t: Ty) -> bool:
    """Whether `t` is a list, or a zone standing for its cards (a `+` operand)."""
    return isinstance(unwrap(t), (ListT, ZoneT))


def loose(t: Ty, want: Ty) -> bool:
    """Whether a value of type `t`, taken where a `want` is (`assignable`), may not be one
    as it runs, so is tested then: a zone of any family (`zone_of`) where one of a family
    is wanted; a list whose items may be none or have no type told (`[held]`,
    `[first(...)]`) where a list of a known, plain type is, at any depth."""
    t, want = unwrap(t), unwrap(want)
    if isinstance(t, ZoneT) and isinstance(want, ZoneT):
        return t.family is None and want.family is not None
    if not (isinstance(t, ListT) and isinstance(want, ListT)) or unwrap(want.elem) == ANY:
        return False
    if unwrap(t.elem) == ANY or (isinstance(t.elem, OptT) and
                                 not isinstance(want.elem, OptT)):
        return t.elem != NONE
    return loose(t.elem, want.elem)


def _anything(t: Ty) -> bool:
    """A signature word this checker does not know yet accepts anything."""
    return True


_AGGREGATE_ITEMS = {"sum": INT, "any": BOOL, "all": BOOL, "min": INT, "max": INT}


class ExprTyper:
    """Types expressions, given the resolution of every name."""

    def __init__(self, scope: Scope, res: Resolution, report: Report):
        self.scope = scope
        self.res = res
        self.report = report
        self.local_types: dict = {}     # Local -> Ty
        self._memo: dict = {}
        #: id(expression) -> the type it must have where its value is a `T?` used as a `T`:
        #: the engine tests those for none (`needs_value`)
        self.optional_uses: dict = {}
        #: id(expression) of each `+` that joins two lists (`joins_lists`)
        self.joins_lists: set = set()

    def fits(self, expr, t: Ty, want: Ty) -> bool:
        """Whether `t`, the type of `expr`, fits `want`; a `T?` used as a `T` is noted
        (`optional_uses`), for the engine to raise a rule error if it is none then."""
        if not assignable(t, want):
            return False
        if unwrap(want) == ANY:
            return True
        if unwrap(t) == ANY or loose(t, want):  # (`first` of an empty list, a local first
            self.optional_uses[id(expr)] = Unknown(want)    # set to none and then not...;
        elif isinstance(t, OptT) and not isinstance(want, OptT):    # none allowed where
            self.optional_uses[id(expr)] = want                     # a T? is)
        return True

    def once(self, key, compute: Callable, provisional):
        """Computes a declaration's type once; a use while it is being computed (a cycle,
        reported by the flow pass) gets `provisional`."""
        if key not in self._memo:
            self._memo[key] = provisional
            self._memo[key] = compute()
        return self._memo[key]

    def error(self, message: str, span, **kw) -> None:
        self.report.error(message, span, **kw)

    # ------------------------------------------------------------------ type names
    def resolve_type(self, t, choice_owner: Optional[str] = None) -> Ty:
        """The type a type expression denotes (`int`, `1..10`, `cell?`, `{a, b}`)."""
        if isinstance(t, A.OptionalType):
            return OptT(self.resolve_type(t.inner, choice_owner))
        if isinstance(t, A.RangeType):
            self.expect(t.lo, INT, "a range bound")
            self.expect(t.hi, INT, "a range bound")
            return INT
        if isinstance(t, A.ChoiceType):
            if choice_owner is not None:
                return EnumT(choice_owner)
            self.error("a choice such as {a, b} is only allowed as the type of an option; "
                       "declare an enum instead", t.span)
            return ANY
        return self.named_type(t)

    def named_type(self, t: A.NamedType) -> Ty:
        if t.name in _PRIMS:
            return _PRIMS[t.name]
        if t.name in self.scope.enums:
            return EnumT(t.name)
        if self.scope.decl_of(t.name, "zone") is not None:
            return ZoneT(t.name)
        known = list(_PRIMS) + list(self.scope.enums) + self.scope.names_of("zone")
        self.error(f"unknown type {t.name}: a type is int, bool, player, card, text, an enum or a "
                   f"zone family", t.span, expected=known, suggestion=did_you_mean(t.name, known))
        return ANY

    def option_type(self, decl: A.OptionDecl) -> Ty:
        return self.once(("option", id(decl)), lambda: self.resolve_type(decl.type, decl.name),
                         ANY)

    def var_type(self, decl: A.VarDecl) -> Ty:
        return self.once(("var", id(decl)), lambda: self.resolve_type(decl.type), ANY)

    def field_type(self, field: A.Field) -> Ty:
        return self.once(("field", id(field)), lambda: self.resolve_type(field.type), ANY)

    def index_types(self, decl) -> list:
        """The types of the indices of a zone family or an indexed variable."""
        def compute():
            return [self.domain_elem(d, f"index {i} of {decl.name}")
                    for i, d in enumerate(decl.indices, 1)]
        return self.once(("indices", id(decl)), compute, [ANY] * len(decl.indices))

    # ------------------------------------------------------------------ helpers
    def expect(self, expr, want: Ty, what: str) -> Ty:
        """Types `expr`, reporting it unless it fits `want`."""
        t = self.type_of(expr)
        if not self.fits(expr, t, want):
            self.error(f"{what} must be {want}, not {t}", expr.span)
        return t

    def domain_elem(self, expr, what: str) -> Ty:
        """The type of the members of a domain: a parameter's, a `for`'s, an index's."""
        found = self.res.of(expr) if isinstance(expr, A.Name) else None
        if isinstance(found, Symbol) and found.kind == "option" and \
                found.name in self.scope.enums:
            return EnumT(found.name)   # an option's choice used as a domain: its members
        t = self.type_of(expr)
        elem = elem_of(t)
        if unwrap(t) == ANY:                            # (`first` of an empty list)
            self.optional_uses[id(expr)] = _UNKNOWN_WANTS["cards|list"]
        elif isinstance(t, OptT) and elem is not None:  # a `pile?` passed over: tested
            self.optional_uses[id(expr)] = unwrap(t)
        if elem is None:
            self.error(f"{what} must range over a domain (a range, an enum, player, a zone, a "
                       f"list...), not a single {t}", expr.span)
            return ANY
        return elem

    def bind_fors(self, fors: tuple) -> None:
        for f in fors:
            self.set_local(f, self.domain_elem(f.iter, f"for {f.var}"))

    def set_local(self, binder, t: Ty) -> None:
        local = self.res.local(binder)
        if local is not None:
            self.local_types[local] = t

    def param_types(self, params: tuple, lists: bool = False) -> list:
        """The parameters' types; with `lists` (a def's, a rule's), `list[DOMAIN]` is a
        list of the domain's values."""
        out = []
        for p in params:
            listed = lists and A.list_item_domain(p.domain) is not None and \
                self.res.of(p.domain.obj) is None      # not a zone or variable `list`
            t = self.list_of(p.domain, p.name) if listed else \
                self.domain_elem(p.domain, f"parameter {p.name}")
            if p.optional:
                t = OptT(t)
            self.set_local(p, t)
            out.append(t)
        return out

    def list_of(self, domain, name: str) -> Ty:
        """The type of a parameter written `list[...]` (of lists too)."""
        inner = A.list_item_domain(domain)
        if A.list_item_domain(inner) is not None and self.res.of(inner.obj) is None:
            return ListT(self.list_of(inner, name))
        return ListT(self.domain_elem(inner, f"parameter {name}"))

    def check_args(self, node, params: list, what: str) -> None:
        """Checks the arity and argument types of a call of a def, table or rule."""
        if len(node.args) != len(params):
            self.error(f"{what} takes {_count(len(params), 'argument')}, not {len(node.args)}",
                       node.span)
        for i, arg in enumerate(node.args):
            want = params[i] if i < len(params) else ANY
            t = self.type_of(arg)
            if not self.fits(arg, t, want):
                # `def size(z: pile)` called with `pile`: a zone as a domain is its cards
                why = (": the parameter ranges over the cards of a zone; a parameter that "
                       "takes zones is typed with a zone family's name (`z: cell`)"
                       if want == CARD and isinstance(unwrap(t), ZoneT) else "")
                if isinstance(want, ListT) and isinstance(unwrap(t), ZoneT):
                    why = f": pass the zone's cards, cards({_source_of(self, arg)})"
                elif isinstance(want, ListT) and assignable(t, want.elem):
                    why = f": write the item as a list of one, [{_source_of(self, arg)}]"
                self.error(f"argument {i + 1} of {what} must be {want}, not {t}{why}",
                           arg.span)

    # ------------------------------------------------------------------ expressions
    def type_of(self, node) -> Ty:
        handler = _EXPRS.get(type(node))
        return handler(self, node) if handler is not None else ANY

    def name(self, node: A.Name) -> Ty:
        found = self.res.of(node)
        if isinstance(found, Local):
            return self.local_types.get(found, ANY)
        if isinstance(found, Predef):
            return _PREDEF.get(found.name, ANY)
        if isinstance(found, Member):
            return PLAYER if found.owner == "player" else EnumT(found.owner)
        if isinstance(found, Symbol):
            return self.symbol_type(found, node)
        return ANY

    def symbol_type(self, sym: Symbol, node) -> Ty:
        if sym.kind == "option":
            return self.option_type(sym.decl)
        if sym.kind == "enum":
            return ListT(EnumT(sym.name))
        if sym.kind == "zone":
            return ListT(ZoneT(sym.name)) if sym.decl.indices else ZoneT(sym.name)
        if sym.kind == "var" and not sym.decl.indices:
            return self.var_type(sym.decl)
        if sym.kind == "var":
            self.error(f"variable {sym.name} has {_count(len(sym.decl.indices), 'index')}: "
                       f"write {sym.name}[...]", node.span)
        else:
            self.error(f"{sym.name} is {article(sym.kind)}, not a value", node.span)
        return ANY

    def attr(self, node: A.Attr) -> Ty:
        found = self.res.of(node)
        if isinstance(found, Member):
            return PLAYER if found.owner == "player" else EnumT(found.owner)
        obj = unwrap(self.type_of(node.obj))
        if obj == ANY and node.name in self.scope.fields:  # (no type told: tested for a
            self.optional_uses[id(node.obj)] = Unknown(CARD)    # card)
            return self.field_type(self.scope.fields[node.name])
        if obj == ANY and self.scope.card is None:
            return ANY                  # (no card declaration: reported where that is)
        if obj != CARD and obj != ANY:
            self.error(f"only cards have attributes, and this is {article(str(obj))}",
                       node.obj.span)
            return ANY
        field = self.scope.fields.get(node.name)
        if field is None:
            fields = list(self.scope.fields)
            self.error(f"cards have no attribute {node.name}", attr_span(node),
                       expected=fields, suggestion=did_you_mean(node.name, fields))
            return ANY
        return self.field_type(field)

    def index(self, node: A.Index) -> Ty:
        sym = self.res.of(node.obj) if isinstance(node.obj, A.Name) else None
        if not (isinstance(sym, Symbol) and sym.kind in ("var", "zone") and sym.decl.indices):
            if not (isinstance(sym, Symbol) and sym.kind in ("var", "zone")):
                listed = unwrap(self.type_of(node.obj))
                if isinstance(listed, ListT) and len(node.args) == 1:
                    self.expect(node.args[0], INT, "a list position (from 1)")
                    return listed.elem
            if sym is not None or not isinstance(node.obj, A.Name):
                self.error("only indexed variables, zone families and lists (by one position, "
                           "from 1) can be indexed",
                           node.obj.span)
            for arg in node.args:
                self.type_of(arg)
            return ANY
        self.check_indices(sym, node.args, node.span)
        return self.var_type(sym.decl) if sym.kind == "var" else ZoneT(sym.name)

    def check_indices(self, sym: Symbol, args: tuple, span) -> None:
        wanted = self.index_types(sym.decl)
        if len(args) != len(wanted):
            self.error(f"{sym.kind} {sym.name} takes {_count(len(wanted), 'index')}, "
                       f"not {len(args)}", span)
        for i, arg in enumerate(args):
            self.expect(arg, wanted[i] if i < len(wanted) else ANY,
                        f"index {i + 1} of {sym.name}")

    def call(self, node: A.Call) -> Ty:
        if node.func == "changed":
            return BOOL
        if node.func == "card":
            return self.card_call(node)
        if node.func in FUNCTIONS:
            return self.builtin_call(node)
        sym = self.scope.symbols.get(node.func)
        if sym is not None and sym.kind in ("def", "table"):
            params, result = self.signature(sym.decl)
            self.check_args(node, params, f"{sym.kind} {sym.name}")
            return result
        for arg in node.args:
            self.type_of(arg)
        return ANY

    def signature(self, decl) -> tuple:
        """(parameter types, result type) of a def or table; set by _typedecls."""
        raise NotImplementedError

    def builtin_call(self, node: A.Call) -> Ty:
        params, result, _ = FUNCTIONS[node.func]
        if node.func in ("min", "max"):
            params = ("int",) * max(2, len(node.args))
        required = sum(1 for p in params if not p.endswith("?"))
        if node.func in ("min", "max") and len(node.args) < 2:
            most = "least" if node.func == "min" else "greatest"
            self.error(f"{node.func} takes 2 arguments or more ({node.func}(a, b, ...)), not "
                       f"{len(node.args)}; the {most} of a list is {node.func}(x for x in xs)",
                       node.span)
            return ANY
        if not required <= len(node.args) <= len(params):
            wanted = str(required) if required == len(params) else f"{required} or {len(params)}"
            self.error(f"{node.func} takes {wanted} argument{'s' if wanted != '1' else ''}, "
                       f"not {len(node.args)}", node.span)
        types = [self.type_of(arg) for arg in node.args]
        for i, (arg, t, word) in enumerate(zip(node.args, types, params), 1):
            if not _FITS.get(word, _anything)(t):
                self.error(f"argument {i} of {node.func} must be {_WORDS.get(word, word)}, "
                           f"not {t}", arg.span)
            elif unwrap(t) == ANY and word in _UNKNOWN_WANTS:  # (no type told: tested)
                self.optional_uses[id(arg)] = _UNKNOWN_WANTS[word]
            elif isinstance(t, OptT) and word in _FITS:
                self.optional_uses[id(arg)] = unwrap(t)
        if result == "card|list[card]":
            return CARD if len(node.args) < 2 else ListT(CARD)
        if result == "list":    # a part of the list given first
            first = unwrap(types[0]) if types else ANY
            return first if isinstance(first, ListT) else ListT(ANY)
        if result == "lists":   # lists of items of the list (or zone) given first
            return ListT(ListT((elem_of(types[0]) if types else None) or ANY))
        if node.func == "owner" and types and self.first_index(types[0]) == PLAYER:
            return PLAYER
        if result == "index":
            return self.index_result(node, types[0]) if len(types) == 2 else ANY
        return _RESULTS.get(result, ANY)

    def families(self, zone: Ty) -> list:
        """The zone families a zone value may belong to: its own, or every indexed one."""
        z = unwrap(zone)
        if isinstance(z, ZoneT) and z.family is not None:
            decl = self.scope.decl_of(z.family, "zone")
            return [] if decl is None else [decl]
        return [self.scope.decl_of(n, "zone") for n in self.scope.names_of("zone")]

    def first_index(self, zone: Ty) -> Ty:
        """The type of a zone's first index where the checker knows its family, else ANY."""
        z = unwrap(zone)
        if not (isinstance(z, ZoneT) and z.family is not None):
            return ANY
        decls = self.families(z)
        return self.index_types(decls[0])[0] if decls and decls[0].indices else ANY

    def index_result(self, node: A.Call, zone: Ty) -> Ty:
        """`index(z, i)` has the type of the i-th index of z's family (of every family z may
        belong to, if the checker cannot tell which): one type, or an error, since a value
        of no known type would reach arithmetic or a seat unchecked."""
        decls = [d for d in self.families(zone) if d.indices]
        pos = node.args[1]
        k = pos.value if isinstance(pos, A.IntLit) else None
        if k is not None:
            if decls and all(not 1 <= k <= len(d.indices) for d in decls):
                most = max(len(d.indices) for d in decls)
                whose = (f"{decls[0].name} has {_count(most, 'index')}" if len(decls) == 1
                         else f"a zone here has {_count(most, 'index')} at most")
                self.error(f"there is no index {k}: {whose}, counted from 1", pos.span)
                return ANY
            found = [(d, self.index_types(d)[k - 1]) for d in decls if k <= len(d.indices)]
        else:
            found = [(d, t) for d in decls for t in self.index_types(d)]
        kinds: dict = {}                    # each type, and the first family giving it
        for d, t in found:
            if t != ANY:
                kinds.setdefault(t, d.name)
        if len(kinds) > 1:
            where = ", ".join(f"{t} (of {name})" for t, name in kinds.items())
            fix = ("the position as a number" if k is None else
                   "a zone whose family the checker knows (zone_of's is of any family)")
            self.error(f"index(...) here could be any of {where}: give it {fix}, so that "
                       f"it has one type", node.span)
            return ANY
        return next(iter(kinds), ANY)

    def card_call(self, node: A.Call) -> Ty:
        """`card(rank: 3, suit: hearts)`: each keyword a card field, each value its type."""
        if self.scope.card is None:
            self.error("card(...) needs a card declaration such as `card rank: 1..13`",
                       node.span)
        seen: set = set()
        for arg in node.args:
            self._card_arg(arg, seen)
        return CARD

    def _card_arg(self, arg, seen: set) -> None:
        fields = list(self.scope.fields)
        if not isinstance(arg, A.Keyword):
            self.error("card(...) takes field: value arguments, as in card(rank: 3)",
                       arg.span, expected=fields)
            self.type_of(arg)
            return
        if arg.name in seen:
            self.error(f"field {arg.name} is given twice", arg.span)
        seen.add(arg.name)
        field = self.scope.fields.get(arg.name)
        if field is None:
            if self.scope.card is not None:
                self.error(f"cards have no field {arg.name}", arg.span, expected=fields,
                           suggestion=did_you_mean(arg.name, fields))
            self.type_of(arg.value)
            return
        self.expect(arg.value, self.field_type(field), f"card field {arg.name}")

    def keyword(self, node: A.Keyword) -> Ty:
        self.error(f"{node.name}: ... arguments are only for card(...)", node.span)
        return self.type_of(node.value)

    def aggregate(self, node: A.Aggregate) -> Ty:
        self.bind_fors(node.fors)
        if node.cond is not None:
            self.expect(node.cond, BOOL, "the condition after if")
        item = self.type_of(node.item)
        want = _AGGREGATE_ITEMS.get(node.func)
        if want is not None and not self.fits(node.item, item, want):
            self.error(f"{node.func}(...) needs {want} items, not {item}", node.item.span)
        if node.func == "first":
            return item if isinstance(item, OptT) or item == ANY else OptT(item)
        return {"sum": INT, "count": INT, "any": BOOL, "all": BOOL}.get(node.func, want or ANY)

    def list_comp(self, node: A.ListComp) -> Ty:
        self.bind_fors(node.fors)
        if node.cond is not None:
            self.expect(node.cond, BOOL, "the condition after if")
        return ListT(self.type_of(node.item))

    def list_lit(self, node) -> Ty:
        """A list's items have one type (`unify`); items of no type the checker could
        tell among items of a known type T make a list of T?, those tested as the list is
        made for a T or none."""
        elem: Ty = ANY
        unknown = []
        for item in node.items:
            t = self.type_of(item)
            if unwrap(t) == ANY:
                unknown.append(item)
            joined = unify(elem, t)
            if joined is None:
                self.error(f"the items of a list must have one type, but here are {elem} "
                           f"and {t}", item.span)
            else:
                elem = joined
        return ListT(self.loose(unknown, elem))

    def loose(self, unknown: list, t: Ty) -> Ty:
        """The type of a list's items or a choice's branches, `t`, when `unknown` of them
        have no type the checker could tell: `t?`, each of those tested for a `t` or none
        as it runs (for none alone, a T? used as a T, where the whole is used so)."""
        inner = unwrap(t)
        if not unknown or inner in (ANY, NONE):
            return ANY if unknown else t
        for expr in unknown:
            self.optional_uses[id(expr)] = Unknown(OptT(inner))
        return OptT(inner)

    def binop(self, node: A.BinOp) -> Ty:
        lt, rt = self.type_of(node.left), self.type_of(node.right)
        if node.op == "+" and assignable(lt, STR) and assignable(rt, STR) and \
                STR in (unwrap(lt), unwrap(rt)):
            self.fits(node.left, lt, STR)       # a `text?` joined: tested for none
            self.fits(node.right, rt, STR)
            return STR
        if node.op == "+" and _listing(lt) and _listing(rt) and ANY not in (lt, rt):
            return self.joined_lists(node, lt, rt)
        if ANY in (unwrap(lt), unwrap(rt)) and (_listing(lt) or _listing(rt)):
            if node.op != "+":
                self.error(f"cannot compute {lt} {node.op} {rt}: arithmetic works on int "
                           f"only (+ also joins two texts, or two lists)", node.span)
                return ANY
            return self.joined_lists(node, lt, rt)  # (`first` of an empty list): a list
        if node.op == "+" and (_listing(lt) or _listing(rt)) and ANY not in (lt, rt):
            item, listed = (node.left, rt) if _listing(rt) else (node.right, lt)
            if elem_of(listed) is not None and assignable(
                    unwrap(rt if item is node.right else lt), elem_of(listed)):
                self.error(f"cannot compute {lt} + {rt}: + joins two lists; write the item "
                           f"as a list of one, [{_source_of(self, item)}]", node.span)
                return ANY
        if not (self.fits(node.left, lt, INT) & self.fits(node.right, rt, INT)):
            self.error(f"cannot compute {lt} {node.op} {rt}: arithmetic works on int only "
                       f"(+ also joins two texts, or two lists)", node.span)
            return ANY                  # reported: nothing that uses it reports it again
        return INT

    def joined_lists(self, node: A.BinOp, lt: Ty, rt: Ty) -> Ty:
        """`a + b` of two lists (or zones, for their cards): a list of the items of both,
        noted for the engine (`joins_lists`), which otherwise adds numbers."""
        sides = ((node.left, lt, elem_of(lt)), (node.right, rt, elem_of(rt)))
        known = [e for _, _, e in sides if unwrap(e) != ANY]
        # the other's items, or it, of no type told: tested for the known side's as it runs
        elem = known[0] if len(known) == 1 else unify(elem_of(lt), elem_of(rt))
        if elem is None:
            self.error(f"cannot join {lt} and {rt}: the items of a list must have one type",
                       node.span)
            return ANY
        self.joins_lists.add(id(node))
        for side, t, e in sides:
            if len(known) == 1 and unwrap(e) == ANY:
                self.optional_uses[id(side)] = Unknown(ListT(elem))
            elif isinstance(t, OptT):   # `maybe() + [2]`: tested for none as it runs
                self.optional_uses[id(side)] = unwrap(t)
        return ListT(elem)

    def neg(self, node: A.Neg) -> Ty:
        t = self.expect(node.operand, INT, "the operand of -")
        return INT if assignable(t, INT) else ANY      # reported: not again by its user

    def compare(self, node: A.Compare) -> Ty:
        lt, rt = self.type_of(node.left), self.type_of(node.right)
        if node.op in ("==", "!="):
            if not comparable(lt, rt):
                self.error(f"cannot compare {lt} {node.op} {rt}: the two sides have different "
                           f"types", node.span)
        elif not (self.fits(node.left, lt, INT) & self.fits(node.right, rt, INT)):
            enums = isinstance(unwrap(lt), EnumT) or isinstance(unwrap(rt), EnumT)
            self.error(f"cannot compare {lt} {node.op} {rt}: ordering works on int only" + (
                "; an enum's members compare by their place in its declaration with ord(): "
                f"ord(a) {node.op} ord(b)" if enums else ""), node.span)
        return BOOL

    def member(self, node: A.Member) -> Ty:
        item = self.type_of(node.item)
        elem = self.domain_elem(node.coll, "the right side of in")
        if not comparable(item, elem):
            self.error(f"a {item} is never in a collection of {elem}", node.span)
        return BOOL

    def logic(self, node) -> Ty:
        word = {A.And: "and", A.Or: "or", A.Not: "not"}[type(node)]
        for item in (node.items if hasattr(node, "items") else (node.operand,)):
            self.expect(item, BOOL, f"an operand of {word}")
        return BOOL

    def cond(self, node: A.Cond) -> Ty:
        self.expect(node.test, BOOL, "the condition of if ... then ... else")
        a, b = self.type_of(node.then), self.type_of(node.else_)
        if (unwrap(a) == ANY) != (unwrap(b) == ANY):    # one branch of no type told
            untyped, known = (node.then, b) if unwrap(a) == ANY else (node.else_, a)
            return self.loose([untyped], known)
        joined = unify(a, b)
        if joined is None:
            self.error(f"the branches of if ... then ... else have different types: {a} and "
                       f"{b}", node.span)
            return ANY
        return joined

    def range_(self, node: A.Range) -> Ty:
        self.expect(node.lo, INT, "a range bound")
        self.expect(node.hi, INT, "a range bound")
        return ListT(INT)


def _count(n: int, word: str) -> str:
    plural = {"index": "indices"}.get(word, word + "s")
    return f"{n} {word if n == 1 else plural}"


_EXPRS = {
    A.IntLit: lambda self, n: INT, A.StrLit: lambda self, n: STR,
    A.BoolLit: lambda self, n: BOOL, A.NoneLit: lambda self, n: NONE,
    A.Name: ExprTyper.name, A.Attr: ExprTyper.attr, A.Index: ExprTyper.index,
    A.Call: ExprTyper.call, A.Keyword: ExprTyper.keyword, A.Aggregate: ExprTyper.aggregate,
    A.ListComp: ExprTyper.list_comp, A.ListLit: ExprTyper.list_lit,
    A.SetLit: ExprTyper.list_lit, A.BinOp: ExprTyper.binop, A.Neg: ExprTyper.neg,
    A.Compare: ExprTyper.compare, A.Member: ExprTyper.member, A.And: ExprTyper.logic,
    A.Or: ExprTyper.logic, A.Not: ExprTyper.logic, A.Cond: ExprTyper.cond,
    A.Range: ExprTyper.range_,
}
