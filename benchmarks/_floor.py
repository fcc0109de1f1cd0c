"""Floors: the least work a way of driving games can do, to set a target against.

`floor_game`: the floor under any game written in Python and played through pyspiel.
OpenSpiel's loop drives a Python game through pybind11: every `is_terminal`,
`legal_actions` or `apply_action` crosses from Python into C++ and, for a method the game
defines, back into Python.  `floor_game(pyspiel, name)` is a Python game that does
nothing else: its states replay the shapes (who is to move, the legal actions, the chance
outcomes, the returns) of random playouts of OpenSpiel's C++ game `name`, recorded
beforehand, answering each question from the record.  Its playouts per second in the
same loop are about what the crossings alone allow a Python game of that shape (answers
kept otherwise, by arithmetic say, can be a little cheaper); a game doing real work,
gdl's adapter included, goes slower.

`bare_walk`: the floor under an enumeration of gdl states: every state reached by a
clone and a step, as `enumerate_states` makes its children, and nothing else (no key,
no merging of equal states, no information set, no probability).
"""
from __future__ import annotations

import itertools
import random

#: how many random playouts of the C++ game the floor's states replay, in turn
SHAPES = 500


def _shapes(pyspiel, game, count: int, seed: int = 0) -> list:
    """Random playouts of `game`, each as a list of nodes (player, chance outcomes or
    None, legal actions, the action taken), the last (TERMINAL, returns, [], None)."""
    rng = random.Random(seed)
    chance = pyspiel.PlayerId.CHANCE
    shapes = []
    for _ in range(count):
        state, nodes = game.new_initial_state(), []
        while not state.is_terminal():
            player = state.current_player()
            if player == chance:
                outcomes = state.chance_outcomes()
                x, acc, action = rng.random(), 0.0, outcomes[-1][0]
                for a, p in outcomes:
                    acc += p
                    if x < acc:
                        action = a
                        break
                nodes.append((player, outcomes, [a for a, _ in outcomes], action))
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
                nodes.append((player, None, legal, action))
            state.apply_action(action)
        nodes.append((pyspiel.PlayerId.TERMINAL, state.returns(), [], None))
        shapes.append(nodes)
    return shapes


def floor_game(pyspiel, name: str):
    """Returns a pyspiel.Game in Python whose playouts replay the shapes of random
    playouts of OpenSpiel's C++ game `name`, doing no other work."""
    real = pyspiel.load_game(name)
    shapes = _shapes(pyspiel, real, SHAPES)
    chance, terminal = pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL
    real_type = real.get_type()
    game_type = pyspiel.GameType(
        short_name=f"floor_of_{name}", long_name=f"the floor under {name}",
        dynamics=real_type.dynamics, chance_mode=real_type.chance_mode,
        information=real_type.information, utility=real_type.utility,
        reward_model=real_type.reward_model, max_num_players=real.num_players(),
        min_num_players=real.num_players(), provides_information_state_string=False,
        provides_information_state_tensor=False, provides_observation_string=False,
        provides_observation_tensor=False, parameter_specification={})
    game_info = pyspiel.GameInfo(
        num_distinct_actions=real.num_distinct_actions(),
        max_chance_outcomes=real.max_chance_outcomes(), num_players=real.num_players(),
        min_utility=real.min_utility(), max_utility=real.max_utility(),
        utility_sum=0.0, max_game_length=real.max_game_length())
    turn = [0]

    class FloorState(pyspiel.State):
        # what a fast Python game answers itself (the C++ defaults would ask
        # `current_player` through pybind11 again for each), each answer one read
        def __init__(self, game):
            super().__init__(game)
            self.nodes = nodes = shapes[turn[0] % len(shapes)]
            turn[0] += 1
            self.at = 0
            self.player, self.answer, self.actions, _ = nodes[0]

        def current_player(self):
            return self.player

        def is_chance_node(self):
            return self.player == chance

        def is_terminal(self):
            return self.player == terminal

        def legal_actions(self, player=None):
            return list(self.actions)

        def chance_outcomes(self):
            return list(self.answer)

        def _apply_action(self, action):
            self.at = at = self.at + 1
            self.player, self.answer, self.actions, _ = self.nodes[at]

        def returns(self):
            return list(self.answer)

        def _action_to_string(self, player, action):
            return str(action)

        def __str__(self):
            return str(self.at)

    class FloorGame(pyspiel.Game):
        def __init__(self, params=None):
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self):
            return FloorState(self)

    return FloorGame()


def bare_walk(game, keyed: bool = False) -> int:
    """Visits every state of a gdl game whose graph is a tree, each made by cloning its
    parent and stepping it (a move entered as the enumerator enters one, without
    `apply`'s checks); returns how many.  `keyed`: each state is keyed as the enumerator
    keys it (`State.key()`), and a state met before is not visited again (any graph)."""
    from interpreter._compiler import CHANCE, DECIDE, END
    from interpreter._keys import keyer
    root = game.new_state()
    key, seen = keyer(game.prog), set()
    stack, count = [root], 0
    if keyed:
        seen.add(key(root))
    while stack:
        state = stack.pop()
        count += 1
        node = state.node
        kind = node[0]
        if kind == END:
            continue
        children = []
        if kind == CHANCE:
            for outcome, _ in state.chance_outcomes():
                child = state.clone()
                child.apply_chance(outcome)
                children.append(child)
        elif kind == DECIDE:
            site, seat = node[1], node[2][0]
            for move in state.legal_moves():
                child = state.clone()
                child._decided(site, seat, move.action, move.args, move._text or move.text)
                children.append(child)
        else:                                   # every joint move of a simultaneous one
            seats = state.to_move()
            for joint in itertools.product(*[state.legal_moves(seat) for seat in seats]):
                child = state.clone()
                for seat, move in zip(seats, joint):
                    child.apply(move, seat)
                children.append(child)
        if keyed:
            for child in children:
                k = key(child)
                if k not in seen:
                    seen.add(k)
                    stack.append(child)
        else:
            stack += children
    return count
