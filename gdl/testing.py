"""Property testing for any ruleset: Hypothesis strategies and a generic state machine.

    from hypothesis import given, settings
    from gdl.testing import playthroughs, make_state_machine, check_laws
    from interpreter import load

    game = load("rulesets/my_game.gdl", {"rounds": "2"})

    @given(playthroughs(game, max_steps=60))
    def test_every_state_keeps_the_laws(p):
        assert p.error is None, p
        check_laws(p.state)

    TestMyGame = make_state_machine(game).TestCase

Moves and chance outcomes are drawn by Hypothesis as indices into the legal moves (or the
listed outcomes), so a failing example shrinks toward short games of early moves, and is
printed as the trace of its steps in move text.  The laws checked at each step are the
API's own (`LAWS`) plus the ruleset's `invariant` declarations; they live in `gdl.laws`,
which needs no Hypothesis, and are re-exported here.
"""
from __future__ import annotations

import random
from typing import List, Optional, Sequence

try:
    from hypothesis import HealthCheck, Phase, note, settings
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
except ImportError as err:          # the test extra, not the engine: say how to get it
    raise ImportError(f"gdl.testing needs Hypothesis ({err}): install the test extra with "
                      f"`pip install -e '.[test]'` in a checkout (`make test` does), or "
                      f"`pip install hypothesis pytest`; the laws alone are in gdl.laws"
                      ) from err

from .errors import GdlError
from .laws import (DEEP_LAWS, LAWS, LawBroken, check_game, check_laws, check_undo,
                   law_problems, story, swapped)

#: Hypothesis's phases less `explain`, which plays a failing game again with each step
#: varied to say which mattered: minutes for a game of a few dozen steps (each step's laws
#: are checked every time), seconds without.  `make_state_machine` uses them; pass them
#: with settings of your own (`settings(max_examples=20, phases=PHASES)`).
PHASES = tuple(p for p in Phase if p is not Phase.explain)


# ---------------------------------------------------------------------------- playthroughs
class Playthrough:
    """A game played by Hypothesis's draws: the state reached, its steps as text
    (`chance: ...`, `p1: select cell[1,1]`) and the GdlError that stopped it, if any."""

    def __init__(self, game, state, steps: List[str], error: Optional[GdlError] = None):
        self.game, self.state, self.steps, self.error = game, state, steps, error

    @property
    def trace(self) -> dict:
        """Returns the trace that replays this playthrough (`interpreter.replay`)."""
        return self.state.trace()

    def __repr__(self):
        return story(self.game, self.state, self.steps, self.error)


def draw_step(draw, state) -> str:
    """Makes one step in `state` with `draw` choosing it (a chance outcome, or one move of
    one deciding seat); returns the step as text."""
    steps: List[str] = []
    _draw(draw, state, steps)
    return steps[0]


def _draw(draw, state, steps: List[str]):
    """Makes one step, appending its text to `steps` before it is applied (so a step that
    raises is in the trace)."""
    if state.is_chance():
        outcomes = state.chance_outcomes()
        if outcomes is None:
            # a shuffle too large to list: its order drawn as a permutation of its cards,
            # which shrinks toward their declared order (a seed for the draw would not)
            cards = sorted(state.sample_chance(random.Random(0)).data)
            outcome = state.outcome_from_data("shuffle", tuple(draw(st.permutations(cards))))
        else:
            outcome = outcomes[draw(st.integers(0, len(outcomes) - 1))][0]
        steps.append(f"chance: {outcome.text}")
        state.apply(outcome)
        return
    seats = state.to_move()
    seat = seats[draw(st.integers(0, len(seats) - 1))] if len(seats) > 1 else seats[0]
    moves = state.legal_moves(seat)
    move = moves[draw(st.integers(0, len(moves) - 1))]
    steps.append(f"{seat.name}: {move.text}")
    state.apply(move, seat)


def playthroughs(game, max_steps: int = 100, to_end: bool = False, seed: int = 0):
    """Returns a strategy for games of `game` played from `game.new_state(seed)`: up to a
    drawn number of steps (at most `max_steps`), or with `to_end` until the game is over
    (or `max_steps` steps).  A GdlError raised on the way ends the playthrough and is kept
    in its `error`."""
    @st.composite
    def play(draw):
        state = game.new_state(seed)
        limit = max_steps if to_end else draw(st.integers(0, max_steps))
        steps: List[str] = []
        try:
            while len(steps) < limit and not state.is_terminal():
                _draw(draw, state, steps)
        except GdlError as err:
            return Playthrough(game, state, steps, err)
        return Playthrough(game, state, steps)
    return play()


def states(game, max_steps: int = 100):
    """Returns a strategy for states of `game` reached by playthroughs (a rule error on the
    way fails the test that draws it, with the trace)."""
    def final(p):
        if p.error is not None:
            raise LawBroken(f"the rules failed:\n{p!r}", p.trace)
        return p.state
    return playthroughs(game, max_steps).map(final)


def reachable_states(game, max_states: int = 5000):
    """Returns a strategy for states drawn from the first `max_states` reachable states
    (breadth first, `interpreter.enumerate.reachable_states`): for small variants, every
    state is a candidate, not only those random play finds."""
    def every():
        from interpreter.enumerate import reachable_states as walk
        return st.sampled_from(list(walk(game, max_states))).map(lambda s: s.clone())
    return st.deferred(every)


# ---------------------------------------------------------------------------- state machine
class GameStateMachine(RuleBasedStateMachine):
    """Plays `game` one step at a time (Hypothesis chooses each chance outcome, each move
    and which deciding seat commits first) and checks `laws` after every step, and that
    undo takes each step back.  Subclass with a `game`, or use `make_state_machine`."""

    game = None
    max_steps = 100
    laws: Sequence[str] = LAWS

    def __init__(self):
        super().__init__()
        if self.game is None:
            raise TypeError(f"{type(self).__name__} needs a `game` attribute: subclass "
                            f"GameStateMachine with game = load(...), or call "
                            f"make_state_machine(game)")
        self.state = self.game.new_state(0)
        self.steps: List[str] = []

    @rule(data=st.data())
    def step(self, data):
        if self.state.is_terminal() or len(self.steps) >= self.max_steps:
            return                              # a rule must stay available: do nothing
        before = self.state.clone()
        try:
            _draw(data.draw, self.state, self.steps)
        except GdlError as err:
            raise LawBroken(f"the rules failed: {err}\n"
                            + story(self.game, self.state, self.steps),
                            self.state.trace()) from None
        note(self.steps[-1])
        check_undo(before, self.state, self.steps)

    @invariant()
    def laws_hold(self):
        check_laws(self.state, self.laws, random.Random(len(self.steps)), self.steps)


def make_state_machine(game, max_steps: int = 100, laws: Sequence[str] = LAWS) -> type:
    """Returns a GameStateMachine subclass for `game`; its `.TestCase` is a unittest case
    pytest collects (`TestMyGame = make_state_machine(game).TestCase`)."""
    name = "".join(w.capitalize() for w in str(game.title).replace("-", " ").split()
                   if w.isalnum()) or "Game"
    machine = type(f"{name}StateMachine", (GameStateMachine,),
                   {"game": game, "max_steps": max_steps, "laws": tuple(laws)})
    machine.TestCase.settings = settings(deadline=None, phases=PHASES,
                                         suppress_health_check=list(HealthCheck))
    return machine


__all__ = ["LAWS", "DEEP_LAWS", "PHASES", "LawBroken", "Playthrough", "playthroughs", "states",
           "reachable_states",
           "draw_step", "law_problems", "check_laws", "check_game", "swapped",
           "GameStateMachine", "make_state_machine"]
