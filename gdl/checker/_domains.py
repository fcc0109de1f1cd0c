"""Finite domains: every parameter, `for`, `random` and index must range over a finite set.

The interpreter lists legal moves by enumerating action parameters, and chance outcomes
by enumerating `random` domains, so `int` (which has no bounds) is refused wherever a
domain is enumerated.  Zone and variable indices must moreover be fixed when the game
starts, since the engine lays out every zone and variable once.
"""
from __future__ import annotations

from .. import ast as A
from ._names import Resolution
from ._report import Report
from ._scope import Predef, Scope, Symbol
from ._walk import walk_all

_STATIC_NAMES = (Predef("player"), Predef("bool"))


def check_domains(ruleset: A.Ruleset, scope: Scope, res: Resolution, report: Report) -> None:
    """Reports domains that are not finite, indices that are not fixed, and zones seen by
    their owner whose first index is not a player."""
    checker = _Domains(scope, res, report)
    for node in walk_all(ruleset.decls):
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            handler(checker, node)


class _Domains:
    def __init__(self, scope: Scope, res: Resolution, report: Report):
        self.scope = scope
        self.res = res
        self.report = report

    def finite(self, domain, what: str) -> None:
        if self.res.of(domain) == Predef("int"):
            self.report.error(f"the domain of {what} is not finite: int has no bounds; give a "
                              f"range such as 1..10", domain.span)
        elif self.res.of(domain) == Predef("text"):
            self.report.error(f"the domain of {what} is not finite: there is no end of texts; "
                              f"give a list of texts", domain.span)

    def params(self, node) -> None:
        for p in node.params:
            self.finite(p.domain, f"parameter {p.name}")
            if p.optional:
                self.report.error(f"parameter {p.name} of {node.name} takes its values from a "
                                  f"list, so it cannot be optional (?)", p.span)

    def def_params(self, node: A.DefDecl) -> None:
        """A def is a function of typed values, so its parameters take a type, not a list."""
        for p in node.params:
            domain = p.domain
            while A.list_item_domain(domain) is not None and self.res.of(domain.obj) is None:
                domain = A.list_item_domain(domain)         # `list[card]`
            if isinstance(domain, A.Index) and isinstance(domain.obj, A.Name) and \
                    self.res.of(domain.obj) is None:
                continue                    # `lst[card]`: the name pass said what it is
            if not isinstance(domain, (A.Name, A.Range)):
                self.report.error(f"parameter {p.name} of def {node.name} must have a type: a "
                                  f"name such as card or suit, a range such as 1..10, or "
                                  f"list[card]", p.domain.span)

    def loop(self, node) -> None:
        self.finite(node.iter, f"for {node.var}")

    def random(self, node: A.RandomChoice) -> None:
        self.finite(node.domain, f"random {node.var}")

    def deal(self, node: A.Deal) -> None:
        self.finite(node.iter, f"for {node.var}")

    def indexed(self, node) -> None:
        kind = "zone" if isinstance(node, A.ZoneDecl) else "var"
        for i, domain in enumerate(node.indices, 1):
            if not self.static(domain):
                changing = self.res.of(domain) in (Predef("players"), Predef("all_players"))
                self.report.error(
                    f"index {i} of {kind} {node.name} must be fixed when the game starts: a "
                    f"range of numbers and options, an enum, player, bool or a zone family",
                    domain.span, suggestion="player" if changing else None)
        self.seen_by_owner(node)

    def static(self, domain) -> bool:
        if isinstance(domain, A.Range):
            return self.constant(domain.lo) and self.constant(domain.hi)
        found = self.res.of(domain) if isinstance(domain, A.Name) else None
        if found is None:
            return isinstance(domain, A.Name)   # unknown: reported by the name pass
        if found in _STATIC_NAMES:
            return True
        return isinstance(found, Symbol) and (found.kind in ("enum", "zone")
                                              or found.name in self.scope.enums)

    def constant(self, expr) -> bool:
        if isinstance(expr, A.IntLit):
            return True
        if isinstance(expr, A.Neg):
            return self.constant(expr.operand)
        if isinstance(expr, A.BinOp):
            return self.constant(expr.left) and self.constant(expr.right)
        if not isinstance(expr, A.Name):
            return False
        found = self.res.of(expr)   # None: unknown, reported by the name pass
        return found is None or found == Predef("num_players") or (
            isinstance(found, Symbol) and found.kind == "option")

    def seen_by_owner(self, node) -> None:
        if node.seen not in (A.Seen.OWNER, A.Seen.OTHERS):
            return
        first = node.indices[0] if node.indices else None
        if first is None or self.res.of(first) != Predef("player"):
            kind = "zone" if isinstance(node, A.ZoneDecl) else "var"
            self.report.error(f"{kind} {node.name} is seen by {node.seen.value}, so its first "
                              f"index must be player (the owner), as in {node.name}[player]",
                              first.span if first is not None else node.span)


_HANDLERS = {
    A.ActionDecl: _Domains.params, A.TableDecl: _Domains.params,
    A.DefDecl: _Domains.def_params, A.For: _Domains.loop, A.CompFor: _Domains.loop,
    A.RandomChoice: _Domains.random, A.Deal: _Domains.deal,
    A.ZoneDecl: _Domains.indexed, A.VarDecl: _Domains.indexed,
}
