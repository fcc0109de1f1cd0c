"""Playthroughs for `gdl fuzz`: random and coverage-guided play that watches for holes.

An `Explorer` plays one game (one set of option values) again and again until its time is
up.  Each playthrough starts from the setup or, half the time once there are some, from a
state where an earlier playthrough first ran a statement nobody had run before (the
coverage-guided part), and picks every chance outcome with its probability and every move
uniformly.  After each step it checks, in this order: a seat that must move but cannot
(deadlock), an error the rules raise, the ruleset's invariants, now and then the built-in
laws of `gdl.laws`, and whether the state has been seen before in this playthrough
(endless play).  A playthrough stops at the first finding, but for a state that comes
back: it plays on to its end, unwatched, for at most `PLAY_ON` more steps.
"""
from __future__ import annotations

import gc
import hashlib
import random
import time
from contextlib import contextmanager
from operator import itemgetter, sub
from typing import Dict, List, Optional

from gdl.errors import GdlError

from ._fuzz_common import (DEADLOCK, ENDLESS, INTERNAL, INVARIANT, apply_step, chance_step,
                           classify, error_place, error_text, internal_where, move_step,
                           option_texts, raw_finding, rule_ref, step_text)
from ._keys import header

#: Laws of `gdl.laws` checked now and then during play (the ruleset's invariants are
#: checked after every step anyway; `replay` is checked at the end of some playthroughs).
LIGHT_LAWS = ("moves", "chance", "returns", "views", "twins", "clone", "json")
#: How many new coverage start points a playthrough may pick from (the most recent).
CORPUS_LIMIT = 200
#: A counter is a whole-number variable that goes up by one at least this often in a
#: playthrough and never goes down.
COUNTER_STEPS = 3
#: Steps of a repeating part shown in a finding.
SHOWN_STEPS = 40
#: Steps a playthrough plays on after a state came back (to reach what only an end runs,
#: in a game whose random play nearly always loops; one that never ends pays this much).
PLAY_ON = 1000
#: `Explorer.decision`'s answers, how `step` makes the step: chance draws; one seat
#: decides (its move drawn without listing them); a seat commits at a simultaneous
#: decision (drawn likewise; the other seats were checked to have a move).
_CHANCE, _DRAWN, _DRAWN_COMMIT = ("chance",), ("drawn",), ("drawn commit",)


class _FirstMove:
    """A stand-in random source whose every draw is 0: `State.random_move` with it
    finds a seat's first legal move (or raises the deadlock its listing would) without
    making the list, and without drawing from the explorer's source."""

    @staticmethod
    def randrange(n):
        return 0

    @staticmethod
    def getrandbits(k):
        return 0


_FIRST_MOVE = _FirstMove()

#: New objects between two collections of the youngest generation during play.
YOUNG_THRESHOLD = 10_000


@contextmanager
def _young_collections_rarer():
    """Collects the youngest generation after `YOUNG_THRESHOLD` new objects, not
    Python's 700, while playthroughs run: a step's keys, snapshots and copies are
    short-lived, and most are gone by the time a collection comes (a game whose
    snapshots hold hundreds of history lines fuzzes a seventh faster)."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], YOUNG_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _law_problems():
    """Returns gdl.laws.law_problems (imported when a fuzzer first needs it)."""
    from gdl.laws import law_problems
    return law_problems


class Explorer:
    """Random and coverage-guided playthroughs of one game, collecting findings."""

    def __init__(self, game, decls, seed: int, max_steps: int, law_every: int = 64):
        self.game, self.decls = game, decls
        self.rng = random.Random(seed)
        self.seed = seed
        self.max_steps = max_steps
        self.law_every = law_every
        self.laws = _law_problems() if law_every else None
        #: only a few playthroughs are to come (a walk saw every state): each checks the
        #: laws, where one in four does in a long run
        self.few = False
        self.options = option_texts(game.overrides)
        self.cov = game.coverage
        self.zero = {k for k, v in self.cov.items() if not v} if self.cov is not None else set()
        self.corpus: List[tuple] = []            # (state, steps) where coverage grew
        self.new_corpus: List[list] = []         # their steps, for other workers
        self.findings: Dict[tuple, dict] = {}
        self.playthroughs = self.steps = 0
        self.ended = 0
        self.shortest = False                   # set while a breadth-first walk runs
        self.head = header(game.prog)
        self.lazy = self.replays = 0            # playthroughs keyed by heads, and replayed
        self.checked: tuple = (None, None)      # (state, its node): its seats checked
        self.broken: set = set()
        self.int_slots = int_slots(game)

    # ------------------------------------------------------------------ driving
    def run(self, deadline: float, starts=(), max_playthroughs: Optional[int] = None):
        """Plays until `deadline` (time.monotonic) or `max_playthroughs`; `starts` are
        step lists (from other workers) to resume from."""
        with _young_collections_rarer():
            for steps in starts:
                state = self.replay(steps)
                if state is not None:
                    self.corpus.append((state, list(steps)))
            while time.monotonic() < deadline:
                if max_playthroughs is not None and self.playthroughs >= max_playthroughs:
                    break
                if self.corpus and self.rng.random() < 0.5:
                    state, steps = self.corpus[self.rng.randrange(len(self.corpus))]
                    self.playthrough(state.clone(), steps, deadline)
                else:
                    self.playthrough(self.game.new_state(self.seed), [], deadline)

    def replay(self, steps):
        state = self.game.new_state(self.seed)
        try:
            for step in steps:
                apply_step(state, step)
        except Exception:   # noqa: BLE001 - a start point from another worker that no longer fits
            return None
        return state

    def playthrough(self, state, steps: list, deadline: float = float("inf"),
                    fingerprint=None, limit: Optional[int] = None):
        """Plays one game on from `state` (reached by `steps`) to its end or a finding;
        `limit` stops it quietly after that many steps.  A state that comes back is a
        finding that leaves the game playable: the playthrough goes on to its end,
        unwatched, for at most `PLAY_ON` more steps, so that what only an end runs is not
        called dead in a game whose random playthroughs nearly all go round a loop."""
        self.playthroughs += 1
        self.broken = set()         # the invariants this playthrough has broken, told once
        laws_due = self.laws is not None and (self.playthroughs % 4 == 1 or self.few)
        steps = list(steps)
        base = len(steps)
        # a game whose heads come back in many of its first playthroughs: whole keys
        # from the start (replaying costs more than making them)
        watch = _Watch(self.head, state, steps,
                       whole=self.lazy >= 16 and self.replays * 8 > self.lazy)
        self.lazy += not watch.whole
        looped, bound = False, limit
        try:
            while not self.over(state, steps, deadline, looped):
                if bound is not None and len(steps) >= bound:
                    return
                due = laws_due and (len(steps) - base < 6 or len(steps) % self.law_every == 0)
                if not self.advance(state, steps, due, fingerprint):
                    break
                earlier = None if looped else watch.see(state)
                if earlier is not None and self.cycle(steps, earlier, len(steps), state):
                    looped = True
                    on = len(steps) + PLAY_ON
                    bound = on if bound is None else min(bound, on)
            if not looped and time.monotonic() <= deadline:  # a replay may take as long
                self.counter_cycle(watch, steps, base)
        finally:
            self.replays += watch.replayed

    def over(self, state, steps, deadline, looped: bool = False) -> bool:
        """Returns whether the playthrough stops here: the end (its laws checked now and
        then), the step bound (endless play, unless a loop found on the way said so) or
        the deadline."""
        if state.is_terminal():
            self.ended += 1
            self.end_laws(state, steps)
            return True
        if len(steps) >= self.max_steps:
            if not looped:
                self.no_end(steps)
            return True
        # every step: a step of rules that loop long takes most of a second
        return time.monotonic() > deadline

    def advance(self, state, steps, laws: bool, fingerprint) -> bool:
        """Makes one random step and checks it; returns False after a finding."""
        how = self.decision(state, steps, laws)
        if how is None:
            return False
        if laws and not self.check_laws(state, steps, LIGHT_LAWS):
            return False
        if not self.step(state, steps, how):
            return False
        self.steps += 1
        if fingerprint is not None:
            fingerprint(state, steps[-1])
        return self.after_step(state, steps, go_on=True)

    def decision(self, state, steps, laws: bool) -> Optional[tuple]:
        """Returns how `step` makes the step here (`_CHANCE`, `_DRAWN` where one seat
        decides, `_DRAWN_COMMIT` at a simultaneous decision), or None after recording
        the deadlock or error that finding a seat's move raised.  `laws`: the laws are
        checked before the step."""
        if state.is_chance():
            return _CHANCE
        if not state.is_simultaneous():
            return _DRAWN
        # a simultaneous decision is one node until every seat has committed, and a
        # commit changes no seat's moves: at its first commit here, every seat after
        # the committing one is checked to have a move (its first legal one found
        # without the list), so that a seat without one is found before anyone
        # commits, and the committing seat too where the laws come before its draw
        checked = self.checked
        if checked[0] is not state or checked[1] is not state.node:
            self.checked = (state, state.node)
            seats = state.to_move()
            for seat in (seats if laws else seats[1:]):
                try:
                    state.random_move(_FIRST_MOVE, seat)
                except Exception as err:  # noqa: BLE001 - a deadlock, or another rule error
                    # the first seat's own error comes first, if it has one, as listing
                    # the seats in order found it
                    try:
                        state.random_move(_FIRST_MOVE, seats[0])
                    except Exception as first:  # noqa: BLE001 - the same kinds
                        err = first
                    self.error(err, steps, at_state=True, state=state)
                    return None
        return _DRAWN_COMMIT

    def decision_moves(self, state, seat, steps) -> Optional[list]:
        """Returns a seat's legal moves, or None after recording why there are none."""
        try:
            return state.legal_moves(seat)
        except Exception as err:  # noqa: BLE001 - a deadlock, or another rule error
            self.error(err, steps, at_state=True, state=state)
            return None

    def step(self, state, steps, how) -> bool:
        """Makes one random step (`how`: `decision`'s answer); returns False after
        recording the error it raised."""
        if how is _DRAWN:
            return self.drawn_step(state, state.to_move()[0], steps)
        if how is _DRAWN_COMMIT:
            return self.drawn_commit(state, state.to_move()[0], steps)
        try:
            outcome = state.sample_chance(self.rng)
            steps.append(chance_step(outcome))
            state.apply_chance(outcome)
        except Exception as err:  # noqa: BLE001 - the rules failed on this step
            self.error(err, steps)
            return False
        return True

    def drawn_step(self, state, seat, steps) -> bool:
        """Makes the lone deciding seat's random move with `State.random_step`: the move
        its list holds at `rng.randrange` of its length, drawn the same way without
        making the list, and entered as `apply` enters it (its text is the history's
        new line).  Returns False after recording the error it raised: a deadlock or
        another error of listing the moves where no move was made, else the rules'."""
        made = len(state.history)
        try:
            state.random_step(self.rng)
        except Exception as err:  # noqa: BLE001 - a deadlock, or the rules failed
            if len(state.history) == made:
                self.error(err, steps, at_state=True, state=state)
            else:
                steps.append({"player": seat.name, "move": state.history[made][1]})
                self.error(err, steps)
            return False
        steps.append({"player": seat.name, "move": state.history[made][1]})
        return True

    def drawn_commit(self, state, seat, steps) -> bool:
        """Commits a seat's move at a simultaneous decision, drawn with
        `State.random_move`: the move its list holds at `rng.randrange` of its length,
        without the list.  Returns False after recording the error it raised: a
        deadlock or another error of listing the moves as `decision` records them, else
        the rules'."""
        try:
            move = state.random_move(self.rng, seat)
        except Exception as err:  # noqa: BLE001 - a deadlock, or another rule error
            self.error(err, steps, at_state=True, state=state)
            return False
        steps.append(move_step(seat, move))
        try:
            state.apply_listed(move, seat)
        except Exception as err:  # noqa: BLE001 - the rules failed on this step
            self.error(err, steps)
            return False
        return True

    def after_step(self, state, steps, go_on: bool = False) -> bool:
        """Checks coverage and the invariants after a step; False after a finding, but
        with `go_on` (a playthrough) a broken invariant leaves the game playable: it is
        told once, and play goes on, so that what only comes after it is not called
        dead."""
        if self.zero:
            cov = self.cov
            if any(map(cov.__getitem__, self.zero)):    # in C: most steps cover nothing new
                new = [k for k in self.zero if cov[k]]
                self.zero.difference_update(new)
                self.corpus.append((state.clone(), list(steps)))
                self.new_corpus.append(list(steps))
                del self.corpus[:-CORPUS_LIMIT]
        try:
            failed = state.failed_invariants()
        except Exception as err:  # noqa: BLE001 - an invariant that cannot be evaluated
            self.error(err, steps, at_state=True, state=state)
            return False
        for name in failed:
            if go_on and name in self.broken:
                continue
            self.add(raw_finding(
                INVARIANT, f"the ruleset's invariant {name!r} does not hold", self.options,
                rules=[rule_ref(self.decls, name)], steps=steps, subkind="invariant",
                sig=(name,), probe={"type": "invariant", "name": name}))
            if go_on:
                self.broken.add(name)
        return go_on or not failed

    # ------------------------------------------------------------------ findings
    def add(self, finding: dict):
        """Keeps a finding, or the shorter of two with the same signature."""
        if self.shortest:
            finding["shrunk"] = True
        old = self.findings.get(finding["sig"])
        if old is None or _length(finding) < _length(old):
            self.findings[finding["sig"]] = finding

    def error(self, err, steps, at_state: bool = False, state=None):
        kind = classify(err)
        rule, file, line = error_place(err)
        rules = [rule_ref(self.decls, rule, line, file)] if rule or line else []
        detail = []
        if kind == DEADLOCK and "(" in err.message:
            actions = err.message.rsplit("(", 1)[1].rstrip(")").split(", ")
            rules += [rule_ref(self.decls, a) for a in actions if a in self.decls]
        words = err.message.split(" ", 2) if isinstance(err, GdlError) else []
        if len(words) > 1 and words[0] in ("table", "variable") and words[1] in self.decls:
            rules.append(rule_ref(self.decls, words[1]))
        if kind == INTERNAL:
            where = internal_where(err)
            action = steps[-1]["move"].split(" ", 1)[0] if steps and "move" in steps[-1] \
                else ""
            if action in self.decls:
                rules.append(rule_ref(self.decls, action))
            sig = (type(err).__name__, where)
            detail.append(f"a bug in gdl: {type(err).__name__} at {where}")
            probe = {"type": "error", "kind": kind, "exc": type(err).__name__,
                     "where": where}
        else:
            sig = (file, line)
            probe = {"type": "error", "kind": kind, "file": file, "line": line,
                     "at_state": at_state}
        if at_state and state is not None and not state.is_chance():
            detail.append("to move: " + ", ".join(s.name for s in state.to_move()))
            if kind == DEADLOCK:        # why each action has no move
                detail += [f"  {line}" for line in getattr(err, "notes", ())]
        self.add(raw_finding(kind, error_text(err), self.options, rules=rules, steps=steps,
                             detail=detail, sig=sig, probe=probe))

    def no_end(self, steps):
        sig = (ENDLESS, "bound")
        if any(f["sig"] == sig for f in self.findings.values()):
            return
        self.add(raw_finding(
            ENDLESS, f"no end within {self.max_steps} steps (--max-steps)", self.options,
            rules=self.loop_rules(steps[-64:]) or [rule_ref(self.decls, "flow")],
            steps=steps, subkind="bound",
            detail=["last steps: " + " ; ".join(step_text(s) for s in steps[-8:])]))

    def cycle(self, steps, i: int, j: int, state) -> bool:
        """Reports the loop of steps i..j, unless chance leaves it; returns whether it
        did."""
        part = steps[i:j]
        if all("chance" in s for s in part) and chance_escapes(state, random.Random(j)):
            return False                # chance goes round it with probability 0
        self.add(raw_finding(
            ENDLESS, f"the state after step {i} comes back after step {j}: play can go "
            f"round this loop of {j - i} steps for ever", self.options,
            rules=self.loop_rules(part), steps=steps, subkind="cycle",
            detail=_loop_lines(part, i), sig=(), probe={"type": "cycle"}))
        return True

    def counter_cycle(self, watch, steps, base: int):
        found = counter_repeat(watch.keys, self.int_slots, watch.whole_keys)
        if found is None:
            return
        i, j, slots = found
        names = sorted({self.game.prog.var_names[s] for s in slots})
        part = steps[base + i: base + j]
        shown = ", ".join(names)
        self.add(raw_finding(
            ENDLESS, f"the state after step {base + i} comes back after step {base + j} "
            f"except for {shown}, which only counts up: only a limit on {shown} ends this "
            f"line of play", self.options, rules=self.loop_rules(part),
            steps=steps[:base + j], subkind="counter", detail=_loop_lines(part, base + i),
            sig=tuple(names), probe={"type": "counter", "slots": list(slots)}))

    def loop_rules(self, part) -> list:
        """Returns the actions played in a loop, as the rules it involves."""
        names = []
        for s in part:
            if "move" in s:
                name = s["move"].split(" ", 1)[0]
                if name in self.decls and name not in names:
                    names.append(name)
        return [rule_ref(self.decls, n) for n in names]

    # ------------------------------------------------------------------ laws
    def check_laws(self, state, steps, laws) -> bool:
        try:
            problems = self.laws(state, laws, self.rng)
        except Exception as err:  # noqa: BLE001 - not the rules' error (the laws report
            self.law_crash(state, steps, laws, err)      # those): a bug in gdl
            return False
        # A rule error met in a step a law tries on a copy is the rules' problem, not the
        # law's: play meets that step itself and reports it with its own trace.
        problems = [p for p in problems if not p.split("] ", 1)[-1].startswith("RuleError:")]
        for problem in problems:
            law = problem[1:problem.index("]")] if problem.startswith("[") else "law"
            self.add(raw_finding(
                INVARIANT, f"the built-in law {law!r} fails: {problem.splitlines()[0]}",
                self.options, rules=self.actions_here(state), steps=steps, subkind="law",
                sig=(law,),
                detail=problem.splitlines()[1:8], probe={"type": "law", "law": law}))
        return not problems

    def actions_here(self, state) -> list:
        """The actions the deciding seats may play here, as rules: where a law fails
        before a step, what those actions read or do is what breaks it."""
        names = []
        try:
            if not state.is_terminal() and not state.is_chance():
                for seat in state.to_move():
                    for m in state.legal_moves(seat):
                        name = m.text.split(" ", 1)[0]
                        if name in self.decls and name not in names:
                            names.append(name)
        except GdlError:                    # a deadlock here: play reports it
            pass
        return [rule_ref(self.decls, n) for n in names]

    def law_crash(self, state, steps, laws, err):
        """Reports a crash met while checking laws as an internal error, naming the law
        (found by checking each again on a copy).  It was taken for a step's crash that
        play would meet itself, but a crash in what only a law does (a key, a snapshot,
        a replay) no playthrough meets."""
        law = next((law for law in laws if self._crashes(state.clone(), law)), "")
        where = internal_where(err)
        self.add(raw_finding(
            INTERNAL, error_text(err), self.options, steps=steps, sig=(type(err).__name__,
                                                                       where, law),
            detail=[f"a bug in gdl: {type(err).__name__} at {where}, while the built-in "
                    f"law {law or '?'!r} was checked"]))

    def _crashes(self, state, law) -> bool:
        try:
            self.laws(state, (law,), random.Random(0))
        except Exception:  # noqa: BLE001 - the crash sought
            return True
        return False

    def end_laws(self, state, steps):
        if self.laws is not None and self.ended % 4 == 1:
            self.check_laws(state, steps, LIGHT_LAWS + ("replay",))


#: the states a search for a way out of a loop of chance steps may visit
ESCAPE_STATES = 2000


def chance_escapes(state, rng, outcomes_each: int = 4) -> bool:
    """Whether chance alone can lead from `state`, a chance node on a loop of chance
    steps, to a decision or the end: then every state of the loop can, and the loop is
    gone round for ever with probability 0 (a misdeal dealt again), unlike a loop that
    chance cannot leave, or one a player can choose to go round.  A search of at most
    ESCAPE_STATES states; outcomes too many to list are sampled (`outcomes_each`), so a
    way out may be missed (the loop is then reported), never made up."""
    seen = {state.key()}
    queue = [state]
    while queue and len(seen) < ESCAPE_STATES:
        s = queue.pop()
        listed = s.chance_outcomes()
        outcomes = [o for o, _ in listed] if listed is not None else \
            [s.sample_chance(rng) for _ in range(outcomes_each)]
        for o in outcomes:
            child = s.clone()
            try:
                child.apply_chance(o)
            except Exception:  # noqa: BLE001 - an error is a way out of the loop too,
                return True    # and play reports it on its own
            if child.is_terminal() or not child.is_chance():
                return True
            key = child.key()
            if key not in seen:
                seen.add(key)
                queue.append(child)
    return False


class _Watch:
    """The endless-play watch of one playthrough: has a position come back?  A state is
    first known by its head (`interpreter/_keys.header`: its key less the locals and
    the cards), and in most games no head ever comes back; only once one does are whole
    keys made, those of the states before by playing the steps again from a copy of the
    start.  `whole` makes whole keys from the start."""

    def __init__(self, head, state, steps: list, whole: bool = False):
        self.head, self.steps, self.base = head, steps, len(steps)
        self.start = None if whole else state.clone()
        first = state.key() if whole else head(state)
        self.keys = [first]                     # of each state since the start
        self.seen = {first: self.base}          # key -> the step count it was first met at
        self.whole = whole
        self.replayed = False

    def see(self, state) -> Optional[int]:
        """Records the state the last step reached; returns the step count at which an
        equal state was met before, or None."""
        n = len(self.steps)
        key = state.key() if self.whole else self.head(state)
        earlier = self.seen.setdefault(key, n)
        if earlier != n and not self.whole:     # a head came back: now whole keys
            self.whole_keys()
            key = state.key()
            earlier = self.seen.setdefault(key, n)
        self.keys.append(key)
        return None if earlier == n else earlier

    def whole_keys(self) -> list:
        """Returns the whole key of each state so far (of each before the last one, if
        called from `see`), replaying the steps once if only heads were kept."""
        if not self.whole:
            state = self.start
            keys = [state.key()]
            for step in self.steps[self.base:self.base + len(self.keys) - 1]:
                apply_step(state, step)
                keys.append(state.key())
            self.keys, self.whole, self.start, self.replayed = keys, True, None, True
            self.seen = {key: self.base + i for i, key in enumerate(keys)}
        return self.keys


def int_slots(game) -> set:
    """Returns the variable slots of the game declared as whole numbers."""
    from gdl import ast as A
    names = {d.name for d in game.ruleset.decls if isinstance(d, A.VarDecl) and (
        isinstance(d.type, A.RangeType) or getattr(d.type, "name", None) == "int")}
    return {slot for slot, label in enumerate(game.prog.var_names)
            if label.split("[", 1)[0] in names}


_INT = {int}
_STILL_OR_UP = {0, 1}


def counter_repeat(keys, candidates, whole_keys=None):
    """Returns (i, j, slots): the first state key that comes back at j after i once the
    variables in `slots` are ignored, where those are whole-number variables (among
    `candidates`) that only ever go up by one along `keys` (counters); or None.  `keys`
    may be heads (`interpreter/_keys.py`), with `whole_keys()` giving the whole keys."""
    if len(keys) < 3:
        return None
    values = [k[3] for k in keys]
    first, last = values[0], values[-1]
    slots = []
    for slot in sorted(candidates):
        # most variables fail on the ends alone (not whole numbers there, or not up by
        # enough): only the others' columns are read
        a, b = first[slot], last[slot]
        if type(a) is not int or type(b) is not int or b - a < COUNTER_STEPS:
            continue
        column = [v[slot] for v in values]
        if set(map(type, column)) != _INT:
            continue
        # a counter: every change is +1, and there are enough of them (with no other
        # change, the number of +1 steps is the last value less the first)
        if set(map(sub, column[1:], column)) <= _STILL_OR_UP and \
                column[-1] - column[0] >= COUNTER_STEPS:
            slots.append(slot)
    if not slots:
        return None
    found = _first_repeat(keys, slots)
    if found is not None and whole_keys is not None:    # heads came back: whole keys tell
        found = _first_repeat(whole_keys(), slots)
    if found is None:
        return None
    i, t = found
    return i, t, [s for s in slots if values[i][s] != values[t][s]]


def _nothing(values) -> tuple:
    return ()


def _first_repeat(keys, slots):
    """Returns (i, t): the first key that comes back, at t after i, once the variables
    in `slots` are left out; or None.  A key is hashed whole (the zones, or a head's
    lengths) only once its own head (where the program is, and the variables less the
    counters) has come before, as few do; all earlier keys with the head of step t are
    in `seen` by then, so the answer is as if each whole key were kept."""
    others = [s for s in range(len(keys[0][3])) if s not in slots]
    kept = itemgetter(*others) if others else _nothing     # the variables less the counters
    heads: dict = {}
    seen = {}
    for t, k in enumerate(keys):
        head = (k[0], k[1], k[2], kept(k[3]))
        first = heads.setdefault(head, t)
        if first == t:
            continue
        if first >= 0:                          # the head's first step, kept now
            seen[head + keys[first][4:]] = first
            heads[head] = -1
        reduced = head + k[4:]
        if reduced in seen:
            return seen[reduced], t
        seen[reduced] = t
    return None


def _loop_lines(part, start: int) -> List[str]:
    lines = [f"repeating part (steps {start + 1}-{start + len(part)}):"]
    lines += [f"  {start + n}. {step_text(s)}" for n, s in enumerate(part[:SHOWN_STEPS], 1)]
    if len(part) > SHOWN_STEPS:
        lines.append(f"  ... {len(part) - SHOWN_STEPS} more")
    return lines


def _length(finding) -> int:
    return len(finding["steps"]) if finding["steps"] is not None else 0


# ---------------------------------------------------------------------------- fingerprints
class Fingerprint:
    """A digest of what a playthrough showed: at the start and after each step, who
    moves, the legal moves, the all-seeing view, the returns, and what each seat saw of
    the step and of the table after it (an option that only reveals a card changes the
    last).  Two option values whose seeded playthroughs give equal digests changed
    nothing that could be seen."""

    def __init__(self):
        self.hash = hashlib.blake2b(digest_size=16)

    def __call__(self, state, step):
        parts = [step_text(step) if step else "start", state.view(None),
                 repr(state.returns())]
        if state.obs is not None:               # each seat's record of the last step,
            for _, (lines, view) in state.obs:  # and its view after it
                parts += ["; ".join(lines), view]
        if not state.is_terminal() and not state.is_chance():
            for seat in state.to_move():
                try:
                    parts.append(" | ".join(m.text for m in state.legal_moves(seat)))
                except GdlError as err:
                    parts.append(err.message)
        self.hash.update("\n".join(parts).encode())

    def digest(self) -> str:
        return self.hash.hexdigest()


def fingerprint_runs(explorer: Explorer, count: int, deadline: float, limit: int
                     ) -> List[str]:
    """Plays `count` seeded playthroughs of at most `limit` steps from the setup, each
    with its own generator (so equal rules give equal games); returns their digests."""
    out = []
    for i in range(count):
        if time.monotonic() > deadline:
            break
        explorer.rng = random.Random(explorer.seed * 7919 + i)
        fp = Fingerprint()
        state = explorer.game.new_state(explorer.seed, observe=True)
        fp(state, None)
        explorer.playthrough(state, [], deadline, fp, limit)
        out.append(fp.digest())
    return out
