"""How much work the interpreter does a playout (and an enumeration, and a fuzzer's
playthrough), held where it was last measured: a change that makes every game do more
fails here, on any machine, instead of showing only as a slower benchmark on a noisy one.
Work is counted in bytecodes (`benchmarks/counts.py`), which do not move with the machine
or the hash seed but do with Python's version: the figures are Python 3.11's, the version
CI runs, and other versions skip."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("_work_counts", ROOT / "benchmarks" / "counts.py")
counts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(counts)

#: (ruleset, playouts, options) -> bytecodes those playouts ran, seeded as counts.py seeds
#: them (random agents, Random(0)), as of the forty-eighth round (a shuffle's history line
#: made when read, a rule's arguments read where they lie): a few playouts, a few
#: seconds in all
RECORDED = {
    ("classics/kuhn_poker.gdl", 200, ()): 249_955,
    ("classics/leduc_poker.gdl", 200, ()): 486_984,    # def calls an if tests, once
    ("gerry.gdl", 10, ()): 476_842,                  # two indices: a dict of dicts
    ("double_dealing_shuffle.gdl", 5, ()): 434_289,      # a flat for as a Python for
    ("double_down.gdl", 3, ()): 294_472,
    ("evil_deal.gdl", 3, ()): 666_313,                # a require on a field as a set filter
    ("pescetti.gdl", 1, (("mode", "random"),)): 38_811,    # a flat for as a Python for
    ("pescetti_inverse.gdl", 1, ()): 77_607,              # a flat for as a Python for
    ("variants/literal/double_down_two_triggers.gdl", 3, ()): 406_441,
    ("classics/whist_hand.gdl", 5, ()): 129_932,          # a require on a field as a set filter
}
#: one exhaustive enumeration of Leduc poker with information sets
RECORDED_ENUMERATION = 7_904_453    # views as their own texts, plain moves judged once
#: (ruleset, playthroughs) -> bytecodes of the fuzzer's first playthroughs (its defaults,
#: one worker, seed 0: coverage, invariants, the endless-play watch and the laws), as of
#: the twenty-eighth round
RECORDED_FUZZ = {
    ("gerry.gdl", 5): 1_833_604,       # a def of one card answered for every card
    ("double_dealing_shuffle.gdl", 5): 2_783_074,     # a flat for as a Python for
    ("double_down.gdl", 5): 2_321_287,
    ("evil_deal.gdl", 2): 3_668_671,
    ("pescetti.gdl", 5): 133_465,
}

#: A change may add this much work before it fails (then record the new figure, and say
#: in docs/performance-history.md what the work buys) ...
MORE = 1.03
#: ... and must record its figure when it saves more than this, so the guard stays tight.
LESS = 0.90

needs_311 = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                               reason="the recorded bytecode counts are Python 3.11's")


def _judge(what: str, now: int, recorded: int):
    assert now <= recorded * MORE, (
        f"{what}: {now:,} bytecodes, {now / recorded - 1:.1%} more than the "
        f"{recorded:,} recorded: find what added the work, or record the new figure in "
        f"{__name__}.RECORDED if it is worth its cost")
    assert now >= recorded * LESS, (
        f"{what}: {now:,} bytecodes, {1 - now / recorded:.1%} less than the "
        f"{recorded:,} recorded: record the new figure in {__name__}.RECORDED")


@needs_311
@pytest.mark.parametrize("name, playouts, options", list(RECORDED),
                         ids=[name for name, _, _ in RECORDED])
def test_a_playout_does_no_more_work_than_recorded(name, playouts, options):
    codes, _ = counts.playout_counts(ROOT / "rulesets" / name, playouts, dict(options))
    _judge(f"{playouts} playouts of {name}", codes, RECORDED[name, playouts, options])


@needs_311
def test_an_enumeration_does_no_more_work_than_recorded():
    codes = counts.per_enumeration(ROOT / "rulesets" / "classics" / "leduc_poker.gdl")
    _judge("Leduc's enumeration", codes, RECORDED_ENUMERATION)


@needs_311
@pytest.mark.parametrize("name, playthroughs", list(RECORDED_FUZZ),
                         ids=[name for name, _ in RECORDED_FUZZ])
def test_fuzzing_does_no_more_work_than_recorded(name, playthroughs):
    codes, _ = counts.fuzz_counts(ROOT / "rulesets" / name, playthroughs)
    _judge(f"the fuzzer's first {playthroughs} playthroughs of {name}", codes,
           RECORDED_FUZZ[name, playthroughs])


def test_the_guard_fails_on_more_work_and_asks_for_a_record_on_much_less():
    _judge("a game", 1_030, 1_000)
    _judge("a game", 900, 1_000)
    with pytest.raises(AssertionError, match=r"3\.1% more than the 1,000 recorded"):
        _judge("a game", 1_031, 1_000)
    with pytest.raises(AssertionError, match="record the new figure"):
        _judge("a game", 899, 1_000)


def test_no_repository_ruleset_re_sorts_its_set_zones():
    # a set's twins put face down before face up (`State.regroup`) only where they may
    # come to differ: the seed games' sets keep kind and arrival, no sort after a move
    from interpreter import load
    names = sorted(p.relative_to(ROOT / "rulesets").as_posix()
                   for p in (ROOT / "rulesets").rglob("*.gdl"))
    assert len(names) >= 17
    assert [n for n in names if load(ROOT / "rulesets" / n).prog.regroups] == []
