"""Simple agents and the loop that plays a game to the end with them."""
from __future__ import annotations

import random
from typing import Callable, Dict, List, Optional, Sequence

from gdl.errors import OptionError, did_you_mean

from ._compiler import CHANCE, DECIDE, END
from .state import draws_by_bits

Agent = Callable[[object, object, random.Random], object]


def random_agent(state, seat, rng):
    """Returns a uniformly random legal move (the same one as
    `moves[rng.randrange(len(moves))]` over `legal_moves`, without listing them all)."""
    return state.random_move(rng, seat)


def first_agent(state, seat, rng):
    """Returns the first legal move in canonical order."""
    return state.legal_moves(seat)[0]


def last_agent(state, seat, rng):
    """Returns the last legal move in canonical order."""
    return state.legal_moves(seat)[-1]


AGENTS: Dict[str, Agent] = {"random": random_agent, "first": first_agent, "last": last_agent}


def parse_agents(spec: Optional[str], n_seats: int) -> List[Agent]:
    """Returns one agent per seat from `random,first,...` (the last one repeats)."""
    names = [a.strip() for a in ("random" if spec is None else spec).split(",")]
    if not all(names):                      # "" or "random,,first" was taken as random
        raise OptionError(f"--agents takes agent names separated by commas ("
                          f"{', '.join(AGENTS)}), not {spec!r}", expected=list(AGENTS))
    if len(names) > n_seats:                # the extra ones were dropped without a word
        raise OptionError(f"--agents names {len(names)} agents for a game of {n_seats} "
                          f"seat{'s' if n_seats != 1 else ''} (one a seat; the last one given "
                          f"plays the seats left over)")
    out = []
    for name in names:
        if name not in AGENTS:
            raise OptionError(f"unknown agent {name!r}; the agents are {', '.join(AGENTS)}",
                              suggestion=did_you_mean(name, AGENTS), expected=list(AGENTS))
        out.append(AGENTS[name])
    while len(out) < n_seats:
        out.append(out[-1])
    return out[:n_seats]


def play_out(state, agents: Sequence[Agent], rng: random.Random, max_steps: int = 100_000):
    """Plays `state` to the end in place; returns the number of decisions made.  Where
    every agent is the random one (every benchmark and fuzz run), the playout is one call
    of `State.random_run`; otherwise the loop below reads the node kind directly instead
    of through `is_terminal`/`is_chance`/`to_move`, with the same steps in the same order:
    a random agent's decision is `State.random_step`, the same draw in one call, and a run
    of chance events `State.chance_steps`.  A step is a decision, a chance event or a
    simultaneous decision; at most `max_steps` are taken."""
    bits = draws_by_bits(rng)
    try:                      # a list's own count: a generator costs the shortest games 1%
        all_random = agents.count(random_agent) == len(agents)
    except AttributeError:
        all_random = all(a is random_agent for a in agents)
    if all_random:
        return state.random_run(rng, max_steps, bits)[1]
    decisions = 0
    apply, chance_steps, random_steps = state.apply, state.chance_steps, state.random_steps
    steps = 0
    while steps < max_steps:
        node = state.node
        kind = node[0]
        if kind == END:
            break
        steps += 1
        if kind == CHANCE:                    # this and the chance events straight after it
            steps += chance_steps(rng, max_steps - steps + 1, bits) - 1
        elif kind == DECIDE:
            seat = node[2][0]
            agent = agents[seat.index]
            if agent is random_agent:
                random_steps(rng, 1, bits)
            else:
                apply(agent(state, seat, rng), seat)
            decisions += 1
        else:
            for seat in state.to_move():
                apply(agents[seat.index](state, seat, rng), seat)
                decisions += 1
    return decisions
