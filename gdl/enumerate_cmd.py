"""`gdl enumerate`: the exhaustive walk over every reachable state, from the command line.

Prints the report of `interpreter.enumerate.enumerate_states` as text (or JSON with
`--json`) on stdout, with a progress bar on stderr while a long walk runs.  A walk cut
short by `--max-states`, `--max-depth`, Ctrl-C or a SIGTERM (`timeout`, a job scheduler)
still prints its report, marked partial (then the status is 130 after Ctrl-C, as every
command's, 143 after SIGTERM; a second signal quits at once).
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
            got = interrupted()
            return None if got is None else "Ctrl-C" if got == signal.SIGINT else "SIGTERM"
        report = enumerate_states(game, args.max_states, args.max_depth,
                                  infosets=args.infosets, progress=progress)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    got = interrupted()                         # a signal: the partial report, then 128+n
    return 0 if got is None else 128 + int(got)


#: the signals that stop a walk and print what it found: Ctrl-C, and what `timeout` and
#: job schedulers send
_STOPPING = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _first_interrupt():
    """Yields `interrupted()`, the first stopping signal received (else None): it only
    sets it (the walk stops at its next check, between two states, and the partial
    report is printed); a second one acts at once, as by default."""
    pressed = []
    previous = {}

    def on_interrupt(signum, frame):
        pressed.append(signum)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        again = "Ctrl-C" if signum == signal.SIGINT else "a second SIGTERM"
        print(f"stopping the walk ({again} to quit at once)", file=sys.stderr)
    try:
        for sig in _STOPPING:
            handler = signal.getsignal(sig)
            if handler is signal.SIG_IGN:   # started with it ignored: leave it so
                continue
            signal.signal(sig, on_interrupt)
            previous[sig] = handler
    except ValueError:                      # not the main thread: signals are not ours
        yield lambda: None
        return
    try:
        yield lambda: pressed[0] if pressed else None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
