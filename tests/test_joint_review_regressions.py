"""Review regressions: a joint step of several actions where a seat's block is written
in place (or empty) and another's is called; a later seat's draw that raises names the
history as it was before the step (the error's trace)."""
from __future__ import annotations

import random

import pytest

from conftest import fused_and_plain
from gdl.errors import RuleError
from interpreter import load_text

_MIXED = '''game "t"
players a, b, c
var said[player]: int = 0
var order: text = ""
action say(n: 1..4):
    BODY
action hop(n: 1..4):
    if n > 2:
        order = order + text(me)
flow:
    repeat 4:
        simultaneously p in players: say, hop
    draw
'''

_DRAW_RAISES = '''game "t"
players a, b, c
var d[player]: int = 1
action say(n: 1..3):
    require 6 / d[me] > n
    d[me] = d[me] - (if me == c then 1 else 0)
flow:
    repeat 4:
        simultaneously p in players: say
    draw
'''


def _runs(game):
    out = []
    for seed in range(12):
        state, error = game.new_state(), None
        try:
            state.random_run(random.Random(seed), 1000)
        except RuleError as e:
            error = str(e)
        out.append((state.trace_texts(), error, state.frame))
    return out


@pytest.mark.parametrize("body", ["said[me] = said[me] + n", "pass"])
def test_a_block_in_place_beside_a_called_one(monkeypatch, body):
    fused, plain = fused_and_plain(monkeypatch, _MIXED.replace("BODY", body), _runs)
    assert fused == plain


def test_a_failed_draw_traces_the_history_before_the_step(monkeypatch):
    fused, plain = fused_and_plain(monkeypatch, _DRAW_RAISES, _runs)
    assert fused == plain and all(error for _, error, _ in fused)
