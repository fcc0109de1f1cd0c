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


# ------------------------------------------------------------------ a family indexed by a
# seat: `me`, a loop's variable over `players` (a statement's or a comprehension's),
# `opponent(p)`, a def's parameter given one

BY_SEAT = '''
game "by seat"
players 2
card rank: 1..9
zone stock: stack
zone hand[player]: stack
var got[player]: int = 0
var total[player]: int = 0
var left[1..4]: int = 1
var m: int = 0
var all_got: int = 0
cards into stock: card(rank: r) for r in 1..9
def twice(q: player) = 2 * got[q]
def at(d: int) = left[d]
action take(n: 1..2):
    move top(stock, n) to hand[me]
    got[me] += n
rule score:
    for p in players:
        total[p] = count(hand[p]) + twice(p) + 10 * got[opponent(p)]
    for d in 1..TOP:
        m += left[d] + at(d)
    all_got = sum(got[q] for q in players)
flow:
    simultaneously p in players: take
    do score
    win p1
'''


def test_a_family_indexed_by_a_seat_is_read_without_a_test_for_a_missing_element(
        monkeypatch):
    # every value of these keys is a seat, and a family over `player` has every seat:
    # a subscript, not `.get` and a test (only `players`' own look-up by `st.out` stays)
    import linecache
    import re
    from interpreter import _fuse
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        before = set(linecache.cache)
        game = load_text(BY_SEAT.replace("TOP", "4"))
        for moves in (("take 1", "take 2"), ("take 2", "take 2")):
            state = game.new_state()
            for move, seat in zip(moves, ("p1", "p2")):
                state.apply(move, seat)
            seen.append((moves, dict(zip(game.prog.var_names, state.vars))))
        if enabled:     # the sources generated for this game: its runs, picks, actions
            made = [linecache.cache[f][2] for f in set(linecache.cache) - before
                    if f.startswith("<gdl fused")]
            assert any("st.move_block(" in line for lines in made for line in lines)
            # (a def's own closure, reading its parameter from a scratch slot `K0[1]`,
            # takes any value: it tests)
            got = [line.strip() for lines in made for line in lines
                   if re.search(r"\.get\((?!st\.out\)|K\d+\[\d+\]\))", line)]
            assert got == []
    assert seen[:2] == seen[2:]
    values = seen[0][1]
    assert values["total[p1]"] == 1 + 2 + 20 and values["total[p2]"] == 2 + 4 + 10
    assert values["m"] == 8 and values["all_got"] == 3


def test_a_loop_or_a_parameter_over_a_value_that_is_no_index_still_reports_it(monkeypatch):
    # `for d in 1..5` reading `left[1..4]`, directly and through a def: the rule error
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        state = load_text(BY_SEAT.replace("TOP", "5")).new_state()
        state.apply("take 1", "p1")
        with pytest.raises(RuleError, match=r"variable left has no element \[5\]"):
            state.apply("take 1", "p2")


# ------------------------------------------------------------------ a family of two indices
# read by two loops over its indices (`_exprs._nested`, `_pairs_found`): a subscript of a
# dict of dicts, no pair made and hashed

BY_PAIR = '''
game "by pair"
players 2
card rank: 1..9
zone stock: stack
zone cell[1..3, 1..2]: stack
var grid[1..3, 1..2]: int = 0
var total: int = 0
var held: int = 0
var pairs: int = 0
cards into stock: card(rank: r) for r in 1..9
rule fill:
    for r in 1..3:
        for k in 1..TOP:
            grid[r, k] = 10 * r + k
            move top(stock) to cell[r, k]
    total = sum(grid[r, k] for r in 1..3 for k in 1..2)
    for r in [3, 1]:
        held += sum(count(cell[r, k]) + grid[r, k] for k in LIST)
    pairs = count(grid[r, k] > 20 for r in 1..3 for k in 1..2)
flow:
    do fill
    win p1
'''


def test_a_family_of_two_indices_read_by_loops_over_both_is_a_subscript(monkeypatch):
    import linecache
    import re
    from interpreter import _fuse
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        before = set(linecache.cache)
        game = load_text(BY_PAIR.replace("TOP", "2").replace("LIST", "[2, 1, 2]"))
        state = game.new_state()
        assert state.is_terminal()
        values = dict(zip(game.prog.var_names, state.vars))
        seen.append((values, [[c.text for c in state.zones[z.slot]]
                              for z in game.prog.families["cell"].values()]))
        if enabled:     # every look-up of `grid` and `cell` by a pair: no pair made
            # (an expression's own closure, reading a comprehension's variable from a
            # scratch slot `K0[3]`, takes any value: it tests)
            made = [line for f in set(linecache.cache) - before
                    if f.startswith("<gdl fused") for line in linecache.cache[f][2]]
            assert any(re.search(r"K\d+\[[^\]]+\]\[", line) for line in made)
            pair = r"(st\.frame\[\d+\]|_t\d+\[\d+\]|_t\d+)"
            assert not [line for line in made if re.search(rf"\.get\(\({pair}, {pair}\)\)", line)]
    assert seen[0] == seen[1]
    values = seen[0][0]
    assert values["total"] == 11 + 12 + 21 + 22 + 31 + 32
    assert values["held"] == (3 + 32 + 31 + 32) + (3 + 12 + 11 + 12)
    assert values["pairs"] == 4


@pytest.mark.parametrize("top, lst, bad", [("3", "[1, 2]", "1, 3"), ("2", "[2, 0]", "3, 0")])
def test_a_loop_over_a_pair_that_is_no_index_reports_it(monkeypatch, top, lst, bad):
    # without `_pairs_found`, the generated read was a plain subscript: a KeyError, not
    # the rule error the plain closures give
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(BY_PAIR.replace("TOP", top).replace("LIST", lst))
        with pytest.raises(RuleError, match=rf"has no element \[{bad}\]"):
            game.new_state()
