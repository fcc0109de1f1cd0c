"""Outside checks: Kuhn and Leduc poker written in gdl to OpenSpiel's definitions must have
exactly OpenSpiel's states (chance and terminal ones included), information sets, legal
moves and chance outcomes, the same outcome distribution under uniformly random play, and
Kuhn poker's known game value.

The recorded figures always run; the live comparison runs where `pyspiel` imports (the
`openspiel` extra).  OpenSpiel deals one card per chance node; the rulesets do the same
with one `secret random` per card (see docs/testing.md for the mapping).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from conftest import RULESETS, load_game
from interpreter.enumerate import enumerate_states

KUHN = RULESETS / "classics" / "kuhn_poker.gdl"
LEDUC = RULESETS / "classics" / "leduc_poker.gdl"

# OpenSpiel's figures (open_spiel 1.x, get_all_states with terminals and chance states,
# information_state_string per player at the player's decision nodes).
RECORDED = {
    "kuhn_poker": dict(states=58, chance=4, terminal=30, decision=24, legal_moves=48,
                       chance_outcomes=9, infosets=(6, 6), longest=3 + 2),
    "leduc_poker": dict(states=9457, chance=157, terminal=5520, decision=3780,
                        legal_moves=8820, chance_outcomes=636, infosets=(468, 468),
                        longest=8 + 3),
}
# Returns -> probability when every move is uniformly random (computed from OpenSpiel).
RECORDED_OUTCOMES = {
    "kuhn_poker": {(1, -1): Fraction(3, 8), (-1, 1): Fraction(1, 4),
                   (2, -2): Fraction(3, 16), (-2, 2): Fraction(3, 16)},
    "leduc_poker": {(1, -1): Fraction(7, 30), (-1, 1): Fraction(31, 240),
                    (3, -3): Fraction(13, 120), (-3, 3): Fraction(31, 240),
                    (5, -5): Fraction(11, 160), (-5, 5): Fraction(11, 160),
                    (7, -7): Fraction(17, 480), (-7, 7): Fraction(11, 240),
                    (9, -9): Fraction(29, 960), (-9, 9): Fraction(17, 480),
                    (11, -11): Fraction(1, 80), (-11, 11): Fraction(1, 80),
                    (13, -13): Fraction(1, 160), (-13, 13): Fraction(1, 160),
                    (0, 0): Fraction(5, 64)},
}
PATHS = {"kuhn_poker": KUHN, "leduc_poker": LEDUC}


def figures(report) -> dict:
    return dict(states=report.states, chance=report.chance, terminal=report.terminal,
                decision=report.decision, legal_moves=report.legal_moves,
                chance_outcomes=report.chance_outcomes,
                infosets=tuple(report.infosets.values()), longest=report.max_depth)


def outcomes(report) -> dict:
    return {tuple(int(r) for r in returns): p for returns, p in report.outcomes.items()}


@pytest.fixture(scope="module")
def reports():
    return {name: enumerate_states(load_game(path)) for name, path in PATHS.items()}


@pytest.mark.parametrize("name", list(PATHS))
def test_counts_equal_openspiel_recorded(reports, name):
    assert figures(reports[name]) == RECORDED[name]
    assert outcomes(reports[name]) == RECORDED_OUTCOMES[name]


# ---------------------------------------------------------------- live, against pyspiel
def openspiel_figures(name):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms.get_all_states import get_all_states
    game = pyspiel.load_game(name)
    states = get_all_states(game, include_terminals=True, include_chance_states=True)
    infosets = [set() for _ in range(game.num_players())]
    legal = chance_outcomes = 0
    for s in states.values():
        if s.is_chance_node():
            chance_outcomes += len(s.chance_outcomes())
        elif not s.is_terminal():
            infosets[s.current_player()].add(s.information_state_string())
            legal += len(s.legal_actions())
    chance = sum(s.is_chance_node() for s in states.values())
    terminal = sum(s.is_terminal() for s in states.values())
    return dict(states=len(states), chance=chance, terminal=terminal,
                decision=len(states) - chance - terminal, legal_moves=legal,
                chance_outcomes=chance_outcomes, infosets=tuple(len(i) for i in infosets),
                longest=game.max_game_length() + game.max_chance_nodes_in_history())


def openspiel_outcomes(name):
    """Returns OpenSpiel's returns -> exact probability under uniformly random play."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game(name)
    out = {}

    def walk(state, p):
        if state.is_terminal():
            r = tuple(int(x) for x in state.returns())
            out[r] = out.get(r, 0) + p
            return
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            for action, _ in outcomes:       # OpenSpiel's deals are uniform
                walk(state.child(action), p / len(outcomes))
            return
        actions = state.legal_actions()
        for action in actions:
            walk(state.child(action), p / len(actions))
    walk(game.new_initial_state(), Fraction(1))
    return out


@pytest.mark.parametrize("name", list(PATHS))
def test_counts_equal_openspiel_live(reports, name):
    live = openspiel_figures(name)
    assert live == RECORDED[name]            # the recorded figures are still OpenSpiel's
    assert figures(reports[name]) == live


@pytest.mark.parametrize("name", list(PATHS))
def test_outcomes_equal_openspiel_live(reports, name):
    live = openspiel_outcomes(name)
    assert live == RECORDED_OUTCOMES[name]
    assert outcomes(reports[name]) == live


# ---------------------------------------------------------------- Kuhn's game value
# OpenSpiel's GetOptimalPolicy(alpha = 0) (kuhn_poker.cc): P(bet) at each information
# set, keyed by the card (0 J, 1 Q, 2 K) and the betting so far.
NASH_BET = {"0": 0, "0pb": 0, "1": 0, "1pb": Fraction(1, 3), "2": 0, "2pb": 1,
            "0p": Fraction(1, 3), "0b": 0, "1p": 0, "1b": Fraction(1, 3), "2p": 1, "2b": 1}
CARD = {"J": "0", "Q": "1", "K": "2"}


def test_kuhn_value_under_the_equilibrium_is_minus_one_eighteenth():
    game = load_game(KUHN)

    def value(state) -> Fraction:
        if state.is_terminal():
            return Fraction(state.returns()[0]).limit_denominator()
        if state.is_chance():
            return sum(p * value(_after(state, outcome)) for outcome, p in
                       state.chance_outcomes())
        seat = state.to_move()[0]
        card = state.cards_in(f"hand[{seat.name}]")[0].text
        bet = Fraction(NASH_BET[CARD[card] + game.evaluate("history", state)])
        return sum(q * value(_after(state, move)) for move, q in
                   ((m, bet if m.text == "bet" else 1 - bet) for m in state.legal_moves())
                   if q)
    assert value(game.new_state()) == Fraction(-1, 18)


def _after(state, step):
    child = state.clone()
    child.apply(step)
    return child


# ---------------------------------------------------------------- rules by hand
def play(path, *steps):
    """Plays chance outcomes by their text (`random JS`) and moves by their text."""
    game = load_game(path)
    state = game.new_state()
    for step in steps:
        if state.is_chance():
            state.apply(next(o for o, _ in state.chance_outcomes() if o.text == step))
        else:
            state.apply(step)
    return state


@pytest.mark.parametrize("steps, returns", [
    (["random K", "random J", "bet", "pass"], (1, -1)),            # p2 folds
    (["random J", "random K", "pass", "bet", "pass"], (-1, 1)),    # p1 folds
    (["random J", "random K", "pass", "pass"], (-1, 1)),           # showdown, 1 chip
    (["random K", "random Q", "pass", "bet", "bet"], (2, -2)),     # showdown, 2 chips
])
def test_kuhn_hands(steps, returns):
    state = play(KUHN, *steps)
    assert state.is_terminal() and state.returns() == returns


@pytest.mark.parametrize("steps, returns", [
    # a pair (J with the public J) beats a king
    (["random JS", "random KS", "call", "call", "random JH", "call", "call"], (1, -1)),
    # same rank: the pot is split
    (["random JS", "random JH", "raise", "call", "random QS", "call", "call"], (0, 0)),
    # the higher card wins without a pair; round 2 raises by 4
    (["random QS", "random KH", "call", "call", "random JS", "raise", "call"], (-5, 5)),
    # a fold facing a raise loses what was put in
    (["random QS", "random KH", "raise", "raise", "fold"], (-3, 3)),
])
def test_leduc_hands(steps, returns):
    state = play(LEDUC, *steps)
    assert state.is_terminal() and state.returns() == returns


def test_leduc_fold_only_facing_a_bet_and_two_raises_a_round():
    state = play(LEDUC, "random QS", "random KH")
    assert [m.text for m in state.legal_moves()] == ["call", "raise"]
    state.apply("raise")
    assert [m.text for m in state.legal_moves()] == ["fold", "call", "raise"]
    state.apply("raise")
    assert [m.text for m in state.legal_moves()] == ["fold", "call"]
