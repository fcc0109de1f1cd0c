"""A check leaves out the triggers whose conditions cannot have turned true since the last
one (`interpreter/_trigger_skips.py`): the games are the same as when every check tests
every trigger, with generated code and without."""
from __future__ import annotations

from pathlib import Path

import pytest

from gdl.errors import MoveError, RuleError
from interpreter import _fuse, game as game_module, load, load_text
from interpreter._trigger_skips import ZONES
from test_fuse import _playthrough, _random_games
from test_work_per_playout import counts

ROOT = Path(__file__).resolve().parent.parent / "rulesets"

#: a trigger of each kind: two_out and past_five are left out until something they read
#: is written (their bodies set their flags), on_total until total is written; at_start
#: holds before the rules start, on_bonus reads what other bodies write, watcher has no
#: guard: those three are tested at every check
TRIGGERS = '''game "t"
players a, b
card n: 1..4
cards into hand[p]: card(n: k) for p in player for k in 1..4
zone hand[player]: stack
zone pile: stack, face up
var seen_two: bool = false
var big: bool = false
var early: bool = false
var total: int = 0
var bonus: int = 0
var noted: int = 0
var turns: int = 0
trigger two_out when not seen_two and any(c.n == 2 for c in pile) "the first two played":
    seen_two = true
    bonus += 1
trigger on_total when changed(total) and total % 3 == 0 "a total of 3, 6, 9...":
    bonus += 2
trigger at_start when not early and count(pile) == 0 "true before the rules start":
    early = true
    noted += 1
trigger past_five when not big and total > 5 "armed again by the flow":
    big = true
    noted += 10
trigger on_bonus when changed(bonus) and bonus > 2 "reads what other bodies write":
    noted += 100
trigger watcher when noted > 200 and turns < 9 "no guard":
    turns = 9
action give(c: hand[me]):
    move c to pile
    total += c.n
flow:
    repeat 4:
        turns += 1
        for p in players:
            choose p: give
        if turns == 2:
            big = false
    draw
'''


@pytest.mark.parametrize("generated", [True, False])
def test_checks_leave_out_only_triggers_that_cannot_have_turned_true(monkeypatch,
                                                                     generated):
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    seen, work = {}, {}
    for skips in (True, False):
        monkeypatch.setattr(game_module, "TRIGGER_SKIPS", skips)
        game = load_text(TRIGGERS)
        assert sorted(game.prog.trigger_skips) == (
            ["on_total", "past_five", "two_out"] if skips else [])
        state = game.new_state()
        while not state.is_terminal():                  # each seat gives its top card
            state.apply(state.legal_moves()[0])
        values = {v: game.evaluate(v, state)
                  for v in ("seen_two", "big", "early", "total", "bonus", "noted")}
        seen[skips] = (values, _random_games(game, 6),
                       [_playthrough(game, seed) for seed in range(4)])
        game.new_state()                               # the runs compiled before counting
        work[skips] = counts.bytecodes(lambda: _random_games(game, 6))
    assert seen[True] == seen[False]
    # 4 + 4, 3 + 3, 2 + 2, 1 + 1: at_start fires at the first check (+1), past_five at
    # total 8 (+10) and again once the flow clears big after the second round (+10),
    # two_out at the first two (+1 bonus), on_total at 18 (+2 bonus), and on_bonus in the
    # same check, bonus now 3 (+100)
    assert seen[True][0] == {"seen_two": True, "big": True, "early": True, "total": 20,
                             "bonus": 3, "noted": 121}
    assert work[True] < work[False]


@pytest.mark.parametrize("name", ["variants/literal/double_down_two_triggers.gdl"])
def test_a_ruleset_with_triggers_plays_the_same_games_with_checks_left_out(monkeypatch,
                                                                           name):
    seen = {}
    for skips in (True, False):
        monkeypatch.setattr(game_module, "TRIGGER_SKIPS", skips)
        game = load(str(ROOT / name))
        assert bool(game.prog.trigger_skips) == skips
        seen[skips] = (_random_games(game, 10), [_playthrough(game, seed)
                                                 for seed in range(3)])
    assert seen[True] == seen[False]


@pytest.mark.parametrize("body, why, left_out", [
    ("    flag = true\n    noted += 1\n", "the flag set at the top", True),
    ("    if total > 0:\n        flag = true\n", "the flag set under an if", False),
    ("    flag = true\n    flag = false\n", "the flag set twice", False),
    ("    flag = 1 > 0\n", "not set to true itself", False),
])
def test_a_flag_trigger_is_left_out_only_when_its_body_surely_sets_the_flag(body, why,
                                                                            left_out):
    text = TRIGGERS.replace("trigger watcher", "trigger flagged when not flag and "
                            "count(pile) > 5 \"" + why + "\":\n" + body + "trigger watcher"
                            ).replace("var turns", "var flag: bool = false\nvar turns")
    game = load_text(text)
    assert ("flagged" in game.prog.trigger_skips) == left_out
    assert "two_out" in game.prog.trigger_skips


def test_a_trigger_over_a_zone_held_in_a_variable_is_tested_after_every_move(monkeypatch):
    """`any(c.n == 2 for c in sel)`, `sel` a variable holding a zone: the condition reads
    the cards, though no zone is named in it, so a move is followed by its test."""
    from interpreter._trigger_skips import ZONES
    text = '''game "t"
players a, b
card n: 1..4
cards into hand[p]: card(n: k) for p in player for k in 1..4
zone hand[player]: stack
zone spot[1..2]: stack
var sel: spot? = none
var done: bool = false
var when: int = 0
var turns: int = 0
trigger two_in when not done and sel != none and any(c.n == 2 for c in sel) "a two lies there":
    done = true
    when = turns
action give(c: hand[me]):
    move c to spot[1]
flow:
    sel = spot[1]
    repeat 4:
        turns += 1
        for p in players:
            choose p: give
    draw
'''
    seen = {}
    for skips in (True, False):
        monkeypatch.setattr(game_module, "TRIGGER_SKIPS", skips)
        game = load_text(text)
        if skips:
            assert ZONES in game.prog.trigger_skips["two_in"]
        state = game.new_state()
        while not state.is_terminal():                  # each seat gives its top card
            state.apply(state.legal_moves()[0])
        seen[skips] = (game.evaluate("when", state), _random_games(game, 6))
    assert seen[True] == seen[False]
    assert seen[True][0] == 3                           # the hands give 4, 3, then 2


#: `never` has no guard and passes over cards: where the last check found nothing true
#: (a decision between them too), a check after a statement that writes nothing it reads
#: (`x += 1`) leaves it out; after a move, and at the game's first check, it is tested
CALM = '''game "t"
players a, b
card n: 1..4
cards into hand[p]: card(n: k) for p in player for k in 1..4
zone hand[player]: stack
zone pile: stack, face up
var x: int = 0
trigger never when any(c.n > 4 for c in pile) "never true":
    x = 0
action give(c: hand[me]):
    x += 1
    move c to pile
    x += 1
flow:
    repeat 2:
        x += 1
        for p in players:
            choose p: give
            x += 1
    draw
'''


def _tests_made(monkeypatch, text, skips) -> int:
    """How often the plain closures (no generated code) test `never`'s condition in one
    game of first moves."""
    monkeypatch.setattr(_fuse, "ENABLED", False)
    monkeypatch.setattr(game_module, "TRIGGER_SKIPS", skips)
    game = load_text(text)
    calls = [0]
    prio, name, cond, block, decl = game.prog.triggers[0]

    def counted(st):
        calls[0] += 1
        return cond(st)
    game.prog.triggers[0] = (prio, name, counted, block, decl)
    state = game.new_state()
    while not state.is_terminal():
        state.apply(state.legal_moves()[0])
    assert game.evaluate("x", state) == 14
    return calls[0]


def test_only_triggers_whose_conditions_loop_or_call_a_def_are_left_out_in_calm_runs():
    """A cheap condition is tested sooner than a run's calm is kept: without one to
    leave out, no check keeps it (`calm_reads` None)."""
    assert load_text(CALM).prog.calm_reads == {"never": frozenset({ZONES})}
    cheap = CALM.replace("any(c.n > 4 for c in pile)", "count(pile) > 100")
    assert load_text(cheap).prog.calm_reads is None
    assert load_text(TRIGGERS).prog.calm_reads is None        # cheap, or left out already
    named = CALM.replace("any(c.n > 4 for c in pile)", "big(x)").replace(
        "trigger never", "def big(k: int) = k > 100\ntrigger never")
    assert load_text(named).prog.calm_reads == {"never": frozenset({"x"})}


def test_a_calm_run_leaves_out_a_trigger_whose_condition_reads_nothing_written(monkeypatch):
    # every effect: 2 rounds of (x += 1, then 2 moves of 3 effects and an x += 1) = 18;
    # left out: every x += 1 but the game's first (a decision keeps the mark: each move's
    # first x += 1 was tested while the mark lasted only a run, 9); tested: that first
    # and the 4 moves, 1 + 4
    assert _tests_made(monkeypatch, CALM, False) == 18
    assert _tests_made(monkeypatch, CALM, True) == 5


@pytest.mark.parametrize("generated", [True, False])
@pytest.mark.parametrize("text", [CALM, TRIGGERS], ids=["calm", "triggers"])
def test_calm_runs_play_the_same_games_through_random_runs(monkeypatch, generated, text):
    """`random_run`'s generated steps run the checks inline: the same games and
    variables, with every check testing every trigger or not."""
    import random
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    seen = {}
    for skips in (True, False):
        monkeypatch.setattr(game_module, "TRIGGER_SKIPS", skips)
        game = load_text(text)
        games = []
        for seed in range(8):
            state = game.new_state()
            state.random_run(random.Random(seed), 1000)
            games.append((state.trace_texts(), state.vars))
        seen[skips] = games
    assert seen[True] == seen[False]


def test_a_check_tests_every_trigger_after_a_body_ran(monkeypatch):
    """`second` reads what `first`'s body writes, not what the move writes: in the check
    after the move, where `first` fires, it is tested too (and fires there, at tick 1)."""
    text = '''game "t"
players a, b
card n: 1..2
cards into hand[a]: card(n: k) for k in 1..2
zone hand[player]: stack
zone pile: stack, face up
var v: int = 0
var t1: int = 0
var t2: int = 0
var ticks: int = 0
var seen: int = 0
def five(k: int) = k == 5
trigger first when count(pile) == 1 and t1 == 0 "the first card played":
    t1 = 1
    v = 5
trigger second when five(v) and t2 == 0 "after first":
    t2 = 1
    seen = ticks
flow:
    ticks = 1
    move top(hand[a]) to pile
    ticks = 2
    ticks = 3
    draw
'''
    for generated in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", generated)
        game = load_text(text)
        assert game.evaluate("seen", game.new_state()) == 1


def test_a_seat_forgetting_what_a_move_took_unseen_is_tested_at_the_next_check():
    """`give` takes a card from a's hand face down: b, who was shown the hand, cannot tell
    which went, and forgets the rest as the action ends (`State.settle_picks`), outside
    any statement: the check after `ticks = 2`, which writes nothing the condition reads,
    tests it (else it would wait for the next move, at tick 3)."""
    text = '''game "t"
players a, b
card n: 1..3
cards into hand[a]: card(n: k) for k in 1..3
zone hand[player]: set, seen by owner
zone pile: stack
var forgot: int = 0
var ticks: int = 0
trigger lost when forgot == 0 and count([c for c in hand[a] if knows(b, c)]) < count(hand[a]) "b no longer knows a card of a's hand":
    forgot = ticks
action give(c: hand[me]):
    move c to pile face down
flow:
    reveal cards(hand[a]) to b
    ticks = 1
    choose a: give
    ticks = 2
    ticks = 3
    move top(pile) to hand[b]
    draw
'''
    game = load_text(text)
    state = game.new_state()
    state.apply(state.legal_moves()[0])
    assert game.evaluate("forgot", state) == 2


#: a condition reading a zone no name of which it writes: through a table's row, a card's
#: field or a def given either (each `hit == 0 and ...` is left out in a calm run, and
#: `not done and ...` is a flag trigger): a move is followed by its test all the same
ZONE_BY_TABLE = '''game "t"
players a, b
card n: 1..2, home: spot
cards into hand[a]: card(n: k, home: spot[1]) for k in 1..2
zone hand[player]: stack
zone spot[1..2]: stack
var hit: int = 0
var done: bool = false
var ticks: int = 0
table home_of(p: player):
    a => spot[1]
    else => spot[2]
def has2(z: spot) = any(c.n == 2 for c in z)
trigger t when CONDITION "a two lies in a's spot":
    hit = ticks
    done = true
flow:
    ticks = 1
    move top(hand[a]) to spot[1]
    ticks = 2
    move top(hand[a]) to spot[1]
    ticks = 3
    draw
'''


@pytest.mark.parametrize("generated", [True, False])
@pytest.mark.parametrize("condition", [
    "hit == 0 and any(c.n == 2 for c in home_of(a))",
    "hit == 0 and has2(home_of(a))",
    "hit == 0 and any(x.n == 2 for c in card for x in c.home)",
    "not done and any(c.n == 2 for c in home_of(a))",
])
def test_a_zone_reached_through_a_table_or_a_card_field_is_read(monkeypatch, generated,
                                                                condition):
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    game = load_text(ZONE_BY_TABLE.replace("CONDITION", condition))
    left_out = {**game.prog.trigger_skips, **(game.prog.calm_reads or {})}
    assert ZONES in left_out["t"]
    assert game.evaluate("hit", game.new_state()) == 1      # the two is moved first


@pytest.mark.parametrize("generated", [True, False])
def test_the_checks_test_the_triggers_in_their_order_where_one_fails(monkeypatch,
                                                                   generated):
    """`fix`, left out in a calm run, comes first and puts d back; `ratio` would divide by
    zero before it: generated code tests them in that order too (not the calm ones
    last), so neither fails."""
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    text = '''game "t"
players a, b
var on: int = 0
var d: int = 1
var fixes: int = 0
trigger fix when any(k == 1 for k in [on]) "while on, d is put back to 1":
    d = 1
    fixes += 1
trigger ratio when 10 / d > 100 "never true":
    fixes = 100
flow:
    on = 1
    d = 0
    draw
'''
    game = load_text(text)
    assert list(game.prog.calm_reads) == ["fix"]
    state = game.new_state()
    assert (game.evaluate("fixes", state), game.evaluate("d", state)) == (2, 1)


#: a trigger over the pile, calm before a's decision: the pile changed outside the rules
#: (a card placed, or two swapped) while the game waits is not changed by a statement
OUTSIDE = '''game "t"
players a, b
card n: 1..4
cards into hand[a]: card(n: k) for k in 1..4
zone hand[player]: stack
zone pile: stack, face up
var hit: int = 0
var ticks: int = 0
action go() "go":
    ticks = 2
trigger four when hit == 0 and any(c.n == 4 for c in pile) "a four lies on the pile":
    hit = ticks
flow:
    move bottom(hand[a]) to pile
    ticks = 1
    choose a: go
    ticks = 3
    draw
'''


@pytest.mark.parametrize("generated", [True, False])
def test_a_change_outside_the_rules_is_tested_at_the_next_check(monkeypatch, generated):
    """The mark that the last check found nothing true lasts across a decision (what a
    move enters, the conditions do not read); `place` and a law's swap are no statement,
    so the check after `ticks = 2` tests the trigger: it fires there, at 2 (else at
    none, as nothing after writes the pile)."""
    from gdl.laws import _swapped
    monkeypatch.setattr(_fuse, "ENABLED", generated)
    game = load_text(OUTSIDE)
    state = game.new_state()
    assert state.calm and game.evaluate("hit", state) == 0
    placed = state.clone()
    placed.place(["4"], "pile")
    placed.apply("go")
    assert game.evaluate("hit", placed) == 2
    four = next(c for c in state.cards_in("hand[a]") if c.text == "4")
    one = state.cards_in("pile")[0]
    swapped = _swapped(state, four, one)
    swapped.apply("go")
    assert game.evaluate("hit", swapped) == 2
    state.apply("go")                                   # no four on the pile: no hit
    assert game.evaluate("hit", state) == 0


def test_a_run_written_before_the_triggers_were_reordered_tests_them_all():
    """A run's inline test passes `check` the index of the trigger it found true; after
    `set_trigger_order`, the runs are written again in the new order (an index of the
    old order would be another trigger's: `never`'s body would run)."""
    text = '''game "t"
players a, b
card n: 1..2
cards into hand[a]: card(n: k) for k in 1..2
zone hand[player]: stack
zone pile: stack
var bad: int = 0
var hit: int = 0
action go() "go":
    move top(hand[a]) to pile
trigger never when any(c.n > 100 for c in pile) "never true":
    bad = 1
trigger landed when hit == 0 and any(c.n >= 1 for c in pile) "a card on the pile":
    hit = 1
flow:
    choose a: go
    draw
'''
    game = load_text(text)
    game.compile_now()                  # the runs written in the file's order
    game.set_trigger_order(["landed", "never"])
    state = game.new_state()
    state.apply("go")
    assert (game.evaluate("bad", state), game.evaluate("hit", state)) == (0, 1)


def test_a_reordered_trigger_is_tested_first_in_runs_written_before():
    """The runs tested the conditions inline in the order they were written with: after
    `set_trigger_order(["fix", "divide"])`, `divide`'s condition was still tested first
    and divided by zero before `fix` could set `d`."""
    text = '''game "t"
players a, b
card n: 1..2
cards into hand[a]: card(n: k) for k in 1..2
zone hand[player]: stack
zone pile: stack
var d: int = 0
var big: int = 0
action go() "go":
    move top(hand[a]) to pile
trigger divide when count(pile) > 0 and 10 / d > 100 "divides by d":
    big = 1
trigger fix when d == 0 and count(pile) > 0 "sets d":
    d = 1
flow:
    choose a: go
    draw
'''
    game = load_text(text)
    game.compile_now()
    game.set_trigger_order(["fix", "divide"])
    state = game.new_state()
    state.apply("go")
    assert (game.evaluate("d", state), game.evaluate("big", state)) == (1, 0)
    with pytest.raises(RuleError, match="zero"):        # the file's order
        load_text(text).new_state().apply("go")
    with pytest.raises(MoveError, match="set the trigger order before making a state"):
        game.set_trigger_order(["divide", "fix"])   # its states would keep old objects
    from interpreter import Game
    given = Game(game.ruleset, {}, trigger_order=["fix", "divide"])
    assert given.trigger_names() == ["fix", "divide"]
    state = given.new_state()
    state.apply("go")
    assert given.evaluate("d", state) == 1
