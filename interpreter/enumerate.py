"""Exhaustive enumeration: every reachable state of a game, each counted once.

`enumerate_states(game)` walks the state graph breadth first from `game.new_state()`,
merging states whose canonical keys (`State.key()`) are equal, and returns a `Report`:
how many states of each kind, each player's information sets, the longest line of play,
whether the graph has cycles (a game that can go on for ever), and the exact probability
of each outcome when every decision is uniformly random.

The walk uses the game API, but for what it does once per edge or state: it reads a
state's node tag, keys states with `State.key()`'s function, applies a move it has just
listed without `apply`'s checks, and makes an expanded state its own last child instead
of cloning it once more (`_Walk.expand`).  A simultaneous decision is one node whose
children are the joint moves (each deciding seat uniform and independent); a chance
node's children are its listed outcomes.  A state reached by several lines of play is
expanded once, and its information-set keys are those of the first line that reached it
(breadth first).
"""
from __future__ import annotations

import gc
import itertools
import random
import time
from collections import deque
from contextlib import contextmanager
from fractions import Fraction
from math import factorial, gcd
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import attrs

from gdl.errors import GdlError, listed

from ._compiler import CHANCE as CHANCE_NODE, DECIDE, END, SIMUL
from ._keys import cards_at, keyer
from .observe import finish_redaction, redaction, seen_in_full, viewer
from .state import CHANCE_LIST_LIMIT, uniform as _uniform
from .values import text_of

#: Strongly connected components larger than this are not solved exactly: the outcome
#: probabilities of a game whose cycles are that large are left out of the report.
CYCLE_SOLVE_LIMIT = 400

TERMINAL, CHANCE, DECISION, SIMULTANEOUS = "terminal", "chance", "decision", "simultaneous"

#: the kind of state a node is, by the node's tag (a state's `node[0]`)
_KINDS = {END: TERMINAL, CHANCE_NODE: CHANCE, DECIDE: DECISION, SIMUL: SIMULTANEOUS}


class EnumerationError(GdlError):
    kind = "enumeration error"


@attrs.define
class Report:
    """What `enumerate_states` found.  Counts are over distinct canonical states."""
    title: str
    options: Dict[str, object]      # JSON-ready: a number, a truth, a member's name, a text
    states: int = 0
    terminal: int = 0
    chance: int = 0
    decision: int = 0               # decision nodes, simultaneous ones included
    simultaneous: int = 0
    legal_moves: int = 0            # summed over decision nodes and their deciding seats
    joint_moves: int = 0            # transitions out of decision nodes (joint at simultaneous)
    chance_outcomes: int = 0        # outcomes listed at chance nodes
    infosets: Optional[Dict[str, int]] = None   # per seat name; None: not counted
    mixed_infosets: List[str] = attrs.Factory(list)  # an information set with unlike moves
    max_depth: Optional[int] = None  # longest line of play in steps; None if cycles
    bfs_depth: int = 0              # the greatest shortest distance from the start
    cycles: Optional[bool] = None   # None when the walk stopped early
    outcomes: Optional[Dict[tuple, Fraction]] = None  # returns -> probability
    unexplored: Fraction = Fraction(0)   # probability of reaching an unexpanded state
    never_ends: Fraction = Fraction(0)   # probability of staying in a cycle for ever
    complete: bool = True
    stopped: Optional[str] = None   # why the walk stopped early
    unexpanded: int = 0             # non-terminal states left unexpanded
    seconds: float = 0.0
    seats: Tuple[str, ...] = ()

    @property
    def rate(self) -> float:
        """Returns states per second."""
        return self.states / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        """Returns the report as JSON-ready data (probabilities as exact "p/q" texts)."""
        data = attrs.asdict(self, recurse=False)
        data["outcomes"] = None if self.outcomes is None else [
            {"returns": list(r), "probability": str(p), "approx": float(p)}
            for r, p in _sorted_outcomes(self.outcomes)]
        data["unexplored"] = str(self.unexplored)
        data["never_ends"] = str(self.never_ends)
        data["seats"] = list(self.seats)
        data["states_per_second"] = round(self.rate, 1)
        return data

    def text(self) -> str:
        """Returns the report as lines of text for people."""
        return "\n".join(_report_lines(self))


# ---------------------------------------------------------------------------- the walk
class _Walk:
    """The state graph as it is discovered, breadth first: parallel lists indexed by state
    id, with each state's edges as (child id, probability) and, per seat, the id of its
    perfect-recall chain of observations.  During the walk a state's edges are its
    children's ids, their probabilities kept apart (`probs`): what comes after the walk
    reads the pairs only where some state was reached twice (`pair_edges`)."""

    def __init__(self, game, count_infosets: bool, max_states, max_depth, progress):
        self.game = game
        self.seats = list(game.seats)
        self.key = keyer(game.prog)
        self.alone = [(seat.index,) for seat in self.seats]     # movers of a one-seat decision
        self.max_states, self.max_depth, self.progress = max_states, max_depth, progress
        self.ids: Dict[tuple, int] = {}
        self.kind: List[str] = []
        self.depth: List[int] = []
        self.edges: List[Optional[list]] = []    # None: not expanded
        # an expanded state -> its edges' probability (one for all), or their list
        self.probs: Dict[int, object] = {}
        self.movers: List[tuple] = []    # indices of the seats deciding there (infosets)
        self.returns: Dict[int, tuple] = {}
        self.count_infosets = count_infosets
        self.chain: List[tuple] = []
        self.links: Dict[tuple, int] = _Numbers()     # a chain link -> its chain's id
        # every seat's view of a state in two parts (`infoset_columns`), given its key too
        # where the key's cards' part can stand for the cards in the memo of views (`viewer`)
        self.views = viewer(game.prog, cards_at(game.prog), True) if count_infosets else None
        self.texts: Dict[str, int] = {}     # what seats saw of a step -> its id (`intern`)
        self.seen: dict = {}        # what all seats see of a step -> their ids (`observed`)
        # per seat: id of a move seen in full -> (the move, what every seat saw) (`said`)
        self.heard: List[dict] = [{} for _ in self.seats]
        self.moves = self.joint = self.outcomes = 0
        # per seat: the id of an information set's chain -> the moves it first offered
        self.infoset_moves: List[dict] = [{} for _ in self.seats]
        self.mixed: List[str] = []
        self.stopped: Optional[str] = None
        # has an edge led to a state found no later than its source?  If none has, the
        # ids are a topological order: the graph has no cycle, and `_order` is trivial
        self.backward = False
        # has an edge led to a state found before?  If none has, the graph is a tree (as
        # a poker game's is): each state's only line from the start is as long as its depth
        self.merged = False
        # the probability of reaching each state, as `_propagate_acyclic` works it out,
        # added up as the edges are found: while no edge goes backward, a state's parents
        # are all expanded before it is (None: a walk stopped mid-expansion; the masses
        # are then worked out after the walk, as they are where an edge went backward)
        self.reach: Optional[list] = []
        self.shares: dict = {}      # (mass, id of a probability) -> (it, their product)

    def run(self):
        root = self.game.new_state()
        self.add(root, self.key(root), 0)
        self.reach = [(1, 1)]
        queue = deque([(0, root)])
        max_depth, progress = self.max_depth, self.progress
        kinds, depths = self.kind, self.depth
        done = 0
        while queue:
            sid, state = queue.popleft()
            kind = kinds[sid]
            if kind is TERMINAL:            # only the root: terminal children are not queued
                pass
            elif max_depth is not None and depths[sid] >= max_depth:
                self.stopped = self.stopped or f"--max-depth {max_depth}"
            else:
                fresh = self.expand(sid, state, kind)
                if fresh is None:
                    self.stopped = f"--max-states {self.max_states}"
                    return
                queue.extend(fresh)
                done += 1
                if progress is not None and not done & 255:
                    reason = progress(len(kinds), len(queue))
                    if reason:                  # between two states: nothing half-done
                        self.stopped = str(reason)
                        return

    def expand(self, sid, state, kind) -> Optional[list]:
        """Records the edges out of a state; returns its newly found children that are not
        terminal (nothing is left to do at those), or None (and records nothing) if they
        would take the walk past max_states.  The state itself becomes its last child: the
        walk is done with it (but where that child's observations need the state as it
        was, to redact a move the seats see only in part).  The children are made in this
        loop itself, as `_children` makes them (without a generator, and with a
        simultaneous decision's moves committed without `apply`'s checks)."""
        counting = self.count_infosets
        if kind is CHANCE:
            items = state.chance_outcomes()
            if items is None:
                raise _too_big(state)
            seat = site = p = None
            reuse = True
        elif kind is DECISION:          # `_choices`' seat and moves, read directly
            node = state.node
            site, seat, items = node[1], node[2][0], state.legal_moves()
            p = _uniform(len(items))
            if counting:
                reuse, heard = seen_in_full(items[-1]), self.heard[seat.index]
            else:
                reuse = True
        else:                       # every joint move, each deciding seat uniform
            seats, options = _choices(state, kind)
            items = list(itertools.product(*options))
            p = _uniform(len(items))
            seat = site = None
            reuse = not counting
        ids, kinds, depths, key_of = self.ids, self.kind, self.depth, self.key
        depth, limit = depths[sid] + 1, self.max_states
        first = len(kinds)
        last = len(items) - 1
        edges, fresh = [], []
        reach, shares = self.reach, self.shares
        mass = reach[sid]
        if mass is not None and not mass[0]:
            mass = None             # (nothing to pass on, as `_propagate_acyclic` skips it)
        share = given = None
        if mass is not None and p is not None:      # one probability for every child
            given = shares.get((mass, id(p)))
            share = given[1] if given is not None and given[0] is p else \
                _share(shares, mass, p)
        for i, item in enumerate(items):
            child = state if reuse and i == last else state.clone()
            if not reuse:               # redacted moves: the cards seen as actions end
                child.mid = set()
            if kind is SIMULTANEOUS:        # `apply` of each seat's move, unchecked
                node = child.node
                committed = node[3]
                for mover, move in zip(seats, item):
                    committed[mover] = move
                child._resolve_simultaneous(node)
                made = tuple(sorted(zip(seats, item), key=_seat_index)) if counting else None
            elif seat is None:
                made, p = item
                child.apply_chance(made)
                if mass is not None and p is not given:
                    given = p
                    share = shares.get((mass, id(p)))
                    share = share[1] if share is not None and share[0] is p else \
                        _share(shares, mass, p)
            else:
                child._decided(site, seat, item.action, item.args, item._text or item.text)
                made = None             # (what a new child's chains read, made only there)
            key = key_of(child)
            new = len(kinds)
            cid = ids.setdefault(key, new)      # one hash of the key, found or not
            if cid == new:
                if limit is not None and new >= limit:
                    del ids[key]
                    while len(kinds) > first:
                        self.forget(len(kinds) - 1)
                    self.reach = None       # (some of this expansion's mass was passed on)
                    return None
                reach.append(share)
                # `add`'s lines, inline (the root's are `add`'s)
                child_kind = _KINDS[child.node[0]]
                kinds.append(child_kind)
                depths.append(depth)
                self.edges.append(None)
                if child_kind is TERMINAL:
                    self.returns[cid] = tuple(child.returns())
                    if counting:        # nobody decides at or after a terminal state:
                        self.movers.append(())      # its chains would never be used
                        self.chain.append(None)
                else:
                    fresh.append((cid, child))
                    if counting:
                        if made is None:            # `said`, its look-up inline
                            told = heard.get(id(item))
                            told = told[1] if told is not None and told[0] is item else \
                                self.said(seat, item, state, child)
                        else:
                            told = self.observed((state, made), child)
                        self.infoset_columns(child, child_kind, sid, told, key)
                child.mid = None
            else:
                self.merged = True
                if cid <= sid:
                    self.backward = True
                if share is not None:
                    r = reach[cid]
                    reach[cid] = share if r is None else _add(r, share)
            edges.append(cid)
        self.edges[sid] = edges
        if kind is CHANCE:
            self.probs[sid] = [p for _, p in items]
            self.outcomes += len(edges)
        elif kind is DECISION:
            self.probs[sid] = p
            self.joint += len(edges)
            self.moves += len(items)
            if counting:                # `same_moves`' lines for one seat
                moves = tuple(items)
                i = seat.index
                first = self.infoset_moves[i].setdefault(self.chain[sid][i], moves)
                if first != moves:
                    self.mixed_moves(seat, first, moves)
        else:
            self.probs[sid] = p
            self.joint += len(edges)
            self.moves += sum(map(len, options))
            if counting:
                self.same_moves(sid, seats, options)
        return fresh

    def pair_edges(self):
        """Makes each expanded state's edges (child id, probability) pairs."""
        probs, paired = self.probs, []
        for u, out in enumerate(self.edges):
            if out is not None:
                p = probs[u]
                out = list(zip(out, p if type(p) is list else itertools.repeat(p)))
            paired.append(out)
        self.edges = paired

    def same_moves(self, sid, seats, options):
        """Records where one information set offers different moves in different states
        (the moves would then tell the seat something it cannot see)."""
        chain = self.chain[sid]
        for seat, moves in zip(seats, options):
            # Moves are equal by their texts; the same listed Move (kept per action)
            # compares by identity first, without its text
            moves = tuple(moves)
            i = seat.index
            first = self.infoset_moves[i].setdefault(chain[i], moves)
            if first != moves:
                self.mixed_moves(seat, first, moves)

    def mixed_moves(self, seat, first, moves):
        """Notes (the first five) an information set of `seat` that offers `first` in one
        state and `moves` in another."""
        if len(self.mixed) < 5:
            self.mixed.append(
                f"{seat.name} cannot tell two states apart but has different moves in "
                f"them: {listed((m.text for m in first), 6)} / "
                f"{listed((m.text for m in moves), 6)}")

    def add(self, state, key, depth) -> int:
        """Adds the root."""
        sid = len(self.kind)
        self.ids[key] = sid
        kind = _KINDS[state.node[0]]
        if kind is TERMINAL:
            self.returns[sid] = tuple(state.returns())
        self.kind.append(kind)
        self.depth.append(depth)
        self.edges.append(None)
        if self.count_infosets:
            if kind is TERMINAL:
                self.movers.append(())
                self.chain.append(None)
            else:
                self.infoset_columns(state, kind, None, None, key)
        return sid

    def infoset_columns(self, state, kind, parent, told, key):
        """Adds a new state's movers and each seat's chain id (`count_infosets`; not at a
        terminal state, where nobody decides): the parent's chain, what the seat observed
        of the step (`told`: `observed`'s ids) and its view after it, as
        `State.infoset_key` records them."""
        node = state.node
        self.movers.append(self.alone[node[2][0].index] if kind is DECISION else
                           tuple([seat.index for seat in state.to_move()]))
        # each seat's view is told by its two parts' texts themselves: equal parts are
        # equal views (`view_parts`), as ids of them would be, without a look-up of every
        # text to number it, nor a joined text made and hashed
        tables, lines = self.views(state, key)
        keys = zip(lines, tables) if parent is None else \
            zip(self.chain[parent], told, lines, tables)
        self.chain.append(tuple(map(self.links.__getitem__, keys)))

    def forget(self, sid):
        """Takes back the last state added."""
        del self.ids[next(reversed(self.ids))]
        for column in (self.kind, self.depth, self.edges):
            column.pop()
        self.returns.pop(sid, None)
        if self.count_infosets:
            self.movers.pop()
            self.chain.pop()

    def intern(self, text: str) -> int:
        texts = self.texts
        return texts.setdefault(text, len(texts))

    def said(self, seat, move, before, after) -> list:
        """Returns what each seat observed of `seat`'s move (`observed`).  A move of an
        action without parameters is one object, kept by its action (`plain`); seen in
        full, it is seen alike wherever it is made: remembered then by the move itself
        (by its id, the move kept with it), for the next state it leads to (other moves
        are made anew for each listing: none is remembered)."""
        ids = self.observed((before, ((seat, move),)), after)
        if move is move.action.plain and seen_in_full(move):
            self.heard[seat.index][id(move)] = (move, ids)
        return ids

    def observed(self, step, after) -> list:
        """Returns, per seat, the id of what it saw of a step: a chance outcome's public
        text, or each move made (its own in full, others' redacted as `State.apply` does:
        secrets judged before the move, cards by what the seat sees `after` it)."""
        before, made = step
        if not isinstance(made, tuple):
            ids = self.seen.get(made.public)
            if ids is None:
                ids = self.seen[made.public] = [self.intern(made.public)] * len(self.seats)
            return ids
        if len(made) == 1:
            mover, move = made[0]
            if seen_in_full(move):
                # the same per mover and text, which an action keeps once per distinct move
                key = (mover.index, move._text or move.text)
                ids = self.seen.get(key)
                if ids is None:
                    ids = self.seen[key] = \
                        [self.intern(f"{mover.name}: {move.text}")] * len(self.seats)
                return ids
        elif all(seen_in_full(move) for _, move in made):
            return [self.intern("\n".join(f"{mover.name}: {move.text}"
                                          for mover, move in made))] * len(self.seats)
        mid = after.mid
        return [self.intern("\n".join(
                    f"{mover.name}: "
                    f"{finish_redaction(after, redaction(before, mover.index, move, s), s, mid)}"
                    for mover, move in made))
                for s in self.seats]


class _Numbers(dict):
    """Numbers each key it is asked for that it does not hold yet, in turn from 0 (a
    look-up that is found runs no Python code)."""

    __slots__ = ()

    def __missing__(self, key) -> int:
        n = self[key] = len(self)
        return n


def _kind_of(state) -> str:
    return _KINDS[state.node[0]]


def _choices(state, kind) -> Tuple[list, list]:
    """Returns the deciding seats and each one's legal moves (none at a chance node)."""
    if kind is CHANCE:
        return [], []
    seats = state.to_move()
    return seats, [state.legal_moves(seat) for seat in seats]


def _children(state, kind, seats, options, reuse: bool) -> Iterator[tuple]:
    """Yields (child, probability, what was done) for every way on from a state (each
    chance outcome, each move, or each joint move at a simultaneous decision), each child
    a clone, but the last one `state` itself when `reuse` (it is changed in place, after
    the others are made and used)."""
    if kind is CHANCE:
        outcomes = state.chance_outcomes()
        if outcomes is None:
            raise _too_big(state)
        last = len(outcomes) - 1
        for i, (outcome, p) in enumerate(outcomes):
            child = state if reuse and i == last else state.clone()
            child.apply_chance(outcome)
            yield child, p, outcome
        return
    if kind is DECISION:
        seat, = seats
        moves, = options
        site = state.node[1]
        p = _uniform(len(moves))
        last = moves[-1]
        for move in moves:
            child = state if reuse and move is last else state.clone()
            child._decided(site, seat, move.action, move.args, move._text or move.text)
            yield child, p, ((seat, move),)
        return
    n = 1
    for moves in options:
        n *= len(moves)
    p = _uniform(n)
    joints = list(itertools.product(*options))
    last = len(joints) - 1
    for i, joint in enumerate(joints):
        child = state if reuse and i == last else state.clone()
        for seat, move in zip(seats, joint):
            child.apply_listed(move, seat)
        yield child, p, tuple(sorted(zip(seats, joint), key=_seat_index))


def _seat_index(pair) -> int:
    return pair[0].index


def _too_big(state) -> EnumerationError:
    """Returns the error for a shuffle with too many orders to list."""
    shown = state.sample_chance(random.Random(0)).public
    zone = shown.split(" ", 1)[1] if " " in shown else shown
    cards = state.cards_in(zone)
    kinds: Dict[str, int] = {}
    for c in cards:
        kinds[c.text] = kinds.get(c.text, 0) + 1
    orders = factorial(len(cards))
    for k in kinds.values():
        orders //= factorial(k)
    count = f"{orders}" if orders < 10 ** 12 else f"about {orders:.1e}"
    smaller = ("choose options that make the game smaller" if state.game.options else
               "the game has no options, so a variant file with fewer cards would be "
               "needed")
    return EnumerationError(
        f"this game is too big to enumerate: `{shown}` has {count} distinct orders of "
        f"{len(cards)} cards (at most {CHANCE_LIST_LIMIT} can be listed); {smaller}")


# ---------------------------------------------------------------------------- after the walk
def _order(walk) -> Optional[Sequence[int]]:
    """Returns the expanded graph's states in topological order, or None if it has a cycle."""
    n = len(walk.kind)
    if not walk.backward:
        return range(n)
    indeg = [0] * n
    for edges in walk.edges:
        for c, _ in edges or ():
            indeg[c] += 1
    ready = [i for i in range(n) if indeg[i] == 0]
    order = []
    while ready:
        u = ready.pop()
        order.append(u)
        for c, _ in walk.edges[u] or ():
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    return order if len(order) == n else None


def _longest(walk, order) -> int:
    if not walk.merged:             # a tree: the longest line is the deepest state's
        return max(walk.depth)
    longest = [0] * len(walk.kind)
    edges = walk.edges
    for u in order:
        out = edges[u]
        if out:
            d = longest[u] + 1
            for c, _ in out:
                if longest[c] < d:
                    longest[c] = d
    return max(longest)


def _absorb(walk, reach, report):
    """Adds the mass that ended in each terminal or unexpanded state to the report (each
    mass a (numerator, denominator) pair in lowest terms, or None).  The masses of an
    outcome are summed per denominator as integers first: adding Fractions one by one
    would reduce thousands of sums."""
    sums: Dict[tuple, Dict[int, int]] = {}     # returns -> denominator -> numerators
    for sid, returns in walk.returns.items():  # the terminal states, in the walk's order
        mass = reach[sid]
        if mass is None or not mass[0]:
            continue
        parts = sums.get(returns)
        if parts is None:
            parts = sums[returns] = {}
        n, d = mass
        parts[d] = parts.get(d, 0) + n
    if report.unexpanded:
        kinds, edges = walk.kind, walk.edges
        for sid, mass in enumerate(reach):
            if mass is not None and mass[0] and edges[sid] is None \
                    and kinds[sid] is not TERMINAL:
                report.unexplored += Fraction(*mass)
    report.outcomes = {r: sum(Fraction(n, d) for d, n in parts.items())
                       for r, parts in sums.items()}


def _propagate_acyclic(walk, order) -> list:
    """Returns the probability of reaching each state as a (numerator, denominator) pair
    in lowest terms (None where none).  The pairs are multiplied and added as `Fraction`
    does, without making a Fraction each time (most of the time that takes).  A state's
    share is worked out once per distinct edge probability, and a child reached once
    (most are) takes it without an addition."""
    reach: list = [None] * len(walk.kind)
    reach[0] = (1, 1)
    edges = walk.edges
    for u in order:
        m, out = reach[u], edges[u]
        if m is None or not out or not m[0]:
            continue
        a, b = m
        last = share = None
        for c, p in out:
            if p is not last:
                last = p
                pn, pd = p.numerator, p.denominator
                g1, g2 = gcd(a, pd), gcd(pn, b)
                share = (a // g1) * (pn // g2), (b // g2) * (pd // g1)
            r = reach[c]
            reach[c] = share if r is None else _add(r, share)
    return reach


def _share(shares, mass, p) -> tuple:
    """Returns mass * p (`_propagate_acyclic`'s product), remembered in `shares` by the
    mass and p's id (with p itself, which the walk's `probs` keep alive) while they are
    few: a game of many masses and probabilities would keep one a state."""
    a, b = mass
    pn, pd = p.numerator, p.denominator
    g1, g2 = gcd(a, pd), gcd(pn, b)
    share = (a // g1) * (pn // g2), (b // g2) * (pd // g1)
    if len(shares) < SHARES_KEPT:
        shares[mass, id(p)] = p, share
    return share


#: the most products of a mass and a probability a walk remembers (`_share`)
SHARES_KEPT = 4096


def _add(x, y) -> tuple:
    """Returns the sum of two (numerator, denominator) pairs in lowest terms, in lowest
    terms (`Fraction.__add__`'s steps)."""
    a, b = x
    c, d = y
    g = gcd(b, d)
    if g == 1:
        return a * d + b * c, b * d
    s = b // g
    t = a * (d // g) + c * s
    g2 = gcd(t, g)
    if g2 == 1:
        return t, s * d
    return t // g2, s * (d // g2)


def _propagate_cyclic(walk, report) -> Optional[List[Fraction]]:
    """Returns the probability of ending in each state, solving each strongly connected
    component exactly (None if one is larger than CYCLE_SOLVE_LIMIT)."""
    comps = _components(walk)          # sinks first
    reach = [Fraction(0)] * len(walk.kind)
    reach[0] = Fraction(1)
    for comp in reversed(comps):
        members = set(comp)
        if len(comp) == 1 and all(c != comp[0] for c, _ in walk.edges[comp[0]] or ()):
            u = comp[0]
            for c, p in walk.edges[u] or ():
                reach[c] += reach[u] * p
            continue
        leaves = any(c not in members for u in comp for c, _ in walk.edges[u] or ())
        if not leaves:
            report.never_ends += sum(reach[u] for u in comp)
            for u in comp:
                reach[u] = Fraction(0)
            continue
        if len(comp) > CYCLE_SOLVE_LIMIT:
            return None
        visits = _solve(walk, comp, [reach[u] for u in comp])
        for u, x in zip(comp, visits):
            reach[u] = Fraction(0)
            for c, p in walk.edges[u]:
                if c not in members:
                    reach[c] += x * p
    return reach


def _solve(walk, comp, inflow) -> List[Fraction]:
    """Returns the expected visits x of each member: x = inflow + x P inside the component
    (Gauss-Jordan elimination over Fractions)."""
    index = {u: i for i, u in enumerate(comp)}
    n = len(comp)
    rows = [[Fraction(0)] * n + [inflow[i]] for i in range(n)]
    for i in range(n):
        rows[i][i] += 1
    for u in comp:
        for c, p in walk.edges[u]:
            j = index.get(c)
            if j is not None:
                rows[j][index[u]] -= p
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col])
        rows[col], rows[pivot] = rows[pivot], rows[col]
        pv = rows[col][col]
        rows[col] = [x / pv for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col]:
                f = rows[r][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[col])]
    return [rows[i][n] for i in range(n)]


def _components(walk) -> List[List[int]]:
    """Returns the strongly connected components (Tarjan's algorithm without recursion),
    sinks first."""
    n = len(walk.kind)
    index, low = [-1] * n, [0] * n
    on_stack = [False] * n
    stack: List[int] = []
    comps: List[List[int]] = []
    counter = 0

    def visit(u):
        nonlocal counter
        index[u] = low[u] = counter
        counter += 1
        stack.append(u)
        on_stack[u] = True
        return u, iter(walk.edges[u] or ())
    for root in range(n):
        if index[root] != -1:
            continue
        work = [visit(root)]
        while work:
            u, children = work[-1]
            child = next((c for c, _ in children if index[c] == -1 or on_stack[c]), None)
            if child is not None:
                if index[child] == -1:
                    work.append(visit(child))
                else:
                    low[u] = min(low[u], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[u])
            if low[u] == index[u]:
                comps.append(_pop_component(stack, on_stack, u))
    return comps


def _pop_component(stack, on_stack, root) -> List[int]:
    comp = []
    while True:
        w = stack.pop()
        on_stack[w] = False
        comp.append(w)
        if w == root:
            return comp


# ---------------------------------------------------------------------------- the API
def reachable_states(game, max_states: Optional[int] = None,
                     max_depth: Optional[int] = None) -> Iterator:
    """Yields every reachable state once (the first line of play to reach it, breadth
    first, in the order `enumerate_states` finds them), at most `max_states` of them and
    none deeper than `max_depth` steps."""
    root = game.new_state()
    key_of = keyer(game.prog)
    seen = {key_of(root)}
    queue = deque([(root, 0)])
    yielded = 0
    # The collector is paused while the walk makes its states (and on while whoever
    # asked has one): it would otherwise trace the walk's queue, and a list of every
    # state made of them, again and again (half the time of listing a poker game's).
    paused = gc.isenabled()         # whether the collector is off because of the walk
    gc.disable()
    try:
        while queue:
            state, depth = queue.popleft()
            yielded += 1
            last = max_states is not None and yielded >= max_states
            kind = _kind_of(state)
            # its children made before it is handed out: whoever asked may play on
            # from it (the walk went on from the state as they left it)
            failed = None
            if not (last or kind is TERMINAL or max_depth is not None and depth >= max_depth):
                try:
                    for child, _, _ in _children(state, kind, *_choices(state, kind),
                                                 False):
                        key = key_of(child)
                        if key not in seen:
                            seen.add(key)
                            queue.append((child, depth + 1))
                except GdlError as err:     # the state handed out first, as before
                    failed = err
            if paused:
                gc.enable()
            paused = False
            yield state
            paused = gc.isenabled()                 # as it was left meanwhile
            gc.disable()
            if failed is not None:
                raise failed
            if last:
                return
    finally:
        if paused:
            gc.enable()


def enumerate_states(game, max_states: Optional[int] = None, max_depth: Optional[int] = None,
                     *, infosets: bool = True,
                     progress: Optional[Callable[[int, int], None]] = None) -> Report:
    """Returns the report of an exhaustive walk over every reachable state of `game`.

    `max_states` stops the walk (cleanly, with a partial report) before it would hold
    more states; `max_depth` does not expand states that many steps from the start.
    `infosets=False` skips counting information sets (faster).  `progress(states,
    frontier)` is called now and then during the walk (every 256 states expanded); if it
    returns a reason (a non-empty text, such as "Ctrl-C"), the walk stops there, cleanly,
    as `max_states` stops it, and the partial report says it was stopped by that reason.
    """
    start = time.perf_counter()
    with _collector_paused():
        return _enumerate(game, start, max_states, max_depth, infosets, progress)


@contextmanager
def _collector_paused():
    """Pauses Python's cyclic garbage collector: the walk makes hundreds of thousands of
    lists and tuples that all live until it ends, and the collector would trace them again
    and again for nothing (about a sixth of the time).  The walk makes few cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _enumerate(game, start, max_states, max_depth, infosets, progress) -> Report:
    walk = _Walk(game, infosets, max_states, max_depth, progress)
    walk.run()
    if walk.merged or walk.reach is None:   # (a tree's masses are the walk's)
        walk.pair_edges()
    stopped = walk.stopped
    report = Report(title=game.title, seats=tuple(s.name for s in game.seats),
                    options={k: _option_value(v) for k, v in game.options.items()})
    _count(walk, report)
    report.stopped = stopped
    report.complete = stopped is None
    order = _order(walk)
    report.cycles = order is None
    if order is not None:
        report.max_depth = _longest(walk, order)
        reach = walk.reach if not walk.backward and walk.reach is not None else \
            _propagate_acyclic(walk, order)
    else:
        reach = _propagate_cyclic(walk, report)
        if reach is not None:
            reach = [(x.numerator, x.denominator) if x else None for x in reach]
    if reach is not None:
        _absorb(walk, reach, report)
    if stopped is not None and not report.cycles:
        report.cycles = None if report.unexpanded else False
    report.seconds = time.perf_counter() - start
    return report


def _count(walk, report):
    kinds = walk.kind
    report.states = len(kinds)
    report.terminal = kinds.count(TERMINAL)
    report.chance = kinds.count(CHANCE)
    report.simultaneous = kinds.count(SIMULTANEOUS)
    report.decision = kinds.count(DECISION) + report.simultaneous
    # states never expanded: the terminal ones, and those the walk stopped at
    report.unexpanded = walk.edges.count(None) - report.terminal
    report.bfs_depth = max(walk.depth)
    report.mixed_infosets = list(walk.mixed)
    report.legal_moves = walk.moves
    report.joint_moves = walk.joint
    report.chance_outcomes = walk.outcomes
    if walk.count_infosets:
        # every expanded decision's (`same_moves` kept each seat's once), then those of
        # the states left unexpanded
        sets = [set(chains) for chains in walk.infoset_moves]
        if report.unexpanded:
            for chain, movers, out in zip(walk.chain, walk.movers, walk.edges):
                if out is None:
                    for i in movers:    # terminal states (chain None) have no movers
                        sets[i].add(chain[i])
        report.infosets = {s.name: len(ids) for s, ids in zip(walk.seats, sets)}


def _option_value(value):
    """An option's value as a trace records it (`--set`'s text only for a member)."""
    return value if isinstance(value, (bool, int, str)) else value.name


# ---------------------------------------------------------------------------- the text
def _sorted_outcomes(outcomes):
    return sorted(outcomes.items(), key=lambda item: (-item[1], item[0]))


def _returns_text(seats, returns) -> str:
    return ", ".join(f"{name} {r:+g}" for name, r in zip(seats, returns))


def _report_lines(r: Report) -> List[str]:
    opts = ", ".join(f"{k}={text_of(v)}" for k, v in r.options.items())
    status = "complete" if r.complete else f"PARTIAL: stopped by {r.stopped}, " \
                                           f"{r.unexpanded} states not expanded"
    lines = [f"{r.title}" + (f" ({opts})" if opts else ""),
             f"  states:           {r.states:>10}   ({status})",
             f"    decision:       {r.decision:>10}" + (
                 f"   ({r.simultaneous} simultaneous)" if r.simultaneous else ""),
             f"    chance:         {r.chance:>10}",
             f"    terminal:       {r.terminal:>10}",
             f"  legal moves:      {r.legal_moves:>10}   (summed over decision nodes; "
             f"{r.chance_outcomes} chance outcomes)"]
    lines.append("  information sets: " + (
        ", ".join(f"{k} {v}" for k, v in r.infosets.items()) if r.infosets is not None
        else "not counted"))
    lines.extend(f"  WARNING: {m}" for m in r.mixed_infosets)
    longest = "unbounded (cycles)" if r.cycles else (
        f"{r.max_depth} steps" if r.max_depth is not None else "unknown")
    lines.append(f"  longest play:     {longest}" + (
        "" if r.complete else f" in the part explored (breadth-first depth {r.bfs_depth})"))
    lines.append("  cycles:           " + {True: "yes: the game can go on for ever",
                                           False: "no", None: "unknown (walk stopped early)"}
                 [r.cycles])
    lines.extend(_outcome_lines(r))
    lines.append(f"  time:             {r.seconds:.2f} s ({r.rate:,.0f} states/s)")
    return lines


def _outcome_lines(r: Report) -> List[str]:
    if r.outcomes is None:
        return [f"  outcomes:         not computed (a cycle of more than {CYCLE_SOLVE_LIMIT} "
                f"states)"]
    lines = ["  outcomes when every decision is uniformly random:"]
    for returns, p in _sorted_outcomes(r.outcomes):
        lines.append(f"    {_returns_text(r.seats, returns):<28} {str(p):>14}  ({float(p):.4f})")
    if r.unexplored:
        lines.append(f"    {'(not explored)':<28} {str(r.unexplored):>14}  "
                     f"({float(r.unexplored):.4f})")
    if r.never_ends:
        lines.append(f"    {'(never ends)':<28} {str(r.never_ends):>14}  "
                     f"({float(r.never_ends):.4f})")
    return lines


__all__ = ["enumerate_states", "reachable_states", "Report", "EnumerationError"]
