"""A repeated comprehension (`[d for d in 1..4 for i in 1..left[d]]`) whose first loop
runs over a constant list is one expression in generated code, each value held as a
constant (`_collections._repeated_lines`); any other first loop is written as a loop.
Each gives what the plain closures give, and the second test fails without the guard."""
from __future__ import annotations

import pytest

from gdl.errors import RuleError
from interpreter import load_text

REPEATED = '''
game "repeated"
players north, south
enum colour = red "R", blue "B"
card rank: 1..3
zone stock: stack
var left[1..4]: int = 2
var out: text = ""
var n: int = 0
cards into stock: card(rank: r) for r in 1..3
def pool(ds: list[int]) = [d for d in FIRST for i in 1..left[d]]
def members() = [text(c) for c in [blue, red, blue] for i in 1..left[2]]
def seats() = [text(p) for p in players for i in 1..left[1] - 1]
def stocked() = [text(c) for c in stock for i in 1..2]
rule count_them:
    left[3] = 5
    left[4] = 0
    left[1] = -1
    n = count(pool([2, 3, 2]))
    out = join([text(d) for d in pool([4, 2, 3])], "") + join(members(), "") + join(seats(), "") + join(stocked(), "")
flow:
    do count_them
    win north
'''


def _played(monkeypatch, first):
    seen = []
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(REPEATED.replace("FIRST", first))
        state = game.new_state()
        assert state.is_terminal()
        values = dict(zip(game.prog.var_names, state.vars))
        seen.append((values["n"], values["out"]))
    assert seen[0] == seen[1]
    return seen[0]


@pytest.mark.parametrize("first, n, out", [
    ("1..4", 7, "2233333"), ("[3, 1, 3, 2]", 12, "33333333332" + "2"),
    ("[4]", 0, ""), ("2..2", 2, "22")])
def test_a_constant_first_loop_written_out(monkeypatch, first, n, out):
    assert _played(monkeypatch, first) == (n, out + "BBRRBB" + "" + "332211")


@pytest.mark.parametrize("first, n, out", [("ds", 9, "22333332")])
def test_a_first_loop_over_a_value_known_in_play(monkeypatch, first, n, out):
    # without the guard, a first loop that is no constant was read as one: TypeError
    assert _played(monkeypatch, first) == (n, "2233333" + "BBRRBB" + "" + "332211")


def test_a_missing_element_named_by_a_written_value(monkeypatch):
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(REPEATED.replace("FIRST", "[1, 5]"))
        with pytest.raises(RuleError, match=r"variable left has no element \[5\]"):
            game.new_state()


def test_a_repeated_range_reads_its_low_end_first(monkeypatch):
    # generated, `hi + 1 - lo` read hi first: with both none, the error was placed at
    # hi, where the closures place it at lo (the sixth review, older than the round)
    from conftest import fused_and_plain
    from gdl.errors import RuleError
    text = '''game "t"
players 2
var lo[1..4]: int? = none
var hi[1..4]: int? = none
var n: int = 0
def pool() = [d for d in [1, 2] for i in lo[d]..hi[d]]
flow:
    n = count(pool())
    end game
'''

    def place(game):
        with pytest.raises(RuleError) as info:
            game.new_state()
        return str(info.value).split(": rule error")[0]
    assert fused_and_plain(monkeypatch, text, place) == ["<string>:6:42"] * 2
