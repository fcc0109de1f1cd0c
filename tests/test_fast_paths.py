"""The speed paths give exactly what the plain paths give: `random_move` picks the move
`legal_moves` would at the same random index, requires that bound a parameter narrow its
range without changing the legal moves or `why_illegal`, and `new_state` clones one setup
without sharing anything between games."""
from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import FOUR_EACH, joint_and_applied
from gdl.errors import MoveError, RuleError
from interpreter import load, load_text
from interpreter.state import State

ROOT = Path(__file__).resolve().parent.parent / "rulesets"
PLAYED = sorted(p for p in ROOT.glob("*.gdl")) + sorted((ROOT / "classics").glob("*.gdl"))


def _decisions(game, seed, limit=400):
    """Yields (state, seat) at each decision of a random game (the state is live: use it
    before the next one)."""
    rng = random.Random(seed)
    state = game.new_state()
    for _ in range(limit):
        if state.is_terminal():
            return
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = state.to_move()[0]
        yield state, seat
        moves = state.legal_moves(seat)
        state.apply(moves[rng.randrange(len(moves))], seat)


@pytest.mark.parametrize("path", PLAYED, ids=lambda p: p.stem)
def test_random_move_is_the_move_at_the_same_random_index(path):
    game = load(str(path))
    checked = 0
    for seed in range(3):
        for n, (state, seat) in enumerate(_decisions(game, seed)):
            moves = state.legal_moves(seat)
            want = moves[random.Random(n).randrange(len(moves))]
            got = state.random_move(random.Random(n), seat)
            assert got.text == want.text
            assert got.action is want.action and got.args == want.args
            checked += 1
    if path.stem != "pescetti" and path.stem != "pescetti_inverse":
        assert checked > 0


def test_random_move_merges_identical_cards_like_legal_moves():
    # Double Down's deck holds identical cards: legal_moves offers the first card of each
    # kind, and random_move must pick among those very cards, never a twin of one.
    game = load(str(ROOT / "double_down.gdl"))
    checked = 0
    for state, seat in _decisions(game, 7, limit=60):
        moves = state.legal_moves(seat)
        offered = {id(a) for m in moves for a in m.args}
        picks = [state.random_move(random.Random(i), seat) for i in range(60)]
        assert all(id(a) in offered for m in picks for a in m.args)
        in_hand = state.cards_in(f"hand[{seat.name}]")
        if len({c.kind for c in in_hand}) < len(in_hand):      # twins in this hand
            checked += 1
    assert checked > 0


def test_random_move_refuses_a_seat_that_is_not_deciding():
    game = load(str(ROOT / "classics" / "kuhn_poker.gdl"))
    state = game.new_state()
    while state.is_chance():
        state.apply_chance(state.sample_chance(random.Random(1)))
    from gdl.errors import MoveError
    with pytest.raises(MoveError, match="turn"):
        state.random_move(random.Random(0), "p2")


BOUNDED = '''game "bounds"
players 2
option allow_zero: bool = false
var last: int = 0
action pick(k: 0..5, d: 0..7 - k):
    require d > 0 or allow_zero "d must be positive"
    require 4 >= d "at most 4"
    require k != 3 "not 3"
    last = 10 * k + d
action exact(n: 1..9):
    require n == 6 "only six"
    last = n
flow:
    choose p1: pick, exact
    win p1
'''


def _pairs(moves):
    return [tuple(m.args) for m in moves if m.action.name == "pick"]


def test_bounds_narrow_ranges_to_the_same_moves_in_the_same_order():
    strict = load_text(BOUNDED).new_state()
    want = [(k, d) for k in range(6) for d in range(8 - k)
            if d > 0 and 4 >= d and k != 3]
    assert _pairs(strict.legal_moves()) == want
    assert [m.text for m in strict.legal_moves() if m.action.name == "exact"] == ["exact 6"]
    loose = load_text(BOUNDED, {"allow_zero": "true"}).new_state()
    assert _pairs(loose.legal_moves()) == [(k, d) for k in range(6) for d in range(8 - k)
                                           if 4 >= d and k != 3]
    info = strict.game.prog.compiler.action_info["pick"]
    assert [len(s) for s in info.staged] == [0, 1, 0]      # only `k != 3` is still tested


def test_narrowed_bounds_still_explain_why_a_move_is_illegal():
    state = load_text(BOUNDED).new_state()
    assert "d must be positive" in state.why_illegal("pick 1 0")
    assert "at most 4" in state.why_illegal("pick 0 5")
    assert "only six" in state.why_illegal("exact 2")
    assert state.why_illegal("pick 2 3") is None


def test_new_states_share_nothing():
    game = load(str(ROOT / "gerry.gdl"))
    a, b = game.new_state(seed=1), game.new_state(seed=2)
    assert a.key() == b.key() and (a.seed, b.seed) == (1, 2)
    while not a.is_terminal() and len(a.history) < 5:
        if a.is_chance():
            a.apply_chance(a.sample_chance(random.Random(0)))
        else:
            a.apply(a.legal_moves()[0])
    assert a.history and not b.history
    assert game.new_state().key() == b.key()


def test_coverage_counts_the_setup_of_every_game(monkeypatch):
    # the setup runs once (it involves no chance); every later game adds its counts
    from interpreter.game import Game
    setups = []
    real = Game._setup
    monkeypatch.setattr(Game, "_setup", lambda game: setups.append(1) or real(game))
    game = load(str(ROOT / "pescetti.gdl"), coverage=True)
    first = game.new_state()
    once = dict(game.coverage)
    again = [game.new_state(), game.new_state()]
    thrice = game.coverage
    ran = [k for k, v in once.items() if v]
    assert ran and all(thrice[k] == 3 * once[k] for k in thrice)
    assert len(setups) == 1 and all(s.key() == first.key() for s in again)


def test_a_snapshot_is_read_without_running_the_setup():
    # state_from_json fills a blank state: no rule runs (coverage counts nothing more),
    # yet the state read back is the one snapshotted, mid-game
    game = load(str(ROOT / "pescetti.gdl"), {"mode": "random"}, coverage=True)
    state = game.new_state(3)
    state.random_run(random.Random(3), 60)
    counted = dict(game.coverage)
    back = game.state_from_json(json.loads(json.dumps(state.to_json())))
    assert game.coverage == counted
    assert back.key() == state.key() and back.to_json() == state.to_json()
    state.random_run(random.Random(4), 10**5)
    back.random_run(random.Random(4), 10**5)
    assert back.is_terminal() and back.vars == state.vars


def test_coverage_counts_are_the_same_in_generated_code(monkeypatch):
    # A counted statement is a line of the generated run (not a call that ends it): each
    # statement is counted as often as the plain closures count it.
    from interpreter import _fuse
    from interpreter.agents import AGENTS, play_out
    counts = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load(str(ROOT / "double_down.gdl"), coverage=True)
        for seed in range(3):
            play_out(game.new_state(), [AGENTS["random"]] * game.num_players,
                     random.Random(seed))
        counts[enabled] = dict(game.coverage)
    assert counts[True] == counts[False] and sum(counts[True].values()) > 1000


def test_a_listed_move_is_made_once_per_distinct_arguments():
    # legal_moves keeps an action's moves by their arguments: a later listing (here of a
    # clone, and after a step) hands back the same Move objects, equal to fresh ones
    from interpreter.values import Move
    game = load(str(ROOT / "double_dealing_shuffle.gdl"))
    state = game.new_state()
    seat = state.to_move()[0]
    first = state.legal_moves(seat)
    again = state.clone().legal_moves(seat)
    assert all(a is b for a, b in zip(first, again)) and len(first) == len(again) == 36
    assert [m.text for m in first] == [Move(m.action, m.args).text for m in first]
    assert first[0].text == "shuffle_packet 1 1" and first[-1].text == "shuffle_packet 8 1"
    first.clear()                           # the list is the caller's: nothing kept changes
    assert [m.text for m in state.legal_moves(seat)] == [m.text for m in again]
    state.apply(again[3], seat)
    other = state.to_move()[0]
    assert state.legal_moves(other)[3] is again[3]


def _plain_moves(state, seat):
    """The legal moves by definition: every combination of the declared domains (each
    evaluated with the earlier parameters bound) whose requires all hold, tested one by
    one with none of the staging, narrowing or memoising of `legal_moves`."""
    from interpreter.values import Card
    frame = state.frame
    out = []
    for info, _ in state.node[1].actions:
        frame[info.me_slot] = seat
        found = []

        def rec(i, args):
            if i == len(info.params):
                if all(req(state) for req, _, _ in info.requires):
                    found.append((info.name, args))
                return
            _, slot, domain = info.params[i]
            for v in list(domain(state)):
                frame[slot] = v
                rec(i + 1, args + (v,))
            frame[slot] = None
        rec(0, ())
        frame[info.me_slot] = None
        if state.prog.has_twins and found and any(isinstance(a, Card) for a in found[0][1]):
            seen, kept = set(), []
            for name, args in found:
                k = tuple(a.kind if isinstance(a, Card) else a for a in args)
                if k not in seen:
                    seen.add(k)
                    kept.append((name, args))
            found = kept
        out.extend(found)
    return out


@pytest.mark.parametrize("path", PLAYED, ids=lambda p: p.stem)
def test_legal_moves_are_the_declared_domains_filtered_by_the_requires(path):
    game = load(str(path))
    for seed in range(2):
        for state, seat in _decisions(game, 100 + seed, limit=300):
            got = [(m.action.name, tuple(m.args)) for m in state.legal_moves(seat)]
            assert got == _plain_moves(state, seat)


@pytest.mark.parametrize("path", PLAYED, ids=lambda p: p.stem)
def test_a_move_text_is_read_without_listing_every_move(path, monkeypatch):
    # parse_move reads a legal text against the domains, testing only the candidates it
    # names: the very Move the listing holds (the same twin: the listing's first of its
    # kind), without making the list; a text that names no legal move lists the moves to
    # say why
    game = load(str(path))
    checked = 0
    for seed in range(20):
        if checked > 40:
            break
        for state, seat in _decisions(game, 200 + seed, limit=120):
            moves = state.legal_moves(seat)
            with monkeypatch.context() as patch:       # not called on the way
                patch.setattr(State, "legal_moves", None)
                for m in moves:
                    got = state.parse_move(m.text, seat)
                    assert got.text == m.text and got.action is m.action
                    assert all(a is b for a, b in zip(got.args, m.args))
                    checked += 1
            with pytest.raises(MoveError):
                state.parse_move(moves[0].text.split(" ")[0] + " nothing", seat)
    assert checked > 20 or not any(_decisions(game, 0))     # (Pescetti decides nothing)


def test_a_typed_move_may_space_its_brackets_and_commas():
    # spaces beside a bracket or a comma inside one are dropped (a canonical text has
    # none, and is read without that rewriting); spaces outside brackets still part words
    game = load(str(ROOT / "gerry.gdl"))
    state = game.new_state(0)
    rng = random.Random(0)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    for typed in ("select cell[1,2]", "select cell[ 1 , 2 ]", "select  cell [1, 2]"):
        assert state.parse_move(typed).text == "select cell[1,2]"
        assert state.why_illegal(typed) is None     # 'select takes 1 argument: c'
    # echoed as typed (tidied, `play 5H [4D, 1C]` read `play 5H[4D,1C]`)
    with pytest.raises(MoveError, match=r"'select cell\[ 9, 9 \]' is not a legal move: "
                                        r"'cell\[ 9, 9 \]' is not a possible c here"):
        state.parse_move("select cell[ 9, 9 ]")


def test_a_number_in_a_range_is_read_without_going_through_the_range(monkeypatch):
    # a range's value (a constant range's, `call`, or a run-time one's, `raise`) is the
    # number the word spells, if the range holds it: a bid of 99,999 is read without a
    # text made for each number before it; words that int() reads but no number's text
    # is (a sign, a leading zero, an underscore) name no move, as the listing says
    import interpreter.state as engine
    text = '''game "Bids"
players 1
option top: 1..100000 = 100000
var bid: int = 0
action raise(n: 1..top + bid, m: 0..top + bid):
    require m < 3
    bid = n + m
action call(n: 1..top):
    bid = n
flow:
    choose p1: raise, call
    draw
'''
    state = load_text(text).new_state()
    texts = []
    monkeypatch.setattr(engine, "text_of", lambda v: (texts.append(v), str(v))[1])
    monkeypatch.setattr(engine, "str", lambda v: (texts.append(v), str(v))[1],
                        raising=False)
    assert state.parse_move("call 99999").args == (99999,)
    assert state.parse_move("raise 99999 2").args == (99999, 2)
    assert len(texts) < 10
    monkeypatch.undo()
    state = load_text(text, {"top": 20}).new_state()     # a short list for the errors
    assert state.parse_move("raise 20 2").args == (20, 2)
    for word in ("+5", "05", "5_0", "0", "21", "five", "\u0665"):
        with pytest.raises(MoveError):
            state.parse_move("call " + word)
    with pytest.raises(MoveError):
        state.parse_move("raise 5 3")           # its require fails


def test_a_move_text_whose_words_do_not_split_it_is_read_from_the_list():
    # argument texts with spaces: the words cannot say where one ends, so the move is
    # the listing's first with the text (here two moves share it: the law of unique
    # texts would say so), as before
    game = load_text('''game "Words"
players 1
var said: text = ""
action say(t: ["a b", "c"]):
    said = t
action pick(a: ["x y", "x"], b: ["z", "y z"]):
    said = a + b
flow:
    choose p1: say, pick
    draw
''')
    state = game.new_state()
    assert state.parse_move("say a  b").args == ("a b",)
    assert state.parse_move("say c").args == ("c",)
    assert state.parse_move("pick x y z").args == ("x y", "z")
    assert state.parse_move("pick x z").args == ("x", "z")
    with pytest.raises(MoveError):
        state.parse_move("say a")


HOISTED = '''game "hoist"
players 2
enum colour = red "R", blue "B"
card colour: colour, n: 1..3
cards into stock: card(colour: c, n: k) for c in colour for k in 1..3
zone stock: stack
zone hand[player]: set, face up
var led: card? = none
action lead(c: hand[me]):
    require all(x.n != c.n or x.colour != c.colour for x in hand[opponent(me)]) or count(hand[me]) > 0 "any"
    led = c
    move c to stock
action follow(c: hand[me]):
    require led != none and c.n + led.n > 2 "above two"
    require c.colour == led.colour or any(x != c and x.colour != led.colour for x in hand[me]) "another off colour"
    move c to stock
flow:
    shuffle stock
    deal 3 from stock to hand[p] for p in players
    choose p1: lead
    choose p2: follow
    win p1
'''


def test_hoisted_require_parts_give_the_same_moves_in_every_state():
    game = load_text(HOISTED)
    info = game.prog.compiler.action_info["follow"]
    assert info.hoisted
    checked = 0
    for seed in range(40):
        state = game.new_state()
        state.apply_chance(state.sample_chance(random.Random(seed)))     # the shuffle
        for lead in [m.text for m in state.legal_moves()]:
            s = state.clone()
            s.apply(lead)
            want = _plain_moves(s, s.to_move()[0])
            if want:
                assert [(m.action.name, tuple(m.args)) for m in s.legal_moves()] == want
                checked += 1
    assert checked >= 3


NESTED = '''game "nested"
players 3
card n: 1..6
cards into stock: card(n: k) for k in 1..6
zone stock: stack
zone hand[player]: set, face up
var turn: int = 0
def held(p: player) = [c for c in hand[p] if c.n > turn]
def reaches(p: player, k: int) = count(c for c in held(p) if c.n >= k) > 0
action ask(q: [x for x in players if x != me], k: 1..6):
    require reaches(q, k) "q holds a card of k or more"
    move top(stock) to hand[me]
action wait():
    move top(stock) to hand[me]
flow:
    shuffle stock
    deal 1 from stock to hand[p] for p in players
    while count(stock) > 0:
        choose p1: ask, wait
        turn += 1
    draw
'''


def test_a_def_called_with_the_looped_parameter_keeps_its_parts_that_skip_it():
    # `reaches(q, k)` in a require looping over k worked out `held(q)` again for every
    # k; the part that reads only q is now worked out once per q (a def body compiled
    # for the call site), with the same moves in every state
    game = load_text(NESTED)
    assert game.prog.compiler.action_info["ask"].hoisted
    assert game.prog.compiler.fresh_bodies == 1
    checked = 0
    for seed in range(30):
        state = game.new_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance():
                state.apply_chance(state.sample_chance(rng))
                continue
            want = _plain_moves(state, state.to_move()[0])
            got = [(m.action.name, tuple(m.args)) for m in state.legal_moves()]
            assert got == want
            checked += 1
            state.apply(state.legal_moves()[rng.randrange(len(got))])
    assert checked >= 60


FLAGS = '''game "flags"
players 2
card v: 1..6, k: 1..3
cards into deck: card(v: v, k: k) for k in 1..3 for v in 1..6
zone deck: stack
zone hand[player]: set, seen by owner
zone side[1..4, player]: stack, face up
var closed[1..4]: bool = false
var last: int = 0
action play(c: hand[me], f: 1..4):
    require not closed[f] and count(side[f, me]) < 3 "open, with room"
    require f != last "not where the last card went"
    move c to side[f, me]
    last = f
    if count(side[f, p1]) == 3 and count(side[f, p2]) == 3:
        closed[f] = true
action match(c: hand[me], f: 1..4):
    require count(side[f, me]) > 0 and top(side[f, me]).v == c.v
    move c to side[f, me]
flow:
    shuffle deck
    deal 4 from deck to hand[p] for p in players
    let p = p1
    while count(hand[p]) > 0:
        choose p: play, match
        if count(deck) > 0:
            move top(deck) to hand[p]
        p = opponent(p)
    draw
'''


def test_last_values_that_read_no_earlier_parameter_are_listed_once_and_are_the_same():
    # `play`'s flags were filtered again for every card in hand (Battle Line's play was
    # 2.7 times slower than its `f: [g for g in 1..9 if ...]` spelling)
    game = load_text(FLAGS)
    infos = game.prog.compiler.action_info
    assert infos["play"].last_fixed and not infos["match"].last_fixed
    seen = 0
    for seed in range(30):
        for state, seat in _decisions(game, seed, limit=60):
            got = [(m.action.name, tuple(m.args)) for m in state.legal_moves(seat)]
            assert got == _plain_moves(state, seat)
            if got:
                want = got[random.Random(seen).randrange(len(got))]
                pick = state.random_move(random.Random(seen), seat)
                assert (pick.action.name, tuple(pick.args)) == want
            seen += 1
    assert seen > 300


ELSE_ROWS = '''game "else rows"
players 2
enum rank = two "2", three "3", king "K", ace "A"
var n: int = 0
var got: int = 0
table points(r: rank):
    ace => 11
    king => 4
    else => ord(r) + 1
table live(r: rank):
    ace => 1
    else => n
table part(r: rank, k: 0..2):
    ace, 0 => 7
    else => 12 / (k - ord(r))
action pick(r: rank, k: 0..2):
    got = points(r) * 100 + live(r) * 10 + part(r, k)
    n += 1
flow:
    repeat 3:
        choose p1: pick
    draw
'''


def test_an_else_row_of_the_key_alone_is_written_into_the_table_as_the_rows_are():
    # a look-up no row answered worked the else row out each time (Briscola's points,
    # `else => 0`, 10% of its playout)
    game = load_text(ELSE_ROWS)
    compiler = game.prog.compiler
    state = game.new_state()
    state.apply("pick 3 2")           # filled before any look-up: nothing to compute
    rank = {m.args[0].name: m.args[0] for m in state.legal_moves()}
    points = compiler.table_cache["points"][0]
    assert {k[0].name: v for k, v in points.items()} == {
        "ace": 11, "king": 4, "two": 1, "three": 2}
    assert len(compiler.table_cache["live"][0]) == 1         # reads a variable: not filled
    part = compiler.table_cache["part"][0]
    assert (rank["three"], 0) in part and (rank["three"], 1) not in part    # 12 / 0
    assert game.evaluate("got", state) == 200 + 0 + 12
    state.apply("pick K 1")
    assert game.evaluate("got", state) == 400 + 10 - 12
    with pytest.raises(RuleError, match="division by zero|divide"):
        state.apply("pick 3 1")


@pytest.mark.parametrize("options", [{"shuffle_kind": "block"},
                                     {"shuffle_kind": "block", "allow_identity_shuffle": "true"}])
def test_three_parameter_moves_are_the_declared_domains_filtered_by_the_requires(options):
    game = load(str(ROOT / "double_dealing_shuffle.gdl"), options)
    seen = 0
    for state, seat in _decisions(game, 5, limit=200):
        got = [(m.action.name, tuple(m.args)) for m in state.legal_moves(seat)]
        assert got == _plain_moves(state, seat)
        want = state.legal_moves(seat)[random.Random(seen).randrange(len(got))]
        assert state.random_move(random.Random(seen), seat).text == want.text
        seen += 1
    assert seen > 20


EXCLUDED = '''game "exclude"
players 2
card n: 1..3
cards into stock: card(n: k) for k in 1..3
zone stock: stack
zone hand[player]: stack, face up
zone pile: stack, face up
action pick(c: hand[me]):
    require c != top(pile) "not the top of the pile"
    move c to pile
action wait():
    pass
flow:
    choose p1: pick, wait
    deal 1 from stock to hand[p] for p in players
    move top(stock) to pile
    choose p2: pick, wait
    win p1
'''


def test_an_excluded_value_is_only_computed_when_there_are_candidates():
    game = load_text(EXCLUDED)
    assert game.prog.compiler.action_info["pick"].exclude is not None
    state = game.new_state()
    # p1 holds nothing: `top(pile)` of the empty pile is never computed
    assert [m.text for m in state.legal_moves()] == ["wait"]
    assert state.random_move(random.Random(0)).text == "wait"
    state.apply("wait")
    # p1 got 3, p2 got 2 and 1 went onto the pile: p2 may pick its 2
    assert [m.text for m in state.legal_moves()] == ["pick 2", "wait"]
    state.place(["3"], "pile")          # now p2's card is not the pile's top either
    assert [m.text for m in state.legal_moves()] == ["pick 2", "wait"]
    state.place(["2"], "pile")          # p2's only card went onto the pile: nothing to pick
    assert [m.text for m in state.legal_moves()] == ["wait"]


CONSTANT_EXCLUDED = '''game "constant exclude"
players a, b
var last: int = 2
var twice: int = 0
action go(t: 1..4) "not the last number":
    require t != last "the last number"
    last = t
action hop(t: [1, 3, 1, 4]) "a domain with a value twice":
    require t != last "the last number"
    twice = t
flow:
    repeat 3:
        choose a: go, hop
    end game
'''


def test_a_value_left_out_of_a_constant_domain_is_left_out_as_a_require_would(monkeypatch):
    # A constant domain of distinct values (`go`) looks up what is left without the
    # excluded value; `hop`'s domain holds 1 twice, and both must go when 1 is excluded.
    from interpreter import _fuse
    from interpreter._actions import _without_each
    texts = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(CONSTANT_EXCLUDED)
        info = game.prog.compiler.action_info
        assert _without_each(info["go"].enum_params[0][2]) is not None
        assert _without_each(info["hop"].enum_params[0][2]) is None
        state = game.new_state()
        seen = [[m.text for m in state.legal_moves()]]
        for move in ("go 1", "go 3", "go 4"):
            state.apply(move)
            seen.append([m.text for m in state.legal_moves()] if not state.is_terminal()
                        else None)
        texts[enabled] = seen
    assert texts[True] == texts[False] == [
        ["go 1", "go 3", "go 4", "hop 1", "hop 3", "hop 1", "hop 4"],
        ["go 2", "go 3", "go 4", "hop 3", "hop 4"],
        ["go 1", "go 2", "go 4", "hop 1", "hop 1", "hop 4"],
        None]


def _trace_of(game, seed, agent):
    from interpreter.agents import play_out
    state = game.new_state()
    play_out(state, [agent] * game.num_players, random.Random(seed))
    return state.trace_texts(), state.returns() if state.is_terminal() else None


@pytest.mark.parametrize("path", PLAYED, ids=lambda p: p.stem)
def test_random_steps_play_as_random_move_then_apply(path):
    # play_out takes `random_step`/`chance_step`/`random_joint_step` for the random
    # agent; an agent that is the same function under another name goes through
    # random_move, apply and sample_chance/apply_chance, and the games must be the very
    # same (Double Dealing Shuffle and Evil Deal have simultaneous decisions).
    from interpreter.agents import random_agent
    game = load(str(path))
    for seed in range(4):
        fast = _trace_of(game, seed, random_agent)
        slow = _trace_of(game, seed, lambda st, seat, rng: random_agent(st, seat, rng))
        assert fast == slow


class _OnlyRandrange:
    """A random source with `randrange` alone (not a random.Random)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def randrange(self, n):
        return self.rng.randrange(n)

    def shuffle(self, items):
        self.rng.shuffle(items)


@pytest.mark.parametrize("name", ["classics/leduc_poker.gdl", "gerry.gdl"])
def test_a_random_source_need_only_have_randrange(name):
    # Leduc's decisions are among moves without parameters, Gerry's among moves with
    # them (the generated pick draws by bits from a random.Random, else by randrange).
    from interpreter.agents import AGENTS
    game = load(str(ROOT / name))
    for seed in range(5):
        plain = _trace_of(game, seed, AGENTS["random"])
        state = game.new_state()
        from interpreter.agents import play_out
        play_out(state, [AGENTS["random"]] * 2, _OnlyRandrange(seed))
        assert state.trace_texts() == plain[0]


def test_random_outcomes_of_equal_values_of_other_types_keep_their_texts():
    # `1` and `true` are equal as dict keys: outcomes made once per value must not mix
    # them up when two random choices draw the same index.
    game = load_text('''game "t"
players a, b
var n: int = 0
var f: bool = false
flow:
    random x in [1, 2]
    n = x
    random y in [true, false]
    f = y
    end game
''')
    state = game.new_state()
    for _ in range(2):
        state.apply_chance(state.chance_outcomes()[0][0])
    assert state.trace_texts() == ["chance: random 1", "chance: random true"]


def test_run_time_values_compare_by_identity_in_c():
    # A class defining any comparison (`__lt__`) makes every `==`, `!=` and `in` on its
    # objects a Python-level call; the engine compares seats, members, cards and zones
    # constantly (requires, exclusions, lookups), so none may define one.
    from interpreter.values import Card, Member, Seat, ZoneRef
    for cls in (Seat, Member, Card, ZoneRef):
        for name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            assert getattr(cls, name) is getattr(object, name), (cls.__name__, name)


def test_a_require_that_fails_to_evaluate_leaves_no_me_behind(monkeypatch):
    # The generated list of a site's parameterless moves binds `me` per action and
    # clears it as it goes; a require that raises must still leave the slot empty (the
    # frame is part of the state's key), as the plain closures do: in a draw, and in
    # `legal_moves`, which lists such a site by the same generated list (at the site's
    # first listing and after).
    from gdl.errors import RuleError
    from interpreter import _fuse
    text = '''game "t"
players a, b
zone pile: stack
var n: int = 0
action pass() "always":
    n += 1
action take() "needs a card":
    require count(pile) >= 0 and faceup(top(pile)) "a card"
    n += 1
flow:
    choose a: pass, take
    end game
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        state = load_text(text).new_state()
        before = state.key()
        for draw in (lambda: state.legal_moves(), lambda: state.random_move(random.Random(0)),
                     lambda: state.legal_moves()):
            with pytest.raises(RuleError, match="empty"):
                draw()
            assert state.key() == before


def test_legal_moves_without_parameters_are_a_new_list_each_call():
    # legal_moves lists a decision whose actions have no parameters as a draw does: the
    # site's fixed moves (Kuhn's `pass, bet`), or its generated list where some have
    # requires.  The fixed list is the site's own, so a caller gets a copy.
    kuhn = load(str(ROOT / "classics" / "kuhn_poker.gdl")).new_state()
    kuhn.random_run(random.Random(0), 2)           # the deal: p1 decides
    moves = kuhn.legal_moves()
    assert [m.text for m in moves] == ["pass", "bet"] and kuhn.legal_moves() is not moves


@pytest.mark.parametrize("name", ["gerry.gdl", "evil_deal.gdl"])
def test_random_steps_keep_the_same_observations_as_random_move_then_apply(name):
    # `random_step` applies a drawn (action, arguments) without making a Move, except to
    # redact it for each seat when the state keeps observation logs.
    from interpreter.agents import play_out, random_agent
    from interpreter.observe import observations
    game = load(str(ROOT / name))
    for seed in range(3):
        logs = []
        for agent in (random_agent, lambda st, seat, rng: random_agent(st, seat, rng)):
            state = game.new_state(observe=True)
            play_out(state, [agent] * game.num_players, random.Random(seed))
            logs.append([state.observation_log(s.name) for s in game.seats])
            if name == "gerry.gdl":        # one record per step, after the setup's view
                assert len(observations(state, "p1")) == len(state.history) + 1
        assert logs[0] == logs[1] and any(logs[0][0])


def test_a_require_that_fails_while_listing_moves_with_parameters_leaves_no_slot_behind(
        monkeypatch):
    # A site whose actions have parameters is drawn from by a generated pick (one per
    # site); a require that raises on the way must leave `me` and the parameters' slots
    # empty, as `_random_pick` does, whichever way the move is drawn.
    from gdl.errors import RuleError
    from interpreter import _fuse
    text = '''game "t"
players a, b
zone pile: stack
var n: int = 0
action pass() "always":
    n += 1
action take(k: 1..3) "needs a card":
    require k < 3 or faceup(top(pile)) "a card"
    n += k
flow:
    choose a: pass, take
    end game
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        state = game.new_state()
        before = state.key()
        with pytest.raises(RuleError, match="empty"):
            state.random_move(random.Random(0))
        assert state.key() == before
        with pytest.raises(RuleError, match="empty"):
            state.random_step(random.Random(0))
        assert state.key() == before
        site = state.node[1]
        assert bool(site.pick) is enabled
        # without the failing value, every legal move is drawn, as legal_moves lists them
        good = load_text(text.replace("1..3", "1..2"))
        state = good.new_state()
        moves = [m.text for m in state.legal_moves()]
        assert moves == ["pass", "take 1", "take 2"]
        assert [state.random_move(random.Random(i)).text for i in range(12)] == \
            [moves[random.Random(i).randrange(3)] for i in range(12)]


@pytest.mark.parametrize("path", PLAYED, ids=lambda p: p.stem)
def test_drawing_a_random_move_leaves_the_state_as_it_was(path):
    # Listing moves binds `me` and the parameters (Gerry's `move_face_down` lists its
    # destinations with the card written to its slot); the slots are part of the key.
    game = load(str(path))
    for state, seat in _decisions(game, 3, limit=80):
        before = state.key()
        state.random_move(random.Random(0), seat)
        assert state.key() == before


@pytest.mark.parametrize("enabled", [True, False])
def test_random_moves_among_identical_cards_are_legal_moves_at_the_same_index(
        monkeypatch, enabled):
    # Two copies of each card: `legal_moves` offers the first of each kind, for an action
    # of one card parameter and for one of a card and a number; a random move is the
    # legal move at the index drawn, through the generated pick or `_random_pick`.
    from interpreter import _fuse
    monkeypatch.setattr(_fuse, "ENABLED", enabled)
    game = load_text('''game "t"
players a, b
enum n = one "1", two "2", three "3"
card n: n
cards into deck: card(n: x) for x in n for i in 1..2
zone deck: stack
zone hand: set
zone pile: stack
var total: int = 0
action play(c: hand) "a card":
    move c to pile
action bet(c: hand, k: 1..2) "a card and a stake":
    require ord(c.n) + k > 1 "not the smallest"
    move c to pile
    total += k
flow:
    repeat 5:
        move top(deck) to hand
    repeat 3:
        choose a: play, bet
    end game
''')
    state = game.new_state()
    assert len({c.kind for c in state.cards_in("hand")}) < 5      # twins in the hand
    seen = 0
    while not state.is_terminal():
        moves = state.legal_moves()
        texts = [m.text for m in moves]
        assert len(texts) == len(set(texts))
        for i in range(8):
            got = state.random_move(random.Random(i))
            want = moves[random.Random(i).randrange(len(moves))]
            assert got.text == want.text and got.args == want.args
            assert all(a is b for a, b in zip(got.args, want.args))
            seen += 1
        state.apply(moves[0])
    assert seen == 24


class _CountingRandom(random.Random):
    """A Random of its own class: it must be shuffled by its own `shuffle`."""

    shuffled = 0

    def shuffle(self, x):
        self.shuffled += 1
        super().shuffle(x)


def test_a_shuffle_drawn_inline_is_randoms_own_from_the_same_stream():
    from interpreter.state import _shuffle
    for seed in range(20):
        for n in (0, 1, 2, 3, 5, 13, 52, 104):
            a, b = random.Random(seed), random.Random(seed)
            x, y = list(range(n)), list(range(n))
            a.shuffle(x)
            _shuffle(b, y)
            assert x == y and a.getrandbits(32) == b.getrandbits(32)
    mine = _CountingRandom(3)
    cards = list(range(10))
    _shuffle(mine, cards)
    assert mine.shuffled == 1 and cards != list(range(10))


def test_a_step_given_how_its_source_draws_takes_the_same_move():
    # `play_out` works out once whether its source draws by bits (a plain Random) and
    # passes it to every step; a step left to work it out itself draws the same.
    from interpreter.state import draws_by_bits
    assert draws_by_bits(random.Random(1))
    assert not draws_by_bits(_OnlyRandrange(1)) and not draws_by_bits(_CountingRandom(1))
    game = load(str(ROOT / "gerry.gdl"))
    for seed in range(3):
        a, b = game.new_state(), game.new_state()
        ra, rb = random.Random(seed), random.Random(seed)
        for _ in range(40):
            if a.is_terminal():
                break
            if a.is_chance():
                a.chance_step(ra)
                b.chance_step(rb, True)
            else:
                a.random_step(ra)
                b.random_step(rb, True)
        assert a.trace_texts() == b.trace_texts() and len(a.history) > 10


@pytest.mark.parametrize("name", ["gerry.gdl", "evil_deal.gdl", "double_dealing_shuffle.gdl",
                                  "pescetti.gdl"])
def test_a_playout_of_random_agents_stops_after_max_steps_as_step_by_step(name):
    # play_out of random agents is one call (`random_run`), which takes runs of random
    # decisions and of chance events (Pescetti's 52 draws of a row) in inner loops; a
    # chance event, a decision and a simultaneous decision are each a step, and it stops
    # after `max_steps` of them, where stepping one at a time stops.
    from interpreter.agents import AGENTS, play_out
    game = load(str(ROOT / name), {"mode": "random"} if name == "pescetti.gdl" else {})
    agents = [AGENTS["random"]] * game.num_players
    for k in (0, 1, 2, 7, 30, 61):
        fast = game.new_state()
        made = play_out(fast, agents, random.Random(k), max_steps=k)
        slow, rng, decisions = game.new_state(), random.Random(k), 0
        for _ in range(k):
            if slow.is_terminal():
                break
            if slow.is_chance():
                slow.chance_step(rng)
            elif slow.node[0] == 2:           # a simultaneous decision
                decisions += slow.random_joint_step(rng)
            else:
                slow.random_step(rng)
                decisions += 1
        assert fast.trace_texts() == slow.trace_texts() and made == decisions


_JOINT = '''game "joint"
players a, b, c
var said[player]: int = 0
var order: text = ""
action say(n: 1..4):
    require me != c or n == 4 or allow_c
    said[me] = n
    order = order + text(me)
option allow_c: bool = true
flow:
    repeat 3:
        simultaneously p in players: say
    draw
'''


def test_a_random_joint_step_after_some_seats_committed_is_the_loop_of_apply():
    # random_joint_step draws the seats still waiting as (action, arguments) and runs
    # the moves without making a Move each; seats committed before by `apply` go first in
    # the history and all take effect in seat order, as after a loop of `apply`.
    g = load_text(_JOINT)
    for seed in range(5):
        fast, slow = g.new_state(), g.new_state()
        rf, rs = random.Random(seed), random.Random(seed)
        while not fast.is_terminal():
            first = fast.to_move()[1]               # b commits first, by `apply`
            move = fast.random_move(rf, first)
            fast.apply(move, first)
            slow.apply(slow.random_move(rs, first), first)
            assert fast.random_joint_step(rf) == 2
            for seat in slow.to_move():
                slow.apply(slow.random_move(rs, seat), seat)
        assert fast.trace_texts() == slow.trace_texts()
        assert g.evaluate("order", fast) == "abcabcabc"


def test_a_seat_drawn_before_a_deadlock_in_a_random_joint_step_stays_committed():
    # c has no legal move: the error is the deadlock's, and a (drawn before c) is
    # committed as a Move, as a loop of random_move and apply would leave it.
    from gdl.errors import RuleError
    from interpreter.values import Move
    g = load_text(_JOINT.replace("allow_c: bool = true", "allow_c: bool = false")
                  .replace("n == 4 or ", ""))
    s = g.new_state()
    with pytest.raises(RuleError, match="deadlock"):
        s.random_joint_step(random.Random(0))
    assert [p.name for p in s.committed()] == ["a", "b"]
    assert all(type(m) is Move for m in s.node[3].values())


def test_a_playout_meets_a_deadlock_in_a_joint_step_as_random_joint_step_does():
    # random_run takes a simultaneous decision's generated joint step inline (made at
    # the site's first draw, so from the second round on); where a seat has no legal
    # move the joint step commits the seats it drew and gives up, and the general path
    # goes on from there: the same error, the same seats committed and the generator
    # left where a loop of random_joint_step leaves them.  (c may say anything in the
    # first round only.)
    from gdl.errors import RuleError
    g = load_text(_JOINT.replace("allow_c: bool = true", "allow_c: bool = false")
                  .replace("n == 4 or ", "said[c] == 0 or "))

    def joint_steps(s, rng):
        while True:
            s.random_joint_step(rng)

    ends = []
    for play in (lambda s, r: s.random_run(r, 10), joint_steps):
        s, rng = g.new_state(), random.Random(3)
        with pytest.raises(RuleError, match="deadlock"):
            play(s, rng)
        ends.append((len(s.history), [p.name for p in s.committed()], rng.random()))
    assert ends[0] == ends[1] and ends[0][:2] == (3, ["a", "b"])


def test_one_card_of_each_kind_is_the_first_in_the_order_the_kinds_first_come():
    from interpreter.state import _one_per_kind
    from interpreter.values import Card
    cards = [Card(i, {}, kind, str(kind), str(kind)) for i, kind in enumerate([3, 1, 3, 2, 1])]
    merged = _one_per_kind(cards)
    assert [c.id for c in merged] == [0, 1, 3]          # kinds 3, 1, 2: their first cards
    distinct = cards[:2] + cards[3:4]
    assert _one_per_kind(distinct) is distinct          # nothing to merge: as given
    assert _one_per_kind((4, 4, 5)) == [4, 5]          # not cards: equal values merge
    assert _one_per_kind([cards[0], 7, cards[2], 7]) == [cards[0], 7]   # cards by kind


def test_a_shuffle_of_alike_cards_is_a_chance_event_of_one_outcome():
    # A seat may not see that a zone's cards are alike, and sees a shuffle either way: it
    # is a chance event (one outcome, probability 1); a zone of one card or none, whose
    # size every seat sees, is shuffled with no event.  A zone with two kinds, even with
    # its odd card last, has one outcome per place of the odd card.
    text = '''game "t"
players a, b
card n: 1..2
cards into same: card(n: 1) for i in 1..3
cards into one: card(n: 1)
cards into mixed: card(n: 1) for i in 1..3
cards into mixed: card(n: 2)
zone same: stack
zone one: stack
zone empty: stack
zone mixed: stack
flow:
    shuffle same
    shuffle one
    shuffle empty
    shuffle mixed
    end game
'''
    state = load_text(text).new_state()
    assert state.is_chance() and state.node[2] == state.game.zone("same").slot
    assert [p for _, p in state.chance_outcomes()] == [1]
    state.chance_step(random.Random(0))
    assert state.is_chance() and state.node[2] == state.game.zone("mixed").slot
    assert len(state.chance_outcomes()) == 4           # where the one 2 goes
    state.chance_step(random.Random(0))
    assert state.is_terminal() and len(state.history) == 2


def test_twins_facing_two_ways_are_told_apart_by_a_shuffle():
    # a shuffle keeps each card's facing: the face-up twin may land anywhere among its
    # face-down twins, three outcomes; they were listed as one (probability 1) while a
    # sample reached all three (the enumeration saw one state of three)
    text = '''game "t"
players a, b
card n: 1..2
cards into src: card(n: 1) for i in 1..3
zone src: stack
zone pile: stack
action go() "go":
    pass
flow:
    move top(src) to pile face up
    move top(src) to pile face down
    move top(src) to pile face down
    shuffle pile
    choose a: go
    draw
'''
    state = load_text(text).new_state()
    listed = state.chance_outcomes()
    assert [(o.text, p) for o, p in listed] == [
        ("shuffle pile: 1 (1) (1)", Fraction(1, 3)), ("shuffle pile: (1) 1 (1)", Fraction(1, 3)),
        ("shuffle pile: (1) (1) 1", Fraction(1, 3))]
    keys = set()
    for o, _ in listed:
        after = state.clone()
        after.apply(o)
        keys.add(after.key())
    sampled = set()
    for seed in range(40):
        after = state.clone()
        after.apply(after.sample_chance(random.Random(seed)))
        sampled.add(after.key())
    assert len(keys) == 3 and sampled == keys


def test_what_a_seat_cannot_see_decides_no_chance_event():
    # p2's card is hidden from p1: whether the cards left are alike (a shuffle) or how
    # many values a random has must not show in p1's record: each is a chance event
    text = '''game "t"
players p1, p2
enum colour = red "R", black "B"
card colour: colour
cards into deck: card(colour: red) for i in 1..2
cards into deck: card(colour: black)
zone deck: stack
zone hand[player]: set, seen by owner
action go() "go":
    pass
flow:
    shuffle deck
    deal 1 from deck to hand[p] for p in [p2]
    shuffle deck
    secret random c in [x for x in cards(deck) if x.colour == red]
    choose p1: go
    draw
'''
    root = load_text(text).new_state()
    keys = set()
    for outcome, _ in root.chance_outcomes():          # p2 holds B, R or R
        state = root.clone()
        state.apply(outcome)
        while state.is_chance():
            state.apply(state.chance_outcomes()[0][0])
        keys.add(state.infoset_key("p1"))
    assert len(keys) == 1


#: a shuffle of two alike cards mid-game and a random of one value at the end: a trace of
#: the first format records neither
FIRST_FORMAT = '''game "t"
players a, b
card n: 1..2
cards into deck: card(n: 1) for i in 1..2
cards into deck: card(n: 2) for i in 1..2
cards into pair: card(n: 1) for i in 1..2
zone deck: stack
zone pair: stack
zone hand[player]: stack
var got: int = 0
action take() "take":
    move top(deck) to hand[me]
flow:
    shuffle deck
    random k in [x for x in 1..3 if x > count(hand[a])]
    choose a: take
    shuffle pair
    choose a: take
    random j in [x for x in 1..3 if x > count(hand[a])]
    got = k * 10 + j
    end game
returns(p) = got
'''


def _first_format_game(game):
    """A game of FIRST_FORMAT played to its end (seed 1; chance drawn, first moves)."""
    state = game.new_state(1)
    rng = random.Random(4)
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            state.apply(state.legal_moves()[0])
    return state


def _first_format_trace(state) -> dict:
    """The game's trace as the first format wrote it: without the pair's shuffle and the
    random of one value, which were no steps then."""
    steps = state.trace()["steps"]
    return dict(state.trace(), format="gdl-trace-1", steps=steps[:3] + steps[4:5])


def test_a_trace_of_the_first_format_replays_without_its_one_outcome_events():
    # Traces written before chance events of one outcome were steps (`gdl-trace-1`) do
    # not record them: replayed, each is taken where a step leaves it (the engine of the
    # time went on to the next decision or real draw)
    from interpreter import replay
    game = load_text(FIRST_FORMAT)
    state = _first_format_game(game)
    trace = state.trace()
    assert trace["format"] == "gdl-trace-2"
    k = int(state.returns()[0]) // 10
    assert [s.get("chance", s.get("move")).split(":")[0] for s in trace["steps"]] == [
        "shuffle deck", f"random {k}", "take", "shuffle pair", "take", "random 3"]
    old = _first_format_trace(state)
    assert replay(game, old).key() == state.key()
    # after 3 steps the old engine had shuffled the pair too (its next pause: a's move)
    assert replay(game, old, upto=3).key() == replay(game, trace, upto=4).key()


def test_a_first_format_trace_of_twins_facing_two_ways(tmp_path):
    # its shuffle texts had no brackets (the replay said they were edited); a shuffle of
    # alike cards, face up and down, was no shuffle then (the cards stay as they lie)
    from gdl.errors import TraceError
    from interpreter import replay
    text = '''game "t"
players a, b
card n: 1..2
cards into deck: card(n: 2)
cards into deck: card(n: 1) for i in 1..2
zone deck: stack
zone hand[player]: stack
action take() "take":
    move top(deck) to hand[me]
flow:
    flip [top(deck)] up
    shuffle deck
    choose a: take
    choose b: take
    draw
'''
    game = load_text(text)
    state = game.new_state(3)
    state.apply(state.chance_outcomes()[1][0])
    assert "(" in state.history[0][1]                  # both facings: brackets
    while not state.is_terminal():
        state.apply(state.legal_moves()[0])
    trace = state.trace()
    old = dict(trace, format="gdl-trace-1", steps=[
        dict(trace["steps"][0], chance=trace["steps"][0]["chance"].replace(
            "(", "").replace(")", "")), *trace["steps"][1:]])
    assert replay(game, old).key() == state.key()
    with pytest.raises(TraceError, match="the two must agree"):
        replay(game, dict(old, format="gdl-trace-2"))
    alike = load_text(text.replace("cards into deck: card(n: 2)\n", ""))
    kept = alike.new_state(3)                          # the face-up 1 on top: where it
    before = kept.cards_in("deck")                     # lies, as the old engine left it
    assert len(kept.chance_outcomes()) == 2
    old = {"format": "gdl-trace-1", "seed": 3, "steps": [
        {"player": "a", "move": "take"}, {"player": "b", "move": "take"}]}
    done = replay(alike, old)
    assert done.is_terminal() and done.cards_in("hand[a]") == before[:1]


def test_a_first_format_trace_ends_a_run_of_one_outcome_events_without_end():
    # the engine of its time stopped `while true: random x in [1]` as a loop without a
    # decision; the replay took such events for ever (memory growing)
    from gdl.errors import TraceError
    from interpreter import replay
    game = load_text('''game "t"
players a, b
var k: int = 0
action go() "go":
    k += 1
flow:
    choose a: go
    while true:
        random x in [1]
        k += 1
    draw
''')
    with pytest.raises(TraceError, match="chance events of one outcome without end"):
        replay(game, {"format": "gdl-trace-1", "seed": 0,
                      "steps": [{"player": "a", "move": "go"}]})


def test_the_repl_loads_a_trace_of_the_first_format(tmp_path):
    # `gdl play --trace` and `load` replayed its steps with no one-outcome event taken:
    # "replayed 3 of 4 steps; stopped before step 4 (a: take): chance acts here"
    from gdl._repl_session import Session
    rules = tmp_path / "t.gdl"
    rules.write_text(FIRST_FORMAT)
    state = _first_format_game(load(str(rules)))
    (tmp_path / "old.json").write_text(json.dumps(_first_format_trace(state)))
    session = Session(str(rules), {}, seed=1)
    done = session.load_trace(str(tmp_path / "old.json"))
    assert done[:2] == (4, 4) and done[2] is None
    assert session.state.key() == state.key()


TWINS_AND_NUMBERS = '''game "t"
players a, b
card n: 1..2
cards into hand[p]: card(n: 1) for p in player for i in 1..2
cards into hand[p]: card(n: 2) for p in player
zone hand[player]: set
zone pile: stack
enum colour = red, blue
action bid(k: 1..2):
    pile_count = k
action name(q: player, x: colour):
    pile_count = 0
action give(c: hand[me]):
    move c to pile
var pile_count: int = 0
flow:
    repeat 2:
        for p in players:
            choose p: bid, name, give
    draw
'''


def test_an_action_whose_parameters_are_ranges_or_constants_never_names_a_card():
    # Known when the action is compiled: its moves need no merging of identical cards
    # (the generated pick skips that step), while a card parameter's is found out in play.
    game = load_text(TWINS_AND_NUMBERS)
    info = game.prog.compiler.action_info
    assert info["bid"].card_args is False and info["name"].card_args is False
    assert info["give"].card_args is None
    state = game.new_state()
    assert [m.text for m in state.legal_moves()] == [
        "bid 1", "bid 2", "name a red", "name a blue", "name b red", "name b blue",
        "give 1", "give 2"]
    rng, again = random.Random(3), random.Random(3)
    moves = state.legal_moves()
    drawn = [state.random_move(rng).text for _ in range(40)]
    assert drawn == [moves[again.randrange(len(moves))].text for _ in range(40)]


def _drawn_as_listed(game, seed, calls=None) -> int:
    """Plays a game by `random_move`, each draw from a fresh seeded source, asserting
    each move is the one `legal_moves` gives at the same random index (and, given
    `calls`, that drawing it added nothing to that list); returns the moves made."""
    state = game.new_state()
    while not state.is_terminal():
        moves = [m.text for m in state.legal_moves()]
        k = seed * 100 + len(state.history)
        if calls is not None:
            del calls[:]
        drawn = state.random_move(random.Random(k)).text
        assert not calls
        assert drawn == moves[random.Random(k).randrange(len(moves))]
        state.apply(drawn)
    return len(state.history)


def _stepped_as_applied(game, seed, rng_of=random.Random) -> int:
    """Plays a game by `random_steps` and again by `random_move` and `apply`, from the
    same seed; asserts the two are the same game (history and frame); returns how many
    decisions the steps took."""
    fast, slow = game.new_state(), game.new_state()
    made = fast.random_steps(rng_of(seed), 1000)
    rng = rng_of(seed)
    while not slow.is_terminal():
        slow.apply(slow.random_move(rng))
    assert fast.is_terminal() and made == len(slow.history)
    assert fast.trace_texts() == slow.trace_texts() and fast.frame == slow.frame
    return made


LONE_ACTION = FOUR_EACH + '''var last: int = 0
option skip: int = 2
action give(c: hand[me]):
    require count(hand[me]) > 1
    require c.n != skip and c.n != last
    move c to pile
    last = c.n
flow:
    repeat 3:
        for p in players:
            choose p: give
    draw
'''


def test_the_pick_of_a_lone_action_of_one_parameter_draws_from_its_list_inline():
    # The site's one action lists its moves inside the pick (no call of its list, no
    # chunk): the move drawn is the one legal_moves gives at the same random index, the
    # require without parameters and the loop-invariant `last` included.
    from gdl.errors import RuleError
    game = load_text(LONE_ACTION)
    info = game.prog.compiler.action_info["give"]
    listed = info.chunks
    calls = []
    info.chunks = lambda st: calls.append(1) or listed(st)
    for seed in range(6):             # the pick does not call the action's list
        assert _drawn_as_listed(game, seed, calls) == 6
    ended = load_text(LONE_ACTION.replace("repeat 3", "repeat 4")).new_state()
    with pytest.raises(RuleError, match="deadlock"):
        for _ in range(8):
            ended.random_step(random.Random(1))


def test_random_steps_take_a_lone_action_in_one_generated_step_as_random_move_and_apply():
    # The site of a lone action of one parameter gets a generated step: draw, history
    # line, slots, then the action's rules; the game is the one random_move and apply
    # make, and where no move is legal it raises the deadlock error with the slots clear.
    from gdl.errors import RuleError
    for text in (LONE_ACTION, LONE_ACTION.replace("zone hand[player]: stack",
                                                  "zone hand[player]: set")):
        game = load_text(text)
        for seed in range(5):
            assert _stepped_as_applied(game, seed) == 6
        assert all(site.step for site in game.prog.sites)    # the step was made
        stuck_game = load_text(text.replace("repeat 3", "repeat 4"))
        stuck = stuck_game.new_state()
        with pytest.raises(RuleError, match="deadlock"):
            stuck.random_steps(random.Random(2), 100)
        info = stuck_game.prog.compiler.action_info["give"]
        assert len(stuck.history) == 6
        assert stuck.frame[info.me_slot] is None and stuck.frame[info.slots[0]] is None


def test_the_inline_shuffle_is_randoms_shuffle_at_every_size():
    # `_shuffle_by_bits` draws each place's bound from a table made once per size; the
    # orders and the random stream after them are Random.shuffle's, the table's second
    # use as its first.
    from interpreter.state import _DRAW_BY_BITS, _shuffle_by_bits
    assert _DRAW_BY_BITS          # CPython: every draw of a playout is an inline one
    for seed in range(3):
        a, b = random.Random(seed), random.Random(seed)
        for n in list(range(0, 70)) * 2:
            x, y = list(range(n)), list(range(n))
            a.shuffle(x)
            _shuffle_by_bits(b, y)
            assert x == y
        assert a.random() == b.random()


SEVERAL_ACTIONS = '''game "t"
players a, b
card n: 1..3
cards into hand[p]: card(n: k) for p in player for k in [1, 1, 2, 3]
zone hand[player]: stack
zone pile: stack
var turns: int = 0
action swap(c: hand[me], d: hand[me]):
    require c != d
    move c to pile
    move d to pile
action put(c: hand[me], k: 1..2):
    require c.n >= k
    move c to pile
action rest():
    require turns % 3 == 0
    turns += 1
flow:
    while turns < 6:
        turns += 1
        for p in players:
            if count(hand[p]) > 1:
                choose p: swap, put, rest
    draw
'''


def test_random_steps_take_a_site_of_several_actions_in_one_generated_step():
    # A step over several actions: a move of two card parameters (twins merged: a Move
    # drawn), one of a card and a number, one without parameters; the game is the one
    # random_move and apply make.
    game = load_text(SEVERAL_ACTIONS)
    for seed in range(8):
        _stepped_as_applied(game, seed)
    assert all(site.step for site in game.prog.sites)
    from interpreter.agents import random_agent
    taken = {line.split()[1] for seed in range(8)
             for line in _trace_of(game, seed, random_agent)[0]}
    assert {"swap", "put", "rest"} <= taken


PLAIN_ACTIONS = '''game "t"
players a, b
var bets: int = 0
var rounds: int = 0
action bet():
    require bets < limit
    bets += 1
action check():
    rounds += 1
action quit():
    require rounds > 2
    win opponent(me)
option limit: int = 2
flow:
    while rounds < 8:
        for p in players:
            choose p: bet, check, quit
        for p in players:
            choose p: check
    draw
'''


def test_random_steps_take_moves_without_parameters_in_one_generated_step():
    # Sites whose actions have no parameters (with requires, or fixed) get a step too,
    # drawing as `_random_plain` and the fixed moves' draw do; where no move is legal,
    # the deadlock error.
    from gdl.errors import RuleError
    from interpreter.agents import random_agent
    game = load_text(PLAIN_ACTIONS)
    for seed in range(10):
        for rng_of in (random.Random, _OnlyRandrange):
            _stepped_as_applied(game, seed, rng_of)
    assert all(site.step for site in game.prog.sites)
    assert {line.split()[1] for seed in range(10)
            for line in _trace_of(game, seed, random_agent)[0]} == {"bet", "check", "quit"}
    stuck = load_text(PLAIN_ACTIONS.replace("action check():\n    rounds += 1",
                                            "action check():\n    require false\n"
                                            "    rounds += 1")).new_state()
    with pytest.raises(RuleError, match="deadlock"):
        stuck.random_steps(random.Random(0), 1000)


LONE_PAIR = '''game "t"
players a, b
var piled: int = 0
var last[player]: int = 0
option cap: int = 6
action place(k: 1..4, d: 0..k + 1):
    require piled < cap
    require k != last[me]
    require d != k and (d + k) % 3 != 0
    piled += 1
    last[me] = k
flow:
    repeat 3:
        for p in players:
            choose p: place
    draw
'''


def test_a_lone_action_of_two_parameters_is_picked_and_stepped_from_its_list_inline():
    # Its pairs listed inside the pick and the step (a require without parameters, one on
    # the first parameter, one on both): the move drawn is the one legal_moves gives at
    # the same random index, the game the one random_move and apply make; where the
    # first require fails, the deadlock error with the slots clear.
    from gdl.errors import RuleError
    game = load_text(LONE_PAIR)
    info = game.prog.compiler.action_info["place"]
    for seed in range(6):
        assert _drawn_as_listed(game, seed) == 6
        assert _stepped_as_applied(game, seed) == 6
    assert all(site.step for site in game.prog.sites)
    stuck = load_text(LONE_PAIR, {"cap": "4"}).new_state()
    with pytest.raises(RuleError, match="deadlock"):
        stuck.random_steps(random.Random(0), 100)
    assert len(stuck.history) == 4
    assert all(stuck.frame[s] is None for s in (info.me_slot, *info.slots))


def test_a_lone_pair_whose_last_values_are_a_plain_range_keeps_its_start_and_length():
    # The last parameter's values a range no require filters (its lower bound cut by
    # `d > 0`, empty for k = 4 and 5, where k + 1 - k * 2 + 1 < 1): the pick and the
    # step keep each leading value's start and length, no range made, and draw the same
    # moves as legal_moves at the same index, the same game as random_move and apply.
    import linecache
    import re
    text = LONE_PAIR.replace("action place(k: 1..4, d: 0..k + 1)",
                             "action place(k: 1..5, d: k * 2 - 3..k + 1)").replace(
        "    require d != k and (d + k) % 3 != 0\n", "    require d > 0\n")
    game = load_text(text)
    for seed in range(6):
        assert _drawn_as_listed(game, seed) == 6
        assert _stepped_as_applied(game, seed) == 6
    legal = {m.text for m in game.new_state().legal_moves()}
    assert legal == {f"place {k} {d}" for k in range(1, 6)
                     for d in range(max(k * 2 - 3, 1), k + 2)}
    assert "place 4 5" in legal and not any(m.startswith("place 5 ") for m in legal)
    site, = game.prog.sites
    for fn in (site.pick, site.step):
        source = "".join(linecache.cache[fn.__code__.co_filename][2])
        assert re.search(r"if (_t\d+) > 0:\n\s*_t\d+\.append\(\(_t\d+, _t\d+, \1\)\)", source)


def test_a_filtered_lone_list_passes_over_the_zone_itself_in_its_order(monkeypatch):
    # A lone card parameter whose candidates a require filters is listed from one pass
    # over the zone's own list (a stack top first, a set in card order), no tuple of the
    # cards copied first: the same moves in the same order as legal_moves without
    # generated code, the same games.
    from interpreter import _fuse
    for kind in ("stack", "set"):
        ruleset = LONE_ACTION.replace("zone hand[player]: stack",
                                      f"zone hand[player]: {kind}")
        listed = {}
        for enabled in (False, True):       # generated code last: its step is read
            monkeypatch.setattr(_fuse, "ENABLED", enabled)
            game = load_text(ruleset)
            listed[enabled] = [m.text for m in game.new_state().legal_moves()]
        for seed in range(5):
            _stepped_as_applied(game, seed)
        site, = game.prog.sites
        cells = [v for k, v in site.step.__globals__.items() if k[:1] == "K"]
        assert tuple not in cells and reversed not in cells
        assert listed[True] == listed[False]
        hand = [int(t.split()[1]) for t in listed[True]]
        assert hand == ([4, 3, 1] if kind == "stack" else [1, 3, 4])   # 2 is `skip`


ON_INTO_THE_RULES = FOUR_EACH + '''zone box: stack
var total: int = 0
option fail_at: int = 99
action give(c: hand[me]):
    move c to pile
    total += c.n
    if total >= fail_at:
        move top(box) to pile
action keep():
    total += 10
flow:
    while count(pile) < 5:
        for p in players:
            choose p: give
            total += 1
            if total > 12:
                choose p: give, keep
    draw
'''


def test_a_generated_step_goes_on_into_the_rules_of_the_move_it_makes():
    # A step (of a lone action, and of a site of two actions) ends with the run of the
    # rules its move enters, written in the same function: the game is the one apply
    # makes; an error in those rules leaves the move made and its slots bound, as
    # apply_listed leaves them (the step clears them only when its draw fails; apply
    # puts the state back as it was before the move).
    import linecache
    from gdl.errors import RuleError
    game = load_text(ON_INTO_THE_RULES)
    for seed in range(8):
        _stepped_as_applied(game, seed)
    sources = ["".join(linecache.cache[site.step.__code__.co_filename][2])
               for site in game.prog.sites]
    assert len(sources) == 2
    # on to the next choose, through the move's `total += ...` (total: the var in slot 0)
    assert all("return -1" in s and "[0] += " in s for s in sources)
    info = game.prog.compiler.action_info["give"]
    broken = load_text(ON_INTO_THE_RULES, {"fail_at": "3"})
    for seed in range(6):
        fast, slow = broken.new_state(), broken.new_state()
        with pytest.raises(RuleError, match="empty"):
            fast.random_steps(random.Random(seed), 1000)
        rng = random.Random(seed)
        with pytest.raises(RuleError, match="empty"):
            while True:
                before = slow.clone()
                slow.apply_listed(slow.random_move(rng), slow.to_move()[0])
        assert fast.trace_texts() == slow.trace_texts() and fast.frame == slow.frame
        with pytest.raises(RuleError, match="empty"):
            before.apply(slow.history[-1][1])
        assert before.trace_texts() == slow.trace_texts()[:-1]
        assert fast.history[-1][1].startswith("give")       # total >= 3 after a give
        assert fast.frame[info.me_slot] is not None and fast.frame[info.slots[0]] is not None


def test_a_simultaneous_step_runs_the_first_run_of_its_action_blocks_inline():
    # The joint step calls the block's first run itself and the rest of the block
    # (exec_block from where that run ends) only where it stops short: a block longer
    # than a run, with a loop, and a win in it that ends the game mid-block.  The same
    # game as random_move and apply, to the end.  (The blocks' loops count from the
    # decision: a state cloned at it once had no step budget left for them.)
    from interpreter import _fuse
    body = "".join(f"    said[me] = said[me] + {i}\n" for i in range(1, 25))
    text = _JOINT.replace("    said[me] = n\n", "    said[me] = n\n" + body +
                          "    repeat n:\n        said[me] += 1\n"
                          "    if said[me] > limit:\n        win me\n").replace(
        "option allow_c: bool = true", "option allow_c: bool = true\noption limit: int = 999")
    for limit in ("999", "305"):
        game = load_text(text, {"limit": limit})
        ends = set()
        for seed in range(6):
            fast, slow = joint_and_applied(game, seed)
            assert slow.is_terminal() and fast.returns() == slow.returns()
            assert fast.trace_texts() == slow.trace_texts() and fast.frame == slow.frame
            ends.add(len(fast.history))
        info = game.prog.compiler.action_info["say"]
        assert len(info.block) > _fuse.MAX_RUN and game.prog.sites[0].joint
        if limit == "999":              # three rounds of three moves, to the draw
            assert ends == {9}
        else:                           # a win ended some games after a round or two
            assert ends <= {3, 6, 9} and ends & {3, 6}


def test_a_generated_simultaneous_step_is_the_loop_of_apply_and_commits_on_a_deadlock():
    # After a first simultaneous decision (which makes it), a site of one action takes
    # its seats' draws and the moves' effects in one generated function: the same game
    # as random_move and apply.  Where a seat has no legal move, the seats drawn before
    # it stay committed (as Moves) and the error is the deadlock's.
    from gdl.errors import RuleError
    from interpreter.values import Move
    text = _JOINT.replace("repeat 3:", "repeat 4:")
    game = load_text(text)
    for seed in range(5):
        fast, slow = game.new_state(), game.new_state()
        rf, rs = random.Random(seed), random.Random(seed)
        while not fast.is_terminal():
            assert fast.random_joint_step(rf) == 3
            for seat in slow.to_move():
                slow.apply(slow.random_move(rs, seat), seat)
        assert fast.trace_texts() == slow.trace_texts() and fast.frame == slow.frame
    assert all(site.joint for site in game.prog.sites)
    import linecache       # the rules after the moves (the repeat's count) are inline
    joint = game.prog.sites[0].joint.__code__.co_filename
    assert "st.budget -= 1" in "".join(linecache.cache[joint][2])
    stuck_game = load_text(text.replace("require me != c or n == 4 or allow_c",
                                        "require me != c or said[c] == 0"))
    stuck, slow = stuck_game.new_state(), stuck_game.new_state()
    rng, rs = random.Random(4), random.Random(4)
    assert stuck.random_joint_step(rng) == 3          # c says something: its last move
    assert stuck.node[1].joint                         # the generated step is made
    with pytest.raises(RuleError, match="deadlock"):
        stuck.random_joint_step(rng)
    with pytest.raises(RuleError, match="deadlock"):
        while True:
            for seat in slow.to_move():
                slow.apply(slow.random_move(rs, seat), seat)
    assert [p.name for p in stuck.committed()] == ["a", "b"]
    assert all(type(m) is Move for m in stuck.node[3].values())
    assert [m.text for m in stuck.node[3].values()] == [m.text for m in slow.node[3].values()]
    assert len(stuck.history) == 3 and rng.random() == rs.random()


_DRAWS = '''game "t"
players a, b
card n: 1..3
cards into deck: card(n: k) for k in 1..3
zone deck: stack
var flag: bool = false
var bit: int = 0
var total: int = 0
var who: player = a
flow:
    repeat 4:
        random f in [false, true]
        flag = f
        random i in [0, 1]
        bit = i
        secret random c in cards(deck)
        total += c.n
        random p in players
        who = p
    end game
'''


def test_random_choices_a_playout_reaches_are_drawn_where_the_rules_make_them(monkeypatch):
    # In a run of chance events `chance_steps` lets generated code make the draws in
    # loops that it reaches itself (no chance node, no return): the same draws, history
    # texts (`true` and `1` at one index are told apart), values and state keys (the pc a
    # pause leaves) as taking one chance event at a time, and as the plain closures.
    from interpreter import _fuse, state as state_module
    from interpreter.agents import play_out
    game = load_text(_DRAWS)
    flags, bits = set(), set()
    for seed in range(8):
        fast = game.new_state()
        assert fast.chance_steps(random.Random(seed), 100) == 16 and fast.is_terminal()
        slow, rng = game.new_state(), random.Random(seed)
        while slow.is_chance():
            slow.chance_step(rng)
        assert fast.history == slow.history
        assert fast.key() == slow.key() and fast.free == 0 and fast.rng is None
        texts = fast.trace_texts()
        flags |= {t.split()[-1] for t in texts[0::4]}
        bits |= {t.split()[-1] for t in texts[1::4]}
        played = game.new_state()
        play_out(played, [], random.Random(seed))
        assert played.history == fast.history
    assert flags == {"true", "false"} and bits == {"0", "1"}
    # with no outcome kept, `chance_steps` looks each of its own draws up anew: it draws
    # only the first, the rules the other 15
    looked_up = []
    plain_lookup = state_module.State._random_outcome
    monkeypatch.setattr(state_module, "OUTCOMES_KEPT", 0)
    game.prog.outcomes.clear()
    monkeypatch.setattr(state_module.State, "_random_outcome",
                        lambda st, i: looked_up.append(i) or plain_lookup(st, i))
    inline = game.new_state()
    assert inline.node[5] and inline.chance_steps(random.Random(3), 100) == 16
    assert len(looked_up) == 1
    monkeypatch.setattr(_fuse, "ENABLED", False)
    plain = load_text(_DRAWS).new_state()
    plain.chance_steps(random.Random(3), 100)
    assert plain.trace_texts() == inline.trace_texts() and len(looked_up) == 17
    # a draw in no loop makes its chance node, even in a run of draws
    monkeypatch.setattr(_fuse, "ENABLED", True)
    lone = load_text(_DRAWS.replace("    repeat 4:\n", "    if true:\n"))
    state = lone.new_state()
    assert state.node[5] is False and state.chance_steps(random.Random(3), 100) == 4
    assert len(looked_up) == 21


def test_a_run_of_chance_events_stops_after_its_limit_even_inside_the_rules():
    # `free` counts the events a call may still take: the draws the rules make
    # themselves stop at the limit, leaving the next one as a chance node.
    game = load_text(_DRAWS)
    for limit in (1, 2, 5, 15):
        state = game.new_state()
        assert state.chance_steps(random.Random(0), limit) == limit
        assert state.is_chance() and len(state.history) == limit and state.free == 0
        assert state.chance_steps(random.Random(1), 100) == 16 - limit
    # an error in the rules after a draw leaves no draws to the next run of the rules
    from gdl.errors import RuleError
    failing = load_text(_DRAWS.replace("        who = p\n",
                                       "        who = p\n        if total > 4:\n"
                                       "            fail \"too many\"\n"))
    state = failing.new_state()
    with pytest.raises(RuleError, match="too many"):
        state.chance_steps(random.Random(0), 100)
    assert state.free == 0


REMEMBERED = FOUR_EACH + '''var high: int = 0
var turn: int = 0
action bid(n: 1..count(hand[me]) + 4, m: 0..count(pile) + 2 - n % 2):
    require n > high or m == 0
    require m != turn % 3
    high = (n + m) % 4
    if count(hand[me]) > 0:
        move top(hand[me]) to pile
action up(n: 0..5):
    require n >= high and n != turn % 5
    high = n % 3
flow:
    repeat 6:
        turn += 1
        for p in players:
            choose p: bid
        for p in players:
            choose p: up
    draw
'''


def test_a_list_that_reads_only_counts_and_variables_is_remembered_by_their_values():
    # `bid` and `up` read the state only through count(hand[me]), count(pile), high and
    # turn: their lists are kept by those values and listed again only for new ones.
    # Every move drawn is still the one legal_moves (never remembered) gives at the
    # same random index, by random_move and by the generated step.
    game = load_text(REMEMBERED)
    infos = game.prog.compiler.action_info
    assert len(infos["bid"].memo_inputs) == 4 and len(infos["up"].memo_inputs) == 2
    for seed in range(12):
        assert _drawn_as_listed(game, seed) == 24
        assert _stepped_as_applied(game, seed) == 24
    kept = sum(len(infos[a].memo) for a in ("bid", "up"))
    assert 0 < kept < 12 * 24


def test_a_list_that_reads_more_than_counts_and_variables_is_not_remembered():
    # a zone's cards, a def, `players`, a division (which can fail): listed every time
    for action in ("pick(c: hand[me]):\n    require c.n > high",
                   "pick(n: 1..4):\n    require n != count(players)",
                   "pick(n: 1..4):\n    require n != twice(high)",
                   "pick(n: 1..4):\n    require n != 8 / (high + 1)",
                   "pick(n: 1..4):\n    require all(c.n != n for c in hand[me])",
                   "pick(n: 1..4, m: 1..count(hand[opponent(me)])):\n    require n > m"):
        text = (REMEMBERED.replace("action up(", "def twice(x: int) = 2 * x\naction up(")
                .replace("choose p: up", "choose p: up, pick")
                + "\naction " + action + "\n    high = 0\n")
        info = load_text(text).prog.compiler.action_info["pick"]
        assert info.memo is None, action


GUARDED = FOUR_EACH.replace(" for k in 1..4", " for k in 1..4 for twin in 1..2") + '''\
var owed: int = 1
var played: int = 0
var flag: bool = false
action give(c: hand[me]):
    require not (owed == 2 and played == 0 and c.n == 4 and any(x.n != 4 for x in hand[me]))
    require flag or c.n != 3 or count(hand[me]) <= 2 or owed == 2
    move c to pile
    played = (played + c.n) % 2
    owed = 3 - owed + played
    flag = c.n == 2 or not flag
flow:
    repeat 8:
        for p in players:
            choose p: give
    draw
'''


def test_requires_whose_leading_terms_hold_let_every_candidate_pass_untested(monkeypatch):
    # `not (owed == 2 and played == 0 and ...)` holds for every card while owed != 2 or
    # played != 0, and `flag or ...` while flag: the list tests no card then.  With the
    # twins merged and without (one card of each), the legal moves at every decision
    # and the random playouts are those of the plain closures.
    from interpreter import _fuse
    from interpreter.agents import random_agent
    for text in (GUARDED, GUARDED.replace(" for twin in 1..2", "").replace("repeat 8",
                                                                            "repeat 4")):
        seen = {}
        for enabled in (False, True):
            monkeypatch.setattr(_fuse, "ENABLED", enabled)
            game = load_text(text)
            guard = game.prog.compiler.action_info["give"].guard
            lists, held = [], set()
            for seed in range(20):
                for state, seat in _decisions(game, seed):
                    moves = [m.text for m in state.legal_moves(seat)]
                    kinds = {c.text for c in state.cards_in(f"hand[{seat.name}]")}
                    lists.append(moves)
                    held.add((bool(guard(state)), len(moves) < len(kinds)))
            seen[enabled] = (lists, [_trace_of(game, seed, random_agent)
                                     for seed in range(20)])
        assert seen[True] == seen[False]
        # both ways through the list were taken, and the tests did leave cards out
        assert {(True, False), (False, True)} <= held


def test_a_guard_is_only_a_prefix_of_terms_that_cannot_fail():
    # A term after one that mentions the parameter may be the one that fails (or is
    # never reached): `c.n > 2 or flag` has no guard; nor has a def or a division by a
    # variable in front.  With `flag` first, the division after it is never evaluated
    # while flag holds, as in the require itself.
    from gdl.errors import RuleError
    for require in ("c.n > 2 or flag", "twice(owed) > 2 or c.n != 3",
                    "8 / played > 1 or c.n != 3"):
        text = GUARDED.replace("action give(", "def twice(x: int) = 2 * x\naction give(") \
            .replace("require flag or c.n != 3 or count(hand[me]) <= 2 or owed == 2",
                     "require " + require)
        assert load_text(text).prog.compiler.action_info["give"].guard is None, require
    failing = GUARDED.replace("require flag or c.n != 3 or count(hand[me]) <= 2 or owed == 2",
                              "require flag or c.n / (owed - owed) > 0")
    game = load_text(failing)
    assert game.prog.compiler.action_info["give"].guard is not None
    state = game.new_state()
    with pytest.raises(RuleError, match="division by zero"):
        state.legal_moves()


def test_a_guard_is_made_only_of_terms_that_cannot_fail(monkeypatch):
    # A guard is read before the candidates, even where there are none: `last.n` of no
    # card would fail there, so `last.n > 2 or ...` has none, and with an empty hand the
    # only move is `wait`, the require never read; with cards it fails as the require
    # does.  `last == none or ...` cannot fail, and has one.
    from gdl.errors import RuleError
    from interpreter import _fuse
    text = '''game "t"
players a, b
card n: 1..4
cards into hand[a]: card(n: k) for k in 1..4
zone hand[player]: stack
zone pile: stack
var last: card? = none
action give(c: hand[me]):
    require last.n > 2 or c.n != 3
    move c to pile
    last = c
action wait():
    pass
flow:
    choose b: give, wait
    choose a: give, wait
    draw
'''
    for enabled in (False, True):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert game.prog.compiler.action_info["give"].guard is None
        state = game.new_state()
        assert [m.text for m in state.legal_moves()] == ["wait"]
        assert state.random_move(random.Random(0)).text == "wait"
        state.apply("wait")
        with pytest.raises(RuleError, match="none"):
            state.legal_moves()
        safe = load_text(text.replace("last.n > 2", "last == none"))
        assert safe.prog.compiler.action_info["give"].guard is not None
        state = safe.new_state()
        state.apply("wait")
        assert [m.text for m in state.legal_moves()] == ["give 4", "give 3", "give 2",
                                                         "give 1", "wait"]


def test_a_run_is_compiled_when_it_first_runs_and_then_runs_compiled(monkeypatch):
    # `load` leaves every run uncompiled (most are never entered); a playout compiles only
    # those it enters, each once, and each takes its place in the program for good: the
    # same game again compiles nothing more, and both play as the plain closures do.
    from interpreter import _fuse
    from interpreter.agents import AGENTS, play_out
    if not _fuse.ENABLED:
        pytest.skip("GDL_FUSE=0: nothing is compiled")
    game = load(str(ROOT / "double_down.gdl"))
    code = game.prog.code
    waiting = [k for k, fn in enumerate(code) if getattr(fn, "deferred", None)]
    assert len(waiting) > 90
    agents = [AGENTS["random"]] * game.num_players
    played = game.new_state()
    play_out(played, agents, random.Random(1))
    entered = [k for k in waiting if not getattr(code[k], "deferred", None)]
    assert 0 < len(entered) < len(waiting) // 2
    compiled = {k: code[k] for k in entered}
    again = game.new_state()
    play_out(again, agents, random.Random(1))
    assert {k: code[k] for k in entered} == compiled
    assert [k for k in waiting if not getattr(code[k], "deferred", None)] == entered
    monkeypatch.setattr(_fuse, "ENABLED", False)
    plain = load(str(ROOT / "double_down.gdl")).new_state()
    play_out(plain, agents, random.Random(1))
    assert again.trace_texts() == played.trace_texts() == plain.trace_texts()


def test_compile_now_leaves_no_run_to_its_first_use():
    from interpreter import _fuse
    if not _fuse.ENABLED:
        pytest.skip("GDL_FUSE=0: nothing is compiled")
    game = load(str(ROOT / "evil_deal.gdl"))
    lists = game.prog.fused_code
    assert lists[0] is game.prog.code and len(lists) > 1     # the action blocks too
    assert any(getattr(fn, "deferred", None) for code in lists for fn in code)
    game.compile_now()
    assert not any(getattr(fn, "deferred", None) for code in lists for fn in code)


def test_variable_lines_holding_zones_are_remembered_and_the_same_for_every_seat():
    # A zone's text is the same for every seat, as a number's or a member's is: a view's
    # variable lines are remembered by the values then (gerry's `selected[p]` holds a
    # cell), and still name the zone each variable holds
    from interpreter.observe import _plan
    game = load(str(ROOT / "gerry.gdl"))
    state = game.new_state(0)
    rng = random.Random(0)
    while not any(type(v).__name__ == "ZoneRef" for v in state.vars):
        state.random_run(rng, 1)
    plan = _plan(state.prog)
    remembered = len(plan.var_memo)
    views = [state.view(seat) for seat in game.seats]
    assert len(plan.var_memo) == remembered + len(game.seats)
    names = state.prog.var_names
    held = [state.vars[names.index(f"selected[{seat.name}]")] for seat in game.seats]
    line = "selected = {" + ", ".join(f"{seat.name}: {'none' if v is None else v.text}"
                                      for seat, v in zip(game.seats, held)) + "}"
    assert any(held) and all(line in view.splitlines() for view in views)
    assert [state.view(seat) for seat in game.seats] == views
    assert len(plan.var_memo) == remembered + len(game.seats)


def test_a_text_parsed_again_is_the_same_ast_and_an_edited_one_is_parsed_anew(tmp_path):
    """`parse_text` keeps the ASTs of its last texts by path and text: a ruleset loaded
    again in one process is not parsed again, and two games of one text share its
    (frozen) AST without sharing any state; an edited file is parsed anew, and a text
    with a syntax error keeps failing."""
    from gdl import parser
    from gdl.errors import GdlSyntaxError
    path = tmp_path / "g.gdl"
    text = (ROOT / "gerry.gdl").read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    first, again = parser.parse_file(path), parser.parse_file(path)
    assert again is first
    assert parser.parse_text(text, "elsewhere.gdl") is not first     # spans name the path
    a, b = load(str(path)), load(str(path), {"line_rule": "plurality"})
    assert a.ruleset.decls is b.ruleset.decls
    sa, sb = a.new_state(1), b.new_state(1)
    start = len(sb.history)
    sa.random_run(random.Random(3), 10_000)
    assert sa.is_terminal() and not sb.is_terminal() and len(sb.history) == start
    path.write_text(text.replace("game \"Gerry\"", "game \"Gerry edited\""), encoding="utf-8")
    edited = parser.parse_file(path)
    assert edited is not first and edited != first
    for i in range(parser.PARSED_KEPT + 1):            # the oldest text is let go
        parser.parse_text(f"# {i}\n" + text, "filler.gdl")
    assert parser.parse_file(path) is not edited
    bad = "game \"x\"\nplayers 2\nflow:\n  win p1 +\n"
    for _ in range(2):
        with pytest.raises(GdlSyntaxError):
            parser.parse_text(bad, "bad.gdl")


ZONE_PARAMETER = '''
game "zone parameter"
players 2
card rank: 1..3
zone stock: stack
zone pile[1..2]: stack
cards into stock: card(rank: k) for k in 1..3
var n: int = 0
var m: int = 0
def total(z: pile) = sum(c.rank for c in z)
def twice(z: pile) = total(z) + total(z)
action go():
    require twice(pile[1]) == 0
rule sums:
    move stock to pile[2]
    m = twice(pile[2])
    let x = none
    x = pile[2]
    n = twice(x)
flow:
    choose p1: go
    do sums
    win p1
'''


def test_a_zone_parameter_is_read_as_a_zone_only_where_its_argument_is_one(monkeypatch):
    """A def parameter typed by a zone family is read as a zone (no type test) by the
    body compiled for a call whose argument is always a zone; the checker lets a value
    of unknown type reach it too (a local first bound to none, then to a zone), and a
    call given one reads it as the body for any value does.  Given a list so, it is the
    rules' error at the argument (it was read as a list: the parameter's type not held)."""
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(ZONE_PARAMETER)
        state = game.new_state()
        seat = state.to_move()[0]
        state.apply(state.legal_moves(seat)[0], seat)
        assert state.is_terminal()
        assert [state.vars[game.prog.var_slots[v]] for v in ("m", "n")] == [12, 12]
        listed = load_text(ZONE_PARAMETER.replace("x = pile[2]", "x = [c for c in pile[2]]"))
        state = listed.new_state()
        with pytest.raises(RuleError, match=r":19:15: rule error: this value is \[3,2,1\], "
                                            r"where a zone of pile is needed"):
            state.apply(state.legal_moves(state.to_move()[0])[0])


TRAILING_TERM = '''
game "trailing term"
players 2
card rank: 0..3
zone stock: stack
zone hand[player]: stack
var open: bool = true
cards into stock: card(rank: k) for k in {0, 3, 2}
action play(c: hand[me]):
    require COND
flow:
    move stock to hand[p1]
    choose p1: play
    win p1
'''


@pytest.mark.parametrize("cond, moves", [
    ("c.rank != 3 or open", ["play 2", "play 3", "play 0"]),
    ("c.rank != 3 or not open", ["play 2", "play 0"]),
    ("open == false or c.rank != 3 or open", ["play 2", "play 3", "play 0"]),
    ("6 / c.rank > 2 or open", None),
])
def test_a_require_true_by_its_trailing_term_keeps_the_rest_untested(monkeypatch, cond, moves):
    """`require X(c) or T`, T reading no parameter: the generated list keeps every
    candidate from the first that fails X where T is true there (the ones before passed
    X), but only where X cannot fail: the require tests X on each later candidate (rank
    0 last here, its division failing), and so must the list."""
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        state = load_text(TRAILING_TERM.replace("COND", cond)).new_state()
        seat = state.to_move()[0]
        if moves is None:
            with pytest.raises(RuleError, match="division by zero"):
                state.legal_moves(seat)
            with pytest.raises(RuleError, match="division by zero"):
                state.random_move(random.Random(0))
            continue
        assert [str(m) for m in state.legal_moves(seat)] == moves
        for seed in range(6):
            assert str(state.random_move(random.Random(seed))) in moves


FIELD_FILTER = '''
game "field filter"
players 2
enum suit = red, green, blue
card rank: 1..3, suit: suit
zone deck: stack
zone hand[player]: stack
zone trick: stack
cards into deck: card(rank: r, suit: s) for s in suit for r in 1..3
var led: card? = none
var other: card? = none
var k: int = 1
var spare: card? = none
action lead(c: hand[me]):
    move c to trick
    led = c
    spare = first(x for x in hand[opponent(me)] if x.suit == c.suit)
action follow(c: hand[me]):
    require COND
    move c to trick
    k += 1
flow:
    shuffle deck
    deal 4 from deck to hand[p] for p in players
    repeat 4:
        choose p1: lead
        choose p2: follow
    end game
'''


FOLLOW = "c.suit == led.suit or all(x.suit != led.suit for x in hand[me])"


@pytest.mark.parametrize("cond", [
    FOLLOW,
    "led.suit != c.suit or count(hand[me]) == 1",
    "c.suit == led.suit",
    "k == 9 or c.suit == led.suit or count(hand[me]) < 3",
    "c.suit == led.suit or 6 / (k - 2) > 0",
    "c.suit == other.suit or k > 100",
    "c.suit == led.suit or 6 / count(x for x in hand[me] if x.suit != led.suit) > 0",
    "c.suit == led.suit or all(x.suit != led.suit for x in trick)",
    "c.suit == led.suit or all(x.suit != red for x in hand[me])",
    "c != spare\n    require led.suit == c.suit or all(led.suit != x.suit for x in hand[me])",
])
@pytest.mark.parametrize("kind", ["stack", "set"])
def test_a_require_on_a_field_filters_by_a_set_as_the_plain_list_does(monkeypatch, cond, kind):
    """`require c.f == e or T` (after a guard's terms too): the generated list is C's
    `filter` of the set of e's cards, all of them where one fails and T holds.  The same
    moves, draws and errors as the plain list's: e fails (`other` is none) where there
    are candidates, T (a division by zero at k = 2, or where every card follows) only
    where a candidate fails the field's test.  T saying that no candidate passes
    (`FOLLOW`) is that test, not T's, but not over another zone or field, nor where a
    value is excluded first (`spare`, of the suit led: candidates of the hand
    without it may all fail where the hand's do not).  A stack's candidates, a pass over its list, are listed first."""
    from interpreter import _fuse
    from interpreter._actions import NONE_PASSES
    from interpreter.agents import AGENTS, play_out
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        text = FIELD_FILTER.replace("COND", cond).replace("hand[player]: stack",
                                                            f"hand[player]: {kind}")
        game, found = load_text(text), []
        game.compile_now()
        by_field = game.prog.compiler.action_info["follow"].by_field
        assert by_field is not None
        # `all(x.suit != led.suit for x in hand[me])`: true where no candidate passed
        assert (by_field[3] is NONE_PASSES) == (cond == FOLLOW)
        for seed in range(12):
            state, rng = game.new_state(), random.Random(seed)
            try:
                while not state.is_terminal():
                    if state.is_chance():
                        state.apply(state.sample_chance(rng))
                        continue
                    found.append([m.text for m in state.legal_moves()])
                    state.apply(state.random_move(rng))
            except RuleError as e:
                found.append(str(e).splitlines()[0])
            state = game.new_state()
            try:
                play_out(state, [AGENTS["random"]] * 2, random.Random(seed))
                found.append(state.trace_texts())
            except RuleError as e:
                found.append(str(e).splitlines()[0])
        seen.append(found)
    assert seen[0] == seen[1]
    errors = [f for f in seen[0] if isinstance(f, str)]
    if "other" in cond:
        assert errors and all("none" in e for e in errors)
    elif "/ (k" in cond:
        assert any("division by zero" in e for e in errors) and len(errors) < len(seen[0]) / 2
    else:                       # no move: a deadlock, the plain list's too
        assert all("deadlock" in e for e in errors)

UPDATED_ELEMENT = '''
game "updated element"
players 2
var k: int = 1
var s[1..2]: text = ""
var n[1..2]: int = 0
rule update:
    s[k] = s[k] + "a"
    n[k] = n[k] - 3
    k = 2
    s[k] = s[3 - k] + "b"
    s[k] = s[k] + s[k]
    n[k] = n[k - 1] * 2
flow:
    do update
    win p1
'''


def test_an_element_updated_from_itself_is_found_once_and_only_itself(monkeypatch):
    """`v[k] = v[k] + x` finds the element once, for the read and the write; a value
    starting from another element (`s[k] = s[3 - k] + ...`) reads that one."""
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(UPDATED_ELEMENT)
        state = game.new_state()
        assert state.is_terminal()
        values = dict(zip(game.prog.var_names, state.vars))
        assert [values[v] for v in ("s[1]", "s[2]", "n[1]", "n[2]")] == ["a", "abab", -3, -6]


@pytest.mark.parametrize("generated", [True, False])
def test_an_element_updated_from_itself_reports_a_bad_index_where_the_value_reads_it(
        monkeypatch, generated):
    # found once for the write and the read, it was found at the target, so the error
    # moved from the value's `n[k]` (column 12, where the statement evaluates it first)
    # to the target's (column 5)
    from interpreter import _fuse
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    text = ('game "t"\nplayers 2\nvar n[1..2]: int = 0\nvar k: int = 3\n'
            'action go():\n    pass\nflow:\n    choose p1: go\n'
            '    n[k] = n[k] + 1\n    end game\n')
    with pytest.raises(RuleError, match=r"^<string>:9:12: rule error: variable n has no "
                                        r"element \[3\]"):
        load_text(text).new_state().apply("go")


@pytest.mark.parametrize("cond", ["c.fb or k == 0", "(c.n == 1 and g) or k == 0"])
def test_a_trailing_term_keeps_no_card_whose_own_test_can_fail(monkeypatch, cond):
    # an optional field, or a `bool?` variable, used as a bool is tested for none as it
    # is read: a rule error the plain listing raised, where the generated one kept every
    # card from the first that failed untested (the fourth review)
    from interpreter import _fuse
    text = f'''game "t"
players 2
card n: 1..6, fb: bool?
zone deck: stack
zone hand[player]: stack
cards into deck: card(n: i, fb: false) for i in 1..2
cards into deck: card(n: i + 2, fb: none) for i in 1..2
cards into deck: card(n: i + 4, fb: true) for i in 1..2
var k: int = 0
var g: bool? = none
action play(c: hand[me]):
    require {cond}
    k += 1
flow:
    shuffle deck
    deal 3 from deck to hand[p] for p in players
    choose p1: play
    end game
'''
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game, found = load_text(text), []
        for seed in range(10):
            state = game.new_state(seed=seed)
            rng = random.Random(seed)
            while state.is_chance():
                state.apply(state.sample_chance(rng))
            try:
                found.append([m.text for m in state.legal_moves("p1")])
            except RuleError as e:
                found.append(str(e).splitlines()[0])
        seen.append(found)
    assert seen[0] == seen[1]
    assert any("this value is none, where a bool is needed" in str(f) for f in seen[1])


def test_a_kept_list_of_pairs_keeps_its_few_moves_as_one_list_in_the_walks_order():
    # A remembered list of two parameters also keeps every move's arguments as one list,
    # in the order the walk over its pairs goes (a draw of i takes the i-th, no walk),
    # where it has at most FLAT_MOST moves; a longer one keeps none and is walked.  Every
    # move drawn either way is the one legal_moves gives at the same random index, by
    # random_move and by the generated step.
    from interpreter._actions import FLAT_MOST
    game = load_text(REMEMBERED.replace("m: 0..count(pile) + 2 - n % 2",
                                        "m: 0..count(pile) * 3 + 2 - n % 2"))
    for seed in range(12):
        assert _drawn_as_listed(game, seed) == 24
        assert _stepped_as_applied(game, seed) == 24
    kept = list(game.prog.compiler.action_info["bid"].memo.values())
    for found, total, flat in kept:
        if total > FLAT_MOST:
            assert flat is None
        else:
            assert flat == [(n, m) for n, *last in found        # (n, start, count)
                            for m in (range(last[0], sum(last)) if len(last) == 2 else last[0])]
            assert len(flat) == total
    assert {flat is None for _, _, flat in kept} == {True, False}


@pytest.mark.parametrize("hand", [0, 2])
def test_a_guard_holds_no_optional_used_as_a_value(monkeypatch, hand):
    # `require g or c.n == 1`, `g` a bool? that is none: the guard, read before the
    # candidates, failed in generated code with Python's UnboundLocalError, where the
    # plain listing lists no move from an empty hand and fails at the first card of
    # another (the fifth review)
    from interpreter import _fuse
    text = f'''game "t"
players 2
card n: 1..4
zone deck: stack
zone hand[player]: stack
cards into deck: card(n: i) for i in 1..4
var k: int = 0
var g: bool? = none
action play(c: hand[me]):
    require g or c.n == 1
    k += 1
action other():
    k += 2
flow:
    deal {hand} from deck to hand[p] for p in [p1]
    choose p1: play, other
    end game
'''
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        state = load_text(text).new_state()
        try:
            seen.append([m.text for m in state.legal_moves("p1")])
        except RuleError as e:
            seen.append(str(e).splitlines()[0])
    assert seen[0] == seen[1]
    assert seen[0] == (["other"] if hand == 0 else
                       "<string>:10:13: rule error: this value is none, where a bool is needed")
