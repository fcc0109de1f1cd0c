"""A def call of constant arguments that an `if`'s test evaluates once and always (a side
of a comparison) is worked out once for that test and the elifs straight after it
(`_calls._carried`, `_fuse._rest`): `elif score(north) > score(south): ... elif
score(south) > score(north)` reads the second test's sides from temporaries.  Each case
gives what the plain closures give, errors included."""
from __future__ import annotations

import random
import re

import pytest

from conftest import fused_and_plain, random_playout
from gdl.errors import RuleError
from interpreter import load_text
from test_fuse import _generated_sources

CHAIN = '''
game "chain"
players north, south
card rank: 1..6
zone stock: stack
zone hand[player]: stack
var winner: player? = none
var flag: bool = false
var tie: int = 0
cards into stock: card(rank: r) for r in 1..6
def score(p: player) = top(hand[p]).rank * 2 + count(hand[p])
rule deal:
    shuffle stock
    repeat DEALT:
        move top(stock) to hand[north]
        move top(stock) to hand[south]
rule settle:
    if winner != none:
        tie = 1
    elif score(north) > score(south):
        winner = north
    elif score(south) > score(north):
        winner = south
    else:
        tie = 2
    if flag and score(north) > 0:
        tie = 3
    elif score(north) > 5:
        tie = tie + 10
    if tie > 100:
        tie = 0
    elif score(south) > 4:
        tie = tie + 100
flow:
    do deal
    do settle
    end game
'''


def _sources(monkeypatch, text):
    from interpreter import _fuse
    monkeypatch.setattr(_fuse, "ENABLED", True)
    return _generated_sources(load_text(text))


def _outcomes(game):
    out = []
    for seed in range(40):
        state = random_playout(game.new_state(seed=seed), random.Random(seed))
        out.append((str(state.key()), str(game.evaluate("winner", state)), game.evaluate("tie", state)))
    return out


def test_an_elif_reads_the_calls_the_failed_test_before_it_worked_out(monkeypatch):
    text = CHAIN.replace("DEALT", "2")
    fused, plain = fused_and_plain(monkeypatch, text, _outcomes)
    assert fused == plain
    lines = "".join(_sources(monkeypatch, text)).splitlines()
    assert any(re.fullmatch(r"\s*if \(_t\d+ > _t\d+\):", line) for line in lines)


def test_a_call_not_always_evaluated_is_not_read_from_a_temporary(monkeypatch):
    # `flag and score(north) > 0` may skip the call: the elif after it works it out
    text = CHAIN.replace("DEALT", "1")
    fused, plain = fused_and_plain(monkeypatch, text, _outcomes)
    assert fused == plain
    lines = "".join(_sources(monkeypatch, text)).splitlines()
    assert any("> (5)" in line for line in lines)
    assert not any(re.fullmatch(r"\s*if \(_t\d+ > \(5\)\):", line) for line in lines)
    # a call the if's tests make once is given no temporary
    assert any("> (4)" in line for line in lines)
    assert not any("> (4)" in line and re.match(r"\s*if \(\(_t\d+ := ", line)
                   for line in lines)


def _first_error(game) -> str:
    """The rule error a seeded playout of the game ends in."""
    with pytest.raises(RuleError) as raised:
        random_playout(game.new_state(seed=1), random.Random(1))
    return str(raised.value)


def test_an_error_in_the_chain_comes_at_its_first_test_as_before(monkeypatch):
    fused, plain = fused_and_plain(monkeypatch, CHAIN.replace("DEALT", "0"), _first_error)
    assert fused == plain
    assert "top() of an empty zone, hand[north]" in fused and "in def score" in fused


BODY = '''
game "body"
players north, south
card rank: 1..6
zone stock: stack
zone hand[player]: stack
zone board: stack
var out[player]: int = 0
var flag: bool = false
cards into stock: card(rank: r) for r in 1..6
def own(p: player) = top(hand[p]).rank
def shown() = top(board).rank
def strength(p: player) = if own(p) == shown() then 100 + own(p) else 3 * max(own(p), shown()) + min(own(p), shown())
def early(p: player) = own(p) * 10 + (if own(p) > 2 then own(p) else shown())
def skipped(p: player) = if flag and own(p) > 2 then own(p) else shown() + own(p)
rule deal:
    shuffle stock
    move top(stock) to hand[north]
    move top(stock) to hand[south]
    repeat SHOWN:
        move top(stock) to board
rule settle:
    for p in players:
        out[p] = strength(p) + early(p) + skipped(p)
flow:
    do deal
    do settle
    end game
'''


def _totals(game):
    out = []
    for seed in range(30):
        state = random_playout(game.new_state(seed=seed), random.Random(seed))
        out.append((str(state.key()), game.evaluate("out[north]", state),
                    game.evaluate("out[south]", state)))
    return out


def test_an_if_in_a_def_body_reads_the_calls_its_test_worked_out(monkeypatch):
    # strength's branches read own(p) and shown() as the test left them: no test of
    # unset temporaries, none set unset first, min and max of them without new ones
    text = BODY.replace("SHOWN", "1")
    fused, plain = fused_and_plain(monkeypatch, text, _totals)
    assert fused == plain
    body = "".join(_sources(monkeypatch, text))
    line = next(line for line in body.splitlines() if "(100) + _t" in line)
    strength, rest = line.split(" + ((((", 1)        # strength's part, then early's
    assert " is not K" not in strength and not re.search(r":= K\d+\)", strength)
    assert re.search(r"\(_t\d+ if _t\d+ < _t\d+ else _t\d+\)", strength)
    # early reads own(p) before its if: there the test is kept; skipped's test may not
    # evaluate own(p): its branch tests the temporary as before
    assert line.count(" is not K") >= 2


def test_an_error_in_an_if_test_in_a_def_body_is_raised_as_before(monkeypatch):
    fused, plain = fused_and_plain(monkeypatch, BODY.replace("SHOWN", "0"), _first_error)
    assert fused == plain and "top() of an empty zone, board" in fused
