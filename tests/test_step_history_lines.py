"""Speed shapes of the forty-fourth round (Double Down's second helper): each plays as
the plain closures do; the unsound case of each guard is played here."""
from __future__ import annotations

import random

from interpreter import _fuse, load_text, values

SHARED = '''game "t"
players a, b, c
card n: 1..4
cards into stock: card(n: k) for k in [1, 2, 1, 3, 2, 4, 1, 3, 4]
zone stock: stack
zone hand[player]: set, face up
zone pile: stack, face up
action play(x: hand[me]):
    move x to pile
flow:
    shuffle stock
    deal 3 from stock to hand[p] for p in all_players
    repeat 3:
        for p in all_players:
            choose p: play
returns(p) = 0
'''


def _histories(game, seeds=40) -> list:
    out = []
    for seed in range(seeds):
        st = game.new_state()
        rng = random.Random(seed)
        st.random_run(rng, 1000)
        assert st.is_terminal()
        out.append(list(st.history))
    return out


def _values_of(fn) -> list:
    """The values a generated function reads (`K0`, `K1`, ...: its globals)."""
    g = getattr(fn, "__globals__", {})
    return [v for k, v in g.items() if k[:1] == "K" and k[1:].isdigit()]


def _kept(game) -> list:
    """The history lines the generated steps keep by value (`_actions._kept_line`'s dicts:
    value -> a line by seat index), found in the steps' values (`_fuse.build`: globals)."""
    out = []
    for site in game.prog.sites:
        for v in _values_of(site.step):
            if type(v) is dict and v and all(type(r) is list for r in v.values()):
                out.append(v)
    return out


def test_a_steps_history_line_is_kept_by_value_and_seat_and_only_while_its_text_is(
        monkeypatch):
    # A one-value move's history line is looked up by the value, then by the seat (the
    # same card is played by each seat in some game: a line kept by value alone would
    # name the seat that played it first); lines are kept only for the values whose text
    # the action keeps for good (`move_text`, up to MOVE_TEXTS), so the kept lines are
    # bounded as the texts are.
    for cap in (values.MOVE_TEXTS, 2):
        monkeypatch.setattr(values, "MOVE_TEXTS", cap)
        got = {}
        for enabled in (True, False):
            monkeypatch.setattr(_fuse, "ENABLED", enabled)
            game = load_text(SHARED)
            got[enabled] = _histories(game)
            if enabled:
                kept = _kept(game)
                assert len(kept) == 1
                if cap == 2:
                    assert len(kept[0]) <= 2
                else:
                    assert len(kept[0]) == 9
                    assert {line[0] for row in kept[0].values() for line in row
                            if line is not None} == {0, 1, 2}
        assert got[True] == got[False]
        assert {h[1] for hist in got[True] for h in hist if h[0] >= 0} == {
            "play 1", "play 2", "play 3", "play 4"}
