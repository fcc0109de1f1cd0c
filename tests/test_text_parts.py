"""`join(sublist(chars(t), i, n), "")` in generated code is the part of t itself, tested
as `sublist` tests its bounds (`CallMixin._b_sublist`, `_b_join`); joined by any other
separator it is joined as before.  Each gives what the plain closures give, and the
separator's test fails without its guard."""
from __future__ import annotations

import pytest

from gdl.errors import RuleError
from interpreter import load_text

PARTS = '''
game "parts"
players 2
var row: text = "12341234x"
var out: text = ""
def part(t: text, i: int, n: int) = join(sublist(chars(t), i, n), SEP)
rule read_parts:
    for g in 0..2:
        out = out + part(row, 3 * g, 3) + "|"
    out = out + part(row, START, COUNT)
flow:
    do read_parts
    win p1
'''


def _out(monkeypatch, sep, start, count):
    seen = []
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(PARTS.replace("SEP", sep).replace("START", start)
                         .replace("COUNT", count))
        state = game.new_state()
        assert state.is_terminal()
        seen.append(dict(zip(game.prog.var_names, state.vars))["out"])
    assert seen[0] == seen[1]
    return seen[0]


@pytest.mark.parametrize("sep, start, count, out", [
    ('""', "8", "1", "123|412|34x|x"), ('""', "0", "0", "123|412|34x|"),
    ('""', "2", "7", "123|412|34x|341234x"),
    ('"-"', "7", "2", "1-2-3|4-1-2|3-4-x|4-x"), ('"ab"', "0", "2", "1ab2ab3|4ab1ab2|3ab4abx|1ab2")])
def test_a_part_of_a_text_joined_again(monkeypatch, sep, start, count, out):
    # without the guard on the separator, "-" gave the part as it stands: "123|..."
    assert _out(monkeypatch, sep, start, count) == out


@pytest.mark.parametrize("start, count, error", [
    ("8", "2", r"sublist\(\.\., 8, 2\) of a list of 9 items"),
    ("-1", "1", r"sublist\(\.\., -1, 1\) of a list of 9 items"),
    ("0", "-1", r"sublist\(\.\., 0, -1\) of a list of 9 items")])
def test_a_part_out_of_bounds_reported_as_sublist_does(monkeypatch, start, count, error):
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(PARTS.replace("SEP", '""').replace("START", start)
                         .replace("COUNT", count))
        with pytest.raises(RuleError, match=error):
            game.new_state()
