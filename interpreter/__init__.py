"""The gdl engine: compiles a checked ruleset once and runs it through an OpenSpiel-like API.

    game = load("rulesets/some_game.gdl", {"an_option": "a value"})
    state = game.new_state()
    while not state.is_terminal():
        if state.is_chance(): state.apply(state.sample_chance(rng))
        else: state.apply(rng.choice(state.legal_moves()))
"""
from .game import Game, load, load_ruleset, load_text
from .serial import read_trace, replay, state_from_json, trace_of
from .state import ChanceOutcome, State
from .values import Card, Member, Move, Seat, ZoneRef

__all__ = ["Game", "State", "Move", "ChanceOutcome", "Seat", "Card", "Member", "ZoneRef",
           "load", "load_text", "load_ruleset", "replay", "trace_of", "read_trace",
           "state_from_json"]
