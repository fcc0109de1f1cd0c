"""`move top(z, n)` to a depth or the bottom of the zone written as z is
(`_compiler._move_block_lines`, `same`): z is the destination just worked out, its kind
and facing those every zone it can name shares.  Each test fails without its guard."""
from __future__ import annotations

import pytest

from conftest import fused_and_plain


_MOVES = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into deck[p]: card(rank: r) for p in player for r in rank
cards into bag[p]: card(rank: r) for p in player for r in rank
cards into row: card(rank: r) for r in rank
zone deck[player]: stack
zone bag[player]: set
zone row: stack, face up
var k: int = 2
var who: player = a
def chosen() = if who == a then bag[b] else bag[a]
flow:
    MOVES
    draw
'''

_CASES = {
    # another zone of the same family: not the zone written as the destination
    "other": "move top(deck[a], 1) to deck[b] at depth 2",
    # a set family: card order, never in place
    "set": "move top(bag[who], k) to bag[who] at depth 1",
    # a facing written: the cards take it, not the zone's
    "facing": "move top(deck[who], 2) to deck[who] at depth 1 face up",
    # a zone of a def: set or stack known only as it runs (a set here)
    "unknown": "who = b\n    move top(chosen(), 2) to chosen() at depth 1",
    "bottom": "move top(deck[who], 3) to bottom of deck[who]",
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_a_block_moved_within_the_zone_written_lands_as_move_block_puts_it(monkeypatch,
                                                                          case):
    def play(game):
        state = game.new_state()
        return [[(c.text, state.up[c.id]) for c in game.evaluate(f"cards({z})", state)]
                for z in ("deck[a]", "deck[b]", "bag[a]", "row")] + [state.key()]
    text = _MOVES.replace("MOVES", _CASES[case])
    fused, plain = fused_and_plain(monkeypatch, text, play)
    assert fused == plain
