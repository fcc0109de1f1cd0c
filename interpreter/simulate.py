"""Many games played with agents, in this process or in worker processes.

Game i of a run uses seed+i for both chance and the agents, so the games are independent
of one another: workers play blocks of consecutive seeds and the blocks come back in
order, which makes every result the same for any number of jobs.
"""
from __future__ import annotations

import itertools
import random
from collections import deque
from typing import Iterator, Optional, Sequence, Union

import attrs

from gdl.errors import GdlError, OptionError

from ._workers import (LOST_WORKER, check_main_guard, ignore_interrupts, stop_now,
                       usable_cores, worker_pool)

#: at most this many games per block handed to a worker (a block's results travel back in
#: one message; smaller blocks keep progress reports coming and the memory flat)
MAX_BLOCK = 250
#: blocks handed out ahead of the one being read, per worker
AHEAD = 3


@attrs.frozen
class PlayedGame:
    """One game played to its end (or to `play_out`'s step bound: `finished` is False)."""

    seed: int
    returns: tuple
    finished: bool
    steps: int                      #: moves and chance events, as in the state's history
    trace: Optional[str] = None     #: the game's trace as one line of JSON, when asked for
    table: Optional[str] = None     #: the final table as an all-seeing observer, when asked for


def play_games(path: str, n: int, *, seed: int = 0, options: Optional[dict] = None,
               agents: Union[str, Sequence, None] = None, jobs: int = 1,
               traces: bool = False, tables: bool = False,
               symbols: bool = False) -> "GameRun":
    """Plays `n` games of a ruleset (seeds `seed` to `seed+n-1`) and yields them in that
    order.  `agents`: a spec such as "random,first" (the last repeats; default random)
    or one agent per seat (with `jobs` > 1, functions a worker can import by name);
    `jobs`: worker processes (0: one per usable core); `traces`/`tables`: keep each game's
    trace (JSON text) or final table.  A user error (a rule error met in a game, say) is
    raised where that game would come, after the games before it."""
    from . import load
    if n < 1:
        raise OptionError(f"the number of games must be 1 or more, not {n}")
    if jobs < 0:
        raise OptionError(f"jobs must be 0 (one per core) or more, not {jobs}")
    if jobs != 1:
        check_main_guard("play_games")
    options = dict(options or {})
    game = load(path, options)                  # errors in the text: here, at the call
    settings = (agents, traces, tables, symbols)
    _agents_of(game, agents)
    jobs = min(jobs or usable_cores(), n)
    blocks = _blocks(seed, n, jobs)
    if jobs == 1:
        player = _Player(game, *settings)
        return GameRun(game, (player.block(seeds) for seeds in blocks))
    return GameRun(game, _in_workers(game.ruleset, options, settings, blocks, jobs))


class GameRun:
    """What `play_games` returns: an iterator of the games, in seed order, with `game`,
    the loaded game (its title, seats and options)."""

    def __init__(self, game, blocks):
        self.game = game
        self._games = self._unpack(blocks)

    @staticmethod
    def _unpack(blocks) -> Iterator[PlayedGame]:
        for records in blocks:
            for record in records:
                if isinstance(record, GdlError):
                    raise record
                yield PlayedGame(*record)

    def __iter__(self):
        return self

    def __next__(self) -> PlayedGame:
        return next(self._games)

    def close(self):
        """Stops the workers, if the games are not all wanted."""
        self._games.close()


def _agents_of(game, agents) -> list:
    from .agents import parse_agents
    if agents is None or isinstance(agents, str):
        return parse_agents(agents, game.num_players)
    agents = list(agents)
    if len(agents) != game.num_players:
        raise OptionError(f"{len(agents)} agents for {game.num_players} seats")
    return agents


class _Player:
    """Plays the games of a block: the loaded game and its agents, made once per process."""

    def __init__(self, game, agents, traces, tables, symbols):
        self.game, self.agents = game, _agents_of(game, agents)
        self.traces, self.tables, self.symbols = traces, tables, symbols

    def block(self, seeds: range) -> list:
        """The block's games, each as the fields of its `PlayedGame`; a user error ends
        it (the error is its last item).  Tuples, not records: a worker's block crosses
        to the parent pickled, and a tuple of numbers and texts pickles in C where a
        frozen attrs record goes through its Python `__getstate__` and `__setstate__`."""
        from .agents import play_out
        from .serial import trace_line
        game, agents = self.game, self.agents
        records: list = []
        for seed in seeds:
            try:
                state = game.new_state(seed)
                play_out(state, agents, random.Random(seed))
            except GdlError as err:
                records.append(err)
                break
            records.append((
                seed, tuple(state.returns()), state.is_terminal(), len(state.history),
                trace_line(state) if self.traces else None,
                state.view(None, symbols=self.symbols) if self.tables else None))
        return records


def _blocks(first: int, n: int, jobs: int):
    """Consecutive seeds: about sixteen blocks a worker, at most MAX_BLOCK games each."""
    size = max(1, min(MAX_BLOCK, n // (jobs * 16))) if jobs > 1 else MAX_BLOCK
    for start in range(first, first + n, size):
        yield range(start, min(start + size, first + n))


_WORKER: list = []                  # a worker process's _Player


def _start_worker(ruleset, options, settings):
    from .game import Game
    ignore_interrupts()
    _WORKER[:] = [_Player(Game(ruleset, options), *settings)]


def _play_block(seeds: range) -> list:
    return _WORKER[0].block(seeds)


def _in_workers(ruleset, options, settings, blocks, jobs: int):
    """Yields each block's games in the blocks' order.  Each worker is given the checked
    ruleset the call loaded, not its file (which the designer may be editing).  A worker
    that dies (killed, out of memory) raises `BrokenProcessPool` here instead of leaving
    the run waiting for its block."""
    from concurrent.futures.process import BrokenProcessPool
    pool = worker_pool(jobs, _start_worker, (ruleset, options, settings))
    ok = False
    try:
        # a few blocks a worker handed out at a time, not all: the results wait in this
        # process until they are read, and Python's exit waits for every block handed out
        ahead = deque(pool.submit(_play_block, seeds)
                      for seeds in itertools.islice(blocks, AHEAD * jobs))
        while ahead:
            records = ahead.popleft().result()
            seeds = next(blocks, None)
            if seeds is not None:
                ahead.append(pool.submit(_play_block, seeds))
            yield records
        ok = True
    except BrokenProcessPool:
        raise BrokenProcessPool(LOST_WORKER) from None
    finally:
        if ok:
            pool.shutdown()
        else:                           # an error, Ctrl-C, or the games no longer wanted
            stop_now(pool)
