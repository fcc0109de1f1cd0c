"""The state behind `gdl play`: one game being played, taken back, replayed and reloaded.

A session holds the ruleset file, the option overrides, the seed, and the game so far as a
list of trace steps (the format of `interpreter/serial.py`, commits at an unresolved
simultaneous decision included).  Every change goes through `_apply`, which restores the
previous state if the rules raise, so a bad rule never leaves a half-applied move behind.
Nothing here prints or reads the terminal: methods return what happened, and the REPL
(`gdl/repl.py`) shows it.  Nothing here knows any game.
"""
from __future__ import annotations

import json
import os
import random
import signal
import threading
from contextlib import contextmanager
from typing import Dict, List, NamedTuple, Optional

from .errors import (GdlError, MoveError, OptionError, RuleError, TraceError,
                     did_you_mean, natural)

#: A step of a trace: {"player": name, "move": text} or {"chance": text, "kind", "data"}.
Step = dict

#: `advance` stops after this many automatic steps, as `gdl run` does, so a ruleset that
#: never ends cannot hang the REPL.
MAX_AUTO_STEPS = 100_000


class ReplError(GdlError):
    """A command the REPL cannot carry out as written (a bad step number, nothing to
    undo); shown as one line like every user error."""


class Shown(NamedTuple):
    """One step as the REPL announces it: its number (from 1), who acted, and the text
    the viewing seat sees (all of it for the all-seeing view)."""

    number: int
    who: str
    text: str


class Halted(Exception):
    """Steps were made, then the next one failed: the REPL shows `shown`, then `error`
    (the steps are kept; the error is the rules', or a recorded step's)."""

    def __init__(self, shown: List["Shown"], error: GdlError):
        super().__init__(error.message)
        self.shown, self.error = shown, error


class Replayed(NamedTuple):
    """What a replay onto new rules or a loaded trace did: steps replayed of the total,
    where it stopped (None if it did not), and the option overrides dropped because
    the rules no longer take them, as (name, value, why)."""

    replayed: int
    total: int
    stopped: Optional["Stopped"]
    dropped: tuple = ()


class Stopped(NamedTuple):
    """Why a replay (reload, load, redo) stopped before a recorded step."""

    number: int
    step: Step
    reason: str

    def describe(self, total: int, seat=None) -> str:
        """Says where and why, the step as `seat` may know it (None: all of it): the
        reason for a step partly hidden from `seat` names what is hidden (a card it may
        not see, the moves another seat had), so it is left out."""
        known = step_text(self.step, seat, SHORT_CHANCE)
        reason = self.reason
        if seat is not None and known != step_text(self.step, None, SHORT_CHANCE):
            reason = (f"it cannot be made now (why is hidden from {seat.name}; after `as all`, "
                      f"`redo` says why)")
        return f"stopped before step {self.number} of {total} ({known}): {reason}"


#: A chance outcome's text is cut to this many characters in a one-line message.
SHORT_CHANCE = 60


def step_text(step: Step, seat=None, most: Optional[int] = None) -> str:
    """Returns a step as `p1: move text` or `chance: outcome text`.  For a step not made
    (no seat has seen it), as `seat` may know it: another seat's arguments and chance's
    outcome hidden (`shuffle deck`, `random ?`, `p2: shuffle_packet ...`); `most` cuts a
    long outcome."""
    if "chance" in step:
        text = step["chance"]
        if seat is not None:
            text = text.split(":", 1)[0] if ":" in text else text.split(" ", 1)[0] + " ?"
        if most is not None and len(text) > most:
            text = text[:most] + "..."
        return f"chance: {text}"
    if seat is not None and step["player"] != seat.name and " " in step["move"]:
        return f"{step['player']}: {step['move'].split(' ', 1)[0]} ..."
    return f"{step['player']}: {step['move']}"


def parse_agent_spec(spec: Optional[str], game) -> Dict[int, str]:
    """Returns {seat index: agent name} from `SEAT=AGENT,...`; `all=AGENT` sets every
    seat, and bare names go to the seats in order as for `gdl run` (the last repeats)."""
    from interpreter.agents import AGENTS
    out: Dict[int, str] = {}
    bare = []
    for item in (spec or "").split(","):
        item = item.strip()
        if not item:
            continue
        who, sep, name = item.rpartition("=")
        name = name.strip()
        if name not in AGENTS:
            raise OptionError(f"unknown agent {name!r}; the agents are {', '.join(AGENTS)}",
                              suggestion=did_you_mean(name, AGENTS))
        if not sep:
            bare.append(name)
        elif who.strip() in ("all", "*"):
            out.update({s.index: name for s in game.seats})
        else:
            out[seat_of(game, who.strip()).index] = name
    if len(bare) > len(game.seats):         # the extra ones were dropped without a word
        n = len(game.seats)
        raise OptionError(f"{len(bare)} agents named for a game of {n} seat"
                          f"{'s' if n != 1 else ''} (one a seat, in order; the last one "
                          f"given plays the seats left over)")
    for seat in game.seats if bare else ():
        out.setdefault(seat.index, bare[min(seat.index, len(bare) - 1)])
    return out


def seat_of(game, text: str):
    """Returns the seat named by `text`: its name, or its number counted from 1."""
    if natural(text):
        n = int(text)
        if 1 <= n <= len(game.seats):
            return game.seats[n - 1]
        raise ReplError(f"there is no seat {n}: the seats are numbered 1 to {len(game.seats)}")
    try:
        return game.seat(text)
    except MoveError as err:                # the REPL's word, not a move's
        raise ReplError(err.message, suggestion=err.suggestion) from None


class Session:
    """One game of one ruleset, with the controls the REPL offers."""

    def __init__(self, path: str, overrides: Dict[str, str], seed: Optional[int] = None,
                 agents: Optional[str] = None, as_player: Optional[str] = None):
        from interpreter import load
        self.path = path
        self.overrides = dict(overrides)
        self.read_at = _modified(path)
        self.game = load(path, self.overrides)
        self.seed = seed if seed is not None else random.randrange(2 ** 31)
        self.agents = parse_agent_spec(agents, self.game)
        self.observer = seat_of(self.game, as_player) if as_player not in (None, "all") \
            else None
        self.chance_manual = False
        self.interrupted = False
        self.made = 0                   # steps the last `advance` made
        self.notes: List[str] = []      # what a change of rules did to `as` and agents
        self.redo_steps: List[Step] = []
        #: The automatic steps of the first game (chance, agents), for the REPL to show,
        #: and the rule error that stopped them, if one did.
        self.opening_error: Optional[GdlError] = None
        self.state = None
        try:
            self.opening = self.restart()
        except Halted as halted:
            self.opening, self.opening_error = halted.shown, halted.error
        except GdlError as err:         # the first automatic step failed: the session
            if self.state is None:      # opens before it, with it; a setup that failed
                raise                   # before the first step leaves no game to open
            self.opening, self.opening_error = [], err

    # ------------------------------------------------------------------ reading the state
    def steps(self) -> List[Step]:
        """Returns the game so far as trace steps (pending simultaneous commits last)."""
        return self.state.trace()["steps"]

    def step_count(self) -> int:
        """The steps made, pending commits too (counted, not listed: the prompt asks)."""
        s = self.state
        return len(s.history) + (len(s.node[3]) if s.is_simultaneous() else 0)

    def current_seat(self):
        """Returns the seat whose move the user enters now: the first seat to move that no
        agent plays (else the first seat to move), or None at chance and at the end."""
        movers = self.state.to_move()
        humans = [p for p in movers if p.index not in self.agents]
        return (humans or movers or [None])[0]

    def idle(self, state=None) -> bool:
        """Returns whether the game waits for the user (nothing automatic is due)."""
        s = self.state if state is None else state
        if s.is_terminal():
            return True
        if s.is_chance():
            return self.chance_manual
        return all(p.index not in self.agents for p in s.to_move())

    def legal_moves(self, seat=None):
        seat = seat or self.current_seat()
        if seat is None:
            return []
        return self.state.legal_moves(seat)

    # ------------------------------------------------------------------ making steps
    def _step(self, s, step: Step, show: bool = True, copy: bool = True):
        """Returns (the state after one step applied to a copy of `s`, the history entries
        it completed as the viewer sees them); `s` itself never changes.  Without `copy`,
        the step is applied to `s` itself (a replay's own state, made again if a step
        fails: a copy a step costs as much as the history is long)."""
        before = len(s.history)
        if copy:
            s = s.clone()
        if "chance" in step:
            if not s.is_chance():
                raise MoveError("the recorded step is a chance event, but " + (
                    "the game is over" if s.is_terminal() else "a player is to move"))
            data = step["data"]
            s.apply_chance(s.outcome_from_data(step["kind"], tuple(data)
                                               if isinstance(data, list) else data))
        else:
            seat = s.game.seat(step["player"])
            if s.is_terminal():
                raise MoveError("the game is over")
            if s.is_chance():
                raise MoveError("chance acts here: draw or pick an outcome first")
            if seat not in s.to_move():
                raise MoveError(f"{seat.name} is not to move now (to move: "
                                f"{', '.join(p.name for p in s.to_move())})")
            s.apply(s.parse_move(step["move"], seat), seat)
        return s, (self._shown(s, before) if show else [])

    def _shown(self, s, before: int) -> List[Shown]:
        seen = None
        if self.observer is not None and len(s.history) > before:
            from interpreter.observe import observation_tail
            seen = observation_tail(s, self.observer, len(s.history) - before)
        out = []
        for i in range(before, len(s.history)):
            who, text, _ = s.history[i]
            name = "chance" if who < 0 else s.game.seats[who].name
            line = seen[i - before] if seen is not None else None
            if line is not None:
                text = line[len(name) + 2:] if line.startswith(name + ": ") else line
            out.append(Shown(i + 1, name, text))
        return out

    def _apply(self, step: Step) -> List[Shown]:
        """Makes a step; the undone steps waiting in `redo` stay only while they go on
        from the new state: the step that is the first of them takes it off, any other
        step (a new move, an agent's or chance's new draw) drops them all.  The step is
        made on the state itself (a copy a step cost as much as the history is long); one
        that fails or is interrupted after changing it has the state made again from the
        steps before."""
        s = self.state
        before, node = len(s.history), s.node
        pending = list(node[3].items()) if s.is_simultaneous() else []
        try:
            _, shown = self._step(s, step, copy=False)
        except BaseException:           # a rule error, Ctrl-C, running out of memory...
            if len(s.history) != before or s.node is not node or s.node is None or (
                    s.is_simultaneous() and len(s.node[3]) != len(pending)):
                from interpreter.serial import trace_of
                self.state, _ = self._replay(self.game, trace_of(s, before, pending)["steps"])
            raise
        redo = self.redo_steps
        if redo:
            if redo[0] == step:
                redo.pop(0)
            else:
                self.redo_steps = []
        return shown

    def play(self, text: str, seat=None) -> List[Shown]:
        """Makes a move given by its text, or by its number in `legal_moves`; returns the
        steps made, then the automatic steps that follow (agents, chance)."""
        seat = seat or self.current_seat()
        if seat is None or self.state.is_terminal() or self.state.is_chance():
            raise MoveError("the game is over" if self.state.is_terminal() else
                            "chance acts now: `chance draw`, or `chance` to pick an outcome")
        if seat not in self.state.to_move():
            raise MoveError(f"{seat.name} is not to move now (to move: "
                            f"{', '.join(p.name for p in self.state.to_move())})")
        text = " ".join(text.split())
        if natural(text):
            moves = self.state.legal_moves(seat)
            n = int(text)
            if not 1 <= n <= len(moves):
                raise MoveError(f"there is no move {n}: {seat.name} has {len(moves)} moves "
                                f"(`moves` lists them)")
            text = moves[n - 1].text
        shown = self._apply({"player": seat.name, "move": text})
        self.redo_steps = []                    # a move made afresh: the agents act anew
        return self._then_advance(shown)

    def _then_advance(self, shown: List[Shown]) -> List[Shown]:
        """`shown` (steps just made), then what `advance` makes; if that fails, Halted
        with every step made."""
        try:
            return shown + self.advance()
        except Halted as halted:
            raise Halted(shown + halted.shown, halted.error) from None
        except GdlError as err:
            raise Halted(shown, err) from None

    def chance_outcomes(self):
        """Returns [(outcome, probability)], or None when there are too many to list."""
        if not self.state.is_chance():
            raise MoveError("no chance event is pending")
        return self.state.chance_outcomes()

    def pick_chance(self, number: Optional[int] = None, rng=None) -> List[Shown]:
        """Applies outcome `number` (from 1) of the pending chance event, or draws one."""
        s = self.state
        if not s.is_chance():
            raise MoveError("no chance event is pending")
        if number is None:
            outcome = s.sample_chance(rng or self.rng)
        else:
            outcomes = s.chance_outcomes()
            if outcomes is None:
                raise MoveError("this chance event has too many outcomes to list or pick; "
                                "`chance draw` draws one")
            if not 1 <= number <= len(outcomes):
                raise MoveError(f"there is no outcome {number}: there are {len(outcomes)}")
            outcome = outcomes[number - 1][0]
        shown = self._apply(_chance_step(outcome))
        self.redo_steps = []
        return self._then_advance(shown)

    def advance(self, limit: Optional[int] = None, everyone: bool = False) -> List[Shown]:
        """Lets chance (unless manual) and the agents act until the user must; with
        `everyone`, every seat without an agent plays at random and chance is always
        drawn.  Stops after `limit` steps (a commit at a simultaneous decision is one,
        shown only when the last seat's resolves it); `made` counts them.  A step that
        fails raises Halted with the steps made before it (or its error, if none)."""
        shown: List[Shown] = []
        self.interrupted = False
        self.made = 0
        try:
            with self._ctrl_c_noted():
                while not self.state.is_terminal() and self.made < (limit or MAX_AUTO_STEPS):
                    step = self._auto_step(everyone)
                    if step is None:
                        break
                    self.made += 1
                    shown += step
                    if self.interrupted:
                        break
        except KeyboardInterrupt:               # a second Ctrl-C: keep the steps made so far
            self.interrupted = True
        except GdlError as err:
            if self.made:
                raise Halted(shown, err) from None
            raise
        return shown

    @contextmanager
    def _ctrl_c_noted(self):
        """While it lasts, a first Ctrl-C only sets `interrupted`, so a run stops between
        two steps; a second raises KeyboardInterrupt as usual.  Raised at once, the first
        could land in a finalizer, which Python reports and swallows, and the run would go
        on.  Where Ctrl-C does not raise (ignored, or not the main thread) nothing changes."""
        if (threading.current_thread() is not threading.main_thread()
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
            yield
            return

        def note(signum, frame):
            if self.interrupted:
                raise KeyboardInterrupt
            self.interrupted = True

        signal.signal(signal.SIGINT, note)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _auto_step(self, everyone: bool) -> Optional[List[Shown]]:
        """Makes one automatic step; returns what it showed, or None if none is due."""
        from interpreter.agents import AGENTS
        s = self.state
        if s.is_chance():
            if self.chance_manual and not everyone:
                return None
            return self._apply(_chance_step(s.sample_chance(self.rng)))
        movers = [p for p in s.to_move() if everyone or p.index in self.agents]
        if not movers:
            return None
        seat = movers[0]
        move = AGENTS[self.agents.get(seat.index, "random")](s, seat, self.rng)
        return self._apply({"player": seat.name, "move": move.text})

    def auto(self, limit: Optional[int] = None) -> List[Shown]:
        """Plays `limit` steps (default: to the end) with the agents, random where unset
        (the undone steps in `redo` stay if the first step fails).  Then the game goes on
        as after a move (chance drawn unless manual, seats with agents played), so that
        the prompt is left neither at a chance event the user was told is drawn for them
        nor at an agent's seat, whose moves are not the user's to see or make."""
        shown = self.advance(limit, everyone=True)
        made, interrupted = self.made, self.interrupted
        # to the agents' last step before a turn of yours (none where all seats have agents,
        # or where the run went to the end or to its cap)
        yours = limit is not None and len(self.agents) < self.game.num_players
        if not interrupted and (yours or not self.chance_manual and self.state.is_chance()):
            try:
                shown += self.advance()
            except Halted as halted:
                raise Halted(shown + halted.shown, halted.error) from None
            except GdlError as err:
                raise Halted(shown, err) from None
            made += self.made
        self.made, self.interrupted = made, interrupted or self.interrupted
        return shown

    # ------------------------------------------------------------------ going back
    def _replay(self, game, steps: List[Step], seed=None, unrecorded: bool = False):
        """Returns (state, stopped) after applying `steps` to a new state of `game`;
        `stopped` says which step could not be applied and why (None when all were).
        With `unrecorded` (a trace of the first format), the chance events of one outcome
        it does not record are taken where its steps leave them."""
        from interpreter.serial import take_unrecorded

        def play(s, step):
            if unrecorded:
                take_unrecorded(s)
            self._step(s, step, show=False, copy=False)
        s = game.new_state(self.seed if seed is None else seed, observe=True)
        for i, step in enumerate(steps):
            try:
                play(s, step)
            except GdlError as err:
                # the failed step may have changed `s` half way: the steps before it again
                s = game.new_state(self.seed if seed is None else seed, observe=True)
                for done in steps[:i]:
                    play(s, done)
                return s, Stopped(i + 1, step, why_not(s, step, err))
        if unrecorded:                  # (a run of them without end: a TraceError)
            take_unrecorded(s)
        return s, None

    def _go(self, steps: List[Step], redo: List[Step]) -> Optional[Stopped]:
        state, stopped = self._replay(self.game, steps)
        self.state = state
        self.redo_steps = (steps[stopped.number - 1:] if stopped else []) + redo
        return stopped

    def undo(self, n: int = 1) -> int:
        """Goes back `n` steps, then on past the steps chance and the agents took, to where
        the user last had to act; returns how many steps were taken back."""
        steps = self.steps()
        if n < 1:
            raise ReplError("undo takes a positive number of steps")
        if not steps:
            raise ReplError("nothing to undo: no step was made")
        target = max(len(steps) - n, 0)     # reaching before the first decision: to it
        idle = self._idle_points(steps[:-1])
        while target > 0 and not idle[target]:
            target -= 1
        if target == 0 and not idle[0]:     # back past the first decision: to it
            target = next((k for k in range(1, len(steps)) if idle[k]), 0)
            if target == 0 and not self.agents.keys() >= {p.index for p in self.game.seats}:
                raise ReplError("nothing to undo before the first decision (chance and "
                                "agents made every step so far); `back-to 0` goes to the "
                                "very start")
            if target == 0:                 # every seat an agent's now: no step is yours
                raise ReplError("every seat is played by an agent now (`agents`), so no "
                                "step waits for you to undo to; `back-to STEP` goes to any "
                                "step, `agents SEAT=you` takes a seat back")
        self._go(steps[:target], steps[target:] + self.redo_steps)
        return len(steps) - target

    def _idle_points(self, steps: List[Step]) -> List[bool]:
        """Returns, for k = 0..len(steps), whether the user acts after the first k steps."""
        s = self.game.new_state(self.seed)
        out = [self.idle(s)]
        for step in steps:
            self._step(s, step, show=False, copy=False)
            out.append(self.idle(s))
        return out

    def redo(self, n: int = 1) -> List[Shown]:
        """Replays `n` undone steps (with the automatic steps after each)."""
        if not self.redo_steps:
            raise ReplError("nothing to redo")
        shown: List[Shown] = []
        try:
            for _ in range(n):
                if not self.redo_steps:
                    break
                shown += self._redo_one()
                while self.redo_steps and not self.idle():
                    shown += self._redo_one()
        except ReplError as err:
            if shown:
                raise Halted(shown, err) from None
            raise
        return shown

    def _redo_one(self) -> List[Shown]:
        step = self.redo_steps[0]
        try:
            return self._apply(step)            # which takes it off the queue
        except GdlError as err:
            why = Stopped(self.step_count() + 1, step, why_not(self.state, step, err))
            raise ReplError(why.describe(self.step_count() + len(self.redo_steps),
                                         self.observer)) from None

    def back_to(self, k: int) -> Optional[Stopped]:
        """Goes to the state after the first `k` steps (forward into undone steps too)."""
        everything = self.steps() + self.redo_steps
        if not 0 <= k <= len(everything):
            raise ReplError(f"there is no step {k}: steps run from 0 to {len(everything)}")
        return self._go(everything[:k], everything[k:])

    # ------------------------------------------------------------------ new rules, new games
    def restart(self, seed: Optional[int] = None) -> List[Shown]:
        """Starts a new game (same seed unless one is given); returns the automatic steps."""
        if seed is not None:
            self.seed = seed
        self.rng = random.Random(self.seed)
        self.state = self.game.new_state(self.seed, observe=True)
        self.redo_steps = []
        return self.advance()

    def set_options(self, changes: Dict[str, str]) -> List[Shown]:
        """Restarts with changed options on the rules as last read (`reload` is what
        re-reads the file); `NAME` set to nothing goes back to the file's default.  Keeps
        the old game if the options are wrong."""
        from interpreter.game import Game
        from interpreter.options import option_decls, resolve_overrides
        ruleset = self.game.ruleset
        overrides = dict(self.overrides)
        try:
            for name, value in changes.items():
                if name not in option_decls(ruleset):
                    resolve_overrides(ruleset, {name: value})   # says there is no such
                if value == "":
                    overrides.pop(name, None)
                else:
                    overrides[name] = value
            game = Game(ruleset, overrides)
            game.new_state(self.seed)           # the setup: a rule error keeps the old game
        except OptionError as err:
            changed = self.file_changed()
            if changed:
                raise OptionError(f"{err.message}: these are the rules as last read, "
                                  f"and {changed} has changed since (`reload` reads it)"
                                  ) from None
            raise
        self.overrides = overrides
        self._take(game)
        return self.restart()

    def _take(self, game) -> None:
        """Plays on with `game`: the `as` seat and the agents follow the seats by name and
        number; one the new rules do not have is let go, with a note in `notes`."""
        self.game = game
        if self.observer is not None:
            seat = next((p for p in game.seats if p.name == self.observer.name), None)
            if seat is None:
                self.notes.append(f"the rules have no seat {self.observer.name} now: "
                                  f"viewing as all")
            self.observer = seat
        gone = sorted(i for i in self.agents if i >= len(game.seats))
        if gone:
            which = ", ".join(str(i + 1) for i in gone)
            self.notes.append(f"the rules have {len(game.seats)} seats now: " + (
                f"the agent of seat {which} is let go" if len(gone) == 1 else
                f"the agents of seats {which} are let go"))
            self.agents = {i: a for i, a in self.agents.items() if i < len(game.seats)}

    def take_notes(self) -> List[str]:
        """Returns the notes of the last change of rules, and forgets them."""
        notes, self.notes = self.notes, []
        return notes

    def file_changed(self) -> Optional[str]:
        """Returns which file of the rules (the ruleset, or a base of it if it is a
        variant) changed since they were read, or None."""
        now = _modified(self.path)
        if now == self.read_at:
            return None
        from .variants import variant_files
        files = variant_files(self.path)
        return next((str(f) for f, a, b in zip(files, now, self.read_at) if a != b),
                    self.path)              # (a base named anew: the variant changed)

    def reload(self) -> Replayed:
        """Re-reads the ruleset and replays the game so far on it, dropping the option
        overrides it no longer takes (an option renamed or narrowed in the file).
        Raises GdlError, keeping the old rules, if the file fails."""
        from interpreter.game import Game, load_ruleset
        read_at = _modified(self.path)
        ruleset = load_ruleset(self.path)
        overrides, dropped = _taken(ruleset, self.overrides)
        game = Game(ruleset, overrides)
        steps = self.steps()
        state, stopped = self._replay(game, steps)
        self.state, self.overrides, self.read_at = state, overrides, read_at
        self._take(game)
        self.redo_steps = (steps[stopped.number - 1:] if stopped else []) + self.redo_steps
        return Replayed(stopped.number - 1 if stopped else len(steps), len(steps), stopped,
                        tuple(dropped))

    def save(self, path: str) -> int:
        """Writes the game so far as a JSON trace; returns the number of steps."""
        trace = self.state.trace()
        trace["seed"] = self.seed
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(trace) + "\n")
        except OSError as err:
            raise TraceError(f"cannot write {path}: {err.strerror}") from None
        return len(trace["steps"])

    def load_trace(self, path: str, extra: Optional[Dict[str, str]] = None,
                   seed: Optional[int] = None) -> Replayed:
        """Opens a trace (its options, `extra` options over them, and its seed, or `seed`)
        on this session's rules as last read, and replays it.  A trace of another ruleset
        file whose first step does not apply is refused, the session left as it was."""
        from interpreter import read_trace
        from interpreter.game import Game
        trace = read_trace(path)
        overrides, dropped = trace_overrides(self.game.ruleset, trace, extra)
        game = Game(self.game.ruleset, overrides)
        seed = trace.get("seed") if seed is None else seed
        steps = list(trace.get("steps") or [])
        from interpreter.serial import TRACE_FORMAT_1
        first_format = trace.get("format") == TRACE_FORMAT_1
        state, stopped = self._replay(game, steps, seed=seed, unrecorded=first_format)
        other = trace.get("game")
        if isinstance(other, str) and _same_file(other, self.path) and not first_format:
            for i, (step, (_, text, _)) in enumerate(zip(steps, state.history), 1):
                if "chance" in step and step["chance"] != text:     # as `replay` says it
                    raise TraceError(f"step {i} of the trace says `{step['chance']}`, but "
                                     f"its data gives `{text}`: the two must agree (was "
                                     f"one of them edited?); nothing was loaded")
        if stopped and stopped.number == 1 and isinstance(other, str) and \
                not _same_file(other, self.path):
            shown = step_text(stopped.step, self.observer, SHORT_CHANCE)
            raise TraceError(f"{path} is a trace of {other}, not of {self.path}, and its "
                             f"first step does not apply here ({shown}: {stopped.reason}): "
                             f"nothing was loaded")
        self.state, self.overrides = state, overrides
        self._take(game)
        self.seed = seed if seed is not None else self.seed
        self.rng = random.Random(self.seed)
        self.redo_steps = steps[stopped.number - 1:] if stopped else []
        return Replayed(stopped.number - 1 if stopped else len(steps), len(steps), stopped,
                        tuple(dropped))


def why_not(s, step: Step, err: GdlError) -> str:
    """Returns why a recorded step cannot be applied in `s`: the failing rule and its line
    (`why_illegal`) for a move that is no longer legal, else the error's message, with
    the place and the rule of a rule error (a legal move whose rules fail)."""
    said = err.message
    if isinstance(err, RuleError) and err.span is not None:
        said = f"{err.span}: {said}" + (
            f" (in {err.rule})" if err.rule else "")
    if "chance" in step or s.is_terminal() or s.is_chance():
        return said
    try:
        seat = s.game.seat(step["player"])
    except GdlError:
        return said
    if seat not in s.to_move():
        return said
    return s.why_illegal(step["move"], seat) or said


def trace_overrides(ruleset, trace: dict, extra: Optional[Dict[str, str]] = None):
    """Returns (the options a trace opens with on `ruleset`, [(name, value, why)] for
    those it records that the file no longer takes, dropped as `reload` drops them: an
    option renamed or narrowed since), `extra` (given by the user) over them."""
    extra = extra or {}
    recorded = {k: _option_text(v) for k, v in (trace.get("options") or {}).items()
                if k not in extra}
    kept, dropped = _taken(ruleset, recorded, extra)
    return {**kept, **extra}, dropped


def _taken(ruleset, overrides: Dict[str, str], given: Optional[Dict[str, str]] = None):
    """Returns (the overrides the ruleset takes, [(name, value, why)] for the others),
    with the options `given` beside them: all at once where they go together (one
    option's bounds may name another), else one by one in order."""
    from interpreter.options import option_decls, resolve_overrides
    decls = option_decls(ruleset)
    given = given or {}
    try:
        resolve_overrides(ruleset, {**overrides, **given})
        return dict(overrides), []
    except OptionError:
        pass
    try:                                # a value given wrong is told where it is used
        resolve_overrides(ruleset, given)
    except OptionError:
        given = {}
    kept: Dict[str, str] = {}
    dropped = []
    for name, value in overrides.items():
        if name not in decls:
            dropped.append((name, value, "the file has no such option now"))
            continue
        try:
            resolve_overrides(ruleset, {**kept, name: value, **given})
        except OptionError as err:
            dropped.append((name, value, err.message))
            continue
        kept[name] = value
    return kept, dropped


def _modified(path: str):
    """The modification times of the file and of its bases if it is a variant (None for
    one that cannot be read): whether the rules changed."""
    from .variants import variant_files
    times = []
    for file in variant_files(path):
        try:
            times.append(os.stat(file).st_mtime_ns)
        except OSError:
            times.append(None)
    return tuple(times)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:                     # one of them is gone: compare the names
        return os.path.basename(a) == os.path.basename(b)


def _chance_step(outcome) -> Step:
    data = outcome.data
    return {"chance": outcome.text, "kind": outcome.kind,
            "data": list(data) if isinstance(data, tuple) else data}


def _option_text(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, str)):
        return str(value)
    return json.dumps(value)          # a trace edited by hand: 3.0, a list
