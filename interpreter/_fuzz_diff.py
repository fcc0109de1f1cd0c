"""`gdl diff`: the shortest line of play after which two variants of a game differ.

Both games start from their setup and are stepped together, breadth first, along every
move and chance outcome they share; the search stops at the first pair of states that
differ in what kind of node they are, who is to move, the legal moves, the chance
outcomes, the table as the all-seeing view shows it, or the returns (or where a step
fails in one game and not in the other).  Breadth first, that pair is reached by as few
steps as any.  Chance events too large to list are sampled (the same outcome is applied in
both games) and so are large simultaneous decisions, the search starting again with other
samples while the budget lasts; the answer "no difference" is then bounded by the
budget, and says so.
"""
from __future__ import annotations

import difflib
import itertools
import json
import random
import tempfile
import time
from collections import deque
from pathlib import Path
from shlex import quote
from typing import List, Optional

import attrs

from gdl.errors import OptionError, did_you_mean

from ._fuzz_common import apply_step, chance_step, error_text, make_trace, step_text
from .values import text_of

#: Outcomes drawn at a chance event too large to list, and joint moves tried at a
#: simultaneous decision.
SAMPLED_OUTCOMES, JOINT_LIMIT = 2, 64
#: Moves listed per side where legal moves differ.
SHOWN_MOVES = 8


@attrs.define
class DiffResult:
    """Where two games first differ (`steps` and `differences`), or that no difference
    was found in `pairs` pairs of states explored to `depth` steps."""
    a: str
    b: str
    options: dict
    differs: bool
    steps: list = attrs.Factory(list)
    differences: List[str] = attrs.Factory(list)
    pairs: int = 0
    depth: int = 0
    complete: bool = True           # every pair reachable along shared steps was compared
    sampled: bool = False           # some chance events or joint moves were sampled
    seconds: float = 0.0
    trace_path: Optional[str] = None
    interrupted: bool = False       # ended early by Ctrl-C (`diff(stop_on_interrupt=True)`)
    #: option -> (its value in A, in B) where the two differ under `options` (a variant
    #: that changes a default): the games then differ by it
    unlike: dict = attrs.Factory(dict)

    #: the options only one game declares (`--set` sets each where it is declared)
    one_sided: dict = attrs.Factory(dict)

    @property
    def defaults_differ(self) -> bool:
        """Whether an option both games declare has other values in them (a variant that
        changes a default): the games differ by it, whatever play shows."""
        return any(a is not None and b is not None for a, b in self.unlike.values())

    def text(self) -> str:
        shown = ", ".join(f"{k}={_shown(v)}" + (f" ({self.one_sided[k]} only)"
                                                if k in self.one_sided else "")
                          for k, v in self.options.items()) or "defaults"
        if self.unlike:
            shown += " (" + ", ".join(f"{k}={_shown(a)} in A, {_shown(b)} in B"
                                      for k, (a, b) in self.unlike.items()) + ")"
        lines = [f"gdl diff {self.a} {self.b}", f"  options: {shown}"]
        if self.defaults_differ and not self.differs:
            lines.append("  the games differ in the values of options both declare "
                         "(above), whatever their play shows")
        if self.differs:
            n = len(self.steps)
            lines.append(f"  the games first differ after {n} step{'s' if n != 1 else ''}"
                         + (":" if n else " (at the setup)"))
            lines += [f"    {i}. {_short(step_text(s))}" for i, s in enumerate(self.steps, 1)]
            lines.append("  what differs:")
            lines += [f"    {d}" for d in self.differences]
            if self.trace_path:
                lines.append(f"  open: gdl play {quote(self.a)} --trace {quote(self.trace_path)}")
                lines.append(f"        gdl play {quote(self.b)} --trace {quote(self.trace_path)}")
        elif self.complete and not self.sampled:
            lines.append("  no difference: every reachable pair of states was compared")
        else:
            lines.append("  no difference found " + ("before Ctrl-C" if self.interrupted
                                                     else "within budget"))
        notes = [n for n, on in (("interrupted (Ctrl-C)", self.interrupted),
                                 ("the budget ran out",
                                  not self.complete and not self.interrupted),
                                 ("chance or joint moves sampled", self.sampled)) if on]
        lines.append(f"  explored {self.pairs:,} pairs of states to depth {self.depth} in "
                     f"{self.seconds:.1f} s" + (f" ({'; '.join(notes)})" if notes else ""))
        return "\n".join(lines)

    def to_json(self) -> dict:
        return attrs.asdict(self, recurse=False)


def _shown(value) -> str:
    """An option's value as `options:` shows it: an empty text as `""`, one a game does
    not declare as `-` (a text `-` is quoted)."""
    if value is None:
        return "-"
    return f'"{value}"' if value in ("", "-") else str(value)


def _short(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _kind(state) -> str:
    if state.is_terminal():
        return "terminal"
    if state.is_chance():
        return "chance"
    return "simultaneous decision" if state.is_simultaneous() else "decision"


def _moves(state, seat):
    try:
        return [m.text for m in state.legal_moves(seat)], None
    except Exception as err:  # noqa: BLE001 - a deadlock in one game is a difference
        return [], error_text(err)


def compare(a, b, seats: bool = False) -> List[str]:
    """Returns how two states differ (empty if they do not); with `seats`, also what each
    seat saw of the last step and its view now (the states must log observations)."""
    out = _seat_difference(a, b) if seats else []
    if _kind(a) != _kind(b):
        return [f"kind of node: A is at a {_kind(a)}, B at a {_kind(b)}"]
    ma, mb = [s.name for s in a.to_move()], [s.name for s in b.to_move()]
    if ma != mb:
        out.append(f"to move: A {', '.join(ma) or 'nobody'}, B {', '.join(mb) or 'nobody'}")
    else:
        for seat in a.to_move():
            out += _move_difference(seat.name, _moves(a, seat), _moves(b, b.game.seat(seat.name)))
    if a.is_chance():
        out += _chance_difference(a, b)
    va, vb = a.view(None).splitlines(), b.view(None).splitlines()
    if va != vb:
        diff = list(difflib.unified_diff(va, vb, "A", "B", lineterm="", n=0))[2:]
        out.append("the table (all-seeing view):")
        out += ["  " + line for line in diff[:12]]
    if a.returns() != b.returns():
        out.append(f"returns: A {_returns(a)}; B {_returns(b)}")
    return out


def _returns(state) -> str:
    """A state's returns by seat, as `gdl run` shows them (`p1 +1, p2 -1`)."""
    return ", ".join(f"{seat.name} {r:+g}" for seat, r in zip(state.game.seats,
                                                             state.returns()))


def _seat_difference(a, b) -> List[str]:
    from .observe import observations
    out = []
    for seat in a.game.seats:
        try:
            (la, va), (lb, vb) = observations(a, seat)[-1], observations(b, seat.name)[-1]
        except Exception:  # noqa: BLE001 - B lacks the seat: the to-move check says so
            continue
        if la != lb:
            out.append(f"what {seat.name} saw of the last step: A {' / '.join(la)}; "
                       f"B {' / '.join(lb)}")
        if va != vb:
            diff = list(difflib.unified_diff(va.splitlines(), vb.splitlines(), "A", "B",
                                             lineterm="", n=0))[2:]
            out.append(f"what {seat.name} sees:")
            out += ["  " + line for line in diff[:8]]
    return out


def _move_difference(name, ma, mb) -> List[str]:
    (ta, ea), (tb, eb) = ma, mb
    if ea or eb:
        return [] if ea == eb else [f"legal moves of {name}: A {ea or 'has moves'}; "
                                    f"B {eb or 'has moves'}"]
    if ta == tb:
        return []
    only_a = [t for t in ta if t not in set(tb)]
    only_b = [t for t in tb if t not in set(ta)]
    out = [f"legal moves of {name}: {len(ta)} in A, {len(tb)} in B"]
    for side, only in (("A", only_a), ("B", only_b)):
        if only:
            more = f" (and {len(only) - SHOWN_MOVES} more)" if len(only) > SHOWN_MOVES else ""
            out.append(f"  only in {side}: {', '.join(only[:SHOWN_MOVES])}{more}")
    if not only_a and not only_b:
        out.append("  the same moves in another order")
    return out


def _chance_difference(a, b) -> List[str]:
    oa, ob = a.chance_outcomes(), b.chance_outcomes()
    if (oa is None) != (ob is None):
        return ["chance: one game lists its outcomes, the other cannot"]
    if oa is None:
        return []
    la = [(o.text, p) for o, p in oa]
    lb = [(o.text, p) for o, p in ob]
    if la == lb:
        return []
    return [f"chance outcomes: A has {len(la)}, B has {len(lb)}"] + [
        f"  {side} {t} {p}" for side, xs, ys in (("only in A:", la, lb), ("only in B:", lb, la))
        for t, p in xs if (t, p) not in ys][:SHOWN_MOVES]


class _Search:
    def __init__(self, ga, gb, seed, deadline, max_pairs, seats):
        self.ga, self.gb, self.seed, self.seats = ga, gb, seed, seats
        self.rng = random.Random(seed)
        self.deadline, self.max_pairs = deadline, max_pairs
        self.pairs = self.depth = 0
        self.complete, self.sampled = True, False

    def ways_on(self, a) -> list:
        """Returns the step lists that lead on from `a` (as B has the same moves)."""
        if a.is_chance():
            outcomes = a.chance_outcomes()
            if outcomes is None:
                self.sampled = True
                drawn = {}
                for _ in range(SAMPLED_OUTCOMES):
                    o = a.sample_chance(self.rng)
                    drawn[(o.kind, o.data)] = o
                return [[chance_step(o)] for o in drawn.values()]
            return [[chance_step(o)] for o, _ in outcomes]
        options = [[{"player": s.name, "move": t} for t in _moves(a, s)[0]]
                   for s in a.to_move()]
        total = 1
        for moves in options:
            total *= len(moves)
        if total <= JOINT_LIMIT:
            return [list(j) for j in itertools.product(*options)]
        self.sampled = True
        return [[self.rng.choice(m) for m in options] for _ in range(JOINT_LIMIT)]

    def run(self):
        """Returns (steps, differences) of the first difference, or None."""
        try:
            a = self.ga.new_state(self.seed, observe=self.seats)
        except Exception as err:  # noqa: BLE001
            a = err
        try:
            b = self.gb.new_state(self.seed, observe=self.seats)
        except Exception as err:  # noqa: BLE001
            b = err
        found = _failed(a, b)
        if found is not None:
            return [], found
        queue = deque([(a, b, [])])
        seen = {(a.key(), b.key())}
        while queue:
            if time.monotonic() > self.deadline or self.pairs >= self.max_pairs:
                self.complete = False
                return None
            a, b, steps = queue.popleft()
            self.pairs += 1
            self.depth = max(self.depth, len(steps))
            differs = compare(a, b, self.seats)
            if differs:
                return steps, differs
            if a.is_terminal():
                continue
            for joint in self.ways_on(a):
                ca, cb = self.step(a, joint), self.step(b, joint)
                found = _failed(ca, cb)
                if found is not None:
                    return steps + joint, found
                if isinstance(ca, Exception):
                    continue
                key = (ca.key(), cb.key())
                if key not in seen:
                    seen.add(key)
                    queue.append((ca, cb, steps + joint))
        return None

    @staticmethod
    def step(state, joint):
        child = state.clone()
        try:
            for step in joint:
                apply_step(child, step)
        except Exception as err:  # noqa: BLE001 - the step fails in this game
            return err
        return child


def _failed(a, b) -> Optional[List[str]]:
    """Returns the difference when a step failed in one game (or failed differently)."""
    ea, eb = isinstance(a, Exception), isinstance(b, Exception)
    if not ea and not eb:
        return None
    if ea and eb and error_text(a) == error_text(b):
        return None
    what = (lambda x: f"fails: {error_text(x)}" if isinstance(x, Exception) else "goes on")
    return [f"the step in A {what(a)}", f"the step in B {what(b)}"]


def diff(path_a, path_b, overrides=None, *, budget: float = 10.0, seed: int = 0,
         max_pairs: int = 500_000, seats: bool = False, out_dir: Optional[str] = None,
         write_trace: bool = True, stop_on_interrupt: bool = False) -> DiffResult:
    """Returns where two rulesets (variants of one game) first differ, searching for at
    most `budget` seconds; `seats` also compares what each seat sees and saw.  With
    `stop_on_interrupt`, a Ctrl-C (KeyboardInterrupt) ends the search with what it
    compared so far (`interrupted` set; breadth first, so no shorter line differs);
    without, it propagates.  Errors in either ruleset or in `overrides` raise GdlError."""
    from .game import load
    start = time.monotonic()
    overrides = dict(overrides or {})
    declared = [set(load(path).options) for path in (path_a, path_b)]
    both = sorted(declared[0] | declared[1])
    for k in overrides:
        if k not in both:
            raise OptionError(f"neither {path_a} nor {path_b} has an option {k!r}; their "
                              f"options are {', '.join(both) or 'none'}",
                              suggestion=did_you_mean(k, both), expected=both)
    one_sided = {k: "AB"[sides.index(True)] for k in overrides
                 if (sides := [k in d for d in declared]).count(True) == 1}
    # each option set where it is declared: a variant's own option has no match in A
    ga, gb = (load(path, {k: v for k, v in overrides.items()
                          if k in d or k not in one_sided})
              for path, d in zip((path_a, path_b), declared))
    search = _Search(ga, gb, seed, start + budget, max_pairs, seats)
    interrupted = False
    try:
        found = search.run()
        # a tree whose chance was sampled is done long before the budget: search again
        # (the generator has moved on, so other outcomes are drawn) while time is left
        while found is None and search.sampled and search.complete and \
                time.monotonic() < start + budget and search.pairs < max_pairs:
            found = search.run()
    except KeyboardInterrupt:
        if not stop_on_interrupt:
            raise
        found, search.complete, interrupted = None, False, True
    unlike = {k: (text_of(ga.options[k]) if k in ga.options else None,    # None: not
                  text_of(gb.options[k]) if k in gb.options else None)    # declared
              for k in dict.fromkeys([*ga.options, *gb.options])
              if text_of(ga.options.get(k)) != text_of(gb.options.get(k))
              or (k in ga.options) != (k in gb.options)}
    result = DiffResult(a=str(path_a), b=str(path_b), options=overrides, unlike=unlike,
                        one_sided=one_sided,
                        differs=found is not None, pairs=search.pairs, depth=search.depth,
                        complete=search.complete, sampled=search.sampled,
                        seconds=time.monotonic() - start, interrupted=interrupted)
    if found is not None:
        result.steps, result.differences = found
        if write_trace:
            folder = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="gdl-diff-"))
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "diff.json"
            path.write_text(json.dumps(make_trace(ga, result.steps, seed)) + "\n",
                            encoding="utf-8")
            result.trace_path = str(path)
    return result
