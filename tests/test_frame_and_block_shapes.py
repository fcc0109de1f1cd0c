"""Two shapes of generated code: a lone pick reads `me` as its `seat` (not written to its
slot, `_actions._me_bound`), and `move top(z, n)` to the bottom or a depth of the same
zone goes inline (`_compiler._move_block_lines`).  Each test fails without its guard."""
from __future__ import annotations

import random

import pytest

from conftest import fused_and_plain


def test_a_pick_empties_the_slots_a_cold_call_wrote_while_me_was_held(monkeypatch):
    # the pick holds `me` in `seat`; `players` with a seat out is worked out by a cold
    # call the first time (b's draw in the second round), which writes `me` to its slot
    # first: the pick empties the slots then, so `random_move` leaves the frame (and the
    # key) as the closures leave it.
    text = '''game "t"
players a, b, c
var said[player]: int = 0
var rounds: int = 0
action say(n: 1..count(players) + 1):
    said[me] = n
flow:
    repeat 3:
        rounds += 1
        if rounds == 2:
            eliminate c
        simultaneously p in players: say
    draw
'''

    def play(game):
        state, rng, seen = game.new_state(), random.Random(0), []
        for _ in range(2):
            for seat in state.to_move():
                move = state.random_move(rng, seat)
                seen.append((move.text, list(state.frame), state.key()))
                state.apply(move, seat)
        return seen
    fused, plain = fused_and_plain(monkeypatch, text, play)
    assert fused == plain


_MOVES = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into deck[p]: card(rank: r) for p in player for r in rank
cards into bag: card(rank: r) for r in rank
zone deck[player]: stack
zone bag: set
var k: int = 2
flow:
    move top(deck[a], k) to deck[a] at depth 1
    move top(deck[b], 3) to bottom of deck[b]
    move top(deck[a], 1) to deck[b] at depth 2
    move top(deck[b], 2) to bottom of deck[a]
    move top(bag, k) to bag at depth 1
    move top(deck[a], 2) to deck[a] at depth DEPTH
    draw
'''


@pytest.mark.parametrize("depth", ["5", "6"])
def test_a_block_moved_within_its_zone_inline_lands_as_move_block_puts_it(monkeypatch,
                                                                         depth):
    # inline only within one zone (not to another, `deck[a]` to `deck[b]`), not a set
    # (`bag` keeps card order), and where the depth fits (depth 6 of the 5 cards left
    # is `move_block`'s error, not a slice from the end)
    def play(game):
        try:
            state = game.new_state()
        except Exception as err:        # noqa: BLE001 (the same error either way)
            return str(err).splitlines()[0]
        return [[c.text for c in game.evaluate(f"cards({z})", state)]
                for z in ("deck[a]", "deck[b]", "bag")] + [state.key()]
    fused, plain = fused_and_plain(monkeypatch, _MOVES.replace("DEPTH", depth), play)
    assert fused == plain
    if depth == "5":
        assert fused[:3] == [["r3", "r2", "r1", "r3", "r2", "r6", "r5"],
                             ["r4", "r1", "r6", "r5", "r4"],
                             ["r1", "r2", "r3", "r4", "r5", "r6"]]
    else:
        assert "cannot insert at depth 6: the zone has 5 cards" in fused
