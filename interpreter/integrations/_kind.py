"""What kind of game a ruleset is, in the terms OpenSpiel and gymnasium ask for up front.

`game_kind(game)` decides, from the ruleset text and the options in force:

- chance: `none` (no shuffle and no `random`), else `explicit`: every chance node lists
  its outcomes, a shuffle with more distinct orders than the game has cards being dealt
  out as a run of single draws (the next card from the top, uniform among the cards
  left), so no node has more outcomes than `max_chance_outcomes`; `sampled` only when
  asked for (chance drawn inside the adapter);
- utility: `zero_sum` when every ending is `win`/`draw` (or 0 each), or when `returns(p)`
  is `x[p] - x[opponent(p)]` in a two-player game, or when an exhaustive walk of a small
  game finds that every outcome sums to 0 (`constant_sum` if to another constant);
  otherwise `general_sum`;
- bounds on returns and on the number of decisions: exact from the walk when it ran and
  completed, else from the endings (`win`: -(n-1)..1), else the fallbacks below, which
  the user can override.

The walk (`interpreter.enumerate.enumerate_states`, stopped after `WALK_STATES` states or
about `WALK_SECONDS` seconds) runs only for a ruleset whose `returns(p)` the text alone
does not settle, or when asked for with `walk=True`.
"""
from __future__ import annotations

import time
from typing import Optional

import attrs

from gdl import ast as A

from ..state import CHANCE_LIST_LIMIT
from ._actions import random_bound, shuffle_bound, walk as walk_ast

WALK_STATES = 20_000
WALK_SECONDS = 1.0
#: Decisions after which an adapter ends a game that has no proven bound (a truncation).
DEFAULT_MAX_GAME_LENGTH = 10_000
#: Returns are taken to lie within +-this when nothing bounds them (a `returns(p)` game
#: too big to walk); pass a bound to the adapter to do better.
DEFAULT_UTILITY_BOUND = 1_000_000.0


@attrs.frozen
class GameKind:
    """A ruleset's kind with its options in force (see the module docstring)."""
    simultaneous: bool
    chance: str                     # none, explicit, sampled
    perfect_information: bool
    utility: str                    # zero_sum, constant_sum, general_sum
    utility_sum: Optional[float]
    min_utility: float
    max_utility: float
    max_game_length: int            # decisions; a joint simultaneous decision counts once
    length_proven: bool             # no game can be longer (else longer ones are truncated)
    max_chance_outcomes: int
    walked: bool                    # the exhaustive walk completed


class _OutOfTime(Exception):
    pass


def _walk_report(game, states: int, seconds: float):
    """Returns the complete enumeration report of a small game, or None."""
    from gdl.errors import GdlError
    from ..enumerate import enumerate_states
    if states <= 0:
        return None
    deadline = time.perf_counter() + seconds

    def progress(_states, _frontier):
        if time.perf_counter() > deadline:
            raise _OutOfTime()
    try:
        report = enumerate_states(game, max_states=states, infosets=False, progress=progress)
    except (_OutOfTime, GdlError):
        return None
    return report if report.complete and report.outcomes is not None else None


def _opponent_difference(ruleset, n_seats: int) -> bool:
    """Whether `returns(p) = X - Y` where Y is X with `p` replaced by `opponent(p)`."""
    decl = next((d for d in ruleset.decls if isinstance(d, A.ReturnsDecl)), None)
    if decl is None or n_seats != 2:
        return False
    e = decl.expr
    if not (isinstance(e, A.BinOp) and e.op == "-"):
        return False
    other = A.Call("opponent", (A.Name(decl.var),))
    return _substitute(e.left, decl.var, other) == e.right


def _substitute(node, name, by):
    if isinstance(node, A.Name) and node.id == name:
        return by
    if isinstance(node, tuple):
        return tuple(_substitute(x, name, by) for x in node)
    if not hasattr(node, "__attrs_attrs__"):
        return node
    return attrs.evolve(node, **{f.name: _substitute(getattr(node, f.name), name, by)
                                 for f in node.__attrs_attrs__ if f.init})


def _chance_mode(profile, wanted: str) -> str:
    if not profile["chance"]:
        return "none"
    return "sampled" if wanted == "sampled" else "explicit"


def _max_chance_outcomes(game, chance: str) -> int:
    """A shuffle lists at most as many orders as there are cards (else it is drawn card by
    card: one outcome per card); a `random` at most its domain's distinct values."""
    if chance == "none":
        return 0
    most = random_bound(game)
    most = CHANCE_LIST_LIMIT if most is None else most
    if any(isinstance(n, A.Shuffle) for n in walk_ast(game.ruleset.decls)):
        most = max(most, min(shuffle_bound(game), len(game.prog.cards)))
    return max(most, 1)


def _utility(settled: bool, report):
    """Returns (utility, utility sum) from the text, else from the walk's outcomes."""
    sums = {round(sum(r), 9) for r in report.outcomes} if report is not None else None
    if settled or sums == {0.0}:
        return "zero_sum", 0.0
    if sums is not None and len(sums) == 1:
        return "constant_sum", float(next(iter(sums)))
    return "general_sum", None


def _win_bounds(game) -> tuple:
    """Returns the least and greatest return `win`, `draw` and the end of the flow give:
    a single winner leaves each other seat -1/(n-1), k winners -k/(n-k)."""
    from gdl.checker import OptT, Prim
    from ._actions import checker_types
    n = len(game.seats)
    if n < 2:
        return (0.0, 1.0)
    types, _ = checker_types(game.ruleset)
    wins = [w for w in walk_ast(game.ruleset.decls) if isinstance(w, A.Win)]
    single = all(types.type_of(w.who) in (Prim("player"), OptT(Prim("player"))) for w in wins)
    return (-1.0 / (n - 1) if single else -float(n - 1), 1.0)


def _bounds(game, report, has_returns: bool, utility_bound: Optional[float]) -> tuple:
    if utility_bound is not None:
        return -float(utility_bound), float(utility_bound)
    if report is not None:
        return (min(min(r) for r in report.outcomes), max(max(r) for r in report.outcomes))
    if not has_returns:
        return _win_bounds(game)
    return -DEFAULT_UTILITY_BOUND, DEFAULT_UTILITY_BOUND


def game_kind(game, *, chance: str = "auto", max_game_length: Optional[int] = None,
              utility_bound: Optional[float] = None, walk: Optional[bool] = None,
              walk_states: int = WALK_STATES, walk_seconds: float = WALK_SECONDS) -> GameKind:
    """Returns the kind of `game` (a loaded gdl Game); the keywords override the analysis
    (`walk`: None walks only when the text leaves the utility open)."""
    profile = game.profile()
    has_returns = any(isinstance(d, A.ReturnsDecl) for d in game.ruleset.decls)
    settled = not has_returns or _opponent_difference(game.ruleset, len(game.seats))
    mode = _chance_mode(profile, chance)
    if walk is None:
        walk = not settled
    report = _walk_report(game, walk_states, walk_seconds) if walk else None
    utility, total = _utility(settled, report)
    lo, hi = _bounds(game, report, has_returns, utility_bound)
    proven = report is not None and report.max_depth is not None
    if not game.prog.actions:        # nobody ever decides
        proven, max_game_length = True, max_game_length or 1
    if not proven:                   # a truncated game returns 0 each
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if lo >= hi:                     # OpenSpiel wants min < max (a game of draws only)
        lo, hi = min(lo, -1.0), max(hi, 1.0)
    if max_game_length is None:
        max_game_length = max(report.max_depth, 1) if proven else DEFAULT_MAX_GAME_LENGTH
    return GameKind(
        simultaneous=bool(profile["simultaneous"]), chance=mode,
        perfect_information=profile["information"] == "perfect", utility=utility,
        utility_sum=total, min_utility=float(lo), max_utility=float(hi),
        max_game_length=int(max_game_length), length_proven=proven,
        max_chance_outcomes=_max_chance_outcomes(game, mode), walked=report is not None)
