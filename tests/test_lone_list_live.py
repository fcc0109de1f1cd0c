"""A lone action's one parameter over a set zone, unfiltered, draws from the zone's own
list, not a copy (`_actions._lone_list`); over a stack, from its cards top first.  The
test fails without its guard."""
from __future__ import annotations

import random

import pytest

from interpreter import _fuse, load_text
from interpreter.agents import AGENTS, play_out

_GAME = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into stock: card(rank: r) for r in rank
zone stock: stack
zone hand[player]: KIND
zone table: stack
action play(c: hand[me]):
    move c to table
flow:
    deal 3 from stock to hand[p] for p in players
    repeat 3:
        choose a: play
        choose b: play
    draw
'''


@pytest.mark.parametrize("kind", ["set", "stack"])
def test_a_lone_pick_over_a_zone_draws_as_the_closures_do(monkeypatch, kind):
    got = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(_GAME.replace("KIND", kind))
        out = []
        for seed in range(8):
            state = game.new_state()
            play_out(state, [AGENTS["random"]] * 2, random.Random(seed))
            out.append(([(x, y) for x, y, *_ in state.history], state.key()))
        got.append(out)
    assert got[0] == got[1]
