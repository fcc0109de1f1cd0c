"""A local drawn by `random` from a list whose items are all among a constant list (the
list itself, a repeated comprehension over a constant first loop, a def or an `if` of
such lists: `_closures._among`) is known to be one of those values in generated code:
its `text` is `str` where they are all ints, a family indexed by it is read without a
test where every one is an index, and a draw in a loop keys its outcome by `int`.  Each
gives what the plain closures give, and each test fails without its guard."""
from __future__ import annotations

import random

import pytest

from conftest import out_and_lines
from gdl.errors import RuleError
from interpreter import load_text
from interpreter.agents import AGENTS, play_out

DRAWN = '''
game "drawn"
players 2
enum suit = hearts, spades
option yes: bool = true
option no: bool = false
var left[1..4]: int = 0
var out: text = ""
def pool(strict: bool) = if strict then [d for d in 1..4 for i in 1..left[d]] else [1, 2, 3, 4]
rule draw_all:
    left[2] = 2
    left[4] = 1
    repeat 3:
        random d in pool(true)
        left[d] -= 1
        out = out + text(d)
    repeat 2:
        random n in pool(false)
        out = out + text(n)
    repeat 3:
        random b in OTHER
        out = out + "," + text(b)
flow:
    do draw_all
    win p1
'''


def _played(monkeypatch, other, seeds=range(12)):
    from interpreter import _fuse
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(DRAWN.replace("OTHER", other))
        runs = []
        for seed in seeds:
            state = game.new_state()
            try:
                play_out(state, [AGENTS["random"]] * 2, random.Random(seed))
            except RuleError as err:
                runs.append(("error", str(err).splitlines()[0]))
                continue
            runs.append((dict(zip(game.prog.var_names, state.vars))["out"],
                         [tuple(h[:2]) for h in state.history]))
        seen.append(runs)
    assert seen[0] == seen[1]
    return seen[0]


@pytest.mark.parametrize("other, texts", [
    ("[true, false]", {"true", "false"}),
    ("[yes, no]", {"true", "false"}),     # a constant of no ints: keyed by bool, as before
    ("[1, 2]", {"1", "2"}),
    ("[hearts, spades]", {"hearts", "spades"})])
def test_a_drawn_local_as_its_values_say(monkeypatch, other, texts):
    # without the ints' guard, `text(true)` was "True" and `random true` came back as
    # the outcome kept for `random 1` (the two keys alike)
    for out, history in _played(monkeypatch, other):
        assert sorted(out[:3]) <= ["2", "2", "4"] and set(out.split(",")[1:]) <= texts
        assert {text for _, text in history[5:]} <= {f"random {t}" for t in texts}


@pytest.mark.parametrize("other", ["[1, 5]", "(if left[1] == 0 then [5, 1] else [2])"])
def test_a_drawn_value_that_is_no_index_reports_it(monkeypatch, other):
    # without `_all_found`'s test of every value, the generated read was a plain
    # subscript: a KeyError, not the rule error the closures give
    drawn = DRAWN.replace('        out = out + "," + text(b)',
                          '        left[b] -= 1\n        out = out + "," + text(b)')
    from interpreter import _fuse
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(drawn.replace("OTHER", other))
        errors = 0
        for seed in range(12):
            try:
                play_out(game.new_state(), [AGENTS["random"]] * 2, random.Random(seed))
            except RuleError as err:
                assert "variable left has no element [5]" in str(err)
                errors += 1
        assert 0 < errors < 12


RUNS = '''
game "runs"
players 2
var left[1..4]: int = 0
var out: text = ""
def pool(strict: bool) = if strict then [d for d in 1..4 for i in 1..left[d]] else OTHER
rule draw_all:
    left[1] = COUNT1
    left[2] = 2
    left[3] = -1
    left[4] = 1
    repeat DRAWS:
        random d in pool(true)
        left[d] -= 1
        out = out + text(d)
    repeat 2:
        random n in pool(false)
        out = out + "," + text(n)
    repeat 2:
        random m in [e for e in 1..3 for j in 0..left[e]]
        out = out + ";" + text(m)
flow:
    do draw_all
    win p1
'''


@pytest.mark.parametrize("count1, draws, other", [
    ("0", "3", "[1, 2, 3, 4]"), ("3", "5", "[x for x in 3..left[2] + 4]"), ("0", "4", "[4]")])
def test_a_draw_from_a_repeated_comprehension_picks_from_its_runs(monkeypatch, count1,
                                                                    draws, other):
    # a draw from `[d for d in 1..4 for i in 1..left[d]]` (through a def and an `if`, or
    # as it is) finds its value by where each value's run ends, without the list (none
    # of the `(d,) * n` it would be made of is in the generated code): the same values
    # and outcomes as the closures give, counts of 0 or less repeating nothing; the
    # fourth draw of three values is an empty domain, an error either way; a walk by
    # chance nodes (no draw in place) lists the same values at each
    from test_fuse import _generated_sources
    text = RUNS.replace("COUNT1", count1).replace("DRAWS", draws).replace("OTHER", other)
    from interpreter import _fuse
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        if enabled:
            assert not any(",) * (" in s for s in _generated_sources(game))
        runs = []
        for seed in range(12):
            runs.append(out_and_lines(game, seed))
            state, rng, nodes = game.new_state(), random.Random(seed), []
            try:
                while state.is_chance():
                    nodes.append(state.node[3])
                    state.apply_chance(state.sample_chance(rng))
            except RuleError as err:
                nodes.append(str(err).splitlines()[0])
            runs.append(nodes)
        seen.append(runs)
    assert seen[0] == seen[1]
    if draws == "4":
        assert all(run[0] == "error" and "13:9: rule error: random choice from an empty"
                   in run[1] for run in seen[0][::2])
    else:
        outs = [out for out, _ in seen[0][::2]]
        assert count1 != "0" or all(sorted(out[:3]) == ["2", "2", "4"] for out in outs)
        assert len(set(outs)) > 1
        assert all(len(nodes[0]) == (6 if count1 == "3" else 3) for nodes in seen[0][1::2])


@pytest.mark.parametrize("kept", [(64, 1024), (1, 1)])
def test_a_draw_of_ints_in_a_loop_keeps_its_entries_at_its_site(monkeypatch, kept):
    # a draw of ints made in place finds its history entry in the site's own table (by
    # value, then index), not by the program's key of four: once the site has drawn
    # them, the program's outcomes are not asked again; kept only while the table is
    # small (SEEN_VALUES, SEEN_INDICES), past it made as before; the histories are the
    # closures' either way
    from interpreter import _fuse, state as state_module
    monkeypatch.setattr(state_module, "SEEN_VALUES", kept[0])
    monkeypatch.setattr(state_module, "SEEN_INDICES", kept[1])
    text = RUNS.replace("COUNT1", "3").replace("DRAWS", "5").replace("OTHER", "[1, 2, 3, 4]")
    seen = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        histories = []
        for seed in range(40):
            if seed == 20:
                game.prog.outcomes.clear()
            state = game.new_state()
            play_out(state, [AGENTS["random"]] * 2, random.Random(seed))
            histories.append([tuple(h) for h in state.history])
        seen.append((histories, len(game.prog.outcomes)))
    assert seen[0][0] == seen[1][0] and seen[1][1] > 0
    assert (seen[0][1] < seen[1][1]) == (kept == (64, 1024))
