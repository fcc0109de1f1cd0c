"""`gdl fuzz` and `gdl diff`: every kind of hole, planted in a small purpose-built ruleset,
is found within a fixed budget and seed, with the rules involved, a shrunk trace, and a
trace file that opens in the REPL at the step where the hole shows.  The literal readings
of the seed games left open on purpose (rulesets/variants/literal/) are found too, and
`gdl diff` finds where two variants part.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

import gdl.laws  # noqa: F401 - the fuzzer's laws: imported here, as under pytest a first
#                  import (its module rewritten) took time out of a budget
from conftest import DEADLOCK, RULESETS
from gdl._repl_session import Session
from gdl.errors import OptionError, RuleError
from gdl.fuzz_cmd import add_diff_parser, add_fuzz_parser
from interpreter import load
from interpreter._fuzz_common import apply_step
from interpreter.fuzz import diff, fuzz

LITERAL = RULESETS / "variants" / "literal"
BUDGET = 1.5

DEADLOCK = '''game "Too few cards"
players 2
card n: 1..3
cards into deck: card(n: i) for i in 1..3
zone deck: stack
zone hand[player]: set, seen by owner
action take(i: 1..count(deck)) "Take a card of the deck, by its place":
    move sublist(cards(deck), i - 1, 1) to hand[me]
flow:
    shuffle deck
    repeat 2:
        for p in players:
            choose p: take
    draw
'''

ORDER = '''game "Two whenevers"
players 2
var total: int = 0
var bonus: int = 0
action add(n: 1..3) "Add one to three to the total":
    total += n
trigger doubles when changed(total) and total % 2 == 0 PRIORITY"an even total doubles the bonus":
    bonus = bonus * 2
trigger adds when changed(total) and total % 3 == 0 "a total of 3, 6, 9 adds one to the bonus":
    bonus = bonus + 1
flow:
    repeat 3:
        for p in players:
            choose p: add
    draw
'''

UNCOVERED = '''game "Short table"
players 2
var score[player]: int = 0
table bonus(n: 1..3) "The printed table stops at three":
    1 => 10
    2 => 20
    3 => 30
action pick(n: 1..4) "Pick a number from one to four":
    score[me] += bonus(n)
flow:
    repeat 2:
        for p in players:
            choose p: pick
    end game
returns(p) = score[p]
'''

CYCLE = '''game "Round and round"
players 2
var where: int = 0
var done: bool = false
action step() "Walk on round the ring of three":
    where = (where + 1) % 3
action leave() "Leave the ring":
    done = true
flow:
    while not done:
        choose p1: step, leave
    draw
'''

#: more states than the walk's bound: a walk that saw them all would prove the limit ends
#: play and drop the finding (as for BOUNDED_COUNTER below), and a walk of 2,001 states
#: did so in a test run on a busy machine, where the playthroughs had less time
COUNTER = '''game "Counting turns"
players 2
option limit: 1..100000 = 100000 "The game is a draw after this many turns"
var turns: int = 0
var done: bool = false
action wait() "Let the turn go by":
    pass
action leave() "End the game":
    done = true
flow:
    while not done and turns < limit:
        turns += 1
        choose p1: wait, leave
    draw
'''

UNBOUNDED = '''game "Doubling"
players 2
var x: int = 1
action wait() "Let the turn go by":
    pass
flow:
    while x > 0:
        x = x * 2
        choose p1: wait
    draw
'''

INVARIANT = '''game "Small totals"
players 2
var total: int = 0
action add(n: 1..3) "Add one to three":
    total += n
flow:
    repeat 3:
        choose p1: add
    draw
invariant small "the total stays below 5": total < 5
'''

RULE_ERROR = '''game "Forbidden three"
players 2
var total: int = 0
action pick(n: 1..3) "Pick a number":
    if n == 3:
        fail "three is not allowed here"
    total += n
flow:
    repeat 2:
        for p in players:
            choose p: pick
    draw
'''

DEAD = '''game "Dead ends"
players 2
option mode: {plain, fancy} = plain "fancy adds ten after each move"
option unused: bool = false "an option no rule reads"
var total: int = 0
rule fancy_scoring "fancy scoring":
    total += 10
rule never_called "a rule nobody calls":
    total += 100
action add(n: 1..2) "Add one or two":
    total += n
    if mode == fancy:
        do fancy_scoring
flow:
    repeat 2:
        choose p1: add
    draw
'''

CLASH = '''game "Not enough cards"
players 2..4 = 2
option size: 1..3 = 2 "cards dealt to each player"
card n: 1..7
cards into deck: card(n: i) for i in 1..7
zone deck: stack
zone hand[player]: set, seen by owner
action wait() "Do nothing":
    pass
flow:
    shuffle deck
    deal size from deck to hand[p] for p in all_players
    choose p1: wait
    draw
'''

INTERNAL = '''game "Coordinates"
players 2
zone cell[1..2, 1..2]: stack
var v: int = 0
action look(i: 1..3) "Read one coordinate of a cell":
    v = index(cell[1, 2], i)
flow:
    choose p1: look
    draw
'''

WANDER = '''game "Wander"
players 2
var x: int = 0
var y: int = 0
action up() "One step up":
    x += 1
action aside() "One step aside":
    y += 1
action go() "Go on only below three":
    require x < 3 "at three the road ends"
    pass
flow:
    while true:
        choose p1: up, aside
        choose p1: go
    draw
'''


def ruleset(tmp_path, text, name="game.gdl"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(path, tmp_path, budget=BUDGET, **kw):
    return fuzz(str(path), kw.pop("options", None), budget=budget, seed=0,
                out_dir=str(tmp_path / "traces"), **kw)


def one(report, kind, subkind=None):
    """Returns the first finding of a kind (and subkind), failing with the report."""
    for f in report.findings:
        if f.kind == kind and (subkind is None or f.subkind == subkind):
            return f
    pytest.fail(f"no {kind} found:\n{report.text()}")


def names(finding):
    return [n for n, _, _ in finding.rules]


def opened(path, finding):
    """Opens a finding's trace as `gdl play FILE --trace T` does; returns the session and
    (replayed, total, stopped)."""
    session = Session(str(path), {}, 0)
    return session, session.load_trace(finding.trace_path)[:3]


# ---------------------------------------------------------------- each kind, planted
def test_a_deadlock_is_found_with_its_shortest_trace_and_opens_at_the_deadlock(tmp_path):
    path = ruleset(tmp_path, DEADLOCK)
    report = run(path, tmp_path)
    f = one(report, "deadlock")
    assert f.message == "deadlock: p2 must move but has no legal move (take)"
    assert f.at == 4                       # the shuffle, then three cards for four takes
    assert ("flow", str(path), 13) in f.rules and "take" in names(f)
    assert "  take: its i has no value here" in f.detail        # why, action by action
    assert f.trace_path and f"gdl play {path} --trace {f.trace_path}" in report.text()
    session, (replayed, total, stopped) = opened(path, f)
    assert (replayed, total, stopped) == (4, 4, None)
    with pytest.raises(RuleError, match="deadlock"):
        session.legal_moves()


def test_a_fuzz_into_a_used_folder_leaves_only_its_own_traces_there(tmp_path):
    # the earlier run's 02-... and 03-... stayed among this run's, read as its findings
    folder = tmp_path / "traces"
    folder.mkdir()
    for name in ("01-deadlock.json", "02-endless-game.json", "103-uncovered-case.json"):
        (folder / name).write_text("{}")
    (folder / "notes.json").write_text("{}")            # not a name the fuzzer gives
    report = run(ruleset(tmp_path, DEADLOCK), tmp_path)
    written = sorted(p.name for p in folder.iterdir())
    traces = [os.path.basename(f.trace_path) for f in report.findings if f.trace_path]
    assert traces and written == sorted(traces + ["notes.json"])
    assert json.loads((folder / traces[0]).read_text())["steps"]


def test_equal_priority_triggers_whose_order_matters(tmp_path):
    path = ruleset(tmp_path, ORDER.replace("PRIORITY", ""))
    f = one(run(path, tmp_path), "order dependence")
    assert names(f) == ["doubles", "adds"]
    assert "order 1: doubles, adds" in f.detail and "order 2: adds, doubles" in f.detail
    trace = json.loads(open(f.trace_path).read())
    states = []
    for order in (["doubles", "adds"], ["adds", "doubles"]):
        game = load(str(path))
        game.set_trigger_order(order)
        state = game.new_state()
        for step in trace["steps"]:
            apply_step(state, step)
        states.append(state)
    assert states[0].key() != states[1].key()   # the trace shows it, replayed both ways
    assert game.evaluate("total % 6", states[1]) == 0


def test_triggers_with_declared_priorities_are_not_reordered(tmp_path):
    path = ruleset(tmp_path, ORDER.replace("PRIORITY", "priority 2 "))
    report = run(path, tmp_path, budget=1.0)
    assert report.by_kind("order dependence") == []


def test_an_uncovered_table_case_opens_before_the_step_that_fails(tmp_path):
    path = ruleset(tmp_path, UNCOVERED)
    f = one(run(path, tmp_path), "uncovered case")
    assert f.message == "table bonus has no case for n=4"
    assert f.at == 1 and f.steps == [{"player": "p1", "move": "pick 4"}]
    assert names(f) == ["pick", "bonus"]
    _, (replayed, total, stopped) = opened(path, f)
    assert (replayed, total) == (0, 1) and "has no case for n=4" in stopped.reason


def test_a_loop_in_play_is_endless_play_with_its_repeating_part(tmp_path):
    f = one(run(ruleset(tmp_path, CYCLE), tmp_path), "endless play", "cycle")
    assert f.at == 3 and [s["move"] for s in f.steps] == ["step"] * 3
    assert "comes back after step 3" in f.message
    assert f.detail[0] == "repeating part (steps 1-3):"


RING = '''game "Ring"
players 1
card n: 1..3
cards into deck: card(n: k) for k in {kinds}
zone deck: stack
var done: bool = false
action turn() "Put the top card at the bottom":
    move top(deck) to bottom of deck
flow:
    while not done:
        choose p1: turn
    draw
'''


@pytest.mark.parametrize("text, kinds, comes_back", [
    (CYCLE, None, [None, None, 0]),                      # the variables tell: heads do
    (RING, "1..3", [None, None, 0]),                     # only the cards tell
    (RING, "[1, 1, 2]", [None, None, 0]),
    (RING, "[1, 1]", [0, 0, 0]),                         # twins change places: the same
])
def test_the_endless_play_watch_reads_the_cards_only_once_a_head_comes_back(
        text, kinds, comes_back):
    from interpreter import load_text
    from interpreter._fuzz_common import move_step
    from interpreter._fuzz_play import _Watch
    from interpreter._keys import header
    game = load_text(text.replace("{kinds}", kinds or ""))
    state, steps = game.new_state(0), []
    watch = _Watch(header(game.prog), state, steps)
    seat, found = game.seats[0], []
    for _ in comes_back:
        assert not watch.whole or kinds is not None      # heads alone until one is back
        move = state.legal_moves(seat)[0]
        steps.append(move_step(seat, move))
        state.apply(move, seat)
        found.append(watch.see(state))
    assert found == comes_back
    again = game.new_state(0)                           # whole keys now, of every state
    keys = [again.key()]
    for step in steps:
        apply_step(again, step)
        keys.append(again.key())
    assert watch.whole and watch.keys == keys


@pytest.mark.parametrize("kinds, heads_alike", [("[1, 1, 2]", True), ("1..3", False)])
def test_a_head_is_equal_where_the_key_is(kinds, heads_alike):
    # a variable holding the twin at the bottom of the deck or the one above it: two
    # keys (what it names lies elsewhere), one head (the head keeps a twin's kind: equal
    # keys have equal heads, not the other way round); a card of its own (no twins) is
    # in the head as it is
    from interpreter import load_text
    from interpreter._keys import header
    game = load_text(RING.replace("{kinds}", kinds).replace(
        "var done", "var held: card? = none\nvar done"))
    a, b = game.new_state(0), game.new_state(0)
    slot = game.prog.var_names.index("held")
    a.vars[slot], b.vars[slot] = game.prog.cards[0], game.prog.cards[1]
    head = header(game.prog)
    assert a.key() != b.key() and (head(a) == head(b)) is heads_alike
    b.vars[slot] = game.prog.cards[0]
    assert a.key() == b.key() and head(a) == head(b)


def test_a_simultaneous_decisions_commits_are_drawn_as_from_their_lists(monkeypatch):
    # no seat's moves are listed at a simultaneous decision (`random_move` draws each
    # commit, and checks the seats after the first to have a move without its list),
    # and each drawn move is the one its list holds at rng.randrange: the same
    # playthroughs as listing them
    from interpreter._fuzz_common import declarations, move_step
    from interpreter._fuzz_play import Explorer
    from interpreter.state import State
    game = load(str(RULESETS / "double_dealing_shuffle.gdl"))

    def explored():
        x = Explorer(game, declarations(game.ruleset), 0, 500, law_every=0)
        x.run(float("inf"), max_playthroughs=6)
        return x.steps, sorted(x.findings), x.rng.getstate()

    listed, legal_moves = [], State.legal_moves

    def listing(state, seat=None):
        if state.is_simultaneous():
            listed.append(seat)
        return legal_moves(state, seat)

    monkeypatch.setattr(State, "legal_moves", listing)
    drawn = explored()
    assert not listed

    def listed_commit(self, state, seat, steps):      # each commit drawn from its list
        moves = state.legal_moves(seat)
        move = moves[self.rng.randrange(len(moves))]
        steps.append(move_step(seat, move))
        state.apply(move, seat)
        return True

    monkeypatch.setattr(Explorer, "drawn_commit", listed_commit)
    assert explored() == drawn and len(listed) > 40


@pytest.mark.parametrize("p1_tokens, stuck", [(2, "p2"), (0, "p1")])
def test_a_seat_without_a_move_at_a_simultaneous_decision_is_found_before_any_commit(
        p1_tokens, stuck):
    # p2 has no move: the playthrough stops before p1's commit, and where neither has
    # one, p1's deadlock is the one found, as listing the seats in order found it
    from interpreter import load_text
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    game = load_text(f'''game "Nothing to give"
players 2
var given[player]: int = 0
action give(n: 1..(if me == p2 then 0 else {p1_tokens})) "Give tokens; p2 has none":
    given[me] += n
flow:
    simultaneously p in players: give
    draw
''')
    x = Explorer(game, declarations(game.ruleset), 0, 100, law_every=0)
    x.run(float("inf"), max_playthroughs=1)
    (found,) = x.findings.values()
    assert found["message"] == f"deadlock: {stuck} must move but has no legal move (give)"
    assert found["steps"] == []


def test_the_committing_seats_deadlock_is_found_before_the_laws_are_checked(monkeypatch):
    # where the laws are due before a step, a simultaneous decision's committing seat is
    # checked to have a move first, as listing it did: the laws never see the deadlock
    from interpreter import load_text
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    game = load_text('''game "Nothing to give"
players 2
var given[player]: int = 0
action give(n: 1..(if me == p1 then 0 else 2)) "Give tokens; p1 has none":
    given[me] += n
flow:
    simultaneously p in players: give
    draw
''')
    checked, check_laws = [], Explorer.check_laws
    monkeypatch.setattr(Explorer, "check_laws", lambda self, *a: (
        checked.append(a), check_laws(self, *a))[1])
    x = Explorer(game, declarations(game.ruleset), 0, 100)
    x.run(float("inf"), max_playthroughs=1)
    (found,) = x.findings.values()
    assert found["message"] == "deadlock: p1 must move but has no legal move (give)"
    assert found["steps"] == [] and checked == []


def test_playthroughs_collect_the_young_generation_less_often(monkeypatch):
    import gc
    from interpreter import load_text
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import YOUNG_THRESHOLD, Explorer
    game = load_text(CYCLE)
    seen, playthrough = [], Explorer.playthrough
    monkeypatch.setattr(Explorer, "playthrough", lambda self, *a, **k: (
        seen.append(gc.get_threshold()[0]), playthrough(self, *a, **k)))
    before = gc.get_threshold()
    Explorer(game, declarations(game.ruleset), 0, 100).run(float("inf"), max_playthroughs=3)
    assert seen == [YOUNG_THRESHOLD] * 3 and gc.get_threshold() == before


def test_a_state_that_only_a_counter_tells_apart_is_endless_play(tmp_path):
    f = one(run(ruleset(tmp_path, COUNTER), tmp_path), "endless play", "counter")
    assert "except for turns, which only counts up" in f.message
    assert names(f) == ["wait"]


def test_a_counter_is_a_whole_number_that_only_goes_up_by_one():
    from interpreter._fuzz_play import counter_repeat

    def keys(rows):            # a state key's variables are its fourth part
        return [(0, None, 0, tuple(row), "zones") for row in rows]
    # slot 0 counts up (by one, three times); slot 1 is the position, which comes back
    rows = [(0, "a"), (1, "b"), (1, "a"), (2, "b"), (3, "a")]
    assert counter_repeat(keys(rows), {0}) == (0, 2, [0])
    assert counter_repeat(keys(rows), set()) is None
    for column in ((0, 1, 1, 3, 4),             # a step of two
                   (0, 1, 2, 1, 2),             # a step down
                   (0, 1, 1, 2, 2),             # only two steps up
                   (0, 1, 1, 2, 3.0),           # not whole numbers throughout
                   (False, True, True, 2, 3)):  # nor here
        rows = [(x, "ab"[i % 2]) for i, x in enumerate(column)]
        assert counter_repeat(keys(rows), {0}) is None, column
    # the same variables but for the counter, and the zones tell states apart: the
    # repeat is the first whole one, here of the second state
    zoned = [(0, None, 0, (n, "a"), zones) for n, zones in enumerate(("x", "y", "z", "y"))]
    assert counter_repeat(zoned, {0}) == (1, 3, [0])
    assert counter_repeat(zoned[:3] + [zoned[3][:4] + ("w",)], {0}) is None
    assert counter_repeat(zoned[:3] + [zoned[3][:4] + ("x",)], {0}) == (0, 3, [0])
    alone = [(0, None, 0, (n,), zones) for n, zones in enumerate("xyzx")]   # no other variable
    assert counter_repeat(alone, {0}) == (0, 3, [0])


def test_no_end_within_the_step_bound_is_endless_play(tmp_path):
    f = one(run(ruleset(tmp_path, UNBOUNDED), tmp_path, max_steps=50), "endless play",
            "bound")
    assert f.at == 50 and "no end within 50 steps" in f.message
    assert names(f) == ["wait"]                 # the actions played last (it named none)


def test_an_invariant_violation_is_shrunk_to_the_fewest_steps(tmp_path):
    path = ruleset(tmp_path, INVARIANT)
    f = one(run(path, tmp_path), "invariant violation", "invariant")
    assert f.message == "the ruleset's invariant 'small' does not hold"
    assert f.rules == [("small", str(path), 10)]
    assert f.at == 2                          # add 3, then add 2 or 3
    _, (replayed, total, stopped) = opened(path, f)
    assert replayed == total == 2 and stopped is None


def test_a_broken_law_of_the_testing_kit_is_an_invariant_violation(tmp_path):
    path = ruleset(tmp_path, f'''variant of "{(RULESETS / "classics/kuhn_poker.gdl").as_posix()}"
action bet() "a leak: the bet names the opponent's card":
    require top(hand[opponent(me)]).rank != jack
    put[me] += 1
    history = history + "b"
''')
    f = one(run(path, tmp_path), "invariant violation", "law")
    assert "'views'" in f.message and "legal moves change" in f.message
    assert "bet" in names(f)            # the actions to be played there (it named none)


def test_a_crash_in_a_law_is_an_internal_error_naming_the_law(monkeypatch):
    # it was taken for a step's crash that play would meet itself, and dropped: a crash
    # in what only a law does (here the snapshot) no playthrough meets
    from gdl import laws
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer

    def crashing(seen, rng):
        raise ZeroDivisionError("in the snapshot")
        yield
    monkeypatch.setitem(laws._LAWS, "json", crashing)
    game = load(str(RULESETS / "classics/kuhn_poker.gdl"))
    x = Explorer(game, declarations(game.ruleset), 0, 100, law_every=1)
    x.run(float("inf"), max_playthroughs=1)
    (found,) = x.findings.values()
    assert found["kind"] == "internal error" and found["steps"] == []
    assert found["message"] == "ZeroDivisionError: in the snapshot"
    assert "while the built-in law 'json' was checked" in found["detail"][0]


def test_a_walk_begun_after_its_deadline_still_sees_the_first_state():
    # with -j 2 a worker's first task compiled the rules inside the walk's time, and a
    # game of one state came out "partial"
    from interpreter import load_text
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    from interpreter._fuzz_walk import walk
    for text, states, complete in (('game "z"\nplayers 2\nflow:\n    draw\n', 1, True),
                                   ('game "c"\nplayers 2\naction a():\n    pass\nflow:\n'
                                    '    choose p1: a\n    draw\n', 1, False)):
        game = load_text(text)
        x = Explorer(game, declarations(game.ruleset), 0, 100, law_every=0)
        w = walk(x, 1000, deadline=0.0)
        assert (w["complete"], w["states"] > states) == (complete, not complete), text


def test_a_tie_that_leaves_no_player_to_win_is_an_uncovered_case(tmp_path):
    # "this value is none, where a player is needed" was filed as a plain rule error
    path = ruleset(tmp_path, '''game "Tie"
players 2
var score[player]: int = 0
def leader() = first(p for p in players if score[p] > score[opponent(p)])
action up():
    score[me] += 1
action stay():
    pass
flow:
    choose p1: up, stay
    win leader()
''')
    f = one(run(path, tmp_path), "uncovered case")
    assert f.message.startswith("this value is none, where a player is needed")


def test_an_action_whose_body_is_pass_is_counted_and_found_dead(tmp_path):
    # it read "(no statement to count)", entered 0 times, and was never reported dead
    text = '''game "Waiting"
players 2
var n: int = 0
action wait():
    pass
action bump():
    n += 1
flow:
    repeat 4:
        choose p1: wait, bump
    draw
'''
    report = run(ruleset(tmp_path, text), tmp_path)
    (row,) = [r for r in report.coverage if r["name"] == "wait"]
    assert row["statements"] == row["run"] == 1 and row["runs"] > 0
    dead = run(ruleset(tmp_path, text.replace("    pass", "    require n > 100\n    pass")),
               tmp_path)
    assert "action wait is never played" in [f.message for f in dead.findings]


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_action_of_requires_alone_is_counted_at_its_header(tmp_path, jobs):
    # no statement to count: "never called" and "action wait is never played", though
    # random play made it half the time
    text = '''game "Waiting"
players 2
var n: int = 0
action wait():
    require n < 100
action bump():
    n += 1
flow:
    repeat 4:
        choose p1: wait, bump
        simultaneously p in players: wait
    draw
'''
    report = run(ruleset(tmp_path, text), tmp_path, budget=2.5 if jobs > 1 else 1.5, jobs=jobs)
    (row,) = [r for r in report.coverage if r["name"] == "wait"]
    assert row["statements"] == row["run"] == 1 and row["runs"] > 0 and row["line"] == 4
    assert report.by_kind("dead rule") == [], report.text()


def test_the_walk_gets_a_share_of_the_budget_not_a_fixed_slice(tmp_path, monkeypatch):
    # the walking task had at most 2 s (the walk 40% of it) whatever the budget
    from interpreter import fuzz as fuzzing
    walking = []
    real = fuzzing._Runner.map

    def recording(self, tasks, on_result):
        walking.extend(t["seconds"] for t in tasks if t.get("walk"))
        return real(self, tasks, on_result)
    monkeypatch.setattr(fuzzing._Runner, "map", recording)
    run(ruleset(tmp_path, DEADLOCK), tmp_path, budget=30)
    assert len(walking) == 1 and walking[0] > 8     # half of 70% of 30 s, less the probes


SLOW_STEPS = '''game "Slow steps"
players p1, p2
var n: int = 0
var k: int = 0
action go() "go":
    k = 0
    while k < 150000:
        k += 1
    n += 1
flow:
    while n < 400:
        choose p1: go
    end game
returns(p) = 0
'''


def test_the_budget_holds_where_each_step_loops_long(tmp_path):
    # the deadline was looked at every 256 steps, and a cut playthrough was then replayed
    # whole for its counters: 400 steps of ~20 ms each ran a 1 s budget well past 10 s
    import time
    began = time.monotonic()
    report = run(ruleset(tmp_path, SLOW_STEPS), tmp_path, budget=1.0)
    assert time.monotonic() - began < 5 and report.seconds < 5


FOUR_EACH_GAME = '''game "Lay"
players 2
card n: 1..4
cards into deck: card(n: k) for k in 1..4
zone deck: stack
zone pile: stack, face up
action lay():
    move top(deck) to pile
flow:
    repeat 2:
        choose p1: lay
        choose p2: lay
    draw
'''


MISDEAL = '''game "Misdeal"
players 2
card n: 1..2, suit: 1..2
cards into deck: card(n: k, suit: s) for s in 1..2 for k in 1..2
zone deck: stack
zone hand[player]: stack, face up
flow:
    while true:
        for p in players:
            move hand[p] to deck
        shuffle deck
        deal 1 from deck to hand[p] for p in players
        if top(hand[p1]).n > top(hand[p2]).n:
            win p1
        elif top(hand[p2]).n > top(hand[p1]).n:
            win p2
'''


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_misdeal_dealt_again_is_not_endless_play_but_a_shuffle_for_ever_is(tmp_path,
                                                                             seed):
    # chance leaves the loop of a redeal with probability 1: it was reported as endless
    report = fuzz(str(ruleset(tmp_path, MISDEAL)), budget=1.5, seed=seed,
                  out_dir=str(tmp_path / "t"))
    assert report.by_kind("endless play") == [], report.text()
    forever = MISDEAL.replace("n > top(hand[p2]).n:", "n > 5:").replace(
        "n > top(hand[p1]).n:", "n > 5:")                 # nobody ever wins
    report = fuzz(str(ruleset(tmp_path, forever, "forever.gdl")), budget=1.5, seed=seed,
                  out_dir=str(tmp_path / "t"))
    assert [f.subkind for f in report.by_kind("endless play")] == ["cycle"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_deal_that_fails_before_the_first_decision_is_not_an_option_clash(tmp_path,
                                                                            seed):
    # one deal in five fails: it was "the game cannot be set up with the defaults", the
    # other deals unplayed, and the draw after them reported dead
    path = ruleset(tmp_path, '''game "Rare"
players 2
card n: 1..5
cards into deck: card(n: k) for k in 1..5
zone deck: stack
flow:
    shuffle deck
    if top(deck).n == 1:
        fail "an unlucky deal"
    draw
''')
    report = fuzz(str(path), budget=1.0, seed=seed, out_dir=str(tmp_path / "t"))
    assert [(f.kind, f.message) for f in report.findings] == [
        ("rule error", "an unlucky deal")], report.text()


def test_an_order_that_fails_or_keeps_a_trigger_from_firing_is_told_in_full(tmp_path):
    # the failing order said only "raises a rule error", and a trigger the other order
    # kept from firing (the game won first) was left out of the triggers named
    crash = ruleset(tmp_path, '''game "Order crash"
players 2
zone pile: stack, face up
zone discard: stack, face up
card n: 1..3
cards into pile: card(n: k) for k in 1..3
var total: int = 0
var plays: int = 0
action play():
    plays += 1
trigger score when changed(plays) and plays == 2:
    total += top(pile).n
trigger clear when changed(plays) and plays == 2:
    move pile to discard
flow:
    repeat 3:
        choose p1: play
    draw
''', "crash.gdl")
    f = one(run(crash, tmp_path), "order dependence")
    assert [line for line in f.detail if "raises" in line] == [
        "in order 2 the step raises: top() of an empty zone, pile, in score (line 12)"]
    ended = ruleset(tmp_path, '''game "Won first"
players 2
var score: int = 0
var reached: bool = false
action add():
    score += 1
trigger target when score >= 2:
    win p1
trigger note when not reached and score >= 2:
    reached = true
flow:
    while true:
        choose p1: add
''', "ended.gdl")
    f = one(run(ended, tmp_path), "order dependence")
    assert names(f) == ["target", "note"] and "triggers target, note fire" in f.message


def test_after_a_walk_that_saw_every_state_each_playthrough_checks_the_laws():
    # one playthrough in four did, of the fifty left to run: a twin named by a card
    # literal went unseen at most seeds
    from interpreter import load_text
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    game = load_text(FOUR_EACH_GAME)
    checked = []
    for few in (False, True):
        x = Explorer(game, declarations(game.ruleset), 0, 100, law_every=1)
        x.few = few
        seen = set()
        real = x.laws
        x.laws = lambda state, laws, rng: (seen.add(x.playthroughs), real(state, laws, rng))[1]
        x.run(float("inf"), max_playthroughs=8)
        checked.append(sorted(seen))
    assert checked == [[1, 5], list(range(1, 9))]


def test_any_other_rule_error_is_a_finding(tmp_path):
    path = ruleset(tmp_path, RULE_ERROR)
    f = one(run(path, tmp_path), "rule error")
    assert f.message == "three is not allowed here"
    assert f.rules == [("pick", str(path), 6)] and f.at == 1


def test_an_engine_crash_is_reported_not_raised(tmp_path):
    # index() past a zone's indices raises IndexError inside the engine (reported as an
    # engine bug); should it become a rule error, the fuzzer reports it as one
    f = next(f for f in run(ruleset(tmp_path, INTERNAL), tmp_path, budget=1.0).findings
             if f.kind in ("internal error", "uncovered case", "rule error"))
    assert f.steps == [{"player": "p1", "move": "look 3"}] and names(f)[-1] == "look"


def test_dead_rules_and_branches_come_from_coverage(tmp_path):
    report = run(ruleset(tmp_path, DEAD), tmp_path, budget=1.0)
    dead = {f.message for f in report.by_kind("dead rule")}
    assert dead == {"rule fancy_scoring never runs", "rule never_called never runs",
                    "action add: line 13 never run"}
    rows = {r["name"]: r for r in report.coverage}
    assert rows["add"]["run"] == 2 and rows["add"]["dead_lines"] == [13]
    assert rows["never_called"]["statements"] == 1 and report.holes() == []   # its line
    assert "never_called" in report.text() and "coverage" in report.text()
    # the game has options: the report says its dead rules are judged under these only
    assert "--sweep-options also tries every other option value" in report.text()
    # but not of options no sweep can try (text), swept or not (the review)
    texts = DEAD.replace("option mode: {plain, fancy} = plain", 'option mode: text = "plain"')
    texts = texts.replace("mode == fancy", 'mode == "fancy"').replace(
        'option unused: bool = false "an option no rule reads"\n', "")
    for sweep in (False, True):
        told = run(ruleset(tmp_path, texts, "texts.gdl"), tmp_path, budget=0.5, sweep=sweep)
        assert "--sweep-options also" not in told.text()


PACING = '''game "Pacing"
players 1
var pos: int = 0
action left() "A step back":
    require pos > 0
    pos -= 1
action right() "A step on":
    pos += 1
flow:
    while pos < 20:
        choose p1: left, right
    win p1
'''


def test_a_game_whose_playthroughs_come_back_to_a_state_still_reaches_its_end(tmp_path):
    # every playthrough stopped at its first repeated state: the walk's end (the win
    # line), reached after many repeats, was called dead (the walk of states from the
    # start, which would reach it in this small game, kept to a few states as in a big one)
    report = run(ruleset(tmp_path, PACING), tmp_path, budget=1.0, max_states=8)
    assert {f.message for f in report.by_kind("dead rule")} == set()
    assert [f.subkind for f in report.by_kind("endless play")] == ["cycle"]
    assert {r["name"]: r["dead_lines"] for r in report.coverage}["flow"] == []


def test_a_sweep_finds_dead_option_values_and_revives_rules(tmp_path):
    report = run(ruleset(tmp_path, DEAD), tmp_path, budget=1.5, sweep=True)
    dead = {f.message.split(" changes")[0] for f in report.by_kind("dead rule")
            if f.subkind == "option value"}
    assert dead == {"option value unused=true"}
    assert "rule fancy_scoring never runs" not in {f.message for f in report.findings}
    assert {"mode": "fancy"} in report.configs and {"unused": "true"} in report.configs
    assert "--sweep-options also tries" not in report.text()        # it did


REVEAL_OPTION = '''game "Reveal option"
players 2
option show: bool = false "p2 is shown p1's card"
card n: 1..3
cards into deck: card(n: i) for i in 1..3
zone deck: stack
zone hand[player]: set, seen by owner
action wait() "do nothing":
    pass
flow:
    shuffle deck
    deal 1 from deck to hand[p] for p in players
    if show:
        reveal hand[p1] to p2
    choose p2: wait
    draw
'''


def test_an_option_that_only_shows_a_seat_a_card_is_not_dead(tmp_path):
    # the playthroughs' digests held each seat's record of the steps, not its view
    report = run(ruleset(tmp_path, REVEAL_OPTION), tmp_path, budget=1.0, sweep=True)
    assert {"show": "true"} in report.configs
    assert not [f for f in report.findings if f.subkind == "option value"], report.text()


def test_player_counts_and_option_values_that_cannot_be_set_up_clash(tmp_path):
    path = ruleset(tmp_path, CLASH)
    report = run(path, tmp_path, players=[2, 3, 4])
    clashes = report.by_kind("option clash")
    assert [f.options for f in clashes] == [{"players": "4"}]
    assert "cannot deal: the source zone is empty" in clashes[0].message
    assert clashes[0].rules == [("flow", str(path), 12)]
    swept = run(path, tmp_path, budget=1.0, sweep=True)
    assert {"players": "4"} in [f.options for f in swept.by_kind("option clash")]
    # the default count is the base configuration, fuzzed once (it was fuzzed as
    # `players=2` too), and a count named twice is one configuration
    again = run(path, tmp_path, budget=0.5, players=[3, 2, 3])
    assert again.configs == [{}, {"players": "3"}]
    assert "(+1 other configuration)\n" in again.text()


def test_player_counts_the_game_does_not_take_are_a_usage_error(tmp_path):
    # a count outside `players 2..4` is the command line's mistake, not the game's
    # (it was reported as an option clash, a hole); a fixed game takes its own count
    with pytest.raises(OptionError, match=r"--players: this game takes 2 to 4 players, "
                                          r"not 1, 5"):
        run(ruleset(tmp_path, CLASH), tmp_path, players=[1, 2, 5])
    with pytest.raises(OptionError, match="this game takes 2 players, not 3"):
        run(ruleset(tmp_path, DEAD), tmp_path, players=[3])
    report = run(ruleset(tmp_path, DEAD), tmp_path, budget=0.5, players=[2])
    assert report.by_kind("option clash") == []


def test_the_shrinker_cuts_a_wandering_trace_to_the_shortest(tmp_path):
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    from interpreter._fuzz_shrink import make_probe, shrink
    game = load(str(ruleset(tmp_path, WANDER)))
    x = Explorer(game, declarations(game.ruleset), seed=3, max_steps=5000, law_every=0)
    while not any(f["kind"] == "deadlock" for f in x.findings.values()):
        x.playthrough(game.new_state(0), [])
    raw = next(f for f in x.findings.values() if f["kind"] == "deadlock")
    assert len(raw["steps"]) > 8
    steps, _ = shrink(game, raw["steps"], make_probe(raw, game), 0, float("inf"))
    assert [s["move"] for s in steps] == ["up", "go", "up", "go", "up"]


def test_worker_processes_find_the_same_hole(tmp_path):
    report = run(ruleset(tmp_path, UNCOVERED), tmp_path, budget=2.5, jobs=2)
    assert report.jobs == 2 and one(report, "uncovered case").at == 1


def test_workers_fuzz_the_game_the_run_loaded_even_if_the_file_changes(tmp_path,
                                                                          monkeypatch):
    """The workers are given the checked rules: the file edited once the run has loaded
    it (a designer at work), before any worker starts, changes nothing; a worker that
    read the file would find the new game's deadlock."""
    import interpreter.fuzz as fuzz_module
    path = ruleset(tmp_path, UNCOVERED)
    start_run = fuzz_module._Run.__init__

    def edit_then_start(self, *args, **kw):
        path.write_text(DEADLOCK)
        start_run(self, *args, **kw)
    monkeypatch.setattr(fuzz_module._Run, "__init__", edit_then_start)
    report = run(path, tmp_path, budget=2.5, jobs=2)
    assert [f.kind for f in report.holes()] == ["uncovered case"], report.text()


def test_a_worker_killed_from_outside_ends_the_fuzz_run_instead_of_a_wait(tmp_path):
    """Out of memory, say: the run raises BrokenProcessPool well before its budget ends
    (a `multiprocessing` pool would wait for the lost task for ever)."""
    import multiprocessing
    import os
    import signal
    import threading
    import time
    from concurrent.futures.process import BrokenProcessPool
    raised = []

    def run():
        try:
            fuzz(str(RULESETS / "evil_deal.gdl"), budget=60, jobs=2, out_dir=str(tmp_path))
        except BrokenProcessPool as err:
            raised.append(err)
    fuzzing = threading.Thread(target=run, daemon=True)
    fuzzing.start()
    deadline = time.monotonic() + 30
    workers = []
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        workers = [p for p in multiprocessing.active_children() if "resource" not in p.name]
    time.sleep(2)                               # the workers are at their tasks
    os.kill(workers[0].pid, signal.SIGKILL)
    fuzzing.join(20)
    assert raised and not fuzzing.is_alive()


# ---------------------------------------------------------------- the seed games read literally
def test_double_down_dd8_strict_deadlocks_on_a_hand_of_x2_cards(tmp_path):
    path = LITERAL / "double_down_x2_strict.gdl"
    report = run(path, tmp_path, options={"players": "2"})
    f = one(report, "deadlock")
    assert "has no legal move (play)" in f.message and names(f) == ["take_turn", "play"]
    assert {"player": "p1", "move": "play x2"} in f.steps or \
        {"player": "p2", "move": "play x2"} in f.steps
    session, (replayed, total, stopped) = opened(path, f)
    assert replayed == total and stopped is None
    assert "hand[p2] (2): (x2) (x2)" in session.state.view(None) or \
        "hand[p1] (2): (x2) (x2)" in session.state.view(None)
    with pytest.raises(RuleError, match="deadlock"):
        session.legal_moves()


def test_the_dd8_resolution_closes_the_deadlock(tmp_path):
    report = run(LITERAL / "double_down_x2_strict.gdl", tmp_path,
                 options={"players": "2", "x2_only_hand": "lapse"})
    assert report.by_kind("deadlock") == []


def test_double_down_dd5_as_two_triggers_depends_on_their_order(tmp_path):
    f = one(run(LITERAL / "double_down_two_triggers.gdl", tmp_path, budget=4.0,
                options={"players": "2"}), "order dependence")
    assert names(f) == ["double_loses_chip", "ninety_nine_ends_round"]
    assert any(line.startswith("-chips") for line in f.detail)


def test_dds_with_visible_shuffles_comes_back_but_for_the_round_counter(tmp_path):
    f = one(run(LITERAL / "dds_visible_shuffles.gdl", tmp_path, budget=2.5),
            "endless play", "counter")
    assert "except for rounds" in f.message and "guess" in names(f)


def test_dds_without_a_round_limit_can_go_round_for_ever(tmp_path):
    f = one(run(LITERAL / "dds_no_round_limit.gdl", tmp_path, budget=2.5),
            "endless play", "cycle")
    assert "loop of 12 steps" in f.message         # one round: 3 shuffles, cut, guess, check
    assert f.at % 12 == 0 and f.at >= 24           # two tied rounds alike, at the shortest


def test_evil_deal_with_the_printed_table_has_no_row_for_no_tricks(tmp_path):
    f = one(run(LITERAL / "evil_deal_table_from_one.gdl", tmp_path, budget=6.0,
                options={"target": "1"}), "uncovered case")
    assert f.message.startswith("table points has no case for taken=0")
    assert "points" in names(f)


def test_gerry_g3_literal_deadlocks_on_a_lone_face_up_card(tmp_path):
    f = one(run(LITERAL / "gerry_single_card_cell.gdl", tmp_path, budget=2.0,
                options={"size": "3"}), "deadlock")
    assert "(move_face_up, look)" in f.message
    assert f.steps[-1]["move"].startswith("select cell[")     # the lone card's cell
    assert any(line.startswith("  look: rule look, line 80 of ") for line in f.detail)


def test_a_worker_quotes_the_lines_of_a_variants_base(monkeypatch):
    # a worker is given the checked ruleset, not the files: quoting a base's line for a
    # deadlock's why raised IndexError there (an internal error under -j 2)
    from gdl.errors import SOURCES
    from interpreter._fuzz_tasks import sources_of, start_worker
    game = load(str(LITERAL / "gerry_single_card_cell.gdl"))
    sources = sources_of(game.ruleset)
    assert len(sources) == 2 and all(sources.values())      # the variant and its base
    base = next(f for f in sources if f.endswith("/gerry.gdl"))
    monkeypatch.setattr("interpreter._workers.ignore_interrupts", lambda: None)
    monkeypatch.delitem(SOURCES, base)
    state = game.new_state(0)
    while state.is_chance():
        state.apply_chance(state.sample_chance(random.Random(0)))
    state.apply("select cell[1,1]")
    card = next(m.args[0] for m in state.legal_moves() if m.action.name == "move_face_up")
    onto_itself = f"move_face_up {card.text} cell[1,1]"     # `dest != selected[me]`
    assert state.why_illegal(onto_itself) == f"rule move_face_up, line 76 of {base}"
    start_worker("run", str(LITERAL / "gerry_single_card_cell.gdl"), game.ruleset, sources)
    assert state.why_illegal(onto_itself).startswith(
        f"rule move_face_up, line 76 of {base}: require dest != selected[me]")


# ---------------------------------------------------------------- the command line
def _parse(argv):
    ap = argparse.ArgumentParser(prog="gdl")
    sub = ap.add_subparsers(dest="command", required=True)
    add_fuzz_parser(sub)
    add_diff_parser(sub)
    return ap.parse_args(argv)


def test_the_fuzz_command_prints_a_report_and_exits_1_on_a_hole(tmp_path, capsys):
    path = ruleset(tmp_path, INVARIANT)
    args = _parse(["fuzz", str(path), "--budget", "1", "--out", str(tmp_path / "t")])
    assert args.func(args) == 1
    out = capsys.readouterr().out
    assert "invariant violation" in out and "summary:" in out
    assert f"gdl play {path} --trace {tmp_path / 't'}" in out
    args = _parse(["fuzz", str(ruleset(tmp_path, DEAD, "dead.gdl")), "--budget", "1",
                   "--json", "--seed", "3"])
    assert args.func(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["holes"] == 0 and data["summary"]["dead rule"] == 3 and data["seed"] == 3


def test_the_fuzz_command_refuses_bad_flags(tmp_path):
    path = ruleset(tmp_path, DEAD)
    for argv in (["--budget", "0"], ["--budget", "nan"], ["--budget", "inf"], ["-j", "-1"],
                 ["--max-steps", "0"], ["--players", "x"]):
        args = _parse(["fuzz", str(path)] + argv)
        with pytest.raises(OptionError):
            args.func(args)


def test_diff_finds_a_face_up_move_to_a_cell_that_is_not_adjacent(tmp_path):
    a, b = RULESETS / "gerry.gdl", RULESETS / "variants" / "gerry_adjacent.gdl"
    result = diff(str(a), str(b), budget=5, out_dir=str(tmp_path))
    assert result.differs and len(result.steps) == 3
    select = result.steps[-1]["move"]                    # e.g. "select cell[1,1]"
    assert select.startswith("select cell[")
    only_a = next(d for d in result.differences if d.strip().startswith("only in A:"))
    r, c = (int(x) for x in select[len("select cell["):-1].split(","))
    far = only_a.split(": ", 1)[1].split(", ")[0]        # e.g. "move_face_up 10C cell[1,3]"
    fr, fc = (int(x) for x in far.rsplit("cell[", 1)[1].rstrip("]").split(","))
    assert abs(fr - r) + abs(fc - c) > 1
    session = Session(str(b), {}, 0)
    assert session.load_trace(result.trace_path)[:2] == (3, 3)
    assert far not in [m.text for m in session.legal_moves()]


def test_diff_names_the_option_defaults_the_two_rulesets_differ_in(tmp_path):
    # "options: defaults" read as if both ran alike
    a, b = RULESETS / "double_dealing_shuffle.gdl", RULESETS / "variants" / \
        "dds_full_visibility.gdl"
    result = diff(str(a), str(b), budget=0.3, out_dir=str(tmp_path))
    assert "  options: defaults (shuffle_visibility=hidden in A, full in B)" in result.text()
    assert result.to_json()["unlike"] == {"shuffle_visibility": ("hidden", "full")}


def test_diff_of_a_variant_that_changes_a_default_exits_one_and_sets_its_own_options(
        tmp_path, capsys):
    # a variant with another default (and an option of its own) said "no difference"
    # and exited 0; --set of its own option was refused, as A does not declare it
    (tmp_path / "v.gdl").write_text(
        f'variant of "{RULESETS / "gerry.gdl"}"\noption turns_each: 1..10 = 4\n'
        'option face_value: 10..13 = 10\n    "new"\noption note: text = ""\n    "new"\n')
    args = _parse(["diff", str(RULESETS / "gerry.gdl"), str(tmp_path / "v.gdl"),
                   "--budget", "0.3", "--set", "face_value=11"])
    assert args.func(args) == 1
    out = capsys.readouterr().out
    assert 'options: face_value=11 (B only) (turns_each=10 in A, 4 in B, face_value=- in ' \
        'A, 11 in B, note=- in A, "" in B)' in out
    assert "the games differ in the values of options both declare" in out
    args = _parse(["diff", str(RULESETS / "gerry.gdl"), str(tmp_path / "v.gdl"),
                   "--budget", "0.3", "--set", "turns_each=4", "--set", "size=2"])
    assert args.func(args) == 0             # only options B alone has differ: not a
    assert "differ in the values" not in capsys.readouterr().out   # difference
    # a text option whose value is "-" (the mark of an option a game does not declare)
    (tmp_path / "d2.gdl").write_text(f'variant of "{tmp_path / "v.gdl"}"\n'
                                     'option note: text = "-"\n    "dash"\n')
    result = diff(str(tmp_path / "v.gdl"), str(tmp_path / "d2.gdl"), budget=0.2,
                  write_trace=False)
    assert result.defaults_differ and 'note="" in A, "-" in B' in result.text()
    with pytest.raises(OptionError, match="neither .* has an option 'fac_value'; their "
                                       "options are face_value, line_rule"):
        diff(str(RULESETS / "gerry.gdl"), str(tmp_path / "v.gdl"), {"fac_value": "11"})


def test_diff_shows_returns_by_seat(tmp_path):
    # they were Python tuples: "returns: A (1.0, -1.0), B (-1.0, 1.0)"
    (tmp_path / "a.gdl").write_text('game "r"\nplayers 2\nflow:\n    win p1\n')
    (tmp_path / "b.gdl").write_text('game "r"\nplayers 2\nflow:\n    win p2\n')
    result = diff(str(tmp_path / "a.gdl"), str(tmp_path / "b.gdl"), budget=1,
                  write_trace=False)
    assert "returns: A p1 +1, p2 -1; B p1 -1, p2 +1" in result.differences


TOP_CARD = """game "top card"
players 2
card n: 1..8
cards into deck: card(n: k) for k in 1..8
zone deck: stack
flow:
    shuffle deck
    if top(deck).n == 1:
        win p1
    else:
        draw
"""


def test_diff_samples_a_large_shuffle_again_while_the_budget_lasts(tmp_path):
    # 8! orders are sampled two at a time: the first two (seed 0) never put the 1 on
    # top, and the search said "no difference" with its budget unspent
    a, b = tmp_path / "a.gdl", tmp_path / "b.gdl"
    a.write_text(TOP_CARD, encoding="utf-8")
    b.write_text(TOP_CARD.replace("win p1", "win p2"), encoding="utf-8")
    result = diff(str(a), str(b), budget=5, seed=0, write_trace=False)
    assert result.differs and result.sampled and len(result.steps) == 1
    assert result.steps[0]["chance"].startswith("shuffle deck: 1 ")   # the 1 on top


def test_diff_of_identical_copies_finds_no_difference(tmp_path, capsys):
    copy = tmp_path / "gerry_copy.gdl"
    shutil.copy(RULESETS / "gerry.gdl", copy)
    args = _parse(["diff", str(RULESETS / "gerry.gdl"), str(copy), "--budget", "1",
                   "--set", "size=2"])
    assert args.func(args) == 0
    assert "no difference found within budget" in capsys.readouterr().out
    args = _parse(["diff", str(RULESETS / "gerry.gdl"),
                   str(RULESETS / "variants" / "gerry_adjacent.gdl"), "--budget", "3",
                   "--json"])
    assert args.func(args) == 1 and json.loads(capsys.readouterr().out)["differs"]


def test_diff_with_seats_tells_visible_shuffles_from_hidden_ones():
    result = diff(str(RULESETS / "double_dealing_shuffle.gdl"),
                  str(RULESETS / "variants" / "dds_full_visibility.gdl"),
                  {"deck_size": "3", "shuffles": "1"}, budget=60, seats=True,
                  write_trace=False)              # found in 0.2 s: a budget of 3 ran
    assert result.differs and len(result.steps) == 2    # out on a loaded machine
    assert any("shuffle_packet ? ?" in d for d in result.differences)
    same = diff(str(RULESETS / "double_dealing_shuffle.gdl"),
                str(RULESETS / "variants" / "dds_full_visibility.gdl"),
                {"deck_size": "3", "shuffles": "1"}, budget=1, write_trace=False)
    assert not same.differs          # the table and the moves are the same for all to see


def test_diff_of_a_small_game_with_itself_compares_every_state(tmp_path):
    path = ruleset(tmp_path, INVARIANT)
    result = diff(str(path), str(path), budget=5, write_trace=False)
    assert not result.differs and result.complete and not result.sampled
    assert "every reachable pair of states was compared" in result.text()


def test_an_interrupted_run_reports_what_the_finished_work_found(tmp_path, monkeypatch):
    # Ctrl-C lands in the second exploring phase: the first one's deadlock is reported
    # (it may be unshrunk), and no rule is called dead on the strength of a cut-short run
    # (a whole run finds three in DEAD: test_dead_rules_and_branches_come_from_coverage)
    from interpreter import fuzz as fuzz_module
    explore = fuzz_module._explore_phase
    calls = []

    def explore_then_ctrl_c(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        explore(*args)
    monkeypatch.setattr(fuzz_module, "_explore_phase", explore_then_ctrl_c)
    report = run(ruleset(tmp_path, DEADLOCK), tmp_path, budget=3, stop_on_interrupt=True)
    assert report.interrupted and len(calls) == 2
    assert one(report, "deadlock").steps
    assert "INTERRUPTED (Ctrl-C)" in report.text() and report.to_json()["interrupted"]
    calls.clear()
    report = run(ruleset(tmp_path, DEAD, "dead.gdl"), tmp_path, budget=3,
                 stop_on_interrupt=True)
    assert report.interrupted and not report.by_kind("dead rule")
    calls.clear()
    with pytest.raises(KeyboardInterrupt):           # the API's default: it propagates
        run(ruleset(tmp_path, DEADLOCK), tmp_path, budget=3)


def test_an_uninterrupted_run_says_nothing_of_it(tmp_path):
    report = run(ruleset(tmp_path, DEADLOCK), tmp_path, budget=1)
    assert not report.interrupted and "INTERRUPTED" not in report.text()
    assert report.to_json()["interrupted"] is False


def test_an_interrupted_diff_says_how_far_it_got(monkeypatch, capsys):
    # gerry against itself: no difference, far too many pairs to compare them all
    from gdl.cli import main
    from interpreter import _fuzz_diff
    compare, calls = _fuzz_diff.compare, []

    def compare_then_ctrl_c(*args):
        calls.append(1)
        if len(calls) == 40:
            raise KeyboardInterrupt
        return compare(*args)
    monkeypatch.setattr(_fuzz_diff, "compare", compare_then_ctrl_c)
    gerry = str(RULESETS / "gerry.gdl")
    result = diff(gerry, gerry, budget=60, write_trace=False, stop_on_interrupt=True)
    assert result.interrupted and not result.differs and not result.complete
    assert result.pairs == 40 and result.depth >= 1
    text = result.text()
    assert "no difference found before Ctrl-C" in text and "interrupted (Ctrl-C)" in text
    assert "the budget ran out" not in text
    calls.clear()
    with pytest.raises(KeyboardInterrupt):          # the API's default: it propagates
        diff(gerry, gerry, budget=60, write_trace=False)
    calls.clear()
    assert main(["diff", gerry, gerry, "--budget", "60"]) == 130
    assert "no difference found before Ctrl-C" in capsys.readouterr().out


def test_a_process_keeps_a_game_per_options_for_its_tasks_with_coverage_from_zero(
        monkeypatch):
    # a task's result does not depend on the tasks this process ran before it: the game it
    # is given again has every coverage count back at 0
    from interpreter import _fuzz_tasks as tasks
    from interpreter.game import load_ruleset
    path = str(RULESETS / "gerry.gdl")
    tasks.share_ruleset("run", path, load_ruleset(path))
    task = {"type": "probe", "path": path, "run": "run", "overrides": {}, "config": (),
            "seed": 5, "max_steps": 2000, "max_states": 100, "runs": 3, "limit": 400,
            "seconds": 30.0, "fp_seed": 0}
    try:
        first = tasks.run_task(task)
        kept = tasks._load(task)
        assert tasks._load(task) is kept and set(kept.coverage.values()) == {0}
        assert sum(first["coverage"].values()) > 0
        assert tasks.run_task(task) == first            # on the kept game
        tasks.forget_run()
        tasks.share_ruleset("run", path, load_ruleset(path))
        assert tasks.run_task(task) == first            # on a new one
        # a trigger order, or a caller that sets one itself, gets a game of its own
        assert tasks._load(task, fresh=True) is not tasks._load(task)
        other = dict(task, overrides={"size": "3"})
        assert tasks._load(other) is not tasks._load(task)
        monkeypatch.setattr(tasks, "GAMES_KEPT", 2)    # the most recently used are kept
        tasks._load(task)
        tasks._load(dict(task, overrides={"size": "4"}))
        assert list(tasks._GAMES) == [(), (("size", "4"),)]
    finally:
        tasks.forget_run()
    assert not tasks._GAMES and not tasks._RULESET


BOUNDED_COUNTER = """game "Bounded counter"
players 2
var level: int = 0
var done: bool = false
var turn: player = p1
action up(n: 1..6) "raise the level by one; 6 is the most":
    require n == level + 1
    level = n
action stop():
    done = true
flow:
    while not done:
        choose turn: up, stop
        turn = next(turn)
    draw
"""


def test_a_counter_the_complete_walk_proves_bounded_is_not_endless_play(tmp_path):
    # "only a limit on level ends this line", where the action's range is that limit and
    # the walk had seen every state without a cycle
    report = run(ruleset(tmp_path, BOUNDED_COUNTER), tmp_path, budget=3)
    assert report.stats["walk_complete"]
    assert not [f for f in report.findings if f.kind == "endless play"], report.text()


AFTER_INVARIANT = """game "After an invariant"
players 2
card n: 1..12
cards into deck: card(n: k) for k in 1..12
zone deck: stack
zone hand[player]: set, seen by owner
zone discard: stack, face up
var bumped: bool = false
action mark(c: hand[me]):
    move c to discard
action bump():
    require not bumped
    bumped = true
flow:
    shuffle deck
    deal 6 from deck to hand[p] for p in players
    repeat 6:
        choose p1: mark, bump
        choose p2: mark
    if bumped:
        draw
    else:
        win p1
invariant never_bumped: bumped == false
"""


def test_what_comes_after_a_broken_invariant_is_not_called_dead(tmp_path):
    # a playthrough stopped at the broken invariant (and the walk did not get that
    # deep): the draw, where most games end, was called dead
    report = fuzz(str(ruleset(tmp_path, AFTER_INVARIANT)), None, budget=1.5, seed=1,
                  max_states=300, out_dir=str(tmp_path / "traces"))   # playthroughs' time
    assert one(report, "invariant violation").steps is not None
    assert report.by_kind("dead rule") == [], report.text()
    assert len(report.by_kind("invariant violation")) == 1


ORDER_UNDER_OPTION = """game "Bonus"

players 2

option doubles: bool = false
    "false: no doubles; true (variant): a card equal to the one below it is a double"

enum colour = red "R", blue "B"
card n: 1..4, colour: colour
cards into stock: card(n: k, colour: c) for c in colour for k in 1..4

zone stock: stack
zone hand[player]: set, seen by owner
zone pile: stack, face up

var score[player]: int = 0
var mover: player = p1
var is_double: bool = false

action play(c: hand[me]) "Add a card to the pile and score its number":
    is_double = doubles and count(pile) > 0 and top(pile).n == c.n
    move c to top of pile face up
    score[me] += c.n

trigger doubled when changed(is_double) and is_double "A double doubles the mover's score":
    score[mover] = score[mover] * 2

trigger double_bonus when changed(is_double) and is_double "A double gives the mover 5 points":
    score[mover] += 5

flow:
    shuffle stock
    deal 4 from stock to hand[p] for p in players
    repeat 4:
        for p in players:
            mover = p
            choose p: play
    if score[p1] > score[p2]:
        win p1
    elif score[p2] > score[p1]:
        win p2
    else:
        draw
"""


def test_a_swept_configuration_is_explored_for_trigger_orders_too(tmp_path):
    # swept values were only probed (12 playthroughs, their digests): two triggers that
    # fire together only under doubles=true were never run in both orders
    report = run(ruleset(tmp_path, ORDER_UNDER_OPTION), tmp_path, budget=4, sweep=True)
    f = one(report, "order dependence")
    assert f.options == {"doubles": "true"} and len(f.steps) <= 6


def test_the_laws_are_checked_without_hypothesis():
    # gdl.testing imports Hypothesis, and the fuzzer fell back to no laws at all where it
    # was not installed (an install without the test extra, as `make run` makes)
    script = (
        "import sys\n"
        "sys.modules['hypothesis'] = None\n"       # as if not installed
        "from interpreter._fuzz_play import _law_problems\n"
        "assert _law_problems() is not None\n"
        "try:\n"
        "    import gdl.testing\n"
        "except ImportError as err:\n"
        "    print(err)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "gdl.testing needs Hypothesis" in done.stdout
    assert "pip install -e '.[test]'" in done.stdout



def test_a_rule_nothing_calls_counts_its_statements_in_the_coverage():
    # never compiled, it had no counted statement: "0/0", as if it were empty
    from interpreter import load_text
    from interpreter._fuzz_report import coverage_rows
    game = load_text('game "u"\nplayers 2\nvar n: int = 0\n'
                     'rule never_called "nothing calls it":\n    n = 1\n    if n > 0:\n'
                     '        n = 2\n    else:\n        pass\n'
                     'rule also:\n    pass\naction go() "go":\n    n += 1\n'
                     'flow:\n    choose p1: go\n    draw\n')
    rows = {r["name"]: r for r in coverage_rows(game.ruleset, None, {})}
    assert (rows["never_called"]["statements"], rows["never_called"]["dead_lines"]) == \
        (3, [5, 6, 7])
    assert (rows["also"]["statements"], rows["also"]["dead_lines"]) == (1, [11])


def test_trace_files_make_a_folder_only_for_traces(tmp_path, monkeypatch):
    # every fuzz run without --out made a temporary folder, mostly left empty
    import tempfile

    from interpreter.fuzz import FuzzReport, write_trace_files
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = FuzzReport(path="g.gdl", title="g", options={}, findings=[], coverage=[],
                        configs=[], stats={}, seconds=0.0, budget=1.0, jobs=1, seed=0)
    assert write_trace_files(report) is None and list(tmp_path.iterdir()) == []
    out = tmp_path / "out"
    (out).mkdir()
    (out / "01-endless-play.json").write_text("{}")     # an earlier run's, cleared
    assert write_trace_files(report, str(out)) == str(out)
    assert list(out.iterdir()) == []


def test_games_played_under_every_trigger_order_count_as_ended(tmp_path):
    # the lockstep games of the trigger orders counted as playthroughs, never as ended:
    # "63,710 playthroughs (18,281 to the end)" of a game that always ends in 3 steps
    path = ruleset(tmp_path, '''game "t"
players 2
var n: int = 0
var a: int = 0
var b: int = 0
action tick() "tick":
    n += 1
trigger ta when changed(n) "a":
    a += 1
trigger tb when changed(n) "b":
    b += 1
flow:
    repeat 3:
        choose p1: tick
    end game
''')
    report = fuzz(str(path), budget=1.5, seed=0, write_traces=False)
    played, ended = report.stats["playthroughs"], report.stats["ended"]
    assert played > 100 and played - ended <= 10, (played, ended)   # (cut by the deadline)


def test_the_open_commands_quote_paths_with_spaces(tmp_path):
    # `open: gdl play .../a game.gdl --trace d out/diff.json` broke at the spaces
    import shlex
    folder = tmp_path / "a folder"
    folder.mkdir()
    a, b = folder / "a game.gdl", folder / "b.gdl"
    a.write_text(TOP_CARD, encoding="utf-8")
    b.write_text(TOP_CARD.replace("win p1", "win p2"), encoding="utf-8")
    result = diff(str(a), str(b), budget=5, out_dir=str(folder / "d out"))
    lines = result.text().splitlines()
    at = next(i for i, x in enumerate(lines) if "open:" in x)
    for line, game in ((lines[at].split("open:")[1], a), (lines[at + 1], b)):
        assert shlex.split(line) == ["gdl", "play", str(game), "--trace",
                                     str(folder / "d out" / "diff.json")]
    report = fuzz(str(ruleset(folder, DEADLOCK, "dead lock.gdl")), budget=1.5, seed=0,
                  out_dir=str(folder / "f out"))
    line = next(x for x in report.text().splitlines() if "open:" in x)
    words = shlex.split(line.split("open:")[1])
    assert words[:3] == ["gdl", "play", str(folder / "dead lock.gdl")]
    assert words[4].startswith(str(folder / "f out"))
