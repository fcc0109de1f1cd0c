"""A rule done with a local as an argument (`do announce(me)`, `do draw(p)`) reads the
local's slot where it lies: no copy into the rule's own slot and no clearing after it
(`_compiler.Compiler._frame_local`).  The first two tests fail without its guards (the
local named, the game without triggers); the last checks that the values read are the
ones the closures read and the rules mean."""
from __future__ import annotations

import random

from conftest import fused_and_plain
from interpreter import load_text

_TEXT = '''game "t"
players a, b
var total: int = 0
var seen: int = 0
zone hand[player]: set
card n: int
cards into hand[a]: card(n: k) for k in 1..3
cards into hand[b]: card(n: k) for k in 4..6
action pick(x: 1..2):
    total += x
    do note(me, x)
rule note(p: player, x: int):
    if p == a:
        seen += x
rule count_up(c: card):
    seen += c.n
rule turn(p: player, k: int):
    choose p: pick
    total += k
rule round(p: player):
    let k = 10
    do turn(p, k)
    k = 20
    do turn(p, k)
    for c in hand[p]:
        do count_up(c)
    do note(p, count(hand[p]))
flow:
    for p in players:
        do round(p)
    win a
'''


def test_a_rule_reads_the_local_passed_where_it_lies():
    # at the decision inside `turn`, done from `round` with `round`'s own parameter,
    # itself the loop's variable, the seat lies in the frame once: `turn`'s `p` and
    # `round`'s are the loop's slot, not copies
    state = load_text(_TEXT).new_state()
    while state.is_chance():
        state.apply(state.sample_chance(random.Random(0)))
    seat = state.to_move()[0]
    assert list(state.frame).count(seat) == 1


def test_a_game_with_triggers_copies_the_arguments():
    # a trigger runs between a rule's statements and may do rules of its own, writing
    # their slots: there each rule keeps its own copy, as before (the loop's variable,
    # `round`'s `p` and `turn`'s `p`)
    text = _TEXT.replace("flow:", """trigger big when total > 1000:
    seen += 1

flow:""")
    state = load_text(text).new_state()
    while state.is_chance():
        state.apply(state.sample_chance(random.Random(0)))
    seat = state.to_move()[0]
    assert list(state.frame).count(seat) == 3


def test_the_rule_reads_the_value_passed(monkeypatch):
    # a `let` assigned again after the first call, with a decision inside the rule, `me`
    # and an action's parameter, a parameter passed on with a copied argument, a rule
    # done in a loop over a zone's cards (a Python `for` in generated code): the values
    # the closures read
    def play(game):
        state, rng, seen = game.new_state(), random.Random(1), []
        while not state.is_terminal():
            seat = state.to_move()[0]
            move = state.random_move(rng, seat)
            seen.append((move.text, repr(state.frame), state.key()))
            state.apply(move, seat)
        seen.append((repr(state.vars), repr(state.frame), state.returns()))
        return seen
    fused, plain = fused_and_plain(monkeypatch, _TEXT, play)
    assert fused == plain
    game = load_text(_TEXT)
    state = game.new_state()
    picked = []
    while not state.is_terminal():
        seat = state.to_move()[0]
        move = state.legal_moves(seat)[0]       # x = 1 each time
        picked.append(move.text)
        state.apply(move, seat)
    values = dict(zip(game.prog.var_names, state.vars))
    # four picks of 1, each turn's k (10, then 20, for each seat); `note` counts a's
    # picks and a's three cards, `count_up` every card of both hands
    assert picked == ["pick 1"] * 4
    assert values["total"] == 4 + 2 * (10 + 20)
    assert values["seen"] == 2 + 3 + sum(range(1, 7))
    assert all(v is None for v in state.frame)
