"""Shrinking for `gdl fuzz`: the shortest trace that still shows a finding.

A `Probe` recognises one finding while a trace is replayed (the same deadlock, the same
rule error at the same line, the same invariant failing, a state coming back, two trigger
orders parting).  `shrink` first cuts the trace where the probe first recognises the
finding, then deletes ever smaller runs of steps (delta debugging) and keeps any shorter
trace that still shows it.  Replays are lenient: a step that no longer fits (a move that
is not legal now, a chance outcome of another event) is skipped, and the trace kept is
the steps that were applied, so every kept trace replays exactly.
"""
from __future__ import annotations

import random
import time
from typing import List, Optional

from gdl.errors import MoveError

from ._fuzz_common import (INTERNAL, apply_step, classify, error_place, internal_where,
                           step_text)
from ._fuzz_play import _law_problems, _loop_lines


class Probe:
    """Recognises a finding during a replay: `start` at the setup, `after` each applied
    step, `failed` when a step raises."""

    def start(self, state) -> bool:
        return self.after(state, None)

    def after(self, state, step) -> bool:
        return False

    def failed(self, err, step) -> bool:
        return False

    def describe(self, steps) -> dict:
        """Returns fields of the finding to update for the trace kept."""
        return {}


class ErrorProbe(Probe):
    """The same rule error (or deadlock, or internal error) at the same place."""

    def __init__(self, probe: dict):
        self.p = probe

    def same(self, err) -> bool:
        p = self.p
        if classify(err) != p["kind"]:
            return False
        if p["kind"] == INTERNAL:
            return type(err).__name__ == p["exc"] and internal_where(err) == p["where"]
        _, file, line = error_place(err)
        return (file, line) == (p["file"], p["line"])

    def after(self, state, step) -> bool:
        if not self.p.get("at_state") or state.is_terminal():
            return False
        try:
            for seat in state.to_move():
                state.legal_moves(seat)
            state.failed_invariants()
        except Exception as err:  # noqa: BLE001 - the error we look for, or another
            return self.same(err)
        return False

    def failed(self, err, step) -> bool:
        return self.same(err)


class InvariantProbe(Probe):
    def __init__(self, name: str):
        self.name = name

    def after(self, state, step) -> bool:
        try:
            return self.name in state.failed_invariants()
        except Exception:  # noqa: BLE001 - another problem, not this one
            return False


class LawProbe(Probe):
    def __init__(self, law: str):
        self.law, self.check = law, _law_problems()

    def after(self, state, step) -> bool:
        if self.check is None:
            return False
        try:
            return bool(self.check(state, (self.law,), random.Random(0)))
        except Exception:  # noqa: BLE001
            return False


class CycleProbe(Probe):
    """A state that comes back; with `slots`, ignoring those counter variables."""

    def __init__(self, slots=None, names=()):
        self.slots, self.names = slots, names

    def start(self, state) -> bool:
        self.seen, self.n, self.found = {}, 0, None
        return self.after(state, None)

    def after(self, state, step) -> bool:
        key = state.key()
        if self.slots:
            v = list(key[3])
            for s in self.slots:
                v[s] = None
            key = key[:3] + (tuple(v),) + key[4:]
        if key in self.seen:
            self.found = (self.seen[key], self.n)
            return True
        self.seen[key] = self.n
        self.n += 1
        return False

    def describe(self, steps) -> dict:
        i, j = self.found
        message = f"the state after step {i} comes back after step {j}"
        if self.slots:
            shown = ", ".join(self.names)
            message += (f" except for {shown}, which only counts up: only a limit on "
                        f"{shown} ends this line of play")
        else:
            message += f": play can go round this loop of {j - i} steps for ever"
        return {"message": message, "detail": _loop_lines(steps[i:j], i)}


class OrderProbe(Probe):
    """Two trigger orders whose states part (or where one order fails and not the other)."""

    def __init__(self, other_game, seed, names=()):
        self.other, self.seed, self.names = other_game, seed, names

    def start(self, state) -> bool:
        self.b = self.other.new_state(self.seed)
        return state.key() != self.b.key()

    def after(self, state, step) -> bool:
        try:
            apply_step(self.b, step)
        except MoveError:
            return True
        except Exception:  # noqa: BLE001 - fails in the other order only
            return True
        return state.key() != self.b.key()

    def describe(self, steps) -> dict:
        where = f"at step {len(steps)} ({step_text(steps[-1])})" if steps else "at the setup"
        return {"message": f"triggers {', '.join(self.names)} fire together {where}, and "
                           f"the order they run in changes the result"}


def replay(game, steps, probe: Probe, seed, deadline: float = float("inf")
           ) -> Optional[List[dict]]:
    """Replays the steps that fit; returns the applied steps up to where the probe first
    recognises its finding (the failing step included), or None if it never does (or
    not before `deadline`)."""
    state = game.new_state(seed)
    if probe.start(state):
        return []
    applied: List[dict] = []
    for step in steps:
        if time.monotonic() > deadline:
            return None
        if not _fits(state, step):
            continue
        try:
            apply_step(state, step)
        except MoveError:
            continue
        except Exception as err:  # noqa: BLE001 - the rules failed on this step
            return applied + [step] if probe.failed(err, step) else None
        applied.append(step)
        if probe.after(state, step):
            return applied
        if state.is_terminal():
            return None
    return None


def _fits(state, step) -> bool:
    if state.is_terminal():
        return False
    if "chance" in step:
        return state.is_chance()
    if state.is_chance():
        return False
    return any(s.name == step["player"] for s in state.to_move())


def shrink(game, steps, probe: Probe, seed, deadline: float) -> tuple:
    """Returns (steps, replays): the shortest trace found that still shows the finding
    (the trace given if the finding cannot be replayed)."""
    best = replay(game, steps, probe, seed)
    tries = 1
    if best is None:
        return steps, tries
    chunk = max(1, len(best) // 2)
    while chunk >= 1 and len(best) > 1:
        pos, changed = 0, False
        while pos < len(best):
            if time.monotonic() > deadline:
                return best, tries
            candidate = best[:pos] + best[pos + chunk:]
            found = replay(game, candidate, probe, seed, deadline)
            tries += 1
            if found is not None and len(found) < len(best):
                best, changed = found, True
            else:
                pos += chunk
        if not changed:
            if chunk == 1:
                break
            chunk //= 2
    return best, tries


def make_probe(raw: dict, game, load_other=None, seed=0) -> Optional[Probe]:
    """Returns the probe of a raw finding, or None if it cannot be replayed."""
    p = raw.get("probe")
    if not p:
        return None
    kind = p["type"]
    if kind == "error":
        return ErrorProbe(p)
    if kind == "invariant":
        return InvariantProbe(p["name"])
    if kind == "law":
        return LawProbe(p["law"])
    if kind == "cycle":
        return CycleProbe()
    if kind == "counter":
        names = sorted({game.prog.var_names[s] for s in p["slots"]})
        return CycleProbe(p["slots"], names)
    if kind == "order" and load_other is not None:
        return OrderProbe(load_other(p["orders"][1]), seed, p.get("names", ()))
    return None
