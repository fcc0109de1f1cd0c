"""A joint step makes each seat's history line as the seat is drawn (kept by the
move's arguments and the seat, `_actions._kept_line`), not in a loop after the draws,
and the lines join the history after the last draw: where a later seat has no legal
move, none of them is in the history when the seats drawn are committed, as where
nothing was made.  The tests fail without the guard."""
from __future__ import annotations

import random

import pytest

from conftest import fused_and_plain, joint_and_applied
from gdl.errors import RuleError
from interpreter import load_text

_GAME = '''game "t"
players a, b, c
var said[player]: int = 0
action say(n: 1..4):
    require me != c or said[c] == 0
    said[me] = said[me] + n
action pass_on(k: [a, b]):
    require me != c or said[c] > 5
    said[me] = said[me] + 10
flow:
    repeat 3:
        simultaneously p in players: SITE
    draw
'''


def _play(game):
    """Joint steps to the end or to the deadlock: the history, the committed seats and
    their move texts, and the error."""
    out = []
    for seed in range(8):
        state, rng = game.new_state(), random.Random(seed)
        error = None
        try:
            while not state.is_terminal():
                state.random_joint_step(rng)
        except RuleError as e:
            error = str(e).split("\n")[0]
        out.append((state.trace_texts(), error,
                    [m.text for m in state.node[3].values()] if error else None))
    return out


@pytest.mark.parametrize("site", ["say", "say, pass_on"])
def test_a_deadlock_takes_back_the_lines_drawn(monkeypatch, site):
    text = _GAME.replace("SITE", site)
    fused, plain = fused_and_plain(monkeypatch, text, _play)
    assert fused == plain
    stuck = [run for run in fused if run[1] is not None]
    assert stuck and all("deadlock" in error for _, error, _ in stuck)
    assert all(len(trace) % 3 == 0 for trace, _, _ in fused)   # whole rounds only
    assert any(texts for _, _, texts in stuck)               # a and b had committed


def test_the_lines_kept_are_the_loop_of_apply():
    game = load_text(_GAME.replace("SITE", "say, pass_on").replace(
        "require me != c or said[c] == 0", "require n != 3 or said[me] < 5"))
    for seed in range(8):
        fast, slow = joint_and_applied(game, seed)
        assert fast.history == slow.history and fast.frame == slow.frame
    assert game.prog.sites[0].joint


def test_only_the_lines_of_texts_the_action_keeps_are_kept(monkeypatch):
    # An action keeps at most MOVE_TEXTS texts; the joint step keeps the history lines
    # of those alone (its memory bounded as theirs), and makes the others each time.
    from interpreter import values
    monkeypatch.setattr(values, "MOVE_TEXTS", 2)
    game = load_text(_GAME.replace("SITE", "say").replace(
        "require me != c or said[c] == 0", "require n < 5"))
    for seed in range(4):
        fast, slow = joint_and_applied(game, seed)
        assert fast.history == slow.history
    joint = game.prog.sites[0].joint
    (kept,) = [k for k in joint.__globals__.values()
               if type(k) is dict and k and all(type(v) is list for v in k.values())]
    info = game.prog.compiler.action_info["say"]
    assert len(info.texts) == 2 and set(kept) <= set(info.texts)
