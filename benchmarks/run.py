"""Speed yardsticks for the gdl interpreter, in one process pinned to one core.

    .venv/bin/python benchmarks/run.py [--seconds S] [--no-enumerate]

Rows, each timed for S seconds (default 2) with random.Random(0):

* gdl: random playouts of each seed game and of Kuhn/Leduc poker, the same loop as
  `gdl bench` (`interpreter.agents.play_out` with random agents);
* reference: the hand-written playouts in /work/shared/bench-reference (loaded by path
  here only, as a yardstick; the column is empty if the folder is missing);
* OpenSpiel: kuhn_poker/leduc_poker through pyspiel with the same random-playout loop
  (chance outcomes drawn with their probabilities), where pyspiel is importable;

then Kuhn against OpenSpiel's pure-Python `python_kuhn_poker` with the same loop, the peak
memory (tracemalloc) of enumerating the largest small variants, and Leduc enumeration:
gdl's `enumerate_states` against OpenSpiel's `get_all_states`.
Ratios are gdl / other: below 1 means gdl is slower.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.agents import AGENTS, play_out  # noqa: E402
from interpreter.enumerate import enumerate_states  # noqa: E402
from interpreter.game import load  # noqa: E402

REFERENCE = Path("/work/shared/bench-reference")
SEED_GAMES = ["gerry", "double_dealing_shuffle", "double_down", "evil_deal", "pescetti"]
CLASSICS = ["kuhn_poker", "leduc_poker"]


#: options that make a gdl row do what the reference's playout does: the reference deals a
#: random Pescetti board each time (with the default `mode=given` a playout is one fixed
#: procedure, which `new_state` runs once per game and then clones)
GDL_OPTIONS = {"pescetti": {"mode": "random"}}

#: the largest small variants the tests enumerate exhaustively, for the memory table
MEMORY_ROWS = [
    ("leduc_poker", ROOT / "rulesets" / "classics" / "leduc_poker.gdl", {}),
    ("double_dealing_shuffle deck_size=3 shuffles=1 max_rounds=2 win_size=2",
     ROOT / "rulesets" / "double_dealing_shuffle.gdl",
     {"deck_size": "3", "shuffles": "1", "max_rounds": "2", "win_size": "2"}),
    ("double_down players=2 deck=1:2 2:2 hand_size=1 chips_each=1",
     ROOT / "rulesets" / "double_down.gdl",
     {"players": "2", "deck": "1:2 2:2", "hand_size": "1", "chips_each": "1"}),
]


def timed(step, seconds):
    """Runs `step()` (returns decisions made) until `seconds` pass; returns
    (playouts/s, decisions/s)."""
    clock = time.perf_counter
    games = decisions = 0
    start = clock()
    stop = start + seconds
    while True:
        decisions += step()
        games += 1
        if clock() >= stop:
            break
    elapsed = clock() - start
    return games / elapsed, decisions / elapsed


def gdl_rate(path, seconds, options=None):
    game = load(path, options or {})
    agents = [AGENTS["random"]] * game.num_players
    rng = random.Random(0)
    return timed(lambda: play_out(game.new_state(), agents, rng), seconds)


def reference_rate(name, seconds):
    """The hand-written playout of `name`, imported by file path (never installed)."""
    path = REFERENCE / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"_bench_reference_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(0)
    kwargs = {"n_players": 4} if name == "double_down" else {}
    return timed(lambda: module.playout(rng, **kwargs)[1], seconds)


def spiel_rate(pyspiel, name, seconds):
    game = pyspiel.load_game(name)
    rng = random.Random(0)

    def playout():
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                x, acc = rng.random(), 0.0
                action = outcomes[-1][0]
                for a, p in outcomes:
                    acc += p
                    if x < acc:
                        action = a
                        break
                state.apply_action(action)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        return decisions
    return timed(playout, seconds)


def python_spiel_rate(pyspiel, name, seconds):
    """OpenSpiel's pure-Python game `name` (registered by importing its module), or None."""
    try:
        importlib.import_module(f"open_spiel.python.games.{name.removeprefix('python_')}")
        return spiel_rate(pyspiel, name, seconds)
    except Exception:  # noqa: BLE001 - an older or partial OpenSpiel: leave the row out
        return None


def peak_memory(fn):
    """Returns (fn(), peak bytes allocated while it ran), by tracemalloc."""
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def pin_to_one_core():
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def fmt(x):
    return "-" if x is None else f"{x:,.1f}"


def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.3f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--no-enumerate", action="store_true")
    args = ap.parse_args(argv)
    pin_to_one_core()
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    print(f"Python {sys.version.split()[0]}, {args.seconds:g} s per row, one core, "
          f"pyspiel {'yes' if pyspiel else 'no'}, reference "
          f"{'yes' if REFERENCE.is_dir() else 'no'}")
    print()
    print("| game | gdl playouts/s | gdl decisions/s | reference playouts/s | gdl/reference "
          "| OpenSpiel playouts/s | gdl/OpenSpiel |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = [(g, ROOT / "rulesets" / f"{g}.gdl") for g in SEED_GAMES] + \
           [(g, ROOT / "rulesets" / "classics" / f"{g}.gdl") for g in CLASSICS]
    for name, path in rows:
        ours, decisions = gdl_rate(path, args.seconds, GDL_OPTIONS.get(name))
        ref = reference_rate(name, args.seconds) if name in SEED_GAMES else None
        spiel = spiel_rate(pyspiel, name, args.seconds) if pyspiel and name in CLASSICS \
            else None
        ref_p = ref[0] if ref else None
        spiel_p = spiel[0] if spiel else None
        print(f"| {name} | {ours:,.1f} | {decisions:,.0f} | {fmt(ref_p)} | "
              f"{ratio(ours, ref_p)} | {fmt(spiel_p)} | {ratio(ours, spiel_p)} |",
              flush=True)
    if pyspiel:
        python_kuhn = python_spiel_rate(pyspiel, "python_kuhn_poker", args.seconds)
        if python_kuhn is not None:
            ours, _ = gdl_rate(ROOT / "rulesets" / "classics" / "kuhn_poker.gdl", args.seconds)
            print()
            print(f"Kuhn, OpenSpiel's pure-Python python_kuhn_poker: {python_kuhn[0]:,.1f} "
                  f"playouts/s; gdl kuhn_poker (again, same loop): {ours:,.1f}; "
                  f"gdl/python_kuhn_poker {ours / python_kuhn[0]:.3f}")
    if args.no_enumerate:
        return 0
    print()
    game = load(ROOT / "rulesets" / "classics" / "leduc_poker.gdl")
    report = enumerate_states(game)
    ours = report.states / report.seconds
    print(f"Leduc enumeration, gdl: {report.states} states in {report.seconds:.2f} s "
          f"({ours:,.0f} states/s)")
    print()
    print("| enumeration (exhaustive, with information sets) | states | peak memory (tracemalloc) |")
    print("|---|---:|---:|")
    for label, path, options in MEMORY_ROWS:
        report, peak = peak_memory(lambda: enumerate_states(load(path, options)))
        print(f"| {label} | {report.states:,} | {peak / 2**20:,.1f} MiB |", flush=True)
    if pyspiel:
        from open_spiel.python.algorithms.get_all_states import get_all_states
        start = time.perf_counter()
        states = get_all_states(pyspiel.load_game("leduc_poker"), depth_limit=-1,
                                include_terminals=True, include_chance_states=True)
        elapsed = time.perf_counter() - start
        theirs = len(states) / elapsed
        print(f"Leduc enumeration, OpenSpiel get_all_states: {len(states)} states in "
              f"{elapsed:.2f} s ({theirs:,.0f} states/s); gdl/OpenSpiel {ours / theirs:.3f} "
              f"(OpenSpiel keys states by history, gdl merges equal states)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
