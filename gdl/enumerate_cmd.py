"""`gdl enumerate`: the exhaustive walk over every reachable state, from the command line.

Prints the report of `interpreter.enumerate.enumerate_states` as text (or JSON with
`--json`) on stdout, with a progress bar on stderr while a long walk runs.  A walk cut
short by `--max-states`, `--max-depth` or Ctrl-C still prints its report, marked partial
(after Ctrl-C the status is 130, as every command's; a second Ctrl-C quits at once).
"""
from __future__ import annotations

import json
import signal
import sys
from contextlib import contextmanager

from .errors import OptionError


def run_enumerate(args) -> int:
    """Runs `gdl enumerate FILE [--set NAME=VALUE] [--max-states N] [--max-depth D]
    [--no-infosets] [--json]`; returns the exit code."""
    from interpreter import load
    from interpreter.enumerate import enumerate_states
    from interpreter.options import parse_set_args
    for flag, value, least in (("--max-states", args.max_states, 1),
                               ("--max-depth", args.max_depth, 0)):
        if value is not None and value < least:
            raise OptionError(f"{flag} must be {least} or more, not {value}")
    game = load(args.file, parse_set_args(args.set))
    with _progress_bar(args.max_states) as bar, _first_interrupt() as interrupted:
        def progress(states, frontier):
            if bar is not None:
                bar(states, frontier)
            return "Ctrl-C" if interrupted() else None
        report = enumerate_states(game, args.max_states, args.max_depth,
                                  infosets=args.infosets, progress=progress)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 130 if interrupted() else 0          # Ctrl-C: the partial report, then 130


@contextmanager
def _first_interrupt():
    """Yields `interrupted() -> bool`: the first Ctrl-C only sets it (the walk stops at its
    next check, between two states, and the partial report is printed); the second one
    interrupts at once, as Python does by default."""
    pressed = []

    def on_interrupt(signum, frame):
        pressed.append(signum)
        signal.signal(signal.SIGINT, previous)
        print("stopping the walk (Ctrl-C again to quit at once)", file=sys.stderr)
    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.SIG_IGN:      # started with Ctrl-C ignored: leave it so
            raise ValueError
        signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:                      # or not the main thread: Ctrl-C is not ours
        yield lambda: False
        return
    try:
        yield lambda: bool(pressed)
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _progress_bar(total):
    """Yields a progress(states, frontier) callback drawing a tqdm bar on stderr; the bar
    appears only on a terminal and only once the walk has run for a second."""
    try:
        from tqdm import tqdm
    except ImportError:                         # the bar is a nicety, not a need
        yield None
        return
    on_terminal = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    bar = tqdm(total=total, unit=" states", file=sys.stderr, delay=1.0,
               disable=not on_terminal, leave=False, dynamic_ncols=True)
    seen = [0]

    def progress(states, frontier):
        bar.update(states - seen[0])
        seen[0] = states
        bar.set_postfix_str(f"frontier {frontier}", refresh=False)
    try:
        yield progress
    finally:
        bar.close()
