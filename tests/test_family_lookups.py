"""Two shapes of generated family look-ups: by a loop's variable over a constant list of
indices (`_collections.ranging`), and by `number(t)` of a text (`_exprs._by_text`).
Each gives what the plain closures give, and each test fails without its guard."""
from __future__ import annotations


import pytest

from gdl.errors import RuleError
from interpreter import load_text

# ------------------------------------------------------------------ a family indexed by a loop
# over a constant list (`ranging`, `_all_found`)

WITHIN = '''
game "within"
players 2
var left[1..4]: int = 2
var n: int = 0
var m: int = 0
def pool() = [d for d in 1..TOP for i in 1..left[d]]
rule count_them:
    left[3] = 5
    n = count(pool())
    m = sum(left[d] * d for d in LIST)
flow:
    do count_them
    win p1
'''


@pytest.mark.parametrize("top, lst, n, m", [("4", "1..4", 11, 2 + 4 + 15 + 8),
                                            ("4", "[4, 1, 4]", 11, 8 + 2 + 8)])
def test_a_family_read_by_a_loop_over_its_indices(monkeypatch, top, lst, n, m):
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(WITHIN.replace("TOP", top).replace("LIST", lst))
        state = game.new_state()
        assert state.is_terminal()
        values = dict(zip(game.prog.var_names, state.vars))
        assert (values["n"], values["m"]) == (n, m)


@pytest.mark.parametrize("top, lst, bad", [("5", "1..4", "5"), ("4", "[1, 0, 2]", "0"),
                                           ("4", "1..6", "5")])
def test_a_loop_over_a_value_that_is_no_index_reports_it(monkeypatch, top, lst, bad):
    # without `_all_found`, the generated read was a plain subscript: a KeyError, not
    # the rule error the plain closures give
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(WITHIN.replace("TOP", top).replace("LIST", lst))
        with pytest.raises(RuleError, match=rf"variable left has no element \[{bad}\]"):
            game.new_state()


# ------------------------------------------------------------------ a family indexed by
# `number(t)`: one look-up by the text (`_by_text`)

BY_NUMBER = '''
game "by number"
players 2
card rank: 1..6
zone stock: stack
zone pile[1..3]: stack
cards into stock: card(rank: r) for r in 1..6
rule deal_row(row: text):
    for ch in chars(row):
        move top(stock) to top of pile[number(ch)]
flow:
    do deal_row(ROW)
    win p1
'''


@pytest.mark.parametrize("row, error", [
    ('"123312"', None), ('"331"', None),
    ('"1241"', r"zone pile has no element \[4\]"),
    ('"12x"', r"'x' is not a whole number"),
    ('"11" + "3" + "0"', r"zone pile has no element \[0\]"),
])
def test_a_family_indexed_by_a_number_read_from_a_text(monkeypatch, row, error):
    # the second deal reads each text again from the table the first filled
    from interpreter import _fuse
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(BY_NUMBER.replace("ROW", row))
        for _ in range(2):
            if error is not None:
                with pytest.raises(RuleError, match=error):
                    game.new_state()
                continue
            state = game.new_state()
            seen.append([[c.text for c in state.zones[game.prog.families["pile"][(k,)].slot]]
                         for k in (1, 2, 3)])
    assert all(x == seen[0] for x in seen)


def test_a_family_of_two_indices_indexed_by_a_number_names_both_where_one_is_missing(
        monkeypatch):
    # the look-up by text took the one index that varies, and named it alone: `[4]`
    from interpreter import _fuse
    text = BY_NUMBER.replace("zone pile[1..3]", "zone pile[1..3, 1..2]").replace(
        "pile[number(ch)]", "pile[number(ch), 2]").replace("ROW", '"1241"')
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match=r"zone pile has no element \[4, 2\]"):
            load_text(text).new_state()
