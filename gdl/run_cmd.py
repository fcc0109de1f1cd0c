"""`gdl run`: play many games with agents and print a summary (`interpreter.simulate`
plays them, in worker processes with `-j`; the output is the same for any number)."""
from __future__ import annotations

import random
import shlex
import sys
from contextlib import contextmanager

from .errors import GdlError, OptionError, TraceError


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
    from interpreter.simulate import play_games, tally_games
    if args.n < 1:
        raise OptionError(f"-n must be 1 or more games, not {args.n}")
    if args.jobs < 0:
        raise OptionError(f"--jobs must be 0 (one per core) or more, not {args.jobs}")
    options = parse_set_args(args.set)
    seed0 = args.seed if args.seed is not None else random.randrange(2**31)
    show = args.n == 1 or args.show
    if args.trace or show:                  # each game's trace or table: the games
        run = play_games(args.file, args.n, seed=seed0, options=options,
                         agents=args.agents, jobs=args.jobs, traces=bool(args.trace),
                         tables=show, symbols=args.symbols)
    else:                                   # the summary only: each block's tally
        run = tally_games(args.file, args.n, seed=seed0, options=options,
                          agents=args.agents, jobs=args.jobs)
    return _run(args, run, show, seed0, drawn=args.seed is None)


def _run(args, run, show, seed0: int = 0, drawn: bool = False) -> int:
    """Sums up what `run` yields, games (`PlayedGame`, written and shown as they come)
    or blocks' tallies, and prints the summary (of the games so far, on Ctrl-C), and the
    seeds where they were `drawn` at random."""
    from interpreter.simulate import Tally
    tally = Tally(run.game.num_players)     # running figures: a million games keep no list
    out = open(args.trace, "w", encoding="utf-8") if args.trace else None
    items = iter(run)
    try:
        with _progress(args.n) as advance:
            for item in items:
                if type(item) is Tally:
                    tally.merge(item)
                    advance(item.games)
                    continue
                tally.add(item.finished, item.returns, item.steps)
                if out:
                    out.write(item.trace + "\n")
                if show:
                    print(f"--- game {tally.games} (seed {item.seed}), final table:")
                    print(item.table)
                advance(1)
        if out:
            out.flush()                     # a full disk said here, with the summary
    except OSError as err:                  # the trace file could not be written
        if out is None:
            raise
        if tally.games:
            _summary(run.game, tally)
        raise TraceError(f"--trace {args.trace}: {err.strerror or err}: the traces could "
                         f"not be written") from None
    except GdlError as err:                 # the rules failed in a game: which one, and
        if tally.games:                     # the summary of those played before it
            _summary(run.game, tally)
        sets = "".join(f" --set {shlex.quote(s)}" for s in getattr(args, "set", None) or ())
        seed = seed0 + tally.games
        again = f"`gdl run {shlex.quote(args.file)} --seed {seed}{sets}`"
        if args.n > 1:
            err.notes += (f"in game {tally.games + 1} of {args.n} (seed {seed}): {again} "
                          f"plays it alone",)
        elif drawn:                         # one game, as given but for its seed
            err.notes += (f"the game had seed {seed}: {again} plays it again",)
        raise
    except KeyboardInterrupt:               # Ctrl-C: the summary of the games played
        if hasattr(items, "close"):
            items.close()                   # the games not yet played are not started
        if tally.games:
            _summary(run.game, tally)
            print(f"  interrupted (Ctrl-C) after {tally.games} of {args.n} games")
            if drawn:
                _drawn_seeds(seed0, tally.games)
        else:
            print(f"{run.game.title}: interrupted (Ctrl-C) before the first of "
                  f"{args.n} games ended")
        return 130
    finally:
        if out:
            try:
                out.close()
            except OSError:                 # told above where it mattered
                pass
    _summary(run.game, tally)
    if drawn:                               # say it, or nobody can play these games again
        _drawn_seeds(seed0, tally.games)
    return 0


def _drawn_seeds(seed0: int, games: int) -> None:
    seeds = f"seed {seed0}" if games == 1 else f"seeds {seed0} to {seed0 + games - 1}"
    print(f"  no --seed given: the games had {seeds} (`--seed {seed0}` plays them again)")


def _summary(game, tally):
    from interpreter.values import text_of
    n = tally.games
    wins = tally.outcomes()
    shown = ", ".join(f"{k}={getattr(v, 'name', None) or text_of(v)}"
                      for k, v in game.options.items())
    print(f"{game.title}: {n} game(s)" + (f", options {shown}" if shown else ""))
    means = tally.mean_returns()
    if len(game.seats) == 1:                # nobody to win against: every game read "a draw"
        print(f"  {game.seats[0].name:>8}: mean return {means[0]:+.3f} (one seat: no wins "
              f"or draws)")
        print(f"  unfinished: {wins.get('unfinished', 0)}")
    else:
        for seat, mean in zip(game.seats, means):
            won = sum(c for label, c in wins.items()
                      if label.startswith("win") and str(seat.index) in label[4:].split("+"))
            print(f"  {seat.name:>8}: won {won:5d}   mean return {mean:+.3f}")
        print(f"  draws: {wins.get('draw', 0)}   unfinished: {wins.get('unfinished', 0)}")
    print(f"  length in steps: mean {tally.steps / n:.1f}, max {tally.longest}")
