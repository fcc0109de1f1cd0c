"""The walk's bookkeeping done once where it can be (`interpreter.enumerate`): a
decision's seat and moves read from its node, no information-set columns made for a
game over, and the information sets counted from the decisions expanded.  Each test
fails where the walk goes back to doing the work state by state or call by call; the
edges its shortcuts leave to the general path are checked too."""
from __future__ import annotations

import pytest

from conftest import RULESETS, load_game
from interpreter import enumerate as walk_module
from interpreter.enumerate import _Walk, enumerate_states, reachable_states

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

    def noted(self, state, kind, parent, step):
        made.append(kind)
        return columns(self, state, kind, parent, step)
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
