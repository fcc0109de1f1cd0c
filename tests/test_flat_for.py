"""A `for` whose body runs straight on to its back jump is written as a Python `for` in
generated code (`_fuse._flat_for`): the step budget is taken for all its passes as it
starts, and where it cannot pay for them all, the loop runs the passes it pays for and
one more before its error, as the plain loop does.  Each case gives what the plain
closures give, errors included, at budgets around every edge."""
from __future__ import annotations

import re

import pytest

from conftest import fused_and_plain
from gdl.errors import RuleError
from interpreter import _compiler, load_text
from interpreter import state as state_module
from test_fuse import _generated_sources

FLAT = '''
game "flat"
players north, south
card rank: 1..6
zone stock: stack
zone hand[player]: stack
var n: int = 0
var m: int = 0
cards into stock: card(rank: r) for r in 1..6
action go():
    pass
rule count:
    for i in 1..FIRST:
        n += 1
    for c in stock:
        if c.rank > 3:
            move c to hand[north]
        else:
            m += c.rank
    for i in 1..SECOND:
        m += 1
flow:
    choose north: go
    do count
    end game
'''


def _budget(monkeypatch, budget: int):
    monkeypatch.setattr(_compiler, "LOOP_BUDGET", budget)
    monkeypatch.setattr(state_module, "LOOP_BUDGET", budget)


def _after_go(game):
    """n, m and north's hand after the one decision, or the error's first line."""
    state = game.new_state()
    try:
        state.apply(state.legal_moves(state.to_move()[0])[0], state.to_move()[0])
    except RuleError as err:
        return str(err).splitlines()[0]
    return [game.evaluate(e, state) for e in ("n", "m", "count(hand[north])")]


def _lines(monkeypatch, text) -> list:
    from interpreter import _fuse
    monkeypatch.setattr(_fuse, "ENABLED", True)
    return "".join(_generated_sources(load_text(text))).splitlines()


def test_flat_loops_are_python_fors_and_pay_the_budget_as_the_plain_loops(monkeypatch):
    text = FLAT.replace("FIRST", "30").replace("SECOND", "20")
    lines = _lines(monkeypatch, text)
    assert sum(bool(re.fullmatch(r"\s*for _t\d+ in _t\d+:", line)) for line in lines) >= 3
    assert any("st.budget -= len(" in line for line in lines)
    for budget, want in [(57, [30, 26, 3]), (56, [30, 26, 3]), (55, "(55 iterations)"),
                         (37, "(37 iterations)"), (36, "(36 iterations)"),
                         (31, "(31 iterations)"), (30, "(30 iterations)"),
                         (29, "(29 iterations)"), (1, "(1 iterations)")]:
        _budget(monkeypatch, budget)
        fused, plain = fused_and_plain(monkeypatch, text, _after_go)
        assert fused == plain, budget
        if isinstance(want, list):
            assert fused == want
        else:
            assert fused.endswith(want), (budget, fused)
    # which loop ran out: the third (line 20) from 55 down to 36, the second (15) from
    # 35 to 30, the first (13) below
    for budget, line in [(36, 20), (35, 15), (30, 15), (29, 13)]:
        _budget(monkeypatch, budget)
        assert f":{line}:5:" in fused_and_plain(monkeypatch, text, _after_go)[0]


RUNS_OUT = '''
game "runs out"
players north, south
card rank: 1..6
zone stock: stack
zone hand[player]: stack
cards into stock: card(rank: r) for r in 1..6
action go():
    pass
rule take:
    for i in 1..10:
        move top(stock) to hand[north]
flow:
    choose north: go
    do take
    end game
'''


@pytest.mark.parametrize("budget, error", [(4, "loop for ever"), (5, "loop for ever"),
                                           (6, "empty zone"), (7, "empty zone"),
                                           (100, "empty zone")])
def test_a_short_budget_runs_the_passes_it_pays_for_and_one_more(monkeypatch, budget, error):
    # the seventh pass finds the stock empty: with a budget of 5, the sixth pass's back
    # jump raises first; with 6, the seventh pass runs and meets the empty stock
    _budget(monkeypatch, budget)
    fused, plain = fused_and_plain(monkeypatch, RUNS_OUT, _after_go)
    assert fused == plain
    assert error in fused


NOT_FLAT = '''
game "not flat"
players north, south
card rank: 1..6
zone stock: stack
zone hand[player]: stack
var n: int = 0
var m: int = 0
var fired: int = 0
cards into stock: card(rank: r) for r in 1..6
action go():
    pass
TRIGGER
rule count:
    for i in 1..3:
        for j in 1..3:
            m += i * j
    for i in 1..5:
        n += 1
flow:
    choose north: go
    do count
    end game
'''
TRIGGER = """trigger bump when n == 2:
    fired += 100"""


def _totals(game):
    state = game.new_state()
    state.apply(state.legal_moves(state.to_move()[0])[0], state.to_move()[0])
    return [game.evaluate(e, state) for e in ("n", "m", "fired")]


def _fors(monkeypatch, text) -> int:
    return sum(bool(re.fullmatch(r"\s*for _t\d+ in _t\d+:", line))
               for line in _lines(monkeypatch, text))


def test_a_loop_holding_a_loop_pays_pass_by_pass(monkeypatch):
    # the inner loop and the last are Python `for`s; the outer one is not (a nested
    # loop's passes are paid as they come, between the outer loop's)
    text = NOT_FLAT.replace("TRIGGER", "")
    fused, plain = fused_and_plain(monkeypatch, text, _totals)
    assert fused == plain == [5, 36, 0]
    assert _fors(monkeypatch, text) >= 2
    for budget in range(8, 19):     # 3 + 9 + 5 = 17 passes: paid by 17, not by 16
        _budget(monkeypatch, budget)
        fused, plain = fused_and_plain(monkeypatch, text, _after_go)
        assert fused == plain
        assert ("loop for ever" in str(fused)) == (budget < 17)


def test_a_trigger_s_check_keeps_a_loop_as_it_was(monkeypatch):
    # a trigger's check may leave the run in the middle of a pass: no Python `for`
    text = NOT_FLAT.replace("TRIGGER", TRIGGER)
    fused, plain = fused_and_plain(monkeypatch, text, _totals)
    assert fused == plain == [5, 36, 100]
    assert _fors(monkeypatch, text) == 0


LOCAL_ZONE = '''
game "a loop over a local's zone"
players north, south
card rank: 1..6
zone stock: stack
zone hand[player]: stack
var n: int = 0
cards into stock: card(rank: r) for r in 1..6
action go():
    let z = stock
    for c in z:
        n += c.rank
    for h in hand:
        for c in h:
            n += 1
flow:
    choose north: go
    end game
'''


def test_a_loop_over_a_collection_not_known_to_be_a_tuple_is_copied(monkeypatch):
    # `z` (a local) gives no tuple: the values are copied by a `tuple` passed in (a name
    # the generated code may not use, and has no builtin of)
    def play(game):
        state = game.new_state()
        state.apply("go")
        return game.evaluate("n", state)
    fused, plain = fused_and_plain(monkeypatch, LOCAL_ZONE, play)
    assert fused == plain == 21
    assert any("st.budget -= len(" in line for line in _lines(monkeypatch, LOCAL_ZONE))
