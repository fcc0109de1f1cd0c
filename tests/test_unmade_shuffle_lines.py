"""A shuffle that `State.random_run` draws where no seat's view is kept leaves its
history line unmade (its text names every card) until the history is read; the line
read is the one the same shuffle makes where it is made at once (a seat's views kept,
a zone whose cards may face two ways, a position placed by hand).  Each test of a guard
fails without it."""
from __future__ import annotations

import random

from interpreter import load_text
from interpreter.serial import replay
from interpreter.state import _UNMADE

_GAME = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into deck[a]: card(rank: r) for r in rank
zone deck[player]: stack
action go():
    TURN
flow:
    shuffle deck[a]
    move top(deck[a], 2) to deck[b]
    shuffle deck[a]
    choose a: go
    win a
'''


def _shuffled(text: str, seed: int, observe: bool = False, place=None):
    """A state after `random_run` has taken its first two steps (the two shuffles)."""
    state = load_text(text).new_state(observe=observe)
    if place:
        state.place(*place)
    state.random_run(random.Random(seed), 2, decide=False)
    return state


def test_a_shuffle_drawn_in_a_playout_makes_its_line_when_the_history_is_read():
    text = _GAME.replace("TURN", "win b")
    for seed in range(20):
        state = _shuffled(text, seed)
        assert [line[0] is _UNMADE for line in state.lines] == [True, True]
        seen = _shuffled(text, seed, observe=True)       # made at once
        assert state.history == seen.history and not state.lazy
        assert [line[0] for line in state.lines] == [-1, -1]
        (_, first, (kind, order)), (_, second, _) = state.history
        assert kind == "shuffle" and len(order) == 6 and first.count(" r") == 6
        assert second.startswith("shuffle deck[a]: ") and second.count(" r") == 4


def test_a_state_cloned_before_its_history_is_read_makes_its_own_lines():
    state = _shuffled(_GAME.replace("TURN", "win b"), 5)
    copy = state.clone()
    made = copy.history
    assert state.lines[0][0] is _UNMADE and copy.lines[0][0] == -1
    assert state.history == made and state.lines is not copy.lines


def test_a_history_set_whole_is_read_as_set():
    state = _shuffled(_GAME.replace("TURN", "win b"), 5)
    lines = [(-1, "shuffle deck[a]: r1", ("shuffle", (0,)))]
    state.history = lines
    assert state.history is lines and not state.lazy


def test_a_shuffle_of_a_zone_a_card_may_be_turned_in_shows_its_facings():
    game = load_text(_GAME.replace("TURN", "flip top(deck[a]) up"))
    assert not game.prog.steady[game.zone("deck[a]").slot]
    state = game.new_state()
    state.up[game.evaluate("top(deck[a])", state).id] = True     # as the flip leaves it
    state.random_run(random.Random(1), 1, decide=False)
    assert state.history[0][1].count("(") == 5


def test_a_shuffle_of_a_steady_zone_shows_a_card_placed_face_up_apart():
    """A placed position keeps its seats' views, so its lines are made at once."""
    text = _GAME.replace("TURN", "win b")
    state = _shuffled(text, 1, place=(["r1"], "deck[b]", "up"))
    assert state.history[0][1].count("(") == 0       # r1 left deck[a]: one facing
    state = load_text(text).new_state()
    state.place(["r1"], "deck[a]", "up")
    state.random_run(random.Random(1), 1, decide=False)
    text = state.history[0][1]
    assert text.count("(") == 5 and " r1 " in f"{text} " and "(r1)" not in text


def test_a_playout_read_by_its_trace_and_snapshot_gives_the_same_history():
    game = load_text(_GAME.replace("TURN", "win b"))
    state = game.new_state()
    state.random_run(random.Random(9), 100)
    assert state.is_terminal() and state.lines[0][0] is _UNMADE
    assert replay(game, state.trace()).history == state.history
    state = game.new_state()
    state.random_run(random.Random(9), 100)
    assert game.state_from_json(state.to_json()).history == state.history
