"""Gerry: the hand-computed examples of seed-notes 5.4 and properties over random games."""
from __future__ import annotations

import random

import pytest

from conftest import GERRY, load_game, random_playout

VALUE = {"A": 1, "J": 11, "Q": 12, "K": 13}


def card_value(text):
    return VALUE.get(text[:-1]) or int(text[:-1])


def is_black(text):
    return text[-1] in "CS"


def set_up(game, seed=0):
    """Returns the state after setup (both shuffles drawn from `seed`), Red to move."""
    state = game.new_state(seed)
    rng = random.Random(seed)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    return state


def put(state, cell, cards):
    """Empties `cell` (into the stock) and fills it with `cards`."""
    state.place(state.cards_in(cell), "stock", face="down")
    state.place(cards, cell, face="up")


# ---------------------------------------------------------------- 5.4 A-C: cell colours
@pytest.mark.parametrize("cards, black, red, mark", [
    (["5S", "9H", "KC"], 18, 9, "black"),           # A
    (["AD", "QH", "JS", "2C"], 13, 13, "none"),     # B: equal sums, neutral
    (["10D"], 0, 10, "red"),                        # C
    (["KD", "AS"], 1, 13, "red"),                   # C
])
def test_cell_sums_and_marks(gerry, cards, black, red, mark):
    state = set_up(gerry)
    put(state, "cell[1,1]", cards)
    assert gerry.evaluate("colour_sum(cell[1,1], black)", state) == black
    assert gerry.evaluate("colour_sum(cell[1,1], red)", state) == red
    got = gerry.evaluate("mark_of(cell[1,1])", state)
    assert (got.name if got is not None else "none") == mark


# ---------------------------------------------------------------- 5.4 D: line rules
@pytest.mark.parametrize("line, majority, plurality", [
    ("BBRNN", None, "black"),
    ("BBBRR", "black", "black"),
    ("RNNNN", None, "red"),
    ("BRNNN", None, None),
])
def test_line_rules(line, majority, plurality):
    blacks, reds = line.count("B"), line.count("R")
    for rule, want in (("majority", majority), ("plurality", plurality)):
        game = load_game(GERRY, line_rule=rule)
        state = set_up(game)
        black = game.evaluate(f"wins_line({blacks}, {reds})", state)
        red = game.evaluate(f"wins_line({reds}, {blacks})", state)
        assert (black, red) == (want == "black", want == "red"), (line, rule)


# ---------------------------------------------------------------- setup and turns
def test_setup_deals_the_grid_and_the_kings(gerry):
    state = set_up(gerry, seed=3)
    cells = [z for z in gerry.prog.zones if z.family == "cell"]
    assert len(cells) == 25
    for z in cells:
        down, up = reversed(state.cards_in(z))           # bottom card first
        assert not state.up[down.id] and state.up[up.id]
    assert state.cards_in("stock") == []
    kings = {seat.name: state.cards_in(f"role[{seat.name}]")[0].text for seat in gerry.seats}
    assert sorted(kings.values()) == ["KH", "KS"]
    red = next(name for name, king in kings.items() if king == "KH")
    assert [s.name for s in state.to_move()] == [red]      # the Red Player moves first


def test_the_king_deal_is_a_fair_coin(gerry):
    state = gerry.new_state(0)
    rng = random.Random(0)
    state.apply(state.sample_chance(rng))                   # the shuffle of the stock
    outcomes = state.chance_outcomes()                      # the shuffle of the two Kings
    assert [p for _, p in outcomes] == [pytest.approx(0.5)] * 2
    assert sum(p for _, p in outcomes) == 1


def test_opponent_may_not_select_the_cell_just_selected(gerry):
    # 5.4 F, G5: only the cell selected (the source), not the destination.
    state = set_up(gerry, seed=5)
    red = state.to_move()[0]
    state.apply("select cell[2,3]")
    up_card = next(c for c in state.cards_in("cell[2,3]") if state.up[c.id])
    state.apply(f"move_face_up {up_card.text} cell[4,4]")
    black = state.to_move()[0]
    assert black is not red
    selects = [m.text for m in state.legal_moves() if m.text.startswith("select")]
    assert "select cell[2,3]" not in selects
    assert "select cell[4,4]" in selects
    assert "G5" in state.why_illegal("select cell[2,3]")


def test_single_card_cells(gerry):
    state = set_up(gerry, seed=7)
    put(state, "cell[1,1]", ["7C"])                          # a lone face-up card: no turn (G3)
    state.place(state.cards_in("cell[5,5]"), "stock", face="down")
    state.place(["8D"], "cell[5,5]", face="down")            # a lone face-down card: look only
    moves = [m.text for m in state.legal_moves()]
    assert "select cell[1,1]" not in moves
    state.apply("select cell[5,5]")
    assert [m.text for m in state.legal_moves()] == ["look"]
    state.apply("look")
    assert state.to_move()[0] is not None and state.history[-1][1] == "look"


def test_look_reveals_to_the_looker_only(gerry):
    state = set_up(gerry, seed=11)
    red = state.to_move()[0]
    black = next(s for s in gerry.seats if s is not red)
    hidden = state.cards_in("cell[3,3]")[-1]                 # the face-down card
    assert not state.sees(red, hidden)
    state.apply("select cell[3,3]")
    state.apply("look")
    assert state.sees(red, hidden) and not state.sees(black, hidden)
    moves = [m.text for m in state.legal_moves()]
    assert moves == sorted(moves, key=moves.index)           # canonical, deterministic order
    assert all(m.startswith(f"move_face_down {hidden.text} ") for m in moves)
    assert {m.split()[-1] for m in moves} == {"cell[2,3]", "cell[4,3]", "cell[3,2]", "cell[3,4]"}
    state.apply(moves[0])
    seen_by_black = state.observation_log(black)[-1]
    assert seen_by_black.endswith(f"move_face_down ? {moves[0].split()[-1]}")
    assert hidden.text in state.observation_log(red)[-1]


def test_look_without_moving_is_an_option(gerry):
    game = load_game(GERRY, look_must_move=False)
    state = set_up(game, seed=2)
    state.apply("select cell[1,1]")
    state.apply("look")
    assert "stop" in [m.text for m in state.legal_moves()]
    assert "stop" not in [m.text for m in set_up(gerry, 2).legal_moves()]


# ---------------------------------------------------------------- 5.4 E, G over random games
def independent_score(state, game, line_rule="majority"):
    """Scores a finished game with plain Python, from the final grid alone."""
    n = game.options["size"]
    marks = {}
    for r in range(1, n + 1):
        for k in range(1, n + 1):
            cards = [c.text for c in state.cards_in(f"cell[{r},{k}]")]
            b = sum(card_value(c) for c in cards if is_black(c))
            d = sum(card_value(c) for c in cards if not is_black(c))
            marks[r, k] = "B" if b > d else "R" if d > b else "N"
    lines = [[marks[r, k] for k in range(1, n + 1)] for r in range(1, n + 1)]
    lines += [[marks[r, k] for r in range(1, n + 1)] for k in range(1, n + 1)]
    black = red = 0
    for line in lines:
        b, d = line.count("B"), line.count("R")
        if (2 * b > n) if line_rule == "majority" else b > d:
            black += 1
        elif (2 * d > n) if line_rule == "majority" else d > b:
            red += 1
    return black, red


@pytest.mark.parametrize("line_rule", ["majority", "plurality"])
def test_random_games_score_as_the_rule_text_says(line_rule):
    game = load_game(GERRY, line_rule=line_rule)
    rng = random.Random(42)
    for i in range(150):
        state = random_playout(game.new_state(i), rng)
        assert state.is_terminal()
        black, red = independent_score(state, game, line_rule)
        red_seat = next(s for s in game.seats
                        if state.cards_in(f"role[{s.name}]")[0].text == "KH")
        returns = state.returns()
        r, b = returns[red_seat.index], returns[1 - red_seat.index]
        assert (r > b) == (red > black) and (b > r) == (black > red)
        assert (r == b == 0) == (red == black)               # 5.4 E: equal points, a draw
        assert sum(1 for w, t, _ in state.history if t.startswith("select")) == 20


def test_invariants_over_a_thousand_games(gerry):
    # 5.4 G: 50 cards, every cell non-empty, colour totals 169 / 169 after any moves.
    rng = random.Random(2024)
    cells = [z for z in gerry.prog.zones if z.family == "cell"]
    for i in range(1000):
        state = gerry.new_state(i)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
            if i % 50 == 0:
                assert state.failed_invariants() == []
        assert state.failed_invariants() == []
        cards = [c.text for z in cells for c in state.cards_in(z)]
        assert len(cards) == len(set(cards)) == 50
        assert all(state.cards_in(z) for z in cells)
        assert sum(card_value(c) for c in cards if is_black(c)) == 169
        assert sum(card_value(c) for c in cards if not is_black(c)) == 169


def test_small_variant_plays_to_the_end():
    game = load_game(GERRY, size=3, turns_each=2)
    state = random_playout(game.new_state(0), random.Random(0))
    assert state.is_terminal()
    assert len(game.evaluate("cell", state)) == 9
    assert sum(1 for _, t, _ in state.history if t.startswith("select")) == 4
