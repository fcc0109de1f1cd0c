"""The gdl engine: compiles a checked ruleset once and runs it through an OpenSpiel-like API.

    game = load("rulesets/some_game.gdl", {"an_option": "a value"})
    state = game.new_state()
    while not state.is_terminal():
        if state.is_chance(): state.apply(state.sample_chance(rng))
        else: state.apply(rng.choice(state.legal_moves()))

The names below are imported when first used (PEP 562), so that a command that needs only
a constant of the engine (`gdl fuzz --help`'s defaults) does not load the compiler.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: each public name -> the module that defines it
_HOMES = {
    "Game": "game", "load": "game", "load_text": "game", "load_ruleset": "game",
    "read_trace": "serial", "replay": "serial", "state_from_json": "serial",
    "trace_of": "serial",
    "ChanceOutcome": "state", "State": "state",
    "Card": "values", "Member": "values", "Move": "values", "Seat": "values",
    "ZoneRef": "values",
}

__all__ = ["Game", "State", "Move", "ChanceOutcome", "Seat", "Card", "Member", "ZoneRef",
           "load", "load_text", "load_ruleset", "replay", "trace_of", "read_trace",
           "state_from_json"]


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value                 # found directly from now on
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:                            # what static tools read
    from .game import Game, load, load_ruleset, load_text
    from .serial import read_trace, replay, state_from_json, trace_of
    from .state import ChanceOutcome, State
    from .values import Card, Member, Move, Seat, ZoneRef
