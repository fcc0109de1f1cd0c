"""Shared pieces of `gdl fuzz`: the kinds of finding, how an error is classified, the
declarations a finding names, and trace steps in the format of `interpreter/serial.py`.

A finding travels between worker processes as a plain dict (`raw_finding`), so that it
pickles under the `spawn` start method; `interpreter.fuzz` turns the survivors into
`Finding` objects once they have been merged and shrunk.
"""
from __future__ import annotations

import os
import traceback
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from gdl import ast as A
from gdl.errors import GdlError, MoveError, RuleError

from .serial import TRACE_FORMAT, encode

DEADLOCK = "deadlock"
ORDER = "order dependence"
UNCOVERED = "uncovered case"
ENDLESS = "endless play"
INVARIANT = "invariant violation"
RULE_ERROR = "rule error"
INTERNAL = "internal error"
CLASH = "option clash"
DEAD = "dead rule"

#: Every kind of finding, in the order the report lists them.
KINDS = (DEADLOCK, ORDER, UNCOVERED, ENDLESS, INVARIANT, RULE_ERROR, INTERNAL, CLASH, DEAD)

#: Kinds that are holes in the rules (the command exits 1 when it finds one); dead rules
#: and dead option values are left for a person to review.
HOLES = tuple(k for k in KINDS if k != DEAD)

#: Rule error messages that mean "the rules have no case for a value that occurs".
_UNCOVERED_WORDS = ("has no case", "has no element", "of no items", "of an empty zone",
                    "the value is none", "this value is none, where", "empty domain",
                    "source zone is empty", "of a list of", "needs exactly two active",
                    "no active player left", "but the zone has")

Step = dict


# ---------------------------------------------------------------------------- errors
def classify(err: BaseException) -> str:
    """Returns the kind of finding an exception raised by the rules is."""
    if isinstance(err, RuleError):
        if err.message.startswith("deadlock"):
            return DEADLOCK
        if any(w in err.message for w in _UNCOVERED_WORDS):
            return UNCOVERED
        return RULE_ERROR
    if isinstance(err, GdlError):
        return RULE_ERROR
    return INTERNAL


def error_place(err: BaseException) -> Tuple[str, str, int]:
    """Returns (rule, file, line) where an error arose; ('', '', 0) if unknown."""
    span = getattr(err, "span", None)
    if span is None or not span.line:
        return getattr(err, "rule", "") or "", "", 0
    return getattr(err, "rule", "") or "", os.path.normpath(span.file), span.line


def error_text(err: BaseException) -> str:
    """Returns one line saying what went wrong."""
    if isinstance(err, GdlError):
        return err.message
    return f"{type(err).__name__}: {err}"


def internal_where(err: BaseException) -> str:
    """Returns the innermost engine frame of an internal error, as `file:line`."""
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f"{Path(last.filename).name}:{last.lineno}"


# ---------------------------------------------------------------------------- declarations
_NAMED = (A.RuleDecl, A.ActionDecl, A.TriggerDecl, A.DefDecl, A.TableDecl, A.InvariantDecl)


def declarations(ruleset) -> Dict[str, Tuple[str, str, int]]:
    """Returns name -> (kind, file, line) for every rule, action, trigger, def, table,
    invariant and the flow of a (merged) ruleset."""
    out = {}
    for d in ruleset.decls:
        if isinstance(d, _NAMED):
            kind = type(d).__name__[:-4].lower()
            out[d.name] = (kind, os.path.normpath(d.span.file), d.span.line)
        elif isinstance(d, A.FlowDecl):
            out["flow"] = ("flow", os.path.normpath(d.span.file), d.span.line)
    return out


def rule_ref(decls, name: str, line: Optional[int] = None, file: str = "") -> list:
    """Returns [name, file, line] naming a declaration (at `line` if given)."""
    kind, dfile, dline = decls.get(name, ("", file, 0))
    return [name, file or dfile, line if line else dline]


# ---------------------------------------------------------------------------- steps
def chance_step(outcome) -> Step:
    data = outcome.data
    return {"chance": outcome.text, "kind": outcome.kind,
            "data": list(data) if isinstance(data, tuple) else data}


def move_step(seat, move) -> Step:
    return {"player": seat.name, "move": move.text}


def step_text(step: Step) -> str:
    """Returns a step as `p1: move text` or `chance: outcome text`."""
    if "chance" in step:
        return f"chance: {step['chance']}"
    return f"{step['player']}: {step['move']}"


def apply_step(state, step: Step):
    """Applies a recorded step exactly; raises MoveError if it does not fit the state
    (and whatever the rules raise)."""
    if "chance" in step:
        if not state.is_chance():
            raise MoveError("the step is a chance event, but no chance event is due")
        data = step["data"]
        state.apply_chance(state.outcome_from_data(
            step["kind"], tuple(data) if isinstance(data, list) else data))
        return
    if state.is_chance() or state.is_terminal():
        raise MoveError("the step is a move, but nobody is to move")
    seat = state.game.seat(step["player"])
    if seat not in state.to_move():
        raise MoveError(f"{seat.name} is not to move")
    state.apply(state.parse_move(step["move"], seat), seat)


def make_trace(game, steps: List[Step], seed) -> dict:
    """Returns a trace (`interpreter/serial.py` format) of these steps."""
    return {"format": TRACE_FORMAT, "game": game.path,
            "options": {k: encode(v) for k, v in game.overrides.items()},
            "seed": seed, "steps": list(steps)}


def option_texts(overrides) -> Dict[str, str]:
    """Returns option overrides as the texts `--set` takes."""
    out = {}
    for k, v in overrides.items():
        out[k] = "true" if v is True else "false" if v is False else str(v)
    return out


def raw_finding(kind: str, message: str, options: Dict[str, str], *, rules=(),
                steps: Optional[List[Step]] = None, detail=(), subkind: str = "",
                sig=(), probe: Optional[dict] = None, shrunk: bool = False) -> dict:
    """Returns a finding as plain data: what, where (rules: [name, file, line]), under
    which options, the steps that lead to it, and how to recognise it again (`probe`)."""
    return {"kind": kind, "subkind": subkind, "message": message,
            "rules": [list(r) for r in rules], "options": dict(options),
            "steps": None if steps is None else list(steps), "detail": list(detail),
            "sig": (kind, subkind) + tuple(sig), "probe": probe, "shrunk": shrunk}
