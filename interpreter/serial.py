"""States and traces as JSON.

A state's JSON is a snapshot of its flat lists (values tagged by kind), so it round-trips
exactly; a trace is the options, the seed and every step's text (chance steps with their
data), and replays exactly.
"""
from __future__ import annotations

import hashlib
import json
import weakref
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any, Dict, Optional

from gdl.errors import GdlError, RuleError, TraceError

from ._compiler import CHANCE, DECIDE, END, SIMUL
from .values import Card, Member, Seat, ZoneRef, card_order

TRACE_FORMAT = "gdl-trace-2"

#: the format before chance events of one outcome (alike cards shuffled, a random of one
#: value) were steps: read as well, such events taken where its steps leave them
#: (`take_unrecorded`)
TRACE_FORMAT_1 = "gdl-trace-1"
#: the most such events in a row a replay takes (`take_unrecorded`)
UNRECORDED_RUN = 10_000

#: Bumped whenever the compiler lays out instructions, frame slots or variables
#: differently: a snapshot stores raw program counters and slots, so it only resumes
#: under the same layout (a trace, which stores move texts, replays under any).  3: a
#: random chance node says whether its draw is in a loop; 4: chance events of one outcome
#: are steps (a snapshot's history without them no longer replays); 5: a rule's
#: parameter given a local reads the local's slot (its own slot stays empty).
ENGINE_LAYOUT = 5


#: game -> `layout_of` it, worked out once: a game's program, rules text and options do not
#: change, and the fuzzer's laws write a snapshot at many steps (a digest of the whole
#: rules text each time was a twelfth of its time)
_LAYOUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def layout_of(game) -> str:
    """A digest of what a snapshot's program counter and slots refer to: the engine's
    layout version, the compiled program's shape, the rules text and the options."""
    digest = _LAYOUTS.get(game)
    if digest is None:
        prog = game.prog
        shape = (ENGINE_LAYOUT, len(prog.code), prog.frame_size, len(prog.zones),
                 len(prog.cards), len(prog.var_init), len(prog.sites), game.source,
                 sorted(game.options.items(), key=lambda kv: kv[0]))
        digest = _LAYOUTS[game] = hashlib.sha256(repr(shape).encode()).hexdigest()[:16]
    return digest


def encode(value) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Seat):
        return {"player": value.index}
    if isinstance(value, Member):
        return {"enum": value.enum, "member": value.index}
    if isinstance(value, Card):
        return {"card": value.id}
    if isinstance(value, ZoneRef):
        return {"zone": value.slot}
    if isinstance(value, tuple):
        return {"list": [encode(v) for v in value]}
    raise TypeError(f"cannot encode {value!r}")


def _index(i) -> int:
    """A seat's, card's or zone's number read back: never one counted from the end."""
    if type(i) is not int or i < 0:
        raise IndexError(f"{i!r} is not a number from 0")
    return i


def decode(prog, data) -> Any:
    if data is None or isinstance(data, (bool, int, str)):
        return data
    if "player" in data:
        return prog.seats[_index(data["player"])]
    if "enum" in data:
        return prog.enums[data["enum"]][data["member"]]
    if "card" in data:
        return prog.cards[_index(data["card"])]
    if "zone" in data:
        return prog.zones[_index(data["zone"])]
    if "list" in data:
        return tuple(decode(prog, v) for v in data["list"])
    raise TraceError(f"cannot decode {data!r}")


def state_to_json(state) -> Dict[str, Any]:
    """Returns a JSON-ready snapshot of a state."""
    node = state.node
    if node[0] == DECIDE:
        n = ["decide", node[1].id, [p.index for p in node[2]]]
    elif node[0] == SIMUL:
        n = ["simultaneous", node[1].id, [p.index for p in node[2]],
             {str(p.index): m.text for p, m in node[3].items()}]
    elif node[0] == CHANCE:
        n = ["chance"] + [encode(x) for x in node[1:]]
    else:
        n = ["end"]
    return {
        "game": state.game.path, "options": {k: encode(v) for k, v in state.game.overrides.items()},
        "layout": layout_of(state.game),
        "seed": state.seed, "pc": state.pc, "node": n,
        "zones": [[c.id for c in z] for z in state.zones], "up": state.up[:],
        "known": state.known[:], "vars": [encode(v) for v in state.vars],
        "frame": [encode(v) for v in state.frame], "out": state.out,
        "result": list(state.result) if state.result is not None else None,
        "history": [[w, t, d] if d is None else [w, t, list(d) if isinstance(d, tuple) else d]
                    for w, t, d in state.history],
        **({} if state.placed is None else {"placed": True}),
    }


def state_from_json(game, data: Dict[str, Any]):
    """Returns the state a snapshot describes, for a game with the same options."""
    from .state import State
    prog = game.prog
    if not isinstance(data, dict):
        raise TraceError(f"a state snapshot is the dict `to_json()` gives (`json.loads` of "
                         f"its text), not {type(data).__name__}")
    if data.get("layout") != layout_of(game):
        raise TraceError("not a state snapshot of this game: it was taken under other "
                         "rules, other options or another version of gdl, so its positions "
                         "do not apply here; replay the game's trace instead "
                         "(`state.trace()`, `gdl replay`)")
    try:
        s = game._blank_state()
        s.seed = data.get("seed")
        s.zones = [[prog.cards[i] for i in z] for z in data["zones"]]
        s.loc = [0] * len(prog.cards)
        for slot, z in enumerate(s.zones):
            for c in z:
                s.loc[c.id] = slot
            if prog.is_set[slot]:       # kept in card order, whatever the file's order
                z.sort(key=card_order)
        s.up = list(data["up"])
        if len(s.up) != len(prog.cards) or not all(type(u) is bool for u in s.up):
            raise ValueError("'up' must hold true or false for each card")
        s.known = list(data["known"])
        s.vars = [decode(prog, v) for v in data["vars"]]
        s.frame = [decode(prog, v) for v in data["frame"]]
        s.out, s.pc = data["out"], data["pc"]
        s.result = tuple(data["result"]) if data["result"] is not None else None
        s.history = [(w, t, tuple(d) if isinstance(d, list) else d)
                     for w, t, d in data["history"]]
        _check_shapes(s, prog)
        if not data.get("placed"):
            _check_facings(s, prog)
        if prog.regroups:               # twins in a set: by facing too (`regroup`)
            s.regroup()
        s.node = _node_from_json(s, data["node"])
    except (KeyError, IndexError, TypeError, ValueError) as err:
        raise TraceError(f"not a state snapshot of this game: {err}") from None
    assert isinstance(s, State)
    if data.get("placed"):      # its steps replay only from here on, and its logs begin
        from .observe import views
        s.obs = tuple([(None, ((), v)) for v in views(s)])
        s.mark_placed()
    return s


def _check_shapes(s, prog):
    """Raises ValueError where a snapshot's parts are not of this game's shape (a file
    edited by hand): each zone and card once, a variable and a frame slot each, a
    number of who knows what per seat, seats out, a place in the rules, the returns."""
    # in C where a snapshot is long (the fuzzer's laws read one at many steps)
    if len(s.zones) != len(prog.zones) or sorted(map(_ID, chain.from_iterable(s.zones))) \
            != list(range(len(prog.cards))):
        raise ValueError("'zones' must hold each of the game's zones, each card once")
    if len(s.vars) != len(prog.var_init) or len(s.frame) != prog.frame_size:
        raise ValueError("'vars' and 'frame' must hold a value for each variable and slot")
    if len(s.known) != len(prog.seats) or not all(type(k) is int for k in s.known):
        raise ValueError("'known' must hold a number for each seat")
    if type(s.out) is not int or type(s.pc) is not int or not -1 <= s.pc < len(prog.code):
        raise ValueError("'out' and 'pc' must be numbers, 'pc' a place in the rules")
    if s.result is not None and (len(s.result) != len(prog.seats) or not all(
            type(r) in (int, float) for r in s.result)):
        raise ValueError("'result' must be none or a number for each seat")
    if not set(map(type, map(_FIRST, s.history))) <= {int} or \
            not set(map(type, map(_SECOND, s.history))) <= {str}:
        raise ValueError("'history' must hold [seat number, text, data] steps")


def _check_facings(s, prog):
    """Raises ValueError where a card lies other than at its zone's facing in a zone
    where the rules never turn one (`Program.steady`): only a position placed outside
    the rules can hold that, and such a snapshot says so ("placed": true), so that
    moves within the zone set the facings again."""
    for slot, steady in enumerate(prog.steady):
        up = prog.zone_info[slot].facing_up
        for c in s.zones[slot] if steady else ():
            if s.up[c.id] is not up:
                raise ValueError(
                    f"'up' has {c.text} face {'up' if s.up[c.id] else 'down'} in "
                    f"{prog.zones[slot]}, where the rules lay every card face "
                    f"{'up' if up else 'down'}; a position placed outside the rules "
                    f"has \"placed\": true")


_ID, _FIRST, _SECOND = attrgetter("id"), itemgetter(0), itemgetter(1)


def _node_from_json(s, n):
    prog = s.prog
    kind = n[0]
    if kind not in ("decide", "simultaneous", "chance", "end") or kind != "end" and (
            len(n) < 3 or kind != "chance" and not all(
                type(i) is int and 0 <= i < len(prog.seats) for i in n[2])):
        raise ValueError("'node' must be a decision, a simultaneous decision, a chance "
                         "event or the end, of this game's seats")
    if kind == "decide":
        return (DECIDE, prog.sites[n[1]], tuple(prog.seats[i] for i in n[2]))
    if kind == "simultaneous":
        node = (SIMUL, prog.sites[n[1]], tuple(prog.seats[i] for i in n[2]), {})
        s.node = node
        for idx, text in n[3].items():
            seat = prog.seats[int(idx)]
            node[3][seat] = s.parse_move(text, seat)
        return node
    if kind == "chance":
        return (CHANCE,) + tuple(decode(prog, x) for x in n[1:])
    return (END,)


def trace_of(state, upto: Optional[int] = None, pending=None) -> Dict[str, Any]:
    """Returns the trace of a state's history: enough to replay it exactly.  With `upto`,
    of its first `upto` entries then the (seat, Move) commits `pending` (the state as it
    was before a step that failed half way)."""
    seats = state.prog.seats
    steps = []
    for who, text, data in state.history[:upto]:
        if who < 0:
            steps.append({"chance": text, "kind": data[0],
                          "data": list(data[1]) if isinstance(data[1], tuple) else data[1]})
        else:
            steps.append({"player": seats[who].name, "move": text})
    if upto is not None:
        pending = pending or ()
    elif state.node[0] == SIMUL:                  # commits made at an unresolved node
        pending = state.node[3].items()
    steps.extend({"player": seat.name, "move": move.text} for seat, move in pending or ())
    return {"format": TRACE_FORMAT, "game": state.game.path,
            "options": {k: encode(v) for k, v in state.game.overrides.items()},
            "seed": state.seed, "steps": steps}


#: the most step texts a program's `_TraceText` remembers (then it starts again)
STEP_TEXTS_KEPT = 20_000


class _TraceText:
    """What `trace_line` remembers of a program: each move's and each drawn value's JSON
    text by its history entry (games repeat them; a shuffle's order seldom repeats and is
    written each time)."""

    def __init__(self, prog):
        self.names = [seat.name for seat in prog.seats]
        self.steps: Dict[tuple, str] = {}
        self.heads: dict = {}       # game -> its line's text before the seed

    def head(self, game) -> str:
        """`{"format": ..., "game": ..., "options": {...}, "seed": `, as `json.dumps`
        writes a trace's first keys (the same for every game of one loaded ruleset)."""
        text = self.heads.get(game)
        if text is None:
            first = json.dumps({"format": TRACE_FORMAT, "game": game.path,
                                "options": {k: encode(v) for k, v in game.overrides.items()}})
            text = self.heads[game] = first[:-1] + ', "seed": '
        return text

    def step(self, entry) -> str:
        """The JSON text of one history entry, as `trace_of` writes its step."""
        who, move, data = entry
        if who < 0 and type(data[1]) is not int:     # a shuffle's order: written each time
            kind, value = data
            return json.dumps({"chance": move, "kind": kind,
                               "data": list(value) if isinstance(value, tuple) else value})
        text = self.steps.get(entry)
        if text is None:
            if who >= 0:
                text = json.dumps({"player": self.names[who], "move": move})
            else:
                text = json.dumps({"chance": move, "kind": data[0], "data": data[1]})
            if len(self.steps) >= STEP_TEXTS_KEPT:
                self.steps.clear()
            self.steps[entry] = text
        return text


def trace_line(state) -> str:
    """Returns `json.dumps(trace_of(state))`, the same text, for writing many games'
    traces (`gdl run --trace`): each step's text is remembered by its history entry, and
    the rest of the line is made once per game."""
    if state.node[0] == SIMUL and state.node[3]:        # commits not yet in the history
        return json.dumps(trace_of(state))
    text = state.prog.helper(_TraceText)
    step = text.step
    return (text.head(state.game) + json.dumps(state.seed) + ', "steps": ['
            + ", ".join([step(entry) for entry in state.history]) + "]}")


def replay(game, trace: Dict[str, Any], upto: int = None, *, observe: bool = False,
           start=None):
    """Returns the state after replaying a trace's steps (the first `upto` of them), from
    the start (observing, with `observe`) or from the state `start` (then changed)."""
    if not isinstance(trace, dict) or \
            trace.get("format", TRACE_FORMAT) not in (TRACE_FORMAT, TRACE_FORMAT_1):
        raise TraceError(f"not a gdl trace (expected \"format\": \"{TRACE_FORMAT}\")")
    check_trace_shape(trace)
    if upto is not None and (type(upto) is not int or upto < 0):
        raise TraceError(f"upto is a number of steps from 0, not {upto!r}")
    _check_options(game, trace.get("options") or {})
    s = game.new_state(trace.get("seed"), observe) if start is None else start
    steps = trace.get("steps", [])
    unrecorded = trace.get("format") == TRACE_FORMAT_1
    for i, step in enumerate(steps[:upto] if upto is not None else steps):
        try:
            if unrecorded:
                take_unrecorded(s)
            if "chance" in step:
                data = step["data"]
                outcome = s.outcome_from_data(step["kind"],
                                              tuple(data) if isinstance(data, list) else data)
                if _read(outcome.text, unrecorded) != _read(step["chance"], unrecorded):
                    raise TraceError(f"step {i + 1} of the trace says `{step['chance']}`, "
                                     f"but its data gives `{outcome.text}`: the two must "
                                     f"agree (was one of them edited?)")
                s.apply_chance(outcome)
            else:
                s.apply(step["move"], game.seat(step["player"]))
        except RuleError as err:        # the step fits, and the rules fail on it: where
            told = TraceError(
                f"step {i + 1} of the trace ({step.get('move') or step.get('chance')}) "
                f"cannot be replayed: the rules fail on it: {err.message}", err.span,
                source=err.source, notes=err.notes + ((err.rule_line,)
                                                      if err.rule else ()))
            told.seats_notes = err.seats_notes
            raise told from None
        except GdlError as err:
            raise TraceError(f"step {i + 1} of the trace ({step.get('move') or step.get('chance')})"
                             f" cannot be replayed: {err.message}") from None
        except (KeyError, TypeError, IndexError, ValueError) as err:
            raise TraceError(f"step {i + 1} of the trace is malformed: {err}") from None
    if unrecorded:                      # the events after the last step, to the next pause
        take_unrecorded(s)
    return s


def _read(text: str, first_format: bool) -> str:
    """A chance outcome's text as a trace of its format wrote it: the first format did not
    bracket the face-down cards of a shuffle that held both facings."""
    return text.replace("(", "").replace(")", "") if first_format else text


def take_unrecorded(s):
    """Takes the chance events a trace of the first format does not record, where its
    steps leave the state: a random of one value, a shuffle of alike cards (which the
    engine of its time did not shuffle: they stay as they lie), on to the next decision
    or real draw.  A run of them without end (`UNRECORDED_RUN`), which that engine
    stopped as a loop without a decision, is a TraceError."""
    for _ in range(UNRECORDED_RUN):
        node = s.node
        if node is None or node[0] != CHANCE:
            return
        if node[1] == "random":
            if len(node[3]) != 1:
                return
            data = 0
        else:
            cards = s.zones[node[2]]
            if len({c.kind for c in cards}) > 1:
                return
            data = tuple(c.id for c in cards)
        s.apply_chance(s.outcome_from_data(node[1], data))
    raise TraceError(f"the rules draw chance events of one outcome without end here "
                     f"({UNRECORDED_RUN:,} in a row): the engine that wrote this trace "
                     f"stopped such a loop as one without a decision")


def check_trace_shape(trace: Dict[str, Any]):
    """Raises TraceError where a trace's parts are not what `State.trace()` writes (a file
    edited by hand): the game a path, the options an object, the seed a number, the steps
    a list of moves (`player`, `move` texts) and chance events (`chance`, `kind`, `data`)."""
    def wrong(what):
        raise TraceError(f"the trace is malformed: {what}")
    if not isinstance(trace.get("game", ""), str):
        wrong('"game" must be the path of the ruleset')
    if not isinstance(trace.get("options") or {}, dict):
        wrong('"options" must be an object of option names and values')
    if type(trace.get("seed")) not in (int, type(None)):
        wrong('"seed" must be a whole number or null')
    steps = trace.get("steps", [])
    if not isinstance(steps, list):
        wrong('"steps" must be a list')
    for i, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            why = "it must be an object"
        elif "chance" in step:
            why = None if "kind" in step and "data" in step else \
                'a chance event needs its "kind" and "data"'
        elif not isinstance(step.get("move"), str) or \
                not isinstance(step.get("player"), (str, int)):
            why = 'a move needs a "player" and a "move" text'
        else:
            why = None
        if why is not None:
            raise TraceError(f"step {i} of the trace is malformed: {why}")


def _check_options(game, options):
    """A trace replays only on a game with the options it was recorded with."""
    from .values import text_of
    for name, value in options.items():
        have = game.options.get(name)
        have_text = getattr(have, "name", None) or text_of(have)
        want = value if isinstance(value, str) else text_of(value) if not isinstance(
            value, dict) else None
        if want is not None and have_text != want:
            raise TraceError(f"the trace was recorded with {name}={want}, but this game has "
                             f"{name}={have_text}; load the game with the trace's options")


def read_trace(path) -> Dict[str, Any]:
    """Returns a trace read from a .json file, or the first line of a .jsonl file."""
    try:
        with open(path, encoding="utf-8-sig") as f:   # a byte-order mark is not JSON
            text = f.read()
    except OSError as err:
        raise TraceError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path} is not UTF-8 text, so not a JSON trace") from None
    try:
        first = text.strip().splitlines()[0] if text.strip() else ""
        data = json.loads(text) if not path.endswith(".jsonl") else json.loads(first)
    except (json.JSONDecodeError, IndexError) as err:
        raise TraceError(f"{path} is not a JSON trace: {err}") from None
    except RecursionError:
        raise TraceError(f"{path} nests too deeply to be a trace") from None
    if not isinstance(data, dict) or data.get("format") not in (TRACE_FORMAT, TRACE_FORMAT_1):
        raise TraceError(f"{path} is not a gdl trace (no \"format\": \"{TRACE_FORMAT}\")")
    check_trace_shape(data)
    return data
