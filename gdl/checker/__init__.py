"""The static checker: everything about a ruleset that can be known without playing it.

`check(ruleset)` runs separate passes, each collecting every problem it finds:

1. `_scope`: the global symbol table; duplicate and missing declarations.
2. `_names`: what every name means; unknown, ambiguous and misplaced names.
3. `_typedecls` (on `_types`): the type of every expression and statement.
4. `_domains`: parameters, loops and indices range over finite, fixed domains.
5. `_tables`: every table has exactly one row for each case.
6. `_flow`: the game can end; no recursion; no pause where none can happen.

If any pass found a problem, it raises CheckError with all of them in source order;
otherwise it returns a CheckedInfo.  The interpreter compiles the AST itself; CheckedInfo
only records what the checker learnt, for tools that want it.
"""
from __future__ import annotations

import weakref
from types import MappingProxyType
from typing import Mapping

import attrs

from .. import ast as A
from ..errors import CheckError
from ._domains import check_domains
from ._flow import check_flow
from ._names import Resolution, resolve, resolve_expression
from ._report import CheckProblem, Report
from ._scope import Symbol, build_scope
from ._tables import check_tables
from ._typedecls import TypePass
from ._typesys import EnumT, ListT, OptT, Prim, Ty, ZoneT

__all__ = ["check", "check_file", "check_expression", "checked_info", "CheckedInfo",
           "CheckError", "CheckProblem", "Symbol", "Ty",
           "Prim", "EnumT", "ZoneT", "OptT", "ListT"]


@attrs.frozen
class CheckedInfo:
    """What the checker learnt about a ruleset that passed."""
    symbols: Mapping[str, Symbol]        # every declared global name, by name
    enums: Mapping[str, tuple]           # enum (and choice option) -> its member names
    seats: tuple                         # the seat names of `players red, black`, or ()
    card_fields: Mapping[str, Ty]        # card field -> its type
    option_types: Mapping[str, Ty]       # option -> its type (`players` too, if a range)
    var_types: Mapping[str, Ty]          # var -> the type of its values
    result_types: Mapping[str, Ty]       # def or table -> the type of its result
    #: id(expression node) -> the type it must have, for each `T?` used as a `T` (a
    #: player? as a seat(...) argument): the engine tests those for none when it runs
    needs_value: Mapping[int, Ty] = MappingProxyType({})
    #: id(expression node) of each `a + b` that joins two lists (the others add numbers
    #: or join texts)
    joins_lists: frozenset = frozenset()


def check(ruleset: A.Ruleset) -> CheckedInfo:
    """Returns what the checker learnt about `ruleset`, or raises CheckError listing every
    problem found (each with its place, an excerpt, and what was expected)."""
    report = Report(ruleset)
    scope = build_scope(ruleset, report)
    res = resolve(ruleset, scope, report)
    types = TypePass(scope, res, report)
    types.run(ruleset)
    check_domains(ruleset, scope, res, report)
    check_tables(ruleset, scope, res, report)
    check_flow(ruleset, scope, report)
    report.finish()
    info = _info(scope, types)
    _CHECKED[id(ruleset)] = (weakref.ref(ruleset), info)
    return info


#: id(ruleset) -> (a weak reference to it, what `check` learnt): a ruleset checked on
#: loading is not checked again when the engine compiles it
_CHECKED: dict = {}


def checked_info(ruleset: A.Ruleset) -> CheckedInfo:
    """What `check` learnt about this very ruleset object: kept from its check, else
    checked now (raising CheckError if it does not pass)."""
    kept = _CHECKED.get(id(ruleset))
    if kept is not None and kept[0]() is ruleset:
        return kept[1]
    if len(_CHECKED) > 256:         # rulesets gone: their entries are dead references
        for key in [k for k, (ref, _) in _CHECKED.items() if ref() is None]:
            del _CHECKED[key]
    return check(ruleset)


def check_file(path) -> A.Ruleset:
    """Returns the AST of a ruleset or variant file with its base merged in, checked, or
    raises GdlSyntaxError or CheckError; the language's half of loading a game, so that
    `gdl check` meets a file's errors before it loads the engine."""
    from ..parser import parse_file
    from ..variants import merge_variant, note_base_problems
    parsed = parse_file(path)
    ruleset = merge_variant(parsed, parse_file)
    try:
        check(ruleset)
    except CheckError as err:
        if ruleset is not parsed:           # a variant, merged with its base
            note_base_problems(err, ruleset)
        raise
    return ruleset


def check_expression(ruleset: A.Ruleset, node, text: str, path: str = "<expression>",
                     known=None, seats: tuple = ()) -> tuple:
    """Returns (the type, the `needs_value`, the `joins_lists` of) an expression typed
    outside the ruleset
    (the REPL's `eval`, `Game.evaluate`) against a checked ruleset's declarations, or
    raises CheckError with every problem in it, as a ruleset's own expressions are
    checked.  `known` is a dict that keeps the ruleset's symbol table and names between
    calls.  `seats` names the seats of the game under way: with `players 2..4 = 3`, an
    expression may name p3, which the rules themselves may not."""
    if known is None or "scope" not in known:
        quiet = Report(ruleset)          # the ruleset was checked: nothing to report
        scope = build_scope(ruleset, quiet)
        res = resolve(ruleset, scope, quiet)
        for seat in seats:
            if seat not in scope.seats and seat not in scope.symbols:
                scope.symbols[seat] = Symbol(seat, "seat", scope.players, scope.players.span)
                scope.owners.setdefault(seat, []).append("player")
                scope.seats += (seat,)
        known = {} if known is None else known
        known.update(scope=scope, res=res)
    # the ruleset's names and a copy for this expression's: its nodes' ids are used again
    # by later expressions' nodes once it is gone, and must not find its meanings
    scope, res = known["scope"], Resolution()
    res.names, res.locals = dict(known["res"].names), dict(known["res"].locals)
    report = Report(A.Ruleset((), path=path, source=text))
    resolve_expression(node, scope, res, report)
    types = TypePass(scope, res, report)
    t = types.type_of(node)
    report.finish()
    return t, MappingProxyType(types.optional_uses), frozenset(types.joins_lists)


def _info(scope, types: TypePass) -> CheckedInfo:
    def of_kind(kind: str) -> list:
        return [s for s in scope.symbols.values() if s.kind == kind]

    options = {s.name: types.option_type(s.decl) for s in of_kind("option")}
    if scope.players is not None and scope.players.lo != scope.players.hi:
        options["players"] = Prim("int")
    fields = {name: types.field_type(f) for name, f in scope.fields.items()}
    variables = {s.name: types.var_type(s.decl) for s in of_kind("var")}
    results = {s.name: types.signature(s.decl)[1] for s in of_kind("def") + of_kind("table")}
    frozen = MappingProxyType
    return CheckedInfo(symbols=frozen(dict(scope.symbols)), enums=frozen(dict(scope.enums)),
                       seats=scope.seats, card_fields=frozen(fields),
                       option_types=frozen(options), var_types=frozen(variables),
                       result_types=frozen(results),
                       needs_value=frozen(dict(types.optional_uses)),
                       joins_lists=frozenset(types.joins_lists))
