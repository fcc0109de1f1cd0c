"""Two shapes of a draw in a loop in generated code: the text of a local drawn from ints
only is looked up among its values' texts (made at load, no call of `str`), and a
function drawing in place reads its bit source (`st.rng.getrandbits`) once as it starts,
only where `st.free` says a playout's run lets it draw (`_fuse._hoisted`): stepped one
chance event at a time, `st.rng` is None.  Each gives what the plain closures give; the
second test fails without the guard."""
from __future__ import annotations

import random

from interpreter.agents import AGENTS, play_out

from conftest import fused_and_plain, random_playout

DRAWN = '''
game "drawn"
players 2
var left[1..3]: int = 0
var out: text = ""
def slot(d: int) = if d < 0 then 1 else if d < 100 then 2 else 3
def pool() = [d for d in [-7, 12, 305] for i in 1..left[slot(d)]]
rule draw_all:
    for k in 1..3:
        left[k] = k
    repeat 6:
        random d in pool()
        left[slot(d)] -= 1
        out = out + text(d) + ","
    repeat 3:
        random e in [40, 0, -2]
        out = out + text(e) + ";"
flow:
    do draw_all
    win p1
'''


def _out(game, state):
    return dict(zip(game.prog.var_names, state.vars))["out"], [tuple(h[:2]) for h in state.history]


def test_drawn_ints_texts_in_a_playout(monkeypatch):
    def play(game):
        runs = []
        for seed in range(15):
            state = game.new_state()
            play_out(state, [AGENTS["random"]] * 2, random.Random(seed))
            runs.append(_out(game, state))
        return runs
    fused, plain = fused_and_plain(monkeypatch, DRAWN, play)
    assert fused == plain
    for out, _ in fused:
        drawn = out.split(",")
        assert sorted(drawn[:6]) == sorted(["-7", "12", "12", "305", "305", "305"])
        assert set(drawn[6].split(";")[:3]) <= {"40", "0", "-2"}


def test_draws_stepped_one_at_a_time(monkeypatch):
    # without the guard, the hoisted `st.rng.getrandbits` raised AttributeError: a chance
    # event applied alone (no playout's run) leaves `st.rng` None
    def play(game):
        return [_out(game, random_playout(game.new_state(), random.Random(seed)))
                for seed in range(15)]
    fused, plain = fused_and_plain(monkeypatch, DRAWN, play)
    assert fused == plain
    assert all(len(history) == 9 for _, history in fused)
