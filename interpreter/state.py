"""A game state: flat lists of values plus a program counter, and the game API on it.

A state is exactly one of: a decision node (`to_move()` names one player, or several at a
simultaneous decision), a chance node (`chance_outcomes()` / `sample_chance(rng)`), or
terminal (`returns()`).  Cloning copies a few small lists; the canonical key ignores which
of several identical cards is where.
"""
from __future__ import annotations

import re
from bisect import insort
from collections import Counter as _Counter
from fractions import Fraction
from math import factorial
from operator import attrgetter as _attrgetter, is_ as _is, itemgetter as _itemgetter
from random import Random
from typing import List, Optional

from gdl.ast import PlaceKind
from gdl.errors import (SOURCES, GdlError, MoveError, RuleError, TraceError, counted,
                        did_you_mean, listed, source_lines)

from ._compiler import CHANCE, DECIDE, END, LOOP_BUDGET, PAUSE, SIMUL
from ._actions import generated_joint, generated_pick, generated_plain, generated_step
from ._keys import named_kinds, names_twins, state_key
from .observe import (finish_redaction, holds_card, infoset_key, log_of, observation_log,
                      redaction, view, views)
from .values import (HAS_TEXT, MOVE_TEXTS, Card, Move, Seat, card_order as _card_order,
                     move_text, text_of)


#: A shuffle with at most this many distinct orders lists them; larger ones only sample.
CHANCE_LIST_LIMIT = 5040

#: cards by kind, then id (`Card.order`): twins alike in a shuffle's listed order
_by_kind_and_id = _attrgetter("order")

#: the types of a recorded shuffle's card ids (as `isinstance(i, int)` took them)
_INT_TYPES = frozenset((int, bool))

#: the place kinds the card moves test, read once: a member read off its Enum class
#: goes through the metaclass's `__getattr__` hook each time in Python 3.11, about 60 ns
#: more than a global (a card moved to the bottom, or a block cut onto a zone, read two)
_TOP, _BOTTOM, _DEPTH = PlaceKind.TOP, PlaceKind.BOTTOM, PlaceKind.DEPTH

#: how many random-choice outcomes a program keeps made (their texts are the cost)
OUTCOMES_KEPT = 50_000
#: a draw site's own entries (`_entry_seen`): at most this many values, indices a value
SEEN_VALUES, SEEN_INDICES = 64, 1024


class ChanceOutcome:
    """One outcome of a chance node: its data (a card order or a value) and its text."""

    __slots__ = ("kind", "data", "text", "public", "entry")

    def __init__(self, kind: str, data, text: str, public: str):
        self.kind, self.data, self.text, self.public = kind, data, text, public
        self.entry = (-1, text, (kind, data))        # its line of a state's history

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, ChanceOutcome) and (self.kind, self.data) == (other.kind,
                                                                                other.data)

    def __hash__(self):
        return hash((self.kind, self.data))


class State:
    """One position of a game.  Create with `game.new_state()`."""

    # `free` and `rng`: while `random_run` runs the rules after a draw in a loop, how
    # many more draws generated code may make in place, and their source (else 0, None);
    # `calm`: whether the last trigger check found no condition true, and nothing the
    # conditions read has changed since but by statements, each checked after
    # (`_trigger_skips.unread`; not part of the key)
    __slots__ = ("game", "prog", "zones", "up", "loc", "known", "vars", "frame", "out", "pc",
                 "node", "result", "lines", "lazy", "dirty", "budget", "seed", "obs", "free",
                 "rng", "mid", "placed", "calm")

    # ------------------------------------------------------------------ copying
    def clone(self) -> "State":
        """Returns an independent copy."""
        s = State.__new__(State)
        s.game, s.prog = self.game, self.prog
        s.zones = list(map(list.copy, self.zones))
        s.up = self.up[:]
        s.loc = self.loc[:]
        s.known = self.known[:]
        s.vars = self.vars[:]
        s.frame = self.frame[:]
        s.out, s.pc, s.result, s.seed, s.placed, s.calm = \
            self.out, self.pc, self.result, self.seed, self.placed, self.calm
        node = self.node
        if node is not None and node[0] == SIMUL:
            node = (SIMUL, node[1], node[2], dict(node[3]))
        s.node = node
        s.lines, s.lazy = self.lines[:], self.lazy
        s.obs = self.obs
        s.dirty = set()
        s.budget = s.free = 0
        s.rng = s.mid = None
        return s

    def __copy__(self):                 # the default shared every list with the original
        return self.clone()

    @property
    def history(self) -> list:
        """The steps taken, each (seat number or -1 for chance, text, data).  A shuffle
        that `random_run` draws where no seat's view is kept leaves its line unmade
        (`_UNMADE`, its cards and zone) until the history is read: its text names every
        card, and most playouts never read it."""
        if self.lazy:
            self._make_lines()
        return self.lines

    @history.setter
    def history(self, lines: list):
        self.lines, self.lazy = lines, False

    def _make_lines(self):
        lines, zones = self.lines, self.prog.zones
        for i, line in enumerate(lines):
            if line[0] is _UNMADE:
                cards = line[2]
                lines[i] = (-1, _shuffle_text(zones[line[1]], cards),
                            ("shuffle", tuple([c.id for c in cards])))
        self.lazy = False

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        """Pickles the game and the trace, replayed on unpickling (a state with a
        placement, which no trace replays: its snapshot), observing if this one does."""
        try:
            return (_unpickled, (self.game, self.trace(), None, self.obs is not None))
        except TraceError:
            return (_unpickled, (self.game, None, self.to_json(), self.obs is not None))

    def clone_for_playout(self) -> "State":
        """Returns an independent copy that keeps no observation logs, for random
        playouts from a state made with `observe=True`: such a state writes every seat's
        view at every step (some 70 times a playout's work in a trick game of four).  The
        copy's keys and logs replay its history, as a plain state's do; a position built
        with `place`, which no history replays, keeps its logs."""
        s = self.clone()
        if self.placed is None:
            s.obs = None
        return s

    # ------------------------------------------------------------------ running the rules
    def run(self):
        """Executes instructions until the next decision, chance event or the end."""
        code = self.prog.code
        self.budget = LOOP_BUDGET
        pc = self.pc
        while pc >= 0:
            pc = code[pc](self)

    def exec_block(self, block: list, pc: int = 0) -> bool:
        """Runs a block that cannot wait for a decision, from `pc` (its start, or where
        its first run, called inline by generated code, left it); returns whether it
        ended the game."""
        n = len(block)
        while 0 <= pc < n:
            pc = block[pc](self)
        if pc == PAUSE:
            if self.node is not None and self.node[0] == END:
                return True
            raise self._rule_error("a trigger or simultaneous action tried to wait for "
                                   "a decision")
        return False

    def move_top(self, cards, dest: int, up: bool, node=None):
        """`move_cards` onto the top of a zone, the commonest move: one card takes the
        path without any placement test but the zone's being a set.  `node` places the
        error of a list naming a card twice."""
        if len(cards) != 1:
            return self.move_cards(cards, dest, _TOP, None, up, node)
        c = cards[0]
        i = c.id
        zones, loc = self.zones, self.loc
        source = zones[loc[i]]
        if source[-1] is c:
            source.pop()
        else:
            source.remove(c)
        if self.prog.is_set[dest]:           # kept in card order (`card_order`)
            insort(zones[dest], c, key=_card_order)
            if self.prog.regroups:           # by facing too (`regroup`)
                self.up[i] = up
                self.regroup((dest,))
        else:
            zones[dest].append(c)
        loc[i] = dest
        self.up[i] = up

    def move_zone(self, source: int, dest: int, up: bool):
        """`move_top` of a whole zone's cards (top first): the block keeps its order, as
        `move_cards` would leave it, without taking the cards off one by one."""
        cards = self.zones[source]
        loc, face = self.loc, self.up
        for c in cards:
            i = c.id                    # a local: cheaper than reading c.id twice
            loc[i] = dest
            face[i] = up
        if source == dest or not cards:         # onto itself: it stays as it was
            if cards and self.prog.regroups and self.prog.is_set[dest]:
                self.regroup((dest,))           # (but for its cards' new facing)
            return
        target = self.zones[dest]
        target.extend(cards)
        cards.clear()
        if self.prog.is_set[dest]:
            target.sort(key=_card_order)
            if self.prog.regroups:
                self.regroup((dest,))

    def move_block(self, source: list, n: int, dest: int, kind, depth, up: bool, node):
        """Moves the top `n` cards (0 <= n <= its length) of the list `source` (a zone's,
        or a block already taken off) as one block: cut, the depth checked after, placed,
        the cards' zone and facing set.  `move top(z, n)` in generated code comes here
        straight, without a tuple of the cards made first or a test that they lie on
        top; `move_cards` of several cards ends here."""
        cut = len(source) - n
        block = source[cut:]
        del source[cut:]
        target = self.zones[dest]
        into_set = self.prog.is_set[dest]
        if kind is _BOTTOM and not into_set:
            target[0:0] = block
        elif kind is _DEPTH:
            if depth is None or not 0 <= depth <= len(target):
                raise self._rule_error(f"cannot insert at depth {depth}: the zone has "
                                       f"{counted(len(target), 'card')}", node)
            if into_set:            # a set's cards come after those there (`card_order`)
                target.extend(block)
            else:
                pos = len(target) - depth
                target[pos:pos] = block
        else:
            target.extend(block)
        face = self.up
        if into_set:
            target.sort(key=_card_order)
            if self.prog.regroups:          # by facing too (`regroup`): faces first
                for c in block:
                    face[c.id] = up
                self.regroup((dest,))
        if target is source:        # within one zone (a shuffle by hand): where they are
            for c in block:         # is where they were
                face[c.id] = up
            return
        loc = self.loc
        for c in block:
            i = c.id
            loc[i] = dest
            face[i] = up

    def move_cards(self, cards, dest: int, kind, depth, up: bool, node):
        """Moves cards (top first) onto a zone.  One card, the common case, takes a path
        without the block copy; a set zone (kept in `card_order`) is re-sorted only when the
        card does not already belong last.  Several cards lying together in one zone are
        cut out in one piece; only others are searched for one by one (`_take_each`)."""
        zones, loc, face = self.zones, self.loc, self.up
        if len(cards) == 1:
            c = cards[0]
            i = c.id
            source = zones[loc[i]]
            if source[-1] is c:
                source.pop()
            else:
                source.remove(c)
            target = zones[dest]
            if kind is _DEPTH and (depth is None or not 0 <= depth <= len(target)):
                raise self._rule_error(f"cannot insert at depth {depth}: the zone has "
                                       f"{counted(len(target), 'card')}", node)
            if self.prog.is_set[dest]:           # kept in card order (`card_order`)
                insort(target, c, key=_card_order)
                if self.prog.regroups:           # by facing too (`regroup`)
                    face[i] = up
                    self.regroup((dest,))
            elif kind is _BOTTOM:
                target.insert(0, c)
            elif kind is _DEPTH:
                target.insert(len(target) - depth, c)
            else:
                target.append(c)
            loc[i] = dest
            face[i] = up
            return
        n = len(cards)
        source = zones[loc[cards[0].id]] if n else []
        # lists are bottom first, cards top first: `top(z, n)` is the top n, one cut
        if n <= len(source) and all(map(_is, reversed(cards), source[len(source) - n:])):
            return self.move_block(source, n, dest, kind, depth, up, node)
        # lying together elsewhere in one zone, in its order (a filter of a zone) or the
        # reverse (a sublist of `cards(z)`): cut out at once, not searched for one by one
        at = source.index(cards[0])
        if at + n <= len(source) and all(map(_is, cards, source[at:at + n])):
            del source[at:at + n]
        elif at >= n - 1 and all(map(_is, reversed(cards), source[at - n + 1:at + 1])):
            del source[at - n + 1:at + 1]
        else:
            self._take_each(cards, node)
        block = list(cards)
        block.reverse()
        self.move_block(block, n, dest, kind, depth, up, node)

    def _take_each(self, cards, node):
        """Takes each of the cards off its zone (`move_cards`)."""
        zones, loc = self.zones, self.loc
        try:
            for c in cards:
                source = zones[loc[c.id]]
                if source[-1] is c:             # taking from the top: no search
                    source.pop()
                else:
                    source.remove(c)
        except (IndexError, ValueError):        # taken already: named twice
            twice = next((c for c in cards if cards.count(c) > 1), None)
            if twice is None:
                raise
            raise self._rule_error(f"the cards to move name {twice.text} twice",
                                   node) from None

    def regroup(self, slots=None):
        """Puts set zones' cards (of `slots`, else all) in the order the rules keep: by
        kind (`card_order`); where twins in a set may come to differ in facing
        (`Program.regroups`), face down before face up.  The sort is stable: twins keep
        the order they came in, which the rules' history decides, never their ids (by
        id, which of two twins met first decided whether the face-up one was `top`).
        Not by who knows a card: the order would tell a seat what another was shown."""
        if self.prog.regroups:
            up = self.up

            def order(c):
                return c.kind, up[c.id]
        else:
            order = _card_order
        is_set = self.prog.is_set
        for slot in range(len(is_set)) if slots is None else slots:
            zone = self.zones[slot]
            if is_set[slot] and len(zone) > 1:
                zone.sort(key=order)

    def forget(self, cards):
        """Nobody knows these cards any more (a shuffle): their bits cleared for every
        seat, if anyone knows any card at all."""
        if not any(self.known):
            return
        mask = 0
        for c in cards:
            mask |= 1 << c.id
        if mask:
            keep = ~mask
            self.known = [k & keep for k in self.known]

    def finish(self, returns):
        self.result = returns
        self.node = (END,)

    def _rule_error(self, message, node=None) -> RuleError:
        span = getattr(node, "span", None)
        return RuleError(message, span, source=self.game.source, trace=self.trace_texts())

    # ------------------------------------------------------------------ what kind of node
    def is_terminal(self) -> bool:
        """Returns whether the game is over."""
        return self.node[0] == END

    def is_chance(self) -> bool:
        """Returns whether chance acts next."""
        return self.node[0] == CHANCE

    def is_simultaneous(self) -> bool:
        """Returns whether several players are committing moves at once."""
        return self.node[0] == SIMUL

    def chance_kind(self) -> Optional[str]:
        """Returns what chance does next: "shuffle" (a zone's order) or "random" (a
        value drawn), or None where chance does not act."""
        node = self.node
        return node[1] if node[0] == CHANCE else None

    def to_move(self) -> List[Seat]:
        """Returns the players who must move now (none at chance and terminal nodes)."""
        node = self.node
        if node[0] == DECIDE:
            return list(node[2])
        if node[0] == SIMUL:
            return [p for p in node[2] if p not in node[3]]
        return []

    def committed(self) -> List[Seat]:
        """Returns the seats that have committed a move at this simultaneous decision."""
        node = self.node
        return list(node[3]) if node[0] == SIMUL else []

    def returns(self) -> tuple:
        """Returns each player's result (0.0 each until the game is over)."""
        if self.result is None:
            return tuple(0.0 for _ in self.prog.seats)
        return self.result

    # ------------------------------------------------------------------ moves
    def _seat(self, player) -> Seat:
        if player is None:
            waiting = self.to_move()
            if not waiting:
                raise MoveError("nobody is to move here")
            return waiting[0]
        if isinstance(player, Seat):
            return player
        return self.game.seat(player)

    def legal_moves(self, player=None) -> List[Move]:
        """Returns the legal moves of `player` (default: the first player to move)."""
        node = self.node
        kind = node[0]
        if kind == DECIDE:                  # the common case, without `to_move`'s list
            seat = node[2][0]
            if player is not None and player is not seat and self._seat(player) is not seat:
                return []
        elif kind == SIMUL:
            seat = self._seat(player)
            if seat not in self.to_move():
                return []
        else:
            return []
        site = node[1]
        fixed = site.fixed
        if fixed is None:
            fixed = self._fixed_of(site)
        if fixed:                       # actions without parameters: listed as a draw lists
            if type(fixed) is list:
                return fixed[:]
            listed = site.plain_moves
            if listed is not None:
                try:
                    moves = listed(self, seat)
                except BaseException:
                    self._clear_slots(site)
                    raise
                if moves:
                    return moves
        twins = self.prog.has_twins
        moves = []
        for info, _ in site.actions:
            found = self._moves_of(info, seat)
            if twins and found and not info.merged and info.card_args is not False and any(
                    holds_card(a) for m in found for a in m.args):   # (`take []` first)
                found = _without_twins(found)       # (a merged list has no twins left)
            moves.extend(found)
        if not moves:
            why = self._why_none(seat)
            err = RuleError(f"deadlock: {seat.name} must move but has no legal move "
                            f"({', '.join(i.name for i, _ in node[1].actions)})",
                            node[1].node.span, source=self.game.source, rule=node[1].rule,
                            trace=self.trace_texts(), notes=why)
            err.seats_notes = (seat.name, why)      # they name the seat's cards: its own
            raise err
        return moves

    def random_move(self, rng, player=None) -> Move:
        """Returns a uniformly random legal move, the one `legal_moves` would give at
        index `rng.randrange(len(moves))`, without building a Move for every candidate:
        the last parameter's values are counted, and listed only where a require tests
        them.  Random playouts call this once per decision."""
        node = self.node
        kind = node[0]
        if kind == DECIDE:
            seat = node[2][0]
            if player is not None and player is not seat and self._seat(player) is not seat:
                raise MoveError(f"it is {seat.name}'s turn, not {self._seat(player).name}'s")
        elif kind == SIMUL:
            seat = self._seat(player)
            if seat not in node[2] or seat in node[3]:
                raise MoveError(f"{seat.name} has already committed a move or is not "
                                f"deciding")
        else:
            raise MoveError("nobody is to move here")
        try:
            return self._drawn(node[1], seat, rng)
        except AttributeError:
            if hasattr(rng, "randrange"):
                raise
            raise _not_random(rng) from None

    def _fixed_of(self, site):
        """Works out `site.fixed` (`_fixed_moves`), and the step of a site whose actions
        have no parameters, at the site's first listing or draw."""
        fixed = site.fixed = _fixed_moves(site)
        if fixed is not False:            # moves without parameters: their steps
            site.step = generated_step(site, None, self.prog.epoch, LOOP_BUDGET,
                                       self.prog.plain_code) or False
            site.joint = generated_joint(site, None, None, _committed, LOOP_BUDGET,
                                         self.prog.plain_code) or False
        return fixed

    def _drawn(self, site, seat, rng) -> Move:
        """`random_move`'s draw for a seat known to be deciding at `site`."""
        fixed = site.fixed
        if fixed is None:
            fixed = self._fixed_of(site)
        if fixed is _NO_PARAMETERS:
            return self._random_plain(site, seat, rng)
        if fixed:
            return fixed[_below(rng, len(fixed))]
        picked = self._random_pick(site, seat, rng)
        return picked if type(picked) is not tuple else Move(*picked)

    def _random_pick(self, site, seat, rng):
        """`random_move` at a site whose actions have parameters: the move drawn, as a
        Move where one is made already, else as (action, arguments), which
        `random_step` applies without making one.  The site's generated pick draws it
        (`_actions.generated_pick`); the lines after it are the same in Python, for when
        generated code is off or an action lists its moves without generated chunks."""
        pick = site.pick
        if pick is None:
            pick = site.pick = generated_pick(site, self._twins_step(),
                                              self.prog.epoch) or False
            site.step = generated_step(site, self._twins_step(), self.prog.epoch,
                                       LOOP_BUDGET, self.prog.plain_code) or False
            site.joint = generated_joint(site, self._twins_step(), pick or None,
                                         _committed, LOOP_BUDGET,
                                         self.prog.plain_code) or False
        if pick:
            return self._picked(pick, site, seat, rng, type(rng) is Random and _DRAW_BY_BITS)
        twins = self.prog.has_twins
        chunks = []
        total = 0
        frame = self.frame
        for info, _ in site.actions:
            if info.never:
                continue
            plain = info.plain
            if plain is not None:              # no parameters: one move, if its requires hold
                test = info.tests[0]
                if test is not None:
                    frame[info.me_slot] = seat
                    try:
                        if not test(self):
                            continue
                    finally:
                        frame[info.me_slot] = None
                chunks.append((info, None, (plain,)))
                total += 1
                continue
            frame[info.me_slot] = seat           # the action's chunks, in `legal_moves` order
            try:
                found = info.chunks(self) if info.chunks is not None \
                    else _chunk_enumerators(self, info)
            finally:
                frame[info.me_slot] = None
                for slot in info.slots:
                    frame[slot] = None
            if twins and found:
                found = _twins_merged(self, seat, info, found)
            chunks.extend(found)
            for chunk in found:
                total += len(chunk[2])
        if not total:
            return self.legal_moves(seat)[0]      # raises the deadlock error
        i = _below(rng, total)
        for info, prefix, values in chunks:
            n = len(values)
            if i < n:
                if prefix is None:
                    return values[i]
                return info, prefix + (values[i],)
            i -= n
        raise AssertionError("random_move: index past the last chunk")

    def _random_plain(self, site, seat, rng, bits=None):
        """`random_move` where no action has parameters (`fold`, `call`, `raise`): the
        ones whose requires hold, then one of them.  The generated list
        (`Site.plain_moves`) clears the `me` slots itself, unless a require raises."""
        listed = site.plain_moves
        try:
            if listed is not None:
                moves = listed(self, seat)
            else:
                moves = []
                for info, _ in site.actions:
                    test = info.tests[0]
                    if test is not None:
                        self.frame[info.me_slot] = seat
                        if not test(self):
                            continue
                    moves.append(info.plain)
        except BaseException:
            self._clear_slots(site)
            raise
        if listed is None:
            self._clear_slots(site)
        if not moves:
            return self.legal_moves(seat)[0]      # raises the deadlock error
        n = len(moves)
        if bits is None:
            bits = type(rng) is Random and _DRAW_BY_BITS
        if bits:                                        # `_below`: inline on this hot path
            k = n.bit_length()
            i = rng.getrandbits(k)
            while i >= n:
                i = rng.getrandbits(k)
            return moves[i]
        return moves[rng.randrange(n)]

    def _picked(self, pick, site, seat, rng, bits):
        """The move a site's generated `pick` draws for `seat` (the site's slots cleared
        if a part raises); where no move is legal, `legal_moves` raises the deadlock
        error."""
        try:
            move = pick(self, seat, rng, bits)
        except BaseException:
            self._clear_slots(site)
            raise
        return move if move is not None else self.legal_moves(seat)[0]

    def _twins_step(self):
        """What a generated pick calls on an action's chunks where cards have twins."""
        return _twins_merged if self.prog.has_twins else None

    def _clear_slots(self, site):
        """Clears the `me` and parameter slots of a site's actions (a require raised)."""
        for info, _ in site.actions:
            self.frame[info.me_slot] = None
            for slot in info.slots:
                self.frame[slot] = None

    def _moves_of(self, info, seat):
        """Enumerates the action's parameter domains depth-first, checking each require as
        soon as the parameters it mentions are bound."""
        if info.never:
            return []
        frame = self.frame
        frame[info.me_slot] = seat
        try:
            if not info.params:
                return _moves_0(self, info)
            return _moves_params(self, info)
        finally:
            frame[info.me_slot] = None
            for _, slot, _ in info.params:
                frame[slot] = None

    def why_illegal(self, text: str, player=None) -> Optional[str]:
        """Returns why a move is not legal now (the failing rule and its line), or None."""
        seat = self._seat(player)
        parts = _arg_words(text)
        if self.node[0] not in (DECIDE, SIMUL):
            return "nobody is deciding now"
        waiting = self.to_move()
        if seat not in waiting:     # its moves are judged at its own decisions only
            return _not_to_move(seat, waiting)
        if parts and "[" in parts[0] and not parts[0].startswith("[") and \
                all(parts[0] != i.name for i, _ in self.node[1].actions):
            name, _, rest = parts[0].partition("[")          # `pick[2,1]` for `pick [2,1]`
            parts[:1] = [name, "[" + rest]
        for info, _ in self.node[1].actions:
            if not parts or parts[0] != info.name:
                continue
            if len(parts) != len(info.params) + 1:   # `cell [1,1]` typed for `cell[1,1]`
                joined = _arg_words(_unspaced_brackets(" ".join(parts[1:])))
                families = {z.text.split("[", 1)[0] for z in self.prog.zones}
                if len(joined) == len(info.params) and all(   # not `8H [8S]`: two words
                        w.split("[", 1)[0] in families for w in joined if "[" in w[1:]):
                    parts = parts[:1] + joined
            return self._why(info, seat, parts[1:])
        names = [i.name for i, _ in self.node[1].actions]
        return f"{parts[0] if parts else text!r} is not one of the actions allowed here: " \
               f"{', '.join(names)}"

    def _why_none(self, seat) -> tuple:
        """`why_no_moves` as a deadlock's notes (none where a domain fails to say)."""
        try:
            return tuple(self.why_no_moves(seat))
        except Exception:   # noqa: BLE001 - the deadlock is told whatever its why met
            return ()

    def why_no_moves(self, player=None) -> List[str]:
        """For a seat deciding with no legal move (a deadlock): why each action allowed
        here has none, by its first candidate (the first values of the parameters'
        domains, depth first, past a value whose later domains are empty) and the
        require it fails, or the first parameter with no value at all.  At most
        WHY_CANDIDATES values are tried an action."""
        seat = self._seat(player)
        if self.node[0] not in (DECIDE, SIMUL) or seat not in self.to_move():
            return []
        out = []
        for info, _ in self.node[1].actions:
            words, empty = self._first_candidate(info, seat)
            if words is None:
                out.append(f"{info.name}: no candidate among its first {WHY_CANDIDATES} "
                           f"values")
                continue
            if empty is not None:
                out.append(f"{info.name}: its {empty} has no value here")
                continue
            why = self._why(info, seat, words)
            first = " ".join([info.name, *words])
            named = f"{info.name}, e.g. {first}" if words else info.name
            out.append(f"{named}: {why}" if why else f"{first} is legal")
        return out

    def _first_candidate(self, info, seat):
        """(the texts of the first full candidate's values, None), ([], the name of
        the parameter no value reaches), or (None, None) where the tries ran out."""
        frame, params = self.frame, info.params
        tries = [WHY_CANDIDATES]
        stuck = [None]

        def first(i, words):
            if i == len(params):
                return words
            name, slot, domain = params[i]
            values = list(domain(self))
            if not values and stuck[0] is None:
                stuck[0] = name
            for v in values:
                tries[0] -= 1
                if tries[0] < 0:
                    return None
                frame[slot] = v
                found = first(i + 1, words + [text_of(v)])
                if found is not None:
                    return found
            return None
        frame[info.me_slot] = seat
        try:
            found = first(0, [])
        finally:
            frame[info.me_slot] = None
            for slot in info.slots:
                frame[slot] = None
        if found is None and tries[0] < 0:
            return None, None
        return (found, None) if found is not None else ([], stuck[0] or params[0][0])

    def _why(self, info, seat, words):
        frame = self.frame
        frame[info.me_slot] = seat
        try:
            if len(words) != len(info.params):
                return f"{info.name} takes {counted(len(info.params), 'argument')}: " + \
                    " ".join(name for name, _, _ in info.params)
            bound = []              # the values read so far, as the domains have them
            for word, (name, slot, domain) in zip(words, info.params):
                values = {text_of(v): v for v in domain(self)}
                value = values.get(word)
                if value is None and "[" in word:        # `cell[1, 1]`, `[4D, 1C]`
                    tidy = _unspaced_brackets(word)
                    value = next((v for t, v in values.items()
                                  if _unspaced_brackets(t) == tidy), None)
                if value is None and word not in values:
                    return f"{word!r} is not a possible {name} here " + (
                        self._legal_values(info, seat, bound) if values else "(none is)")
                frame[slot] = value
                bound.append(value)
            for req, reason, span in info.requires:
                if not req(self):
                    lines = source_lines(SOURCES.get(span.file) or (
                        self.game.source if span.file == self.game.path else ""))
                    line = lines[span.line - 1].strip() if span.line <= len(lines) else ""
                    where = "" if span.file == self.game.path else f" of {span.file}"
                    return f"rule {info.name}, line {span.line}{where}" + (
                        f": {line}" if line else "")
            return None
        finally:
            frame[info.me_slot] = None
            for _, slot, _ in info.params:
                frame[slot] = None

    def _legal_values(self, info, seat, before) -> str:
        """The values legal moves give the parameter after the values `before` (not its
        domain's, which may all fail a require), for a word that is none of them."""
        texts = [text_of(v) for v in before]
        legal = {}
        for move in self._moves_of(info, seat):
            if all(text_of(a) == t for a, t in zip(move.args, texts)):
                legal.setdefault(text_of(move.args[len(before)]), None)
        if legal:
            return f"(legal: {listed(legal, 10)})"
        if before:
            return f"(no legal move begins {info.name + ' ' + ' '.join(texts)!r})"
        return f"(no {info.name} move is legal here)"

    def parse_move(self, text: str, player=None) -> Move:
        """Returns the legal move whose canonical text is `text`, or raises MoveError.
        The text is first read word by word against the action's parameter domains,
        testing only the candidates it names; the whole list (and its errors) is made
        only where that finds nothing."""
        wanted = " ".join(text.split())
        found = self._named_move(wanted, player)
        if found is not None:
            return found
        tidy = wanted           # `fam[ 1, 2 ]` typed for `fam[1,2]` (but a list argument's
        if "]" in tidy and _SPACED_BRACKET.search(tidy):      # canonical text is `pick [1,2]`)
            tidy = _unspaced_brackets(tidy)
            found = self._named_move(tidy, player)
            if found is not None:
                return found
        moves = self.legal_moves(player)
        if not moves and player is not None and self.node[0] in (DECIDE, SIMUL):
            seat, waiting = self._seat(player), self.to_move()
            if seat not in waiting:
                raise MoveError(f"{wanted!r} is not a legal move: {_not_to_move(seat, waiting)}")
        for m in moves:         # as typed, with spaces tidied (a text argument may be "",
            if m.text == wanted or " ".join(m.text.split()) == wanted or (  # a list `[1,2]`)
                    "[" in tidy and _unspaced_brackets(m.text) == tidy):
                return m
        if not moves:
            why = " (chance acts here)" if self.node[0] == CHANCE else \
                " (the game is over)" if self.node[0] == END else ""
            raise MoveError(f"no move can be made now{why} ({text!r})")
        reason = self.why_illegal(wanted, player) or "it is not legal now"
        raise MoveError(f"{wanted!r} is not a legal move: {reason}",
                        suggestion=did_you_mean(tidy, [m.text for m in moves]),
                        expected=[m.text for m in moves])

    def _named_move(self, wanted: str, player) -> Optional[Move]:
        """The move `legal_moves` would list first with the text `wanted`: the first
        candidate, depth first in domain order, whose arguments' texts are the text's
        words and whose requires hold (twins then are the listing's first of their kind).
        None where that is not certain (no such candidate, an argument text with a space,
        an error): `parse_move` then lists the moves."""
        node = self.node
        kind = node[0]
        if kind == DECIDE:
            seat = node[2][0]
            if player is not None and player is not seat:
                return None
        elif kind == SIMUL and player is not None and isinstance(player, Seat):
            seat = player
            if seat not in node[2] or seat in node[3]:
                return None
        else:
            return None
        words = wanted.split(" ")
        for info, _ in node[1].actions:
            if info.name == words[0]:
                if info.never or len(words) != len(info.params) + 1:
                    return None
                try:
                    args = self._named_args(info, seat, words)
                except Exception:   # noqa: BLE001 - the listing meets it and says so
                    return None
                if args is None:
                    return None
                if not args:
                    return info.plain
                kept = info.moves
                if kept is None:
                    kept = info.moves = _KeptMoves(info)
                try:
                    return kept[args]
                except TypeError:               # an unhashable argument
                    return Move(info, args)
        return None

    def _named_args(self, info, seat, words) -> Optional[tuple]:
        """`_named_move`'s search: the arguments, or None.  Where there are several, a
        value met before the match whose text words cannot hold (empty, or with a
        space) makes it uncertain; the values after the match come after it in the
        listing too.  With one parameter the text's one word is the whole argument: no
        value with a space or an empty text can give it."""
        frame, params, requires = self.frame, info.params, info.requires
        frame[info.me_slot] = seat
        try:
            if len(params) == 1:                # the common case, as one loop
                _, slot, domain = params[0]
                word = words[1]
                for v in list(_candidates(self, domain, word)):
                    if (v.text if type(v) in HAS_TEXT else text_of(v)) == word:
                        frame[slot] = v
                        if all(req(self) for req, _, _ in requires):
                            return (v,)
                return None

            return _search_args(self, params, requires, words, 0, ())
        except _NotCertain:
            return None
        finally:
            frame[info.me_slot] = None
            for _, slot, _ in params:
                frame[slot] = None

    def apply(self, move, player=None):
        """Applies a move (a Move or its text), or a chance outcome at a chance node.
        A Move or an outcome is checked as a text is: one made at another state (or by
        another load of the rules) is taken only where it is legal here."""
        node = self.node
        kind = node[0]
        if kind == CHANCE:
            if not isinstance(move, ChanceOutcome):
                raise MoveError(f"chance acts here, not a player "
                                f"({getattr(move, 'text', move)!r}): apply one of "
                                f"chance_outcomes() or sample_chance(rng), an outcome, not "
                                f"its text")
            outcome, n = self._this_outcome(move), len(self.lines)
            try:
                return self.apply_chance(outcome)
            except GdlError:
                self._as_before(n, ())
                raise
        if kind == END:
            raise MoveError("the game is over")
        if kind == DECIDE:
            seat = node[2][0]
            if player is not None and player is not seat:
                asked = self._seat(player)
                if asked is not seat:
                    raise MoveError(f"it is {seat.name}'s turn, not {asked.name}'s")
            move, n = self._legal(node[1], seat, move), len(self.lines)
            try:
                return self._decided(node[1], seat, move.action, move.args,
                                     move._text or move.text)
            except GdlError:
                self._as_before(n, ())
                raise
        if player is None and len(node[2]) - len(node[3]) > 1:
            waiting = [p.name for p in node[2] if p not in node[3]]
            raise MoveError(f"{', '.join(waiting)} are each to commit a move here: name the "
                            f"seat, as apply(move, {waiting[0]!r})")
        seat = self._seat(player)
        if seat not in node[2] or seat in node[3]:            # not among `to_move()`
            raise MoveError(f"{seat.name} has already committed a move or is not deciding")
        move, n, pending = self._legal(node[1], seat, move), len(self.lines), \
            list(node[3].items())
        try:
            self._commit(seat, move)
        except GdlError:
            self._as_before(n, pending)
            raise

    def _as_before(self, n: int, pending) -> None:
        """Puts the state back as it was before a step whose rules failed half way (its
        first `n` history entries, then the commits `pending`), by replay as `undo` does:
        `apply` changes nothing where it raises."""
        from .serial import trace_of
        trace = trace_of(self, n, pending)
        back = self._replayed(trace, len(trace["steps"]))
        for name in State.__slots__:
            setattr(self, name, getattr(back, name))

    def _replayed(self, trace: dict, n: int) -> "State":
        """The state after the first `n` steps of this state's `trace`: replayed from the
        start, or from the copy kept at the last placement (which no trace replays); an
        observing state's copy observes."""
        from .serial import replay
        if self.placed is None:
            return replay(self.game, trace, upto=n, observe=self.obs is not None)
        first, start = self.placed
        return replay(self.game, {**trace, "steps": trace["steps"][first:]}, upto=n - first,
                      start=start.clone())

    def _commit(self, seat, move):
        """Commits a legal move of a seat still to commit at this simultaneous decision;
        the last resolves it."""
        node = self.node
        node[3][seat] = move            # nobody observes a commit: the moves show together
        if len(node[3]) == len(node[2]):
            self._resolve_simultaneous(node)

    def apply_listed(self, move, seat):
        """`apply` of a Move just listed (or drawn) at this state for `seat`, so legal
        here: without `apply`'s checks (enumerators, the fuzzer, the adapters)."""
        node = self.node
        if node[0] == DECIDE:
            self._decided(node[1], seat, move.action, move.args, move._text or move.text)
        else:
            self._commit(seat, move)

    def _legal(self, site, seat, move) -> Move:
        """Returns the legal Move of `seat` here that `move` (a text or a Move) names,
        or raises MoveError.  A Move is tested as its text would be: its action one of
        this decision's, each argument one its parameter may take, every require true;
        a Move of another load of the rules, or of another state, goes by its text."""
        if isinstance(move, str):
            return self.parse_move(move, seat)
        if type(move) is not Move:
            raise _not_a_move(move, seat)
        info = move.action
        if info.never or not any(a is info for a, _ in site.actions) or \
                len(move.args) != len(info.params):
            return self.parse_move(move.text, seat)      # says why, if it is not legal
        frame = self.frame
        frame[info.me_slot] = seat
        try:
            for (_, slot, domain), v in zip(info.params, move.args):
                if v not in domain(self):
                    break
                frame[slot] = v
            else:
                if all(req(self) for req, _, _ in info.requires):
                    return move
        finally:
            frame[info.me_slot] = None
            for _, slot, _ in info.params:
                frame[slot] = None
        return self.parse_move(move.text, seat)

    def _this_outcome(self, outcome: ChanceOutcome) -> ChanceOutcome:
        """Returns `outcome` if it is one of this chance event's (as `chance_outcomes`
        or `sample_chance` made it here), else raises MoveError: an outcome drawn at
        another chance event has another meaning here (the index of another value)."""
        here = self.outcome_from_data(outcome.kind, outcome.data)
        if here.text != outcome.text:
            raise MoveError(f"the outcome {outcome.text!r} is not one of this chance "
                            f"event's (here it would be {here.text!r})")
        return outcome

    def apply_joint(self, moves):
        """Applies one move per seat still to commit at a simultaneous node, in seat
        order.  Every move is read and checked first: a wrong count, or a move that is
        not legal, raises MoveError with nothing committed."""
        if self.node[0] != SIMUL:
            raise MoveError("apply_joint is for a simultaneous decision; here use apply")
        seats, moves = self.to_move(), list(moves)
        if len(moves) != len(seats):
            raise MoveError(f"{len(seats)} seats are to commit a move here "
                            f"({', '.join(s.name for s in seats)}), not {len(moves)}")
        node = self.node
        read = [self._legal(node[1], seat, move) for seat, move in zip(seats, moves)]
        n, pending = len(self.lines), list(node[3].items())
        try:
            for seat, move in zip(seats, read):
                self._commit(seat, move)
        except GdlError:
            self._as_before(n, pending)
            raise

    def _decided(self, site, seat, info, args, text=None):
        """Records a legal move (info, args) of the one deciding seat, whose text is made
        once per distinct move of the action, and runs the rules on from its action's
        entry (the instruction loop is `run`'s, inline: it is every move's)."""
        if text is None:
            try:                                # `move_text`'s lookup, inline
                text = info.texts.get(args) or move_text(info, args)
            except TypeError:
                text = move_text(info, args)
        self.lines.append((seat.index, text, None))
        if self.obs is None:
            seen = None
        elif info.secrets or args and any(isinstance(v, (Card, tuple)) for v in args):
            seen = self._redacted([(seat, Move(info, args, text))])
            self.mid = set()            # the cards seen as the action's statements end
        else:                   # every seat sees the move's text (`seen_in_full`)
            seen = [(f"{seat.name}: {text}",)] * len(self.prog.seats)
        frame = self.frame
        frame[info.me_slot] = seat
        if args:
            slots = info.slots
            if len(slots) == 1:                 # no zip: it costs more than the writes
                frame[slots[0]] = args[0]
            elif len(slots) == 2:
                frame[slots[0]], frame[slots[1]] = args
            else:
                for slot, v in zip(slots, args):
                    frame[slot] = v
        entries = site.entries
        if entries is None:
            entries = site.entries = {a: entry for a, entry in site.actions}
        self.node = None
        code = self.prog.code
        self.budget = LOOP_BUDGET
        self.pc = pc = entries[info]        # where an ending leaves it: keys tell endings apart
        while pc >= 0:
            pc = code[pc](self)
        if seen is not None:
            self._observe(seen)

    def random_step(self, rng, bits=None):
        """At a decision of one seat, `apply(random_move(rng))` in one call: the same
        move drawn the same way.  `bits` is `draws_by_bits(rng)` where already known (a
        playout works it out once)."""
        if self.node[0] != DECIDE:
            raise MoveError("random_step is for a decision of one seat; use random_move")
        self.random_run(rng, 1, bits, chance=False, joint=False)

    def random_steps(self, rng, limit: int, bits=None) -> int:
        """`random_step` again and again while one seat decides, at most `limit` times;
        returns how many (`random_run` restricted to such decisions)."""
        return self.random_run(rng, limit, bits, chance=False, joint=False)[1]

    def random_run(self, rng, limit: int, bits=None, chance: bool = True,
                   decide: bool = True, joint: bool = True) -> tuple:
        """Plays on with random moves for every seat and chance's own draws, at most
        `limit` steps (a chance event, a decision, a simultaneous decision), until the end
        or a kind of step not asked for; returns (steps, decisions).  A playout of random
        agents is one call; `chance_steps` and `random_steps` are its restricted forms, so
        the three share one loop, each step's lines inline:

        * a decision, where no seat's observations are kept, is one call of its site's
          generated step (`_actions.generated_step`), which draws, records and enters the
          move and runs the first run of the rules after it; the rest (a site's first
          decision, observed seats, generated code off) goes by `_random_decision`;
        * a chance event is `sample_chance` and `apply_chance` inline; where draws go by
          bits and no observations are kept, the rules run after a draw in a loop make
          the draws in loops they reach themselves (generated code draws them as below
          while `free`, the number of steps left, lasts);
        * a simultaneous decision is `random_joint_step`, whose generated path (the
          site's joint step, where no seat committed before and no observations are
          kept) is inline."""
        if bits is None:
            bits = type(rng) is Random and _DRAW_BY_BITS
            if not bits and not hasattr(rng, "randrange"):
                raise _not_random(rng)
        steps = decisions = 0
        node = self.node
        observed = self.obs is not None
        frame, history, code = self.frame, self.lines, self.prog.code
        outcomes, steady = self.prog.outcomes, self.prog.steady
        inline = bits and not observed
        while steps < limit:
            kind = node[0]
            if kind == DECIDE and decide:     # this and the decisions straight after it
                first = steps
                while True:
                    site, seat = node[1], node[2][0]
                    step = site.step          # the pick and the lines below, generated
                    if step and not observed:
                        try:
                            pc = step(self, seat, rng, bits)
                        except BaseException:
                            if self.node is node:     # the draw failed: no move was made
                                self._clear_slots(site)
                            raise
                        if pc is None:        # no legal move: the general path says so
                            self._random_decision(site, seat, rng, bits)
                        else:
                            while pc >= 0:
                                pc = code[pc](self)
                    else:
                        self._random_decision(site, seat, rng, bits)
                    steps += 1
                    node = self.node
                    if node[0] != DECIDE or steps >= limit:
                        break
                decisions += steps - first
                continue
            elif kind == CHANCE and chance:
                if node[1] == "random":
                    values = node[3]
                    n = len(values)
                    if bits:                                    # `_bits_below`, inline
                        k = n.bit_length()
                        i = rng.getrandbits(k)
                        while i >= n:
                            i = rng.getrandbits(k)
                    else:
                        i = rng.randrange(n)
                    value = frame[node[2]] = values[i]
                    try:                          # `_random_outcome`'s lookup, inline
                        outcome = outcomes[i, type(value), value, node[4]]
                    except (KeyError, TypeError):
                        outcome = self._random_outcome(i)
                    again = inline and node[5]
                    line = outcome.entry
                else:
                    slot = node[2]
                    cards = self.zones[slot][:]
                    _shuffle(rng, cards)
                    # a steady zone's cards face one way (a placed position, where one
                    # may not, keeps its seats' views: `observed`)
                    if observed or not steady[slot]:
                        outcome = self._shuffle_outcome(cards)
                        line = outcome.entry
                    else:       # its line made when the history is read (`history`)
                        line = (_UNMADE, slot, tuple(cards))
                        self.lazy = True
                    self._shuffled(slot, cards)
                    again = False
                steps += 1
                if observed:
                    self._chanced(outcome)
                else:
                    history.append(line)   # `_chanced`'s lines, inline
                    self.node = None
                    self.budget = LOOP_BUDGET
                    if again:
                        steps += self._drawing(rng, limit - steps)
                    else:
                        pc = self.pc
                        while pc >= 0:
                            pc = code[pc](self)
            elif kind == SIMUL and joint:
                step = node[1].joint          # `random_joint_step`'s generated path, inline
                if step and not node[3] and not observed:
                    pc = step(self, rng, type(rng) is Random and _DRAW_BY_BITS)
                    if pc is not None:
                        while pc >= 0:
                            pc = code[pc](self)
                        decisions += len(node[2])
                    else:                     # a seat had no legal move: the general path
                        decisions += self._joint_drawn(node, rng)
                else:
                    decisions += self.random_joint_step(rng)
                steps += 1
            else:
                break
            node = self.node
        return steps, decisions

    def _random_decision(self, site, seat, rng, bits):
        """One random decision by the pick, the plain draws or `random_move`, then
        `_decided`: the path of a decision `random_run` takes without a generated step."""
        pick = site.pick                  # a site whose actions have parameters
        if pick:
            move = self._picked(pick, site, seat, rng, bits)
        else:
            fixed = site.fixed
            if fixed is _NO_PARAMETERS:
                move = self._random_plain(site, seat, rng, bits)
            elif fixed:
                move = fixed[_bits_below(rng, len(fixed)) if bits
                             else rng.randrange(len(fixed))]
            elif fixed is None:           # the first decision here: random_move finds out
                move = self.random_move(rng, seat)
            else:                         # makes the site's pick, if it can have one
                move = self._random_pick(site, seat, rng)
        if type(move) is tuple:
            (info, args), text = move, None
        else:
            info, args, text = move.action, move.args, move._text or move.text
        self._decided(site, seat, info, args, text)

    def random_joint_step(self, rng) -> int:
        """At a simultaneous decision, every waiting seat's `random_move` (in `to_move`
        order, each drawn after the previous one commits, as a loop of `apply` would;
        drawn as `random_move` draws, without its checks of who may move), then the
        moves take effect together; returns how many seats moved.  Where no seat's
        observations are kept, a generated pick's (action, arguments) go straight to
        `_resolve_drawn`, with no Move made for each."""
        node = self.node
        if node[0] != SIMUL:
            raise MoveError("random_joint_step is for a simultaneous decision")
        joint = node[1].joint
        if joint and not node[3] and self.obs is None:
            pc = joint(self, rng, type(rng) is Random and _DRAW_BY_BITS)
            if pc is not None:                # else a seat had no legal move: below
                code = self.prog.code
                while pc >= 0:
                    pc = code[pc](self)
                return len(node[2])
        return self._joint_drawn(node, rng)

    def _joint_drawn(self, node, rng) -> int:
        """`random_joint_step` past its generated path: each waiting seat's move drawn
        and committed, then resolved."""
        site, pending = node[1], node[3]
        waiting = [p for p in node[2] if p not in pending]
        if self.obs is not None:
            for seat in waiting:              # `random_move`'s draw, without its checks
                pending[seat] = self._drawn(site, seat, rng)
            self._resolve_simultaneous(node)
            return len(waiting)
        drawn = []
        try:
            for seat in waiting:
                pick = site.pick
                if pick:
                    move = self._picked(pick, site, seat, rng,
                                        type(rng) is Random and _DRAW_BY_BITS)
                else:
                    move = self._drawn(site, seat, rng)
                drawn.append((seat, move))
        except BaseException:                 # the seats drawn before stay committed
            for seat, move in drawn:
                pending[seat] = move if type(move) is not tuple else Move(*move)
            raise
        self._resolve_drawn(node, drawn)
        return len(waiting)

    def _resolve_drawn(self, node, drawn):
        """The moves committed before and the `drawn` (seat, move) pairs after them, each
        a Move or (action, arguments), take effect: recorded in the order they came, run
        in seat order."""
        self.node = None
        history, frame = self.lines, self.frame
        moves = []                            # (seat number, seat, action, arguments)
        for seat, move in node[3].items():
            history.append((seat.index, move._text or move.text, "simultaneous"))
            moves.append((seat.index, seat, move.action, move.args))
        for seat, move in drawn:
            if type(move) is tuple:
                info, args = move
                try:
                    text = info.texts.get(args) or move_text(info, args)
                except TypeError:
                    text = move_text(info, args)
            else:
                info, args, text = move.action, move.args, move._text or move.text
            history.append((seat.index, text, "simultaneous"))
            moves.append((seat.index, seat, info, args))
        where = None
        if len(moves) > 1:
            moves.sort()                      # in seat order (seat numbers differ)
            if node[1].takes_cards and any(any(map(holds_card, args))
                                           for _, _, _, args in moves):
                where = list(self.loc)          # where the cards lay as the seats chose
        self.budget = LOOP_BUDGET             # the blocks' loops count from the decision
        for _, seat, info, args in moves:
            if where is not None:
                args = self._untaken(seat, info, args, where)
            frame[info.me_slot] = seat
            slots = info.slots
            for slot, v in zip(slots, args):
                frame[slot] = v
            ended = self.exec_block(info.block)
            frame[info.me_slot] = None
            for slot in slots:
                frame[slot] = None
            if ended:
                return
        code = self.prog.code                 # `run`'s lines, inline
        self.budget = LOOP_BUDGET
        self.pc = pc = node[1].next_pc
        while pc >= 0:
            pc = code[pc](self)

    def _untaken(self, seat, info, args, where) -> tuple:
        """A simultaneous move's arguments as it takes effect after the moves of the seats
        before it: a card one of them moved away is swapped for a twin of it still where
        it lay as the seats chose (both chose `take A` of two aces: the second took the
        first's card out of its hand).  A card with no such twin stays as it is: the
        rules may test where it is (`if c in pool`)."""
        loc, zones = self.loc, self.zones
        if len(args) == 1 and type(args[0]) is Card and loc[args[0].id] == where[args[0].id]:
            return args                 # the common case: one card, still where it lay
        used: set = set()

        def free(c):
            z = where[c.id]
            if loc[c.id] != z:
                for d in zones[z]:
                    if d.kind == c.kind and d.id not in used:
                        used.add(d.id)
                        return d
            return c

        def swap(v):
            if isinstance(v, Card):
                return free(v)
            return tuple(map(swap, v)) if isinstance(v, tuple) else v
        return tuple(map(swap, args))

    def _redacted(self, moves):
        """Returns, per seat, how it sees these (seat, move) pairs, taken before they apply
        and finished by `_observe` after."""
        return [[(s, redaction(self, s.index, m, q)) for s, m in moves]
                for q in self.prog.seats]

    def _observe(self, seen):
        """Appends each seat's observation and its view now to its perfect-recall log."""
        seats, mid = self.prog.seats, self.mid
        self.mid = None
        lines = [l if isinstance(l, tuple) else
                 tuple(f"{s.name}: {finish_redaction(self, words, q, mid)}" for s, words in l)
                 for l, q in zip(seen, seats)]
        self.obs = tuple([(log, (ls, v)) for log, ls, v in zip(self.obs, lines, views(self))])

    def known_twin(self, slots):
        """Swaps each card in these frame slots (an action's parameters, as its statements
        start; the cards of a list too) for the twin `twin_taken` says the move takes
        (`_twin_choice`), each twin once (two parameters naming twins take two cards)."""
        frame, chosen = self.frame, set()
        for slot in slots:
            value = frame[slot]
            if isinstance(value, Card):
                frame[slot] = self.twin_taken(value, chosen)
            elif isinstance(value, tuple) and holds_card(value):
                frame[slot] = self._twins_taken(value, chosen)

    def _twins_taken(self, value: tuple, chosen: set) -> tuple:
        return tuple(self.twin_taken(v, chosen) if isinstance(v, Card) else
                     self._twins_taken(v, chosen) if isinstance(v, tuple) else v
                     for v in value)

    def twin_taken(self, card: Card, chosen: Optional[set] = None) -> Card:
        """The card a move naming `card` takes: in a set zone, the twin there, of its
        facing, that the most seats know (the first in the zone of those known alike),
        so that which twin a move takes does not hang on which twin the shuffle put where
        (a seat that knew one of them would tell from what it still knows which came)."""
        if card.kind not in self.prog.twin_kinds:
            return card                 # a card without a twin
        known, up, zone = self.known, self.up, self.zones[self.loc[card.id]]
        if not self.prog.is_set[self.loc[card.id]]:
            return card                 # a stack's twins: told apart by their places
        best, most = card, None
        for c in zone:
            if c.kind == card.kind and up[c.id] == up[card.id] and (
                    chosen is None or c.id not in chosen):
                bits = tuple([k >> c.id & 1 for k in known])
                rank = (sum(bits), bits)
                if most is None or rank > most:
                    best, most = c, rank
        if chosen is not None:
            chosen.add(best.id)
        return best

    def hidden_picks(self, slots, me: int):
        """As a move's statements start (`Compiler.hidden_picks`): a note of ((zone slot,
        the face-down cards among the move's arguments lying there, all the zone's cards),
        ...), what each seat knows, and the mover's number; None if no argument is a
        face-down card."""
        frame, loc, up, zones = self.frame, self.loc, self.up, self.zones
        taken: dict = {}
        for slot in slots:
            value = frame[slot]
            for c in (value,) if isinstance(value, Card) else \
                    _cards_in(value) if isinstance(value, tuple) else ():
                if not up[c.id]:
                    taken.setdefault(loc[c.id], {})[c.id] = c    # a card named twice: once
        if not taken:
            return None
        return (tuple((z, tuple(cards.values()), tuple(zones[z])) for z, cards in taken.items()),
                tuple(self.known), frame[me].index)

    def settle_picks(self, ending=None):
        """Each move under way forgets what it took unseen (`forget_picks`), its cards not
        taken yet noted again (`Compiler.settle_picks`); the note in slot `ending`, of a
        move ending here, then goes (`_compiler._note_ends`)."""
        frame = self.frame
        self.calm = False               # what the seats know may change: checks test all
        for slot in self.prog.pick_slots:
            note = frame[slot]
            if note is not None:
                frame[slot] = self.forget_picks(note)
        if ending is not None:
            frame[ending] = None

    def forget_picks(self, note):
        """For the cards a move took face down from a zone whose cards a seat cannot tell
        apart as they go (a set, or a hand that shows it nothing): a seat that does not
        see each of them now cannot tell which went, so it forgets what it knew, as the
        move began, of the cards that lay there; one that sees them (laid face up) keeps
        it, but of twins forgets one it knew for each twin taken that it did not know.
        Nothing is forgotten where every card there went.  Returns the note of the cards
        not taken yet (None if every card went)."""
        taken, before, mover = note
        known, up, loc, zones = self.known, self.up, self.loc, self.zones
        hidden, infos = self.prog.helper(_hides_which), self.prog.zone_info
        twins, seats = self.prog.twin_kinds, self.prog.seats    # (empty: no twins)
        staying = []
        for z, cards, there in taken:
            went = [c for c in cards if loc[c.id] != z]
            if len(went) < len(cards):
                staying.append((z, tuple(c for c in cards if loc[c.id] == z),
                                tuple(zones[z])))
            if not went or len(went) == len(there):
                continue
            mask = 0
            for d in there:
                mask |= 1 << d.id
            for q in hidden[z]:
                knew = before[q] & mask
                if not knew or q == mover:
                    continue
                if any(not up[c.id] and not infos[loc[c.id]].shows(seats[q]) for c in went):
                    known[q] &= ~knew
                elif twins:
                    for c in went:
                        if c.kind in twins and not knew >> c.id & 1:
                            twin = next((d for d in there if d.kind == c.kind and loc[d.id] == z
                                         and known[q] >> d.id & 1), None)
                            if twin is not None:
                                known[q] &= ~(1 << twin.id)
        return (tuple(staying), tuple(known), mover) if staying else None

    def sighted(self, slots):
        """Notes which seats see the cards in these frame slots (an action's parameters, as
        its statements end), where a move's observers are waiting to know (`mid`): a card
        laid face up is named even if the rules gather it face down before the step ends."""
        mid, frame, seats = self.mid, self.frame, self.prog.seats
        for slot in slots:
            card = frame[slot]
            if isinstance(card, Card):
                mid.update((q.index, card.id) for q in seats if self.sees(q, card))
            elif isinstance(card, tuple):       # a list of cards: each of them
                for c in _cards_in(card):
                    mid.update((q.index, c.id) for q in seats if self.sees(q, c))

    def _resolve_simultaneous(self, node):
        """The committed moves take effect, observed by the seats where that is kept."""
        seen = None
        if self.obs is not None:
            seen = self._redacted(sorted(node[3].items(), key=_seat_first))
            self.mid = set()
        self._resolve_drawn(node, ())
        if seen is not None:
            self._observe(seen)

    # ------------------------------------------------------------------ chance
    def chance_outcomes(self):
        """Returns [(outcome, Fraction)] at a chance node, or None where there are too
        many to list (a large shuffle): use `sample_chance` then."""
        node = self.node
        if node[0] != CHANCE:
            return []
        if node[1] == "random":
            values = node[3]
            p = uniform(len(values))
            return [(self._random_outcome(i), p) for i in range(len(values))]
        cards = self.zones[node[2]]
        up = self.up
        named = named_twins(self)       # a twin face up and one face down differ
        groups = [alike(c, up, named) for c in cards] if named else \
            [(c.kind, up[c.id]) for c in cards]
        total = factorial(len(cards))
        for k in _Counter(groups).values():
            total //= factorial(k)
        if total > CHANCE_LIST_LIMIT:
            return None
        p = uniform(total)
        return [(self._shuffle_outcome(order), p)
                for order in _distinct_orders(cards, up, named)]

    def sample_chance(self, rng) -> ChanceOutcome:
        """Returns a chance outcome drawn with its exact probability using `rng`."""
        node = self.node
        if node[0] != CHANCE:
            raise MoveError("this is not a chance node")
        if node[1] == "random":
            return self._random_outcome(_below(rng, len(node[3])))
        cards = self.zones[node[2]][:]
        _shuffle(rng, cards)
        if self.prog.has_twins:         # the order as `chance_outcomes` lists it
            cards = _as_listed(cards, self.up, named_twins(self))
        return self._shuffle_outcome(cards)

    def _random_outcome(self, i) -> ChanceOutcome:
        """The outcome `i` of the random choice at this chance node."""
        node = self.node
        return self._outcome_at(node[3], i, node[4])

    def _outcome_at(self, values, i, secret) -> ChanceOutcome:
        """The outcome `i` of a random choice among `values`, made once per (index,
        value, secrecy); the value's type is in the key, as `1` and `true` are equal keys
        with other texts.  (A draw in generated code looks the key up itself first.)"""
        value = values[i]
        key = (i, type(value), value, secret)
        cache = self.prog.outcomes
        try:
            return cache[key]
        except KeyError:
            pass
        except TypeError:                      # an unhashable value: made each time
            cache = {}
        if type(value) is tuple:               # `[1]` and `[true]` are equal keys too
            cache = {}
        text = f"random {text_of(value)}"
        outcome = ChanceOutcome("random", i, text, "random ?" if secret else text)
        if len(cache) < OUTCOMES_KEPT:
            cache[key] = outcome
        return outcome

    def _entry_seen(self, seen: dict, values, i, value, secret) -> tuple:
        """The history entry of outcome `i` (`value`, an int) of a draw in generated code,
        kept in the site's own `seen` (value -> index -> entry) while it is small."""
        entry = self._outcome_at(values, i, secret).entry
        by_index = seen.get(value)
        if by_index is None and len(seen) < SEEN_VALUES:
            by_index = seen[value] = {}
        if by_index is not None and len(by_index) < SEEN_INDICES:
            by_index[i] = entry
        return entry

    def _shuffle_outcome(self, cards) -> ChanceOutcome:
        """The outcome putting `cards` in this order (top last); where the zone holds
        cards of both facings (which a shuffle keeps), its text shows the face-down ones
        in brackets, as the all-seeing view does: twins facing two ways are told apart."""
        slot = self.node[2]
        zone = self.prog.zones[slot]
        order = tuple([c.id for c in cards])  # comprehensions: faster than map here
        up = self.up
        # a steady zone's cards all face its way (`Program.steady`: no statement turns a
        # card there; a card placed by hand may), so only another's are looked at
        if (self.placed is not None or not self.prog.steady[slot]) and \
                len(set(map(up.__getitem__, order))) > 1:   # (a pass in C)
            text = f"shuffle {zone.text}: " + " ".join(
                [c.text if up[c.id] else f"({c.text})" for c in reversed(cards)])
        else:
            text = _shuffle_text(zone, cards)
        return ChanceOutcome("shuffle", order, text, f"shuffle {zone.text}")

    def outcome_from_data(self, kind: str, data) -> ChanceOutcome:
        """Returns the outcome recorded in a trace as (kind, data)."""
        node = self.node
        if node[0] != CHANCE or node[1] != kind:
            here = "the game is over" if node[0] == END else \
                f"{node[1]} acts" if node[0] == CHANCE else \
                "to move: " + ", ".join(p.name for p in self.to_move())
            raise MoveError(f"the trace has a {kind} outcome where the game is not at one "
                            f"({here})")
        if kind == "random":
            if not (isinstance(data, int) and 0 <= data < len(node[3])):
                raise MoveError(f"the recorded random outcome {data!r} is not one of the "
                                f"{len(node[3])} possible")
            return self._random_outcome(data)
        # the ids' types and bounds checked by passes in C, and the ids sorted as they
        # are: a replay reads a whole deck's order at every shuffle
        cards = self.prog.cards
        if type(data) not in (tuple, list) or not (_INT_TYPES.issuperset(map(type, data))
                and (not data or 0 <= min(data) and max(data) < len(cards))):
            raise MoveError("the recorded shuffle names cards this game does not have")
        if sorted(data) != sorted([c.id for c in self.zones[node[2]]]):
            raise MoveError("the recorded shuffle does not hold the zone's cards")
        return self._shuffle_outcome([cards[i] for i in data])

    def apply_chance(self, outcome: ChanceOutcome):
        node = self.node
        if node[0] != CHANCE:
            raise MoveError("this is not a chance node")
        if node[1] == "random":
            self.frame[node[2]] = node[3][outcome.data]
        else:
            cards = self.prog.cards
            self._shuffled(node[2], [cards[i] for i in outcome.data])
        self._chanced(outcome)

    def chance_step(self, rng, bits=None):
        """At a chance node, `apply_chance(sample_chance(rng))` in one call: the same
        outcome drawn the same way (random playouts take this step at every chance;
        twins alike may take each other's places, the same position); `bits` as for
        `random_step`."""
        if self.node[0] != CHANCE:
            raise MoveError("this is not a chance node")
        self.random_run(rng, 1, bits, decide=False, joint=False)

    def chance_steps(self, rng, limit: int, bits=None) -> int:
        """`chance_step` again and again while chance acts, at most `limit` times; returns
        how many (a playout takes a run of chance events so: a row of `random` draws, say;
        `random_run` restricted to chance events)."""
        return self.random_run(rng, limit, bits, decide=False, joint=False)[0]

    def _drawing(self, rng, left: int) -> int:
        """Runs the rules after a draw in a loop, letting generated code make the draws
        in loops it reaches, at most `left` of them (`_drawn_here` in the compiler);
        returns how many it made."""
        self.rng, self.free = rng, left
        code = self.prog.code
        pc = self.pc
        try:
            while pc >= 0:
                pc = code[pc](self)
            return left - self.free
        finally:
            self.free, self.rng = 0, None

    def _shuffled(self, slot, cards):
        self.zones[slot] = cards
        if self.prog.is_set[slot]:
            cards.sort(key=_card_order)

    def _chanced(self, outcome):
        """Records a chance outcome (already in effect) and runs the rules on (the
        instruction loop is `run`'s, inline: it is every chance event's)."""
        self.lines.append(outcome.entry)
        self.node = None
        code = self.prog.code
        self.budget = LOOP_BUDGET
        pc = self.pc
        while pc >= 0:
            pc = code[pc](self)
        if self.obs is not None:
            self._observe([(outcome.public,)] * len(self.prog.seats))

    # ------------------------------------------------------------------ seeing
    def sees(self, seat: Optional[Seat], card: Card) -> bool:
        """Returns whether `seat` (None: an all-seeing observer; a seat or its name) sees a
        card (a Card, or its text: any of the twins that have it) face now."""
        if type(seat) is str or type(card) is str:
            seat = None if seat is None else self._seat(seat)
            if type(card) is str:
                twins = [c for c in self.prog.cards if c.text == card] or \
                    [self.game.card(card)]
                return any(self.sees(seat, c) for c in twins)
        if seat is None or self.up[card.id] or self.known[seat.index] >> card.id & 1:
            return True
        return self.prog.zone_info[self.loc[card.id]].shows(seat)

    def unseen(self, seat) -> List[Card]:
        """Returns the cards whose faces `seat` (a seat or its name) does not see now
        (`sees`), zone by zone in each zone's order: a zone that shows its cards to the
        seat is passed over whole."""
        seat = self._seat(seat)
        up, known, infos = self.up, self.known[seat.index], self.prog.zone_info
        out: List[Card] = []
        for slot, zone in enumerate(self.zones):
            if zone and not infos[slot].shows(seat):
                out += [c for c in zone if not up[c.id] and not known >> c.id & 1]
        return out

    def trace_texts(self) -> List[str]:
        seats = self.prog.seats
        return [(seats[w].name + ": " if w >= 0 else "chance: ") + text
                for w, text, _ in self.history]

    def place(self, cards, zone, face: str = "up"):
        """Puts cards (texts such as `KH`, or Card objects) on top of a zone, outside the
        rules: for building test positions.  Twins are taken in order from wherever they
        are not already placed by this call.  The trace cannot replay a placement, so the
        state logs its seats' observations from here on (a step with no line, each seat's
        view after it), and its information-set keys and logs are its own; `undo` goes back
        as far as the last placement, and `trace` refuses."""
        if face not in ("up", "down"):
            raise MoveError(f"face is 'up' or 'down', not {face!r}")
        ref = self.game.zone(zone) if isinstance(zone, str) else zone
        if isinstance(cards, str):              # one card's text, not its letters
            cards = [cards]
        chosen = []
        for c in cards:
            if isinstance(c, str):
                twins = [x for x in self.prog.cards if x.text == c and x not in chosen]
                if not twins:
                    self.game.card(c)
                    raise MoveError(f"every card {c!r} is already placed")
                c = twins[0]
            chosen.append(c)
        self.change_outside(lambda: self.move_cards(list(reversed(chosen)), ref.slot,
                                                    _TOP, None, face == "up", None))

    def change_outside(self, change):
        """Calls `change()`, which changes the position outside the rules (a placement,
        two cards swapped): as no trace can replay it, the state logs its seats'
        observations from here on (a step with no line, each seat's view after it),
        `undo` goes back no further and `trace` refuses."""
        if self.obs is None:                    # the log so far, while the trace tells it
            self.obs = log_of(self)
        self.calm = False                       # the next check tests every trigger
        change()
        if self.prog.regroups:                  # a set's twins as the rules keep them
            self.regroup()
        self.obs = tuple([(cell, ((), v)) for cell, v in zip(self.obs, views(self))])
        self.mark_placed()

    def mark_placed(self):
        """Notes that steps before here cannot be replayed (a placement, or a snapshot of
        a state that had one): `undo` replays from a copy of the state as it is now."""
        from .serial import trace_of
        self.placed = None
        self.placed = (len(trace_of(self)["steps"]), self.clone())
        self.placed[1].placed = self.placed

    def cards_in(self, zone) -> List[Card]:
        """Returns the cards of a zone (text such as `deck[p1]`, or a ZoneRef), top first
        (a set zone's in card order, as `cards(z)` gives them)."""
        ref = self.game.zone(zone) if isinstance(zone, str) else zone
        cards = self.zones[ref.slot]
        return list(cards) if self.prog.is_set[ref.slot] else list(reversed(cards))

    def failed_invariants(self) -> List[str]:
        """Returns the names of the ruleset's `invariant`s that do not hold here."""
        return [name for name, fn, _ in self.prog.invariants if not fn(self)]

    def view(self, player=None, symbols: bool = False) -> str:
        """Returns the table as `player` sees it now (None: the all-seeing view)."""
        return view(self, player, symbols)

    def infoset_key(self, player) -> str:
        """Returns the player's information-set key (perfect recall)."""
        return infoset_key(self, player)

    def observation_log(self, player) -> List[str]:
        """Returns the game so far as `player` saw it: one line per step."""
        return observation_log(self, player)

    def to_json(self) -> dict:
        """Returns a JSON-ready snapshot that `game.state_from_json` reads back exactly."""
        from .serial import state_to_json
        return state_to_json(self)

    def trace(self) -> dict:
        """Returns the trace of the game so far (options, seed, every step)."""
        from .serial import trace_of
        if self.placed is not None:
            raise TraceError("this position was built with place() (or two cards "
                             "swapped), which no trace can replay: take a snapshot with "
                             "to_json() instead")
        return trace_of(self)

    def undo(self, steps: int = 1):
        """Takes back the last `steps` steps (moves and chance events), by replay."""
        from .serial import trace_of
        if type(steps) is not int:
            raise MoveError(f"undo takes a whole number of steps, not {steps!r}")
        trace = trace_of(self)
        made = len(trace["steps"])
        n = made - steps
        if n < 0 or steps < 0:
            raise MoveError(f"cannot undo {steps} step{'s' * (steps != 1)}: "
                            f"{made} {'was' if made == 1 else 'were'} made")
        first = 0 if self.placed is None else self.placed[0]
        if n < first:
            raise MoveError(f"cannot undo {steps} step{'s' * (steps != 1)}: the position "
                            f"was built with place() (or two cards swapped) after step "
                            f"{first}, which no trace can replay; at most {made - first} "
                            f"can be undone")
        back = self._replayed(trace, n)
        for name in State.__slots__:
            setattr(self, name, getattr(back, name))

    # ------------------------------------------------------------------ identity
    def key(self):
        """Returns the canonical, hashable form of this state."""
        return state_key(self)

    def __eq__(self, other):
        # states of two games (other rules, other options) are never equal, however alike
        return isinstance(other, State) and _same_game(self.game, other.game) and \
            self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return f"<State of {self.prog.title or self.prog.path} after {len(self.lines)} steps>"


class _NotCertain(Exception):
    """A move text whose words cannot be matched to arguments one for one."""


def _search_args(st, params, requires, words, i: int, args: tuple) -> Optional[tuple]:
    """`State._named_args`' search of several parameters, from parameter `i` on (the
    earlier ones bound to `args`): depth first in domain order, a value's text worked
    out as `text_of` does (its commonest types inline)."""
    if i == len(params):
        return args if all(req(st) for req, _, _ in requires) else None
    _, slot, domain = params[i]
    word = words[i + 1]
    frame = st.frame
    for v in list(_candidates(st, domain, word)):
        kind = type(v)
        t = v.text if kind in HAS_TEXT else str(v) if kind is int else text_of(v)
        if not t or " " in t:                   # words cannot tell where it ends
            raise _NotCertain
        if t == word:
            frame[slot] = v
            found = _search_args(st, params, requires, words, i + 1, args + (v,))
            if found is not None:
                return found
    frame[slot] = None
    return None


def _candidates(st, domain, word: str):
    """A parameter's candidates for a move text's word, in domain order: where the
    domain is a range (worked out now, or a constant one's `numbers`), only the number
    the word spells, if the range holds it; else every value."""
    values = domain(st)
    if type(values) is range:
        return _in_range(values, word)
    numbers = getattr(domain, "numbers", None)
    return values if numbers is None else _in_range(numbers, word)


def _in_range(values: range, word: str) -> tuple:
    """The values of a range whose text is `word`: the number it spells, if the range
    holds it (no number has an empty text or a space, so none before it makes the match
    uncertain)."""
    try:
        v = int(word)
    except ValueError:
        return ()
    return (v,) if v in values and str(v) == word else ()


def _unspaced_brackets(text: str) -> str:
    """`text` without the spaces beside the brackets and commas of a zone's indices, at
    any depth (`fam[ grid[2, black], true ]` is `fam[grid[2,black],true]`), or before
    an opening bracket; other spaces stay (between words, inside brackets too)."""
    out, depth, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            after = text[j] if j < n else ""
            if not (after == "[" or depth and (out[-1] in ",[" or after in ",]")):
                out.append(text[i:j])
            i = j
            continue
        depth += ch == "["
        depth -= ch == "]" and depth > 0
        out.append(ch)
        i += 1
    return "".join(out)


def _not_to_move(seat, waiting) -> str:
    """Why a seat's move is judged nowhere now: another seat decides."""
    return f"{seat.name} is not to move now (to move: {', '.join(p.name for p in waiting)})"


def _arg_words(text: str) -> list:
    """The words of a move's text, a bracketed part with spaces in it one word
    (`play 5H [4D, 1C]` is three words, `select cell[1, 1]` two)."""
    words, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch.isspace() and depth == 0:
            if start is not None:
                words.append(text[start:i])
                start = None
            continue
        if start is None:
            start = i
        depth += ch == "["
        depth -= ch == "]" and depth > 0
    if start is not None:
        words.append(text[start:])
    return words


#: a space beside a bracket or comma: only then can `_unspaced_brackets` change a text (a
#: canonical text has none)
_SPACED_BRACKET = re.compile(r"\s[,\[\]]|[,\[\]]\s")


def _moves_0(st, info):
    test = info.tests[0]
    return [info.plain] if test is None or test(st) else []


def _moves_params(st, info):
    """One or more parameters: `random_move`'s chunks, spelt out (the same moves in the
    same order, from one enumerator).  A move is made once per distinct arguments of the
    action and kept (`_KeptMoves`): the same move, its text made once, at every listing."""
    chunks = _chunk_enumerators(st, info)
    kept = info.moves
    if kept is None:
        kept = info.moves = _KeptMoves(info)
    try:
        if chunks and type(chunks[0][2]) is range:
            return _ranges_moves(chunks, kept)
        return [kept[prefix + (v,)] for _, prefix, values in chunks for v in values]
    except TypeError:                   # an unhashable argument: made each time
        return [Move(info, prefix + (v,))
                for _, prefix, values in _chunk_enumerators(st, info) for v in values]


def _ranges_moves(chunks, kept):
    """The moves of chunks whose last parameter runs over a range of numbers: each
    chunk's run of moves is kept too, by its prefix and range, as the same few come
    back at every listing (a number of cards to take, a place to put them)."""
    runs, out = kept.runs, []
    for _, prefix, values in chunks:
        if type(values) is not range:
            out += [kept[prefix + (v,)] for v in values]
            continue
        run = runs.get((prefix, values))
        if run is None:
            run = [kept[prefix + (v,)] for v in values]
            if len(runs) < MOVE_TEXTS:
                runs[prefix, values] = run
        out += run
    return out


#: the most parameter values `State.why_no_moves` tries an action, looking for a candidate
WHY_CANDIDATES = 1000


class _KeptMoves(dict):
    """An action's arguments -> its Move, made on first use (up to `MOVE_TEXTS` kept).
    A Move is never changed but for its text, made once, so states may share it.
    `runs` keeps whole runs of them (`_ranges_moves`)."""

    __slots__ = ("action", "runs")

    def __init__(self, action):
        super().__init__()
        self.action = action
        self.runs = {}

    def __missing__(self, args):
        move = Move(self.action, args)
        if len(self) < MOVE_TEXTS:
            self[args] = move
        return move


def _chunk_enumerators(st, info):
    """The chunks behind `random_move`: parameters but the last are enumerated as in
    depth first; the last one's domain is kept whole (a range is only measured) unless
    a require tests it.  Generated code runs the same steps (`ActionInfo.chunks`); this
    is its reference form, except that the generated list of a lone card parameter where
    cards have twins keeps only the first card of each kind (`ActionInfo.merged`), as
    `legal_moves` and `_twins_merged` then do with this one, and that an action of three
    parameters or more whose list reads only a few values keeps it by them
    (`ActionInfo.chunk_memo`)."""
    if info.chunks is not None:
        return info.chunks(st)
    params, tests = info.enum_params, info.tests
    n = len(params)
    if tests[0] is not None and not tests[0](st):
        return []
    epochs = st.prog.epoch if info.hoisted else None
    if n == 1:                                  # the common case: no prefix to enumerate
        values = _last_values(st, info, epochs)
        return [(info, (), values)] if values else []
    frame = st.frame
    out = []
    if n == 2:                                  # one leading parameter: a flat loop
        _, s0, d0 = params[0]
        t1 = tests[1]
        if epochs is not None:
            epochs[0] += 1
        for v0 in d0(st):
            frame[s0] = v0
            if t1 is not None and not t1(st):
                continue
            values = _last_values(st, info, epochs)
            if values:
                out.append((info, (v0,), values))
        return out
    args = [None] * (n - 1)

    def rec(i):
        if i == n - 1:
            values = _last_values(st, info, epochs)
            if values:
                out.append((info, tuple(args), values))
            return
        _, slot, domain = params[i]
        if epochs is not None:
            epochs[i] += 1
        for v in domain(st):
            frame[slot] = v
            args[i] = v
            if tests[i + 1] is not None and not tests[i + 1](st):
                continue
            rec(i + 1)
    rec(0)
    return out


def _last_values(st, info, epochs):
    """The last parameter's candidates that its requires allow (the earlier ones bound):
    its domain as it is when nothing tests it."""
    n = len(info.enum_params)
    _, slot, domain = info.enum_params[-1]
    values = domain(st)
    if info.exclude is not None:
        values = _excluding(values, info.exclude, st)
    test = info.tests[n]
    if test is None:
        return values
    if epochs is not None:
        epochs[n - 1] += 1
    frame = st.frame
    kept = []
    for v in values:
        frame[slot] = v
        if test(st):
            kept.append(v)
    return kept


#: `Site.fixed` for a site whose actions have no parameters but some have requires
_NO_PARAMETERS = object()


def _bits_below(rng, n: int) -> int:
    """CPython's `Random.randrange(n)` for n >= 1: `n.bit_length()` random bits, drawn
    again while too large (the two hottest draws, in `random_step` and `chance_step`,
    have it inline)."""
    k = n.bit_length()
    i = rng.getrandbits(k)
    while i >= n:
        i = rng.getrandbits(k)
    return i


_UNIFORM: dict = {}


def uniform(n: int) -> Fraction:
    """Returns Fraction(1, n), made once per n (a chance node's outcomes, a walk's moves:
    a Fraction costs more to make than the rest of an outcome)."""
    p = _UNIFORM.get(n)
    if p is None:
        p = Fraction(1, n)
        if len(_UNIFORM) < 10_000:
            _UNIFORM[n] = p
    return p


#: the first item of a history line not made yet (`State.history`)
_UNMADE = object()


def _shuffle_text(zone, cards) -> str:
    """A shuffle's history text where every card faces the zone's way: the cards top
    first."""
    return f"shuffle {zone.text}: " + " ".join([c.text for c in reversed(cards)])


def _shuffle_by_bits(rng, cards):
    """CPython's `Random.shuffle`, its draws (`_bits_below`) inline: one call a shuffle
    instead of one per card; each place's bound and bit count come from `_swaps`."""
    getrandbits = rng.getrandbits
    steps = _SWAPS.get(len(cards))
    if steps is None:
        steps = _swaps(len(cards))
    for i, n, k in steps:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


#: zone size -> its shuffle's steps (`_swaps`)
_SWAPS: dict = {}


def _swaps(size: int) -> tuple:
    """A shuffle's steps for `size` cards, in its order: (place, the bound of the draw
    for it, the bits drawn), made once per size (a size's bit counts cost a call each)."""
    steps = tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, size)))
    if size <= 4096:
        _SWAPS[size] = steps
    return steps


def _draws_by_bits() -> bool:
    """Whether this Python's `Random.randrange` and `Random.shuffle` draw as
    `_bits_below` and `_shuffle_by_bits` (checked on a sample; if not, every draw goes
    through `randrange` and `shuffle`)."""
    a, b = Random(7), Random(7)
    if not all(a.randrange(n) == _bits_below(b, n) for n in (1, 2, 3, 5, 6, 7, 52, 1000) * 8):
        return False
    for n in (0, 1, 2, 3, 7, 52, 60):
        x, y = list(range(n)), list(range(n))
        a.shuffle(x)
        _shuffle_by_bits(b, y)
        if x != y or a.random() != b.random():
            return False
    return True


_DRAW_BY_BITS = _draws_by_bits()


def draws_by_bits(rng) -> bool:
    """Whether `rng` draws as the inline draws do (a plain `random.Random` on a Python
    whose draws were checked): `random_step` and `chance_step` take it from a loop that
    steps many times with one source."""
    return type(rng) is Random and _DRAW_BY_BITS


def _shuffle(rng, cards):
    """`rng.shuffle(cards)`: the same order from the same stream."""
    if draws_by_bits(rng):
        _shuffle_by_bits(rng, cards)
        return
    try:
        rng.shuffle(cards)
    except AttributeError:
        raise _not_random(rng) from None


def _below(rng, n: int) -> int:
    """`rng.randrange(n)` for n >= 1: the same number and the same stream, without
    randrange's argument checks where `rng` is a plain `random.Random`."""
    if type(rng) is Random and _DRAW_BY_BITS:
        return _bits_below(rng, n)
    try:
        return rng.randrange(n)
    except AttributeError:
        raise _not_random(rng) from None


def _not_random(rng) -> MoveError:
    return MoveError(f"the source of chance must be a random.Random (or have its methods), "
                     f"not {type(rng).__name__} {rng!r:.40}: random.Random(seed) gives one")


def _fixed_moves(site):
    """Returns a site's moves when they never change (no action has parameters or
    requires, as in `choose p: pass, bet`); `_NO_PARAMETERS` when no action has
    parameters but some have requires; else False."""
    if all(info.plain is not None for info, _ in site.actions):
        if all(info.tests[0] is None for info, _ in site.actions):
            return [info.plain for info, _ in site.actions]
        site.plain_moves = generated_plain(site)
        return _NO_PARAMETERS
    return False


def _twins_merged(st, seat, info, found):
    """An action's chunks (not empty) with identical cards merged, as `legal_moves` lists
    them: one card parameter keeps the first card of each kind, several list the moves
    and drop twins."""
    if info.card_args is None:         # a parameter's type never changes, but a list
        if not _has_card(found):        # may hold no card this time (`take []` alone)
            return found
        info.card_args = True
    if not info.card_args or info.merged:  # no cards, or the generated list merged them
        return found
    if len(info.params) == 1:
        return [(info, (), _one_per_kind(found[0][2]))]
    moves = _without_twins(st._moves_of(info, seat))
    return [(info, None, moves)] if moves else []


def _committed(st, info, drawn):
    """What a generated simultaneous step leaves when a seat has no legal move or a
    pick raises: the slots cleared, and the seats drawn before committed as Moves, as
    the loop of `random_joint_step` leaves them.  `drawn` holds (seat number, seat,
    arguments) of `info`'s moves, or (seat number, seat, action, arguments) where `info`
    is None (a site of several actions)."""
    st._clear_slots(st.node[1])
    pending = st.node[3]
    for entry in drawn:
        pending[entry[1]] = Move(info, entry[2]) if info is not None else \
            Move(entry[2], entry[3])


def _hides_which(prog) -> tuple:
    """For each zone slot, the numbers of the seats it hides which face-down card is
    taken from (`ZoneInfo.hides_which`)."""
    return tuple(tuple(q.index for q in prog.seats if info.hides_which(q))
                 for info in prog.zone_info)


def _cards_in(value):
    """The cards of a list argument, at any depth."""
    for v in value:
        if isinstance(v, Card):
            yield v
        elif isinstance(v, tuple):
            yield from _cards_in(v)


def _has_card(chunks):
    """Whether an action's moves name cards (any of them: `take []` may come first)."""
    for _, prefix, values in chunks:
        if prefix is None:
            if any(holds_card(a) for m in values for a in m.args):
                return True
        elif any(map(holds_card, prefix)) or any(map(holds_card, values)):
            return True
    return False


def _twin_key(value):
    """A move argument with each card as its kind: twins give one key (lists too)."""
    if isinstance(value, Card):
        return value.kind
    if isinstance(value, tuple):
        return tuple(map(_twin_key, value))
    return value


def _excluding(values, exclude, st):
    """A last parameter's candidates without the value its first require rules out
    (`dest != selected[me]`), that value computed only if there are candidates."""
    values = list(values)
    if values:
        x = exclude(st)
        values = [v for v in values if v != x]
    return values


def _one_per_kind(values):
    """The first of each group of identical cards, in order (`_without_twins` for the
    values of a lone parameter); cards of as many kinds as there are come back as given.
    One pass: a dict keeps each kind's first card, in the order the kinds first come."""
    firsts: dict = {}
    keep = firsts.setdefault
    try:
        for v in values:
            keep(v.kind, v)
    except AttributeError:              # not only cards
        pass
    else:
        return values if len(firsts) == len(values) else list(firsts.values())
    seen = set()
    out = []
    for v in values:
        k = _twin_key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _without_twins(moves):
    """Returns the moves with one of each group that differ only in identical cards."""
    seen = set()
    out = []
    for m in moves:
        key = (m.action, tuple(map(_twin_key, m.args)))
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


_seat_first = (lambda item: item[0].index)  # noqa: E731


def _same_game(a, b) -> bool:
    """Whether two games are one: the same object, or loaded from the same text with the
    same options (their states' keys then mean the same)."""
    if a is b:
        return True
    return a.source == b.source and a.path == b.path and \
        {k: text_of(v) for k, v in a.options.items()} == \
        {k: text_of(v) for k, v in b.options.items()}


def _not_a_move(move, seat) -> MoveError:
    """The error of something given as a move that is neither a move's text nor a Move
    (a chance outcome applied where a seat decides, say)."""
    return MoveError(f"{seat.name} decides here: give a move's text or a Move, not "
                     f"{type(move).__name__} {getattr(move, 'text', move)!r}")


def _unpickled(game, trace, snapshot, observe: bool) -> State:
    """A pickled state again (`State.__reduce__`)."""
    from .serial import replay
    if trace is not None:
        return replay(game, trace, observe=observe)
    return game.state_from_json(snapshot)


def named_twins(st):
    """The twin kinds the variables or the frame name (`_keys.named_kinds`), whose cards
    a shuffle's listed orders tell apart by id; empty where none is named."""
    return named_kinds(st, st.prog.twin_kinds) if names_twins(st) else ()


def alike(c, up, named) -> tuple:
    """What tells cards apart in a shuffle's orders: the kind and facing (a twin face up
    and one face down differ), and the id of a card of a `named` kind."""
    return (c.kind, up[c.id], c.id if c.kind in named else -1)


def _as_listed(cards, up, named=()):
    """`cards` in their order as `_distinct_orders` lists it: twins alike given their ids
    in ascending order (a drawn order was an outcome equal to none listed, so its
    probability could not be looked up).  Sorts in C: the fuzzer draws every shuffle so
    (a loop over the cards was 5% of its work in a seed game with twins)."""
    mixed = named or len(set(map(up.__getitem__, [c.id for c in cards]))) > 1
    groups = [alike(c, up, named) for c in cards] if mixed else [c.kind for c in cards]
    if len(set(groups)) == len(groups):
        return cards
    ranked = sorted(cards, key=lambda c: (alike(c, up, named), c.id)) if mixed else \
        sorted(cards, key=_by_kind_and_id)                  # by kind, then id
    n = len(cards)
    # the places of each group's cards, in order; then which of them each place is
    places = sorted(range(n), key=groups.__getitem__)
    rank = sorted(range(n), key=places.__getitem__)
    return list(_itemgetter(*rank)(ranked))


def _distinct_orders(cards, up, named=()):
    """Yields each distinct order of `cards` (twins alike, `alike`, are not told
    apart), in a canonical order, giving such twins their ids in ascending order."""
    by_kind = {}
    for c in sorted(cards, key=lambda c: c.id):
        by_kind.setdefault(alike(c, up, named), []).append(c)
    kinds = sorted(by_kind)
    counts = {k: len(v) for k, v in by_kind.items()}
    n = len(cards)
    seq = []

    def rec():
        if len(seq) == n:
            used = {k: 0 for k in kinds}
            out = []
            for k in seq:
                out.append(by_kind[k][used[k]])
                used[k] += 1
            yield out
            return
        for k in kinds:
            if counts[k]:
                counts[k] -= 1
                seq.append(k)
                yield from rec()
                seq.pop()
                counts[k] += 1
    yield from rec()
