"""Speed shapes of the forty-fourth round (Double Down's helper): each keeps every list of
moves as the plain closures make it; the unsound case of each guard is played here."""
from __future__ import annotations

import random
import re

import pytest

from conftest import fused_and_plain
from interpreter import _fuse
from test_fuse import _generated_sources

TWINS = '''game "t"
players a, b
card n: 1..4
cards into stock: card(n: k) for k in [1, 2, 1, 3, 2, 3, 1]
zone stock: stack
zone hand[player]: ZONEKIND, face up
zone pile: stack, face up
action play(c: hand[me]):
    require c.n != 3
    move c to pile
action toss(c: hand[me]):
    move c to pile
flow:
    deal 7 from stock to hand[p] for p in [a]
    choose a: play, toss
    choose a: play, toss
returns(p) = 0
'''


def test_twins_merged_by_runs_only_where_a_set_keeps_them_side_by_side(monkeypatch):
    # A set zone keeps its cards by kind (`card_order`): each kind's twins side by side,
    # so the first card of each run is its kind's first, kept without a dict.  A stack
    # keeps them as dealt (1 2 1 3 2 3 1): runs there would list 1 three times.
    def play(game):
        seen = []
        for seed in range(30):
            st = game.new_state()
            rng = random.Random(seed)
            while not st.is_terminal():
                legal = [m.text for m in st.legal_moves()]
                assert len(legal) == len(set(legal)), legal    # one move per kind
                seen.append(legal)
                st.random_step(rng)
            seen.append([h[1] for h in st.history])
        if _fuse.ENABLED:       # the code the playouts made
            sources.append("\n".join(_generated_sources(game)))
        return seen
    for zone_kind, runs in (("set", True), ("stack", False)):
        sources = []
        text = TWINS.replace("ZONEKIND", zone_kind)
        fused, plain = fused_and_plain(monkeypatch, text, play)
        assert fused == plain
        assert ["play 1", "play 2", "toss 1", "toss 2", "toss 3"] in fused
        assert bool(re.search(r"(_t\d+) != \(\1 := _t\d+\.kind\)", sources[0])) == runs


ORDER = '''game "t"
players a, b
card n: 1..9
cards into stock: card(n: k) for k in [5, 1, 4, 2, 3]
zone stock: stack
zone hand[player]: ZONEKIND, face up
zone pile: stack, face up
var seen: int = 0
action play(c: hand[me]):
    require c.n != 4
    move c to pile
flow:
    move stock to hand[a]
    seen = first(x.n for x in hand[a])
    choose a: play
returns(p) = seen
'''


def test_a_family_of_sets_is_passed_over_as_its_list_and_one_of_stacks_top_first(monkeypatch):
    # `hand[me]` of a family whose zones are all sets is passed over as the zone's own
    # list (card order); a stack's is passed over top first (`reversed`), for the moves
    # listed and for a comprehension alike.
    def play(game):
        st = game.new_state()
        got = [m.text for m in st.legal_moves()], st.frame[:], st.vars[:]
        if _fuse.ENABLED:       # the code the listing made
            sources.append("\n".join(_generated_sources(game)))
        return got
    for zone_kind, raw in (("set", True), ("stack", False)):
        sources = []
        text = ORDER.replace("ZONEKIND", zone_kind)
        fused, plain = fused_and_plain(monkeypatch, text, play)
        assert fused == plain
        moves = fused[0]
        assert moves == (["play 5", "play 1", "play 2", "play 3"] if zone_kind == "set"
                         else ["play 3", "play 2", "play 1", "play 5"]), moves
        # the per-slot builtin called on the zone's list (`iter`, `reversed`)
        assert (re.search(r"\.slot\]\(", sources[0]) is None) == raw


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_every_set_zone_keeps_each_kinds_twins_side_by_side_in_every_ruleset(
        monkeypatch, generated):
    # The runs above rely on it: every writer of a set zone (a move, a deal, a block, a
    # regroup by facing, a snapshot) keeps its cards by kind.  Checked after every step
    # of seeded playouts of each repository ruleset with set zones (the fourth review's
    # suggestion: a writer that skipped it would list a kind twice, fused only).
    from pathlib import Path

    from gdl.errors import GdlError
    from interpreter.game import load
    from interpreter.values import card_order
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    checked = 0
    for path in sorted((Path(__file__).parent.parent / "rulesets").rglob("*.gdl")):
        game = load(path, {})
        sets = [slot for slot, is_set in enumerate(game.prog.is_set) if is_set]
        if not sets:
            continue
        checked += 1
        for seed in range(3):
            state, rng, steps = game.new_state(), random.Random(seed), 0
            while not state.is_terminal() and steps < 400:
                steps += 1
                for slot in sets:
                    kinds = [card_order(c) for c in state.zones[slot]]
                    assert kinds == sorted(kinds), (path.name, seed, steps, slot)
                try:
                    if state.is_chance():
                        state.apply(state.sample_chance(rng))
                    for seat in () if state.is_chance() else state.to_move():
                        state.apply(state.random_move(rng, seat), seat)
                except GdlError:        # the literal readings' holes: a deadlock, say
                    break
    assert checked >= 8         # Double Down, Evil Deal, the poker games, whist...
