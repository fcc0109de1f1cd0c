"""What each player sees: views, the redacted form of moves, and information-set keys.

A view shows only what a seat may see now: face-up cards, its own hand where the zone is
`seen by owner`, cards it has been shown, sizes and order of everything, public variables.
A seat's information-set key is its perfect-recall record: every move it observed (its own
in full, others' with secret parameters and unseen cards as `?`) and its view after each.
"""
from __future__ import annotations

from typing import List, Optional

from gdl.ast import Seen

from ._compiler import CHANCE, DECIDE, END
from .values import Card, Seat, text_of

HIDDEN = "?"


def card_text(state, seat: Optional[Seat], card: Card, symbols: bool = False) -> str:
    """A card as `seat` sees it: its text, `?` if unseen, in lower case (in brackets with
    symbols) if it lies face down and the seat knows it only from having seen it, or in the
    all-seeing view."""
    if not state.sees(seat, card):
        return HIDDEN
    text = card.symbol if symbols else card.text
    if state.up[card.id]:
        return text
    if seat is not None and not state.known[seat.index] >> card.id & 1:
        return text                              # its zone shows it to this seat (a hand)
    return f"({text})" if symbols else text.lower()


def zone_cards(state, seat, slot, symbols=False) -> str:
    """Returns a zone's cards as `seat` sees them: top first (a set zone in card order)."""
    cards = state.zones[slot]
    is_set = state.prog.is_set[slot]
    shown = [card_text(state, seat, c, symbols) for c in (cards if is_set else reversed(cards))]
    if is_set:
        shown = sorted(s for s in shown if s != HIDDEN) + [s for s in shown if s == HIDDEN]
    return " ".join(shown)


def zone_lines(state, seat: Optional[Seat], symbols: bool = False) -> List[str]:
    """Returns one line per zone, `name (n): cards top first`; a family with two indices
    (a grid) gets one line per row, its cells separated by `|`."""
    prog = state.prog
    lines = []
    done = set()
    for ref in prog.zones:
        if ref.slot in done:
            continue
        family = prog.families.get(ref.family)
        if family is not None and len(ref.indices) == 2:
            rows = {}
            for key, z in family.items():
                rows.setdefault(key[0], []).append(z)
                done.add(z.slot)
            for first, zones in rows.items():
                cells = " | ".join(zone_cards(state, seat, z.slot, symbols) or "-" for z in zones)
                lines.append(f"{ref.family}[{text_of(first)},*]: {cells}")
            continue
        n = len(state.zones[ref.slot])
        lines.append(f"{ref.text} ({n}): {zone_cards(state, seat, ref.slot, symbols)}".rstrip())
    return lines


def var_lines(state, seat) -> List[str]:
    """Returns one line per variable; an indexed one lists its elements on that line."""
    prog = state.prog
    lines = []
    for name, slot in prog.var_slots.items():
        lines.append(f"{name} = {var_text(state, seat, slot)}")
    for name, (_, table) in prog.var_index.items():
        items = [f"{','.join(text_of(k) for k in key)}: {var_text(state, seat, slot)}"
                 for key, slot in table.items()]
        lines.append(f"{name} = {{{', '.join(items)}}}")
    return lines


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
    prog = state.prog
    lines = [status_line(state)]
    if state.out:
        lines.append("out: " + ", ".join(s.name for s in prog.seats if state.out >> s.index & 1))
    lines.extend(zone_lines(state, seat, symbols))
    lines.extend(var_lines(state, seat))
    return "\n".join(lines)


def var_text(state, seat, slot) -> str:
    """Returns a variable's value as `seat` may see it (`?` for another seat's private)."""
    private = state.prog.var_private[slot]
    if private is not None and seat is not None:
        seen, owner = private
        allowed = (seen is Seen.OWNER and owner is seat) or (
            seen is Seen.OTHERS and owner is not seat)
        if not allowed:
            return HIDDEN
    return visible_value(state, seat, state.vars[slot])


def visible_value(state, seat, value) -> str:
    if isinstance(value, Card):
        return card_text(state, seat, value)
    if isinstance(value, tuple):
        return "[" + ",".join(visible_value(state, seat, v) for v in value) + "]"
    return text_of(value)


def redact(state, seat_index: int, move, observer: Seat) -> str:
    """Returns the text `observer` sees of a move made by seat `seat_index` in `state`
    (the state before the move), judging cards by what the observer sees now."""
    return finish_redaction(state, redaction(state, seat_index, move, observer), observer)


def finish_redaction(state, words, observer: Seat) -> str:
    """Joins the words of a redaction; a card still pending shows if `observer` sees it in
    `state` (so a card played face up from a hidden hand is named once it lies face up)."""
    return " ".join(w if isinstance(w, str) else (w.text if state.sees(observer, w) else HIDDEN)
                    for w in words)


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
    for i, v in enumerate(move.args):
        if i in hidden:
            words.append(HIDDEN)
        elif isinstance(v, Card) and not state.sees(observer, v):
            words.append(v)
        else:
            words.append(text_of(v))
    return words


def observed(state):
    """Returns `state` itself if it logs observations, else a replay of it that does."""
    if state.obs is not None:
        return state
    s = state.game.new_state(state.seed, observe=True)
    for who, text, data in state.history:
        if who < 0:
            s.apply_chance(s.outcome_from_data(*data))
        else:
            s.apply(text, state.prog.seats[who])
    return s


def observations(state, player) -> List[tuple]:
    """Returns the seat's perfect-recall record, one (lines, view) pair per step: the
    moves it saw (redacted; several at a simultaneous step) or the chance event, and its
    view after them.  The first pair is the view after setup, with no lines."""
    seat = state.game.seat(player)
    parts = []
    cell = observed(state).obs[seat.index]
    while cell is not None:
        cell, entry = cell
        parts.append(entry)
    parts.reverse()
    return parts


def infoset_key(state, player) -> str:
    """Returns a string identifying the player's information set (perfect recall)."""
    return "\n".join("\n".join(lines + (view,)) for lines, view in observations(state, player))


def observation_log(state, player) -> List[str]:
    """Returns the seat's log of the game: every step as the seat saw it, one line each."""
    return [line for lines, _ in observations(state, player) for line in lines]
