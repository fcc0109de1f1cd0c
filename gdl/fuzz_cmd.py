"""`gdl fuzz` and `gdl diff`: find the ambiguities and holes in any ruleset.

`gdl fuzz FILE` explores a game within a time budget and prints a summary table, each
finding with the rules involved, the options in force and a shrunk trace (written to a
directory, with the `gdl play FILE --trace T` line that opens it at the step where the
finding shows), and the coverage of every rule.  It exits 0 when it finds no hole, 1 when
it finds one (dead rules alone do not count) and 2 on a user error, as every command does;
Ctrl-C ends it early with the report of what it found so far, and status 130.

`gdl diff A B` prints the shortest line of play after which two variants differ, and what
differs; it exits 0 when none is found and 1 when the games differ (Ctrl-C: how far it
got, and 130).

Register both in `gdl/cli.py`'s `build_parser`:

    from .fuzz_cmd import add_diff_parser, add_fuzz_parser
    add_fuzz_parser(sub)
    add_diff_parser(sub)
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager

from .errors import OptionError


def add_fuzz_parser(subparsers):
    """Adds the `fuzz` command to the `gdl` argument parser's subparsers."""
    from interpreter.fuzz_limits import DEFAULT_BUDGET, DEFAULT_MAX_STATES, DEFAULT_MAX_STEPS

    from .cli import RULESET
    p = subparsers.add_parser(
        "fuzz", help="find deadlocks, trigger-order dependence, uncovered cases, endless "
        "play, broken invariants, option clashes and dead rules")
    p.add_argument("file", help=RULESET)
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override an option (repeatable)")
    p.add_argument("--sweep-options", action="store_true",
                   help="also try every other value of each option, one at a time "
                        "(option clashes, dead option values)")
    p.add_argument("--players", metavar="N|LO..HI|A,B",
                   help="player counts to try, e.g. 2..7")
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help=f"time to spend (default {DEFAULT_BUDGET:g} s)")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="worker processes (default 1; 0: one per core)")
    p.add_argument("--seed", type=int, default=0, help="seed of the exploration (default 0)")
    p.add_argument("--out", metavar="DIR", help="write the traces here (default: a new "
                   "temporary directory, printed in the report, where there are traces)")
    p.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS,
                   help=f"a playthrough longer than this is endless play (default "
                        f"{DEFAULT_MAX_STEPS})")
    p.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES,
                   help=f"states of the breadth-first walk (default {DEFAULT_MAX_STATES})")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run_fuzz)
    return p


def add_diff_parser(subparsers):
    """Adds the `diff` command to the `gdl` argument parser's subparsers."""
    p = subparsers.add_parser(
        "diff", help="the shortest line of play after which two variants of a game differ")
    p.add_argument("a", metavar="A.gdl", help="a ruleset or variant file")
    p.add_argument("b", metavar="B.gdl", help="another variant of the same game")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override an option in both games (repeatable)")
    p.add_argument("--budget", type=float, default=10.0, metavar="SECONDS",
                   help="time to spend searching (default 10 s)")
    p.add_argument("--seats", action="store_true",
                   help="also compare what each seat sees and saw of each step")
    p.add_argument("--seed", type=int, default=0, help="seed for sampled chance (default 0)")
    p.add_argument("--out", metavar="DIR", help="write the trace here (default: a new "
                   "temporary directory)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run_diff)
    return p


def _check(args):
    if args.budget == float("inf"):
        raise OptionError("--budget must be a number of seconds, not inf (it would run "
                          "for ever)")
    if not 0 < args.budget < float("inf"):     # nan too: no deadline at all
        raise OptionError(f"--budget must be a number of seconds more than 0, not "
                          f"{args.budget:g}")
    for flag, value in (("--jobs", getattr(args, "jobs", 1)),):
        if value < 0:
            raise OptionError(f"{flag} must be 0 (one per core) or more, not {value}")
    for flag, value in (("--max-steps", getattr(args, "max_steps", 1)),
                        ("--max-states", getattr(args, "max_states", 1))):
        if value < 1:
            raise OptionError(f"{flag} must be 1 or more, not {value}")
    if getattr(args, "out", None):
        _writable(args.out)


def _writable(folder: str) -> None:
    """Raises OptionError now, not after the budget is spent, where --out's folder cannot
    be made or written."""
    import os
    import tempfile
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise OptionError(f"--out {folder}: {err.strerror or err}: the traces could not be "
                          f"written there") from None


def run_fuzz(args) -> int:
    """Runs `gdl fuzz`; returns the exit code (0: no hole found, 1: holes found)."""
    from interpreter.fuzz import fuzz
    from interpreter._fuzz_sweep import parse_players
    from interpreter.options import parse_set_args
    from interpreter._workers import usable_cores
    _check(args)
    players = parse_players(args.players) if args.players else None
    jobs = args.jobs or usable_cores()
    with _progress_bar(args.budget) as progress:
        report = fuzz(args.file, parse_set_args(args.set), budget=args.budget,
                      seed=args.seed, players=players, sweep=args.sweep_options, jobs=jobs,
                      max_steps=args.max_steps, max_states=args.max_states,
                      out_dir=args.out, progress=progress, stop_on_interrupt=True)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    if report.interrupted:                      # Ctrl-C: the report so far, then 130
        return 130
    return 1 if report.holes() else 0


def run_diff(args) -> int:
    """Runs `gdl diff`; returns the exit code (0: no difference found, 1: they differ, in
    play or in the values of options both declare)."""
    from interpreter._fuzz_diff import diff
    from interpreter.options import parse_set_args
    _check(args)
    result = diff(args.a, args.b, parse_set_args(args.set), budget=args.budget,
                  seed=args.seed, seats=args.seats, out_dir=args.out,
                  stop_on_interrupt=True)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.text())
    if result.interrupted:                      # Ctrl-C: how far it got, then 130
        return 130
    return 1 if result.differs or result.defaults_differ else 0


@contextmanager
def _progress_bar(budget: float):
    """Yields a progress(seconds, note) callback drawing a tqdm bar on stderr (on a
    terminal only), measured in seconds of the budget."""
    try:
        from tqdm import tqdm
    except ImportError:                         # the bar is a nicety, not a need
        yield None
        return
    on_terminal = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    bar = tqdm(total=round(budget, 1), unit="s", file=sys.stderr, disable=not on_terminal,
               leave=False, dynamic_ncols=True, bar_format="{l_bar}{bar}| {n:.1f}/{total} s "
               "{postfix}")
    done = [0.0]

    def progress(seconds, note):
        step = round(seconds, 1) - done[0]
        if step > 0:
            bar.update(step)
            done[0] += step
        bar.set_postfix_str(note, refresh=False)
    try:
        yield progress
    finally:
        bar.close()
