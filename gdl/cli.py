"""The `gdl` command: check, run, replay and bench rulesets.

Every error a user can cause is printed as one paragraph with its place, and the command
exits 2; a Python traceback means a bug in gdl itself (set GDL_DEBUG=1 to see it).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
import traceback

from .errors import (OUT_OF_MEMORY, TOO_LONG_NUMBER, GdlError, OptionError, TraceError,
                     counted, did_you_mean, hide_notes, too_long_number)


RULESET = "the ruleset (.gdl) or variant file"


def _load(path, sets):
    from interpreter import load
    from interpreter.options import parse_set_args
    return load(path, parse_set_args(sets))


def cmd_check(args) -> int:
    """Checks every file given, reporting each one's errors in turn: 2 if any failed."""
    failed = 0
    for path in args.files:
        try:
            _check_one(path, args.options)
        except GdlError as err:
            if len(args.files) == 1:
                raise
            print(str(err), file=sys.stderr)
            failed += 1
    if failed:
        print(f"{failed} of {len(args.files)} files failed", file=sys.stderr)
    return 2 if failed else 0


def _check_one(path, options: bool = False):
    """Checks one file and prints its summary line (with `options`, then each option's
    default, type and text), or raises its GdlError."""
    from .checker import check_file
    ruleset = check_file(path)
    # the engine is imported only once a file passed the language's checks, so a file
    # with errors is told without loading it
    from interpreter import Game
    from .parser import parse_file
    from .variants import variant_summary
    game = Game(ruleset, {}, coverage=True)
    summary = variant_summary(path, parse_file)
    try:
        note = _start_note(game)
    except GdlError as err:              # the game cannot start
        if summary:
            err.notes += (summary,)
        raise
    prof = game.profile()
    players = prof["players"]
    print(f"ok  {path}: {prof['title']} - "
          + (counted(players, "player") if isinstance(players, int) else f"{players} players")
          + f", {prof['information']} information"
          + (", chance" if prof["chance"] else "")
          + (", simultaneous moves" if prof["simultaneous"] else "")
          + f"; {counted(prof['cards'], 'card')}, {counted(prof['zones'], 'zone')}, "
          f"{counted(len(prof['actions']), 'action')}, {counted(len(game.options), 'option')}")
    if summary:
        print(f"    {summary}")
    if options:
        _print_options(game)
    if note:
        import textwrap
        print(textwrap.fill(f"warning: {note}", width=88, initial_indent=" " * 4,
                            subsequent_indent=" " * 8, break_on_hyphens=False))


#: how many seeded deals `gdl check` plays up to the first decision
START_DEALS = 20


def _start_note(game, deals: int = START_DEALS, limit: int = 10_000):
    """What `gdl check` says where every one of `deals` seeded games of a ruleset with
    actions ends before anyone decides (a trigger whose condition holds before the deal,
    the usual cause, fires at the first check and ended every game silently); None
    otherwise.  A rule error on the way is raised, as the game cannot start."""
    if not game.prog.actions:
        return None
    for seed in range(deals):
        try:
            state = game.new_state(seed=seed)
            state.chance_steps(random.Random(seed), limit)
        except GdlError as err:
            err.notes += (f"in the seeded deal {seed} that gdl check plays up to the "
                          "first decision: the game cannot start",)
            raise
        if not state.is_terminal():
            return None
    spans = {d.name: d.span for d in game.ruleset.decls
             if type(d).__name__ == "TriggerDecl"}
    fired = [f"`{name}` ({spans[name].file}:{spans[name].line})"
             for name in game.trigger_names()
             if any(n and key[0] == name for key, n in game.coverage.items())]
    said = f"every game ended before its first decision ({deals} seeded deals)"
    if fired:                           # (one of them, or the rules, may have ended it)
        said += (f"; on the way the trigger{'s' if len(fired) > 1 else ''} "
                 f"{', '.join(fired)} fired (a trigger whose condition holds before the "
                 "deal fires at the first check)")
    return said


def _print_options(game) -> None:
    """Each option as `name = default   type`, its text wrapped under it."""
    import textwrap
    from interpreter.options import option_decls, type_text
    from interpreter.values import text_of
    decls = option_decls(game.ruleset)
    for name, value, doc in game.option_docs():
        shown = '""' if value == "" else text_of(value)
        print(f"    {name} = {shown}   {type_text(decls[name].type)}")
        if doc:
            print(textwrap.fill(doc, width=88, initial_indent=" " * 8,
                                subsequent_indent=" " * 8))


def cmd_run(args) -> int:
    from .run_cmd import run_games
    return run_games(args)


def cmd_replay(args) -> int:
    from interpreter import load, read_trace, replay
    from interpreter.serial import TRACE_FORMAT_1
    from interpreter.options import parse_set_args
    from interpreter.values import text_of
    if args.step is not None and args.step < 0:
        raise OptionError(f"--step must be 0 or more steps, not {args.step}")
    trace = read_trace(args.trace)
    path = args.file or trace.get("game")
    if not path:
        raise TraceError("the trace names no ruleset (no \"game\"): give it with --file")
    options = dict(trace.get("options") or {})
    given = parse_set_args(args.set)
    options.update(given)
    try:
        game = load(path, {k: v for k, v in options.items()})
    except GdlError as err:
        recorded = {k: v for k, v in (trace.get("options") or {}).items() if k not in given}
        if isinstance(err, OptionError) and recorded:
            shown = ", ".join(   # (a value of 3.0 or a list: a trace edited by hand)
                f"{k}={text_of(v) if isinstance(v, (int, str)) else json.dumps(v)}"
                for k, v in recorded.items())
            err.notes += (f"the trace records the options it was made with ({shown}), "
                          f"and replay gives them to {path}",)
        if not args.file and not os.path.isabs(path) and not os.path.exists(path):
            err.notes += (f"the trace names its ruleset by the path gdl was given "
                          f"({path}), relative to the folder gdl ran in: replay from that "
                          f"folder, or give the ruleset with --file",)
        raise
    try:
        # the options in force are the recorded ones under --set's (the trace's alone
        # would refuse every option --set changed)
        state = replay(game, {**trace, "options": options}, args.step)
    except GdlError as err:
        try:
            recorded = load(path, dict(trace.get("options") or {})).options \
                if args.set else {}
        except GdlError:                    # the recorded options alone do not load
            recorded = {}
        changed = [k for k in recorded if text_of(recorded[k]) != text_of(game.options[k])]
        if changed:                         # the steps were made under other options
            shown = ", ".join(f"{k}={text_of(game.options[k])}" for k in changed)
            err.notes += (f"--set changed what the trace was made with ({shown}): its "
                          f"steps were made under the options it records",)
        raise hide_notes(err, None if args.view in (None, "all") else args.view)
    if args.view not in (None, "all"):
        try:
            game.seat(args.view)
        except GdlError as err:             # an option's error, not a move's
            raise OptionError(f"--view: {err.message}", suggestion=err.suggestion) from None
    print(state.view(None if args.view == "all" else args.view, symbols=args.symbols))
    total = len(trace.get("steps", []))
    applied = total if args.step is None else min(args.step, total)
    # a first-format trace's unrecorded events (a commit awaiting the others is a step
    # replayed, not yet in the history)
    extra = len(state.history) + len(state.committed()) - applied \
        if trace.get("format") == TRACE_FORMAT_1 else 0
    print(f"after {counted(applied, 'step')} of {total}" + (
        f" (and {extra} chance event{'s' * (extra != 1)} of one outcome, which a trace "
        f"of its format does not record)" if extra else ""))
    return 0


def cmd_bench(args) -> int:
    from interpreter.agents import AGENTS, play_out
    if not args.seconds > 0:
        raise OptionError(f"--seconds must be more than 0, not {args.seconds:g}")
    if args.seconds == float("inf"):
        raise OptionError("--seconds must be a number of seconds, not inf (it would run "
                          "for ever)")
    game = _load(args.file, args.set)
    game.compile_now()                      # steady play: no run compiled while timed
    agents = [AGENTS["random"]] * game.num_players
    rng = random.Random(args.seed)
    games = decisions = 0
    clock = time.perf_counter
    start = now = clock()
    stop = start + args.seconds
    interrupted = False
    try:
        while True:
            state = game.new_state()
            decisions += play_out(state, agents, rng)
            games += 1
            now = clock()                   # when the last whole playout ended
            if now >= stop:
                break
    except KeyboardInterrupt:               # Ctrl-C: the figures of the playouts so far
        interrupted = True
        if not games:
            print(f"{game.title}: interrupted (Ctrl-C) before the first playout ended")
            return 130
    elapsed = now - start
    print(f"{game.title}: {games / elapsed:10.1f} playouts/s {decisions / elapsed:12.0f} "
          f"decisions/s  ({decisions / games:.1f} decisions/playout, {games} playouts in "
          f"{elapsed:.1f} s{', interrupted' if interrupted else ''})")
    if game.new_state().is_terminal():
        # the setup is run once per game and copied: with nothing left to play, every
        # playout is that copy, which is no measure of play
        print("note: with these options the game ends in its setup, before any chance "
              "event or decision, so every playout is a copy of one finished game: the "
              "figure measures copying a state, not playing")
    return 130 if interrupted else 0


def cmd_play(args) -> int:
    from .repl import run_repl
    return run_repl(args)


def cmd_enumerate(args) -> int:
    from .enumerate_cmd import run_enumerate
    return run_enumerate(args)


class _Parser(argparse.ArgumentParser):
    """argparse, with a did-you-mean on a mistyped command or choice (`gdl enumarate`)."""

    def error(self, message):
        # the value from argparse's message (quoted or not, by Python version); the
        # candidates from this parser's own arguments, not from the message
        match = re.search(r"invalid choice: '?([^'\s]+)'?", message)
        if match:
            choices = [str(c) for a in self._actions if a.choices for c in a.choices]
            near = did_you_mean(match.group(1), choices)
            if near is not None:
                message += f"; did you mean '{near}'?"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="gdl", description="Check, run and explore card games written in the "
                 "gdl language.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="parse and check rulesets")
    p.add_argument("files", nargs="+", metavar="FILE", help="rulesets (.gdl) or variant files")
    p.add_argument("--options", action="store_true",
                   help="also list each option: its default, its values and its text")
    p.set_defaults(func=cmd_check)

    def with_options(p):
        p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="override an option (repeatable)")

    p = sub.add_parser("run", help="play games with agents and print a summary")
    p.add_argument("file", help=RULESET)
    p.add_argument("-n", type=int, default=1, help="number of games (default 1)")
    p.add_argument("--seed", type=int, help="seed of the first game (game i uses seed+i; "
                   "default: drawn at random, and the summary names it)")
    p.add_argument("--agents", help="one agent per seat: random, first, last (default "
                   "random; the last one given plays the seats left)")
    p.add_argument("--trace", help="write every game's trace to this .jsonl file")
    p.add_argument("--show", action="store_true", help="print every game's final table")
    p.add_argument("--symbols", action="store_true", help="show suit symbols")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="worker processes (default 1; 0: one per core); the output is the "
                   "same for any number")
    with_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("replay", help="replay a trace and print the final state")
    p.add_argument("trace", help="a trace file (.json, or .jsonl: its first game)")
    p.add_argument("--file", help="ruleset to replay on (default: the trace's)")
    p.add_argument("--step", type=int, help="stop after this many steps")
    p.add_argument("--view", help="show the table as this player sees it")
    p.add_argument("--symbols", action="store_true", help="show suit symbols")
    with_options(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("play", aliases=["repl"],
                       help="the interactive REPL: play, inspect and tweak a ruleset")
    p.add_argument("file", help=RULESET)
    p.add_argument("--seed", type=int, help="seed for chance and agents")
    p.add_argument("--as", dest="as_player", help="the seat whose view is shown")
    p.add_argument("--agents", help="SEAT=agent,... (agents: random, first, last)")
    p.add_argument("--trace", help="open this trace (replayed) instead of a new game")
    with_options(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("enumerate", help="exhaustive traversal of every reachable state")
    p.add_argument("file", help=RULESET)
    p.add_argument("--max-states", type=int,
                   help="stop cleanly before the walk would hold more than this many states")
    p.add_argument("--max-depth", type=int, help="do not expand states deeper than this")
    p.add_argument("--no-infosets", dest="infosets", action="store_false",
                   help="do not count information sets (a faster walk: no seat's view "
                        "of each state is drawn)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    with_options(p)
    p.set_defaults(func=cmd_enumerate)

    from .fuzz_cmd import add_diff_parser, add_fuzz_parser
    from .pbn_cmd import add_pbn_parser
    add_pbn_parser(sub)
    add_fuzz_parser(sub)
    add_diff_parser(sub)

    p = sub.add_parser("bench", help="random playouts per second on one core",
                       description="Plays random games (every seat a random agent, as "
                       "interpreter.agents.play_out plays them) in this one process for a "
                       "while and prints playouts and decisions per second.  Pin it to a "
                       "core (taskset -c 1) to compare figures; docs/performance.md has "
                       "them for every ruleset here.")
    p.add_argument("file", help=RULESET)
    p.add_argument("--seconds", type=float, default=3.0,
                   help="how long to play (default 3; the last game is finished)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the one generator for chance and agents (default 0)")
    with_options(p)
    p.set_defaults(func=cmd_bench)
    return ap


def main(argv=None) -> int:
    try:
        # inside: building the parser imports the engine, and a Ctrl-C then is a Ctrl-C
        args = build_parser().parse_args(argv)
        seed = getattr(args, "seed", None)
        if seed is not None and seed < 0:       # random.Random(-3) is random.Random(3)
            raise OptionError(f"--seed must be 0 or more, not {seed} (a negative seed "
                              f"would play the games of {-seed})")
        return args.func(args)
    except GdlError as err:
        _say(str(err))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:                    # `gdl run ... | head`: the reader left
        sys.stderr.close()
        return 0
    except RecursionError:
        _say("error: the ruleset nests too deeply to evaluate")
        return 2
    except MemoryError:
        _say(OUT_OF_MEMORY)
        return 2
    except OSError as err:                     # a path given that cannot be written or read
        where = f"{err.filename}: " if err.filename else ""
        print(f"error: {where}{err.strerror or err}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - a bug in gdl, not in the user's input
        from concurrent.futures.process import BrokenProcessPool
        if too_long_number(err):
            _say(TOO_LONG_NUMBER)
            return 2
        if isinstance(err, BrokenProcessPool):      # `-j N`: a worker was killed
            print("error: a worker process stopped before its work was done (killed from "
                  "outside, or out of memory?)", file=sys.stderr)
            return 4
        if os.environ.get("GDL_DEBUG"):
            traceback.print_exc()
        print(f"internal error in gdl: {type(err).__name__}: {err} "
              f"(set GDL_DEBUG=1 for the traceback)", file=sys.stderr)
        return 3


def _say(text: str) -> None:
    """Writes an error to stderr, if anyone still reads it (closed: the status says it)."""
    try:
        print(text, file=sys.stderr)
    except (BrokenPipeError, ValueError, OSError):
        pass


if __name__ == "__main__":
    sys.exit(main())
