"""Fusing closures into generated Python functions: fewer calls per step.

The compiler turns each AST node into a closure, which costs a Python call per node
evaluated.  Handlers for the commonest nodes also tag their closure with a text form:

* `render(ctx) -> str`: a Python expression equal to calling the closure (literals,
  locals, variables, attributes, operators, zone lookups, `count`, `top`, def calls);
* `lines(ctx) -> [str]`: the statements of an instruction that always goes on to the next
  one (assignments, `let`, `move`, argument binding, loop set-up);
* `fork(ctx) -> (lines, test, pc, lines, pc)`: a jump, branch or loop test: lines, then
  the first pc if the test holds, else more lines and the second pc;
* `tail(ctx) -> [str]`: statements that return the next pc (a decision, a random draw,
  the end of the game).

`fuse` compiles an expression's text with its parts inlined (`c.suit == led.suit and x > 1`
is one call instead of seven), `fuse_body` compiles a loop with its test and item inline,
and `fuse_runs` compiles, for each instruction, the rest of its run (following jumps and
branches) into one function; `_actions.generated_chunks` builds an action's move
enumeration with `build`.  A part without a text stays a closure and is called from the
generated code (`Ctx.call`).  Inside generated loops and inlined def bodies, locals live
in Python variables (`Ctx.held`); a call of a closure, which reads them from their slots,
writes them there first.

Safety: a ruleset is untrusted text, and none of it reaches the generated source.  The
source is built only from the templates in the handlers, slot numbers and small ints;
every other value (strings, enum members, cards, field names, closures, lists) is passed
in as a global `K<n>` of the generated function.  `_check` enforces this before anything
is compiled: only the templates' characters, and only the names they use.  Loops in
generated code run over finite collections, and back jumps keep the step budget (a
`for` written as a Python `for` pays for its passes as it starts: `_flat_for`).
Set GDL_FUSE=0 in the environment to run on the plain closures (for comparison).
"""
from __future__ import annotations

import itertools
import linecache
import os
import re
import warnings
from types import CodeType, FunctionType

#: whether programs are fused (tests compare both ways)
ENABLED = os.environ.get("GDL_FUSE", "1") != "0"

#: the most instructions one fused function runs, and about the most text it holds (a
#: run's rests repeat its text, so this bounds the source compiled per program)
MAX_RUN = 16
MAX_TEXT = 3000

#: deeper parts stay calls (Python's parser nests parentheses 200 deep at most)
MAX_DEPTH = 24

#: texts that compile to nothing faster than their closure: a lone call, a slot read, a
#: constant
_SIMPLE = re.compile(r"K\d+\(st\)|(st\.frame|st\.vars|K\d+)\[\d+\]|K\d+|\(-?\d+\)|True|False|None")

#: what Python warned of while compiling generated code (`build`): none, as the tests
#: check
COMPILE_WARNINGS: list = []

#: ints written out in the source; others are passed in
_SMALL = 1 << 62

_CHARS = re.compile(r"[A-Za-z0-9_ .,\[\]{}()=!<>+\-*/%&|:\n]*")
_WORD = re.compile(r"[A-Za-z_]\w*")
_NAMES = frozenset({
    "st", "frame", "vars", "zones", "attrs", "slot", "up", "id", "out", "index", "budget",
    "move_zone", "elif", "key", "rng", "bits", "bit_length", "getrandbits", "randrange",
    "facing_up", "move_cards", "move_top", "move_block", "get", "append", "remove", "len",
    "isinstance", "seat", "float", "node", "pc", "result", "loc", "pop", "kind", "add",
    "text", "lines", "try", "except", "args", "exec_block", "sort", "join", "setdefault",
    "values", "free", "prog", "outcomes", "entry", "split", "dirty", "clear",
    "owner", "known", "action", "mid", "sighted", "known_twin", "hidden_picks", "settle_picks",
    "pick_slots", "_untaken", "calm", "regroup", "isdisjoint", "issuperset", "placed",
    "return", "raise", "for", "while", "in", "if", "else", "and", "or", "not", "is",
    "continue", "break", "True", "False", "None"})
_GENERATED = re.compile(r"(K|_t)\d+")
_PASSED = re.compile(r"K(\d+)|\((-?\d+)\)|True|False|None")
_WRITTEN = {"True": True, "False": False, "None": None}
_GLOBALS = {"__builtins__": {}, "len": len, "isinstance": isinstance, "float": float}

_SET = list.__setitem__

#: the value of a temporary that remembers a part before the part is first evaluated
UNSET = object()

#: the code of each source text compiled (texts of the same shape share it, each build a
#: copy of its own); cleared when it grows past `_MAX_FACTORIES`, as a long session
#: reloading rules might make it
_FACTORIES: dict = {}
_MAX_FACTORIES = 20_000
#: how many sources were compiled: each one's name, never used again (a clear takes its
#: sources' lines out of linecache, so a function built before it shows no lines, never
#: another source's)
_COMPILED = itertools.count()


class Ctx:
    """Rendering state: the values passed in (`K<n>`), the temporaries (`_t<n>`), and the
    locals held in temporaries instead of their slots (`held`: ("scratch" or "frame",
    slot) -> (temporary, the text writing it to its slot)); `hold` says whether loops
    hold their variables (see `holding`), `hot` counts the calls made while some local
    is held (see `call`); `memo` gives the temporaries of the def calls an inlined def
    body repeats (see `CallMixin.call_def`); `loops` gives, for each level of a move
    list's loops written in this function, the temporaries remembering its loop-invariant
    parts (see `ActionMixin.memoised`); `lists`, the dicts a move list written in this
    function makes as it starts (see `_actions._kept_by`); `unobserved`, that the code
    runs only where no seat's observations are kept (a generated step's run); `sure`, the
    temporaries an inlined def body reads its parameters from that hold a value known not
    to be none (see `CallMixin.call_with`): a field read of one needs no test; `within`,
    the temporaries a loop over a constant list runs through, each with that list (see
    `_collections.ranging`): an index of a family by one needs no test; `chain`, while
    an `if`'s test renders, the temporaries holding the values of def calls of constant
    arguments that it or the test just failed before it in the same run gave (see
    `CallMixin.call_def`), and `binding`, the renderings of the calls a test evaluates
    once and always (`_rest`, `_compiler._branch`, `OperatorMixin._e_Cond`); `settled`,
    the temporaries of an inlined def body's repeated calls (`memo`) that are surely
    bound where the text being rendered runs: an `if`'s branches, after its test bound
    them; `ends`, while a draw's runs render, the values and end temporaries of each
    runs text rendered (see `_compiler._ends_of`)."""

    __slots__ = ("consts", "ids", "temps", "depth", "held", "hold", "hot", "memo", "loops",
                 "lists", "unobserved", "sure", "within", "chain", "binding", "settled",
                 "unsure", "ends")

    def __init__(self, hold: bool = False):
        self.consts, self.ids, self.temps, self.depth = [], {}, 0, 0
        self.held, self.hold, self.hot = {}, hold, 0
        self.memo = None      # inside an inlined def body: repeated call -> temporary
        self.loops = None     # inside a move list's loops: level -> temporaries
        self.lists = None     # inside a move list: the dicts it makes as it starts
        self.unobserved = False
        self.sure = frozenset()
        self.within = {}      # a loop's temporary -> the constant values it runs over
        self.chain = None     # while an if's test renders: call key -> temporary
        self.binding = frozenset()
        self.settled = frozenset()   # memo temporaries surely bound where this renders
        self.unsure = frozenset()    # memo temporaries read where they may be unset
        self.ends = None      # while a draw's runs render: (values, end temporaries) each

    def k(self, value) -> str:
        """The name of a value passed into the fused function (once per object)."""
        n = self.ids.get(id(value))
        if n is None:
            n = self.ids[id(value)] = len(self.consts)
            self.consts.append(value)
        return f"K{n}"

    def known(self, text: str):
        """(value,) where `text` is a constant, passed in (`K3`) or written out (`(3)`,
        `True`): an inlined def's constant argument, say, that a consumer can fold; None
        for any other text."""
        m = _PASSED.fullmatch(text)
        if m is None:
            return None
        if m.group(1) is not None:
            return (self.consts[int(m.group(1))],)
        return (_WRITTEN[text] if text in _WRITTEN else int(m.group(2)),)

    def lit(self, value) -> str:
        """A constant: an int, a bool or none written out, anything else passed in."""
        if value is None or value is True or value is False:
            return repr(value)
        if type(value) is int and -_SMALL < value < _SMALL:
            return f"({value:d})"
        return self.k(value)

    def tmp(self) -> str:
        self.temps += 1
        return f"_t{self.temps - 1}"

    def local(self, where: str, slot: int, text: str) -> str:
        """A local's read: its temporary if it is held in one, else `text`."""
        held = self.held.get((where, slot))
        return text if held is None else held[0]

    def hold_in(self, where: str, slot: int, temp: str, scratch=None):
        """Holds a local (a frame slot, or a slot of the `scratch` list) in `temp`: its
        reads are `temp` and nothing writes its slot, except before a call (`call`)."""
        target = "st.frame" if where == "frame" else self.k(scratch)
        self.held[where, slot] = (temp, f"{self.k(_SET)}({target}, {slot:d}, {temp})")

    def bind(self, where: str, slot: int, var: str, pad: str, scratch=None) -> list:
        """The lines binding a loop's variable `var` to its local: none if this rendering
        holds loop variables (`hold`), else the write to the slot."""
        if self.hold:
            self.hold_in(where, slot, var, scratch)
            return []
        target = "st.frame" if where == "frame" else self.k(scratch)
        return [f"{pad}{target}[{slot:d}] = {var}"]

    def call(self, fn, *args: str, cold: bool = False) -> str:
        """The text of a call `fn(st, *args)` of a closure.  The closure reads locals
        from their slots, so the locals held in temporaries are written there first; a
        `cold` call is an error path or a rare case, any other counts in `hot`."""
        text = f"{self.k(fn)}({', '.join(('st',) + args)})"
        if not self.held:
            return text
        if not cold:
            self.hot += 1
        writes = "".join(f"{write}, " for _, write in self.held.values())
        return f"({writes}{text})[-1]"

    def call_given(self, inner, scratch, slots) -> str:
        """The text of a call of a def body's loop compiled with the def's parameters as
        arguments (`fuse_body`): they are passed from where they are held, or read from
        their slots; only the other held locals are written first."""
        args = [self.local("scratch", s, f"{self.k(scratch)}[{s:d}]") for s in slots]
        text = f"{self.k(inner)}({', '.join(['st', *args])})"
        writes = [write for (where, slot), (_, write) in self.held.items()
                  if where != "scratch" or slot not in slots]
        if not writes:
            return text
        self.hot += 1
        return f"({''.join(w + ', ' for w in writes)}{text})[-1]"

    def test(self, fn) -> str:
        """The text of a part only tested for truth (an `if`, a `not`, a require): its
        rendering as a test where it has one (`a and b and c` without making a bool of
        it), else `sub`'s."""
        render = getattr(fn, "render_test", None)
        if render is None or self.depth >= MAX_DEPTH:
            return self.sub(fn)
        return self._nested(render)

    def sub(self, fn) -> str:
        """The text of a part: its own rendering, or a call to its closure."""
        render = getattr(fn, "render", None)
        if render is None or self.depth >= MAX_DEPTH:
            given = getattr(fn, "given", None)
            if given is not None:
                return self.call_given(*given)
            return self.call(fn)
        return self._nested(render)

    def _nested(self, render) -> str:
        """`render(self)` one level deeper (renderings nest at most `MAX_DEPTH` deep)."""
        self.depth += 1
        try:
            return render(self)
        finally:
            self.depth -= 1


def _check(body: str):
    """Refuses any text not made of the templates' characters and names."""
    if not _CHARS.fullmatch(body):
        raise AssertionError(f"generated code has a foreign character: {body!r}")
    for word in _WORD.findall(body):
        if word not in _NAMES and not _GENERATED.fullmatch(word):
            raise AssertionError(f"generated code has a foreign name: {word!r}")


def fuse(fn, render):
    """Returns a function equivalent to `fn` (whose tags it keeps), compiled from
    `render`'s text unless that is a lone call, read or constant; else `fn`.  Either is
    tagged with `render`, so that the node's consumer can inline it."""
    fn.render = render
    if not ENABLED or getattr(fn, "fused", False):
        return fn
    ctx = Ctx()
    body = render(ctx)
    if _SIMPLE.fullmatch(body):   # a call, a read or a constant: nothing to save
        return fn
    out = build(ctx, f"return {body}")
    out.__dict__.update(fn.__dict__)
    out.fused = True
    return out


def fuse_body(fn, lines, given=None):
    """Returns a function equivalent to `fn` (whose tags it keeps), compiled from the
    statements `lines(ctx)` gives (a loop, say): it has no text of its own to inline, so
    its consumer calls it.

    `given` is (scratch, slots): the parameters of the def whose body holds the loop.
    Unless a part on the way runs as a closure, they are the compiled function's own
    arguments (`st, _t0, _t1`): generated code calling it passes what it holds instead of
    writing the slots (`Ctx.sub`), and `fn`'s stand-in reads the slots and passes them."""
    if not ENABLED:
        return fn
    if given:
        scratch, slots = given
        ctx = Ctx(hold=True)
        names = [ctx.tmp() for _ in slots]
        for slot, name in zip(slots, names):
            ctx.hold_in("scratch", slot, name, scratch)
        body = lines(ctx)
        if not ctx.hot:
            inner = build(ctx, "\n        ".join(body), ", ".join(["st", *names]))
            out = _reading_slots(inner, scratch, slots)
            out.__dict__.update(fn.__dict__)
            out.given = (inner, scratch, slots)
            return out
    out = build(*holding(lines))
    out.__dict__.update(fn.__dict__)
    return out


def _reading_slots(inner, scratch, slots):
    """`inner(st, *args)` as a closure of `st`: the arguments read from their slots."""
    if len(slots) == 1:
        (a,) = slots
        return lambda st: inner(st, scratch[a])
    if len(slots) == 2:
        a, b = slots
        return lambda st: inner(st, scratch[a], scratch[b])
    return lambda st: inner(st, *[scratch[s] for s in slots])


def holding(lines) -> tuple:
    """Renders `lines(ctx)` with loop variables held in temporaries (`Ctx.bind`); if a
    part on the way runs as a closure (not on an error path), every such call would write
    them to their slots first, so it renders again, writing the slots once per item
    instead.  Returns (ctx, body)."""
    ctx = Ctx(hold=True)
    body = lines(ctx)
    if ctx.hot:
        ctx = Ctx()
        body = lines(ctx)
    return ctx, "\n        ".join(body)


def fuse_runs(code: list):
    """Gives each instruction with a text form one function doing the rest of its run.

    A run is a sequence of straight instructions (tagged with `lines(ctx)`: statements
    that always go on to the next one) that follows jumps, branches and loop tests
    (tagged with `fork(ctx)`: lines, then a test choosing a pc, else more lines and
    another pc), and ends at an instruction tagged with `tail(ctx)` (lines that return
    the next pc, such as a pause) or at any other instruction, which the run calls and
    whose answer it returns.  Every instruction gets its own rest, since a jump, a call's
    return or a resumed decision may land anywhere; a rest runs at most `MAX_RUN`
    instructions over all its branches, and back jumps keep their step budget.

    Each rest is written and compiled when it first runs (`_deferred`), not here: most
    of a program's rests are never entered by a given game (a resumed decision enters
    only at its own pc), and compiling all of them was three quarters of `load`."""
    if not ENABLED:
        return
    plain = list(code)
    for k, fn in enumerate(plain):
        if any(getattr(fn, tag, None) is not None for tag in ("lines", "fork", "tail")):
            code[k] = _deferred(code, plain, k)


def _deferred(code: list, plain: list, k: int):
    """Stands at `code[k]` until it first runs: then compiles the rest of the run from
    `k` (out of the `plain` instructions), puts it in its place and runs it."""
    def first_run(st):
        return ready(code, k)(st)
    first_run.deferred = (plain, k)
    return first_run


def ready_all(code: list):
    """Compiles every run of `code` still waiting for its first run."""
    for k in range(len(code)):
        ready(code, k)


def ready(code: list, k: int):
    """Returns `code[k]`, compiled now if it was still waiting for its first run (for
    generated code that calls an instruction directly rather than through the list)."""
    fn = code[k]
    deferred = getattr(fn, "deferred", None)
    if deferred is None:
        return fn
    plain = deferred[0]
    ctx = Ctx()
    body = _looping(_rest(plain, k, ctx, [MAX_RUN, MAX_TEXT]), k)
    fn = code[k] = build(ctx, "\n        ".join(body))
    fn.plain = plain            # the instructions, for `straight_lines`
    return fn


def run_lines(code: list, pc: int, ctx: Ctx, share: int = 1) -> list:
    """The lines of the run of `code` (unfused) from `pc`, as `fuse_runs` writes it, to
    end a function that `ctx` renders lines of its own for first (a step's draw and
    record): none of those lines' locals is held in the run, and its limits are divided
    by `share` (one function may end in a run per action it can enter)."""
    saved = ctx.held, ctx.hold, ctx.loops, ctx.memo, ctx.unobserved
    ctx.held, ctx.hold, ctx.loops, ctx.memo = {}, False, None, None
    ctx.unobserved = True       # a generated step runs where no observations are kept
    try:
        return _rest(code, pc, ctx, [max(1, MAX_RUN // share), MAX_TEXT // share])
    finally:
        ctx.held, ctx.hold, ctx.loops, ctx.memo, ctx.unobserved = saved


def _looping(body: list, pc: int) -> list:
    """A run that can end by going back to its own first instruction (a loop's body and
    step in one run) loops in place: its `return pc` becomes `continue` in a `while`,
    saving a return to `State.run` and a call per pass; the step budget is kept by the
    loop step's own lines, as before.  Left as it is if such a return lies inside a
    block loop of its own (where `continue` would mean that loop)."""
    back = f"return {pc:d}"
    if not any(line.strip() == back for line in body):
        return body
    loops: list = []            # the indents of the block loops open at a line
    for line in body:
        text = line.lstrip()
        indent = len(line) - len(text)
        while loops and indent <= loops[-1]:
            loops.pop()
        if text == back and loops:
            return body
        if text.startswith(("for ", "while ")) and text.endswith(":"):
            loops.append(indent)
    out = ["while True:"]
    for line in body:
        if line.strip() == back:
            line = line[:len(line) - len(back)] + "continue"
        out.append("    " + line)
    return out


def _rest(code: list, pc: int, ctx: Ctx, left: list) -> list:
    """The lines running `code` from `pc` to the end of its run (see `fuse_runs`);
    `left` is how many more instructions, and characters of text, the whole function may
    take in (the first instruction is always taken)."""
    out: list = []
    n = len(code)
    carried = None    # (pc, call key -> temporary): what a failed if's test computed
    while pc < n and left[0] > 0 and left[1] > 0:
        left[0] -= 1
        fn = code[pc]
        flat = getattr(fn, "flat_for", None)
        if flat is not None:
            added = _flat_for(code, ctx, left, flat)
            if added is not None:
                out += added
                pc = flat[5]
                carried = None
                continue
        lines = getattr(fn, "lines", None)
        if lines is not None:
            added = lines(ctx)
            left[1] -= sum(map(len, added))
            out += added
            pc += 1
            carried = None
            continue
        fork = getattr(fn, "fork", None)
        if fork is not None:
            # an if's test reached straight from another's failing (an elif, nothing
            # run between them: the state is as that test saw it) reads the def calls
            # that test computed from its temporaries
            chains = getattr(fork, "chains", False)
            ctx.chain = None if not chains else \
                dict(carried[1]) if carried is not None and carried[0] == pc else {}
            before, test, pc, after, other = fork(ctx)
            known, ctx.chain = ctx.chain, None
            left[1] -= sum(map(len, before)) + len(test or "")
            out += before
            if test is not None:
                out.append(f"if {test}:")
                # the branch taken gets at most half of what is left, so the path past
                # it is not cut short by a long branch (often the rare case: a refill)
                half = [(left[0] + 1) // 2, (left[1] + 1) // 2]
                share = half[:]
                out += ["    " + line for line in _rest(code, pc, ctx, share)]
                left[0] -= half[0] - share[0]
                left[1] -= half[1] - share[1] + sum(map(len, after))
                out += after
                pc = other
            carried = (pc, known) if known and test is not None and not after else None
            continue
        tail = getattr(fn, "tail", None)
        added = tail(ctx) if tail is not None else [f"return {ctx.k(fn)}(st)"]
        left[1] -= sum(map(len, added))     # (a branch's end is text the path past it
        return out + added                  # cannot have)
    out.append(f"return {pc:d}")
    return out


class _Unfit(Exception):
    """A loop's body is not one `_flat_for` can write as a Python `for`."""


def _flat_for(code: list, ctx: Ctx, left: list, flat) -> list:
    """The lines of a `for` whose body runs straight on to its back jump on every path
    (no pause, no loop of its own, no jump out, nothing left to a call) as a Python
    `for`: no slots of the index and the values, and the passes' budget taken as the
    loop starts, all of it (`st.budget -= len(values)`).  Where the budget cannot pay
    for every pass, the values are cut to the passes it pays for and one more, and the
    budget's check after the last raises the loop's error: the passes run and the
    error are those of the plain loop, which pays a pass at each back jump.  None (and
    `left` as it was) where the body does not fit."""
    items, tupled, var_slot, body, again, end, over = flat
    saved = (left[:], dict(ctx.held), ctx.chain, ctx.binding, ctx.settled, ctx.unsure)
    try:
        inner = _within(code, body, ctx, left, again)
    except _Unfit:
        left[:] = saved[0]
        ctx.held, ctx.chain, ctx.binding, ctx.settled, ctx.unsure = saved[1:]
        return None
    if len(inner) > 1:          # the last path's `continue` is the loop's own end
        inner.pop()
    values, var = ctx.tmp(), ctx.tmp()
    text = ctx.sub(items)
    head = [f"{values} = {text}" if tupled else f"{values} = {ctx.k(tuple)}({text})",
            f"st.budget -= len({values})",
            f"if st.budget < 0: {values} = {values}[:st.budget + len({values}) + 1]",
            f"for {var} in {values}:",
            f"    st.frame[{var_slot:d}] = {var}"]
    end = f"if st.budget < 0: raise {ctx.k(over)}(st)"
    left[1] -= sum(map(len, head)) + len(end)       # the body's own are counted
    return [*head, *["    " + line for line in inner], end]


def _within(code: list, pc: int, ctx: Ctx, left: list, stop: int) -> list:
    """The lines of a loop body from `pc` on every path to its back jump at `stop`
    (each ends in `continue`), or `_Unfit`: a path that goes back, leaves the body,
    returns, pauses or calls an instruction, or is cut by `left`."""
    out: list = []
    while pc != stop:
        if not pc < stop or left[0] <= 0 or left[1] <= 0:
            raise _Unfit
        left[0] -= 1
        fn = code[pc]
        lines = getattr(fn, "lines", None)
        if lines is not None and getattr(fn, "flat_for", None) is None:
            added = _no_return(lines(ctx))
            left[1] -= sum(map(len, added))
            out += added
            pc += 1
            continue
        fork = getattr(fn, "fork", None)
        if fork is None:
            raise _Unfit
        ctx.chain = {} if getattr(fork, "chains", False) else None
        before, test, target, after, other = fork(ctx)
        ctx.chain = None
        if not pc < target or test is not None and not pc < other:
            raise _Unfit
        out += _no_return(before)
        left[1] -= sum(map(len, before)) + len(test or "")
        if test is None:
            pc = target
            continue
        out.append(f"if {test}:")
        out += ["    " + line for line in _within(code, target, ctx, left, stop)]
        out += _no_return(after)
        pc = other
    out.append("continue")
    return out


def straight_lines(code: list, ctx: Ctx, share: int = 1):
    """The lines of a block (an action's, `code`, fused: its instructions are read from
    its first run, compiled or not) run from its start straight to its end on one path,
    without a return, a pause, a branch or a loop (`_within`), for a generated step to
    write in place of a call of the block's first run; None where the block is not
    such a run or exceeds a run's limits (divided by `share`, as `run_lines` divides
    them: a step writes in the blocks of all its actions).  Rendered as `run_lines`
    renders: none of the step's own locals held, and no observations kept where a
    generated step runs."""
    if not code:
        return None
    deferred = getattr(code[0], "deferred", None)
    code = deferred[0] if deferred is not None else getattr(code[0], "plain", None)
    if code is None:
        return None
    saved = (ctx.held, ctx.hold, ctx.loops, ctx.memo, ctx.unobserved, ctx.chain,
             ctx.binding, ctx.settled, ctx.unsure)
    ctx.held, ctx.hold, ctx.loops, ctx.memo = {}, False, None, None
    ctx.unobserved = True
    try:
        lines = _within(code, 0, ctx, [max(1, MAX_RUN // share), MAX_TEXT // share],
                        len(code))
    except _Unfit:
        return None
    finally:
        (ctx.held, ctx.hold, ctx.loops, ctx.memo, ctx.unobserved, ctx.chain,
         ctx.binding, ctx.settled, ctx.unsure) = saved
    lines.pop()                 # the one path's `continue`: it ends at the block's end
    if any(line.strip() == "continue" for line in lines):
        return None             # a branch ends its path early: not one straight path
    return lines


def _no_return(lines: list) -> list:
    """`lines`, or `_Unfit` where one returns (a trigger's check, a pause): a return
    would leave a Python `for` in the middle."""
    for line in lines:
        if _RETURN.search(line):
            raise _Unfit
    return lines


_RETURN = re.compile(r"(^|:)\s*return\b")


#: a state's lists that generated code reads and writes in place, never rebinding them
_STATE_LISTS = re.compile(r"\bst\.(frame|zones|vars|up|loc)\b")

#: how a draw in place takes its bits (`_compiler._drawn_here`)
_DRAW_BITS = "st.rng.getrandbits("
#: how a run that loops in place starts (`_looping`)
_LOOPS_IN_PLACE = "while True:"


def _hoisted(ctx: Ctx, body: str) -> str:
    """`body` with each of the state's lists it names more than once read into a local
    first: a run, a loop or a listing names `st.frame` over and over, and a local is
    cheaper than an attribute.  Nothing rebinds these lists while a function runs (only
    `clone`, `new_state` and `undo` make or swap them).  So too the draws' bit source,
    where a function draws in place and loops in place (it may draw again and again in
    one call; a function drawing once a call would gain nothing from it)."""
    counts: dict = {}
    for name in _STATE_LISTS.findall(body):
        counts[name] = counts.get(name, 0) + 1
    names = {name: ctx.tmp() for name, n in counts.items() if n > 1}
    first = ""
    if _DRAW_BITS in body and _LOOPS_IN_PLACE in body:
        # the draws' bit source read once: a draw in place runs only under `st.free`,
        # which no function raises (`State._drawing` sets it, and `rng`, before any
        # runs), so where it is 0 on entry none is drawn and `rng` may be None
        bits = ctx.tmp()
        body = body.replace(_DRAW_BITS, f"{bits}(")
        first = f"{bits} = st.rng.getrandbits if st.free else None\n        "
    if not names:
        return first + body
    body = _STATE_LISTS.sub(lambda m: names.get(m.group(1), m.group(0)), body)
    return first + "".join(f"{t} = st.{name}\n        " for name, t in names.items()) + body


def build(ctx: Ctx, body: str, params: str = "st"):
    """Compiles `body` (checked) as a function of `params`, `ctx`'s values its globals
    (`K0`, `K1`, ...).  A global is read as fast as a closure's cell, but a call copies
    no cell into its frame: a closure's cells are copied at every call (about 1.5 ns
    each), a few per cent of a game's time where runs hold fifty values.  A source is
    compiled once; each build takes its own copy of the code (`replace`, no compiling):
    functions sharing code but not globals would undo each other's specialized reads of
    them."""
    body = _hoisted(ctx, body)
    _check(params + "\n" + body)
    code = _FACTORIES.get((params, body))
    if code is None:
        if len(_FACTORIES) >= _MAX_FACTORIES:
            for cleared in _FACTORIES.values():
                linecache.cache.pop(cleared.co_filename, None)
            _FACTORIES.clear()
        source = (f"def make():\n    def fused({params}):\n        {body}\n"
                  f"    return fused\n")
        # a name per source, kept in linecache, so a traceback (GDL_DEBUG=1) shows the line
        name = f"<gdl fused {next(_COMPILED)}>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        # a template's slip that Python only warns of (`1 is not False`) is kept for the
        # tests to find, not printed to a user who cannot act on it
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made = compile(source, name, "exec")
        if caught and len(COMPILE_WARNINGS) < 20:
            COMPILE_WARNINGS.append(f"{name}: {caught[0].message}")
        code = _FACTORIES[params, body] = _inner_code(made)
    space = dict(_GLOBALS)
    space.update((f"K{i}", v) for i, v in enumerate(ctx.consts))
    return FunctionType(code.replace(), space, "fused")


def _inner_code(module_code):
    """The code of `fused` inside `make` in a compiled source."""
    (make,) = [c for c in module_code.co_consts if isinstance(c, CodeType)]
    (fused,) = [c for c in make.co_consts if isinstance(c, CodeType)]
    return fused
