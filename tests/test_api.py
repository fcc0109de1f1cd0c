"""Properties of the game API that every ruleset must have, checked over Gerry and Double
Dealing Shuffle and a small variant of each: replay, JSON, clone, undo, move texts, chance
probabilities, what views hide, information-set keys, returns and hashing."""
from __future__ import annotations

import json
import re
import random
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DDS, GERRY, RULESETS, load_game, random_playout
from interpreter import replay
from interpreter.game import Game

GAMES = {
    "gerry": (GERRY, {}),
    "gerry-small": (GERRY, {"size": 3, "turns_each": 2}),
    "dds": (DDS, {}),
    "dds-small": (DDS, {"deck_size": 4, "shuffles": 1, "max_rounds": 3}),
}
ALL = list(GAMES)
SEEDS = st.integers(0, 10**6)


@lru_cache(maxsize=None)
def game_of(name, **extra):
    path, options = GAMES[name]
    return load_game(path, **{**options, **extra})


# ---------------------------------------------------------------- stepping helpers
def step(state, rng):
    """Makes one step: a chance outcome, or one move of the first seat still to move (at a
    simultaneous decision the seats commit one step each, in seat order).  Returns the step
    so that it can be repeated on another state."""
    if state.is_chance():
        outcome = state.sample_chance(rng)
        state.apply(outcome)
        return None, outcome
    seat = state.to_move()[0]
    moves = state.legal_moves(seat)
    move = moves[rng.randrange(len(moves))]
    state.apply(move, seat)
    return seat.name, move.text


def redo(state, made):
    seat, what = made
    if seat is None:
        state.apply(what)
    else:
        state.apply(what, seat)


def settled(state):
    """No seat has committed a move at a simultaneous decision that is still open."""
    return not state.is_simultaneous() or len(state.to_move()) == state.game.num_players


def walk(game, seed, stop=None):
    """Plays a random game from `seed`; returns the states after each step (clones), the
    steps, and the final state.  `stop`: the number of steps after which to stop."""
    rng = random.Random(seed)
    state = game.new_state(seed)
    states, steps = [state.clone()], []
    while not state.is_terminal() and (stop is None or len(steps) < stop):
        steps.append(step(state, rng))
        states.append(state.clone())
    return states, steps, state


def some_states(game, seed, n=6):
    """A few states of a random game, at random points (some mid-commit, some terminal)."""
    states, _, _ = walk(game, seed)
    rng = random.Random(seed + 1)
    return [states[-1]] + [states[rng.randrange(len(states))] for _ in range(n - 1)]


# ---------------------------------------------------------------- replay
@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS, cut=st.floats(0.0, 1.0))
@settings(max_examples=12, deadline=None)
def test_a_trace_replays_to_the_same_state(name, seed, cut):
    game = game_of(name)
    states, _, end = walk(game, seed)
    # a finished game, and a position part-way (perhaps with a pending commit)
    middle = states[int(cut * (len(states) - 1))]
    for state in (end, middle):
        trace = json.loads(json.dumps(state.trace()))
        again = replay(game, trace)
        assert again.key() == state.key()
        assert again.view(None) == state.view(None)
        assert [again.view(p) for p in game.seats] == [state.view(p) for p in game.seats]
        assert again.returns() == state.returns()
        assert again.trace() == state.trace()
    assert end.is_terminal()


@pytest.mark.parametrize("path, options", [
    *GAMES.values(), (RULESETS / "classics" / "kuhn_poker.gdl", {}),
    (RULESETS / "double_down.gdl", {"players": 3}), (RULESETS / "evil_deal.gdl", {}),
    (RULESETS / "pescetti.gdl", {"mode": "random"})])
@given(seed=SEEDS)
@settings(max_examples=6, deadline=None)
def test_a_traces_line_is_the_json_of_the_trace(path, options, seed):
    # `gdl run --trace` writes `trace_line`, which remembers step texts: the same text as
    # `json.dumps(trace())` for every state (moves, drawn values, shuffles), a restored
    # snapshot's, one mid-commit's, and games whose steps it has written before
    from interpreter.serial import trace_line
    game = load_game(path, **options)
    for state in some_states(game, seed, n=4) + [walk(game, seed)[2]]:
        restored = game.state_from_json(json.loads(json.dumps(state.to_json())))
        for s in (state, restored):
            assert trace_line(s) == json.dumps(s.trace())
    mid = game.new_state(seed)
    if mid.is_simultaneous():
        seat = mid.to_move()[0]
        mid.apply(mid.legal_moves(seat)[0], seat)
        assert trace_line(mid) == json.dumps(mid.trace())


def test_a_trace_taken_mid_commit_keeps_the_commit():
    # a commit at an open simultaneous decision is a step of the trace
    game = game_of("dds")
    state = game.new_state(0)
    state.apply("shuffle_packet 3 3", "p1")
    again = replay(game, json.loads(json.dumps(state.trace())))
    assert again.key() == state.key()
    assert [s.name for s in again.to_move()] == ["p2"]


# ---------------------------------------------------------------- JSON
@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=10, deadline=None)
def test_json_round_trip_then_both_continue_alike(name, seed):
    game = game_of(name)
    rng = random.Random(seed)
    for state in some_states(game, seed, n=4):
        copy = game.state_from_json(json.loads(json.dumps(state.to_json())))
        assert copy.key() == state.key() and hash(copy) == hash(state)
        assert copy.view(None) == state.view(None)
        assert copy.is_terminal() == state.is_terminal()
        assert [s.name for s in copy.to_move()] == [s.name for s in state.to_move()]
        for seat in state.to_move():
            assert [m.text for m in copy.legal_moves(seat)] == \
                   [m.text for m in state.legal_moves(seat)]
        original = state.clone()
        for _ in range(25):
            if original.is_terminal():
                break
            redo(copy, step(original, rng))
            assert copy.key() == original.key()
        assert copy.returns() == original.returns()


# ---------------------------------------------------------------- clone and undo
@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=10, deadline=None)
def test_clones_are_independent(name, seed):
    game = game_of(name)
    rng = random.Random(seed)
    for state in some_states(game, seed, n=3):
        key, view, history = state.key(), state.view(None), list(state.history)
        twin = state.clone()
        for _ in range(10):
            if twin.is_terminal():
                break
            step(twin, rng)
        cards = twin.cards_in(twin.prog.zones[0])
        twin.place(cards[:1], twin.prog.zones[-1], face="up")
        twin.up[0] = not twin.up[0]
        twin.known[0] ^= 1
        twin.vars[0] = None
        assert state.key() == key and state.view(None) == view
        assert state.history == history
        assert twin.key() != key


@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS, data=st.data())
@settings(max_examples=10, deadline=None)
def test_undo_returns_to_the_earlier_position(name, seed, data):
    game = game_of(name)
    states, _, _ = walk(game, seed, stop=120)
    # seats commit in seat order, so the first k steps are the first k steps of the trace
    here = data.draw(st.integers(0, len(states) - 1))
    back = data.draw(st.integers(0, here))
    state = states[here].clone()
    assert len(state.trace()["steps"]) == here
    state.undo(back)
    assert state.key() == states[here - back].key()
    assert state.to_move() == states[here - back].to_move()
    assert state.trace()["steps"] == states[here - back].trace()["steps"]


def test_undo_takes_back_a_pending_commit():
    game = game_of("dds")
    state = game.new_state(0)
    state.apply("shuffle_packet 3 3", "p1")
    state.apply("shuffle_packet 2 2", "p2")
    before = state.key()
    state.apply("shuffle_packet 1 1", "p1")
    state.undo(1)
    assert state.key() == before


# ---------------------------------------------------------------- move texts
@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=10, deadline=None)
def test_every_legal_move_text_parses_back(name, seed):
    game = game_of(name)
    for state in some_states(game, seed, n=8):
        for seat in state.to_move():
            moves = state.legal_moves(seat)
            texts = [m.text for m in moves]
            assert moves and len(set(texts)) == len(texts)
            for m in moves:
                parsed = state.parse_move(m.text, seat)
                assert parsed == m
                assert parsed.action is m.action and parsed.args == m.args
                assert state.why_illegal(m.text, seat) is None
                assert " ".join(m.text.split()) == m.text          # canonical spacing
        for seat in game.seats:                 # a seat not deciding has no moves
            if seat not in state.to_move():
                assert state.legal_moves(seat) == [] and state.legal_moves(seat.name) == []


# ---------------------------------------------------------------- chance
@pytest.mark.parametrize("name", ALL)
def test_listed_chance_probabilities_are_exact_and_sum_to_one(name):
    game = game_of(name)
    rng = random.Random(7)
    listed = sampled_only = 0
    for seed in range(40):
        state = game.new_state(seed)
        while not state.is_terminal():
            if state.is_chance():
                outcomes = state.chance_outcomes()
                if outcomes is None:
                    sampled_only += 1
                else:
                    listed += 1
                    assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
                    assert sum(p for _, p in outcomes) == 1
                    assert len({o for o, _ in outcomes}) == len(outcomes)
                    assert len({o.text for o, _ in outcomes}) == len(outcomes)
                    drawn = state.sample_chance(rng)
                    assert drawn in [o for o, _ in outcomes]
            else:
                assert state.chance_outcomes() == []
            step(state, rng)
    if game.profile()["chance"]:
        # Gerry: the 50-card stock is only sampled; the two Kings are listed (a coin)
        assert listed == sampled_only == 40
    else:
        assert listed == sampled_only == 0


# ---------------------------------------------------------------- what views hide
def swap_places(state, a, b):
    """Swaps two cards' places (and facings) in a state's zones."""
    za, zb = state.loc[a.id], state.loc[b.id]
    ia, ib = state.zones[za].index(a), state.zones[zb].index(b)
    state.zones[za][ia], state.zones[zb][ib] = b, a
    state.loc[a.id], state.loc[b.id] = zb, za
    state.up[a.id], state.up[b.id] = state.up[b.id], state.up[a.id]


@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=10, deadline=None)
def test_views_do_not_show_unseen_cards(name, seed):
    game = game_of(name)
    rng = random.Random(seed)
    swapped = 0
    for state in some_states(game, seed, n=5):
        cards = [c for z in state.zones for c in z]
        for seat in game.seats:
            unseen = [c for c in cards if not state.sees(seat, c)]
            assert state.unseen(seat) == unseen                  # zone by zone, in order
            rng.shuffle(unseen)
            pair = next(((a, b) for a in unseen[:1] for b in unseen if b.kind != a.kind), None)
            if pair is None:
                continue
            other = state.clone()
            swap_places(other, *pair)
            assert other.view(seat) == state.view(seat)
            assert other.view(None) != state.view(None)
            swapped += 1
    assert swapped > 0


# ---------------------------------------------------------------- information sets (DDS)
def dds_states(game, *plays):
    """One state per (p1's shuffles, p2's shuffles): both shuffle, then both cut 2."""
    states = []
    for p1_shuffles, p2_shuffles in plays:
        state = game.new_state(0)
        for mine, theirs in zip(p1_shuffles, p2_shuffles, strict=True):
            state.apply(f"shuffle_packet {mine}", "p1")
            state.apply(f"shuffle_packet {theirs}", "p2")
        state.apply("cut 2", "p1")
        state.apply("cut 2", "p2")
        states.append(state)
    return states


@pytest.mark.parametrize("name", ["dds", "dds-small"])
@pytest.mark.parametrize("visibility", ["hidden", "full"])
def test_infoset_keys_hide_the_opponents_secret_shuffles(name, visibility):
    game = game_of(name, shuffle_visibility=visibility)
    n, size = game.options["shuffles"], game.options["deck_size"]
    # the last shuffle of y slides p2's top card to the bottom: the red card moves up one
    x, y = dds_states(game, (["2 1"] * n, ["1 1"] * n),
                      (["2 1"] * n, ["1 1"] * (n - 1) + [f"1 {size - 1}"]))
    assert x.key() != y.key()                            # p2's red card is elsewhere
    assert x.infoset_key("p2") != y.infoset_key("p2")
    if visibility == "hidden":
        assert x.infoset_key("p1") == y.infoset_key("p1")
        assert x.view("p1") == y.view("p1")
    else:
        assert x.infoset_key("p1") != y.infoset_key("p1")
    # p1's own, different choices always show in p1's key, never in p2's under hidden
    u, v = dds_states(game, (["2 1"] * n, ["1 1"] * n),
                      (["2 1"] * (n - 1) + ["1 2"], ["1 1"] * n))
    assert u.infoset_key("p1") != v.infoset_key("p1")
    assert (u.infoset_key("p2") == v.infoset_key("p2")) == (visibility == "hidden")


@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=8, deadline=None)
def test_infoset_key_has_perfect_recall(name, seed):
    game = game_of(name)
    states, _, _ = walk(game, seed, stop=40)
    picks = sorted(random.Random(seed).sample(range(len(states)), min(4, len(states))))
    picked = [states[i] for i in picks if settled(states[i])] + [states[-1]]
    for seat in game.seats:
        keys = [s.infoset_key(seat) for s in picked]
        for earlier, later in zip(keys, keys[1:]):
            assert later.startswith(earlier)             # nothing is forgotten
        final = states[-1]
        assert keys[-1] == final.infoset_key(seat)       # deterministic
        # the seat's own moves appear in its log in full, in order
        mine = [text for who, text in seen_moves(final, seat.name) if who == seat.name]
        assert mine == [text for who, text, _ in final.history if who == seat.index]


@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=8, deadline=None)
def test_logs_asked_of_states_without_them_are_those_of_a_game_logged_from_the_start(
        name, seed):
    # A state that keeps no logs is replayed when one is asked; the replays are kept, and
    # a later one goes on from a kept one of a shorter line: asked in an order that jumps
    # ahead, goes back and goes on (mid-commit states included), every answer is that of
    # the same line played with logs from the start.
    game = game_of(name)
    states, steps, _ = walk(game, seed, stop=40)
    logged = [game.new_state(seed, observe=True)]
    for made in steps:
        logged.append(logged[-1].clone())
        redo(logged[-1], made)
    order = list(range(len(states)))
    random.Random(seed).shuffle(order)
    for i in order + list(range(len(states))):
        for seat in game.seats:
            assert states[i].infoset_key(seat) == logged[i].infoset_key(seat)
        assert states[i].obs is None


def seen_moves(state, seat):
    """The moves in `seat`'s observation log as (mover, text) pairs (a line may hold the
    moves of one simultaneous decision, separated by ' ; ')."""
    names = {s.name for s in state.game.seats}
    pairs = []
    for line in state.observation_log(seat):
        for part in line.split(" ; "):
            who, sep, text = part.partition(": ")
            if sep and who in names:
                pairs.append((who, text))
    return pairs


# ---------------------------------------------------------------- returns
@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=15, deadline=None)
def test_returns_are_zero_sum_and_zero_until_the_end(name, seed):
    game = game_of(name)
    rng = random.Random(seed)
    state = game.new_state(seed)
    while not state.is_terminal():
        assert state.returns() == (0.0,) * game.num_players
        assert state.to_move() or state.is_chance()
        step(state, rng)
    returns = state.returns()
    assert len(returns) == game.num_players
    assert sum(returns) == 0
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    assert state.to_move() == [] and not state.is_chance()


# ---------------------------------------------------------------- hashing
@pytest.mark.parametrize("name", ["dds", "dds-small"])
@given(seed=SEEDS)
@settings(max_examples=10, deadline=None)
def test_commit_order_does_not_change_the_position(name, seed):
    game = game_of(name)
    rng = random.Random(seed)
    state = random_playout(game.new_state(seed), rng, max_steps=rng.randrange(8))
    if state.is_terminal():
        return
    assert state.is_simultaneous() and settled(state)
    m1 = rng.choice(state.legal_moves("p1")).text
    m2 = rng.choice(state.legal_moves("p2")).text
    a, b = state.clone(), state.clone()
    a.apply(m1, "p1")
    a.apply(m2, "p2")
    b.apply(m2, "p2")
    b.apply(m1, "p1")
    assert a.key() == b.key() and hash(a) == hash(b) and a == b
    # the history keeps the commit order (so undo takes back the last commit made)
    assert sorted(a.history) == sorted(b.history) and a.history != b.history
    assert a.history[-2:] == [(0, m1, "simultaneous"), (1, m2, "simultaneous")]
    for seat in ("p1", "p2"):           # each seat's log numbers the steps as the history
        log_a, log_b = a.observation_log(seat), b.observation_log(seat)
        assert [line[:4] for line in log_a[-2:]] == ["p1: ", "p2: "]
        assert [line[:4] for line in log_b[-2:]] == ["p2: ", "p1: "]
        assert sorted(log_a) == sorted(log_b) and len(log_a) == len(a.history)
    assert a.view(None) == b.view(None)
    half_a, half_b = state.clone(), state.clone()
    half_a.apply(m1, "p1")
    half_b.apply(m2, "p2")
    assert half_a.key() != half_b.key()                  # who has committed matters


def test_transposed_shuffles_that_give_the_same_order_hash_equal():
    # Blue cards are interchangeable: lifting 1 or 2 blue cards from the top and putting
    # them below one card leaves the same deck (red at the bottom), by other card ids.
    game = game_of("dds")
    a, b = game.new_state(0), game.new_state(0)
    a.apply("shuffle_packet 1 1", "p1")
    a.apply("shuffle_packet 2 1", "p2")
    b.apply("shuffle_packet 2 1", "p1")
    b.apply("shuffle_packet 1 1", "p2")
    assert [c.id for c in a.cards_in("deck[p1]")] != [c.id for c in b.cards_in("deck[p1]")]
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.trace() != b.trace()
    c = game.new_state(0)
    c.apply("shuffle_packet 1 8", "p1")                  # red card on top: another position
    c.apply("shuffle_packet 2 1", "p2")
    assert c != a and len({a, c}) == 2


TWIN_CARDS = '''game "twins"
players 1
card n: 1..3
cards into deck: card(n: k) for i in 1..2 for k in 1..3
zone deck: stack
zone heap: set
var waited: int = 0
action wait():
    waited += 1
flow:
    choose p1: wait
    draw
'''


def test_keys_tell_kinds_and_facings_apart_but_not_twins():
    # Two cards of each of three kinds.  A key reads each zone as its cards' kinds and
    # facings, in order (in card order in a set zone), whichever twin lies where.
    from interpreter import load_text
    game = load_text(TWIN_CARDS)
    one, two, three = ([c for c in game.prog.cards if c.text == t] for t in "123")

    def position(deck, heap):
        """The deck's and the heap's (card, face) pairs, top first."""
        s = game.new_state(0)
        for zone, cards in (("heap", heap), ("deck", deck)):
            for card, face in reversed(cards):
                s.place([card], zone, face)
        return s

    def down(*cards):
        return [(c, "down") for c in cards]
    base = position(down(one[0], two[0], three[0]), down(one[1], two[1], three[1]))
    assert base.key() == position(down(one[1], two[1], three[1]),
                                  down(three[0], one[0], two[0])).key()
    # (the cards are made 1 2 3 1 2 3: the heap's second twos and first ones lie in
    # another card order than its first twos and second ones)
    assert base.key() == position(down(one[0], two[1], three[0]),
                                  down(one[1], two[0], three[1])).key()
    assert base.key() != position(down(two[0], one[0], three[0]),
                                  down(one[1], two[1], three[1])).key()
    assert base.key() != position([(one[0], "up"), *down(two[0], three[0])],
                                  down(one[1], two[1], three[1])).key()
    # a face-up card of one kind is not a face-down card of the next kind, even where
    # the zones' other cards make up for it
    assert position([(one[0], "up")], down(one[1], two[0], two[1], three[0], three[1])).key() \
        != position(down(two[0]), [(one[0], "up"), *down(one[1], two[1], three[0],
                                                         three[1])]).key()


def test_canonical_forms_keep_plain_values_and_name_the_rest_by_kind_and_index():
    from interpreter import load_text
    from interpreter.values import canon
    game = load_text(TWIN_CARDS)
    one, other_one, two = game.prog.cards[0], game.prog.cards[3], game.prog.cards[1]
    seat = game.seats[0]
    value = (1, "a", True, None, 2.5, seat, one, (two, (other_one, False)), ())
    assert canon(value) == (1, "a", True, None, 2.5, 0, ("c", one.kind),
                            (("c", two.kind), (("c", one.kind), False)), ())
    assert canon(value) == canon(value[:6] + (other_one,) + value[7:])   # twins
    assert canon(True) is True and canon(seat) == 0 and canon(one) == ("c", one.kind)


@pytest.mark.parametrize("name", ALL)
@given(seed=SEEDS)
@settings(max_examples=8, deadline=None)
def test_the_same_position_by_any_route_hashes_equal(name, seed):
    game = game_of(name)
    for state in some_states(game, seed, n=3):
        if not settled(state):
            continue
        copies = [state.clone(), game.state_from_json(state.to_json()),
                  replay(game, state.trace())]
        assert len({state, *copies}) == 1
        assert {hash(c) for c in copies} == {hash(state)}


def test_undo_after_a_resolved_simultaneous_decision_takes_back_the_last_commit():
    game = load_game(DDS, deck_size=4, shuffles=1)
    s = game.new_state()
    s.apply("shuffle_packet 1 1", "p2")
    before = s.clone()
    s.apply("shuffle_packet 1 1", "p1")               # resolves the decision
    s.undo(1)
    assert s.key() == before.key() and [p.name for p in s.to_move()] == ["p1"]


def test_a_views_hashed_positions_are_its_tokens_crc32_whatever_was_hashed_before():
    """The tensor encoding (`integrations._encode`) sets crc32(token) % size for every
    token of a view and the seat's own; lines seen before are looked up, not hashed
    again, and give the same positions as hashing every token afresh."""
    import zlib
    from interpreter.integrations._encode import token_positions, view_tokens

    def afresh(view, seat, size):
        tokens = set(view_tokens(view)) | {f"seat={seat}"}
        return sorted({zlib.crc32(t.encode("utf-8")) % size for t in tokens})
    view = "to move: p1\nhand[p1] (2): 2H ?\npoints = {p1: 3, p2: 0}\nmover = p2"
    assert set(view_tokens(view)) >= {"hand[p1]#2", "hand[p1]/0@0=2H", "hand[p1]/0:2H",
                                      "hand[p1]/0@1=?", "points[p1]=3", "points[p2]=0",
                                      "mover=p2"}
    assert token_positions(view, "p1", 4096) == afresh(view, "p1", 4096)
    for name in ("double_down.gdl", "gerry.gdl", "double_dealing_shuffle.gdl"):
        game = load_game(RULESETS / name)
        state, rng = game.new_state(), random.Random(4)
        for _ in range(40):
            if state.is_terminal():
                break
            for seat in game.seats:
                for size in (64, 4096):
                    text = state.view(seat)
                    assert token_positions(text, seat.name, size) == \
                        afresh(text, seat.name, size)
            random_playout(state, rng, max_steps=1)


def test_the_packages_names_load_when_first_used():
    """`interpreter` imports its modules when one of its names is first used, so each
    public name must still be there, the very object its module defines."""
    import importlib

    import interpreter
    for name in interpreter.__all__:
        home = importlib.import_module(f"interpreter.{interpreter._HOMES[name]}")
        assert getattr(interpreter, name) is getattr(home, name), name
    assert set(interpreter._HOMES) == set(interpreter.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        interpreter.nosuch  # noqa: B018


# ---------------------------------------------------------------- calls made wrongly
def test_apply_joint_checks_every_move_before_committing_any():
    # a wrong count or an illegal move commits nothing (p1's legal move stayed committed
    # before); elsewhere than at a simultaneous decision it is refused
    from gdl.errors import MoveError
    game = game_of("dds")
    state = game.new_state(0)
    key, steps = state.key(), len(state.trace()["steps"])
    for moves, says in ((["shuffle_packet 3 3", "shuffle_packet 99 1"], "not a legal move"),
                        (["shuffle_packet 3 3"], "2 seats are to commit a move here"),
                        (["shuffle_packet 3 3"] * 3, r"\(p1, p2\), not 3"),
                        (["shuffle_packet 3 3", state.chance_outcomes], "give a move's text")):
        with pytest.raises(MoveError, match=says):
            state.apply_joint(moves)
        assert state.key() == key and len(state.trace()["steps"]) == steps
        assert [s.name for s in state.to_move()] == ["p1", "p2"]
    state.apply_joint(["shuffle_packet 3 3", "shuffle_packet 2 1"])
    assert state.key() != key
    gerry, rng = game_of("gerry").new_state(0), random.Random(0)
    while gerry.is_chance():
        gerry.apply(gerry.sample_chance(rng))
    with pytest.raises(MoveError, match="apply_joint is for a simultaneous decision"):
        gerry.apply_joint([gerry.legal_moves()[0]])


def test_a_chance_outcome_applied_where_a_seat_decides_is_a_move_error():
    from gdl.errors import MoveError
    game, rng = game_of("gerry"), random.Random(0)
    state = game.new_state(0)
    outcome = state.sample_chance(rng)
    state.apply(outcome)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    with pytest.raises(MoveError, match="decides here: give a move's text or a Move, not "
                                        "ChanceOutcome"):
        state.apply(outcome)


def test_apply_without_a_seat_where_several_are_to_commit_asks_for_one():
    # it committed the move for the first seat still to commit, whoever it was meant for
    from gdl.errors import MoveError
    state = game_of("dds-small").new_state(0)
    assert state.is_simultaneous()
    move = state.legal_moves("p2")[-1]
    with pytest.raises(MoveError, match="p1, p2 are each to commit a move here: name the "
                                        "seat, as apply\\(move, 'p1'\\)"):
        state.apply(move)
    assert state.committed() == []
    state.apply(move, "p2")
    state.apply(move.text)                  # one seat left: it is that seat's
    assert not state.is_simultaneous() or state.committed() == []


def test_a_recorded_shuffle_that_is_not_a_list_of_cards_is_a_move_error():
    # a trace edited by hand: the shuffle's data a number or null was a TypeError
    from gdl.errors import MoveError
    state = game_of("gerry").new_state(0)
    for data in (5, None, "5", [1.5]):
        with pytest.raises(MoveError, match="the recorded shuffle names cards"):
            state.outcome_from_data("shuffle", data)


def test_a_move_or_outcome_made_elsewhere_is_taken_only_where_it_is_legal():
    from gdl.errors import MoveError
    from interpreter import load, replay
    gerry = game_of("gerry")
    state, rng = gerry.new_state(1), random.Random(1)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    select = state.legal_moves()[0]                    # p2 selects a cell ...
    state.apply(select)
    state.apply(state.legal_moves()[0])
    assert state.to_move()[0].name == "p1"
    with pytest.raises(MoveError, match="not a legal move: rule select"):   # ... which p1
        state.apply(select)                            # may not select now (G5)
    replay(gerry, state.trace())                       # and nothing was recorded
    kuhn_a, kuhn_b = (load(str(RULESETS / "classics" / "kuhn_poker.gdl")) for _ in "ab")
    a, b = kuhn_a.new_state(1), kuhn_b.new_state(1)
    jack = a.chance_outcomes()[0][0]
    a.apply(jack)
    b.apply(b.chance_outcomes()[0][0])
    with pytest.raises(MoveError, match="'random J' is not one of this chance event's"):
        a.apply(jack)                                  # the J is gone: index 0 is the Q now
    a.apply(a.chance_outcomes()[0][0])
    b.apply(b.chance_outcomes()[0][0])
    b.apply(a.legal_moves()[0])                        # another load's Move: by its text
    assert b.history[-1][1] == a.legal_moves()[0].text and b.to_move()[0].name == "p2"


def test_apply_joint_checks_moves_made_elsewhere_before_committing_any():
    from gdl.errors import MoveError
    game = game_of("dds-small")
    state = game.new_state(1)
    later = state.clone()
    while not any(m.text.startswith("cut") for m in later.legal_moves("p2")):
        later.apply_joint([later.legal_moves(seat)[0] for seat in later.to_move()])
    cut = next(m for m in later.legal_moves("p2") if m.text.startswith("cut"))
    with pytest.raises(MoveError, match="'cut"):
        state.apply_joint([state.legal_moves("p1")[0], cut])
    assert state.committed() == []


@pytest.mark.parametrize("call, message", [
    (lambda g, s: s.undo("x"), "undo takes a whole number of steps"),
    (lambda g, s: replay(g, s.trace(), upto=-1), "upto is a number of steps from 0"),
    (lambda g, s: g.new_state("abc"), "a seed is a whole number or None"),
    (lambda g, s: Game(g.ruleset, [("size", 3)]), "options are given as a mapping"),
    (lambda g, s: g.state_from_json({**s.to_json(), "node": ["bogus"]}), "'node' must be"),
    (lambda g, s: g.state_from_json({**s.to_json(), "frame": [{"player": -1}] * len(
        s.frame)}), "-1 is not a number from 0"),
])
def test_the_api_called_wrongly_says_so(call, message):
    from gdl.errors import GdlError
    game = game_of("gerry")
    state = game.new_state(1)
    state.apply(state.sample_chance(random.Random(1)))
    with pytest.raises(GdlError, match=message):
        call(game, state)


def test_sees_and_unseen_take_seat_names_and_card_texts():
    game = game_of("gerry")
    state = game.new_state(0)
    seat = game.seat("p1")
    assert state.unseen("p1") == state.unseen(seat)
    card = state.unseen(seat)[0]
    assert state.sees("p1", card) is state.sees(seat, card) is False
    assert state.sees(None, card.text) is True


def test_sees_a_card_text_if_it_sees_any_of_its_twins():
    # the text stood for the first twin: the answer changed with which twin lay where,
    # between two states that are equal
    from interpreter import load_text
    game = load_text(TWIN_CARDS)
    ones = [c for c in game.prog.cards if c.text == "1"]
    for up, down in (ones, ones[::-1]):
        state = game.new_state(0)
        state.place([down], "deck", "down")
        state.place([up], "heap", "up")
        assert state.sees("p1", "1") is True and state.sees("p1", "2") is False
        assert state.sees("p1", up) and not state.sees("p1", down)


def test_a_placed_position_is_undone_to_but_not_past_and_has_no_trace():
    # undo replayed the trace, which has no placement: the placed card went back to the
    # deck; trace() and the laws' replay told of another position
    from gdl.errors import MoveError, TraceError
    from gdl.testing import law_problems
    from interpreter import load
    game = load(str(RULESETS / "classics" / "kuhn_poker.gdl"))
    state = game.new_state(1)
    for _ in range(2):
        state.apply(state.chance_outcomes()[0][0])
    state.place(["K"], "hand[p1]", "down")
    placed, key = state.view(None), state.key()
    assert law_problems(state) == []
    state.apply("pass")
    copy = game.state_from_json(state.to_json())
    state.undo(1)
    assert state.view(None) == placed and state.key() == key
    with pytest.raises(MoveError, match=r"built with place\(\) \(or two cards swapped\) "
                                        "after step 2, which no trace can replay; at most 0 "
                                        "can be undone"):
        state.undo(1)
    with pytest.raises(TraceError, match="built with place"):
        state.trace()
    with pytest.raises(MoveError, match="at most 0 can be undone"):   # its steps are gone
        copy.undo(1)
    # its keys were of the game replayed from the start, without the placement
    assert [copy.infoset_key(p) for p in game.seats] == \
        [game.state_from_json(copy.to_json()).infoset_key(p) for p in game.seats]
    assert copy.observation_log("p1") == []
    copy.apply("bet")
    assert copy.undo(1) is None and copy.view(None) == game.state_from_json(
        copy.to_json()).view(None)


def test_a_swapped_copy_is_a_position_no_trace_replays():
    """`gdl.testing.swapped` changes the position outside the rules, as `place` does: an
    undo goes back to it and no further (it used to replay the unswapped deal), its
    trace is refused, and the seats' keys go on from the swapped cards."""
    from gdl.errors import MoveError, TraceError
    from gdl.testing import swapped
    from interpreter import load
    game = load(str(RULESETS / "classics" / "leduc_poker.gdl"))
    state = game.new_state(0)
    rng = random.Random(2)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    mine = state.cards_in("hand[p1]")[0]
    other = next(c for c in state.unseen("p1") if c.text != mine.text)
    copy = swapped(state, mine, other)
    assert copy.cards_in("hand[p1]") == [other] and state.cards_in("hand[p1]") == [mine]
    key = copy.key()
    copy.apply(copy.legal_moves()[0])
    copy.undo(1)
    assert copy.key() == key and copy.cards_in("hand[p1]") == [other]
    with pytest.raises(MoveError, match="at most 0 can be undone"):
        copy.undo(1)
    with pytest.raises(TraceError, match="or two cards swapped"):
        copy.trace()
    assert other.text in copy.infoset_key("p1") and mine.text not in \
        copy.infoset_key("p1").splitlines()[-1]


def test_a_broken_law_of_a_placed_position_is_told_without_a_trace(monkeypatch):
    # LawBroken asked the placed state for its trace: a TraceError instead of the problem
    from gdl import laws
    state = game_of("gerry").new_state(0)
    state.place(["AC"], "stock")
    monkeypatch.setattr(laws, "law_problems", lambda *args: ["[some law] broken"])
    with pytest.raises(laws.LawBroken, match="some law") as info:
        laws.check_laws(state)
    assert info.value.trace is None


def test_a_copy_for_playouts_of_an_observing_state_keeps_no_logs_but_the_same_keys():
    # an observing state's rollouts wrote every seat's view at every step
    game = game_of("dds")
    state, rng = game.new_state(3, observe=True), random.Random(3)
    for _ in range(6):
        state.apply(state.random_move(rng, state.to_move()[0]), state.to_move()[0])
    copy = state.clone_for_playout()
    assert copy.obs is None and state.obs is not None and copy == state
    assert [copy.infoset_key(p) for p in game.seats] == \
        [state.infoset_key(p) for p in game.seats]
    copy.random_run(random.Random(1), 10_000)
    assert copy.is_terminal() and not state.is_terminal()
    state.place(["B"], "deck[p1]", "down")
    assert state.clone_for_playout().obs is not None      # no history replays a placement


def test_an_observing_state_goes_on_observing_after_undo():
    # undo replayed without observe: each key after it replayed the whole game
    game = game_of("dds")
    state, rng = game.new_state(3, observe=True), random.Random(3)
    for _ in range(8):
        state.apply(state.random_move(rng, state.to_move()[0]), state.to_move()[0])
    state.undo(2)
    assert state.obs is not None
    plain = replay(game, state.trace())
    assert [state.infoset_key(p) for p in game.seats] == \
        [plain.infoset_key(p) for p in game.seats]


def test_a_source_of_chance_that_is_not_a_random_is_said_so():
    # an AttributeError: 'int' object has no attribute 'randrange'
    from gdl.errors import MoveError
    state = game_of("gerry").new_state(1)
    for call in (lambda: state.sample_chance(3), lambda: state.chance_step(None),
                 lambda: state.random_run(3, 10)):
        with pytest.raises(MoveError, match="the source of chance must be a random.Random"):
            call()
    while state.is_chance():
        state.chance_step(random.Random(1))
    with pytest.raises(MoveError, match="not int 3"):
        state.random_move(3)


def test_place_takes_one_card_text_as_one_card():
    # "KH" was read letter by letter: "no card 'K'"
    state = game_of("gerry").new_state(0)
    state.place("AC", "stock", face="up")
    assert state.cards_in("stock")[0].text == "AC"


def test_a_chance_outcome_given_as_its_text_says_to_give_the_outcome():
    from gdl.errors import MoveError
    state = game_of("gerry").new_state(1)
    outcome = state.sample_chance(random.Random(1))
    with pytest.raises(MoveError, match="apply one of chance_outcomes.. or sample_chance.rng., "
                                        "an outcome, not its text"):
        state.apply(outcome.text)
    with pytest.raises(MoveError, match=r"no move can be made now \(chance acts here\)"):
        state.parse_move(outcome.text)


def test_place_refuses_a_facing_other_than_up_or_down():
    from gdl.errors import MoveError
    state = game_of("gerry").new_state(0)
    with pytest.raises(MoveError, match="face is 'up' or 'down', not 'sideways'"):
        state.place(["AC"], "stock", face="sideways")


def test_states_of_games_with_other_options_are_never_equal():
    # the same position under another line rule has another future: not one state
    plain, other = load_game(GERRY), load_game(GERRY, line_rule="plurality")
    assert plain.new_state(1).key() == other.new_state(1).key()
    assert plain.new_state(1) != other.new_state(1)
    assert plain.new_state(1) == load_game(GERRY).new_state(1) == plain.new_state(1)


@pytest.mark.parametrize("module, missing, says", [
    ("interpreter.integrations.openspiel", "pyspiel", "pip install 'gdl[openspiel]'"),
    ("interpreter.integrations.pettingzoo", "pettingzoo", "pip install 'gdl[pettingzoo]'"),
])
def test_an_integration_without_its_extra_says_how_to_install_it(monkeypatch, module,
                                                                 missing, says):
    import importlib
    import sys
    monkeypatch.setitem(sys.modules, missing, None)      # as if not installed
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ImportError, match=re.escape(says)):
        importlib.import_module(module)


def test_a_step_whose_rules_fail_leaves_the_state_as_it_was():
    # the history kept the move and the node was cleared: every later call raised a
    # bare TypeError
    from gdl.errors import RuleError
    from interpreter import load_text
    game = load_text('''game "t"
players 2
var x: int = 0
action a(k: 1..2):
    x = 10 / (k - 1)
flow:
    simultaneously p in players: a
    choose p1: a
    draw
''')
    for observe in (False, True):
        state = game.new_state(1, observe=observe)
        state.apply("a 2", "p1")
        before = (state.key(), state.trace(), state.infoset_key("p2"))
        with pytest.raises(RuleError, match="division by zero"):
            state.apply("a 1", "p2")            # resolves the decision: p2's move fails
        assert (state.key(), state.trace(), state.infoset_key("p2")) == before
        assert (state.obs is not None) == observe
        state.apply("a 2", "p2")
        with pytest.raises(RuleError, match="division by zero"):
            state.apply("a 1")
        assert [m.text for m in state.legal_moves()] == ["a 1", "a 2"]
        state.apply("a 2")
        assert state.is_terminal()


def test_the_tail_of_a_log_is_the_log_s_last_lines():
    # the REPL shows each step as the `as` seat saw it from the log's end: the whole log
    # made at every step made a session quadratic (35 s for 16,000 steps)
    from interpreter.observe import observation_tail
    for path, options in ((DDS, {"max_rounds": "2"}), (GERRY, {"size": "3"})):
        game = load_game(path, **options)
        state = game.new_state(seed=5, observe=True)
        rng = random.Random(5)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
            else:
                seat = state.to_move()[0]
                state.apply(rng.choice(state.legal_moves(seat)), seat)
            for seat in game.seats:
                log = state.observation_log(seat)
                for n in (1, 2, 3):
                    assert observation_tail(state, seat, n) == log[-n:]


def test_an_expression_evaluated_again_is_compiled_once_and_placed_in_its_own_text():
    # it was parsed, checked and compiled at every call: 534 calls a second
    from gdl.errors import GdlError
    from interpreter import game as game_module
    g = load_game(GERRY)
    s = g.new_state(seed=1)
    assert g.evaluate("count(stock) + 1", s) == g.evaluate("count(stock) + 1", s)
    assert "count(stock) + 1" in g._evaluated
    for _ in range(2):                  # the second time from the kept function
        with pytest.raises(GdlError) as info:
            g.evaluate("1 / (count(stock) - count(stock))", s)
        assert str(info.value).startswith("<expression>:1:1: rule error: division by zero\n"
                                          "    1 / (count(stock) - count(stock))")
    for i in range(game_module.EVALUATED_KEPT + 1):
        g.evaluate(f"{i} + 1", s)
    assert len(g._evaluated) <= game_module.EVALUATED_KEPT


PLACE_KEY = '''game "Place key"
players 2
card n: 1..4
cards into deck: card(n: i) for i in 1..4
zone deck: stack
zone hand[player]: set, seen by owner
action pick(c: hand[me]):
    move c to deck
flow:
    shuffle deck
    deal 1 from deck to hand[p] for p in players
    choose p1: pick
    choose p2: pick
    end game
'''


@pytest.mark.parametrize("observe", [False, True])
def test_a_placed_card_is_in_the_seats_keys_and_logs(observe):
    # a placement left the information-set key as it was, and without observe the log's
    # replay from the trace (no placement in it) failed at the next move as a MoveError
    from interpreter import load_text
    game = load_text(PLACE_KEY)
    plain = game.new_state(seed=0, observe=observe)
    plain.apply(plain.chance_outcomes()[0][0])
    placed = plain.clone()
    spare = placed.cards_in("deck")[0]
    placed.place([spare], "hand[p1]", face="down")
    assert placed.view("p1") != plain.view("p1")
    assert placed.infoset_key("p1") != plain.infoset_key("p1")
    assert placed.infoset_key("p2") != plain.infoset_key("p2")   # p2 sees a card come
    placed.apply(f"pick {spare.text}")
    assert placed.observation_log("p1") == ["shuffle deck", f"p1: pick {spare.text}"]
    assert placed.observation_log("p2") == ["shuffle deck", "p1: pick ?"]


def test_why_and_parse_move_say_when_the_seat_named_is_not_to_move():
    # why_illegal called a move of a seat not to move legal, or judged it as if the seat
    # were choosing; parse_move said "no move can be made now"
    from gdl.errors import MoveError
    from interpreter import load_text
    s = load_text(PLACE_KEY).new_state(seed=0)
    s.apply(s.chance_outcomes()[0][0])
    held = s.cards_in("hand[p2]")[0].text
    assert s.why_illegal(f"pick {held}", "p2") == "p2 is not to move now (to move: p1)"
    with pytest.raises(MoveError, match=r"not a legal move: p2 is not to move now"):
        s.parse_move(f"pick {held}", "p2")


def test_a_deadlocks_why_passes_a_value_whose_later_domain_is_empty():
    # the first card's `g` had no value, so the why said "its g has no value here", where
    # the other cards' had values and a require was what stopped them (the review)
    from gdl.errors import RuleError
    from interpreter import load_text
    game = load_text('''game "why"
players 2
card v: 1..3
cards into deck: card(v: i) for i in 1..3
zone deck: stack
zone hand[player]: set, seen by owner
var cap: int = 0
action play(c: hand[me], g: [x for x in 1..3 if x < c.v]):
    require g > 5 + cap "above the cap"
    move c to deck
action none_left(k: [x for x in 1..3 if x > 5]):
    pass
flow:
    deal 3 from deck to hand[p] for p in [p1]
    choose p1: play, none_left
    draw
''')
    state = game.new_state(0)
    assert state.why_no_moves() == [
        'play, e.g. play 2 1: rule play, line 9: require g > 5 + cap "above the cap"',
        "none_left: its k has no value here"]
    with pytest.raises(RuleError) as info:
        state.legal_moves()
    assert info.value.notes == tuple(state.why_no_moves())


def test_a_sampled_shuffle_of_twins_is_one_of_the_listed_outcomes():
    # 743 of 1000 draws were outcomes equal to none listed (their twins' ids in another
    # order), so `dict(chance_outcomes())[sample_chance(rng)]` raised KeyError
    from collections import Counter
    game = load_game(RULESETS / "double_down.gdl", players="2", deck="1:2 2:2",
                     hand_size="1", chips_each="1")
    state = game.new_state(seed=0)
    listed = dict(state.chance_outcomes())
    assert len(listed) == 6 and set(listed.values()) == {Fraction(1, 6)}
    rng = random.Random(0)
    drawn = Counter(state.sample_chance(rng) for _ in range(6000))
    assert set(drawn) == set(listed)
    assert all(900 < n < 1100 for n in drawn.values()), drawn


def test_states_and_games_pickle_and_copy():
    # neither pickled ("Can't pickle local object"), deepcopy failed, and copy.copy
    # shared the state's lists: playing on the copy changed the original
    import copy
    import pickle
    game = load_game(GERRY, size="3")
    state = game.new_state(seed=4)
    rng = random.Random(2)
    state.random_run(rng, 30)
    again = pickle.loads(pickle.dumps(state))
    assert again.key() == state.key() and again.history == state.history
    assert {k: str(v) for k, v in again.game.options.items()} == \
        {k: str(v) for k, v in game.options.items()}
    for s in (again, state):
        s.random_run(random.Random(9), 10)
    assert again.key() == state.key()
    for made in (copy.copy(state), copy.deepcopy(state)):
        before = state.key()
        made.random_run(rng, 5)
        assert state.key() == before and made.key() != before
    observing = game.new_state(seed=1, observe=True)
    observing.random_run(rng, 3)
    back = pickle.loads(pickle.dumps(observing))
    assert back.infoset_key("p1") == observing.infoset_key("p1")
    placed = game.new_state(seed=1)
    placed.place(["KH"], "cell[1,1]")       # no trace replays it: its snapshot is pickled
    assert pickle.loads(pickle.dumps(placed)).key() == placed.key()
