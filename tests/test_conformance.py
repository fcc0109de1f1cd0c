"""The conformance battery: every ruleset under rulesets/ (found by glob, so a new file is
picked up with no test code written) must pass `gdl check`, play seeded random games to
the end keeping the API's laws at every step, and reproduce its golden playthrough.

The laws (gdl.testing.LAWS): legal moves exist where a seat decides, their texts are
unique and parse back; chance probabilities sum to 1; swapping two cards a seat cannot see
changes neither its view nor its moves; clone, JSON and replayed traces give the same
state; undo takes a step back exactly; returns are one number per seat; the ruleset's own
invariants hold.

Golden playthroughs (tests/golden/*.txt, after OpenSpiel's integration_tests/playthroughs)
record a seeded game's every step and every seat's view, so a change in any game's
behaviour shows up as a diff to review.  Regenerate them with

    GDL_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_conformance.py
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from conftest import ROOT, RULESETS, load_game
from gdl.cli import main
from gdl.testing import (LAWS, LawBroken, check_game, check_laws, law_problems,
                         make_state_machine, playthroughs, reachable_states)
from interpreter.values import text_of

PATHS = sorted(RULESETS.glob("**/*.gdl"))
NAMES = [str(p.relative_to(RULESETS)) for p in PATHS]
# Literal readings kept with their holes on purpose (rulesets/variants/literal/): they must
# check, and tests/test_fuzz.py requires `gdl fuzz` to find each hole; they are not played.
PLAYED = [n for n in NAMES if not n.startswith("variants/literal/")]
GOLDEN = ROOT / "tests" / "golden"
UPDATE = bool(os.environ.get("GDL_UPDATE_GOLDEN"))

# Small variants for the golden files where a whole game at the default options would make
# a long file; any other ruleset plays its defaults for at most GOLDEN_STEPS steps.
GOLDEN_STEPS = 30
GOLDEN_OPTIONS = {
    "gerry.gdl": {"size": 3, "turns_each": 2},
    "variants/gerry_adjacent.gdl": {"size": 3, "turns_each": 2},
    "double_dealing_shuffle.gdl": {"deck_size": 4, "shuffles": 1, "max_rounds": 2,
                                   "win_size": 3},
    "variants/dds_full_visibility.gdl": {"deck_size": 4, "shuffles": 1, "max_rounds": 2,
                                         "win_size": 3},
    "double_down.gdl": {"players": 2},
}
# Random games of the battery stop after this many steps (DDS may tie for 50 rounds).
MAX_STEPS = 160


def _game(name, **options):
    return load_game(RULESETS / name, **options)


# ---------------------------------------------------------------- the battery
@pytest.mark.parametrize("name", NAMES)
def test_passes_gdl_check(name, capsys):
    assert main(["check", str(RULESETS / name)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("name", PLAYED)
def test_random_games_keep_the_laws(name):
    lengths = check_game(_game(name), seeds=(1, 2), max_steps=MAX_STEPS, deep_every=10)
    assert all(0 <= n <= MAX_STEPS for n in lengths)


@pytest.mark.parametrize("name", PLAYED)
def test_random_games_end(name):
    """Seeded random games reach the end (at the small golden options, where a default
    game can be long), with one return per seat."""
    game = _game(name, **GOLDEN_OPTIONS.get(name, {}))
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_state(seed)
        for _ in range(2000):
            if state.is_terminal():
                break
            if state.is_chance():
                state.apply(state.sample_chance(rng))
            else:
                seat = state.to_move()[0]
                state.apply(rng.choice(state.legal_moves(seat)), seat)
        assert state.is_terminal(), f"{name}: seed {seed} did not end in 2000 steps"
        assert len(state.returns()) == game.num_players


# ---------------------------------------------------------------- golden playthroughs
def golden_text(name) -> str:
    """Returns the golden playthrough of a ruleset: seed 1, every step, every view."""
    options = GOLDEN_OPTIONS.get(name, {})
    game = _game(name, **options)
    rng = random.Random(1)
    state = game.new_state(1)
    shown = {s.name: None for s in game.seats}
    opts = ", ".join(f"{k}={getattr(v, 'name', None) or text_of(v)}"
                     for k, v in game.options.items())
    lines = [f"# Golden playthrough of rulesets/{name}: regenerate with",
             "#   GDL_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_conformance.py",
             f"game: {game.title}", f"options: {opts}",
             "seed: 1 (random.Random(1): chance by sample_chance, moves uniformly)",
             ""]
    steps = 0
    lines += _views(state, shown, "start")
    while not state.is_terminal() and steps < GOLDEN_STEPS:
        steps += 1
        if state.is_chance():
            outcome = state.sample_chance(rng)
            state.apply(outcome)
            text = f"chance: {outcome.text}"
        else:
            seat = state.to_move()[0]
            moves = state.legal_moves(seat)
            move = moves[rng.randrange(len(moves))]
            state.apply(move, seat)
            text = f"{seat.name}: {move.text}  ({len(moves)} legal)"
        lines += _views(state, shown, f"step {steps}  {text}")
    end = ("game over: " + ", ".join(f"{s.name} {r:+g}" for s, r in
                                     zip(game.seats, state.returns()))
           if state.is_terminal() else f"stopped after {GOLDEN_STEPS} steps")
    return "\n".join(lines + [f"=== {end}", ""])


def _views(state, shown, title):
    """Returns each seat's view: in full the first time, then only the lines that changed
    (a view has one line per zone, variable or grid row, so a line names what changed)."""
    lines = [f"=== {title}"]
    for seat in state.game.seats:
        view = state.view(seat).splitlines()
        before = shown[seat.name]
        if before is None:
            lines.append(f"--- {seat.name} sees:")
            lines += ["  " + line for line in view]
        else:
            changed = [line for i, line in enumerate(view)
                       if i >= len(before) or before[i] != line]
            lines.append(f"--- {seat.name} sees" + (":" if changed else ": (no change)"))
            lines += ["  " + line for line in changed]
        shown[seat.name] = view
    return lines


def golden_path(name) -> Path:
    return GOLDEN / (name[:-len(".gdl")].replace("/", "__") + ".txt")


@pytest.mark.parametrize("name", PLAYED)
def test_golden_playthrough(name):
    text = golden_text(name)
    path = golden_path(name)
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), (f"no golden playthrough for rulesets/{name}: create it with "
                           f"GDL_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_conformance.py")
    want = path.read_text(encoding="utf-8")
    if text != want:
        import difflib
        diff = "\n".join(list(difflib.unified_diff(want.splitlines(), text.splitlines(),
                                                   str(path), "now", lineterm=""))[:80])
        pytest.fail(f"rulesets/{name} no longer plays its golden game (if the change is "
                    f"meant, regenerate with GDL_UPDATE_GOLDEN=1):\n{diff}")


def test_every_golden_file_has_its_ruleset():
    stale = [p.name for p in GOLDEN.glob("*.txt")
             if p not in {golden_path(n) for n in NAMES}]
    assert not stale, f"golden files without a ruleset (delete them): {stale}"


# ---------------------------------------------------------------- the kit on the seed games
SEED_GAMES = [n for n in NAMES if "/" not in n]


@pytest.mark.parametrize("name", SEED_GAMES)
def test_hypothesis_playthroughs_keep_the_laws(name):
    game = _game(name, **GOLDEN_OPTIONS.get(name, {}))

    @settings(max_examples=8, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(playthroughs(game, max_steps=40))
    def run(p):
        assert p.error is None, p
        check_laws(p.state, LAWS, steps=p.steps)
    run()


@pytest.mark.parametrize("name", SEED_GAMES)
def test_state_machine(name):
    machine = make_state_machine(_game(name, **GOLDEN_OPTIONS.get(name, {})), max_steps=25)
    machine.TestCase.settings = settings(max_examples=4, stateful_step_count=25, deadline=None,
                                         database=None,
                                         suppress_health_check=[HealthCheck.too_slow])
    machine.TestCase("runTest").runTest()


def test_a_state_machine_runs_without_the_explain_phase():
    # Hypothesis's explain phase played a failing game again with each step varied: a
    # broken invariant of a game of seven cards took 283 s to report, 0.3 s without it
    from hypothesis import Phase
    from gdl.testing import PHASES
    machine = make_state_machine(_game("classics/kuhn_poker.gdl"))
    assert Phase.explain not in machine.TestCase.settings.phases
    assert machine.TestCase.settings.deadline is None
    assert settings(machine.TestCase.settings, max_examples=3).phases == PHASES


# ---------------------------------------------------------------- the kit catches mistakes
def _variant(tmp_path, base, body, name="variant.gdl"):
    path = tmp_path / name
    path.write_text(f'variant of "{(RULESETS / base).as_posix()}"\n{body}', encoding="utf-8")
    return load_game(path)


def test_a_false_invariant_shrinks_to_a_short_trace(tmp_path):
    game = _variant(tmp_path, "classics/kuhn_poker.gdl", '''
invariant small_pot "a false claim: the pot never holds more than 3 chips":
    put[p1] + put[p2] <= 3
''')
    failures = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(playthroughs(game, max_steps=10))
    def run(p):
        try:
            check_laws(p.state, steps=p.steps)
        except LawBroken as err:
            failures.append(str(err))
            raise
    with pytest.raises(LawBroken):
        run()
    last = failures[-1]          # the shrunk example is the last one run
    assert "small_pot" in last and "4 steps" in last
    assert "3. p1: bet" in last and "4. p2: bet" in last


def test_a_shuffle_too_large_to_list_shrinks_toward_the_cards_declared_order():
    # a deck of eight cards (40,320 orders, not listed) is drawn as a permutation: the
    # smallest example leaves it in the order its cards are declared in, the first at the
    # bottom, as the game puts them (a seed for the draw, as before, shrank toward seed
    # 0's deal)
    from hypothesis import find
    from interpreter import load_text
    game = load_text('''game "t"
players a, b
card n: 1..8
cards into deck: card(n: k) for k in 1..8
zone deck: stack
flow:
    shuffle deck
    draw
''')
    assert game.new_state().chance_outcomes() is None
    found = find(playthroughs(game, max_steps=1, to_end=True), lambda p: True,
                 settings=settings(database=None))
    assert game.new_state().cards_in("deck")[0].text == "8"               # top first
    assert found.steps == ["chance: shuffle deck: 8 7 6 5 4 3 2 1"]


def test_moves_naming_hidden_cards_break_the_views_law(tmp_path):
    game = _variant(tmp_path, "classics/kuhn_poker.gdl", '''
action bet() "a leak: the bet names the opponent's card":
    require top(hand[opponent(me)]).rank != jack
    put[me] += 1
    history = history + "b"
''')
    state = game.new_state()
    state.apply(state.chance_outcomes()[2][0])     # p1 gets K
    state.apply(state.chance_outcomes()[1][0])     # p2 gets Q (J is left in the deck)
    problems = law_problems(state, ["views"])
    assert problems and "legal moves change" in problems[0]


#: Two 1s and a 2 in a deck, a hand each and a pile: the twin games' cards and places.
TWO_ONES_AND_A_TWO = """players 2
card n: 1..2
cards into deck: card(n: 1) for k in 1..2
cards into deck: card(n: 2)
zone deck: stack
zone hand[player]: set, seen by owner
zone pile: stack, face up
"""
TWIN_NAMED = """game "a rule that names one of two identical cards"
""" + TWO_ONES_AND_A_TWO + """action take() "p1 takes 'the 1': the engine takes the first of the two, wherever it is":
    move card(n: 1) to pile face up
flow:
    shuffle deck
    move top(deck) to hand[player.p1]
    choose player.p1: take
    win player.p1
"""


def test_a_rule_naming_one_of_two_twins_breaks_the_twins_law(tmp_path):
    # whether p1's 1 or the deck's leaves tells p1 which twin the shuffle dealt it
    (tmp_path / "twins.gdl").write_text(TWIN_NAMED, encoding="utf-8")
    game = load_game(tmp_path / "twins.gdl")
    broken = 0
    for seed in range(12):
        state = game.new_state(seed)
        state.apply(state.sample_chance(random.Random(seed)))
        problems = law_problems(state, ["twins"], random.Random(seed))
        if problems:
            broken += 1
            assert "after p1: take, the state differs as twins 1 trade places" in problems[0]
        if [c.text for c in state.cards_in(game.zone("hand[p1]"))] == ["2"]:
            assert not problems                     # no 1 in p1's hand: nothing to tell
    assert broken >= 3


TWIN_PEEKED = """game "p2 peeks at one of p1's cards, two of which may be twins"
""" + TWO_ONES_AND_A_TWO + """action play(c: hand[me]):
    move c to pile face up
flow:
    shuffle deck
    move top(deck) to hand[player.p1]
    reveal cards(hand[player.p1]) to player.p2
    move top(deck) to hand[player.p1]
    choose player.p1: play
    win player.p1
"""


TWIN_PICKED = """game "twins picked at once"
players 2
card n: 1..2
cards into deck: card(n: 1) for i in 1..2
cards into deck: card(n: 2) for i in 1..2
zone deck: stack
zone hand[player]: set, seen by owner
zone picked[player]: set, seen by owner
action pick(c: hand[me]):
    move c to picked[me]
flow:
    shuffle deck
    deal 2 from deck to hand[p] for p in players
    simultaneously p in players: pick
    draw
"""


def test_twins_trading_places_change_nothing_in_games_that_name_none(tmp_path):
    # before b176131 'play 1' took the twin p2 had not seen as often as the one it had,
    # so p2 learnt which 1 p1 drew second: the law fails there.  A move committed at a
    # simultaneous decision names its twin too: the law trades it with the cards
    (tmp_path / "peeked.gdl").write_text(TWIN_PEEKED, encoding="utf-8")
    (tmp_path / "picked.gdl").write_text(TWIN_PICKED, encoding="utf-8")
    games = [load_game(tmp_path / "peeked.gdl"), load_game(tmp_path / "picked.gdl"),
             _game("double_dealing_shuffle.gdl"), _game("double_down.gdl")]
    for game in games:
        check_game(game, seeds=range(6), laws=["twins"], undo=False)


def test_every_broken_invariant_is_named_even_where_one_cannot_be_worked_out(tmp_path):
    game = _variant(tmp_path, "classics/kuhn_poker.gdl", '''
invariant raises "cannot be worked out: a division by zero":
    put[p1] / (put[p2] - put[p2]) == 0
invariant small_pot "false after a bet and a call":
    put[p1] + put[p2] <= 3
''')
    with pytest.raises(LawBroken) as caught:
        check_game(game, seeds=[4], laws=["invariants"])
    text = str(caught.value)
    assert "invariant 'raises' cannot be worked out here" in text and "division by zero" in text
    state = game.new_state(4)
    state.apply(state.chance_outcomes()[0][0])
    state.apply(state.chance_outcomes()[0][0])
    state.apply("bet", "p1")
    state.apply("bet", "p2")
    problems = law_problems(state, ["invariants"])
    assert len(problems) == 2 and "'small_pot' does not hold" in problems[1]


def test_a_laws_failure_carries_the_trace_that_replays_it(tmp_path):
    from interpreter import replay
    game = _variant(tmp_path, "classics/kuhn_poker.gdl", '''
invariant small_pot "a false claim: the pot never holds more than 3 chips":
    put[p1] + put[p2] <= 3
''')
    for seed in range(40):
        try:
            check_game(game, seeds=[seed], laws=["invariants"])
        except LawBroken as err:
            back = replay(game, err.trace)
            assert back.failed_invariants() == ["small_pot"]
            assert f"{len(err.trace['steps'])} steps:" in str(err)
            return
    pytest.fail("no seed bet and called")


def test_a_rule_error_in_a_step_a_law_tries_on_a_copy_is_not_that_laws_failure(tmp_path):
    game = _variant(tmp_path, "classics/kuhn_poker.gdl", '''
action bet():
    fail "no betting today"
''')
    state = game.new_state()
    state.apply(state.chance_outcomes()[0][0])
    state.apply(state.chance_outcomes()[0][0])
    assert all(law_problems(state, ["clone"], random.Random(seed)) == []
               for seed in range(12))       # half the seeds bet on the copy


def test_a_rule_error_ends_a_playthrough_and_is_kept(tmp_path):
    game = _variant(tmp_path, "classics/kuhn_poker.gdl", '''
action bet():
    fail "no betting today"
''')

    @settings(max_examples=30, deadline=None, database=None)
    @given(playthroughs(game, max_steps=6, to_end=True))
    def run(p):
        if p.error is not None:
            assert "no betting today" in str(p.error) and p.steps[-1].endswith("bet")
            assert "stopped by RuleError" in repr(p)
    run()


def test_every_reachable_kuhn_state_keeps_every_law():
    game = _game("classics/kuhn_poker.gdl")
    from interpreter.enumerate import reachable_states as walk
    for state in walk(game):
        check_laws(state)


@settings(max_examples=25, deadline=None, database=None)
@given(state=reachable_states(_game("double_dealing_shuffle.gdl", **GOLDEN_OPTIONS[
    "double_dealing_shuffle.gdl"]), max_states=3000))
def test_enumerated_dds_states_keep_the_laws(state):
    check_laws(state)
