"""The walk's work done as it goes (`interpreter.enumerate`): the probability of reaching
each state added up as the edges are found, each state's edges kept as its children's
ids (the pairs made only where a state is reached twice), and every seat's view
remembered by the cards' part of the state's key.  Each test fails where a shortcut is
taken where it does not hold, or where the walk goes back to the work after it."""
from __future__ import annotations

from fractions import Fraction

import pytest

from conftest import RULESETS, load_game
from interpreter import enumerate as walk_module
from interpreter import load_text, observe
from interpreter._keys import cards_at, keyer
from interpreter.enumerate import _Walk, enumerate_states, reachable_states
from test_enumerate import LEAVING

LEDUC = RULESETS / "classics" / "leduc_poker.gdl"

# the root offers `one` (n = 1) and `two` (n = 2); at n = 2 `down` leads back to the
# state n = 1, found (and expanded) before it: its mass, 1/2 + 1/4, reaches its children
# only after the walk has expanded it
BACKWARD = '''game "t"
players 2
var n: int = 0
action one():
    n = 1
action two():
    n = 2
action down():
    n = 1
action high():
    n = 3
action low():
    n = 4
flow:
    while n < 3:
        if n == 0:
            choose p1: one, two
        elif n == 1:
            choose p1: high, low
        else:
            choose p1: down, low
    if n == 3:
        win p1
    else:
        win p2
'''

# from n = 1, `two` leads to the state n = 2 found before (its mass added), then `three`
# to a new state past `max_states=3`: the expansion is taken back, and its mass with it
MERGED_THEN_STOPPED = '''game "t"
players 2
var n: int = 0
action one():
    n = 1
action two():
    n = 2
action three():
    n = 3
flow:
    while n < 3:
        if n == 0:
            choose p1: one, two
        else:
            choose p1: two, three
    draw
'''


def test_an_edge_back_to_a_state_expanded_before_gives_the_masses_after_the_walk():
    report = enumerate_states(load_text(BACKWARD, {}))
    assert report.cycles is False and report.states == 5
    assert sorted(report.outcomes.values()) == [Fraction(3, 8), Fraction(5, 8)]


def test_a_walk_stopped_mid_expansion_takes_back_the_mass_it_passed_on():
    report = enumerate_states(load_text(MERGED_THEN_STOPPED, {}), max_states=3)
    assert report.stopped == "--max-states 3" and report.states == 3
    assert report.outcomes == {} and report.unexplored == 1


def test_a_tree_is_walked_once(monkeypatch):
    """Leduc's states are a tree: its masses are added up as it is walked, with no pass
    over the edges after (nor pairs made of them)."""
    def again(*args):
        raise AssertionError("went over the edges again")
    monkeypatch.setattr(walk_module, "_propagate_acyclic", again)
    monkeypatch.setattr(_Walk, "pair_edges", again)
    report = enumerate_states(load_game(LEDUC), infosets=False)
    assert (report.states, report.terminal, len(report.outcomes)) == (9457, 5520, 15)
    assert sum(report.outcomes.values()) == 1


def test_merged_states_get_their_edges_as_pairs():
    walk = _Walk(load_text(BACKWARD, {}), False, None, None, None)
    walk.run()
    assert walk.merged and walk.backward and walk.edges[0] == [1, 2]
    walk.pair_edges()
    assert walk.edges[0] == [(1, Fraction(1, 2)), (2, Fraction(1, 2))]


def test_the_walk_remembers_few_products_of_masses_and_probabilities(monkeypatch):
    """The products of a mass and a probability are remembered while they are few (a
    game of many would keep one a state); past the limit they are worked out afresh,
    and the outcomes are the same."""
    full = enumerate_states(load_game(LEDUC), infosets=False)
    monkeypatch.setattr(walk_module, "SHARES_KEPT", 3)
    walk = _Walk(load_game(LEDUC), False, None, None, None)
    walk.run()
    assert len(walk.shares) == 3
    report = enumerate_states(load_game(LEDUC), infosets=False)
    assert report.outcomes == full.outcomes and report.states == full.states


TWINS = '''game "t"
players 2
card rank: 1..2
cards into deck: card(rank: 1) for i in 1..2
cards into deck: card(rank: 2) for i in 1..1
zone deck: stack
zone hand[player]: set, seen by owner
action pass_on():
    pass
flow:
    shuffle deck
    for p in players:
        move top(deck) to hand[p]
    move top(deck) to hand[p1]
    choose p2: pass_on
    draw
'''

SET_ZONE = TWINS.replace("for i in 1..2\n", "for i in 1..1\ncards into deck: card(rank: 3) "
                         "for i in 1..1\n").replace("card rank: 1..2", "card rank: 1..3")


@pytest.mark.parametrize("text", [LEAVING, SET_ZONE, TWINS])
def test_the_views_told_by_the_keys_cards_are_each_seats_view(text):
    game = load_text(text, {})
    at = cards_at(game.prog)
    # identical cards: the keys tell them apart only by their kinds, and are not read
    assert (at is None) == (text is TWINS) == game.prog.has_twins
    of, key = observe.viewer(game.prog, at), keyer(game.prog)
    checked = 0
    for _ in range(2):          # the second time, every table is remembered
        for state in reachable_states(game):
            assert of(state, key(state)) == observe.views(state) == [
                observe.view(state, seat) for seat in game.seats]
            checked += 1
    assert checked >= 10
