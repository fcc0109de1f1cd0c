"""Generated code (`interpreter/_fuse.py`) plays exactly as the plain closures do, is
really used, and never carries ruleset text into its source."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from conftest import FOUR_EACH
from gdl import ast as A
from gdl.errors import GdlError, RuleError
from interpreter import _actions, _fuse, load, load_text
from interpreter._fuzz_sweep import sweep_configs
from interpreter.game import load_ruleset

ROOT = Path(__file__).resolve().parent.parent / "rulesets"
PLAYED = sorted(ROOT.glob("*.gdl")) + sorted((ROOT / "classics").glob("*.gdl"))


def _playthrough(game, seed, limit=300):
    """What a seeded random game shows at every step: the moves offered, the table from
    each seat, and how it ends (or the error it stops with)."""
    rng = random.Random(seed)
    seen = []
    try:
        state = game.new_state()
        for _ in range(limit):
            if state.is_terminal():
                seen.append(("end", state.returns()))
                break
            if state.is_chance():
                state.apply_chance(state.sample_chance(rng))
                continue
            seat = state.to_move()[0]
            moves = [m.text for m in state.legal_moves(seat)]
            seen.append((seat.name, moves, [state.view(s) for s in game.seats], state.key()))
            state.apply(moves[rng.randrange(len(moves))], seat)
    except GdlError as err:
        seen.append(("error", str(err)))
    return seen


def _both_ways(monkeypatch, path, options):
    games = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        try:
            games.append(load(str(path), options))
        except GdlError:
            return None               # an option clash: the same either way
    return games


def _first_seat_returns(monkeypatch, text) -> list:
    """The first seat's return of a game that ends as it is set up, played by generated
    code and then by the closures."""
    got = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        got.append(load_text(text).new_state().returns()[0])
    return got


@pytest.mark.parametrize("path", PLAYED, ids=lambda p: p.stem)
def test_generated_code_plays_as_the_closures(monkeypatch, path):
    ruleset = load_ruleset(str(path))
    configs = [{}] + sweep_configs(ruleset, {}, load(str(path)).options)
    compared = 0
    for options in configs:
        games = _both_ways(monkeypatch, path, options)
        if games is None:
            continue
        fused, plain = games
        for seed in range(2):
            assert _playthrough(fused, seed) == _playthrough(plain, seed), options
        compared += 1
    assert compared >= 1
    assert _fuse.COMPILE_WARNINGS == []


def test_programs_really_run_generated_code(monkeypatch):
    monkeypatch.setattr(_fuse, "ENABLED", True)
    game = load(str(ROOT / "classics" / "leduc_poker.gdl"))
    game.compile_now()                  # else each run is compiled when first run
    fused = [fn for fn in game.prog.code if fn.__code__.co_filename.startswith("<gdl fused")]
    assert len(fused) > len(game.prog.code) // 3
    monkeypatch.setattr(_fuse, "ENABLED", False)
    game = load(str(ROOT / "classics" / "leduc_poker.gdl"))
    assert not [fn for fn in game.prog.code
                if fn.__code__.co_filename.startswith("<gdl fused")]


HOSTILE = '''
game "__import__('os').system('echo pwned')"
players 2
option exec: {eval, compile} = eval
    "\\" + open('/etc/passwd').read() + \\""
enum globals = system "os.system('x')", builtins "__builtins__"
card __class__: globals
cards into pile: card(__class__: g) for g in globals
zone pile: stack
zone lap[player]: stack
var __dict__: int = 0
var mro[player]: text = "__subclasses__()"
def breakpoint(c: card) = if c.__class__ == system and exec == eval then 1 else 2
action getattr(c: pile) "\\n__import__('os')":
    require breakpoint(c) + __dict__ > 0 or mro[me] == "\\n"
    mro[me] = mro[me] + "')\\n"
    __dict__ += breakpoint(c)
    move c to lap[me]
flow:
    while count(pile) > 0:
        for p in players:
            if count(pile) > 0:
                choose p: getattr
    win first(p for p in players if count(lap[p]) > 0)
'''


def test_ruleset_text_never_reaches_generated_source(monkeypatch):
    """Names, strings and field names that would be code in Python stay values: the
    game plays, and every generated source passes the check (names and characters of
    the templates only)."""
    monkeypatch.setattr(_fuse, "ENABLED", True)
    _fuse._FACTORIES.clear()
    game = load_text(HOSTILE)
    state = game.new_state()
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply(state.random_move(rng, state.to_move()[0]))
    assert state.returns() in ((1.0, -1.0), (-1.0, 1.0))
    assert _fuse._FACTORIES
    for params, body in _fuse._FACTORIES:
        source = params + "\n" + body
        _fuse._check(source)
        for word in ("__", "os", "eval", "exec", "system", "getattr", "mro", "'", '"'):
            assert word not in source.replace("_t", "")


@pytest.mark.parametrize("text", [
    "__import__('os')",
    "K0.__class__",
    "st.vars[0] if True else open",
    "K0(st); import os",
    "'text'",
])
def test_the_check_refuses_foreign_text(text):
    with pytest.raises(AssertionError):
        _fuse._check(text)


@pytest.mark.parametrize("value, enabled", [("0", False), ("1", True), (None, True)])
def test_gdl_fuse_in_the_environment_turns_generated_code_off(value, enabled):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "GDL_FUSE"}
    if value is not None:
        env["GDL_FUSE"] = value
    out = subprocess.run([sys.executable, "-c", "from interpreter import _fuse; "
                          "print(_fuse.ENABLED)"], env=env, capture_output=True, text=True,
                         cwd=str(ROOT.parent), check=True)
    assert out.stdout.strip() == str(enabled)


def test_a_def_body_part_called_as_a_closure_sees_the_arguments(monkeypatch):
    # Rendered inline, a def's arguments are temporaries; a part of its body that runs as
    # a closure (here `opponent` once a player is out) reads them from the def's slots,
    # which the generated code must write first.  With `b` as the argument and `a` out,
    # `opponent(b)` has nobody left and fails; with a stale argument it would name `b`.
    text = '''game "t"
players a, b
var first: player? = none
var second: player? = none
def other_of(p: player) = opponent(p)
flow:
    first = other_of(b)
    eliminate a
    second = other_of(b)
    end game
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match="exactly two active players"):
            load_text(text).new_state()


def test_a_call_repeated_in_a_def_body_is_made_afresh_at_every_evaluation(monkeypatch):
    # Inlined, `pick` computes `sq(n)` once, at whichever of its sites runs first (here
    # in one branch or the other) and reuses it after; the loop evaluates the same
    # generated code with other arguments, which must not see the last evaluation's value.
    text = '''game "t"
players a, b
var out[1..3]: int = 0
def sq(n: int) = n * n
def pick(n: int, flag: bool) = if flag then sq(n) + 1 else sq(n) + sq(n) + sq(n + 0)
flow:
    for i in 1..3:
        out[i] = pick(i, i == 2) * 10 + pick(i + 1, i == 2)
    end game
returns(p) = if p == a then out[1] * 1000000 + out[2] * 1000 + out[3] else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        # 3 * 10 + 12, (4 + 1) * 10 + (9 + 1), 27 * 10 + 48
        assert load_text(text).new_state().returns() == (42060318.0, 0.0)


def test_a_def_called_with_a_constant_finds_its_zones_and_variables_when_written(
        monkeypatch):
    # `worth(b)` inlined: `pile[p]` and `bonus[p]` are looked up as the code is written
    # (no look-up left in it); `worth(q)` and a position no table has still look up and
    # fail as they did
    text = '''game "t"
players a, b
enum n = one "1", two "2", three "3"
card n: n
cards into pile[a]: card(n: one)
cards into pile[b]: card(n: m) for m in n if m != one
zone pile[player]: stack
var bonus[player]: int = 5
var row[1..3]: int = 1
var out: int = 0
def worth(p: player) = sum(ord(c.n) + 1 for c in pile[p]) * 10 + bonus[p]
def at(i: int) = row[i]
flow:
    bonus[a] = 7
    out = worth(b) * 1000 + worth(a)
    for q in players:
        out = out * 10 + count(pile[q])
    out = out + at(LAST)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        # worth(b) = (2 + 3) * 10 + 5, worth(a) = 1 * 10 + 7; then counts 1, 2; row[3] = 1
        assert load_text(text.replace("LAST", "3")).new_state().returns()[0] == 5501713
        with pytest.raises(RuleError, match=r"variable row has no element \[4\]"):
            load_text(text.replace("LAST", "4")).new_state()
    import re
    monkeypatch.setattr(_fuse, "ENABLED", True)
    sources = "".join(_generated_sources(load_text(text.replace("LAST", "3"))))
    assert re.search(r"\.get\(_t\d+\)", sources)               # count(pile[q])
    assert not re.search(r"\.get\((K\d+|\(\d+\))\)", sources)  # worth(b), at(3)


def test_returns_worked_out_for_each_seat_as_a_constant_read_the_right_seat(monkeypatch):
    # each seat's return is written with the seat as a constant: its zones, its
    # variables, a loop and a def reading it, a comparison, all for that seat
    text = '''game "t"
players a, b, c
enum n = one "1", two "2", three "3"
card n: n
cards into pile[b]: card(n: m) for m in n if m != one
cards into pile[c]: card(n: one)
zone pile[player]: stack
var bonus[player]: int = 5
def worth(p: player) = sum(ord(x.n) + 1 for x in pile[p]) * 10 + bonus[p]
flow:
    bonus[c] = 7
    end game
returns(p) = worth(p) * 100 + count(q for q in players if q != p and bonus[q] == 5) * 10 \
    + (if p == next(a) then 1 else 0)
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        # a: 0 + 5, one other at 5 (b); b: (2 + 3) * 10 + 5, one other (a), next(a);
        # c: 1 * 10 + 7, two others
        assert load_text(text).new_state().returns() == (510.0, 5511.0, 1720.0)


def test_passes_over_zones_keep_their_order_in_generated_code(monkeypatch):
    # A stack is passed over from the top, a set in card order, whether the zone is a
    # def's parameter (`z`), a zone expression (`box[opponent(b)]`) or a list value.
    text = '''game "t"
players a, b
enum n = one "1", two "2", three "3", four "4"
card n: n
cards into pile: card(n: x) for x in n
zone pile: stack
zone box[player]: set
zone hand[player]: stack
var out: int = 0
def top_of(z: hand) = ord(first(c for c in z).n)
flow:
    move top(pile) to box[a]
    move top(pile) to box[a]
    move top(pile) to hand[a]
    move top(pile) to hand[a]
    out = ord(first(c for c in box[opponent(b)]).n) * 1000 + ord(first(c for c in hand[opponent(b)]).n) * 100 + top_of(hand[a]) * 10 + ord(first(c for c in sublist(cards(hand[a]), 1, 1)).n)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        # the box holds four and three: three first (ord 2); the hand holds two under
        # one: one first (ord 0) from either side, then two (ord 1)
        assert load_text(text).new_state().returns() == (2001.0, 0.0)


def test_next_and_prev_skip_eliminated_seats_in_generated_code(monkeypatch):
    # With nobody out, `next` is one lookup; once p2 is out, the generated code must
    # take the closure that skips it.
    text = '''game "t"
players p1, p2, p3, p4
var out: int = 0
flow:
    out = seat(next(p1)) * 1000 + seat(prev(p1)) * 100
    eliminate p2
    out += seat(next(p1)) * 10 + seat(prev(p3))
    end game
returns(p) = if p == p1 then out else 0
'''
    assert _first_seat_returns(monkeypatch, text) == [2000 + 400 + 30 + 1] * 2


def test_next_and_prev_read_the_seats_left_in_from_memory_once_worked_out(monkeypatch):
    # the first `next` after an elimination works the seats out (the closure); later
    # ones at the same site read them back, and a second elimination is new again
    text = '''game "t"
players p1, p2, p3, p4
var out: int = 0
flow:
    for k in 1..6:
        if k == 3:
            eliminate p2
        if k == 5:
            eliminate p3
        out = out * 10 + seat(next(p1))
        out = out * 10 + seat(prev(p4))
    end game
returns(p) = if p == p1 then out else 0
'''
    assert _first_seat_returns(monkeypatch, text) == [232_333_334_141] * 2


def test_triggers_are_checked_inside_the_generated_run(monkeypatch):
    # each effect is followed by the triggers' check; in generated code the conditions
    # are tested in the run and the check itself is called only where one holds.  Here
    # both ways give the same: the triggers in priority order after each change of
    # total, none after those of after, and a trigger that ends the game stops the check
    # and the rules there.  (tests/test_work_per_playout.py holds the work it saves.)
    text = '''game "t"
players 2
var total: int = 0
var log: int = 0
var after: int = 0
trigger second when changed(total) priority 1:
    log = log * 10 + 2
trigger first when changed(total) priority 5:
    log = log * 10 + 1
trigger over when total >= 20 priority 9:
    win p2
flow:
    total += 4
    after += 1
    total += 8
    after += 1
    total += 9
    after += 1
    draw
returns(p) = if p == p1 then log * 1000 + after * 100 + total else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        state = game.new_state()
        assert state.result is not None and list(state.returns()) == [-1.0, 1.0]
        assert (game.evaluate("log", state), game.evaluate("after", state),
                game.evaluate("total", state)) == (1212, 2, 21)   # no trigger after `over`


def test_a_trigger_order_set_after_the_runs_are_written_is_the_order_used(monkeypatch):
    text = '''game "t"
players 2
var total: int = 0
var bonus: int = 1
trigger doubles when changed(total):
    bonus = bonus * 2
trigger adds when changed(total):
    bonus = bonus + 1
flow:
    total += 1
    total += 1
    draw
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert game.evaluate("bonus", game.new_state()) == 7      # (1 * 2 + 1) * 2 + 1
        game = load_text(text)
        game.compile_now()                  # the runs written, then the order set
        game.set_trigger_order(["adds", "doubles"])
        assert game.evaluate("bonus", game.new_state()) == 10     # ((1 + 1) * 2 + 1) * 2


def test_writes_that_a_trigger_watches_mark_it_in_generated_code(monkeypatch):
    # a plain and an indexed variable, assigned and added to: each write marks its
    # variable for `changed`, the value worked out before the element, as the closures do
    text = '''game "t"
players a, b
var level: int = 0
var score[player]: int = 0
var log: int = 0
trigger on_level when changed(level):
    log = log * 10 + 1
trigger on_score when changed(score):
    log = log * 10 + 2
flow:
    level = 3
    score[b] = level + 1
    score[a] += score[b] * 2
    level += score[a]
    log = log * 10 + 9
    end game
returns(p) = if p == a then log * 1000 + level * 10 + score[a] - score[b] else 0
'''
    assert _first_seat_returns(monkeypatch, text) == [12219 * 1000 + 110 + 4] * 2


def test_text_parts_in_generated_code_do_as_the_closures(monkeypatch):
    # sublist, split (a known separator, one given as an argument, an empty one) and
    # join of values that are not all texts, inline; out of bounds still says why
    text = '''game "t"
players a, b
option words: text = "ab cd  ef"
var out: text = ""
flow:
    out = join(sublist(split(words, " "), 1, 2), "/") + "|" + cut(words, "d") + "|"
    out = out + cut(words, "") + "|" + join([1, 22], "-") + join([a, b], "") + "|"
    out = out + join(sublist(chars(words), 0, 2), "") + "|"
    out = out + join(sublist(split(words, " "), 4 - count(chars("x")), 1), "")
    end game
def cut(t: text, sep: text) = join(split(t, sep), "+")
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        state = load_text(text).new_state()
        assert load_text(text).evaluate("out", state) == \
            "cd/|ab c+  ef|ab+cd+ef|1-22ab|ab|ef"
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match=r"sublist\(\.\., 3, 2\) of a list of 4 items"):
            load_text(text.replace("4 - count", "2 + count").replace(
                "words, \" \"), 2 + count(chars(\"x\")), 1)",
                "words, \" \"), 2 + count(chars(\"x\")), 2)")).new_state()


def test_table_lookups_in_generated_code_do_as_the_closures(monkeypatch):
    # a row of two keys, a row whose value is none (a miss of the inline look-up), the
    # default, and a case the table lacks
    text = '''game "t"
players a, b
var out: int = 0
var seen: player? = a
table bonus(n: 1..3, p: player):
    1, a => 10
    2, b => 20
    else => 3
table holder(n: 1..2):
    1 => a
    2 => none
flow:
    for i in 1..3:
        out = out * 100 + bonus(i, a) * 2 + bonus(i, b)
    seen = holder(2)
    out = out * 10 + (if seen == none then 7 else 0) + (if holder(1) == a then 1 else 0)
    seen = holder(out - out + LAST)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        assert load_text(text.replace("LAST", "2")).new_state().returns()[0] == 2_326_098
        with pytest.raises(RuleError, match="table holder has no case for n=3"):
            load_text(text.replace("LAST", "3")).new_state()


def test_three_index_families_look_up_inline_as_the_closures_do(monkeypatch):
    # `grid[p, r, k]` and `v[i, j, k]` read and written in generated code with one dict
    # look-up by the tuple of indices (a call of the closure before); an index outside
    # the family is the same rule error either way
    text = '''game "t"
players a, b
card n: 1..12
cards into stock: card(n: i) for i in 1..12
zone stock: stack
zone grid[player, 1..2, 1..3]: stack
var v[1..2, 1..2, 1..3]: int = 0
var out: int = 0
var last: int = LAST
flow:
    for p in players:
        for r in 1..2:
            for k in 1..3:
                move top(stock) to grid[p, r, k]
                v[seat(p), r, k] = r * 10 + k
    for r in 1..2:
        for k in 1..3:
            out = out * 2 + (if top(grid[a, r, k]).n > top(grid[b, r, k]).n then 1 else 0)
            out = out + v[2, r, k] - v[1, r, k]
    out = out * 1000 + count(grid[b, last, 1])
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        # a takes 12 down to 7 from the stock's top, b 6 down to 1: a wins all six cells
        assert load_text(text.replace("LAST", "2")).new_state().returns()[0] == 63001
        with pytest.raises(RuleError, match=r"zone grid has no element \[b, 3, 1\]"):
            load_text(text.replace("LAST", "3")).new_state()
    monkeypatch.setattr(_fuse, "ENABLED", True)
    sources = "".join(_generated_sources(load_text(text.replace("LAST", "2"))))
    assert ".get((" in sources


def test_small_builtins_and_displays_in_generated_code_do_as_the_closures(monkeypatch):
    # zone_of, owner, knows, abs, a range and a list display worked out in play
    text = '''game "t"
players a, b
enum suit = spades "S", hearts "H"
card suit: suit
cards into deck: card(suit: s) for s in suit
zone deck: stack
zone hand[player]: set, seen by owner
var out: int = 0
flow:
    move top(deck) to hand[b]
    reveal hand[b] to a
    for c in hand[b]:
        out = (if owner(zone_of(c)) == b then 1 else 0) * 10 + (if knows(a, c) then 1 else 0)
    for c in deck:
        out = out * 10 + (if knows(a, c) then 1 else 0) + (if knows(b, c) then 2 else 0)
    out = out * 100 + abs(out - 1000) + sum(x for x in 1..count(hand[b]) + 2)
    out = out * 10 + sum(x for x in [count(deck), count(hand[b]) + 5, out - out])
    end game
returns(p) = if p == a then out else 0
'''
    assert _first_seat_returns(monkeypatch, text) == [118_967] * 2


def test_reveal_and_eliminate_in_generated_code_do_as_the_closures(monkeypatch):
    # a zone shown to one seat, a card to every seat still in, and a seat put out
    text = '''game "t"
players a, b, c
card n: 1..3
cards into deck: card(n: i) for i in 1..3
zone deck: stack
var out: int = 0
flow:
    reveal top(deck) to b
    eliminate c
    reveal bottom(deck) to players
    for x in deck:
        out = out * 1000 + (if knows(a, x) then 100 else 0) + (if knows(b, x) then 10 else 0) + (if knows(c, x) then 1 else 0)
    out = out * 10 + count(players)
    end game
returns(p) = if p == a then out else 0
'''
    assert _first_seat_returns(monkeypatch, text) == [10_000_110_2] * 2


def test_a_simultaneous_decision_in_generated_code_waits_or_goes_on_as_the_closure(monkeypatch):
    # the run ends at the decision where seats decide, and goes on past one where none do
    text = '''game "t"
players a, b, c
var pick[player]: int = 0
var rounds: int = 0
action say(n: 1..3):
    pick[me] = n
flow:
    for k in 1..2:
        simultaneously p in [q for q in players if seat(q) > 3 * (k - 1)]: say
        rounds += 1
    end game
returns(p) = if p == a then rounds * 100 + sum(pick[q] for q in players) else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        state = game.new_state()
        assert state.is_simultaneous() and len(state.to_move()) == 3
        for seat, move in zip(game.seats, ["say 1", "say 2", "say 3"]):
            state.apply(move, seat)
        assert state.is_terminal() and state.returns()[0] == 206


def test_number_reads_a_text_again_from_its_memory_and_still_refuses_bad_text(monkeypatch):
    text = '''game "t"
players a, b
option digits: text = "12 -3 x"
var out: int = 0
flow:
    for i in 1..3:
        out = out * 100 + number(word(if i == 2 then 1 else 0))
    out += number(word(2))
    end game
def word(i: int) = join(sublist(split(digits, " "), i, 1), "")
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match="'x' is not a whole number"):
            load_text(text).new_state()
        # the loop's third number is the first one again, read from the site's memory
        game = load_text(text, {"digits": "12 -3 7"})
        assert game.new_state().returns()[0] == (12 * 100 - 3) * 100 + 12 + 7


_PURITY = '''game "t"
players a, b
enum shade = light, dark
card face: text, shade: shade
cards into pile: card(face: f, shade: s) for f in {"1", "2", "x"} for s in shade
zone pile: stack
zone hand[player]: stack
var total: int = 0
var out: int = 0
def worth(c: card) = number(c.face) * (if c.shade == dark then 10 else 1)
def twice(c: card) = worth(c) * 2
def is_dark(c: card) = c.shade in {dark}
def nothing(c: card) = if is_dark(c) then none else c
def sq(n: int) = n * n
def with_total(c: card) = worth(c) + total
def held(c: card) = c in hand[a]
def seated(p: player) = p in players
def hand_size(p: player) = count(hand[p])
def sum_of(p: player) = sum(worth(c) for c in hand[p])
def shade_worth(s: shade) = sum(worth(c) for c in card if c.shade == s and c.face != "x")
def seat_total(p: player) = sum(seat(q) for q in all_players) + seat(p)
def up_to(n: int) = [k * k for k in 1..n]
def still_in(p: player) = count(q != p for q in players)
flow:
    for c in pile:
        if c.face != "x":
            out = out + twice(c) + with_total(c) + (if nothing(c) == none then 1000 else 0)
    total = 7
    out = out * 100 + with_total(first(c for c in pile if c.face == "2" and c.shade == light))
    for c in pile:
        out = out + worth(c)
    end game
returns(p) = if p == a then out else 0
'''


def test_a_def_is_remembered_only_when_it_reads_nothing_but_its_arguments():
    from interpreter._purity import pure_def, rememberable
    prog = load_text(_PURITY).prog
    pure = {name for name in prog.defs if pure_def(prog, name)}
    # sums and lists over every card, the seats, an enum or a range are pure, over a
    # zone's cards or the seats still in they are not
    assert pure == {"worth", "twice", "is_dark", "nothing", "sq", "shade_worth",
                    "seat_total", "up_to"}
    assert {n for n in pure if rememberable(prog, prog.defs[n])} == pure


def test_a_sum_over_every_card_is_remembered_per_argument(monkeypatch):
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(_PURITY.replace('"2", "x"}', '"2", "3"}'))
        state = game.new_state()
        for _ in range(3):
            assert game.evaluate("shade_worth(dark)", state) == 60
            assert game.evaluate("shade_worth(light)", state) == 6
        answers = game.prog.compiler.def_answers["shade_worth"]
        assert sorted(answers.values()) == [6, 60]


def test_remembered_defs_answer_as_the_body_does_and_still_fail_where_it_fails(monkeypatch):
    # `worth` fails on the card "x"; the first loop skips it, the last reaches it.
    # `nothing` answers none for the dark cards, which is never kept; `with_total`
    # reads a variable that changed after `worth` of the same card was kept.
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match="'x' is not a whole number"):
            load_text(_PURITY).new_state()
        game = load_text(_PURITY.replace('"2", "x"}', '"2", "3"}'))
        # three times the worth of 1, 2, 3 and 10, 20, 30, a thousand per dark card; then
        # the light 2's worth and 7 (not the 2 it was with the total at 0); then the worths
        assert game.new_state().returns()[0] == (198 + 3000) * 100 + 9 + 66
        answers = game.prog.compiler.def_answers
        assert len(answers["worth"]) == 6 and len(answers["is_dark"]) == 6
        assert all(v is not None for v in answers["nothing"].values())
        assert len(answers["nothing"]) == 3 and "with_total" not in answers


def test_defs_of_numbers_and_truth_values_are_remembered_per_argument(monkeypatch):
    # `bit(m, i)` (a bit of a mask: a table and a division) is kept per (m, i); `pick`
    # with 1 and true in its two positions keeps four answers, never one for another
    text = '''game "t"
players a, b
var out: int = 0
table pow2(i: 0..3):
    0 => 1
    1 => 2
    2 => 4
    3 => 8
def bit(m: int, i: int) = (m / pow2(i)) % 2 == 1
def size(m: int) = count(bit(m, i) for i in 0..3)
def pick(n: int, up: bool) = if up then n * 10 else n + 1
flow:
    for m in 0..15:
        out = out * 2 + size(m) % 2
    out = out * 1000 + pick(1, true) + pick(1, false) * 100
    out = out * 100 + pick(0, true) + pick(0, false) + pick(1, true)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        # the parity of each mask's bits, 0..15: 0110 1001 1001 0110
        assert game.new_state().returns()[0] == ((0b0110100110010110 * 1000) + 210) * 100 \
            + 0 + 1 + 10
        answers = game.prog.compiler.def_answers
        assert len(answers["bit"]) == 64 and len(answers["size"]) == 16
        assert answers["pick"] == {(1, True): 10, (1, False): 2, (0, True): 0, (0, False): 1}


#: the start of the move tests' games: five cards one to five in a pile, five on top;
#: a set zone `box` and a face-up stack `row`
FIVE_CARDS = '''game "t"
players a, b
enum n = one "1", two "2", three "3", four "4", five "5"
card n: n
cards into pile: card(n: x) for x in n
zone pile: stack
zone box: set
zone row: stack, face up
'''


def test_moving_the_top_cards_of_a_zone_as_a_block_does_as_the_closures(monkeypatch):
    # `move top(z, n) ...` in generated code moves the top n as one block
    # (State.move_block), no tuple of them made: onto a stack, at a depth, to the
    # bottom, into a set, within one zone; a count out of range is top()'s error, a bad
    # depth the move's (after the cards left, as move_cards leaves them), none moved
    # still checks the depth.  Hand-computed, top first: the pile 5 4 3 2 1; 5 4 go onto
    # the row, 3 2 in below the 5 (5 3 2 4), 5 3 2 under the pile's 1 (1 5 3 2), 1 5 into
    # the box (card order), then the pile's 3 goes in below its 2.
    text = FIVE_CARDS + '''option k: int = 0
option d: int = 0
option fail: bool = false
flow:
    move top(pile, 2) to row
    move top(pile, 2) to row at depth 1
    move top(row, 3) to bottom of pile
    move top(pile, 2) to box
    move top(pile, 1) to pile at depth 1
    if fail:
        move top(row, k) to pile at depth d
    end game
returns(p) = 0
'''
    def texts(st, zone):
        return [c.text for c in st.cards_in(zone)]
    found = {}
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        st = load_text(text).new_state()
        assert [texts(st, z) for z in ("pile", "row", "box")] == \
            [["2", "3"], ["4"], ["1", "5"]]
        found[enabled] = ([[c.id for c in z] for z in st.zones], st.loc, st.up)
        for k, d, error in ((2, 0, r"top\(zone, 2\) but the zone has 1 card"),
                            (0, 5, "cannot insert at depth 5"),
                            (1, 3, "cannot insert at depth 3")):
            broken = load_text(text, {"fail": "true", "k": str(k), "d": str(d)})
            with pytest.raises(RuleError, match=error):
                broken.new_state()
    assert found[True] == found[False]
    assert all(st.up[c.id] for c in st.cards_in("row"))
    assert "st.move_block(" in "".join(_generated_sources(load_text(text)))


def test_a_list_naming_a_card_twice_is_a_rule_error_at_the_move(monkeypatch):
    # the same card twice in a list to move (a card and itself, the top and bottom of a
    # zone of one card) is the rule's error, placed at the move, not an internal error
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        for cards, where in (("[top(pile), bottom(box)]", None),
                             ("[top(pile), top(pile)]", "12:5"),
                             ("[top(box), bottom(box)]", "12:5")):
            game = load_text(FIVE_CARDS + f'''flow:
    move top(pile, 3) to row
    move top(pile) to box
    move {cards} to row
    end game
returns(p) = count(row)
''')
            if where is None:
                assert game.new_state().returns()[0] == 5
                continue
            with pytest.raises(RuleError, match=r"the cards to move name \w+ twice") as info:
                game.new_state()
            assert f":{where}:" in str(info.value) and "move " in str(info.value)


def test_moves_and_flips_written_out_in_generated_code_do_as_the_closures(monkeypatch):
    # One card onto a stack or into a set (at its place in card order) is written out:
    # from the top of its zone or from the middle, with the zone's facing or a given one;
    # several cards and none take the closures' ways.  A flip of a zone needs no order, a
    # list or one card flips as given.
    text = FIVE_CARDS + '''var out: int = 0
var gone: card? = none
flow:
    move top(pile) to row
    move top(pile) to box
    move first(c for c in pile if c.n == two) to top of row face down
    move top(pile) to box
    out = ord(top(row).n) * 10000 + (if faceup(top(row)) then 1000 else 0) + (if faceup(first(c for c in row if c.n == five)) then 100 else 0) + ord(first(c for c in box).n) * 10 + count(pile)
    move row to top of pile
    out = out * 100 + ord(top(pile).n) * 10 + count(pile)
    flip pile up
    flip [c for c in box] down
    flip top(pile) down
    out = out * 1000 + count(c for c in pile if faceup(c)) * 100 + count(c for c in box if faceup(c)) * 10 + (if faceup(top(pile)) then 1 else 0)
    if out > 0:
        move gone to row
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match="this value is none, where a card is needed"):
            load_text(text).new_state()
        game = load_text(text.replace("        move gone to row", "        pass"))
        # the row: two (face down) on five (face up); the box: three and four; the pile:
        # one.  Then the row onto the pile: two on top, three cards; all face up, then
        # the box and the pile's top face down.
        assert game.new_state().returns()[0] == ((10000 + 100 + 20 + 1) * 100 + 13) * 1000 + 200


def test_a_loop_in_a_def_body_gets_the_arguments_and_the_loops_around_it(monkeypatch):
    # `within` is a loop in a def body: compiled with the def's parameters as its own
    # arguments, called from `score`'s inlined body with what it holds, and from a loop
    # over `y`; in `weighted`, the inner loop reads the outer loop's `y` from its slot.
    text = '''game "t"
players a, b
enum n = one "1", two "2", three "3"
card n: n
cards into pile: card(n: x) for x in n for i in 1..2
zone pile: stack
zone spot[1..2]: stack
var out: int = 0
def within(z: spot, lo: int, hi: int) = count(c for c in z if ord(c.n) >= lo and ord(c.n) <= hi)
def score(z: spot, k: int) = within(z, k, k) * 100 + sum(within(z, y, k) for y in 0..k)
def mixed(k: int) = sum(within(spot[2], y, y + k) * y for y in 0..2)
def weighted(z: spot, k: int) = sum(count(c for c in z if ord(c.n) == y) * (y + k) for y in 0..2)
flow:
    repeat 6:
        move top(pile) to spot[2]
    out = score(spot[2], 1) * 1000 + score(spot[2], 2)
    out = out * 100 + mixed(1)
    out = out * 100 + weighted(spot[2], 1)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        # two cards of each ord 0..2; score(1) = 2*100 + (4 + 2), score(2) = 200 + 6+4+2,
        # mixed(1) = 0*4 + 1*4 + 2*2, weighted(1) = 2*1 + 2*2 + 2*3
        assert load_text(text).new_state().returns()[0] == \
            ((206 * 1000 + 212) * 100 + 8) * 100 + 12


def test_whole_zones_moved_as_blocks_do_as_the_closures(monkeypatch):
    # A zone moved whole keeps its order on a stack and is sorted into a set; an empty
    # zone moves nothing; a zone moved onto itself stays as it was; the given facing, or
    # else the destination's, applies to every card.
    steps = ["move top(pile) to row", "move top(pile) to row", "move pile to box",
             "move box to top of row face down", "move empty to row",
             "move row to row face up", "move top(row) to box", "move row to box",
             "move box to pile"]
    head = FIVE_CARDS + '''zone empty: stack
flow:
'''

    def after(k):
        st = load_text(head + "".join(f"    {s}\n" for s in steps[:k]) +
                       "    end game\nreturns(p) = 0\n").new_state()
        return tuple("".join(c.text + ("u" if st.up[c.id] else "d")
                             for c in st.cards_in(z)) for z in ("pile", "box", "row"))
    # the pile starts 5 4 3 2 1 (top first), face down; (pile, box, row) top first
    expected = {0: ("5d4d3d2d1d", "", ""),
                3: ("", "1d2d3d", "4u5u"),
                4: ("", "", "3d2d1d4u5u"),
                5: ("", "", "3d2d1d4u5u"),
                6: ("", "", "3u2u1u4u5u"),
                7: ("", "3d", "2u1u4u5u"),
                8: ("", "1d2d3d4d5d", ""),
                9: ("5d4d3d2d1d", "", "")}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        assert {k: after(k) for k in expected} == expected


def test_a_run_that_goes_back_to_its_start_loops_in_place(monkeypatch):
    # A loop whose body and step fit in one run goes round inside the generated function
    # (`while True` ... `continue`) instead of returning to the instruction loop, with
    # the state's lists it names read into locals first; the step budget still stops a
    # loop that never ends.
    import linecache
    text = '''game "t"
players a, b
var out: int = 0
flow:
    for i in 1..5:
        for k in 1..3:
            out += i * k
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert game.new_state().returns()[0] == 15 * 6
        sources = ["".join(linecache.cache[fn.__code__.co_filename][2])
                   for fn in game.prog.code
                   if fn.__code__.co_filename.startswith("<gdl fused")]
        assert any("while True:" in s and "continue" in s for s in sources) is enabled
        # the run names the frame over and over: it reads the list into a local once
        assert any(" = st.frame\n" in s and "st.frame[" not in s for s in sources) is enabled
        endless = load_text(text.replace("for k in 1..3:", "while true:")
                            .replace("out += i * k", "out += i"))
        with pytest.raises(RuleError, match="loop for ever"):
            endless.new_state()


def test_a_long_branch_leaves_room_for_the_path_past_it(monkeypatch):
    # The branch of an `if` gets at most half of a run's budget: a refill-like branch of
    # twenty statements, taken once, must not cut short the common path past it, which
    # the run entering at the `if` (the loop body's start) then takes on to the loop step.
    import linecache
    rare = "".join(f"            extra += {k}\n" for k in range(20))
    text = f'''game "t"
players a, b
var out: int = 0
var extra: int = 0
flow:
    for i in 1..30:
        if i == 1:
{rare}        out += i
    end game
returns(p) = if p == a then out + extra else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert game.new_state().returns()[0] == 465 + 190
        sources = ["".join(linecache.cache[fn.__code__.co_filename][2])
                   for fn in game.prog.code
                   if fn.__code__.co_filename.startswith("<gdl fused")]
        at_the_if = [s for s in sources
                     if [ln.strip() for ln in s.splitlines() if "= st." not in ln][2]
                     .startswith("if (")]
        assert len(at_the_if) == enabled
        assert all("st.budget -= 1" in s for s in at_the_if)


def test_the_ends_of_a_runs_branches_count_against_its_text():
    # Forty `if n == k: end game` in a row, each branch ending in the end of the game
    # (every seat's returns, a long text): each branch's end is charged to the run's
    # text, so the path past it has less, and no run holds more than a few times
    # `MAX_TEXT` (uncharged, the longest held some forty ends: 65,000 characters).
    import linecache
    expr = " + ".join(f"(s[{i % 4 + 1}] * {i + 3} - s[{(i + 1) % 4 + 1}])" for i in range(25))
    ifs = "\n".join(f"    if n == {k}:\n        end game" for k in range(40))
    text = f'''game "t"
players 4
var n: int = 0
var s[1..4]: int = 0
returns(p) = if p == p1 then {expr} else if p == p2 then 0 - ({expr}) else 1
action go():
    n = 1
flow:
    choose p1: go
{ifs}
    win p1
'''
    game = load_text(text)
    game.compile_now()
    sizes = [len("".join(linecache.cache[fn.__code__.co_filename][2]))
             for fn in game.prog.code
             if fn.__code__.co_filename.startswith("<gdl fused")]
    assert sizes and max(sizes) < 4 * _fuse.MAX_TEXT
    state = game.new_state()
    state.apply(state.legal_moves()[0])
    assert state.is_terminal() and state.returns()[2] == 1.0


def test_deals_written_out_do_as_the_closures(monkeypatch):
    # `deal` takes the source's top card each time, round after round over the seats;
    # a set zone keeps card order, a stack the dealing order (last dealt on top); the
    # zone's own facing applies unless the deal names one; an empty source is an error.
    text = '''game "t"
players a, b
enum n = one "1", two "2", three "3", four "4", five "5", six "6", seven "7"
card n: n
cards into pile: card(n: x) for x in n
zone pile: stack
zone hand[player]: set
zone row[player]: stack, face up
flow:
    deal 2 from pile to hand[p] for p in players
    deal 1 from pile to row[p] for p in [b, a]
    deal 1 from pile to row[p] for p in players face down
    end game
returns(p) = 0
'''

    def after(t):
        st = load_text(t).new_state()
        return tuple("".join(c.text + ("u" if st.up[c.id] else "d")
                             for c in st.cards_in(z))
                     for z in ("pile", "hand[a]", "hand[b]", "row[a]", "row[b]"))
    # the pile starts 7 6 5 4 3 2 1 (top first): a gets 7 and 5, b 6 and 4; b then a get
    # 3 and 2 face up; a gets 1 face down, and the pile runs dry for b
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        two = text.replace("    deal 1 from pile to row[p] for p in players face down\n", "")
        assert after(two) == ("1d", "5d7d", "4d6d", "2u", "3u")
        with pytest.raises(RuleError, match="cannot deal: the source zone is empty"):
            after(text)
        assert after(text.replace("for p in players face down", "for p in [a] face down")) \
            == ("", "5d7d", "4d6d", "1d2u", "3u")


def test_fields_of_cards_drawn_from_zones_skip_the_none_test(monkeypatch):
    # A parameter, a comprehension variable or a loop variable over a zone is always a
    # card: its `.rank` is read without testing for none.  A variable that may be none
    # still is tested, and reports a none the same way fused or plain.  A require that
    # holds under the options given is not tested at all.  (`ord(c.rank)`: a field
    # compared as it is would be a set's filter, `field_filter`, with no loop.)
    import re
    text = '''game "t"
players a, b
option strict: bool = false
enum n = one "1", two "2", three "3", four "4"
card rank: n
cards into pile: card(rank: x) for x in n
zone pile: stack
zone hand[player]: set
var led: card? = none
var total: int = 0
action play(c: hand[me]):
    require not strict or c.rank != four
    require led == none or ord(c.rank) != ord(led.rank) or all(ord(x.rank) == ord(led.rank) for x in hand[me])
    led = c
    move c to pile
flow:
    deal 2 from pile to hand[p] for p in players
    choose a: play
    for c in hand[b]:
        total += if c.rank == three then 1 else 0
    led = none
    total += if led.rank == one then 1 else 0
returns(p) = 0
'''
    for enabled, strict in ((True, False), (True, True), (False, False), (False, True)):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text, {"strict": strict})
        st = game.new_state()
        seat = st.to_move()[0]
        assert [m.text for m in st.legal_moves(seat)] == ["play 2"] + ["play 4"] * (not strict)
        with pytest.raises(RuleError, match=r"no card to take \.rank of \(the value is none\)"):
            st.apply(st.legal_moves(seat)[0])
        assert len(game.prog.compiler.action_info["play"].staged[1]) == 1 + strict
        if not enabled:
            continue
        sources = _generated_sources(game)
        (lister,) = [s for s in sources if ".append((" in s]
        # `c` held in a temporary or its slot; a card's field read by its id (`_e_Attr`)
        held = re.search(r"for (_t\d+) in ", lister)
        unchecked = re.findall(r"\bK\d+\[(?:_t\d+\[\d+\]|%s)\.id\]" % held[1], lister)
        assert len(unchecked) == 1 + strict                     # c.rank, once per require
        assert len(re.findall(r"is None else K\d+\[_t\d+\.id\]", lister)) == 1   # led.rank
        assert any(re.search(r"for _t(\d+) in .*\n.*\bK\d+\[_t\1\.id\]", s) for s in sources)
        assert any(re.search(r"\]\.id\] == K\d+\)", s) for s in sources)


def _generated_sources(game) -> list:
    """The source of every generated function a game's program reaches: its runs, its
    actions' listings, and the functions those call (found in their closures, or in a
    generated function's globals, `K0`, `K1`, ...); the runs not entered yet are compiled
    first."""
    import linecache
    game.compile_now()
    todo = list(game.prog.code) + [i.chunks for i in game.prog.compiler.action_info.values()]
    seen, out = set(), []
    while todo:
        fn = todo.pop()
        if id(fn) in seen or not callable(fn):
            continue
        seen.add(id(fn))
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_filename.startswith("<gdl fused"):
            out.append("".join(linecache.cache[code.co_filename][2]))
            todo += [v for k, v in fn.__globals__.items() if k[:1] == "K"]
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                todo.append(cell.cell_contents)
            except ValueError:
                pass
    return out


def test_packets_move_as_the_rules_say_from_the_top_or_from_inside():
    # Several cards at once: the top packet of a zone (cut off in one piece), a packet
    # from inside it (taken card by card), onto the same zone at a depth, onto the
    # bottom, or into a set zone (card order).  Positions computed by hand.
    head = '''game "t"
players a, b
enum n = one "1", two "2", three "3", four "4", five "5", six "6"
card n: n
cards into deck: card(n: x) for x in n
zone deck: stack
zone other: stack
zone box: set
flow:
'''

    def after(*steps):
        st = load_text(head + "".join(f"    {s}\n" for s in steps) +
                       "    end game\nreturns(p) = 0\n").new_state()
        return tuple("".join(c.text for c in st.cards_in(z)) for z in ("deck", "other", "box"))
    # the deck starts 6 5 4 3 2 1 (top first)
    assert after("move top(deck, 2) to deck at depth 1") == ("465321", "", "")
    assert after("move top(deck, 3) to deck at depth 3") == ("321654", "", "")
    assert after("move top(deck, 2) to bottom of deck") == ("432165", "", "")
    assert after("move sublist(cards(deck), 1, 2) to deck at depth 2") == ("635421", "", "")
    assert after("move top(deck, 2) to other", "move top(deck, 3) to box") == \
        ("1", "65", "234")
    assert after("move top(deck, 0) to other") == ("654321", "", "")
    assert after("move top(deck, 6) to other", "move top(other, 2) to other") == \
        ("", "654321", "")


def test_a_packet_moved_within_its_zone_takes_the_facing_and_stays_there(monkeypatch):
    # A block moved within its zone stays in that zone and takes the move's facing: the deck 6 5 4 3 2 1 face down, its top two in below the 4 face
    # up (4 6 5 3 2 1), the 4 away, then the 6 to the bottom with the deck's facing.
    text = '''game "t"
players a, b
enum n = one "1", two "2", three "3", four "4", five "5", six "6"
card n: n
cards into deck: card(n: x) for x in n
zone deck: stack, face down
zone other: stack
flow:
    move top(deck, 2) to deck at depth 1 face up
    move top(deck, 1) to other
    move top(deck, 1) to bottom of deck
    end game
returns(p) = 0
'''
    for enabled in (False, True):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        st = load_text(text).new_state()
        deck = st.cards_in("deck")
        assert "".join(c.text for c in deck) == "53216"
        assert [st.up[c.id] for c in deck] == [True, False, False, False, False]
        slot = st.game.prog.zone_plain["deck"].slot
        assert all(st.loc[c.id] == slot for c in deck)
        assert [c.text for c in st.cards_in("other")] == ["4"]


def test_players_inline_while_nobody_is_out(monkeypatch):
    # `players` is every seat, in seat order, until someone is eliminated; then the seats
    # still in.  Generated code reads the seats' tuple inline and calls only after that.
    text = '''game "t"
players a, b, c
var before: int = 0
var after: int = 0
var last: player? = none
flow:
    before = count(players)
    eliminate b
    after = count(players)
    for p in players:
        last = p
    end game
returns(p) = if p == a then before * 10 + after else if last == c then 1 else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        st = load_text(text).new_state()
        assert tuple(st.returns()) == (32.0, 1.0, 1.0)


def test_a_lone_card_parameter_lists_the_first_card_of_each_kind_that_passes(monkeypatch):
    # Cards with twins: the generated list of `play` keeps, in hand order, the first
    # card of each kind that passes the require (a twin of a card that fails may pass);
    # `toss` has no require and merges all the same.  Random moves draw from those lists,
    # fused or not, and name only the cards legal_moves offers.
    import re
    text = '''game "t"
players a, b
card n: 1..4, mark: 1..2
cards into stock: card(n: k, mark: 1) for k in [1, 1, 2, 2, 3, 3]
cards into stock: card(n: 2, mark: 2)
zone stock: stack
zone hand[player]: stack, face up
zone pile: stack, face up
action play(c: hand[me]):
    require c.n != 3 and c != top(hand[me])
    move c to pile
action toss(c: hand[me]):
    move c to pile
flow:
    deal 7 from stock to hand[p] for p in [a]
    choose a: play, toss
returns(p) = 0
'''
    picks = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        st = game.new_state()
        hand = st.cards_in("hand[a]")
        legal = st.legal_moves()
        offered = {id(c) for m in legal for c in m.args}
        got = [st.random_move(random.Random(i)) for i in range(80)]
        assert all(id(c) in offered for m in got for c in m.args)
        assert {(m.text, id(m.args[0])) for m in got} == {(m.text, id(m.args[0])) for m in legal}
        picks[enabled] = [(m.action.name, [c.id for c in m.args]) for m in got]
        texts = [m.text for m in legal]
        assert len(texts) == len(set(texts))
        kinds = [(c.attrs["n"], c.attrs["mark"]) for c in hand]
        firsts = [c for i, c in enumerate(hand) if kinds.index(kinds[i]) == i]
        assert [m.args[0] for m in legal if m.action.name == "toss"] == firsts
        passing = [c for c in hand[1:] if c.attrs["n"] != 3]        # hand[0] is the top
        want = [c for i, c in enumerate(passing)
                if [(d.attrs["n"], d.attrs["mark"]) for d in passing].index(
                    (c.attrs["n"], c.attrs["mark"])) == i]
        assert [m.args[0] for m in legal if m.action.name == "play"] == want
        assert want[0] is hand[1] and hand[1].attrs["n"] == hand[0].attrs["n"]  # its twin
        if enabled:
            info = game.prog.compiler.action_info
            assert info["play"].merged and info["toss"].merged
            listers = [s for s in _generated_sources(game) if ".append((" in s]
            assert len(listers) == 2
            # each kind's first card kept by a dict, its values listed in order
            assert all(re.search(r"(_t\d+)\.setdefault\((_t\d+)\.kind, \2\)", s) and
                       re.search(r"= \[\*_t\d+\.values\(\)\]", s) for s in listers)
    assert picks[True] == picks[False]
    assert {name for name, _ in picks[True]} == {"play", "toss"}


def test_a_value_repeated_as_often_as_an_inner_loop_runs_is_generated_code(monkeypatch):
    # `[d for d in 1..3 for i in 1..left[d]]` lists each d left[d] times (none for 0 or
    # less): in a def with a parameter and in a rule, written out as one loop, fused or
    # not; the count is the range's length without making the range, whatever its start.
    text = '''game "t"
players a, b
var left[1..3]: int = 0
var total: int = 0
var seen: int = 0
var from2: int = 0
var fromk: int = 0
def pool(k: int) = [d for d in 1..3 for i in 1..left[d]]
def pool_from(k: int) = [d for d in 1..3 for i in k..left[d]]
flow:
    left[1] = 2
    left[2] = -2
    left[3] = 3
    for d in pool(7):
        total = total * 10 + d
    seen = count([d for d in 1..3 for i in 1..left[d]])
    from2 = count([d for d in 1..3 for i in 2..left[d]])
    fromk = count(pool_from(3)) * 10 + count(pool_from(-2))
    end game
returns(p) = if p == a then total else seen * 1000 + from2 * 100 + fromk
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert tuple(game.new_state().returns()) == (11333.0, 5000 + 300 + 10 + 12.0)
        if enabled:
            sources = _generated_sources(game)
            assert sum("] * (" in s for s in sources) >= 2
            assert not any("] * len(" in s for s in sources)


#: four cards, two of each suit, in a pile: the header of the tests on texts
TWO_SUITS = '''game "t"
players a, b
enum suit = clubs "C", hearts "H"
card rank: 1..2, suit: suit
cards into pile: card(rank: r, suit: s) for s in suit for r in 1..2
zone pile: stack
'''


def test_text_and_join_give_every_kind_of_value_its_text_fused_or_not(monkeypatch):
    # `text(x)` and `join` take a card's, member's, seat's or zone's own text, an int's
    # digits and a text as it is without calling `text_of`; the rest (truth values, none,
    # lists) still go through it; a constant's text is known before play.  The same texts
    # either way.
    text = TWO_SUITS + '''zone box[player]: stack
var flag: bool = true
var who: player? = none
var num: int = 12
var colour: suit = hearts
var z: box? = none
var out: text = ""
var all: text = ""
var fixed: text = ""
flow:
    z = box[a]
    out = text(top(pile)) + "|" + text(colour) + "|" + text(opponent(a)) + "|" + text(z) + "|" + text(num) + "|" + text(flag) + "|" + text(who) + "|" + text("x" + "y") + "|" + text([num, 2])
    all = join([text(top(pile)), "y"], ",") + ";" + join([num, 2], "-") + ";" + join(chars("ab"), "+") + ";" + join([colour, clubs], "")
    fixed = text(12) + text(hearts) + text(b) + text(box[b])
    end game
returns(p) = 0
'''
    seen = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        st = game.new_state()
        slots = game.prog.var_slots
        seen[enabled] = (st.vars[slots["out"]], st.vars[slots["all"]], st.vars[slots["fixed"]],
                         st.cards_in("pile")[0].text)
        if enabled:
            assert any(".text if (" in s for s in _generated_sources(game))
    assert seen[True] == seen[False]
    out, joined, fixed, top = seen[True]
    assert out.split("|") == [top, "H", "b", "box[a]", "12", "true", "none", "xy", "[12,2]"]
    assert joined == f"{top},y;12-2;a+b;HC"
    assert fixed == "12Hbbox[b]"


def test_a_let_local_is_assigned_in_its_slot_in_generated_code(monkeypatch):
    # `row = row + text(d)` and `n += d` on locals made by `let`: written to the frame
    # slot inline, not through the writer's closure; the same values fused or not.
    import re
    text = '''game "t"
players a, b
var made: text = ""
var sum: int = 0
flow:
    let row = ""
    let n = 1
    for d in 1..4:
        row = row + text(d)
        n += d
    made = row
    sum = n
    end game
returns(p) = sum
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        st = game.new_state()
        assert st.vars[game.prog.var_slots["made"]] == "1234" and st.returns()[0] == 11
        if enabled:
            sources = "\n".join(_generated_sources(game))
            own = r"(?:st\.frame|_t\d+)\[(\d+)\] = \(?(?:st\.frame|_t\d+)\[\1\] \+"
            assert len(set(re.findall(own, sources))) == 2     # row's slot and n's slot
            assert not re.search(r"K\d+\(st, \(?(?:st\.frame|_t\d+)\[\d+\] \+", sources)


def test_players_answer_for_each_set_of_seats_out_in_every_game(monkeypatch):
    # The seats still in are remembered per set of seats out, for the program: games
    # that eliminate different seats, one after the other, each get their own.
    text = '''game "t"
players a, b, c
var seen: int = 0
action drop_b():
    eliminate b
action drop_c():
    eliminate c
flow:
    choose a: drop_b, drop_c
    for p in players:
        seen = seen * 10 + (if p == a then 1 else if p == b then 2 else 3)
    end game
returns(p) = seen
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        for move, want in (("drop_b", 13), ("drop_c", 12), ("drop_b", 13)):
            st = game.new_state()
            st.apply(move)
            assert st.returns()[0] == want, move


def test_a_move_list_keeps_loop_invariant_parts_in_locals_computed_where_first_reached(
        monkeypatch):
    # `led.n` is the same for every candidate `c`: the generated list keeps it in a
    # temporary its loop starts unset, computes it where it is first reached and reads it
    # after.  Never before: with `led` none, `led != none` is false and `led.n` (which
    # would raise) is not evaluated at all.
    import re
    text = '''game "t"
players a, b
card n: 1..5
cards into stock: card(n: k) for k in 1..5
zone stock: stack
zone hand[player]: set, face up
var led: card? = none
action lead(c: hand[me]):
    led = c
    move c to stock
action follow(c: hand[me]):
    require led != none and c.n + led.n > 5
    move c to stock
action wait():
    pass
flow:
    deal 2 from stock to hand[p] for p in players
    choose b: follow, wait
    choose a: lead
    choose b: follow, wait
returns(p) = 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        st = game.new_state()
        assert [m.text for m in st.legal_moves()] == ["wait"]
        st.apply("wait")
        hand = st.cards_in("hand[b]")
        follows = 0
        for lead in [m.text for m in st.legal_moves()]:
            s = st.clone()
            s.apply(lead)
            n = int(lead.split()[1])
            want = [f"follow {c.text}" for c in hand if c.attrs["n"] + n > 5] + ["wait"]
            assert [m.text for m in s.legal_moves()] == want, lead
            follows += len(want) - 1
        assert follows >= 2
        if enabled:
            (lister,) = [s for s in _generated_sources(game)
                         if ".append((" in s and "is not K" in s]
            assert re.search(r"\n\s*(_t\d+ = )+K\d+\n\s*for ", lister)  # started unset
            assert re.search(r"\(_t(\d+) if _t\1 is not K\d+ else \(_t\1 := ", lister)
            assert not re.search(r"\[0\] == K\d+\[", lister)       # no epoch-kept memo


def test_a_loop_invariant_call_in_a_move_list_leaves_the_candidates_held(monkeypatch):
    # `all(...)` over the hand is the same for every candidate and runs as a call of its
    # own: computed once per list, it writes the candidate to its slot once, where it
    # runs, and the loop holds each candidate in a temporary instead of writing the slot.
    import re
    text = '''game "t"
players a, b
card n: 1..6
cards into stock: card(n: k) for k in 1..6
zone stock: stack
zone hand[player]: set, face up
var led: card? = none
action lead(c: hand[me]):
    led = c
    move c to stock
action follow(c: hand[me]):
    require c.n % 2 == led.n % 2 or all(x.n % 2 != led.n % 2 for x in hand[me])
    move c to stock
flow:
    deal 3 from stock to hand[p] for p in players
    choose a: lead
    choose b: follow
returns(p) = 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        st = game.new_state()
        hand = st.cards_in("hand[b]")
        for lead in [m.text for m in st.legal_moves()]:
            s = st.clone()
            s.apply(lead)
            n = int(lead.split()[1])
            same = [c for c in hand if c.attrs["n"] % 2 == n % 2]
            want = [f"follow {c.text}" for c in (same or hand)]
            assert [m.text for m in s.legal_moves()] == want, lead
        if enabled:
            (lister,) = [s for s in _generated_sources(game)
                         if ".append((" in s and "is not K" in s]
            loop = lister[lister.index("for "):]
            assert not re.search(r"for (_t\d+) in .*:\n\s*\S+\[\d+\] = \1\n", loop)
            assert re.search(r"for (_t\d+) in .*:\n\s*if \(*(K\d+\[)?\1\.", loop)  # c.n by id


def test_cards_drawn_from_zones_moved_to_zones_named_outright(monkeypatch):
    # A `for` variable over a zone and an action parameter are cards, never none or a
    # zone: their moves are written out without testing what they are.  A destination
    # named outright has its slot, its kind (a set keeps card order) and its facing
    # written in.  The pile is 1..5, five on top; two and four go to the row (two on
    # top, face up as the row is), five to the box; `take` puts three or one in the box.
    text = FIVE_CARDS + '''var out: int = 0
action take(c: pile):
    move c to box
flow:
    for c in pile:
        if c.n == two or c.n == four:
            move c to row
        elif c.n == five:
            move c to box
    choose a: take
    out = ord(top(row).n) * 1000 + ord(first(c for c in box).n) * 100 + count(pile) * 10 + (if faceup(top(row)) then 1 else 0) + (if faceup(first(c for c in box)) then 10000 else 0)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        st = load_text(text).new_state()
        assert [m.text for m in st.legal_moves()] == ["take 3", "take 1"]
        got = {}
        for move in ("take 3", "take 1"):
            s = st.clone()
            s.apply(move)
            got[move] = s.returns()[0]
        # the box in card order: three before five, one before five, face down
        assert got == {"take 3": 1211, "take 1": 1011}


def test_a_seats_zone_lists_its_cards_top_first_or_in_card_order(monkeypatch):
    # `c: hand[me]` lists the zone's cards inline in generated code: a set zone in card
    # order, a stack top first; a card moved into a family of sets goes to its place.
    # The pile is 1..8, eight on top, dealt a card at a time to a, then b: a's hand gets
    # 8 and 4, its row 6 then 2 (on top); b's hand 7 and 3, its row 5 then 1.
    text = '''game "t"
players a, b
enum n = one "1", two "2", three "3", four "4", five "5", six "6", seven "7", eight "8"
card n: n
cards into pile: card(n: x) for x in n
zone pile: stack
zone hand[player]: set
zone row[player]: stack
action give(c: hand[me]):
    move c to pile
action lay(c: row[me]):
    move c to hand[opponent(me)]
flow:
    deal 1 from pile to hand[p] for p in players
    deal 1 from pile to row[p] for p in players
    deal 1 from pile to hand[p] for p in players
    deal 1 from pile to row[p] for p in players
    choose a: give, lay
    choose b: give, lay
returns(p) = 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        st = load_text(text).new_state()
        assert [m.text for m in st.legal_moves()] == ["give 4", "give 8", "lay 2", "lay 6"]
        s = st.clone()
        s.apply("give 8")
        assert [m.text for m in s.legal_moves()] == ["give 3", "give 7", "lay 1", "lay 5"]
        st.apply("lay 2")       # into b's hand, a set of the family: at its place
        assert [m.text for m in st.legal_moves()] == \
            ["give 2", "give 3", "give 7", "lay 1", "lay 5"]


def test_an_aggregate_keeps_what_does_not_vary_with_its_variable(monkeypatch):
    # In `count(c for c in hand[p] if c.n == led.n)` and `all(...)`, `led.n` is the same
    # for every c: the generated loop keeps it in a temporary it starts unset, computed
    # where first reached.  Never before: over an empty hand, or where `led != none` is
    # false, `led.n` (which would raise with `led` none) is not evaluated at all.
    import re
    text = FIVE_CARDS + '''zone hand[player]: set
var led: card? = none
var out: int = 0
flow:
    out = count(c for c in hand[a] if c.n == led.n) + (if all(led != none and c.n != led.n for c in hand[b]) then 10 else 0)
    deal 2 from pile to hand[p] for p in players
    led = first(c for c in hand[b])
    out = out * 100 + count(c for c in hand[a] if ord(c.n) < ord(led.n)) * 10 + (if all(c.n != led.n for c in hand[a]) then 1 else 0)
    led = none
    out = out * 10 + (if any(led != none and c.n == led.n for c in hand[a]) then 1 else 0)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        # empty hands: 0 and all(...) of nothing is true: 10.  Then a holds five and
        # three, b four and two; led = two: no card of a below it, none equal.  Then led
        # is none and any(...) short-circuits: 0.
        assert game.new_state().returns()[0] == ((10 * 100) + 0 * 10 + 1) * 10 + 0
        # `led.n` over a hand that is not empty, with `led` none: the error, as plain
        with pytest.raises(RuleError, match=r"none"):
            load_text(text.replace("any(led != none and c.n", "any(c.n")).new_state()
        if enabled:
            kept = [s for s in _generated_sources(game)
                    if re.search(r"\n\s*(_t\d+ = )+K\d+\n\s*for ", s)]
            assert kept and all(re.search(r"\(_t(\d+) if _t\1 is not K\d+ else \(_t\1 := ", s)
                                for s in kept)


def test_a_list_made_to_be_counted_is_counted_as_the_aggregate_counts(monkeypatch):
    # `count([c for c in hand[p] if ...])` builds no list: it runs as `count(c for c in
    # hand[p] if ...)` does (the same generated code), every item that passes counted,
    # false ones too; a list of other items (`[x == one for x in ...]`) is made as before
    text = FIVE_CARDS + '''zone hand[player]: set
var out: int = 0
flow:
    deal 2 from pile to hand[p] for p in players
    out = count(OPENc for c in hand[a] if ord(c.n) > 2CLOSE) * 1000 + count(OPENc for p in players for c in hand[p] if c.n != oneCLOSE) * 100
    out = out + count([x == one for x in n]) * 10 + count([t for t in [false, false, true] if true])
    end game
returns(p) = if p == a then out else 0
'''
    listed = text.replace("OPEN", "[").replace("CLOSE", "]")
    aggregate = text.replace("OPEN", "").replace("CLOSE", "")
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        games = [load_text(listed), load_text(aggregate)]
        # a holds five and three (five above three), b four and two: 1, 4, 5 items, 3
        assert [g.new_state().returns()[0] for g in games] == [1453, 1453]
        if enabled:
            sources = [sorted(_generated_sources(g)) for g in games]
            assert sources[0] == sources[1]


def test_moving_the_top_card_of_a_zone_pops_it_off_that_zone(monkeypatch):
    # `move top(z) ...` onto the top of a zone takes the card off z's end in generated
    # code, without looking up where it lies: onto another stack, into a set zone (in
    # card order), back onto its own zone, from a zone known only at run time; an empty
    # zone's top is the error, as in plain code.  The pile is 1..5, five on top.
    text = FIVE_CARDS + '''zone spare[1..2]: stack
var out: text = ""
var k: int = 1
flow:
    move top(pile) to box
    move top(pile) to box
    move top(pile) to top of pile
    move top(pile) to spare[k]
    k = 2
    move top(spare[1]) to spare[k]
    move top(pile) to spare[k]
    out = join([text(c.n) for c in box], "") + "/" + join([text(c.n) for c in pile], "")
    out = out + "/" + join([text(c.n) for c in spare[2]], "") + text(count(spare[1]))
    move top(spare[1]) to row
    end game
'''
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match=r"top\(\) of an empty zone"):
            load_text(text).new_state()
        game = load_text(text.replace("    move top(spare[1]) to row\n", ""))
        state = game.new_state()
        # the box is a set (4 and 5, in card order); the pile keeps 1; 3 went to
        # spare[1], then on to spare[2], and 2 on top of it (zones list top first)
        assert game.evaluate("out", state) == "45/1/230"
    import re
    sources = "".join(_generated_sources(game))
    assert len(re.findall(r"_t\d+ = _t\d+\.pop\(\) if _t\d+ else ", sources)) >= 5


def test_a_card_drawn_at_random_from_a_zones_cards_is_moved_without_a_type_test(monkeypatch):
    # `random c in cards(pile)` (and `for c in cards(pile)`) binds a card, never none
    # nor a zone: the move written for it needs no test of what it is.  Five cards are
    # dealt, three at random to the box and two in order to the row.
    text = FIVE_CARDS + '''flow:
    repeat 3:
        random c in cards(pile)
        move c to box
    for c in cards(pile):
        move c to row
    end game
returns(p) = if p == a then count(box) * 10 + count(row) else 0
'''
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        state = game.new_state()
        state.chance_steps(random.Random(0), 10)
        assert state.returns() == (32, 0)
    sources = "".join(_generated_sources(game))
    assert "move_zone" not in sources and "isinstance(" not in sources


def test_the_top_card_of_a_zone_named_outright_is_read_at_its_slot_and_never_none(monkeypatch):
    # `top(pile)` and `bottom(pile)` of a zone named outright read the zone at its slot
    # written in, and are cards (an empty zone is an error, never none): their fields and
    # moves need no test.  The pile is 1..5, five on top: five goes to the box, then the
    # bottom card (one) to the row; then top(pile) is four and bottom(pile) two (`ord`
    # counts from zero: 3, 1 and 0 make 310), three more go to the box (four cards); the
    # pile empties and its top is the error, as in plain code.
    text = FIVE_CARDS + '''var out: int = 0
flow:
    move top(pile) to box
    move bottom(pile) to row
    out = ord(top(pile).n) * 100 + ord(bottom(pile).n) * 10 + ord(top(row).n)
    repeat 3:
        move top(pile) to box
    out = out * 10 + count(box)
    move top(pile) to row
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match=r"top\(\) of an empty zone"):
            load_text(text).new_state()
        game = load_text(text.replace("    move top(pile) to row\n", ""))
        assert game.new_state().returns() == (3104, 0)
    import re
    sources = "".join(_generated_sources(game))
    zone0 = r"(?:st\.zones|_t\d+)\[0\]"       # the pile's slot, zones in a local or not
    assert re.search(r"\(_t\d+\[-1\] if \(_t\d+ := " + zone0 + r"\) else", sources)
    assert re.search(r"\(_t\d+\[0\] if \(_t\d+ := " + zone0 + r"\) else", sources)
    assert "is None else" not in sources and "isinstance(" not in sources


def test_a_whole_zone_named_or_of_a_family_moves_without_testing_what_it_is(monkeypatch):
    import re
    # `move row to box` and `move hand[p] to pile` move whole zones: written out, they
    # call `move_zone` straight away, with no test for a card.  The pile is 1..5, five on
    # top: five and four go to the row (four on top), three to a's hand, two to b's; the
    # row goes into the box (a set: card order), then each hand back onto the pile, a's
    # first: the pile is one, three, two (two on top).
    text = FIVE_CARDS + '''zone hand[player]: stack
var out: int = 0
flow:
    move top(pile) to row
    move top(pile) to row
    move top(pile) to hand[a]
    move top(pile) to hand[b]
    move row to box
    for p in players:
        move hand[p] to pile
    out = ord(top(pile).n) * 1000 + ord(bottom(pile).n) * 100 + count(box) * 10 + ord(first(c for c in box).n)
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert game.new_state().returns() == (1023, 0)
    sources = "".join(_generated_sources(game))
    assert "st.move_zone(2, 1, False)" in sources      # the row (slot 2) into the box (1)
    # (`hand[p]`, p a loop's variable over `players`: every seat has its hand, a subscript)
    assert re.search(r"st\.move_zone\(K\d+\[_t\d+\[\d+\]\]\.slot, 0, False\)", sources)
    assert "isinstance(" not in sources


def test_a_range_with_a_constant_end_meets_its_requires_bound_when_compiled(monkeypatch):
    # `d: 0..7 - k` with `require d > 0` lists d from 1: the bound meets the constant 0
    # once, when the code is written (range(1, ...)), not max(0, 1) for every k; an end
    # that varies still takes max/min at run time.  Moves as in plain code.
    import re
    text = '''game "t"
players 2
action pick(k: 0..5, d: 0..7 - k):
    require d > 0 "d must be positive"
    require d <= 9 - k "never binds"
flow:
    choose p1: pick
    win p1
'''
    want = [f"pick {k} {d}" for k in range(6) for d in range(1, 8 - k)]
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert [m.text for m in game.new_state().legal_moves()] == want
    sources = "".join(_generated_sources(game))
    assert re.search(r"K\d+\(\(1\), ", sources)                 # range(1, ...)
    assert not re.search(r"K\d+\(\(0\), \(1\)\)", sources)      # no max(0, 1)


def test_the_seats_still_in_written_as_a_comprehension_are_players(monkeypatch):
    # `[p for p in all_players if active(p)]` is `players`: the same seats in the same
    # order whoever is out (three seats; then b is out: two, the same as players; then a:
    # c first), compiled without a loop.
    text = '''game "t"
players a, b, c
var out: int = 0
def alive() = [p for p in all_players if active(p)]
flow:
    out = count(alive())
    eliminate b
    out = out * 10 + count(alive()) + (if alive() == players then 100 else 0)
    eliminate a
    out = out * 10 + (if first(p for p in alive()) == c and alive() == players then 5 else 0)
    end game
returns(p) = if p == c then out else 0
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        assert game.new_state().returns()[2] == 1325
        info = game.prog.compiler
    assert "alive" in game.prog.defs
    body, _ = info.def_body(game.prog.defs["alive"])
    assert body.__name__ == "players"


def test_several_cards_from_the_top_or_bottom_written_out_as_in_plain_code(monkeypatch):
    # top(pile, k) and bottom(pile, k), top first as ever, inline in generated code; a
    # count past the zone's size, or below zero, is the same error.  The pile is 1..5,
    # five on top: top 2 is five, four; bottom 2 is two, one (two nearer the top).
    text = FIVE_CARDS + '''var out: int = 0
var k: int = 2
flow:
    out = ord(first(c for c in top(pile, k)).n) * 1000 + ord(first(c for c in bottom(pile, k)).n) * 100 + count(top(pile, 0)) * 10 + count(bottom(pile, 5))
    k = 6
    out = out + count(top(pile, k))
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (False, True):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match=r"top\(zone, 6\) but the zone has 5 cards"):
            load_text(text).new_state()
        ok = load_text(text.replace("k = 6", "k = 0"))
        assert ok.new_state().returns() == (4105, 0)
        with pytest.raises(RuleError, match=r"bottom\(zone, -1\) but the zone has 5 cards"):
            load_text(text.replace("k = 6", "k = -1").replace("count(top(pile, k))",
                                                                "count(bottom(pile, k))")).new_state()
    import re
    sources = "".join(_generated_sources(ok))
    assert re.search(r"\(_t(\d+)\[len\(_t\1\) - _t\d+:\]\)", sources)    # top(pile, k)
    assert re.search(r"\(_t\d+\[:_t\d+\]\)", sources)                      # bottom(pile, k)


def test_a_lookup_with_one_constant_index_reads_a_table_by_the_other(monkeypatch):
    # `cell[r, 1]` and `tally[1, r]` look r up in the part of the table at the constant
    # (no pair made per lookup); the values as in plain code, and an index off the table
    # the same error.  Rows 1..2: the pile's top two go to cell[1, 1] and cell[2, 1]
    # (five then four), tallied 1 and 2; after the loop r is 3, off the table.
    import re
    text = FIVE_CARDS + '''zone cell[1..2, 1..2]: stack
var tally[1..2, 1..2]: int = 0
var r: int = 1
var out: int = 0
flow:
    while r <= 2:
        move top(pile) to cell[r, 1]
        tally[1, r] = count(cell[r, 1]) * r
        r += 1
    out = ord(top(cell[1, 1]).n) * 100 + ord(top(cell[2, 1]).n) * 10 + tally[1, 1] + tally[1, 2]
    out = out + count(cell[r, 1])
    end game
returns(p) = if p == a then out else 0
'''
    for enabled in (False, True):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        with pytest.raises(RuleError, match=r"zone cell has no element \[3, 1\]"):
            load_text(text).new_state()
        game = load_text(text.replace("cell[r, 1])\n    end", "cell[r - 1, 1])\n    end"))
        assert game.new_state().returns() == (434, 0)
    sources = "".join(_generated_sources(game))
    assert re.search(r"K\d+\.get\(_t\d+\[\d+\]\)\) is None", sources)      # by r alone
    assert not re.search(r"\.get\(\([^()]*, ", sources)                       # no pair


def test_a_junction_only_tested_for_truth_makes_no_bool(monkeypatch):
    # `a and b and c` as a value is a bool (true, not 3); where only its truth counts (an
    # `if`, a `while`, a `not`, a require, the items of any/all) it is written as
    # Python's own `and`/`or`, without `True if ... else False`; the same game either way.
    text = '''game "t"
players a, b
var n: int = 3
var k: int = 0
var value: bool = false
var seen: int = 0
action go(x: 1..5):
    require x > 1 and x != n and x != 4
    k = k + x
flow:
    value = n > 0 and n < 9 and n != 5
    while n > 0 and k < 100 and not (k > 50 and n == 1 and k != 60):
        n -= 1
        if n >= 0 and k >= 0 and n != 7:
            seen += 1
    if any(i > 1 and i < 3 and i != 5 for i in 1..4) and all(not (i > 2 and i < 3 and i > 0) for i in 1..3):
        seen += 10
    choose a: go
    end game
returns(p) = if p == a then k * 100 + seen else (if value then 1 else 0)
'''
    results = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        state = game.new_state()
        assert [m.text for m in state.legal_moves()] == ["go 2", "go 3", "go 5"]
        state.apply("go 5")
        results[enabled] = tuple(state.returns())
        if enabled:
            sources = "".join(_generated_sources(game))
            # (`value`'s parts are comparisons: Python's `and` gives the bool itself)
            assert sources.count("(True if") == 0
    assert results[True] == results[False] == (513.0, 1.0)


def test_a_join_of_texts_only_joins_them_as_they_are_fused_or_not(monkeypatch):
    # `chars`, `split`, a part of either and a list of texts made by `text`, `join`, `+`
    # or a def whose body is one give texts only: `join` takes them as they are (in C,
    # inline in generated code), with a constant separator or one computed; lists that
    # may hold other values still go through each value's text.
    text = '''game "t"
players a, b
var row: text = "12 34 56"
var sep: text = "-"
var out: text = ""
def group(t: text, g: int) = join(sublist(chars(t), 3 * g, 2), "")
def shown(n: int) = "<" + text(n)
flow:
    out = join(chars(row), "+") + "|" + join(split(row, " "), sep) + "|" + group(row, 1) + "|" + join(sublist(split(row, " "), 1, 2), "") + "|" + join([1, 22], ",")
    out = out + "|" + join([group(row, g) for g in 0..2], ".") + "|" + join([shown(n) for n in 1..2], "") + "|" + join([text(n) + "!" for n in 1..2 if n > 1], "")
    end game
'''
    out, sources = _out_both_ways(monkeypatch, text)
    assert sources.count(".join(K") >= 6     # the joins of texts, written out
    assert out == "1+2+ +3+4+ +5+6|12-34-56|34|3456|1,22|12.34.56|<1<2|2!"


def test_the_text_of_a_cards_enum_attribute_is_read_straight_from_its_member(monkeypatch):
    # Every card's `suit` is a member of an enum: `text(c.suit)` is the member's own text,
    # read inline (by the card's id, from the members' texts); `text(c.rank)` (a number)
    # still takes the general path.
    text = TWO_SUITS + '''var out: text = ""
flow:
    out = join([text(c.suit) + text(c.rank) for c in pile if text(c.suit) == "H"], ",")
    end game
'''
    out, sources = _out_both_ways(monkeypatch, text)
    assert re.search(r"K\d+\[_t\d+\.id\] \+ \(", sources)
    assert re.search(r"K\d+\[_t\d+\.id\] == ", sources)
    assert out == "H2,H1"


def _out_both_ways(monkeypatch, text):
    """The variable `out` after a game's setup, the same with generated code on and off,
    and the generated sources."""
    outs = {}
    for enabled in (False, True):      # generated code last: its sources are read
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        outs[enabled] = game.evaluate("out", game.new_state())
    assert outs[True] == outs[False]
    return outs[True], "".join(_generated_sources(game))


TWO_LOOPS = FOUR_EACH + '''action give(c: hand[me]):
    move c to pile
flow:
    repeat 3:
        for p in players:
            choose p: give
    draw
'''

#: two-loop aggregates of each kind, the inner loop over a zone the outer value names
TWO_LOOP_AGGREGATES = [
    "sum(c.n for p in players for c in hand[p])",
    "sum(c.n * seat(p) for p in players for c in hand[p] if c.n > 1)",
    "count(c.n > 2 for p in players for c in hand[p])",
    "any(c.n == 2 and p == b for p in players for c in hand[p])",
    "all(c.n < 4 for p in players for c in hand[p] if p == a)",
    "first(c for p in players for c in hand[p] if c.n == 3)",
    "first(seat(p) for p in players for c in hand[p] if c.n == 9)"]


def test_two_loop_aggregates_are_written_out_and_agree_with_the_closures(monkeypatch):
    both = _parts_both_ways(monkeypatch, TWO_LOOP_AGGREGATES)
    assert all(_written(both[True][0])) and not any(_written(both[False][0]))
    answers = both[True][1]
    assert answers == both[False][1]
    assert answers[0] == ["20", "27", "4", "true", "false", "3", "none"]
    # each seat gave its 1, 2 and 3 (the last move listed) and keeps its 4
    assert answers[-1] == ["8", "12", "2", "false", "false", "none", "none"]


def _parts_both_ways(monkeypatch, parts) -> dict:
    """Compiles expression texts in TWO_LOOPS's game with generated code on and off;
    for each (True: on), the compiled parts and what each part gives (its text, or a
    rule error's message) at the first seven states of a game where each seat gives the
    card its last listed move gives."""
    from gdl.parser import parse_expression
    from interpreter._scope import Scope

    def shown(game, e, state):
        try:
            return text_of_value(game.evaluate(e, state))
        except RuleError as err:
            return err.message
    out = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(TWO_LOOPS)
        compiled = [game.prog.compiler.expr(parse_expression(e), Scope()) for e in parts]
        state, seen = game.new_state(), []
        for _ in range(7):
            seen.append([shown(game, e, state) for e in parts])
            if state.is_terminal():
                break
            state.apply(state.legal_moves()[-1])
        out[enabled] = (compiled, seen)
    return out


def _written(compiled) -> list:
    """Which compiled parts are generated code."""
    return [fn.__code__.co_filename.startswith("<gdl fused") for fn in compiled]


def text_of_value(value):
    from interpreter.values import text_of
    return "none" if value is None else text_of(value)


#: aggregates and lists of three loops and more, min and max of one and of several, a
#: count of a constant item, and tests (of aggregates and lists) whose leading terms do
#: not read the innermost variable (one that fails on an empty pile, where no item
#: reaches it), the innermost loops over zones the outer values name
MANY_LOOP_PARTS = [
    "sum(c.n + d.n for p in players for c in hand[p] for d in hand[p] if c.n < d.n)",
    "count(1 for p in players for c in hand[p] for d in hand[p] if c.n + d.n == 5)",
    "count(false for p in players for c in hand[p])",
    "count(1 for c in pile)",
    "any(c.n + d.n + e.n == 9 for c in pile for d in pile for e in pile if c != d)",
    "all(c.n <= d.n + 3 for p in players for c in hand[p] for d in pile)",
    "first(seat(p) * 10 + c.n for p in players for c in hand[p] for d in pile "
    "if c.n == d.n + 1)",
    "max(c.n for c in hand[a])",
    "min(c.n * seat(p) for p in players for c in hand[p])",
    "max(c.n - d.n for c in pile for d in pile for e in pile)",
    "count(1 for p in players for c in pile if top(pile).n > 0 and c.n > 0)",
    "sum(c.n for p in players for c in hand[p] if p == a and c.n > 1)",
    "sum(c.n for p in players for c in hand[p] if c.n > 1 and p == a)",
    "count(1 for p in players for c in hand[p] if p == b)",
    "[c.n for p in players for c in hand[p] if p == b and c.n > 2]",
    "[c.n for p in players for c in hand[p] for d in pile if d.n > c.n]",
    "[i * j for i in 1..2 for j in 1..2 for k in 1..2 for l in 1..2 for m in 1..2 "
    "for n in 1..2 for o in 1..2 if k + l + m + n + o == 10]"]


def test_aggregates_and_lists_of_any_number_of_loops_are_written_out(monkeypatch):
    """Written out as nested loops (up to `WRITTEN_LOOPS` of them, the last part above
    has more and goes through the generator), with the same answers as the closures, a
    rule error where a closure gives one (max of no items), and no warning from Python
    while compiling them (`count(1 for ...)` once made it warn of `1 is not False`)."""
    import linecache
    from interpreter._collections import WRITTEN_LOOPS
    monkeypatch.setattr(_fuse, "COMPILE_WARNINGS", [])
    both = _parts_both_ways(monkeypatch, MANY_LOOP_PARTS)
    compiled, answers = both[True]
    written = _written(compiled)
    assert written == [True] * (len(compiled) - 1) + [False]
    assert not any(_written(both[False][0]))
    # a test led by terms of the outer variables stops the inner loop
    stops = [w and ": break\n" in "".join(linecache.getlines(fn.__code__.co_filename))
             for fn, w in zip(compiled, written)]
    assert [e for e, stop in zip(MANY_LOOP_PARTS, stops) if stop] == [
        "any(c.n + d.n + e.n == 9 for c in pile for d in pile for e in pile if c != d)",
        "count(1 for p in players for c in pile if top(pile).n > 0 and c.n > 0)",
        "sum(c.n for p in players for c in hand[p] if p == a and c.n > 1)",
        "count(1 for p in players for c in hand[p] if p == b)",
        "[c.n for p in players for c in hand[p] if p == b and c.n > 2]"]
    assert WRITTEN_LOOPS < 7
    assert _fuse.COMPILE_WARNINGS == []
    assert answers == both[False][1]
    empty = "max of no items"           # the pile is empty at the start
    assert answers[0] == ["60", "8", "0", "0", "false", "true", "none", "4", "1", empty,
                          "0", "9", "9", "4", "[4,3]", "[]", "[1,2,2,4]"]
    # each seat gave its 1, 2 and 3 (the last move listed) and keeps its 4
    assert answers[-1] == ["0", "0", "0", "6", "true", "true", "14", "4", "4", "2",
                           "12", "4", "4", "1", "[4]", "[]", "[1,2,2,4]"]


def test_a_count_of_cards_or_zones_counts_each_without_testing_it(monkeypatch):
    """A count's items are counted unless they are `false`: a card or a zone never is,
    so the generated count adds one for each without the test; a count of conditions
    keeps it.  The answers are the closures'."""
    import linecache
    parts = ["count(c for c in hand[a] if c.n > 1)",
             "count(c for p in players for c in hand[p] if c.n != 2)",
             "count(c.n > 1 for c in hand[a])"]
    both = _parts_both_ways(monkeypatch, parts)
    compiled, answers = both[True]
    assert _written(compiled) == [True] * 3
    tested = ["is not False" in "".join(linecache.getlines(fn.__code__.co_filename))
              for fn in compiled]
    assert tested == [False, False, True]
    assert answers == both[False][1]
    assert answers[0] == ["3", "6", "3"]        # 4, 3, 2 and 1 in each hand
    assert answers[-1] == ["1", "2", "1"]       # each keeps its 4


def test_division_by_what_the_state_says_is_written_out(monkeypatch):
    """`/` and `%` by a number that may be zero, inline in generated code, with the
    closures' answers and their rule error for a zero divisor."""
    parts = ["count(hand[a]) * 7 / count(pile)", "-7 % count(pile)",
             "(count(hand[b]) - 9) / (count(pile) + 2)"]
    both = _parts_both_ways(monkeypatch, parts)
    compiled, answers = both[True]
    assert _written(compiled) == [True] * 3
    assert answers == both[False][1]
    zero = "division by zero"
    assert answers[0] == [zero, zero, "-3"]     # -5 / 2: floor division
    assert answers[1] == ["21", "0", "-2"]      # one card in the pile
    assert answers[2] == ["10", "1", "-2"]      # -7 % 2 takes the divisor's sign
    assert answers[-1] == ["1", "5", "-1"]      # 1 * 7 / 6; -7 % 6; -8 / 8


def test_the_top_card_a_def_body_reads_again_is_found_once(monkeypatch):
    """`top(z)` three times in an inlined def body over a zone `z`: generated code finds
    it at the first to be evaluated and reads it after (a temporary unset at each
    evaluation of the body), with the closures' answers, and the rule error of an empty
    zone where the first is reached."""
    import linecache
    import re
    from gdl.parser import parse_expression
    from interpreter._scope import Scope
    text = FOUR_EACH + """def near(z: hand, k: int) = top(z).n > k and top(z).n <= k + 2 and not faceup(top(z))
action give(c: hand[me]):
    move c to pile
flow:
    repeat 4:
        for p in players:
            choose p: give
    draw
"""
    parts = ["near(hand[a], 1)", "near(hand[b], 2)", "near(hand[a], 0) or near(hand[b], 3)"]
    seen = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        compiled = [game.prog.compiler.expr(parse_expression(e), Scope()) for e in parts]
        assert _written(compiled) == [enabled] * 3
        if enabled:     # each of the three reads the temporary first
            source = "".join(linecache.getlines(compiled[0].__code__.co_filename))
            assert len(re.findall(r"\((_t\d+) if \1 is not K\d+ else \(\1 := ", source)) == 3
        state, rows = game.new_state(), []
        while True:
            rows.append([])
            for e in parts:
                try:
                    rows[-1].append(text_of_value(game.evaluate(e, state)))
                except RuleError as err:
                    rows[-1].append(err.message)
            if state.is_terminal():
                break
            state.apply(state.legal_moves()[0])     # the top card
        seen[enabled] = rows
    assert seen[True] == seen[False]
    # each hand holds 4, 3, 2, 1 from the top, face down, and gives its top card in turn
    assert seen[True][:3] == [["false", "true", "true"], ["true", "true", "true"],
                              ["true", "true", "false"]]
    empty = "top() of an empty zone, hand[a]"
    empty_b = "top() of an empty zone, hand[b]"
    assert seen[True][-2:] == [[empty, "false", empty], [empty, empty_b, empty]]


def _random_games(game, seeds: int) -> list:
    """The traces of random playouts of `game`, one per seed (each its own generator)."""
    from interpreter.agents import AGENTS, play_out
    traces = []
    for seed in range(seeds):
        state = game.new_state()
        play_out(state, [AGENTS["random"]] * game.num_players, random.Random(seed))
        traces.append(state.trace_texts())
    return traces


THREE_PARAMETERS = FOUR_EACH + '''var high: int = 0
var turn: int = 0
action bid(i: 1..count(hand[me]), j: i..count(pile) + 3, k: 0..j):
    require i != turn % 3
    require j > high or k == 0
    require k != i and k + j != count(hand[me]) + high
    high = (i + j + k) % 4
action meld(x: hand[me], y: hand[me], z: pile):
    require x.n < y.n
    require z.n != x.n and z.n + y.n != 5 + high
    move x to pile
    high = z.n % 3
action give(c: hand[me]):
    move c to pile
flow:
    repeat 3:
        turn += 1
        for p in players:
            choose p: bid
        for p in players:
            choose p: meld, give
    draw
'''


def test_actions_of_three_parameters_list_their_moves_in_generated_code(monkeypatch):
    """An action of three parameters lists its moves in generated code (nested loops,
    each require at the loop of the last parameter it reads), the same moves as the
    closures list; one whose list reads only counts and variables keeps it by their
    values (`chunk_memo`), one that reads cards lists every time.  Random playouts,
    listed moves and views are the same with generated code off."""
    seen = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(THREE_PARAMETERS)
        infos = game.prog.compiler.action_info
        written = [getattr(infos[a].chunks, "__code__", None) is not None
                   for a in ("bid", "meld")]
        assert written == [enabled, enabled]
        assert (infos["bid"].chunk_memo is not None) == enabled
        assert infos["meld"].chunk_memo is None
        seen[enabled] = (_random_games(game, 6), [_playthrough(game, seed)
                                                  for seed in range(3)])
        if enabled:
            assert 0 < len(infos["bid"].chunk_memo) < 6 * 6
    assert seen[True] == seen[False]
    # the first seat's first bid, worked by hand: i in 1..4 but not turn % 3 = 1; then
    # j in i..3 (the pile is empty) with j > 0; k in 0..j, not i, k + j != 4
    first = seen[True][1][0][0]
    assert first[0] == "a" and first[1][:4] == ["bid 2 2 0", "bid 2 2 1", "bid 2 3 0",
                                                "bid 2 3 3"]


def test_a_require_whose_terms_read_different_parameters_is_tested_term_by_term(
        monkeypatch):
    """`require x.n < y.n and z.n != x.n ...` lists the moves that three requires, one a
    term, list, in the same order, with generated code and without: its first term is
    tested as soon as x and y are bound, before any z.  A move typed against it is still
    refused with the require's reason."""
    from gdl.errors import MoveError
    joined = THREE_PARAMETERS.replace(
        "    require x.n < y.n\n    require z.n != x.n and z.n + y.n != 5 + high\n",
        '    require x.n < y.n and z.n != x.n and z.n + y.n != 5 + high "together"\n')
    assert joined != THREE_PARAMETERS
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        for text in (THREE_PARAMETERS, joined):
            game = load_text(text)
            tests = game.prog.compiler.action_info["meld"].tests
            assert [t is not None for t in tests] == [False, False, True, True]
            seen.append((_random_games(game, 6), [_playthrough(game, seed)
                                                  for seed in range(3)]))
    assert seen[0] == seen[1] == seen[2] == seen[3]
    state = load_text(joined).new_state()
    state.apply(state.legal_moves()[0])
    state.apply(state.legal_moves()[0])
    state.apply("give 4")               # a's 4 to the pile; b melds against it
    with pytest.raises(MoveError, match="together"):
        state.apply("meld 2 1 4")
    state.apply("meld 1 2 4")


#: `ask(q, r)` of Go Fish: `holds(me, r)` reads the second parameter and not the first
ASK = """game "t"
players a, b, c
card n: 1..4
cards into hand[p]: card(n: k) for p in player for k in 1..4
zone hand[player]: stack
zone pile: stack
var turns: int = 0
def holds(p: player, k: int) = any(x.n == k for x in hand[p])
action ask(q: player, r: 1..4):
    require q != me "ask another seat"
    require holds(me, r) and count(hand[q]) > 0 "ask for a number you hold"
    require holds(q, r) or turns % 2 == 0 "only what they hold, every other turn"
    if holds(q, r):
        move first(x for x in hand[q] if x.n == r) to pile
action wait():
    pass
flow:
    repeat 4:
        turns += 1
        for p in players:
            choose p: ask, wait
    draw
"""


def test_a_costly_term_that_skips_a_parameter_is_worked_out_once_per_value(monkeypatch):
    """`holds(me, r)` does not read `q`: one list works it out once for each `r`, in
    generated code (`_actions._kept_by`), where it first comes to it; the term `holds(q,
    r)` reads both and is worked out for each pair.  The moves, the games and a rule error
    raised by such a term (`top(hand[me], r)` past a short hand) are those of the
    closures."""
    worked = []
    kept_by = _actions._kept_by

    def counted(term, slots):      # the term as a closure that notes each call
        def counting(st):
            worked.append(st.frame[slots[0]])
            return term(st)
        return kept_by(counting, slots)
    monkeypatch.setattr(_actions, "_kept_by", counted)
    failing = ASK.replace("require holds(me, r) and",
                          "require sum(x.n for x in top(hand[me], r)) > 1 and")
    assert failing != ASK
    seen = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(ASK)
        decl = game.prog.actions["ask"]
        terms = [t for r in decl.requires
                 for t in (r.cond.items if isinstance(r.cond, A.And) else (r.cond,))]
        assert [game.prog.compiler.kept_by(t, decl, ["q", "r"]) for t in terms] == [
            [], ["r"], [], []]
        del worked[:]
        # seat a holds 1 to 4, and so do b and c
        assert [m.text for m in game.new_state().legal_moves()] == [
            *(f"ask {q} {r}" for q in "bc" for r in range(1, 5)), "wait"]
        assert worked == [1, 2, 3, 4] * (1 if enabled else 2)
        seen[enabled] = (_random_games(game, 6),
                         [_playthrough(load_text(text), seed)
                          for text in (ASK, failing) for seed in range(4)])
    assert seen[True] == seen[False]
    errors = [p[-1] for p in seen[True][1][4:]]
    assert all(e[0] == "error" and "but the zone has" in e[1] for e in errors)


#: `count(z) >= k` and `k <= top(z).n` bound a range parameter by what the state says
TAKE = """game "t"
players a, b
card n: 1..4
cards into pile[i]: card(n: k) for i in 1..3 for k in 1..4
zone pile[1..3]: stack, face up
zone hand[player]: stack
action take(z: pile, k: 1..4):
    require count(z) >= k "not so many cards"
    require top(z, k)[k].n != 2 "not down to a two"
    move top(z, k) to hand[me]
action give(z: pile, k: 1..count(hand[me])):
    require k <= top(z).n "no more than the top card says"
    move top(hand[me]) to z
action wait():
    pass
flow:
    repeat 5:
        for p in players:
            choose p: take, give, wait
    draw
"""


def test_a_range_bounded_by_the_state_is_cut_instead_of_tested(monkeypatch):
    """A first require `count(z) >= k` cuts `k`'s range to the values that pass
    (`_actions._limited`): the same moves in the same order as testing each, with
    generated code and without, and `top(z).n` is worked out only where the range has
    values, so it fails on an empty pile exactly where the test would (and not where
    the hand is empty).  The same requires written so that they bound nothing
    (`k + 0 * k`) are the reference."""
    plain = TAKE.replace("count(z) >= k", "count(z) >= k + 0 * k").replace(
        'top(z).n "', 'top(z).n + 0 * k "')
    assert plain.count("0 * k") == 2
    seen = []
    for text in (TAKE, plain):
        for enabled in (True, False):
            monkeypatch.setattr(_fuse, "ENABLED", enabled)
            game = load_text(text)
            infos = game.prog.compiler.action_info
            state = game.new_state()
            # the piles hold 4, 3, 2, 1 from the top: the third card down is the two
            assert [m.text for m in state.legal_moves()] == [
                f"take pile[{i}] {k}" for i in (1, 2, 3) for k in (1, 2, 4)] + ["wait"]
            tested = [len(infos[a].staged[2]) for a in ("take", "give")]
            assert tested == ([1, 0] if text == TAKE else [2, 1])
            # a rule error's excerpt shows the line as written: its place and its trace
            seen.append([[e if e[0] != "error" else _place_and_trace(e[1])
                          for e in _playthrough(game, seed, 100)] for seed in range(12)])
    assert seen[0] == seen[1] == seen[2] == seen[3]
    ends = [game[-1] for game in seen[0]]
    assert ("end", (0.0, 0.0)) in ends
    assert ["<string>:12:18: rule error: top() of an empty zone, pile[2]", "  in rule: give"] in [
        e[:2] for e in ends]


@pytest.mark.parametrize("requires", [
    ["k > count(pile)"], ["k >= count(pile)"], ["k < count(pile) + 2"],
    ["k <= count(pile) + 1"], ["k == count(pile) + 1"],
    ["k >= count(pile)", "k <= count(pile) + 2"],
    ["k >= count(pile)", "k <= count(hand[me]) + 1"]])
def test_each_bound_by_the_state_cuts_the_range_as_its_test_would(monkeypatch, requires):
    """Every comparison, and two bounds on one parameter, cut `k: 1..6` (a constant
    range) to the values their tests pass, in the same games as the same requires
    written so that they bound nothing, with generated code and without."""
    text = FOUR_EACH + """action pick(k: 1..6):
REQUIRES
    move top(hand[me]) to pile
action wait():
    pass
flow:
    repeat 4:
        for p in players:
            choose p: pick, wait
    draw
"""
    seen = []
    for bounded in (True, False):
        lines = ["    require " + (r if bounded else r.replace("k ", "k + 0 * k ", 1))
                 for r in requires]
        for enabled in (True, False):
            monkeypatch.setattr(_fuse, "ENABLED", enabled)
            game = load_text(text.replace("REQUIRES", "\n".join(lines)))
            tested = len(game.prog.compiler.action_info["pick"].staged[1])
            assert tested == (0 if bounded else len(requires))
            seen.append([_playthrough(game, seed) for seed in range(3)])
    assert seen[0] == seen[1] == seen[2] == seen[3]


def _place_and_trace(error: str) -> list:
    """A rule error's message without the excerpt of the line and its caret."""
    lines = error.splitlines()
    return [lines[0], *lines[3:]]


def test_list_positions_are_written_out(monkeypatch):
    """`xs[i]` in generated code, inline, with the closures' answers and their rule
    error for a position outside the list."""
    parts = ["[c.n for c in hand[a]][2]", "top(hand[b], 2)[2].n",
             "[c.n for c in pile][count(pile)]", "[seat(p) for p in players][seat(b)]"]
    both = _parts_both_ways(monkeypatch, parts)
    compiled, answers = both[True]
    assert _written(compiled) == [True] * 4
    assert answers == both[False][1]
    # hands hold 4, 3, 2, 1 from the top; each seat gives its bottom card in turn
    outside = "position {} of a list of {} items (positions count from 1)"
    assert answers[0] == ["3", "3", outside.format(0, 0), "2"]
    assert answers[2] == ["3", "3", "1", "2"]
    assert answers[-1] == [outside.format(2, 1), "top(zone, 2) but the zone has 1 card",
                           "1", "2"]


def test_a_simultaneous_action_of_three_parameters_is_drawn_in_one_generated_step(
        monkeypatch):
    """The bids made at once: the site's joint step (draws, records, blocks and the rules
    after) is generated code, and random playouts are the games the closures play."""
    text = THREE_PARAMETERS.replace("        for p in players:\n            choose p: bid\n",
                                    "        simultaneously p in players: bid\n")
    assert text != THREE_PARAMETERS
    traces = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        traces[enabled] = _random_games(game, 8)
        joint = [site.joint for site in game.prog.sites
                 if [info.name for info, _ in site.actions] == ["bid"]]
        assert [bool(j) for j in joint] == [enabled]
    assert traces[True] == traces[False]
    assert traces[True][0][0].startswith("a: bid ")


SEVERAL_AT_ONCE = FOUR_EACH + '''var waited[player]: int = 0
action pair(x: hand[me], y: hand[me]):
    require x.n < y.n
    move x to pile
    move y to pile
action give(c: hand[me]):
    require count(hand[me]) > 2
    move c to pile
action wait():
    require waited[me] < 2
    waited[me] += 1
flow:
    repeat 4:
        if all(count(hand[p]) > 1 for p in players):
            simultaneously p in players: pair, give, wait
    draw
'''


PLAIN_AT_ONCE = FOUR_EACH + '''var shown[player]: int = 0
action low():
    shown[me] = 1
action high():
    require count(hand[me]) > 2
    shown[me] = 2
    move top(hand[me]) to pile
flow:
    repeat 4:
        simultaneously p in players: low, high
    draw
'''


def test_a_simultaneous_site_of_several_actions_is_drawn_in_one_generated_step(
        monkeypatch):
    """Pairs of cards (with twins to merge: each seat's cards are the other's), single
    cards and a move without parameters, made at once, and moves without parameters
    alone: the joint step is generated code, the draws and the games are those of the
    closures, and a seat left with no legal move is told as before."""
    traces = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(SEVERAL_AT_ONCE)
        assert game.prog.has_twins
        traces[enabled] = _random_games(game, 12)
        joint = [site.joint for site in game.prog.sites if len(site.actions) == 3]
        assert [bool(j) for j in joint] == [enabled]
    assert traces[True] == traces[False]
    made = {t.split(": ")[1].split()[0] for trace in traces[True] for t in trace}
    assert made == {"pair", "give", "wait"}
    # moves without parameters, one with a require: the same draws as the closures'
    plain = {}
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(PLAIN_AT_ONCE)
        plain[enabled] = _random_games(game, 12)
        assert [bool(site.joint) for site in game.prog.sites] == [enabled]
    assert plain[True] == plain[False]
    assert {t for trace in plain[True] for t in trace} == {
        "a: low", "b: low", "a: high", "b: high"}
    for enabled in (True, False):       # no move left for a seat: the deadlock, both ways
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        stuck = load_text(SEVERAL_AT_ONCE.replace("if all(count(hand[p]) > 1 for p in "
                                                  "players):", "if true:")
                          .replace("repeat 4:", "repeat 6:"))     # five moves at most
        with pytest.raises(RuleError, match="deadlock"):
            _random_games(stuck, 12)


def _played_to_a_none_field(text, cards: int) -> list:
    """The variables of four seeded games of `text`, generated code then closures, each
    stopped where its rules read a field of none (the first `cards` variables, holding
    cards, as their texts): four answers of each."""
    answers = []
    for enabled in (True, False):
        _fuse.ENABLED = enabled
        try:
            for seed in range(4):
                st = load_text(text).new_state()
                with pytest.raises(RuleError, match=r"no card to take \.suit of"):
                    st.chance_steps(random.Random(seed), 100)
                answers.append([repr(v) for v in st.vars[:cards]] + st.vars[cards:])
        finally:
            _fuse.ENABLED = True
    return answers


def test_any_and_all_of_a_field_compared_over_a_zone_test_sets():
    # `any(x.f == e for x in z)` and the like are a test of the cards with `f == e`
    # against the zone's list: the same answers as the loop (`ref`, written with a test,
    # which stays a loop), fused or plain, for every shape (== and !=, either side, an
    # empty zone, a constant and a variable `e`, a none `e`, a stack and a set), and a
    # none card's field still reported where the zone has cards (and not where it has
    # none, as the loop never reads it there).
    text = '''game "t"
players a, b
enum s = x "X", y "Y", z "Z"
card suit: s, n: 1..3
cards into pile: card(suit: q, n: k) for q in s for k in 1..3
zone pile: stack
zone hand[player]: set
zone empty: stack
var led: card? = none
var want: s? = none
var got: int = 0
var ref: int = 0
def bit(t: bool) = if t then 1 else 0
flow:
    shuffle pile
    deal 3 from pile to hand[p] for p in players
    for c in cards(pile):
        led = c
        want = if c.n == 2 then none else c.suit
        for p in players:
            got = (got * 2 + bit(any(q.suit == led.suit for q in hand[p]))) % 1000003
            ref = (ref * 2 + bit(any(true for q in hand[p] if q.suit == led.suit))) % 1000003
            got = (got * 2 + bit(all(q.suit != led.suit for q in hand[p]))) % 1000003
            ref = (ref * 2 + bit(not any(true for q in hand[p] if q.suit == led.suit))) % 1000003
            got = (got * 2 + bit(all(led.n == q.n for q in hand[p]))) % 1000003
            ref = (ref * 2 + bit(not any(true for q in hand[p] if led.n != q.n))) % 1000003
            got = (got * 2 + bit(any(q.n != led.n for q in hand[p]))) % 1000003
            ref = (ref * 2 + bit(any(true for q in hand[p] if q.n != led.n))) % 1000003
        got = (got * 2 + bit(any(q.suit == y for q in pile))) % 1000003
        ref = (ref * 2 + bit(any(true for q in pile if q.suit == y))) % 1000003
        got = (got * 2 + bit(all(q.suit != want for q in pile))) % 1000003
        ref = (ref * 2 + bit(not any(true for q in pile if q.suit == want))) % 1000003
        got = (got * 2 + bit(any(q.suit == led.suit for q in empty))) % 1000003
        got = (got * 2 + bit(all(q.suit == led.suit for q in empty))) % 1000003
        ref = (ref * 4 + 1) % 1000003
    led = none
    got = (got * 2 + bit(all(q.suit == led.suit for q in empty))) % 1000003
    ref = (ref * 2 + 1) % 1000003
    got = got + bit(any(q.suit == led.suit for q in hand[a]))
returns(p) = got
'''
    answers = _played_to_a_none_field(text, 2)
    assert all(got == ref for _, _, got, ref in answers)
    assert answers[:4] == answers[4:] and len({got for _, _, got, _ in answers}) > 2
    sources = "".join(_generated_sources(load_text(text)))
    assert "isdisjoint" in sources and "issuperset" in sources


def test_a_deal_to_zones_named_by_the_seat_finds_them_once_and_runs_out_alike():
    # `deal n from z to hand[p] for p in ...` finds each seat's zone in its first round
    # and deals the next rounds to the same: the same cards in the same places, and where
    # the source runs out (in a later round, at either seat) the same error with the
    # deal's local left as the loop leaves it, fused or plain.
    text = '''game "t"
players a, b, c
enum n = one "1", two "2", three "3", four "4", five "5", six "6", seven "7", eight "8"
enum s = red "R", black "B"
card rank: n, suit: s
cards into pile: card(rank: x, suit: y) for x in n for y in s
zone pile: stack
zone hand[player]: stack
zone side[player, n]: set
flow:
    shuffle pile
    deal 2 from pile to side[p, two] for p in players
    deal COUNT from pile to hand[p] for p in players
returns(p) = 0
'''
    for count in ("1", "3", "4"):
        seen = []
        for enabled in (True, False):
            _fuse.ENABLED = enabled
            try:
                st = load_text(text.replace("COUNT", count)).new_state()
                if count == "4":
                    with pytest.raises(RuleError, match="cannot deal: the source zone is empty"):
                        st.chance_steps(random.Random(5), 10)
                else:
                    st.chance_steps(random.Random(5), 10)
                seen.append((st.loc[:], st.up[:], [[c.id for c in z] for z in st.zones],
                             [repr(v) for v in st.frame]))
            finally:
                _fuse.ENABLED = True
        assert seen[0] == seen[1]


@pytest.mark.parametrize("deal", [
    "deal 3 from pile to hand[p] for p in [q for q in players if count(hand[q]) < 2]",
    "deal 2 from pile to hand[if count(hand[p]) == 0 then p else a] for p in players",
])
def test_a_deal_whose_seats_or_zones_read_the_cards_finds_them_every_round(deal):
    # the seats dealt to, or each seat's zone, hang on cards the deal itself places:
    # worked out again for every round, as the plain closures do (the third round of
    # the first deals to nobody; the second round of the other to a's hand)
    text = f'''game "t"
players a, b, c
card n: 1..9
cards into pile: card(n: k) for k in 1..9
zone pile: stack
zone hand[player]: stack
flow:
    {deal}
returns(p) = 0
'''
    seen = []
    for enabled in (True, False):
        _fuse.ENABLED = enabled
        try:
            st = load_text(text).new_state()
            st.chance_steps(random.Random(5), 10)
            seen.append([[c.id for c in z] for z in st.zones])
        finally:
            _fuse.ENABLED = True
    assert seen[0] == seen[1]
    assert [len(z) for z in seen[0]] == ([3, 2, 2, 2] if "< 2" in deal else [3, 4, 1, 1])


DEAL_THROUGH_LOCALS = [
    # (flow, the zones' sizes at the end): a local or a parameter holding a zone the
    # deal fills, read in the deal's index or its seats (the review of the first form,
    # which took every name it did not know for one that reads no card)
    ("    let z = pile[1]\n"
     "    deal 2 from deck to pile[if any(true for c in z) then 2 else 1] for p in players",
     [4, 1, 3, 0, 0]),
    ("    let z = pile[2]\n    move top(deck) to pile[2]\n"
     "    deal 3 from deck to pile[2] for c in z", [0, 0, 8, 0, 0]),
    ("    choose p1: go", [4, 0, 0, 1, 3]),
]


@pytest.mark.parametrize("flow, sizes", DEAL_THROUGH_LOCALS)
def test_a_deal_reading_a_zone_through_a_local_finds_its_zones_every_round(flow, sizes):
    text = f'''game "t"
players 2
card n: 1..8
cards into deck: card(n: i) for i in 1..8
zone deck: stack
zone pile[1..2]: stack, face up
zone hand[player]: stack, face up
action go(z: hand):
    let c = top(deck)
    deal 2 from deck to hand[if c in z then p2 else p1] for p in players
flow:
{flow}
    end game
returns(p) = 0
'''
    seen = []
    for enabled in (True, False):
        _fuse.ENABLED = enabled
        try:
            st = load_text(text).new_state()
            while not st.is_terminal():
                st.apply(st.legal_moves()[0])
            seen.append([len(z) for z in st.zones])
        finally:
            _fuse.ENABLED = True
    assert seen[0] == seen[1] == sizes


def test_a_def_parameter_is_read_untested_only_where_its_argument_is_never_none(monkeypatch):
    # Inlined (the defs read a variable, so no answers are kept), a def's `card` parameter
    # given a card from a zone, or a `card?` tested for none as it is passed, is read
    # without a test of its own; one given a value that may be none (an optional
    # parameter) keeps the test, which reports the none as the rules' error, where an
    # untested read would fail with Python's AttributeError.
    text = '''game "t"
players a, b
option bad: bool = false
enum suit = red, black
card n: 1..3, suit: suit
cards into pile: card(n: k, suit: s) for s in suit for k in 1..3
zone pile: stack
var held: card? = none
var got: int = 0
var plus: int = 0
def worth(c: card) = if c.suit == red then c.n + plus else 10 * c.n
def maybe(c: card?) = if c.suit == red then c.n + plus else 100 * c.n
flow:
    for c in pile:
        got += worth(c)
    held = top(pile)
    got += worth(held) * 1000
    if bad:
        held = none
    got += maybe(held) * 10000
    end game
returns(p) = got
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        assert load_text(text).new_state().returns() == (3030066.0, 3030066.0)
        with pytest.raises(RuleError, match=r"no card to take \.suit of \(the value is none\)"):
            load_text(text, {"bad": True}).new_state()
    monkeypatch.setattr(_fuse, "ENABLED", True)
    sources = "".join(_generated_sources(load_text(text)))
    assert re.search(r" is None else K\d+\[_t\d+\.id\]", sources) and \
        re.search(r"\(K\d+\[_t\d+\.id\] == ", sources)


def test_a_def_of_one_card_answered_for_every_card_before_the_game(monkeypatch):
    # A pure def of one card has its answers for every card worked out as the rules
    # compile, and a call whose argument is never none looks its answer up with no test
    # for a miss; a def that fails for some card (`inv` of a two) or answers none for
    # some (`tag` of an ace) is left to its calls, so that the failure comes where the
    # rules call it with that card, and a none is answered, not taken for a miss.
    text = '''game "t"
players a, b
option bad: bool = false
enum suit = red, black
card n: 1..3, suit: suit
cards into pile: card(n: k, suit: s) for s in suit for k in 1..3
zone pile: stack
var got: int = 0
def worth(c: card) = if c.suit == red then c.n else 10 * c.n
def inv(c: card) = 12 / (c.n - 2)
def tag(c: card) = if c.n == 1 then none else c.suit
flow:
    for c in pile:
        got += worth(c) * 1000
        if c.n != 2 or bad:
            got += inv(c) * 100
        if tag(c) == none:
            got += 1
    end game
returns(p) = got
'''
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        assert load_text(text).new_state().returns() == (66002.0, 66002.0)
        with pytest.raises(RuleError, match="division by zero"):
            load_text(text, {"bad": True}).new_state()
    monkeypatch.setattr(_fuse, "ENABLED", True)
    game = load_text(text)
    assert game.prog.compiler.def_every == {"worth": True, "inv": False, "tag": False}
    sources = "".join(_generated_sources(game))
    assert re.search(r"\(K\d+\[_t\d+(\[\d+\])?\] \* \(1000\)\)", sources)


def test_a_def_of_one_card_that_loops_is_not_answered_for_every_card_at_load():
    # its answers for all the cards were worked out as the rules loaded: a body that
    # loops could take there what play pays only for the cards it passes (the review's
    # 416 cards and a sum over 1..400000: loading 0.24 s became 5.6 s)
    text = '''game "t"
players a, b
card n: 1..3
cards into pile: card(n: k) for k in 1..3
zone pile: stack
var got: int = 0
def plain(c: card) = c.n * 2
def looping(c: card) = sum(i for i in 1..c.n)
def calling(c: card) = looping(c) + 1
flow:
    for c in pile:
        got += plain(c) + looping(c) + calling(c)
    end game
returns(p) = got
'''
    game = load_text(text)
    assert game.new_state().returns() == (35.0, 35.0)
    assert game.prog.compiler.def_every == {"plain": True, "looping": False,
                                            "calling": False}



def test_first_count_and_list_of_cards_with_a_field_equal_to_a_constant_filter_a_set(
        monkeypatch):
    # `first(x for x in z if x.f == e)`, `count(...)` and `[x for x in z if x.f == e]`
    # (and `!=`, either side), over a zone's cards with `e` a constant, filter the zone
    # in order by the set of the cards that pass: the same answers as the loop (the
    # second of each pair, whose test is not the lone comparison, so it stays a loop),
    # fused or plain, for a stack and a set and an empty zone; a variable `e` and a list
    # that is not a zone's cards (which may hold none: the loop reports it) keep the loop.
    text = '''game "t"
players a, b
enum s = x "X", y "Y", z "Z"
card suit: s, n: 1..3
cards into pile: card(suit: q, n: k) for q in s for k in 1..3
zone pile: stack
zone hand[player]: set
zone empty: stack
var led: card? = none
var got: int = 0
var bad: int = 0
def same(c: card?, d: card?) = if c == d then 0 else 1
def differ(m: int, n: int) = if m == n then 0 else 1
flow:
    shuffle pile
    deal 3 from pile to hand[p] for p in players
    for c in cards(pile):
        led = c
        for p in players:
            bad += same(first(q for q in hand[p] if q.suit == y), first(q for q in hand[p] if q.n > 0 and q.suit == y))
            bad += same(first(q for q in hand[p] if x != q.suit), first(q for q in hand[p] if q.n > 0 and x != q.suit))
            bad += same(first(q for q in hand[p] if q.suit == led.suit), first(q for q in hand[p] if q.n > 0 and q.suit == led.suit))
            bad += differ(count(q for q in hand[p] if q.n == 2), count(q for q in hand[p] if q.n > 0 and q.n == 2))
            bad += if [q for q in hand[p] if q.suit != z] == [q for q in hand[p] if q.n > 0 and q.suit != z] then 0 else 1
            got = (got * 5 + count(q for q in hand[p] if q.n == 2)) % 1000003
        bad += same(first(q for q in pile if q.suit == z), first(q for q in pile if q.n > 0 and q.suit == z))
        bad += differ(count(q for q in pile if q.suit != x), count(q for q in pile if q.n > 0 and q.suit != x))
        bad += if [q for q in pile if q.n == 1] == [q for q in pile if q.n > 0 and q.n == 1] then 0 else 1
        bad += same(first(q for q in empty if q.suit == x), none)
        bad += differ(count([q for q in empty if q.suit == x]), 0)
        bad += differ(count(q for q in [led] if q.suit == x), if led.suit == x then 1 else 0)
        got = (got * 11 + count(q for q in pile if q.suit != x)) % 1000003
        got = (got * 7 + count(q for q in [first(r for r in pile if r.suit == y)] if q.n < 3)) % 1000003
    led = none
    got = got + count(q for q in [led] if q.suit == x)
returns(p) = got
'''
    answers = _played_to_a_none_field(text, 1)
    assert all(bad == 0 for _, _, bad in answers)
    assert answers[:4] == answers[4:] and len({got for _, got, _ in answers}) > 2
    from interpreter._collections import CollectionMixin
    shapes = []
    original = CollectionMixin._attr_filter

    def noted(self, node, scope, f, plain):
        out = original(self, node, scope, f, plain)
        shapes.append((f, out is not None))
        return out
    monkeypatch.setattr(CollectionMixin, "_attr_filter", noted)
    load_text(text).new_state()
    assert {("first", True), ("count", True), ("list", True), ("first", False),
            ("count", False)} <= set(shapes)


def test_a_generated_function_reads_its_values_as_globals_and_has_its_own_code(monkeypatch):
    # `_fuse.build`: the values a generated function reads are its globals (`K0`, ...): a
    # call copies no closure cell into its frame; each build compiles its own code, so
    # that two functions of the same text but other values never share specialized reads.
    monkeypatch.setattr(_fuse, "ENABLED", True)
    runs = []
    for _ in range(2):                      # the same rules twice: the same texts
        game = load_text(TWO_LOOPS)
        game.compile_now()
        runs.append([fn for fn in game.prog.code
                     if getattr(fn, "__code__", None) is not None
                     and fn.__code__.co_filename.startswith("<gdl fused")])
    first, second = runs
    assert first and len(first) == len(second)
    assert any(k[:1] == "K" for fn in first for k in fn.__globals__)
    for a, b in zip(first, second):
        assert a.__closure__ is None and not a.__code__.co_freevars
        assert a.__code__.co_filename == b.__code__.co_filename and a.__code__ is not b.__code__
        assert a.__globals__ is not b.__globals__


def test_a_cleared_cache_never_shows_one_source_s_lines_for_another(monkeypatch):
    # a traceback's lines come from linecache by the function's name: after the sources
    # are cleared (a long session), a new source must not take an old one's name
    import linecache
    monkeypatch.setattr(_fuse, "ENABLED", True)
    monkeypatch.setattr(_fuse, "_FACTORIES", {})
    load_text(HOSTILE).compile_now()
    first = {name: entry[2] for name, entry in linecache.cache.items()
             if name.startswith("<gdl fused") and name in
             {code.co_filename for code in _fuse._FACTORIES.values()}}
    assert first
    monkeypatch.setattr(_fuse, "_MAX_FACTORIES", len(_fuse._FACTORIES))
    load_text(HOSTILE.replace("count(pile) > 0", "count(pile) > 1")).compile_now()
    for name, lines in first.items():
        entry = linecache.cache.get(name)
        assert entry is None or entry[2] == lines, name
