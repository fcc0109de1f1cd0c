"""`gdl run`: play many games with agents, in this process or in worker processes.

Game i uses seed+i for both chance and the agents, so games are independent of one
another: workers play contiguous blocks of them and the parent takes the blocks back in
order, which makes the summary, the trace file and every printed table the same for any
number of jobs.
"""
from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter
from contextlib import contextmanager

from .errors import GdlError, OptionError

#: at most this many games per block handed to a worker (each block's records travel back
#: in one message; smaller blocks keep the progress bar moving and the memory flat)
MAX_BLOCK = 250


class _Failed(GdlError):
    """A user error raised in a worker, carried back as the text it prints."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


class _Player:
    """Plays the games of one block: the loaded game and its agents, made once per process."""

    def __init__(self, game, agents, want_trace, want_table, symbols):
        from interpreter.agents import parse_agents
        self.game = game
        self.agents = parse_agents(agents, game.num_players)
        self.want_trace, self.want_table, self.symbols = want_trace, want_table, symbols

    def block(self, seeds: range) -> list:
        """One record per game: (returns, outcome label, length, trace line, final table);
        a user error ends the block with ("error", its text)."""
        from interpreter.agents import play_out
        game, agents = self.game, self.agents
        records = []
        for seed in seeds:
            try:
                state = game.new_state(seed)
                play_out(state, agents, random.Random(seed))
            except GdlError as err:
                records.append(("error", str(err)))
                break
            returns = state.returns()
            label = _outcome_label(returns) if state.is_terminal() else "unfinished"
            trace = json.dumps(state.trace()) if self.want_trace else None
            table = state.view(None, symbols=self.symbols) if self.want_table else None
            records.append((tuple(returns), label, len(state.history), trace, table))
        return records


_WORKER: list = []          # the worker process's _Player


def _start_worker(path, sets, settings):
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the parent's to handle
    from interpreter import load
    from interpreter.options import parse_set_args
    _WORKER[:] = [_Player(load(path, parse_set_args(sets)), *settings)]


def _play_block(seeds: range) -> list:
    return _WORKER[0].block(seeds)


def _outcome_label(returns):
    best = max(returns)
    if all(r == returns[0] for r in returns):
        return "draw"
    return "win " + "+".join(str(i) for i, r in enumerate(returns) if r == best)


def _blocks(first: int, n: int, jobs: int):
    """Contiguous ranges of seeds: about sixteen blocks a worker, at most MAX_BLOCK games."""
    size = max(1, min(MAX_BLOCK, n // (jobs * 16) if jobs > 1 else MAX_BLOCK))
    for start in range(first, first + n, size):
        yield range(start, min(start + size, first + n))


def _results(args, game, settings, blocks, jobs: int):
    """Yields each block's records in the blocks' order (workers load the ruleset again)."""
    if jobs <= 1:
        player = _Player(game, *settings)
        for seeds in blocks:
            yield player.block(seeds)
        return
    import multiprocessing
    pool = multiprocessing.get_context("spawn").Pool(
        jobs, _start_worker, (args.file, list(args.set), settings))
    ok = False
    try:
        yield from pool.imap(_play_block, blocks)
        ok = True
    finally:
        if ok:
            pool.close()
        else:
            pool.terminate()
        pool.join()


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
    from interpreter import load
    from interpreter.agents import parse_agents
    from interpreter.options import parse_set_args
    if args.n < 1:
        raise OptionError(f"-n must be 1 or more games, not {args.n}")
    if args.jobs < 0:
        raise OptionError(f"--jobs must be 0 (one per core) or more, not {args.jobs}")
    game = load(args.file, parse_set_args(args.set))       # errors in the text: here, once
    parse_agents(args.agents, game.num_players)
    seed0 = args.seed if args.seed is not None else random.randrange(2**31)
    show = args.n == 1 or args.show
    jobs = min(args.jobs or os.cpu_count() or 1, args.n)
    settings = (args.agents, bool(args.trace), show, args.symbols)
    totals = [0.0] * game.num_players
    wins: Counter = Counter()
    lengths = []
    out = open(args.trace, "w", encoding="utf-8") if args.trace else None
    try:
        with _progress(args.n) as advance:
            for records in _results(args, game, settings, _blocks(seed0, args.n, jobs), jobs):
                for record in records:
                    if record[0] == "error":
                        raise _Failed(record[1])
                    returns, label, length, trace, table = record
                    for k, r in enumerate(returns):
                        totals[k] += r
                    wins[label] += 1
                    lengths.append(length)
                    if out:
                        out.write(trace + "\n")
                    if show:
                        seed = seed0 + len(lengths) - 1
                        print(f"--- game {len(lengths)} (seed {seed}), final table:")
                        print(table)
                advance(len(records))
    finally:
        if out:
            out.close()
    _summary(game, args.n, totals, wins, lengths)
    return 0


def _summary(game, n, totals, wins, lengths):
    from interpreter.values import text_of
    shown = ", ".join(f"{k}={getattr(v, 'name', None) or text_of(v)}"
                      for k, v in game.options.items())
    print(f"{game.title}: {n} game(s)" + (f", options {shown}" if shown else ""))
    for seat, total in zip(game.seats, totals):
        won = sum(c for label, c in wins.items()
                  if label.startswith("win") and str(seat.index) in label[4:].split("+"))
        print(f"  {seat.name:>8}: won {won:5d}   mean return {total / n:+.3f}")
    print(f"  draws: {wins.get('draw', 0)}   unfinished: {wins.get('unfinished', 0)}")
    print(f"  length in steps: mean {sum(lengths) / n:.1f}, max {max(lengths)}")
