"""The laws every state of every game must keep, and seeded runs that check them.

They need no Hypothesis: the fuzzer checks them on any install, and `gdl.testing` (the
Hypothesis kit) re-exports them for tests.
"""
from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Iterable, List, Optional, Sequence

from .errors import GdlError, listed

#: The laws every state of every game must keep.  `moves`: every deciding seat has legal
#: moves, their texts are unique, stable and parse back; `chance`: listed probabilities
#: are positive and sum to 1 and recorded outcomes read back; `views`: swapping two cards
#: a seat cannot see changes neither its view nor its legal moves; `twins`: two cards
#: alike in every attribute trading places (facings, who knows them) change no seat's
#: view, no legal move and no key, now or after the same next move; `clone`, `json` and
#: `replay`: copies, JSON snapshots and replayed traces give the same state; `returns`:
#: one finite number per seat, zeros until the end; `invariants`: the ruleset's own.
LAWS = ("moves", "chance", "views", "twins", "clone", "json", "replay", "returns",
        "invariants")


#: Legal moves whose text is parsed back at each state (all of them when there are fewer).
PARSE_SAMPLE = 40


class LawBroken(AssertionError):
    """A state broke one of the laws; the message lists each problem and the steps, and
    `trace` is the trace of the state (`interpreter.replay(game, err.trace)` gives it
    back: the printed steps name chance outcomes by text, which does not replay), None
    for a position built with `place`."""

    def __init__(self, message: str, trace: Optional[dict] = None):
        super().__init__(message)
        self.trace = trace



def story(game, state, steps, error=None) -> str:
    opts = ", ".join(f"{k}={_text(v)}" for k, v in game.overrides.items())
    lines = [f"Playthrough of {game.title}" + (f" ({opts})" if opts else "")
             + f", {len(steps)} steps:"]
    lines.extend(f"    {i}. {text}" for i, text in enumerate(steps, 1))
    if error is not None:
        lines.append(f"  stopped by {type(error).__name__}: {error}")
    elif state is not None and state.is_terminal():
        lines.append("  game over: " + " ".join(
            f"{s.name} {r:+g}" for s, r in zip(game.seats, state.returns())))
    return "\n".join(lines)


def _text(value) -> str:
    from interpreter.values import text_of
    return getattr(value, "name", None) or text_of(value)


# ---------------------------------------------------------------------------- the laws
def law_problems(state, laws: Sequence[str] = LAWS, rng: Optional[random.Random] = None
                 ) -> List[str]:
    """Returns a description of every law in `laws` that `state` breaks (empty if none)."""
    rng = rng or random.Random(0)
    unknown = [law for law in laws if law not in _LAWS]
    if unknown:
        raise ValueError(f"unknown laws {unknown}: the laws are {', '.join(LAWS)}")
    out: List[str] = []
    seen = _Seen(state)
    for law in laws:
        try:
            out.extend(f"[{law}] {p}" for p in _LAWS[law](seen, rng))
        except GdlError as err:
            out.append(f"[{law}] {type(err).__name__}: {err}")
    return out


def check_laws(state, laws: Sequence[str] = LAWS, rng: Optional[random.Random] = None,
               steps: Optional[List[str]] = None):
    """Raises LawBroken, listing the problems and the steps that led here, if `state`
    breaks any of `laws`."""
    problems = law_problems(state, laws, rng)
    if problems:
        told = story(state.game, state, steps if steps is not None else state.trace_texts())
        raise LawBroken("\n".join(problems) + "\n" + told,
                        state.trace() if state.placed is None else None)   # place(): none


class _Seen:
    """The state whose laws are checked, with what several laws read of it made once:
    its key, its snapshot, its all-seeing view and each seat's legal moves' texts.  The
    laws change no state they are given (the `clone` law checks that), so these hold."""

    def __init__(self, state):
        self.state = state
        self.made: dict = {}

    def _once(self, what, make):
        found = self.made.get(what)
        if found is None:
            found = self.made[what] = make()
        return found

    def key(self):
        return self._once("key", self.state.key)

    def json(self) -> dict:
        return self._once("json", self.state.to_json)

    def view(self) -> str:
        return self._once("view", self.state.view)

    def moves(self, seat) -> List[str]:
        return self._once(("moves", seat), lambda: [m.text for m in
                                                    self.state.legal_moves(seat)])


def _moves(seen, rng) -> Iterable[str]:
    state = seen.state
    deciding = state.to_move()
    if not deciding and state.legal_moves():
        yield "a state where nobody decides offers legal moves"
    for seat in state.game.seats:
        if seat not in deciding:
            if state.legal_moves(seat):
                yield f"{seat.name} is not deciding but has legal moves"
            continue
        texts = seen.moves(seat)
        if not texts:
            yield f"{seat.name} must decide but has no legal move"
        if len(set(texts)) != len(texts):
            twice = sorted({t for t in texts if texts.count(t) > 1})
            yield f"{seat.name}'s legal moves share texts: {listed(twice, 5)}"
        if [m.text for m in state.clone().legal_moves(seat)] != texts:
            yield f"{seat.name}'s legal moves differ on a clone"
        sample = texts if len(texts) <= PARSE_SAMPLE else rng.sample(texts, PARSE_SAMPLE)
        for text in sample:
            if state.parse_move(text, seat).text != text:
                yield f"{seat.name}'s move {text!r} does not parse back to itself"


def _chance(seen, rng) -> Iterable[str]:
    state = seen.state
    if not state.is_chance():
        if state.chance_outcomes():
            yield "a state that is not a chance node lists chance outcomes"
        return
    outcomes = state.chance_outcomes()
    if outcomes is None:
        sample = state.sample_chance(rng)
        back = state.outcome_from_data(sample.kind, sample.data)
        if back != sample or back.text != sample.text:
            yield f"the sampled outcome {sample.text!r} does not read back from its data"
        return
    total = sum((p for _, p in outcomes), Fraction(0))
    if total != 1:
        yield f"chance probabilities sum to {total}, not 1"
    if any(p <= 0 for _, p in outcomes):
        yield "a chance outcome has probability 0 or less"
    if len({(o.kind, o.data) for o, _ in outcomes}) != len(outcomes):
        yield "two chance outcomes are the same"
    for o, _ in rng.sample(outcomes, min(3, len(outcomes))):
        if state.outcome_from_data(o.kind, o.data).text != o.text:
            yield f"the outcome {o.text!r} does not read back from its data"


def _views(seen, rng) -> Iterable[str]:
    state = seen.state
    for seat in state.game.seats:
        hidden = state.unseen(seat)
        pairs = _unlike_pairs(hidden, rng)
        if not pairs:
            continue
        shown = state.view(seat)
        moves = seen.moves(seat) if seat in state.to_move() else None
        for a, b in pairs:
            other = _swapped(state, a, b)
            if other.view(seat) != shown:
                yield (f"{seat.name}'s view changes when two cards it cannot see swap places "
                       f"({a.text} and {b.text}):\n{_diff(shown, other.view(seat))}")
            if moves is not None and [m.text for m in other.legal_moves(seat)] != moves:
                yield (f"{seat.name}'s legal moves change when two cards it cannot see swap "
                       f"places ({a.text} and {b.text})")


def _unlike_pairs(cards, rng, n: int = 2) -> list:
    """Returns up to n pairs of cards with different texts: the first two kinds found,
    then pairs drawn with `rng`."""
    if len({c.text for c in cards}) < 2:
        return []
    first = cards[0]
    pairs = [(first, next(c for c in cards if c.text != first.text))]
    for _ in range(n - 1):
        a, b = rng.sample(cards, 2)
        if a.text != b.text:
            pairs.append((a, b))
    return pairs


def swapped(state, a, b, known: bool = False):
    """Returns a copy of `state` in which cards `a` and `b` have swapped places (and
    facings): the position as a seat that sees neither card cannot tell it apart.  With
    `known`, who knows each card goes with it (twins trading every part of their place).
    No trace replays the swap: like `place`, the copy logs its seats' observations from
    here on, `undo` goes back no further and `trace` refuses."""
    s = state.clone()
    s.change_outside(lambda: _swap(s, a, b, known))
    return s


def _swapped(state, a, b, known: bool = False):
    """`swapped` for a law that only looks at the copy and plays a move on it: no logs
    (the next trigger check tests every trigger: the swap was no statement)."""
    s = state.clone()
    _swap(s, a, b, known)
    s.calm = False
    return s


def _swap(s, a, b, known: bool):
    """Swaps cards `a` and `b` in place (`swapped`)."""
    za, zb = s.loc[a.id], s.loc[b.id]
    ia, ib = s.zones[za].index(a), s.zones[zb].index(b)
    s.zones[za][ia], s.zones[zb][ib] = b, a
    s.loc[a.id], s.loc[b.id] = zb, za
    s.up[a.id], s.up[b.id] = s.up[b.id], s.up[a.id]
    if known:
        s.known = [k & ~(1 << a.id | 1 << b.id) | (k >> a.id & 1) << b.id
                   | (k >> b.id & 1) << a.id for k in s.known]
        _rename(s, {a: b, b: a})
    s.regroup({za, zb})                         # set zones keep the engine's order


def _rename(state, names: dict) -> None:
    """Puts each card in `names` for its partner wherever the state holds cards by
    themselves (variables, the frame's locals and parameters, moves committed at a
    simultaneous decision), so that two twins trade every part of their places."""
    from interpreter.values import Card, Move

    def renamed(v):
        if type(v) in (list, tuple):
            return type(v)(renamed(x) for x in v)
        if type(v) is Move:
            return Move(v.action, renamed(v.args), v._text)
        return names.get(v, v) if isinstance(v, Card) else v
    state.vars = [renamed(v) for v in state.vars]
    state.frame = [renamed(v) for v in state.frame]
    node = state.node
    if node is not None and len(node) > 3 and isinstance(node[3], dict):
        state.node = node[:3] + ({seat: renamed(m) for seat, m in node[3].items()},) \
            + node[4:]


def _twins(seen, rng) -> Iterable[str]:
    """Twins are told apart only by their places: a seat that could tell which of two
    identical cards is where, or a move that took the one a seat knows and not the other
    (the engine takes the one most seats know), would show here.  Keys are compared (a
    key holds each card's kind, facing and who knows it, so equal keys make equal
    views); the views only to say what differs.  The generator is left as it was found,
    so that the law changes no other law's draws, nor the fuzzer's."""
    if not seen.state.prog.has_twins:
        return
    kept = rng.getstate()
    try:
        yield from _twins_drawn(seen, rng)
    finally:
        rng.setstate(kept)


def _twins_drawn(seen, rng) -> Iterable[str]:
    state = seen.state
    pair = _twin_pair(state, rng)
    if pair is None:
        return
    a, b = pair
    other = _swapped(state, a, b, known=True)
    what = f"twins {a.text} trade places (in {_where(state, a)} and {_where(state, b)})"
    seats = state.game.seats
    deciding = [p for p in state.to_move() if seen.moves(p)]
    if not deciding:
        return
    mover = deciding[rng.randrange(len(deciding))]
    texts = seen.moves(mover)
    if [m.text for m in other.legal_moves(mover)] != texts:
        yield f"{mover.name}'s legal moves change when {what}"
        return
    text = texts[rng.randrange(len(texts))]
    after = state.clone()
    try:
        after.apply(text, mover)
        other.apply(text, mover)
    except GdlError:
        return                                  # the rules' own error: not this law's
    if other.key() != after.key():          # equal keys make equal views: looked at only
        seat = next((q for q in seats if other.view(q) != after.view(q)), None)  # if not
        yield (f"after {mover.name}: {text}, the state differs as {what}" + (
            f"; {seat.name}'s view:\n{_diff(after.view(seat), other.view(seat))}"
            if seat is not None else " (its key, not a seat's view)"))


def _twin_pair(state, rng):
    """Returns two twins of the kind of a card drawn with `rng` (a few tries), or None.
    Not of a kind a variable names: those twins are told apart by their ids (which one
    a variable holds shows), not alike."""
    from interpreter._keys import named_kinds, names_twins
    cards = state.prog.cards
    named = named_kinds(state, state.prog.twin_kinds) if names_twins(state) else ()
    for _ in range(8):
        kind = cards[rng.randrange(len(cards))].kind
        if kind in named:
            continue
        twins = [c for c in cards if c.kind == kind]
        if len(twins) > 1:
            i, j = rng.sample(range(len(twins)), 2)
            return twins[i], twins[j]
    return None


def _where(state, card) -> str:
    return state.prog.zones[state.loc[card.id]].text


def _diff(before: str, after: str) -> str:
    import difflib
    return "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(),
                                          "before", "after", lineterm="", n=0))


def _clone(seen, rng) -> Iterable[str]:
    state = seen.state
    copy = state.clone()
    if copy.key() != seen.key() or copy.to_json() != seen.json():
        yield "a clone differs from its original"
    if not copy.is_terminal():
        key = seen.key()
        try:
            _any_step(copy, rng)
        except GdlError:    # the rules' own error, which play meets: not this law's,
            pass            # but the original must still be as it was
        if state.key() != key:
            yield "a step made in a clone changed the original"


def _any_step(state, rng):
    if state.is_chance():
        state.apply(state.sample_chance(rng))
    else:
        seat = state.to_move()[0]
        state.apply(rng.choice(state.legal_moves(seat)), seat)


def _json(seen, rng) -> Iterable[str]:
    state = seen.state
    data = json.loads(json.dumps(seen.json()))
    back = state.game.state_from_json(data)
    if back.key() != seen.key():
        yield "the state read back from its JSON snapshot has another key"
    if back.to_json() != data:
        yield "the state read back from its JSON snapshot writes different JSON"
    if back.view(None) != seen.view():
        yield "the state read back from its JSON snapshot looks different"
    for seat in state.to_move():
        if [m.text for m in back.legal_moves(seat)] != seen.moves(seat):
            yield f"the state read back from JSON gives {seat.name} other legal moves"


def _replay(seen, rng) -> Iterable[str]:
    from interpreter import replay
    state = seen.state
    if state.placed is not None:        # built with place(): no trace replays it
        return
    trace = json.loads(json.dumps(state.trace()))
    back = replay(state.game, trace)
    if back.key() != seen.key():
        yield "replaying the state's trace reaches another state"
    elif back.to_json() != seen.json():
        fields = [k for k, v in back.to_json().items() if seen.json().get(k) != v]
        yield f"replaying the state's trace gives a different snapshot ({', '.join(fields)})"


def _returns(seen, rng) -> Iterable[str]:
    state = seen.state
    returns = state.returns()
    if len(returns) != state.game.num_players:
        yield f"returns has {len(returns)} numbers for {state.game.num_players} players"
    if any(not isinstance(r, (int, float)) or r != r or r in (float("inf"), float("-inf"))
           for r in returns):
        yield f"returns are not finite numbers: {returns}"
    if not state.is_terminal() and any(returns):
        yield f"returns are not zero before the end: {returns}"


def _invariants(seen, rng) -> Iterable[str]:
    """Each invariant on its own: one whose expression raises does not hide the others."""
    state = seen.state
    for name, holds, _ in state.prog.invariants:
        try:
            if not holds(state):
                yield f"the ruleset's invariant {name!r} does not hold"
        except GdlError as err:
            yield f"the ruleset's invariant {name!r} cannot be worked out here: {err}"


_LAWS = {"moves": _moves, "chance": _chance, "views": _views, "twins": _twins,
         "clone": _clone, "json": _json, "replay": _replay, "returns": _returns,
         "invariants": _invariants}


# ---------------------------------------------------------------------------- seeded runs
#: Laws whose cost grows with the length of the game (they replay it): `check_game` checks
#: them, and undo, only every `deep_every` steps.
DEEP_LAWS = ("json", "replay")


def check_game(game, seeds: Iterable[int] = (0, 1, 2), max_steps: int = 400,
               laws: Sequence[str] = LAWS, deep_every: int = 1, undo: bool = True
               ) -> List[int]:
    """Plays one uniformly random game per seed (chance with its probabilities), checking
    `laws` at every state, those of DEEP_LAWS and (with `undo`) that `undo` takes back
    a step exactly only every `deep_every` steps and at the end; raises LawBroken with
    the trace on the first problem.  Returns the number of steps of each game."""
    lengths = []
    light = [law for law in laws if law not in DEEP_LAWS]
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_state(seed)
        steps: List[str] = []
        while True:
            over = state.is_terminal() or len(steps) >= max_steps
            deep = over or len(steps) % deep_every == 0
            check_laws(state, laws if deep else light, rng, steps)
            if over:
                break
            before = state.clone() if undo and deep else None
            steps.append(_random_step(state, rng))
            if before is not None:
                check_undo(before, state, steps)
        lengths.append(len(steps))
    return lengths


def _random_step(state, rng) -> str:
    if state.is_chance():
        outcome = state.sample_chance(rng)
        state.apply(outcome)
        return f"chance: {outcome.text}"
    seat = state.to_move()[0]
    moves = state.legal_moves(seat)
    move = moves[rng.randrange(len(moves))]
    state.apply(move, seat)
    return f"{seat.name}: {move.text}"


def check_undo(before, state, steps):
    back = state.clone()
    back.undo(1)
    if back.key() != before.key() or back.to_json() != before.to_json():
        raise LawBroken("[undo] undoing the last step does not give back the state before "
                        "it\n" + story(state.game, state, steps), state.trace())


__all__ = ["LAWS", "DEEP_LAWS", "LawBroken", "law_problems", "check_laws", "check_game",
           "check_undo", "swapped"]
