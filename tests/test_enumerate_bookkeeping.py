"""The walk's bookkeeping done once where it can be (`interpreter.enumerate`): a
decision's seat and moves read from its node, no information-set columns made for a
game over, and the information sets counted from the decisions expanded.  Each test
fails where the walk goes back to doing the work state by state or call by call; the
edges its shortcuts leave to the general path are checked too."""
from __future__ import annotations

import pytest

from conftest import RULESETS, load_game
from interpreter import enumerate as walk_module
from interpreter import load_text, observe
from interpreter.enumerate import _Walk, enumerate_states, reachable_states
from test_enumerate import LEAVING

LEDUC = RULESETS / "classics" / "leduc_poker.gdl"
KUHN = RULESETS / "classics" / "kuhn_poker.gdl"


def infoset_keys(game, max_depth=None) -> dict:
    """Each seat's information sets as `State.infoset_key` tells them apart."""
    keys = {s.name: set() for s in game.seats}
    for state in reachable_states(game, max_depth=max_depth):
        for seat in state.to_move():
            keys[seat.name].add(state.infoset_key(seat))
    return {k: len(v) for k, v in keys.items()}


def test_a_decision_is_expanded_from_its_node(monkeypatch):
    """A one-seat decision's seat and moves are read from its node, and its moves checked
    against its information set's (`same_moves`) inline; a simultaneous one still lists
    its seats (`test_simultaneous_nodes_are_joint_and_uniform`)."""
    def listed(*args):
        raise AssertionError("listed the seats of a one-seat decision")
    monkeypatch.setattr(walk_module, "_choices", listed)
    monkeypatch.setattr(_Walk, "same_moves", listed)
    report = enumerate_states(load_game(LEDUC))
    assert (report.states, report.legal_moves, report.infosets) == (
        9457, 8820, {"p1": 468, "p2": 468})


def test_a_game_over_gets_no_information_set_columns_made(monkeypatch):
    made = []
    columns = _Walk.infoset_columns

    def noted(self, state, kind, *rest):
        made.append(kind)
        return columns(self, state, kind, *rest)
    monkeypatch.setattr(_Walk, "infoset_columns", noted)
    walk = _Walk(load_game(KUHN), True, None, None, None)
    walk.run()
    assert made and walk_module.TERMINAL not in made
    assert len(walk.chain) == len(walk.movers) == len(walk.kind)
    terminal = [i for i, kind in enumerate(walk.kind) if kind is walk_module.TERMINAL]
    assert terminal and all(walk.chain[i] is None and walk.movers[i] == () for i in terminal)


def test_a_complete_walk_counts_information_sets_from_the_decisions_it_expanded():
    game = load_game(LEDUC)
    walk = _Walk(game, True, None, None, None)
    walk.run()
    walk.chain = walk.movers = None     # read state by state no more
    report = walk_module.Report(title="", options={})
    walk_module._count(walk, report)
    assert report.infosets == {"p1": 468, "p2": 468}


@pytest.mark.parametrize("path, depth", [(KUHN, 2), (KUHN, 3), (LEDUC, 4)])
def test_a_stopped_walk_counts_the_information_sets_of_states_it_did_not_expand(path, depth):
    game = load_game(path)
    report = enumerate_states(game, max_depth=depth)
    assert report.unexpanded and report.infosets == infoset_keys(game, max_depth=depth)


# The information-set columns: each seat's view told by its text, the view plan looked
# up once a walk, and what all seats see of a move without parameters judged once a seat.

def test_a_walk_tells_views_apart_by_their_texts_without_numbering_them():
    walk = _Walk(load_game(LEDUC), True, None, None, None)
    walk.run()
    # only what the seats saw of steps is numbered; a chain's link holds the view itself
    assert walk.texts and not any(text.startswith("to move") for text in walk.texts)
    assert any(type(link[-1]) is str and link[-1].startswith("to move")
               for link in walk.links)
    report = walk_module.Report(title="", options={})
    walk_module._count(walk, report)
    assert report.infosets == {"p1": 468, "p2": 468}


def test_chain_ids_are_numbered_in_the_order_their_links_are_first_met():
    numbers = walk_module._Numbers()
    assert [numbers[k] for k in ("a", "b", "a", "c", "b")] == [0, 1, 0, 2, 1]
    assert numbers == {"a": 0, "b": 1, "c": 2}


def test_a_walk_looks_up_its_view_plan_once(monkeypatch):
    plans = []
    found = observe._plan

    def plan(prog):
        plans.append(prog)
        return found(prog)
    monkeypatch.setattr(observe, "_plan", plan)
    report = enumerate_states(load_game(LEDUC))
    assert report.infosets == {"p1": 468, "p2": 468} and len(plans) == 1


@pytest.mark.parametrize("text", [
    LEAVING,   # somebody out (`_head`'s own first lines), variables of plain values
    # a card in a variable (its text depends on who looks: not remembered by value),
    # and no variable at all
    '''game "t"
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
''',
    '''game "t"
players 2
card rank: 1..3
cards into deck: card(rank: r) for r in 1..3
zone deck: stack
zone hand[player]: stack, seen by owner
action pass_on():
    pass
flow:
    shuffle deck
    move top(deck) to hand[p1]
    choose p2: pass_on
    draw
'''])
def test_the_walks_views_are_each_seats_view(text):
    game = load_text(text, {})
    of = observe.viewer(game.prog)
    checked = 0
    for state in reachable_states(game):
        assert of(state) == observe.views(state) == [
            observe.view(state, seat) for seat in game.seats]
        checked += 1
    assert checked > 5


def test_what_all_seats_see_of_a_move_without_parameters_is_judged_once_a_seat(monkeypatch):
    judged = []
    observed = _Walk.observed

    def noted(self, step, after):
        if isinstance(step[1], tuple):          # a move, not a chance outcome
            judged.append(step[1][0][1].text)
        return observed(self, step, after)
    monkeypatch.setattr(_Walk, "observed", noted)
    walk = _Walk(load_game(LEDUC), True, None, None, None)
    walk.run()
    # (a fold always ends the game: no chain is made after one)
    assert sorted(judged) == sorted(["call", "raise"] * 2)
    assert [len(memo) for memo in walk.heard] == [2, 2]


def test_a_remembered_move_is_told_by_the_move_itself_not_only_its_id():
    game = load_game(LEDUC)
    moves = next(s for s in reachable_states(game) if s.legal_moves()).legal_moves()
    walk = _Walk(game, True, None, None, None)
    for memo in walk.heard:         # another object where each move's id is
        memo.update({id(m): (object(), ["wrong", "wrong"]) for m in moves})
    walk.run()
    assert not any("wrong" in link for link in walk.links)
    report = walk_module.Report(title="", options={})
    walk_module._count(walk, report)
    assert report.infosets == {"p1": 468, "p2": 468}


def test_a_move_with_parameters_made_anew_each_time_is_not_remembered():
    game = load_text('''game "t"
players 2
var total: int = 0
action bid(n: 1..2):
    total += n
flow:
    while total < 5:
        for p in players:
            choose p: bid
    draw
''', {})
    walk = _Walk(game, True, None, None, None)
    walk.run()
    assert walk.heard == [{}, {}]
    report = walk_module.Report(title="", options={})
    walk_module._count(walk, report)
    assert report.infosets == infoset_keys(game) and sum(report.infosets.values()) >= 10
