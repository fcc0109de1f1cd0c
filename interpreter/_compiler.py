"""Statements compiled once into a flat list of instructions with jumps.

An instruction is a closure `op(st) -> next pc`; a decision or chance point records what
it waits for in `st.node`, stores where to resume in `st.pc` and returns PAUSE.  Because
the program counter and every local live in the state's flat lists, a state is cloned
and hashed like plain data: no Python generator or call stack has to be copied.
"""
from __future__ import annotations

from bisect import bisect_right, insort
from pathlib import Path
from typing import List, Optional

import attrs

from gdl import ast as A
from gdl.checker import checked_info
from gdl.errors import CheckError, GdlError, RuleError, counted

from ._actions import ActionInfo, ActionMixin, _never_a_card
from ._closures import (_all_cards, _all_ints, _bound_sides, _folded, _has_runs, _runs_of,
                        _tuple_valued, _values_among, runs_expanded)
from ._exprs import ExprCompiler, shown
from ._layout import LayoutBuilder, Program
from ._fuse import fuse_runs
from ._scope import Local, Scope
from ._trigger_skips import ANY, ZONES, reads, skipped, unread, watched_names, written
from gdl.checker._walk import callees_first, walk_all
from .values import Card, Seat, ZoneRef, card_order

PAUSE = -1
DECIDE, SIMUL, CHANCE, END = 1, 2, 3, 4
LOOP_BUDGET = 1_000_000
_PAUSING = (A.Choose, A.Simultaneous, A.Shuffle, A.RandomChoice)
_EFFECTS = (A.Assign, A.AugAssign, A.Move, A.Deal, A.Flip, A.Reveal, A.Eliminate,
            A.RandomChoice, A.Shuffle)


@attrs.define(eq=False)
class Site:
    """A `choose` or `simultaneously` statement: who decides, among which actions."""
    id: int
    kind: int
    node: object
    rule: str
    actions: list         # (ActionInfo, entry pc or None)
    next_pc: int = 0
    fixed: object = None  # the legal moves when no action has parameters or requires
    entries: Optional[dict] = None   # ActionInfo -> entry pc, for entering a move
    plain_moves: object = None   # generated `moves(st, seat)` where no action has parameters
    pick: object = None          # generated `_random_pick` (`generated_pick`), False if none
    step: object = None          # generated pick-and-record (`generated_step`), False if none
    joint: object = None         # generated simultaneous step (`generated_joint`), or False
    takes_cards: bool = False    # some action may name cards (`State._untaken`)
    seat_ordered: bool = False   # its seats always come in seat order (`_seats_once`)


class _ConstState:
    """Stands in for a state while evaluating constants: any state access fails."""
    __slots__ = ()


class Compiler(ActionMixin, ExprCompiler, LayoutBuilder):
    """Turns a checked Ruleset and its option values into a Program."""

    def __init__(self, ruleset: A.Ruleset, overrides: dict, coverage: Optional[dict] = None,
                 trigger_order: Optional[list] = None):
        self.coverage = coverage
        self.trigger_order = trigger_order
        #: the `pass` that is a whole rule's, action's or trigger's body, counted as the
        #: statement it runs (other `pass`es are not counted: they run nothing)
        self.sole = {id(d.body[0]) for d in ruleset.decls
                     if isinstance(d, (A.RuleDecl, A.ActionDecl, A.TriggerDecl, A.FlowDecl))
                     and len(d.body) == 1 and isinstance(d.body[0], A.Pass)}
        self.ruleset = ruleset
        self.source = ruleset.source
        #: the `T?` values used as a `T` (the checker's `needs_value`), tested for none
        self.needs_value = checked_info(ruleset).needs_value
        #: the `a + b` that join two lists (the checker's `joins_lists`)
        self.joins_lists = checked_info(ruleset).joins_lists
        self.prog = Program(path=ruleset.path)
        self.overrides = dict(overrides)
        self.scratch: list = []
        self.const_state = _ConstState()
        self.watched: set = set()
        self.def_cache: dict = {}
        self.def_stack: list = []     # the def bodies being compiled (repeated_call_key)
        self.table_cache: dict = {}
        self.table_slots: dict = {}   # table name -> its parameters' scratch slots
        self.def_answers: dict = {}   # def name -> its kept answers (call_remembering)
        self.def_every: dict = {}     # def name -> whether every card's answer is kept
        self.ambiguous: set = set()
        self.card_kinds: dict = {}
        #: zones and variables laid out so far, of every family (`family_domains`)
        self.members = 0
        self.returns_decl = None        # the `returns` declaration, named by its errors
        self.action_info: dict = {}
        self.rule_slots: dict = {}
        #: a rule's parameter reads the slot of a local passed to it (`_frame_local`), not
        #: where a trigger may run in the middle of a rule and do rules of its own
        self.in_place = not any(isinstance(d, A.TriggerDecl) for d in ruleset.decls)
        #: whether every card is made: a card field's table by card id (`by_card`) is
        #: made only then, never from a `cards` declaration's reads of the cards so far
        self.cards_made = False
        self.rule_stack: List[str] = []
        self.loops_open = 0           # loops whose body is being compiled
        self.sites: List[Site] = []
        self.in_trigger = False
        self.memo_ids = None          # sub-expressions to memoise (Compiler.hoisted)
        self.tested_calls = None      # an if's tests: def calls of constant arguments counted
        self.memo_level = 0
        self.memo_varying = None      # the names a hoisted loop varies (`hoisted_body`)
        self.fresh_bodies = 0         # def bodies compiled anew for it (`FRESH_BODIES`)
        self.loop_ids: dict = {}      # id of a part a comprehension keeps -> its loop
        self.element_read = None      # (an element's read, the local it reads instead)
        # every declaration, so that a line of one that names no place (`cards into`)
        # is not blamed on the def above it, whose span may run on to its first line
        self.rule_spans = [(d.span.file, d.span.line, d.span.end_line, _place_name(d))
                           for d in ruleset.decls if getattr(d, "span", None) is not None]

    # ------------------------------------------------------------------ errors
    def error(self, message, node) -> GdlError:
        problem = GdlError(message, getattr(node, "span", None), source=self.source)
        problem.kind = "check error"
        return CheckError([problem])

    def rule_at(self, span) -> str:
        """The declaration holding a place: of those whose lines hold it, the one that
        starts last (a declaration's span may run on to the next one's first line)."""
        if span is None:
            return ""
        found, start = "", 0
        for file, lo, hi, name in self.rule_spans:     # a variant's and its base's lines
            if file == span.file and lo <= span.line <= hi and lo >= start:   # share numbers
                found, start = name, lo
        return found

    def runtime_error(self, message, node, st) -> RuleError:
        span = getattr(node, "span", None)
        trace = st.trace_texts() if hasattr(st, "trace_texts") else ()
        # a line of a variant's base says so (not one of an expression evaluated)
        path = self.ruleset.path
        bases = {file for file, _, _, _ in self.rule_spans} - {path}
        based = (f"this line is of {Path(span.file).name}, a base of the variant "
                 f"{Path(path).name}",) if span is not None and span.file in bases else ()
        return RuleError(message, span, source=self.source, rule=self.rule_at(span),
                         trace=trace, notes=based)

    def return_too_large(self, st):
        """A seat's return is too large for a float (a score grown in a loop): Python's
        OverflowError was an internal error."""
        raise self.runtime_error("a return is too large to be a float (more than about "
                                 "1.8e308)", self.returns_decl, st)

    def new_scratch(self) -> int:
        self.scratch.append(None)
        return len(self.scratch) - 1

    def new_frame(self) -> int:
        self.prog.frame_size += 1
        return self.prog.frame_size - 1

    # ------------------------------------------------------------------ whole program
    def compile(self) -> Program:
        decls = self.ruleset.decls
        self.layout(decls)
        self.cards_made = True
        p = self.prog
        p.sites = self.sites
        p.compiler = self               # (what the rules read, `reads`, asks its ruleset)
        # a seat knows a face-down card only by a `reveal`: without one, which twin a
        # move takes never shows (`_twin_choice`)
        revealing = any(isinstance(n, A.Reveal) for n in walk_all(decls))
        self.reveals = p.has_twins and revealing
        #: a seat knows a card it cannot see only by a `reveal`, and cannot follow which
        #: card goes only out of a set or a hand: without both, no move can tell it which
        #: card another seat took unseen (`hidden_picks`)
        self.knowing = revealing and any(
            info.kind is A.ZoneKind.SET or info.seen in (A.Seen.OWNER, A.Seen.OTHERS)
            for info in p.zone_info)
        facings = _facings_set(p, decls)
        p.regroups = p.has_twins and _twins_may_differ(p, facings)
        turned = {i for up, slots, _ in facings for i in slots
                  if p.zone_info[i].facing_up != up}
        p.steady = [i not in turned for i in range(len(p.zones))]
        # every `changed(v)` first, so that each write of v marks it, a trigger body's
        # compiled before the condition that reads it too
        for d in decls:
            if isinstance(d, A.TriggerDecl):
                self.watched |= watched_names(d.cond)
        # defs callees first: a chain of defs each calling the next was compiled by
        # recursion as deep as the chain (200 defs: no place named)
        for d in callees_first(decls):
            try:
                self.def_body(d)
            except RecursionError:
                raise self.error("the defs this one calls call one another too deep to "
                                 "compile: shorten the chain", d) from None
            except GdlError:                # said where it is called, as before: a def
                pass                        # nothing calls may fail unseen
        for d in decls:
            if isinstance(d, A.TriggerDecl):
                p.triggers.append(self.trigger(d))
        p.triggers.sort(key=lambda t: -t[0])
        if self.trigger_order is not None:
            by_name = {t[1]: t for t in p.triggers}
            p.triggers[:] = [by_name[n] for n in self.trigger_order]
        for d in decls:
            if isinstance(d, A.InvariantDecl):
                p.invariants.append((d.name, self.expr(d.expr, Scope()), d))
            elif isinstance(d, A.ReturnsDecl):
                scope = Scope()
                slot = scope.bind(d.var, Local("scratch", self.new_scratch())).slot
                p.returns_fn = (slot, self.expr(d.expr, scope))
                self.returns_decl = d
        flow = next(d for d in decls if isinstance(d, A.FlowDecl))
        self.rule_stack.append("flow")
        self.stmts(flow.body, Scope(), p.code)
        p.code.append(self.finish_op(None, "end"))
        _link(p.code)
        for t in p.triggers:
            _link(t[3])
        for info in self.action_info.values():
            if info.block is not None:
                _link(info.block)
        p.plain_code = list(p.code)
        p.fused_code = [p.code, *(t[3] for t in p.triggers),
                        *(i.block for i in self.action_info.values() if i.block is not None)]
        for code in p.fused_code:
            fuse_runs(code)
        p.scratch = self.scratch
        return p

    def trigger(self, d: A.TriggerDecl):
        scope = Scope()
        cond = self.expr(d.cond, scope)
        self.rule_stack.append(d.name)
        block: list = []
        self.in_trigger = True
        self.stmts(d.body, scope, block)
        self.in_trigger = False
        self.rule_stack.pop()
        return (d.priority, d.name, cond, block, d)

    # ------------------------------------------------------------------ blocks
    def stmts(self, body, scope: Scope, code: list):
        scope = scope.child()
        for s in body:
            self.stmt(s, scope, code)
            if not self.in_trigger and self.prog.triggers and isinstance(s, _EFFECTS):
                code.append(self.trigger_op(len(code) + 1, written(s, scope)))
        ended = [local.slot for local in scope.names.values() if local.where == "frame"]
        if ended and not isinstance(code, _DeadCode):   # the block's `let` and `random`
            code.append(_clearing(ended, len(code) + 1))   # locals: out of use, so out
                                                           # of the state's key

    def stmt(self, s, scope, code):
        if self.coverage is not None and (not isinstance(s, A.Pass) or id(s) in self.sole):
            self.count_op(code, (self.rule_stack[-1], s.span.line, type(s).__name__))
        if isinstance(s, _PAUSING) and code is not self.prog.code and \
                not (isinstance(code, _DeadCode) and code.main):
            raise self.error(f"{type(s).__name__.lower()} cannot happen here: triggers and "
                             f"simultaneous actions run without stopping for a decision", s)
        handler = getattr(self, "_s_" + type(s).__name__)
        handler(s, scope, code)
        if self.prog.regroups and isinstance(s, A.Flip):
            self.regroup_op(code)

    def regroup_op(self, code: list):
        """After a `flip`, where twins in a set zone may come to differ in facing: the
        set zones in their order (`State.regroup`; a move puts the card in its place)."""
        nxt = len(code) + 1

        def regroup(st):
            st.regroup()
            return nxt
        regroup.lines = lambda ctx: ["st.regroup()"]
        code.append(regroup)

    def count_op(self, code, key):
        """Instruments a statement: counts how often it runs (for `gdl fuzz` coverage)."""
        counts = self.coverage
        counts.setdefault(key, 0)
        nxt = len(code) + 1

        def count(st):
            counts[key] += 1
            return nxt
        # in a fused run, not a call that ends it: a run covers the statements it counts
        count.lines = lambda ctx: [f"{ctx.k(counts)}[{ctx.k(key)}] += 1"]
        code.append(count)

    def effect(self, code, fn):
        nxt = len(code) + 1

        def op(st):
            fn(st)
            return nxt
        op.lines = lambda ctx: [f"{ctx.k(fn)}(st)"]
        code.append(op)

    def jump_op(self, target: list):
        """A forward jump whose target is filled in later; `_link` makes it a constant."""
        fn = lambda st: target[0]  # noqa: E731
        fn.jump_to = target
        fn.relink = lambda resolve: _goto(resolve(target[0]))
        return fn

    def branch_op(self, cond, target: int, nxt: int):
        fn = _branch(cond, target, nxt)
        fn.relink = lambda resolve: _branch(cond, resolve(target), resolve(nxt))
        return fn

    def loop_body(self, body, scope, code):
        """Compiles a loop's body: a random choice in it may be drawn again before the
        next pause (`_s_RandomChoice`)."""
        self.loops_open += 1
        try:
            self.stmts(body, scope, code)
        finally:
            self.loops_open -= 1

    def looping(self, node):
        """Returns `over(st)`: the error of a loop that used up the budget."""
        return lambda st: self.runtime_error("the rules loop for ever without a decision "
                                             f"({LOOP_BUDGET} iterations)", node, st)

    def dead_code(self, code) -> "_DeadCode":
        """A list to compile code that can never run into (a branch whose condition is a
        constant): still checked, never emitted."""
        dead = _DeadCode()
        dead.main = code is self.prog.code or (isinstance(code, _DeadCode) and code.main)
        return dead

    def trigger_op(self, nxt, writes):
        """The check after a statement that writes `writes`: it leaves out the triggers
        whose conditions are false until something they read is written (`skipped`),
        and, where the last check found none true (`State.calm`), those whose conditions
        read nothing it writes (`unread`; both worked out at the first check, once `Game`
        has set what they need)."""
        p = self.prog
        triggers = p.triggers
        left_out: list = []

        def check(st, held=-1):
            # `held`: the index of a trigger whose condition the run's inline test found
            # true, those before it false (`fork`)
            if not left_out:
                left_out.extend((skipped(p, writes), unread(p, writes)))
            skip, calm_skip = left_out
            calm = st.calm
            fired = False
            frame = st.frame
            for i, (_, name, cond, block, _) in enumerate(triggers):
                if i != held:
                    if i < held or name in skip or calm and name in calm_skip or \
                            not cond(st):
                        continue
                calm = False                # its body may write what the rest read
                fired = True
                # the locals as they were: a trigger's body may do the very rule it
                # interrupted, whose parameters and locals share its slots
                kept = frame[:]
                if st.exec_block(block):
                    return PAUSE                 # the trigger ended the game
                if p.pick_slots:                # what the moves under way noted goes on
                    for slot in p.pick_slots:        # as the trigger left it
                        kept[slot] = frame[slot]
                frame[:] = kept
            if p.calm_reads is not None:
                st.calm = not fired
            st.dirty.clear()
            return nxt

        def fork(ctx):
            # In the run: the conditions inline, in the triggers' order as `check` tests
            # them (expressions change nothing, so testing them here first changes
            # nothing either, and where one raises, the error is the one `check` meets
            # first); the first that holds calls `check` with its index, which tests the
            # rest and runs the blocks in the order the triggers have then.
            skip, calm_skip = skipped(p, writes), unread(p, writes)
            lines, stirred = [], None
            for i, (_, name, cond, _, _) in enumerate(triggers):
                if name in skip:
                    continue
                test = f"({ctx.test(cond)})"
                if name in calm_skip:
                    if stirred is None:         # not calm: tested (worked out once)
                        stirred = ctx.tmp()
                        lines.append(f"{stirred} = not st.calm")
                    test = f"({stirred} and {test})"
                lines.append(f"if {test}: return {ctx.k(check)}(st, {i:d})")
            done = ["st.dirty.clear()"]
            if p.calm_reads is not None:
                done.insert(0, "st.calm = True")
            return [*lines, *done], None, nxt, [], None
        check.fork = fork
        return check

    # ------------------------------------------------------------------ simple statements
    def writer(self, target: A.Target, scope):
        local = scope.lookup(target.name)
        if local is not None:
            if not local.assignable or target.indices:
                raise self.error(f"{target.name} cannot be assigned", target)
            slot = local.slot
            write_local = lambda st, v: st.frame.__setitem__(slot, v)  # noqa: E731
            write_local.frame_slot = slot    # generated code writes it inline
            return write_local
        p = self.prog
        watched = target.name in self.watched
        name = target.name
        if target.name in p.var_slots and not target.indices:
            slot = p.var_slots[target.name]
            if watched:
                def write_watched(st, v):
                    st.vars[slot] = v
                    st.dirty.add(name)
                write_watched.watched = (lambda ctx: f"{slot:d}", name)   # written inline
                return write_watched
            return lambda st, v: st.vars.__setitem__(slot, v)
        if target.name in p.var_index and target.indices:
            _, table = p.var_index[target.name]
            find = self._lookup(table, [self.expr(i, scope) for i in target.indices],
                                target, f"variable {target.name}")
            if watched:
                def write_index_watched(st, v):
                    st.vars[find(st)] = v
                    st.dirty.add(name)
                write_index_watched.watched = (lambda ctx: ctx.sub(find), name)
                return write_index_watched
            write_index = lambda st, v: st.vars.__setitem__(find(st), v)  # noqa: E731
            write_index.element = find   # `v[k] = x`: generated code writes it inline
            return write_index
        raise self.error(f"{target.name} is not a variable", target)

    def reader(self, target: A.Target, scope):
        node = A.Index(A.Name(target.name), target.indices) if target.indices else \
            A.Name(target.name)
        return self.expr(node, scope)

    def _s_Assign(self, s, scope, code):
        write = self.writer(s.target, scope)
        element = getattr(write, "element", None)
        if element is not None and _folded(element) is None and \
                isinstance(s.value, A.BinOp) and id(s.value) not in self.joins_lists and \
                s.value.left == A.Index(A.Name(s.target.name), s.target.indices):
            self.updated_element(s, scope, code, element)
            return
        value = self.expr(s.value, scope)
        nxt = len(code) + 1
        slot = self.plain_var_slot(s.target, scope)
        if slot is not None:
            def assign_var(st):         # a plain variable: written inline
                st.vars[slot] = value(st)
                return nxt
            assign_var.lines = lambda ctx: [f"st.vars[{slot:d}] = {ctx.sub(value)}"]
            code.append(assign_var)
            return

        def assign(st):                 # one closure layer fewer than `effect`
            write(st, value(st))
            return nxt
        element = getattr(write, "element", None)
        local = getattr(write, "frame_slot", None)
        if local is not None:           # `let`'s local: its slot written inline
            assign.lines = lambda ctx: [f"st.frame[{local:d}] = {ctx.sub(value)}"]
        elif getattr(write, "watched", None) is not None:
            assign.lines = lambda ctx: _watched_lines(ctx, write.watched, ctx.sub(value))
        elif element is None:
            assign.lines = lambda ctx: [f"{ctx.k(write)}(st, {ctx.sub(value)})"]
        else:
            def lines(ctx):             # the value first, then the element, as `write` does
                t = ctx.tmp()
                return [f"{t} = {ctx.sub(value)}", f"st.vars[{ctx.sub(element)}] = {t}"]
            assign.lines = lines
        code.append(assign)

    def updated_element(self, s, scope, code, find):
        """`v[k] = v[k] + x`: the element found once, for the write and for the read the
        value starts with (its left operand, evaluated first: the same element, which
        evaluating the value does not move), which reads it through a local of its own."""
        left = s.value.left             # found as the value's read finds it, so that a
        _, table = self.prog.var_index[s.target.name]   # bad index is placed there
        find = self._lookup(table, [self.expr(i, scope) for i in left.args], left,
                            f"variable {s.target.name}")
        local = Local("scratch", self.new_scratch())
        self.element_read = (left, local)
        try:
            value = self.expr(s.value, scope)
        finally:
            self.element_read = None
        scratch, slot, nxt = self.scratch, local.slot, len(code) + 1

        def update(st):
            i = find(st)
            scratch[slot] = st.vars[i]
            st.vars[i] = value(st)
            return nxt

        def lines(ctx):                 # the element read where the value reads it
            t = ctx.tmp()
            found = [f"{t} = {ctx.sub(find)}"]
            ctx.hold_in("scratch", slot, f"st.vars[{t}]", scratch)
            try:
                return [*found, f"st.vars[{t}] = {ctx.sub(value)}"]
            finally:
                del ctx.held["scratch", slot]
        update.lines = lines
        code.append(update)

    def _s_AugAssign(self, s, scope, code):
        write, read = self.writer(s.target, scope), self.reader(s.target, scope)
        value = self.expr(s.value, scope)
        sign = 1 if s.op == "+" else -1
        op = s.op           # generated code adds or takes away: an int's sign needs no product
        nxt = len(code) + 1
        slot = self.plain_var_slot(s.target, scope)
        want = self.needs_value.get(id(s.target))
        if want is not None:    # an `int?` (or of no type told): read, tested, written
            read, slot = self.needing_value(read, s.target, want), None
        if slot is not None:
            def add_var(st):
                st.vars[slot] += sign * value(st)
                return nxt
            add_var.lines = lambda ctx: [f"st.vars[{slot:d}] {op}= {ctx.sub(value)}"]
            code.append(add_var)
            return
        p = self.prog
        if s.target.indices and s.target.name in p.var_index and want is None and \
                s.target.name not in self.watched and scope.lookup(s.target.name) is None:
            _, table = p.var_index[s.target.name]
            find = self._lookup(table, [self.expr(i, scope) for i in s.target.indices],
                                s.target, f"variable {s.target.name}")

            def add_at(st):             # `v[k] += x`: the element found once
                i = find(st)
                st.vars[i] += sign * value(st)
                return nxt

            def lines(ctx):
                t = ctx.tmp()
                return [f"{t} = {ctx.sub(find)}",
                        f"st.vars[{t}] {op}= {ctx.sub(value)}"]
            add_at.lines = lines
            code.append(add_at)
            return

        def add(st):
            write(st, read(st) + sign * value(st))
            return nxt
        local = getattr(write, "frame_slot", None)
        if local is not None:           # `let`'s local: its slot written inline
            add.lines = lambda ctx: [
                f"st.frame[{local:d}] = {ctx.sub(read)} {op} {ctx.sub(value)}"]
        elif getattr(write, "watched", None) is not None:
            add.lines = lambda ctx: _watched_lines(
                ctx, write.watched, f"{ctx.sub(read)} {op} {ctx.sub(value)}")
        else:
            add.lines = lambda ctx: [
                f"{ctx.k(write)}(st, {ctx.sub(read)} {op} {ctx.sub(value)})"]
        code.append(add)

    def plain_var_slot(self, target: A.Target, scope):
        """The slot of a target that is an unindexed, unwatched game variable, or None."""
        p = self.prog
        if target.indices or scope.lookup(target.name) is not None or \
                target.name in self.watched or target.name not in p.var_slots:
            return None
        return p.var_slots[target.name]

    def _s_Let(self, s, scope, code):
        value = self.expr(s.value, scope)
        slot = scope.bind(s.name, Local("frame", self.new_frame(), assignable=True)).slot
        code.append(_set_frame(slot, value, len(code) + 1))

    def _s_Pass(self, s, scope, code):
        pass

    def cards_of(self, node, scope):
        fn = self.expr(node, scope)

        def others(st, v):
            if isinstance(v, ZoneRef):
                return tuple(reversed(st.zones[v.slot]))
            if v is None:
                raise self.runtime_error("there is no card here (the value is none)", node, st)
            return v

        def cards(st):
            v = fn(st)
            if isinstance(v, Card):
                return (v,)
            return others(st, v)

        def render(ctx):   # one card, the common case, inline
            t = ctx.tmp()
            return (f"(({t},) if isinstance(({t} := {ctx.sub(fn)}), {ctx.k(Card)}) "
                    f"else {ctx.call(others, t)})")

        def any_order(ctx):   # for a consumer the order is nothing to: a zone's own list
            if getattr(fn, "zone_valued", False):
                return f"st.zones[{ctx.sub(fn)}.slot]"
            t = ctx.tmp()
            return (f"(({t},) if isinstance(({t} := {ctx.sub(fn)}), {ctx.k(Card)}) else "
                    f"st.zones[{t}.slot] if isinstance({t}, {ctx.k(ZoneRef)}) else "
                    f"{ctx.call(others, t)})")
        cards.render, cards.any_order = render, any_order
        cards.value, cards.others = fn, others     # for `move`'s one-card path inline
        return cards

    def zone_of_expr(self, node, scope):
        fn = self.expr(node, scope)

        def zone(st):
            z = fn(st)
            if not isinstance(z, ZoneRef):
                raise self.runtime_error(f"this value is {shown(z)}, where a zone is needed",
                                         node, st)
            return z
        constant = getattr(fn, "constant", (None,))[0]
        zone.constant = constant if isinstance(constant, ZoneRef) else None
        zone.kind = self._zone_kind(node, scope, zone.constant)
        if getattr(fn, "zone_valued", False) or zone.constant is not None:
            zone.render = getattr(fn, "render", None)   # always a zone: no test
        else:
            def render(ctx):
                t = ctx.tmp()
                return (f"({t} if isinstance(({t} := {ctx.sub(fn)}), {ctx.k(ZoneRef)}) "
                        f"else {ctx.call(zone, cold=True)})")
            zone.render = render
        return zone

    def _zone_kind(self, node, scope, constant):
        """Returns (is a set, faces up) shared by every zone an expression can give: a
        zone named outright, or an element of a family whose zones are all alike (as
        `hand[p]`); else None (known only at run time)."""
        p = self.prog
        if constant is not None:
            slots = [constant.slot]
        elif isinstance(node, A.Index) and isinstance(node.obj, A.Name) \
                and node.obj.id in p.families and scope.lookup(node.obj.id) is None:
            slots = [z.slot for z in p.families[node.obj.id].values()]
        else:
            return None
        kinds = {(p.is_set[slot], p.zone_info[slot].facing_up) for slot in slots}
        return kinds.pop() if len(kinds) == 1 else None

    def _s_Move(self, s, scope, code):
        cards = self.cards_of(s.cards, scope)
        place = s.place
        dest = self.zone_of_expr(place.zone, scope)
        depth = self.expr(place.depth, scope) if place.depth is not None else None
        kind = place.kind
        facing = None if s.facing is None else s.facing is A.Facing.UP
        info, is_set = self.prog.zone_info, self.prog.is_set
        regroups = self.prog.regroups

        nxt = len(code) + 1

        def move(st):                   # returns the next pc itself: no `effect` layer
            z = dest(st)
            up = info[z.slot].facing_up if facing is None else facing
            d = depth(st) if depth is not None else None
            st.move_cards(cards(st), z.slot, kind, d, up, s)
            return nxt

        def lines(ctx):                 # the same steps, in the same order
            z, d = ctx.tmp(), ctx.tmp()
            up = f"{ctx.k(info)}[{z}.slot].facing_up" if facing is None else repr(facing)
            top = getattr(cards.value, "top_of", None)
            if top is not None:             # `top(zone, n)`: the block, no tuple made
                same = isinstance(s.cards, A.Call) and len(s.cards.args) == 2 \
                    and s.cards.args[0] == place.zone
                steady = False
                if same and dest.kind is not None and facing in (None, dest.kind[1]):
                    up = repr(dest.kind[1])     # every zone it can name faces so
                    steady = all(self.prog.steady[i] for i in _zone_slots(self.prog,
                                                                           place.zone))
                return [f"{z} = {ctx.sub(dest)}",
                        f"{d} = {'None' if depth is None else ctx.sub(depth)}",
                        *_move_block_lines(ctx, top, cards.value, f"{z}.slot", kind, d, up, s,
                                           is_set, z if same else None, dest.kind, steady)]
            if kind is A.PlaceKind.TOP or kind is A.PlaceKind.DEFAULT:   # both go on top
                into_set = None
                if dest.kind is not None:       # set or stack, and facing, known
                    into_set = dest.kind[0]
                    up = repr(dest.kind[1] if facing is None else facing)
                if dest.constant is not None:   # a zone named outright: its slot known
                    return _move_top_lines(ctx, cards, f"{dest.constant.slot:d}", up,
                                           into_set, is_set, s, regroups)
                return [f"{z} = {ctx.sub(dest)}",
                        *_move_top_lines(ctx, cards, f"{z}.slot", up, into_set, is_set, s,
                                         regroups)]
            return [f"{z} = {ctx.sub(dest)}",
                    f"{d} = {'None' if depth is None else ctx.sub(depth)}",
                    f"st.move_cards({ctx.sub(cards)}, {z}.slot, {ctx.k(kind)}, {d}, {up}, "
                    f"{ctx.k(s)})"]
        move.lines = lines
        code.append(move)

    def _deal_fixed(self, s, scope, count) -> bool:
        """Whether a deal's seats and their zones are the same every round: a zone of a
        family indexed by the deal's variable and constants (`pack[p, left]`), for
        `players`, `all_players`, a constant list or a def of no parameters that reads no
        card's place (`alive()`).  Nothing a deal changes is read to find them, so the
        first round finds them for all (not for a deal of one round, which would only pay
        for the list).  A narrow shape on purpose: a local or a parameter may hold a zone
        whose cards the deal changes, and `reads` sees only the rules' global names."""
        d = s.dest
        if not (isinstance(d, A.Index) and isinstance(d.obj, A.Name)
                and d.obj.id in self.prog.families) or _folded(count) in ([0], [1]):
            return False
        for a in d.args:
            if not (isinstance(a, A.Name) and (a.id == s.var or
                                               _folded(self.expr(a, scope)) is not None)):
                return False
        it = s.iter
        if isinstance(it, A.Name) and it.id in ("players", "all_players"):
            return scope.lookup(it.id) is None
        if isinstance(it, A.Call) and not it.args and it.func in self.prog.defs:
            decl = self.prog.defs[it.func]
            return not decl.params and not reads(decl.body, self.prog) & {ZONES, ANY}
        return _folded(self.collection(it, scope)) is not None

    def _s_Deal(self, s, scope, code):
        count, source = self.expr(s.count, scope), self.zone_of_expr(s.source, scope)
        inner = scope.child()
        slot = inner.bind(s.var, Local("frame", self.new_frame())).slot
        targets = self.collection(s.iter, scope)
        dest = self.zone_of_expr(s.dest, inner)
        facing = None if s.facing is None else s.facing is A.Facing.UP
        info = self.prog.zone_info
        fixed = self._deal_fixed(s, scope, count)

        def deal(st):
            src = st.zones[source(st).slot]
            for _ in range(count(st)):
                for p in targets(st):
                    if not src:
                        raise self.runtime_error("cannot deal: the source zone is empty", s, st)
                    st.frame[slot] = p
                    z = dest(st)
                    up = info[z.slot].facing_up if facing is None else facing
                    st.move_top((src[-1],), z.slot, up)
            st.frame[slot] = None
        self.effect(code, deal)

        def empty(st):
            raise self.runtime_error("cannot deal: the source zone is empty", s, st)

        def lines(ctx):   # `deal` written out: each card is the source's top, popped
            src, n, p, z, c, i = (ctx.tmp() for _ in range(6))
            up = f"{ctx.k(info)}[{z}.slot].facing_up" if facing is None else repr(facing)
            into = f"{ctx.k(insort)}(st.zones[{z}.slot], {c}, key={ctx.k(card_order)})"
            place = [f"        if {ctx.k(self.prog.is_set)}[{z}.slot]: {into}",
                     f"        else: st.zones[{z}.slot].append({c})"]
            if dest.kind is not None:           # every destination alike (`hand[p]`)
                up = repr(dest.kind[1] if facing is None else facing)
                place = [f"        {into}" if dest.kind[0] else
                         f"        st.zones[{z}.slot].append({c})"]
            regroup = []                        # by facing too, before the next card
            if self.prog.regroups and (dest.kind is None or dest.kind[0]):
                regroup = [f"        st.regroup(({z}.slot,))"]
            card = [f"        {c} = {src}.pop()",
                    f"        {i} = {c}.id",
                    *place,
                    f"        st.loc[{i}] = {z}.slot",
                    f"        st.up[{i}] = {up}",
                    *regroup]
            if not fixed:
                return [f"{src} = st.zones[{ctx.sub(source)}.slot]",
                        f"for {n} in {ctx.k(range)}({ctx.sub(count)}):",
                        f"    for {p} in {ctx.sub(targets)}:",
                        f"        if not {src}: {ctx.call(empty, cold=True)}",
                        f"        st.frame[{slot:d}] = {p}",   # runs never hold locals
                        f"        {z} = {ctx.sub(dest)}",
                        *card,
                        f"st.frame[{slot:d}] = None"]
            # the destinations read nothing a deal changes: the first round finds each
            # seat's zone, the others deal to the same; the local still holds the seat
            # of the card before, as the loop leaves it, where the source runs out
            pairs, last = ctx.tmp(), ctx.tmp()
            return [f"{src} = st.zones[{ctx.sub(source)}.slot]",
                    f"{pairs} = None",
                    f"for {n} in {ctx.k(range)}({ctx.sub(count)}):",
                    f"    if {pairs} is None:",
                    f"        {pairs} = []",
                    f"        for {p} in {ctx.sub(targets)}:",
                    f"            if not {src}: {ctx.call(empty, cold=True)}",
                    f"            st.frame[{slot:d}] = {p}",
                    f"            {z} = {ctx.sub(dest)}",
                    f"            {pairs} += ({p}, {z}),",
                    *("    " + line for line in card),
                    f"        {last} = st.frame[{slot:d}]",
                    "        continue",
                    f"    for {p}, {z} in {pairs}:",
                    f"        if not {src}:",
                    f"            st.frame[{slot:d}] = {last}",
                    f"            {ctx.call(empty, cold=True)}",
                    *card,
                    f"        {last} = {p}",
                    f"st.frame[{slot:d}] = None"]
        code[-1].lines = lines

    def _s_Flip(self, s, scope, code):
        cards, up = self.cards_of(s.cards, scope), s.facing is A.Facing.UP

        def flip(st):
            for c in cards(st):
                st.up[c.id] = up
        self.effect(code, flip)

        def lines(ctx):
            c = ctx.tmp()
            return [f"for {c} in {cards.any_order(ctx)}: st.up[{c}.id] = {up!r}"]
        code[-1].lines = lines

    def _s_Reveal(self, s, scope, code):
        self.settle_picks(code)
        cards, who = self.cards_of(s.cards, scope), self.expr(s.to, scope)

        def reveal(st):
            bits = 0
            for c in cards(st):
                bits |= 1 << c.id
            players = who(st)
            for p in (players,) if isinstance(players, Seat) else players:
                st.known[p.index] |= bits
        self.effect(code, reveal)

        def lines(ctx):     # the cards first, then who sees them, as `reveal` reads them
            bits, c, seen_by, p = ctx.tmp(), ctx.tmp(), ctx.tmp(), ctx.tmp()
            return [f"{bits} = 0",
                    f"for {c} in {cards.any_order(ctx)}: {bits} |= 1 << {c}.id",
                    f"{seen_by} = {ctx.sub(who)}",
                    f"for {p} in (({seen_by},) if isinstance({seen_by}, {ctx.k(Seat)}) "
                    f"else {seen_by}): st.known[{p}.index] |= {bits}"]
        code[-1].lines = lines

    def _s_Eliminate(self, s, scope, code):
        who = self.expr(s.who, scope)

        def eliminate(st):
            st.out |= 1 << who(st).index
        self.effect(code, eliminate)
        code[-1].lines = lambda ctx: [f"st.out |= 1 << {ctx.sub(who)}.index"]

    def _s_Fail(self, s, scope, code):
        message = self.expr(s.message, scope)

        def fail(st):
            raise self.runtime_error(str(message(st)), s, st)
        self.effect(code, fail)

    def _s_CallRule(self, s, scope, code):
        decl = self.prog.rules.get(s.name)
        if decl is None:
            raise self.error(f"unknown rule {s.name!r}", s)
        if s.name in self.rule_stack:
            raise self.error(f"rule {s.name} calls itself", s)
        if len(s.args) != len(decl.params):
            raise self.error(f"rule {s.name} takes {counted(len(decl.params), 'argument')}", s)
        if s.name not in self.rule_slots:
            self.rule_slots[s.name] = [self.new_frame() for _ in decl.params]
        slots = self.rule_slots[s.name]
        inner = Scope(me=scope.me)
        bound, args = [], []
        for prm, slot, a in zip(decl.params, slots, s.args):
            same = self._frame_local(a, scope)
            if same is not None:        # read where it lies: no copy, no clearing
                inner.bind(prm.name, attrs.evolve(same, assignable=False))
                continue
            inner.bind(prm.name, Local("frame", slot))
            bound.append(slot)
            args.append(self.expr(a, scope))
        slots = bound
        if len(args) == 1:
            code.append(_set_frame(slots[0], args[0], len(code) + 1))
        elif args:
            def bind(st):
                values = [a(st) for a in args]
                for slot, v in zip(slots, values):
                    st.frame[slot] = v
            self.effect(code, bind)

            def lines(ctx):             # every argument first, then the slots, as `bind`
                temps = [ctx.tmp() for _ in args]
                return [f"{t} = {ctx.sub(a)}" for t, a in zip(temps, args)] + [
                    f"st.frame[{slot:d}] = {t}" for slot, t in zip(slots, temps)]
            code[-1].lines = lines
        self.rule_stack.append(s.name)
        self.stmts(decl.body, inner, code)
        self.rule_stack.pop()
        if slots:
            code.append(_clearing(slots, len(code) + 1))

    def _frame_local(self, arg, scope) -> Optional[Local]:
        """The frame local a rule's argument names (a parameter, `let`, loop variable or
        `me` where the `do` is), which the rule's parameter may read where it lies: the
        rule's body cannot write it (a parameter is not assignable, the names where the
        `do` is are not in the rule's scope, and a rule on the stack, or one the actions
        it offers would run, cannot be done again), so it holds the argument's value
        until the rule ends.  None in a game with triggers (`in_place`)."""
        if not isinstance(arg, A.Name) or not self.in_place:
            return None
        local = scope.lookup(arg.id)
        if local is None and arg.id == "me":
            local = scope.me
        if local is None or local.where != "frame":
            return None
        return local

    # ------------------------------------------------------------------ control flow
    def _s_If(self, s, scope, code):
        """Branches on a constant condition (an option) emit no test: the live body runs
        straight, dead ones are compiled (for their errors) but not emitted.  A jump to
        the end placed right before the end is dropped."""
        branches, jumps = [], []      # (pc, cond, skip pc), pcs of the jumps to the end
        branch_list = list(s.branches)
        tested = {}                   # the calls its tests make, counted (`_carried`)
        for k, (cond_node, body) in enumerate(branch_list):
            outer, self.tested_calls = self.tested_calls, tested
            try:
                cond = self.expr(cond_node, scope)
            finally:
                self.tested_calls = outer
            known = getattr(cond, "constant", None)
            if known is not None and not known[0]:
                self.stmts(body, scope, self.dead_code(code))
                continue
            if known is not None:
                self.stmts(body, scope, code)
                rest = self.dead_code(code)
                for later_cond, later_body in branch_list[k + 1:]:
                    self.expr(later_cond, scope)
                    self.stmts(later_body, scope, rest)
                self.stmts(s.else_body, scope, rest)
                break
            here = len(code)
            code.append(None)
            self.stmts(body, scope, code)
            jumps.append(len(code))
            code.append(None)
            branches.append([here, cond, len(code)])
        else:
            self.stmts(s.else_body, scope, code)
        if jumps and jumps[-1] == len(code) - 1:
            code.pop()
            jumps.pop()
            branches[-1][2] -= 1
        end = len(code)
        for here, cond, skip in branches:
            code[here] = self.branch_op(cond, skip, here + 1)
        for j in jumps:
            code[j] = _goto(end)

    def _s_Repeat(self, s, scope, code):
        """The test runs at the head on entry and inside the back jump after each pass
        (one instruction fewer per pass)."""
        count = self.expr(s.count, scope)
        slot = self.new_frame()
        code.append(_set_frame(slot, count, len(code) + 1))
        head = len(code)
        code.append(None)
        self.loop_body(s.body, scope, code)
        end, body, over = len(code) + 1, head + 1, self.looping(s)

        def test(st):
            left = st.frame[slot]
            if left <= 0:
                return end
            st.frame[slot] = left - 1
            return body

        def again(st):
            st.budget -= 1
            if st.budget < 0:
                raise over(st)
            left = st.frame[slot]
            if left <= 0:
                return end
            st.frame[slot] = left - 1
            return body

        def counting(ctx):
            t = ctx.tmp()
            return ([f"{t} = st.frame[{slot:d}]"], f"{t} <= 0", end,
                    [f"st.frame[{slot:d}] = {t} - 1"], body)
        test.fork = counting
        again.fork = lambda ctx: _budgeted(ctx, over, counting(ctx))
        code[head] = test
        code.append(again)
        code.append(_clearing([slot], len(code) + 1))

    def _s_While(self, s, scope, code):
        """The condition is tested at the head on entry and inside the back jump after
        each pass; a constant true one is never tested, a constant false body never
        emitted."""
        cond = self.expr(s.cond, scope)
        known = getattr(cond, "constant", None)
        if known is not None and not known[0]:
            self.loop_body(s.body, scope, self.dead_code(code))
            return
        over = self.looping(s)
        if known is not None:
            head = len(code)
            self.loop_body(s.body, scope, code)

            def again_always(st):
                st.budget -= 1
                if st.budget < 0:
                    raise over(st)
                return head
            again_always.fork = lambda ctx: (_budget(ctx, over), None, head, [], None)
            code.append(again_always)
            return
        head = len(code)
        code.append(None)
        self.loop_body(s.body, scope, code)
        end, body = len(code) + 1, head + 1

        def again(st):
            st.budget -= 1
            if st.budget < 0:
                raise over(st)
            return body if cond(st) else end
        again.fork = lambda ctx: (_budget(ctx, over), ctx.test(cond), body, [], end)
        code[head] = self.branch_op(cond, end, body)
        code.append(again)

    def _s_For(self, s, scope, code):
        items = self.collection(s.iter, scope)
        it_slot, i_slot = self.new_frame(), self.new_frame()
        inner = scope.child()
        var_slot = inner.bind(s.var, Local("frame", self.new_frame(),
                                           card=_all_cards(items),
                                           among=_values_among(items))).slot

        nxt = len(code) + 1

        def start(st):
            st.frame[it_slot] = tuple(items(st))
            st.frame[i_slot] = 0
            return nxt

        def start_tuple(st):            # already a tuple: no copy needed
            frame = st.frame
            frame[it_slot] = items(st)
            frame[i_slot] = 0
            return nxt
        start_tuple.lines = lambda ctx: [f"st.frame[{it_slot:d}] = {ctx.sub(items)}",
                                         f"st.frame[{i_slot:d}] = 0"]
        tupled = _tuple_valued(items)
        first = start_tuple if tupled else start
        code.append(first)
        head = len(code)
        code.append(None)
        self.loop_body(s.body, inner, code)
        end, body, over = len(code) + 1, head + 1, self.looping(s)
        # a run may write the loop as a Python `for` (`_fuse._flat_for`)
        first.flat_for = (items, tupled, var_slot, body, end - 1, end, over)

        def test(st):
            frame = st.frame
            i, values = frame[i_slot], frame[it_slot]
            if i >= len(values):
                return end
            frame[var_slot] = values[i]
            frame[i_slot] = i + 1
            return body

        def again(st):                  # the back jump and the test in one
            st.budget -= 1
            if st.budget < 0:
                raise over(st)
            frame = st.frame
            i, values = frame[i_slot], frame[it_slot]
            if i >= len(values):
                return end
            frame[var_slot] = values[i]
            frame[i_slot] = i + 1
            return body

        def stepping(ctx):
            i, values = ctx.tmp(), ctx.tmp()
            return ([f"{i} = st.frame[{i_slot:d}]", f"{values} = st.frame[{it_slot:d}]"],
                    f"{i} >= len({values})", end,
                    [f"st.frame[{var_slot:d}] = {values}[{i}]",
                     f"st.frame[{i_slot:d}] = {i} + 1"], body)
        test.fork = stepping
        again.fork = lambda ctx: _budgeted(ctx, over, stepping(ctx))
        code[head] = test
        code.append(again)
        code.append(_clearing([it_slot, i_slot, var_slot], len(code) + 1))

    # ------------------------------------------------------------------ ends
    def finish_op(self, who, how, node=None):
        n = len(self.prog.seats)
        seats = self.prog.seats

        def finish(st):
            if how == "win":
                w = who(st)
                winners = {w.index} if isinstance(w, Seat) else {x.index for x in w}
                k = len(winners)
                if k == 0 or k == n:
                    st.finish(tuple(0.0 for _ in range(n)))
                else:
                    lose = -k / (n - k)
                    st.finish(tuple(1.0 if i in winners else lose for i in range(n)))
            elif how == "draw" or self.prog.returns_fn is None:
                st.finish(tuple(0.0 for _ in range(n)))
            else:
                slot, fn = self.prog.returns_fn
                out = []
                try:
                    for seat in seats:
                        self.scratch[slot] = seat
                        out.append(float(fn(st)))
                except OverflowError:
                    self.return_too_large(st)
                st.finish(tuple(out))
            return PAUSE

        def ending(ctx):              # `end game` with returns: each seat's, in seat order
            slot, fn = self.prog.returns_fn
            lines, names = [], []
            outer = ctx.held
            for seat in seats:        # the seat held as a constant: `hand[p]` one slot
                names.append(ctx.tmp())
                ctx.held = dict(outer)
                ctx.hold_in("scratch", slot, ctx.k(seat), self.scratch)
                try:
                    lines.append(f"{names[-1]} = float({ctx.sub(fn)})")
                finally:
                    ctx.held = outer
            lines = ["try:"] + [f"    {line}" for line in lines] + [
                f"except {ctx.k(OverflowError)}:",
                f"    {ctx.call(self.return_too_large, cold=True)}"]
            return lines + [f"st.result = ({', '.join(names)},)", f"st.node = ({END:d},)",
                            f"return {PAUSE:d}"]
        if how == "end":
            finish.tail = lambda ctx: (ending(ctx) if self.prog.returns_fn is not None else
                                       [f"st.result = ({'0.0, ' * n})", f"st.node = ({END:d},)",
                                        f"return {PAUSE:d}"])
        return finish

    def _s_Win(self, s, scope, code):
        self.settle_picks(code)
        code.append(self.finish_op(self.expr(s.who, scope), "win", s))

    def _s_Draw(self, s, scope, code):
        self.settle_picks(code)
        code.append(self.finish_op(None, "draw", s))

    def _s_EndGame(self, s, scope, code):
        self.settle_picks(code)
        code.append(self.finish_op(None, "end", s))

    # ------------------------------------------------------------------ pauses
    def _s_Shuffle(self, s, scope, code):
        self.settle_picks(code)
        zone = self.zone_of_expr(s.zone, scope)
        nxt = len(code) + 1

        def shuffle(st):
            z = zone(st)
            if st.prog.is_set[z.slot]:      # named outright, the checker said so
                raise self.runtime_error(f"{z} is a set zone, whose cards have no order, so "
                                         f"shuffling it would change nothing; declare it a "
                                         f"stack to shuffle it", s, st)
            cards = st.zones[z.slot]
            st.forget(cards)
            if len(cards) < 2:              # every seat sees that nothing is drawn; alike
                return nxt                  # cards it may not see: drawn, one outcome
            st.node = (CHANCE, "shuffle", z.slot)
            st.pc = nxt
            return PAUSE
        code.append(shuffle)

    def _s_RandomChoice(self, s, scope, code):
        self.settle_picks(code)
        domain = self.collection(s.domain, scope)
        slot = scope.bind(s.var, Local("frame", self.new_frame(),
                                       card=_all_cards(domain),
                                       among=_values_among(domain))).slot
        nxt = len(code) + 1
        secret = s.secret
        again = self.loops_open > 0         # drawn in place in a playout's run of draws
        ints = _all_ints(_values_among(domain))

        def empty(st):
            return self.runtime_error("random choice from an empty domain", s, st)

        def random_choice(st):
            values = tuple(domain(st))
            if not values:
                raise empty(st)
            st.node = (CHANCE, "random", slot, values, secret, again)
            st.pc = nxt
            return PAUSE

        def drawing(ctx):
            v, n, k, i, x, o = (ctx.tmp() for _ in range(6))
            if again and _has_runs(domain):     # picked from runs: no list made (a
                # repeated comprehension's would cost more than the rest of the draw)
                c = ctx.tmp()
                listed = f"{ctx.k(runs_expanded)}({v}, {c})"
                outer, ctx.ends = ctx.ends, []
                try:
                    text, ends = _runs_of(ctx, domain), _ends_of(ctx.ends)
                finally:
                    ctx.ends = outer
                if ends is not None and (any(f"({t} := " not in text for t in ends[1])
                                         or "lambda" in text):
                    ends = None     # (each end's temporary bound in this very text)
                total = f"{c}[-1]" if ends is None else ends[1][-1]
                return [f"{v}, {c} = {text}",
                        f"{n} = len({v}) if {c} is None else {total}",
                        f"if not {n}: raise {ctx.k(empty)}(st)",
                        *_drawn_here(ctx, v, n, k, i, x, o, slot, secret, nxt, ints,
                                     runs=(c, listed, ends)),
                        f"st.node = ({CHANCE:d}, {ctx.k('random')}, {slot:d}, {listed}, "
                        f"{secret!r}, {again!r})",
                        f"st.pc = {nxt:d}", f"return {PAUSE:d}"]
            values = ctx.sub(domain) if _tuple_valued(domain) else \
                f"{ctx.k(tuple)}({ctx.sub(domain)})"
            return [f"{v} = {values}",
                    f"if not {v}: raise {ctx.k(empty)}(st)",
                    *(_drawn_here(ctx, v, n, k, i, x, o, slot, secret, nxt, ints)
                      if again else ()),
                    f"st.node = ({CHANCE:d}, {ctx.k('random')}, {slot:d}, {v}, {secret!r}, "
                    f"{again!r})",
                    f"st.pc = {nxt:d}", f"return {PAUSE:d}"]
        random_choice.tail = drawing
        code.append(random_choice)

    def action_body(self, info: ActionInfo, code: list):
        if info.name in self.rule_stack:
            raise self.error(f"action {info.name} can lead back to itself", info.decl)
        self.rule_stack.append(info.name)
        if self.reveals:
            _twin_choice(info, code)
        picks = self.hidden_picks(info, code)
        self.counted_body(info, code)
        self.rule_stack.pop()
        if picks is not None:
            self.settle_picks(code, _note_ends(info, picks))
        _sight(info, code)
        slots = [info.me_slot] + [slot for _, slot, _ in info.params]
        code.append(_clearing(slots, len(code) + 1))

    def counted_body(self, info: ActionInfo, code: list):
        """An action's statements; an action of requires alone counts its moves made
        at its header's line (coverage saw nothing of it: `gdl fuzz` called it dead)."""
        if self.coverage is not None and not info.decl.body:
            self.count_op(code, (info.name, info.decl.span.line, "ActionDecl"))
        self.stmts(info.decl.body, info.scope, code)

    def hidden_picks(self, info: ActionInfo, code: list) -> Optional[int]:
        """Starts an action's statements that may take cards, in a game with a `reveal`
        and a set or a hand, with an instruction noting in a frame slot where each face-
        down card argument lies, what else lies there, what the seats know and who moves,
        where any seat knows a card (`State.hidden_picks`); returns that slot (None: no
        instruction)."""
        if not self.knowing or not info.params or info.card_args is False:
            return None
        if not self.prog.has_twins and not self.prog.triggers and _laid_face_up(info):
            return None     # every seat sees which card it took
        picks, args, me, nxt = self.new_frame(), info.slots, info.me_slot, len(code) + 1
        self.prog.pick_slots += (picks,)

        def note(st):
            if any(st.known):
                st.frame[picks] = st.hidden_picks(args, me)
            return nxt
        note.lines = lambda ctx: [f"if {ctx.k(any)}(st.known): "
                                  f"st.frame[{picks:d}] = st.hidden_picks({ctx.k(args)}, "
                                  f"{me:d})"]
        code.append(note)
        return picks

    def settle_picks(self, code: list, ending: Optional[int] = None):
        """In a game where `hidden_picks` may note cards, the instruction that makes the
        seats forget what the moves under way took where they could not follow them
        (`State.settle_picks`): at an action's end, and before any statement that pauses,
        reveals or ends the game (a seat deciding, or told a card, has what it could
        follow and no more; a card not taken yet is noted again).  `ending`: the note
        slot of an action ending here, emptied after (`_note_ends`)."""
        if not self.knowing:
            return
        nxt = len(code) + 1

        def settle(st):
            if st.prog.pick_slots:
                st.settle_picks(ending)
            return nxt
        prog = self.prog                # (its actions are all compiled when runs are
        settle.lines = lambda ctx: _settle_lines(prog.pick_slots, ending)   # written)
        code.append(settle)

    def _s_Choose(self, s, scope, code):
        self.settle_picks(code)
        player = self.expr(s.player, scope)
        site = Site(len(self.sites), DECIDE, s, self.rule_stack[-1], [])
        self.sites.append(site)
        here = len(code)

        def choose(st):
            st.node = (DECIDE, site, (player(st),))
            st.pc = here
            return PAUSE
        # the checker makes the chooser a seat (a `player?` is tested for none as it is
        # read): generated code takes the node made for it at load, by its seat number,
        # rather than building two tuples at every pause
        nodes = tuple((DECIDE, site, (seat,)) for seat in self.prog.seats)
        choose.tail = lambda ctx: [f"st.node = {ctx.k(nodes)}[{ctx.sub(player)}.index]",
                                   f"st.pc = {here:d}", f"return {PAUSE:d}"]
        code.append(choose)
        after: list = [None]
        for name in s.actions:
            info = self.action(name, s)
            entry = len(code)
            self.action_body(info, code)
            code.append(self.jump_op(after))
            site.actions.append((info, entry))
        after[0] = site.next_pc = len(code)

    def _s_Simultaneous(self, s, scope, code):
        self.settle_picks(code)
        players = self.collection(s.players, scope)
        site = Site(len(self.sites), SIMUL, s, self.rule_stack[-1], [])
        self.sites.append(site)
        for name in s.actions:
            info = self.action(name, s)
            if info.block is None:
                info.block = []
                self.rule_stack.append(info.name)
                if self.reveals:
                    _twin_choice(info, info.block)
                picks = self.hidden_picks(info, info.block)
                self.counted_body(info, info.block)
                self.rule_stack.pop()
                if picks is not None:
                    self.settle_picks(info.block, _note_ends(info, picks))
                _sight(info, info.block)
            site.actions.append((info, None))
        site.takes_cards = any(info.params and info.card_args is not False
                               for info, _ in site.actions)
        here = len(code)
        site.next_pc = here + 1

        def twice(st, who):
            """A seat named twice would commit twice, or wait for ever: the rules' error."""
            names = [p.name for p in who]
            named = sorted({n for n in names if names.count(n) > 1})
            raise self.runtime_error(f"simultaneously names {', '.join(named)} twice: each "
                                     f"seat decides once", s, st)

        unique = site.seat_ordered = _seats_once(s.players)

        def simultaneous(st):
            who = tuple(players(st))
            if not who:
                return here + 1
            if not unique and len(set(who)) != len(who):
                twice(st, who)
            st.node = (SIMUL, site, who, {})
            st.pc = here
            return PAUSE

        def tail(ctx):      # the run ends here: a pause, or on past nobody deciding
            who = ctx.tmp()
            return [f"{who} = {ctx.k(tuple)}({ctx.sub(players)})",
                    f"if not {who}: return {here + 1:d}",
                    *([] if unique else [f"if len({ctx.k(set)}({who})) != len({who}): "
                                         f"{ctx.k(twice)}(st, {who})"]),
                    f"st.node = ({SIMUL:d}, {ctx.k(site)}, {who}, {{}})",
                    f"st.pc = {here:d}", f"return {PAUSE:d}"]
        simultaneous.tail = tail
        code.append(simultaneous)


def _seats_once(node) -> bool:
    """Whether a list of seats names each at most once whatever the state: `players`,
    `all_players`, or those of them a comprehension keeps as they are (each of these in
    seat order, as `players` and the seats are kept)."""
    if isinstance(node, A.ListComp) and len(node.fors) == 1 and \
            isinstance(node.item, A.Name) and node.item.id == node.fors[0].var:
        node = node.fors[0].iter
    return isinstance(node, A.Name) and node.id in ("players", "all_players", "player")


class _DeadCode(list):
    """Where the instructions of a branch that can never run are compiled and dropped;
    `main` says whether it stands in the flow's own code (where decisions may wait)."""
    main = False


def _move_block_lines(ctx, top, value, slot: str, kind, depth: str, up: str, node,
                      is_set=None, same=None, dest_kind=None, steady=False) -> list:
    """`move top(z, n) ...`: the zone's cards and the count read as `top` reads them (a
    count out of range raises `top`'s own error, `value` called), then
    `State.move_block` moves the top n as one block: no tuple of the cards made, no
    test of where they are.  To the bottom or a depth of the same zone, not a set (a
    cut, a shuffle by hand), the depth in range, the block goes there inline as
    `move_block` moves it (the cards' zone stays, their facing is set); anything else
    (an error too) goes to `move_block` as it is.  Where z is written as the destination
    is (`same`, the local holding the destination, worked out just before from the
    same expression, and expressions change nothing), z is that zone, not worked out
    again nor compared; where every zone the destination can name is a stack
    (`dest_kind`), its kind is not tested; where each of them is `steady` (the rules lay
    its cards only at its facing, which the move gives them), the facings are set only
    in a position placed outside the rules."""
    zone, count = top
    c, k, t = ctx.tmp(), ctx.tmp(), ctx.tmp()
    if same is not None:
        head, slot = [f"{t} = {same}.slot", f"{c} = st.zones[{t}]"], t
    else:
        head = [f"{c} = st.zones[{ctx.sub(zone)}.slot]"]
    head += [f"{k} = {ctx.sub(count)}",
             f"if not 0 <= {k} <= len({c}): {ctx.call(value, cold=True)}"]
    call = f"st.move_block({c}, {k}, {slot}, {ctx.k(kind)}, {depth}, {up}, {ctx.k(node)})"
    if is_set is None or kind not in (A.PlaceKind.DEPTH, A.PlaceKind.BOTTOM) or \
            (dest_kind is not None and dest_kind[0]):       # (a set's: never inline)
        return [*head, call]
    tests = []
    if same is None:
        head.append(f"{t} = {slot}")
        tests.append(f"{c} is st.zones[{t}]")
    if dest_kind is None:
        tests.append(f"not {ctx.k(is_set)}[{t}]")
    cut, block, x, u, ups, at = (ctx.tmp() for _ in range(6))
    if kind is A.PlaceKind.DEPTH:     # the block below `depth` of the cards left
        tests.append(f"{depth} is not None and 0 <= {depth} <= len({c}) - {k}")
        place = [f"{at} = {cut} - {depth}", f"{c}[{at}:] = {block} + {c}[{at}:{cut}]"]
    else:
        place = [f"{c}[:] = {block} + {c}[:{cut}]"]
    known = up in ("True", "False")         # a constant: written in the loop
    body = [*([] if known else [f"{u} = {up}"]),
            f"{cut} = len({c}) - {k}",
            f"{block} = {c}[{cut}:]",
            *place,
            f"{ups} = st.up",
            f"for {x} in {block}: {ups}[{x}.id] = {up if known else u}"]
    if steady:
        body[-2:] = ["if st.placed is not None:", *("    " + line for line in body[-2:])]
    if not tests:
        return [*head, *body]
    return [*head, f"if {' and '.join(tests)}:", *("    " + line for line in body),
            f"else: {call}"]


def _move_top_lines(ctx, cards, slot: str, up: str, into_set, is_set, node,
                    regroups: bool = False) -> list:
    """`State.move_top` of one card written out (no call: most moves move one card onto a
    stack, or into a set zone at its place in card order); a whole zone takes
    `State.move_zone`, several cards take `move_top`.  `slot` is the destination's slot
    (a text); `into_set` whether it is a set zone, None if known only at run time (then
    `is_set`, the program's list, tells); `node`, the statement (a list's error).  A card
    drawn from a zone (`card_valued`) needs no test of what it is, nor does a whole zone
    (named outright, or `zone_valued`)."""
    value = cards.value
    named = _folded(value)
    if named and isinstance(named[0], ZoneRef):
        return [f"st.move_zone({named[0].slot:d}, {slot}, {up})"]
    if getattr(value, "zone_valued", False):
        return [f"st.move_zone({ctx.sub(value)}.slot, {slot}, {up})"]
    c, i, src = ctx.tmp(), ctx.tmp(), ctx.tmp()
    if into_set is None:
        place = [f"if {ctx.k(is_set)}[{slot}]: {ctx.k(insort)}(st.zones[{slot}], {c}, "
                 f"key={ctx.k(card_order)})",
                 f"else: st.zones[{slot}].append({c})"]
    elif into_set:
        place = [f"{ctx.k(insort)}(st.zones[{slot}], {c}, key={ctx.k(card_order)})"]
    else:
        place = [f"st.zones[{slot}].append({c})"]
    placed = [*place, f"st.loc[{i}] = {slot}", f"st.up[{i}] = {up}"]
    if into_set is not False and regroups:      # by facing too (`State.regroup`)
        placed.append(f"st.regroup(({slot},))")
    top = getattr(value, "top_card_of", None)
    if top is not None:                 # `top(z)`: taken off z's end, where it lies
        return [f"{src} = st.zones[{top(ctx)}]",
                f"{c} = {src}.pop() if {src} else {ctx.call(value, cold=True)}",
                f"{i} = {c}.id", *placed]
    one = [f"{i} = {c}.id",
           f"{src} = st.zones[st.loc[{i}]]",
           f"if {src}[-1] is {c}: {src}.pop()",
           f"else: {src}.remove({c})",
           *placed]
    if getattr(value, "card_valued", False):
        return [f"{c} = {ctx.sub(value)}", *one]
    return [f"{c} = {ctx.sub(value)}",
            f"if isinstance({c}, {ctx.k(Card)}):",
            *("    " + line for line in one),
            f"elif isinstance({c}, {ctx.k(ZoneRef)}): st.move_zone({c}.slot, {slot}, {up})",
            f"else: st.move_top({ctx.call(cards.others, c)}, {slot}, {up}, {ctx.k(node)})"]


#: the most runs a draw picks from by comparing their ends in turn (`_ends_of`)
CHAINED_RUNS = 6


def _ends_of(found: list):
    """(values, the temporaries holding their runs' ends) where one runs text alone
    rendered for a draw (`Ctx.ends`) and its values are few: comparing the draw's index
    with each end in turn picks the value `bisect_right` would, with no call, and the
    last end is the count; else None."""
    if len(found) != 1 or not 0 < len(found[0][0]) <= CHAINED_RUNS:
        return None
    return found[0]


def _drawn_here(ctx, v, n, k, i, x, o, slot: int, secret: bool, nxt: int,
                ints: bool = False, runs=None) -> list:
    """The lines drawing a random choice among the values in `v` where the rules reach
    it, while a playout takes a run of chance events (`State.random_run` sets `free`,
    the steps it may still take, and `rng`, its generator): drawn, recorded and
    followed as `random_run` would (the pc left as a pause leaves it: it is part of a
    state's key), with no chance node made and no return to it.  Where `v` holds ints
    only (`ints`), the site keeps the history entries it has drawn by value and index
    (`State._entry_seen`): two subscripts, where the program's outcomes take a key
    tuple of four hashed (an int's entry is its value's and index's alone).
    `runs`, (the ends' temporary, the list's text), where `v` and the ends are runs
    (`_runs_of`) of `n` items: the i-th found by where each run ends (the same bits
    drawn, the same value as from the list), the list made only for a new outcome."""
    from .state import State                # state imports this module
    if runs is None:
        size, listed = [f"    {n} = len({v})"], v
        pick = f"{v}[{i}]"
    else:       # the run whose end is the first past i
        (c, listed, ends), size = runs, []
        if ends is None:
            pick = f"({v}[{i}] if {c} is None else {v}[{ctx.k(bisect_right)}({c}, {i})])"
        else:   # a few constant values: the ends' temporaries compared in turn
            values, temps = ends
            chain = "".join(f"{ctx.lit(value)} if {i} < {t} else "
                            for value, t in zip(values, temps[:-1]))
            pick = f"({v}[{i}] if {c} is None else ({chain}{ctx.lit(values[-1])}))"
    if ints:                # the site's own entries, by value then index: no key tuple
        seen = ctx.k({})
        recorded = [f"    try: {o} = {seen}[{x}][{i}]",
                    f"    except {ctx.k(KeyError)}: {o} = {ctx.k(State._entry_seen)}(st, "
                    f"{seen}, {listed}, {i}, {x}, {secret!r})",
                    f"    st.lines.append({o})"]
    else:
        recorded = [f"    try: {o} = st.prog.outcomes[{i}, {ctx.k(type)}({x}), {x}, "
                    f"{secret!r}]",
                    f"    except {ctx.k((KeyError, TypeError))}: "
                    f"{o} = {ctx.k(State._outcome_at)}(st, {listed}, {i}, {secret!r})",
                    f"    st.lines.append({o}.entry)"]
    return ["if st.free:",
            "    st.free -= 1",
            *size,
            f"    {k} = {n}.bit_length()",
            f"    {i} = st.rng.getrandbits({k})",
            f"    while {i} >= {n}: {i} = st.rng.getrandbits({k})",
            f"    {x} = st.frame[{slot:d}] = {pick}",
            *recorded,
            f"    st.budget = {LOOP_BUDGET:d}",
            f"    st.pc = {nxt:d}",
            f"    return {nxt:d}"]


def _place_name(decl) -> str:
    """How a runtime error names the declaration it failed in: a rule, action or trigger
    by its name (`flow` the flow), a def or a table by its kind and name, any other
    (`cards into`, an option) not at all."""
    if isinstance(decl, (A.DefDecl, A.TableDecl)):
        return f"{'def' if isinstance(decl, A.DefDecl) else 'table'} {decl.name}"
    if isinstance(decl, (A.RuleDecl, A.ActionDecl, A.TriggerDecl)):
        return decl.name
    return "flow" if isinstance(decl, A.FlowDecl) else ""


def _goto(target: int):
    fn = lambda st: target  # noqa: E731
    fn.jump_to = [target]
    fn.relink = lambda resolve: _goto(resolve(target))
    fn.fork = lambda ctx: ([], None, target, [], None)
    return fn


def _branch(cond, target: int, nxt: int):
    fn = lambda st: nxt if cond(st) else target  # noqa: E731
    # the sides the test evaluates once and always: a def call among them gives its
    # value a temporary for the elifs after it
    binding = _bound_sides(cond, "carried")

    def fork(ctx):
        ctx.binding = binding
        try:
            return [], ctx.test(cond), nxt, [], target
        finally:
            ctx.binding = frozenset()
    fork.chains = True
    fn.fork = fork
    return fn


def _watched_lines(ctx, watched, value: str) -> list:
    """The lines of a write to a variable a trigger watches (`changed(...)`): the value
    first, then the element (`write_index_watched`'s order), then the mark."""
    where, name = watched
    t = ctx.tmp()
    return [f"{t} = {value}", f"st.vars[{where(ctx)}] = {t}",
            f"st.dirty.add({ctx.k(name)})"]


def _set_frame(slot: int, value, nxt: int):
    """An instruction writing a frame slot from an expression: `let`, a rule's lone
    argument, a `repeat`'s count."""
    def set_frame(st):
        st.frame[slot] = value(st)
        return nxt
    set_frame.lines = lambda ctx: [f"st.frame[{slot:d}] = {ctx.sub(value)}"]
    return set_frame


def _budget(ctx, over) -> list:
    """The lines of a back jump's budget check (`over(st)` gives the error)."""
    return ["st.budget -= 1", f"if st.budget < 0: raise {ctx.k(over)}(st)"]


def _budgeted(ctx, over, fork) -> tuple:
    """A loop test's fork with the back jump's budget check first."""
    before, test, a, after, b = fork
    return (_budget(ctx, over) + before, test, a, after, b)


def _link(code: list):
    """Makes each jump and branch target constant, following jumps that land on a plain
    jump (an `if` nested last in a branch jumps straight to the outer end)."""
    def resolve(pc):
        for _ in range(len(code)):
            if pc >= len(code):
                break
            target = getattr(code[pc], "jump_to", None)
            if target is None:
                break
            pc = target[0]
        return pc
    for i, fn in enumerate(code):
        relink = getattr(fn, "relink", None)
        if relink is not None:
            code[i] = relink(resolve)


def _twin_choice(info, code: list):
    """Starts an action's statements that may take cards with an instruction that swaps
    each card argument lying in a set zone for the twin there that the most seats know
    (`State.known_twin`): a move names a card by its text, which twins share, and which
    of them it takes must not depend on which twin came where (a shuffle's hidden
    order), or what a seat knows afterwards would tell it.  In a game with twins and a
    `reveal` only."""
    if not info.params or info.card_args is False:
        return
    slots, nxt = info.slots, len(code) + 1

    def choose_twin(st):
        if any(st.known):
            st.known_twin(slots)
        return nxt
    choose_twin.lines = lambda ctx: [
        f"if {ctx.k(any)}(st.known): st.known_twin({ctx.k(slots)})"]
    code.append(choose_twin)


def _laid_face_up(info) -> bool:
    """Whether an action of one parameter begins by laying that card face up, nothing
    before that statement pausing, moving or showing anything, and nothing after it
    moving, turning or calling (no card of it can go face down again): every seat sees
    which card it took."""
    if len(info.params) != 1:
        return False
    name, body = info.decl.params[0].name, info.decl.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, A.Move) and isinstance(stmt.cards, A.Name) \
                and stmt.cards.id == name and stmt.facing is A.Facing.UP:
            return not any(isinstance(n, _BEFORE_LAID) for n in walk_all(body[:i])) and \
                not any(isinstance(n, (A.Move, A.Deal, A.Flip, A.Shuffle, A.CallRule))
                        for n in walk_all(body[i + 1:]))
    return False


#: what may not come before `_laid_face_up`'s move: what moves, shows, pauses or ends
_BEFORE_LAID = (A.Move, A.Deal, A.Flip, A.Shuffle, A.CallRule, A.Reveal, A.Choose,
                A.Simultaneous, A.RandomChoice, A.Win, A.Draw, A.EndGame)


def _sight(info, code: list):
    """Ends an action's statements that may take cards with an instruction noting which
    seats see them then (`State.sighted`), where the seats' observations are kept: how
    other seats see the move names a card laid face up even if the rules gather it face
    down before the step is over.  One test of `st.mid` otherwise, none in a generated
    step (random playouts keep no observations)."""
    if not info.params or info.card_args is False:
        return
    slots, nxt = info.slots, len(code) + 1

    def sight(st):
        if st.mid is not None:
            st.sighted(slots)
        return nxt
    sight.lines = lambda ctx: [] if ctx.unobserved else [
        f"if st.mid is not None: st.sighted({ctx.k(slots)})"]
    code.append(sight)


def _clearing(slots, nxt):
    """An instruction that empties frame slots (a block's locals going out of use)."""
    if len(slots) == 1:
        (a,) = slots

        def clear1(st):
            st.frame[a] = None
            return nxt
        clear1.lines = lambda ctx: [f"st.frame[{a:d}] = None"]
        return clear1
    if len(slots) == 2:
        a, b = slots

        def clear2(st):
            frame = st.frame
            frame[a] = frame[b] = None
            return nxt
        clear2.lines = lambda ctx: [f"st.frame[{a:d}] = st.frame[{b:d}] = None"]
        return clear2
    slots = tuple(slots)

    def clear(st):
        frame = st.frame
        for k in slots:
            frame[k] = None
        return nxt
    clear.lines = lambda ctx: [f"st.frame[{k:d}] = None" for k in slots]
    return clear


def compile_program(ruleset: A.Ruleset, overrides: dict,
                    coverage: Optional[dict] = None,
                    trigger_order: Optional[list] = None) -> Program:
    """Returns the compiled program of a checked ruleset with these option values; with a
    `coverage` dict, every statement counts its runs there under (rule, line, kind); with
    a `trigger_order` (names), the triggers are checked in that order, not by priority."""
    return Compiler(ruleset, overrides, coverage, trigger_order).compile()


def _settle_lines(slots, ending: Optional[int] = None) -> list:
    """`Compiler.settle_picks` written out: no line where no action notes cards, and the
    call only where a note is there to settle (most moves leave none)."""
    if not slots:
        return []
    call = "st.settle_picks()" if ending is None else f"st.settle_picks({ending:d})"
    if len(slots) > 4:
        return [call]
    return [f"if {' or '.join(f'st.frame[{s:d}] is not None' for s in slots)}: {call}"]


def _note_ends(info, picks: int) -> Optional[int]:
    """The note slot an action's last settling empties, or None where the note stays.
    A move whose cards every seat reads ends its note of what it took unseen with it: a
    later move of the flow's own, of a card it only named, is one a seat follows by that
    card (it forgot what it had been shown).  Where a `secret` names a parameter that
    may be a card, the note stays (a `when` or not: the safer side), as a seat that could
    not read the pick cannot follow the card when it goes."""
    cards = {name for (name, _, domain), prm in zip(info.params, info.decl.params)
             if not _never_a_card(prm.domain, domain)}
    hidden = any(n in cards for sec in info.decl.secrets for n in sec.names)
    return None if hidden else picks


def _twins_may_differ(p, facings) -> bool:
    """Whether twins in one set zone may come to differ in facing (`Program.regroups`):
    a set zone, and a `flip`, or a move or deal whose facing is not that of a set zone
    it may go to (`facings`, as `_facings_set` gives them)."""
    return any(p.is_set) and any(
        flip or any(p.is_set[i] and p.zone_info[i].facing_up != up for i in slots)
        for up, slots, flip in facings)


def _facings_set(p, decls) -> list:
    """(faces up, the zone slots it may happen in, a flip?) for each statement that sets
    a facing of its own: a move or deal `face up` or `face down` (in the zones its
    destination may be) and a `flip` (in those its cards may lie in).  Nothing else
    turns a card: new cards and a move without `face` take their zone's facing, a
    shuffle keeps it."""
    out = []
    for n in walk_all(decls):
        if isinstance(n, (A.Move, A.Deal)) and n.facing is not None:
            zone = n.place.zone if isinstance(n, A.Move) else n.dest
            out.append((n.facing is A.Facing.UP, _zone_slots(p, zone), False))
        elif isinstance(n, A.Flip):
            cards = n.cards         # a zone, or `cards(z)`, `top(z[, n])`, `bottom(...)`
            if isinstance(cards, A.Call) and cards.func in ("cards", "top", "bottom") \
                    and cards.args:
                cards = cards.args[0]
            out.append((n.facing is A.Facing.UP, _zone_slots(p, cards), True))
    return out


def _zone_slots(p, zone):
    """The slots of the zones an expression may name: a zone named outright, any zone of
    a family indexed; for any other expression, every zone (no local hides a zone's
    name: the checker forbids it)."""
    if isinstance(zone, A.Index) and isinstance(zone.obj, A.Name):
        zone = zone.obj
    if isinstance(zone, A.Name) and zone.id in p.families:
        return [z.slot for z in p.families[zone.id].values()]
    if isinstance(zone, A.Name) and zone.id in p.zone_plain:
        return [p.zone_plain[zone.id].slot]
    return range(len(p.zones))
