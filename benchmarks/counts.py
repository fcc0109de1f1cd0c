"""Bytecodes run per random playout (and per Leduc enumeration): a measure of the
interpreter's work that, unlike time or valgrind's instruction count, does not move with
the machine, the path of the checkout, the hash seed or the memory layout, so two commits
can be compared to the last bytecode (every bytecode weighs the same, though: confirm a
change with time or instructions).

    .venv/bin/python benchmarks/counts.py [RULESET[:N] ...] [--enumerate] [--fuzz]
                                          [-o NAME=VALUE] [--tree DIR]
                                          [--reference [--reference-dir DIR]] [--parts]

With no ruleset, every ruleset the benchmark times, each with its usual count of playouts.
Seeded as `benchmarks/run.py` is (`random.Random(0)`, random agents).  `--tree DIR` runs
the engine and rulesets of another checkout (a worktree of an older commit, say), so one
copy of this script compares any two commits.  `--reference` also counts the hand-written
playout of each seed game (`shared/bench-reference` beside the checkout) over as many
games, and prints reference / gdl: an estimate of the benchmark's gdl/reference ratio of
playouts per second that does not move with the machine (per decision, so a few games
are enough where both count decisions alike).  A seed game counted with options other
than the benchmark's is not compared: its reference plays the benchmark's game.
`--parts` says where each ruleset's bytecodes go: generated code by what it is for (the
rules' statements, a seat's move drawn, a simultaneous step), every other function by its
module and name.  `--fuzz` counts the fuzzer's first playthroughs of each seed game (its work a step: the
random step with coverage, invariants, the endless-play watch and the laws).
"""
from __future__ import annotations

import argparse
import gc
import random
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))     # `_reference`, however this is loaded

from _reference import PLAIN, REFERENCE, reference_playout  # noqa: E402

#: untraced playouts before the count, making most generated code (a site's step, say)
WARM_PLAYOUTS = 5

#: (ruleset, playouts, options): a few seconds each under the tracer
DEFAULTS = [
    ("classics/kuhn_poker.gdl", 1000, {}),
    ("classics/leduc_poker.gdl", 1000, {}),
    ("gerry.gdl", 60, {}),
    ("double_dealing_shuffle.gdl", 30, {}),
    ("double_down.gdl", 20, {}),
    ("evil_deal.gdl", 20, {}),
    ("pescetti.gdl", 5, {"mode": "random"}),
    ("classics/whist_hand.gdl", 20, {}),
]

#: a ruleset's stem -> the options the benchmark plays it with (as its reference does)
BENCH_OPTIONS = {Path(name).stem: options for name, _, options in DEFAULTS}


def bytecodes(fn, parts=None) -> int:
    """Returns how many bytecodes `fn()` runs (Python frames only; C code counts nothing).
    The cyclic garbage collector is paused meanwhile: a collection that happened to fall
    inside would count whatever Python code it set off (a finaliser, a weak reference's
    callback), and two counts of the same run could differ by it.  `parts`, a dict,
    also gets each `part_of` a code's count."""
    count = 0
    named: dict = {}

    def tracer(frame, event, arg):
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            count += 1
        return tracer

    def parted(frame, event, arg):
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            count += 1
            code = frame.f_code
            part = named.get(code)
            if part is None:
                part = named[code] = part_of(code)
            parts[part] = parts.get(part, 0) + 1
        return parted

    old, collecting = sys.gettrace(), gc.isenabled()
    gc.collect()
    gc.disable()
    sys.settrace(tracer if parts is None else parted)
    try:
        fn()
    finally:
        sys.settrace(old)
        if collecting:
            gc.enable()
    return count


#: the parts of generated code, told apart by their parameters (`interpreter._fuse.build`)
GENERATED_PARTS = {
    ("st",): "generated: the rules' statements and expressions",
    ("st", "seat", "rng", "bits"): "generated: a seat's move drawn (and run)",
    ("st", "rng", "bits"): "generated: a simultaneous step's moves drawn and run",
    ("st", "seat"): "generated: a seat's actions listed",
}


def part_of(code) -> str:
    """The part of the engine a code object is: generated code by what it is for, a
    function of the engine's modules (or any other) by its module and name."""
    name = code.co_filename
    if name.startswith("<gdl"):
        params = code.co_varnames[:code.co_argcount]
        if params[:1] == ("st",) and all(p.startswith("_t") for p in params[1:]):
            params = ("st",)            # a def's loop given the def's parameters
        return GENERATED_PARTS.get(params, "generated: other")
    return f"{Path(name).stem}.{code.co_name}"


def parts_lines(parts: dict, decisions: int, playouts: int, top: int = 12) -> list:
    """The largest `top` parts, each with its bytecodes a decision (a playout where
    there are no decisions) and its share of all, and the rest in one line."""
    total = sum(parts.values())
    per, unit = (decisions, "decision") if decisions else (playouts, "playout")
    ranked = sorted(parts.items(), key=lambda kv: (-kv[1], kv[0]))
    rest = sum(n for _, n in ranked[top:])
    shown = ranked[:top] + ([(f"the other {len(ranked) - top} parts", rest)] if rest else [])
    return [f"  {n / per:10,.1f} a {unit} {100 * n / total:5.1f}%  {label}"
            for label, n in shown]


def per_playout(path, playouts: int, options=None) -> int:
    """Bytecodes per random playout of a ruleset (loading left out, and the code generated
    on first use mostly: every run of the rules is compiled first, and a few playouts,
    untraced and differently seeded, warm the rest; a decision site none of them
    reaches makes its step in the counted ones)."""
    return playout_counts(path, playouts, options)[0] // playouts


def playout_counts(path, playouts: int, options=None, parts=None) -> tuple:
    """(bytecodes, decisions) of `playouts` random playouts of a ruleset, as
    `per_playout` counts them (`parts`: as `bytecodes` fills it)."""
    from interpreter.agents import AGENTS, play_out
    from interpreter.game import load

    game = load(path, options or {})
    compile_now = getattr(game, "compile_now", None)    # older trees (--tree) have
    if compile_now is not None:                         # none: their load compiles all
        compile_now()
    agents = [AGENTS["random"]] * game.num_players
    warm = random.Random(1)
    for _ in range(WARM_PLAYOUTS):
        play_out(game.new_state(), agents, warm)
    rng = random.Random(0)

    def run():
        for _ in range(playouts):
            play_out(game.new_state(), agents, rng)

    codes = bytecodes(run, parts)
    # the decisions of the same games, played again untraced (a seed fixes a game), so
    # that the count has no bytecode of this script's own
    rng = random.Random(0)
    return codes, sum(play_out(game.new_state(), agents, rng) for _ in range(playouts))


def reference_counts(name: str, playouts: int, folder=REFERENCE) -> Optional[tuple]:
    """(bytecodes, decisions) of `playouts` hand-written playouts of the seed game `name`,
    warmed and seeded as `playout_counts` does; None where `folder` has none."""
    playout = reference_playout(name, folder)
    if playout is None:
        return None
    warm = random.Random(1)
    for _ in range(WARM_PLAYOUTS):
        playout(warm)
    rng = random.Random(0)

    def run():
        for _ in range(playouts):
            playout(rng)

    codes = bytecodes(run)
    rng = random.Random(0)
    return codes, sum(playout(rng)[1] for _ in range(playouts))


def reference_line(gdl: tuple, ref: tuple, playouts: int) -> str:
    """The reference's counts beside gdl's, and reference / gdl: per decision where both
    took about as many decisions a game (the work of a decision hardly varies, the
    length of a game does: a few games give a steady figure), else per game (a game
    without decisions, or one whose steps the two count differently: gerry's reference
    counts a turn as one decision, gdl its select and its move as two)."""
    (g_codes, g_decisions), (r_codes, r_decisions) = gdl, ref
    line = f"  reference: {r_codes // playouts:,} bytecodes per playout"
    if r_decisions:
        line += f", {r_codes // r_decisions:,} per decision"
    if g_decisions and r_decisions and 2 / 3 <= g_decisions / r_decisions <= 1.5:
        ratio, basis = (r_codes / r_decisions) / (g_codes / g_decisions), "per decision"
    else:
        ratio, basis = r_codes / g_codes, "per playout"
    return line + f"; reference / gdl {ratio:.3f} ({basis})"


def per_enumeration(path, infosets: bool = True) -> int:
    """Bytecodes of one exhaustive enumeration (a first one, untraced, warms the caches)."""
    from interpreter.enumerate import enumerate_states
    from interpreter.game import load

    game = load(path, {})
    enumerate_states(game, infosets=infosets)
    return bytecodes(lambda: enumerate_states(game, infosets=infosets))


#: (ruleset, playthroughs) the fuzzer is counted on: the seed games, as `benchmarks/run.py`
#: times it (its defaults, one worker, seed 0)
FUZZ_DEFAULTS = [
    ("gerry.gdl", 20),
    ("double_dealing_shuffle.gdl", 20),
    ("double_down.gdl", 20),
    ("evil_deal.gdl", 5),
    ("pescetti.gdl", 20),
]


def fuzz_counts(path, playthroughs: int) -> tuple:
    """(bytecodes, steps) of the fuzzer's first `playthroughs` on a ruleset's defaults,
    one worker and seed 0, as `gdl fuzz` explores (coverage, invariants, the endless-play
    watch, the laws): no deadline, so the same playthroughs every time.  Every run of the
    rules is compiled first, and a few playthroughs of another explorer warm the rest."""
    from interpreter._fuzz_common import declarations
    from interpreter._fuzz_play import Explorer
    from interpreter.game import Game, load_ruleset

    ruleset = load_ruleset(str(path))

    def explorer():
        game = Game(ruleset, {}, coverage=True)
        game.compile_now()
        return Explorer(game, declarations(ruleset), 0, 10_000)

    explorer().run(float("inf"), max_playthroughs=3)
    counted = explorer()
    codes = bytecodes(lambda: counted.run(float("inf"), max_playthroughs=playthroughs))
    return codes, counted.steps


def _option(text: str) -> tuple:
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE (say -o mode=random)")
    return name, value


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulesets", nargs="*", metavar="RULESET[:N]",
                    help="a path under rulesets/ (or any path), with N playouts (default 20)")
    ap.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                    type=_option, help="an option of the rulesets named (repeatable)")
    ap.add_argument("--enumerate", action="store_true",
                    help="also count one enumeration of Leduc poker, with and without "
                         "information sets")
    ap.add_argument("--fuzz", action="store_true",
                    help="also count the fuzzer's first playthroughs of each seed game")
    ap.add_argument("--tree", type=Path, default=ROOT,
                    help="the checkout whose engine and rulesets to count (default: this one)")
    ap.add_argument("--reference", action="store_true",
                    help="also count each seed game's hand-written playout")
    ap.add_argument("--parts", action="store_true",
                    help="also say where each ruleset's bytecodes go: generated code by "
                         "what it is for, the engine's functions by name")
    ap.add_argument("--reference-dir", type=Path, default=REFERENCE, metavar="DIR",
                    help=f"where the hand-written playouts are (default {REFERENCE})")
    args = ap.parse_args(argv)
    root = args.tree.resolve()
    sys.path.insert(0, str(root))     # before any import of the engine
    options = dict(args.option)
    jobs = DEFAULTS
    if args.rulesets:
        jobs = []
        for spec in args.rulesets:
            name, _, n = spec.partition(":")
            if n and not n.isdigit():
                ap.error(f"{spec!r}: the count after ':' is a number of playouts")
            jobs.append((name, int(n or 20), options))
    if args.reference and not args.reference_dir.is_dir():
        ap.error(f"--reference: {args.reference_dir} is missing (--reference-dir names "
                 f"the folder of the hand-written playouts)")
    from gdl.errors import GdlError

    for name, n, opts in jobs:
        path = Path(name) if Path(name).exists() else root / "rulesets" / name
        parts = {} if args.parts else None
        try:
            gdl = playout_counts(path, n, opts, parts)
        except GdlError as err:          # a bad path or option: its message, no traceback
            sys.exit(str(err))
        codes, decisions = gdl
        per_decision = f", {codes // decisions:,} per decision" if decisions else ""
        print(f"{name}: {codes // n:,} bytecodes per playout ({n} playouts){per_decision}")
        if parts:
            print("\n".join(parts_lines(parts, decisions, n)))
        if not args.reference:
            continue
        timed = BENCH_OPTIONS.get(path.stem)
        if timed is not None and opts != timed:     # the reference plays the timed game
            shown = " ".join(f"-o {k}={v}" for k, v in timed.items()) or "no option"
            print(f"  reference: not compared (the benchmark times it with {shown})")
            continue
        ref = reference_counts(path.stem, n, args.reference_dir) or \
            reference_counts(path.stem, n, PLAIN)       # a sixth game: our plain playout
        if ref is not None:
            print(reference_line(gdl, ref, n))
    if args.fuzz:
        for name, n in FUZZ_DEFAULTS:
            codes, steps = fuzz_counts(root / "rulesets" / name, n)
            per_step = f", {codes // steps:,} per step" if steps else ""
            print(f"fuzzing {name}: {codes // n:,} bytecodes per playthrough "
                  f"({n} playthroughs){per_step}")
    if args.enumerate:
        leduc = root / "rulesets" / "classics" / "leduc_poker.gdl"
        for infosets in (True, False):
            print(f"Leduc enumeration{'' if infosets else ' without information sets'}: "
                  f"{per_enumeration(leduc, infosets):,} bytecodes")


if __name__ == "__main__":
    main()
