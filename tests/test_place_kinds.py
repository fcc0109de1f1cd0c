"""The engine's card moves read their place kinds as module constants: in Python 3.11 a
member read off an Enum class goes through the metaclass's `__getattr__` hook each time
(about 60 ns more than a global's read, and no specialisation), which a card moved to the
bottom or a block cut onto a zone paid twice (Double Dealing Shuffle about 110 reads a
playout, 2-4% of its time)."""
from __future__ import annotations

import types

from conftest import fused_and_plain


def _code_objects(fn):
    """`fn`'s code and every code nested in it."""
    todo = [fn.__code__]
    while todo:
        code = todo.pop()
        yield code
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]


def test_no_function_of_the_state_reads_a_place_kind_off_its_enum_class():
    from interpreter import state
    fns = [f for f in vars(state).values() if isinstance(f, types.FunctionType)]
    fns += [f for f in vars(state.State).values() if isinstance(f, types.FunctionType)]
    assert state.State.move_cards in fns
    for fn in fns:
        for code in _code_objects(fn):
            assert "PlaceKind" not in code.co_names, (fn.__qualname__, code.co_name)


_MOVES = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6, r7, r8
card rank: rank
cards into deck[a]: card(rank: r) for r in [r1, r2, r3]
cards into deck[b]: card(rank: r) for r in [r4, r5, r6]
cards into row: card(rank: r) for r in [r7, r8]
zone deck[player]: stack
zone row: stack, face up
flow:
    move first(c for c in deck[a] if c.rank == r2) to bottom of deck[a]
    move top(row) to bottom of deck[b]
    move top(deck[b], 2) to deck[a] at depth 1
    move [c for c in deck[a] if c.rank != r1] to bottom of deck[b] face up
    move top(deck[b]) to deck[a] at depth 0
    draw
'''


def test_cards_moved_to_the_bottom_and_to_a_depth_land_where_the_closures_put_them(
        monkeypatch):
    def play(game):
        state = game.new_state()
        return [[(c.text, state.up[c.id]) for c in game.evaluate(f"cards({z})", state)]
                for z in ("deck[a]", "deck[b]", "row")]
    fused, plain = fused_and_plain(monkeypatch, _MOVES, play)
    assert fused == plain
    assert [t for t, _ in fused[0]] != ["r1", "r2", "r3"]
