"""Speed yardsticks for the gdl interpreter, in one process pinned to one core.

    .venv/bin/python benchmarks/run.py [--seconds S] [--games NAME,...] [--no-fuzz]
                                       [--no-enumerate] [--reference DIR]

Rows, each timed for S seconds (default 2) with random.Random(0), the contenders of a row
taking turns of a quarter second (`race`), so that a shared machine's changes of speed
fall on all of them alike:

* gdl: random playouts of each seed game, of Kuhn/Leduc poker and of a sixth game (a
  hand of whist), the same loop as `gdl bench` (`interpreter.agents.play_out` with
  random agents);
* reference: the hand-written playouts in `shared/bench-reference` beside this checkout
  (or `--reference DIR`; loaded by path here only, as a yardstick; the column is empty if
  the folder is missing); for the sixth game, our own plain playout of its rules
  (`benchmarks/plain/`);
* OpenSpiel: kuhn_poker/leduc_poker through pyspiel with the same random-playout loop
  (chance outcomes drawn with their probabilities), where pyspiel is importable;

then Kuhn against OpenSpiel's pure-Python `python_kuhn_poker` with the same loop, and
gdl's Kuhn and Leduc through its OpenSpiel adapter driven by that loop itself (against
`python_kuhn_poker`, the C++ games, and the floor under any Python game in that loop: a
game of the same shape that does nothing but answer, `_floor`); the fuzzer's
playthroughs of each seed game (what `gdl fuzz` does in one worker: coverage,
invariants, endless-play watch and now and then the laws of `gdl.testing`, no
reference);
the peak memory (tracemalloc) of enumerating the largest small variants, and Leduc
enumeration: gdl's `enumerate_states`, with information sets and without, against
OpenSpiel's `get_all_states`, and the floor under the walk (`_floor.bare_walk`: every
state a clone and a step, nothing else; then keyed too), seven of each in turns, the
fastest of each counting.
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
sys.path.insert(0, str(ROOT / "benchmarks"))     # `_reference`, however this is loaded

from interpreter.agents import AGENTS, play_out  # noqa: E402
from interpreter.enumerate import enumerate_states  # noqa: E402
from interpreter.game import load  # noqa: E402

from _reference import PLAIN, REFERENCE, reference_playout  # noqa: E402

SEED_GAMES = ["gerry", "double_dealing_shuffle", "double_down", "evil_deal", "pescetti"]
CLASSICS = ["kuhn_poker", "leduc_poker"]
#: a sixth game, in rulesets/classics, against a plain playout of ours (`PLAIN`): none of
#: the engine's speed work was tuned for it, so its row says whether the seed games'
#: ratios are the engine's or theirs
SIXTH = ["whist_hand"]
ROWS = SEED_GAMES + CLASSICS + SIXTH


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


class Meter:
    """Counts playouts and decisions of one contender over the slices it is given."""

    def __init__(self, step):
        self.step = step          # plays one game, returns its decisions
        self.games = self.decisions = 0
        self.elapsed = 0.0

    def run(self, seconds):
        clock = time.perf_counter
        step = self.step
        games = decisions = 0
        start = clock()
        stop = start + seconds
        while True:
            decisions += step()
            games += 1
            if clock() >= stop:
                break
        self.elapsed += clock() - start
        self.games += games
        self.decisions += decisions

    def rates(self):
        """(playouts/s, decisions/s)."""
        return self.games / self.elapsed, self.decisions / self.elapsed


#: the length of one turn of a contender in `race`
SLICE = 0.25


def race(meters, seconds):
    """Runs the meters in turns of `SLICE` seconds until each has had `seconds`, so that a
    shared machine's changes of speed (seen here: 30% within a minute) fall on all of
    them alike and their ratios hold; returns each one's (playouts/s, decisions/s)."""
    meters = [m for m in meters if m is not None]
    turns = max(1, round(seconds / SLICE))
    for _ in range(turns):
        for m in meters:
            m.run(seconds / turns)
    return [m.rates() for m in meters]


def gdl_meter(path, options=None):
    game = load(path, options or {})
    game.compile_now()                  # steady play: no run compiled while timed
    agents = [AGENTS["random"]] * game.num_players
    rng = random.Random(0)
    return Meter(lambda: play_out(game.new_state(), agents, rng))


def reference_meter(name, folder=REFERENCE):
    """The hand-written playout of `name` (None where `folder` has none)."""
    playout = reference_playout(name, folder)
    if playout is None:
        return None
    rng = random.Random(0)
    return Meter(lambda: playout(rng)[1])


def spiel_meter(pyspiel, name):
    return spiel_loop_meter(pyspiel.load_game(name))


def adapter_meter(path):
    """gdl's ruleset through its OpenSpiel adapter, played by OpenSpiel's loop (what an
    OpenSpiel algorithm pays per step), or None where the adapter does not import."""
    try:
        from interpreter.integrations.openspiel import load_openspiel_game
    except ImportError:
        return None
    return spiel_loop_meter(load_openspiel_game(path))


def floor_meter(pyspiel, name):
    """A Python game that only answers, replaying the shapes of OpenSpiel's C++ `name`'s
    random playouts (`_floor`): about what pybind11's crossings alone cost a playout."""
    from _floor import floor_game
    return spiel_loop_meter(floor_game(pyspiel, name))


def spiel_loop_meter(game):
    """Random playouts of a pyspiel game through its Python API."""
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
    return Meter(playout)


def python_spiel_meter(pyspiel, name):
    """OpenSpiel's pure-Python game `name` (registered by importing its module), or None."""
    try:
        importlib.import_module(f"open_spiel.python.games.{name.removeprefix('python_')}")
        return spiel_meter(pyspiel, name)
    except Exception:  # noqa: BLE001 - an older or partial OpenSpiel: leave the row out
        return None


#: how many times each side enumerates Leduc, in turns; the fastest time counts
ENUMERATIONS = 7


def enumeration_rates(game, pyspiel):
    """((states, seconds) of gdl's `enumerate_states`, the same without information sets,
    the same of a bare walk (`_floor.bare_walk`: clones and steps, nothing else) and of
    one keying each state, the same of OpenSpiel's `get_all_states` or None), each the
    fastest of `ENUMERATIONS` runs taken in turns."""
    from _floor import bare_walk
    best = [None, None, None, None, None]

    def timed(i, run):
        start = time.perf_counter()
        states = run()
        elapsed = time.perf_counter() - start
        if best[i] is None or elapsed < best[i][1]:
            best[i] = (states, elapsed)

    if pyspiel:
        from open_spiel.python.algorithms.get_all_states import get_all_states
        spiel_game = pyspiel.load_game("leduc_poker")
    for _ in range(ENUMERATIONS):
        report = enumerate_states(game)
        if best[0] is None or report.seconds < best[0][1]:
            best[0] = (report.states, report.seconds)
        report = enumerate_states(game, infosets=False)
        if best[1] is None or report.seconds < best[1][1]:
            best[1] = (report.states, report.seconds)
        timed(2, lambda: bare_walk(game))
        timed(3, lambda: bare_walk(game, keyed=True))
        if pyspiel:
            timed(4, lambda: len(get_all_states(spiel_game, depth_limit=-1,
                                                include_terminals=True,
                                                include_chance_states=True)))
    return tuple(best)


def fuzz_rates(path, seconds):
    """(playthroughs/s, steps/s) of the fuzzer's explorer on a game's defaults, one worker
    and seed 0, as `gdl fuzz` plays in its explore phase."""
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    from interpreter.game import Game, load_ruleset
    ruleset = load_ruleset(str(path))
    explorer = Explorer(Game(ruleset, {}, coverage=True), declarations(ruleset), 0, 10_000)
    start = time.perf_counter()
    explorer.run(time.monotonic() + seconds)
    elapsed = time.perf_counter() - start
    return explorer.playthroughs / elapsed, explorer.steps / elapsed


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


def game_names(text):
    """`--games`' value: names of rows, checked against the rows there are."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ROWS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"no row {', '.join(map(repr, unknown)) or 'named'}: the rows are "
            f"{', '.join(ROWS)}")
    return names


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0,
                    help="time for each row, its contenders taking turns (default 2)")
    ap.add_argument("--games", type=game_names, metavar="NAME,...",
                    default=ROWS,
                    help="only these rows of the playouts and fuzzer tables (default: all; "
                    f"{', '.join(ROWS)})")
    ap.add_argument("--no-fuzz", action="store_true", help="leave out the fuzzer's table")
    ap.add_argument("--no-enumerate", action="store_true",
                    help="leave out Leduc's enumeration and the memory table")
    ap.add_argument("--reference", metavar="DIR", default=str(REFERENCE),
                    help="the folder of the hand-written playouts (default: "
                    "shared/bench-reference beside this checkout)")
    args = ap.parse_args(argv)
    if not args.seconds > 0:
        ap.error(f"--seconds must be more than 0, not {args.seconds:g}")
    reference = Path(args.reference)
    pin_to_one_core()
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    print(f"Python {sys.version.split()[0]}, {args.seconds:g} s per row, one core, "
          f"pyspiel {'yes' if pyspiel else 'no'}, reference "
          f"{'yes' if reference.is_dir() else 'no (' + str(reference) + ' is missing)'}")
    print()
    print("| game | gdl playouts/s | gdl decisions/s | reference playouts/s | gdl/reference "
          "| OpenSpiel playouts/s | gdl/OpenSpiel |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = [(g, ROOT / "rulesets" / f"{g}.gdl") for g in SEED_GAMES if g in args.games] + \
           [(g, ROOT / "rulesets" / "classics" / f"{g}.gdl") for g in CLASSICS + SIXTH
            if g in args.games]
    for name, path in rows:
        ours = gdl_meter(path, GDL_OPTIONS.get(name))
        ref = reference_meter(name, reference) if name in SEED_GAMES else \
            reference_meter(name, PLAIN) if name in SIXTH else None
        spiel = spiel_meter(pyspiel, name) if pyspiel and name in CLASSICS else None
        race([ours, ref, spiel], args.seconds)
        ours_p, decisions = ours.rates()
        ref_p = ref.rates()[0] if ref else None
        spiel_p = spiel.rates()[0] if spiel else None
        print(f"| {name} | {ours_p:,.1f} | {decisions:,.0f} | {fmt(ref_p)} | "
              f"{ratio(ours_p, ref_p)} | {fmt(spiel_p)} | {ratio(ours_p, spiel_p)} |",
              flush=True)
    if pyspiel and "kuhn_poker" in args.games:
        path = ROOT / "rulesets" / "classics" / "kuhn_poker.gdl"
        python_kuhn = python_spiel_meter(pyspiel, "python_kuhn_poker")
        if python_kuhn is not None:
            ours, adapted = gdl_meter(path), adapter_meter(path)
            (ours_p, _), (theirs, _), *rest = race([ours, python_kuhn, adapted], args.seconds)
            print()
            print(f"Kuhn, OpenSpiel's pure-Python python_kuhn_poker: {theirs:,.1f} "
                  f"playouts/s; gdl kuhn_poker (again, its own loop): {ours_p:,.1f}; "
                  f"gdl/python_kuhn_poker {ours_p / theirs:.3f}")
            if rest:
                print(f"Kuhn through gdl's OpenSpiel adapter, in OpenSpiel's own loop "
                      f"(`spiel_loop_meter`): {rest[0][0]:,.1f} playouts/s, "
                      f"{rest[0][0] / theirs:.3f} of python_kuhn_poker")
    for name in CLASSICS if pyspiel else ():
        if name not in args.games:
            continue
        adapted = adapter_meter(ROOT / "rulesets" / "classics" / f"{name}.gdl")
        if adapted is None:
            break
        (adapted_p, _), (theirs, _), (floor, _) = race(
            [adapted, spiel_meter(pyspiel, name), floor_meter(pyspiel, name)], args.seconds)
        print(f"{name} in OpenSpiel's loop: gdl through its adapter {adapted_p:,.1f} "
              f"playouts/s, C++ {theirs:,.1f}, a Python game doing nothing but answer "
              f"(`_floor`) {floor:,.1f}: adapter/C++ {adapted_p / theirs:.3f}, "
              f"floor/C++ {floor / theirs:.3f}, adapter/floor {adapted_p / floor:.3f}")
    fuzzed = [name for name in SEED_GAMES if name in args.games]
    if fuzzed and not args.no_fuzz:
        print()
        print("| game | fuzz playthroughs/s | fuzz steps/s |")
        print("|---|---:|---:|")
        for name in fuzzed:
            playthroughs, steps = fuzz_rates(ROOT / "rulesets" / f"{name}.gdl", args.seconds)
            print(f"| {name} | {playthroughs:,.1f} | {steps:,.0f} |", flush=True)
    if args.no_enumerate:
        return 0
    print()
    game = load(ROOT / "rulesets" / "classics" / "leduc_poker.gdl")
    ours, plain, bare, keyed, theirs = enumeration_rates(game, pyspiel)
    print(f"Leduc enumeration, gdl: {ours[0]} states in {ours[1]:.2f} s "
          f"({ours[0] / ours[1]:,.0f} states/s; the best of {ENUMERATIONS}); without "
          f"information sets {plain[1]:.2f} s ({plain[0] / plain[1]:,.0f} states/s)")
    print()
    print("| enumeration (exhaustive, with information sets) | states | peak memory (tracemalloc) |")
    print("|---|---:|---:|")
    for label, path, options in MEMORY_ROWS:
        report, peak = peak_memory(lambda: enumerate_states(load(path, options)))
        print(f"| {label} | {report.states:,} | {peak / 2**20:,.1f} MiB |", flush=True)
    if theirs:
        print(f"Leduc enumeration, OpenSpiel get_all_states: {theirs[0]} states in "
              f"{theirs[1]:.2f} s ({theirs[0] / theirs[1]:,.0f} states/s; the best of "
              f"{ENUMERATIONS}); gdl/OpenSpiel {ours[0] / ours[1] / (theirs[0] / theirs[1]):.3f},"
              f" without information sets {plain[0] / plain[1] / (theirs[0] / theirs[1]):.3f} "
              f"(OpenSpiel keys states by history and lists no information sets; gdl "
              f"merges equal states and reports probabilities too)")
        rate = theirs[0] / theirs[1]
        print(f"The bare walk (`_floor.bare_walk`: each state a clone and a step, no key, "
              f"no merging, no information set): {bare[0]} states in {bare[1]:.3f} s, "
              f"{bare[0] / bare[1] / rate:.3f} of get_all_states; keying each state too: "
              f"{keyed[0]} in {keyed[1]:.3f} s, {keyed[0] / keyed[1] / rate:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
