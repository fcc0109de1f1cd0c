"""The walk tells each seat's view by its two remembered parts (`_Plan.view_parts`): the
table and the variable lines, each a text the plan's memos hold (its hash kept), not a
joined text made and hashed anew at every state.  The parts joined are the view, and
equal parts are equal views: the information sets are those `State.infoset_key` tells
apart, with someone out (a second first line), a card in a variable (lines not
remembered), identical cards and a set zone."""
from __future__ import annotations

from operator import add

import pytest

from conftest import RULESETS, load_game
from interpreter import load_text, observe
from interpreter._keys import cards_at, keyer
from interpreter.enumerate import _Walk, enumerate_states, reachable_states
from test_enumerate import LEAVING
from test_enumerate_as_it_walks import SET_ZONE, TWINS
from test_enumerate_bookkeeping import infoset_keys

LEDUC = RULESETS / "classics" / "leduc_poker.gdl"

KEPT_CARD = '''game "t"
players 2
card rank: 1..3
cards into deck: card(rank: r) for r in 1..3
zone deck: stack
zone hand[player]: stack, seen by owner
var kept: card? = none
action keep():
    kept = top(hand[me])
action pass_on():
    pass
flow:
    shuffle deck
    for p in players:
        move top(deck) to hand[p]
    for p in players:
        choose p: keep, pass_on
    draw
'''

TEXTS = [LEAVING, KEPT_CARD, SET_ZONE, TWINS]


@pytest.mark.parametrize("text", TEXTS)
def test_the_parts_joined_are_each_seats_view(text):
    game = load_text(text, {})
    of, key = observe.viewer(game.prog, cards_at(game.prog), True), keyer(game.prog)
    checked = 0
    for _ in range(2):          # the second time, every part is remembered
        for state in reachable_states(game):
            tables, lines = of(state, key(state))
            assert list(map(add, tables, lines)) == observe.views(state) == [
                observe.view(state, seat) for seat in game.seats]
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("text", TEXTS)
def test_equal_parts_are_equal_views(text):
    game = load_text(text, {})
    assert enumerate_states(game).infosets == infoset_keys(game)


def test_a_walks_links_hold_the_plans_remembered_parts():
    game = load_game(LEDUC)
    walk = _Walk(game, True, None, None, None)
    walk.run()
    plan = observe._plan(game.prog)
    tables = {id(t) for ts in plan.table_memo.values() for t in ts}
    lines = {id(x) for xs in plan.vars_memo.values() for x in xs}
    links = [link for link in walk.links if len(link) > 2]      # (the root's are two)
    assert links and all(len(link) == 4 and id(link[2]) in lines and id(link[3]) in tables
                         for link in links)
    assert enumerate_states(game).infosets == {"p1": 468, "p2": 468} == infoset_keys(game)
