"""A joint step writes in place an action block that runs straight to its end (no
branch, return or pause: `_fuse.straight_lines`), instead of calling its first run; a
block with a branch, or one that may end the game, is still called.  Each game is the
loop of `random_move` and `apply` and the plain closures' game, seed by seed, frame
included (the slots are cleared after each move).  The tests fail without the guards."""
from __future__ import annotations

import linecache
import random

from conftest import fused_and_plain
from interpreter import load_text

_GAME = '''game "t"
players a, b, c
var said[player]: int = 0
var order: text = ""
option limit: int = 99
action say(n: 1..4):
    said[me] = said[me] + n
    BODY
flow:
    repeat 4:
        simultaneously p in players: say
    draw
'''

_STRAIGHT = "order = order + text(me)"
_BRANCH = "if n > 2:\n        order = order + text(me)"
_WIN = "if said[me] > limit:\n        win me"


def _joint_source(game) -> str:
    joint = game.prog.sites[0].joint
    assert joint
    return "".join(linecache.cache[joint.__code__.co_filename][2])


def _both(game, seed):
    """The game by joint steps and by `random_move` and `apply`, from one seed: the
    first decision taken by `apply` of listed moves in both (the block's first run is
    compiled before any joint step is made)."""
    fast, slow = game.new_state(), game.new_state()
    for state in (fast, slow):
        for seat in state.to_move():
            state.apply(state.legal_moves(seat)[seed % 4], seat)
    rf, rs = random.Random(seed), random.Random(seed)
    while not fast.is_terminal():
        fast.random_joint_step(rf)
        for seat in slow.to_move():
            slow.apply(slow.random_move(rs, seat), seat)
        assert fast.frame == slow.frame
    assert slow.is_terminal() and fast.returns() == slow.returns()
    assert fast.trace_texts() == slow.trace_texts()
    return fast.trace_texts(), fast.returns()


def test_a_straight_block_is_written_in_the_joint_step(monkeypatch):
    text = _GAME.replace("BODY", _STRAIGHT)
    game = load_text(text)
    for seed in range(6):
        _both(game, seed)
    source = _joint_source(game)
    assert "exec_block" not in source

    def play(game):
        return [_both(game, seed) for seed in range(6)]
    fused, plain = fused_and_plain(monkeypatch, text, play)
    assert fused == plain


def test_a_block_with_a_branch_or_a_win_is_called(monkeypatch):
    for body, limit in ((_BRANCH, "99"), (_WIN, "99"), (_WIN, "9")):
        text = _GAME.replace("BODY", body)
        game = load_text(text, {"limit": limit})
        ends = {len(_both(game, seed)[0]) for seed in range(8)}
        assert "exec_block" in _joint_source(game)
        if limit == "9":                # a win ended some games before the last round
            assert min(ends) < 12

        def play(game):
            return [_both(game, seed) for seed in range(8)]
        fused, plain = fused_and_plain(monkeypatch, text.replace("= 99", f"= {limit}"),
                                       play)
        assert fused == plain
        monkeypatch.undo()              # generated code on again for the next body


def test_a_joint_step_of_several_actions_shares_the_limits_among_their_blocks():
    # Each action's block is written in at most its share of a run's limits, as a
    # step's runs are (`run_lines`): ten straight statements fit one action's whole
    # limit (sixteen instructions), not half of it, so with two actions at the site
    # both blocks are called.
    lines = "".join(f"    said[me] = said[me] + {k}\n" for k in range(10))
    one = _GAME.replace("    said[me] = said[me] + n\n    BODY\n", lines)
    two = one.replace("action say(n: 1..4):", "action hop(n: 1..4):\n" + lines +
                      "action say(n: 1..4):").replace(": say\n", ": say, hop\n")
    for text, called in ((one, False), (two, True)):
        game = load_text(text)
        for seed in range(3):
            state = game.new_state()
            rng = random.Random(seed)
            while not state.is_terminal():
                state.random_joint_step(rng)
        assert ("exec_block" in _joint_source(game)) is called
