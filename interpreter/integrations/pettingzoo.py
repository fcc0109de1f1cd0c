"""Any gdl ruleset as a PettingZoo AEC environment (agents take turns; masks say what is legal).

    from interpreter.integrations.pettingzoo import make_aec_env
    env = make_aec_env("rulesets/some_game.gdl", {"players": 3})
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

- agents are the seat names (`p1`, `north`, ...); the action space is `Discrete(n)` over
  the numbering of `_actions.ActionTable` (the same as the OpenSpiel adapter's);
- an observation is `{"observation": float32 0/1 vector, "action_mask": int8 vector}`:
  the hashed tokens of the agent's view (`_encode`), and 1 at its legal actions when it
  is the agent to act;
- chance is drawn inside the environment from its generator, seeded by `reset(seed)`;
- at a `simultaneously`, the deciding agents act one after the other; each commits
  without seeing the others' commits (the engine reveals them together);
- rewards come at the end: each agent's return; a game that reaches `max_steps`
  decisions is truncated (rewards 0);
- a ruleset with no actions (a procedure, such as a dealing method) has one action, 0,
  "proceed": `reset` plays the whole procedure, the first agent's step ends the episode.
"""
from __future__ import annotations

import operator
import random
from pathlib import Path
from typing import Mapping, Optional

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as err:          # the extra, not the engine: say how to get it
    raise ImportError(f"the PettingZoo environment needs PettingZoo, Gymnasium and NumPy "
                      f"({err}): install them with `pip install 'gdl[pettingzoo]'`") from err

from gdl.errors import listed

from .. import load
from ._actions import ActionTable
from ._encode import DEFAULT_SIZE, encode_view
from ._kind import DEFAULT_MAX_GAME_LENGTH


class GdlAECEnv(AECEnv):
    """A gdl game as an AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "gdl", "is_parallelizable": False}

    def __init__(self, game, render_mode: Optional[str] = None, obs_size: int = DEFAULT_SIZE,
                 max_steps: int = DEFAULT_MAX_GAME_LENGTH):
        super().__init__()
        self.game = game
        self.table = ActionTable(game)
        self.metadata = dict(self.metadata, name=f"gdl_{Path(game.path).stem}")
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.proceed_only = not game.prog.actions
        n = max(self.table.size, 1)
        self.possible_agents = [s.name for s in game.seats]
        self._action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n,), np.int8)}) for a in self.possible_agents}
        self.rng = random.Random()
        #: the engine's State of the game under way (not `state`, which is PettingZoo's
        #: global-state method: an attribute of that name hid it)
        self.gdl_state = None

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: Optional[int] = None, options=None):
        """Starts a game; with `seed`, chance and the game's seed are reproducible."""
        if seed is not None:
            self.rng = random.Random(seed)
        self.gdl_state = self.game.new_state(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.steps = 0
        self._skip_agent_selection = None
        self._draw_chance()
        if self.proceed_only or not self.gdl_state.is_terminal():
            self.agent_selection = self._to_act()
        else:
            self._finish()

    def _draw_chance(self):
        s = self.gdl_state
        while s.is_chance():
            s.apply_chance(s.sample_chance(self.rng))

    def _to_act(self) -> str:
        waiting = self.gdl_state.to_move()
        return waiting[0].name if waiting else self.agents[0]

    def _finish(self, truncated: bool = False):
        """Ends the episode for every agent: returns as rewards, or a truncation."""
        returns = self.gdl_state.returns()
        for a, r in zip(self.possible_agents, returns):
            if a in self.agents:
                self.rewards[a] = 0.0 if truncated else float(r)
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
        self.agent_selection = self.agents[0]

    def step(self, action):
        """Plays the selected agent's action (None once the agent is done)."""
        self._check_reset("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            action = operator.index(action)     # an int, a NumPy integer or 0-d array
        except TypeError:
            raise ValueError(f"{agent}'s action is a whole number (an index of its action "
                             f"mask), not {action!r}") from None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.proceed_only:
            if int(action) != 0:
                raise ValueError(f"{self.game.title} has no decisions: the only action is 0")
        else:
            seat = self.game.seat(agent)
            self.gdl_state.apply_listed(self._move(seat, int(action)), seat)
            self.steps += 1
            self._draw_chance()
        if self.gdl_state.is_terminal() or self.proceed_only:
            self._finish()
        elif self.steps >= self.max_steps:
            self._finish(truncated=True)
        else:
            self.agent_selection = self._to_act()
        self._accumulate_rewards()

    def _move(self, seat, action: int):
        legal = self.table.legal(self.gdl_state, seat)
        for i, m in legal:
            if i == action:
                return m
        what = self.table.text(action) if 0 <= action < self.table.size else "no such action"
        raise ValueError(f"action {action} ({what}) is not legal for {seat.name}; legal: "
                         f"{listed((f'{i} {m.text}' for i, m in legal), 10)}")

    # ------------------------------------------------------------------ seeing
    def observe(self, agent):
        """Returns the agent's hashed view and its action mask."""
        self._check_reset("observe")
        space = self._observation_spaces.get(agent)
        if space is None:
            raise ValueError(f"no agent {agent!r}: the agents are "
                             f"{', '.join(self.possible_agents)}")
        obs = encode_view(self.gdl_state, agent, space["observation"].shape[0])
        mask = np.zeros(space["action_mask"].shape[0], np.int8)
        if not (self.terminations.get(agent) or self.truncations.get(agent)):
            if self.proceed_only:
                mask[0] = 1 if agent == self.agent_selection else 0
            elif agent in (s.name for s in self.gdl_state.to_move()):
                mask[[i for i, _ in self.table.legal(self.gdl_state, self.game.seat(agent))]] = 1
        return {"observation": obs, "action_mask": mask}

    def _check_reset(self, what: str):
        if self.gdl_state is None:      # as PettingZoo's order-enforcing wrapper says it
            raise RuntimeError(f"reset() needs to be called before {what}()")

    def legal_moves(self, agent):
        """Returns [(action, move text)] of the agent's legal moves now."""
        if self.proceed_only:
            done = self.terminations.get(agent) or self.truncations.get(agent)
            return [(0, "proceed")] if agent == self.agent_selection and not done else []
        seat = self.game.seat(agent)
        if seat not in self.gdl_state.to_move():
            return []
        return [(i, m.text) for i, m in self.table.legal(self.gdl_state, seat)]

    def action_text(self, action: int) -> str:
        """Returns the move text an action stands for."""
        return "proceed" if self.proceed_only else self.table.text(int(action))

    def render(self):
        """Returns (ansi) or prints (human) the all-seeing view of the table."""
        text = self.gdl_state.view(None) if self.gdl_state is not None else ""
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        """Nothing to release."""


def make_aec_env(path, options: Optional[Mapping[str, object]] = None, **kwargs) -> GdlAECEnv:
    """Returns the AEC environment of a ruleset with option overrides (name -> value);
    keywords: render_mode, obs_size, max_steps."""
    return GdlAECEnv(load(str(path), options), **kwargs)


__all__ = ["GdlAECEnv", "make_aec_env"]
