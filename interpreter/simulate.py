"""Many games played with agents, in this process or in worker processes.

Game i of a run uses seed+i for both chance and the agents, so the games are independent
of one another: workers play blocks of consecutive seeds and the blocks come back in
order, which makes every result the same for any number of jobs.
"""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter, deque
from fractions import Fraction
from typing import Iterator, Optional, Sequence, Union

import attrs

from gdl.errors import GdlError, OptionError

from ._workers import (LOST_WORKER, check_main_guard, ignore_interrupts, stop_now,
                       usable_cores, worker_pool)

#: at most this many games per block handed to a worker (a block's results travel back in
#: one message; smaller blocks keep progress reports coming and the memory flat) ...
MAX_BLOCK = 250
#: ... and per block of `tally_games` in a worker, which sends back a few figures, not
#: games: the pool's own work is about a millisecond a block, as long as 40 of the
#: shortest games here (a few decisions each) take to play
MAX_TALLY_BLOCK = 1000
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
    game, blocks = _run_blocks("play_games", path, n, seed, options, jobs,
                               (agents, traces, tables, symbols), "block")
    return GameRun(game, blocks)


def tally_games(path: str, n: int, *, seed: int = 0, options: Optional[dict] = None,
                agents: Union[str, Sequence, None] = None, jobs: int = 1) -> "TallyRun":
    """Plays the games `play_games` plays and returns an iterator of their `Tally`s, one
    per block of consecutive games, in seed order: what `gdl run` sums up, without
    making a record of each game or, with workers, sending it back (a block's figures
    cross instead of its games).  Errors as for `play_games`; a rule error met in a game
    is raised after the tally of the games before it in its block."""
    game, blocks = _run_blocks("tally_games", path, n, seed, options, jobs,
                               (agents, False, False, False), "tally")
    return TallyRun(game, blocks)


def _run_blocks(call: str, path, n, seed, options, jobs, settings, work):
    """(the loaded game, its blocks' results in seed order): a `_Player`'s method `work`
    of each block, here or in workers.  User errors are raised here, at the call."""
    from . import load
    if n < 1:
        raise OptionError(f"the number of games must be 1 or more, not {n}")
    if jobs < 0:
        raise OptionError(f"jobs must be 0 (one per core) or more, not {jobs}")
    if jobs != 1:
        check_main_guard(call)
    options = dict(options or {})
    game = load(path, options)                  # errors in the text: here, at the call
    _agents_of(game, settings[0])
    jobs = min(jobs or usable_cores(), n)
    # in one process a block is what a Ctrl-C loses: tallies' blocks grow in workers only
    blocks = _blocks(seed, n, jobs, MAX_TALLY_BLOCK if work == "tally" and jobs > 1
                     else MAX_BLOCK)
    if jobs == 1:
        method = getattr(_Player(game, *settings), work)
        return game, (method(seeds) for seeds in blocks)
    return game, _in_workers(game.ruleset, options, settings, blocks, jobs, work)


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
                if isinstance(record, (GdlError, KeyboardInterrupt)):
                    # the workers stop now: left to the error's collection (its traceback
                    # holds this frame, a cycle), they played on until a later collection
                    blocks.close()
                    raise record
                yield PlayedGame(*record)

    def __iter__(self):
        return self

    def __next__(self) -> PlayedGame:
        return next(self._games)

    def close(self):
        """Stops the workers, if the games are not all wanted."""
        self._games.close()


class TallyRun:
    """What `tally_games` returns: an iterator of each block's `Tally`, in seed order,
    with `game`, the loaded game."""

    def __init__(self, game, blocks):
        self.game = game
        self._tallies = self._unpack(blocks)

    @staticmethod
    def _unpack(blocks) -> Iterator["Tally"]:
        for tally, error in blocks:
            if error is not None:
                blocks.close()                # the workers stop now (see GameRun)
                if tally.games:
                    yield tally               # the games before the error count
                raise error
            yield tally

    def __iter__(self):
        return self

    def __next__(self) -> "Tally":
        return next(self._tallies)

    def close(self):
        """Stops the workers, if the rest is not wanted."""
        self._tallies.close()


#: the most (finished, returns) ends whose labels `outcome_label` remembers
LABELS_KEPT = 4096
_LABELS: dict = {}


def outcome_label(finished: bool, returns: tuple) -> str:
    """How `gdl run` counts a game's end: "unfinished", "draw" (every return equal), or
    "win" and the indices of the seats with the best return ("win 0", "win 0+2").
    Remembered per end: a run has few kinds of end and many games."""
    end = finished, returns
    label = _LABELS.get(end)
    if label is None:
        if not finished:
            label = "unfinished"
        elif all(r == returns[0] for r in returns):
            label = "draw"
        else:
            best = max(returns)
            label = "win " + "+".join(str(i) for i, r in enumerate(returns) if r == best)
        if len(_LABELS) < LABELS_KEPT:
            _LABELS[end] = label
    return label


class Tally:
    """What games came to, as `gdl run` sums them up: how many, each seat's total return,
    the games of each `outcome_label`, their steps and the longest.  Games are counted
    per end (finished or not, and the returns) and the ends folded in every so often:
    the totals are exact, so they are the same however the games were split in blocks,
    and memory stays flat however many games there are."""

    #: distinct ends held before they are folded into the totals
    PENDING = 256

    def __init__(self, seats: int):
        self.games = self.steps = self.longest = 0
        self._totals: list = [0] * seats      # ints, or Fractions once a return is not
        self._outcomes: Counter = Counter()
        self._ends: dict = {}                 # (finished, returns) -> games, not yet folded

    def add(self, finished: bool, returns: tuple, steps: int):
        """Counts one game."""
        end = finished, returns
        ends = self._ends
        ends[end] = ends.get(end, 0) + 1
        self.games += 1
        self.steps += steps
        if steps > self.longest:
            self.longest = steps
        if len(ends) >= self.PENDING:
            self._fold()

    def merge(self, other: "Tally"):
        """Counts another tally's games too."""
        other._fold()
        self._fold()
        self.games += other.games
        self.steps += other.steps
        self.longest = max(self.longest, other.longest)
        self._totals = [a + b for a, b in zip(self._totals, other._totals)]
        self._outcomes.update(other._outcomes)

    def _fold(self):
        totals, outcomes = self._totals, self._outcomes
        for (finished, returns), games in self._ends.items():
            outcomes[outcome_label(finished, returns)] += games
            for k, r in enumerate(returns):
                totals[k] += _exact(r) * games
        self._ends.clear()

    def mean_returns(self) -> list:
        """Each seat's mean return (correctly rounded from the exact total)."""
        self._fold()
        n = self.games or 1
        return [t / n if type(t) is float else float(Fraction(t) / n)
                for t in self._totals]

    def outcomes(self) -> Counter:
        """Games by `outcome_label`."""
        self._fold()
        return Counter(self._outcomes)

    def __getstate__(self):
        self._fold()                          # a worker's tally crosses folded
        return self.__dict__


def _exact(r):
    """A return as an exact number: an int where it is whole, else a Fraction (one that
    is not finite stays a float, and so does the total it joins)."""
    r = float(r)
    if r.is_integer():
        return int(r)
    return Fraction(r) if math.isfinite(r) else r


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

    def played(self, seeds: range):
        """Yields each seed's game played to its end, as (seed, state); a user error
        ends them, yielded in place of its game's state."""
        from .agents import play_out
        game, agents = self.game, self.agents
        # one source, seeded again for each game: `Random(seed)`'s stream without a new
        # source a game (a game of four decisions takes a twelfth longer with one)
        rng = random.Random()
        for seed in seeds:
            try:
                state = game.new_state(seed)
                rng.seed(seed)
                play_out(state, agents, rng)
            except (GdlError, KeyboardInterrupt) as err:    # a Ctrl-C: the games before
                yield seed, err                             # it are kept (in a process
                return                                      # of its own, never)
            yield seed, state

    def block(self, seeds: range) -> list:
        """The block's games, each as the fields of its `PlayedGame`; a user error ends
        it (the error is its last item).  Tuples, not records: a worker's block crosses
        to the parent pickled, and a tuple of numbers and texts pickles in C where a
        frozen attrs record goes through its Python `__getstate__` and `__setstate__`."""
        from .serial import trace_line
        records: list = []
        try:
            for seed, state in self.played(seeds):
                if isinstance(state, (GdlError, KeyboardInterrupt)):
                    records.append(state)
                    break
                records.append((
                    seed, tuple(state.returns()), state.is_terminal(), len(state.lines),
                    trace_line(state) if self.traces else None,
                    state.view(None, symbols=self.symbols) if self.tables else None))
        except KeyboardInterrupt as err:      # while a trace was written: the games before
            records.append(err)
        return records

    def tally(self, seeds: range) -> tuple:
        """(the block's `Tally`, None), or (the tally so far, the user error that ended
        the block)."""
        tally = Tally(self.game.num_players)
        add = tally.add
        try:
            for _, state in self.played(seeds):
                if isinstance(state, (GdlError, KeyboardInterrupt)):
                    return tally, state
                add(state.is_terminal(), tuple(state.returns()), len(state.lines))
        except KeyboardInterrupt as err:      # between two games
            return tally, err
        return tally, None


def _blocks(first: int, n: int, jobs: int, most: int):
    """Consecutive seeds: about sixteen blocks a worker, at most `most` games each."""
    size = max(1, min(most, n // (jobs * 16))) if jobs > 1 else most
    for start in range(first, first + n, size):
        yield range(start, min(start + size, first + n))


_WORKER: list = []                  # a worker process's _Player


def _start_worker(ruleset, options, settings):
    from .game import Game
    ignore_interrupts()
    _WORKER[:] = [_Player(Game(ruleset, options), *settings)]


def _work(method: str, seeds: range):
    return getattr(_WORKER[0], method)(seeds)


def _in_workers(ruleset, options, settings, blocks, jobs: int, work):
    """Yields each block's `work` (a `_Player` method: its games, or its tally) in the
    blocks' order.  Each worker is given the checked
    ruleset the call loaded, not its file (which the designer may be editing).  A worker
    that dies (killed, out of memory) raises `BrokenProcessPool` here instead of leaving
    the run waiting for its block."""
    from concurrent.futures.process import BrokenProcessPool
    pool = worker_pool(jobs, _start_worker, (ruleset, options, settings))
    ok = False
    try:
        # a few blocks a worker handed out at a time, not all: the results wait in this
        # process until they are read, and Python's exit waits for every block handed out
        ahead = deque(pool.submit(_work, work, seeds)
                      for seeds in itertools.islice(blocks, AHEAD * jobs))
        while ahead:
            result = ahead.popleft().result()
            seeds = next(blocks, None)
            if seeds is not None:
                ahead.append(pool.submit(_work, work, seeds))
            yield result
        ok = True
    except BrokenProcessPool:
        raise BrokenProcessPool(LOST_WORKER) from None
    finally:
        if ok:
            pool.shutdown()
        else:                           # an error, Ctrl-C, or the games no longer wanted
            stop_now(pool)
