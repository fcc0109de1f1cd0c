"""The structure of play: the game can end, nothing recurses, and what cannot pause
does not pause.

- A game with no `win`, `draw`, `end game` and no `returns` cannot produce a result.
- Defs and tables are evaluated eagerly and rules are expanded by the engine, so a def
  that calls itself, or a rule that runs itself (directly, or by offering an action whose
  effect runs it), has no bottom.
- A simultaneous move is applied for all players at once, and a trigger fires between
  moves; neither can stop to ask for a decision or a chance outcome.
"""
from __future__ import annotations

from .. import ast as A
from ._report import Report
from ._scope import Scope
from ._walk import walk, walk_all

_ENDINGS = (A.Win, A.Draw, A.EndGame)  # `fail` ends nothing: it is an error
_PAUSES = {A.Choose: "choose", A.Simultaneous: "simultaneously", A.Shuffle: "shuffle",
           A.RandomChoice: "random"}


def check_flow(ruleset: A.Ruleset, scope: Scope, report: Report) -> None:
    """Reports a game that never ends, recursion, and pauses where none can happen."""
    _termination(ruleset, scope, report)
    _report_cycles(_call_graph(scope, ("def", "table"), _function_calls), report,
                   "a def or table may not call itself, directly or through others")
    _report_cycles(_call_graph(scope, ("rule", "action"), _rule_calls), report,
                   "a rule may not run itself again, directly or through the actions it "
                   "offers")
    _simultaneous_pauses(ruleset, scope, report)
    _trigger_pauses(ruleset, scope, report)


def _termination(ruleset: A.Ruleset, scope: Scope, report: Report) -> None:
    if scope.returns is not None:
        return
    if any(isinstance(node, _ENDINGS) for node in walk_all(ruleset.decls)):
        return
    report.error("the game never ends: nothing wins, draws or ends the game; add a win, draw "
                 "or end game statement, or a returns(p) declaration",
                 scope.flow.span if scope.flow is not None else report.start())


# ---------------------------------------------------------------------- recursion
def _call_graph(scope: Scope, kinds: tuple, edges_of) -> dict:
    """(kind, name) -> [((kind, name), span of the call)] for the declarations of `kinds`."""
    graph = {}
    for sym in scope.symbols.values():
        if sym.kind in kinds:
            graph[(sym.kind, sym.name)] = list(edges_of(sym.decl, scope))
    return graph


def _function_calls(decl, scope: Scope):
    for node in walk(decl):
        if isinstance(node, A.Call):
            sym = scope.symbols.get(node.func)
            if sym is not None and sym.kind in ("def", "table"):
                yield (sym.kind, sym.name), node.span


def _rule_calls(decl, scope: Scope):
    for node in walk_all(decl.body):
        if isinstance(node, A.CallRule) and scope.decl_of(node.name, "rule") is not None:
            yield ("rule", node.name), node.span
        elif isinstance(node, (A.Choose, A.Simultaneous)):
            for name in node.actions:
                if scope.decl_of(name, "action") is not None:
                    yield ("action", name), node.span


def _cycles(graph: dict) -> list:
    """Each cycle found by a depth-first search, as [(node, span of its call onward)]."""
    found, state, path = [], {}, []

    def visit(node):
        state[node] = "open"
        for target, span in graph.get(node, ()):
            if state.get(target) == "open":
                start = next(i for i, (n, _) in enumerate(path + [(node, span)])
                             if n == target)
                found.append((path + [(node, span)])[start:])
            elif target not in state:
                path.append((node, span))
                visit(target)
                path.pop()
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node)
    return found


def _report_cycles(graph: dict, report: Report, why: str) -> None:
    for cycle in _cycles(graph):
        (kind, name), span = cycle[0]
        chain = " -> ".join([n for (_, n), _ in cycle] + [name])
        report.error(f"{kind} {name} is recursive ({chain}): {why}", span)


# ---------------------------------------------------------------------- pauses
def _pausing(body: tuple, scope: Scope, via: tuple = (), seen=None) -> list:
    """The statements that would pause, in `body` or in the rules it runs: (stmt, rules)."""
    seen = set() if seen is None else seen
    out = []
    for node in walk_all(body):
        if type(node) in _PAUSES:
            out.append((node, via))
        elif isinstance(node, A.CallRule) and node.name not in seen:
            seen.add(node.name)
            decl = scope.decl_of(node.name, "rule")
            if decl is not None:
                out.extend(_pausing(decl.body, scope, via + (node.name,), seen))
    return out


def _via(rules: tuple) -> str:
    return f" (through rule {' -> '.join(rules)})" if rules else ""


def _simultaneous_pauses(ruleset: A.Ruleset, scope: Scope, report: Report) -> None:
    first_use = {}
    for node in walk_all(ruleset.decls):
        if isinstance(node, A.Simultaneous):
            for name in node.actions:
                first_use.setdefault(name, node.span.line)
    for name, line in first_use.items():
        decl = scope.decl_of(name, "action")
        for stmt, via in _pausing(decl.body if decl else (), scope):
            report.error(f"action {name} is played simultaneously (line {line}), so it cannot "
                         f"contain {_PAUSES[type(stmt)]}{_via(via)}: a simultaneous move "
                         f"cannot wait for another decision or a chance event", stmt.span)


def _trigger_pauses(ruleset: A.Ruleset, scope: Scope, report: Report) -> None:
    for decl in ruleset.decls:
        if isinstance(decl, A.TriggerDecl):
            for stmt, via in _pausing(decl.body, scope):
                report.error(f"trigger {decl.name} cannot contain {_PAUSES[type(stmt)]}"
                             f"{_via(via)}: a trigger runs between moves and cannot wait for "
                             f"a decision or a chance event", stmt.span)
