"""A simultaneous step's moves take effect in seat order: drawn in that order where the
seats are `players` (or some of them, `_compiler._seats_once`), not sorted again
(`_actions._joint_record_lines`), else sorted.  The test fails without its guard."""
from __future__ import annotations

import random

import pytest

from conftest import fused_and_plain
from interpreter.agents import AGENTS, play_out

_GAME = '''game "t"
players a, b, c
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into stock: card(rank: r) for r in rank
zone stock: stack
zone hand[player]: stack
var turn: int = 0
var mark[player]: int = 0
action take(n: 1..3):
    turn += 1
    mark[me] = 10 * turn + n
    move top(stock) to hand[me]
flow:
    repeat 2:
        simultaneously p in SEATS: take
    draw
'''


@pytest.mark.parametrize("seats", ["[c, a]", "[p for p in players if p != b]", "players"])
def test_a_joint_step_takes_effect_in_seat_order_whatever_the_list(monkeypatch, seats):
    def play(game):
        out = []
        for seed in range(6):
            state = game.new_state()
            play_out(state, [AGENTS["random"]] * 3, random.Random(seed))
            out.append(([(a, b) for a, b, *_ in state.history], state.key(),
                        [game.evaluate(f"mark[{p}]", state) for p in "abc"]))
        return out
    fused, plain = fused_and_plain(monkeypatch, _GAME.replace("SEATS", seats), play)
    assert fused == plain
    marks = fused[0][2]
    assert marks[0] // 10 < marks[2] // 10      # a's move took effect before c's
