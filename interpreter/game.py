"""Loading a ruleset into a Game, the factory of states.

`load(path, options)` parses, merges a variant with its base, checks, resolves options and
compiles once; `game.new_state()` then runs the setup up to the first decision or chance.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Sequence

from gdl import ast as A
from gdl.errors import GdlError, MoveError, OptionError
from gdl.parser import parse_file, parse_text
from gdl.variants import merge_variant

from ._compiler import compile_program
from ._fuse import ready_all
from .options import option_decls, resolve_overrides
from ._trigger_skips import calm_reads, skippable
from .state import State
from .values import Seat, card_order

#: whether a check leaves out the triggers whose conditions cannot have become true since
#: the last one (`_trigger_skips`); off, every check tests every trigger (the tests
#: compare the two)
TRIGGER_SKIPS = True

#: the most expression texts `Game.evaluate` keeps compiled, then it starts again
EVALUATED_KEPT = 256


class Game:
    """A compiled ruleset with fixed option values."""

    def __init__(self, ruleset: A.Ruleset, overrides: Mapping[str, object],
                 coverage: bool = False, trigger_order: Optional[Sequence[str]] = None):
        self.ruleset = ruleset
        self.path = ruleset.path
        self.source = ruleset.source
        self.overrides = resolve_overrides(ruleset, overrides)
        #: With `coverage`, (rule, line, statement kind) -> how often it ran, over every
        #: state of this game; statements that never ran stay at 0.
        self.coverage = {} if coverage else None
        self._made = False                       # a state was made (set_trigger_order)
        if trigger_order is not None:            # compiled once, in this order
            trigger_order = list(trigger_order)
            declared = [d.name for d in ruleset.decls if isinstance(d, A.TriggerDecl)]
            if sorted(trigger_order) != sorted(declared):
                raise MoveError(f"the triggers are {', '.join(sorted(declared))}")
        self._compile(trigger_order)
        self.title = self.prog.title or Path(self.path).stem
        self._start: Optional[State] = None      # the state after setup, to clone
        self._setup_counts: tuple = ()           # (coverage key, runs) the setup adds
        self._checked_names: dict = {}           # `evaluate`'s symbol table, made once
        self._evaluated: dict = {}               # `evaluate`'s text -> compiled function

    def _compile(self, trigger_order):
        self.prog = compile_program(self.ruleset, self.overrides, self.coverage,
                                    trigger_order)
        if TRIGGER_SKIPS and self.prog.triggers:
            self.prog.trigger_skips = skippable(self.prog, self._blank_state())
            self.prog.calm_reads = calm_reads(self.prog)
        self.options = dict(self.prog.options)
        self.seats = list(self.prog.seats)

    def __reduce__(self):
        """Pickles the checked ruleset, the options and the trigger order, compiled again
        on unpickling (compiled code does not pickle); coverage starts again from 0."""
        return (_unpickled_game, (self.ruleset, self.overrides, self.coverage is not None,
                                  self.trigger_names()))

    def compile_now(self):
        """Compiles every run of the rules now: `load` leaves each to its first use, as
        most are never entered by a given game, and a benchmark timing steady play (or a
        server that must not pause at a first visit) wants them all done first."""
        for code in self.prog.fused_code:
            ready_all(code)

    def trigger_names(self):
        """Returns the triggers in the order they are checked (priority, then file order)."""
        return [name for _, name, _, _, _ in self.prog.triggers]

    def trigger_priorities(self):
        """Returns {trigger name: declared priority}."""
        return {name: priority for priority, name, _, _, _ in self.prog.triggers}

    def set_trigger_order(self, names):
        """Checks the triggers in this order (to test whether order matters), set before
        any state is made (or give `trigger_order` to `Game`): the rules are compiled
        again, as the runs written from them test the conditions inline in the order they
        had, and a state made before would hold the old program's seats and cards."""
        names = list(names)
        if sorted(names) != sorted(self.trigger_names()):
            raise MoveError(f"the triggers are {', '.join(sorted(self.trigger_names()))}")
        if self._made:
            raise MoveError("set the trigger order before making a state of the game (a "
                            "state made before would keep the old order and objects): "
                            "load the game again, or give Game(..., trigger_order=...)")
        if names == self.trigger_names():
            return
        self._compile(names)
        self._start, self._setup_counts = None, ()     # the setup may fire triggers
        self._checked_names, self._evaluated = {}, {}  # compiled with the old program

    @property
    def action_names(self):
        """Returns the names of the ruleset's actions, sorted."""
        return sorted(self.prog.actions)

    @property
    def num_players(self) -> int:
        return len(self.seats)

    def seat(self, player) -> Seat:
        """Returns the seat named by a Seat, a seat number (from 0) or a name."""
        if isinstance(player, Seat):
            return player
        if isinstance(player, int) and 0 <= player < len(self.seats):
            return self.seats[player]
        for s in self.seats:
            if s.name == player:
                return s
        raise MoveError(f"no player {player!r}; the players are "
                        f"{', '.join(s.name for s in self.seats)}",
                        suggestion=None if not isinstance(player, str) else
                        _near(player, [s.name for s in self.seats]))

    def option_docs(self):
        """Returns [(name, value, doc)] for every option."""
        decls = option_decls(self.ruleset)
        return [(n, self.options.get(n), decls[n].doc) for n in decls]

    def new_state(self, seed: Optional[int] = None, observe: bool = False) -> State:
        """Returns the state after setup: the first decision or chance event.  With
        `observe`, each state keeps every seat's perfect-recall log as it goes, so
        `infoset_key` is immediate (enumerators, CFR) instead of replaying the history."""
        if seed is not None and type(seed) is not int:
            raise OptionError(f"a seed is a whole number or None, not {seed!r}")
        self._made = True
        start = self._start
        if start is None:                        # setup involves no chance: run it once
            start = self._start = self._counted_setup()
        elif self._setup_counts:                 # coverage counts the setup of every game
            coverage = self.coverage
            for key, n in self._setup_counts:
                coverage[key] += n
        s = start.clone()
        s.seed = seed
        if observe:
            from .observe import views
            s.obs = tuple((None, ((), v)) for v in views(s))
        return s

    def _counted_setup(self) -> State:
        """`_setup`, noting what it added to the coverage counts: the setup runs the same
        statements every time, so a later game adds them again instead of running it."""
        if self.coverage is None:
            self._setup_counts = ()
            return self._setup()
        before = dict(self.coverage)
        start = self._setup()
        self._setup_counts = tuple((key, n - before.get(key, 0))
                                   for key, n in self.coverage.items()
                                   if n != before.get(key, 0))
        return start

    def _setup(self) -> State:
        s = self._blank_state()
        s.run()
        return s

    def _blank_state(self) -> State:
        """Returns the state before setup: every card where `cards into` puts it, the
        variables at their initial values, no rule run.  A snapshot is read into one
        (`state_from_json` sets every part): running the setup first would be work
        thrown away, and counted as the setup's coverage once more."""
        p = self.prog
        s = State.__new__(State)
        s.game, s.prog = self, p
        s.zones = [[] for _ in p.zones]
        s.up = [False] * len(p.cards)
        s.loc = [0] * len(p.cards)
        for cid, slot in p.placement:
            s.zones[slot].append(p.cards[cid])
            s.loc[cid] = slot
            s.up[cid] = p.zone_info[slot].facing_up
        if p.has_twins:             # a set zone's twins together (`card_order`)
            for zone, unordered in zip(s.zones, p.is_set):
                if unordered:
                    zone.sort(key=card_order)
        s.known = [0] * len(p.seats)
        s.vars = list(p.var_init)
        s.frame = [None] * p.frame_size
        s.out = 0
        s.pc = 0
        s.node = None
        s.result = None
        s.lines = []
        s.lazy = False
        s.dirty = set()
        s.budget = s.free = 0
        s.rng = s.mid = s.placed = None
        s.seed = None
        s.calm = False
        s.obs = None
        return s

    def evaluate(self, text: str, state: State):
        """Returns the value of a gdl expression (not Python) in a state, e.g.
        `colour_sum(cell[1, 1], black)`; raises GdlError for bad text."""
        compiler = self.prog.compiler
        fn = self._evaluated.get(text)
        if fn is None:
            fn = self._compiled_expression(text)
        compiler.source = text          # a rule error's excerpt is of the expression
        try:
            return fn(state)
        finally:
            compiler.source = self.source

    def _compiled_expression(self, text: str):
        """`evaluate`'s function of a state for `text`, parsed, checked and compiled once
        (kept for the texts asked for most recently)."""
        from gdl.checker import check_expression
        from gdl.parser import parse_expression
        from ._scope import Scope
        node = parse_expression(text)
        _, needs_value, joins = check_expression(self.ruleset, node, text,
                                                 known=self._checked_names,
                                                 seats=tuple(s.name for s in self.seats))
        compiler = self.prog.compiler
        compiler.source, kept, kept_joins = text, compiler.needs_value, compiler.joins_lists
        compiler.needs_value = {**kept, **needs_value}
        compiler.joins_lists = kept_joins | joins
        try:
            fn = compiler.expr(node, Scope())
        finally:
            compiler.source, compiler.needs_value = self.source, kept
            compiler.joins_lists = kept_joins
        if len(self._evaluated) >= EVALUATED_KEPT:
            self._evaluated.clear()
        self._evaluated[text] = fn
        return fn

    def state_from_json(self, data) -> State:
        """Returns the state a `State.to_json()` snapshot describes."""
        from .serial import state_from_json
        self._made = True
        return state_from_json(self, data)

    def card(self, text: str):
        """Returns the first card whose text is `text` (e.g. `KH`), or raises MoveError."""
        for c in self.prog.cards:
            if c.text == text:
                return c
        raise MoveError(f"no card {text!r} in this game",
                        suggestion=_near(text, sorted({c.text for c in self.prog.cards})))

    def zone(self, text: str):
        """Returns the zone whose text is `text` (e.g. `cell[1,2]`), or raises MoveError."""
        wanted = text.replace(" ", "")
        for z in self.prog.zones:
            if z.text == wanted:
                return z
        raise MoveError(f"no zone {text!r} in this game",
                        suggestion=_near(wanted, [z.text for z in self.prog.zones]))

    def profile(self) -> dict:
        """Returns what kind of game this is, like OpenSpiel's game type and info."""
        p = self.prog
        decls = self.ruleset.decls
        has = {type(x) for x in _walk(decls)}
        players = next(d for d in decls if isinstance(d, A.PlayersDecl))
        return {
            "title": self.title,
            "players": len(p.seats) if players.lo == players.hi else
            f"{players.lo}..{players.hi} (now {len(p.seats)})",
            "chance": A.Shuffle in has or A.RandomChoice in has,
            "information": "imperfect" if p.has_hidden or any(
                a.secrets for a in p.actions.values()) or any(
                x is not None for x in p.var_private) or any(
                isinstance(x, A.RandomChoice) and x.secret for x in _walk(decls))
            else "perfect",
            "simultaneous": A.Simultaneous in has,
            "cards": len(p.cards),
            "zones": len(p.zones),
            "actions": sorted(p.actions),
            "triggers": len(p.triggers),
        }


def _near(word, names):
    from gdl.errors import did_you_mean
    return did_you_mean(word, names)


def _walk(node):
    """Yields every AST node below `node` (tuples and attrs nodes)."""
    if isinstance(node, tuple):
        for x in node:
            yield from _walk(x)
        return
    if not hasattr(node, "__attrs_attrs__"):
        return
    yield node
    for f in node.__attrs_attrs__:
        yield from _walk(getattr(node, f.name))


def load_ruleset(path) -> A.Ruleset:
    """Returns the checked, variant-merged AST of a ruleset file."""
    from gdl.checker import check_file
    return check_file(path)


#: the games unpickled in this process, by what they were made of: the states of one
#: game pickled one by one come back to one game, compiled once
_UNPICKLED: dict = {}


def _unpickled_game(ruleset, overrides, coverage: bool, trigger_order) -> Game:
    from .values import text_of
    key = (ruleset.path, ruleset.source, tuple(sorted((k, text_of(v))
                                                      for k, v in overrides.items())),
           coverage, tuple(trigger_order))
    game = _UNPICKLED.get(key)
    if game is None or game.ruleset != ruleset:
        if len(_UNPICKLED) >= 16:
            _UNPICKLED.clear()
        game = _UNPICKLED[key] = Game(ruleset, overrides, coverage, trigger_order)
    return game


def load(path, options: Optional[Mapping[str, object]] = None,
         coverage: bool = False) -> Game:
    """Returns the game of a ruleset file with these option overrides (name -> value);
    `coverage` counts how often each statement runs (see Game.coverage)."""
    return Game(load_ruleset(path), options or {}, coverage)


def load_text(text: str, options: Optional[Mapping[str, object]] = None,
              path: str = "<string>") -> Game:
    """Returns the game of ruleset text (variants resolved relative to the cwd)."""
    from gdl.checker import check
    ruleset = merge_variant(parse_text(text, path), parse_file)
    check(ruleset)
    return Game(ruleset, options or {})


__all__ = ["Game", "load", "load_text", "load_ruleset", "GdlError"]
