"""What each player sees: views, the redacted form of moves, and information-set keys.

A view shows only what a seat may see now: face-up cards, its own hand where the zone is
`seen by owner`, cards it has been shown, sizes and order of everything, public variables.
A seat's information-set key is its perfect-recall record: every move it observed (its own
in full, others' with secret parameters and unseen cards as `?`) and its view after each.
"""
from __future__ import annotations

from operator import add
from typing import List, Optional, Tuple

from gdl.ast import Seen

from ._compiler import CHANCE, DECIDE, END
from .values import Card, Member, Seat, ZoneRef, text_of

HIDDEN = "?"


def known_text(text: str, faces=()) -> str:
    """A face-down card as a seat that knows it (or the all-seeing view) sees it: in lower
    case, or in brackets where lower case would not tell it from a face-up card (`7`,
    `b`: a text with no capital letter; `b` for `B` where a card `b` is in `faces`, the
    game's card texts)."""
    low = text.lower()
    return low if low != text and low not in faces else f"({text})"


def face_texts(prog) -> frozenset:
    """The texts of a game's cards, face up (`known_text` keeps clear of them)."""
    return frozenset(c.text for c in prog.cards)


def card_text(state, seat: Optional[Seat], card: Card, symbols: bool = False) -> str:
    """A card as `seat` sees it: its text, `?` if unseen, in lower case (in brackets with
    symbols) if it lies face down and the seat knows it only from having seen it (its zone
    does not show it to the seat), or in the all-seeing view.  A card revealed to the seat
    whose zone shows it anyway (its own hand) prints as it did: else its case would tell
    the seat that a reveal happened, which may say more than the card does."""
    if not state.sees(seat, card):
        return HIDDEN
    text = card.symbol if symbols else card.text
    if state.up[card.id]:
        return text
    if seat is not None and (not state.known[seat.index] >> card.id & 1 or
                             state.prog.zone_info[state.loc[card.id]].shows(seat)):
        return text                              # its zone shows it to this seat (a hand)
    return f"({text})" if symbols else known_text(text, state.prog.helper(face_texts))


class _Plan:
    """What a view shows of a program, worked out once: the label of every zone and
    variable line, which seats a zone shows its face-down cards to, which seats may not see
    a private variable, and each card's texts.  Views are taken after every step of every
    game an enumerator or solver walks, and successive states differ in a few places, so
    `view` also remembers each zone's line and the variable lines by exactly what decides
    them (`zone_memo`, `var_memo`, emptied past MEMO_LIMIT entries)."""

    def __init__(self, prog):
        seats = prog.seats
        # the first line of every view while one seat decides and nobody is out (made once:
        # a text made anew would be hashed anew in every memo key it is part of)
        self.to_move = [f"to move: {seat.name}" for seat in seats]
        # per card id: its text face up (or shown), and face down but known (`known_text`)
        self.face = ([c.text for c in prog.cards], [c.symbol for c in prog.cards])
        self.known = ([known_text(c.text, prog.helper(face_texts)) for c in prog.cards],
                      [f"({c.symbol})" for c in prog.cards])
        self.is_set = list(prog.is_set)
        self.shows = [tuple(info.shows(seat) for seat in seats)
                      for info in prog.zone_info]
        # (label, slots, grid): a zone's `name (` or a grid row's `family[i,*]: `
        self.zones = []
        done = set()
        for ref in prog.zones:
            if ref.slot in done:
                continue
            family = prog.families.get(ref.family)
            if family is not None and len(ref.indices) == 2:
                rows = {}
                for key, z in family.items():
                    rows.setdefault(key[0], []).append(z.slot)
                    done.add(z.slot)
                for first, slots in rows.items():
                    self.zones.append((f"{ref.family}[{text_of(first)},*]: ", slots, True))
                continue
            self.zones.append((f"{ref.text} (", [ref.slot], False))
        hidden = [tuple(_var_hidden(private, seat) for seat in seats)
                  for private in prog.var_private]
        self.scalars = [(f"{name} = ", slot, hidden[slot])
                        for name, slot in prog.var_slots.items()]
        self.indexed = [(f"{name} = {{", [(f"{','.join(text_of(k) for k in key)}: ", slot,
                                            hidden[slot]) for key, slot in table.items()])
                        for name, (_, table) in prog.var_index.items()]
        self.has_vars = bool(self.scalars or self.indexed)
        self.seats = list(seats)
        self.zone_memo: dict = {}   # (seat, symbols, faces, known) -> {(slot, cards): text}
        self.var_memo: dict = {}    # (seat, values, their types) -> the variable lines
        self.plain: dict = {}       # types of the values -> may the lines be remembered?
        self.table_memo: dict = {}  # (head, cards of every zone, faces, known) -> seat -> text
        self.vars_memo: dict = {}   # (values, their types) -> seat -> the variable lines
        self.stored = 0
        self.blank = [""] * len(seats)     # the variable lines of a program without any

    def cards(self, state, seat, slot, symbols) -> str:
        """Returns a zone's cards as `seat` sees them, as `card_text` and `zone_cards` do."""
        cards = state.zones[slot]
        if not cards:
            return ""
        k = 1 if symbols else 0
        up, face, known = state.up, self.face[k], self.known[k]
        if seat is None:
            shown = [face[i] if up[i] else known[i] for i in [c.id for c in cards]]
        else:
            mine = state.known[seat.index]
            if self.shows[slot][seat.index]:       # every face, revealed or not
                shown = [face[c.id] for c in cards]
            else:
                shown = [face[i] if up[i] else known[i] if mine >> i & 1 else HIDDEN
                         for i in [c.id for c in cards]]
        if self.is_set[slot]:
            return " ".join(sorted(s for s in shown if s != HIDDEN)
                            + [s for s in shown if s == HIDDEN])
        shown.reverse()
        return " ".join(shown)

    def zone_lines(self, state, seat, symbols) -> List[str]:
        lines = []
        for label, slots, grid in self.zones:
            if grid:
                lines.append(label + " | ".join(self.cards(state, seat, z, symbols) or "-"
                                                for z in slots))
            else:
                lines.append(self.zone_line(state, seat, label, slots[0], symbols))
        return lines

    def zone_line(self, state, seat, label, slot, symbols) -> str:
        return f"{label}{len(state.zones[slot])}): " \
               f"{self.cards(state, seat, slot, symbols)}".rstrip()

    def remembered_zone_lines(self, state, seat, symbols) -> List[str]:
        """`zone_lines`, each zone's text remembered by its cards, given the seat, the
        symbols flag, every card's facing and the cards the seat knows (all a zone's text
        depends on besides its cards)."""
        if self.stored >= MEMO_LIMIT:
            self.forget()
        who = None if seat is None else seat.index
        context = (who, symbols, tuple(state.up), 0 if seat is None else state.known[who])
        memo = self.zone_memo.get(context)
        if memo is None:
            memo = self.zone_memo[context] = {}
        zones = state.zones
        lines = []
        for label, slots, grid in self.zones:
            if grid:
                cells = []
                for z in slots:
                    key = (z, tuple(zones[z]))
                    text = memo.get(key)
                    if text is None:
                        text = memo[key] = self.cards(state, seat, z, symbols) or "-"
                        self.stored += 1
                    cells.append(text)
                lines.append(label + " | ".join(cells))
                continue
            slot = slots[0]
            key = (slot, tuple(zones[slot]))
            line = memo.get(key)
            if line is None:
                line = memo[key] = self.zone_line(state, seat, label, slot, symbols)
                self.stored += 1
            lines.append(line)
        return lines

    def plain_values(self, state):
        """Returns the variables and their types when every one is a number, text, seat,
        member, zone or none (their text is the same for every seat: memoisable), else
        (None, None).  The types go into memo keys, since True == 1."""
        values = tuple(state.vars)
        types = tuple(map(type, values))
        plain = self.plain.get(types)
        if plain is None:
            plain = self.plain[types] = all(t in _PLAIN_TYPES for t in types)
        return (values, types) if plain else (None, None)

    def remembered_var_lines(self, state, seat) -> str:
        """The variable lines joined, remembered by the values where each is a number,
        text, seat, member, zone or none (a card's text depends on who sees it; the types
        are in the key, since True == 1)."""
        values, types = self.plain_values(state)
        if values is None:
            return "\n".join(self.var_lines(state, seat))
        key = (None if seat is None else seat.index, values, types)
        text = self.var_memo.get(key)
        if text is None:
            if self.stored >= MEMO_LIMIT:
                self.forget()
            text = self.var_memo[key] = "\n".join(self.var_lines(state, seat))
            self.stored += 1
        return text

    def views(self, state, head, cards=None) -> List[str]:
        """Every seat's view, as `_view` makes them (`view_parts` joined)."""
        tables, lines = self.view_parts(state, head, cards)
        return tables if lines is self.blank else list(map(add, tables, lines))

    def view_parts(self, state, head, cards=None) -> Tuple[List[str], List[str]]:
        """Every seat's view in two parts, its table (first lines and zones) and its
        variable lines after the newline joining them on ("" each without variables).
        Successive states of a walk mostly share their table and variables, so all seats'
        first lines and zone lines are remembered at once by the first lines, every
        zone's cards, the facings and what each seat knows, and all seats' variable lines
        by the values: two look-ups a state, rather than one per zone and seat.  `cards`,
        where given, is the cards' part of the state's key (`_keys.cards_at`), which says
        all that of the cards already made (a set zone's cards in any order: their text
        is sorted).  Two views are equal exactly when their parts are: a table has one
        line a zone, after the status and an `out: ` line where someone is out, and no
        other line break (names and cards have none), and every variable line starts with
        its `name = `, so where one table ends is never in doubt."""
        if self.stored >= MEMO_LIMIT:
            self.forget()
        key = (head, tuple(map(tuple, state.zones)), tuple(state.up), tuple(state.known)) \
            if cards is None else (head, cards)
        tables = self.table_memo.get(key)
        if tables is None:
            tables = self.table_memo[key] = [
                "\n".join([head] + self.remembered_zone_lines(state, seat, False))
                for seat in self.seats]
            self.stored += 1
        if not self.has_vars:
            return tables, self.blank
        values = tuple(state.vars)          # `plain_values`, inline
        types = tuple(map(type, values))
        plain = self.plain.get(types)
        if plain is None:
            plain = self.plain[types] = all(t in _PLAIN_TYPES for t in types)
        if not plain:
            return tables, ["\n" + "\n".join(self.var_lines(state, seat))
                            for seat in self.seats]
        key = (values, types)
        lines = self.vars_memo.get(key)
        if lines is None:           # each seat's lines after the newline joining them on
            lines = self.vars_memo[key] = ["\n" + self.remembered_var_lines(state, seat)
                                           for seat in self.seats]
            self.stored += 1
        return tables, lines

    def forget(self):
        self.zone_memo.clear()
        self.var_memo.clear()
        self.table_memo.clear()
        self.vars_memo.clear()
        self.stored = 0

    def var_lines(self, state, seat) -> List[str]:
        values = state.vars
        who = None if seat is None else seat.index
        lines = [label + (HIDDEN if who is not None and hidden[who] else
                          _value_text(state, seat, values[slot]))
                 for label, slot, hidden in self.scalars]
        for label, items in self.indexed:
            lines.append(label + ", ".join(
                key + (HIDDEN if who is not None and hidden[who] else
                       _value_text(state, seat, values[slot]))
                for key, slot, hidden in items) + "}")
        return lines


def _var_hidden(private, seat) -> bool:
    """Returns whether a variable element shows as `?` to `seat` (as `var_text`)."""
    if private is None:
        return False
    seen, owner = private
    return not ((seen is Seen.OWNER and owner is seat) or
                (seen is Seen.OTHERS and owner is not seat))


#: The most zone and variable texts a program's views remember (then they start again).
MEMO_LIMIT = 50_000
_PLAIN_TYPES = frozenset({int, str, bool, type(None), Seat, Member, ZoneRef})
def _plan(prog) -> _Plan:
    """Returns the program's view plan, made on first use and kept with the program."""
    return prog.helper(_Plan)


def zone_cards(state, seat, slot, symbols=False) -> str:
    """Returns a zone's cards as `seat` sees them: top first (a set zone in card order)."""
    return _plan(state.prog).cards(state, seat, slot, symbols)


def zone_lines(state, seat: Optional[Seat], symbols: bool = False) -> List[str]:
    """Returns one line per zone, `name (n): cards top first`; a family with two indices
    (a grid) gets one line per row, its cells separated by `|`."""
    return _plan(state.prog).zone_lines(state, seat, symbols)


def var_lines(state, seat) -> List[str]:
    """Returns one line per variable; an indexed one lists its elements on that line."""
    return _plan(state.prog).var_lines(state, seat)


def status_line(state) -> str:
    node = state.node
    if node[0] == END:
        return "game over: " + ", ".join(f"{s.name} {r:+g}" for s, r in
                                         zip(state.prog.seats, state.returns()))
    if node[0] == CHANCE:
        return "chance: " + ("shuffle " + state.prog.zones[node[2]].text
                             if node[1] == "shuffle" else "random choice")
    if node[0] == DECIDE:
        return f"to move: {node[2][0].name}"
    done = ", ".join(p.name for p in node[2] if p in node[3])
    return "simultaneous: " + ", ".join(p.name for p in node[2]) + (
        f" (committed: {done})" if done else "")


def view(state, player=None, symbols: bool = False) -> str:
    """Returns the table as `player` sees it (None: everything, face-down cards in lower case)."""
    seat = None if player is None else state.game.seat(player)
    return _view(state, _plan(state.prog), _head(state), seat, symbols)


def views(state) -> List[str]:
    """Returns every seat's view, `view(state, seat)` in seat order (a perfect-recall log
    or an enumerator takes them all after each step)."""
    plan = _plan(state.prog)
    node = state.node
    if node[0] == DECIDE and not state.out:         # `_head`, made once per seat
        return plan.views(state, plan.to_move[node[2][0].index])
    return plan.views(state, _head(state))


def viewer(prog, cards_at: Optional[int] = None, parts: bool = False):
    """Returns `views` for the states of one program, its plan looked up once (an
    enumerator takes every new state's views).  Given `cards_at` (`_keys.cards_at`), the
    function returned reads the state's key too, and remembers the tables by its cards'
    part, made already, instead of making tuples of the zones, facings and knowledge
    (without, it takes the key but does not read it).  With `parts`, it returns the
    views unjoined (`_Plan.view_parts`): remembered texts, whose hashes are kept, where
    joined ones would be made and hashed anew."""
    plan = _plan(prog)
    planned, to_move = plan.view_parts if parts else plan.views, plan.to_move
    if cards_at is not None:
        def keyed_views(state, key):
            node = state.node
            if node[0] == DECIDE and not state.out:     # as `views`
                return planned(state, to_move[node[2][0].index], key[cards_at:])
            return planned(state, _head(state), key[cards_at:])
        return keyed_views

    def views_of(state, key=None):
        node = state.node
        if node[0] == DECIDE and not state.out:     # as `views`
            return planned(state, to_move[node[2][0].index])
        return planned(state, _head(state))
    return views_of


def _head(state) -> str:
    """Returns the first line(s) of every view: the status, and who is out."""
    if not state.out:
        return status_line(state)
    return status_line(state) + "\nout: " + ", ".join(
        s.name for s in state.prog.seats if state.out >> s.index & 1)


def _view(state, plan, head, seat, symbols) -> str:
    lines = [head]
    lines += plan.remembered_zone_lines(state, seat, symbols)
    if plan.has_vars:
        lines.append(plan.remembered_var_lines(state, seat))
    return "\n".join(lines)


def var_text(state, seat, slot) -> str:
    """Returns a variable's value as `seat` may see it (`?` for another seat's private)."""
    if seat is not None and _var_hidden(state.prog.var_private[slot], seat):
        return HIDDEN
    return visible_value(state, seat, state.vars[slot])


def _value_text(state, seat, value) -> str:
    """`visible_value`, with the common values (numbers, texts, seats, members, zones)
    first."""
    kind = type(value)
    if kind is int or kind is str:
        return str(value)
    if kind in _NAMED:
        return value.text
    return visible_value(state, seat, value)


_NAMED = (Seat, Member, ZoneRef)


def visible_value(state, seat, value) -> str:
    if isinstance(value, Card):
        return card_text(state, seat, value)
    if isinstance(value, tuple):
        return "[" + ",".join(visible_value(state, seat, v) for v in value) + "]"
    return text_of(value)


def finish_redaction(state, words, observer: Seat, mid=None) -> str:
    """Joins the words of a redaction; a card still pending shows if `observer` sees it in
    `state` (and not only by knowing it in a set or hand it cannot follow: the action may
    have paused before it was played) or saw it as the action's statements ended (`mid`:
    (seat number, card id) pairs, `State.sighted`), so a card played face up from a
    hidden hand is named even if the rules gather it face down before the step is over."""
    def word(w):
        if isinstance(w, str):
            return w
        if isinstance(w, tuple):        # a list argument: each card judged as one
            return "[" + ",".join(map(word, w)) + "]"
        return w.text if _named_now(state, observer, w) or \
            mid is not None and (observer.index, w.id) in mid else HIDDEN
    return " ".join(map(word, words))


def holds_card(value) -> bool:
    """Whether a move's argument is a card or a list holding one (at any depth)."""
    if isinstance(value, Card):
        return True
    return isinstance(value, tuple) and any(map(holds_card, value))


def seen_in_full(move) -> bool:
    """Returns whether every seat sees `move` as its own text in any state (`redaction`
    hides nothing): it has no secret parameters and no cards, whose faces may be unseen
    (a list of cards too)."""
    return not move.action.secrets and not any(map(holds_card, move.args))


def _named_now(state, observer, card) -> bool:
    """Whether a move's card argument is named to `observer` before the move: it sees the
    card, and not only by knowing it where it cannot follow which card is taken (a face-
    down card of a set, or of a hand that shows it nothing: judged after the move, when
    `State.forget_picks` has made it forget what it could not follow)."""
    return state.sees(observer, card) and (
        state.up[card.id] or not state.prog.zone_info[state.loc[card.id]].hides_which(observer))


def _list_words(state, observer, value) -> tuple:
    """A list argument's words: the cards `observer` sees as their texts, the others as
    the Card, judged again after the move (`finish_redaction`)."""
    return tuple(_list_words(state, observer, v) if isinstance(v, tuple) else
                 text_of(v) if not isinstance(v, Card) else
                 v.text if _named_now(state, observer, v) else v for v in value)


def redaction(state, seat_index: int, move, observer: Seat) -> list:
    """Returns the words `observer` sees of a move about to be made: secret parameters as
    `?`, and cards it does not see yet as the Card, to be judged again after the move."""
    if observer.index == seat_index:
        return [move.text]
    info = move.action
    hidden = set()
    if info.secrets:
        frame = state.frame
        frame[info.me_slot] = state.prog.seats[seat_index]
        for (_, slot, _), v in zip(info.params, move.args):
            frame[slot] = v
        try:
            for positions, when in info.secrets:
                if when is None or when(state):
                    hidden |= positions
        finally:
            frame[info.me_slot] = None
            for _, slot, _ in info.params:
                frame[slot] = None
    words = [info.name]
    chosen = set() if state.prog.has_twins and any(state.known) else None
    for i, v in enumerate(move.args):
        if chosen is not None:          # the twins the move will take (`_twin_choice`)
            if isinstance(v, Card):
                v = state.twin_taken(v, chosen)
            elif isinstance(v, tuple) and holds_card(v):
                v = state._twins_taken(v, chosen)
        if i in hidden:
            words.append(HIDDEN)
        elif isinstance(v, Card):
            words.append(v.text if _named_now(state, observer, v) else v)
        elif isinstance(v, tuple) and holds_card(v):
            words.append(_list_words(state, observer, v))
        else:
            words.append(text_of(v))
    return words


#: the most replays of states without logs a program keeps (`_replayed`), and the most
#: steps of their histories together (a long game's replays hold long logs), then it
#: starts again
REPLAYS_KEPT = 1024
REPLAY_STEPS_KEPT = 50_000

#: how many steps back `_replayed` looks for a kept replay of a shorter history
REPLAY_REACH = 16


def observed(state):
    """Returns `state` itself if it logs observations, else a replay of it that does (a
    copy of a kept one, `_replayed`)."""
    if state.obs is not None:
        return state
    return _replayed(state).clone()


def log_of(state) -> tuple:
    """Returns every seat's perfect-recall log (`State.obs`): the state's own, or that of
    a replay of it (`_replayed`)."""
    return state.obs if state.obs is not None else _replayed(state).obs


class _Replays(dict):
    """(seed, history) -> a replay, made to log observations, of a state that does not:
    kept for the states asked after it, which mostly go on from it (the children of a
    state in a tree, a game's later steps)."""

    __slots__ = ("steps",)

    def __init__(self, prog):
        super().__init__()
        self.steps = 0              # the kept replays' history entries, all together


def _replayed(state):
    """Returns a state at `state`'s point that logs observations: a kept replay of the
    same history, else one of a shorter history (at most REPLAY_REACH steps back) copied
    and played on, else a new game replayed from the start.  Asking the information
    states of a tree's states that keep no logs (OpenSpiel's tabular policies do) then
    replays a step or two per state instead of its whole line.  A game counting coverage
    replays from the start each time, as before (each replay's rules count)."""
    game, history = state.game, state.history
    if game.coverage is not None:
        return _replay(game.new_state(state.seed, observe=True), history)
    replays = state.prog.helper(_Replays)
    try:
        key = (state.seed, tuple(history))
        found = replays.get(key)
    except TypeError:                   # an unhashable recorded value: not kept
        return _replay(game.new_state(state.seed, observe=True), history)
    if found is not None:
        return found
    n = len(history)
    for k in range(n - 1, max(-1, n - 1 - REPLAY_REACH), -1):
        base = replays.get((state.seed, tuple(history[:k])))
        if base is not None:
            found = _replay(base.clone(), history[k:])
            break
    else:
        found = _replay(game.new_state(state.seed, observe=True), history)
    if len(replays) >= REPLAYS_KEPT or replays.steps + n > REPLAY_STEPS_KEPT:
        replays.clear()
        replays.steps = 0
    replays[key] = found
    replays.steps += n
    return found


def _replay(s, steps):
    """Plays the recorded steps on `s` (a state that logs observations); returns it."""
    seats = s.prog.seats
    for who, text, data in steps:
        if who < 0:
            s.apply_chance(s.outcome_from_data(*data))
        else:
            s.apply(text, seats[who])
    return s


def observations(state, player) -> List[tuple]:
    """Returns the seat's perfect-recall record, one (lines, view) pair per step: the
    moves it saw (redacted; several at a simultaneous step) or the chance event, and its
    view after them.  The first pair is the view after setup, with no lines."""
    seat = state.game.seat(player)
    parts = []
    cell = log_of(state)[seat.index]
    while cell is not None:
        cell, entry = cell
        parts.append(entry)
    parts.reverse()
    return parts


def infoset_key(state, player) -> str:
    """Returns a string identifying the player's information set (perfect recall)."""
    return key_of(observations(state, player))


def key_of(entries) -> str:
    """The information set key of a seat's `observations`."""
    return "\n".join(["\n".join(lines + (view,)) for lines, view in entries])


def observation_log(state, player) -> List[str]:
    """Returns the seat's log of the game: every step as the seat saw it, one line each,
    line i for the history's entry i.  A simultaneous decision's moves, seen together
    in seat order, are put back in the order the history keeps (the order of commit),
    so that a step has one number in every seat's log and in the trace."""
    return _in_history_order(state, [lines for lines, _ in observations(state, player)], 0)


def observation_tail(state, player, n: int) -> List[str]:
    """The last `n` lines of `observation_log`, read from the end of the seat's record
    (the REPL shows each step as the seat saw it: the whole log a step grew with the
    game)."""
    seat = state.game.seat(player) if not isinstance(player, Seat) else player
    groups, count = [], 0
    cell = log_of(state)[seat.index]
    while cell is not None and count < n:
        cell, (lines, _) = cell
        groups.append(lines)
        count += len(lines)
    groups.reverse()
    return _in_history_order(state, groups, len(state.history) - count)[-n:] if n else []


def _in_history_order(state, groups, start: int) -> List[str]:
    """The lines of consecutive steps' groups, the first at history entry `start`, each
    simultaneous group in the order of commit (`observation_log`)."""
    history, names = state.history, [seat.name for seat in state.prog.seats]
    out: List[str] = []
    for lines in groups:
        if len(lines) > 1:
            at = start + len(out)
            by_seat = {line.partition(": ")[0]: line for line in lines}
            order = [names[who] if who >= 0 else None
                     for who, _, _ in history[at:at + len(lines)]]
            if sorted(by_seat) == sorted(n for n in order if n is not None) \
                    and None not in order:
                lines = [by_seat[name] for name in order]
        out.extend(lines)
    return out
