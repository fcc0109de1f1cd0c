"""Any gdl ruleset as an OpenSpiel game, so OpenSpiel's algorithms and tests run on it.

    from interpreter.integrations.openspiel import load_openspiel_game
    game = load_openspiel_game("rulesets/some_game.gdl", {"an_option": 3})
    state = game.new_initial_state()          # a pyspiel.State

`register(path)` registers the ruleset with pyspiel as `python_gdl_<file stem>`, whose
parameters are the ruleset's options plus the adapter's own (`seed`, `max_game_length`,
`utility_bound`, `chance`); after that `pyspiel.load_game("python_gdl_some_game(an_option=3)")`
works like any OpenSpiel game, serialised states included.

The mapping (details in docs/integrations.md):

- actions: the numbering of `_actions.ActionTable`, fixed by the ruleset and its options;
- chance: nodes list their outcomes as (id, probability), outcomes with equal text
  merged and numbered in the engine's order; a shuffle with more distinct orders than
  the game has cards is dealt card by card (each node draws the next card from the top,
  its id the card's id), so probabilities stay exact and every state serialises.  With
  `chance=sampled` the game is SAMPLED_STOCHASTIC instead: the state draws chance
  itself, from a generator seeded by the game's `seed` parameter;
- a `simultaneously` becomes a simultaneous node (dynamics SIMULTANEOUS): every deciding
  seat has legal actions and `apply_actions` takes one per player (the others' are
  ignored); a `choose` in such a game is an ordinary node of one player, where
  `apply_actions` takes that player's (OpenSpiel's `rl_environment` steps so); in a
  game of one seat at a time, and at chance, `apply_actions` is refused;
- information_state_string is the engine's perfect-recall `infoset_key(seat)` (a digest
  of it past `READABLE_STEPS` steps), observation_string its `view(seat)`, and the
  observation tensor the hashed view of `_encode`; `str(state)` is the all-seeing view;
- a game that runs past `max_game_length` decisions ends there (returns 0 each, as an
  unfinished gdl game); `game_kind` proves a bound for small games, which never truncate.
"""
from __future__ import annotations

import copy
import hashlib
import random
from collections import Counter
from fractions import Fraction
from math import factorial
from pathlib import Path
from typing import Dict, Mapping, Optional

try:
    import pyspiel
except ImportError as err:          # the extra, not the engine: say how to get it
    raise ImportError(f"the OpenSpiel adapter needs OpenSpiel ({err}): install it with "
                      f"`pip install 'gdl[openspiel]'` (or `pip install open_spiel`)") from err

from gdl import ast as A
from gdl.errors import GdlError

from .. import load_ruleset
from .._compiler import CHANCE as AT_CHANCE, DECIDE as AT_DECISION, END as AT_END
from .._compiler import SIMUL as AT_SIMULTANEOUS
from ..game import Game
from ..observe import key_of, log_of, observations
from ..options import option_decls, resolve_overrides
from ..state import alike, named_twins
from ..values import Card, text_of
from ._actions import ActionTable, IntegrationError
from ._encode import DEFAULT_SIZE, encode_view
from ._kind import GameKind, game_kind

#: Information state strings are the readable infoset key up to this many steps, then a
#: digest of it (a long game's key grows by a whole view at every step).
READABLE_STEPS = 64

#: The most distinct `random` draws a game remembers the outcome lists of, then it starts
#: again.
CHANCES_KEPT = 1024

#: The adapter's own parameters and their defaults (0 and "auto": decided by game_kind).
ADAPTER_PARAMS = {"seed": 0, "max_game_length": 0, "utility_bound": 0.0, "chance": "auto"}

_RULESETS: Dict[str, object] = {}     # resolved path -> checked ruleset
_DATA: Dict[tuple, "_GameData"] = {}  # (resolved path, sorted params) -> _GameData
_REGISTERED: Dict[str, str] = {}      # short name -> resolved path
_SPECS: Dict[str, dict] = {}          # resolved path -> parameter specification

_T = pyspiel.GameType
_TERMINAL = pyspiel.PlayerId.TERMINAL
_SIMULTANEOUS = pyspiel.PlayerId.SIMULTANEOUS
_CHANCE = pyspiel.PlayerId.CHANCE


def short_name_for(path) -> str:
    """Returns the name `register` gives a ruleset: `python_gdl_<file stem>`."""
    return "python_gdl_" + Path(path).stem


class _GameData:
    """What every state of one game shares: the gdl game, its action table and kind."""

    def __init__(self, path: str, params: Mapping[str, object]):
        resolved = str(Path(path).resolve())
        if resolved not in _RULESETS:
            _RULESETS[resolved] = load_ruleset(path)
        ruleset = _RULESETS[resolved]
        decls = option_decls(ruleset)
        self.path, self.params, self.resolved = path, dict(params), resolved
        options = {k: _option_text(v) for k, v in params.items() if k in decls}
        self.game = Game(ruleset, options)
        self.table = ActionTable(self.game)
        chance = str(params.get("chance", "auto"))
        if chance not in ("auto", "sampled"):
            raise IntegrationError(f"the adapter parameter chance is auto or sampled, not "
                                   f"{chance!r}")
        self.kind: GameKind = game_kind(
            self.game, chance=str(params.get("chance", "auto")),
            max_game_length=int(params.get("max_game_length", 0)) or None,
            utility_bound=float(params.get("utility_bound", 0.0)) or None)
        self.sampled = self.kind.chance == "sampled"
        self.max_length = self.kind.max_game_length
        self.seat_count = len(self.game.seats)
        # (values, secrecy) of a `random` draw -> its outcome list and their probabilities
        # as floats: the same few draws come back at every playout (`_Handle.chance_list`)
        self.chances: Dict[tuple, tuple] = {}
        # a kind -> the ids of its cards, ascending: a drawn card's outcome is numbered by
        # its group's place among its kind's groups, never by which twin is left
        self.kind_ids: Dict[int, list] = {}
        for c in self.game.prog.cards:
            self.kind_ids.setdefault(c.kind, []).append(c.id)
        # unobserved: a state starts logging what each seat sees once an information
        # state is asked for (`_Handle.observed`), so playouts that ask none skip the logs
        self.initial = self.game.new_state()
        seed = int(params.get("seed", 0))
        self.rng = random.Random(seed if seed >= 0 else None)

    def game_type(self, short_name: str) -> "pyspiel.GameType":
        n = len(self.game.seats)
        spec = _SPECS.get(self.resolved) or spec_of(self.game)
        return _game_type(short_name, self.game, self.kind, n, n, spec)

    def game_info(self) -> "pyspiel.GameInfo":
        k = self.kind
        return pyspiel.GameInfo(
            num_distinct_actions=max(self.table.size, 1),
            max_chance_outcomes=k.max_chance_outcomes, num_players=len(self.game.seats),
            min_utility=k.min_utility, max_utility=k.max_utility,
            utility_sum=k.utility_sum, max_game_length=k.max_game_length)


def _option_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _game_type(short_name, game, kind: GameKind, lo: int, hi: int, spec) -> "pyspiel.GameType":
    chance = {"none": _T.ChanceMode.DETERMINISTIC, "explicit": _T.ChanceMode.EXPLICIT_STOCHASTIC,
              "sampled": _T.ChanceMode.SAMPLED_STOCHASTIC}[kind.chance]
    return pyspiel.GameType(
        short_name=short_name, long_name=f"gdl: {game.title}",
        dynamics=_T.Dynamics.SIMULTANEOUS if kind.simultaneous else _T.Dynamics.SEQUENTIAL,
        chance_mode=chance,
        information=(_T.Information.PERFECT_INFORMATION if kind.perfect_information
                     else _T.Information.IMPERFECT_INFORMATION),
        utility={"zero_sum": _T.Utility.ZERO_SUM, "constant_sum": _T.Utility.CONSTANT_SUM,
                 "general_sum": _T.Utility.GENERAL_SUM}[kind.utility],
        reward_model=_T.RewardModel.TERMINAL, max_num_players=hi, min_num_players=lo,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=spec)


def spec_of(game: Game) -> dict:
    """Returns the parameter specification: each option's default, then the adapter's."""
    spec = {}
    for name, value in game.options.items():
        if isinstance(value, (bool, int, str)):
            spec[name] = value
        else:
            spec[name] = getattr(value, "name", None) or str(value)
    clash = sorted(set(spec) & set(ADAPTER_PARAMS))
    if clash:
        raise IntegrationError(f"the options {', '.join(clash)} of {game.path} have the names "
                               f"of OpenSpiel adapter parameters")
    spec.update(ADAPTER_PARAMS)
    return spec


def _game_data(path: str, params: Mapping[str, object]) -> _GameData:
    key = (str(Path(path).resolve()), tuple(sorted((k, str(v)) for k, v in params.items())))
    if key not in _DATA:
        _DATA[key] = _GameData(path, params)
    return _DATA[key]


def _identity(data: _GameData) -> tuple:
    """What makes two loads one game for a state: the ruleset file, the options in force
    and how chance is told (not the seed of sampled chance)."""
    return data.resolved, _options_shown(data), data.sampled


def _options_shown(data: _GameData) -> str:
    shown = ", ".join(f"{k}={text_of(v)}" for k, v in data.game.options.items())
    return f"options {shown}" if shown else "no options"


# ---------------------------------------------------------------------- game and state
class GdlGame(pyspiel.Game):
    """A gdl ruleset with fixed options, as a pyspiel game.  `register` makes one
    subclass per ruleset, naming its path and short name."""

    path: str = ""
    short_name: str = ""

    def __init__(self, params=None):
        params = dict(params or {})
        self.data = _game_data(self.path, params)
        super().__init__(self.data.game_type(self.short_name), self.data.game_info(), params)
        # each game object its own generator for `chance=sampled` (the data, shared by
        # every load with these parameters, would carry one load's draws into the next)
        seed = int(params.get("seed", 0))
        self.rng = random.Random(seed if seed >= 0 else None)

    def __reduce__(self):
        # the class `register` made has no name pickle can look up: the game is loaded
        # again by its path and parameters (registering it in a new process)
        path = _REGISTERED.get(self.short_name, self.path)
        return (_unpickled_game, (path, self.short_name, self.get_parameters()))

    def new_initial_state(self):
        """Returns the state after the ruleset's setup."""
        return GdlState(self, self.data)

    def deserialize_state(self, text: str):
        """Returns the state `serialize` wrote, refusing one of another game: OpenSpiel puts
        whatever it reads into a state of this game (one ruleset's state in another's)."""
        state = super().deserialize_state(text)
        theirs = getattr(state, "_h", None)
        if theirs is None or _identity(theirs.data) != _identity(self.data):
            made = (f"{theirs.data.path} with {_options_shown(theirs.data)}"
                    if theirs is not None else "no gdl game")
            raise IntegrationError(f"this state was serialised from {made}, not from this "
                                   f"game ({self.data.path} with "
                                   f"{_options_shown(self.data)})")
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        """Returns an observer: the seat's view, or its infoset key with perfect recall."""
        return _Observer(self.data, iig_obs_type, params)


class _Handle:
    """The gdl state inside an OpenSpiel state.  Cloning an OpenSpiel state deep-copies
    its attributes and serialising it pickles them: this object makes the first a cheap
    `clone()` and the second the gdl trace, replayed on loading.  It also holds the cards
    drawn so far from a shuffle dealt out card by card."""

    __slots__ = ("data", "_state", "ready", "decisions", "rng", "draws", "outcomes",
                 "floats", "digests", "player", "legal", "merged")

    def __init__(self, data: _GameData, state, decisions: int = 0, rng=None, draws=(),
                 digests=None):
        self.data, self._state, self.decisions, self.rng = data, state, decisions, rng
        # the gdl state where reading it needs no work (`ready or state`: the property's
        # call saved at each of a step's several reads); None until then, and always in a
        # game that draws chance inside
        self.ready = None if data.sampled else state
        self.draws = list(draws)        # card ids drawn from the top of a big shuffle
        self.merged = False             # whether the chance list merged values by position
        self.digests = list(digests) if digests else [None] * data.seat_count
        # nothing worked out yet, as `changed` leaves it (OpenSpiel's clone makes a new
        # state, this, only to replace it with a copy of the original's)
        self.outcomes = self.floats = self.player = None
        self.legal = {}

    def changed(self):
        """Forgets what was worked out for the node before a step: its chance outcomes,
        the player to move and each seat's legal actions (OpenSpiel asks for the player
        several times a step, and for the actions before each apply)."""
        self.outcomes = None            # the chance outcomes of the current node
        self.floats = None              # and their (id, probability as a float)
        self.player = None              # `current_player`'s answer
        self.legal = {}                 # seat index -> ([action], {action: Move}, pairs)

    def observed(self):
        """The gdl state, made to log what each seat sees from now on (its log so far
        made by replaying it, once): its later states, clones included, keep theirs."""
        s = self.state
        if s.obs is None:
            s.obs = log_of(s)
        return s

    def current_player(self) -> int:
        p = self.player
        if p is None:
            node = (self.ready or self.state).node
            kind = node[0]
            if kind == AT_END or self.decisions >= self.data.max_length:
                p = _TERMINAL
            elif kind == AT_CHANCE:
                p = _CHANCE
            elif kind == AT_SIMULTANEOUS:
                p = _SIMULTANEOUS
            else:
                p = node[2][0].index
            self.player = p
        return p

    def legal_of(self, seat) -> tuple:
        """([action], {action: Move}, ((action, Move), ...)) of a seat deciding now, by
        action (the map keeps the first move of an action)."""
        got = self.legal.get(seat.index)
        if got is None:
            got = self.legal[seat.index] = self.data.table.numbered(
                (self.ready or self.state).legal_moves(seat))
        return got

    def infoset_string(self, seat) -> str:
        """Returns the seat's perfect-recall information state: the engine's infoset key
        while the game is short, else the number of steps and a SHA-256 chained over the
        key's entries (the key grows by a whole view at every step, to some 400 KB after
        600 steps of a long card game: too big to hold per information set).  The digest
        is extended only by the steps since the last call, and worked out only past
        READABLE_STEPS."""
        s = self.observed()
        entries = observations(s, seat)
        if len(entries) <= READABLE_STEPS:
            return key_of(entries)
        count, digest = self.digests[seat.index] or (0, b"")
        if count > len(entries):                        # not a later state: start again
            count, digest = 0, b""
        for lines, view in entries[count:]:
            digest = hashlib.sha256(digest + "\n".join(lines + (view, "")).encode()).digest()
        self.digests[seat.index] = (len(entries), digest)
        return f"{seat.name} after {len(entries)} steps, sha256 {digest.hex()}"

    @property
    def state(self):
        """Returns the gdl state, first drawing chance inside a sampled game."""
        s = self._state
        if s is None:           # a new state's copy of the start, made once it is read:
            s = self._state = self.data.initial.clone()     # a clone's is replaced first
            if not self.data.sampled:
                self.ready = s
        if self.data.sampled and s.is_chance():
            if self.rng is None:
                self.rng = random.Random(self.data.rng.getrandbits(64))
            while s.is_chance():
                s.apply_chance(s.sample_chance(self.rng))
        return s

    def chance_list(self):
        """Returns [(id, text, probability, what to apply)] at a chance node.  Those of a
        `random` draw are the same for the same values drawn, so they are worked out once
        per values (with their floats) and shared: nobody changes them."""
        got = self.outcomes
        if got is None:
            node = (self.ready or self.state).node
            if node[1] == "random" and not self.draws:
                try:
                    key = node[3], node[4]
                    kept = self.data.chances.get(key)
                except TypeError:               # an unhashable value drawn
                    key = kept = None
                if kept is None:
                    listed = self._checked(self._list_chance())
                    kept = listed, _floats(listed)
                    if key is not None and not self.merged:
                        if len(self.data.chances) >= CHANCES_KEPT:
                            self.data.chances.clear()
                        self.data.chances[key] = kept
                got, self.floats = kept
                self.outcomes = got
            else:
                got = self.outcomes = self._checked(self._list_chance())
        return got

    def chance_floats(self):
        """Returns [(id, probability as a float)] at a chance node."""
        got = self.floats
        if got is None:
            listed = self.chance_list()         # which may find them kept
            got = self.floats
            if got is None:
                got = self.floats = _floats(listed)
        return got

    def _checked(self, outcomes):
        if outcomes and outcomes[-1][0] >= self.data.kind.max_chance_outcomes:
            raise IntegrationError(
                f"a chance outcome has id {outcomes[-1][0]}, beyond the "
                f"{self.data.kind.max_chance_outcomes} outcomes the game declared")
        return outcomes

    def _list_chance(self):
        s = self.state
        self.merged = False
        if s.chance_kind() == "shuffle":
            probe = s.sample_chance(random.Random(0))
            cards = self.data.game.prog.cards
            zone_cards = [cards[i] for i in probe.data]
            if self.draws or _orders(zone_cards, s.up, named_twins(s)) > len(cards):
                return self._draw_list(probe.public, zone_cards)
        outcomes = s.chance_outcomes()
        if len({o.text for o, _ in outcomes}) == len(outcomes):
            return [(i, o.text, p, o) for i, (o, p) in enumerate(outcomes)]
        if s.chance_kind() == "shuffle":        # orders of twins a variable names: apart
            return _told_apart([(i, o.text, p, o) for i, (o, p) in enumerate(outcomes)])
        # values of one text (twins): one outcome where they lead to one position, apart
        # where not (twins in two zones, or two places of a stack, or one a variable names)
        self.merged = True
        merged: Dict[tuple, list] = {}
        for n, (outcome, p) in enumerate(outcomes):
            after = s.clone()
            try:
                after.apply_chance(outcome)
                key = outcome.text, after.key()
            except GdlError:                    # the rules fail after it: its own
                key = outcome.text, n
            merged.setdefault(key, [outcome, 0])[1] += p
        return _told_apart([(i, o.text, p, o) for i, (o, p) in enumerate(merged.values())],
                           s)

    def _draw_list(self, public: str, zone_cards):
        """The next card from the top of a shuffled zone, uniform among the cards left
        (twins of one facing are one outcome, with their count as weight; where the zone
        holds both facings, a face-down card's text is in brackets, as in the views).  A
        group's outcome id is the id of its kind's n-th card, n its place among the kind's
        groups here: two positions that differ only in which twin is where number their
        outcomes alike."""
        drawn = set(self.draws)
        up = self.state.up
        left = sorted((c for c in zone_cards if c.id not in drawn), key=lambda c: c.id)
        first: Dict[tuple, list] = {}
        named = named_twins(self.state)
        for c in left:
            first.setdefault(alike(c, up, named), [c, 0])[1] += 1
        mixed = len({up[c.id] for c in zone_cards}) > 1
        place = len(self.draws) + 1
        listed = [(c.id, f"{public}: card {place} from the top is "
                         f"{c.text if up[c.id] or not mixed else f'({c.text})'}",
                   Fraction(k, len(left)), ("draw", c.id, zone_cards))
                  for c, k in (first[g] for g in sorted(first))]
        if self.data.game.prog.twin_kinds:
            kind_ids, nth = self.data.kind_ids, Counter()
            for i, entry in enumerate(listed):
                kind = self.data.game.prog.cards[entry[0]].kind
                listed[i] = (kind_ids[kind][nth[kind]],) + entry[1:]
                nth[kind] += 1
            if named:                           # a named twin and another, one text
                listed = _told_apart(listed)
        listed.sort()
        return listed

    def apply_chance(self, action: int):
        listed = self.outcomes
        if listed is None:
            listed = self.chance_list()
        if 0 <= action < len(listed) and listed[action][0] == action:    # ids from 0 on
            entry = listed[action]
        else:
            entry = next((e for e in listed if e[0] == action), None)
        if entry is None:
            raise IntegrationError(f"chance outcome {action} is not possible here")
        what = entry[3]
        if not isinstance(what, tuple):
            (self.ready or self.state).apply_chance(what)
            self.changed()
            return
        self.draws.append(what[1])
        drawn = set(self.draws)
        left = sorted((c for c in what[2] if c.id not in drawn), key=lambda c: c.id)
        up, named = self.state.up, named_twins(self.state)
        if len({alike(c, up, named) for c in left}) <= 1:   # the rest of the order: forced
            top_first = self.draws + [c.id for c in left]
            s = self.state
            s.apply_chance(s.outcome_from_data("shuffle", tuple(reversed(top_first))))
            self.draws = []
        self.changed()

    def __deepcopy__(self, memo):
        """A copy of the state, with what was worked out for its node: the copy is at the
        same node, and `changed` gives either its own answers once it moves on (the map
        of legal moves is shared until then: what one adds holds for both)."""
        data, s = self.data, self.ready or self.state
        h = _Handle.__new__(_Handle)
        h.data, h.decisions, h.draws, h.digests = data, self.decisions, self.draws[:], \
            self.digests[:]
        h._state = copied = s.clone()
        h.ready = None if data.sampled else copied
        h.rng = None if self.rng is None else copy.deepcopy(self.rng, memo)
        h.outcomes, h.floats, h.player, h.legal = self.outcomes, self.floats, self.player, \
            self.legal
        h.merged = self.merged
        return h

    def __reduce__(self):
        s = self.state
        return (_restore, (self.data.path, self.data.params, s.trace(), self.decisions,
                           self.rng.getstate() if self.rng is not None else None,
                           list(self.draws)))


def _told_apart(listed, state=None) -> list:
    """Chance outcomes (id, text, probability, what) with texts made unique, as OpenSpiel
    requires of a node's action strings: where outcomes that differ share a text (twins
    in different places, or one a variable names), each of them names its card's zone
    where that tells them apart (a `random` card), else each after the first its number
    among them (`#2`)."""
    texts = Counter(e[1] for e in listed)
    if len(texts) == len(listed):
        return listed
    where = {}
    if state is not None:                       # a `random` draw: data is the value's place
        zones, values = state.prog.zones, state.node[3]
        for e in listed:
            value = values[e[3].data]
            if isinstance(value, Card) and texts[e[1]] > 1:
                where[e[0]] = f"{e[1]} (in {zones[state.loc[value.id]].text})"
        labels = Counter(where.values())       # a text's group told apart by zones
        for text in {e[1] for e in listed if e[0] in where}:    # only where they differ
            group = [e[0] for e in listed if e[1] == text]
            if any(i not in where or labels[where[i]] > 1 for i in group):
                for i in group:
                    where.pop(i, None)
    seen: Counter = Counter()
    out = []
    for e in listed:
        text = e[1]
        if texts[text] > 1:
            seen[text] += 1
            text = where.get(e[0]) or (text if seen[text] == 1 else f"{text} #{seen[text]}")
        out.append((e[0], text) + e[2:])
    return out


def _floats(outcomes) -> list:
    """[(id, probability as a float)] of a chance list (a Fraction's own float() goes
    through the numbers module; its parts' division is the same correctly rounded
    value)."""
    return [(i, p.numerator / p.denominator) for i, _, p, _ in outcomes]


def _orders(cards, up, named=()) -> int:
    """Returns the number of distinct orders of these cards (twins alike, `up` by card
    id and no variable naming their kind, not told apart)."""
    total = factorial(len(cards))
    for k in Counter(alike(c, up, named) for c in cards).values():
        total //= factorial(k)
    return total


def _restore(path, params, trace, decisions, rng_state, draws) -> _Handle:
    from ..serial import replay
    data = _game_data(path, params)
    s = replay(data.game, trace)        # either format (pickled by an older gdl too)
    rng = None
    if rng_state is not None:
        rng = random.Random()
        rng.setstate(rng_state)
    return _Handle(data, s, decisions, rng, draws)


class GdlState(pyspiel.State):
    """A pyspiel state over a gdl state."""

    def __init__(self, game, data: Optional[_GameData] = None):
        super().__init__(game)
        data = data or game.data
        rng = getattr(game, "rng", None)        # the start, copied when first read
        self._h = _Handle(data, None, rng=random.Random(rng.getrandbits(64))
                          if data.sampled and rng is not None else None)

    def current_player(self):
        """Returns the seat index to move, or CHANCE, SIMULTANEOUS or TERMINAL (worked
        out once per node: OpenSpiel asks several times a step)."""
        h = self._h
        p = h.player
        return h.current_player() if p is None else p

    # The queries below are OpenSpiel's own, answered here for Python code: the C++
    # versions ask `current_player` through pybind11 each time (legal_actions() five
    # times), each crossing costing more than the answer.  Cases other than the common
    # ones go to the C++ version, so every answer is the one it would give.
    def is_chance_node(self):
        h = self._h
        p = h.player
        return (h.current_player() if p is None else p) == _CHANCE

    def is_player_node(self):
        h = self._h
        p = h.player
        return (h.current_player() if p is None else p) >= 0

    def is_simultaneous_node(self):
        h = self._h
        p = h.player
        return (h.current_player() if p is None else p) == _SIMULTANEOUS

    def legal_actions(self, player=None):
        """OpenSpiel's legal_actions(): the chance outcomes' ids at a chance node, none at
        the end, else the player's (by default the one to move)."""
        h = self._h
        p = h.player
        if p is None:
            p = h.current_player()
        if p >= 0 and (player is None or player == p):      # the one seat deciding
            got = h.legal.get(p)
            if got is None:
                got = h.legal_of(h.data.game.seats[p])
            return list(got[0])
        if p == _TERMINAL:
            return []
        if p == _CHANCE:
            return [i for i, _, _, _ in h.chance_list()]
        if player is None or player == p:
            return self._legal_actions(p)
        return pyspiel.State.legal_actions(self, player)

    def _legal_actions(self, player):
        """Returns the player's legal action indices, ascending."""
        h = self._h
        p = h.current_player()
        if player < 0 or p != player and p != _SIMULTANEOUS:
            return []
        seat = h.data.game.seats[player]
        if p == _SIMULTANEOUS and seat not in h.state.to_move():
            return []
        return list(h.legal_of(seat)[0])

    def chance_outcomes(self):
        """Returns [(outcome id, probability)] at a chance node."""
        try:
            got = self._h.chance_floats()
        except IndexError:                  # at the end: no chance node's parts
            if self.is_chance_node():
                raise
            got = None
        if not got:                         # a chance node has an outcome at least
            raise IntegrationError("chance_outcomes is for chance nodes; this is "
                                   + ("the end of the game" if self.is_terminal() else
                                      "a decision"))
        return list(got)

    def _move(self, seat, action):
        m = self._h.legal_of(seat)[1].get(action)
        if m is not None:
            return m
        raise IntegrationError(f"action {action} ({self._h.data.table.text(action)}) is not "
                               f"legal for {seat.name} here")

    def _apply_action(self, action):
        """Applies a chance outcome id or the current player's action."""
        h = self._h
        s = h.ready or h.state
        node = s.node
        kind = node[0]
        if kind == AT_CHANCE:
            h.apply_chance(action)              # which forgets the node's answers
            return
        if kind == AT_DECISION and h.decisions < h.data.max_length:   # `apply`'s lines
            seat = node[2][0]                                       # for a listed move
            move = (h.legal.get(seat.index) or h.legal_of(seat))[1].get(action) \
                or self._move(seat, action)
            s._decided(node[1], seat, move.action, move.args, move._text or move.text)
        elif h.current_player() == _TERMINAL:
            raise IntegrationError(f"the game is over: action {action} cannot be applied")
        else:
            raise IntegrationError("every player moves at once here: apply_actions takes "
                                   "one action per player")
        h.decisions += 1
        h.changed()

    def _apply_actions(self, actions):
        """Applies one action per player at a simultaneous node (non-deciders' ignored)."""
        h = self._h
        s = h.state
        player = h.current_player()
        if player == _TERMINAL:
            raise IntegrationError("the game is over: no actions can be applied")
        # pyspiel records the actions whatever the game does with them: refuse them where
        # they cannot be made (a game of one seat at a time, as OpenSpiel's own games do,
        # and chance); a `choose` of a simultaneous game takes its seat's (rl_environment
        # steps such a game by apply_actions alone)
        if player == _CHANCE or not h.data.kind.simultaneous:
            why = "chance acts here" if player == _CHANCE else \
                "this game's players move one at a time"
            raise IntegrationError(f"apply_actions is for a node where every player moves "
                                   f"at once, and {why}: use apply_action")
        if len(actions) != len(h.data.game.seats):
            raise IntegrationError(f"apply_actions takes one action per player "
                                   f"({len(h.data.game.seats)}), not {len(actions)}")
        moves = [(seat, self._move(seat, actions[seat.index])) for seat in s.to_move()]
        for seat, move in moves:
            s.apply_listed(move, seat)
        h.decisions += 1
        h.changed()

    def _action_to_string(self, player, action):
        """Returns the move text of an action, or the text of a chance outcome."""
        if player == pyspiel.PlayerId.CHANCE:
            return next((text for i, text, _, _ in self._h.chance_list() if i == action),
                        f"chance outcome {action}")
        return self._h.data.table.text(action)

    def is_terminal(self):
        """Returns whether the game is over (or truncated at max_game_length)."""
        h = self._h
        p = h.player
        return (h.current_player() if p is None else p) == _TERMINAL

    def returns(self):
        """Returns each seat's result (0 each until the end)."""
        return [float(r) for r in self._h.state.returns()]

    def gdl_state(self):
        """Returns the underlying gdl state (do not modify it)."""
        return self._h.state

    def infoset_string(self, seat) -> str:
        """Returns the seat's information state string (see _Handle.infoset_string)."""
        return self._h.infoset_string(seat)

    def __str__(self):
        h = self._h
        cards = h.data.game.prog.cards
        drawn = " ".join(cards[i].text for i in h.draws)
        return h.state.view(None) + (f"\ndrawn from the top: {drawn}" if drawn else "")


class _Observer:
    """Observations as the engine defines them: the seat's view (tensor: hashed tokens),
    or with perfect recall its infoset key."""

    def __init__(self, data: _GameData, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.data = data
        self.recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        private = (iig_obs_type.private_info if iig_obs_type is not None
                   else pyspiel.PrivateInfoType.SINGLE_PLAYER)
        self.everything = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        if private == pyspiel.PrivateInfoType.NONE and not data.kind.perfect_information:
            raise ValueError("the gdl engine has no public-only observation of a game with "
                             "hidden information; use the player's own (SINGLE_PLAYER)")
        if iig_obs_type is not None and not iig_obs_type.public_info:
            raise ValueError("the gdl engine has no observation without the public "
                             "information (public_info=False): a seat's view holds both")
        if self.recall:
            self.tensor, self._dict = None, None
        else:
            import numpy as np
            self.tensor = np.zeros(DEFAULT_SIZE, np.float32)
            self._dict = {"observation": self.tensor}

    @property
    def dict(self):
        """The tensors by name, read by OpenSpiel after `set_from`: there are none with
        perfect recall, which OpenSpiel's own games without one say as an error (an empty
        dict read as a tensor of shape [])."""
        if self._dict is None:
            raise IntegrationError("the gdl adapter has no information-state tensor "
                                   "(provides_information_state_tensor is False): use "
                                   "information_state_string, or observation_tensor")
        return self._dict

    def set_from(self, state, player):
        """Fills the tensor with the hashed view of `player` (or of everything)."""
        if self.tensor is not None:
            s = state.gdl_state()
            encode_view(s, None if self.everything else player, out=self.tensor)

    def string_from(self, state, player):
        """Returns the view (or perfect-recall infoset key) of `player`."""
        s = state.gdl_state()
        if self.everything:
            return "\n".join(s.trace_texts()) if self.recall else s.view(None)
        seat = self.data.game.seats[player]
        return state.infoset_string(seat) if self.recall else s.view(seat)


# ---------------------------------------------------------------------- registration
def register(path, short_name: Optional[str] = None) -> str:
    """Registers a ruleset with pyspiel (once) and returns its short name."""
    name = short_name or short_name_for(path)
    resolved = str(Path(path).resolve())
    if name in _REGISTERED:
        if _REGISTERED[name] != resolved:
            raise IntegrationError(f"{name} is already registered for {_REGISTERED[name]}; "
                                   f"pass another short_name for {path}")
        return name
    if resolved not in _RULESETS:
        _RULESETS[resolved] = load_ruleset(path)
    game = Game(_RULESETS[resolved], {})
    players = next(d for d in game.ruleset.decls if isinstance(d, A.PlayersDecl))
    kind = game_kind(game, walk=False, max_game_length=1, utility_bound=1.0)
    _SPECS[resolved] = spec_of(game)
    cls = type(f"GdlGame_{name}", (GdlGame,), {"path": str(path), "short_name": name})
    pyspiel.register_game(_game_type(name, game, kind, players.lo, players.hi,
                                     _SPECS[resolved]), cls)
    _REGISTERED[name] = resolved
    return name


def _unpickled_game(path, short_name, params) -> "pyspiel.Game":
    return pyspiel.load_game(register(path, short_name), params)


def load_openspiel_game(path, options: Optional[Mapping[str, object]] = None,
                        **params) -> "pyspiel.Game":
    """Returns the ruleset as a pyspiel game, with option overrides (name -> value) and
    adapter parameters (seed, max_game_length, utility_bound, chance)."""
    name = register(path)
    spec = _SPECS[_REGISTERED[name]]
    given = dict(options or {}, **params)
    # the options read as the engine reads them ("on" is true, "ture" an error, 4.9 no
    # whole number), not by the parameter's Python type (both were false, 4.9 was 4)
    ruleset = _RULESETS[_REGISTERED[name]]
    read = resolve_overrides(ruleset, {k: v for k, v in given.items()
                                       if k in option_decls(ruleset)})
    merged = {k: _param(spec.get(k), read[k] if type(read.get(k)) in (bool, int) else v, k)
              for k, v in given.items()}
    return pyspiel.load_game(name, merged)


def _param(default, value, name: str = ""):
    """Returns `value` as the type of the parameter's default (pyspiel checks types)."""
    if isinstance(default, bool):
        return value if isinstance(value, bool) else str(value).lower() in ("true", "1", "yes")
    if isinstance(default, (int, float)) and not isinstance(value, bool):
        if type(default) is int and isinstance(value, float) and not value.is_integer():
            raise IntegrationError(f"parameter {name} takes a whole number, not {value!r}")
        try:
            return type(default)(value)
        except (TypeError, ValueError):
            return value                # the option's own check reports it
    if isinstance(default, str):
        return _option_text(value)
    return value


make_game = load_openspiel_game

__all__ = ["register", "load_openspiel_game", "make_game", "short_name_for", "GdlGame",
           "GdlState", "ADAPTER_PARAMS"]
