"""A zone whose cards the rules only ever lay at its own facing (`Program.steady`: no
`flip` nor move `face ...` can turn one) keeps its facings through a move within it
(`move top(z, n) to z at depth d`), which generated code then leaves as they are, but
in a position placed outside the rules; a shuffle's text of such a zone reads no facing
(none can differ), but in such a position.  Each test fails without its guard."""
from __future__ import annotations

import random

import pytest

from conftest import fused_and_plain
from interpreter import load_text
from gdl.errors import TraceError

_GAME = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into deck[p]: card(rank: r) for p in player for r in rank
cards into pile: card(rank: r1)
zone deck[player]: stack
zone pile: stack
action go():
    move top(deck[me], 3) to deck[me] at depth 2
flow:
    TURN
    choose a: go
    draw
'''

#: each a statement that may turn a card of deck[a] face up before the move within it
_TURNING = {
    "flip a zone": "flip deck[a] up",
    "flip its cards": "flip cards(deck[a]) up",
    "flip its top": "flip top(deck[a], 2) up",
    "flip its bottom": "flip bottom(deck[a], 4) up",
    "flip a list": "flip [c for c in cards(deck[a]) if c.rank != r3] up",
    "move face up": "move top(deck[a], 2) to top of deck[a] face up",
    "move in face up": "move pile to deck[a] face up",
    "deal face up": "deal 1 from deck[b] to deck[p] for p in [a] face up",
}


@pytest.mark.parametrize("case", sorted(_TURNING))
def test_a_zone_the_rules_may_turn_a_card_in_has_its_facings_set_by_a_move_within_it(
        monkeypatch, case):
    def play(game):
        state = game.new_state()
        turned = [state.up[c.id] for c in game.evaluate("cards(deck[a])", state)]
        state.apply("go", "a")
        return turned, [state.up[c.id] for c in game.evaluate("cards(deck[a])", state)]
    text = _GAME.replace("TURN", _TURNING[case])
    assert not load_text(text).prog.steady[load_text(text).zone("deck[a]").slot]
    fused, plain = fused_and_plain(monkeypatch, text, play)
    assert fused == plain
    turned, after = fused
    assert any(turned[:3]) and not any(after[2:5])    # the block moved lies face down again


def test_a_steady_zone_is_one_no_statement_turns_a_card_in():
    game = load_text(_GAME.replace("TURN", "flip pile up\n    move top(deck[b], 1) to pile"))
    steady = {str(z): game.prog.steady[z.slot] for z in game.prog.zones}
    assert steady == {"deck[a]": True, "deck[b]": True, "pile": False}


def test_a_card_placed_face_up_in_a_steady_zone_is_turned_by_a_move_within_it(monkeypatch):
    def play(game):
        state = game.new_state()
        state.place(["r1"], "deck[a]", "up")      # outside the rules: on top, face up
        state.apply("go", "a")
        return [(c.text, state.up[c.id]) for c in game.evaluate("cards(deck[a])", state)]
    fused, plain = fused_and_plain(monkeypatch, _GAME.replace("    TURN\n", ""), play)
    assert fused == plain
    assert not any(up for _, up in fused)


def test_a_snapshot_with_a_card_turned_in_a_steady_zone_must_say_it_was_placed():
    game = load_text(_GAME.replace("    TURN\n", ""))
    state = game.new_state()
    top = game.evaluate("top(deck[a])", state)
    data = state.to_json()
    data["up"][top.id] = True
    with pytest.raises(TraceError, match=rf"'up' has {top.text} face up in deck\[a\], where "
                                          r"the rules lay every card face down"):
        game.state_from_json(data)
    data["placed"] = True
    state = game.state_from_json(data)
    state.apply("go", "a")
    assert not state.up[top.id] and game.evaluate("cards(deck[a])", state)[2] is top


_SHUFFLED = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into deck[a]: card(rank: r) for r in rank
zone deck[player]: stack
action go():
    TURN
flow:
    shuffle deck[a]
    choose a: go
    win a
'''


class _Watched(list):
    """A state's facings that count every read (`__getitem__`)."""
    reads = 0

    def __getitem__(self, i):
        _Watched.reads += 1
        return list.__getitem__(self, i)


def _shuffle_text(state) -> str:
    """The text of a shuffle of deck[a] (no twins: its cards are not put in a listed order
    first, which reads the facings of its own)."""
    assert not state.game.prog.has_twins
    return state.sample_chance(random.Random(3)).text


def test_a_shuffle_of_a_steady_zone_reads_no_facing():
    state = load_text(_SHUFFLED.replace("TURN", "win b")).new_state()
    assert state.game.prog.steady[state.game.zone("deck[a]").slot]
    state.up = _Watched(state.up)
    _Watched.reads = 0
    text = _shuffle_text(state)
    assert _Watched.reads == 0 and "(" not in text and text.count(" r") == 6


def test_a_shuffle_of_a_zone_a_card_may_be_turned_in_shows_its_facings():
    game = load_text(_SHUFFLED.replace("TURN", "flip top(deck[a]) up"))
    state = game.new_state()
    assert not game.prog.steady[game.zone("deck[a]").slot]
    state.up[game.evaluate("top(deck[a])", state).id] = True     # as the flip leaves it
    assert _shuffle_text(state).count("(") == 5


def test_a_shuffle_of_a_steady_zone_shows_a_card_placed_face_up_apart():
    state = load_text(_SHUFFLED.replace("TURN", "win b")).new_state()
    state.place(["r1"], "deck[a]", "up")      # outside the rules: on top, face up
    text = _shuffle_text(state)
    assert text.count("(") == 5 and " r1 " in f"{text} " and "(r1)" not in text
