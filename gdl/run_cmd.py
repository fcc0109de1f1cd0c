"""`gdl run`: play many games with agents and print a summary (`interpreter.simulate`
plays them, in worker processes with `-j`; the output is the same for any number)."""
from __future__ import annotations

import random
import sys
from collections import Counter
from contextlib import contextmanager

from .errors import OptionError


#: the most (finished, returns) pairs whose labels a run remembers
LABELS_KEPT = 4096


def _outcome_label(finished: bool, returns: tuple) -> str:
    if not finished:
        return "unfinished"
    best = max(returns)
    if all(r == returns[0] for r in returns):
        return "draw"
    return "win " + "+".join(str(i) for i, r in enumerate(returns) if r == best)


@contextmanager
def _progress(n: int):
    """A tqdm bar of games on stderr, drawn only on a terminal and only for many games."""
    try:
        from tqdm import tqdm
    except ImportError:                         # the bar is a nicety, not a need
        yield lambda k: None
        return
    on_terminal = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    bar = tqdm(total=n, unit="game", file=sys.stderr, leave=False, dynamic_ncols=True,
               disable=not on_terminal or n < 100)
    try:
        yield bar.update
    finally:
        bar.close()


def run_games(args) -> int:
    """Runs `gdl run`; returns the exit code."""
    from interpreter.options import parse_set_args
    from interpreter.simulate import play_games
    if args.n < 1:
        raise OptionError(f"-n must be 1 or more games, not {args.n}")
    if args.jobs < 0:
        raise OptionError(f"--jobs must be 0 (one per core) or more, not {args.jobs}")
    options = parse_set_args(args.set)
    seed0 = args.seed if args.seed is not None else random.randrange(2**31)
    show = args.n == 1 or args.show
    games = play_games(args.file, args.n, seed=seed0, options=options, agents=args.agents,
                       jobs=args.jobs, traces=bool(args.trace), tables=show,
                       symbols=args.symbols)
    return _run(args, games, show)


def _run(args, games, show) -> int:
    totals = [0.0] * games.game.num_players
    wins: Counter = Counter()
    labels: dict = {}                       # (finished, returns) -> its label
    played = steps = longest = 0            # running figures: a million games keep no list
    out = open(args.trace, "w", encoding="utf-8") if args.trace else None
    played_games = iter(games)
    try:
        with _progress(args.n) as advance:
            for game in played_games:
                for k, r in enumerate(game.returns):
                    totals[k] += r
                end = game.finished, game.returns
                label = labels.get(end)
                if label is None:               # a game's label is its returns': few kinds
                    label = _outcome_label(*end)
                    if len(labels) < LABELS_KEPT:
                        labels[end] = label
                wins[label] += 1
                played += 1
                steps += game.steps
                longest = max(longest, game.steps)
                if out:
                    out.write(game.trace + "\n")
                if show:
                    print(f"--- game {played} (seed {game.seed}), final table:")
                    print(game.table)
                advance(1)
    except KeyboardInterrupt:               # Ctrl-C: the summary of the games played
        if hasattr(played_games, "close"):
            played_games.close()            # the games not yet played are not started
        if played:
            _summary(games.game, played, totals, wins, steps, longest)
            print(f"  interrupted (Ctrl-C) after {played} of {args.n} games")
        else:
            print(f"{games.game.title}: interrupted (Ctrl-C) before the first of "
                  f"{args.n} games ended")
        return 130
    finally:
        if out:
            out.close()
    _summary(games.game, args.n, totals, wins, steps, longest)
    return 0


def _summary(game, n, totals, wins, steps, longest):
    from interpreter.values import text_of
    shown = ", ".join(f"{k}={getattr(v, 'name', None) or text_of(v)}"
                      for k, v in game.options.items())
    print(f"{game.title}: {n} game(s)" + (f", options {shown}" if shown else ""))
    for seat, total in zip(game.seats, totals):
        won = sum(c for label, c in wins.items()
                  if label.startswith("win") and str(seat.index) in label[4:].split("+"))
        print(f"  {seat.name:>8}: won {won:5d}   mean return {total / n:+.3f}")
    print(f"  draws: {wins.get('draw', 0)}   unfinished: {wins.get('unfinished', 0)}")
    print(f"  length in steps: mean {steps / n:.1f}, max {longest}")
